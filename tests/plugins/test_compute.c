/* Tests of the "compute" module through the engine, as a user queries it: one fixture row set
 * per matching rule of reference §2.4 (tests/data/compute/rules) and the self-lookup of every
 * MatMulV2 row of the sample H200 database. */
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
#define I8 MSPERF_DTYPE_INT8
#define I32 MSPERF_DTYPE_INT32
#define I64 MSPERF_DTYPE_INT64

static int
setup_rules (void **state)
{
  *state = tu_engine_new ("compute/rules", NULL);
  return 0;
}

/* Queries op (freed) and returns the result. */
static void
assert_hit (const msperf_result *r, double latency, const char *kernel, const char *rule)
{
  if (r->source != MSPERF_SOURCE_MEASURED)
    fail_msg ("expected a MEASURED hit, got %s (reason %s, base %s)",
              msperf_source_name (r->source), r->miss_reason ? r->miss_reason : "-",
              tu_detail_string (r, "base_reason") ? tu_detail_string (r, "base_reason") : "-");
  assert_float_equal (r->latency_us, latency, 1e-9);
  assert_float_equal (r->confidence, 1.0, 1e-12);
  assert_string_equal (r->kernel_type, kernel);
  assert_string_equal (r->shape_match_rule, rule);
  assert_string_equal (r->method, "exact");
  assert_string_equal (tu_detail_string (r, "kernel_type"), kernel);
}

static void
assert_miss (const msperf_result *r, const char *reason)
{
  assert_int_not_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_non_null (r->miss_reason);
  assert_string_equal (tu_detail_string (r, "base_reason"), reason);
}

static msperf_op *
mm (msperf_dtype dtype, const char *x, const char *w)
{
  msperf_op *op = tu_op ("aten.mm.default");

  tu_op_add_tensor (op, dtype, x);
  tu_op_add_tensor (op, dtype, w);
  return op;
}

static msperf_op *
generic (msperf_dtype dtype, const char *x)
{
  msperf_op *op = tu_op ("test.generic.default");

  tu_op_add_tensor (op, dtype, x);
  return op;
}

/* Golden: reference §6 "Compute" (upstream test_profiling_data_source.py): the MatMulV2 row
 * "136,5120;320,48,16,16" ND;FRACTAL_NZ answers (136,5120)x(5120,768) with 45.3 µs, identity. */
static void
test_compute_nz_restore_hits_golden_45_3 (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, mm (BF16, "136,5120", "5120,768"));

  assert_hit (r, 45.3, "MatMulV2", "identity");
  /* kernel shapes are the CSV shapes as written (NZ tiles kept) */
  assert_int_equal (r->kernel_shapes->len, 2);
  assert_int_equal (((msperf_tensor *) g_ptr_array_index (r->kernel_shapes, 1))->rank, 4);
  assert_int_equal (((msperf_tensor *) g_ptr_array_index (r->kernel_shapes, 1))->dims[0], 320);
}

static void
test_compute_identity_rule_matches_equal_shapes (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, generic (BF16, "7,7"));

  assert_hit (r, 1.0, "Generic", "identity");
}

static void
test_compute_batch_strip_rule_drops_leading_one (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, generic (BF16, "1,32,128"));

  assert_hit (r, 2.75, "Generic", "batch_strip");
}

static void
test_compute_transpose_rule_matches_nk_weight (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, mm (BF16, "64,1024", "1024,2048"));

  assert_hit (r, 11.0, "MatMulV2", "transpose");
}

static void
test_compute_batched_transpose_rule_matches_bmm (void **state)
{
  msperf_op *op = tu_op ("aten.bmm.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "8,64,128");
  tu_op_add_tensor (op, BF16, "8,128,256");
  r = tu_run (*state, op);
  assert_hit (r, 6.5, "BatchMatMulV2", "batched_transpose");
}

/* 144 = ceil(136/16)*16: reference §0 is_block_padded example. */
static void
test_compute_padding_rule_matches_block_padded_tokens (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, mm (BF16, "144,4096", "4096,1024"));
  g_autoptr (msperf_result) g = tu_run (*state, generic (BF16, "144,300"));

  assert_hit (r, 20.0, "MatMulV2", "padding");
  assert_hit (g, 5.5, "Generic", "padding");
}

