/* msperf (internal) — the serving simulation (doc/serving.md): a discrete-event simulation of
 * one deployment (aggregated, or disaggregated prefill/decode pools) under a workload, with the
 * runtime's scheduler as a policy (vLLM, SGLang, TensorRT-LLM presets) and every step's latency
 * answered op by op through the engine from the model template. */
#ifndef MSPERF_APP_SERVE_H
#define MSPERF_APP_SERVE_H

#include <stdint.h>
#include <stdio.h>
#include <glib.h>
#include <msperf/msperf.h>
#include "app/model/model.h"

/* ---------------------------------------------------------------- scheduler policy */

/* One runtime's scheduler, every knob a key of policies/serving/NAME.yaml and a flag
 * (--KEY with '_' as '-'). */
typedef struct msperf_serve_policy {
  char *name;                      /* vllm, sglang, trtllm, static, or the file's stem */
  int64_t block_size;              /* KV cache block (tokens) */
  int64_t max_num_batched_tokens;  /* token budget of one step */
  int64_t max_num_seqs;            /* sequences in one step */
  int64_t max_prefill_tokens;      /* SGLang's --max-prefill-tokens: once a step's tokens reach
                                      it, no further prompt is admitted, but a prompt that fits
                                      the budget left is admitted whole even past it; <= 0 =
                                      none (the budget alone) */
  gboolean chunked_prefill;        /* a prompt may be split over steps */
  gboolean prompt_within_budget;   /* without chunked prefill, a prompt longer than the step
                                      budget is refused (TensorRT-LLM), not run alone */
  gboolean mixed_batch;            /* prefill chunks ride in the decode steps */
  double reserve_ratio_init;       /* share of a request's remaining output reserved in the
                                      KV cache at admission (SGLang new_token_ratio,
                                      TRT-LLM GUARANTEED_NO_EVICT = 1, vLLM 0) */
  double reserve_ratio_min;
  double reserve_ratio_decay;      /* subtracted per decode step, down to the min */
  double dp_attention_reserve_scale; /* the three reserve ratios' scale on the ranks of an
                                      attention-DP MoE engine (SGLang multiplies
                                      --schedule-conservativeness by 0.3 there); 1 = none */
  gboolean dp_attention_budget_split; /* max_num_batched_tokens is the engine's: each rank of
                                      an attention-DP MoE engine schedules 1/dp of it, as
                                      SGLang divides --chunked-prefill-size by --dp-size */
  gboolean preempt;                /* recompute preemption when the cache is full */
  double step_overhead_us;         /* host time per step (scheduling, launch) */
  double seq_overhead_us;          /* host time per sequence of a step (sampling, detokenise) */
  double seq_overlap_us;           /* host time per sequence of a step that runs beside the
                                      GPU's (an overlap scheduler's output processing, the
                                      server's token streaming): a step lasts at least this ×
                                      its sequences */
  double gpu_memory_utilization;   /* share of device memory for weights + KV cache */
  gboolean memory_share_of_free;   /* that share is of the memory left after the weights,
                                      activations and reserves (TensorRT-LLM's
                                      free_gpu_memory_fraction), all of it KV cache */
  double kv_transfer_gbps;         /* disaggregated: KV bandwidth per device, GB/s */
  double kv_transfer_latency_us;   /* disaggregated: per transfer */
  int64_t adp_balance_timeout_iters; /* attention DP: ranks hold prompts back until each has
                                      one, at most this many steps (TensorRT-LLM's
                                      attention_dp_config.enable_balance); 0 = off */
  gboolean first_token_from_decode; /* disaggregated: the client's first token comes with the
                                      decode worker's first step on the request, so waiting
                                      for a decode slot is in TTFT; else when the KV arrives */
  gboolean kv_fp8_with_fp8_weights; /* the runtime's recipes run FP8 checkpoints with an FP8
                                       KV cache: `accuracy` sizes the cache so for rows with
                                       8-bit float weights (the rows do not state the KV dtype) */
  int64_t moe_pad_tokens;          /* decode MoE rows padded per rank as the runtime's decode
                                      graph does (template parameter); -1 = the template's */
  int64_t moe_allreduce;           /* MoE collectives (template parameter): 1 = all_reduce, or
                                      all_gather/reduce_scatter under attention DP; 0 =
                                      all_to_all dispatch/combine; -1 = the template's */
  int64_t gemm_quant_fused;        /* 1 = an fp8 linear's answer includes quantising its input
                                      (template parameter); -1 = the template's */
  int64_t moe_bf16_fused;          /* 1 = bf16 experts run as one fused MoE kernel (template
                                      parameter); -1 = the template's */
  int64_t moe_int4_fused;          /* 1 = int4 weight-only experts run as one fused MoE kernel
                                      (template parameter); -1 = the template's */
  int64_t expert_gather;           /* 1 = each per-expert GEMM's rows all-gathered over TP as
                                      the Ascend capture (template parameter); -1 = the
                                      template's */
  gboolean pp_microbatches;        /* a pipeline-parallel engine keeps pp micro-batches in
                                      flight, each stage on another one's step (vLLM's batch
                                      queue, SGLang's and TensorRT-LLM's PP loops); false: one
                                      batch passes all stages before the next (e2e) */
  gboolean prefix_caching;         /* a prompt seen before is served from the KV cache (vLLM
                                      v1 prefix caching, SGLang radix cache): only the tokens
                                      past its cached full blocks are prefilled */
  /* How the deployments behind `accuracy`'s rows were configured (aiconfigurator's generated
   * engine configs), where that differs from the runtime's defaults: */
  int64_t accuracy_token_margin;   /* step budget = isl + this (-1 = the preset's budget) */
  gboolean accuracy_budget_holds_batch; /* that budget also holds the batch size (vLLM's
                                      max-num-batched-tokens); else it sets max_prefill_tokens
                                      where the preset has one (SGLang), or caps the budget */
  int64_t accuracy_agg_mixed_batch; /* aggregated rows: 1 mixed steps, 0 not, -1 the preset's */
} msperf_serve_policy;

