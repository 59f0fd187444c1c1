/* Tests of core/app/recommend/recommend_check.c and recommend_rank.c: the closed-loop
 * tokens/s/GPU formula, the Spearman rank correlation (against values computed by hand and
 * scipy.stats.spearmanr), the per-group pick under the median-measured SLA (a pick missing the
 * measured SLA fails, by how much it misses, the row nearest to the SLA when none is predicted
 * within it, the simulated tokens/s/GPU rank when given, groups below three rows are not
 * judged), and the grouping and outputs of accuracy rows. */
#include <config.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include "app/recommend/recommend_check.h"

static void
test_tps_gpu (void **state)
{
  (void) state;
  /* 8 clients, 100 output tokens in 100 + 99 × 10 = 1090 ms, on 4 GPUs */
  assert_float_equal (msperf_recommend_check_tps_gpu (100, 10, 8, 4, 100),
                      8.0 * 100 / 1.090 / 4, 1e-9);
  assert_true (isnan (msperf_recommend_check_tps_gpu (0, 0, 8, 4, 1)));
}

static void
test_spearman (void **state)
{
  const double a[] = { 1, 2, 3, 4, 5 }, up[] = { 10, 20, 30, 40, 50 }, down[] = { 5, 4, 3, 2, 1 };
  /* scipy.stats.spearmanr([1,2,3,4,5], [2,1,4,3,5]).statistic = 0.8 */
  const double swapped[] = { 2, 1, 4, 3, 5 };
  /* scipy.stats.spearmanr([1,2,2,3], [1,3,2,4]).statistic = 0.9486832980505138 (ties) */
  const double t1[] = { 1, 2, 2, 3 }, t2[] = { 1, 3, 2, 4 };

  (void) state;
  assert_float_equal (msperf_recommend_spearman (a, up, 5), 1.0, 1e-12);
  assert_float_equal (msperf_recommend_spearman (a, down, 5), -1.0, 1e-12);
  assert_float_equal (msperf_recommend_spearman (a, swapped, 5), 0.8, 1e-12);
  assert_float_equal (msperf_recommend_spearman (t1, t2, 4), 0.9486832980505138, 1e-12);
  assert_true (isnan (msperf_recommend_spearman (a, up, 2)));
}

static void
test_groups (void **state)
{
  /* Group g: SLA = median TTFT 200, median TPOT 20. Row b is the best measured meeting it;
   * the prediction ranks b first too. Group h: the prediction prefers y, which measures
   * 50 % of x: a miss (two rows: not judged). */
  const msperf_recommend_check_row rows[] = {
    { "g", "a", 100, 10, 100, 10, 4, 8, 100 },
    { "g", "b", 200, 20, 190, 19, 16, 8, 100 },
    { "g", "c", 300, 30, 310, 31, 32, 8, 100 },
    { "h", "x", 100, 10, 100, 30, 8, 8, 100 },
    { "h", "y", 100, 20, 100, 10, 8, 8, 100 },
  };
  g_autoptr (GArray) groups = msperf_recommend_check (rows, G_N_ELEMENTS (rows));
  msperf_recommend_check_group *g, *h;

  (void) state;
  assert_int_equal (groups->len, 2);
  g = &g_array_index (groups, msperf_recommend_check_group, 0);
  h = &g_array_index (groups, msperf_recommend_check_group, 1);
  assert_string_equal (g->group, "g");
  assert_int_equal (g->rows, 3);
  assert_float_equal (g->sla_ttft_ms, 200, 0);
  assert_string_equal (g->best_id, "b");
  assert_string_equal (g->pick.id, "b");
  assert_true (g->judged && g->pick.pass && g->pick.ratio == 1.0);
  assert_float_equal (g->predicted_sla_ttft_ms, 190, 0);
  assert_string_equal (g->order.id, "b");
  assert_float_equal (g->spearman, 1.0, 1e-12);
  assert_string_equal (h->best_id, "x");
  assert_string_equal (h->pick.id, "y");
  assert_false (h->judged);
  assert_false (h->pick.pass);
  assert_true (h->pick.ratio < 0.6);
}

