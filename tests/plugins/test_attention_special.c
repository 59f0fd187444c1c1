/* Tests of the "attention_special" module through the engine, as a user queries it: the
 * SparseFlashAttention goldens of reference §6, every TC-side miss reason and CSV-side rule of
 * §2.5 on fixture rows (tests/data/attention/rules, one head count N per scenario), the
 * decomposer (params) form, and the Q23 fix on the sample H200 database. */
#include <config.h>
#include <math.h>
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
#define FP16 MSPERF_DTYPE_FLOAT16
#define ATTN "tensor_cast.attention.default"

static int
setup_rules (void **state)
{
  *state = tu_engine_new ("attention/rules", NULL);
  return 0;
}

static int
setup_sfa (void **state)
{
  *state = tu_engine_new ("attention/sfa", NULL);
  return 0;
}

static int
setup_h200 (void **state)
{
  /* The sample rows under the upstream mapping (Makefile.am, upstream_db). */
  g_autofree char *db = g_strdup (g_getenv ("MSPERF_TEST_UPSTREAM_DB"));

  *state = tu_engine_new (db, NULL);
  return 0;
}

/* ---- building queries ---- */

static void
add_seq_lens (msperf_op *op, const int64_t *values, size_t n)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_TENSOR);
  char dims[32];

  g_snprintf (dims, sizeof dims, "%zu", n);
  tu_tensor (&v->tensor, MSPERF_DTYPE_INT64, dims);
  v->tensor.values = g_new0 (int64_t, n ? n : 1);
  v->tensor.n_values = n;
  if (n)
    memcpy (v->tensor.values, values, n * sizeof *values);
  g_ptr_array_add (op->args, v);
}

/* name(query, key, value=key, None, None, None, seq_lens=[avg], None). */
static msperf_op *
attn_named (const char *name, msperf_dtype dtype, const char *q, const char *k, int64_t avg)
{
  msperf_op *op = tu_op (name);

  tu_op_add_tensor (op, dtype, q);
  tu_op_add_tensor (op, dtype, k);
  tu_op_add_tensor (op, dtype, k);
  tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_none (op);
  add_seq_lens (op, &avg, 1);
  tu_op_add_none (op);
  return op;
}

static msperf_op *
attn (const char *q, const char *k, int64_t avg)
{
  return attn_named (ATTN, BF16, q, k, avg);
}

static void
set_kwarg_int (msperf_op *op, const char *key, int64_t value)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_INT);

  v->i = value;
  msperf_value_map_set (op->kwargs, key, v);
}

/* Queries op (freed) and returns the result. */
static void
assert_hit (const msperf_result *r, double latency, const char *kernel)
{
  if (r->source != MSPERF_SOURCE_MEASURED)
    fail_msg ("expected a MEASURED hit, got %s (reason %s, base %s)",
              msperf_source_name (r->source), r->miss_reason ? r->miss_reason : "-",
              tu_detail_string (r, "base_reason") ? tu_detail_string (r, "base_reason") : "-");
  assert_float_equal (r->latency_us, latency, 1e-9);
  /* reference §2.12: attention hits have confidence 0.9 */
  assert_float_equal (r->confidence, 0.9, 1e-12);
  assert_string_equal (r->kernel_type, kernel);
  assert_string_equal (r->shape_match_rule, "attention");
  assert_string_equal (r->method, "exact");
  assert_string_equal (tu_detail_string (r, "kernel_type"), kernel);
  assert_null (r->miss_reason);
}

/* An op miss goes on to the roofline; the module's reason stays in details.base_reason. */
static void
assert_miss (const msperf_result *r, const char *reason)
{
  assert_int_not_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_non_null (r->miss_reason);
  assert_string_equal (tu_detail_string (r, "base_reason"), reason);
}

/* ---- the params (decomposer) form ---- */

static msperf_value *
int_list (const char *csv)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);
  g_auto (GStrv) parts = g_strsplit (csv, ",", -1);

  for (int i = 0; parts[i]; i++)
    {
      msperf_value *v = msperf_value_new (MSPERF_VALUE_INT);

      v->i = g_ascii_strtoll (parts[i], NULL, 10);
      msperf_value_list_append (list, v);
    }
  return list;
}

static msperf_value *
params_new (const char *q_shape_3d, int64_t avg)
{
  msperf_value *p = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *a = msperf_value_new (MSPERF_VALUE_INT);
  msperf_value *d = msperf_value_new (MSPERF_VALUE_STRING);

  if (q_shape_3d)
    msperf_value_map_set (p, "q_shape_3d", int_list (q_shape_3d));
  a->i = avg;
  msperf_value_map_set (p, "avg_seq_len", a);
  d->s = g_strdup ("DT_BF16");
  msperf_value_map_set (p, "dtype", d);
  return p;
}

static void
p_int (msperf_value *p, const char *key, int64_t value)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_INT);

  v->i = value;
  msperf_value_map_set (p, key, v);
}

static void
p_str (msperf_value *p, const char *key, const char *value)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_STRING);

  v->s = g_strdup (value);
  msperf_value_map_set (p, key, v);
}

static void
p_required (msperf_value *p, const char *name)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);
  msperf_value *v = msperf_value_new (MSPERF_VALUE_STRING);

  v->s = g_strdup (name);
  msperf_value_list_append (list, v);
  msperf_value_map_set (p, "required_context_fields", list);
}

/* Answers an attention spec with params (taken) on kernel through the engine. */
static msperf_result *
sub (msperf_engine *e, const char *kernel, msperf_value *params, msperf_status *status)
{
  msperf_subquery *sq = msperf_subquery_new ("attention_special", kernel);
  g_autoptr (msperf_op) parent = tu_op ("tensor_cast.test_parent.default");
  msperf_result *r = msperf_result_new ();

  sq->params = params;
  *status = msperf_engine_subquery (e, parent, sq, r);
  msperf_subquery_free (sq);
  return r;
}

static void
assert_sub_hit (msperf_engine *e, const char *kernel, msperf_value *params, double latency)
{
  msperf_status st;
  g_autoptr (msperf_result) r = sub (e, kernel, params, &st);

  if (st != MSPERF_HIT)
    fail_msg ("expected a hit, got reason %s", r->miss_reason ? r->miss_reason : "-");
  assert_hit (r, latency, kernel);
}

static void
assert_sub_miss (msperf_engine *e, const char *kernel, msperf_value *params, const char *reason)
{
  msperf_status st;
  g_autoptr (msperf_result) r = sub (e, kernel, params, &st);

  assert_int_equal (st, MSPERF_MISS);
  assert_string_equal (r->miss_reason, reason);
}

/* ---- SparseFlashAttention goldens (reference §6, rows of §1.4) ---- */

/* query (27,16,512) TND, key (T,1,512): one KV head; sparse_mode 0 from the op's kwargs. */
static void
test_sfa_golden_avg_5000_gives_100 (void **state)
{
  msperf_op *op = attn ("27,16,512", "5000,1,512", 5000);
  g_autoptr (msperf_result) r = NULL;

  set_kwarg_int (op, "sparse_mode", 0);
  r = tu_run (*state, op);
  assert_hit (r, 100.0, "SparseFlashAttention");
  assert_float_equal (tu_detail_double (r, "avg_seq_len"), 5000, 0);
  assert_float_equal (tu_detail_double (r, "sparse_mode"), 0, 0);
  assert_float_equal (tu_detail_double (r, "num_kv_heads"), 1, 0);
  assert_string_equal (tu_detail_string (r, "input_layout"), "TND");
}

static void
test_sfa_golden_avg_10000_gives_200 (void **state)
{
  msperf_op *op = tu_op (ATTN);
  const int64_t seq[] = { 9000, 11000 };   /* mean 10000 */
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "27,16,512");
  tu_op_add_tensor (op, BF16, "20000,1,512");
  tu_op_add_tensor (op, BF16, "20000,1,512");
  tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_none (op);
  add_seq_lens (op, seq, 2);
  tu_op_add_none (op);
  set_kwarg_int (op, "sparse_mode", 0);
  r = tu_run (*state, op);
  assert_hit (r, 200.0, "SparseFlashAttention");
}

