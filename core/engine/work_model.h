/* msperf (internal) — the analytic work of an interpolation coordinate (guarded extrapolation,
 * seed 000 §8): FLOPs and bytes as a function of a point's axes, by the axis set the modules
 * describe, and its roofline time. One place, so every strategy scales by the same model. */
#ifndef MSPERF_CORE_WORK_MODEL_H
#define MSPERF_CORE_WORK_MODEL_H

#include <msperf/dtype.h>
#include "io/device.h"

G_BEGIN_DECLS

typedef enum {
  MSPERF_WORK_NONE = 0,     /* no model for these axes */
  MSPERF_WORK_MATMUL,       /* M, K, N (+ H): 2·H·M·K·N FLOPs, H·(MK + KN + MN) elements */
  MSPERF_WORK_ATTENTION,    /* seq, batch, heads, head_dim: causal 2·B·N·S²·D, 4·B·N·S·D */
  MSPERF_WORK_LINEAR        /* one axis (numel, dim 0): work proportional to it */
} msperf_work_kind;

typedef struct msperf_work {
  msperf_work_kind kind;
  double flops;
  double bytes;
} msperf_work;

/* The work at the n axes (names, values; an unknown batch counts as 1) for elements of
 * elem_size bytes. FALSE (kind NONE) when the axis set has no model or a value is not > 0. */
gboolean msperf_work_model (const char *const *names, const double *values, size_t n,
                            double elem_size, msperf_work *out);

/* The quantity a marginal fit is affine in: FLOPs (matmul, attention), bytes (one axis). */
double msperf_work_measure (const msperf_work *w);

/* Roofline time of w: max(FLOPs / peak(dtype), bytes / bandwidth) + launch overhead, in µs;
 * NAN when the device gives neither a peak nor a bandwidth. */
double msperf_work_roofline_us (const msperf_device *device, msperf_dtype dtype,
                                const msperf_work *w);

G_END_DECLS

#endif /* MSPERF_CORE_WORK_MODEL_H */
