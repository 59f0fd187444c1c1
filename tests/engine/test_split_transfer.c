/* The split-transfer stage (core/engine/split_transfer.c) on tests/data/field_table: a fused MoE
 * whose moe_tp × moe_ep split the table lacks is answered from the measured split of the same
 * ranks, times the ratio of the two ops' rooflines; nothing else changes. */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include <msperf/engine.h>
#include "common/test_util.h"

/* A fused MoE of 8 experts, top-2, hidden 64, intermediate 16 over tp × ep ranks, T tokens. */
static msperf_op *
moe (int64_t tokens, int64_t tp, int64_t ep)
{
  msperf_op *op = tu_op ("tensor_cast.fused_moe.default");
  g_autofree char *x = g_strdup_printf ("%" G_GINT64_FORMAT ",64", tokens);
  g_autofree char *w13 = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",64",
                                          8 / ep, 32 / tp);
  g_autofree char *w2 = g_strdup_printf ("%" G_GINT64_FORMAT ",64,%" G_GINT64_FORMAT, 8 / ep,
                                         16 / tp);
  g_autofree char *ids = g_strdup_printf ("%" G_GINT64_FORMAT ",2", tokens);

  tu_op_add_tensor (op, MSPERF_DTYPE_BF16, x);
  tu_op_add_tensor (op, MSPERF_DTYPE_FP8_E4M3, w13);
  tu_op_add_tensor (op, MSPERF_DTYPE_FP8_E4M3, w2);
  tu_op_add_tensor (op, MSPERF_DTYPE_INT32, ids);
  tu_op_add_out (op, MSPERF_DTYPE_BF16, x);
  msperf_value_map_set (op->kwargs, "num_experts", msperf_value_new_int (8));
  msperf_value_map_set (op->kwargs, "moe_tp", msperf_value_new_int (tp));
  msperf_value_map_set (op->kwargs, "moe_ep", msperf_value_new_int (ep));
  msperf_value_map_set (op->kwargs, "topk", msperf_value_new_int (2));
  msperf_value_map_set (op->kwargs, "quant", msperf_value_new_string ("fp8"));
  return op;
}

/* The roofline ratio the stage scales by: op's roofline over its reference's. */
static double
roofline_ratio (msperf_engine *e, int64_t tokens, int64_t tp, int64_t ep, int64_t ref_tp,
                int64_t ref_ep)
{
  g_autoptr (msperf_op) q = moe (tokens, tp, ep);
  g_autoptr (msperf_op) ref = moe (tokens, ref_tp, ref_ep);

  return msperf_engine_analytic_latency (e, q) / msperf_engine_analytic_latency (e, ref);
}

/* The op of T tokens on TP 2 must be the (1, 2) rows' answer ref_us (of source ref_source)
 * times the roofline ratio. */
static void
assert_transferred (msperf_engine *e, int64_t tokens, const char *ref_source, double ref_us)
{
  msperf_result *r = tu_run (e, moe (tokens, 2, 1));

  tu_assert_transfer (r, "split_transfer", "split_from", "moe_tp=1, moe_ep=2", ref_source,
                      ref_us, roofline_ratio (e, tokens, 2, 1, 1, 2));
  msperf_result_free (r);
}

static void
test_measured_split_answers (void **state)
{
  /* the (1, 2) row at 8 tokens measures 20 µs */
  assert_transferred (*state, 8, "MEASURED", 20.0);
}

static void
test_interpolated_reference (void **state)
{
  /* the (1, 2) rows at 8 and 16 tokens measure 20 and 40 µs: 30 between them */
  assert_transferred (*state, 12, "INTERPOLATED", 30.0);
}

static void
test_no_measured_split_stays_analytic (void **state)
{
  msperf_engine *e = *state;
  /* 4 ranks: (1, 4), (4, 1) are not in the table either */
  msperf_result *r = tu_run (e, moe (8, 2, 2));

  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (r->miss_reason, "regime_key_unmatched");
  msperf_result_free (r);
}

static void
test_hostile_rank_counts_stay_analytic (void **state)
{
  msperf_engine *e = *state;
  msperf_op *op = moe (8, 2, 1);
  msperf_result *r;

  /* past the rank bound: no factoring search at all (it would take 10^18 steps) */
  msperf_value_map_set (op->kwargs, "moe_ep", msperf_value_new_int (INT64_C (1) << 60));
  r = tu_run (e, op);
  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  msperf_result_free (r);
}

static int
setup (void **state)
{
  *state = tu_engine_new ("field_table", NULL);
  return 0;
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_measured_split_answers),
    cmocka_unit_test (test_interpolated_reference),
    cmocka_unit_test (test_no_measured_split_stays_analytic),
    cmocka_unit_test (test_hostile_rank_counts_stay_analytic),
  };

  return cmocka_run_group_tests (tests, setup, tu_teardown_engine);
}