static void
test_pick_misses_sla (void **state)
{
  /* SLA = median TTFT 200, TPOT 20. The prediction is optimistic for c (predicted within the
   * SLA, measured outside it) and ranks it first: its measured tokens/s/GPU beat the best row
   * meeting the SLA (b), but a pick that misses the SLA as measured fails. */
  const msperf_recommend_check_row rows[] = {
    { "g", "a", 100, 10, 100, 10, 4, 8, 100 },
    { "g", "b", 200, 20, 190, 19, 16, 8, 100 },
    { "g", "c", 300, 30, 150, 15, 32, 8, 100 },
    /* The same SLA; z is measured at 210 ms / 24 ms: 5 % over on TTFT, 20 % on TPOT. */
    { "h", "x", 100, 10, 100, 10, 4, 8, 100 },
    { "h", "y", 200, 20, 190, 19, 16, 8, 100 },
    { "h", "z", 210, 24, 150, 15, 32, 8, 100 },
  };
  g_autoptr (GArray) groups = msperf_recommend_check (rows, G_N_ELEMENTS (rows));
  const msperf_recommend_check_group *g = &g_array_index (groups, msperf_recommend_check_group, 0);
  const msperf_recommend_check_group *h = &g_array_index (groups, msperf_recommend_check_group, 1);

  (void) state;
  assert_string_equal (g->pick.id, "c");
  assert_string_equal (g->best_id, "b");
  assert_false (g->pick.meets_sla);
  assert_true (g->pick.ratio > 1.0);
  assert_true (g->judged);
  assert_false (g->pick.pass);
  /* It misses by 300 / 200 and 30 / 20: 50 % on both, TTFT named on the tie. */
  assert_float_equal (g->pick.miss.excess, 0.5, 1e-12);
  assert_string_equal (g->pick.miss.on, "TTFT");
  assert_null (g->pick.nearest_id);
  /* Under the median predicted TTFT and TPOT (150 ms, 15 ms) the order picks c too. */
  assert_string_equal (g->order.id, "c");
  assert_float_equal (g->order.miss.excess, 0.5, 1e-12);
  /* The miss is the larger of the two: TPOT's 20 %. */
  assert_string_equal (h->pick.id, "z");
  assert_float_equal (h->pick.miss.excess, 0.2, 1e-12);
  assert_string_equal (h->pick.miss.on, "TPOT");
}

static void
test_order_and_tolerance (void **state)
{
  /* Every prediction is three times the measurement: none meets the SLA (median 100 ms /
   * 10 ms), so there is no pick; at the group's median predicted TTFT and TPOT (300 / 34) the
   * order picks a (b is predicted slower), 90 % of the best measured (b): exactly the
   * tolerance, a pass. */
  const msperf_recommend_check_row rows[] = {
    { "g", "a", 100, 10, 300, 30, 9, 8, 100 },
    { "g", "b", 100, 10, 300, 34, 10, 8, 100 },
    { "g", "c", 300, 30, 900, 90, 10, 8, 100 },
  };
  g_autoptr (GArray) groups = msperf_recommend_check (rows, G_N_ELEMENTS (rows));
  const msperf_recommend_check_group *g = &g_array_index (groups, msperf_recommend_check_group, 0);

  (void) state;
  assert_null (g->pick.id);
  assert_true (isnan (g->pick.ratio));
  assert_false (g->pick.pass);
  /* Nearest to the SLA: a, predicted 300 / 100 and 30 / 10 (200 % over on both, TTFT named),
   * not b (TPOT 240 % over) or c (800 %). */
  assert_string_equal (g->pick.nearest_id, "a");
  assert_float_equal (g->pick.nearest.excess, 2.0, 1e-12);
  assert_string_equal (g->pick.nearest.on, "TTFT");
  assert_true (isnan (g->pick.miss.excess));
  /* The order pick exists, so it names no nearest row. */
  assert_null (g->order.nearest_id);
  assert_string_equal (g->best_id, "b");
  assert_float_equal (g->predicted_sla_tpot_ms, 34, 0);
  assert_string_equal (g->order.id, "a");
  assert_float_equal (g->order.ratio, 0.9, 1e-12);
  assert_true (g->order.pass);
}

