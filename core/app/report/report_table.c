/* msperf — the default output: an aligned per-op table and the run summary (FORMATS §5). */
#include <config.h>
#include <math.h>
#include <string.h>
#include "app/report/report.h"
#include <msperf/details.h>
#include "app/run/metrics.h"
#include "app/run/digest.h"
#include <msperf/format.h>

#define OP_WIDTH 48      /* long op names are cut with "…" to keep rows on one line */
#define REASON_WIDTH 32

/* A text table: every cell owned, columns aligned on display width (UTF-8 aware). */
typedef struct {
  guint n_cols;
  const char **headers;
  gboolean *right;             /* right-align (numbers) */
  GPtrArray *cells;            /* char*, row-major */
} text_table;

static glong
width_of (const char *s)
{
  return g_utf8_validate (s, -1, NULL) ? g_utf8_strlen (s, -1) : (glong) strlen (s);
}

/* s cut to at most max display characters, ending with "…" when cut. Transfer full. */
static char *
ellipsize (const char *s, glong max)
{
  GString *r;

  s = s ? s : "";
  if (!g_utf8_validate (s, -1, NULL))
    return g_strndup (s, (gsize) max);
  if (g_utf8_strlen (s, -1) <= max)
    return g_strdup (s);
  r = g_string_new_len (s, g_utf8_offset_to_pointer (s, max - 1) - s);
  g_string_append (r, "…");
  return g_string_free (r, FALSE);
}

static void
table_cell (text_table *t, char *owned)
{
  g_ptr_array_add (t->cells, owned ? owned : g_strdup (""));
}

static void
pad (GString *s, glong n)
{
  for (glong k = 0; k < n; k++)
    g_string_append_c (s, ' ');
}

static void
table_print (const text_table *t, const char *indent, GString *out)
{
  g_autofree glong *widths = g_new0 (glong, t->n_cols);
  g_autoptr (GString) line = g_string_new (NULL);
  guint n_rows = t->cells->len / t->n_cols;

  for (guint c = 0; c < t->n_cols; c++)
    widths[c] = width_of (t->headers[c]);
  for (guint k = 0; k < t->cells->len; k++)
    widths[k % t->n_cols] = MAX (widths[k % t->n_cols],
                                 width_of (g_ptr_array_index (t->cells, k)));
  for (guint r = 0; r <= n_rows; r++)
    {
      g_string_assign (line, indent);
      for (guint c = 0; c < t->n_cols; c++)
        {
          const char *cell = r == 0 ? t->headers[c]
            : g_ptr_array_index (t->cells, (r - 1) * t->n_cols + c);
          glong gap = widths[c] - width_of (cell);

          if (c > 0)
            g_string_append (line, "  ");
          if (t->right[c])
            pad (line, gap);
          g_string_append (line, cell);
          if (!t->right[c] && c + 1 < t->n_cols)
            pad (line, gap);
        }
      g_string_append_c (line, '\n');
      g_string_append (out, line->str);
    }
}

static char *
fixed (double v, int decimals)
{
  GString *s = g_string_new (NULL);
  msperf_fmt_fixed (s, v, decimals);
  return g_string_free (s, FALSE);
}

/* details.axes {M: 6055, K: 3840} → "M=6055,K=3840"; "-" when absent. */
char *
msperf_report_axes_text (const msperf_result *res)
{
  g_autoptr (msperf_value) axes = res ? msperf_result_detail_dup (res, "axes") : NULL;

  return msperf_digest_axes_text (axes);
}

static double
pct (double part, double whole)
{
  return whole > 0 ? 100.0 * part / whole : 0.0;
}

static const char *
or_dash (const char *s)
{
  return (s && *s) ? s : "-";
}

char *
msperf_report_input_shapes_text (const msperf_op *op)
{
  g_autoptr (GPtrArray) top = NULL;
  GString *s = g_string_new (NULL);

  if (op == NULL)
    return g_string_free (s, FALSE);
  top = msperf_op_top_level_tensors (op);
  for (guint k = 0; k < top->len; k++)
    {
      if (k > 0)
        g_string_append_c (s, ' ');
      msperf_fmt_py_shape (s, g_ptr_array_index (top, k));
    }
  return g_string_free (s, FALSE);
}

