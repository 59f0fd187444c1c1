/* msperf (internal) — does msperf pick the right deployment? For groups of measured
 * deployments of one model, backend and request shape (aiconfigurator's silicon rows), the
 * configuration msperf ranks first among the group's measured ones, under the SLA the group's
 * median measured TTFT and TPOT set, is compared with the best measured one; the rank
 * correlation of predicted and measured tokens/s/GPU says how well the whole order is kept. */
#ifndef MSPERF_APP_RECOMMEND_CHECK_H
#define MSPERF_APP_RECOMMEND_CHECK_H

#include <stdio.h>
#include <glib.h>

typedef struct {
  const char *group;               /* model|backend|isl|osl (any key) */
  const char *id;
  double measured_ttft_ms, measured_tpot_ms;
  double predicted_ttft_ms, predicted_tpot_ms;
  double clients;                  /* concurrency of the benchmark */
  double gpus;
  double osl;
} msperf_recommend_check_row;

typedef struct {
  char *group;
  guint rows;
  double sla_ttft_ms, sla_tpot_ms;
  const char *picked_id;           /* msperf's first choice meeting the SLA, or NULL */
  const char *best_id;             /* the best measured one meeting the SLA, or NULL */
  double picked_measured, best_measured;   /* their measured tokens/s/GPU */
  double ratio;                    /* picked / best; NAN without a pick */
  double spearman;                 /* predicted vs measured tokens/s/GPU; NAN below 3 rows */
  gboolean pass;                   /* ratio >= 0.9 */
} msperf_recommend_check_group;

/* Tokens/s/GPU of a closed-loop benchmark: C clients each getting osl tokens per request
 * latency TTFT + (osl − 1) · TPOT. */
double msperf_recommend_check_tps_gpu (double ttft_ms, double tpot_ms, double clients,
                                       double gpus, double osl);

/* Spearman rank correlation (average ranks for ties); NAN below 3 values or with no spread. */
double msperf_recommend_spearman (const double *a, const double *b, guint n);

/* One result per group (in order of first appearance). Transfer full: free each with
 * msperf_recommend_check_group_clear, then the array. */
GArray *msperf_recommend_check (const msperf_recommend_check_row *rows, guint n);
void msperf_recommend_check_group_clear (msperf_recommend_check_group *g);

/* The table: one line per group, then how many groups of at least min_rows rows pass. */
void msperf_recommend_check_print (const GArray *groups, guint min_rows, FILE *out);

#endif
