/* Tests of core/app/recommend/launch.c: each runtime's command carries its documented flag
 * names for the layout, limits, quantisation, KV dtype and memory share; sizes of 1 are left
 * out; attention DP and expert parallelism only for MoE models; disaggregated roles; the
 * Hugging Face name of a config file. */
#include <config.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include "app/recommend/launch.h"

static msperf_launch_spec
spec (const char *backend)
{
  return (msperf_launch_spec) { .backend = backend, .model_id = "meta-llama/Meta-Llama-3.1-70B",
                                .role = MSPERF_LAUNCH_AGG, .tp = 4, .pp = 1, .dp = 1, .ep = 1,
                                .max_num_seqs = 64, .max_num_tokens = 8192, .quant = "bf16",
                                .kv_dtype = "bf16", .gpu_memory_utilization = 0.9 };
}

static char *
command (const msperf_launch_spec *sp)
{
  g_autoptr (GError) error = NULL;
  char *c = msperf_launch_command (sp, &error);

  assert_non_null (c);
  return c;
}

static void
test_vllm (void **state)
{
  msperf_launch_spec sp = spec ("vllm");
  g_autofree char *a = NULL, *b = NULL;

  (void) state;
  a = command (&sp);
  assert_string_equal (a, "vllm serve meta-llama/Meta-Llama-3.1-70B --tensor-parallel-size 4 "
                          "--max-num-seqs 64 --max-num-batched-tokens 8192 "
                          "--gpu-memory-utilization 0.90");
  sp.quant = "fp8", sp.kv_dtype = "fp8", sp.pp = 2, sp.moe = TRUE, sp.dp = 2, sp.ep = 8;
  sp.role = MSPERF_LAUNCH_DECODE;
  b = command (&sp);
  assert_non_null (strstr (b, " --pipeline-parallel-size 2 --data-parallel-size 2 "
                              "--enable-expert-parallel "));
  assert_non_null (strstr (b, " --quantization fp8 --kv-cache-dtype fp8 "));
  assert_non_null (strstr (b, "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\""));
}

static void
test_sglang (void **state)
{
  msperf_launch_spec sp = spec ("sglang");
  g_autofree char *a = NULL, *b = NULL;

  (void) state;
  sp.dp = 2;   /* a dense model: two replicas in one server, no DP attention */
  a = command (&sp);
  assert_string_equal (a, "python -m sglang.launch_server --model-path "
                          "meta-llama/Meta-Llama-3.1-70B --tp-size 4 --dp-size 2 "
                          "--max-running-requests 64 --chunked-prefill-size 8192 "
                          "--mem-fraction-static 0.90");
  sp.moe = TRUE, sp.ep = 8, sp.quant = "fp8_block", sp.checkpoint_quantized = TRUE;
  sp.kv_dtype = "fp8", sp.role = MSPERF_LAUNCH_PREFILL;
  b = command (&sp);
  /* attention DP 2 x TP 4: one engine of 8 GPUs, --tp-size counting them all */
  assert_non_null (strstr (b, " --tp-size 8 --dp-size 2 --enable-dp-attention --ep-size 8 "));
  /* engine-wide under DP attention: SGLang gives each rank's scheduler 1/dp of both */
  assert_non_null (strstr (b, " --max-running-requests 128 --chunked-prefill-size 16384 "));
  assert_null (strstr (b, "--quantization"));   /* the checkpoint is FP8 already */
  assert_non_null (strstr (b, " --kv-cache-dtype fp8_e4m3 "));
  assert_true (g_str_has_suffix (b, " --disaggregation-mode prefill"));
}

static void
test_trtllm (void **state)
{
  msperf_launch_spec sp = spec ("trtllm");
  g_autofree char *a = NULL, *b = NULL;

  (void) state;
  a = command (&sp);
  assert_string_equal (a, "trtllm-serve meta-llama/Meta-Llama-3.1-70B --backend pytorch "
                          "--tp_size 4 --max_batch_size 64 --max_num_tokens 8192 "
                          "--kv_cache_free_gpu_memory_fraction 0.90");
  sp.moe = TRUE, sp.dp = 2, sp.ep = 8, sp.kv_dtype = "fp8", sp.quant = "fp8";
  b = command (&sp);
  assert_true (g_str_has_prefix (b, "# TensorRT-LLM reads fp8 weights"));
  assert_non_null (strstr (b, "enable_attention_dp: true\nkv_cache_config:\n  dtype: fp8\nEOF\n"));
  assert_non_null (strstr (b, " --tp_size 8 --ep_size 8 "));   /* tp × attention dp ranks */
  assert_true (g_str_has_suffix (b, " --extra_llm_api_options extra-llm-api-options.yaml"));
}

/* MTP speculative decoding, K = 2 draft tokens a step: each runtime's documented switch, on
 * every role (prefill and decode workers share one speculative config). */
