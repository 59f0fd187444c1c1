/* msperf — launch commands for vLLM, SGLang and TensorRT-LLM (launch.h). The flag names are
 * the runtimes' documented ones (doc/recommend.md §4 gives the pages):
 *   vLLM engine arguments: --tensor-parallel-size, --pipeline-parallel-size,
 *     --data-parallel-size, --enable-expert-parallel, --max-num-seqs, --max-num-batched-tokens,
 *     --quantization, --kv-cache-dtype, --gpu-memory-utilization, --kv-transfer-config;
 *   SGLang server arguments: --model-path, --tp-size, --pp-size, --dp-size,
 *     --enable-dp-attention, --ep-size, --max-running-requests, --chunked-prefill-size,
 *     --quantization, --kv-cache-dtype, --mem-fraction-static, --disaggregation-mode;
 *   trtllm-serve: --backend, --tp_size, --pp_size, --ep_size, --max_batch_size,
 *     --max_num_tokens, --kv_cache_free_gpu_memory_fraction, --extra_llm_api_options (a YAML
 *     of LLM API options: enable_attention_dp, kv_cache_config.dtype, cache_transceiver_config,
 *     speculative_config).
 * MTP speculative decoding (the model's own draft layers), K draft tokens a step: vLLM
 * --speculative-config '{"method":"mtp","num_speculative_tokens":K}' (features/
 * speculative_decoding/mtp); SGLang --speculative-algorithm EAGLE --speculative-num-steps K
 * --speculative-eagle-topk 1 --speculative-num-draft-tokens K+1 (its DeepSeek usage page,
 * multi-token prediction: one chain of K drafts); TensorRT-LLM speculative_config
 * {decoding_type: MTP, num_nextn_predict_layers: K} (its DeepSeek-R1 deployment guide).
 * Flags equal to the runtime's default for a size of 1 are left out, so the command stays the
 * one a person would type. */
#include <config.h>
#include <string.h>
#include <msperf/error.h>
#include "app/recommend/launch.h"

static void
flag_int (GString *s, const char *flag, int64_t v)
{
  g_string_append_printf (s, " %s %" G_GINT64_FORMAT, flag, v);
}

static void
flag_fraction (GString *s, const char *flag, double v)
{
  g_string_append_printf (s, " %s %.2f", flag, v);
}

static gboolean
is_quantized (const msperf_launch_spec *sp)
{
  return sp->quant != NULL && strcmp (sp->quant, "bf16") != 0 && strcmp (sp->quant, "none") != 0;
}

static gboolean
kv_fp8 (const msperf_launch_spec *sp)
{
  return sp->kv_dtype != NULL && strcmp (sp->kv_dtype, "fp8") == 0;
}

/* Online quantisation of a bf16 checkpoint: the runtimes know per-tensor FP8 by that name. */
static const char *
online_quant (const msperf_launch_spec *sp)
{
  if (!is_quantized (sp) || sp->checkpoint_quantized)
    return NULL;
  return strcmp (sp->quant, "fp8") == 0 || strcmp (sp->quant, "fp8_block") == 0 ? "fp8" : NULL;
}

static void
vllm (GString *s, const msperf_launch_spec *sp)
{
  g_string_append_printf (s, "vllm serve %s", sp->model_id);
  flag_int (s, "--tensor-parallel-size", sp->tp);
  if (sp->pp > 1)
    flag_int (s, "--pipeline-parallel-size", sp->pp);
  if (sp->dp > 1)
    flag_int (s, "--data-parallel-size", sp->dp);
  if (sp->moe && sp->ep > 1)
    g_string_append (s, " --enable-expert-parallel");
  flag_int (s, "--max-num-seqs", sp->max_num_seqs);
  flag_int (s, "--max-num-batched-tokens", sp->max_num_tokens);
  if (online_quant (sp))
    g_string_append_printf (s, " --quantization %s", online_quant (sp));
  if (kv_fp8 (sp))
    g_string_append (s, " --kv-cache-dtype fp8");
  flag_fraction (s, "--gpu-memory-utilization", sp->gpu_memory_utilization);
  if (sp->nextn > 0)
    g_string_append_printf (s, " --speculative-config "
                               "'{\"method\":\"mtp\",\"num_speculative_tokens\":%" G_GINT64_FORMAT
                               "}'", sp->nextn);
  if (sp->role != MSPERF_LAUNCH_AGG)
    g_string_append (s, " --kv-transfer-config "
                        "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'");
}