static void
test_compute_batch_strip_padding_rule_strips_both_sides (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, generic (BF16, "1,144,400"));

  assert_hit (r, 6.5, "Generic", "batch_strip+padding");
}

static void
test_compute_flatten_3d_rule_matches_rms_norm (void **state)
{
  msperf_op *op = tu_op ("tensor_cast.rms_norm.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "2,2048,7168");
  tu_op_add_tensor (op, BF16, "7168");
  r = tu_run (*state, op);
  assert_hit (r, 12.0, "RmsNorm", "flatten_3d");
}

static msperf_op *
dynamic_quant (const char *x)
{
  msperf_op *op = tu_op ("tensor_cast.dynamic_quantize_symmetric.default");

  tu_op_add_tensor (op, BF16, x);
  tu_op_add_tensor (op, FP32, "128");
  return op;
}

/* Rank 3 tries kernel_types_by_input_rank[3] = [AscendQuantV2] first (its (a, b*c) merge
 * matches); rank 2 keeps the primary DynamicQuant first. tc_input_count 1 drops the scale on
 * both sides. */
static void
test_compute_kernel_types_by_input_rank_and_merge_last_dims (void **state)
{
  g_autoptr (msperf_result) r3 = tu_run (*state, dynamic_quant ("128,8,128"));
  g_autoptr (msperf_result) r2 = tu_run (*state, dynamic_quant ("128,1024"));

  assert_hit (r3, 6.0, "AscendQuantV2", "merge_last_dims");
  assert_hit (r2, 5.0, "DynamicQuant", "identity");
}

static void
test_compute_index_singleton_axis_transpose (void **state)
{
  msperf_op *op = tu_op ("aten.index.Tensor");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, I64, "1,9");
  r = tu_run (*state, op);
  assert_hit (r, 2.25, "Index", "singleton_axis_transpose");
}

/* (q BHSD, k BHSD, cos (1,S,D), sin (1,S,D)) against the kernel's (k, q) in BSND with
 * (1,S,1,D) tables. */
