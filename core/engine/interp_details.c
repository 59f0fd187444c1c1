/* msperf — an interpolated answer's details as one compact record.
 *
 * Built node by node, these details would be some eighty allocations a 3-D answer, a third of
 * its time, kept alive in the answer cache and freed one by one at exit. The record
 * is one allocation; the emitter below writes the same keys in the same order, with the same
 * value kinds, into whichever sink reads it (tests/engine/test_interp_details.c checks the
 * built tree and the printed JSON against each other and against a node-by-node build). */
#include <config.h>
#include <math.h>
#include <string.h>
#include "engine/interp_details.h"
#include "base/detail_sink.h"

/* ------------------------------------------------------------------ packing */

/* One string copied into the block's pool (NULL stays NULL). */
static const char *
pool_put (char **at, const char *s)
{
  char *copy;
  size_t n;

  if (s == NULL)
    return NULL;
  n = strlen (s) + 1;
  copy = memcpy (*at, s, n);
  *at += n;
  return copy;
}

static size_t
str_size (const char *s)
{
  return s ? strlen (s) + 1 : 0;
}

/* Every string the record refers to, and the fallback reasons' pointer array. */
static size_t
strings_size (const msperf_interp_details *d)
{
  const char *const fixed[] = { d->kernel, d->method, d->aggregate, d->fallback_from,
                                d->regime, d->regime_group, d->query_mode, d->base_reason };
  size_t n = 0;

  for (size_t k = 0; k < G_N_ELEMENTS (fixed); k++)
    n += str_size (fixed[k]);
  for (size_t a = 0; a < d->n_axes; a++)
    n += str_size (d->axis_names[a]);
  for (size_t f = 0; f < d->n_fields; f++)
    n += str_size (d->field_names[f]);
  for (guint k = 0; k < d->n_reasons; k++)
    n += str_size (d->reasons[k]);
  return n;
}

void
msperf_interp_details_defer (msperf_result *r, const msperf_interp_details *d)
{
  /* struct, then the reasons' pointers (aligned as pointers follow a struct), then the pool */
  size_t head = sizeof (msperf_interp_details);
  size_t ptrs = (size_t) d->n_reasons * sizeof (const char *);
  msperf_interp_details *c = g_malloc (head + ptrs + strings_size (d));
  const char **reasons = (const char **) (void *) ((char *) c + head);
  char *at = (char *) c + head + ptrs;

  *c = *d;
  c->kernel = pool_put (&at, d->kernel);
  c->method = pool_put (&at, d->method);
  c->aggregate = pool_put (&at, d->aggregate);
  c->fallback_from = pool_put (&at, d->fallback_from);
  c->regime = pool_put (&at, d->regime);
  c->regime_group = pool_put (&at, d->regime_group);
  c->query_mode = pool_put (&at, d->query_mode);
  c->base_reason = pool_put (&at, d->base_reason);
  for (size_t a = 0; a < d->n_axes; a++)
    c->axis_names[a] = pool_put (&at, d->axis_names[a]);
  for (size_t f = 0; f < d->n_fields; f++)
    c->field_names[f] = pool_put (&at, d->field_names[f]);
  for (guint k = 0; k < d->n_reasons; k++)
    reasons[k] = pool_put (&at, d->reasons[k]);
  c->reasons = reasons;
  msperf_result_defer_details (r, msperf_interp_details_emit, c, g_free);
}

/* ------------------------------------------------------------------ emitting */

/* A coordinate as the details show it: axis coordinates are counts, so an integral value
 * (within 2^53) prints as an integer, as upstream's ints do; NaN is null. */
static void
number (msperf_detail_sink *s, const char *key, double v)
{
  if (isfinite (v) && v == floor (v) && fabs (v) < 9007199254740992.0)
    msperf_detail_sink_int (s, key, (int64_t) v);
  else if (isnan (v))
    msperf_detail_sink_null (s, key);
  else
    msperf_detail_sink_double (s, key, v);
}

static gboolean
selected (const msperf_interp_details *d, size_t a)
{
  for (int j = 0; j < d->dim; j++)
    if (d->axes[j] == a)
      return TRUE;
  return FALSE;
}

/* The containers below are skipped whole when the sink does not want them (a probe or a
 * subset): their values are most of the record's calls. */
