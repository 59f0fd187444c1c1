/* Tests of core/composite.c through the engine, on the fixture database tests/data/composite:
 * static sub_kernels (reference §2.8 "Static", quirk Q2, Q18, the MC2 golden of §6) and the
 * aggregation of decomposer specs (§2.8 table) through the mla module. */
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
#include "app/run/metrics.h"
#include "app/report/report.h"

#define BF16 MSPERF_DTYPE_BF16
#define I8 MSPERF_DTYPE_INT8
#define I32 MSPERF_DTYPE_INT32
#define F32 MSPERF_DTYPE_FLOAT32

static const char *const sp_tp2[] = { "parallel.tp_size", "2", "parallel.sequence_parallel", "true",
                                      NULL };

static int
setup_default (void **state)
{
  *state = tu_engine_new ("composite", NULL);
  return 0;
}

/* matmul_all_reduce(mat1, mat2, None, 0, rank_group) as TensorCast calls it. */
static msperf_op *
mc2 (const char *m1, const char *m2, int ranks)
{
  msperf_op *op = tu_op ("tensor_cast.matmul_all_reduce.default");

  tu_op_add_tensor (op, BF16, m1);
  tu_op_add_tensor (op, BF16, m2);
  tu_op_add_none (op);
  tu_op_add_int (op, 0);
  tu_op_add_int_list (op, ranks, 0, 1);
  return op;
}

/* static_quant_linear_all_reduce(x int8, w int8, scale, offset, …, rank_group): only the first
 * two tensors take part (tc_input_count 2). */
static msperf_op *
quant_mc2 (int ranks)
{
  msperf_op *op = tu_op ("tensor_cast.static_quant_linear_all_reduce.default");

  tu_op_add_tensor (op, I8, "136,512");
  tu_op_add_tensor (op, I8, "512,5120");
  tu_op_add_tensor (op, F32, "5120");
  tu_op_add_tensor (op, F32, "5120");
  tu_op_add_int (op, 0);
  tu_op_add_int_list (op, ranks, 0, 1);
  return op;
}

static const msperf_value *
detail (const msperf_result *r, const char *key)
{
  const msperf_value *v = msperf_value_lookup (msperf_result_details (r), key);

  if (v == NULL)
    fail_msg ("detail %s missing", key);
  return v;
}

static const msperf_value *
item (const msperf_value *list, guint k)
{
  assert_int_equal (list->kind, MSPERF_VALUE_LIST);
  assert_true (k < list->items->len);
  return g_ptr_array_index (list->items, k);
}

static void
assert_duration (const msperf_value *pair, const char *kernel, double us)
{
  assert_string_equal (msperf_value_get_string (item (pair, 0)), kernel);
  assert_float_equal (item (pair, 1)->f, us, 1e-12);
}

static void
assert_miss_reason (const msperf_result *r, const char *reason)
{
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_non_null (r->miss_reason);
  assert_string_equal (r->miss_reason, reason);
}

/* ------------------------------------------------------------------ static sub_kernels */

/* Reference §6 "MC2 static composite": 14.156 (MatMulV2, padding + NZ restore) + 200.0
 * (hcom_allReduce_ exact, 144·5120·2 = 1474560 B on 2 devices) = 214.156 at 0.9, MEASURED. */
static void
test_composite_mc2_golden_sums_compute_and_allreduce (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, mc2 ("144,512", "512,5120", 2));
  const msperf_value *shapes, *compute;

  assert_int_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 214.156, 1e-9);
  assert_float_equal (r->confidence, 0.9, 1e-12);
  assert_string_equal (r->kernel_type, "MatMulV2");
  assert_string_equal (r->method, "composite");
  assert_string_equal (r->shape_match_rule, "padding");
  assert_true (tu_detail_bool (r, "composite"));
  assert_string_equal (tu_detail_string (r, "kernel_type"), "MatMulV2");
  assert_string_equal (tu_detail_string (r, "communication_variant"), "default");
  assert_string_equal (msperf_value_get_string (item (detail (r, "communication_sub_kernels"), 0)),
                       "hcom_allReduce_");
  /* round(14.156, 2) = 14.16 */
  assert_duration (item (detail (r, "sub_kernel_durations"), 0), "MatMulV2", 14.16);
  assert_duration (item (detail (r, "sub_kernel_durations"), 1), "hcom_allReduce_", 200.0);
  shapes = detail (r, "sub_kernel_shapes");
  assert_int_equal (shapes->items->len, 2);
  compute = item (shapes, 0);
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (compute, "shape_match_rule")),
                       "padding");
  assert_int_equal (item (item (msperf_value_lookup (compute, "simulation_shapes"), 0), 0)->i, 144);
  /* kernel shapes as written: the NZ tiles are kept */
  assert_int_equal (item (msperf_value_lookup (compute, "kernel_shapes"), 1)->items->len, 4);
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (item (shapes, 1),
                                                                     "shape_match_rule")), "comm");
  assert_int_equal (msperf_value_lookup (item (shapes, 1), "kernel_shapes")->items->len, 0);
}

