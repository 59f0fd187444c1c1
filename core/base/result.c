/* msperf — query results and their ordered details. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <msperf/result.h>
#include <msperf/details.h>
#include "detail_sink.h"

const char *
msperf_source_name (msperf_source source)
{
  switch (source)
    {
    case MSPERF_SOURCE_NONE: return "NONE";
    case MSPERF_SOURCE_MEASURED: return "MEASURED";
    case MSPERF_SOURCE_INTERPOLATED: return "INTERPOLATED";
    case MSPERF_SOURCE_EXTRAPOLATED: return "EXTRAPOLATED";
    case MSPERF_SOURCE_PARTIAL: return "PARTIAL";
    case MSPERF_SOURCE_ANALYTIC: return "ANALYTIC";
    case MSPERF_SOURCE_REJECTED: return "REJECTED";
    default: return "UNKNOWN";
    }
}

/* The reference count lives outside the public struct (every result comes from
 * msperf_result_new), so the struct and its users are unchanged. */
typedef struct {
  msperf_result pub;
  gint ref_count;
  /* Deferred details (msperf_result_defer_details): the producer's record and emitter. Until
   * the map is built, pub.details is suffix, the keys set after the record. */
  msperf_detail_emit_func emit;
  gpointer record;
  GDestroyNotify free_record;
  msperf_value *suffix;
  gsize build_once;       /* g_once guard of the build */
  gint built;             /* atomic: pub.details is the whole map */
} result_private;

#define PRIV(r) ((result_private *) (void *) (r))

/* A result the answer cache shares with a caller must not change under either of them:
 * the setters refuse it (a caller bug, like a NULL result). */
#define NOT_SHARED(r) (g_atomic_int_get (&PRIV (r)->ref_count) == 1)

static void
tensor_free (gpointer p)
{
  msperf_tensor_clear (p);
  g_free (p);
}

/* Results get a handful of details and kernel shapes: room for them up front spares the
 * arrays' regrowth (a fifth of an exact hit's mallocs were array growth, doc/performance.md). */
#define DETAILS_RESERVE 8
#define SHAPES_RESERVE 4

static msperf_value *
details_new (void)
{
  msperf_value *v = g_new0 (msperf_value, 1);

  v->kind = MSPERF_VALUE_MAP;
  v->items = g_ptr_array_new_full (DETAILS_RESERVE, (GDestroyNotify) msperf_value_free);
  v->keys = g_ptr_array_new_full (DETAILS_RESERVE, g_free);
  return v;
}

/* Drops the details and any deferred record; r->details is NULL after. */
static void
details_clear (result_private *p)
{
  if (p->suffix != NULL && p->suffix != p->pub.details)
    msperf_value_free (p->suffix);
  p->suffix = NULL;
  g_clear_pointer (&p->pub.details, msperf_value_free);
  if (p->free_record != NULL && p->record != NULL)
    p->free_record (p->record);
  p->emit = NULL;
  p->record = NULL;
  p->free_record = NULL;
  p->build_once = 0;
  p->built = 0;
}

/* TRUE while a deferred record's map is not built yet. */
static gboolean
pending (const result_private *p)
{
  return p->emit != NULL && !g_atomic_int_get (&p->built);
}

msperf_result *
msperf_result_new (void)
{
  result_private *p = g_new0 (result_private, 1);
  msperf_result *r = &p->pub;

  p->ref_count = 1;
  r->latency_us = NAN;
  r->kernel_shapes = g_ptr_array_new_full (SHAPES_RESERVE, tensor_free);
  r->details = details_new ();
  return r;
}

msperf_result *
msperf_result_ref (msperf_result *r)
{
  g_return_val_if_fail (r != NULL, NULL);
  g_atomic_int_inc (&PRIV (r)->ref_count);
  return r;
}

void
msperf_result_unref (msperf_result *r)
{
  if (r == NULL || !g_atomic_int_dec_and_test (&PRIV (r)->ref_count))
    return;
  g_free (r->kernel_type);
  g_free (r->method);
  g_free (r->shape_match_rule);
  g_free (r->miss_reason);
  g_ptr_array_unref (r->kernel_shapes);
  details_clear (PRIV (r));
  g_free (PRIV (r));
}