static void
sglang (GString *s, const msperf_launch_spec *sp)
{
  /* DP attention splits the engine's TP group: --tp-size counts all its GPUs, the attention
   * of each of the --dp-size groups runs TP tp-size / dp-size (its DeepSeek usage page:
   * "--tp 16 --dp 2 ... 2 DP groups, and in each DP group there are 8 TP groups"). Without
   * it, --dp-size is replicas of --tp-size GPUs each. */
  gboolean dp_attention = sp->moe && sp->dp > 1;

  g_string_append_printf (s, "python -m sglang.launch_server --model-path %s", sp->model_id);
  flag_int (s, "--tp-size", dp_attention ? sp->tp * sp->dp : sp->tp);
  if (sp->pp > 1)
    flag_int (s, "--pp-size", sp->pp);
  if (sp->dp > 1)
    {
      flag_int (s, "--dp-size", sp->dp);
      if (dp_attention)
        g_string_append (s, " --enable-dp-attention");
    }
  if (sp->moe && sp->ep > 1)
    flag_int (s, "--ep-size", sp->ep);
  flag_int (s, "--max-running-requests", sp->max_num_seqs);
  flag_int (s, "--chunked-prefill-size", sp->max_num_tokens);
  if (online_quant (sp))
    g_string_append_printf (s, " --quantization %s", online_quant (sp));
  if (kv_fp8 (sp))
    g_string_append (s, " --kv-cache-dtype fp8_e4m3");
  flag_fraction (s, "--mem-fraction-static", sp->gpu_memory_utilization);
  if (sp->nextn > 0)
    {
      g_string_append (s, " --speculative-algorithm EAGLE");
      flag_int (s, "--speculative-num-steps", sp->nextn);
      flag_int (s, "--speculative-eagle-topk", 1);
      flag_int (s, "--speculative-num-draft-tokens", sp->nextn + 1);
    }
  if (sp->role == MSPERF_LAUNCH_PREFILL)
    g_string_append (s, " --disaggregation-mode prefill");
  else if (sp->role == MSPERF_LAUNCH_DECODE)
    g_string_append (s, " --disaggregation-mode decode");
}

/* The LLM API options trtllm-serve takes only from a file; NULL when none is needed. */
static char *
trtllm_extra_options (const msperf_launch_spec *sp)
{
  GString *y = g_string_new (NULL);

  if (sp->moe && sp->dp > 1)
    g_string_append (y, "enable_attention_dp: true\n");
  if (kv_fp8 (sp))
    g_string_append (y, "kv_cache_config:\n  dtype: fp8\n");
  if (sp->role != MSPERF_LAUNCH_AGG)
    g_string_append (y, "cache_transceiver_config:\n  backend: DEFAULT\n");
  if (sp->nextn > 0)
    g_string_append_printf (y, "speculative_config:\n  decoding_type: MTP\n"
                               "  num_nextn_predict_layers: %" G_GINT64_FORMAT "\n", sp->nextn);
  if (y->len == 0)
    {
      g_string_free (y, TRUE);
      return NULL;
    }
  return g_string_free (y, FALSE);
}

static void
trtllm (GString *s, const msperf_launch_spec *sp)
{
  g_autofree char *extra = trtllm_extra_options (sp);
  /* attention DP runs tp × dp ranks in one engine (the MoE layers use them all) */
  int64_t ranks = sp->moe && sp->dp > 1 ? sp->tp * sp->dp : sp->tp;

  if (is_quantized (sp) && !sp->checkpoint_quantized)
    g_string_append_printf (s, "# TensorRT-LLM reads %s weights from a quantised checkpoint "
                            "(TensorRT Model Optimizer): point MODEL at one\n", sp->quant);
  if (extra != NULL)
    g_string_append_printf (s, "cat > extra-llm-api-options.yaml <<'EOF'\n%sEOF\n", extra);
  g_string_append_printf (s, "trtllm-serve %s --backend pytorch", sp->model_id);
  flag_int (s, "--tp_size", ranks);
  if (sp->pp > 1)
    flag_int (s, "--pp_size", sp->pp);
  if (sp->moe && sp->ep > 1)
    flag_int (s, "--ep_size", sp->ep);
  flag_int (s, "--max_batch_size", sp->max_num_seqs);
  flag_int (s, "--max_num_tokens", sp->max_num_tokens);
  flag_fraction (s, "--kv_cache_free_gpu_memory_fraction", sp->gpu_memory_utilization);
  if (extra != NULL)
    g_string_append (s, " --extra_llm_api_options extra-llm-api-options.yaml");
}

char *
msperf_launch_command (const msperf_launch_spec *sp, GError **error)
{
  GString *s;

  g_return_val_if_fail (sp != NULL && sp->backend != NULL && sp->model_id != NULL, NULL);
  s = g_string_new (NULL);
  if (strcmp (sp->backend, "vllm") == 0)
    vllm (s, sp);
  else if (strcmp (sp->backend, "sglang") == 0)
    sglang (s, sp);
  else if (strcmp (sp->backend, "trtllm") == 0)
    trtllm (s, sp);
  else
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "no launch command for backend '%s' (vllm, sglang or trtllm)", sp->backend);
      g_string_free (s, TRUE);
      return NULL;
    }
  return g_string_free (s, FALSE);
}

char *
msperf_launch_model_id (const char *config_path, const char *name_or_path)
{
  g_autofree char *base = NULL;
  char *sep;

  if (name_or_path != NULL && *name_or_path != '\0' && name_or_path[0] != '/')
    return g_strdup (name_or_path);
  base = g_path_get_basename (config_path != NULL ? config_path : "MODEL");
  if (g_str_has_suffix (base, ".json"))
    base[strlen (base) - 5] = '\0';
  sep = strstr (base, "--");
  if (sep != NULL && sep != base && sep[2] != '\0')
    return g_strdup_printf ("%.*s/%s", (int) (sep - base), base, sep + 2);
  return g_strdup (base);
}
