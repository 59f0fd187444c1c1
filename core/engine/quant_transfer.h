/* msperf (internal) — the quant-transfer stage (quant_transfer.c): an op in a quantisation the
 * table has not measured, answered from the same op measured in another quantisation, scaled
 * by the roofline ratio of the two. */
#ifndef MSPERF_CORE_ENGINE_QUANT_TRANSFER_H
#define MSPERF_CORE_ENGINE_QUANT_TRANSFER_H

#include "engine/transfer.h"

/* TRUE with r EXTRAPOLATED (method quant_transfer) when entry declares `quant_transfer` for
 * op's value of its field and data_answer answers one of the stand-ins; FALSE with r untouched
 * otherwise. */
gboolean msperf_quant_transfer_answer (msperf_engine *engine, const msperf_op *op,
                                       const msperf_mapping_entry *entry,
                                       msperf_data_answer_fn data_answer, msperf_result *r);

#endif