/* The template parameters the policy sets ("name=value", NULL-terminated, for
 * msperf_model_options.fields): moe_pad_tokens, moe_allreduce, gemm_quant_fused,
 * moe_bf16_fused and expert_gather unless -1. Transfer full (g_strfreev). */
char **msperf_serve_policy_model_fields (const msperf_serve_policy *p);

/* Knob descriptors, for the preset reader and the CLI flags. */
typedef enum {
  MSPERF_SERVE_KNOB_INT,           /* integer >= 1 */
  MSPERF_SERVE_KNOB_BOOL,
  MSPERF_SERVE_KNOB_DOUBLE,        /* number >= 0 */
  MSPERF_SERVE_KNOB_COUNT          /* integer >= 0 */
} msperf_serve_knob_kind;
typedef struct {
  const char *key;
  msperf_serve_knob_kind kind;
  gsize offset;
  const char *help;
} msperf_serve_knob;
const msperf_serve_knob *msperf_serve_knobs (guint *n);
/* Sets a knob from its text ("8192", "true", "0.9"); FALSE with the reason. */
gboolean msperf_serve_policy_set (msperf_serve_policy *p, const char *key, const char *value,
                                  GError **error);
/* Loads a preset file (flat map of knobs; unknown keys are errors, FILE:LINE). */
gboolean msperf_serve_policy_load (msperf_serve_policy *p, const char *path, GError **error);
/* The built-in values a preset starts from (vLLM's), name NULL. */
void msperf_serve_policy_init (msperf_serve_policy *p);
void msperf_serve_policy_clear (msperf_serve_policy *p);

/* ---------------------------------------------------------------- workload */

typedef enum {
  MSPERF_SERVE_CLOSED,             /* concurrency clients, next request when one finishes */
  MSPERF_SERVE_POISSON,
  MSPERF_SERVE_GAMMA,
  MSPERF_SERVE_TRACE               /* requests from a JSON Lines file */
} msperf_serve_arrival;

/* Length distribution: fixed, or uniform in [n(1-r), n(1+r)] (vLLM's random range ratio). */
typedef struct {
  double range_ratio;              /* 0 = fixed */
} msperf_serve_len_dist;

