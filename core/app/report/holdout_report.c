/* msperf — the holdout report (FORMATS §5): the value tree, the text summary and the
 * Markdown / JSON / HTML documents of a msperf_holdout_report computed by the engine. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/holdout.h>
#include <msperf/format.h>
#include "app/report/report.h"
#include "app/report/holdout_report.h"

/* ------------------------------------------------------------------ value tree (JSON) */

static msperf_value *
num_or_null (double v)
{
  return isfinite (v) ? msperf_value_new_double (v) : msperf_value_new (MSPERF_VALUE_NONE);
}

/* Axis coordinates are counts: integral values as integers. */
static msperf_value *
axis_value (double v)
{
  if (isfinite (v) && v == floor (v) && fabs (v) < 9007199254740992.0)
    return msperf_value_new_int ((int64_t) v);
  return num_or_null (v);
}

static msperf_value *
stats_value (const msperf_holdout_stats *st)
{
  msperf_value *m = msperf_value_new (MSPERF_VALUE_MAP);

  msperf_value_map_set (m, "samples", msperf_value_new_int ((int64_t) st->samples));
  msperf_value_map_set (m, "recovered", msperf_value_new_int ((int64_t) st->recovered));
  msperf_value_map_set (m, "coverage", num_or_null (st->coverage));
  msperf_value_map_set (m, "median_rel_error", num_or_null (st->median_rel));
  msperf_value_map_set (m, "p90_rel_error", num_or_null (st->p90_rel));
  msperf_value_map_set (m, "max_rel_error", num_or_null (st->max_rel));
  return m;
}

static msperf_value *
sample_value (const msperf_holdout_sample *s)
{
  msperf_value *m = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *axes = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *fields = msperf_value_new (MSPERF_VALUE_MAP);

  for (size_t a = 0; a < s->n_axes; a++)
    msperf_value_map_set (axes, s->axis_names[a], axis_value (s->axes[a]));
  for (size_t f = 0; f < s->n_fields; f++)
    msperf_value_map_set (fields, s->field_names[f], msperf_value_new_int (s->fields[f]));
  msperf_value_map_set (m, "kernel", msperf_value_new_string (s->kernel));
  msperf_value_map_set (m, "regime", msperf_value_new_string (s->regime));
  msperf_value_map_set (m, "csv_line", msperf_value_new_int (s->line));
  msperf_value_map_set (m, "rows_removed", msperf_value_new_int ((int64_t) s->n_rows));
  msperf_value_map_set (m, "axes", axes);
  msperf_value_map_set (m, "exact_fields", fields);
  msperf_value_map_set (m, "measured_us", num_or_null (s->measured_us));
  msperf_value_map_set (m, "interpolated_us", num_or_null (s->predicted_us));
  msperf_value_map_set (m, "abs_error_us", num_or_null (s->abs_error_us));
  msperf_value_map_set (m, "rel_error", num_or_null (s->rel_error));
  msperf_value_map_set (m, "source", msperf_value_new_string (s->source));
  msperf_value_map_set (m, "confidence", num_or_null (s->confidence));
  msperf_value_map_set (m, "method", msperf_value_new_string (s->method));
  msperf_value_map_set (m, "interpolation_dim", msperf_value_new_int (s->dim));
  msperf_value_map_set (m, "method_row", msperf_value_new_string (s->method_key));
  msperf_value_map_set (m, "candidate_count", msperf_value_new_int (s->candidate_count));
  msperf_value_map_set (m, "reason", msperf_value_new_string (s->reason));
  return m;
}

/* The confidence label of a method row: one number, a range when the answers differed. */
static char *
confidence_text (const msperf_holdout_stats *st)
{
  if (!isfinite (st->confidence_min))
    return g_strdup ("-");
  if (st->confidence_min == st->confidence_max)
    return g_strdup_printf ("%.2f", st->confidence_min);
  return g_strdup_printf ("%.2f-%.2f", st->confidence_min, st->confidence_max);
}

static msperf_value *
method_value (const msperf_holdout_stats *st)
{
  msperf_value *m = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *v = stats_value (st);

  msperf_value_map_set (m, "method", msperf_value_new_string (st->method));
  msperf_value_map_set (m, "dim", msperf_value_new_int (st->dim));
  for (guint j = 1; j < v->keys->len; j++)   /* samples is the kernel's */
    msperf_value_map_set (m, g_ptr_array_index (v->keys, j),
                          msperf_value_copy (g_ptr_array_index (v->items, j)));
  msperf_value_free (v);
  msperf_value_map_set (m, "confidence", num_or_null (st->confidence_min));
  if (st->confidence_min != st->confidence_max)
    msperf_value_map_set (m, "confidence_max", num_or_null (st->confidence_max));
  return m;
}

