/* msperf tests — the candidate index and the interpolation stage (seed 000 §11.1–
 * §11.3 as far as they concern compute): golden values on the sample H200 database, every
 * per-group status on small fixtures (tests/data/index/basic), the group order, the policy
 * knobs, the index cache and its invalidation, the disable switch, and the compute axes. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include <glib/gstdio.h>
#include "common/test_util.h"
#include "engine/engine.h"
#include "engine/interpolate.h"
#include "engine/interpolation_stage.h"

#define BF16 MSPERF_DTYPE_BF16
#define FP32 MSPERF_DTYPE_FLOAT32
#define I64 MSPERF_DTYPE_INT64

/* ------------------------------------------------------------------ helpers */

static msperf_engine *
basic_engine (const char *const *overrides)
{
  return tu_engine_new ("index/basic", overrides);
}

static msperf_engine *
h200_engine (const char *const *overrides)
{
  /* The sample rows under the upstream mapping (Makefile.am, upstream_db). */
  g_autofree char *db = g_strdup (g_getenv ("MSPERF_TEST_UPSTREAM_DB"));
  return tu_engine_new (db, overrides);
}

static msperf_op *
op2 (const char *name, msperf_dtype dtype, const char *x, const char *w)
{
  msperf_op *op = tu_op (name);

  tu_op_add_tensor (op, dtype, x);
  tu_op_add_tensor (op, dtype, w);
  return op;
}

static const msperf_value *
detail (const msperf_result *r, const char *key)
{
  return msperf_value_lookup (msperf_result_details (r), key);
}

static int64_t
detail_int (const msperf_result *r, const char *key)
{
  int64_t v = -1;

  if (!msperf_value_get_int (detail (r, key), &v))
    fail_msg ("detail %s is not an int", key);
  return v;
}

/* TRUE when details.fallback_reasons lists reason. */
static gboolean
has_reason (const msperf_result *r, const char *reason)
{
  const msperf_value *l = detail (r, "fallback_reasons");

  for (guint k = 0; l && l->kind == MSPERF_VALUE_LIST && k < l->items->len; k++)
    if (g_strcmp0 (msperf_value_get_string (g_ptr_array_index (l->items, k)), reason) == 0)
      return TRUE;
  return FALSE;
}

static void
assert_interpolated (const msperf_result *r, int dim, double latency, double tolerance)
{
  if (r->source != MSPERF_SOURCE_INTERPOLATED)
    fail_msg ("expected INTERPOLATED, got %s (reason %s)", msperf_source_name (r->source),
              r->miss_reason ? r->miss_reason : "-");
  assert_int_equal (r->interpolation_dim, dim);
  assert_int_equal (detail_int (r, "interpolation_dim"), dim);
  assert_float_equal (r->latency_us, latency, tolerance);
  assert_null (r->miss_reason);
}

/* ------------------------------------------------------------------ golden values */

/* h200-db MatMulV2, K = N = 4096 ([N,K] weight): the rows M = 2048 (95.7808 µs) and M = 4096
 * (198.9141 µs) bracket M = 3000. Expected = numpy.interp(3000, [2048, 4096], [95.7808,
 * 198.9141]) = scipy interp1d on the same points = 0x1.1f717eb851eb8p+7 (143.721669921875). */
static void
test_golden_1d_matmul_h200_equals_numpy (void **state)
{
  msperf_engine *e = h200_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("aten.mm.default", BF16, "3000,4096", "4096,4096"));
  const msperf_value *axes;

  (void) state;
  assert_interpolated (r, 1, 0x1.1f717eb851eb8p+7, 0.0);
  assert_true (r->latency_us == 0x1.1f717eb851eb8p+7);
  assert_string_equal (r->method, "linear_1d");
  assert_string_equal (r->shape_match_rule, "interpolated_1d_linear");
  assert_float_equal (r->confidence, 0.70, 1e-12);
  assert_string_equal (r->kernel_type, "MatMulV2");
  assert_string_equal (tu_detail_string (r, "base_reason"), "shape_mismatch");
  assert_string_equal (tu_detail_string (r, "fallback_from"), "exact_miss");
  axes = detail (r, "axes");
  assert_non_null (axes);
  assert_int_equal (axes->items->len, 1);
  assert_string_equal (g_ptr_array_index (axes->keys, 0), "M");
  assert_int_equal (((msperf_value *) g_ptr_array_index (axes->items, 0))->i, 3000);
  assert_int_equal (detail (r, "candidate_points")->items->len, 2);
  assert_non_null (tu_detail_string (r, "policy_hash"));
  msperf_engine_free (e);
}

