/* msperf (internal) — `msperf holdout` of guarded extrapolation: hide the outermost values of
 * one axis and predict them from the rest, through the interpolation stage and then
 * msperf_extrapolate, as an estimate past the data would. */
#ifndef MSPERF_CORE_HOLDOUT_EXTRAP_H
#define MSPERF_CORE_HOLDOUT_EXTRAP_H

#include <msperf/holdout.h>
#include <msperf/result.h>
#include "interp/index.h"

G_BEGIN_DECLS

typedef struct msperf_holdout_extrap_options {
  const char *axis;      /* the axis whose largest values are hidden (M, K, N, seq, …) */
  guint hide_outer;      /* how many of its largest distinct values, per bucket (≥ 1) */
} msperf_holdout_extrap_options;

/* For the index of kernel (built by module mode for tc_input_count, as msperf holdout builds
 * it): in every bucket with axis o->axis, hides the o->hide_outer largest distinct values of
 * that axis and predicts each hidden coordinate (the points with equal axes and fields, their
 * median the measurement) from the remaining points. The engine's policy decides as for an
 * estimate: extrapolation happens only where it allows it (the CLI sets
 * interpolation.allow_extrapolation). Appends one msperf_holdout_sample per hidden coordinate
 * to samples (interpolated = answered; source EXTRAPOLATED, INTERPOLATED or NONE; reason = the
 * refusal or the failed groups); freed by the report like the others. Returns how many. Call
 * with the shared lock held, as msperf_holdout_run does. */
size_t msperf_holdout_extrapolate (msperf_engine *engine, msperf_index *index, const char *kernel,
                                   const char *mode, int64_t tc_input_count,
                                   const msperf_holdout_extrap_options *o, GPtrArray *samples);

/* Sets s's prediction from the answer r: predicted_us, its absolute and relative error against
 * s->measured_us, confidence, method (a copy) and dimension. */
void msperf_holdout_sample_predicted (msperf_holdout_sample *s, const msperf_result *r);

G_END_DECLS

#endif /* MSPERF_CORE_HOLDOUT_EXTRAP_H */
