/* msperf (internal) — composite ops: static sub_kernels and decomposer aggregation
 * (reference §2.8). */
#ifndef MSPERF_CORE_COMPOSITE_H
#define MSPERF_CORE_COMPOSITE_H

#include <msperf/plugin.h>

/* Answers a composite entry: the decomposer module registered for op->name (its decompose
 * slot), else the entry's static sub_kernels; fills r (hit, PARTIAL or miss with reason).
 * A PARTIAL answer returns MSPERF_HIT (its latency is the op's) with source PARTIAL and
 * miss_reason "sub_kernel_miss:<k,…>". A decompose slot returns MSPERF_HIT with sub-queries,
 * MSPERF_MISS when this invocation cannot be decomposed (decompose_failed) or MSPERF_ERROR when
 * the op or variant is not specified by the module (decomposer_unsupported). */
msperf_status msperf_composite_answer (msperf_engine *engine, const msperf_op *op,
                                       const msperf_mapping_entry *entry, msperf_result *r);

/* A decomposer's plan (include/msperf/plugin.h): the parts the engine answers. */
struct msperf_plan {
  GPtrArray *parts;   /* msperf_subquery*, owned by the caller's array */
  char *miss;         /* the decomposer's reason for MSPERF_MISS, or NULL */
};

#endif