typedef struct msperf_serve_workload {
  msperf_serve_arrival arrival;
  int64_t concurrency;             /* closed loop */
  double rate;                     /* open loop, requests/s */
  double gamma_cv;                 /* gamma arrivals: coefficient of variation */
  int64_t isl, osl;
  msperf_serve_len_dist isl_dist, osl_dist;
  int64_t num_requests;
  guint32 seed;
  int64_t warmup, cooldown;        /* first/last requests (issue order) left out of the figures */
  gboolean staggered;              /* closed loop: clients start spread over one request's
                                      estimated latency (the steady state), not all at once */
  GArray *trace;                   /* msperf_serve_req_spec, for MSPERF_SERVE_TRACE */
  int64_t max_events;              /* bound on the simulation's events; 0 = the default */
  int64_t prompt_pool;             /* distinct prompts the requests draw from uniformly (a
                                      benchmark's dataset entries, reused); 0 = every request
                                      its own prompt. Not for request files. */
  int64_t prompt_warmup;           /* with a pool: requests of a warm-up run, finished before
                                      the first request, whose prompts start in the cache */
  gboolean prompt_shuffle;         /* with a pool: each pass over it in a new random order
                                      (sampling without replacement), not independent draws */
} msperf_serve_workload;

typedef struct {
  double arrival_s;
  int64_t isl, osl;
  int64_t prompt;                  /* its prompt in the pool; -1 = a prompt of its own */
} msperf_serve_req_spec;

/* Parses "poisson", "gamma:CV"; "fixed", "uniform:R". */
gboolean msperf_serve_parse_arrival (const char *text, msperf_serve_workload *w, GError **error);
gboolean msperf_serve_parse_len_dist (const char *text, msperf_serve_len_dist *d, GError **error);
/* The largest input or output token count of one request (a request file's, --isl, --osl). */
#define MSPERF_SERVE_MAX_TOKENS ((int64_t) 1 << 30)
/* The default bound on the events of one simulation (--max-events raises it). */
#define MSPERF_SERVE_MAX_EVENTS ((int64_t) 100000000)

/* Reads {"arrival_s"|"arrival_ms", "input_tokens", "output_tokens"} per line. Refuses, with
 * PATH:LINE, a malformed line, a count outside 1..MSPERF_SERVE_MAX_TOKENS, a negative or
 * decreasing arrival (equal arrivals are kept in file order), and a file with no request. */
GArray *msperf_serve_read_requests (const char *path, GError **error);
/* The same on LEN bytes of text already read; PATH names it in messages. */
GArray *msperf_serve_parse_requests (const char *data, gsize len, const char *path,
                                     GError **error);

/* The request specs of a workload in issue order (closed loop: arrival 0, the loop times
 * them). One RNG seeded with w->seed; with a prompt pool, the pool's lengths, the warm-up's
 * and the requests' prompts come from a second one, so the lengths and arrivals of a run
 * without a pool do not move. With a pool the first w->prompt_warmup specs are the warm-up
 * requests (arrival 0). Transfer full. */
GArray *msperf_serve_make_requests (const msperf_serve_workload *w);

/* ---------------------------------------------------------------- step latency */

/* Latency of a mixed step on one rank of a layout, from the template answered through the
 * engine; memoised on a bucketed grid (doc/serving.md §3). */
typedef struct msperf_serve_steps msperf_serve_steps;
typedef struct msperf_serve_answers msperf_serve_answers;

/* Op answers by op body, for one engine handle (one thread), and the template passes
 * answered through it, shared by every msperf_serve_steps made on it (keyed by the model
 * object, so a model must outlive the answers it was used with, and be unchanged). */
msperf_serve_answers *msperf_serve_answers_new (msperf_engine *engine);
void msperf_serve_answers_free (msperf_serve_answers *a);
msperf_engine *msperf_serve_answers_engine (msperf_serve_answers *a);
guint64 msperf_serve_answers_distinct (const msperf_serve_answers *a);

msperf_serve_steps *msperf_serve_steps_new (msperf_serve_answers *answers,
                                            const msperf_model *model,
                                            const msperf_model_layout *layout, int64_t nextn);
void msperf_serve_steps_free (msperf_serve_steps *s);

/* One step: n_pre prefill chunks (chunk[i] new tokens after ctx[i] cached ones) and n_dec
 * decode sequences with kv_sum tokens of context in total. µs of the forward pass on the
 * rank (pp stages in turn), and the part of it answered from data. */
gboolean msperf_serve_step_latency (msperf_serve_steps *s, guint n_pre, const int64_t *chunk,
                                    const int64_t *ctx, int64_t n_dec, double kv_sum,
                                    double *us, double *data_us, GError **error);