/* h200-db MatMulV2, target (M, K, N) = (6055, 3840, 1152): no 1-D or 2-D group has candidates,
 * so the 3-D group over the whole bf16 regime answers. Expected value produced once with
 *   points = (M, K, N) of every DT_BF16 row (N = rhs[-1] if rhs[-2] == K else rhs[-2]),
 *   duplicates reduced by numpy.median in order of first occurrence (896 of 980 rows),
 *   scipy.interpolate.griddata(points, values, [[6055, 3840, 1152]], method="linear")[0]
 * with /usr/bin/python3 (scipy 1.x) = 0x1.422efa594af4fp+6 (80.54587687988281); the index's
 * candidate set has the same counts. */
static void
test_golden_3d_matmul_h200_equals_scipy_griddata (void **state)
{
  msperf_engine *e = h200_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("aten.mm.default", BF16, "6055,3840", "1152,3840"));

  (void) state;
  assert_interpolated (r, 3, 0x1.422efa594af4fp+6, 0.0);
  assert_true (r->latency_us == 0x1.422efa594af4fp+6);
  assert_string_equal (r->method, "griddata_linear");
  assert_string_equal (r->shape_match_rule, "interpolated_3d_griddata_linear");
  assert_float_equal (r->confidence, 0.60, 1e-12);
  assert_int_equal (detail_int (r, "candidate_count"), 896);
  assert_int_equal (detail_int (r, "raw_count"), 980);
  assert_int_equal (detail_int (r, "aggregated_count"), 896);
  assert_int_equal (detail (r, "candidate_points")->items->len, 4);
  assert_true (has_reason (r, "1d(M): insufficient_filtered_candidates"));
  assert_true (has_reason (r, "2d(K,N): insufficient_filtered_candidates"));
  assert_string_equal (tu_detail_string (r, "regime_group"), "ND;ND");
  msperf_engine_free (e);
}

/* The real Ascend mappings cap MatMulV2 at 1-D (reference §4.6): the 3-D case then fails and
 * goes to the roofline with the wrapper's reason. */
static void
test_max_interpolation_dim_1_blocks_2d_and_3d (void **state)
{
  const char *const ov[] = { "interpolation.kernel_overrides.MatMulV2.max_interpolation_dim", "1",
                             NULL };
  msperf_engine *e = h200_engine (ov);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("aten.mm.default", BF16, "6055,3840", "1152,3840"));
  g_autoptr (msperf_result) r1 = tu_run (e, op2 ("aten.mm.default", BF16, "3000,4096", "4096,4096"));

  (void) state;
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (r->miss_reason, "wrapper_interpolation_failed");
  assert_string_equal (tu_detail_string (r, "base_reason"), "shape_mismatch");
  assert_true (has_reason (r, "2d(M,K): interpolation_dim_disabled"));
  assert_true (has_reason (r, "3d(M,K,N): interpolation_dim_disabled"));
  /* 1-D still answers */
  assert_interpolated (r1, 1, 0x1.1f717eb851eb8p+7, 0.0);
  msperf_engine_free (e);
}

/* ------------------------------------------------------------------ statuses and order */

/* MatMulV3 fixture: 1 + M/16 + K/32 at (64|128, 64|128), N = 32, weights in both layouts.
 * (96, 64): 1-D over M between (64,64) [N,K] on AI_CORE and (128,64) [K,N] on MIX_AIC = 9 (the
 * layout and Accelerator Core are not in the regime); a 2-D group would give the same value,
 * but 1-D comes first. */
static void
test_group_order_1d_before_2d_across_layouts (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.grid.default", BF16, "96,64", "32,64"));

  (void) state;
  assert_interpolated (r, 1, 9.0, 1e-12);
  assert_int_equal (detail (r, "fallback_reasons")->items->len, 0);
  assert_string_equal (g_ptr_array_index (detail (r, "axes")->keys, 0), "M");
  msperf_engine_free (e);
}

/* (96, 96): no 1-D group has two points; 2-D (M,K) on the plane = 1 + 6 + 3 = 10. */
static void
test_2d_griddata_after_1d_failures (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.grid.default", BF16, "96,96", "96,32"));
  const msperf_value *points;

  (void) state;
  assert_interpolated (r, 2, 10.0, 1e-9);
  assert_string_equal (r->method, "griddata_linear");
  assert_string_equal (r->shape_match_rule, "interpolated_2d_griddata_linear");
  assert_float_equal (r->confidence, 0.65, 1e-12);
  assert_true (has_reason (r, "1d(M): insufficient_filtered_candidates"));
  assert_true (has_reason (r, "1d(K): insufficient_filtered_candidates"));
  assert_true (has_reason (r, "1d(N): insufficient_filtered_candidates"));
  assert_int_equal (detail (r, "fallback_reasons")->items->len, 3);
  points = detail (r, "candidate_points");
  assert_int_equal (points->items->len, 3);
  assert_non_null (msperf_value_lookup (g_ptr_array_index (points->items, 0), "weight"));
  msperf_engine_free (e);
}

static void
test_exact_hit_stays_measured (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.grid.default", BF16, "64,64", "32,64"));

  (void) state;
  assert_int_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 7.0, 0.0);
  assert_null (detail (r, "fallback_reasons"));
  msperf_engine_free (e);
}