void
msperf_report_table (const msperf_run *run, FILE *out)
{
  const char *headers[14];
  gboolean right[14];
  guint n = 0;
  gboolean both, shapes;
  text_table t;
  g_autoptr (GPtrArray) firsts = NULL;
  g_autoptr (GArray) counts = NULL;
  g_autoptr (GString) text = NULL;

  g_return_if_fail (run != NULL && out != NULL);
  both = run->use_analytic && run->use_profiling;
  /* Always: rows of one op name differ only by their shapes. */
  shapes = TRUE;
#define COL(name, r) (headers[n] = (name), right[n++] = (r))
  COL ("op", FALSE);
  if (shapes)
    COL ("input_shapes", FALSE);
  COL ("count", TRUE);
  COL ("kernel_type", FALSE);
  COL ("source", FALSE);
  COL ("confidence", TRUE);
  COL ("latency_us", TRUE);
  COL ("total_us", TRUE);
  if (both)
    COL ("analytic_us", TRUE);
  COL ("method", FALSE);
  COL ("axes", FALSE);
  COL ("shape_match_rule", FALSE);
  COL ("miss_reason", FALSE);
#undef COL
  t.n_cols = n;
  t.headers = headers;
  t.right = right;
  t.cells = g_ptr_array_new_with_free_func (g_free);

  firsts = msperf_run_distinct (run, &counts);
  for (guint k = 0; k < firsts->len; k++)
    {
      const msperf_record *r = g_ptr_array_index (firsts, k);
      const msperf_result *res = r->result;
      int64_t count = g_array_index (counts, int64_t, k);
      gboolean rejected = r->op == NULL;
      double lat = (res && !rejected) ? res->latency_us : NAN;

      table_cell (&t, ellipsize (r->op ? r->op->name : or_dash (r->op_name), OP_WIDTH));
      if (shapes)
        table_cell (&t, msperf_report_input_shapes_text (r->op));
      table_cell (&t, g_strdup_printf ("%" G_GINT64_FORMAT, count));
      table_cell (&t, g_strdup (or_dash (res ? res->kernel_type : NULL)));
      table_cell (&t, g_strdup (rejected ? "REJECTED"
                                : msperf_source_name (res ? res->source : MSPERF_SOURCE_NONE)));
      table_cell (&t, (res && !rejected) ? fixed (res->confidence, 2) : g_strdup ("-"));
      table_cell (&t, fixed (lat, 3));
      table_cell (&t, fixed (lat * (double) count, 3));
      if (both)
        table_cell (&t, fixed (rejected ? NAN : r->analytic_us, 3));
      table_cell (&t, g_strdup (or_dash (res ? res->method : NULL)));
      table_cell (&t, msperf_report_axes_text (res));
      table_cell (&t, g_strdup (or_dash (res ? res->shape_match_rule : NULL)));
      table_cell (&t, ellipsize (or_dash (rejected ? r->error : (res ? res->miss_reason : NULL)),
                                 REASON_WIDTH));
    }
  text = g_string_new (NULL);
  table_print (&t, "", text);
  g_ptr_array_unref (t.cells);
  fputs (text->str, out);
  fputc ('\n', out);
  msperf_report_summary (run, out);
}

/* ------------------------------------------------------------------ headline */

typedef struct {
  const msperf_digest *d;
  double total_us;
} contributor;

static int
cmp_contributor (gconstpointer a, gconstpointer b)
{
  double x = ((const contributor *) a)->total_us, y = ((const contributor *) b)->total_us;
  return x < y ? 1 : x > y ? -1 : 0;
}

#define HEADLINE_TOP 3

/* Ops without a latency drop out of the total: the headline says how many and
 * what their roofline estimate would have added, so a total is never silently short. */
static void
headline_unknown (const msperf_run *run, const msperf_summary *s, GString *out)
{
  double removed = 0.0;
  gboolean known = FALSE;

  for (guint k = 0; k < run->records->len; k++)
    {
      const msperf_record *r = g_ptr_array_index (run->records, k);

      if (r->op == NULL || r->result == NULL || isfinite (r->result->latency_us)
          || !isfinite (r->analytic_us))
        continue;
      removed += r->analytic_us * (double) r->count;
      known = TRUE;
    }
  /* A folded run's records are its digests (counts folded in, first-occurrence order). */
  for (guint k = 0; run->digests && k < run->digests->len; k++)
    {
      const msperf_digest *d = g_ptr_array_index (run->digests, k);

      if (d->rejected || !d->answered || isfinite (d->latency_us) || !isfinite (d->analytic_us))
        continue;
      removed += d->analytic_us * (double) d->count;
      known = TRUE;
    }
  g_string_append_printf (out, "  no latency:     %" G_GINT64_FORMAT " invocations (%" G_GINT64_FORMAT
                          " distinct ops) are not in the total", s->unknown_latency_invocations,
                          s->unknown_latency_distinct);
  if (known)
    g_string_append_printf (out, "; their roofline would add %.3f ms (%.1f%%)\n",
                            removed / 1000.0, pct (removed, s->total_us));
  else
    g_string_append (out, "; no estimate of what they remove\n");
}