static void
test_mtp (void **state)
{
  msperf_launch_spec sp = spec ("vllm");
  g_autofree char *v = NULL, *s = NULL, *t = NULL, *none = NULL;

  (void) state;
  sp.model_id = "deepseek-ai/DeepSeek-R1", sp.moe = TRUE, sp.nextn = 2;
  v = command (&sp);
  assert_non_null (strstr (v, " --gpu-memory-utilization 0.90 --speculative-config "
                              "'{\"method\":\"mtp\",\"num_speculative_tokens\":2}'"));
  sp.backend = "sglang", sp.role = MSPERF_LAUNCH_PREFILL;
  s = command (&sp);
  assert_non_null (strstr (s, " --speculative-algorithm EAGLE --speculative-num-steps 2 "
                              "--speculative-eagle-topk 1 --speculative-num-draft-tokens 3 "
                              "--disaggregation-mode prefill"));
  sp.backend = "trtllm", sp.role = MSPERF_LAUNCH_DECODE;
  t = command (&sp);
  assert_non_null (strstr (t, "cache_transceiver_config:\n  backend: DEFAULT\n"
                              "speculative_config:\n  decoding_type: MTP\n"
                              "  num_nextn_predict_layers: 2\nEOF\n"));
  sp.nextn = 0;
  none = command (&sp);
  assert_null (strstr (none, "speculative"));
}

/* An engine on more GPUs than a node holds: each runtime's multi-node launch. */
static void
test_nodes (void **state)
{
  msperf_launch_spec sp = spec ("vllm");
  g_autofree char *fits = NULL, *dp = NULL, *ray = NULL, *sg = NULL, *trt = NULL;

  (void) state;
  sp.model_id = "deepseek-ai/DeepSeek-R1";
  sp.moe = TRUE;
  sp.node_devices = 8;
  sp.tp = 1, sp.dp = 8;
  fits = command (&sp);                  /* 8 GPUs: one node, the plain command */
  assert_null (strstr (fits, "\n"));
  assert_null (strstr (fits, "--data-parallel-size-local"));
  sp.tp = 2, sp.dp = 8;                  /* 16 GPUs: DP ranks spread, 4 a node */
  dp = command (&sp);
  assert_non_null (strstr (dp, "# one engine over 2 nodes of 8 GPUs, its DP ranks spread"));
  assert_non_null (strstr (dp, "--tensor-parallel-size 2 --data-parallel-size 8"));
  assert_non_null (strstr (dp, " --data-parallel-size-local 4 --data-parallel-address HEAD_IP "
                               "--data-parallel-rpc-port 13345\n# on node K"));
  assert_non_null (strstr (dp, " --headless --data-parallel-start-rank $((K * 4))"));
  sp.tp = 16, sp.dp = 1;                 /* TP over two nodes: a Ray cluster */
  ray = command (&sp);
  assert_non_null (strstr (ray, "through a Ray cluster: `ray start --head`"));
  assert_non_null (strstr (ray, "--tensor-parallel-size 16"));
  assert_true (g_str_has_suffix (ray, " --distributed-executor-backend ray"));
  sp.backend = "sglang", sp.tp = 2, sp.dp = 8;
  sg = command (&sp);
  assert_non_null (strstr (sg, "--tp-size 16 --dp-size 8 --enable-dp-attention"));
  assert_true (g_str_has_suffix (sg, " --nnodes 2 --node-rank $K --dist-init-addr HEAD_IP:5000"));
  sp.backend = "trtllm", sp.tp = 1, sp.dp = 32;
  trt = command (&sp);
  /* the options file first, then one MPI world of 32 ranks over 4 nodes */
  assert_true (g_str_has_prefix (trt, "cat > extra-llm-api-options.yaml <<'EOF'\n"
                                      "enable_attention_dp: true\nEOF\n# one engine over 4 nodes"));
  assert_non_null (strstr (trt, "\nsrun -N 4 --ntasks 32 --ntasks-per-node 8 --mpi pmix "
                                "trtllm-llmapi-launch trtllm-serve deepseek-ai/DeepSeek-R1 "
                                "--backend pytorch --tp_size 32 "));
}

static void
test_unknown_backend (void **state)
{
  msperf_launch_spec sp = spec ("static");
  g_autoptr (GError) error = NULL;

  (void) state;
  assert_null (msperf_launch_command (&sp, &error));
  assert_non_null (error);
  assert_non_null (strstr (error->message, "'static'"));
}

static void
test_model_id (void **state)
{
  g_autofree char *a = NULL, *b = NULL, *c = NULL;

  (void) state;
  a = msperf_launch_model_id ("x/meta-llama--Meta-Llama-3.1-70B.json", NULL);
  b = msperf_launch_model_id ("x/meta-llama--Meta-Llama-3.1-70B.json", "Qwen/Qwen3-32B");
  c = msperf_launch_model_id ("toy-config.json", "/local/checkpoint");
  assert_string_equal (a, "meta-llama/Meta-Llama-3.1-70B");
  assert_string_equal (b, "Qwen/Qwen3-32B");
  assert_string_equal (c, "toy-config");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_vllm),         cmocka_unit_test (test_sglang),
    cmocka_unit_test (test_trtllm),
    cmocka_unit_test (test_mtp),       cmocka_unit_test (test_nodes),
    cmocka_unit_test (test_unknown_backend),
    cmocka_unit_test (test_model_id),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
