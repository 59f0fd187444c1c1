/* msperf (internal) — device memory as a serving runtime sees it (doc/models.md §6): the
 * weights by quant mode, the runtime's reserves and activation workspace inside
 * gpu_memory_utilization of the device, and what is left for the KV cache, in tokens. */
#ifndef MSPERF_APP_MODEL_MEMORY_H
#define MSPERF_APP_MODEL_MEMORY_H

#include "app/model/model.h"

/* The runtime around the model. Defaults (msperf_model_runtime_init): utilization 0.9 as vLLM
 * and SGLang use it; other_bytes 3.5 GiB and the NCCL buffers by devices in the TP/EP group
 * (0 for one device, 342 MiB for 2, 392 MiB for 4 and more) as NVIDIA aiconfigurator's H200
 * system file gives them; 8192 tokens per forward pass (the default chunked-prefill budget);
 * 256 sequences (max_num_seqs) for the per-sequence state and sliding windows. */
typedef struct msperf_model_runtime {
  double device_bytes;               /* memory of one device; <= 0 = unknown */
  double gpu_memory_utilization;     /* share of it the runtime may use, (0, 1] */
  gboolean share_of_free;            /* TRUE: that share is of the memory left after the
                                        weights, the activation workspace and the reserves,
                                        and all of it is the KV cache (TensorRT-LLM's
                                        free_gpu_memory_fraction); FALSE: of the device, the
                                        rest after them being the KV cache (vLLM, SGLang) */
  double other_bytes;                /* CUDA context, CUDA graphs, allocator slack */
  double nccl_bytes;                 /* communication buffers; < 0 = by group size */
  int64_t max_num_tokens;            /* tokens of the largest forward pass (workspace) */
  int64_t max_num_seqs;              /* sequences the runtime schedules at once */
} msperf_model_runtime;

void msperf_model_runtime_init (msperf_model_runtime *rt, double device_bytes);

/* Where one device's memory goes, in bytes, and the KV capacity. */
typedef struct msperf_model_kv_capacity {
  msperf_model_memory_terms terms;   /* the model's terms for the layout */
  double usable_bytes;               /* device_bytes × gpu_memory_utilization (share_of_free:
                                        device_bytes) */
  double activation_bytes;           /* max_num_tokens × act_bytes_per_token */
  double reserve_bytes;              /* other_bytes + NCCL */
  double fixed_kv_bytes;             /* per-sequence state and sliding windows, max_num_seqs */
  double kv_budget_bytes;            /* what is left for the full-attention KV cache */
  int64_t tokens;                    /* KV capacity in tokens (0 when it does not fit) */
  gboolean fits;                     /* weights and reserves fit, with room for one block */
} msperf_model_kv_capacity;

/* The KV cache capacity in tokens of one device of the layout: usable = device ×
 * utilization; budget = usable − weights − activations − reserves − per-sequence state and
 * sliding-window caches of max_num_seqs sequences (share_of_free: budget = utilization ×
 * (device − weights − activations − reserves) − those caches); tokens = budget / KV bytes per
 * token of the full-attention layers. out->fits is FALSE (tokens 0) when the budget is below
 * one 128-token block. FALSE with the reason when the layout does not divide the model or
 * device_bytes is unknown. */
gboolean msperf_model_kv_capacity_tokens (const msperf_model *model,
                                          const msperf_model_layout *layout,
                                          const msperf_model_runtime *rt,
                                          msperf_model_kv_capacity *out, GError **error);

#endif
