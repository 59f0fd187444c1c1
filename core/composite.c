/* msperf — composite ops (placeholder until the composite issue lands). */
#include <config.h>
#include "composite.h"

msperf_status
msperf_composite_answer (msperf_engine *engine, const msperf_op *op,
                         const msperf_mapping_entry *entry, msperf_result *r)
{
  (void) engine;
  (void) op;
  (void) entry;
  return msperf_result_set_miss (r, "composite_unsupported");
}