void
msperf_result_free (msperf_result *r)
{
  msperf_result_unref (r);
}

gboolean
msperf_result_is_shared (const msperf_result *r)
{
  g_return_val_if_fail (r != NULL, FALSE);
  return !NOT_SHARED (r);
}

msperf_result *
msperf_result_copy (const msperf_result *r)
{
  msperf_result *c;

  g_return_val_if_fail (r != NULL, NULL);
  c = msperf_result_new ();
  c->source = r->source;
  c->latency_us = r->latency_us;
  c->confidence = r->confidence;
  c->kernel_type = g_strdup (r->kernel_type);
  c->method = g_strdup (r->method);
  c->shape_match_rule = g_strdup (r->shape_match_rule);
  c->miss_reason = g_strdup (r->miss_reason);
  c->interpolation_dim = r->interpolation_dim;
  for (guint k = 0; k < r->kernel_shapes->len; k++)
    msperf_result_add_kernel_shape (c, g_ptr_array_index (r->kernel_shapes, k));
  msperf_value_free (c->details);
  c->details = msperf_value_copy (msperf_result_details (r));
  return c;
}

void
msperf_result_reset (msperf_result *r)
{
  g_return_if_fail (r != NULL && NOT_SHARED (r));
  g_clear_pointer (&r->kernel_type, g_free);
  g_clear_pointer (&r->method, g_free);
  g_clear_pointer (&r->shape_match_rule, g_free);
  g_clear_pointer (&r->miss_reason, g_free);
  g_ptr_array_set_size (r->kernel_shapes, 0);
  details_clear (PRIV (r));
  r->details = details_new ();
  r->source = MSPERF_SOURCE_NONE;
  r->latency_us = NAN;
  r->confidence = 0.0;
  r->interpolation_dim = 0;
}

/* Modules often set the value already there (set_hit, then the method "exact"): keep it. */
static void
replace (char **slot, const char *value)
{
  char *old = *slot;

  if (old != NULL && value != NULL && strcmp (old, value) == 0)
    return;
  *slot = g_strdup (value);
  g_free (old);
}

void
msperf_result_set_hit (msperf_result *r, msperf_source source, double latency_us,
                       double confidence, const char *kernel_type, const char *rule)
{
  g_return_if_fail (r != NULL && NOT_SHARED (r));
  r->source = source;
  r->latency_us = latency_us;
  r->confidence = confidence;
  replace (&r->kernel_type, kernel_type);
  replace (&r->shape_match_rule, rule);
  g_clear_pointer (&r->miss_reason, g_free);
  if (r->method == NULL)
    r->method = g_strdup ("exact");
  if (kernel_type)
    msperf_result_detail_string (r, "kernel_type", kernel_type);
}

msperf_status
msperf_result_set_miss (msperf_result *r, const char *fmt, ...)
{
  va_list ap;

  g_return_val_if_fail (r != NULL && NOT_SHARED (r), MSPERF_MISS);
  va_start (ap, fmt);
  g_free (r->miss_reason);
  r->miss_reason = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  r->source = MSPERF_SOURCE_NONE;
  r->latency_us = NAN;
  return MSPERF_MISS;
}

void
msperf_result_set_method (msperf_result *r, const char *method)
{
  g_return_if_fail (r != NULL && NOT_SHARED (r));
  replace (&r->method, method);
}

void
msperf_result_set_answer (msperf_result *r, msperf_source source, double latency_us,
                          double confidence)
{
  g_return_if_fail (r != NULL && NOT_SHARED (r));
  r->source = source;
  r->latency_us = latency_us;
  r->confidence = confidence;
}

void
msperf_result_set_reason (msperf_result *r, const char *fmt, ...)
{
  va_list ap;

  g_return_if_fail (r != NULL && NOT_SHARED (r));
  g_clear_pointer (&r->miss_reason, g_free);
  if (fmt == NULL)
    return;
  va_start (ap, fmt);
  r->miss_reason = g_strdup_vprintf (fmt, ap);
  va_end (ap);
}