/* Grid points asked so far (distinct step questions). */
guint64 msperf_serve_steps_points (const msperf_serve_steps *s);

/* Grid of the memo: exact up to 16, then 8 points per octave. */
int64_t msperf_serve_grid_value (int64_t i);
int64_t msperf_serve_grid_index (int64_t x);   /* largest i with value(i) <= x (x >= 1) */

/* ---------------------------------------------------------------- the simulation */

typedef enum { MSPERF_SERVE_AGG, MSPERF_SERVE_DISAGG } msperf_serve_mode;

typedef struct msperf_serve_deployment {
  msperf_serve_mode mode;
  msperf_model_layout layout;            /* agg: one replica */
  int64_t replicas;                      /* agg replicas (default 1) */
  msperf_model_layout prefill, decode;   /* disagg pools */
  int64_t prefill_workers, decode_workers;
  /* Disagg: sequences one rank of the pool runs at once (the runtime's max batch size:
   * TensorRT-LLM max_batch_size, vLLM --max-num-seqs, SGLang --max-running-requests);
   * 0 = the preset's max_num_seqs. */
  int64_t prefill_max_seqs, decode_max_seqs;
  int64_t nextn;
  double accept;
  double device_bytes;                   /* memory per device; <= 0: unknown (no KV bound) */
  int64_t kv_capacity_tokens;            /* > 0: given (overrides the memory model) */
} msperf_serve_deployment;

typedef struct {
  double mean, p50, p90, p99;
} msperf_serve_dist;

typedef struct msperf_serve_result {
  int64_t requests, measured, devices;
  msperf_serve_dist ttft_ms, tpot_ms, itl_ms, e2e_ms;
  double duration_s, req_per_s, in_tok_per_s, out_tok_per_s, tok_per_s_gpu, tok_per_s_user;
  double kv_use_mean, kv_use_max;        /* share of the KV cache in use, over steps */
  int64_t kv_capacity_tokens;            /* per rank (agg, or the decode pool) */
  int64_t preemptions, steps;
  double mean_batch, data_share;
  guint64 step_points;                   /* distinct step questions */
  /* Open loop: requests completed while the measured ones arrived, per request arriving then.
   * About 1 when the deployment keeps up (what arrives leaves); 1/ρ when the arrivals outrun
   * it by ρ and the queue grows for as long as the run lasts. NaN in a closed loop. */
  double keep_up;
  /* Prompt tokens the measured requests found in the prefix cache, per prompt token: what
   * their TTFT did not prefill. NaN when the requests draw on no prompt pool. */
  double prefix_hit_share;
  int64_t seq_slots;                     /* sequences its schedulers may run at once (decode) */
} msperf_serve_result;

/* Requests an open loop at `rate` requests/s holds in service at once: Little's law over the
 * time from first token to last, the part of a request's latency the deployment works on it
 * (the time queued before it is left out, so that a growing queue does not inflate it), at
 * most the sequences its schedulers may run at once (an overloaded deployment runs that many
 * and queues the rest). A run's figures are its steady state's once about twice that many
 * have been left out. */
double msperf_serve_in_service (const msperf_serve_result *r, double rate);

/* An open loop keeps up when at least this share of the requests arriving while the measured
 * ones do completes meanwhile (msperf_serve_result.keep_up). */
#define MSPERF_SERVE_KEEP_UP_MIN 0.9

/* The run that holds an open loop's steady state when `in_service` requests are in service at
 * once: 2L of warm-up, max(4L, min_measured) measured and L of cool-down. */
typedef struct {
  int64_t warmup, measured, cooldown;
} msperf_serve_steady_run;

msperf_serve_steady_run msperf_serve_steady_sizes (double in_service, int64_t min_measured);

/* Outputs a run can record. */
typedef struct {
  gboolean want_itl;                     /* keep every gap for ITL percentiles */
  GString *timeline;                     /* Chrome trace JSON, or NULL */
  GArray *samples;                       /* msperf_serve_sample per step, or NULL */
  GArray *ttfts, *tpots, *e2es;          /* per measured request (ms), or NULL */
} msperf_serve_record;

typedef struct {
  double t_s;
  guint worker;
  int32_t batch;
  double kv_use;
} msperf_serve_sample;

/* KV capacity in tokens of one rank of layout under pol's memory share
 * (msperf_model_kv_capacity_tokens). 0 when it does not fit; -1 when memory is unknown. */
