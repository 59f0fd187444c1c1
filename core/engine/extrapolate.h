/* msperf (internal) — guarded extrapolation (seed 000 §8): when every axis group of the
 * interpolation stage failed for a kernel and the policy sets allow_extrapolation, answer from
 * the target's regime data beyond its range, within interpolation.extrapolation's max_ratio and
 * max_bound, as EXTRAPOLATED. Off by default: without allow_extrapolation nothing here runs
 * and every answer stays as it was. */
#ifndef MSPERF_CORE_EXTRAPOLATE_H
#define MSPERF_CORE_EXTRAPOLATE_H

#include <msperf/plugin.h>
#include "interp/index.h"

G_BEGIN_DECLS

/* Display confidences (never used to choose an answer): below every interpolation confidence
 * (≥ 0.55), lowered per axis outside the data beyond the first. */
#define MSPERF_EXTRAP_CONFIDENCE 0.45
#define MSPERF_EXTRAP_CONFIDENCE_PER_AXIS 0.05
#define MSPERF_EXTRAP_CONFIDENCE_MIN 0.20
/* interpolation.extrapolation.max_ratio when the policy gives none. */
#define MSPERF_EXTRAP_DEFAULT_MAX_RATIO 2.0

/* TRUE when the effective policy allows extrapolation for kernel: the kernel's
 * allow_extrapolation in interpolation.kernel_overrides (or the database's
 * interpolation_policy), else interpolation.allow_extrapolation. */
gboolean msperf_extrapolation_allowed (msperf_engine *engine, const char *kernel);

/* The hook of the interpolation stage, after every group of the target t's buckets (of index,
 * built for kernel) failed: FALSE at once when extrapolation is not allowed for kernel (r
 * untouched). Otherwise TRUE with r EXTRAPOLATED (method extrapolated_hold_analytic or
 * extrapolated_marginal; details: extrapolation {strategy, target, clamped, ratio, …},
 * fallback_reasons of the failed stage = reasons, base_reason, fallback_from); or FALSE with
 * details.extrapolation_refused on r (the caller's fallback keeps it). */
gboolean msperf_extrapolate (msperf_engine *engine, msperf_index *index, const char *kernel,
                             const msperf_query *q, const msperf_point *t,
                             const GPtrArray *buckets, const char *base_reason,
                             const char *fallback_from, const GPtrArray *reasons,
                             msperf_result *r);

G_END_DECLS

#endif /* MSPERF_CORE_EXTRAPOLATE_H */
