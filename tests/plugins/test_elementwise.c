/* Tests of the "elementwise" module through the engine (reference §2.6, quirks Q17, Q25):
 * fixture tests/data/elementwise/basic and the self-lookup of every Add, Mul and Silu row of
 * the sample H200 database. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "common/test_util.h"

#define BF16 MSPERF_DTYPE_BF16
#define FP16 MSPERF_DTYPE_FLOAT16
#define FP32 MSPERF_DTYPE_FLOAT32

static int
setup_basic (void **state)
{
  *state = tu_engine_new ("elementwise/basic", NULL);
  return 0;
}

/* A binary elementwise op x ⊙ y with output out, as TensorCast records it. */
static msperf_op *
binary (const char *name, msperf_dtype dtype, const char *shape, msperf_dtype out_dtype,
        const char *out)
{
  msperf_op *op = tu_op (name);

  tu_op_add_tensor (op, dtype, shape);
  tu_op_add_tensor (op, dtype, shape);
  if (out)
    tu_op_add_out (op, out_dtype, out);
  return op;
}

static void
assert_elementwise_hit (const msperf_result *r, double latency, double confidence,
                        const char *kernel)
{
  if (r->source != MSPERF_SOURCE_MEASURED)
    fail_msg ("expected a MEASURED hit, got %s (base reason %s)", msperf_source_name (r->source),
              tu_detail_string (r, "base_reason") ? tu_detail_string (r, "base_reason") : "-");
  assert_float_equal (r->latency_us, latency, 1e-9);
  assert_float_equal (r->confidence, confidence, 1e-12);
  assert_string_equal (r->kernel_type, kernel);
  assert_string_equal (r->shape_match_rule, "elementwise");
  assert_string_equal (tu_detail_string (r, "query_mode"), "elementwise");
  assert_string_equal (tu_detail_string (r, "kernel_type"), kernel);
}

/* Golden: reference §6 "Elementwise" (upstream test_profiling_data_source.py): Mul row
 * 256,7168 BF16 at 10.5 µs. */
static void
test_elementwise_same_dtype_golden_10_5 (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, binary ("aten.mul.Tensor", BF16, "256,7168", BF16,
                                                     "256,7168"));

  assert_elementwise_hit (r, 10.5, 1.0, "Mul");
  assert_true (isnan (tu_detail_double (r, "dtype_scale")));
}

/* Golden: reference §6: an FP32 output scales the BF16 row by 4/2 → 21.0, confidence 0.9,
 * dtype_scale 2.0. */
static void
test_elementwise_fp32_scaled_golden_21_0 (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, binary ("aten.mul.Tensor", FP32, "256,7168", FP32,
                                                     "256,7168"));

  assert_elementwise_hit (r, 21.0, 0.9, "Mul");
  assert_float_equal (tu_detail_double (r, "dtype_scale"), 2.0, 1e-12);
}

/* Q25 fix: the FLOAT row listed after the BF16 row of the same shape answers an fp32 output
 * (upstream scaled the BF16 row: 2.0). */
static void
test_elementwise_prefers_row_with_same_output_dtype (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, binary ("aten.add.Tensor", FP32, "1024", FP32,
                                                     "1024"));

  assert_elementwise_hit (r, 1.5, 1.0, "Add");
  assert_true (isnan (tu_detail_double (r, "dtype_scale")));
}

/* Q17: alternates are ignored; MulAiCore has the 512x512 row. */
static void
test_elementwise_scans_primary_kernel_only (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, binary ("aten.mul.Tensor", BF16, "512,512", BF16,
                                                     "512,512"));

  assert_int_not_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_string_equal (tu_detail_string (r, "base_reason"), "elementwise_output_shape_mismatch");
}

/* Inputs are ignored (broadcasts); the output is stripped, padded or flattened 3-D → 2-D. */
static void
test_elementwise_output_strip_flatten_and_padding (void **state)
{
  g_autoptr (msperf_result) strip = tu_run (*state, binary ("aten.mul.Tensor", BF16, "7168", BF16,
                                                         "1,256,7168"));
  g_autoptr (msperf_result) flat = tu_run (*state, binary ("aten.mul.Tensor", BF16, "2,128,7168",
                                                        BF16, "2,128,7168"));
  g_autoptr (msperf_result) pad = tu_run (*state, binary ("aten.add.Tensor", BF16, "144,4096", BF16,
                                                       "144,4096"));

  assert_elementwise_hit (strip, 10.5, 1.0, "Mul");
  assert_elementwise_hit (flat, 10.5, 1.0, "Mul");
  assert_elementwise_hit (pad, 3.0, 1.0, "Add");
}

/* Q3 fix: an fp16 output with only a BF16 row measured answers unscaled, as upstream (which
 * maps fp16 to DT_BF16), and says so. */
static void
test_elementwise_fp16_uses_bf16_row_with_alias (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, binary ("aten.add.Tensor", FP16, "1024", FP16,
                                                     "1024"));

  assert_elementwise_hit (r, 1.0, 1.0, "Add");
  assert_string_equal (tu_detail_string (r, "dtype_alias"), "DT_FLOAT16->DT_BF16");
}