/* by_method lists of every kernel entry of kernels (a LIST of maps with "kernel"). */
static void
add_by_method (msperf_value *kernels, const msperf_holdout_report *r)
{
  for (guint k = 0; k < kernels->items->len; k++)
    {
      msperf_value *kv = g_ptr_array_index (kernels->items, k);
      const char *name = msperf_value_get_string (msperf_value_lookup (kv, "kernel"));
      msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

      for (guint j = 0; r->method_stats && j < r->method_stats->len; j++)
        {
          const msperf_holdout_stats *st = g_ptr_array_index (r->method_stats, j);

          if (g_strcmp0 (st->kernel, name) == 0)
            msperf_value_list_append (list, method_value (st));
        }
      msperf_value_map_set (kv, "by_method", list);
    }
}

static msperf_value *
confidence_table_value (const msperf_holdout_report *r)
{
  msperf_value *m = msperf_value_new (MSPERF_VALUE_MAP);

  for (guint k = 0; r->confidence && k < r->confidence->len; k++)
    {
      const msperf_holdout_confidence *c = g_ptr_array_index (r->confidence, k);
      msperf_value *e = msperf_value_new (MSPERF_VALUE_MAP);

      msperf_value_map_set (e, "value", msperf_value_new_double (c->value));
      msperf_value_map_set (e, "from", msperf_value_new_string (c->from_policy ? "policy"
                                                                               : "default"));
      msperf_value_map_set (m, c->key, e);
    }
  return m;
}

msperf_value *
msperf_holdout_report_value (const msperf_holdout_report *r)
{
  msperf_value *doc = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *kernels = msperf_value_new (MSPERF_VALUE_LIST);
  msperf_value *samples = msperf_value_new (MSPERF_VALUE_LIST);
  msperf_value *by_dim = NULL;

  g_return_val_if_fail (r != NULL, NULL);
  for (guint k = 0; k < r->stats->len; k++)
    {
      const msperf_holdout_stats *st = g_ptr_array_index (r->stats, k);
      msperf_value *v = stats_value (st);

      if (st->dim == 0)
        {
          msperf_value *kv = msperf_value_new (MSPERF_VALUE_MAP);

          msperf_value_map_set (kv, "kernel", msperf_value_new_string (st->kernel));
          for (guint j = 0; j < v->keys->len; j++)
            msperf_value_map_set (kv, g_ptr_array_index (v->keys, j),
                                  msperf_value_copy (g_ptr_array_index (v->items, j)));
          msperf_value_free (v);
          by_dim = msperf_value_new (MSPERF_VALUE_LIST);
          msperf_value_map_set (kv, "by_dim", by_dim);
          msperf_value_list_append (kernels, kv);
        }
      else
        {
          msperf_value *dv = msperf_value_new (MSPERF_VALUE_MAP);

          msperf_value_map_set (dv, "dim", msperf_value_new_int (st->dim));
          for (guint j = 1; j < v->keys->len; j++)   /* samples is the kernel's */
            msperf_value_map_set (dv, g_ptr_array_index (v->keys, j),
                                  msperf_value_copy (g_ptr_array_index (v->items, j)));
          msperf_value_free (v);
          msperf_value_list_append (by_dim, dv);
        }
    }
  for (guint k = 0; k < r->samples->len; k++)
    msperf_value_list_append (samples, sample_value (g_ptr_array_index (r->samples, k)));
  msperf_value_map_set (doc, "schema_version", msperf_value_new_int (1));
  msperf_value_map_set (doc, "database", msperf_value_new_string (r->database));
  msperf_value_map_set (doc, "policy_hash", msperf_value_new_string (r->policy_hash));
  msperf_value_map_set (doc, "selection", msperf_value_new_string (r->leave_one_out
                                                                     ? "leave_one_out"
                                                                     : "fraction"));
  msperf_value_map_set (doc, "fraction", msperf_value_new_double (r->fraction));
  msperf_value_map_set (doc, "seed", msperf_value_new_int (r->seed));
  add_by_method (kernels, r);
  msperf_value_map_set (doc, "confidence_table", confidence_table_value (r));
  msperf_value_map_set (doc, "kernels", kernels);
  msperf_value_map_set (doc, "samples", samples);
  return doc;
}