/* The same goldens through the decomposer form with the full sparse runtime parameters. */
static void
test_sfa_golden_through_params (void **state)
{
  msperf_value *p = params_new ("27,16,512", 5000);

  p_int (p, "sparse_mode", 0);
  p_int (p, "num_kv_heads", 1);
  p_str (p, "input_layout", "TND");
  p_int (p, "topk", 2048);
  p_int (p, "block_size", 128);
  assert_sub_hit (*state, "SparseFlashAttention", p, 100.0);

  p = params_new ("27,16,512", 10000);
  p_int (p, "sparse_mode", 0);
  p_int (p, "topk", 2048);
  assert_sub_hit (*state, "SparseFlashAttention", p, 200.0);

  /* topk is an exact filter: another topk finds no row */
  p = params_new ("27,16,512", 10000);
  p_int (p, "topk", 1024);
  assert_sub_miss (*state, "SparseFlashAttention", p, "shape_mismatch");
}

/* ---- TC-side miss reasons (§2.5 "TC side") ---- */

static void
test_tc_fewer_than_7_args_is_insufficient_args (void **state)
{
  msperf_op *op = tu_op (ATTN);
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "128,8,64");
  tu_op_add_tensor (op, BF16, "128,8,64");
  tu_op_add_tensor (op, BF16, "128,8,64");
  tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_none (op);
  r = tu_run (*state, op);
  assert_miss (r, "insufficient_args");
}

static void
test_tc_query_not_tensor (void **state)
{
  msperf_op *op = attn ("128,8,64", "128,8,64", 128);
  g_autoptr (msperf_result) r = NULL;

  msperf_value_free (g_ptr_array_index (op->args, 0));
  g_ptr_array_index (op->args, 0) = msperf_value_new (MSPERF_VALUE_NONE);
  r = tu_run (*state, op);
  assert_miss (r, "query_not_tensor");
}

static void
test_tc_unmapped_dtype_is_dtype_unmapped (void **state)
{
  /* float64 is outside the dtype map (FP8 is mapped since the imported FP8 tables) */
  g_autoptr (msperf_result) r = tu_run (*state, attn_named (ATTN, MSPERF_DTYPE_FLOAT64,
                                                         "128,8,64", "128,8,64", 128));

  assert_miss (r, "dtype_unmapped");
}

static void
test_tc_q_shape_normalize_failed (void **state)
{
  /* 4-D with dim 2 != 1 */
  g_autoptr (msperf_result) r1 = tu_run (*state, attn ("4,8,2,64", "4,2,256,64", 256));
  /* 2-D (T, H) with H not a multiple of head_dim 64 */
  g_autoptr (msperf_result) r2 = tu_run (*state, attn ("128,500", "128,8,64", 128));
  /* 5-D */
  g_autoptr (msperf_result) r3 = tu_run (*state, attn ("1,4,8,1,64", "4,2,256,64", 256));

  assert_miss (r1, "q_shape_normalize_failed");
  assert_miss (r2, "q_shape_normalize_failed");
  assert_miss (r3, "q_shape_normalize_failed");
}

static void
test_tc_seq_lens_missing (void **state)
{
  msperf_op *op = attn ("128,8,64", "128,8,64", 128);
  msperf_op *op2 = attn ("128,8,64", "128,8,64", 128);
  g_autoptr (msperf_result) r = NULL;
  g_autoptr (msperf_result) r2 = NULL;
  msperf_value *v;

  /* seq_lens None */
  msperf_value_free (g_ptr_array_index (op->args, 6));
  g_ptr_array_index (op->args, 6) = msperf_value_new (MSPERF_VALUE_NONE);
  r = tu_run (*state, op);
  assert_miss (r, "missing_seq_lens");

  /* seq_lens a tensor without values */
  v = g_ptr_array_index (op2->args, 6);
  g_clear_pointer (&v->tensor.values, g_free);
  v->tensor.n_values = 0;
  r2 = tu_run (*state, op2);
  assert_miss (r2, "missing_seq_lens");
}

static void
test_tc_seq_lens_empty_or_negative_is_invalid (void **state)
{
  msperf_op *op = attn ("128,8,64", "128,8,64", 128);
  msperf_op *op2 = attn ("128,8,64", "128,8,64", -1);
  g_autoptr (msperf_result) r = NULL;
  g_autoptr (msperf_result) r2 = NULL;
  msperf_value *v = g_ptr_array_index (op->args, 6);

  /* values present but empty: mean of nothing */
  v->tensor.n_values = 0;
  v->tensor.dims[0] = 0;
  r = tu_run (*state, op);
  assert_miss (r, "invalid_seq_lens");
  r2 = tu_run (*state, op2);
  assert_miss (r2, "invalid_seq_lens");
}

/* ---- CSV side ---- */

static void
test_prefill_tnd_hits_row (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, attn ("128,8,64", "128,8,64", 128));

  assert_hit (r, 10.0, "FusedInferAttentionScore");
  assert_float_equal (tu_detail_double (r, "num_kv_heads"), 8, 0);
  /* no kwargs and the default policy (null): no sparse-mode filter, detail null */
  assert_true (isnan (tu_detail_double (r, "sparse_mode")));
  assert_non_null (msperf_value_lookup (msperf_result_details (r), "sparse_mode"));
}

static void
test_2d_query_splits_by_key_head_dim (void **state)
{
  /* (128, 512) with head_dim 64 from the key -> (128, 8, 64); no layout filter */
  g_autoptr (msperf_result) r = tu_run (*state, attn ("128,512", "128,8,64", 128));

  assert_hit (r, 10.0, "FusedInferAttentionScore");
  assert_null (tu_detail_string (r, "input_layout"));
}

/* Q23: a BNSD key (B, KVH, S, D) gives KVH = shape[1]; upstream's shape[-2] would be S = 256. */
static void
test_bnsd_decode_kv_heads_from_key_dim_1 (void **state)
{
  g_autoptr (msperf_result) r2 = tu_run (*state, attn ("4,8,1,64", "4,2,256,64", 256));
  g_autoptr (msperf_result) r8 = tu_run (*state, attn ("4,8,1,64", "4,8,256,64", 256));

  assert_hit (r2, 20.0, "FusedInferAttentionScore");
  assert_float_equal (tu_detail_double (r2, "num_kv_heads"), 2, 0);
  assert_string_equal (tu_detail_string (r2, "input_layout"), "BNSD_NBSD");
  assert_hit (r8, 30.0, "FusedInferAttentionScore");
}

/* Q23: the upstream constant sparse_mode 3 is restorable by policy and then makes the decode
 * rows (sparse_mode 0) miss; an op that passes sparse_mode overrides the policy. */
static void
test_sparse_mode_policy_default_and_kwarg (void **state)
{
  const char *const overrides[] = { "interpolation.attention.sparse_mode_default", "3", NULL };
  g_autoptr (msperf_engine) e = tu_engine_new ("attention/rules", overrides);
  g_autoptr (msperf_result) r = tu_run (e, attn ("4,8,1,64", "4,2,256,64", 256));
  msperf_op *op = attn ("4,8,1,64", "4,2,256,64", 256);
  g_autoptr (msperf_result) r2 = NULL;
  g_autoptr (msperf_result) r3 = tu_run (e, attn ("128,8,64", "128,8,64", 128));

  (void) state;
  assert_miss (r, "shape_mismatch");
  set_kwarg_int (op, "sparse_mode", 0);
  r2 = tu_run (e, op);
  assert_hit (r2, 20.0, "FusedInferAttentionScore");
  assert_float_equal (tu_detail_double (r2, "sparse_mode"), 0, 0);
  /* prefill rows carry sparse_mode 3 and still hit */
  assert_hit (r3, 10.0, "FusedInferAttentionScore");
  assert_float_equal (tu_detail_double (r3, "sparse_mode"), 3, 0);
}