static void
test_status_outside_axis_boundary (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.grid.default", BF16, "200,64", "32,64"));

  (void) state;
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_true (has_reason (r, "1d(M): outside_axis_boundary"));
  assert_string_equal (r->miss_reason, "wrapper_interpolation_failed");
  assert_string_equal (tu_detail_string (r, "base_reason"), "shape_mismatch");
  msperf_engine_free (e);
}

static void
test_status_insufficient_filtered_candidates (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.grid.default", BF16, "96,80", "32,80"));

  (void) state;
  assert_true (has_reason (r, "1d(M): insufficient_filtered_candidates"));
  msperf_engine_free (e);
}

/* MatMulCommon, N = 32: the triangle (64,64), (128,64), (64,128); (120, 120) is inside both axis
 * ranges but outside the hull. */
static void
test_status_outside_convex_hull (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.hull.default", BF16, "120,120", "32,120"));

  (void) state;
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_true (has_reason (r, "2d(M,K): outside_convex_hull"));
  msperf_engine_free (e);
}

/* MatMulCommon, N = 48: three collinear points (64,64), (96,96), (128,128). */
static void
test_status_degenerate_point_cloud (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.hull.default", BF16, "80,80", "48,80"));

  (void) state;
  assert_true (has_reason (r, "2d(M,K): degenerate_point_cloud"));
  msperf_engine_free (e);
}

static void
test_status_interpolation_dim_disabled_by_kernel_override (void **state)
{
  const char *const ov[] = { "interpolation.kernel_overrides.MatMulV3.max_interpolation_dim", "1",
                             NULL };
  msperf_engine *e = basic_engine (ov);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.grid.default", BF16, "96,96", "96,32"));

  (void) state;
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_true (has_reason (r, "2d(M,K): interpolation_dim_disabled"));
  assert_true (has_reason (r, "3d(M,K,N): interpolation_dim_disabled"));
  msperf_engine_free (e);
}

/* MatMul fixture: M = 64 measured 10, 11, 30 (median 11) and M = 128 measured 20, 24
 * (median 22, the mean of the two middle values, quirk Q19); M = 256 has no valid latency.
 * (96, 64): 11 + (22 − 11)·0.5 = 16.5; with aggregate: mean, 17 + (22 − 17)·0.5 = 19.5. */
static void
test_duplicates_aggregated_by_median_with_counts (void **state)
{
  const char *const ov[] = { "interpolation.aggregate", "mean", NULL };
  msperf_engine *e = basic_engine (NULL);
  msperf_engine *m = basic_engine (ov);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.dup.default", BF16, "96,64", "32,64"));
  g_autoptr (msperf_result) rm = tu_run (m, op2 ("test.dup.default", BF16, "96,64", "32,64"));

  (void) state;
  assert_interpolated (r, 1, 16.5, 1e-12);
  assert_int_equal (detail_int (r, "raw_count"), 5);
  assert_int_equal (detail_int (r, "aggregated_count"), 2);
  assert_int_equal (detail_int (r, "candidate_count"), 2);
  assert_int_equal (detail_int (r, "dropped_count"), 0);
  assert_string_equal (tu_detail_string (r, "aggregate"), "median");
  assert_interpolated (rm, 1, 19.5, 1e-12);
  assert_string_equal (tu_detail_string (rm, "aggregate"), "mean");
  msperf_engine_free (e);
  msperf_engine_free (m);
}

/* ------------------------------------------------------------------ switch and modes */

static void
test_disable_switch_gives_exact_behaviour (void **state)
{
  const char *const ov[] = { "interpolation.enabled", "false", NULL };
  msperf_engine *e = basic_engine (ov);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.grid.default", BF16, "96,64", "32,64"));

  (void) state;
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (r->miss_reason, "shape_mismatch");
  assert_string_equal (tu_detail_string (r, "base_reason"), "shape_mismatch");
  assert_null (detail (r, "fallback_reasons"));
  assert_null (detail (r, "interpolation_reason"));
  assert_int_equal (r->interpolation_dim, 0);
  msperf_engine_free (e);
}

static void
test_mode_not_listed_is_not_interpolated (void **state)
{
  const char *const ov[] = { "interpolation.modes", "[attention_special]", NULL };
  msperf_engine *e = basic_engine (ov);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.grid.default", BF16, "96,64", "32,64"));

  (void) state;
  assert_string_equal (r->miss_reason, "shape_mismatch");
  assert_null (detail (r, "fallback_reasons"));
  msperf_engine_free (e);
}

