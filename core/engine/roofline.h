/* msperf (internal) — the analytic roofline of FORMATS §4. */
#ifndef MSPERF_CORE_ROOFLINE_H
#define MSPERF_CORE_ROOFLINE_H

#include <msperf/op.h>
#include "io/device.h"

/* What the roofline decided about an op, kept for details and reports. */
typedef struct msperf_roofline {
  const char *kind;     /* "matmul", "attention", "collective", "elementwise" */
  double flops;
  double bytes;
  double compute_us;
  double memory_us;
  double latency_us;    /* NAN when the op cannot be costed */
} msperf_roofline;

/* Costs op on device. Always fills *out; latency NAN when the device lacks what is needed. */
void msperf_roofline_estimate (const msperf_device *device, const msperf_op *op,
                               msperf_roofline *out);

#endif
