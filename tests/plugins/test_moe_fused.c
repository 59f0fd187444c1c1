/* Tests of the "moe_fused" module through the engine (reference §1.6, §2.7, §2.12) on the
 * fixture database tests/data/moe: the project_full_shape projection, the EP Size filter,
 * the compute sub-query path of CSVs without EP Size, embedded compute (AddRmsNormBias, Cast)
 * and embedded communication (routed input over the expert-parallel group), PARTIAL and the
 * policy failure reasons. Every expected latency is the sum of fixture rows named in the
 * test's comment. */
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

/* Fixture row latencies (tests/data/moe). */
#define DFC_EP8 300.0
#define DFC_EP16 150.0
#define DFC_EP4 400.0
#define DFC_NO_EP 80.0
#define ADD_RMS_NORM_BIAS 12.5
#define CAST_TO_FLOAT 3.25

static msperf_engine *
engine_ep (const char *ep)
{
  const char *overrides[] = { "parallel.ep_size", ep, NULL };

  return tu_engine_new ("moe", ep ? overrides : NULL);
}

/* A DispatchFFNCombine op with the upstream argument layout: x (1,120,256) bf16,
 * expert_idx (120,8), gmm1 = 4 expert weights (512,256) (stored hidden-last: the projection
 * turns them to (4,256,512)), gmm2 = 4 expert weights (128,256) at args[4] for the plain op and
 * args[7] for the quant variants, the expert-parallel rank group last. */
static msperf_op *
dfc (const char *name, msperf_dtype weight_dtype, int group)
{
  msperf_op *op = tu_op (name);
  gboolean plain = strcmp (name, "tensor_cast.dispatch_ffn_combine.default") == 0;

  tu_op_add_tensor (op, BF16, "1,120,256");
  tu_op_add_tensor (op, I32, "120,8");
  tu_op_add_tensor_list (op, 4, weight_dtype, "512,256");
  tu_op_add_none (op);
  if (plain)
    tu_op_add_tensor_list (op, 4, weight_dtype, "128,256");
  else
    tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_none (op);
  if (!plain)
    tu_op_add_tensor_list (op, 4, weight_dtype, "128,256");
  tu_op_add_int_list (op, group, 0, 1);
  return op;
}

static void
assert_miss (const msperf_result *r, const char *reason)
{
  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  assert_non_null (r->miss_reason);
  assert_string_equal (r->miss_reason, reason);
}

static void
assert_dims (const msperf_tensor *t, int rank, const int64_t *dims)
{
  assert_int_equal (t->rank, rank);
  for (int d = 0; d < rank; d++)
    assert_int_equal (t->dims[d], dims[d]);
}

/* Reference §2.7 step 3: the projected seven inputs match the physical row exactly; the rule
 * `identity` is reported as `projected_full_shape`. The CSV has no EP Size column, so the
 * compute sub-query path answers and no EP size is needed (row 2 of DispatchFFNCombineNoEp). */
static void
test_moe_projected_shapes_hit_without_ep_column (void **state)
{
  g_autoptr (msperf_engine) e = engine_ep (NULL);
  g_autoptr (msperf_result) r = tu_run (e, dfc ("tensor_cast.dispatch_ffn_combine.default", BF16, 4));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, DFC_NO_EP, 1e-9);
  assert_float_equal (r->confidence, 1.0, 1e-12);
  assert_string_equal (r->kernel_type, "DispatchFFNCombineNoEp");
  assert_string_equal (r->shape_match_rule, "projected_full_shape");
  assert_string_equal (tu_detail_string (r, "query_mode"), "moe_fused");
  assert_int_equal (r->kernel_shapes->len, 7);
  assert_dims (g_ptr_array_index (r->kernel_shapes, 1), 3, (const int64_t[]) { 4, 256, 512 });
  assert_dims (g_ptr_array_index (r->kernel_shapes, 2), 3, (const int64_t[]) { 4, 128, 256 });
  assert_dims (g_ptr_array_index (r->kernel_shapes, 4), 1, (const int64_t[]) { 2048 });
  assert_dims (g_ptr_array_index (r->kernel_shapes, 5), 1, (const int64_t[]) { 1024 });
}

/* §1.6 / §2.7 step 4: with EP Size the configured ep_size selects the row, first match wins
 * (the later EP-16 row at 777.0 is never used; the blank-EP row is skipped). */