static void
test_compute_rope_swaps_qk_and_transposes (void **state)
{
  msperf_op *op = tu_op ("test.rope.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "2,8,16,64");
  tu_op_add_tensor (op, BF16, "2,2,16,64");
  tu_op_add_tensor (op, BF16, "1,16,64");
  tu_op_add_tensor (op, BF16, "1,16,64");
  r = tu_run (*state, op);
  assert_hit (r, 4.75, "ApplyRotaryPosEmb", "identity");
}

static void
test_compute_swiglu_merges_gate_and_up (void **state)
{
  msperf_op *op = tu_op ("tensor_cast.swiglu.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "1,128,2048");
  tu_op_add_tensor (op, BF16, "1,128,2048");
  r = tu_run (*state, op);
  assert_hit (r, 7.0, "SwiGlu", "identity");
}

static void
test_compute_reshape_and_cache_splits_kv_cache (void **state)
{
  msperf_op *op = tu_op ("tensor_cast.reshape_and_cache.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "64,128");
  tu_op_add_tensor (op, BF16, "64,128");
  tu_op_add_tensor (op, BF16, "2,100,128,1,128");
  tu_op_add_tensor (op, I32, "64");
  r = tu_run (*state, op);
  assert_hit (r, 5.25, "ReshapeAndCacheNdKernel", "identity");
}

/* MatMulV2 is in _DTYPE_RELAXED_KERNELS: an fp32 query matches a DT_BF16 row; Generic is not. */
static void
test_compute_dtype_relaxed_only_for_listed_kernels (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, mm (FP32, "48,256", "256,256"));
  g_autoptr (msperf_result) strict = tu_run (*state, generic (FP32, "11,11"));
  g_autoptr (msperf_result) unmapped = tu_run (*state, generic (MSPERF_DTYPE_UINT8, "11,11"));

  assert_hit (r, 3.25, "MatMulV2", "identity");
  assert_miss (strict, "shape_mismatch");
  assert_miss (unmapped, "shape_mismatch");
}

static void
test_compute_tc_input_count_truncates_both_sides (void **state)
{
  msperf_op *op = tu_op ("test.counted.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "16,32");
  tu_op_add_tensor (op, BF16, "32,64");
  tu_op_add_tensor (op, FP32, "999");
  r = tu_run (*state, op);
  assert_hit (r, 2.5, "Counted", "identity");
}

/* The primary CSV is absent (skipped); AltSecond wins over the cheaper AltThird by
 * kernel_index. */
static void
test_compute_alternates_tried_in_order (void **state)
{
  msperf_op *op = tu_op ("test.alternates.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "3,5");
  r = tu_run (*state, op);
  assert_hit (r, 5.0, "AltSecond", "identity");
}

/* Q4 fix: input 0 padded and input 1 transposed is a padded match (distance 1): the exact
 * MatMulV3 alternate wins; upstream ranked the MatMulV2 row as "transpose", distance 0. */
static void
test_compute_padding_distance_loses_to_exact_alternate (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, mm (BF16, "144,2048", "2048,512"));

  assert_hit (r, 33.0, "MatMulV3", "identity");
}

static void
test_compute_rule_name_joins_distinct_input_rules (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, mm (BF16, "144,2048", "2048,640"));

  assert_hit (r, 31.0, "MatMulV2", "padding+transpose");
}

/* Equal scores keep the earliest row, whatever its rule: the batch_strip row "5,6" comes before
 * the identity row "1,5,6"; of the two "7,7" rows the first (1.0) wins. */
static void
test_compute_ties_keep_earliest_row (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, generic (BF16, "1,5,6"));
  g_autoptr (msperf_result) r2 = tu_run (*state, generic (BF16, "7,7"));

  assert_hit (r, 3.0, "Generic", "batch_strip");
  assert_hit (r2, 1.0, "Generic", "identity");
}

static void
test_compute_require_semantic_unique_refuses_ambiguous_tie (void **state)
{
  msperf_op *op = tu_op ("test.ambiguous.default");
  msperf_op *op2 = tu_op ("test.ambiguous.default");
  g_autoptr (msperf_result) r = NULL;
  g_autoptr (msperf_result) r2 = NULL;

  tu_op_add_tensor (op, BF16, "3,3");
  tu_op_add_tensor (op2, BF16, "4,4");
  r = tu_run (*state, op);
  r2 = tu_run (*state, op2);
  assert_miss (r, "ambiguous_semantic_match:AmbiguousKernel");
  /* tied rows with the same latency are not ambiguous */
  assert_hit (r2, 1.0, "AmbiguousKernel", "identity");
}

static void
test_compute_degenerate_bmm_appends_kernel (void **state)
{
  msperf_op *op = tu_op ("aten.bmm.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "1,32,1");
  tu_op_add_tensor (op, BF16, "1,1,1000");
  r = tu_run (*state, op);
  assert_hit (r, 3.5, "Mul", "identity");
}

/* MIX_AIC row: 30 µs over max(aicore 10, aiv 12) = 2.5 > 1.5 → 12 µs; an AI_CORE row and a row
 * under the ratio (16/12) keep their duration. */
static void
test_compute_latency_core_envelope_fallback (void **state)
{
  msperf_op *a = tu_op ("test.envelope.default");
  msperf_op *b = tu_op ("test.envelope.default");
  msperf_op *c = tu_op ("test.envelope.default");
  g_autoptr (msperf_result) ra = NULL;
  g_autoptr (msperf_result) rb = NULL;
  g_autoptr (msperf_result) rc = NULL;

  tu_op_add_tensor (a, BF16, "8,8");
  tu_op_add_tensor (b, BF16, "9,9");
  tu_op_add_tensor (c, BF16, "10,10");
  ra = tu_run (*state, a);
  rb = tu_run (*state, b);
  rc = tu_run (*state, c);
  assert_hit (ra, 12.0, "EnvelopeKernel", "identity");
  assert_string_equal (tu_detail_string (ra, "latency_selection"),
                       "profiling_core_envelope_fallback");
  assert_hit (rb, 30.0, "EnvelopeKernel", "identity");
  assert_null (tu_detail_string (rb, "latency_selection"));
  assert_hit (rc, 16.0, "EnvelopeKernel", "identity");
  assert_null (tu_detail_string (rc, "latency_selection"));
}

/* Latency priority (reference §2.3 step 5): by default a row read from "Average Duration(us)"
 * (priority 0) beats one that fell through to "Profiling Average Duration(us)" (1);
 * prefer_profiling_rows reverses that. */
static void
test_compute_prefer_profiling_rows_changes_latency_priority (void **state)
{
  msperf_op *a = tu_op ("test.noprefer.default");
  msperf_op *b = tu_op ("test.prefer.default");
  g_autoptr (msperf_result) ra = NULL;
  g_autoptr (msperf_result) rb = NULL;

  tu_op_add_tensor (a, BF16, "6,6");
  tu_op_add_tensor (b, BF16, "6,6");
  ra = tu_run (*state, a);
  rb = tu_run (*state, b);
  assert_hit (ra, 5.0, "ProfilingDefault", "identity");
  assert_hit (rb, 7.0, "ProfilingPreferred", "identity");
}

/* Q3 fix: fp16 first matches DT_FLOAT16 rows; without one it is retried as DT_BF16 with
 * dtype_alias; bf16 never takes the fp16 row. */
static void
test_compute_fp16_prefers_float16_rows_then_retries_bf16 (void **state)
{
  msperf_op *a = tu_op ("test.half.default");
  msperf_op *b = tu_op ("test.half.default");
  msperf_op *c = tu_op ("test.half.default");
  g_autoptr (msperf_result) ra = NULL;
  g_autoptr (msperf_result) rb = NULL;
  g_autoptr (msperf_result) rc = NULL;

  tu_op_add_tensor (a, FP16, "20,20");
  tu_op_add_tensor (b, FP16, "10,10");
  tu_op_add_tensor (c, BF16, "20,20");
  ra = tu_run (*state, a);
  rb = tu_run (*state, b);
  rc = tu_run (*state, c);
  assert_hit (ra, 3.0, "Half", "identity");
  assert_null (tu_detail_string (ra, "dtype_alias"));
  assert_hit (rb, 2.0, "Half", "identity");
  assert_string_equal (tu_detail_string (rb, "dtype_alias"), "DT_FLOAT16->DT_BF16");
  assert_hit (rc, 9.0, "Half", "identity");
}

static void
test_compute_csv_not_found_and_shape_mismatch (void **state)
{
  msperf_op *op = tu_op ("test.missing.default");
  g_autoptr (msperf_result) r = NULL;
  g_autoptr (msperf_result) r2 = tu_run (*state, generic (BF16, "99,99"));

  tu_op_add_tensor (op, BF16, "3,5");
  r = tu_run (*state, op);
  assert_miss (r, "csv_not_found");
  assert_miss (r2, "shape_mismatch");
}

static msperf_op *
quant_linear (const char *x, const char *w, const char *out)
{
  msperf_op *op = tu_op ("tensor_cast.static_quant_linear.default");

  tu_op_add_tensor (op, I8, x);
  tu_op_add_tensor (op, I8, w);
  tu_op_add_tensor (op, I64, "7168");
  tu_op_add_out (op, BF16, out);
  return op;
}

/* K = 16384 is listed in logical_global_dims: with tp_size 2 it is queried as 8192; an unlisted
 * K stays physical-local; tp_size 1 leaves the listed K alone. */
static void
test_compute_tp_linear_projection_divides_listed_dim (void **state)
{
  static const char *const tp2[] = { "parallel.tp_size", "2", NULL };
  g_autoptr (msperf_engine) e = tu_engine_new ("compute/rules", tp2);
  g_autoptr (msperf_result) r = tu_run (e, quant_linear ("32,16384", "16384,7168", "32,7168"));
  g_autoptr (msperf_result) local = tu_run (e, quant_linear ("32,4096", "4096,7168", "32,7168"));
  g_autoptr (msperf_result) tp1 = tu_run (*state, quant_linear ("32,16384", "16384,7168",
                                                             "32,7168"));

  (void) state;
  assert_hit (r, 14.0, "QuantBatchMatmulV3", "identity");
  assert_string_equal (tu_detail_string (r, "tp_projection"), "input:16384/2");
  assert_hit (local, 9.0, "QuantBatchMatmulV3", "identity");
  assert_null (tu_detail_string (local, "tp_projection"));
  assert_hit (tp1, 25.0, "QuantBatchMatmulV3", "identity");
}

static void
test_compute_tp_linear_projection_invalid (void **state)
{
  static const char *const tp3[] = { "parallel.tp_size", "3", NULL };
  g_autoptr (msperf_engine) e = tu_engine_new ("compute/rules", tp3);
  g_autoptr (msperf_result) r = tu_run (e, quant_linear ("32,16384", "16384,7168", "32,7168"));
  msperf_op *bad = tu_op ("test.bad_tp.default");
  g_autoptr (msperf_result) rb = NULL;

  tu_op_add_tensor (bad, I8, "32,16384");
  tu_op_add_tensor (bad, I8, "16384,7168");
  rb = tu_run (*state, bad);
  assert_int_not_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_true (g_str_has_prefix (tu_detail_string (r, "base_reason"), "tp_projection_invalid:"));
  assert_miss (rb, "invalid_tp_linear_projection_rule");
}

/* (M,2H) x {2H,H} -> (M,H): answered by mtp_projection_kernel_type (MatMulV2) in the output
 * dtype (bf16) although the TC inputs are int8. */
static void
test_compute_mtp_projection_uses_bf16_matmul (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, quant_linear ("16,2048", "2048,1024", "16,1024"));
  g_autoptr (msperf_result) nk = tu_run (*state, quant_linear ("16,2048", "1024,2048", "16,1024"));

  assert_hit (r, 8.5, "MatMulV2", "identity");
  assert_true (tu_detail_bool (r, "mtp_projection"));
  /* the weight in the other orientation matches through the transpose rule */
  assert_hit (nk, 8.5, "MatMulV2", "transpose");
}

/* ----------------------------------------------------------- self-lookup of the sample DB */

typedef struct mm_key {
  int64_t m, k, n;
  msperf_dtype dtype;
} mm_key;

/* The row as the op a user writes: x [M,K], w [K,N], whatever layout the row stored. */
static gboolean
mm_row_key (const msperf_table *t, size_t row, mm_key *key)
{
  const msperf_slots *in = msperf_table_row_inputs (t, row);
  const msperf_slots *out = msperf_table_row_outputs (t, row);

  if (in->n != 2 || out->n != 1 || in->t[0].rank != 2 || out->t[0].rank != 2)
    return FALSE;
  key->m = in->t[0].dims[0];
  key->k = in->t[0].dims[1];
  key->n = out->t[0].dims[1];
  key->dtype = in->t[0].dtype;
  return TRUE;
}

/* Every MatMulV2 row of doc/examples/h200-db answers its own op with MEASURED and the latency
 * of the first row with the same (M, K, N, dtype): a [K,N]-stored row and an [N,K]-stored row
 * of one problem are equally good matches (identity / transpose, distance 0), so the earlier
 * one wins (reference §2.3 step 5). */
static void
test_compute_self_lookup_h200_matmul_every_row (void **state)
{
  g_autofree char *db = tu_srcdir_path ("doc/examples/h200-db");
  g_autofree char *csv = g_build_filename (db, "MatMulV2.csv", NULL);
  g_autoptr (msperf_engine) e = tu_engine_new (db, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_table) t = msperf_table_load (csv, "MatMulV2", &error);
  g_autofree mm_key *keys = NULL;
  size_t n, checked = 0;

  (void) state;
  assert_non_null (t);
  n = msperf_table_n_rows (t);
  /* SOURCE.md grid: 1092 MatMulV2 rows (1092 + 3 × 20 elementwise rows = 1152) */
  assert_int_equal (n, 1092);
  keys = g_new0 (mm_key, n);
  for (size_t row = 0; row < n; row++)
    {
      msperf_op *op;
      g_autoptr (msperf_result) r = NULL;
      char x[64], w[64];
      size_t first = row;

      assert_true (mm_row_key (t, row, &keys[row]));
      for (size_t j = 0; j < row; j++)
        if (memcmp (&keys[j], &keys[row], sizeof (mm_key)) == 0)
          {
            first = j;
            break;
          }
      g_snprintf (x, sizeof x, "%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, keys[row].m,
                  keys[row].k);
      g_snprintf (w, sizeof w, "%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, keys[row].k,
                  keys[row].n);
      op = mm (keys[row].dtype, x, w);
      r = tu_run (e, op);
      if (r->source != MSPERF_SOURCE_MEASURED
          || fabs (r->latency_us - msperf_table_row_latency (t, first)) > 1e-9)
        fail_msg ("row %zu (line %u) %s x %s: got %s %.6f, expected %.6f (row %zu)", row,
                  msperf_table_row_line (t, row), x, w, msperf_source_name (r->source),
                  r->latency_us, msperf_table_row_latency (t, first), first);
      checked++;
    }
  assert_int_equal (checked, 1092);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_compute_nz_restore_hits_golden_45_3),
    cmocka_unit_test (test_compute_identity_rule_matches_equal_shapes),
    cmocka_unit_test (test_compute_batch_strip_rule_drops_leading_one),
    cmocka_unit_test (test_compute_transpose_rule_matches_nk_weight),
    cmocka_unit_test (test_compute_batched_transpose_rule_matches_bmm),
    cmocka_unit_test (test_compute_padding_rule_matches_block_padded_tokens),
    cmocka_unit_test (test_compute_batch_strip_padding_rule_strips_both_sides),
    cmocka_unit_test (test_compute_flatten_3d_rule_matches_rms_norm),
    cmocka_unit_test (test_compute_kernel_types_by_input_rank_and_merge_last_dims),
    cmocka_unit_test (test_compute_index_singleton_axis_transpose),
    cmocka_unit_test (test_compute_rope_swaps_qk_and_transposes),
    cmocka_unit_test (test_compute_swiglu_merges_gate_and_up),
    cmocka_unit_test (test_compute_reshape_and_cache_splits_kv_cache),
    cmocka_unit_test (test_compute_dtype_relaxed_only_for_listed_kernels),
    cmocka_unit_test (test_compute_tc_input_count_truncates_both_sides),
    cmocka_unit_test (test_compute_alternates_tried_in_order),
    cmocka_unit_test (test_compute_padding_distance_loses_to_exact_alternate),
    cmocka_unit_test (test_compute_rule_name_joins_distinct_input_rules),
    cmocka_unit_test (test_compute_ties_keep_earliest_row),
    cmocka_unit_test (test_compute_require_semantic_unique_refuses_ambiguous_tie),
    cmocka_unit_test (test_compute_degenerate_bmm_appends_kernel),
    cmocka_unit_test (test_compute_latency_core_envelope_fallback),
    cmocka_unit_test (test_compute_prefer_profiling_rows_changes_latency_priority),
    cmocka_unit_test (test_compute_fp16_prefers_float16_rows_then_retries_bf16),
    cmocka_unit_test (test_compute_csv_not_found_and_shape_mismatch),
    cmocka_unit_test (test_compute_tp_linear_projection_divides_listed_dim),
    cmocka_unit_test (test_compute_tp_linear_projection_invalid),
    cmocka_unit_test (test_compute_mtp_projection_uses_bf16_matmul),
    cmocka_unit_test (test_compute_self_lookup_h200_matmul_every_row),
  };
  return cmocka_run_group_tests (tests, setup_rules, tu_teardown_engine);
}
