/* msperf — answering one part: a module's exact lookup for an op or a sub-query, with the
 * interpolation stage after a composite part's exact miss. Dispatch and the composite
 * aggregation both call down here; nothing here calls back into them. */
#include <config.h>
#include <msperf/details.h>
#include <string.h>
#include "engine/shared.h"
#include "engine/interpolation_stage.h"
#include "engine/parts.h"
#include "engine/query.h"

msperf_status
msperf_engine_lookup_as (msperf_engine *e, const char *mode, const msperf_op *op,
                         const msperf_mapping_entry *entry, msperf_result *r)
{
  void *state;
  const msperf_plugin *plugin = msperf_engine_module_or_miss (e, mode, &state, r);
  g_autoptr (GArray) inputs = NULL;
  msperf_query q;

  if (plugin == NULL)
    return MSPERF_MISS;
  if (plugin->lookup == NULL)
    return msperf_result_set_miss (r, "module_no_lookup:%s", mode);
  inputs = msperf_query_inputs (op);
  msperf_query_for_op (&q, e, op, entry, mode, inputs);
  return plugin->lookup (e, state, &q, r);
}

/* Whether part sq of parent goes through the interpolation stage after an exact miss. The
 * optional policy key interpolation.part_modes lists the part modes that do, whatever the parent
 * (a moe_fused entry's embedded terms too); without it only the parts of composite entries do
 * (reference §4.5 "Composite") and the GEMM of a batched_from entry, and the parts of other
 * modes' answers keep the exact behaviour their own confidence rules assume. Either way
 * msperf_interpolate_subquery still requires the mode to be interpolated (interpolation.modes). */
static gboolean
part_interpolated (msperf_engine *e, const msperf_op *parent, const msperf_subquery *sq)
{
  const msperf_value *modes = msperf_engine_policy_value (e, "interpolation.part_modes");
  const msperf_mapping_entry *entry;

  if (modes && modes->kind == MSPERF_VALUE_LIST)
    {
      for (guint k = 0; k < modes->items->len; k++)
        if (g_strcmp0 (msperf_value_get_string (g_ptr_array_index (modes->items, k)), sq->mode)
            == 0)
          return TRUE;
      return FALSE;
    }
  entry = e->shared->db ? msperf_database_entry (e->shared->db, parent->name) : NULL;
  /* A batched matmul answered from a single-GEMM table (batched_from) asks for the GEMM of
   * its flattened rows, which the table rarely measures exactly. */
  return entry
         && (entry->composite || msperf_value_lookup (entry->raw, "batched_from") != NULL);
}

msperf_status
msperf_engine_subquery (msperf_engine *e, const msperf_op *parent, const msperf_subquery *sq,
                        msperf_result *r)
{
  void *state;
  const msperf_plugin *plugin;
  msperf_status status;
  msperf_query q;

  g_return_val_if_fail (e != NULL && e->shared->started && parent != NULL && sq != NULL && r != NULL,
                        MSPERF_ERROR);
  plugin = msperf_engine_module_or_miss (e, sq->mode, &state, r);
  if (plugin == NULL)
    return MSPERF_MISS;
  if (plugin->lookup == NULL)
    return msperf_result_set_miss (r, "module_no_lookup:%s", sq->mode);
  msperf_subquery_query (e, parent, sq, &q);
  status = plugin->lookup (e, state, &q, r);
  if (status == MSPERF_MISS && part_interpolated (e, parent, sq))
    status = msperf_interpolate_subquery (e, parent, sq, r);
  /* A module compiled against ABI 2.0 reads r->details directly: hand it the built map. */
  msperf_result_details (r);
  return status;
}