/* Q7: |target - row| <= 16 inclusive (row avg 1000). */
static void
test_avg_seq_len_tolerance_16_inclusive (void **state)
{
  g_autoptr (msperf_result) up16 = tu_run (*state, attn ("128,4,64", "128,4,64", 1016));
  g_autoptr (msperf_result) up17 = tu_run (*state, attn ("128,4,64", "128,4,64", 1017));
  g_autoptr (msperf_result) down16 = tu_run (*state, attn ("128,4,64", "128,4,64", 984));
  g_autoptr (msperf_result) down17 = tu_run (*state, attn ("128,4,64", "128,4,64", 983));

  assert_hit (up16, 40.0, "FusedInferAttentionScore");
  assert_float_equal (tu_detail_double (up16, "avg_seq_len_gap"), 16, 0);
  assert_miss (up17, "shape_mismatch");
  assert_hit (down16, 40.0, "FusedInferAttentionScore");
  assert_miss (down17, "shape_mismatch");
}

/* Q6: the TC side truncates int(mean(seq_lens)): mean(1016, 1017) = 1016.5 -> 1016 hits. */
static void
test_tc_avg_seq_len_truncates_mean (void **state)
{
  msperf_op *op = tu_op (ATTN);
  const int64_t seq[] = { 1016, 1017 };
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "128,4,64");
  tu_op_add_tensor (op, BF16, "128,4,64");
  tu_op_add_tensor (op, BF16, "128,4,64");
  tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_none (op);
  add_seq_lens (op, seq, 2);
  r = tu_run (*state, op);
  assert_hit (r, 40.0, "FusedInferAttentionScore");
  assert_float_equal (tu_detail_double (r, "avg_seq_len"), 1016, 0);
}

/* Q8: token count T matches block-padded in either direction (144 = 136 rounded to 16). */
static void
test_token_padding_both_directions (void **state)
{
  g_autoptr (msperf_result) tc144 = tu_run (*state, attn ("144,2,64", "144,2,64", 500));
  g_autoptr (msperf_result) tc136 = tu_run (*state, attn ("136,2,64", "136,2,64", 700));
  g_autoptr (msperf_result) tc140 = tu_run (*state, attn ("140,2,64", "140,2,64", 500));

  assert_hit (tc144, 50.0, "FusedInferAttentionScore");  /* row T 136 */
  assert_true (tu_detail_bool (tc144, "token_padded"));
  assert_hit (tc136, 51.0, "FusedInferAttentionScore");  /* row T 144 */
  assert_miss (tc140, "shape_mismatch");                 /* 140 is no padding of 136 */
}

/* msperf tie-break: at equal gap an exact token count beats a block-padded one (upstream keeps
 * the earliest row, here the batch-1 row whose T 1 pads to 16). */
static void
test_exact_token_count_beats_padded_on_tie (void **state)
{
  g_autoptr (msperf_result) b16 = tu_run (*state, attn ("16,20,1,64", "16,4,512,64", 512));
  g_autoptr (msperf_result) b8 = tu_run (*state, attn ("8,20,1,64", "8,4,512,64", 512));

  assert_hit (b16, 111.0, "FusedInferAttentionScore");
  assert_false (tu_detail_bool (b16, "token_padded"));
  /* batch 8 has no exact row: T 16 is 8 padded to 16 */
  assert_hit (b8, 111.0, "FusedInferAttentionScore");
  assert_true (tu_detail_bool (b8, "token_padded"));
}

/* §2.3: distance = gap + 0.5 * legacy; an enriched row beats an earlier legacy row at the same
 * gap, and a smaller gap beats the penalty (legacy gap 0 = 0.5 < enriched gap 1). */
static void
test_legacy_penalty_orders_candidates (void **state)
{
  g_autoptr (msperf_result) same_gap = tu_run (*state, attn ("64,6,64", "64,6,64", 300));
  g_autoptr (msperf_result) smaller_gap = tu_run (*state, attn ("64,6,64", "64,6,64", 320));

  assert_hit (same_gap, 61.0, "FusedInferAttentionScore");
  assert_hit (smaller_gap, 62.0, "FusedInferAttentionScore");
}

/* Optional exact filters on the op path: a blank sparse_mode / num_key_value_heads /
 * input_layout cell rejects the row once the target value is known, and passes when it is not. */
static void
test_blank_filter_cells (void **state)
{
  msperf_op *with_sparse = attn ("100,10,64", "100,10,64", 100);
  g_autoptr (msperf_result) sparse_known = NULL;
  g_autoptr (msperf_result) sparse_unknown = tu_run (*state, attn ("100,10,64", "100,10,64", 100));
  g_autoptr (msperf_result) kvh_known = tu_run (*state, attn ("200,10,64", "200,10,64", 100));
  /* a 1-D key gives head_dim 64 but no KV-head count; a 2-D query gives no layout */
  g_autoptr (msperf_result) kvh_unknown = tu_run (*state, attn ("200,640", "64", 100));
  g_autoptr (msperf_result) layout_known = tu_run (*state, attn ("300,10,64", "300,10,64", 100));
  g_autoptr (msperf_result) layout_unknown = tu_run (*state, attn ("300,640", "300,10,64", 100));

  set_kwarg_int (with_sparse, "sparse_mode", 3);
  sparse_known = tu_run (*state, with_sparse);
  assert_miss (sparse_known, "shape_mismatch");
  assert_hit (sparse_unknown, 100.0, "FusedInferAttentionScore");
  assert_miss (kvh_known, "shape_mismatch");
  assert_hit (kvh_unknown, 101.0, "FusedInferAttentionScore");
  assert_true (isnan (tu_detail_double (kvh_unknown, "num_kv_heads")));
  /* Q16: a blank Runtime input_layout never equals a known layout */
  assert_miss (layout_known, "shape_mismatch");
  assert_hit (layout_unknown, 102.0, "FusedInferAttentionScore");
}

/* Q3: float16 matches DT_FLOAT16 rows first, else retries as DT_BF16 with dtype_alias. */
static void
test_dtype_fp16_exact_then_bf16_retry (void **state)
{
  g_autoptr (msperf_result) fp16 = tu_run (*state, attn_named (ATTN, FP16, "64,12,64", "64,12,64",
                                                            100));
  g_autoptr (msperf_result) alias = tu_run (*state, attn_named (ATTN, FP16, "64,14,64", "64,14,64",
                                                             100));
  g_autoptr (msperf_result) bf16 = tu_run (*state, attn ("64,12,64", "64,12,64", 100));

  assert_hit (fp16, 95.0, "FusedInferAttentionScore");
  assert_null (tu_detail_string (fp16, "dtype_alias"));
  assert_hit (alias, 96.0, "FusedInferAttentionScore");
  assert_string_equal (tu_detail_string (alias, "dtype_alias"), "DT_FLOAT16->DT_BF16");
  /* the first Input Data Types string must equal the query dtype */
  assert_miss (bf16, "shape_mismatch");
}

/* Nearest selection over primary and alternates: distance first, then kernel order. */
static void
test_alternates_nearest_then_primary_on_tie (void **state)
{
  g_autoptr (msperf_result) nearer_alt =
    tu_run (*state, attn_named ("test.attention_alt.default", BF16, "32,16,64", "32,16,64", 1000));
  g_autoptr (msperf_result) tie =
    tu_run (*state, attn_named ("test.attention_alt.default", BF16, "32,16,64", "32,16,64", 2000));

  assert_hit (nearer_alt, 81.0, "AttnAlternate");   /* gap 0 beats the primary's gap 10 */
  assert_hit (tie, 83.0, "AttnPrimary");            /* equal distance: primary first */
}

/* reference §1.3: a MIX_AIC row whose duration exceeds 1.5× max(aicore, aiv) answers with
 * max(aicore, aiv) = 120.0 (not 300.0) and says so in latency_selection. */
static void
test_envelope_fallback_sets_latency_selection (void **state)
{
  g_autoptr (msperf_result) r =
    tu_run (*state, attn_named ("test.attention_envelope.default", BF16, "32,20,64", "32,20,64",
                                1000));

  assert_hit (r, 120.0, "EnvelopeAttn");
  assert_string_equal (tu_detail_string (r, "latency_selection"),
                       "profiling_core_envelope_fallback");
}