int64_t msperf_serve_kv_capacity (const msperf_model *model, const msperf_model_layout *layout,
                                  double device_bytes, const msperf_serve_policy *pol,
                                  GError **error);

/* Whether model's DP ranks under layout form one attention-DP engine that steps together (a
 * MoE model, dp > 1), rather than replicas. */
gboolean msperf_serve_attention_dp (const msperf_model *model, const msperf_model_layout *layout);

/* Micro-batches an engine of this layout keeps in flight: pp under pp_microbatches (each a
 * scheduler of its own that passes every stage), else 1 (doc/serving.md §1). */
int64_t msperf_serve_microbatches (const msperf_serve_policy *pol,
                                   const msperf_model_layout *layout);
/* The step token budget of one scheduler of layout: pol's, or a rank's share of it where the
 * runtime divides it among attention-DP ranks (dp_attention_budget_split). */
int64_t msperf_serve_rank_budget (const msperf_model *model, const msperf_model_layout *layout,
                                  const msperf_serve_policy *pol);

gboolean msperf_serve_run (msperf_serve_answers *answers, const msperf_model *model,
                           const msperf_serve_deployment *dep, const msperf_serve_policy *pol,
                           const msperf_serve_workload *w, msperf_serve_record *rec,
                           msperf_serve_result *out, GError **error);

/* Nearest-rank percentile (q in 0..100) of v[0..n-1], sorted in place. NAN when n = 0. */
double msperf_serve_percentile (double *v, gsize n, double q);
void msperf_serve_dist_of (double *v, gsize n, msperf_serve_dist *d);

/* Outputs. */
void msperf_serve_print_table (const msperf_serve_result *r, FILE *out);
void msperf_serve_print_json (const msperf_serve_result *r, FILE *out);
void msperf_serve_print_csv (const msperf_serve_result *r, gboolean header, FILE *out);
gboolean msperf_serve_write_report (const msperf_serve_record *rec, const char *dir,
                                    const char *title, GError **error);

/* The `msperf serve` command line that runs one simulation again: the model (config,
 * templates, quantisation), the scheduler preset file with every knob the run changed from
 * it, the deployment and the workload; engine_args (already shell-quoted: database, device
 * profile, memory) are appended as they are. NULL for a workload of a requests file. */
typedef struct {
  const char *program;                   /* "msperf" and its global options; NULL: "msperf" */
  const char *config, *template_path;    /* template_path NULL: chosen by the config */
  const char *templates_dir;             /* NULL: the default */
  const msperf_model_options *model;
  const char *scheduler;                 /* the preset file (or NULL with backend) */
  const char *backend;                   /* the name of a shipped preset: --backend NAME
                                            instead of --scheduler FILE; or NULL */
  const msperf_serve_policy *preset;     /* its values */
  const msperf_serve_policy *policy;     /* the values run */
  const msperf_serve_deployment *dep;
  const msperf_serve_workload *w;
  const char *engine_args;               /* or NULL */
} msperf_serve_command;
/* Transfer full. */
char *msperf_serve_command_line (const msperf_serve_command *c);

/* ---------------------------------------------------------------- accuracy */

/* ---------------------------------------------------------------- published deployments */

/* A deployment a benchmark published for rows it measured (policies/deployments,
 * doc/serving.md §6): what the silicon schema cannot state about a row (a disaggregated row's
 * workers and batch limits, any row's MTP depth, a mislabelled layout), keyed
 * by what the row does state (model_path, backend, backend_version, mode, isl, osl and the
 * benchmark's clients). */
typedef struct msperf_serve_recipe {
  char *name;                            /* the recipe's name in its source */
  char *model_path, *backend, *backend_version, *mode;
  int64_t isl, osl, clients;
  int64_t nextn;                         /* MTP draft tokens per decode step; 0 = none */
  msperf_model_layout agg;               /* an aggregated line's engine */
  msperf_model_layout prefill, decode;   /* a disaggregated line's pools (tp: attention TP,
                                            dp: attention DP, ep, pp) */
  int64_t prefill_workers, decode_workers;
  int64_t prefill_seqs, decode_seqs;     /* max batch size per rank; 0 = the preset's */
  guint line;                            /* its line in the file */
} msperf_serve_recipe;

