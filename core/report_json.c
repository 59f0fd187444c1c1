/* msperf — JSON Lines, JSON and CSV outputs: one §5.1 object per input line (FORMATS.md). */
#include <config.h>
#include <math.h>
#include <string.h>
#include "report.h"
#include "metrics.h"
#include "numfmt.h"
#include <msperf/error.h>

/* A details value copied for output, or null. */
static msperf_value *
detail_or_null (const msperf_result *res, const char *key)
{
  const msperf_value *v = res ? msperf_value_lookup (res->details, key) : NULL;
  return v ? msperf_value_copy (v) : msperf_value_new (MSPERF_VALUE_NONE);
}

static msperf_value *
latency_value (double us, gboolean rejected)
{
  /* NaN becomes null in the writer; rejected lines have no latency at all. */
  return rejected ? msperf_value_new (MSPERF_VALUE_NONE) : msperf_rv_float (us);
}

msperf_value *
msperf_report_record_value (const msperf_record *r)
{
  msperf_value *o = msperf_rv_map ();
  const msperf_result *res = r->result;
  gboolean rejected = r->op == NULL || (res && res->source == MSPERF_SOURCE_REJECTED);
  double lat = (res && !rejected) ? res->latency_us : NAN;
  const msperf_value *fallback = res ? msperf_value_lookup (res->details, "fallback_reasons") : NULL;

  msperf_value_map_set (o, "index", msperf_rv_int ((int64_t) r->index));
  msperf_value_map_set (o, "op", msperf_rv_string (r->op ? r->op->name
                                                   : (r->op_name ? r->op_name : "")));
  msperf_value_map_set (o, "count", msperf_rv_int (r->count));
  msperf_value_map_set (o, "source", msperf_rv_string (rejected ? "REJECTED"
                                                       : msperf_source_name (res ? res->source
                                                                             : MSPERF_SOURCE_NONE)));
  msperf_value_map_set (o, "confidence", rejected || res == NULL
                        ? msperf_value_new (MSPERF_VALUE_NONE) : msperf_rv_float (res->confidence));
  msperf_value_map_set (o, "latency_us", latency_value (lat, rejected));
  msperf_value_map_set (o, "total_us", latency_value (lat * (double) r->count, rejected));
  msperf_value_map_set (o, "analytic_latency_us", latency_value (r->analytic_us, rejected));
  msperf_value_map_set (o, "kernel_type", msperf_rv_string (res ? res->kernel_type : NULL));
  msperf_value_map_set (o, "method", msperf_rv_string (res ? res->method : NULL));
  msperf_value_map_set (o, "interpolation_dim", res && res->interpolation_dim > 0
                        ? msperf_rv_int (res->interpolation_dim)
                        : msperf_value_new (MSPERF_VALUE_NONE));
  msperf_value_map_set (o, "shape_match_rule", msperf_rv_string (res ? res->shape_match_rule : NULL));
  msperf_value_map_set (o, "axes", detail_or_null (res, "axes"));
  msperf_value_map_set (o, "candidate_count", detail_or_null (res, "candidate_count"));
  msperf_value_map_set (o, "miss_reason", msperf_rv_string (res ? res->miss_reason : NULL));
  msperf_value_map_set (o, "base_reason", detail_or_null (res, "base_reason"));
  msperf_value_map_set (o, "fallback_reasons", fallback ? msperf_value_copy (fallback)
                        : msperf_rv_list ());
  msperf_value_map_set (o, "details", res ? msperf_value_copy (res->details) : msperf_rv_map ());
  if (rejected)
    msperf_value_map_set (o, "error", msperf_rv_string (r->error ? r->error : "rejected"));
  return o;
}

void
msperf_report_jsonl_record (const msperf_record *record, FILE *out)
{
  g_autoptr (msperf_value) v = NULL;
  g_autoptr (GString) s = g_string_new (NULL);

  g_return_if_fail (record != NULL && out != NULL);
  v = msperf_report_record_value (record);
  msperf_fmt_json_value (s, v, -1, 0);
  g_string_append_c (s, '\n');
  fwrite (s->str, 1, s->len, out);
  /* Streaming contract: a consumer piping records sees each line as soon as it exists. */
  fflush (out);
}

msperf_value *
msperf_report_run_value (const msperf_run *run)
{
  msperf_value *root = msperf_rv_map (), *ops = msperf_rv_list ();
  g_autoptr (msperf_summary) summary = msperf_summary_compute (run);
  g_autoptr (msperf_metrics) metrics = msperf_metrics_compute (run);

  msperf_value_map_set (root, "schema_version", msperf_rv_int (1));
  msperf_value_map_set (root, "database", msperf_rv_string (run->database));
  msperf_value_map_set (root, "policy_hash", msperf_rv_string (run->policy_hash));
  msperf_value_map_set (root, "device_profile", msperf_rv_string (run->device_profile));
  for (guint k = 0; k < run->records->len; k++)
    msperf_value_list_append (ops, msperf_report_record_value (g_ptr_array_index (run->records, k)));
  msperf_value_map_set (root, "ops", ops);
  msperf_value_map_set (root, "summary", msperf_summary_to_value (summary, metrics));
  msperf_value_map_set (root, "metrics", msperf_metrics_to_value (metrics, FALSE));
  return root;
}