/* Q22: require_semantic_unique refuses tied rows with different latencies. */
static void
test_require_semantic_unique (void **state)
{
  g_autoptr (msperf_result) ambiguous =
    tu_run (*state, attn_named ("test.attention_ambiguous.default", BF16, "32,16,64", "32,16,64",
                             1000));
  g_autoptr (msperf_result) same_latency =
    tu_run (*state, attn_named ("test.attention_ambiguous.default", BF16, "32,16,64", "32,16,64",
                             500));
  g_autoptr (msperf_result) no_flag =
    tu_run (*state, attn_named ("test.attention_tie.default", BF16, "32,16,64", "32,16,64", 1000));

  assert_miss (ambiguous, "ambiguous_semantic_match:AmbiguousAttn");
  assert_hit (same_latency, 92.0, "AmbiguousAttn");
  assert_hit (no_flag, 90.0, "TieAttn");            /* without the flag the earliest row wins */
}

static void
test_missing_csv_is_csv_not_found (void **state)
{
  g_autoptr (msperf_result) r =
    tu_run (*state, attn_named ("test.attention_nocsv.default", BF16, "32,16,64", "32,16,64", 1));

  assert_miss (r, "csv_not_found");
}

static void
test_csv_without_avg_column_is_semantic_context_missing (void **state)
{
  g_autoptr (msperf_result) r =
    tu_run (*state, attn_named ("test.attention_noavg.default", BF16, "32,16,64", "32,16,64", 1));

  assert_miss (r, "semantic_context_missing:csv:Runtime avg_seq_len");
}

/* Legacy `avg_seq_len` column: int(float(cell)) truncates (115.9 -> 115, gap 16 from 99: a
 * hit; rounding would give 116, gap 17); negative, blank and NaN cells skip the row. */
static void
test_legacy_avg_column_truncates_and_skips_bad_rows (void **state)
{
  g_autoptr (msperf_result) trunc_hit =
    tu_run (*state, attn_named ("test.attention_legacy.default", BF16, "64,5,32", "64,5,32", 99));
  g_autoptr (msperf_result) skipped =
    tu_run (*state, attn_named ("test.attention_legacy.default", BF16, "64,3,32", "64,3,32", 0));

  assert_hit (trunc_hit, 73.0, "LegacyAttn");
  assert_miss (skipped, "shape_mismatch");
}

/* ---- params-form filters (FilterAttn.csv; §2.5 step 6) ---- */

static void
test_params_int_and_phase_filters (void **state)
{
  msperf_value *p;

  /* no runtime target: the three N=1 rows tie, the earliest (blank topk/phase) wins */
  assert_sub_hit (*state, "FilterAttn", params_new ("8,1,64", 1000), 3.0);
  p = params_new ("8,1,64", 1000);
  p_int (p, "topk", 1024);
  assert_sub_hit (*state, "FilterAttn", p, 2.0);
  /* a blank topk cell rejects the row once topk is known */
  p = params_new ("8,1,64", 1000);
  p_int (p, "topk", 2048);
  assert_sub_hit (*state, "FilterAttn", p, 1.0);
  p = params_new ("8,1,64", 1000);
  p_int (p, "block_size", 64);
  assert_sub_miss (*state, "FilterAttn", p, "shape_mismatch");
  /* phase is compared lower-cased ("Decode" row); the blank phase row is rejected (Q16) */
  p = params_new ("8,1,64", 1000);
  p_str (p, "phase", "decode");
  assert_sub_hit (*state, "FilterAttn", p, 1.0);
  p = params_new ("8,1,64", 1000);
  p_str (p, "phase", "prefill");
  assert_sub_miss (*state, "FilterAttn", p, "shape_mismatch");
}

static void
test_params_list_filter_blank_cell_passes (void **state)
{
  msperf_value *p = params_new ("8,2,64", 1000);

  msperf_value_map_set (p, "actual_seq_lengths_kv", int_list ("1000,1000"));
  assert_sub_hit (*state, "FilterAttn", p, 10.0);
  p = params_new ("8,2,64", 1000);
  msperf_value_map_set (p, "actual_seq_lengths_kv", int_list ("999,1001"));
  assert_sub_hit (*state, "FilterAttn", p, 11.0);   /* only the blank cell passes */
  /* a required field rejects blank cells too */
  p = params_new ("8,2,64", 1000);
  msperf_value_map_set (p, "actual_seq_lengths_kv", int_list ("999,1001"));
  p_required (p, "actual_seq_lengths_kv");
  assert_sub_miss (*state, "FilterAttn", p, "shape_mismatch");
}

static void
test_params_lenient_filters (void **state)
{
  msperf_value *p = params_new ("8,3,64", 1000);

  p_str (p, "kv_cache_mode", "paged");
  assert_sub_hit (*state, "FilterAttn", p, 20.0);
  p = params_new ("8,3,64", 1000);
  p_str (p, "kv_cache_mode", "non_paged_direct");
  assert_sub_hit (*state, "FilterAttn", p, 21.0);
  p = params_new ("8,3,64", 1000);
  p_int (p, "num_heads", 4);
  assert_sub_hit (*state, "FilterAttn", p, 21.0);
  /* runtime params may sit in a nested runtime_params map */
  p = params_new ("8,3,64", 1000);
  {
    msperf_value *rt = msperf_value_new (MSPERF_VALUE_MAP);

    p_str (rt, "kv_cache_mode", "non_paged_direct");
    msperf_value_map_set (p, "runtime_params", rt);
  }
  assert_sub_hit (*state, "FilterAttn", p, 21.0);
}

static void
test_params_required_context_fields (void **state)
{
  msperf_value *p = params_new ("8,1,64", 1000);

  p_required (p, "topk");
  assert_sub_miss (*state, "FilterAttn", p, "semantic_context_missing:target:topk");
  p = params_new ("8,1,64", 1000);
  p_str (p, "sparse_indices_pattern", "block");
  p_required (p, "sparse_indices_pattern");
  assert_sub_miss (*state, "FilterAttn", p,
                   "semantic_context_missing:csv:Runtime sparse_indices_pattern");
  /* the legacy context is always there */
  p = params_new ("8,1,64", 1000);
  p_required (p, "avg_seq_len");
  assert_sub_hit (*state, "FilterAttn", p, 3.0);
  /* params without q_shape_3d */
  assert_sub_miss (*state, "FilterAttn", params_new (NULL, 1000),
                   "semantic_context_missing:target:q_shape_3d");
}

/* ---- Q23 on the sample database (doc/examples/h200-db) ---- */

/* The decode line of doc/examples/traces/llama3-8b-decode.jsonl: query (16,32,1,128), key and
 * value (16,8,4096,128) bf16, seq_lens 16 x 4096. Row 310 of FusedInferAttentionScore.csv
 * ("16,32,1,128;16,8,4096,128;…", avg 4096, 8 KV heads, sparse_mode 0, BNSD_NBSD) measured
 * 64.297800 µs; the 32-KV-head row next to it (242.622400) must not answer. */
static void
test_h200_llama3_decode_bnsd_exact (void **state)
{
  msperf_op *op = tu_op (ATTN);
  int64_t seq[16], ql[16];
  g_autoptr (msperf_result) r = NULL;

  for (int i = 0; i < 16; i++)
    {
      seq[i] = 4096;
      ql[i] = 1;
    }
  tu_op_add_tensor (op, BF16, "16,32,1,128");
  tu_op_add_tensor (op, BF16, "16,8,4096,128");
  tu_op_add_tensor (op, BF16, "16,8,4096,128");
  tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_none (op);
  add_seq_lens (op, seq, 16);
  add_seq_lens (op, ql, 16);
  tu_op_add_out (op, BF16, "16,32,1,128");
  r = tu_run (*state, op);
  assert_hit (r, 64.2978, "FusedInferAttentionScore");
  assert_float_equal (tu_detail_double (r, "num_kv_heads"), 8, 0);
  assert_float_equal (tu_detail_double (r, "avg_seq_len"), 4096, 0);
  assert_false (tu_detail_bool (r, "token_padded"));
  /* kernel_shapes: the CSV query slot as written */
  assert_int_equal (r->kernel_shapes->len, 1);
  assert_int_equal (((msperf_tensor *) g_ptr_array_index (r->kernel_shapes, 0))->rank, 4);
}

/* The prefill line of doc/examples/traces/llama3-8b-prefill.jsonl: query (2048,32,128), key
 * and value (2048,8,128), seq_lens [2048]. Row 343 ("2048,32,128;2048,8,128;…", avg 2048,
 * 8 KV heads, sparse_mode 3, TND) measured 83.357700 µs; row 39 (32 KV heads, 82.755800) is
 * filtered out by the KV-head count. */