char *
msperf_report_headline_text (const msperf_run *run)
{
  static const msperf_source shares[] = {
    MSPERF_SOURCE_MEASURED, MSPERF_SOURCE_INTERPOLATED, MSPERF_SOURCE_PARTIAL,
    MSPERF_SOURCE_ANALYTIC
  };
  g_autoptr (msperf_summary) s = msperf_summary_compute (run);
  g_autoptr (GPtrArray) digests = msperf_run_digests (run);
  g_autoptr (GArray) top = g_array_new (FALSE, FALSE, sizeof (contributor));
  g_autofree char *trace_text = NULL;
  GString *out = g_string_new (NULL);

  /* Paths are the user's bytes: a non-UTF-8 or control byte is written as \xNN. */
  trace_text = msperf_fmt_printable (run->trace ? run->trace : "-");
  g_string_append_printf (out, "msperf run\n  trace:          %s\n", trace_text);
  if (run->database)
    {
      g_autofree char *db_text = msperf_fmt_printable (run->database);

      g_string_append_printf (out, "  database:       %s", db_text);
      if (run->database_version || run->database_device)
        g_string_append_printf (out, " (version %s, device %s)",
                                run->database_version ? run->database_version : "-",
                                run->database_device ? run->database_device : "-");
      g_string_append_c (out, '\n');
    }
  else
    g_string_append (out, "  database:       none (analytic only)\n");
  g_string_append_printf (out, "  device profile: %s\n  policy hash:    %.16s\n",
                          or_dash (run->device_profile), or_dash (run->policy_hash));
  g_string_append_printf (out, "  total latency:  %.3f ms (%" G_GINT64_FORMAT " invocations, %"
                          G_GINT64_FORMAT " distinct ops)\n  answered:      ", s->total_us / 1000.0,
                          s->invocations, s->distinct);
  for (gsize k = 0; k < G_N_ELEMENTS (shares); k++)
    {
      g_string_append_printf (out, " %s %.1f%%%s", msperf_source_name (shares[k]),
                              pct (s->by_source[shares[k]].time_us, s->total_us),
                              k + 1 < G_N_ELEMENTS (shares) ? "," : " (share of the total)\n");
      /* Extrapolated answers (opt-in) get their own share, only when there are some. */
      if (shares[k] == MSPERF_SOURCE_INTERPOLATED
          && s->by_source[MSPERF_SOURCE_EXTRAPOLATED].distinct > 0)
        g_string_append_printf (out, " %s %.1f%%,", msperf_source_name (MSPERF_SOURCE_EXTRAPOLATED),
                                pct (s->by_source[MSPERF_SOURCE_EXTRAPOLATED].time_us,
                                     s->total_us));
    }
  if (s->unknown_latency_invocations > 0)
    headline_unknown (run, s, out);
  for (guint k = 0; k < digests->len; k++)
    {
      const msperf_digest *d = g_ptr_array_index (digests, k);
      contributor c = { d, 0.0 };
      if (d->rejected || !d->answered || !isfinite (d->latency_us))
        continue;
      c.total_us = d->latency_us * (double) d->count;
      g_array_append_val (top, c);
    }
  g_array_sort (top, cmp_contributor);
  for (guint k = 0; k < top->len && k < HEADLINE_TOP; k++)
    {
      const contributor *c = &g_array_index (top, contributor, k);
      g_autofree char *shapes = msperf_digest_shapes_text (c->d);
      g_string_append_printf (out, "  %s %s %s: %.3f ms (%.1f%%, %s)\n",
                              k == 0 ? "largest:       " : "               ", c->d->name,
                              shapes, c->total_us / 1000.0, pct (c->total_us, s->total_us),
                              msperf_source_name (c->d->source));
    }
  if (run->warnings && run->warnings->len)
    g_string_append_printf (out, "  warnings:       %u (on stderr and in --report)\n",
                            run->warnings->len);
  return g_string_free (out, FALSE);
}

void
msperf_report_headline (const msperf_run *run, FILE *out)
{
  g_autofree char *text = NULL;

  g_return_if_fail (run != NULL && out != NULL);
  text = msperf_report_headline_text (run);
  fputs (text, out);
  fputc ('\n', out);
}

