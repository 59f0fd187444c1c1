/* msperf — holdout variants and their comparison (see holdout_compare.h). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/format.h>
#include "app/report/report.h"
#include "app/report/holdout_report.h"
#include "app/report/holdout_compare.h"

/* ------------------------------------------------------------------ variants */

void
msperf_holdout_variant_free (msperf_holdout_variant *v)
{
  if (v == NULL)
    return;
  g_free (v->name);
  g_ptr_array_unref (v->keys);
  g_ptr_array_unref (v->values);
  g_free (v);
}

static msperf_holdout_variant *
variant_new (const char *name)
{
  msperf_holdout_variant *v = g_new0 (msperf_holdout_variant, 1);

  v->name = g_strdup (name);
  v->keys = g_ptr_array_new_with_free_func (g_free);
  v->values = g_ptr_array_new_with_free_func (g_free);
  return v;
}

static void
variant_add (msperf_holdout_variant *v, const char *key, const char *value)
{
  g_ptr_array_add (v->keys, strchr (key, '.') ? g_strdup (key)
                                              : g_strconcat ("interpolation.", key, NULL));
  g_ptr_array_add (v->values, g_strdup (value));
}

static gboolean
all_digits (const char *s)
{
  if (*s == '\0')
    return FALSE;
  for (; *s; s++)
    if (!g_ascii_isdigit (*s))
      return FALSE;
  return TRUE;
}

/* A shorthand name as a variant, NULL when it is none. */
static msperf_holdout_variant *
shorthand (const char *name)
{
  msperf_holdout_variant *v;

  if (strcmp (name, "default") != 0 && strcmp (name, "linear") != 0
      && strcmp (name, "log") != 0 && strcmp (name, "median") != 0
      && strcmp (name, "mean") != 0
      && !(g_str_has_prefix (name, "dim") && all_digits (name + 3)))
    return NULL;
  v = variant_new (name);
  if (strcmp (name, "linear") == 0 || strcmp (name, "log") == 0)
    variant_add (v, "interpolation.space", name);
  else if (strcmp (name, "median") == 0 || strcmp (name, "mean") == 0)
    variant_add (v, "interpolation.aggregate", name);
  else if (g_str_has_prefix (name, "dim"))
    variant_add (v, "interpolation.max_interpolation_dim", name + 3);
  return v;
}

gboolean
msperf_holdout_variants_from_compare (const char *list, GPtrArray *out, GError **error)
{
  g_auto (GStrv) items = NULL;

  g_return_val_if_fail (list != NULL && out != NULL, FALSE);
  items = g_strsplit (list, ",", -1);
  for (char **it = items; *it; it++)
    {
      char *name = g_strstrip (*it);
      msperf_holdout_variant *v = shorthand (name);

      if (v == NULL)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "--compare: unknown variant '%s' (default, linear, log, dimN, median, "
                       "mean; anything else with --variant NAME:key=value)", name);
          return FALSE;
        }
      g_ptr_array_add (out, v);
    }
  return TRUE;
}

static gboolean
good_name (const char *name)
{
  if (*name == '\0')
    return FALSE;
  for (; *name; name++)
    if (!g_ascii_isalnum (*name) && !strchr ("_.-+", *name))
      return FALSE;
  return TRUE;
}

/* One "key=value" of a spec into v. */
static gboolean
add_assignment (msperf_holdout_variant *v, const char *text, const char *spec, GError **error)
{
  g_autofree char *item = g_strstrip (g_strdup (text));
  char *eq = strchr (item, '=');

  if (eq == NULL || eq == item || eq[1] == '\0')
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--variant %s: '%s' is not key=value", spec, item);
      return FALSE;
    }
  *eq = '\0';
  variant_add (v, g_strstrip (item), g_strstrip (eq + 1));
  return TRUE;
}

