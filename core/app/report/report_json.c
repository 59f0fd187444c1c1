/* msperf — JSON Lines, JSON and CSV outputs: one §5.1 object per input line (FORMATS.md). */
#include <config.h>
#include <math.h>
#include <string.h>
#include "app/report/report.h"
#include "base/str_append.h"
#include <msperf/details.h>
#include "app/report/output.h"
#include "app/run/metrics.h"
#include <msperf/format.h>
#include <msperf/error.h>

/* The op's top-level tensor inputs as [[dims], …] (without them, five aten.mm.default
 * records could not be told apart). Transfer full. */
static msperf_value *
input_shapes_value (const msperf_op *op)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);
  g_autoptr (GPtrArray) top = op ? msperf_op_top_level_tensors (op) : NULL;

  for (guint k = 0; top && k < top->len; k++)
    {
      const msperf_tensor *t = g_ptr_array_index (top, k);
      msperf_value *dims = msperf_value_new (MSPERF_VALUE_LIST);
      for (int d = 0; d < t->rank; d++)
        msperf_value_list_append (dims, msperf_value_new_int (t->dims[d]));
      msperf_value_list_append (list, dims);
    }
  return list;
}

/* input_shapes_value's JSON, written without building it (a value per dimension). */
static void
jsonl_input_shapes (GString *s, const msperf_op *op)
{
  g_autoptr (GPtrArray) top = op ? msperf_op_top_level_tensors (op) : NULL;

  g_string_append_c (s, '[');
  for (guint k = 0; top && k < top->len; k++)
    {
      const msperf_tensor *t = g_ptr_array_index (top, k);

      if (k > 0)
        msperf_str_append (s, ", ");
      g_string_append_c (s, '[');
      for (int d = 0; d < t->rank; d++)
        {
          if (d > 0)
            msperf_str_append (s, ", ");
          msperf_fmt_int (s, t->dims[d]);
        }
      g_string_append_c (s, ']');
    }
  g_string_append_c (s, ']');
}

/* A details value copied for output, or null. */
static msperf_value *
detail_or_null (const msperf_result *res, const char *key)
{
  msperf_value *v = res ? msperf_result_detail_dup (res, key) : NULL;
  return v ? v : msperf_value_new (MSPERF_VALUE_NONE);
}

static msperf_value *
latency_value (double us, gboolean rejected)
{
  /* NaN becomes null in the writer; rejected lines have no latency at all. */
  return rejected ? msperf_value_new (MSPERF_VALUE_NONE) : msperf_value_new_double (us);
}

msperf_value *
msperf_report_record_value (const msperf_record *r)
{
  msperf_value *o = msperf_value_new (MSPERF_VALUE_MAP);
  const msperf_result *res = r->result;
  gboolean rejected = r->op == NULL || (res && res->source == MSPERF_SOURCE_REJECTED);
  double lat = (res && !rejected) ? res->latency_us : NAN;
  const msperf_value *details = res ? msperf_result_details (res) : NULL;
  const msperf_value *fallback = msperf_value_lookup (details, "fallback_reasons");

  msperf_value_map_set (o, "index", msperf_value_new_int ((int64_t) r->index));
  msperf_value_map_set (o, "op", msperf_value_new_string (r->op ? r->op->name
                                                   : (r->op_name ? r->op_name : "")));
  msperf_value_map_set (o, "count", msperf_value_new_int (r->count));
  msperf_value_map_set (o, "source", msperf_value_new_string (rejected ? "REJECTED"
                                                       : msperf_source_name (res ? res->source
                                                                             : MSPERF_SOURCE_NONE)));
  msperf_value_map_set (o, "confidence", rejected || res == NULL
                        ? msperf_value_new (MSPERF_VALUE_NONE) : msperf_value_new_double (res->confidence));
  msperf_value_map_set (o, "latency_us", latency_value (lat, rejected));
  msperf_value_map_set (o, "total_us", latency_value (lat * (double) r->count, rejected));
  msperf_value_map_set (o, "analytic_latency_us", latency_value (r->analytic_us, rejected));
  msperf_value_map_set (o, "kernel_type", msperf_value_new_string (res ? res->kernel_type : NULL));
  msperf_value_map_set (o, "method", msperf_value_new_string (res ? res->method : NULL));
  msperf_value_map_set (o, "interpolation_dim", res && res->interpolation_dim > 0
                        ? msperf_value_new_int (res->interpolation_dim)
                        : msperf_value_new (MSPERF_VALUE_NONE));
  msperf_value_map_set (o, "shape_match_rule", msperf_value_new_string (res ? res->shape_match_rule : NULL));
  msperf_value_map_set (o, "axes", detail_or_null (res, "axes"));
  msperf_value_map_set (o, "candidate_count", detail_or_null (res, "candidate_count"));
  msperf_value_map_set (o, "miss_reason", msperf_value_new_string (res ? res->miss_reason : NULL));
  msperf_value_map_set (o, "base_reason", detail_or_null (res, "base_reason"));
  msperf_value_map_set (o, "fallback_reasons", fallback ? msperf_value_copy (fallback)
                        : msperf_value_new (MSPERF_VALUE_LIST));
  msperf_value_map_set (o, "details", details ? msperf_value_copy (details) : msperf_value_new (MSPERF_VALUE_MAP));
  if (rejected)
    msperf_value_map_set (o, "error", msperf_value_new_string (r->error ? r->error : "rejected"));
  /* Last, so every earlier byte of a record stays as before. */
  msperf_value_map_set (o, "input_shapes", input_shapes_value (r->op));
  return o;
}

