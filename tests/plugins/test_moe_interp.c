/* Tests of moe_fused interpolation along tokens (plugins/moe_fused/moe_axes.c) on the fixture
 * tests/data/moe/interp: the token axis, EP size and top-k as exact fields, the refusal of
 * entries with embedded terms and the opt-in through interpolation.modes. Expected latencies
 * are linear interpolations between the two bracketing fixture rows, worked out next to each
 * test. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include "common/test_util.h"

#define BF16 MSPERF_DTYPE_BF16
#define I8 MSPERF_DTYPE_INT8
#define I32 MSPERF_DTYPE_INT32

static msperf_engine *
engine (const char *ep, gboolean opt_in)
{
  const char *ov[] = { "parallel.ep_size", ep,
                       "interpolation.modes", "[compute, attention_special, moe_fused]", NULL };

  if (!opt_in)
    ov[2] = NULL;
  return tu_engine_new ("moe/interp", ov);
}

/* A DispatchFFNCombine op (gmm2 at args[7]): x (1,tokens,256) bf16, expert_idx (tokens,topk),
 * 4 experts of gmm1 (512,256) and gmm2 (128,256) int8, a group of 8 ranks. */
static msperf_op *
dfc (const char *name, int tokens, int topk)
{
  msperf_op *op = tu_op (name);
  g_autofree char *x = g_strdup_printf ("1,%d,256", tokens);
  g_autofree char *idx = g_strdup_printf ("%d,%d", tokens, topk);

  tu_op_add_tensor (op, BF16, x);
  tu_op_add_tensor (op, I32, idx);
  tu_op_add_tensor_list (op, 4, I8, "512,256");
  tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_tensor_list (op, 4, I8, "128,256");
  tu_op_add_int_list (op, 8, 0, 1);
  return op;
}

#define FP8 "tensor_cast.dispatch_ffn_combine_fp8.default"
#define QUANT "tensor_cast.dispatch_ffn_combine_quant.default"

static void
assert_interpolated (const msperf_result *r, double latency)
{
  if (r->source != MSPERF_SOURCE_INTERPOLATED)
    fail_msg ("expected INTERPOLATED, got %s (reason %s)", msperf_source_name (r->source),
              r->miss_reason ? r->miss_reason : "-");
  assert_float_equal (r->latency_us, latency, 1e-9);
  assert_string_equal (r->kernel_type, "DispatchFFNCombine");
  assert_string_equal (r->method, "linear_1d");
  assert_string_equal (tu_detail_string (r, "query_mode"), "moe_fused");
  assert_string_equal (tu_detail_string (r, "base_reason"), "shape_mismatch");
}

static void
assert_miss (const msperf_result *r, const char *reason)
{
  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  assert_non_null (r->miss_reason);
  assert_string_equal (r->miss_reason, reason);
}

/* 120 tokens, EP 8, top-k 8: between 64 (100) and 256 (220): 100 + 120·56/192 = 135; the
 * exact fields are in the details. */
static void
test_tokens_axis_ep8 (void **state)
{
  g_autoptr (msperf_engine) e = engine ("8", TRUE);
  g_autoptr (msperf_result) r = tu_run (e, dfc (FP8, 120, 8));
  const msperf_value *exact;

  (void) state;
  assert_interpolated (r, 135.0);
  exact = msperf_value_lookup (msperf_result_details (r), "exact_fields");
  assert_non_null (exact);
  assert_int_equal (msperf_value_lookup (exact, "ep_size")->i, 8);
  assert_int_equal (msperf_value_lookup (exact, "topk")->i, 8);
  assert_non_null (strstr (tu_detail_string (r, "regime"), "[T,256]:DT_BF16;[4,256,512]:INT8"));
}

/* EP 16 uses its own rows: 60 + 60·56/192 = 77.5; EP 4 has none. */
static void
test_ep_size_is_exact (void **state)
{
  g_autoptr (msperf_engine) e16 = engine ("16", TRUE);
  g_autoptr (msperf_engine) e4 = engine ("4", TRUE);
  g_autoptr (msperf_result) r16 = tu_run (e16, dfc (FP8, 120, 8));
  g_autoptr (msperf_result) r4 = tu_run (e4, dfc (FP8, 120, 8));

  (void) state;
  assert_interpolated (r16, 77.5);
  assert_miss (r4, "wrapper_interpolation_failed");
}

/* Top-k 4 is another regime: between 64 (90) and 512 (300): 90 + 210·56/448 = 116.25. */
static void
test_topk_is_exact (void **state)
{
  g_autoptr (msperf_engine) e = engine ("8", TRUE);
  g_autoptr (msperf_result) r = tu_run (e, dfc (FP8, 120, 4));
  g_autoptr (msperf_result) out = tu_run (e, dfc (FP8, 400, 8));

  (void) state;
  assert_interpolated (r, 116.25);
  /* 400 tokens with top-k 8: beyond the top-k 8 rows (256), even though top-k 4 has 512 */
  assert_miss (out, "wrapper_interpolation_failed");
}

/* An exact row still answers exactly. */
static void
test_exact_row_unchanged (void **state)
{
  g_autoptr (msperf_engine) e = engine ("8", TRUE);
  g_autoptr (msperf_result) r = tu_run (e, dfc (FP8, 64, 8));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 100.0, 1e-12);
}

/* An entry with embedded parts is not interpolated (the stage would drop them). */
static void
test_embedded_parts_not_interpolated (void **state)
{
  g_autoptr (msperf_engine) e = engine ("8", TRUE);
  g_autoptr (msperf_result) r = tu_run (e, dfc (QUANT, 120, 8));

  (void) state;
  assert_miss (r, "moe_target_unavailable");
  assert_string_equal (tu_detail_string (r, "base_reason"), "shape_mismatch");
}

/* Without EP size configured the exact miss is a configuration error: no target. */
static void
test_ep_not_configured (void **state)
{
  const char *ov[] = { "interpolation.modes", "[moe_fused]", NULL };
  g_autoptr (msperf_engine) e = tu_engine_new ("moe/interp", ov);
  g_autoptr (msperf_result) r = tu_run (e, dfc (FP8, 120, 8));

  (void) state;
  assert_miss (r, "moe_target_unavailable");
  assert_string_equal (tu_detail_string (r, "base_reason"), "ep_size_not_configured");
}

/* Opt-in: by default the exact miss stands. */
static void
test_default_policy_exact_only (void **state)
{
  g_autoptr (msperf_engine) e = engine ("8", FALSE);
  g_autoptr (msperf_result) r = tu_run (e, dfc (FP8, 120, 8));

  (void) state;
  assert_miss (r, "shape_mismatch");
  assert_null (tu_detail_string (r, "interpolation_reason"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_tokens_axis_ep8),
    cmocka_unit_test (test_ep_size_is_exact),
    cmocka_unit_test (test_topk_is_exact),
    cmocka_unit_test (test_exact_row_unchanged),
    cmocka_unit_test (test_embedded_parts_not_interpolated),
    cmocka_unit_test (test_ep_not_configured),
    cmocka_unit_test (test_default_policy_exact_only),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
