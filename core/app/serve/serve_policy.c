/* msperf — scheduler policies of the serving simulation (doc/serving.md §2): the knobs, their
 * built-in values and the preset files policies/serving/NAME.yaml. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "app/serve/serve.h"
#include "app/model/model_yaml.h"

#define KNOB(k, kind, help) { #k, MSPERF_SERVE_KNOB_##kind, offsetof (msperf_serve_policy, k), help }

static const msperf_serve_knob knobs[] = {
  KNOB (block_size, INT, "KV cache block, tokens"),
  KNOB (max_num_batched_tokens, INT, "Token budget of one step"),
  KNOB (max_num_seqs, INT, "Sequences in one step"),
  KNOB (max_prefill_tokens, COUNT, "Tokens of a step past which no further prompt is admitted "
        "(a prompt within the budget is admitted whole); 0 = none"),
  KNOB (chunked_prefill, BOOL, "Split prompts over steps (true/false)"),
  KNOB (prompt_within_budget, BOOL, "Without chunked prefill, refuse a prompt longer than the "
        "step budget instead of running it alone (true/false)"),
  KNOB (mixed_batch, BOOL, "Prefill chunks ride in decode steps (true/false)"),
  KNOB (reserve_ratio_init, DOUBLE, "Share of remaining output reserved at admission"),
  KNOB (reserve_ratio_min, DOUBLE, "Floor of the reserve ratio"),
  KNOB (reserve_ratio_decay, DOUBLE, "Reserve ratio decrease per decode step"),
  KNOB (dp_attention_reserve_scale, DOUBLE, "Scale of the three reserve ratios on the ranks "
        "of an attention-DP MoE engine"),
  KNOB (dp_attention_budget_split, BOOL, "The step budget is the engine's: each rank of an "
        "attention-DP MoE engine schedules budget / dp of it (true/false; a budget given on "
        "the command line is a rank's)"),
  KNOB (preempt, BOOL, "Recompute preemption when the KV cache is full (true/false)"),
  KNOB (step_overhead_us, DOUBLE, "Host time per step, us"),
  KNOB (seq_overhead_us, DOUBLE, "Host time per sequence of a step, us"),
  KNOB (seq_overlap_us, DOUBLE, "Host time per sequence of a step beside the GPU's; a step "
        "lasts at least this x its sequences, us"),
  KNOB (gpu_memory_utilization, DOUBLE, "Share of device memory for weights and KV cache"),
  KNOB (memory_share_of_free, BOOL, "gpu_memory_utilization is a share of the memory left "
        "after the weights, activations and reserves, all of it KV cache (true/false)"),
  KNOB (kv_transfer_gbps, DOUBLE, "Disaggregated: KV transfer bandwidth per device, GB/s"),
  KNOB (kv_transfer_latency_us, DOUBLE, "Disaggregated: latency per KV transfer, us"),
  KNOB (adp_balance_timeout_iters, COUNT, "Attention DP: the ranks hold their prompts back "
        "until every rank has one waiting and a free slot, for at most this many steps "
        "(TensorRT-LLM's attention_dp_config enable_balance / timeout_iters); 0 = off"),
  KNOB (first_token_from_decode, BOOL, "Disaggregated: the first token reaches the client "
        "with the decode worker's first step on the request, so TTFT counts the wait for a "
        "decode slot (true), or when its KV cache arrives (false)"),
  KNOB (kv_fp8_with_fp8_weights, BOOL,
        "accuracy: FP8 KV cache for rows with FP8 weights (true/false)"),
  KNOB (moe_pad_tokens, COUNT, "Decode MoE rows per rank the runtime pads to (0 = none)"),
  KNOB (moe_allreduce, COUNT, "MoE collectives: 1 = all_reduce (all_gather/reduce_scatter "
        "under attention DP) as CUDA runtimes, 0 = all_to_all dispatch/combine"),
  KNOB (gemm_quant_fused, COUNT, "1 = an fp8 linear's answer includes quantising its input "
        "(no separate fp8_quantize op), 0 = separate"),
  KNOB (moe_bf16_fused, COUNT, "1 = bf16 routed experts run as one fused MoE kernel as CUDA "
        "runtimes, 0 = per-expert GEMMs"),
  KNOB (moe_int4_fused, COUNT, "1 = int4 weight-only routed experts run as one fused MoE "
        "kernel as CUDA runtimes, 0 = per-expert GEMMs"),
  KNOB (expert_gather, COUNT, "1 = a per-expert MoE's rows all-gathered over TP around each "
        "expert (the Ascend capture), 0 = not (CUDA runtimes)"),
  KNOB (pp_microbatches, BOOL, "Pipeline parallel: the engine keeps pp micro-batches in "
        "flight, one a stage (true), or passes one batch through every stage at a time "
        "(false)"),
  KNOB (prefix_caching, BOOL, "Serve a repeated prompt's cached blocks from the KV cache "
        "(true/false)"),
  KNOB (accuracy_token_margin, COUNT, "accuracy: the measured deployments' step budget is isl "
        "+ this many tokens (-1 = the preset's)"),
  KNOB (accuracy_budget_holds_batch, BOOL, "accuracy: that budget also holds the batch size "
        "(true), or is max_prefill_tokens where the preset has one, else a cap (false)"),
  KNOB (accuracy_agg_mixed_batch, COUNT, "accuracy: aggregated rows mix prefill into decode "
        "steps (1) or not (0); -1 = the preset's"),
};

const msperf_serve_knob *
msperf_serve_knobs (guint *n)
{
  *n = G_N_ELEMENTS (knobs);
  return knobs;
}

void
msperf_serve_policy_init (msperf_serve_policy *p)
{
  memset (p, 0, sizeof *p);
  p->block_size = 16;
  p->max_num_batched_tokens = 8192;
  p->max_num_seqs = 256;
  p->chunked_prefill = TRUE;
  p->mixed_batch = TRUE;
  p->preempt = TRUE;
  p->dp_attention_reserve_scale = 1.0;
  p->gpu_memory_utilization = 0.9;
  p->kv_transfer_gbps = 50;
  p->kv_transfer_latency_us = 100;
  p->first_token_from_decode = TRUE;
  p->moe_pad_tokens = -1;
  p->moe_allreduce = -1;
  p->gemm_quant_fused = -1;
  p->moe_bf16_fused = -1;
  p->moe_int4_fused = -1;
  p->expert_gather = -1;
  p->accuracy_token_margin = -1;
  p->accuracy_agg_mixed_batch = -1;
}

char **
msperf_serve_policy_model_fields (const msperf_serve_policy *p)
{
  GPtrArray *f = g_ptr_array_new ();

  if (p->moe_pad_tokens >= 0)
    g_ptr_array_add (f, g_strdup_printf ("moe_pad_tokens=%" G_GINT64_FORMAT, p->moe_pad_tokens));
  if (p->moe_allreduce >= 0)
    g_ptr_array_add (f, g_strdup_printf ("moe_allreduce=%d", p->moe_allreduce > 0));
  if (p->gemm_quant_fused >= 0)
    g_ptr_array_add (f, g_strdup_printf ("gemm_quant_fused=%d", p->gemm_quant_fused > 0));
  if (p->moe_bf16_fused >= 0)
    g_ptr_array_add (f, g_strdup_printf ("moe_bf16_fused=%d", p->moe_bf16_fused > 0));
  if (p->moe_int4_fused >= 0)
    g_ptr_array_add (f, g_strdup_printf ("moe_int4_fused=%d", p->moe_int4_fused > 0));
  if (p->expert_gather >= 0)
    g_ptr_array_add (f, g_strdup_printf ("expert_gather=%d", p->expert_gather > 0));
  g_ptr_array_add (f, NULL);
  return (char **) g_ptr_array_free (f, FALSE);
}

void
msperf_serve_policy_clear (msperf_serve_policy *p)
{
  g_clear_pointer (&p->name, g_free);
}

gboolean
msperf_serve_policy_set (msperf_serve_policy *p, const char *key, const char *value,
                         GError **error)
{
  for (guint k = 0; k < G_N_ELEMENTS (knobs); k++)
    {
      const msperf_serve_knob *kn = &knobs[k];
      char *end = NULL;
      void *slot = (char *) p + kn->offset;

      if (strcmp (kn->key, key) != 0)
        continue;
      errno = 0;
      switch (kn->kind)
        {
        case MSPERF_SERVE_KNOB_INT:
        case MSPERF_SERVE_KNOB_COUNT:
          {
            long long v = strtoll (value, &end, 10);
            if (errno || end == value || *end || v < (kn->kind == MSPERF_SERVE_KNOB_INT ? 1 : 0))
              goto bad;
            *(int64_t *) slot = v;
            return TRUE;
          }
        case MSPERF_SERVE_KNOB_BOOL:
          if (strcmp (value, "true") == 0 || strcmp (value, "1") == 0)
            *(gboolean *) slot = TRUE;
          else if (strcmp (value, "false") == 0 || strcmp (value, "0") == 0)
            *(gboolean *) slot = FALSE;
          else
            goto bad;
          return TRUE;
        case MSPERF_SERVE_KNOB_DOUBLE:
          {
            double v = g_ascii_strtod (value, &end);
            if (errno || end == value || *end || !isfinite (v) || v < 0)
              goto bad;
            *(double *) slot = v;
            return TRUE;
          }
        }
    bad:
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s: bad value '%s' (%s)",
                   key, value,
                   kn->kind == MSPERF_SERVE_KNOB_INT ? "an integer >= 1"
                   : kn->kind == MSPERF_SERVE_KNOB_COUNT ? "an integer >= 0"
                   : kn->kind == MSPERF_SERVE_KNOB_BOOL ? "true or false" : "a number >= 0");
      return FALSE;
    }
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "unknown scheduler key '%s'",
               key);
  return FALSE;
}

gboolean
msperf_serve_policy_load (msperf_serve_policy *p, const char *path, GError **error)
{
  msperf_ynode *doc = msperf_ynode_load (path, error);
  gboolean ok = FALSE;

  if (doc == NULL)
    return FALSE;
  if (doc->kind != MSPERF_YNODE_MAP)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s:%u: expected a map of "
                   "scheduler keys", path, doc->line);
      goto out;
    }
  for (guint i = 0; i < msperf_ynode_len (doc); i++)
    {
      const msperf_ynode *k = msperf_ynode_key (doc, i), *v = msperf_ynode_value (doc, i);
      GError *e = NULL;

      if (strcmp (k->text, "name") == 0 && v->kind == MSPERF_YNODE_SCALAR)
        {
          g_free (p->name);
          p->name = g_strdup (v->text);
          continue;
        }
      if (v->kind != MSPERF_YNODE_SCALAR || !msperf_serve_policy_set (p, k->text, v->text, &e))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s:%u: %s", path, k->line,
                       e ? e->message : "expected a scalar");
          g_clear_error (&e);
          goto out;
        }
    }
  ok = TRUE;
out:
  msperf_ynode_free (doc);
  return ok;
}
