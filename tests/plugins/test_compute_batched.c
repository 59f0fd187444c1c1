/* Tests of the "compute" module's batched matmul from a single-GEMM table (an entry's
 * batched_from key, plugins/compute/compute_batched.h) through the engine, on the fixture
 * tests/data/compute/batched (MatMulV2 rows m = 64..512 and 2048, k = 128, n = 512; H200
 * profile). */
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

static int
setup_batched (void **state)
{
  *state = tu_engine_new ("compute/batched", NULL);
  return 0;
}

static msperf_op *
op2 (const char *name, const char *x, const char *w)
{
  msperf_op *op = tu_op (name);

  tu_op_add_tensor (op, BF16, x);
  tu_op_add_tensor (op, BF16, w);
  return op;
}

static void
assert_batched (const msperf_result *r, msperf_source source, double latency)
{
  if (r->source != source)
    fail_msg ("expected %s, got %s (reason %s, base %s)", msperf_source_name (source),
              msperf_source_name (r->source), r->miss_reason ? r->miss_reason : "-",
              tu_detail_string (r, "base_reason") ? tu_detail_string (r, "base_reason") : "-");
  assert_string_equal (r->method, "batched_from_gemm");
  assert_string_equal (r->kernel_type, "MatMulV2");
  assert_float_equal (r->latency_us, latency, 1e-9);
}

/* b = 1: the plain GEMM of the same dims, marked as derived. */
static void
test_batched_b1_equals_plain_gemm (void **state)
{
  g_autoptr (msperf_result) mm = tu_run (*state, op2 ("aten.mm.default", "128,128", "128,512"));
  g_autoptr (msperf_result) r = tu_run (*state, op2 ("aten.bmm.default", "1,128,128",
                                                     "1,128,512"));

  assert_int_equal (mm->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (mm->latency_us, 4.0, 1e-12);
  assert_batched (r, MSPERF_SOURCE_INTERPOLATED, mm->latency_us);
  assert_float_equal (r->confidence, 1.0, 1e-12);
  assert_float_equal (tu_detail_double (r, "extra_weight_read_us"), 0.0, 0.0);
  assert_float_equal (tu_detail_double (r, "batch"), 1.0, 0.0);
}

/* b = 4, M = 32: GEMM(128, 512, 128) = 4 µs plus the reads of the three other [128, 512]
 * right-hand matrices at the H200 profile's 4300 GB/s (the batched op is memory-bound there:
 * 688 128 B against 294 912 B for the GEMM). */
static void
test_batched_adds_other_weight_reads (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, op2 ("aten.bmm.default", "4,32,128",
                                                     "4,128,512"));
  double extra = (688128.0 - 294912.0) / 4300e3;

  assert_batched (r, MSPERF_SOURCE_INTERPOLATED, 4.0 + extra);
  assert_float_equal (tu_detail_double (r, "gemm_us"), 4.0, 1e-12);
  assert_float_equal (tu_detail_double (r, "extra_weight_read_us"), extra, 1e-9);
  assert_string_equal (tu_detail_string (r, "gemm_method"), "exact");
  /* far below b x GEMM(32) (the one-kernel-per-item reading: >= 4 x 3 µs) */
  assert_true (r->latency_us < 4 * 3.0);
}

/* b*M between two measured m: the GEMM is interpolated, and so is the answer. */
static void
test_batched_interpolates_flattened_rows (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, op2 ("aten.bmm.default", "2,96,128",
                                                     "2,128,512"));
  double gemm = tu_detail_double (r, "gemm_us");

  assert_int_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
  assert_string_equal (r->method, "batched_from_gemm");
  assert_string_not_equal (tu_detail_string (r, "gemm_method"), "exact");
  assert_true (gemm > 4.0 && gemm < 6.0);
  assert_true (r->confidence < 1.0);
  assert_float_equal (r->latency_us, gemm + tu_detail_double (r, "extra_weight_read_us"), 1e-9);
}

/* b*M = 8192 past the table's 2048 rows (and no extrapolation policy): 4 chunks of the
 * measured 2048-row GEMM (30 µs), scaled by the row ratio, EXTRAPOLATED. */
static void
test_batched_chunks_rows_beyond_table (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, op2 ("aten.bmm.default", "8,1024,128",
                                                     "8,128,512"));

  assert_batched (r, MSPERF_SOURCE_EXTRAPOLATED,
                  120.0 + tu_detail_double (r, "extra_weight_read_us"));
  assert_float_equal (tu_detail_double (r, "row_chunks"), 4.0, 0.0);
  assert_float_equal (tu_detail_double (r, "gemm_us"), 120.0, 1e-12);
}

/* Dims that are not [b, M, K] x [b, K, N]: a miss naming them, never a GEMM answer. */
static void
test_batched_bad_dims_miss_with_reason (void **state)
{
  g_autoptr (msperf_result) batch = tu_run (*state, op2 ("aten.bmm.default", "2,32,128",
                                                         "3,128,512"));
  g_autoptr (msperf_result) k = tu_run (*state, op2 ("aten.bmm.default", "2,32,128",
                                                     "2,64,512"));
  g_autoptr (msperf_result) rank = tu_run (*state, op2 ("aten.bmm.default", "64,128",
                                                        "128,512"));

  assert_string_equal (tu_detail_string (batch, "base_reason"),
                       "batched_from_bad_dims:[2,32,128]x[3,128,512]");
  assert_string_equal (tu_detail_string (k, "base_reason"),
                       "batched_from_bad_dims:[2,32,128]x[2,64,512]");
  assert_string_equal (tu_detail_string (rank, "base_reason"), "batched_from_bad_dims:rank");
  assert_string_not_equal (batch->method, "batched_from_gemm");
}

/* A batched_from kernel without a table: the GEMM's miss, named. */
static void
test_batched_missing_table_names_gemm_miss (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, op2 ("test.bmm_no_table.default", "2,32,128",
                                                     "2,128,512"));

  assert_int_not_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
  assert_non_null (tu_detail_string (r, "base_reason"));
  assert_true (g_str_has_prefix (tu_detail_string (r, "base_reason"),
                                 "batched_from_gemm_miss:"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_batched_b1_equals_plain_gemm),
    cmocka_unit_test (test_batched_adds_other_weight_reads),
    cmocka_unit_test (test_batched_interpolates_flattened_rows),
    cmocka_unit_test (test_batched_chunks_rows_beyond_table),
    cmocka_unit_test (test_batched_bad_dims_miss_with_reason),
    cmocka_unit_test (test_batched_missing_table_names_gemm_miss),
  };
  return cmocka_run_group_tests (tests, setup_batched, tu_teardown_engine);
}
