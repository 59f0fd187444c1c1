/* msperf — Chrome trace (reference §3.4): one process, one stream, one "X" event per
 * invocation, back to back; args as upstream's Python str() so downstream parsers work. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <msperf/error.h>
#include "app/report.h"
#include "app/output.h"
#include "app/metrics.h"
#include "base/numfmt.h"

/* Beyond this a trace is too large for chrome://tracing or Perfetto to open anyway. */
#define MAX_TRACE_EVENTS 1000000

static void
py_tuple (GString *s, GPtrArray *items)
{
  g_string_append_c (s, '(');
  for (guint k = 0; k < items->len; k++)
    {
      if (k > 0)
        g_string_append (s, ", ");
      msperf_fmt_py_repr (s, g_ptr_array_index (items, k));
    }
  if (items->len == 1)
    g_string_append_c (s, ',');
  g_string_append_c (s, ')');
}

/* str(args) + " kwargs: " + str(kwargs), as upstream's Inputs. */
static char *
inputs_repr (const msperf_op *op)
{
  GString *s = g_string_new (NULL);

  py_tuple (s, op->args);
  g_string_append (s, " kwargs: ");
  msperf_fmt_py_repr (s, op->kwargs);
  return g_string_free (s, FALSE);
}

static char *
output_repr (const msperf_op *op)
{
  GString *s = g_string_new (NULL);
  g_autoptr (GPtrArray) outs = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_value_free);

  for (guint k = 0; k < op->out->len; k++)
    {
      msperf_value *v = msperf_value_new (MSPERF_VALUE_TENSOR);
      msperf_tensor_copy (&v->tensor, g_ptr_array_index (op->out, k));
      g_ptr_array_add (outs, v);
    }
  if (outs->len == 1)
    msperf_fmt_py_repr (s, g_ptr_array_index (outs, 0));
  else
    py_tuple (s, outs);
  return g_string_free (s, FALSE);
}

static char *
shapes_repr (const GPtrArray *tensors)
{
  GString *s = g_string_new ("[");

  for (guint k = 0; k < tensors->len; k++)
    {
      if (k > 0)
        g_string_append (s, ", ");
      msperf_fmt_py_shape (s, g_ptr_array_index (tensors, k));
    }
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static void
set_str (msperf_value *map, const char *key, char *owned)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_STRING);
  v->s = owned;
  msperf_value_map_set (map, key, v);
}

/* The args object of one record (identical for each of its invocations). Transfer full. */
static msperf_value *
event_args (const msperf_record *r)
{
  const msperf_result *res = r->result;
  msperf_value *args = msperf_value_new (MSPERF_VALUE_MAP);
  gboolean analytic = res->source != MSPERF_SOURCE_MEASURED
    && res->source != MSPERF_SOURCE_INTERPOLATED && res->source != MSPERF_SOURCE_PARTIAL;
  g_autoptr (GPtrArray) top = msperf_op_top_level_tensors (r->op);
  GString *s = g_string_new (NULL);

  set_str (args, "Inputs", inputs_repr (r->op));
  if (r->op->out->len > 0)
    set_str (args, "Output", output_repr (r->op));
  set_str (args, "simulation_shapes", shapes_repr (top));
  /* Upstream omits source on a miss; msperf labels it so M6-style scripts can tell. */
  msperf_value_map_set (args, "source", msperf_value_new_string (analytic ? "ANALYTIC"
                                                          : msperf_source_name (res->source)));
  msperf_fmt_py_float (s, res->confidence);
  set_str (args, "confidence", g_strdup (s->str));
  if (res->miss_reason)
    msperf_value_map_set (args, "miss_reason", msperf_value_new_string (res->miss_reason));
  for (guint k = 0; k < res->details->items->len; k++)
    {
      g_string_truncate (s, 0);
      msperf_fmt_py_str (s, g_ptr_array_index (res->details->items, k));
      set_str (args, g_ptr_array_index (res->details->keys, k), g_strdup (s->str));
    }
  if (analytic)
    msperf_value_map_set (args, "shape_match_rule", msperf_value_new_string ("analytic"));
  else
    {
      set_str (args, "kernel_shapes", shapes_repr (res->kernel_shapes));
      msperf_value_map_set (args, "shape_match_rule",
                            msperf_value_new_string (res->shape_match_rule ? res->shape_match_rule : ""));
    }
  g_string_free (s, TRUE);
  return args;
}

static gboolean
put (FILE *f, const GString *s)
{
  return fwrite (s->str, 1, s->len, f) == s->len;
}

static gboolean
write_events (const msperf_run *run, FILE *f)
{
  const char *model = run->use_profiling ? "empirical" : "analytic";
  g_autoptr (GString) line = g_string_new (NULL);
  g_autoptr (GString) head = g_string_new (NULL);
  g_autoptr (GString) tail = g_string_new (NULL);
  double start_us = 0.0;
  int64_t written = 0;
  gboolean capped = FALSE;

  g_string_printf (line, "{\"traceEvents\": [\n"
                   "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": "
                   "{\"name\": \"%s (PID: 0)\"}},\n"
                   "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": "
                   "{\"name\": \"Stream 0\"}}", model);
  if (!put (f, line))
    return FALSE;
  for (guint k = 0; k < run->records->len && !capped; k++)
    {
      const msperf_record *r = g_ptr_array_index (run->records, k);
      g_autoptr (msperf_value) args = NULL;
      double lat;
      int64_t dur;

      if (r->op == NULL || r->result == NULL || r->result->source == MSPERF_SOURCE_REJECTED)
        continue;
      args = event_args (r);
      lat = isfinite (r->result->latency_us) ? r->result->latency_us : 0.0;
      dur = msperf_round_half_even (lat);
      g_string_assign (head, ",\n{\"name\": ");
      msperf_fmt_json_string (head, r->op->name);
      g_string_append (head, ", \"cat\": ");
      msperf_fmt_json_string (head, model);
      g_string_append (head, ", \"ph\": \"X\", \"ts\": ");
      g_string_assign (tail, ", \"pid\": 0, \"tid\": 0, \"args\": ");
      msperf_fmt_json_value (tail, args, -1, 0);
      g_string_append_c (tail, '}');
      for (int64_t n = 0; n < r->count; n++)
        {
          if (written >= MAX_TRACE_EVENTS)
            {
              capped = TRUE;
              break;
            }
          g_string_assign (line, head->str);
          g_string_append_printf (line, "%" G_GINT64_FORMAT ", \"dur\": %" G_GINT64_FORMAT,
                                  msperf_round_half_even (start_us), dur);
          g_string_append_len (line, tail->str, tail->len);
          if (!put (f, line))
            return FALSE;
          start_us += lat;
          written++;
        }
    }
  if (capped)
    g_warning ("Chrome trace truncated after %d events (the run has more invocations)",
               MAX_TRACE_EVENTS);
  g_string_assign (line, "\n]}\n");
  return put (f, line);
}

gboolean
msperf_report_chrome_trace (const msperf_run *run, const char *path, GError **error)
{
  msperf_outfile *of;

  g_return_val_if_fail (run != NULL && path != NULL, FALSE);
  of = msperf_outfile_open (path, error);
  if (of == NULL)
    return FALSE;
  /* A failed write leaves the stream's error flag set; close reports it with the path. */
  write_events (run, msperf_outfile_stream (of));
  return msperf_outfile_close (of, error);
}
