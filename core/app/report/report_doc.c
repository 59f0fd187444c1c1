/* msperf — the --report document: Markdown, JSON or one self-contained HTML file with inline
 * SVG charts (time by source, top ops by time, confidence histogram). */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/details.h>
#include "app/report/report.h"
#include "app/run/metrics.h"
#include <msperf/format.h>

#define TOP_OPS 10
#define FACT_MAX 400   /* long detail values (candidate lists) are cut in the document */

typedef struct {
  const msperf_record *record;
  int64_t count;
  double total_us;
} op_row;

/* Distinct ops (rejected lines included) in first-occurrence order. Transfer full. */
static GArray *
op_rows (const msperf_run *run)
{
  g_autoptr (GPtrArray) firsts = NULL;
  g_autoptr (GArray) counts = NULL;
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (op_row));

  firsts = msperf_run_distinct (run, &counts);
  for (guint k = 0; k < firsts->len; k++)
    {
      op_row row;
      row.record = g_ptr_array_index (firsts, k);
      row.count = g_array_index (counts, int64_t, k);
      row.total_us = (row.record->op && row.record->result
                      && isfinite (row.record->result->latency_us))
        ? row.record->result->latency_us * (double) row.count : 0.0;
      g_array_append_val (rows, row);
    }
  return rows;
}

static const char *
row_name (const op_row *row)
{
  const msperf_record *r = row->record;
  return r->op ? r->op->name : (r->op_name && *r->op_name ? r->op_name : "(rejected line)");
}

static const char *
row_source (const op_row *row)
{
  const msperf_record *r = row->record;
  if (r->op == NULL || r->result == NULL)
    return "REJECTED";
  return msperf_source_name (r->result->source);
}

static char *
num (double v, int decimals)
{
  GString *s = g_string_new (NULL);
  msperf_fmt_fixed (s, v, decimals);
  return g_string_free (s, FALSE);
}

/* text cut to max characters, ending with "…" when cut. Transfer full. */
static char *
cut_text (const char *text, glong max)
{
  GString *r;

  if (!g_utf8_validate (text, -1, NULL) || g_utf8_strlen (text, -1) <= max)
    return g_strdup (text);
  r = g_string_new_len (text, g_utf8_offset_to_pointer (text, max - 1) - text);
  g_string_append (r, "…");
  return g_string_free (r, FALSE);
}

static void
add_fact (GPtrArray *facts, const char *label, char *owned_value)
{
  if (owned_value == NULL)
    return;
  g_ptr_array_add (facts, g_strdup (label));
  g_ptr_array_add (facts, cut_text (owned_value, FACT_MAX));
  g_free (owned_value);
}

static char *
detail_text (const msperf_result *res, const char *key)
{
  const msperf_value *v = msperf_value_lookup (msperf_result_details (res), key);
  GString *s;

  if (v == NULL || v->kind == MSPERF_VALUE_NONE)
    return NULL;
  if (v->kind == MSPERF_VALUE_LIST && v->items->len == 0)
    return NULL;
  s = g_string_new (NULL);
  msperf_fmt_py_str (s, v);
  return g_string_free (s, FALSE);
}

/* Label/value pairs describing one op (flat array: label, value, label, value…). */
static GPtrArray *
op_facts (const op_row *row)
{
  const msperf_record *r = row->record;
  const msperf_result *res = r->result;
  GPtrArray *f = g_ptr_array_new_with_free_func (g_free);

  add_fact (f, "source", g_strdup (row_source (row)));
  add_fact (f, "count", g_strdup_printf ("%" G_GINT64_FORMAT, row->count));
  if (r->op == NULL || res == NULL)
    {
      add_fact (f, "line", g_strdup_printf ("%u", r->line));
      add_fact (f, "error", g_strdup (r->error ? r->error : "rejected"));
      return f;
    }
  add_fact (f, "confidence", num (res->confidence, 2));
  add_fact (f, "latency_us", num (res->latency_us, 3));
  add_fact (f, "total_us", num (res->latency_us * (double) row->count, 3));
  add_fact (f, "analytic_us", num (r->analytic_us, 3));
  add_fact (f, "input_shapes", msperf_report_input_shapes_text (r->op));
  add_fact (f, "kernel_type", g_strdup (res->kernel_type));
  add_fact (f, "method", g_strdup (res->method));
  if (res->interpolation_dim > 0)
    add_fact (f, "interpolation_dim", g_strdup_printf ("%d", res->interpolation_dim));
  add_fact (f, "shape_match_rule", g_strdup (res->shape_match_rule));
  add_fact (f, "axes", detail_text (res, "axes"));
  add_fact (f, "candidate_count", detail_text (res, "candidate_count"));
  add_fact (f, "candidates", detail_text (res, "candidate_points"));
  add_fact (f, "boundary", detail_text (res, "boundary"));
  add_fact (f, "axis_boundary", detail_text (res, "axis_boundary"));
  add_fact (f, "miss_reason", g_strdup (res->miss_reason));
  add_fact (f, "base_reason", detail_text (res, "base_reason"));
  add_fact (f, "fallback_reasons", detail_text (res, "fallback_reasons"));
  add_fact (f, "missed_kernels", detail_text (res, "missed_kernels"));
  return f;
}