/* A CSV file's text, or NULL with MSPERF_ERROR_PARSE naming the line of a byte that is not
 * UTF-8 (a NUL included: its cells are echoed into the outputs). */
char *msperf_serve_csv_text (const char *path, GError **error);
/* One CSV record (RFC 4180 quotes) from *p, its fields a GPtrArray that frees them; NULL at
 * the end. *line (the record's first line on entry) becomes the next record's. */
GPtrArray *msperf_serve_csv_record (const char **p, guint *line);
/* The deployments of path — a CSV file, or every *.csv of a directory in name order — in
 * their order (a GPtrArray that frees them), or NULL with MSPERF_ERROR_PARSE naming the file,
 * line and problem (or the error opening it). */
GPtrArray *msperf_serve_recipes_load (const char *path, GError **error);
void msperf_serve_recipe_free (gpointer recipe);
/* Whether the deployment is the one of a row stating these (exact match of every key). */
gboolean msperf_serve_recipe_matches (const msperf_serve_recipe *r, const char *model_path,
                                      const char *backend, const char *backend_version,
                                      const char *mode, int64_t isl, int64_t osl,
                                      int64_t clients);

/* One measured row as an accuracy run mapped and predicted it (borrowed by the callback). */
typedef struct {
  const char *id, *model_path, *backend, *mode;
  int64_t isl, osl, concurrency;         /* concurrency: clients of the benchmark */
  int64_t devices;                       /* GPUs of the deployment, as the simulation counts */
  gboolean devices_stated;               /* FALSE: disagg worker counts not in the row (1 each
                                            assumed), so the GPUs are not known */
  double ttft_ms, tpot_ms;               /* measured */
  double p_ttft_ms, p_tpot_ms;           /* predicted mean; NAN when not run */
  gboolean ran;
} msperf_serve_accuracy_row;

typedef struct msperf_serve_accuracy_opts {
  const char *silicon;                   /* aiconfigurator silicon_sample.csv */
  const char *models_dir;                /* Hugging Face configs */
  const char *templates_dir;
  const char *policies_dir;              /* policies/serving */
  const char *format;                    /* csv | table | json */
  const char *report_dir;                /* SVG scatter, per-row csv, summary */
  int64_t requests_per_client;           /* requests = clients × this */
  gboolean burst;                        /* every client starts at once and every request is
                                            measured (benchmark_serving --max-concurrency C
                                            --num-prompts C × rounds), not the steady state */
  guint jobs;
  double device_bytes;
  /* Called once with every row in file order after the run, or NULL. */
  void (*rows_done) (const msperf_serve_accuracy_row *rows, guint n, gpointer data);
  gpointer rows_data;
  int64_t max_rows;                      /* bound on the file's rows; 0 = the default */
  int64_t max_events;                    /* bound on each row's simulation; 0 = the default */
  int64_t prompt_pool;                   /* distinct prompts of the benchmark (aiperf's
                                            --num-dataset-entries, 100); 0 = all distinct */
  gboolean prompt_shuffle;               /* shuffled passes over them, not draws with
                                            replacement */
  int64_t unstated_decode_batch;         /* a disagg row without worker counts: decode
                                            workers of this many sequences per DP rank, as
                                            many as its clients fill; 0 = one prefill and
                                            one decode worker */
  int64_t nextn;                         /* MTP draft tokens per decode step the measured
                                            deployments ran, for the models with MTP layers;
                                            0 = none (the rows do not record it) */
  double nextn_accept;                   /* acceptance probability of each draft token */
  GPtrArray *recipes;                    /* msperf_serve_recipe: the deployments benchmarks
                                            published for the rows they measured; a row that
                                            matches runs as published (the mean over several
                                            that match); NULL = none */
  /* For the report's commands: the program with its global options and the engine options
   * as `serve` takes them, shell-quoted; NULL: "msperf", none. */
  const char *program, *engine_args;
  gboolean shipped_templates, shipped_presets;   /* templates_dir, policies_dir: the defaults */
} msperf_serve_accuracy_opts;

/* The default bound on the rows of one accuracy file (past it the file is refused). */
#define MSPERF_SERVE_ACCURACY_MAX_ROWS ((int64_t) 100000)

/* out NULL: nothing printed (the report and the callback still get the rows). */
gboolean msperf_serve_accuracy (msperf_engine *engine, const msperf_serve_accuracy_opts *o,
                                FILE *out, GError **error);

#endif