static void
test_communication_untouched (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  msperf_op *op = tu_op ("test.allreduce.default");
  g_autoptr (msperf_result) r = NULL;

  (void) state;
  tu_op_add_tensor (op, BF16, "1024,4096");
  tu_op_add_int (op, 0);
  tu_op_add_int_list (op, 2, 0, 1);
  r = tu_run (e, op);
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (r->miss_reason, "csv_not_found");
  assert_null (detail (r, "fallback_reasons"));
  assert_null (detail (r, "interpolation_reason"));
  assert_false (msperf_interpolation_allows (e, "communication"));
  assert_true (msperf_interpolation_allows (e, "compute"));
  msperf_engine_free (e);
}

/* ------------------------------------------------------------------ cache */

static void
test_index_cache_hit_on_second_query (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) a = tu_run (e, op2 ("test.grid.default", BF16, "96,96", "96,32"));
  g_autoptr (msperf_result) b = tu_run (e, op2 ("test.grid.default", BF16, "100,90", "90,32"));
  msperf_index_stats st;

  (void) state;
  msperf_engine_index_stats (e, &st);
  assert_int_equal (a->interpolation_dim, 2);
  assert_int_equal (b->interpolation_dim, 2);
  assert_int_equal (st.index_builds, 1);
  assert_true (st.index_hits >= 1);
  /* one triangulation of the N = 32 plane serves both targets */
  assert_int_equal (st.tri_builds, 1);
  assert_true (st.set_hits >= 1);
  /* plane 1 + M/16 + K/32 */
  assert_float_equal (b->latency_us, 1.0 + 100.0 / 16 + 90.0 / 32, 1e-9);
  msperf_engine_free (e);
}

static void
write_file (const char *path, const char *text)
{
  g_autoptr (GError) error = NULL;

  if (!g_file_set_contents (path, text, -1, &error))
    fail_msg ("%s", error->message);
}

static const char grid_csv[] =
  "OP State,Accelerator Core,Input Shapes,Input Data Types,Input Formats,Output Shapes,"
  "Output Data Types,Output Formats,Average Duration(us)\n"
  "dynamic,AI_CORE,\"64,64;32,64\",DT_BF16;DT_BF16,ND;ND,\"64,32\",DT_BF16,ND,%s\n"
  "dynamic,AI_CORE,\"128,64;32,64\",DT_BF16;DT_BF16,ND;ND,\"128,32\",DT_BF16,ND,%s\n";

/* The cache key holds the table's content hash: after the CSV changes and the tables are
 * dropped (or the database cache alone is cleared), the next query builds a new index and
 * answers from the new content. */
static void
test_cache_invalidated_when_csv_changes (void **state)
{
  g_autofree char *dir = g_dir_make_tmp ("msperf-index-XXXXXX", NULL);
  g_autofree char *yaml = g_build_filename (dir, "op_mapping.yaml", NULL);
  g_autofree char *csv = g_build_filename (dir, "MatMulV3.csv", NULL);
  g_autofree char *v1 = g_strdup_printf (grid_csv, "10.0", "20.0");
  g_autofree char *v2 = g_strdup_printf (grid_csv, "30.0", "40.0");
  g_autofree char *v3 = g_strdup_printf (grid_csv, "50.0", "60.0");
  msperf_engine *e;
  msperf_index_stats st;

  (void) state;
  assert_non_null (dir);
  write_file (yaml, "operator_mappings:\n  \"test.grid.default\": {kernel_type: MatMulV3}\n");
  write_file (csv, v1);
  e = tu_engine_new (dir, NULL);
  {
    g_autoptr (msperf_result) r = tu_run (e, op2 ("test.grid.default", BF16, "96,64", "32,64"));
    assert_interpolated (r, 1, 15.0, 1e-12);
  }
  write_file (csv, v2);
  msperf_engine_drop_tables (e);
  {
    g_autoptr (msperf_result) r = tu_run (e, op2 ("test.grid.default", BF16, "96,64", "32,64"));
    assert_interpolated (r, 1, 35.0, 1e-12);
  }
  /* Only the database's table cache: another op finds the new table hash, not the old index. */
  write_file (csv, v3);
  msperf_database_clear_cache (msperf_engine_database (e));
  {
    g_autoptr (msperf_result) r = tu_run (e, op2 ("test.grid.default", BF16, "80,64", "32,64"));
    assert_interpolated (r, 1, 52.5, 1e-12);
  }
  msperf_engine_index_stats (e, &st);
  assert_int_equal (st.index_builds, 3);
  msperf_engine_free (e);
  g_unlink (csv);
  g_unlink (yaml);
  g_rmdir (dir);
}

/* ------------------------------------------------------------------ compute axes */

/* (H, M, K)×(H, K, N): H is in the regime, so H = 8 never mixes with the H = 16 rows. */
static void
test_batched_matmul_h_in_regime (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) r8 = tu_run (e, op2 ("aten.bmm.default", BF16, "8,96,64", "8,64,32"));
  g_autoptr (msperf_result) r16 = tu_run (e, op2 ("aten.bmm.default", BF16, "16,96,64", "16,64,32"));
  g_autoptr (msperf_result) r4 = tu_run (e, op2 ("aten.bmm.default", BF16, "4,96,64", "4,64,32"));

  (void) state;
  assert_interpolated (r8, 1, 7.0, 1e-12);
  assert_interpolated (r16, 1, 150.0, 1e-12);
  assert_string_equal (r4->miss_reason, "regime_key_unmatched");
  msperf_engine_free (e);
}