/* ------------------------------------------------------------------ text */

static char *
pct (double v)
{
  return isfinite (v) ? g_strdup_printf ("%.2f%%", v * 100.0) : g_strdup ("-");
}

static char *
num (double v, int decimals)
{
  return isfinite (v) ? g_strdup_printf ("%.*f", decimals, v) : g_strdup ("-");
}

/* The kernel row, then its method rows, for every kernel. */
static void
for_each_row (const msperf_holdout_report *r,
              void (*row) (GString *s, const msperf_holdout_stats *st, const char *method),
              GString *s)
{
  for (guint k = 0; k < r->stats->len; k++)
    {
      const msperf_holdout_stats *st = g_ptr_array_index (r->stats, k);

      if (st->dim != 0)
        continue;
      row (s, st, "all");
      for (guint j = 0; r->method_stats && j < r->method_stats->len; j++)
        {
          const msperf_holdout_stats *m = g_ptr_array_index (r->method_stats, j);

          if (strcmp (m->kernel, st->kernel) == 0)
            row (s, m, m->method);
        }
    }
}

static void
text_row (GString *s, const msperf_holdout_stats *st, const char *method)
{
  g_autofree char *cov = pct (st->coverage), *med = pct (st->median_rel);
  g_autofree char *p90 = pct (st->p90_rel), *max = pct (st->max_rel);
  g_autofree char *conf = confidence_text (st);

  g_string_append_printf (s, "%-28s %-20s %8zu %9zu %9s %9s %9s %9s %10s\n", st->kernel, method,
                          st->samples, st->recovered, cov, med, p90, max, conf);
}

/* "linear_1d 0.70, …" with a '*' after the values the policy set. */
static void
confidence_line (GString *s, const msperf_holdout_report *r)
{
  g_string_append (s, "confidence table:");
  for (guint k = 0; r->confidence && k < r->confidence->len; k++)
    {
      const msperf_holdout_confidence *c = g_ptr_array_index (r->confidence, k);

      g_string_append_printf (s, "%s %s %.2f%s", k ? "," : "", c->key, c->value,
                              c->from_policy ? "*" : "");
    }
  g_string_append (s, " (* = set by the policy)\n");
}

char *
msperf_holdout_summary_text (const msperf_holdout_report *r)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (r != NULL, NULL);
  g_string_append_printf (s, "Holdout (%s", r->leave_one_out ? "leave one coordinate out"
                                                             : "random fraction");
  if (!r->leave_one_out)
    g_string_append_printf (s, " %g, seed %u", r->fraction, r->seed);
  g_string_append_printf (s, ") on %s\n", r->database ? r->database : "-");
  g_string_append_printf (s, "%-28s %-20s %8s %9s %9s %9s %9s %9s %10s\n", "kernel", "method",
                          "samples", "recovered", "coverage", "median", "p90", "max",
                          "confidence");
  for_each_row (r, text_row, s);
  if (r->stats->len == 0)
    g_string_append (s, "(no coordinate held out)\n");
  confidence_line (s, r);
  return g_string_free (s, FALSE);
}

static void
axes_text (GString *out, const msperf_holdout_sample *s)
{
  for (size_t a = 0; a < s->n_axes; a++)
    {
      g_string_append_printf (out, "%s%s=", a ? " " : "", s->axis_names[a]);
      if (isfinite (s->axes[a]))
        g_string_append_printf (out, "%.17g", s->axes[a]);
      else
        g_string_append_c (out, '?');
    }
  for (size_t f = 0; f < s->n_fields; f++)
    g_string_append_printf (out, " %s=%" G_GINT64_FORMAT, s->field_names[f], s->fields[f]);
}

/* The printed cells of one sample row, shared by the Markdown and HTML tables. */
typedef struct {
  GString *axes;
  char *measured;
  char *predicted;
  char *abs_error;
  char *rel_error;
  char *confidence;
} sample_cells;

static void
sample_cells_init (sample_cells *c, const msperf_holdout_sample *x)
{
  c->axes = g_string_new (NULL);
  axes_text (c->axes, x);
  c->measured = num (x->measured_us, 4);
  c->predicted = num (x->predicted_us, 4);
  c->abs_error = num (x->abs_error_us, 4);
  c->rel_error = pct (x->rel_error);
  c->confidence = num (x->confidence, 2);
}