/* ------------------------------------------------------------------ summary */

static void
print_sources (const msperf_summary *s, GString *out)
{
  static const msperf_source order[] = {
    MSPERF_SOURCE_MEASURED, MSPERF_SOURCE_INTERPOLATED, MSPERF_SOURCE_EXTRAPOLATED,
    MSPERF_SOURCE_PARTIAL, MSPERF_SOURCE_ANALYTIC, MSPERF_SOURCE_NONE, MSPERF_SOURCE_REJECTED
  };
  const char *headers[] = { "source", "invocations", "distinct", "time_us", "time_%" };
  gboolean right[] = { FALSE, TRUE, TRUE, TRUE, TRUE };
  text_table t = { 5, headers, right, g_ptr_array_new_with_free_func (g_free) };

  for (gsize k = 0; k < G_N_ELEMENTS (order); k++)
    {
      const msperf_source_total *st = &s->by_source[order[k]];
      gboolean rejected = order[k] == MSPERF_SOURCE_REJECTED;

      if (st->distinct == 0 && (order[k] == MSPERF_SOURCE_NONE || rejected
                                || order[k] == MSPERF_SOURCE_EXTRAPOLATED))
        continue;
      table_cell (&t, g_strdup (msperf_source_name (order[k])));
      table_cell (&t, g_strdup_printf ("%" G_GINT64_FORMAT, st->invocations));
      table_cell (&t, g_strdup_printf ("%" G_GINT64_FORMAT, st->distinct));
      table_cell (&t, rejected ? g_strdup ("-") : fixed (st->time_us, 3));
      table_cell (&t, rejected ? g_strdup ("-") : fixed (pct (st->time_us, s->total_us), 1));
    }
  table_print (&t, "  ", out);
  g_ptr_array_unref (t.cells);
}

static void
print_metrics (const msperf_metrics *m, GString *out)
{
  /* Labels as upstream MetricsCollector.log_stats prints them. */
  g_string_append_printf (out, "Metrics (one record per distinct op, as upstream)\n");
  g_string_append_printf (out, "  M1 Raw Op-Count Match Rate: %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
           " ops matched (%.1f%%)\n", m->m1_hit, m->m1_total, m->m1_hr * 100);
  g_string_append_printf (out, "  M2 Fused Op Match Rate: %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
           " (%.1f%%) [GO/NO-GO]\n", m->m2_fused_hit, m->m2_fused_total, m->m2_hr * 100);
  g_string_append_printf (out, "  M3 Fused Op Match Rate (excl zero_cost): %" G_GINT64_FORMAT "/%"
           G_GINT64_FORMAT " (%.1f%%) [Reference]\n", m->m3_hit, m->m3_total, m->m3_hr * 100);
  g_string_append_printf (out, "  M4 Per-Shape Match Rate: %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
           " (%.1f%%)\n", m->m4_hit_shapes, m->m4_total_shapes, m->m4_hr * 100);
  g_string_append_printf (out, "  M5 Simulated Latency Coverage: %.1f%% (%.3fms / %.3fms)\n",
           m->m5_coverage * 100, m->m5_hit_s * 1000, m->m5_total_s * 1000);
  g_string_append_printf (out, "  By invocation (msperf): %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
           " invocations matched (%.1f%%), latency coverage %.1f%%\n",
           m->inv_hit, m->inv_hit + m->inv_miss, m->inv_m1_hr * 100, m->inv_m5_coverage * 100);
}

static int
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

#define INTERP_LIST_TOP 20

/* Seed 000 §7.1 "Profiling interpolation summary": counts, then the interpolated ops (the
 * first INTERP_LIST_TOP unless all). */