/* GroupedMatmul: FRACTAL_NZ rows (listed first) restore to the same M/K/N as the ND rows; both
 * groups match the target, the ND group is tried first. */
static void
test_nd_group_preferred_over_nz (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.nz.default", BF16, "96,64", "32,64"));

  (void) state;
  assert_interpolated (r, 1, 7.0, 1e-12);
  assert_string_equal (tu_detail_string (r, "regime_group"), "ND;ND");
  msperf_engine_free (e);
}

static void
test_swiglu_has_no_axis_extractor (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  msperf_op *op = tu_op ("test.swiglu.default");
  g_autoptr (msperf_result) r = NULL;

  (void) state;
  tu_op_add_tensor (op, BF16, "96,256");
  r = tu_run (e, op);
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (r->miss_reason, "compute_target_unavailable");
  assert_string_equal (tu_detail_string (r, "base_reason"), "shape_mismatch");
  msperf_engine_free (e);
}

/* The flatten-batch rule is not applied to matmul kernels: a (2, 64, 64) activation keeps its
 * batch in the regime, and the 2-D rows do not match it (as the exact lookup does not). */
static void
test_matmul_batch_not_flattened (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.grid.default", BF16, "2,48,64", "32,64"));
  g_autoptr (msperf_result) r1 = tu_run (e, op2 ("test.grid.default", BF16, "1,96,64", "32,64"));

  (void) state;
  assert_string_equal (r->miss_reason, "regime_key_unmatched");
  /* a leading batch of 1 is stripped for non-batched kernels */
  assert_interpolated (r1, 1, 9.0, 1e-12);
  msperf_engine_free (e);
}

static void
test_dtype_is_part_of_the_regime (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.grid.default", FP32, "96,64", "32,64"));

  (void) state;
  /* MatMulV3 is not dtype-relaxed: float rows would be another regime, and there are none. */
  assert_string_equal (r->miss_reason, "regime_key_unmatched");
  msperf_engine_free (e);
}

/* Generic compute: axis_0 = dim 0 of input 0, the rest of the shapes in the regime; a 3-D
 * input with a leading 1 is stripped as the exact lookup does. RmsNorm rows 64 → 4, 128 → 8. */
static void
test_generic_axis_0 (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.gen.default", BF16, "96,4096", "4096"));
  g_autoptr (msperf_result) r3 = tu_run (e, op2 ("test.gen.default", BF16, "1,112,4096", "4096"));

  (void) state;
  assert_interpolated (r, 1, 6.0, 1e-12);
  assert_string_equal (g_ptr_array_index (detail (r, "axes")->keys, 0), "axis_0");
  assert_interpolated (r3, 1, 7.0, 1e-12);
  msperf_engine_free (e);
}

/* GatherV2 with generic_compute.axis: output_numel (op_mapping.yaml): outputs 10·64 → 2 µs and
 * 30·64 → 4 µs; 20·64 gives 3 µs. */
static void
test_generic_output_numel_by_policy (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  msperf_op *op = tu_op ("test.gather.default");
  g_autoptr (msperf_result) r = NULL;

  (void) state;
  tu_op_add_tensor (op, BF16, "1000,64");
  tu_op_add_tensor (op, I64, "20");
  tu_op_add_out (op, BF16, "20,64");
  r = tu_run (e, op);
  assert_interpolated (r, 1, 3.0, 1e-12);
  assert_string_equal (g_ptr_array_index (detail (r, "axes")->keys, 0), "output_numel");
  msperf_engine_free (e);
}

/* ------------------------------------------------------------------ composite hook */

