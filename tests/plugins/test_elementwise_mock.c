/* Unit tests of the "elementwise" module's lookup slot over the host mock (reference §2.6,
 * quirks Q3, Q17, Q25): no engine, no dispatch — the test builds the query and calls the slot.
 * Goldens as tests/plugins/test_elementwise.c (reference §6 "Elementwise", upstream
 * test_profiling_data_source.py) on the same fixture CSVs (tests/data/elementwise/basic);
 * the inline tables are hand-made, their expected values derived in comments. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/plugin.h>
#include "common/host_mock.h"
#include "common/test_util.h"

#define BF16 MSPERF_DTYPE_BF16
#define FP16 MSPERF_DTYPE_FLOAT16
#define FP32 MSPERF_DTYPE_FLOAT32

extern const msperf_plugin msperf_plugin_v1;

#define HEADER "Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types," \
               "Output Formats,Average Duration(us)\n"

/* The fake engine with Add, Mul and MulAiCore of the fixture database. */
static int
setup_basic (void **state)
{
  msperf_engine *e = hm_engine_new ();
  const char *kernels[] = { "Add", "Mul", "MulAiCore" };

  for (size_t k = 0; k < G_N_ELEMENTS (kernels); k++)
    {
      g_autofree char *file = g_strconcat ("elementwise/basic/", kernels[k], ".csv", NULL);
      g_autofree char *path = tu_data_path (file);
      hm_table_from_file (e, kernels[k], path);
    }
  *state = e;
  return 0;
}

static int
teardown (void **state)
{
  msperf_engine_free (*state);
  return 0;
}

/* x ⊙ y with output out (out NULL: none), as TensorCast records a binary elementwise op. */
static msperf_op *
binary (const char *name, msperf_dtype dtype, const char *shape, const char *out)
{
  msperf_op *op = tu_op (name);

  tu_op_add_tensor (op, dtype, shape);
  tu_op_add_tensor (op, dtype, shape);
  if (out)
    tu_op_add_out (op, dtype, out);
  return op;
}

/* Calls the lookup slot as dispatch would for an entry of kernels; takes op. */
static msperf_result *
lookup (msperf_engine *e, msperf_op *op, const char *const *kernels, msperf_status *status)
{
  g_autoptr (msperf_op) owned = op;
  g_autoptr (msperf_query) q = hm_query_new (e, owned, "elementwise", kernels);
  msperf_result *r = msperf_result_new ();

  *status = msperf_plugin_v1.lookup (e, NULL, q, r);
  return r;
}

static msperf_result *
lookup_hit (msperf_engine *e, msperf_op *op, const char *kernel)
{
  msperf_status status;
  msperf_result *r = lookup (e, op, (const char *const[]){ kernel, NULL }, &status);

  if (status != MSPERF_HIT)
    fail_msg ("expected a hit, got status %d (%s)", status, r->miss_reason ? r->miss_reason : "-");
  return r;
}

static void
assert_hit (const msperf_result *r, double latency, double confidence, const char *kernel)
{
  assert_int_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, latency, 1e-9);
  assert_float_equal (r->confidence, confidence, 1e-12);
  assert_string_equal (r->kernel_type, kernel);
  assert_string_equal (r->shape_match_rule, "elementwise");
  assert_string_equal (r->method, "exact");
  assert_null (r->miss_reason);
  assert_string_equal (tu_detail_string (r, "query_mode"), "elementwise");
}

static void
assert_miss (msperf_engine *e, msperf_op *op, const char *kernel, const char *reason)
{
  msperf_status status;
  g_autoptr (msperf_result) r = lookup (e, op, (const char *const[]){ kernel, NULL }, &status);

  assert_int_equal (status, MSPERF_MISS);
  assert_non_null (r->miss_reason);
  assert_string_equal (r->miss_reason, reason);
  assert_true (isnan (r->latency_us));
}

/* Golden, reference §6: Mul row 256,7168 BF16 at 10.5 µs; the row's output is the kernel
 * shape. */
static void
test_mock_same_dtype_golden_10_5 (void **state)
{
  g_autoptr (msperf_result) r
    = lookup_hit (*state, binary ("aten.mul.Tensor", BF16, "256,7168", "256,7168"), "Mul");
  const msperf_tensor *shape;

  assert_hit (r, 10.5, 1.0, "Mul");
  assert_true (isnan (tu_detail_double (r, "dtype_scale")));
  assert_int_equal (r->kernel_shapes->len, 1);
  shape = g_ptr_array_index (r->kernel_shapes, 0);
  assert_int_equal (shape->rank, 2);
  assert_int_equal (shape->dims[0], 256);
  assert_int_equal (shape->dims[1], 7168);
}

