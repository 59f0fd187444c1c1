/* msperf — device memory as a serving runtime sees it, and the KV capacity in tokens
 * (doc/models.md §6). */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/error.h>
#include "app/model/model_memory.h"

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

void
msperf_model_runtime_init (msperf_model_runtime *rt, double device_bytes)
{
  g_return_if_fail (rt != NULL);
  rt->device_bytes = device_bytes;
  rt->gpu_memory_utilization = 0.9;
  rt->share_of_free = FALSE;
  rt->other_bytes = 3.5 * GIB;
  rt->nccl_bytes = -1;
  rt->max_num_tokens = 8192;
  rt->max_num_seqs = 256;
}

/* NCCL buffers by the devices of one group (aiconfigurator's h200_sxm nccl_mem). */
static double
nccl_bytes (const msperf_model_layout *l)
{
  int64_t group = MAX (l->tp, l->ep);

  group = MAX (group, l->tp * l->dp * l->pp > 1 ? 2 : 1);
  if (group <= 1)
    return 0;
  return group == 2 ? 358612992.0 : 411041792.0;
}

gboolean
msperf_model_kv_capacity_tokens (const msperf_model *model, const msperf_model_layout *layout,
                                 const msperf_model_runtime *rt, msperf_model_kv_capacity *out,
                                 GError **error)
{
  msperf_model_memory_terms *t;
  double per_seq, budget;

  g_return_val_if_fail (model != NULL && layout != NULL && rt != NULL && out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  t = &out->terms;
  if (!(rt->device_bytes > 0) || !(rt->gpu_memory_utilization > 0)
      || rt->gpu_memory_utilization > 1 || rt->max_num_tokens < 1 || rt->max_num_seqs < 1)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "KV capacity needs the device memory (> 0), a GPU memory utilization in "
                   "(0, 1] and max tokens and sequences >= 1");
      return FALSE;
    }
  if (!msperf_model_check_layout (model, layout, error)
      || !msperf_model_memory_of (model, layout, t, error))
    return FALSE;
  out->usable_bytes = rt->share_of_free ? rt->device_bytes
                                        : rt->device_bytes * rt->gpu_memory_utilization;
  out->activation_bytes = (double) rt->max_num_tokens * t->act_bytes_per_token;
  out->reserve_bytes = rt->other_bytes + (rt->nccl_bytes >= 0 ? rt->nccl_bytes
                                                              : nccl_bytes (layout));
  per_seq = t->state_bytes_per_seq + t->kv_window_bytes_per_token * (double) t->kv_window;
  out->fixed_kv_bytes = per_seq * (double) rt->max_num_seqs;
  budget = out->usable_bytes - t->weight_bytes - out->activation_bytes - out->reserve_bytes;
  if (rt->share_of_free)
    budget *= rt->gpu_memory_utilization;
  budget -= out->fixed_kv_bytes;
  out->kv_budget_bytes = budget;
  if (t->kv_bytes_per_token > 0)
    out->tokens = budget > 0 ? (int64_t) floor (budget / t->kv_bytes_per_token) : 0;
  else   /* no full-attention layer: the sequences' fixed caches are the bound */
    out->tokens = budget > 0 ? G_MAXINT32 : 0;
  out->fits = out->tokens >= 128;
  if (!out->fits)
    out->tokens = 0;
  return TRUE;
}
