/* Tests of the "compute" module's interpolation coordinates (compute_axes.c) through the
 * engine, with and without the opt-in keys: the BatchMatMul H axis (policy `axes`
 * listing "H") on the sample H200 database, and the FP8 scale sub-cases (`scale_subcase`) on
 * tests/data/compute/fp8scale. Expected values are 1-D linear interpolations between two rows:
 * numpy.interp (/usr/bin/python3, numpy), quoted at each test. */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include "common/test_util.h"

#define BF16 MSPERF_DTYPE_BF16
#define F32 MSPERF_DTYPE_FLOAT32
#define I8 MSPERF_DTYPE_INT8
#define BMM_H_AXES "interpolation.kernel_overrides.BatchMatMulV2.axes"
#define QBMM_SUBCASE "interpolation.kernel_overrides.QuantBatchMatmulV3.scale_subcase"
#define DQ_SUBCASE "interpolation.kernel_overrides.DynamicQuant.scale_subcase"

static msperf_engine *
h200 (const char *const *overrides)
{
  /* The sample rows under the upstream mapping (Makefile.am, upstream_db). */
  g_autofree char *db = g_strdup (g_getenv ("MSPERF_TEST_UPSTREAM_DB"));

  return tu_engine_new (db, overrides);
}

static msperf_op *
op2 (const char *name, msperf_dtype dtype, const char *a, const char *b)
{
  msperf_op *op = tu_op (name);

  tu_op_add_tensor (op, dtype, a);
  if (b)
    tu_op_add_tensor (op, dtype, b);
  return op;
}

/* fp8_linear(x, w, scale [N], per-token scale [M]), in int8: the FP8 torch dtypes are not in
 * the upstream dtype map (reference §2.4), so no row ever matches an FP8 input, exactly or by
 * interpolation; the sub-case coordinates do not depend on the dtype. */
static msperf_op *
fp8_linear (const char *x, const char *w, const char *scale, const char *pertoken)
{
  msperf_op *op = op2 ("tensor_cast.fp8_linear.default", I8, x, w);

  tu_op_add_tensor (op, F32, scale);
  tu_op_add_tensor (op, F32, pertoken);
  return op;
}

static void
assert_interpolated (const msperf_result *r, double latency, int dim)
{
  if (r->source != MSPERF_SOURCE_INTERPOLATED)
    fail_msg ("expected INTERPOLATED, got %s (reason %s)", msperf_source_name (r->source),
              r->miss_reason ? r->miss_reason : "-");
  assert_float_equal (r->latency_us, latency, 1e-12 * latency);
  assert_int_equal (r->interpolation_dim, dim);
}

static void
assert_not_answered (const msperf_result *r)
{
  assert_int_not_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_int_not_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
  assert_non_null (r->miss_reason);
}

static void
assert_regime_has (const msperf_result *r, const char *part)
{
  const char *regime = tu_detail_string (r, "regime");

  assert_non_null (regime);
  if (strstr (regime, part) == NULL)
    fail_msg ("regime '%s' lacks '%s'", regime, part);
}

static int64_t
detail_axis (const msperf_result *r, const char *map, const char *axis)
{
  int64_t v = -1;

  assert_true (msperf_value_get_int (msperf_value_lookup (msperf_value_lookup (msperf_result_details (r), map),
                                                          axis), &v));
  return v;
}

/* ---- BatchMatMul H axis (doc/examples/h200-db, H in {8, 16, 32, 64}) ---- */

/* (24,256,512)x(24,512,1024): without "H" in the axes the batch is part of the regime and no
 * row has H 24; listing M, K, N only changes nothing. */
static void
test_bmm_off_grid_h_misses_without_h_axis (void **state)
{
  const char *const mkn[] = { BMM_H_AXES, "[M, K, N]", NULL };
  g_autoptr (msperf_engine) e0 = h200 (NULL);
  g_autoptr (msperf_engine) e1 = h200 (mkn);
  g_autoptr (msperf_result) r0 = tu_run (e0, op2 ("aten.bmm.default", BF16, "24,256,512",
                                                 "24,512,1024"));
  g_autoptr (msperf_result) r1 = tu_run (e1, op2 ("aten.bmm.default", BF16, "24,256,512",
                                                 "24,512,1024"));

  (void) state;
  assert_not_answered (r0);
  assert_not_answered (r1);
}

/* With axes [H, M, K, N]: H 24 between the rows H 16 (10.181) and H 32 (18.0721) at M 256,
 * K 512, N 1024: numpy.interp(24, [16, 32], [10.181, 18.0721]) = 14.126549999999998. */