/* Quirk Q2 (reproduced): [RmsNorm, DynamicQuant] are alternatives; the exact DynamicQuant row
 * (5.0) beats the padded RmsNorm row (8.0) and nothing is summed; compute only → 0.8. */
static void
test_composite_static_compute_only_takes_best_single_kernel (void **state)
{
  msperf_op *op = tu_op ("tensor_cast.rms_norm_dynamic_quant_symmetric.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "128,7168");
  tu_op_add_tensor (op, BF16, "7168");
  r = tu_run (*state, op);
  assert_int_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 5.0, 1e-12);
  assert_float_equal (r->confidence, 0.8, 1e-12);
  assert_string_equal (r->kernel_type, "DynamicQuant");
  assert_string_equal (tu_detail_string (r, "note"), "compute sub-kernel only");
  assert_int_equal (detail (r, "sub_kernel_durations")->items->len, 1);
}

/* Quirk Q18: after a compute miss the first row of the primary CSV (RmsNorm: 2 slots) is
 * compared with the TC input count (3). */
static void
test_composite_compute_miss_diagnoses_input_count (void **state)
{
  msperf_op *op = tu_op ("tensor_cast.rms_norm_dynamic_quant_symmetric.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "128,7168");
  tu_op_add_tensor (op, BF16, "7168");
  tu_op_add_tensor (op, BF16, "7168");
  r = tu_run (*state, op);
  assert_miss_reason (r, "input_count_mismatch");
}

static void
test_composite_compute_miss_is_shape_mismatch_when_counts_agree (void **state)
{
  msperf_op *op = tu_op ("tensor_cast.rms_norm_dynamic_quant_symmetric.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "4,7168");
  tu_op_add_tensor (op, BF16, "7168");
  r = tu_run (*state, op);
  assert_miss_reason (r, "shape_mismatch");
}

/* No hcom_allReduce_ row for 4 devices and no bracket: the communication part fails. */
static void
test_composite_comm_failure_misses_whole_op (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, mc2 ("144,512", "512,5120", 4));

  assert_miss_reason (r, "comm_sub_kernel_miss");
  assert_string_equal (tu_detail_string (r, "comm_miss_reason"), "shape_mismatch");
}

/* Without sequence parallelism the quant MC2 keeps all-reduce: int8 output reduced in BF16,
 * 136·5120·2 = 1392640 B → 190.0; QuantBatchMatmulV3 10.0 (transposed weight). */
static void
test_composite_quant_mc2_counts_bf16_message_bytes (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, quant_mc2 (2));

  assert_int_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 200.0, 1e-9);
  assert_string_equal (r->shape_match_rule, "transpose");
  assert_string_equal (tu_detail_string (r, "communication_variant"), "default");
}

/* runtime_comm_variants.sequence_parallel: reduce-scatter of the per-rank output
 * (1392640 / 2 = 696320 B), bracket_linear between 655360 → 90 and 737280 → 110 = 100.0 (the
 * alpha-beta fit over the three rows would give more); INTERPOLATED, still 0.9. */
