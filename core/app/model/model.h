/* msperf (internal) — model-level traces: a Hugging Face config.json, an architecture template
 * (policies/models/NAME.yaml, doc/models.md) and a parallel layout give the JSON Lines trace of
 * one forward pass on one rank, in TensorCast's op names and per-rank shapes. */
#ifndef MSPERF_APP_MODEL_H
#define MSPERF_APP_MODEL_H

#include <stdint.h>
#include <glib.h>

typedef struct msperf_model msperf_model;

/* Sizes of the parallel layout (all >= 1). moe_tp is derived: tp·dp = moe_tp·ep. */
typedef struct msperf_model_layout {
  int64_t tp, ep, dp, pp;
  gboolean sp;             /* sequence parallel */
} msperf_model_layout;

typedef enum { MSPERF_PHASE_PREFILL, MSPERF_PHASE_DECODE } msperf_model_phase;

/* One forward pass: prefill of batch × seq tokens, or a decode step of batch sequences at
 * context tokens each, with nextn speculative (MTP) tokens. */
typedef struct msperf_model_pass {
  msperf_model_phase phase;
  int64_t batch;
  int64_t seq;             /* prefill: tokens per sequence */
  int64_t context;         /* decode: tokens already in the cache per sequence */
  int64_t nextn;           /* decode: speculative tokens per step (0 = none) */
} msperf_model_pass;

/* Capture options that are not the model's: dtype (NULL = the config's torch_dtype) and the
 * quantisation: quant sets both parts (bf16/none, fp8, fp8_block, w4a16_mxfp4 — experts only —,
 * int4_wo, w8a8), gemm_quant the non-expert linear layers, moe_quant the routed experts (each
 * NULL = the one below it, then the config's quantization_config, then bf16); kv_dtype the KV
 * cache (NULL/"bf16" = the model's dtype, or "fp8"). doc/models.md §5. `fields`, NULL-terminated
 * "name=value" pairs (value a number), are set as config fields over the config's own: the
 * template parameters a runtime decides, such as `moe_pad_tokens` (doc/serving.md §2). */
typedef struct msperf_model_options {
  const char *dtype;
  const char *quant;
  const char *gemm_quant;
  const char *moe_quant;
  const char *kv_dtype;
  const char *const *fields;
} msperf_model_options;

/* Loads config_path and the template: template_path when given, else the first *.yaml of
 * templates_dir (in name order) whose `architectures` lists the config's architecture.
 * Errors name the file: a missing config field, an unknown architecture, a bad template
 * (FILE:LINE). Transfer full. */
msperf_model *msperf_model_load (const char *config_path, const char *template_path,
                                 const char *templates_dir, const msperf_model_options *opts,
                                 GError **error);
void msperf_model_free (msperf_model *model);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_model, msperf_model_free)

const char *msperf_model_family (const msperf_model *model);
const char *msperf_model_template_path (const msperf_model *model);
const char *msperf_model_architecture (const msperf_model *model);
/* Name of the config (file stem). */
const char *msperf_model_name (const msperf_model *model);

/* A loaded model is not changed by the functions below (each evaluation has its own
 * variables), so threads may share it. */

/* FALSE with the reason when the layout does not divide the model (heads by tp, experts by ep,
 * tp·dp = moe_tp·ep, layers by pp, or a template check). */
gboolean msperf_model_check_layout (const msperf_model *model, const msperf_model_layout *layout,
                                    GError **error);

/* The ops of one pass on one rank: bodies[i] is the JSON object of an op without its count
 * (a stable key for caching answers), counts[i] (int64_t) its per-pass count. */
gboolean msperf_model_pass_ops (const msperf_model *model, const msperf_model_layout *layout,
                                const msperf_model_pass *pass, GPtrArray *bodies, GArray *counts,
                                GError **error);
/* The same as JSON Lines (doc/formats.md §2), after a comment header. */
gboolean msperf_model_trace (const msperf_model *model, const msperf_model_layout *layout,
                             const msperf_model_pass *pass, GString *out, GError **error);

/* Memory per device in bytes: the weights, and the KV cache per token of context. */
gboolean msperf_model_memory (const msperf_model *model, const msperf_model_layout *layout,
                              double *weight_bytes, double *kv_bytes_per_token, GError **error);

/* What one device holds for the model (doc/models.md §6), in bytes. */
typedef struct msperf_model_memory_terms {
  double weight_bytes;               /* by quant mode of each part, scales included */
  double kv_bytes_per_token;         /* full-attention layers (MLA: the latent), by KV dtype */
  double kv_window_bytes_per_token;  /* sliding-window layers, for at most kv_window tokens */
  int64_t kv_window;                 /* tokens a sliding-window layer keeps (0 = none) */
  double state_bytes_per_seq;        /* linear-attention layers' recurrent state */
  double act_bytes_per_token;        /* live activations of a forward pass, per token */
} msperf_model_memory_terms;
gboolean msperf_model_memory_of (const msperf_model *model, const msperf_model_layout *layout,
                                 msperf_model_memory_terms *terms, GError **error);
/* Whether the config has MTP layers (num_nextn_predict_layers > 0: the template's params_mtp),
 * the built-in draft heads that MTP speculative decoding (--nextn) runs on. */
gboolean msperf_model_has_mtp (const msperf_model *model);
/* Parameters of the whole model (before sharding, embedding and LM head included): total,
 * active per token (the routed experts' share), the MTP layers' (not in total) and the input
 * embedding's (in both). FALSE when the template gives no counts. */
gboolean msperf_model_params (const msperf_model *model, double *total, double *active,
                              double *mtp, double *embedding, GError **error);
/* The resolved quant mode name of the non-expert linear layers or the routed experts, and
 * whether the KV cache is fp8; the activation dtype's size in bytes. */
const char *msperf_model_quant_name (const msperf_model *model, gboolean experts);
gboolean msperf_model_kv_fp8 (const msperf_model *model);
double msperf_model_dtype_size (const msperf_model *model);

#endif
