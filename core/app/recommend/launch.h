/* msperf (internal) — the command that launches a deployment on a serving runtime: vLLM
 * (`vllm serve`), SGLang (`python -m sglang.launch_server`) or TensorRT-LLM (`trtllm-serve`),
 * with the flag names of each runtime's documentation (doc/recommend.md lists the sources). */
#ifndef MSPERF_APP_LAUNCH_H
#define MSPERF_APP_LAUNCH_H

#include <stdint.h>
#include <glib.h>

typedef enum {
  MSPERF_LAUNCH_AGG,        /* one engine serves prefill and decode */
  MSPERF_LAUNCH_PREFILL,    /* a disaggregated prefill worker */
  MSPERF_LAUNCH_DECODE,     /* a disaggregated decode worker */
} msperf_launch_role;

typedef struct msperf_launch_spec {
  const char *backend;          /* vllm | sglang | trtllm */
  const char *model_id;         /* Hugging Face name, e.g. meta-llama/Meta-Llama-3.1-70B */
  msperf_launch_role role;
  int64_t tp, pp, dp, ep;       /* dp: attention data parallel (MoE) or replicas in one engine */
  gboolean moe;                 /* the model has experts: ep and attention DP apply */
  int64_t max_num_seqs;         /* sequences in one step */
  int64_t max_num_tokens;       /* token budget of one step (prefill chunk) */
  const char *quant;            /* bf16 | fp8 | fp8_block | ...: the weights' mode */
  gboolean checkpoint_quantized;/* the checkpoint already holds quant's weights */
  const char *kv_dtype;         /* bf16 | fp8 */
  double gpu_memory_utilization;
  int64_t nextn;                /* MTP draft tokens per decode step (0: no speculative
                                   decoding); every role carries it, as the runtimes pair
                                   prefill and decode workers of one speculative config */
  int64_t node_devices;         /* GPUs of one node; an engine on more is launched over
                                   several nodes; 0: unknown (one node) */
} msperf_launch_spec;

/* The command line (one line, flags in a fixed order; a TensorRT-LLM deployment that needs
 * an extra options file gets it as a here-document before the command). NULL with the reason
 * for a backend msperf cannot launch. Transfer full. */
char *msperf_launch_command (const msperf_launch_spec *spec, GError **error);

/* The Hugging Face name of a config file: its `_name_or_path` when it has one, else the file
 * name with "ORG--NAME.json" read as ORG/NAME, else the file name without ".json".
 * Transfer full. */
char *msperf_launch_model_id (const char *config_path, const char *name_or_path);

#endif