static void
test_h200_llama3_prefill_tnd_exact (void **state)
{
  msperf_op *op = tu_op (ATTN);
  const int64_t seq = 2048;
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "2048,32,128");
  tu_op_add_tensor (op, BF16, "2048,8,128");
  tu_op_add_tensor (op, BF16, "2048,8,128");
  tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_none (op);
  add_seq_lens (op, &seq, 1);
  add_seq_lens (op, &seq, 1);
  tu_op_add_out (op, BF16, "2048,32,128");
  r = tu_run (*state, op);
  assert_hit (r, 83.3577, "FusedInferAttentionScore");
  assert_string_equal (tu_detail_string (r, "input_layout"), "TND");
}

/* ---- interpolation axes (seed 000 §5.6, reference §4.5, quirk Q26; attention_axes.c) ---- */

#include "app/report/holdout_report.h"
#include "engine/interpolate.h"
#include "engine/interpolation_stage.h"

static int
setup_axes (void **state)
{
  *state = tu_engine_new ("attention/axes", NULL);
  return 0;
}

static int
setup_axes_literal (void **state)
{
  static const char *const overrides[] = {
    "interpolation.attention.query_length_rule", "literal_tokens", NULL
  };

  *state = tu_engine_new ("attention/axes", overrides);
  return 0;
}

/* A TND attention op: query (T, n, d), key and value (kv_len, kv, d), seq_lens = batch × seq. */
static msperf_op *
attn_batch (int64_t tokens, int64_t n, int64_t kv, int64_t d, int64_t batch, int64_t seq)
{
  msperf_op *op = tu_op (ATTN);
  g_autofree char *q = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
                                        G_GINT64_FORMAT, tokens, n, d);
  g_autofree char *k = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
                                        G_GINT64_FORMAT, batch * seq, kv, d);
  g_autofree int64_t *lens = g_new (int64_t, batch);

  for (int64_t i = 0; i < batch; i++)
    lens[i] = seq;
  tu_op_add_tensor (op, BF16, q);
  tu_op_add_tensor (op, BF16, k);
  tu_op_add_tensor (op, BF16, k);
  tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_none (op);
  add_seq_lens (op, lens, (size_t) batch);
  tu_op_add_none (op);
  tu_op_add_out (op, BF16, q);
  return op;
}

static void
assert_interpolated (const msperf_result *r, double latency, const char *method)
{
  if (r->source != MSPERF_SOURCE_INTERPOLATED)
    fail_msg ("expected INTERPOLATED, got %s (reason %s)", msperf_source_name (r->source),
              r->miss_reason ? r->miss_reason : "-");
  assert_string_equal (r->method, method);
  assert_float_equal (r->latency_us, latency, 1e-12 * latency);
}

static const msperf_value *
detail (const msperf_result *r, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);
  const msperf_value *v = msperf_result_details (r);

  for (int i = 0; parts[i] && v; i++)
    v = msperf_value_lookup (v, parts[i]);
  if (v == NULL)
    fail_msg ("no detail %s", path);
  return v;
}

static int64_t
detail_int (const msperf_result *r, const char *path)
{
  int64_t i = 0;

  assert_true (msperf_value_get_int (detail (r, path), &i));
  return i;
}

/* The coordinates every row of the fixture was described with, read back through the holdout
 * samples (one per coordinate, in CSV order). */
static const msperf_holdout_sample *
row_sample (const msperf_holdout_report *rep, guint line)
{
  for (guint k = 0; k < rep->samples->len; k++)
    if (((msperf_holdout_sample *) g_ptr_array_index (rep->samples, k))->line == line)
      return g_ptr_array_index (rep->samples, k);
  fail_msg ("CSV line %u is not a candidate point", line);
  abort ();
}

static int64_t
sample_field (const msperf_holdout_sample *s, const char *name)
{
  for (size_t f = 0; f < s->n_fields; f++)
    if (strcmp (s->field_names[f], name) == 0)
      return s->fields[f];
  fail_msg ("no field %s", name);
  abort ();
}

/* Rows of tests/data/attention/axes: seq, batch (from the per-sequence list when its shape
 * cell agrees, else unknown), heads, head_dim; query_len = T ÷ batch, 0 for prefill without
 * cache (attn_state prefill_no_cache, or no attn_state and query length = seq). */
static void
test_axes_rows_seq_batch_heads_query_len (void **state)
{
  msperf_holdout_options o = { 0 };
  g_autoptr (msperf_holdout_report) rep = NULL;
  const msperf_holdout_sample *s;

  o.leave_one_out = TRUE;
  rep = msperf_holdout_run (*state, &o, NULL);
  assert_non_null (rep);
  assert_int_equal (rep->samples->len, 8);

  s = row_sample (rep, 2);   /* prefill_no_cache, list "1" / "1024" */
  assert_string_equal (s->regime, "|attention|FusedInferAttentionScore|dtype=DT_BF16|layout=TND");
  assert_int_equal (s->n_axes, 4);
  assert_string_equal (s->axis_names[0], "seq");
  assert_string_equal (s->axis_names[1], "batch");
  assert_string_equal (s->axis_names[2], "heads");
  assert_string_equal (s->axis_names[3], "head_dim");
  assert_float_equal (s->axes[0], 1024, 0);
  assert_float_equal (s->axes[1], 1, 0);
  assert_float_equal (s->axes[2], 8, 0);
  assert_float_equal (s->axes[3], 64, 0);
  assert_int_equal (sample_field (s, "query_len"), 0);
  assert_int_equal (sample_field (s, "sparse_mode"), 3);
  assert_int_equal (sample_field (s, "kv_heads"), 8);

  s = row_sample (rep, 4);   /* chunked: T 64 over a list of 2 → query_len 32 */
  assert_float_equal (s->axes[0], 1000, 0);
  assert_float_equal (s->axes[1], 2, 0);
  assert_int_equal (sample_field (s, "query_len"), 32);
  assert_int_equal (sample_field (row_sample (rep, 6), "query_len"), 48);

  s = row_sample (rep, 8);   /* no list shape: batch unknown; no attn_state and T = seq */
  assert_true (isnan (s->axes[1]));
  assert_int_equal (sample_field (s, "query_len"), 0);

  s = row_sample (rep, 9);   /* shape 3 but two values: not a per-sequence list */
  assert_true (isnan (s->axes[1]));
  assert_int_equal (sample_field (s, "query_len"), 30);
}

/* Q26: a prefill query whose token count T = 2048 was never measured. The per-sequence rule
 * skips the query-length filter (implied by seq) and interpolates along seq between the
 * prefill_no_cache rows: 10 + (40 − 10)·(2048 − 1024)/(4096 − 1024) = 20 (reference §4.4
 * step 4). The chunked rows (query length 32/64) stay out. */
static void
test_prefill_no_cache_skips_query_length_filter (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, attn_batch (2048, 8, 8, 64, 1, 2048));

  assert_interpolated (r, 20.0, "linear_1d");
  assert_int_equal (detail_int (r, "candidate_count"), 2);
  assert_int_equal (detail_int (r, "exact_fields.query_len"), 0);
  assert_int_equal (detail_int (r, "exact_fields.batch"), 1);
  assert_int_equal (detail_int (r, "target.seq"), 2048);
  assert_string_equal (tu_detail_string (r, "base_reason"), "shape_mismatch");
}

/* The literal upstream rule compares the total token count T: 2048 matches neither 1024 nor
 * 4096, so the same query finds no candidate and falls back (upstream answered 1 of 120 held-out
 * prefill queries this way, Q26). */
static void
test_literal_tokens_rule_filters_total_tokens (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, attn_batch (2048, 8, 8, 64, 1, 2048));
  const msperf_value *reasons;

  assert_int_not_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
  assert_string_equal (r->miss_reason, "wrapper_interpolation_failed");
  reasons = detail (r, "fallback_reasons");
  assert_string_equal (msperf_value_get_string (g_ptr_array_index (reasons->items, 0)),
                       "1d(seq): insufficient_filtered_candidates");
}

