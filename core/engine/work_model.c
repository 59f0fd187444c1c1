/* msperf — analytic work of a coordinate point (see work_model.h). The formulas are those of
 * roofline.c written on the axes instead of the op's tensors: a ratio of two of them scales a
 * measured latency, so only their shape over the axes matters, not the absolute level. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "engine/work_model.h"

static gboolean
axis (const char *const *names, const double *values, size_t n, const char *name, double dflt,
      double *out)
{
  for (size_t k = 0; k < n; k++)
    if (strcmp (names[k], name) == 0)
      {
        *out = isnan (values[k]) ? dflt : values[k];
        return *out > 0.0;
      }
  *out = dflt;
  return dflt > 0.0;
}

static gboolean
has (const char *const *names, size_t n, const char *name)
{
  for (size_t k = 0; k < n; k++)
    if (strcmp (names[k], name) == 0)
      return TRUE;
  return FALSE;
}

gboolean
msperf_work_model (const char *const *names, const double *values, size_t n, double elem_size,
                   msperf_work *out)
{
  double m, k, nn, h, s, b, heads, d;

  g_return_val_if_fail (out != NULL, FALSE);
  *out = (msperf_work){ MSPERF_WORK_NONE, NAN, NAN };
  if (names == NULL || values == NULL || n == 0)
    return FALSE;
  if (has (names, n, "M") && has (names, n, "K") && has (names, n, "N"))
    {
      if (!axis (names, values, n, "M", NAN, &m) || !axis (names, values, n, "K", NAN, &k)
          || !axis (names, values, n, "N", NAN, &nn) || !axis (names, values, n, "H", 1.0, &h))
        return FALSE;
      *out = (msperf_work){ MSPERF_WORK_MATMUL, 2.0 * h * m * k * nn,
                            h * (m * k + k * nn + m * nn) * elem_size };
      return TRUE;
    }
  if (has (names, n, "seq") && has (names, n, "heads") && has (names, n, "head_dim"))
    {
      if (!axis (names, values, n, "seq", NAN, &s) || !axis (names, values, n, "batch", 1.0, &b)
          || !axis (names, values, n, "heads", NAN, &heads)
          || !axis (names, values, n, "head_dim", NAN, &d))
        return FALSE;
      /* Causal self-attention (roofline.c): 4·N·S²·D halved; Q, K, V and O read or written. */
      *out = (msperf_work){ MSPERF_WORK_ATTENTION, 2.0 * b * heads * s * s * d,
                            4.0 * b * heads * s * d * elem_size };
      return TRUE;
    }
  if (n == 1)
    {
      if (!(values[0] > 0.0))
        return FALSE;
      /* One element-wise operation per element, two inputs and one output (roofline.c). */
      *out = (msperf_work){ MSPERF_WORK_LINEAR, values[0], 3.0 * values[0] * elem_size };
      return TRUE;
    }
  return FALSE;
}

double
msperf_work_measure (const msperf_work *w)
{
  g_return_val_if_fail (w != NULL, NAN);
  return w->kind == MSPERF_WORK_LINEAR ? w->bytes : w->flops;
}

double
msperf_work_roofline_us (const msperf_device *device, msperf_dtype dtype, const msperf_work *w)
{
  double tf, compute_us = 0.0, memory_us = 0.0;

  g_return_val_if_fail (w != NULL, NAN);
  if (device == NULL || w->kind == MSPERF_WORK_NONE)
    return NAN;
  tf = msperf_device_peak_tflops (device, dtype);
  if (!(tf > 0.0))
    tf = msperf_device_peak_tflops (device, MSPERF_DTYPE_BF16);
  if (tf > 0.0)
    compute_us = w->flops / (tf * 1e12) * 1e6;
  if (device->memory_bandwidth_gbps > 0.0)
    memory_us = w->bytes / (device->memory_bandwidth_gbps * 1e3);
  if (!(compute_us > 0.0) && !(memory_us > 0.0))
    return NAN;
  return MAX (compute_us, memory_us) + (device->launch_overhead_us > 0.0
                                        ? device->launch_overhead_us : 0.0);
}