static void
emit_axes (const msperf_interp_details *d, msperf_detail_sink *s)
{
  if (msperf_detail_sink_wants (s, "axes"))
    {
      msperf_detail_sink_begin_map (s, "axes");
      for (int j = 0; j < d->dim; j++)
        number (s, d->axis_names[d->axes[j]], d->target[d->axes[j]]);
      msperf_detail_sink_end (s);
    }
  if (msperf_detail_sink_wants (s, "target"))
    {
      msperf_detail_sink_begin_map (s, "target");
      for (size_t a = 0; a < d->n_axes; a++)
        number (s, d->axis_names[a], d->target[a]);
      msperf_detail_sink_end (s);
    }
  if (!msperf_detail_sink_wants (s, "axis_boundary"))
    return;
  msperf_detail_sink_begin_map (s, "axis_boundary");
  for (int j = 0; j < d->dim; j++)
    {
      msperf_detail_sink_begin_list (s, d->axis_names[d->axes[j]]);
      number (s, NULL, d->lo[j]);
      number (s, NULL, d->hi[j]);
      msperf_detail_sink_end (s);
    }
  msperf_detail_sink_end (s);
}

static void
emit_points (const msperf_interp_details *d, msperf_detail_sink *s)
{
  if (!msperf_detail_sink_wants (s, "candidate_points"))
    return;
  msperf_detail_sink_begin_list (s, "candidate_points");
  for (size_t k = 0; k < d->n_points; k++)
    {
      msperf_detail_sink_begin_map (s, NULL);
      msperf_detail_sink_begin_map (s, "axes");
      for (int j = 0; j < d->dim; j++)
        number (s, d->axis_names[d->axes[j]], d->point_axes[k][j]);
      msperf_detail_sink_end (s);
      msperf_detail_sink_double (s, "latency_us", d->point_latency[k]);
      if (d->have_weights)
        msperf_detail_sink_double (s, "weight", d->point_weight[k]);
      msperf_detail_sink_end (s);
    }
  msperf_detail_sink_end (s);
}

static void
emit_exact (const msperf_interp_details *d, msperf_detail_sink *s)
{
  if (!msperf_detail_sink_wants (s, "exact_fields"))
    return;
  msperf_detail_sink_begin_map (s, "exact_fields");
  for (size_t a = 0; a < d->n_axes; a++)
    if (!selected (d, a))
      number (s, d->axis_names[a], d->target[a]);
  for (size_t f = 0; f < d->n_fields; f++)
    msperf_detail_sink_int (s, d->field_names[f], d->fields[f]);
  msperf_detail_sink_end (s);
}

static void
emit_space (const msperf_interp_details *d, msperf_detail_sink *s)
{
  if (d->transformed)
    msperf_detail_sink_string (s, "axis_transform", "sqrt_seq");
  else
    msperf_detail_sink_null (s, "axis_transform");
  if (d->log_space)
    {
      msperf_detail_sink_string (s, "space", "log");
      if (d->sqrt_seq_ignored)
        msperf_detail_sink_string (s, "axis_transform_ignored", "sqrt_seq");
    }
  if (d->seq_block)
    {
      msperf_detail_sink_int (s, "seq_block", d->seq_block);
      if (d->seq_rounded)
        number (s, "seq_rounded_from", d->seq_rounded_from);
    }
}

void
msperf_interp_details_emit (gconstpointer record, msperf_detail_sink *s)
{
  const msperf_interp_details *d = record;

  if (d->kernel)
    msperf_detail_sink_string (s, "kernel_type", d->kernel);
  msperf_detail_sink_string (s, "method", d->method);
  msperf_detail_sink_int (s, "interpolation_dim", d->dim);
  emit_axes (d, s);
  emit_points (d, s);
  msperf_detail_sink_int (s, "candidate_count", d->candidate_count);
  msperf_detail_sink_int (s, "raw_count", d->raw_count);
  msperf_detail_sink_int (s, "aggregated_count", d->aggregated_count);
  msperf_detail_sink_int (s, "dropped_count", d->dropped_count);
  msperf_detail_sink_string (s, "aggregate", d->aggregate);
  msperf_detail_sink_double (s, "confidence", d->confidence);
  msperf_detail_sink_string (s, "fallback_from", d->fallback_from);
  emit_exact (d, s);
  msperf_detail_sink_string (s, "regime", d->regime);
  if (d->regime_group && d->regime_group[0])
    msperf_detail_sink_string (s, "regime_group", d->regime_group);
  emit_space (d, s);
  msperf_detail_sink_string (s, "query_mode", d->query_mode);
  if (msperf_detail_sink_wants (s, "fallback_reasons"))
    {
      msperf_detail_sink_begin_list (s, "fallback_reasons");
      for (guint k = 0; k < d->n_reasons; k++)
        msperf_detail_sink_string (s, NULL, d->reasons[k]);
      msperf_detail_sink_end (s);
    }
  if (d->base_reason)
    msperf_detail_sink_string (s, "base_reason", d->base_reason);
}