/* The details' values the record repeats at its top level, as spans of the printed details. */
static const char *const jsonl_span_keys[] = { "axes", "candidate_count", "base_reason",
                                               "fallback_reasons", NULL };
enum { SPAN_AXES, SPAN_CANDIDATE_COUNT, SPAN_BASE_REASON, SPAN_FALLBACK_REASONS, N_SPANS };

/* One detail value as msperf_report_record_value copies it: absent is null (or absent_text).
 * The span is in s itself (the details printed ahead of the record, see below). */
static void
jsonl_detail (GString *s, const msperf_detail_span *span, const char *absent_text)
{
  if (span->end > 0)
    g_string_append_len (s, s->str + span->start, (gssize) (span->end - span->start));
  else
    msperf_str_append (s, absent_text);
}

static void
jsonl_string_or_null (GString *s, const char *text)
{
  if (text)
    msperf_fmt_json_string (s, text);
  else
    msperf_str_append (s, "null");
}

static void
jsonl_latency (GString *s, double us, gboolean rejected)
{
  if (rejected)
    msperf_str_append (s, "null");
  else
    msperf_fmt_json_double (s, us);
}

/* The bytes msperf_fmt_json_value (msperf_report_record_value (record), -1, 0) gives, written
 * straight into s: building and freeing that tree (copies of the details) was a third of the
 * JSONL writer (doc/performance.md). Keys are plain ASCII, so they need no escaping; keep the
 * two functions in step (tests/test_reports.c compares them). */
void
msperf_report_jsonl_write (GString *s, const msperf_record *r)
{
  const msperf_result *res = r->result;
  gboolean rejected = r->op == NULL || (res && res->source == MSPERF_SOURCE_REJECTED);
  double lat = (res && !rejected) ? res->latency_us : NAN;
  msperf_detail_span spans[N_SPANS] = { { 0, 0 } };
  gsize base = s->len, details_len = 0;

  /* The details are printed once, first, at the end of s: the keys repeated at the top are
   * copied from there, then the details themselves, and the first copy is cut. No tree is
   * built (an interpolated answer's details stay a record) and no buffer allocated (one
   * 2 KB scratch string a record was 5 % of a warm 3-D run). */
  if (res)
    {
      msperf_result_details_json (res, s, jsonl_span_keys, spans);
      details_len = s->len - base;
    }
  msperf_str_append (s, "{\"index\": ");
  msperf_fmt_int (s, (int64_t) r->index);
  msperf_str_append (s, ", \"op\": ");
  msperf_fmt_json_string (s, r->op ? r->op->name : (r->op_name ? r->op_name : ""));
  msperf_str_append (s, ", \"count\": ");
  msperf_fmt_int (s, (int64_t) r->count);
  msperf_str_append (s, ", \"source\": ");
  msperf_fmt_json_string (s, rejected ? "REJECTED"
                          : msperf_source_name (res ? res->source : MSPERF_SOURCE_NONE));
  msperf_str_append (s, ", \"confidence\": ");
  if (rejected || res == NULL)
    msperf_str_append (s, "null");
  else
    msperf_fmt_json_double (s, res->confidence);
  msperf_str_append (s, ", \"latency_us\": ");
  jsonl_latency (s, lat, rejected);
  msperf_str_append (s, ", \"total_us\": ");
  jsonl_latency (s, lat * (double) r->count, rejected);
  msperf_str_append (s, ", \"analytic_latency_us\": ");
  jsonl_latency (s, r->analytic_us, rejected);
  msperf_str_append (s, ", \"kernel_type\": ");
  jsonl_string_or_null (s, res ? res->kernel_type : NULL);
  msperf_str_append (s, ", \"method\": ");
  jsonl_string_or_null (s, res ? res->method : NULL);
  msperf_str_append (s, ", \"interpolation_dim\": ");
  if (res && res->interpolation_dim > 0)
    msperf_fmt_int (s, (int64_t) res->interpolation_dim);
  else
    msperf_str_append (s, "null");
  msperf_str_append (s, ", \"shape_match_rule\": ");
  jsonl_string_or_null (s, res ? res->shape_match_rule : NULL);
  msperf_str_append (s, ", \"axes\": ");
  jsonl_detail (s, &spans[SPAN_AXES], "null");
  msperf_str_append (s, ", \"candidate_count\": ");
  jsonl_detail (s, &spans[SPAN_CANDIDATE_COUNT], "null");
  msperf_str_append (s, ", \"miss_reason\": ");
  jsonl_string_or_null (s, res ? res->miss_reason : NULL);
  msperf_str_append (s, ", \"base_reason\": ");
  jsonl_detail (s, &spans[SPAN_BASE_REASON], "null");
  msperf_str_append (s, ", \"fallback_reasons\": ");
  jsonl_detail (s, &spans[SPAN_FALLBACK_REASONS], "[]");
  msperf_str_append (s, ", \"details\": ");
  if (res)
    g_string_append_len (s, s->str + base, (gssize) details_len);
  else
    msperf_str_append (s, "{}");
  if (rejected)
    {
      msperf_str_append (s, ", \"error\": ");
      msperf_fmt_json_string (s, r->error ? r->error : "rejected");
    }
  msperf_str_append (s, ", \"input_shapes\": ");
  jsonl_input_shapes (s, r->op);
  g_string_append_c (s, '}');
  g_string_erase (s, (gssize) base, (gssize) details_len);
}

