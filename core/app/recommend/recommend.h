/* msperf (internal) — the best deployment of a model on N GPUs under an SLA
 * (doc/recommend.md): layouts (TP, PP, attention DP, EP / moe_tp), quantisation modes, the
 * batch limit and, for disaggregated serving, the prefill/decode worker counts and layouts,
 * each simulated on the serving simulation (app/serve) and ranked by tokens/s/GPU among the
 * points that meet the SLA. */
#ifndef MSPERF_APP_RECOMMEND_H
#define MSPERF_APP_RECOMMEND_H

#include <stdio.h>
#include <glib.h>
#include <msperf/msperf.h>
#include "app/model/model.h"
#include "app/serve/serve.h"
#include "app/recommend/launch.h"

#define MSPERF_RECOMMEND_MAX_QUANTS 8

typedef struct msperf_recommend_opts {
  const char *backend;                /* vllm | sglang | trtllm */
  const char *model_name;             /* for the headline */
  const char *model_id;               /* Hugging Face name, for the launch command */
  const char *checkpoint_quant;       /* the mode the checkpoint's weights are in */
  const char *kv_dtype;               /* bf16 | fp8 */
  const msperf_serve_policy *policy;  /* the backend's preset, with the user's knobs */
  int64_t gpus;
  int64_t isl, osl;
  double ttft_max_ms, tpot_max_ms, latency_max_ms;   /* NAN: no limit (means over requests) */
  gboolean agg, disagg;
  int64_t concurrency;                /* > 0: fixed clients; 0: searched (a ladder per layout) */
  double rate;                        /* > 0: open loop Poisson at this many requests/s */
  guint n_quants;
  const msperf_model *models[MSPERF_RECOMMEND_MAX_QUANTS];   /* one per quantisation mode */
  const char *quants[MSPERF_RECOMMEND_MAX_QUANTS];
  const char *quants_asked[MSPERF_RECOMMEND_MAX_QUANTS];     /* --quant's; NULL: the config's */
  double device_bytes;                /* memory of one device */
  int64_t node_devices;               /* devices of one node, 0: unknown (launch commands) */
  int64_t nextn;
  double accept;
  guint32 seed;
  int64_t max_points;                 /* bound on simulated points; refused past it */
  int64_t max_events;                 /* bound on each point's simulation; 0 = the default */
  guint shard_index, shard_count;     /* 0-based index of count; count 1 = everything */
  guint jobs;
  /* For the `msperf serve` command of a point: the model as given (templates_dir NULL: the
   * shipped ones), msperf with its global options, the engine options (shell-quoted). */
  const char *config, *template_path, *templates_dir, *dtype;
  const char *kv_dtype_given;         /* --kv-dtype as given, or NULL (the model's) */
  const char *program, *engine_args;
} msperf_recommend_opts;

typedef enum {
  MSPERF_RECOMMEND_OK,                /* simulated, meets the SLA */
  MSPERF_RECOMMEND_SLA,               /* simulated, misses the SLA */
  MSPERF_RECOMMEND_MEMORY,            /* the weights leave no room for one request's KV cache */
  MSPERF_RECOMMEND_LAYOUT,            /* the layout does not divide the model */
  MSPERF_RECOMMEND_FAILED,            /* the simulation failed (reason) */
} msperf_recommend_status;

typedef struct msperf_recommend_point {
  guint index;                        /* candidate number: the order of one unsharded run */
  msperf_serve_deployment dep;
  guint quant;                        /* index into opts->quants */
  int64_t concurrency;                /* clients of the whole deployment */
  int64_t max_num_seqs;               /* per engine (scheduler limit) */
  int64_t max_num_tokens;
  /* Open loop: the requests of its run, of which the first `warmup` and the last `cooldown`
   * are left out; 0 = the default run (recommend.c, sized_run). */
  int64_t requests, warmup, cooldown;
  msperf_recommend_status status;
  char *reason;                       /* why it was excluded, NULL when OK */
  msperf_serve_result res;
  double kv_headroom;                 /* 1 − peak KV use */
  gboolean pareto;
  guint rank;                         /* 1 = best; 0 = not ranked */
} msperf_recommend_point;

typedef struct msperf_recommend {
  GPtrArray *points;                  /* msperf_recommend_point, candidate order */
  guint64 simulated;
  double seconds;
} msperf_recommend;

/* Searches the space; FALSE only when it cannot start (bad options, the point bound). */
msperf_recommend *msperf_recommend_run (msperf_engine *engine, const msperf_recommend_opts *o,
                                        GError **error);
void msperf_recommend_free (msperf_recommend *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_recommend, msperf_recommend_free)

/* Ranks the points (tokens/s/GPU among those meeting the SLA, then tokens/s/user, then
 * candidate order) and marks the Pareto front of tokens/s/GPU against tokens/s/user among
 * the simulated ones. Deterministic: a merged set of shards ranks as one run. */
void msperf_recommend_rank (GPtrArray *points);

/* "agg tp4 pp1 dp1 ep1 x2" / "disagg 2P(tp2) + 1D(tp4 dp2 ep8)". Transfer full. */
char *msperf_recommend_layout_text (const msperf_recommend_point *p);

/* Outputs. The JSON Lines records depend on the point alone (no rank, no front: those need
 * every point), so the records of --shard runs merged by `msperf merge` are one run's. */
void msperf_recommend_print_table (const msperf_recommend *r, const msperf_recommend_opts *o,
                                   guint top, FILE *out);
void msperf_recommend_print_jsonl (const msperf_recommend *r, const msperf_recommend_opts *o,
                                   FILE *out);
void msperf_recommend_print_csv (const msperf_recommend *r, const msperf_recommend_opts *o,
                                 FILE *out);
gboolean msperf_recommend_report (const msperf_recommend *r, const msperf_recommend_opts *o,
                                  const char *title, const char *dir, GError **error);

/* The launch commands of a point (comment lines say how many engines of how many GPUs).
 * Transfer full. */
char *msperf_recommend_launch_text (const msperf_recommend_point *p,
                                    const msperf_recommend_opts *o);

/* The `msperf serve` command that simulates point p alone (its mean TTFT and TPOT are the
 * point's). Transfer full. */
char *msperf_recommend_serve_command (const msperf_recommend_point *p,
                                      const msperf_recommend_opts *o);

/* Whether the model has experts (expert parallelism and attention DP apply). */
gboolean msperf_recommend_has_experts (const msperf_model *model);

/* The best point (rank 1), or NULL when none meets the SLA. */
const msperf_recommend_point *msperf_recommend_best (const msperf_recommend *r);

#endif
