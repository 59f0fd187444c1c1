/* msperf (internal) — model-level points on --jobs threads: one engine model, one session and
 * one evaluator (scratch) per worker, one answer cache (locked) and one loaded model (read
 * only) shared. Results
 * come back in input order and are the bytes one worker gives: an answer is a pure function of
 * the op (doc/design.md § Answer cache), and every sum runs in the same order. */
#ifndef MSPERF_APP_MODEL_JOBS_H
#define MSPERF_APP_MODEL_JOBS_H

#include <msperf/msperf.h>
#include "app/model/model_e2e.h"

typedef struct msperf_model_jobs msperf_model_jobs;

/* n_jobs (>= 1) sessions of the started engine (borrowed; it must outlive the jobs). */
msperf_model_jobs *msperf_model_jobs_new (msperf_engine *engine, guint n_jobs);
void msperf_model_jobs_free (msperf_model_jobs *jobs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_model_jobs, msperf_model_jobs_free)
guint msperf_model_jobs_count (const msperf_model_jobs *jobs);

/* One point (e2e) with its passes (the prefill and the decode samples) spread over the jobs. */
gboolean msperf_model_jobs_point (msperf_model_jobs *jobs, const msperf_model *model,
                                  const msperf_model_layout *layout,
                                  const msperf_e2e_request *req, msperf_e2e_point *out,
                                  GError **error);

typedef struct msperf_sweep_counts {
  guint refused, no_fit, estimated;
} msperf_sweep_counts;

/* The sweep (doc/models.md §3): every layout (outer) × batch size (inner, int64_t) point of
 * shard `shard` of `shards` (1-based; point k belongs to shard k mod shards + 1), appended to
 * points (msperf_e2e_point) in that order, the points spread over the jobs. A layout the model
 * refuses is skipped and counted; any other error stops the sweep with the error of the first
 * failing point in order, as one job would. */
gboolean msperf_model_jobs_sweep (msperf_model_jobs *jobs, const msperf_model *model,
                                  const GArray *layouts, const GArray *batches,
                                  const msperf_e2e_request *req, int64_t shard, int64_t shards,
                                  GArray *points, msperf_sweep_counts *counts, GError **error);

/* Distinct ops sent to the engine and pass ops answered from the caches, over all workers
 * (these depend on how the work was spread; the answers do not). */
void msperf_model_jobs_stats (const msperf_model_jobs *jobs, guint64 *distinct, guint64 *cached);

#endif