static void
test_moe_ep_size_selects_row (void **state)
{
  g_autoptr (msperf_engine) e16 = engine_ep ("16");
  g_autoptr (msperf_engine) e8 = engine_ep ("8");
  g_autoptr (msperf_result) r16
    = tu_run (e16, dfc ("tensor_cast.dispatch_ffn_combine_fp8.default", I8, 16));
  g_autoptr (msperf_result) r8 = tu_run (e8, dfc ("tensor_cast.dispatch_ffn_combine_fp8.default", I8, 8));
  int64_t ep = 0;

  (void) state;
  tu_assert_source (r16, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r16->latency_us, DFC_EP16, 1e-9);
  assert_float_equal (r16->confidence, 1.0, 1e-12);
  assert_string_equal (r16->shape_match_rule, "projected_full_shape");
  assert_true (msperf_value_get_int (msperf_value_lookup (msperf_result_details (r16), "ep_size"), &ep));
  assert_int_equal (ep, 16);
  assert_float_equal (r8->latency_us, DFC_EP8, 1e-9);
}

static void
test_moe_ep_size_mismatch_misses (void **state)
{
  g_autoptr (msperf_engine) e = engine_ep ("32");
  g_autoptr (msperf_result) r = tu_run (e, dfc ("tensor_cast.dispatch_ffn_combine_fp8.default", I8, 32));

  (void) state;
  assert_miss (r, "shape_mismatch");
}

/* §2.7 step 2: a CSV with EP Size and no configured ep_size. */
static void
test_moe_ep_size_not_configured (void **state)
{
  g_autoptr (msperf_engine) e = engine_ep (NULL);
  g_autoptr (msperf_result) r = tu_run (e, dfc ("tensor_cast.dispatch_ffn_combine_fp8.default", I8, 16));

  (void) state;
  assert_miss (r, "ep_size_not_configured");
}

/* Weights in another dtype than the measured INT8 do not match (exact dtypes). */
static void
test_moe_weight_dtype_must_match (void **state)
{
  g_autoptr (msperf_engine) e = engine_ep ("16");
  g_autoptr (msperf_result) r = tu_run (e, dfc ("tensor_cast.dispatch_ffn_combine_fp8.default", BF16, 16));

  (void) state;
  assert_miss (r, "shape_mismatch");
}

/* Without project_full_shape: tc_input_count 1 keeps x (1,120,256) against slot 0 (120,256)
 * → batch_strip, the first matching row of DispatchFFNCombineNoEp (80.0). */
static void
test_moe_without_projection_uses_tc_input_count (void **state)
{
  g_autoptr (msperf_engine) e = engine_ep (NULL);
  msperf_op *op = tu_op ("test.moe_raw.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "1,120,256");
  tu_op_add_tensor (op, I32, "120,8");
  r = tu_run (e, op);
  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, DFC_NO_EP, 1e-9);
  assert_string_equal (r->shape_match_rule, "batch_strip");
}

static void
test_moe_missing_csv (void **state)
{
  g_autoptr (msperf_engine) e = engine_ep ("16");
  msperf_op *op = dfc ("tensor_cast.dispatch_ffn_combine_fp8.default", I8, 16);
  g_autoptr (msperf_result) r = NULL;

  g_free (op->name);
  op->name = g_strdup ("test.moe_missing.default");
  r = tu_run (e, op);
  (void) state;
  assert_miss (r, "csv_not_found");
}

/* §2.7 steps 5–7, interpolated communication: DFC EP 16 (150.0) + AddRmsNormBias on
 * [(120,256),(120,256),(256,),(256,)] (12.5) + the Cast row with FLOAT output (3.25, not the
 * BF16-output row 9.0) + hcom_alltoall_ at 120·256·2·8 = 491520 B over 16 devices, between
 * 262144 (100.0) and 524288 (180.0): 170.0 → 335.75, INTERPOLATED, confidence 0.8. */
static void
test_moe_embedded_parts_with_interpolated_communication (void **state)
{
  g_autoptr (msperf_engine) e = engine_ep ("16");
  g_autoptr (msperf_result) r
    = tu_run (e, dfc ("tensor_cast.dispatch_ffn_combine_quant.default", I8, 16));
  const msperf_value *comm, *durs;
  int64_t mb = 0;

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (r->latency_us, DFC_EP16 + ADD_RMS_NORM_BIAS + CAST_TO_FLOAT + 170.0, 1e-9);
  assert_float_equal (r->confidence, 0.8, 1e-12);
  assert_string_equal (r->kernel_type, "DispatchFFNCombine");
  comm = msperf_value_lookup (msperf_result_details (r), "embedded_communication");
  assert_non_null (comm);
  assert_true (msperf_value_get_int (msperf_value_lookup (comm, "message_bytes"), &mb));
  assert_int_equal (mb, 491520);
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (comm, "kernel_type")),
                       "hcom_alltoall_");
  durs = msperf_value_lookup (msperf_result_details (r), "sub_kernel_durations");
  assert_non_null (durs);
  assert_int_equal (durs->items->len, 4);
}