/* Golden, reference §6: an FP32 output scales the BF16 row by 4/2 → 21.0, confidence 0.9. */
static void
test_mock_fp32_scaled_golden_21_0 (void **state)
{
  g_autoptr (msperf_result) r
    = lookup_hit (*state, binary ("aten.mul.Tensor", FP32, "256,7168", "256,7168"), "Mul");

  assert_hit (r, 21.0, 0.9, "Mul");
  assert_float_equal (tu_detail_double (r, "dtype_scale"), 2.0, 1e-12);
}

/* Q25 fix: Add.csv's FLOAT 1024 row (1.5) is listed after the BF16 one (1.0) and answers an
 * fp32 output unscaled (upstream scaled the BF16 row: 2.0). */
static void
test_mock_prefers_row_with_same_output_dtype (void **state)
{
  g_autoptr (msperf_result) r
    = lookup_hit (*state, binary ("aten.add.Tensor", FP32, "1024", "1024"), "Add");

  assert_hit (r, 1.5, 1.0, "Add");
  assert_true (isnan (tu_detail_double (r, "dtype_scale")));
}

/* Q17: only the primary kernel is read — the mock's table log shows MulAiCore (which has the
 * 512x512 row) was never asked for. */
static void
test_mock_reads_primary_kernel_only (void **state)
{
  msperf_engine *e = *state;
  msperf_status status;
  g_autoptr (msperf_result) r
    = lookup (e, binary ("aten.mul.Tensor", BF16, "512,512", "512,512"),
              (const char *const[]){ "Mul", "MulAiCore", NULL }, &status);
  const GPtrArray *asked = hm_table_requests (e);

  assert_int_equal (status, MSPERF_MISS);
  assert_string_equal (r->miss_reason, "elementwise_output_shape_mismatch");
  assert_int_equal (asked->len, 1);
  assert_string_equal (g_ptr_array_index (asked, 0), "Mul");
}

/* The output is stripped (1,256,7168), flattened 3-D → 2-D (2·128 = 256) or padded (144 ≥
 * 136); inputs are ignored. */
static void
test_mock_output_strip_flatten_and_padding (void **state)
{
  g_autoptr (msperf_result) strip
    = lookup_hit (*state, binary ("aten.mul.Tensor", BF16, "7168", "1,256,7168"), "Mul");
  g_autoptr (msperf_result) flat
    = lookup_hit (*state, binary ("aten.mul.Tensor", BF16, "2,128,7168", "2,128,7168"), "Mul");
  g_autoptr (msperf_result) pad
    = lookup_hit (*state, binary ("aten.add.Tensor", BF16, "144,4096", "144,4096"), "Add");

  assert_hit (strip, 10.5, 1.0, "Mul");
  assert_hit (flat, 10.5, 1.0, "Mul");
  assert_hit (pad, 3.0, 1.0, "Add");
}

/* A 3-D output that flattens to no measured row misses (2·64 = 128 rows, none measured). */
static void
test_mock_flatten_needs_a_matching_row (void **state)
{
  assert_miss (*state, binary ("aten.mul.Tensor", BF16, "2,64,7168", "2,64,7168"), "Mul",
               "elementwise_output_shape_mismatch");
}

/* Q3: an fp16 output with only a BF16 row answers unscaled (Add 1024 BF16 = 1.0). */
static void
test_mock_fp16_uses_bf16_row_with_alias (void **state)
{
  g_autoptr (msperf_result) r
    = lookup_hit (*state, binary ("aten.add.Tensor", FP16, "1024", "1024"), "Add");

  assert_hit (r, 1.0, 1.0, "Add");
  assert_string_equal (tu_detail_string (r, "dtype_alias"), "DT_FLOAT16->DT_BF16");
  assert_true (isnan (tu_detail_double (r, "dtype_scale")));
}

/* uint8 has no scaling size: the BF16/FLOAT rows are not candidates; BOOL 2048 is not either. */
static void
test_mock_unscalable_dtypes_miss (void **state)
{
  assert_miss (*state, binary ("aten.add.Tensor", MSPERF_DTYPE_UINT8, "1024", "1024"), "Add",
               "elementwise_output_shape_mismatch");
}

static void
test_mock_missing_table_is_csv_not_found (void **state)
{
  assert_miss (*state, binary ("aten.add.Tensor", BF16, "1024", "1024"), "NoSuchKernel",
               "csv_not_found");
}