/* Chunked prefill keeps the per-sequence filter: T 64 over 2 sequences is query length 32,
 * answered from the two query-length-32 rows only: 5 + (7 − 5)·(1500 − 1000)/1000 = 6. Had the
 * query-length-48 rows joined (48 is no block padding of 32), seq 1000 would aggregate 5 and 9
 * to 7 and the answer be 8.5. */
static void
test_chunked_prefill_filters_per_sequence_query_length (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, attn_batch (64, 8, 8, 64, 2, 1500));

  assert_interpolated (r, 6.0, "linear_1d");
  assert_int_equal (detail_int (r, "exact_fields.query_len"), 32);
  assert_int_equal (detail_int (r, "target.batch"), 2);
  assert_int_equal (detail_int (r, "candidate_count"), 2);
}

/* The same chunked query under the literal rule: T = 64 equals the query-length-32 rows' T
 * (2 × 32) and not the others' (96), so the answer is again 6. */
static void
test_literal_tokens_rule_chunked (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, attn_batch (64, 8, 8, 64, 2, 1500));

  assert_interpolated (r, 6.0, "linear_1d");
  assert_int_equal (detail_int (r, "exact_fields.tokens"), 64);
}

/* h200 prefill (3000, 32, 128) with 8 KV heads, seq_lens [3000]: no row within ±16, so the
 * exact lookup misses; sqrt_seq (the database's interpolation_policy) interpolates in
 * sqrt(seq) between rows 2048 (83.3577) and 4096 (259.4893). Expected value:
 * numpy.interp(sqrt(3000), [sqrt(2048), 64], [83.3577, 259.4893]) = 172.78442052866308
 * (/usr/bin/python3, numpy). Details keep the untransformed coordinates. */
static void
test_h200_prefill_interpolates_in_sqrt_seq (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, attn_batch (3000, 32, 8, 128, 1, 3000));
  const msperf_value *bounds, *points;

  assert_interpolated (r, 172.78442052866308, "linear_1d_sqrt");
  assert_true (r->latency_us == 172.78442052866308);
  assert_string_equal (r->shape_match_rule, "interpolated_1d_linear_sqrt");
  /* 0.70 for 1-D, lowered by 0.05 for the transform (seed 000 §5.6) */
  assert_float_equal (r->confidence, 0.65, 1e-12);
  assert_string_equal (tu_detail_string (r, "axis_transform"), "sqrt_seq");
  assert_int_equal (detail_int (r, "target.seq"), 3000);
  assert_int_equal (detail_int (r, "axes.seq"), 3000);
  bounds = detail (r, "axis_boundary.seq");
  assert_int_equal (((msperf_value *) g_ptr_array_index (bounds->items, 0))->i, 2048);
  assert_int_equal (((msperf_value *) g_ptr_array_index (bounds->items, 1))->i, 4096);
  points = detail (r, "candidate_points");
  assert_int_equal (points->items->len, 2);
  assert_int_equal (detail_int (r, "exact_fields.kv_heads"), 8);
}

/* h200 decode, batch 8 (measured: 1, 4, 16, 64), context 3000, 32 heads over 8 KV heads: every
 * 1-D group is empty, 2d(seq,batch) answers. Expected: scipy.interpolate.griddata(points,
 * values, [(sqrt(3000), 8)], method="linear") on the 28 decode rows with 32 heads, 8 KV heads,
 * head_dim 128 in CSV order, points (sqrt(avg_seq_len), Runtime batch_size) =
 * 25.381209660169304 (/usr/bin/python3, scipy; bit-equal). */
static void
test_h200_decode_2d_equals_scipy_griddata (void **state)
{
  msperf_op *op = tu_op (ATTN);
  int64_t seq[8], ql[8];
  g_autoptr (msperf_result) r = NULL;

  for (int i = 0; i < 8; i++)
    {
      seq[i] = 3000;
      ql[i] = 1;
    }
  tu_op_add_tensor (op, BF16, "8,32,1,128");
  tu_op_add_tensor (op, BF16, "8,8,3000,128");
  tu_op_add_tensor (op, BF16, "8,8,3000,128");
  tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_none (op);
  add_seq_lens (op, seq, 8);
  add_seq_lens (op, ql, 8);
  tu_op_add_out (op, BF16, "8,32,1,128");
  r = tu_run (*state, op);
  assert_interpolated (r, 25.381209660169304, "griddata_linear_sqrt");
  assert_true (r->latency_us == 25.381209660169304);
  assert_int_equal (r->interpolation_dim, 2);
  assert_float_equal (r->confidence, 0.60, 1e-12);
  assert_int_equal (detail_int (r, "candidate_count"), 28);
  assert_int_equal (detail_int (r, "exact_fields.query_len"), 1);
  assert_int_equal (detail_int (r, "target.batch"), 8);
}

/* MHA heads axis (policy interpolation.attention.mha_heads_axis): an MHA prefill
 * (2048, 24, 128) over 24 KV heads, seq_lens [2048], is a miss without the key (no row has
 * kv_heads 24) and interpolates along heads between the MHA rows 16 (53.2622) and 32 (82.7558)
 * with it; 48 heads between 32 and 64 (144.5262). Expected: numpy.interp(24, [16, 32],
 * [53.2622, 82.7558]) = 68.009 and numpy.interp(48, [32, 64], [82.7558, 144.5262]) =
 * 113.64099999999999 (/usr/bin/python3, numpy). */
static void
test_h200_mha_off_grid_heads_miss_without_key (void **state)
{
  g_autoptr (msperf_result) r24 = tu_run (*state, attn_batch (2048, 24, 24, 128, 1, 2048));
  g_autoptr (msperf_result) r48 = tu_run (*state, attn_batch (2048, 48, 48, 128, 1, 2048));

  for (int k = 0; k < 2; k++)
    {
      const msperf_result *r = k ? r48 : r24;

      assert_int_not_equal (r->source, MSPERF_SOURCE_MEASURED);
      assert_int_not_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
      assert_non_null (r->miss_reason);
    }
}

static void
test_h200_mha_heads_axis_interpolates (void **state)
{
  const char *const overrides[] = { "interpolation.attention.mha_heads_axis", "true", NULL };
  /* The sample rows under the upstream mapping (Makefile.am, upstream_db). */
  g_autofree char *db = g_strdup (g_getenv ("MSPERF_TEST_UPSTREAM_DB"));
  g_autoptr (msperf_engine) e = tu_engine_new (db, overrides);
  g_autoptr (msperf_result) r24 = tu_run (e, attn_batch (2048, 24, 24, 128, 1, 2048));
  g_autoptr (msperf_result) r48 = tu_run (e, attn_batch (2048, 48, 48, 128, 1, 2048));
  g_autoptr (msperf_result) gqa = tu_run (e, attn_batch (2048, 24, 8, 128, 1, 2048));
  g_autoptr (msperf_result) mha32 = tu_run (e, attn_batch (2048, 32, 32, 128, 1, 2048));
  const msperf_value *bounds;

  (void) state;
  assert_interpolated (r24, 68.009, "linear_1d");
  assert_int_equal (r24->interpolation_dim, 1);
  bounds = detail (r24, "axis_boundary.heads");
  assert_int_equal (((msperf_value *) g_ptr_array_index (bounds->items, 0))->i, 16);
  assert_int_equal (((msperf_value *) g_ptr_array_index (bounds->items, 1))->i, 32);
  assert_null (msperf_value_lookup (detail (r24, "exact_fields"), "kv_heads"));
  assert_interpolated (r48, 113.64099999999999, "linear_1d");
  /* GQA keeps kv_heads exact: 24 query heads over 8 KV heads lie between the GQA rows 16 and
   * 32 over 8, never the MHA rows */
  assert_int_equal (gqa->source, MSPERF_SOURCE_INTERPOLATED);
  assert_int_equal (detail_int (gqa, "exact_fields.kv_heads"), 8);
  /* measured rows still hit exactly */
  assert_hit (mha32, 82.7558, "FusedInferAttentionScore");
}

/* A decomposer's attention spec (params form) that misses exactly goes through the same stage
 * (msperf_interpolate_subquery, which the engine runs for a composite's part) to the same
 * value as the op (seed 000 §5.6 sub-kernel fallback). */
