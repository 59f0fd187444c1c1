/* Tests of core/app/recommend/recommend_check.c: the closed-loop tokens/s/GPU formula, the
 * Spearman rank correlation (against values computed by hand and scipy.stats.spearmanr), and
 * the per-group pick under the median-measured SLA. */
#include <config.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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
   * 50 % of x: a miss. */
  const msperf_recommend_check_row rows[] = {
    { "g", "a", 100, 10, 100, 10, 4, 8, 100, 0 },
    { "g", "b", 200, 20, 190, 19, 16, 8, 100, 0 },
    { "g", "c", 300, 30, 310, 31, 32, 8, 100, 0 },
    { "h", "x", 100, 10, 100, 30, 8, 8, 100, 0 },
    { "h", "y", 100, 20, 100, 10, 8, 8, 100, 0 },
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
  assert_string_equal (g->picked_id, "b");
  assert_true (g->pass && g->ratio == 1.0);
  assert_float_equal (g->spearman, 1.0, 1e-12);
  assert_string_equal (h->best_id, "x");
  assert_string_equal (h->picked_id, "y");
  assert_false (h->pass);
  assert_true (h->ratio < 0.6);
  for (guint i = 0; i < groups->len; i++)
    msperf_recommend_check_group_clear (&g_array_index (groups, msperf_recommend_check_group, i));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_tps_gpu),
    cmocka_unit_test (test_spearman),
    cmocka_unit_test (test_groups),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