static void
print_interpolation (const msperf_run *run, const msperf_summary *s, gboolean all, GString *out)
{
  guint listed = 0;
  const char *headers[] = { "op_name", "source", "confidence", "method", "dim", "axes",
                            "latency_us" };
  gboolean right[] = { FALSE, FALSE, TRUE, FALSE, TRUE, FALSE, TRUE };
  text_table t = { 7, headers, right, g_ptr_array_new_with_free_func (g_free) };
  g_autoptr (GPtrArray) methods = g_ptr_array_new ();
  g_autoptr (GPtrArray) digests = msperf_run_digests (run);
  int64_t total = s->by_source[MSPERF_SOURCE_INTERPOLATED].distinct;
  GHashTableIter it;
  gpointer key;

  g_hash_table_iter_init (&it, s->interpolated_by_method);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_ptr_array_add (methods, key);

  g_string_append_printf (out, "Profiling interpolation summary\n");
  g_string_append_printf (out, "  interpolated ops: %" G_GINT64_FORMAT " distinct (1d: %" G_GINT64_FORMAT
           ", 2d: %" G_GINT64_FORMAT ", 3d: %" G_GINT64_FORMAT ")", total,
           s->interpolated_by_dim[1], s->interpolated_by_dim[2], s->interpolated_by_dim[3]);
  g_ptr_array_sort (methods, cmp_str);
  for (guint k = 0; k < methods->len; k++)
    g_string_append_printf (out, "%s%s: %d", k ? ", " : "; by method: ", (char *) g_ptr_array_index (methods, k),
             GPOINTER_TO_INT (g_hash_table_lookup (s->interpolated_by_method,
                                                   g_ptr_array_index (methods, k))));
  g_string_append_c (out, '\n');
  if (s->by_source[MSPERF_SOURCE_EXTRAPOLATED].distinct > 0)
    g_string_append_printf (out, "  extrapolated ops: %" G_GINT64_FORMAT " distinct (counted "
                            "apart from interpolated; source EXTRAPOLATED)\n",
                            s->by_source[MSPERF_SOURCE_EXTRAPOLATED].distinct);
  for (guint k = 0; k < digests->len; k++)
    {
      const msperf_digest *d = g_ptr_array_index (digests, k);

      if (d->rejected || !d->answered || d->source != MSPERF_SOURCE_INTERPOLATED)
        continue;
      /* A 200k-line trace listed 27 096 ops here and buried the summary: the first N, then
       * a count (--list-all, -v or the report for all). */
      if (!all && listed++ >= INTERP_LIST_TOP)
        continue;
      table_cell (&t, ellipsize (d->name, OP_WIDTH));
      table_cell (&t, g_strdup (msperf_source_name (d->source)));
      table_cell (&t, fixed (d->confidence, 2));
      table_cell (&t, g_strdup (or_dash (d->method)));
      table_cell (&t, g_strdup_printf ("%d", d->interpolation_dim));
      table_cell (&t, g_strdup (d->axes ? d->axes : "-"));
      table_cell (&t, fixed (d->latency_us, 3));
    }
  if (t.cells->len > 0)
    table_print (&t, "  ", out);
  if (!all && listed > INTERP_LIST_TOP)
    g_string_append_printf (out, "  … and %u more interpolated ops (--list-all or -v lists them "
                            "all; a --report has them all)\n", listed - INTERP_LIST_TOP);
  g_ptr_array_unref (t.cells);
}

char *
msperf_report_summary_text (const msperf_run *run)
{
  g_autoptr (msperf_summary) s = NULL;
  g_autoptr (msperf_metrics) m = NULL;
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (run != NULL, g_string_free (out, FALSE));
  s = msperf_summary_compute (run);
  m = msperf_metrics_compute (run);
  g_string_append_printf (out, "Summary\n");
  g_string_append_printf (out, "  total time: %.3f us (%" G_GINT64_FORMAT " invocations, %" G_GINT64_FORMAT
           " distinct ops, %" G_GINT64_FORMAT " input lines)\n",
           s->total_us, s->invocations, s->distinct, s->lines);
  if (run->use_analytic && run->use_profiling)
    g_string_append_printf (out, "  analytic (roofline) total: %.3f us\n", s->analytic_total_us);
  if (s->unknown_latency_invocations > 0)
    g_string_append_printf (out, "  without a latency (not in the total): %" G_GINT64_FORMAT
             " invocations, %" G_GINT64_FORMAT " distinct ops\n",
             s->unknown_latency_invocations, s->unknown_latency_distinct);
  if (s->rejected > 0)
    g_string_append_printf (out, "  rejected input lines: %" G_GINT64_FORMAT "\n", s->rejected);
  if (s->counts_saturated)
    g_string_append (out, "  warning: invocation counts overflow int64; sums saturated at "
                          "9223372036854775807\n");
  print_sources (s, out);
  if (run->use_profiling)
    {
      print_metrics (m, out);
      print_interpolation (run, s, run->list_all || run->report_all, out);
    }
  return g_string_free (out, FALSE);
}

void
msperf_report_summary (const msperf_run *run, FILE *out)
{
  g_autofree char *text = NULL;

  g_return_if_fail (run != NULL && out != NULL);
  text = msperf_report_summary_text (run);
  fputs (text, out);
  fflush (out);
}