static void
test_nothing_meets (void **state)
{
  /* TTFT and TPOT trade off: no row is at or below both medians (250 ms, 25 ms). No right
   * answer: the group is not judged, whatever the prediction picks. */
  const msperf_recommend_check_row rows[] = {
    { "g", "a", 100, 40, 100, 40, 4, 8, 100 },
    { "g", "b", 200, 30, 200, 30, 8, 8, 100 },
    { "g", "c", 300, 20, 300, 20, 16, 8, 100 },
    { "g", "d", 400, 10, 400, 10, 32, 8, 100 },
  };
  g_autoptr (GArray) groups = msperf_recommend_check (rows, G_N_ELEMENTS (rows));
  const msperf_recommend_check_group *g = &g_array_index (groups, msperf_recommend_check_group, 0);

  (void) state;
  assert_float_equal (g->sla_ttft_ms, 250, 0);
  assert_null (g->best_id);
  assert_false (g->judged);
  assert_false (g->pick.pass);
}

static void
test_ties (void **state)
{
  /* A configuration measured twice (the same figures): the first in row order is named. */
  const msperf_recommend_check_row rows[] = {
    { "g", "a", 100, 10, 100, 10, 8, 8, 100 },
    { "g", "a-again", 100, 10, 100, 10, 8, 8, 100 },
    { "g", "c", 300, 30, 300, 30, 16, 8, 100 },
  };
  g_autoptr (GArray) groups = msperf_recommend_check (rows, G_N_ELEMENTS (rows));
  const msperf_recommend_check_group *g = &g_array_index (groups, msperf_recommend_check_group, 0);

  (void) state;
  assert_string_equal (g->best_id, "a");
  assert_string_equal (g->pick.id, "a");
  assert_true (g->pick.pass);
}

/* What msperf_recommend_rank_print writes in format, as a string. */
static char *
printed (const msperf_recommend_rank *r, const char *format)
{
  FILE *f = tmpfile ();
  char *text = g_malloc0 (65536);
  size_t len;

  assert_non_null (f);
  msperf_recommend_rank_print (r, format, f);
  rewind (f);
  len = fread (text, 1, 65535, f);
  text[len] = '\0';
  fclose (f);
  return text;
}

static void
test_rank_rows (void **state)
{
  /* Accuracy rows: agg and disagg of one model and shape are two groups; a row the run could
   * not predict is counted, not grouped; the GPUs are the simulation's; a repeated measurement
   * (a2 again, under 64 GPUs) counts once; disagg rows without worker counts are not judged. */
  const msperf_serve_accuracy_row rows[] = {
    { "a1", "m", "vllm", "agg", 1000, 100, 4, 8, TRUE, 100, 10, 100, 10, TRUE },
    { "a2", "m", "vllm", "agg", 1000, 100, 8, 8, TRUE, 150, 12, 150, 12, TRUE },
    { "a3", "m", "vllm", "agg", 1000, 100, 16, 8, TRUE, 300, 20, 300, 20, TRUE },
    { "a2x", "m", "vllm", "agg", 1000, 100, 8, 64, TRUE, 150, 12, 140, 11, TRUE },
    { "d1", "m", "vllm", "disagg", 1000, 100, 16, 16, FALSE, 300, 20, 300, 20, TRUE },
    { "d2", "m", "vllm", "disagg", 1000, 100, 32, 16, FALSE, 400, 20, 400, 20, TRUE },
    { "d3", "m", "vllm", "disagg", 1000, 100, 64, 16, FALSE, 500, 20, 500, 20, TRUE },
    { "u", "m", "vllm", "agg", 1000, 100, 16, 0, TRUE, 300, 20, NAN, NAN, FALSE },
  };
  g_autoptr (msperf_recommend_rank) r = msperf_recommend_rank_new ();
  const GArray *groups;
  const msperf_recommend_check_group *g;
  guint judged, passed, order_passed;
  char *text;

  (void) state;
  msperf_recommend_rank_add_rows (rows, G_N_ELEMENTS (rows), r);
  groups = msperf_recommend_rank_groups (r);
  assert_int_equal (groups->len, 2);
  g = &g_array_index (groups, msperf_recommend_check_group, 0);
  assert_string_equal (g->group, "m|vllm|1000|100|agg");
  assert_int_equal (g->rows, 3);
  /* SLA 150 ms / 12 ms: a1 and a2 meet it; a2 is predicted and measured best */
  assert_string_equal (g->pick.id, "a2");
  assert_string_equal (g->best_id, "a2");
  assert_true (g->pick.pass);
  assert_float_equal (g->spearman, 1.0, 1e-12);
  g = &g_array_index (groups, msperf_recommend_check_group, 1);
  assert_string_equal (g->group, "m|vllm|1000|100|disagg");
  assert_int_equal (g->rows, 3);
  assert_true (g->gpus_unknown);
  assert_non_null (g->pick.id);
  assert_false (g->judged || g->pick.pass || g->order.pass);
  msperf_recommend_rank_counts (r, &judged, &passed, &order_passed);
  assert_int_equal (judged, 1);
  assert_int_equal (passed, 1);
  assert_int_equal (order_passed, 1);
  text = printed (r, "json");
  assert_non_null (strstr (text, "\"judged\": 1, \"passed\": 1, \"order_passed\": 1, "
                                 "\"rows_not_predicted\": 1, \"duplicates\": 1}"));
  assert_non_null (strstr (text, "\"gpus_stated\": false"));
  assert_non_null (strstr (text, "\"verdict\": \"n/a\", \"why\": \"the rows do not state"));
  g_free (text);
  text = printed (r, "csv");
  assert_non_null (strstr (text, "\nm|vllm|1000|100|agg,3,1,1,150.000,12.0000,a2,74.738,a2,"
                                 "74.738,74.738,1,1.0000,pass,"));
  g_free (text);
  text = printed (r, "table");
  assert_non_null (strstr (text, "; pick within 10 % of the best: 1; order: 1; rows not "
                                 "predicted: 1"));
  g_free (text);
}