void
msperf_result_set_rule (msperf_result *r, const char *rule)
{
  g_return_if_fail (r != NULL && NOT_SHARED (r));
  replace (&r->shape_match_rule, rule);
}

void
msperf_result_set_interpolation_dim (msperf_result *r, int dim)
{
  g_return_if_fail (r != NULL && NOT_SHARED (r));
  r->interpolation_dim = dim;
}

void
msperf_result_set_rejected (msperf_result *r, const char *default_reason)
{
  g_return_if_fail (r != NULL && NOT_SHARED (r));
  r->source = MSPERF_SOURCE_REJECTED;
  r->latency_us = NAN;
  if (r->miss_reason == NULL && default_reason != NULL)
    r->miss_reason = g_strdup (default_reason);
}

void
msperf_result_add_kernel_shape (msperf_result *r, const msperf_tensor *shape)
{
  msperf_tensor *t;

  g_return_if_fail (r != NULL && shape != NULL && NOT_SHARED (r));
  t = g_new (msperf_tensor, 1);
  msperf_tensor_copy (t, shape);
  g_ptr_array_add (r->kernel_shapes, t);
}

/* ------------------------------------------------------------------ deferred details */

static gboolean
record_has (const result_private *p, const char *key)
{
  msperf_detail_sink sink;

  msperf_detail_sink_init_probe (&sink, key);
  p->emit (p->record, &sink);
  return sink.found;
}

void
msperf_result_defer_details (msperf_result *r, msperf_detail_emit_func emit, gpointer record,
                             GDestroyNotify free_record)
{
  result_private *p = PRIV (r);

  if (r == NULL || emit == NULL || !NOT_SHARED (r))
    {
      /* record was handed over: a refused call must not leak it */
      if (free_record != NULL && record != NULL)
        free_record (record);
    }
  g_return_if_fail (r != NULL && emit != NULL && NOT_SHARED (r));
  details_clear (p);
  p->pub.details = p->suffix = details_new ();
  p->emit = emit;
  p->record = record;
  p->free_record = free_record;
}

/* The record's keys, then the suffix's (a copy: a reader may still be printing the suffix). */
static void
build (result_private *p)
{
  msperf_value *map = details_new ();
  msperf_detail_sink sink;

  msperf_detail_sink_init_tree (&sink, map, NULL);
  p->emit (p->record, &sink);
  for (guint k = 0; k < p->suffix->items->len; k++)
    msperf_value_map_set (map, g_ptr_array_index (p->suffix->keys, k),
                          msperf_value_copy (g_ptr_array_index (p->suffix->items, k)));
  p->pub.details = map;
  g_atomic_int_set (&p->built, 1);
}

const msperf_value *
msperf_result_details (const msperf_result *r)
{
  result_private *p;

  g_return_val_if_fail (r != NULL, NULL);
  p = PRIV (r);
  if (p->emit != NULL && g_once_init_enter (&p->build_once))
    {
      build (p);
      g_once_init_leave (&p->build_once, 1);
    }
  return r->details;
}

msperf_value *
msperf_result_detail_dup (const msperf_result *r, const char *key)
{
  const result_private *p;
  const msperf_value *v;

  g_return_val_if_fail (r != NULL && key != NULL, NULL);
  p = PRIV (r);
  if (pending (p))
    {
      g_autoptr (msperf_value) one = msperf_value_new (MSPERF_VALUE_MAP);
      msperf_detail_sink sink;

      msperf_detail_sink_init_tree (&sink, one, key);
      p->emit (p->record, &sink);
      if (sink.found)
        return g_ptr_array_steal_index (one->items, 0);
      v = msperf_value_lookup (p->suffix, key);
    }
  else
    v = msperf_value_lookup (r->details, key);
  return v ? msperf_value_copy (v) : NULL;
}

/* Every detail into sink: a pending record then its suffix, or the built map. */
static void
emit_all (const result_private *p, msperf_detail_sink *sink)
{
  const msperf_value *map = p->pub.details;

  if (pending (p))
    {
      p->emit (p->record, sink);
      map = p->suffix;
    }
  for (guint k = 0; k < map->items->len; k++)
    msperf_detail_sink_value (sink, g_ptr_array_index (map->keys, k),
                              g_ptr_array_index (map->items, k));
}