static void
test_elementwise_unmapped_dtype_and_missing_csv_miss (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, binary ("aten.add.Tensor", MSPERF_DTYPE_UINT8, "1024",
                                                     MSPERF_DTYPE_UINT8, "1024"));
  g_autoptr (msperf_result) m = tu_run (*state, binary ("test.missing_elementwise.default", BF16,
                                                     "1024", BF16, "1024"));

  assert_int_not_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_string_equal (tu_detail_string (r, "base_reason"), "elementwise_output_shape_mismatch");
  assert_int_not_equal (m->source, MSPERF_SOURCE_MEASURED);
  assert_string_equal (tu_detail_string (m, "base_reason"), "csv_not_found");
}

/* No output tensor: the op is answered by the compute path on the same kernels (reference §2.6
 * step 1): the Mul row matches both inputs exactly. */
static void
test_elementwise_without_output_falls_back_to_compute (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, binary ("aten.mul.Tensor", BF16, "256,7168", BF16,
                                                     NULL));

  assert_int_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 10.5, 1e-9);
  assert_string_equal (r->kernel_type, "Mul");
  assert_string_equal (r->shape_match_rule, "identity");
}

/* ----------------------------------------------------------- self-lookup of the sample DB */

/* Every row of Add.csv, Mul.csv and Silu.csv of doc/examples/h200-db, turned into the mapped op
 * with `out` = the row's output, answers MEASURED with the latency of the first row with the
 * same output shape and dtype (reference §2.6 with the Q25 fix). */
static void
test_elementwise_self_lookup_h200_every_row (void **state)
{
  static const struct { const char *kernel, *op; int n_args; } kinds[] = {
    { "Add", "aten.add.Tensor", 2 },
    { "Mul", "aten.mul.Tensor", 2 },
    { "Silu", "aten.silu.default", 1 },
  };
  g_autofree char *db = tu_srcdir_path ("doc/examples/h200-db");
  g_autoptr (msperf_engine) e = tu_engine_new (db, NULL);
  size_t checked = 0;

  (void) state;
  for (size_t k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autofree char *name = g_strconcat (kinds[k].kernel, ".csv", NULL);
      g_autofree char *csv = g_build_filename (db, name, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (msperf_table) t = msperf_table_load (csv, kinds[k].kernel, &error);

      assert_non_null (t);
      for (size_t row = 0; row < msperf_table_n_rows (t); row++)
        {
          const msperf_tensor *out = &msperf_table_row_outputs (t, row)->t[0];
          g_autofree char *dims = msperf_tensor_shape_repr (out);
          msperf_op *op = tu_op (kinds[k].op);
          g_autoptr (msperf_result) r = NULL;
          size_t first = row;

          for (size_t j = 0; j < row; j++)
            {
              const msperf_tensor *o = &msperf_table_row_outputs (t, j)->t[0];
              if (msperf_tensor_same_shape (o, out) && o->dtype == out->dtype)
                {
                  first = j;
                  break;
                }
            }
          /* "[1024]" → "1024" */
          dims[strlen (dims) - 1] = '\0';
          for (int a = 0; a < kinds[k].n_args; a++)
            tu_op_add_tensor (op, out->dtype, dims + 1);
          tu_op_add_out (op, out->dtype, dims + 1);
          r = tu_run (e, op);
          if (r->source != MSPERF_SOURCE_MEASURED
              || fabs (r->latency_us - msperf_table_row_latency (t, first)) > 1e-9
              || r->confidence != 1.0)
            fail_msg ("%s row %zu (%s %s): got %s %.6f, expected %.6f", kinds[k].kernel, row,
                      dims + 1, msperf_dtype_profiling_name (out->dtype),
                      msperf_source_name (r->source), r->latency_us,
                      msperf_table_row_latency (t, first));
          checked++;
        }
    }
  /* SOURCE.md: 3 kernels × (10 sizes × {bf16, fp32}) = 60 rows (+ 1092 MatMulV2 = 1152) */
  assert_int_equal (checked, 60);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_elementwise_same_dtype_golden_10_5),
    cmocka_unit_test (test_elementwise_fp32_scaled_golden_21_0),
    cmocka_unit_test (test_elementwise_prefers_row_with_same_output_dtype),
    cmocka_unit_test (test_elementwise_scans_primary_kernel_only),
    cmocka_unit_test (test_elementwise_output_strip_flatten_and_padding),
    cmocka_unit_test (test_elementwise_fp16_uses_bf16_row_with_alias),
    cmocka_unit_test (test_elementwise_unmapped_dtype_and_missing_csv_miss),
    cmocka_unit_test (test_elementwise_without_output_falls_back_to_compute),
    cmocka_unit_test (test_elementwise_self_lookup_h200_every_row),
  };
  return cmocka_run_group_tests (tests, setup_basic, tu_teardown_engine);
}