/* The run's header lines, "label: value" each between open and close, value escaped. */
static void
append_run_header (GString *s, const msperf_run *run, void (*escape) (GString *, const char *),
                   const char *open, const char *close)
{
  g_autofree char *database = run->database ? msperf_fmt_printable (run->database) : NULL;
  const char *const facts[] = {
    "database", database ? database : "(none: analytic only)",
    "policy hash", run->policy_hash ? run->policy_hash : "-",
    "device profile", run->device_profile ? run->device_profile : "-",
  };

  for (size_t k = 0; k + 1 < G_N_ELEMENTS (facts); k += 2)
    {
      g_string_append_printf (s, "%s%s: ", open, facts[k]);
      escape (s, facts[k + 1]);
      g_string_append (s, close);
    }
}

/* The printed numbers of one row of the ops table ("-" / blank for a rejected line). */
typedef struct {
  char *confidence;
  char *latency;
  char *total;
  const char *method;
} row_cells;

static void
row_cells_init (row_cells *c, const op_row *row)
{
  const msperf_result *res = row->record->op ? row->record->result : NULL;

  c->confidence = res ? num (res->confidence, 2) : g_strdup ("-");
  c->latency = num (res ? res->latency_us : NAN, 3);
  c->total = num (res ? row->total_us : NAN, 3);
  c->method = res && res->method ? res->method : "-";
}

static void
row_cells_clear (row_cells *c)
{
  g_free (c->confidence);
  g_free (c->latency);
  g_free (c->total);
}

/* ------------------------------------------------------------------ Markdown */

static void
md_cell (GString *s, const char *text)
{
  for (const char *p = text ? text : ""; *p; p++)
    {
      if (*p == '|' || *p == '\\' || *p == '`' || *p == '*' || *p == '_' || *p == '<')
        g_string_append_c (s, '\\');
      g_string_append_c (s, (*p == '\n' || *p == '\r') ? ' ' : *p);
    }
}