static void
test_h200_params_subquery_interpolates (void **state)
{
  msperf_subquery *sq = msperf_subquery_new ("attention_special", "FusedInferAttentionScore");
  g_autoptr (msperf_op) parent = tu_op ("tensor_cast.test_parent.default");
  g_autoptr (msperf_result) r = msperf_result_new ();
  msperf_value *p = params_new ("3000,32,128", 3000);

  p_int (p, "num_kv_heads", 8);
  p_str (p, "input_layout", "TND");
  p_int (p, "batch_size", 1);
  sq->params = p;
  assert_int_equal (msperf_engine_subquery (*state, parent, sq, r), MSPERF_MISS);
  assert_string_equal (r->miss_reason, "shape_mismatch");
  assert_int_equal (msperf_interpolate_subquery (*state, parent, sq, r), MSPERF_HIT);
  msperf_subquery_free (sq);
  assert_interpolated (r, 172.78442052866308, "linear_1d_sqrt");
  assert_int_equal (detail_int (r, "target.batch"), 1);
}

/* ---- sliding-window attention (mapping key window_kernel_type; tests/data/attention/window) */

static int
setup_window (void **state)
{
  *state = tu_engine_new ("attention/window", NULL);
  return 0;
}

/* A prefill (TND, one sequence of seq tokens) or a decode step (BNSD, four sequences over seq
 * cached tokens) of 8 heads over 2 KV heads, head_dim 64, named name, with kwarg window when
 * window > 0. */
static msperf_op *
window_op (const char *name, gboolean decode, int64_t seq, int64_t window)
{
  msperf_op *op;

  if (decode)
    {
      g_autofree char *k = g_strdup_printf ("4,2,%" G_GINT64_FORMAT ",64", seq);
      const int64_t lens[] = { seq, seq, seq, seq };

      op = tu_op (name);
      tu_op_add_tensor (op, BF16, "4,8,1,64");
      tu_op_add_tensor (op, BF16, k);
      tu_op_add_tensor (op, BF16, k);
      tu_op_add_none (op);
      tu_op_add_none (op);
      tu_op_add_none (op);
      add_seq_lens (op, lens, 4);
      tu_op_add_none (op);
    }
  else
    {
      g_autofree char *q = g_strdup_printf ("%" G_GINT64_FORMAT ",8,64", seq);
      g_autofree char *k = g_strdup_printf ("%" G_GINT64_FORMAT ",2,64", seq);

      op = attn_named (name, BF16, q, k, seq);
    }
  if (window > 0)
    set_kwarg_int (op, "window", window);
  return op;
}

/* A window op is answered from the window table with the window as an exact field. */
static void
test_window_prefill_and_decode_from_window_table (void **state)
{
  g_autoptr (msperf_result) pre128 = tu_run (*state, window_op (ATTN, FALSE, 4096, 128));
  g_autoptr (msperf_result) pre256 = tu_run (*state, window_op (ATTN, FALSE, 4096, 256));
  g_autoptr (msperf_result) dec128 = tu_run (*state, window_op (ATTN, TRUE, 4096, 128));

  assert_hit (pre128, 30.0, "SlidingWindowAttention");
  assert_float_equal (tu_detail_double (pre128, "window"), 128, 0);
  assert_false (tu_detail_bool (pre128, "window_full_attention"));
  assert_string_equal (tu_detail_string (pre128, "input_layout"), "TND");
  /* the window is exact: the window-256 row, not the nearest */
  assert_hit (pre256, 40.0, "SlidingWindowAttention");
  assert_float_equal (tu_detail_double (pre256, "window"), 256, 0);
  assert_hit (dec128, 7.0, "SlidingWindowAttention");
  assert_string_equal (tu_detail_string (dec128, "input_layout"), "BNSD_NBSD");
}

/* Full attention never reads the window table, whatever its shapes. */
static void
test_window_full_attention_keeps_full_table (void **state)
{
  g_autoptr (msperf_result) pre = tu_run (*state, window_op (ATTN, FALSE, 4096, 0));
  g_autoptr (msperf_result) dec = tu_run (*state, window_op (ATTN, TRUE, 4096, 0));

  assert_hit (pre, 100.0, "FusedInferAttentionScore");
  assert_hit (dec, 20.0, "FusedInferAttentionScore");
  assert_null (msperf_value_lookup (msperf_result_details (pre), "window"));
}

/* No row of the window: a sequence longer than the window misses with the reason (and no
 * interpolation from the full table), one within it is full attention, exact. */
static void
test_window_missing_row_reason_or_within_window (void **state)
{
  g_autoptr (msperf_result) longer = tu_run (*state, window_op (ATTN, FALSE, 4096, 512));
  g_autoptr (msperf_result) within = tu_run (*state, window_op (ATTN, FALSE, 64, 128));
  g_autoptr (msperf_result) decode = tu_run (*state, window_op (ATTN, TRUE, 4096, 1024));

  assert_miss (longer, "window_shape_mismatch:SlidingWindowAttention:window=512");
  assert_int_equal (longer->source, MSPERF_SOURCE_ANALYTIC);
  assert_miss (decode, "window_shape_mismatch:SlidingWindowAttention:window=1024");
  assert_int_equal (decode->source, MSPERF_SOURCE_ANALYTIC);
  assert_hit (within, 5.0, "FusedInferAttentionScore");
  assert_float_equal (tu_detail_double (within, "window"), 128, 0);
  assert_true (tu_detail_bool (within, "window_full_attention"));
}

/* Off the window table's grid, a window op interpolates among the rows of its window only. */
static void
test_window_interpolates_in_window_table (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, window_op (ATTN, TRUE, 3072, 128));

  if (r->source != MSPERF_SOURCE_INTERPOLATED)
    fail_msg ("expected INTERPOLATED, got %s (reason %s)", msperf_source_name (r->source),
              r->miss_reason ? r->miss_reason : "-");
  assert_string_equal (r->kernel_type, "SlidingWindowAttention");
  assert_true (r->latency_us > 6.0 && r->latency_us < 7.0);
  assert_int_equal (detail_int (r, "exact_fields.window"), 128);
}

/* Without window_kernel_type the window kwarg is not looked at (the full table answers), and a
 * mapping naming an absent window table misses a long window op with csv_not_found. */
static void
test_window_without_key_unchanged (void **state)
{
  g_autoptr (msperf_result) pre = tu_run (*state, window_op ("test.attention_nowindow.default",
                                                             FALSE, 4096, 128));
  g_autoptr (msperf_result) dec = tu_run (*state, window_op ("test.attention_nowindow.default",
                                                             TRUE, 4096, 128));
  g_autoptr (msperf_result) absent = tu_run (*state,
                                             window_op ("test.attention_nowindowtable.default",
                                                        FALSE, 4096, 128));

  assert_hit (pre, 100.0, "FusedInferAttentionScore");
  assert_null (msperf_value_lookup (msperf_result_details (pre), "window"));
  assert_hit (dec, 20.0, "FusedInferAttentionScore");
  assert_miss (absent, "csv_not_found");
}

/* ---- the KV-cache dtype (policy interpolation.attention.kv_dtype_exact) ---- */

static const char *const kv_exact_on[] = { "interpolation.attention.kv_dtype_exact", "true", NULL };

/* A decode step (BNSD, four sequences over seq cached tokens, 8 heads over 2 KV heads,
 * head_dim 64) whose key and value are kv, with kwarg window when window > 0. */
static msperf_op *
kv_op (int64_t seq, msperf_dtype kv, int64_t window)
{
  g_autofree char *k = g_strdup_printf ("4,2,%" G_GINT64_FORMAT ",64", seq);
  const int64_t lens[] = { seq, seq, seq, seq };
  msperf_op *op = tu_op (ATTN);

  tu_op_add_tensor (op, BF16, "4,8,1,64");
  tu_op_add_tensor (op, kv, k);
  tu_op_add_tensor (op, kv, k);
  tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_none (op);
  add_seq_lens (op, lens, 4);
  tu_op_add_none (op);
  if (window > 0)
    set_kwarg_int (op, "window", window);
  return op;
}

static void
assert_interpolated_within (const msperf_result *r, double lo, double hi)
{
  if (r->source != MSPERF_SOURCE_INTERPOLATED)
    fail_msg ("expected INTERPOLATED, got %s (reason %s)", msperf_source_name (r->source),
              r->miss_reason ? r->miss_reason : "-");
  if (!(r->latency_us > lo && r->latency_us < hi))
    fail_msg ("expected a latency in (%g, %g), got %g", lo, hi, r->latency_us);
}

