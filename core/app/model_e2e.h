/* msperf (internal) — request-level figures from model traces (doc/models.md §3): TTFT, TPOT,
 * request latency, tokens/s per device and per user, memory per device; the sweep over
 * layouts and batch sizes and its Pareto front. Static batching: no scheduler simulation. */
#ifndef MSPERF_APP_MODEL_E2E_H
#define MSPERF_APP_MODEL_E2E_H

#include <stdio.h>
#include <msperf/msperf.h>
#include "app/model.h"

/* Answers passes through one engine; an op body seen before is answered from a cache. */
typedef struct msperf_model_eval msperf_model_eval;
msperf_model_eval *msperf_model_eval_new (msperf_engine *engine);
void msperf_model_eval_free (msperf_model_eval *ev);
/* Latency of one pass in µs, and the part of it answered from data (MEASURED, INTERPOLATED). */
gboolean msperf_model_eval_pass (msperf_model_eval *ev, msperf_model *model,
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
} msperf_e2e_request;

typedef struct msperf_e2e_point {
  msperf_model_layout layout;
  int64_t batch;
  gboolean fits;                 /* weights + KV cache within the device memory */
  gboolean estimated;            /* latencies computed (only when it fits) */
  double ttft_ms, tpot_ms, latency_ms, tps_device, tps_user;
  double weight_gib, kv_gib, device_gib;
  double data_share;             /* share of the estimated time answered from data, 0..1 */
  gboolean pareto;
} msperf_e2e_point;

/* One point. FALSE with the reason when the layout does not divide the model. */
gboolean msperf_e2e_point_compute (msperf_model_eval *ev, msperf_model *model,
                                   const msperf_model_layout *layout,
                                   const msperf_e2e_request *req, msperf_e2e_point *out,
                                   GError **error);
/* Marks the Pareto front (tokens/s/device against tokens/s/user) among the estimated points
 * whose keep[i] is TRUE (NULL = all). */
void msperf_e2e_pareto (msperf_e2e_point *points, const gboolean *keep, guint n);

/* Output rows. */
void msperf_e2e_csv_header (FILE *out);
void msperf_e2e_csv_row (const msperf_e2e_point *p, FILE *out);
void msperf_e2e_jsonl_row (const msperf_e2e_point *p, FILE *out);
/* The Pareto plot as a self-contained SVG. */
gboolean msperf_e2e_pareto_svg (const msperf_e2e_point *points, guint n, const char *title,
                                const char *path, GError **error);

/* Device memory in bytes of a device profile name, from policies/device_memory.yaml
 * (path); 0 when the file does not list it. */
double msperf_model_device_memory (const char *path, const char *device, GError **error);

#endif