void
msperf_report_json (const msperf_run *run, FILE *out)
{
  g_autoptr (msperf_value) v = NULL;
  g_autoptr (GString) s = g_string_new (NULL);

  g_return_if_fail (run != NULL && out != NULL);
  v = msperf_report_run_value (run);
  msperf_fmt_json_value (s, v, 2, 0);
  g_string_append_c (s, '\n');
  fwrite (s->str, 1, s->len, out);
  fflush (out);
}

/* ------------------------------------------------------------------ CSV */

static const char *const csv_columns[] = {
  "index", "op", "count", "source", "confidence", "latency_us", "total_us",
  "analytic_latency_us", "kernel_type", "method", "interpolation_dim", "shape_match_rule",
  "axes", "candidate_count", "miss_reason", "base_reason", "fallback_reasons", "error"
};

/* RFC 4180: quote a field holding a comma, quote, CR or LF (or edge spaces), doubling quotes. */
static void
csv_field (GString *line, const char *text)
{
  gsize n = strlen (text);

  if (strpbrk (text, ",\"\r\n") == NULL && !(n > 0 && (text[0] == ' ' || text[n - 1] == ' ')))
    {
      g_string_append (line, text);
      return;
    }
  g_string_append_c (line, '"');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (line, '"');
      g_string_append_c (line, *p);
    }
  g_string_append_c (line, '"');
}

/* A scalar cell: null empty, strings bare, numbers as in JSON; maps "k=v;k=v", lists "a; b". */
static void
csv_cell_text (GString *cell, const msperf_value *v)
{
  if (v == NULL || v->kind == MSPERF_VALUE_NONE)
    return;
  if (v->kind == MSPERF_VALUE_STRING)
    g_string_append (cell, v->s ? v->s : "");
  else if (v->kind == MSPERF_VALUE_MAP)
    for (guint k = 0; k < v->items->len; k++)
      {
        g_string_append_printf (cell, "%s%s=", k ? ";" : "", (char *) g_ptr_array_index (v->keys, k));
        csv_cell_text (cell, g_ptr_array_index (v->items, k));
      }
  else if (v->kind == MSPERF_VALUE_LIST)
    for (guint k = 0; k < v->items->len; k++)
      {
        if (k > 0)
          g_string_append (cell, "; ");
        csv_cell_text (cell, g_ptr_array_index (v->items, k));
      }
  else
    msperf_fmt_json_value (cell, v, -1, 0);
}

void
msperf_report_csv (const msperf_run *run, FILE *out)
{
  g_autoptr (GString) line = g_string_new (NULL);
  g_autoptr (GString) cell = g_string_new (NULL);

  g_return_if_fail (run != NULL && out != NULL);
  for (gsize c = 0; c < G_N_ELEMENTS (csv_columns); c++)
    g_string_append_printf (line, "%s%s", c ? "," : "", csv_columns[c]);
  g_string_append (line, "\r\n");
  fwrite (line->str, 1, line->len, out);
  for (guint k = 0; k < run->records->len; k++)
    {
      g_autoptr (msperf_value) obj = msperf_report_record_value (g_ptr_array_index (run->records, k));

      g_string_truncate (line, 0);
      for (gsize c = 0; c < G_N_ELEMENTS (csv_columns); c++)
        {
          g_string_truncate (cell, 0);
          csv_cell_text (cell, msperf_value_lookup (obj, csv_columns[c]));
          if (c > 0)
            g_string_append_c (line, ',');
          csv_field (line, cell->str);
        }
      g_string_append (line, "\r\n");
      fwrite (line->str, 1, line->len, out);
    }
  fflush (out);
}

/* ------------------------------------------------------------------ metrics file */

gboolean
msperf_report_metrics_file (const msperf_run *run, const char *path, GError **error)
{
  g_autoptr (msperf_metrics) metrics = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (run != NULL && path != NULL, FALSE);
  metrics = msperf_metrics_compute (run);
  text = msperf_metrics_to_json (metrics);
  return msperf_report_write_file (path, text, -1, error);
}

gboolean
msperf_report_write_file (const char *path, const char *text, gssize len, GError **error)
{
  g_autoptr (GError) local = NULL;

  g_return_val_if_fail (path != NULL && text != NULL, FALSE);
  if (!g_file_set_contents (path, text, len, &local))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot write: %s",
                   path, local->message);
      return FALSE;
    }
  return TRUE;
}
