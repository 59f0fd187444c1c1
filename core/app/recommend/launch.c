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
 * one a person would type.
 *
 * An engine on more GPUs than a node holds runs over several nodes, each runtime its own way:
 *   vLLM (serving/data_parallel_deployment, serving/parallelism_scaling): attention DP ranks
 *     spread over the nodes with --data-parallel-size-local, --data-parallel-address and
 *     --data-parallel-rpc-port on each node, --headless --data-parallel-start-rank on all but
 *     the first; TP or PP across nodes through a Ray cluster, --distributed-executor-backend
 *     ray on the first node;
 *   SGLang (references/multi_node_deployment): the same command on every node with --nnodes,
 *     --node-rank and --dist-init-addr;
 *   TensorRT-LLM (trtllm-serve, "Multi-node Serving with Slurm"): one MPI world over the nodes,
 *     srun ... trtllm-llmapi-launch trtllm-serve. */
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
  /* Engine-wide under DP attention: server_args.py divides the running requests and the
   * chunk by --dp-size for each rank's scheduler ("The chunked prefill size is adjusted to
   * ..."), and the limits are a rank's. */
  int64_t ranks = dp_attention ? sp->dp : 1;

  g_string_append_printf (s, "python -m sglang.launch_server --model-path %s", sp->model_id);
  flag_int (s, "--tp-size", sp->tp * ranks);
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
  flag_int (s, "--max-running-requests", sp->max_num_seqs * ranks);
  flag_int (s, "--chunked-prefill-size", sp->max_num_tokens * ranks);
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

/* What comes before the trtllm-serve command: the note on quantised checkpoints and the
 * LLM API options file (extra, or NULL) it reads. */
static void
trtllm_preamble (GString *s, const msperf_launch_spec *sp, const char *extra)
{
  if (is_quantized (sp) && !sp->checkpoint_quantized)
    g_string_append_printf (s, "# TensorRT-LLM reads %s weights from a quantised checkpoint "
                            "(TensorRT Model Optimizer): point MODEL at one\n", sp->quant);
  if (extra != NULL)
    g_string_append_printf (s, "cat > extra-llm-api-options.yaml <<'EOF'\n%sEOF\n", extra);
}

static void
trtllm_serve (GString *s, const msperf_launch_spec *sp, const char *extra)
{
  /* attention DP runs tp × dp ranks in one engine (the MoE layers use them all) */
  int64_t ranks = sp->moe && sp->dp > 1 ? sp->tp * sp->dp : sp->tp;

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

static void
trtllm (GString *s, const msperf_launch_spec *sp)
{
  g_autofree char *extra = trtllm_extra_options (sp);

  trtllm_preamble (s, sp, extra);
  trtllm_serve (s, sp, extra);
}

/* GPUs of one engine: attention DP ranks are the engine's in every runtime (MoE), a dense
 * model's DP replicas are separate engines. */
static int64_t
engine_gpus (const msperf_launch_spec *sp)
{
  return sp->tp * sp->pp * (sp->moe ? sp->dp : 1);
}

/* Nodes one engine spans; 1 when it fits one node or the node size is unknown. */
static int64_t
engine_nodes (const msperf_launch_spec *sp)
{
  if (sp->node_devices <= 0 || engine_gpus (sp) <= sp->node_devices)
    return 1;
  return (engine_gpus (sp) + sp->node_devices - 1) / sp->node_devices;
}

static void
nodes_comment (GString *s, const msperf_launch_spec *sp, const char *how)
{
  g_string_append_printf (s, "# one engine over %" G_GINT64_FORMAT " nodes of %" G_GINT64_FORMAT
                          " GPUs, %s\n", engine_nodes (sp), sp->node_devices, how);
}

/* vLLM over several nodes: DP ranks spread over them when whole TP groups fill each node,
 * else a Ray cluster carries the TP / PP groups across them. */
static void
vllm_nodes (GString *s, const msperf_launch_spec *sp)
{
  g_autoptr (GString) cmd = g_string_new (NULL);
  /* DP ranks a node holds when whole TP groups fill it; 0 when they do not */
  int64_t local = sp->node_devices % sp->tp == 0 ? sp->node_devices / sp->tp : 0;

  vllm (cmd, sp);
  if (sp->moe && sp->dp > 1 && sp->pp == 1 && local > 0 && sp->dp % local == 0)
    {
      nodes_comment (s, sp, "its DP ranks spread over them (HEAD_IP: the first node's "
                            "address); on the first node:");
      g_string_append_printf (s, "%s --data-parallel-size-local %" G_GINT64_FORMAT
                              " --data-parallel-address HEAD_IP --data-parallel-rpc-port 13345\n",
                              cmd->str, local);
      g_string_append (s, "# on node K = 1, 2, ...: the same, headless, from DP rank K x local\n");
      g_string_append_printf (s, "%s --data-parallel-size-local %" G_GINT64_FORMAT
                              " --data-parallel-address HEAD_IP --data-parallel-rpc-port 13345"
                              " --headless --data-parallel-start-rank $((K * %" G_GINT64_FORMAT
                              "))", cmd->str, local, local);
      return;
    }
  nodes_comment (s, sp, "through a Ray cluster: `ray start --head` on the first node "
                        "(HEAD_IP), `ray start --address HEAD_IP:6379` on the others; then on "
                        "the first node:");
  g_string_append_printf (s, "%s --distributed-executor-backend ray", cmd->str);
}

static void
sglang_nodes (GString *s, const msperf_launch_spec *sp)
{
  nodes_comment (s, sp, "the same command on each node K = 0, 1, ... (HEAD_IP: node 0's "
                        "address):");
  sglang (s, sp);
  g_string_append_printf (s, " --nnodes %" G_GINT64_FORMAT " --node-rank $K "
                          "--dist-init-addr HEAD_IP:5000", engine_nodes (sp));
}

/* TensorRT-LLM's ranks are one MPI world: srun starts every rank through
 * trtllm-llmapi-launch. */
static void
trtllm_nodes (GString *s, const msperf_launch_spec *sp)
{
  g_autofree char *extra = trtllm_extra_options (sp);

  trtllm_preamble (s, sp, extra);
  nodes_comment (s, sp, "one MPI world (Slurm; the options file on a shared file system):");
  g_string_append_printf (s, "srun -N %" G_GINT64_FORMAT " --ntasks %" G_GINT64_FORMAT
                          " --ntasks-per-node %" G_GINT64_FORMAT " --mpi pmix "
                          "trtllm-llmapi-launch ", engine_nodes (sp), engine_gpus (sp),
                          sp->node_devices);
  trtllm_serve (s, sp, extra);
}

char *
msperf_launch_command (const msperf_launch_spec *sp, GError **error)
{
  GString *s;
  gboolean nodes;

  g_return_val_if_fail (sp != NULL && sp->backend != NULL && sp->model_id != NULL, NULL);
  s = g_string_new (NULL);
  nodes = engine_nodes (sp) > 1;
  if (strcmp (sp->backend, "vllm") == 0)
    nodes ? vllm_nodes (s, sp) : vllm (s, sp);
  else if (strcmp (sp->backend, "sglang") == 0)
    nodes ? sglang_nodes (s, sp) : sglang (s, sp);
  else if (strcmp (sp->backend, "trtllm") == 0)
    nodes ? trtllm_nodes (s, sp) : trtllm (s, sp);
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