/* A static composite's compute part that misses exactly goes through the stage. */
static void
test_composite_part_interpolated (void **state)
{
  msperf_engine *e = basic_engine (NULL);
  g_autoptr (msperf_result) r = tu_run (e, op2 ("test.composite.default", BF16, "96,64", "32,64"));
  msperf_op *parent = op2 ("test.composite.default", BF16, "96,64", "32,64");
  msperf_subquery *sq = msperf_subquery_new ("compute", "MatMulV3");
  g_autoptr (msperf_result) sub = msperf_result_new ();
  msperf_tensor t;

  (void) state;
  assert_int_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (r->latency_us, 9.0, 1e-12);
  /* the upstream wrapper's composite confidence (reference §2.12) */
  assert_float_equal (r->confidence, 0.5, 1e-12);
  /* the hook itself, on a part that misses exactly */
  tu_tensor (&t, BF16, "80,64");
  msperf_subquery_add_input (sq, &t);
  tu_tensor (&t, BF16, "32,64");
  msperf_subquery_add_input (sq, &t);
  msperf_result_set_miss (sub, "shape_mismatch");
  assert_int_equal (msperf_interpolate_subquery (e, parent, sq, sub), MSPERF_HIT);
  assert_int_equal (sub->source, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (sub->latency_us, 8.0, 1e-12);
  assert_string_equal (tu_detail_string (sub, "base_reason"), "shape_mismatch");
  msperf_subquery_free (sq);
  msperf_op_free (parent);
  msperf_engine_free (e);
}

/* ------------------------------------------------------------------ index level */

/* A module stub: one axis "seq" from the Seq column, regime "|stub". */
static gboolean
stub_row (gpointer state, const msperf_table *t, size_t row, msperf_point *p)
{
  const char *cell = msperf_table_cell_by_name (t, row, "Seq");

  (void) state;
  msperf_point_regime_add (p, "stub");
  msperf_point_add_axis (p, "seq", g_ascii_strtod (cell, NULL), TRUE);
  return TRUE;
}

/* sqrt_seq transforms the candidates' seq (the target's is transformed by the stage); the raw
 * coordinates stay as written for the details. Seq 100 measured 1 and 3 (median 2). */
static void
test_sqrt_seq_transform_in_the_index (void **state)
{
  static const char data[] = "Seq,Average Duration(us)\n100,1\n400,5\n100,3\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_table) t = msperf_table_load_data (data, sizeof data - 1, "stub.csv", "Stub",
                                                       &error);
  msperf_index_cache *c = msperf_index_cache_new ();
  msperf_index *idx;
  const GPtrArray *buckets;
  msperf_index_set *s;
  msperf_point target;
  size_t axis = 0;
  gboolean hit = TRUE;

  (void) state;
  assert_non_null (t);
  idx = msperf_index_cache_get (c, stub_row, NULL, t, "stub", "h", -1, &hit);
  assert_false (hit);
  assert_int_equal (msperf_index_n_points (idx), 3);
  buckets = msperf_index_buckets (idx, "|stub");
  assert_non_null (buckets);
  assert_int_equal (buckets->len, 1);
  msperf_point_init (&target);
  msperf_point_add_axis (&target, "seq", 200.0, TRUE);
  s = msperf_index_bucket_set (c, g_ptr_array_index (buckets, 0), &axis, 1, &target,
                               MSPERF_INTERP_AGGREGATE_MEDIAN, MSPERF_INDEX_SQRT_SEQ);
  assert_true (s->transformed[0]);
  assert_int_equal (s->n_filtered, 3);
  assert_int_equal (s->n_unique, 2);
  assert_true (s->coords[0] == 10.0 && s->coords[1] == 20.0);
  assert_true (s->values[0] == 2.0 && s->values[1] == 5.0);
  assert_true (s->raw[0] == 100.0 && s->raw[1] == 400.0);
  /* the same request is served from the bucket's cache */
  assert_ptr_equal (msperf_index_bucket_set (c, g_ptr_array_index (buckets, 0), &axis, 1,
                                             &target, MSPERF_INTERP_AGGREGATE_MEDIAN,
                                             MSPERF_INDEX_SQRT_SEQ), s);
  assert_non_null (msperf_index_cache_get (c, stub_row, NULL, t, "stub", "h", -1, &hit));
  assert_true (hit);
  /* another policy hash is another index */
  msperf_index_cache_get (c, stub_row, NULL, t, "stub", "other", -1, &hit);
  assert_false (hit);
  msperf_point_clear (&target);
  msperf_index_cache_free (c);
}

/* A module stub with three axes A, B, C (a "-" cell is unknown) and one exact field F. */
static gboolean
abc_row (gpointer state, const msperf_table *t, size_t row, msperf_point *p)
{
  static const char *const names[] = { "A", "B", "C" };

  (void) state;
  msperf_point_regime_add (p, "abc");
  for (int k = 0; k < 3; k++)
    {
      const char *cell = msperf_table_cell_by_name (t, row, names[k]);
      gboolean known = strcmp (cell, "-") != 0;

      msperf_point_add_axis (p, names[k], known ? g_ascii_strtod (cell, NULL) : 0.0, known);
    }
  msperf_point_add_field (p, "F", g_ascii_strtoll (msperf_table_cell_by_name (t, row, "F"),
                                                   NULL, 10), MSPERF_MATCH_EXACT);
  return TRUE;
}

/* The filter as index.h states it, on every point of the bucket (the reference the grouped
 * lookup must equal): other axes equal to the target's (unknown on both sides counts as
 * equal), the field equal, the selected axes known. */