static void
sample_cells_clear (sample_cells *c)
{
  g_string_free (c->axes, TRUE);
  g_free (c->measured);
  g_free (c->predicted);
  g_free (c->abs_error);
  g_free (c->rel_error);
  g_free (c->confidence);
}

/* ------------------------------------------------------------------ Markdown */

static void
md_row (GString *s, const msperf_holdout_stats *st, const char *method)
{
  g_autofree char *cov = pct (st->coverage), *med = pct (st->median_rel);
  g_autofree char *p90 = pct (st->p90_rel), *max = pct (st->max_rel);
  g_autofree char *conf = confidence_text (st);

  g_string_append (s, "| ");
  msperf_doc_md_cell (s, st->kernel);
  g_string_append (s, " | ");
  msperf_doc_md_cell (s, method);
  g_string_append_printf (s, " | %zu | %zu | %s | %s | %s | %s | %s |\n", st->samples,
                          st->recovered, cov, med, p90, max, conf);
}

static void
md_stats (GString *s, const msperf_holdout_report *r)
{
  g_string_append (s, "| kernel | method | samples | recovered | coverage | median rel. error | "
                      "p90 | max | confidence |\n"
                      "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for_each_row (r, md_row, s);
}

/* The confidence table in effect (policy key confidence, FORMATS §3). */
static void
md_confidence (GString *s, const msperf_holdout_report *r)
{
  g_string_append (s, "\n## Confidence table\n\nThe confidence each method's answers carry "
                      "(policy key `confidence`); compare it with the measured errors "
                      "above.\n\n| key | value | from |\n|---|---:|---|\n");
  for (guint k = 0; r->confidence && k < r->confidence->len; k++)
    {
      const msperf_holdout_confidence *c = g_ptr_array_index (r->confidence, k);

      g_string_append (s, "| ");
      msperf_doc_md_cell (s, c->key);
      g_string_append_printf (s, " | %.2f | %s |\n", c->value,
                              c->from_policy ? "policy" : "default");
    }
}

static char *
render_md (const msperf_holdout_report *r)
{
  GString *s = g_string_new ("# msperf holdout report\n\n");

  g_string_append (s, "- database: ");
  msperf_doc_md_cell (s, r->database ? r->database : "-");
  g_string_append (s, "\n- policy hash: ");
  msperf_doc_md_cell (s, r->policy_hash ? r->policy_hash : "-");
  if (r->leave_one_out)
    g_string_append (s, "\n- selection: leave one coordinate out\n");
  else
    g_string_append_printf (s, "\n- selection: random fraction %g of the coordinates, seed %u\n",
                            r->fraction, r->seed);
  g_string_append (s, "- every row at a held-out coordinate is removed and the phase-1 rules "
                      "interpolate at it; relative error = |interpolated − measured| / "
                      "measured; median and p90 as numpy.percentile (linear)\n\n"
                      "## Per kernel and method\n\n");
  md_stats (s, r);
  md_confidence (s, r);
  g_string_append (s, "\n## Samples\n\n| kernel | csv line | target axes | removed µs | "
                      "interpolated µs | abs. error µs | rel. error | source | confidence | "
                      "method | candidates | reason |\n"
                      "|---|---:|---|---:|---:|---:|---:|---|---:|---|---:|---|\n");
  for (guint k = 0; k < r->samples->len; k++)
    {
      const msperf_holdout_sample *x = g_ptr_array_index (r->samples, k);
      sample_cells c;

      sample_cells_init (&c, x);
      g_string_append (s, "| ");
      msperf_doc_md_cell (s, x->kernel);
      g_string_append_printf (s, " | %u | ", x->line);
      msperf_doc_md_cell (s, c.axes->str);
      g_string_append_printf (s, " | %s | %s | %s | %s | %s | %s | ", c.measured, c.predicted,
                              c.abs_error, c.rel_error, x->source, c.confidence);
      msperf_doc_md_cell (s, x->method ? x->method : "-");
      g_string_append_printf (s, " | %" G_GINT64_FORMAT " | ", x->candidate_count);
      msperf_doc_md_cell (s, x->reason ? x->reason : "");
      g_string_append (s, " |\n");
      sample_cells_clear (&c);
    }
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------ HTML */

static const char *const kernel_colors[] = {
  "#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#c62828", "#00838f", "#5d4037", "#757575"
};

/* Predicted vs measured on log-log axes, one colour per kernel, the y = x diagonal. */
static void
svg_scatter (GString *s, const msperf_holdout_report *r)
{
  const int size = 420, left = 60, top = 30, legend_w = 260;
  double lo = INFINITY, hi = -INFINITY, l0, l1;
  g_autoptr (GPtrArray) kernels = g_ptr_array_new ();

  for (guint k = 0; k < r->samples->len; k++)
    {
      const msperf_holdout_sample *x = g_ptr_array_index (r->samples, k);

      if (!x->interpolated || !(x->measured_us > 0) || !(x->predicted_us > 0))
        continue;
      lo = MIN (lo, MIN (x->measured_us, x->predicted_us));
      hi = MAX (hi, MAX (x->measured_us, x->predicted_us));
    }
  g_string_append_printf (s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                          "height=\"%d\" role=\"img\"><title>Interpolated vs measured "
                          "latency</title><text x=\"0\" y=\"18\" class=\"t\">Interpolated vs "
                          "measured latency (µs, log–log)</text>",
                          left + size + legend_w, top + size + 50);
  if (!isfinite (lo))
    {
      g_string_append (s, "<text x=\"60\" y=\"60\">no interpolated sample</text></svg>\n");
      return;
    }
  l0 = floor (log10 (lo));
  l1 = ceil (log10 (hi));
  if (l1 <= l0)
    l1 = l0 + 1;
  g_string_append_printf (s, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                          "stroke=\"#999\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                          "stroke=\"#bbb\" stroke-dasharray=\"4 3\"/>",
                          left, top, size, size, left, top + size, left + size, top);
  for (double d = l0; d <= l1; d++)
    {
      double f = (d - l0) / (l1 - l0) * size;

      g_string_append_printf (s, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">1e%d</text>"
                              "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>",
                              left + f, top + size + 16, (int) d, left - 4,
                              top + size - f + 4, (int) d);
    }
  g_string_append_printf (s, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">measured (removed) "
                          "µs</text>", left + size / 2, top + size + 36);
  for (guint k = 0; k < r->samples->len; k++)
    {
      const msperf_holdout_sample *x = g_ptr_array_index (r->samples, k);
      guint ci;
      double px, py;

      if (!x->interpolated || !(x->measured_us > 0) || !(x->predicted_us > 0))
        continue;
      for (ci = 0; ci < kernels->len; ci++)
        if (strcmp (g_ptr_array_index (kernels, ci), x->kernel) == 0)
          break;
      if (ci == kernels->len)
        g_ptr_array_add (kernels, x->kernel);
      px = left + (log10 (x->measured_us) - l0) / (l1 - l0) * size;
      py = top + size - (log10 (x->predicted_us) - l0) / (l1 - l0) * size;
      g_string_append_printf (s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\" "
                              "fill-opacity=\"0.6\"><title>", px, py,
                              kernel_colors[ci % G_N_ELEMENTS (kernel_colors)]);
      msperf_doc_html_escape (s, x->kernel);
      g_string_append_printf (s, " line %u: measured %.4g, interpolated %.4g µs</title>"
                              "</circle>", x->line, x->measured_us, x->predicted_us);
    }
  for (guint ci = 0; ci < kernels->len; ci++)
    {
      int y = top + 10 + (int) ci * 18;

      g_string_append_printf (s, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" "
                              "fill=\"%s\"/><text x=\"%d\" y=\"%d\">", left + size + 16, y,
                              kernel_colors[ci % G_N_ELEMENTS (kernel_colors)],
                              left + size + 32, y + 9);
      msperf_doc_html_escape (s, g_ptr_array_index (kernels, ci));
      g_string_append (s, "</text>");
    }
  g_string_append (s, "</svg>\n");
}

/* Relative-error histogram as bars (report_doc.c's chart). */
static void
svg_error_histogram (GString *s, const msperf_holdout_report *r)
{
  static const double edges[] = { 0.01, 0.02, 0.05, 0.10, 0.20, 0.50, INFINITY };
  static const char *const labels[] = { "< 1 %", "1–2 %", "2–5 %", "5–10 %", "10–20 %",
                                        "20–50 %", "≥ 50 %" };
  const char *colors[G_N_ELEMENTS (edges)];
  double counts[G_N_ELEMENTS (edges)] = { 0 };

  for (guint k = 0; k < r->samples->len; k++)
    {
      const msperf_holdout_sample *x = g_ptr_array_index (r->samples, k);
      gsize b = 0;

      if (!x->interpolated)
        continue;
      while (b + 1 < G_N_ELEMENTS (edges) && !(x->rel_error < edges[b]))
        b++;
      counts[b]++;
    }
  for (gsize b = 0; b < G_N_ELEMENTS (edges); b++)
    colors[b] = "#1565c0";
  msperf_doc_svg_hbars (s, "Relative error of the interpolated samples", G_N_ELEMENTS (edges),
                        labels, counts, colors, "samples");
}

static char *
render_html (const msperf_holdout_report *r)
{
  GString *s = g_string_new (NULL);
  g_autofree char *summary = msperf_holdout_summary_text (r);

  g_string_append_printf (s, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                          "<title>msperf holdout report</title><style>%s</style></head><body>\n"
                          "<h1>msperf holdout report</h1>\n<pre>", msperf_doc_html_css ());
  msperf_doc_html_escape (s, summary);
  g_string_append (s, "</pre>\n<h2>Confidence table</h2>\n<table><tr><th>key</th>"
                      "<th>value</th><th>from</th></tr>\n");
  for (guint k = 0; r->confidence && k < r->confidence->len; k++)
    {
      const msperf_holdout_confidence *c = g_ptr_array_index (r->confidence, k);

      g_string_append (s, "<tr><td>");
      msperf_doc_html_escape (s, c->key);
      g_string_append_printf (s, "</td><td class=\"n\">%.2f</td><td>%s</td></tr>\n", c->value,
                              c->from_policy ? "policy" : "default");
    }
  g_string_append (s, "</table>\n<h2>Charts</h2>\n");
  svg_scatter (s, r);
  svg_error_histogram (s, r);
  g_string_append (s, "<h2>Samples</h2>\n<table><tr><th>kernel</th><th>csv line</th>"
                      "<th>target axes</th><th>removed µs</th><th>interpolated µs</th>"
                      "<th>abs. error µs</th><th>rel. error</th><th>source</th>"
                      "<th>confidence</th><th>method</th><th>candidates</th><th>reason</th>"
                      "</tr>\n");
  for (guint k = 0; k < r->samples->len; k++)
    {
      const msperf_holdout_sample *x = g_ptr_array_index (r->samples, k);
      sample_cells c;

      sample_cells_init (&c, x);
      g_string_append (s, "<tr><td>");
      msperf_doc_html_escape (s, x->kernel);
      g_string_append_printf (s, "</td><td class=\"n\">%u</td><td>", x->line);
      msperf_doc_html_escape (s, c.axes->str);
      g_string_append_printf (s, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                              "<td class=\"n\">%s</td><td class=\"n\">%s</td><td>%s</td>"
                              "<td class=\"n\">%s</td><td>", c.measured, c.predicted,
                              c.abs_error, c.rel_error, x->source, c.confidence);
      msperf_doc_html_escape (s, x->method ? x->method : "-");
      g_string_append_printf (s, "</td><td class=\"n\">%" G_GINT64_FORMAT "</td><td>",
                              x->candidate_count);
      msperf_doc_html_escape (s, x->reason ? x->reason : "");
      g_string_append (s, "</td></tr>\n");
      sample_cells_clear (&c);
    }
  g_string_append (s, "</table>\n</body></html>\n");
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------ entry point */

gboolean
msperf_holdout_write (const msperf_holdout_report *r, const char *path, GError **error)
{
  g_autofree char *lower = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (r != NULL && path != NULL, FALSE);
  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".md") || g_str_has_suffix (lower, ".markdown"))
    text = render_md (r);
  else if (g_str_has_suffix (lower, ".json"))
    {
      g_autoptr (GString) s = g_string_new (NULL);
      msperf_value *doc = msperf_holdout_report_value (r);

      msperf_fmt_json_value (s, doc, 2, 0);
      g_string_append_c (s, '\n');
      msperf_value_free (doc);
      text = g_strdup (s->str);
    }
  else if (g_str_has_suffix (lower, ".html") || g_str_has_suffix (lower, ".htm"))
    text = render_html (r);
  else
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s: unknown report format (use a .md, .json or .html file name)", path);
      return FALSE;
    }
  return msperf_report_write_file (path, text, -1, error);
}
