/* msperf — query results and their ordered details. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <msperf/result.h>

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

static void
tensor_free (gpointer p)
{
  msperf_tensor_clear (p);
  g_free (p);
}

msperf_result *
msperf_result_new (void)
{
  msperf_result *r = g_new0 (msperf_result, 1);

  r->latency_us = NAN;
  r->kernel_shapes = g_ptr_array_new_with_free_func (tensor_free);
  r->details = msperf_value_new (MSPERF_VALUE_MAP);
  return r;
}

void
msperf_result_free (msperf_result *r)
{
  if (r == NULL)
    return;
  g_free (r->kernel_type);
  g_free (r->method);
  g_free (r->shape_match_rule);
  g_free (r->miss_reason);
  g_ptr_array_unref (r->kernel_shapes);
  msperf_value_free (r->details);
  g_free (r);
}

void
msperf_result_reset (msperf_result *r)
{
  g_return_if_fail (r != NULL);
  g_clear_pointer (&r->kernel_type, g_free);
  g_clear_pointer (&r->method, g_free);
  g_clear_pointer (&r->shape_match_rule, g_free);
  g_clear_pointer (&r->miss_reason, g_free);
  g_ptr_array_set_size (r->kernel_shapes, 0);
  msperf_value_free (r->details);
  r->details = msperf_value_new (MSPERF_VALUE_MAP);
  r->source = MSPERF_SOURCE_NONE;
  r->latency_us = NAN;
  r->confidence = 0.0;
  r->interpolation_dim = 0;
}

static void
replace (char **slot, const char *value)
{
  char *old = *slot;
  *slot = g_strdup (value);
  g_free (old);
}

void
msperf_result_set_hit (msperf_result *r, msperf_source source, double latency_us,
                       double confidence, const char *kernel_type, const char *rule)
{
  g_return_if_fail (r != NULL);
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

  g_return_val_if_fail (r != NULL, MSPERF_MISS);
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
  g_return_if_fail (r != NULL);
  replace (&r->method, method);
}

void
msperf_result_add_kernel_shape (msperf_result *r, const msperf_tensor *shape)
{
  msperf_tensor *t = g_new0 (msperf_tensor, 1);

  g_return_if_fail (r != NULL && shape != NULL);
  msperf_tensor_copy (t, shape);
  g_ptr_array_add (r->kernel_shapes, t);
}

void
msperf_result_detail_value (msperf_result *r, const char *key, msperf_value *value)
{
  g_return_if_fail (r != NULL && key != NULL);
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
