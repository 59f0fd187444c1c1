/* msperf (internal) — request-level figures from model traces (doc/models.md §3): TTFT, TPOT,
 * request latency, tokens/s per device and per user, memory per device; the sweep over
 * layouts and batch sizes and its Pareto front. Static batching: no scheduler simulation. */
#ifndef MSPERF_APP_MODEL_E2E_H
#define MSPERF_APP_MODEL_E2E_H

#include <stdio.h>
#include <msperf/msperf.h>
#include "app/model/model.h"

/* Answers passes through one engine handle; an op body seen before is answered from a cache.
 * One evaluator serves one thread at a time (its handle and scratch are its own); evaluators
 * made with _new_sharing share one answer cache across threads (model_jobs.h). */
typedef struct msperf_model_eval msperf_model_eval;
msperf_model_eval *msperf_model_eval_new (msperf_engine *engine);
/* Another evaluator, on its own engine handle (another thread's), sharing other's answer
 * cache (locked). Transfer full. */
msperf_model_eval *msperf_model_eval_new_sharing (msperf_engine *engine,
                                                  msperf_model_eval *other);
void msperf_model_eval_free (msperf_model_eval *ev);
/* Latency of one pass in µs, and the part of it answered from data (MEASURED, INTERPOLATED). */
gboolean msperf_model_eval_pass (msperf_model_eval *ev, const msperf_model *model,
                                 const msperf_model_layout *layout, const msperf_model_pass *pass,
                                 double *latency_us, double *data_us, GError **error);
/* Distinct ops sent to the engine so far, and pass ops answered from the cache. */
void msperf_model_eval_stats (const msperf_model_eval *ev, guint64 *distinct, guint64 *cached);

typedef struct msperf_e2e_request {
  int64_t isl, osl, batch;       /* input and output tokens per request; requests per DP rank */
  int64_t nextn;                 /* MTP draft tokens per step (0 = none) */
  double accept;                 /* acceptance probability of each draft token, 0..1 */
  int64_t stride;                /* decode sampled every stride tokens (32) */
  double device_bytes;           /* memory of one device; <= 0 = unknown (not checked) */
  double gpu_memory_utilization; /* > 0: check against the runtime's KV capacity
                                  * (model_memory.h); 0: weights + KV within the device */
  int64_t max_prefill_tokens;    /* tokens of one prefill pass (0 = the whole batch in one
                                  * pass): longer prefills run as several (doc/models.md §3) */
} msperf_e2e_request;

typedef struct msperf_e2e_point {
  msperf_model_layout layout;
  int64_t batch;
  gboolean fits;                 /* weights + KV cache within the device memory */
  gboolean estimated;            /* latencies computed (only when it fits) */
  double ttft_ms, tpot_ms, latency_ms, tps_device, tps_user;
  double weight_gib, kv_gib, device_gib;
  int64_t kv_capacity_tokens;    /* with gpu_memory_utilization; -1 = not computed */
  double data_share;             /* share of the estimated time answered from data, 0..1 */
  int64_t prefill_passes;        /* forward passes the prefill took (1 = unchunked) */
  gboolean pareto;
} msperf_e2e_point;

/* One point. FALSE with the reason when the layout does not divide the model. */
gboolean msperf_e2e_point_compute (msperf_model_eval *ev, const msperf_model *model,
                                   const msperf_model_layout *layout,
                                   const msperf_e2e_request *req, msperf_e2e_point *out,
                                   GError **error);
/* The same in steps, for callers that answer the passes elsewhere (model_jobs.c): begin
 * checks the layout and the memory (out->fits: whether the passes are to be answered); the
 * point's passes are k = 0 .. n_passes - 1 (the distinct prefill passes, then a decode sample
 * every stride tokens); finish sums their latencies lat[k] and data parts data[k] in that
 * order, each prefill pass as many times as the prefill runs it. */
gboolean msperf_e2e_point_begin (const msperf_model *model, const msperf_model_layout *layout,
                                 const msperf_e2e_request *req, msperf_e2e_point *out,
                                 GError **error);
guint msperf_e2e_n_passes (const msperf_e2e_request *req);
void msperf_e2e_pass (const msperf_e2e_request *req, guint k, msperf_model_pass *pass);

/* The prefill of batch sequences × isl tokens within max_prefill_tokens per pass: with no
 * budget, or when the batch fits, one pass; else passes of as many whole sequences as fit
 * (and one of the rest); a sequence longer than the budget as chunks of the budget, chunk i
 * attending to the i·budget tokens cached before it. Distinct passes only: pass k (k <
 * n_distinct) is run times(k) times. */
guint msperf_e2e_prefill_distinct (const msperf_e2e_request *req);
int64_t msperf_e2e_prefill_times (const msperf_e2e_request *req, guint k);
/* Forward passes of the whole prefill (the sum of the times). */
int64_t msperf_e2e_prefill_passes (const msperf_e2e_request *req);
void msperf_e2e_point_finish (const msperf_e2e_request *req, const double *lat,
                              const double *data, msperf_e2e_point *out);

/* Marks the Pareto front (tokens/s/device against tokens/s/user) among the estimated points
 * whose keep[i] is TRUE (NULL = all). */
void msperf_e2e_pareto (msperf_e2e_point *points, const gboolean *keep, guint n);

/* Output rows. */
void msperf_e2e_csv_header (FILE *out);
void msperf_e2e_csv_row (const msperf_e2e_point *p, FILE *out);
void msperf_e2e_jsonl_row (const msperf_e2e_point *p, FILE *out);
/* The Pareto plot as a self-contained SVG: every estimated point, the front joined and each
 * front point labelled by its layout and batch, the TPOT limit as a line (NAN: none). */
gboolean msperf_e2e_pareto_svg (const msperf_e2e_point *points, guint n, const char *title,
                                double ttft_max_ms, double tpot_max_ms, const char *path,
                                GError **error);

#endif