/* Without an output (or with a scalar one) the op is not this module's: FALLBACK, before any
 * table is read (reference §2.6 step 1; the engine then asks fallback_mode "compute"). */
static void
test_mock_without_output_is_fallback (void **state)
{
  msperf_engine *e = *state;
  msperf_status status;
  msperf_op *scalar = binary ("aten.mul.Tensor", BF16, "256,7168", NULL);
  g_autoptr (msperf_result) none
    = lookup (e, binary ("aten.mul.Tensor", BF16, "256,7168", NULL),
              (const char *const[]){ "Mul", NULL }, &status);
  g_autoptr (msperf_result) r0 = NULL;

  assert_int_equal (status, MSPERF_FALLBACK);
  tu_op_add_out (scalar, BF16, "");
  r0 = lookup (e, scalar, (const char *const[]){ "Mul", NULL }, &status);
  assert_int_equal (status, MSPERF_FALLBACK);
  assert_int_equal (hm_table_requests (e)->len, 0);
  assert_string_equal (msperf_plugin_v1.fallback_mode, "compute");
}

static void
test_mock_no_kernel_type_misses (void **state)
{
  msperf_status status;
  g_autoptr (msperf_result) r
    = lookup (*state, binary ("aten.mul.Tensor", BF16, "256,7168", "256,7168"), NULL, &status);

  assert_int_equal (status, MSPERF_MISS);
  assert_string_equal (r->miss_reason, "no_kernel_type");
}

/* Inline table: int64 scales a BF16 row by 8/2 = 4 (2.0 → 8.0); the row with a blank latency
 * is skipped although it has the query's dtype; int8 takes the first scalable row (the BF16
 * one: 1/2 → 1.0); a two-output row reports both kernel shapes. */
static void
test_mock_inline_table_scaling_and_invalid_rows (void **state)
{
  static const char csv[] = HEADER
    "\"64;64\",INT64;INT64,ND;ND,\"64\",INT64,ND,\n"
    "\"64;64\",DT_BF16;DT_BF16,ND;ND,\"64\",DT_BF16,ND,2.0\n"
    "\"64;64\",FLOAT;FLOAT,ND;ND,\"64\",FLOAT,ND,3.0\n"
    "\"8;8\",DT_BF16;DT_BF16,ND;ND,\"8;8\",DT_BF16;DT_BF16,ND;ND,0.75\n";
  msperf_engine *e = *state;
  g_autoptr (msperf_result) i64 = NULL;
  g_autoptr (msperf_result) i8 = NULL;
  g_autoptr (msperf_result) two = NULL;

  hm_table_from_csv (e, "Inline", csv);
  i64 = lookup_hit (e, binary ("aten.add.Tensor", MSPERF_DTYPE_INT64, "64", "64"), "Inline");
  i8 = lookup_hit (e, binary ("aten.add.Tensor", MSPERF_DTYPE_INT8, "64", "64"), "Inline");
  two = lookup_hit (e, binary ("aten.add.Tensor", BF16, "8", "8"), "Inline");
  assert_hit (i64, 8.0, 0.9, "Inline");
  assert_float_equal (tu_detail_double (i64, "dtype_scale"), 4.0, 1e-12);
  assert_hit (i8, 1.0, 0.9, "Inline");
  assert_float_equal (tu_detail_double (i8, "dtype_scale"), 0.5, 1e-12);
  assert_hit (two, 0.75, 1.0, "Inline");
  assert_int_equal (two->kernel_shapes->len, 2);
}

#define T(t) cmocka_unit_test_setup_teardown (t, setup_basic, teardown)

int
main (void)
{
  const struct CMUnitTest tests[] = {
    T (test_mock_same_dtype_golden_10_5),
    T (test_mock_fp32_scaled_golden_21_0),
    T (test_mock_prefers_row_with_same_output_dtype),
    T (test_mock_reads_primary_kernel_only),
    T (test_mock_output_strip_flatten_and_padding),
    T (test_mock_flatten_needs_a_matching_row),
    T (test_mock_fp16_uses_bf16_row_with_alias),
    T (test_mock_unscalable_dtypes_miss),
    T (test_mock_missing_table_is_csv_not_found),
    T (test_mock_without_output_is_fallback),
    T (test_mock_no_kernel_type_misses),
    T (test_mock_inline_table_scaling_and_invalid_rows),
  };
  return cmocka_run_group_tests_name ("elementwise_mock", tests, NULL, NULL);
}
