/* msperf (internal) — upstream metrics M1–M5 (reference §3.1–§3.3) and the run summary
 * (time and op count by source) every output prints. */
#ifndef MSPERF_CORE_METRICS_H
#define MSPERF_CORE_METRICS_H

#include <stdint.h>
#include <glib.h>
#include <msperf/result.h>
#include "app/run/run.h"

/* One upstream metrics record (EmpiricalOpRecord): one per distinct signature (Q12). */
typedef struct msperf_metric_record {
  const msperf_record *record;  /* first occurrence (transfer none); NULL in a folded run */
  const msperf_digest *digest;  /* the op: name, top-level shapes (app/run/digest.h; transfer none) */
  int64_t invocations;          /* Σ count over every record with this signature */
  gboolean hit;                 /* MEASURED or INTERPOLATED */
  const char *metric_kernel_type; /* hits: "zero_cost", "accepted_miss", kernel type or "?" */
  const char *reason;           /* misses: miss reason, "partial:<k1,k2>" or "unknown" */
  double analytic_s;            /* analytic latency in seconds (0 when unknown) */
} msperf_metric_record;

typedef struct msperf_metrics {
  GPtrArray *records;           /* msperf_metric_record*, first-occurrence order, owned */
  GPtrArray *digests;           /* the run's digests the records point into (a reference) */

  int64_t m1_hit, m1_miss, m1_total;
  double m1_hr;
  int64_t m2_fused_hit, m2_fused_miss, m2_fused_total;
  double m2_hr;
  int64_t m3_hit, m3_total;
  double m3_hr;
  int64_t m4_hit_shapes, m4_total_shapes;
  double m4_hr;
  GPtrArray *m4_miss_shapes;    /* msperf_metric_record* (one per missed pair, sorted), none owned */
  double m5_hit_s, m5_total_s, m5_coverage;

  /* msperf's own invocation-weighted variants (each signature weighted by its count);
   * exported only under separate keys, never in the upstream metrics JSON (Q12). */
  int64_t inv_hit, inv_miss;
  double inv_m1_hr;
  double inv_m5_hit_s, inv_m5_total_s, inv_m5_coverage;
} msperf_metrics;

/* Transfer full. REJECTED records are not metrics records. */
msperf_metrics *msperf_metrics_compute (const msperf_run *run);
void msperf_metrics_free (msperf_metrics *metrics);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_metrics, msperf_metrics_free)

/* The fused group (DEFAULT_FUSED_GROUPS) a func name belongs to, or NULL. */
const char *msperf_metrics_fused_group (const char *func_name);

/* {"m1": …, …, "m5": …} and, when with_misses, "misses": upstream key names and order.
 * Transfer full (an msperf_value MAP). */
msperf_value *msperf_metrics_to_value (const msperf_metrics *metrics, gboolean with_misses);
/* The metrics file text exactly as json.dump(indent=2, ensure_ascii=False). Transfer full. */
char *msperf_metrics_to_json (const msperf_metrics *metrics);

/* Totals of one source. */
typedef struct msperf_source_total {
  int64_t invocations;
  int64_t distinct;
  double time_us;
} msperf_source_total;

typedef struct msperf_summary {
  double total_us;              /* Σ latency × count over answered records (finite only) */
  int64_t invocations, distinct, lines, rejected;
  msperf_source_total by_source[MSPERF_SOURCE_REJECTED + 1];
  /* Answers without a latency (ATT under a profile with no vector clock): counted apart. */
  int64_t unknown_latency_invocations, unknown_latency_distinct;
  gboolean counts_saturated;    /* a sum of counts reached INT64_MAX and stopped there */
  double analytic_total_us;     /* Σ analytic × count (finite only) */
  /* Interpolated distinct ops by dim (index 1..3; 0 = dim unknown) and by method. */
  int64_t interpolated_by_dim[4];
  GHashTable *interpolated_by_method; /* char* → GINT_TO_POINTER count, owned */
} msperf_summary;

msperf_summary *msperf_summary_compute (const msperf_run *run);
void msperf_summary_free (msperf_summary *summary);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_summary, msperf_summary_free)
/* {"total_us", "by_source", …, "metrics_by_invocation": …}. Transfer full. */
msperf_value *msperf_summary_to_value (const msperf_summary *summary,
                                       const msperf_metrics *metrics);


#endif