static gboolean
reference_passes (const msperf_index_bucket *b, size_t i, const size_t *axes, int dim,
                  const msperf_point *t)
{
  for (size_t a = 0; a < b->n_axes; a++)
    {
      gboolean selected = FALSE, known = g_array_index (b->known, guint8, i * b->n_axes + a);
      double v = g_array_index (b->coords, double, i * b->n_axes + a);

      for (int j = 0; j < dim; j++)
        selected = selected || axes[j] == a;
      if (selected)
        {
          if (!known)
            return FALSE;
          continue;
        }
      if (t->axis_known[a] != known || (known && v != t->axes[a]))
        return FALSE;
    }
  return g_array_index (b->fields, int64_t, i * b->n_fields) == t->fields[0];
}

/* The boundaries in user coordinates of a log-space set (msperf_index_set_raw_boundary, by
 * binary search) equal the scan of every filtered raw point; a linear set has none. Values
 * compare with == : of -0 and 0 either may stand, and both print as 0. */
static void
raw_boundaries_equal_scan (msperf_index_cache *c, msperf_index_bucket *b, const size_t *axes,
                           int dim, const msperf_point *target, const double *tvals, size_t n_t)
{
  msperf_index_set *lin = msperf_index_bucket_set (c, b, axes, dim, target,
                                                   MSPERF_INTERP_AGGREGATE_MEDIAN,
                                                   MSPERF_INDEX_LINEAR);
  msperf_index_set *s = msperf_index_bucket_set (c, b, axes, dim, target,
                                                 MSPERF_INTERP_AGGREGATE_MEDIAN,
                                                 MSPERF_INDEX_LOG);

  for (int j = 0; j < dim; j++)
    for (size_t q = 0; q < n_t; q++)
      {
        double t = tvals[q] - 0.5 * (q % 2), lo1 = 99, hi1 = 99, lo2 = 98, hi2 = 98;
        gboolean ok1 = msperf_interp_find_boundary_strided (s->raw + j, s->n_filtered,
                                                            (size_t) dim, t, &lo1, &hi1);
        gboolean ok2 = msperf_index_set_raw_boundary (s, j, t, &lo2, &hi2);

        assert_int_equal (ok1, ok2);
        if (ok1)
          {
            assert_true (lo1 == lo2);
            assert_true (hi1 == hi2);
          }
        else
          assert_true (lo2 == 98 && hi2 == 98);
        assert_false (msperf_index_set_raw_boundary (lin, j, t, &lo2, &hi2));
      }
}

/* Every axis group and every target built from the bucket's values (plus values and unknowns
 * no point has): the set holds exactly the reference filter's points, in point order, and its
 * boundaries are msperf_interp_find_boundary's. */
