/* msperf (internal) — the one module-query builder and the one "module missing/disabled" path
 * (query.c), which every stage that calls a module slot uses. */
#ifndef MSPERF_CORE_ENGINE_QUERY_H
#define MSPERF_CORE_ENGINE_QUERY_H

#include "engine/shared.h"

/* The op's TC tensor inputs by value (a query points into it). Transfer full. */
GArray *msperf_query_inputs (const msperf_op *op);
/* The module query of op under entry (nullable) for mode; inputs as from msperf_query_inputs
 * (nullable). Borrows everything. */
void msperf_query_for_op (msperf_query *q, msperf_engine *engine, const msperf_op *op,
                          const msperf_mapping_entry *entry, const char *mode,
                          const GArray *inputs);
/* The module query a sub-query stands for (borrows everything from parent and sq). */
void msperf_subquery_query (msperf_engine *engine, const msperf_op *parent,
                            const msperf_subquery *sq, msperf_query *q);
/* The loaded module of mode, or NULL with r's miss set (module_disabled:<mode>,
 * module_missing:<mode>, no_module_declared when mode is NULL). */
const msperf_plugin *msperf_engine_module_or_miss (msperf_engine *engine, const char *mode,
                                                   void **state, msperf_result *r);

#endif