static void
test_bmm_h_axis_interpolates_h24 (void **state)
{
  const char *const hmkn[] = { BMM_H_AXES, "[H, M, K, N]", NULL };
  g_autoptr (msperf_engine) e = h200 (hmkn);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("aten.bmm.default", BF16, "24,256,512",
                                                "24,512,1024"));
  g_autoptr (msperf_result) hit = tu_run (e, op2 ("aten.bmm.default", BF16, "16,256,512",
                                                  "16,512,1024"));

  (void) state;
  assert_interpolated (r, 14.126549999999998, 1);
  assert_int_equal (detail_axis (r, "target", "H"), 24);
  assert_int_equal (detail_axis (r, "target", "N"), 1024);
  assert_regime_has (r, "batch=rank1");
  /* the 1-D group is (H); M, K, N are exact */
  assert_int_equal (detail_axis (r, "axes", "H"), 24);
  assert_int_equal (detail_axis (r, "exact_fields", "M"), 256);
  /* a measured shape still hits */
  assert_int_equal (hit->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (hit->latency_us, 10.181, 1e-9);
}

/* ---- FP8 scale sub-cases (tests/data/compute/fp8scale) ---- */

/* fp8_linear (128,1024)x(1024,2048), per-channel scale [2048], per-token [128]: no exact row.
 * Without the key the scale shapes are ignored and the per-tensor row at M 128 (5.0) answers;
 * with scale_subcase the per-channel rows are their own regime and M interpolates between 64
 * (10.0) and 256 (22.0): numpy.interp(128, [64, 256], [10.0, 22.0]) = 14.0. */
static void
test_fp8_matmul_scale_shapes_split_regime (void **state)
{
  const char *const key[] = { QBMM_SUBCASE, "scale_matrix", NULL };
  g_autoptr (msperf_engine) e0 = tu_engine_new ("compute/fp8scale", NULL);
  g_autoptr (msperf_engine) e1 = tu_engine_new ("compute/fp8scale", key);
  g_autoptr (msperf_result) r0 = tu_run (e0, fp8_linear ("128,1024", "1024,2048", "2048", "128"));
  g_autoptr (msperf_result) r1 = tu_run (e1, fp8_linear ("128,1024", "1024,2048", "2048", "128"));
  g_autoptr (msperf_result) pt = tu_run (e1, fp8_linear ("64,1024", "1024,2048", "1", "1"));

  (void) state;
  assert_interpolated (r0, 5.0, 1);
  assert_interpolated (r1, 14.0, 1);
  assert_regime_has (r1, "scale_matrix|scales=[N];[M]");
  assert_int_equal (detail_axis (r1, "target", "M"), 128);
  /* a per-tensor target only sees the per-tensor row: one point, no interpolation */
  assert_not_answered (pt);
}

/* DynamicQuant x (128, 2048): without the key the row tail [2048] is exact and absent; with
 * compute_scale, K interpolates at M 128 between 1024 (4.0) and 4096 (10.0):
 * numpy.interp(2048, [1024, 4096], [4.0, 10.0]) = 6.0; with a smooth scale [2048] between the
 * smooth-scale rows 5.0 and 12.5: numpy.interp(2048, [1024, 4096], [5.0, 12.5]) = 7.5. */
static void
test_compute_scale_interpolates_m_k (void **state)
{
  const char *const key[] = { DQ_SUBCASE, "compute_scale", NULL };
  const char *name = "tensor_cast.dynamic_quantize_symmetric.default";
  g_autoptr (msperf_engine) e0 = tu_engine_new ("compute/fp8scale", NULL);
  g_autoptr (msperf_engine) e1 = tu_engine_new ("compute/fp8scale", key);
  g_autoptr (msperf_result) r0 = tu_run (e0, op2 (name, BF16, "128,2048", NULL));
  g_autoptr (msperf_result) r1 = tu_run (e1, op2 (name, BF16, "128,2048", NULL));
  g_autoptr (msperf_result) s0 = tu_run (e0, op2 (name, BF16, "128,2048", "2048"));
  g_autoptr (msperf_result) s1 = tu_run (e1, op2 (name, BF16, "128,2048", "2048"));
  g_autoptr (msperf_result) m1 = tu_run (e1, op2 (name, BF16, "256,1024", NULL));

  (void) state;
  assert_not_answered (r0);
  assert_not_answered (s0);
  assert_interpolated (r1, 6.0, 1);
  assert_regime_has (r1, "compute_scale|inputs=1");
  assert_int_equal (detail_axis (r1, "target", "M"), 128);
  assert_int_equal (detail_axis (r1, "target", "K"), 2048);
  assert_interpolated (s1, 7.5, 1);
  assert_regime_has (s1, "scales=[K]");
  /* M: numpy.interp(256, [128, 512], [4.0, 9.0]) = 5.666666666666667 */
  assert_interpolated (m1, 5.666666666666667, 1);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_bmm_off_grid_h_misses_without_h_axis),
    cmocka_unit_test (test_bmm_h_axis_interpolates_h24),
    cmocka_unit_test (test_fp8_matmul_scale_shapes_split_regime),
    cmocka_unit_test (test_compute_scale_interpolates_m_k),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