/* Without the switch the KV dtype is not compared (the reference): a bf16-KV op takes the
 * FP8-KV row first in the table, and interpolates over both caches' rows. */
static void
test_kv_dtype_not_compared_by_default (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("attention/kvdtype", NULL);
  g_autoptr (msperf_result) bf = tu_run (e, kv_op (4096, BF16, 0));
  g_autoptr (msperf_result) win = tu_run (e, kv_op (4096, BF16, 128));
  g_autoptr (msperf_result) off = tu_run (e, kv_op (3072, BF16, 0));

  (void) state;
  assert_hit (bf, 10.0, "FusedInferAttentionScore");
  assert_hit (win, 3.0, "SlidingWindowAttention");
  /* the median of the two caches' rows at 2048 (9) and 4096 (15) */
  assert_interpolated_within (off, 9.0, 15.0);
}

/* With the switch each op gets the rows of its own KV dtype, exact and interpolated, in the
 * full and the window table. */
static void
test_kv_dtype_exact_each_op_its_row (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("attention/kvdtype", kv_exact_on);
  g_autoptr (msperf_result) bf = tu_run (e, kv_op (4096, BF16, 0));
  g_autoptr (msperf_result) fp8 = tu_run (e, kv_op (4096, MSPERF_DTYPE_FP8_E4M3, 0));
  g_autoptr (msperf_result) wbf = tu_run (e, kv_op (4096, BF16, 128));
  g_autoptr (msperf_result) wfp8 = tu_run (e, kv_op (4096, MSPERF_DTYPE_FP8_E4M3, 128));
  g_autoptr (msperf_result) ibf = tu_run (e, kv_op (3072, BF16, 0));
  g_autoptr (msperf_result) ifp8 = tu_run (e, kv_op (3072, MSPERF_DTYPE_FP8_E4M3, 0));

  (void) state;
  assert_hit (bf, 20.0, "FusedInferAttentionScore");
  assert_hit (fp8, 10.0, "FusedInferAttentionScore");
  assert_hit (wbf, 7.0, "SlidingWindowAttention");
  assert_hit (wfp8, 3.0, "SlidingWindowAttention");
  /* between the bf16 rows 12 and 20, and between the FP8 rows 6 and 10 */
  assert_interpolated_within (ibf, 12.0, 20.0);
  assert_interpolated_within (ifp8, 6.0, 10.0);
}

/* With the switch, a op whose KV dtype no row at its coordinates has misses with a reason
 * naming it; without, the FP8 row answers it. */
static void
test_kv_dtype_exact_miss_names_dtype (void **state)
{
  g_autoptr (msperf_engine) on = tu_engine_new ("attention/kvdtype", kv_exact_on);
  g_autoptr (msperf_engine) off = tu_engine_new ("attention/kvdtype", NULL);
  g_autoptr (msperf_result) miss = tu_run (on, kv_op (1024, BF16, 256));
  g_autoptr (msperf_result) hit = tu_run (off, kv_op (1024, BF16, 256));

  (void) state;
  assert_miss (miss, "kv_dtype_not_measured:kv_dtype=DT_BF16");
  assert_int_equal (miss->source, MSPERF_SOURCE_ANALYTIC);
  assert_hit (hit, 2.0, "SlidingWindowAttention");
}

/* The params form: kv_dtype names the cache's dtype; absent, the Q dtype's rows answer. */
static void
test_kv_dtype_exact_params (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("attention/kvdtype", kv_exact_on);
  msperf_value *p;

  (void) state;
  assert_sub_hit (e, "FusedInferAttentionScore", params_new ("4,8,64", 4096), 20.0);
  p = params_new ("4,8,64", 4096);
  p_str (p, "kv_dtype", "float8_e4m3fn");
  assert_sub_hit (e, "FusedInferAttentionScore", p, 10.0);
  p = params_new ("4,8,64", 1024);
  p_str (p, "kv_dtype", "DT_BF16");
  assert_sub_miss (e, "SlidingWindowAttention", p, "kv_dtype_not_measured:kv_dtype=DT_BF16");
}

int
main (void)
{
  /* One plan for the TAP driver; each test gets a fresh engine on its fixture database. */
#define SFA(t) cmocka_unit_test_setup_teardown (t, setup_sfa, tu_teardown_engine)
#define RULES(t) cmocka_unit_test_setup_teardown (t, setup_rules, tu_teardown_engine)
#define H200(t) cmocka_unit_test_setup_teardown (t, setup_h200, tu_teardown_engine)
  const struct CMUnitTest tests[] = {
    SFA (test_sfa_golden_avg_5000_gives_100),
    SFA (test_sfa_golden_avg_10000_gives_200),
    SFA (test_sfa_golden_through_params),
    RULES (test_tc_fewer_than_7_args_is_insufficient_args),
    RULES (test_tc_query_not_tensor),
    RULES (test_tc_unmapped_dtype_is_dtype_unmapped),
    RULES (test_tc_q_shape_normalize_failed),
    RULES (test_tc_seq_lens_missing),
    RULES (test_tc_seq_lens_empty_or_negative_is_invalid),
    RULES (test_prefill_tnd_hits_row),
    RULES (test_2d_query_splits_by_key_head_dim),
    RULES (test_bnsd_decode_kv_heads_from_key_dim_1),
    RULES (test_sparse_mode_policy_default_and_kwarg),
    RULES (test_avg_seq_len_tolerance_16_inclusive),
    RULES (test_tc_avg_seq_len_truncates_mean),
    RULES (test_token_padding_both_directions),
    RULES (test_exact_token_count_beats_padded_on_tie),
    RULES (test_envelope_fallback_sets_latency_selection),
    RULES (test_legacy_penalty_orders_candidates),
    RULES (test_blank_filter_cells),
    RULES (test_dtype_fp16_exact_then_bf16_retry),
    RULES (test_alternates_nearest_then_primary_on_tie),
    RULES (test_require_semantic_unique),
    RULES (test_missing_csv_is_csv_not_found),
    RULES (test_csv_without_avg_column_is_semantic_context_missing),
    RULES (test_legacy_avg_column_truncates_and_skips_bad_rows),
    RULES (test_params_int_and_phase_filters),
    RULES (test_params_list_filter_blank_cell_passes),
    RULES (test_params_lenient_filters),
    RULES (test_params_required_context_fields),
    H200 (test_h200_llama3_decode_bnsd_exact),
    H200 (test_h200_llama3_prefill_tnd_exact),
    cmocka_unit_test_setup_teardown (test_axes_rows_seq_batch_heads_query_len, setup_axes,
                                     tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_prefill_no_cache_skips_query_length_filter, setup_axes,
                                     tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_literal_tokens_rule_filters_total_tokens,
                                     setup_axes_literal, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_chunked_prefill_filters_per_sequence_query_length,
                                     setup_axes, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_literal_tokens_rule_chunked, setup_axes_literal,
                                     tu_teardown_engine),
    H200 (test_h200_prefill_interpolates_in_sqrt_seq),
    H200 (test_h200_decode_2d_equals_scipy_griddata),
    H200 (test_h200_params_subquery_interpolates),
    H200 (test_h200_mha_off_grid_heads_miss_without_key),
    H200 (test_h200_mha_heads_axis_interpolates),
    cmocka_unit_test (test_kv_dtype_not_compared_by_default),
    cmocka_unit_test (test_kv_dtype_exact_each_op_its_row),
    cmocka_unit_test (test_kv_dtype_exact_miss_names_dtype),
    cmocka_unit_test (test_kv_dtype_exact_params),
#define WINDOW(t) cmocka_unit_test_setup_teardown (t, setup_window, tu_teardown_engine)
    WINDOW (test_window_prefill_and_decode_from_window_table),
    WINDOW (test_window_full_attention_keeps_full_table),
    WINDOW (test_window_missing_row_reason_or_within_window),
    WINDOW (test_window_interpolates_in_window_table),
    WINDOW (test_window_without_key_unchanged),
  };

  return cmocka_run_group_tests_name ("attention_special", tests, NULL, NULL);
}
