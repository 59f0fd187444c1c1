/* msperf — Chrome trace (reference §3.4): one process, one stream, one "X" event per
 * invocation, back to back; args as upstream's Python str() so downstream parsers work. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <msperf/error.h>
#include <msperf/details.h>
#include <msperf/shape.h>
#include "app/report/report.h"
#include "app/report/output.h"
#include "app/run/metrics.h"
#include <msperf/format.h>

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
  const msperf_value *details = msperf_result_details (res);
  msperf_value *args = msperf_value_new (MSPERF_VALUE_MAP);
  gboolean analytic = res->source != MSPERF_SOURCE_MEASURED
    && res->source != MSPERF_SOURCE_INTERPOLATED && res->source != MSPERF_SOURCE_PARTIAL
    && res->source != MSPERF_SOURCE_EXTRAPOLATED;
  g_autoptr (GPtrArray) top = msperf_op_top_level_tensors (r->op);
  GString *s = g_string_new (NULL);

  set_str (args, "Inputs", inputs_repr (r->op));
  if (r->op->out->len > 0)
    set_str (args, "Output", output_repr (r->op));
  set_str (args, "simulation_shapes", shapes_repr (top));
  set_str (args, "input_shapes", shapes_repr (top));
  if (res->method)
    msperf_value_map_set (args, "method", msperf_value_new_string (res->method));
  /* Upstream omits source on a miss; msperf labels it so M6-style scripts can tell. */
  msperf_value_map_set (args, "source", msperf_value_new_string (analytic ? "ANALYTIC"
                                                          : msperf_source_name (res->source)));
  msperf_fmt_py_float (s, res->confidence);
  set_str (args, "confidence", g_strdup (s->str));
  if (res->miss_reason)
    msperf_value_map_set (args, "miss_reason", msperf_value_new_string (res->miss_reason));
  for (guint k = 0; k < details->items->len; k++)
    {
      g_string_truncate (s, 0);
      msperf_fmt_py_str (s, g_ptr_array_index (details->items, k));
      set_str (args, g_ptr_array_index (details->keys, k), g_strdup (s->str));
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

/* Times are kept in integer nanoseconds and printed as microseconds with three decimals: each
 * event starts exactly where the previous one ended (whole-µs rounding of ts and dur apart
 * made neighbours overlap on the one thread), and the decimal text is exact. */
static void
put_us (GString *s, int64_t ns)
{
  g_string_append_printf (s, "%" G_GINT64_FORMAT ".%03d", ns / 1000, (int) (ns % 1000));
}

static int64_t
latency_ns (double us)
{
  double ns = isfinite (us) && us > 0 ? us * 1000.0 : 0.0;
  return ns >= 9.0e18 ? G_GINT64_CONSTANT (9000000000000000000) : msperf_round_half_even (ns);
}

/* The part of an event after "ts": dur, pid, tid, args. */
static void
event_tail (GString *tail, const msperf_record *r, int64_t dur_ns, int64_t count)
{
  g_autoptr (msperf_value) args = event_args (r);

  if (count > 0)
    msperf_value_map_set (args, "count", msperf_value_new_int (count));
  g_string_assign (tail, ", \"dur\": ");
  put_us (tail, dur_ns);
  g_string_append (tail, ", \"pid\": 0, \"tid\": 0, \"args\": ");
  msperf_fmt_json_value (tail, args, -1, 0);
  g_string_append_c (tail, '}');
}

static void
event_head (GString *head, const msperf_record *r, const char *model)
{
  g_string_assign (head, ",\n{\"name\": ");
  msperf_fmt_json_string (head, r->op->name);
  g_string_append (head, ", \"cat\": ");
  msperf_fmt_json_string (head, model);
  g_string_append (head, ", \"ph\": \"X\", \"ts\": ");
}

static gboolean
answered (const msperf_record *r)
{
  return r->op != NULL && r->result != NULL && r->result->source != MSPERF_SOURCE_REJECTED;
}

/* --chrome-trace-aggregate: one event per distinct op, lasting count × latency. */
static gboolean
write_aggregate (const msperf_run *run, FILE *f, const char *model, GString *line)
{
  g_autoptr (GArray) counts = NULL;
  g_autoptr (GPtrArray) firsts = msperf_run_distinct (run, &counts);
  g_autoptr (GString) tail = g_string_new (NULL);
  int64_t start_ns = 0;

  for (guint k = 0; k < firsts->len; k++)
    {
      const msperf_record *r = g_ptr_array_index (firsts, k);
      int64_t count = g_array_index (counts, int64_t, k), dur;

      if (!answered (r))
        continue;
      if (!msperf_int64_checked_mul (latency_ns (r->result->latency_us), count, &dur))
        dur = G_MAXINT64 / 2;
      event_head (line, r, model);
      put_us (line, start_ns);
      event_tail (tail, r, dur, count);
      g_string_append_len (line, tail->str, tail->len);
      if (!put (f, line))
        return FALSE;
      start_ns = dur > G_MAXINT64 / 2 - start_ns ? G_MAXINT64 / 2 : start_ns + dur;
    }
  return TRUE;
}

static gboolean
write_invocations (const msperf_run *run, FILE *f, const char *model, GString *line)
{
  g_autoptr (GString) head = g_string_new (NULL);
  g_autoptr (GString) tail = g_string_new (NULL);
  int64_t start_ns = 0, written = 0;

  for (guint k = 0; k < run->records->len; k++)
    {
      const msperf_record *r = g_ptr_array_index (run->records, k);
      int64_t dur;

      if (!answered (r))
        continue;
      dur = latency_ns (r->result->latency_us);
      event_head (head, r, model);
      event_tail (tail, r, dur, 0);
      for (int64_t n = 0; n < r->count; n++)
        {
          if (written >= MAX_TRACE_EVENTS)
            {
              g_warning ("Chrome trace truncated after %d events (the run has more "
                         "invocations; --chrome-trace-aggregate writes one per op)",
                         MAX_TRACE_EVENTS);
              return TRUE;
            }
          g_string_assign (line, head->str);
          put_us (line, start_ns);
          g_string_append_len (line, tail->str, tail->len);
          if (!put (f, line))
            return FALSE;
          start_ns = dur > G_MAXINT64 / 2 - start_ns ? G_MAXINT64 / 2 : start_ns + dur;
          written++;
        }
    }
  return TRUE;
}

static gboolean
write_events (const msperf_run *run, FILE *f)
{
  const char *model = run->use_profiling ? "empirical" : "analytic";
  g_autoptr (GString) line = g_string_new (NULL);

  g_string_printf (line, "{\"traceEvents\": [\n"
                   "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": "
                   "{\"name\": \"%s (PID: 0)\"}},\n"
                   "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": "
                   "{\"name\": \"Stream 0\"}}", model);
  if (!put (f, line))
    return FALSE;
  if (!(run->chrome_aggregate ? write_aggregate (run, f, model, line)
                              : write_invocations (run, f, model, line)))
    return FALSE;
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