static void
test_composite_sequence_parallel_variant_reduce_scatters_per_rank (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("composite", sp_tp2);
  g_autoptr (msperf_result) r = tu_run (e, quant_mc2 (2));

  (void) state;
  assert_int_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (r->latency_us, 110.0, 1e-9);
  assert_float_equal (r->confidence, 0.9, 1e-12);
  assert_string_equal (tu_detail_string (r, "communication_variant"), "sequence_parallel");
  assert_string_equal (msperf_value_get_string (item (detail (r, "communication_sub_kernels"), 0)),
                       "hcom_reduceScatter_");
  assert_duration (item (detail (r, "sub_kernel_durations"), 1), "hcom_reduceScatter_", 100.0);
}

/* group_type tensor_parallel: a rank group of 2 under tp_size 4 is not the TP group. */
static void
test_composite_tensor_parallel_group_must_match_tp_size (void **state)
{
  static const char *const sp_tp4[] = { "parallel.tp_size", "4", "parallel.sequence_parallel",
                                        "true", NULL };
  g_autoptr (msperf_engine) e = tu_engine_new ("composite", sp_tp4);
  g_autoptr (msperf_result) r = tu_run (e, quant_mc2 (2));

  (void) state;
  assert_miss_reason (r, "comm_sub_kernel_miss");
  assert_string_equal (tu_detail_string (r, "comm_miss_reason"),
                       "tensor_parallel_group_mismatch:group_size=2,tp_size=4");
}

/* per_rank_output must divide: 1392640 B over 7 ranks leaves 4. */
static void
test_composite_per_rank_output_must_divide (void **state)
{
  static const char *const sp_tp7[] = { "parallel.tp_size", "7", "parallel.sequence_parallel",
                                        "true", NULL };
  g_autoptr (msperf_engine) e = tu_engine_new ("composite", sp_tp7);
  g_autoptr (msperf_result) r = tu_run (e, quant_mc2 (7));

  (void) state;
  assert_miss_reason (r, "nondivisible_per_rank_output:message_bytes=1392640,num_devices=7");
}

static void
test_composite_per_rank_output_rejects_empty_group (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("composite", sp_tp2);
  g_autoptr (msperf_result) r = tu_run (e, quant_mc2 (0));

  (void) state;
  assert_miss_reason (r, "invalid_per_rank_output_group_size");
}

static void
test_composite_variant_without_kernel_is_invalid (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("composite", sp_tp2);
  msperf_op *op = mc2 ("144,512", "512,5120", 2);
  g_autoptr (msperf_result) r = NULL;

  (void) state;
  g_free (op->name);
  op->name = g_strdup ("test.variant_without_kernel.default");
  r = tu_run (e, op);
  assert_miss_reason (r, "invalid_runtime_comm_variant");
}

static void
test_composite_variant_source_must_be_a_sub_kernel (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("composite", sp_tp2);
  msperf_op *op = mc2 ("144,512", "512,5120", 2);
  g_autoptr (msperf_result) r = NULL;

  (void) state;
  g_free (op->name);
  op->name = g_strdup ("test.variant_source_missing.default");
  r = tu_run (e, op);
  assert_miss_reason (r, "runtime_comm_variant_source_missing");
}

/* The variant only applies under sequence parallelism; the same op keeps all-reduce otherwise
 * (checked above), and a variant error cannot surface without it. */
static void
test_composite_variant_ignored_without_sequence_parallel (void **state)
{
  msperf_op *op = mc2 ("144,512", "512,5120", 2);
  g_autoptr (msperf_result) r = NULL;

  g_free (op->name);
  op->name = g_strdup ("test.variant_without_kernel.default");
  r = tu_run (*state, op);
  assert_int_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 214.156, 1e-9);
}

static void
test_composite_without_parts_misses_no_sub_kernels (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, mc2 ("144,512", "512,5120", 2));
  msperf_op *op = tu_op ("test.empty_composite.default");
  g_autoptr (msperf_result) e = NULL;

  assert_null (r->miss_reason);
  tu_op_add_tensor (op, BF16, "8,8");
  e = tu_run (*state, op);
  assert_miss_reason (e, "no_sub_kernels");
}

/* decomposer: true but no module decomposes the op; and a module that leaves the op
 * unspecified (mla: MLAPO). */