/* Measured communication: EP 8 row (300.0) + 12.5 + 3.25 + the exact 491520 B / 8 devices row
 * (120.0) → 435.75, MEASURED, confidence 0.9. */
static void
test_moe_embedded_parts_with_measured_communication (void **state)
{
  g_autoptr (msperf_engine) e = engine_ep ("8");
  g_autoptr (msperf_result) r = tu_run (e, dfc ("tensor_cast.dispatch_ffn_combine_quant.default", I8, 8));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, DFC_EP8 + ADD_RMS_NORM_BIAS + CAST_TO_FLOAT + 120.0, 1e-9);
  assert_float_equal (r->confidence, 0.9, 1e-12);
}

/* Out of the measured message range (4 devices measured up to 2048 B): the compute part only,
 * embedded_communication_active false, confidence 1.0. */
static void
test_moe_out_of_range_communication_keeps_compute_only (void **state)
{
  g_autoptr (msperf_engine) e = engine_ep ("4");
  g_autoptr (msperf_result) r = tu_run (e, dfc ("tensor_cast.dispatch_ffn_combine_quant.default", I8, 4));
  const msperf_value *active;

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, DFC_EP4 + ADD_RMS_NORM_BIAS + CAST_TO_FLOAT, 1e-9);
  assert_float_equal (r->confidence, 1.0, 1e-12);
  active = msperf_value_lookup (msperf_result_details (r), "embedded_communication_active");
  assert_non_null (active);
  assert_int_equal (active->kind, MSPERF_VALUE_BOOL);
  assert_false (active->b);
}

/* Any other communication failure (here csv_format_raw) makes the result PARTIAL, 0.5, with
 * the communication kernel in missed_kernels (metrics report partial:hcom_broken_). */
static void
test_moe_failed_communication_is_partial (void **state)
{
  g_autoptr (msperf_engine) e = engine_ep ("16");
  g_autoptr (msperf_result) r
    = tu_run (e, dfc ("tensor_cast.dispatch_ffn_combine_quant_int4.default", I8, 16));
  const msperf_value *missed;

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_PARTIAL);
  assert_float_equal (r->latency_us, DFC_EP16, 1e-9);
  assert_float_equal (r->confidence, 0.5, 1e-12);
  missed = msperf_value_lookup (msperf_result_details (r), "missed_kernels");
  assert_non_null (missed);
  assert_int_equal (missed->items->len, 1);
  assert_string_equal (msperf_value_get_string (g_ptr_array_index (missed->items, 0)),
                       "hcom_broken_");
  assert_string_equal (tu_detail_string (r, "communication_miss_reason"), "csv_format_raw");
}

/* The expert-parallel group must have ep_size ranks. */
static void
test_moe_group_size_other_than_ep_is_context_mismatch (void **state)
{
  g_autoptr (msperf_engine) e = engine_ep ("16");
  g_autoptr (msperf_result) r = tu_run (e, dfc ("tensor_cast.dispatch_ffn_combine_quant.default", I8, 8));

  (void) state;
  assert_miss (r, "moe_embedded_communication_context_mismatch");
}

static void
test_moe_non_hcom_embedded_kernel_is_invalid (void **state)
{
  g_autoptr (msperf_engine) e = engine_ep ("16");
  g_autoptr (msperf_result) r
    = tu_run (e, dfc ("tensor_cast.dispatch_ffn_combine_mxfp4.default", I8, 16));

  (void) state;
  assert_miss (r, "invalid_moe_embedded_communication");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_moe_projected_shapes_hit_without_ep_column),
    cmocka_unit_test (test_moe_ep_size_selects_row),
    cmocka_unit_test (test_moe_ep_size_mismatch_misses),
    cmocka_unit_test (test_moe_ep_size_not_configured),
    cmocka_unit_test (test_moe_weight_dtype_must_match),
    cmocka_unit_test (test_moe_without_projection_uses_tc_input_count),
    cmocka_unit_test (test_moe_missing_csv),
    cmocka_unit_test (test_moe_embedded_parts_with_interpolated_communication),
    cmocka_unit_test (test_moe_embedded_parts_with_measured_communication),
    cmocka_unit_test (test_moe_out_of_range_communication_keeps_compute_only),
    cmocka_unit_test (test_moe_failed_communication_is_partial),
    cmocka_unit_test (test_moe_group_size_other_than_ep_is_context_mismatch),
    cmocka_unit_test (test_moe_non_hcom_embedded_kernel_is_invalid),
  };

  return cmocka_run_group_tests_name ("moe_fused", tests, NULL, NULL);
}
