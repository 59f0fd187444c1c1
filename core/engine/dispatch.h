/* msperf (internal) — the stage order of one query (dispatch.c): the answer cache, ATT
 * routing, resolution, the exact lookup, the interpolation stage, the split transfer, the
 * roofline. */
#ifndef MSPERF_CORE_ENGINE_DISPATCH_H
#define MSPERF_CORE_ENGINE_DISPATCH_H

#include "engine/shared.h"

/* The module a mapped entry resolves to, in the upstream precedence (reference §2.2): the
 * module declaring its category, its query_mode (aliases resolved), NULL for zero_cost /
 * accepted_miss, else the default module (*by_default TRUE). Dispatch and holdout share it. */
const char *msperf_engine_resolve_mode (msperf_engine *engine, const msperf_mapping_entry *entry,
                                        gboolean *by_default);
/* The answer of op, from the handle's answer cache or every stage. Transfer full. */
msperf_result *msperf_dispatch_query (msperf_engine *engine, const msperf_op *op);

#endif