msperf_holdout_variant *
msperf_holdout_variant_parse (const char *spec, GError **error)
{
  g_autoptr (msperf_holdout_variant) v = NULL;
  g_autofree char *name = NULL;
  const char *colon, *p, *start;
  int depth = 0;

  g_return_val_if_fail (spec != NULL, NULL);
  colon = strchr (spec, ':');
  name = colon ? g_strndup (spec, (gsize) (colon - spec)) : g_strdup (spec);
  if (colon == NULL || !good_name (name))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--variant %s: expected NAME:key=value[,key=value…] (NAME of letters, "
                   "digits, _ . - +)", spec);
      return NULL;
    }
  v = variant_new (name);
  /* Split at the commas outside brackets: "modes=[compute,attention_special]" is one. */
  for (p = start = colon + 1;; p++)
    {
      if (*p == '[' || *p == '{')
        depth++;
      else if ((*p == ']' || *p == '}') && depth > 0)
        depth--;
      if (*p != '\0' && (*p != ',' || depth > 0))
        continue;
      if (p > start || *p == ',')
        {
          g_autofree char *item = g_strndup (start, (gsize) (p - start));

          if (!add_assignment (v, item, spec, error))
            return NULL;
        }
      if (*p == '\0')
        break;
      start = p + 1;
    }
  return g_steal_pointer (&v);
}

char *
msperf_holdout_variant_describe (const msperf_holdout_variant *v)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (v != NULL, NULL);
  for (guint k = 0; k < v->keys->len; k++)
    g_string_append_printf (s, "%s%s=%s", k ? ", " : "", (char *) g_ptr_array_index (v->keys, k),
                            (char *) g_ptr_array_index (v->values, k));
  if (s->len == 0)
    g_string_append (s, "built-in policy");
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------ rows */

/* The statistics row of kernel and method (NULL: the kernel's "all" row) in r, or NULL. */
static const msperf_holdout_stats *
find_stats (const msperf_holdout_report *r, const char *kernel, const char *method)
{
  const GPtrArray *list = method ? r->method_stats : r->stats;

  for (guint k = 0; list && k < list->len; k++)
    {
      const msperf_holdout_stats *st = g_ptr_array_index (list, k);

      if (strcmp (st->kernel, kernel) == 0
          && (method ? g_strcmp0 (st->method, method) == 0 : st->dim == 0))
        return st;
    }
  return NULL;
}

static gboolean
has_str (const GPtrArray *a, const char *s)
{
  for (guint k = 0; k < a->len; k++)
    if (strcmp (g_ptr_array_index (a, k), s) == 0)
      return TRUE;
  return FALSE;
}

/* Every kernel of any report, first report first. Transfer container. */
static GPtrArray *
all_kernels (const GPtrArray *reports)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint r = 0; r < reports->len; r++)
    {
      const msperf_holdout_report *rep = g_ptr_array_index (reports, r);

      for (guint k = 0; k < rep->stats->len; k++)
        {
          const msperf_holdout_stats *st = g_ptr_array_index (rep->stats, k);

          if (st->dim == 0 && !has_str (out, st->kernel))
            g_ptr_array_add (out, st->kernel);
        }
    }
  return out;
}

static int
rank (const msperf_holdout_stats *st)
{
  return g_str_has_prefix (st->method, "linear_1d") || g_str_has_prefix (st->method, "griddata_")
           ? st->dim : 100;
}

static gint
cmp_rows (gconstpointer a, gconstpointer b)
{
  const msperf_holdout_stats *x = *(const msperf_holdout_stats *const *) a;
  const msperf_holdout_stats *y = *(const msperf_holdout_stats *const *) b;
  int rx = rank (x), ry = rank (y);

  return rx != ry ? (rx > ry) - (rx < ry) : strcmp (x->method, y->method);
}

/* The method rows of a kernel over every report: one stats per method name, in the reports'
 * order (by dimension, then name). Transfer container. */
static GPtrArray *
kernel_methods (const GPtrArray *reports, const char *kernel)
{
  GPtrArray *firsts = g_ptr_array_new ();
  g_autoptr (GPtrArray) names = g_ptr_array_new ();

  for (guint r = 0; r < reports->len; r++)
    {
      const msperf_holdout_report *rep = g_ptr_array_index (reports, r);

      for (guint k = 0; rep->method_stats && k < rep->method_stats->len; k++)
        {
          const msperf_holdout_stats *st = g_ptr_array_index (rep->method_stats, k);

          if (strcmp (st->kernel, kernel) == 0 && !has_str (names, st->method))
            {
              g_ptr_array_add (names, st->method);
              g_ptr_array_add (firsts, (gpointer) st);
            }
        }
    }
  g_ptr_array_sort (firsts, cmp_rows);
  return firsts;
}

