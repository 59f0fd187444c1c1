/* msperf (internal) — the analytic roofline of FORMATS §4. Which model costs an op is data:
 * the device's op families (policies/roofline-families.yaml, doc/formats.md §4.1). */
#ifndef MSPERF_CORE_ROOFLINE_H
#define MSPERF_CORE_ROOFLINE_H

#include <msperf/engine.h>
#include <msperf/op.h>
#include "io/device.h"

/* What the roofline decided about an op, kept for details and reports. */
typedef struct msperf_roofline {
  const char *kind;     /* "matmul", "attention", "collective", "matmul_collective", "gather",
                         * "fused_moe", "metadata", "elementwise" */
  double flops;
  double bytes;
  double compute_us;
  double memory_us;
  double latency_us;    /* NAN when the op cannot be costed */
  /* What the model had to assume because the op does not say ("" when nothing): the
   * physical fallbacks (doc/decisions.md, "Fallbacks that respect physics"). */
  char degraded[192];
  /* Collectives costed without a rank-group list (op summaries): the group size and where it
   * came from ("shapes", "tp_size", "ep_size", "world_size"); 0 and NULL otherwise. */
  int64_t group_size;
  const char *group_source;
  double collective_us; /* the collective part of a fused matmul+collective, else 0 */
} msperf_roofline;

/* Costs op on device. Always fills *out; latency NAN when the device lacks what is needed.
 * parallel (may be NULL: tp 1, ep unset, world 1) sizes collectives that carry no rank group. */
void msperf_roofline_estimate_parallel (const msperf_device *device,
                                        const msperf_parallel *parallel, const msperf_op *op,
                                        msperf_roofline *out);
/* msperf_roofline_estimate_parallel with parallel NULL. */
void msperf_roofline_estimate (const msperf_device *device, const msperf_op *op,
                               msperf_roofline *out);

/* Ring / alpha-beta cost of one collective over p ranks of one tier: MSPERF_PATTERN_ALL_REDUCE
 * 2(p−1)/p·bytes/bw + 2(p−1)·α; all_gather, reduce_scatter (bytes = the gathered total) and
 * all_to_all (p−1)/p·bytes/bw + (p−1)·α. 0 when p ≤ 1. bw in GB/s, α in µs. */
double msperf_collective_ring_us (msperf_collective_pattern pattern, double bytes, int64_t p,
                                  double bandwidth_gbps, double latency_us);

#endif