static void
test_composite_decomposer_unsupported (void **state)
{
  msperf_op *op = tu_op ("test.decomposer_only.default");
  msperf_op *mlapo = tu_op ("tensor_cast.mlapo.default");
  g_autoptr (msperf_result) r = NULL;
  g_autoptr (msperf_result) r2 = NULL;

  tu_op_add_tensor (op, BF16, "8,8");
  r = tu_run (*state, op);
  assert_miss_reason (r, "decomposer_unsupported");
  tu_op_add_tensor (mlapo, BF16, "8,7168");
  r2 = tu_run (*state, mlapo);
  assert_miss_reason (r2, "decomposer_unsupported");
}

/* ------------------------------------------------------------------ decomposer aggregation */

static void
add_values (msperf_op *op, const int64_t *values, size_t n)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_TENSOR);
  char dims[32];

  g_snprintf (dims, sizeof dims, "%zu", n);
  tu_tensor (&v->tensor, I32, dims);
  v->tensor.values = g_memdup2 (values, n * sizeof *values);
  v->tensor.n_values = n;
  g_ptr_array_add (op->args, v);
}

/* An MLA decode invocation: 4 tokens, 16 heads, nope 128 + rope 64, kv_lora 512, v = w_uv_v. */
static msperf_op *
mla_decode (const char *name, const char *w_uv, int64_t seq)
{
  msperf_op *op = tu_op (name);
  const int64_t seq_lens[4] = { seq, seq, seq, seq + 4 };

  tu_op_add_tensor (op, BF16, "4,16,192");    /* q */
  tu_op_add_tensor (op, BF16, "64,128,576");  /* kv_cache */
  tu_op_add_none (op);
  tu_op_add_none (op);
  add_values (op, seq_lens, 4);               /* seq_lens */
  tu_op_add_none (op);                        /* query_lens */
  tu_op_add_tensor (op, BF16, "16,128,512");  /* W_UK_T */
  tu_op_add_tensor (op, BF16, w_uv);          /* W_UV */
  tu_op_add_tensor (op, BF16, "512,4096");    /* kv_b_proj */
  tu_op_add_none (op);
  return op;
}

/* All three specs hit: 5.0 + 30.0 + 6.0, confidence 0.8, MEASURED (§2.8 table, last row). */
static void
test_composite_decomposed_all_hit_sums_specs (void **state)
{
  g_autoptr (msperf_result) r
    = tu_run (*state, mla_decode ("tensor_cast.multihead_latent_attention.default", "16,512,128",
                               1000));

  assert_int_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 41.0, 1e-9);
  assert_float_equal (r->confidence, 0.8, 1e-12);
  assert_string_equal (tu_detail_string (r, "kernel_type"),
                       "BatchMatMulV2,FusedInferAttentionScore,TransposeBatchMatMul");
  assert_duration (item (detail (r, "sub_kernel_durations"), 1), "FusedInferAttentionScore", 30.0);
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (
                         item (detail (r, "sub_kernel_shapes"), 1), "shape_match_rule")),
                       "attention");
}

/* TransposeBatchMatMul has no (16,512,64) row: PARTIAL, 35.0 at 2/3, and a metrics miss with
 * reason partial:TransposeBatchMatMul (reference §3.1). */
static void
test_composite_partial_counts_as_metrics_miss (void **state)
{
  msperf_op *op = mla_decode ("tensor_cast.multihead_latent_attention.default", "16,512,64",
                              1000);
  msperf_result *r = msperf_engine_query (*state, op);
  msperf_run *rn = msperf_run_new ();
  msperf_record *rec = msperf_record_new ();
  msperf_metrics *m;
  const msperf_metric_record *mr;

  assert_int_equal (r->source, MSPERF_SOURCE_PARTIAL);
  assert_float_equal (r->latency_us, 35.0, 1e-9);
  assert_float_equal (r->confidence, 2.0 / 3.0, 1e-12);
  assert_string_equal (r->miss_reason, "sub_kernel_miss:TransposeBatchMatMul");
  assert_true (tu_detail_bool (r, "partial"));
  assert_string_equal (msperf_value_get_string (item (detail (r, "missed_kernels"), 0)),
                       "TransposeBatchMatMul");
  assert_int_equal (detail (r, "hit_kernels")->items->len, 2);

  rec->op = op;
  rec->op_name = g_strdup (op->name);
  rec->count = 1;
  rec->signature = msperf_op_signature (op);
  rec->result = r;
  rec->analytic_us = 50.0;
  msperf_run_add (rn, rec);
  m = msperf_metrics_compute (rn);
  assert_int_equal (m->m1_hit, 0);
  assert_int_equal (m->m1_miss, 1);
  mr = g_ptr_array_index (m->records, 0);
  assert_false (mr->hit);
  assert_string_equal (mr->reason, "partial:TransposeBatchMatMul");
  /* the metrics borrow the run's records */
  msperf_metrics_free (m);
  msperf_run_free (rn);
}