msperf_value *
msperf_result_details_subset (const msperf_result *r, const char *const *keys)
{
  const result_private *p;
  msperf_value *out;
  msperf_detail_sink sink;

  g_return_val_if_fail (r != NULL && keys != NULL, NULL);
  p = PRIV (r);
  out = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_detail_sink_init_subset (&sink, out, keys);
  emit_all (p, &sink);
  return out;
}

void
msperf_result_details_json (const msperf_result *r, GString *out, const char *const *keys,
                            msperf_detail_span *spans)
{
  const result_private *p;
  msperf_detail_sink sink;

  g_return_if_fail (r != NULL && out != NULL && (keys == NULL || spans != NULL));
  p = PRIV (r);
  for (int k = 0; keys && keys[k]; k++)
    spans[k].start = spans[k].end = 0;
  g_string_append_c (out, '{');
  msperf_detail_sink_init_json (&sink, out, 0, keys, spans);
  emit_all (p, &sink);
  g_string_append_c (out, '}');
}

void
msperf_result_detail_value (msperf_result *r, const char *key, msperf_value *value)
{
  /* value was handed over: a refused call must not leak it */
  if (r == NULL || key == NULL || !NOT_SHARED (r))
    msperf_value_free (value);
  g_return_if_fail (r != NULL && NOT_SHARED (r) && key != NULL);
  /* A key of a deferred record keeps its place: build the map, then replace it there. */
  if (pending (PRIV (r)) && record_has (PRIV (r), key))
    msperf_result_details (r);
  msperf_value_map_set (r->details, key, value);
}

void
msperf_result_detail_string (msperf_result *r, const char *key, const char *value)
{
  msperf_result_detail_value (r, key, msperf_value_new_string (value));
}

void
msperf_result_detail_int (msperf_result *r, const char *key, int64_t value)
{
  msperf_result_detail_value (r, key, msperf_value_new_int (value));
}

void
msperf_result_detail_double (msperf_result *r, const char *key, double value)
{
  msperf_result_detail_value (r, key, msperf_value_new_double (value));
}

void
msperf_result_detail_bool (msperf_result *r, const char *key, gboolean value)
{
  msperf_result_detail_value (r, key, msperf_value_new_bool (value));
}

/* ------------------------------------------------------------------ composite details */

/* Python's round(x, 2): printf rounds the exact binary value, as CPython does. */
static double
round2 (double x)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (x))
    return x;
  g_ascii_formatd (buf, sizeof buf, "%.2f", x);
  return g_ascii_strtod (buf, NULL);
}

msperf_value *
msperf_sub_kernel_duration_new (const char *kernel, double latency_us)
{
  msperf_value *pair = msperf_value_new (MSPERF_VALUE_LIST);

  msperf_value_list_append (pair, msperf_value_new_string (kernel ? kernel : ""));
  msperf_value_list_append (pair, msperf_value_new_double (round2 (latency_us)));
  return pair;
}

msperf_value *
msperf_sub_kernel_shape_new (const char *kernel, msperf_value *simulation,
                             msperf_value *kernel_shapes, const char *rule)
{
  msperf_value *m = msperf_value_new (MSPERF_VALUE_MAP);

  msperf_value_map_set (m, "kernel_type", msperf_value_new_string (kernel ? kernel : ""));
  msperf_value_map_set (m, "simulation_shapes", simulation);
  msperf_value_map_set (m, "kernel_shapes", kernel_shapes);
  msperf_value_map_set (m, "shape_match_rule", msperf_value_new_string (rule ? rule : ""));
  return m;
}

msperf_value *
msperf_result_kernel_shapes_value (const msperf_result *r)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (guint k = 0; r && k < r->kernel_shapes->len; k++)
    msperf_value_list_append (list, msperf_value_new_shape (g_ptr_array_index (r->kernel_shapes, k)));
  return list;
}
