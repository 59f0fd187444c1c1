/* msperf — the one place a module query is built (from an op and its mapping entry, or from a
 * sub-query) and the one place a missing or disabled module becomes a miss reason. Dispatch,
 * parts, interpolation and holdout all go through here. */
#include <config.h>
#include <string.h>
#include "engine/shared.h"
#include "engine/query.h"

static const char *const no_kernels[] = { NULL };

GArray *
msperf_query_inputs (const msperf_op *op)
{
  GArray *in = g_array_sized_new (FALSE, FALSE, sizeof (msperf_tensor), op->args->len);

  /* msperf_op_tensor_inputs's tensors, by value, in one allocation. */
  for (guint k = 0; k < op->args->len; k++)
    {
      const msperf_value *v = g_ptr_array_index (op->args, k);

      if (v->kind == MSPERF_VALUE_TENSOR && v->tensor.rank > 0)
        g_array_append_val (in, v->tensor);
      else if (v->kind == MSPERF_VALUE_LIST)
        for (guint j = 0; j < v->items->len; j++)
          {
            const msperf_value *item = g_ptr_array_index (v->items, j);

            if (item->kind == MSPERF_VALUE_TENSOR && item->tensor.rank > 0)
              g_array_append_val (in, item->tensor);
          }
    }
  return in;
}

void
msperf_query_for_op (msperf_query *q, msperf_engine *e, const msperf_op *op,
                     const msperf_mapping_entry *entry, const char *mode, const GArray *inputs)
{
  *q = (msperf_query){ 0 };
  q->engine = e;
  q->op = op;
  q->entry = entry;
  q->mode = mode;
  q->kernel_types = entry && entry->kernel_types ? (const char *const *) entry->kernel_types
                                                 : no_kernels;
  q->inputs = inputs ? (const msperf_tensor *) (void *) inputs->data : NULL;
  q->n_inputs = inputs ? inputs->len : 0;
  q->tc_input_count = entry ? entry->tc_input_count : -1;
}

void
msperf_subquery_query (msperf_engine *e, const msperf_op *parent, const msperf_subquery *sq,
                       msperf_query *q)
{
  *q = (msperf_query){ 0 };
  q->engine = e;
  q->op = parent;
  q->mode = sq->mode;
  q->kernel_types = (const char *const *) sq->kernel_types;
  q->inputs = (const msperf_tensor *) (void *) sq->inputs->data;
  q->n_inputs = sq->inputs->len;
  q->tc_input_count = sq->tc_input_count;
  q->params = sq->params;
}

static gboolean
module_disabled (msperf_engine *e, const char *mode)
{
  const GPtrArray *infos = msperf_registry_infos (e->shared->registry);

  for (guint k = 0; infos && k < infos->len; k++)
    {
      const msperf_plugin_info *info = g_ptr_array_index (infos, k);
      if (info->status == MSPERF_PLUGIN_DISABLED && g_strcmp0 (info->name, mode) == 0)
        return TRUE;
    }
  return FALSE;
}

const msperf_plugin *
msperf_engine_module_or_miss (msperf_engine *e, const char *mode, void **state,
                              msperf_result *r)
{
  const msperf_plugin *plugin;

  *state = NULL;
  if (mode == NULL)
    {
      msperf_result_set_miss (r, "no_module_declared");
      return NULL;
    }
  plugin = msperf_registry_lookup (e->shared->registry, mode, state);
  if (plugin == NULL)
    msperf_result_set_miss (r, "%s:%s", module_disabled (e, mode) ? "module_disabled"
                                                                 : "module_missing", mode);
  return plugin;
}
