/* msperf (internal) — the interpolation stage (reference §4, seed 000 §5), between dispatch
 * and the interpolation core: after an exact miss or a PARTIAL answer, the module describes the
 * target, the candidate index gives the buckets of its regime, the groups are tried
 * (interpolate.h), then guarded extrapolation (extrapolate.h). */
#ifndef MSPERF_CORE_INTERPOLATION_STAGE_H
#define MSPERF_CORE_INTERPOLATION_STAGE_H

#include "engine/shared.h"
#include "interp/index.h"

G_BEGIN_DECLS

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

/* The candidate index of table for mode (core/interp), its rows described by plugin's
 * describe_row with state on e, cached in the shared state under the policy hash and
 * tc_input_count; *hit (nullable) says whether it came from the cache. The caller holds the
 * shared lock and has made the index cache. Transfer none. */
msperf_index *msperf_interpolation_index (msperf_engine *engine, const msperf_plugin *plugin,
                                          void *state, const msperf_table *table,
                                          const char *mode, int64_t tc_input_count,
                                          gboolean *hit);

G_END_DECLS

#endif /* MSPERF_CORE_INTERPOLATION_STAGE_H */