/* require_all_sub_kernels: the quant decode's QuantBatchMatmulV3 spec (BF16) has no row. */
static void
test_composite_require_all_sub_kernels_turns_partial_into_miss (void **state)
{
  g_autoptr (msperf_result) r
    = tu_run (*state, mla_decode ("tensor_cast.multihead_latent_attention_quant.default",
                               "16,512,128", 1000));

  assert_miss_reason (r, "sub_kernel_miss:QuantBatchMatmulV3");
}

/* An attention spec that does not match (avg_seq_len 5001 is 4000 away from every row) sends
 * the whole op to the analytic fallback, even though the other specs hit. */
static void
test_composite_attention_miss_sends_op_to_roofline (void **state)
{
  g_autoptr (msperf_result) r
    = tu_run (*state, mla_decode ("tensor_cast.multihead_latent_attention.default", "16,512,128",
                               5000));

  assert_miss_reason (r, "attention_sub_kernel_miss:FusedInferAttentionScore:shape_mismatch;"
                         "semantic_key=q_shape_3d=[4, 16, 512],avg_seq_len=5001,sparse_mode=0,"
                         "num_kv_heads=1;dtype=DT_BF16");
  assert_string_equal (r->method, "roofline");
}

/* Quirk Q24: a mixed decode/prefill batch has no decomposition. */
static void
test_composite_mixed_mla_batch_fails_decomposition (void **state)
{
  msperf_op *op = mla_decode ("tensor_cast.multihead_latent_attention.default", "16,512,128",
                              1000);
  msperf_value *flags = msperf_value_new (MSPERF_VALUE_LIST);
  g_autoptr (msperf_result) r = NULL;

  msperf_value_list_append (flags, msperf_value_new_bool (TRUE));
  msperf_value_list_append (flags, msperf_value_new_bool (FALSE));
  msperf_value_map_set (op->kwargs, "is_decode_values", flags);
  r = tu_run (*state, op);
  assert_miss_reason (r, "decompose_failed");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_composite_mc2_golden_sums_compute_and_allreduce,
                                     setup_default, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_composite_static_compute_only_takes_best_single_kernel,
                                     setup_default, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_composite_compute_miss_diagnoses_input_count,
                                     setup_default, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (
      test_composite_compute_miss_is_shape_mismatch_when_counts_agree, setup_default,
      tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_composite_comm_failure_misses_whole_op,
                                     setup_default, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_composite_quant_mc2_counts_bf16_message_bytes,
                                     setup_default, tu_teardown_engine),
    cmocka_unit_test (test_composite_sequence_parallel_variant_reduce_scatters_per_rank),
    cmocka_unit_test (test_composite_tensor_parallel_group_must_match_tp_size),
    cmocka_unit_test (test_composite_per_rank_output_must_divide),
    cmocka_unit_test (test_composite_per_rank_output_rejects_empty_group),
    cmocka_unit_test (test_composite_variant_without_kernel_is_invalid),
    cmocka_unit_test (test_composite_variant_source_must_be_a_sub_kernel),
    cmocka_unit_test_setup_teardown (test_composite_variant_ignored_without_sequence_parallel,
                                     setup_default, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_composite_without_parts_misses_no_sub_kernels,
                                     setup_default, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_composite_decomposer_unsupported,
                                     setup_default, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_composite_decomposed_all_hit_sums_specs,
                                     setup_default, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_composite_partial_counts_as_metrics_miss,
                                     setup_default, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_composite_require_all_sub_kernels_turns_partial_into_miss,
                                     setup_default, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_composite_attention_miss_sends_op_to_roofline,
                                     setup_default, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_composite_mixed_mla_batch_fails_decomposition,
                                     setup_default, tu_teardown_engine),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
