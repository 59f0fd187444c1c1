/* msperf (internal) — what the transfer stages share (transfer.c): an op the table lacks,
 * answered from a reference op the table has, times the ratio of the two ops' rooflines. */
#ifndef MSPERF_CORE_ENGINE_TRANSFER_H
#define MSPERF_CORE_ENGINE_TRANSFER_H

#include "engine/shared.h"

/* The answer of op from the database alone (the exact lookup, then the interpolation stage):
 * the dispatcher's, handed in so that the stages stay below it. */
typedef msperf_status (*msperf_data_answer_fn) (msperf_engine *engine, const msperf_op *op,
                                                msperf_result *r,
                                                const msperf_mapping_entry **entry_out);

/* TRUE with r EXTRAPOLATED when data_answer answers ref from data (MEASURED or INTERPOLATED):
 * r's latency is ref's times roofline(op) / roofline(ref), its method and rule `method`, its
 * details `from_key` = from, the reference's latency, source and method, the ratio and op's
 * own miss as base_reason. FALSE with r untouched otherwise. */
gboolean msperf_transfer_answer (msperf_engine *engine, const msperf_op *op,
                                 const msperf_op *ref, msperf_data_answer_fn data_answer,
                                 const char *method, const char *from_key, const char *from,
                                 msperf_result *r);

#endif