/* The printed cells of one variant's row. */
typedef struct {
  char *recovered, *median, *p90, *max, *confidence;
} cells;

static char *
pct (double v)
{
  return isfinite (v) ? g_strdup_printf ("%.2f%%", v * 100.0) : g_strdup ("-");
}

static void
cells_init (cells *c, const msperf_holdout_stats *st)
{
  if (st == NULL)
    {
      c->recovered = g_strdup ("-");
      c->median = g_strdup ("-");
      c->p90 = g_strdup ("-");
      c->max = g_strdup ("-");
      c->confidence = g_strdup ("-");
      return;
    }
  c->recovered = g_strdup_printf ("%zu/%zu", st->recovered, st->samples);
  c->median = pct (st->median_rel);
  c->p90 = pct (st->p90_rel);
  c->max = pct (st->max_rel);
  if (!isfinite (st->confidence_min))
    c->confidence = g_strdup ("-");
  else if (st->confidence_min == st->confidence_max)
    c->confidence = g_strdup_printf ("%.2f", st->confidence_min);
  else
    c->confidence = g_strdup_printf ("%.2f-%.2f", st->confidence_min, st->confidence_max);
}

static void
cells_clear (cells *c)
{
  g_free (c->recovered);
  g_free (c->median);
  g_free (c->p90);
  g_free (c->max);
  g_free (c->confidence);
}

/* One table row for kernel and method (NULL = all) over every variant, by a writer. */
typedef void (*row_writer) (GString *s, const char *label, const cells *per_variant, guint n);

static void
write_kernel (GString *s, const GPtrArray *reports, const char *kernel, row_writer w)
{
  g_autoptr (GPtrArray) methods = kernel_methods (reports, kernel);
  g_autofree cells *c = g_new0 (cells, reports->len);

  for (guint m = 0; m <= methods->len; m++)
    {
      const char *method = m ? ((const msperf_holdout_stats *)
                                g_ptr_array_index (methods, m - 1))->method : NULL;

      for (guint r = 0; r < reports->len; r++)
        cells_init (&c[r], find_stats (g_ptr_array_index (reports, r), kernel, method));
      w (s, method ? method : "all", c, reports->len);
      for (guint r = 0; r < reports->len; r++)
        cells_clear (&c[r]);
    }
}

/* ------------------------------------------------------------------ text */

#define GROUP_FMT " %11s %8s %8s %8s %9s |"

static void
text_row (GString *s, const char *label, const cells *c, guint n)
{
  g_string_append_printf (s, "%-20s |", label);
  for (guint r = 0; r < n; r++)
    g_string_append_printf (s, GROUP_FMT, c[r].recovered, c[r].median, c[r].p90, c[r].max,
                            c[r].confidence);
  g_string_append_c (s, '\n');
}

static void
selection_text (GString *s, const msperf_holdout_report *r)
{
  g_string_append_printf (s, "(%s", r->leave_one_out ? "leave one coordinate out"
                                                     : "random fraction");
  if (!r->leave_one_out)
    g_string_append_printf (s, " %g, seed %u", r->fraction, r->seed);
  g_string_append_printf (s, ") on %s", r->database ? r->database : "-");
}