static void
test_grouped_sets_equal_reference_filter (void **state)
{
  GString *csv = g_string_new ("A,B,C,F,Average Duration(us)\n");
  static const char *const avals[] = { "1", "2", "3", "-" };
  static const char *const bvals[] = { "10", "20", "-" };
  static const char *const cvals[] = { "-0", "0", "5", "7" };
  static const double tvals[] = { 1, 2, 3, 10, 20, 0, 5, 7, 4, NAN };
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_table) t = NULL;
  msperf_index_cache *c = msperf_index_cache_new ();
  msperf_index_bucket *b;
  const GPtrArray *buckets;
  msperf_index *idx;
  size_t checked = 0, nonempty = 0, row = 0;
  static const size_t groups[][3] = { { 0 }, { 1 }, { 2 }, { 0, 1 }, { 0, 2 }, { 1, 2 },
                                      { 0, 1, 2 } };
  static const int group_dim[] = { 1, 1, 1, 2, 2, 2, 3 };
  (void) state;

  /* Every combination twice (duplicates), fields 0/1 alternating, latencies 1, 2, 3, … */
  for (int rep = 0; rep < 2; rep++)
    for (size_t a = 0; a < G_N_ELEMENTS (avals); a++)
      for (size_t bb = 0; bb < G_N_ELEMENTS (bvals); bb++)
        for (size_t cc = 0; cc < G_N_ELEMENTS (cvals); cc++)
          g_string_append_printf (csv, "%s,%s,%s,%zu,%zu\n", avals[a], bvals[bb], cvals[cc],
                                  row % 2, row + 1), row++;
  t = msperf_table_load_data (csv->str, csv->len, "abc.csv", "Abc", &error);
  assert_non_null (t);
  idx = msperf_index_cache_get (c, abc_row, NULL, t, "abc", "h", -1, NULL);
  buckets = msperf_index_buckets (idx, "|abc");
  assert_non_null (buckets);
  b = g_ptr_array_index (buckets, 0);
  assert_int_equal (b->n, row);
  for (size_t gi = 0; gi < G_N_ELEMENTS (groups); gi++)
    for (size_t ta = 0; ta <= G_N_ELEMENTS (tvals); ta++)
      for (size_t tb = 0; tb <= G_N_ELEMENTS (tvals); tb++)
        for (size_t tc = 0; tc <= G_N_ELEMENTS (tvals); tc++)
          for (int64_t f = 0; f < 3; f++)
            {
              const size_t *axes = groups[gi];
              int dim = group_dim[gi];
              size_t tv[3] = { ta, tb, tc }, n = 0;
              msperf_point target;
              msperf_index_set *s;

              msperf_point_init (&target);
              for (int k = 0; k < 3; k++)
                {
                  gboolean known = tv[k] < G_N_ELEMENTS (tvals);
                  msperf_point_add_axis (&target, k == 0 ? "A" : k == 1 ? "B" : "C",
                                         known ? tvals[tv[k]] : 0.0, known);
                }
              msperf_point_add_field (&target, "F", f, MSPERF_MATCH_EXACT);
              s = msperf_index_bucket_set (c, b, axes, dim, &target,
                                           MSPERF_INTERP_AGGREGATE_MEDIAN, MSPERF_INDEX_LINEAR);
              for (size_t i = 0; i < b->n; i++)
                if (reference_passes (b, i, axes, dim, &target))
                  {
                    assert_true (n < s->n_filtered);
                    assert_int_equal (s->raw_lines[n], g_array_index (b->lines, guint, i));
                    for (int j = 0; j < dim; j++)
                      assert_true (s->raw[n * (size_t) dim + (size_t) j]
                                   == g_array_index (b->coords, double,
                                                     i * b->n_axes + axes[j]));
                    n++;
                  }
              assert_int_equal (n, s->n_filtered);
              nonempty += n > 0;
              /* Boundaries: the binary search equals find_boundary over the unique points
               * (bits included: -0 and 0 are both coordinates of C). */
              for (int j = 0; j < dim; j++)
                for (size_t q = 0; q < G_N_ELEMENTS (tvals); q++)
                  {
                    g_autofree double *col = g_new (double, s->n_unique + 1);
                    double lo1 = 99, hi1 = 99, lo2 = 99, hi2 = 99;
                    gboolean ok1, ok2;

                    for (size_t u = 0; u < s->n_unique; u++)
                      col[u] = s->coords[u * (size_t) dim + (size_t) j];
                    ok1 = msperf_interp_find_boundary (col, s->n_unique, tvals[q] - 0.5 * (q % 2),
                                                       &lo1, &hi1);
                    ok2 = msperf_index_set_boundary (s, j, tvals[q] - 0.5 * (q % 2), &lo2, &hi2);
                    assert_int_equal (ok1, ok2);
                    if (ok1)
                      {
                        assert_memory_equal (&lo1, &lo2, sizeof lo1);
                        assert_memory_equal (&hi1, &hi2, sizeof hi1);
                      }
                  }
              raw_boundaries_equal_scan (c, b, axes, dim, &target, tvals, G_N_ELEMENTS (tvals));
              checked++;
              msperf_point_clear (&target);
            }
  print_message ("grouped sets: %zu requests, %zu non-empty\n", checked, nonempty);
  assert_true (checked > 5000);
  assert_true (nonempty > 500);
  msperf_index_cache_free (c);
  g_string_free (csv, TRUE);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_golden_1d_matmul_h200_equals_numpy),
    cmocka_unit_test (test_golden_3d_matmul_h200_equals_scipy_griddata),
    cmocka_unit_test (test_max_interpolation_dim_1_blocks_2d_and_3d),
    cmocka_unit_test (test_group_order_1d_before_2d_across_layouts),
    cmocka_unit_test (test_2d_griddata_after_1d_failures),
    cmocka_unit_test (test_exact_hit_stays_measured),
    cmocka_unit_test (test_status_outside_axis_boundary),
    cmocka_unit_test (test_status_insufficient_filtered_candidates),
    cmocka_unit_test (test_status_outside_convex_hull),
    cmocka_unit_test (test_status_degenerate_point_cloud),
    cmocka_unit_test (test_status_interpolation_dim_disabled_by_kernel_override),
    cmocka_unit_test (test_duplicates_aggregated_by_median_with_counts),
    cmocka_unit_test (test_disable_switch_gives_exact_behaviour),
    cmocka_unit_test (test_mode_not_listed_is_not_interpolated),
    cmocka_unit_test (test_communication_untouched),
    cmocka_unit_test (test_index_cache_hit_on_second_query),
    cmocka_unit_test (test_cache_invalidated_when_csv_changes),
    cmocka_unit_test (test_batched_matmul_h_in_regime),
    cmocka_unit_test (test_nd_group_preferred_over_nz),
    cmocka_unit_test (test_swiglu_has_no_axis_extractor),
    cmocka_unit_test (test_matmul_batch_not_flattened),
    cmocka_unit_test (test_dtype_is_part_of_the_regime),
    cmocka_unit_test (test_generic_axis_0),
    cmocka_unit_test (test_generic_output_numel_by_policy),
    cmocka_unit_test (test_composite_part_interpolated),
    cmocka_unit_test (test_sqrt_seq_transform_in_the_index),
    cmocka_unit_test (test_grouped_sets_equal_reference_filter),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
