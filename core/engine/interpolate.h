/* msperf (internal) — the interpolation stage (reference §4, seed 000 §5): after an exact miss
 * or a PARTIAL answer, the module describes the target, the candidate index gives the buckets
 * of its regime, and the axis groups are tried in the fixed order (every 1-D group, then 2-D,
 * then 3-D) until one interpolates. */
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

/* The stage for a mapped op whose exact answer r (a miss, or a PARTIAL hit) came from module
 * `mode` (NULL when the core answered: nothing to do). Returns TRUE when r now holds an
 * INTERPOLATED answer (details: method, interpolation_dim, axes, target, axis_boundary,
 * candidate_points, counts, fallback_from, fallback_reasons, base_reason, …). When the stage
 * ran and failed, a miss gets the wrapper's reason as miss_reason and the exact reason as
 * details.base_reason; a PARTIAL keeps its answer; both get details.fallback_reasons. When the
 * stage does not apply (disabled, mode not allowed, module without describe slots) r is
 * untouched. */
gboolean msperf_interpolate_op (msperf_engine *engine, const msperf_op *op,
                                const msperf_mapping_entry *entry, const char *mode,
                                msperf_result *r);

/* The same for one sub-query after its exact miss (a composite's part): MSPERF_HIT with r
 * INTERPOLATED, or MSPERF_MISS with r's exact miss kept (miss_reason unchanged) plus
 * details.fallback_reasons and details.interpolation_reason when the stage ran. */
msperf_status msperf_interpolate_subquery (msperf_engine *engine, const msperf_op *parent,
                                           const msperf_subquery *sq, msperf_result *r);

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
