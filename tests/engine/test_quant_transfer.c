/* The quant-transfer stage (core/engine/quant_transfer.c) on tests/data/field_table: a fused MoE
 * of int4 weight-only experts, which the table lacks, is answered from its fp8 rows of the same
 * shape and split (the first declared stand-in has no rows), times the ratio of the two ops'
 * rooflines; a value without stand-ins, or a stand-in the table lacks too, stays analytic. */
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

/* A fused MoE of 8 experts, top-2, hidden 64, intermediate 16 on moe_tp 1 × moe_ep ep, T
 * tokens, its weights of dtype w and its quant kwarg quant. */
static msperf_op *
moe (int64_t tokens, int64_t ep, msperf_dtype x, msperf_dtype w, const char *quant)
{
  msperf_op *op = tu_op ("tensor_cast.fused_moe.default");
  g_autofree char *xs = g_strdup_printf ("%" G_GINT64_FORMAT ",64", tokens);
  g_autofree char *w13 = g_strdup_printf ("%" G_GINT64_FORMAT ",32,64", 8 / ep);
  g_autofree char *w2 = g_strdup_printf ("%" G_GINT64_FORMAT ",64,16", 8 / ep);
  g_autofree char *ids = g_strdup_printf ("%" G_GINT64_FORMAT ",2", tokens);

  tu_op_add_tensor (op, x, xs);
  tu_op_add_tensor (op, w, w13);
  tu_op_add_tensor (op, w, w2);
  tu_op_add_tensor (op, MSPERF_DTYPE_INT32, ids);
  tu_op_add_out (op, MSPERF_DTYPE_BF16, xs);
  msperf_value_map_set (op->kwargs, "num_experts", msperf_value_new_int (8));
  msperf_value_map_set (op->kwargs, "moe_tp", msperf_value_new_int (1));
  msperf_value_map_set (op->kwargs, "moe_ep", msperf_value_new_int (ep));
  msperf_value_map_set (op->kwargs, "topk", msperf_value_new_int (2));
  msperf_value_map_set (op->kwargs, "quant", msperf_value_new_string (quant));
  return op;
}

static msperf_op *
int4 (int64_t tokens, int64_t ep)
{
  return moe (tokens, ep, MSPERF_DTYPE_BF16, MSPERF_DTYPE_INT4, "int4_wo");
}

/* The int4 op of T tokens on EP 2 must be the fp8 rows' answer ref_us (of source ref_source)
 * times the ratio of its roofline to the fp8 op's. */
static void
assert_transferred (msperf_engine *e, int64_t tokens, const char *ref_source, double ref_us)
{
  g_autoptr (msperf_op) q = int4 (tokens, 2);
  g_autoptr (msperf_op) ref = moe (tokens, 2, MSPERF_DTYPE_FP8_E4M3, MSPERF_DTYPE_FP8_E4M3,
                                   "fp8");
  double ratio = msperf_engine_analytic_latency (e, q) / msperf_engine_analytic_latency (e, ref);
  msperf_result *r = tu_run (e, int4 (tokens, 2));

  tu_assert_transfer (r, "quant_transfer", "quant_from", "quant=fp8", ref_source, ref_us, ratio);
  msperf_result_free (r);
}

static void
test_measured_reference (void **state)
{
  /* the fp8 (1, 2) row at 8 tokens measures 20 µs */
  assert_transferred (*state, 8, "MEASURED", 20.0);
}

static void
test_interpolated_reference (void **state)
{
  /* the fp8 (1, 2) rows at 8 and 16 tokens measure 20 and 40 µs: 30 between them */
  assert_transferred (*state, 12, "INTERPOLATED", 30.0);
}

static void
test_bf16_compute_is_slower (void **state)
{
  msperf_engine *e = *state;
  /* At a compute-bound size the int4 op's FLOPs run at the bf16 rate, the fp8 op's at twice
   * that: the int4 answer is above its reference. */
  g_autoptr (msperf_op) q = int4 (65536, 2);
  g_autoptr (msperf_op) ref = moe (65536, 2, MSPERF_DTYPE_FP8_E4M3, MSPERF_DTYPE_FP8_E4M3,
                                   "fp8");

  assert_true (msperf_engine_analytic_latency (e, q) > msperf_engine_analytic_latency (e, ref));
}

static void
test_unlisted_value_stays_analytic (void **state)
{
  msperf_engine *e = *state;
  /* bf16 experts have no stand-in; int4 over 4 ranks has an fp8 stand-in without rows */
  msperf_result *a = tu_run (e, moe (8, 2, MSPERF_DTYPE_BF16, MSPERF_DTYPE_BF16, "bf16"));
  msperf_result *b = tu_run (e, int4 (8, 4));

  tu_assert_source (a, MSPERF_SOURCE_ANALYTIC);
  tu_assert_source (b, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (b->miss_reason, "regime_key_unmatched");
  msperf_result_free (a);
  msperf_result_free (b);
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
    cmocka_unit_test (test_measured_reference),
    cmocka_unit_test (test_interpolated_reference),
    cmocka_unit_test (test_bf16_compute_is_slower),
    cmocka_unit_test (test_unlisted_value_stays_analytic),
  };

  return cmocka_run_group_tests (tests, setup, tu_teardown_engine);
}