char *
msperf_holdout_compare_text (const GPtrArray *variants, const GPtrArray *reports)
{
  GString *s = g_string_new ("Holdout comparison ");
  g_autoptr (GPtrArray) kernels = NULL;

  g_return_val_if_fail (variants && reports && variants->len == reports->len
                        && reports->len > 0, NULL);
  selection_text (s, g_ptr_array_index (reports, 0));
  g_string_append (s, "\nvariants:\n");
  for (guint k = 0; k < variants->len; k++)
    {
      const msperf_holdout_variant *v = g_ptr_array_index (variants, k);
      const msperf_holdout_report *r = g_ptr_array_index (reports, k);
      g_autofree char *d = msperf_holdout_variant_describe (v);

      g_string_append_printf (s, "  %-12s %s (policy hash %.12s)\n", v->name, d,
                              r->policy_hash ? r->policy_hash : "-");
    }
  kernels = all_kernels (reports);
  for (guint k = 0; k < kernels->len; k++)
    {
      const char *kernel = g_ptr_array_index (kernels, k);

      g_string_append_printf (s, "\n%s\n%-20s |", kernel, "");
      for (guint r = 0; r < variants->len; r++)
        g_string_append_printf (s, " %-49s |",
                                ((msperf_holdout_variant *) g_ptr_array_index (variants, r))->name);
      g_string_append_printf (s, "\n%-20s |", "method");
      for (guint r = 0; r < variants->len; r++)
        g_string_append_printf (s, GROUP_FMT, "recovered", "median", "p90", "max", "confidence");
      g_string_append_c (s, '\n');
      write_kernel (s, reports, kernel, text_row);
    }
  if (kernels->len == 0)
    g_string_append (s, "(no coordinate held out)\n");
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------ Markdown, HTML */

static void
md_row (GString *s, const char *label, const cells *c, guint n)
{
  g_string_append (s, "| ");
  msperf_doc_md_cell (s, label);
  for (guint r = 0; r < n; r++)
    g_string_append_printf (s, " | %s | %s | %s | %s | %s", c[r].recovered, c[r].median,
                            c[r].p90, c[r].max, c[r].confidence);
  g_string_append (s, " |\n");
}

static char *
render_md (const GPtrArray *variants, const GPtrArray *reports)
{
  GString *s = g_string_new ("# msperf holdout comparison\n\n- selection: ");
  g_autoptr (GPtrArray) kernels = all_kernels (reports);

  selection_text (s, g_ptr_array_index (reports, 0));
  g_string_append (s, "\n- relative error = |interpolated − measured| / measured; median and "
                      "p90 as numpy.percentile (linear); recovered = interpolated / held out\n"
                      "\n## Variants\n\n| variant | overrides | policy hash |\n|---|---|---|\n");
  for (guint k = 0; k < variants->len; k++)
    {
      const msperf_holdout_variant *v = g_ptr_array_index (variants, k);
      const msperf_holdout_report *r = g_ptr_array_index (reports, k);
      g_autofree char *d = msperf_holdout_variant_describe (v);

      g_string_append (s, "| ");
      msperf_doc_md_cell (s, v->name);
      g_string_append (s, " | ");
      msperf_doc_md_cell (s, d);
      g_string_append (s, " | ");
      msperf_doc_md_cell (s, r->policy_hash ? r->policy_hash : "-");
      g_string_append (s, " |\n");
    }
  for (guint k = 0; k < kernels->len; k++)
    {
      g_string_append (s, "\n## ");
      msperf_doc_md_cell (s, g_ptr_array_index (kernels, k));
      g_string_append (s, "\n\n| method");
      for (guint r = 0; r < variants->len; r++)
        {
          const char *n = ((msperf_holdout_variant *) g_ptr_array_index (variants, r))->name;

          g_string_append_printf (s, " | %s recovered | %s median | %s p90 | %s max | "
                                  "%s confidence", n, n, n, n, n);
        }
      g_string_append (s, " |\n|---");
      for (guint r = 0; r < variants->len; r++)
        g_string_append (s, "|---:|---:|---:|---:|---:");
      g_string_append (s, "|\n");
      write_kernel (s, reports, g_ptr_array_index (kernels, k), md_row);
    }
  return g_string_free (s, FALSE);
}

static void
html_row (GString *s, const char *label, const cells *c, guint n)
{
  g_string_append (s, "<tr><td>");
  msperf_doc_html_escape (s, label);
  g_string_append (s, "</td>");
  for (guint r = 0; r < n; r++)
    g_string_append_printf (s, "<td class=\"n\">%s</td><td class=\"n\">%s</td>"
                            "<td class=\"n\">%s</td><td class=\"n\">%s</td>"
                            "<td class=\"n\">%s</td>", c[r].recovered, c[r].median, c[r].p90,
                            c[r].max, c[r].confidence);
  g_string_append (s, "</tr>\n");
}

static char *
render_html (const GPtrArray *variants, const GPtrArray *reports)
{
  GString *s = g_string_new (NULL);
  g_autoptr (GPtrArray) kernels = all_kernels (reports);
  g_autoptr (GString) sel = g_string_new (NULL);

  selection_text (sel, g_ptr_array_index (reports, 0));
  g_string_append_printf (s, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                          "<title>msperf holdout comparison</title><style>%s</style></head>"
                          "<body>\n<h1>msperf holdout comparison</h1>\n<p>",
                          msperf_doc_html_css ());
  msperf_doc_html_escape (s, sel->str);
  g_string_append (s, "</p>\n<table><tr><th>variant</th><th>overrides</th><th>policy hash</th>"
                      "</tr>\n");
  for (guint k = 0; k < variants->len; k++)
    {
      const msperf_holdout_variant *v = g_ptr_array_index (variants, k);
      const msperf_holdout_report *r = g_ptr_array_index (reports, k);
      g_autofree char *d = msperf_holdout_variant_describe (v);

      g_string_append (s, "<tr><td>");
      msperf_doc_html_escape (s, v->name);
      g_string_append (s, "</td><td>");
      msperf_doc_html_escape (s, d);
      g_string_append (s, "</td><td>");
      msperf_doc_html_escape (s, r->policy_hash ? r->policy_hash : "-");
      g_string_append (s, "</td></tr>\n");
    }
  g_string_append (s, "</table>\n");
  for (guint k = 0; k < kernels->len; k++)
    {
      g_string_append (s, "<h2>");
      msperf_doc_html_escape (s, g_ptr_array_index (kernels, k));
      g_string_append (s, "</h2>\n<table><tr><th rowspan=\"2\">method</th>");
      for (guint r = 0; r < variants->len; r++)
        {
          g_string_append (s, "<th colspan=\"5\">");
          msperf_doc_html_escape (s, ((msperf_holdout_variant *)
                                      g_ptr_array_index (variants, r))->name);
          g_string_append (s, "</th>");
        }
      g_string_append (s, "</tr>\n<tr>");
      for (guint r = 0; r < variants->len; r++)
        g_string_append (s, "<th>recovered</th><th>median</th><th>p90</th><th>max</th>"
                            "<th>confidence</th>");
      g_string_append (s, "</tr>\n");
      write_kernel (s, reports, g_ptr_array_index (kernels, k), html_row);
      g_string_append (s, "</table>\n");
    }
  g_string_append (s, "</body></html>\n");
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------ JSON, entry point */

static char *
render_json (const GPtrArray *variants, const GPtrArray *reports)
{
  g_autoptr (GString) s = g_string_new (NULL);
  msperf_value *doc = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (guint k = 0; k < variants->len; k++)
    {
      const msperf_holdout_variant *v = g_ptr_array_index (variants, k);
      msperf_value *rv = msperf_holdout_report_value (g_ptr_array_index (reports, k));
      msperf_value *ov = msperf_value_new (MSPERF_VALUE_MAP);

      for (guint j = 0; j < v->keys->len; j++)
        msperf_value_map_set (ov, g_ptr_array_index (v->keys, j),
                              msperf_value_new_string (g_ptr_array_index (v->values, j)));
      msperf_value_map_set (rv, "variant", msperf_value_new_string (v->name));
      msperf_value_map_set (rv, "overrides", ov);
      msperf_value_list_append (list, rv);
    }
  msperf_value_map_set (doc, "schema_version", msperf_value_new_int (1));
  msperf_value_map_set (doc, "comparison", msperf_value_new_bool (TRUE));
  msperf_value_map_set (doc, "variants", list);
  msperf_fmt_json_value (s, doc, 2, 0);
  g_string_append_c (s, '\n');
  msperf_value_free (doc);
  return g_strdup (s->str);
}

gboolean
msperf_holdout_compare_write (const GPtrArray *variants, const GPtrArray *reports,
                              const char *path, GError **error)
{
  g_autofree char *lower = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (variants && reports && variants->len == reports->len
                        && reports->len > 0 && path, FALSE);
  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".md") || g_str_has_suffix (lower, ".markdown"))
    text = render_md (variants, reports);
  else if (g_str_has_suffix (lower, ".json"))
    text = render_json (variants, reports);
  else if (g_str_has_suffix (lower, ".html") || g_str_has_suffix (lower, ".htm"))
    text = render_html (variants, reports);
  else
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s: unknown report format (use a .md, .json or .html file name)", path);
      return FALSE;
    }
  return msperf_report_write_file (path, text, -1, error);
}
