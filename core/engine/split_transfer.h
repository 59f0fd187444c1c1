/* msperf (internal) — the split-transfer stage (split_transfer.c): an op whose split of the
 * work over its ranks the table has not measured, answered from a measured split of the same
 * work over the same ranks, scaled by the roofline ratio of the two. */
#ifndef MSPERF_CORE_ENGINE_SPLIT_TRANSFER_H
#define MSPERF_CORE_ENGINE_SPLIT_TRANSFER_H

#include "engine/transfer.h"

/* TRUE with r EXTRAPOLATED (method split_transfer) when entry declares `split_transfer` and
 * data_answer answers another split of op's ranks; FALSE with r untouched otherwise. */
gboolean msperf_split_transfer_answer (msperf_engine *engine, const msperf_op *op,
                                       const msperf_mapping_entry *entry,
                                       msperf_data_answer_fn data_answer, msperf_result *r);

#endif
