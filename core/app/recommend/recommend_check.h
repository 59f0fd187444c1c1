/* msperf (internal) — does msperf pick the right deployment? For groups of measured
 * deployments of one model, backend and request shape (aiconfigurator's silicon rows), the
 * configuration msperf ranks first among the group's measured ones, under the SLA the group's
 * median measured TTFT and TPOT set, is compared with the best measured one; the rank
 * correlation of predicted and measured tokens/s/GPU says how well the whole order is kept
 * (doc/recommend.md §7). */
#ifndef MSPERF_APP_RECOMMEND_CHECK_H
#define MSPERF_APP_RECOMMEND_CHECK_H

#include <stdio.h>
#include <glib.h>
#include "app/serve/serve.h"

/* A group is judged from this many rows on; smaller ones are shown only. */
#define MSPERF_RECOMMEND_CHECK_MIN_ROWS 3
/* The pick passes within this share of the best measured tokens/s/GPU. */
#define MSPERF_RECOMMEND_CHECK_TOLERANCE 0.10

typedef struct {
  const char *group;               /* model|backend|isl|osl|mode (any key) */
  const char *id;
  double measured_ttft_ms, measured_tpot_ms;
  double predicted_ttft_ms, predicted_tpot_ms;
  double clients;                  /* concurrency of the benchmark */
  double gpus;
  double osl;
} msperf_recommend_check_row;

/* How far a row is from an SLA: the larger of TTFT / limit and TPOT / limit, less 1 (above 0:
 * it misses), and which of the two that is; a miss by 3 % reads differently from one by 3×. */
typedef struct {
  double excess;                   /* NAN when not computed */
  const char *on;                  /* "TTFT" or "TPOT" (static), NULL with excess NAN */
} msperf_recommend_check_excess;

/* msperf's first choice among a group's rows under one SLA, and what it measured. */
typedef struct {
  char *id;                        /* NULL: no row is predicted to meet the SLA */
  double predicted, measured;      /* its tokens/s/GPU; NAN without a pick */
  gboolean meets_sla;              /* it meets the group's SLA as measured */
  double ratio;                    /* measured / the best measured; NAN without either */
  gboolean pass;                   /* judged, meets_sla and ratio >= 1 − tolerance */
  /* A pick missing the group's SLA as measured: by how much (its measured figures). */
  msperf_recommend_check_excess miss;
  /* No pick: the row predicted nearest to the SLA it was picked under, and by how much its
   * prediction misses it; NULL id otherwise. */
  char *nearest_id;
  msperf_recommend_check_excess nearest;
} msperf_recommend_check_pick;

typedef struct {
  char *group;
  guint rows;
  double sla_ttft_ms, sla_tpot_ms;         /* the group's median measured TTFT and TPOT */
  char *best_id;                   /* the best measured row meeting the SLA, or NULL */
  double best_measured;            /* its tokens/s/GPU; NAN without one */
  /* The check: the predictions against the SLA itself. */
  msperf_recommend_check_pick pick;
  /* The order alone: the predictions against the group's median predicted TTFT and TPOT, so
   * that an error common to the group's predictions does not decide the pick. */
  double predicted_sla_ttft_ms, predicted_sla_tpot_ms;
  msperf_recommend_check_pick order;
  double spearman;                 /* predicted vs measured tokens/s/GPU; NAN below 3 rows */
  gboolean judged;                 /* rows >= MIN_ROWS and some row meets the SLA measured */
  gboolean gpus_unknown;           /* set by the caller: rows without their GPUs (not judged) */
} msperf_recommend_check_group;

/* Tokens/s/GPU of a closed-loop benchmark: C clients each getting osl tokens per request
 * latency TTFT + (osl − 1) · TPOT. NAN when the latency or the GPUs are not > 0. */
double msperf_recommend_check_tps_gpu (double ttft_ms, double tpot_ms, double clients,
                                       double gpus, double osl);

/* Spearman rank correlation (average ranks for ties); NAN below 3 values or with no spread. */
double msperf_recommend_spearman (const double *a, const double *b, guint n);

/* One result per group (in order of first appearance). Transfer full: free each with
 * msperf_recommend_check_group_clear, then the array (the array's clear function does it). */
GArray *msperf_recommend_check (const msperf_recommend_check_row *rows, guint n);
void msperf_recommend_check_group_clear (msperf_recommend_check_group *g);

/* ---------------------------------------------------------------- on accuracy rows */

/* The check on the rows of `msperf accuracy --silicon` (their predictions reused): collects
 * the rows through the accuracy run's callback, then groups and judges them. */
typedef struct msperf_recommend_rank msperf_recommend_rank;

msperf_recommend_rank *msperf_recommend_rank_new (void);
void msperf_recommend_rank_free (msperf_recommend_rank *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_recommend_rank, msperf_recommend_rank_free)

/* The accuracy run's rows_done callback (data: the msperf_recommend_rank); groups them. */
void msperf_recommend_rank_add_rows (const msperf_serve_accuracy_row *rows, guint n,
                                     gpointer data);
const GArray *msperf_recommend_rank_groups (const msperf_recommend_rank *r);
/* Groups judged, and of them those whose pick passes, and whose order pick passes. */
void msperf_recommend_rank_counts (const msperf_recommend_rank *r, guint *judged, guint *passed,
                                   guint *order_passed);

/* format: table, csv (one line per group) or json. */
void msperf_recommend_rank_print (const msperf_recommend_rank *r, const char *format, FILE *out);
/* DIR/rank.txt, rank.csv, rank.json and rank_rows.csv (every predicted row: its group,
 * measured and predicted figures, and whether it meets the group's SLA each way). */
gboolean msperf_recommend_rank_write_report (const msperf_recommend_rank *r, const char *dir,
                                             GError **error);

#endif
