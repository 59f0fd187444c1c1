/* msperf (internal) — the groups of the interpolation stage (reference §4, seed 000 §5): over
 * the buckets of a target's regime in a candidate index (core/interp), the axis groups are
 * tried in the fixed order (every 1-D group, then 2-D, then 3-D) until one interpolates. The
 * stage itself (the module's target, the index, extrapolation) is interpolation_stage.h. */
#ifndef MSPERF_CORE_INTERPOLATE_H
#define MSPERF_CORE_INTERPOLATE_H

#include <msperf/plugin.h>
#include "interp/index.h"

G_BEGIN_DECLS

/* Wrapper statuses of reference §4.7 that are not math statuses of interp.h. */
#define MSPERF_INTERP_REASON_DIM_DISABLED "interpolation_dim_disabled"
#define MSPERF_INTERP_REASON_MISSING_AXIS "missing_target_axis"
#define MSPERF_INTERP_REASON_INSUFFICIENT "insufficient_filtered_candidates"
#define MSPERF_INTERP_REASON_BOUNDARY_MISSING "boundary_point_missing"
#define MSPERF_INTERP_REASON_GRID_REJECTED "grid_structure_rejected"

/* TRUE when the effective policy lets the wrapper run for mode: interpolation.enabled and mode
 * listed in interpolation.modes; communication never (wrapper_communication_owned_by_base). */
gboolean msperf_interpolation_allows (msperf_engine *engine, const char *mode);
/* interpolation_policy.KERNEL.KEY when set (not null), else interpolation.KEY (transfer none). */
const msperf_value *msperf_interpolation_option (msperf_engine *engine, const char *kernel,
                                                const char *key);

/* The kernel's interpolation policy (axes, exact fields, max dim, aggregation, transforms),
 * read once per index and kept with it. The caller holds the shared lock. Transfer none. */
typedef struct msperf_kernel_policy msperf_kernel_policy;
const msperf_kernel_policy *msperf_interpolation_kernel_policy (msperf_engine *engine,
                                                              msperf_index *index,
                                                              const char *kernel);

/* Every group of every bucket (of an index built for kernel, in order) at target t, each
 * bucket's groups in the fixed order (every 1-D group, then 2-D, up to the kernel's max
 * dimension): TRUE at the first that interpolates, with r INTERPOLATED (details.fallback_from,
 * base_reason as given); FALSE with one reason per failed group appended to reasons. */
gboolean msperf_interpolate_buckets (msperf_engine *engine, const msperf_kernel_policy *kp,
                                     const char *kernel, const msperf_query *q,
                                     const GPtrArray *buckets, const msperf_point *t,
                                     const char *base_reason, const char *fallback_from,
                                     GPtrArray *reasons, msperf_result *r);

/* TRUE when list is a LIST holding the string name. */
gboolean msperf_interpolation_list_has (const msperf_value *list, const char *name);

/* msperf holdout (leave one coordinate out): the interpolation rules at t, a point of index (built
 * for kernel by module mode; t's regime, axes, fields and matchers as its rows were described),
 * with every candidate at t's coordinate removed from each filtered set (the points whose
 * selected coordinates equal t's once the other axes and the fields matched). TRUE with r
 * INTERPOLATED (details as for an op, fallback_from "holdout"); FALSE with r a miss
 * (wrapper_interpolation_failed or regime_key_unmatched) and details.fallback_reasons. */
gboolean msperf_interpolate_holdout (msperf_engine *engine, msperf_index *index,
                                     const char *kernel, const char *mode,
                                     const msperf_point *t, msperf_result *r);

/* The normal stage (same policy, group order and guards) at point t over buckets of index
 * (built for kernel), for guarded extrapolation (extrapolate.c): TRUE with r INTERPOLATED
 * (fallback_from "extrapolation"); FALSE with one reason per failed group in reasons. */
gboolean msperf_interpolate_at (msperf_engine *engine, msperf_index *index, const char *kernel,
                                const msperf_query *q, const GPtrArray *buckets,
                                const msperf_point *t, GPtrArray *reasons, msperf_result *r);

/* Index counters of the engine (tests: a second query must hit the cache). */
void msperf_engine_index_stats (msperf_engine *engine, msperf_index_stats *out);

G_END_DECLS

#endif /* MSPERF_CORE_INTERPOLATE_H */
