/* msperf module "compute" — interpolation coordinates (seed 000 §5.5, reference §4.5): the
 * describe_target / describe_row slots. One extractor serves the target and the CSV rows, so
 * both sides land in the same regime by construction. */
#ifndef MSPERF_PLUGINS_COMPUTE_COMPUTE_AXES_H
#define MSPERF_PLUGINS_COMPUTE_COMPUTE_AXES_H

#include <msperf/plugin.h>

G_BEGIN_DECLS

/* state is the engine (compute_init). */
gboolean compute_describe_target (msperf_engine *engine, void *state, const msperf_query *query, msperf_point *point);
gboolean compute_describe_row (msperf_engine *engine, void *state, const msperf_table *table, size_t row,
                               msperf_point *point);

G_END_DECLS

#endif /* MSPERF_PLUGINS_COMPUTE_COMPUTE_AXES_H */