static void
test_excess_printed (void **state)
{
  /* Group 1000: the pick (pc) misses the measured SLA (200 ms, 20 ms) by 20 % on TPOT. Group
   * 2000: every prediction is three times the measurement or more, no pick; qa is nearest,
   * predicted 200 % over on TTFT. Each output names both. */
  const msperf_serve_accuracy_row rows[] = {
    { "pa", "m", "vllm", "agg", 1000, 100, 4, 8, TRUE, 100, 10, 100, 10, TRUE },
    { "pb", "m", "vllm", "agg", 1000, 100, 16, 8, TRUE, 200, 20, 190, 19, TRUE },
    { "pc", "m", "vllm", "agg", 1000, 100, 32, 8, TRUE, 210, 24, 150, 15, TRUE },
    { "qa", "m", "vllm", "agg", 2000, 100, 9, 8, TRUE, 100, 10, 300, 30, TRUE },
    { "qb", "m", "vllm", "agg", 2000, 100, 10, 8, TRUE, 100, 10, 300, 34, TRUE },
    { "qc", "m", "vllm", "agg", 2000, 100, 10, 8, TRUE, 300, 30, 900, 90, TRUE },
  };
  g_autoptr (msperf_recommend_rank) r = msperf_recommend_rank_new ();
  char *text;

  (void) state;
  msperf_recommend_rank_add_rows (rows, G_N_ELEMENTS (rows), r);
  text = printed (r, "table");
  assert_non_null (strstr (text, "    pick:  pc (misses the measured SLA by 20.0 % on TPOT); the "
                                 "pick misses the SLA as measured\n"));
  assert_non_null (strstr (text, "    pick:  none; no row is predicted to meet the SLA "
                                 "(nearest: qa, predicted 200.0 % over on TTFT)\n"));
  g_free (text);
  text = printed (r, "csv");
  assert_non_null (strstr (text, ",order_nearest_pct,order_nearest_on\n"));
  assert_non_null (strstr (text, ",20.00,TPOT,,,,"));
  assert_non_null (strstr (text, ",,,qa,200.00,TTFT,"));
  g_free (text);
  text = printed (r, "json");
  assert_non_null (strstr (text, "\"miss\": {\"pct\": 20.00, \"on\": \"TPOT\"}, "
                                 "\"nearest\": null}"));
  assert_non_null (strstr (text, "\"miss\": null, \"nearest\": {\"id\": \"qa\", "
                                 "\"pct\": 200.00, \"on\": \"TTFT\"}}"));
  g_free (text);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_tps_gpu),
    cmocka_unit_test (test_spearman),
    cmocka_unit_test (test_groups),
    cmocka_unit_test (test_pick_misses_sla),
    cmocka_unit_test (test_order_and_tolerance),
    cmocka_unit_test (test_nothing_meets),
    cmocka_unit_test (test_ties),
    cmocka_unit_test (test_rank_rows),
    cmocka_unit_test (test_excess_printed),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