static char *
render_md (const msperf_run *run, GArray *rows)
{
  GString *s = g_string_new ("# msperf report\n\n");
  g_autofree char *summary = msperf_report_summary_text (run);

  g_autofree char *headline = msperf_report_headline_text (run);

  g_string_append (s, "```text\n");
  g_string_append (s, headline);
  g_string_append (s, "```\n\n");
  append_run_header (s, run, md_cell, "- ", "\n");
  if (run->warnings->len)
    {
      g_string_append (s, "\n## Warnings\n\n");
      for (guint k = 0; k < run->warnings->len; k++)
        {
          g_string_append (s, "- ");
          md_cell (s, g_ptr_array_index (run->warnings, k));
          g_string_append_c (s, '\n');
        }
    }
  g_string_append (s, "\n## Summary\n\n```text\n");
  g_string_append (s, summary);
  g_string_append (s, "```\n\n## Ops\n\n"
                   "| # | op | count | source | confidence | latency_us | total_us | method |\n"
                   "|---:|---|---:|---|---:|---:|---:|---|\n");
  for (guint k = 0; k < rows->len; k++)
    {
      const op_row *row = &g_array_index (rows, op_row, k);
      row_cells c;

      row_cells_init (&c, row);
      g_string_append_printf (s, "| %u | ", k + 1);
      md_cell (s, row_name (row));
      g_string_append_printf (s, " | %" G_GINT64_FORMAT " | %s | %s | %s | %s | ", row->count,
                              row_source (row), c.confidence, c.latency, c.total);
      md_cell (s, c.method);
      g_string_append (s, " |\n");
      row_cells_clear (&c);
    }
  g_string_append (s, "\n## Op details\n");
  for (guint k = 0; k < rows->len; k++)
    {
      const op_row *row = &g_array_index (rows, op_row, k);
      g_autoptr (GPtrArray) facts = op_facts (row);

      g_string_append_printf (s, "\n### %u. ", k + 1);
      md_cell (s, row_name (row));
      g_string_append (s, "\n\n");
      for (guint j = 0; j + 1 < facts->len; j += 2)
        {
          g_string_append_printf (s, "- %s: ", (char *) g_ptr_array_index (facts, j));
          md_cell (s, g_ptr_array_index (facts, j + 1));
          g_string_append_c (s, '\n');
        }
    }
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------ JSON */

static char *
render_json (const msperf_run *run, GArray *rows)
{
  g_autoptr (msperf_value) root = msperf_value_new (MSPERF_VALUE_MAP);
  g_autoptr (msperf_summary) summary = msperf_summary_compute (run);
  g_autoptr (msperf_metrics) metrics = msperf_metrics_compute (run);
  msperf_value *ops = msperf_value_new (MSPERF_VALUE_LIST);
  GString *s = g_string_new (NULL);
  g_autofree char *headline = msperf_report_headline_text (run);

  msperf_value_map_set (root, "schema_version", msperf_value_new_int (1));
  msperf_value_map_set (root, "kind", msperf_value_new_string ("msperf-report"));
  msperf_value_map_set (root, "database", msperf_value_new_string (run->database));
  msperf_value_map_set (root, "policy_hash", msperf_value_new_string (run->policy_hash));
  msperf_value_map_set (root, "device_profile", msperf_value_new_string (run->device_profile));
  msperf_value_map_set (root, "trace", msperf_value_new_string (run->trace));
  msperf_value_map_set (root, "database_version", msperf_value_new_string (run->database_version));
  msperf_value_map_set (root, "database_device", msperf_value_new_string (run->database_device));
  msperf_value_map_set (root, "total_ms", msperf_value_new_double (summary->total_us / 1000.0));
  msperf_value_map_set (root, "headline", msperf_value_new_string (headline));
  msperf_value_map_set (root, "warnings", msperf_value_new_string_list (run->warnings));
  msperf_value_map_set (root, "summary", msperf_summary_to_value (summary, metrics));
  msperf_value_map_set (root, "metrics", msperf_metrics_to_value (metrics, TRUE));
  for (guint k = 0; k < rows->len; k++)
    {
      const op_row *row = &g_array_index (rows, op_row, k);
      msperf_value *o = msperf_report_record_value (row->record);

      /* One object per distinct op: the count and total cover every occurrence. */
      msperf_value_map_set (o, "count", msperf_value_new_int (row->count));
      if (row->record->op && row->record->result)
        msperf_value_map_set (o, "total_us", msperf_value_new_double (row->record->result->latency_us
                                                              * (double) row->count));
      msperf_value_list_append (ops, o);
    }
  msperf_value_map_set (root, "ops", ops);
  msperf_fmt_json_value (s, root, 2, 0);
  g_string_append_c (s, '\n');
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------ HTML */

/* The sources a chart or the legend shows, in this order. */
static const msperf_source html_sources[] = {
  MSPERF_SOURCE_MEASURED, MSPERF_SOURCE_INTERPOLATED, MSPERF_SOURCE_EXTRAPOLATED,
  MSPERF_SOURCE_PARTIAL, MSPERF_SOURCE_ANALYTIC
};

static void
esc (GString *s, const char *text)
{
  g_autofree char *shown = NULL;
  g_autofree char *e = NULL;

  /* a path's stray byte as the text outputs write it (\xNN): the page stays UTF-8 */
  text = text ? text : "";
  if (!g_utf8_validate (text, -1, NULL))
    text = shown = msperf_fmt_printable (text);
  e = g_markup_escape_text (text, -1);
  g_string_append (s, e);
}

static const char *
source_color (const char *source)
{
  if (strcmp (source, "MEASURED") == 0) return "#2e7d32";
  if (strcmp (source, "INTERPOLATED") == 0) return "#1565c0";
  if (strcmp (source, "EXTRAPOLATED") == 0) return "#6a1b9a";
  if (strcmp (source, "PARTIAL") == 0) return "#ef6c00";
  if (strcmp (source, "ANALYTIC") == 0) return "#757575";
  return "#c62828";
}

/* A source name after its legend swatch, so a table row reads like the charts. */
static void
html_source (GString *s, const char *source)
{
  g_string_append_printf (s, "<i class=\"sw\" style=\"background:%s\"></i>",
                          source_color (source));
  esc (s, source);
}

/* Horizontal bar chart as SVG (the holdout report's charts): labels on the left, bars scaled
 * to the largest value. The viewBox lets CSS shrink it to a narrow window. */
static void
svg_hbars (GString *s, const char *title, guint n, const char *const *labels,
           const double *values, const char *const *colors, const char *unit)
{
  const int bar_h = 20, gap = 6, label_w = 320, chart_w = 360, top = 30;
  double max = 0.0;
  int height = top + (int) n * (bar_h + gap) + 10, width = label_w + chart_w + 120;

  for (guint k = 0; k < n; k++)
    max = MAX (max, values[k]);
  g_string_append_printf (s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                          "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>", width,
                          height, width, height);
  esc (s, title);
  g_string_append (s, "</title><text x=\"0\" y=\"18\" class=\"t\">");
  esc (s, title);
  g_string_append (s, "</text>");
  for (guint k = 0; k < n; k++)
    {
      int y = top + (int) k * (bar_h + gap);
      double w = max > 0 ? values[k] / max * chart_w : 0.0;
      g_autofree char *label = cut_text (labels[k], 44);

      g_string_append_printf (s, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w - 8,
                              y + bar_h - 5);
      esc (s, label);
      g_string_append_printf (s, "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                              "fill=\"%s\"><title>", label_w, y, w, bar_h, colors[k]);
      esc (s, labels[k]);
      g_string_append_printf (s, ": %.3f %s</title></rect>", values[k], unit);
      g_string_append_printf (s, "<text x=\"%.1f\" y=\"%d\">%.3f %s</text>",
                              label_w + w + 6, y + bar_h - 5, values[k], unit);
    }
  g_string_append (s, "</svg>\n");
}

/* One bar of html_bars: a label, an optional second line (shapes, count, source). */
typedef struct {
  const char *label;
  char *detail;                 /* owned, may be NULL */
  double value;
  const char *color;
} bar_item;

/* A bar chart in HTML rather than SVG: the labels are text boxes that wrap, so a long op
 * name or shape list is never cut at a narrow width. */
static void
html_bars (GString *s, const char *id, const char *title, const bar_item *items, guint n)
{
  double max = 0.0;

  for (guint k = 0; k < n; k++)
    if (isfinite (items[k].value))
      max = MAX (max, items[k].value);
  g_string_append (s, "<h3>");
  esc (s, title);
  g_string_append_printf (s, "</h3>\n<div class=\"bars\" id=\"%s\">", id);
  for (guint k = 0; k < n; k++)
    {
      g_autofree char *width = num (max > 0 ? items[k].value / max * 100.0 : 0.0, 1);
      g_autofree char *value = num (items[k].value, 3);

      g_string_append (s, "<div class=\"lbl\">");
      esc (s, items[k].label);
      if (items[k].detail)
        {
          g_string_append (s, "<span class=\"sub\">");
          esc (s, items[k].detail);
          g_string_append (s, "</span>");
        }
      g_string_append_printf (s, "</div><div class=\"track\"><div class=\"fill\" "
                              "style=\"width:%s%%;background:%s\"></div></div>"
                              "<div class=\"val\">%s µs</div>\n", width, items[k].color, value);
    }
  g_string_append (s, "</div>\n");
}

static void
svg_histogram (GString *s, const int64_t bins[10])
{
  const int bar_w = 40, gap = 6, chart_h = 160, top = 44, left = 40;
  const int width = left + 10 * (bar_w + gap) + 20, height = top + chart_h + 40;
  int64_t max = 0;

  for (int k = 0; k < 10; k++)
    max = MAX (max, bins[k]);
  g_string_append_printf (s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                          "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">"
                          "<title>Confidence histogram</title>"
                          "<text x=\"0\" y=\"18\" class=\"t\">Confidence histogram "
                          "(distinct ops)</text>", width, height, width, height);
  for (int k = 0; k < 10; k++)
    {
      double h = max > 0 ? (double) bins[k] / (double) max * chart_h : 0.0;
      int x = left + k * (bar_w + gap);

      g_string_append_printf (s, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
                              "fill=\"#1565c0\"><title>%.1f–%.1f: %" G_GINT64_FORMAT
                              "</title></rect>", x, top + chart_h - h, bar_w, h,
                              k / 10.0, (k + 1) / 10.0, bins[k]);
      g_string_append_printf (s, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">%"
                              G_GINT64_FORMAT "</text>", x + bar_w / 2, top + chart_h - h - 4,
                              bins[k]);
      g_string_append_printf (s, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.1f</text>",
                              x + bar_w / 2, top + chart_h + 16, k / 10.0);
    }
  g_string_append (s, "</svg>\n");
}

static int
cmp_total_desc (gconstpointer a, gconstpointer b)
{
  const op_row *ra = *(op_row *const *) a, *rb = *(op_row *const *) b;

  if (ra->total_us != rb->total_us)
    return ra->total_us < rb->total_us ? 1 : -1;
  /* rows live in one array in first-occurrence order: ties keep that order. */
  return (ra > rb) - (ra < rb);
}

static void
html_source_bars (GString *s, const msperf_summary *summary)
{
  bar_item items[G_N_ELEMENTS (html_sources)];

  for (gsize k = 0; k < G_N_ELEMENTS (html_sources); k++)
    {
      items[k].label = msperf_source_name (html_sources[k]);
      items[k].detail = NULL;
      items[k].value = summary->by_source[html_sources[k]].time_us;
      items[k].color = source_color (items[k].label);
    }
  html_bars (s, "by-source", "Time by source (µs)", items, G_N_ELEMENTS (html_sources));
}

/* The TOP_OPS answered rows with the largest total, each labelled with its shapes so rows
 * of one op name can be told apart. */
static void
html_top_ops (GString *s, GArray *rows)
{
  g_autoptr (GPtrArray) sorted = g_ptr_array_new ();
  bar_item items[TOP_OPS] = { { NULL, NULL, 0.0, NULL } };
  guint n;

  for (guint k = 0; k < rows->len; k++)
    {
      op_row *row = &g_array_index (rows, op_row, k);
      if (row->record->op && row->record->result)
        g_ptr_array_add (sorted, row);
    }
  g_ptr_array_sort (sorted, cmp_total_desc);
  n = MIN (sorted->len, TOP_OPS);
  for (guint k = 0; k < n; k++)
    {
      const op_row *row = g_ptr_array_index (sorted, k);
      g_autofree char *shapes = msperf_report_input_shapes_text (row->record->op);

      items[k].label = row_name (row);
      items[k].detail = g_strdup_printf ("%s%s%" G_GINT64_FORMAT "× · %s", shapes,
                                         *shapes ? " · " : "", row->count, row_source (row));
      items[k].value = row->total_us;
      items[k].color = source_color (row_source (row));
    }
  html_bars (s, "top-ops", "Top ops by total time (µs)", items, n);
  for (guint k = 0; k < n; k++)
    g_free (items[k].detail);
}

static void
html_charts (GString *s, const msperf_summary *summary, GArray *rows)
{
  int64_t bins[10] = { 0 };

  html_source_bars (s, summary);
  html_top_ops (s, rows);
  for (guint k = 0; k < rows->len; k++)
    {
      const msperf_result *res = g_array_index (rows, op_row, k).record->result;
      if (g_array_index (rows, op_row, k).record->op && res && isfinite (res->confidence))
        bins[CLAMP ((int) floor (res->confidence * 10.0), 0, 9)]++;
    }
  svg_histogram (s, bins);
}

static const char html_css[] =
  "body{font-family:system-ui,sans-serif;margin:1em;color:#222}"
  "h1,h2,h3,li,summary{overflow-wrap:anywhere}"
  "table{border-collapse:collapse;font-size:13px;max-width:100%}"
  "td,th{border:1px solid #ccc;padding:2px 5px;vertical-align:top;overflow-wrap:break-word}"
  "th{background:#f0f0f0}td.n,td.int,td.src{text-align:right;white-space:nowrap}"
  "td.src{text-align:left}td.op{overflow-wrap:anywhere}"
  "pre{background:#f7f7f7;padding:1em;white-space:pre-wrap;overflow-wrap:anywhere}"
  "svg{display:block;margin:1em 0;font-size:12px;max-width:100%;height:auto}"
  "svg .t{font-weight:bold;font-size:14px}"
  "dl.facts,.headline dl{display:grid;grid-template-columns:max-content minmax(0,1fr);"
  "gap:.15em 1em;margin:.5em 0}"
  "dl.facts dt,.headline dt{font-weight:bold}"
  "dl.facts dd,.headline dd{margin:0;min-width:0;overflow-wrap:anywhere}"
  "details{margin:.3em 0}"
  ".headline{border:2px solid #1565c0;background:#eef4fb;padding:.2em 1em;margin:1em 0}"
  ".headline h2{margin:.3em 0;font-size:1.1em}"
  ".legend{display:flex;flex-wrap:wrap;gap:.3em 1.2em;list-style:none;padding:0}"
  ".sw{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:middle}"
  ".sub{display:block;color:#555;font-size:11px}"
  ".bars{display:grid;grid-template-columns:minmax(0,2fr) minmax(3em,3fr) max-content;"
  "gap:.3em .6em;align-items:center;font-size:13px}"
  ".bars .lbl{min-width:0;overflow-wrap:anywhere}"
  ".track{background:#eee;height:1.1em}.fill{height:100%}.val{white-space:nowrap;text-align:right}"
  "@media (max-width:480px){dl.facts,.headline dl{grid-template-columns:minmax(0,1fr)}}";

/* Run on load: counts the text boxes whose content does not fit (wider than their box,
 * outside the window, or an SVG label outside its SVG) with every <details> opened for the
 * measurement, and writes the count on <body data-clipped-labels>, so a headless browser
 * can check the layout (tests/cli/test_html_report.sh). */
static const char html_layout_check[] =
  "<script>window.addEventListener('load',function(){"
  "var vw=document.documentElement.clientWidth,n=0,m=0,bad=[],bd=document.body;"
  "var shut=[].slice.call(document.querySelectorAll('details:not([open])'));"
  "shut.forEach(function(d){d.open=true;});"
  "document.querySelectorAll('h1,h2,h3,th,td,dt,dd,summary,li,pre,.lbl,.val,svg text')"
  ".forEach(function(e){var r=e.getBoundingClientRect(),c=e.ownerSVGElement,x;"
  "if(r.width===0&&r.height===0)return;m++;"
  "if(c){var b=c.getBoundingClientRect();"
  "x=r.left<b.left-1||r.right>b.right+1||r.top<b.top-1||r.bottom>b.bottom+1;}"
  "else x=e.clientWidth>0&&e.scrollWidth>e.clientWidth+1;"
  "if(x||r.left<-1||r.right>vw+1){n++;if(bad.length<5)bad.push(e.textContent.slice(0,60));}});"
  "shut.forEach(function(d){d.open=false;});"
  "bd.setAttribute('data-checked-labels',m);bd.setAttribute('data-viewport-width',vw);"
  "bd.setAttribute('data-page-width',document.documentElement.scrollWidth);"
  "bd.setAttribute('data-clipped-examples',bad.join(' | '));"
  "bd.setAttribute('data-clipped-labels',n);});</script>\n";

/* The text headline (msperf_report_headline_text) as a box of label/value pairs, parsed from
 * that text so the box and the first screen of the text output never disagree: "  label:
 * value" lines, and deeper-indented lines continuing the value above. */
static void
html_headline (GString *s, const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean open = FALSE;

  g_string_append (s, "<section class=\"headline\" id=\"headline\"><h2>");
  esc (s, lines[0] ? lines[0] : "");
  g_string_append (s, "</h2><dl>");
  for (guint k = 1; lines[0] && lines[k]; k++)
    {
      const char *line = lines[k], *colon = strchr (line, ':'), *value = line;

      if (g_str_has_prefix (line, "  ") && line[2] != ' ' && colon)
        {
          g_string_append (s, open ? "</dd><dt>" : "<dt>");
          g_string_append_len (s, line + 2, colon - line - 2); /* labels are plain words */
          g_string_append (s, "</dt><dd>");
          open = TRUE;
          value = colon + 1;
        }
      else if (!open && *line)
        {
          g_string_append (s, "<dt></dt><dd>");
          open = TRUE;
        }
      while (*value == ' ')
        value++;
      if (*value == '\0')
        continue;
      g_string_append (s, "<div>");
      esc (s, value);
      g_string_append (s, "</div>");
    }
  g_string_append (s, open ? "</dd></dl></section>\n" : "</dl></section>\n");
}

/* Invocations and distinct ops by source, as integers. */
static void
html_summary_table (GString *s, const msperf_summary *sum)
{
  g_string_append (s, "<table class=\"summary\" id=\"summary\"><tr><th>source</th>"
                   "<th>invocations</th><th>distinct ops</th><th>time_us</th><th>time_%</th>"
                   "</tr>\n");
  for (gsize k = 0; k <= G_N_ELEMENTS (html_sources); k++)
    {
      msperf_source src = k < G_N_ELEMENTS (html_sources) ? html_sources[k]
        : MSPERF_SOURCE_REJECTED;
      const msperf_source_total *st = &sum->by_source[src];
      g_autofree char *time = num (src == MSPERF_SOURCE_REJECTED ? NAN : st->time_us, 3);
      g_autofree char *share = num (sum->total_us > 0 ? st->time_us / sum->total_us * 100.0
                                    : 0.0, 1);

      if (src == MSPERF_SOURCE_REJECTED && st->distinct == 0)
        continue;
      g_string_append (s, "<tr><td>");
      html_source (s, msperf_source_name (src));
      g_string_append_printf (s, "</td><td class=\"int\">%" G_GINT64_FORMAT "</td>"
                              "<td class=\"int\">%" G_GINT64_FORMAT "</td><td class=\"n\">%s"
                              "</td><td class=\"n\">%s</td></tr>\n", st->invocations,
                              st->distinct, time, src == MSPERF_SOURCE_REJECTED ? "-" : share);
    }
  {
    g_autofree char *total = num (sum->total_us, 3);
    g_string_append_printf (s, "<tr class=\"total\"><th>total</th><td class=\"int\">%"
                            G_GINT64_FORMAT "</td><td class=\"int\">%" G_GINT64_FORMAT
                            "</td><td class=\"n\">%s</td><td class=\"n\">100.0</td></tr>"
                            "</table>\n", sum->invocations, sum->distinct, total);
  }
  if (sum->counts_saturated)
    g_string_append (s, "<p>Counts reached INT64_MAX and stopped there.</p>\n");
}

static void
html_run_facts (GString *s, const msperf_run *run)
{
  g_autofree char *database = run->database ? msperf_fmt_printable (run->database) : NULL;
  const char *const facts[] = {
    "database", database ? database : "(none: analytic only)",
    "policy hash", run->policy_hash ? run->policy_hash : "-",
    "device profile", run->device_profile ? run->device_profile : "-",
  };

  g_string_append (s, "<dl class=\"facts\" id=\"run\">");
  for (size_t k = 0; k + 1 < G_N_ELEMENTS (facts); k += 2)
    {
      g_string_append_printf (s, "<dt>%s</dt><dd>", facts[k]);
      esc (s, facts[k + 1]);
      g_string_append (s, "</dd>");
    }
  g_string_append (s, "</dl>\n");
}

static void
html_warnings (GString *s, const msperf_run *run)
{
  if (run->warnings->len == 0)
    return;
  g_string_append (s, "<h2>Warnings</h2>\n<ul class=\"warnings\">");
  for (guint k = 0; k < run->warnings->len; k++)
    {
      g_string_append (s, "<li>");
      esc (s, g_ptr_array_index (run->warnings, k));
      g_string_append (s, "</li>");
    }
  g_string_append (s, "</ul>\n");
}

static void
html_legend (GString *s)
{
  g_string_append (s, "<ul class=\"legend\" id=\"legend\">");
  for (gsize k = 0; k < G_N_ELEMENTS (html_sources); k++)
    {
      const char *name = msperf_source_name (html_sources[k]);
      g_string_append_printf (s, "<li data-source=\"%s\">", name);
      html_source (s, name);
      g_string_append (s, "</li>");
    }
  g_string_append (s, "</ul>\n");
}

static void
html_ops_table (GString *s, GArray *rows)
{
  g_string_append (s, "<h2>Ops</h2>\n<table id=\"ops\"><tr><th>#</th><th>op, input shapes</th>"
                   "<th>count</th><th>source</th><th>confidence</th>"
                   "<th>latency µs</th><th>total µs</th><th>method</th></tr>\n");
  for (guint k = 0; k < rows->len; k++)
    {
      const op_row *row = &g_array_index (rows, op_row, k);
      g_autofree char *shapes = msperf_report_input_shapes_text (row->record->op);
      row_cells c;

      row_cells_init (&c, row);
      g_string_append_printf (s, "<tr><td class=\"int\">%u</td><td class=\"op\">", k + 1);
      esc (s, row_name (row));
      g_string_append (s, "<span class=\"sub\">");
      esc (s, shapes);
      g_string_append_printf (s, "</span></td><td class=\"int\">%" G_GINT64_FORMAT "</td>"
                              "<td class=\"src\">", row->count);
      html_source (s, row_source (row));
      /* The method wraps like the op name: extrapolated_hold_analytic is one long word. */
      g_string_append_printf (s, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                              "<td class=\"n\">%s</td><td class=\"op\">", c.confidence,
                              c.latency, c.total);
      esc (s, c.method);
      g_string_append (s, "</td></tr>\n");
      row_cells_clear (&c);
    }
  g_string_append (s, "</table>\n");
}

static void
html_op_details (GString *s, GArray *rows)
{
  g_string_append (s, "<h2>Op details</h2>\n");
  for (guint k = 0; k < rows->len; k++)
    {
      const op_row *row = &g_array_index (rows, op_row, k);
      g_autoptr (GPtrArray) facts = op_facts (row);

      g_string_append_printf (s, "<details><summary>%u. ", k + 1);
      esc (s, row_name (row));
      g_string_append_printf (s, " — %s</summary><dl class=\"facts\">", row_source (row));
      for (guint j = 0; j + 1 < facts->len; j += 2)
        {
          g_string_append (s, "<dt>");
          esc (s, g_ptr_array_index (facts, j));
          g_string_append (s, "</dt><dd>");
          esc (s, g_ptr_array_index (facts, j + 1));
          g_string_append (s, "</dd>");
        }
      g_string_append (s, "</dl></details>\n");
    }
}

static char *
render_html (const msperf_run *run, GArray *rows)
{
  GString *s = g_string_new (NULL);
  g_autofree char *text = msperf_report_summary_text (run);
  g_autofree char *headline = msperf_report_headline_text (run);
  g_autoptr (msperf_summary) summary = msperf_summary_compute (run);

  g_string_append_printf (s, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                          "<meta name=\"viewport\" content=\"width=device-width\">"
                          "<title>msperf report</title><style>%s</style></head><body>\n"
                          "<h1>msperf report</h1>\n", html_css);
  html_headline (s, headline);
  html_run_facts (s, run);
  html_warnings (s, run);
  g_string_append (s, "<h2>Summary</h2>\n");
  html_summary_table (s, summary);
  g_string_append (s, "<h2>Charts</h2>\n");
  html_legend (s);
  html_charts (s, summary, rows);
  html_ops_table (s, rows);
  html_op_details (s, rows);
  g_string_append (s, "<h2>Text summary</h2>\n<pre id=\"text-summary\">");
  esc (s, text);
  g_string_append (s, "</pre>\n");
  g_string_append (s, html_layout_check);
  g_string_append (s, "</body></html>\n");
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------ entry point */

gboolean
msperf_report_document_suffix_ok (const char *path)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);
  const char *const suffixes[] = { ".md", ".markdown", ".json", ".html", ".htm" };

  for (gsize k = 0; k < G_N_ELEMENTS (suffixes); k++)
    if (g_str_has_suffix (lower, suffixes[k]))
      return TRUE;
  return FALSE;
}

gboolean
msperf_report_document (const msperf_run *run, const char *path, GError **error)
{
  g_autofree char *lower = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GArray) rows = NULL;

  g_return_val_if_fail (run != NULL && path != NULL, FALSE);
  lower = g_ascii_strdown (path, -1);
  rows = op_rows (run);
  if (g_str_has_suffix (lower, ".md") || g_str_has_suffix (lower, ".markdown"))
    text = render_md (run, rows);
  else if (g_str_has_suffix (lower, ".json"))
    text = render_json (run, rows);
  else if (g_str_has_suffix (lower, ".html") || g_str_has_suffix (lower, ".htm"))
    text = render_html (run, rows);
  else
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s: unknown report format (use a .md, .json or .html file name)", path);
      return FALSE;
    }
  return msperf_report_write_file (path, text, -1, error);
}

/* ------------------------------------------------------------------ shared (report.h) */

void
msperf_doc_md_cell (GString *s, const char *text)
{
  md_cell (s, text);
}

void
msperf_doc_html_escape (GString *s, const char *text)
{
  esc (s, text);
}

const char *
msperf_doc_html_css (void)
{
  return html_css;
}

void
msperf_doc_svg_hbars (GString *s, const char *title, guint n, const char *const *labels,
                      const double *values, const char *const *colors, const char *unit)
{
  svg_hbars (s, title, n, labels, values, colors, unit);
}
