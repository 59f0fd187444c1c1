/* msperf (internal) — answering one part (parts.c): a module's exact lookup for an op, and
 * msperf_engine_subquery (public, include/msperf/host.h) with the interpolation stage after a
 * composite part's exact miss. Dispatch and the composite aggregation call down here. */
#ifndef MSPERF_CORE_ENGINE_PARTS_H
#define MSPERF_CORE_ENGINE_PARTS_H

#include "engine/shared.h"

/* One module's exact lookup for op under entry. */
msperf_status msperf_engine_lookup_as (msperf_engine *engine, const char *mode,
                                       const msperf_op *op, const msperf_mapping_entry *entry,
                                       msperf_result *r);

#endif