void
msperf_report_jsonl_record (const msperf_record *record, FILE *out)
{
  g_autoptr (GString) s = g_string_sized_new (1024);

  g_return_if_fail (record != NULL && out != NULL);
  msperf_report_jsonl_write (s, record);
  g_string_append_c (s, '\n');
  fwrite (s->str, 1, s->len, out);
  /* Streaming contract: a consumer piping records sees each line as soon as it exists. */
  fflush (out);
}

msperf_value *
msperf_report_run_value (const msperf_run *run)
{
  msperf_value *root = msperf_value_new (MSPERF_VALUE_MAP), *ops = msperf_value_new (MSPERF_VALUE_LIST);
  g_autoptr (msperf_summary) summary = msperf_summary_compute (run);
  g_autoptr (msperf_metrics) metrics = msperf_metrics_compute (run);

  msperf_value_map_set (root, "schema_version", msperf_value_new_int (1));
  msperf_value_map_set (root, "database", msperf_value_new_string (run->database));
  msperf_value_map_set (root, "policy_hash", msperf_value_new_string (run->policy_hash));
  msperf_value_map_set (root, "device_profile", msperf_value_new_string (run->device_profile));
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
  "axes", "candidate_count", "miss_reason", "base_reason", "fallback_reasons", "error",
  "input_shapes"
};

/* A scalar cell: null empty, strings bare, numbers as in JSON; maps "k=v;k=v", lists "a; b". */
static void
csv_cell_text (GString *cell, const msperf_value *v)
{
  if (v == NULL || v->kind == MSPERF_VALUE_NONE)
    return;
  if (v->kind == MSPERF_VALUE_STRING)
    msperf_str_append (cell, v->s ? v->s : "");
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
          msperf_str_append (cell, "; ");
        csv_cell_text (cell, g_ptr_array_index (v->items, k));
      }
  else
    msperf_fmt_json_value (cell, v, -1, 0);
}

/* [[1, 256], [256, 256]] as "[1, 256] [256, 256]": a flat list would lose the tensors. */
static void
csv_shapes_text (GString *cell, const msperf_value *v)
{
  for (guint k = 0; v && v->kind == MSPERF_VALUE_LIST && k < v->items->len; k++)
    {
      if (k > 0)
        g_string_append_c (cell, ' ');
      msperf_fmt_json_value (cell, g_ptr_array_index (v->items, k), -1, 0);
    }
}

void
msperf_report_csv_header (GString *s)
{
  for (gsize c = 0; c < G_N_ELEMENTS (csv_columns); c++)
    g_string_append_printf (s, "%s%s", c ? "," : "", csv_columns[c]);
  msperf_str_append (s, "\r\n");
}

void
msperf_report_csv_write (GString *s, const msperf_record *record)
{
  g_autoptr (msperf_value) obj = msperf_report_record_value (record);
  g_autoptr (GString) cell = g_string_new (NULL);

  for (gsize c = 0; c < G_N_ELEMENTS (csv_columns); c++)
    {
      g_string_truncate (cell, 0);
      if (strcmp (csv_columns[c], "input_shapes") == 0)
        csv_shapes_text (cell, msperf_value_lookup (obj, csv_columns[c]));
      else
        csv_cell_text (cell, msperf_value_lookup (obj, csv_columns[c]));
      if (c > 0)
        g_string_append_c (s, ',');
      msperf_fmt_csv_field (s, cell->str);
    }
  msperf_str_append (s, "\r\n");
}

void
msperf_report_csv (const msperf_run *run, FILE *out)
{
  g_autoptr (GString) line = g_string_new (NULL);

  g_return_if_fail (run != NULL && out != NULL);
  msperf_report_csv_header (line);
  fwrite (line->str, 1, line->len, out);
  for (guint k = 0; k < run->records->len; k++)
    {
      g_string_truncate (line, 0);
      msperf_report_csv_write (line, g_ptr_array_index (run->records, k));
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
  msperf_outfile *of;
  gsize n;

  g_return_val_if_fail (path != NULL && text != NULL, FALSE);
  n = len < 0 ? strlen (text) : (gsize) len;
  of = msperf_outfile_open (path, error);
  if (of == NULL)
    return FALSE;
  /* A short write leaves the stream's error flag set: close reports it and drops the file. */
  fwrite (text, 1, n, msperf_outfile_stream (of));
  return msperf_outfile_close (of, error);
}
