/* Tests of the "mla" module: its decompose slot called as the core calls it (the specs of
 * reference §2.8 "MLA" asserted exactly), and MLA ops answered end to end on the fixture
 * database tests/data/mla (decode 5.0 + 30.0 + 6.0, prefill 12.0 + 40.0). */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "common/test_util.h"
#include "engine/composite.h"
#include "engine/shared.h"

#define BF16 MSPERF_DTYPE_BF16
#define I32 MSPERF_DTYPE_INT32

#define MLA "tensor_cast.multihead_latent_attention.default"
#define MLA_QUANT "tensor_cast.multihead_latent_attention_quant.default"
#define MLA_SPARSE "tensor_cast.mla_sparse_attention.default"

static int
setup_mla (void **state)
{
  *state = tu_engine_new ("mla", NULL);
  return 0;
}

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

/* DeepSeek-like shapes: 16 heads, qk_head 192 (nope 128 + rope 64), kv_lora 512, v 128.
 * Decode: 4 requests of one token (seq 1000,1000,1000,1004 → avg 1001); prefill: 2 requests of
 * 128 tokens (query_lens 128,128; seq 128 → avg 128). */
static msperf_op *
mla_op (const char *name, gboolean prefill)
{
  msperf_op *op = tu_op (name);
  const int64_t decode_seq[4] = { 1000, 1000, 1000, 1004 };
  const int64_t prefill_seq[2] = { 128, 128 };

  tu_op_add_tensor (op, BF16, prefill ? "256,16,192" : "4,16,192");
  tu_op_add_tensor (op, BF16, "64,128,576");
  tu_op_add_none (op);
  tu_op_add_none (op);
  if (prefill)
    {
      add_values (op, prefill_seq, 2);
      add_values (op, prefill_seq, 2);
    }
  else
    {
      add_values (op, decode_seq, 4);
      tu_op_add_none (op);
    }
  tu_op_add_tensor (op, BF16, "16,128,512");
  tu_op_add_tensor (op, BF16, "16,512,128");
  tu_op_add_tensor (op, BF16, "512,4096");
  tu_op_add_none (op);
  return op;
}

/* Runs the module's decompose slot on op; specs receives the sub-queries. */
static msperf_status
decompose (msperf_engine *e, const msperf_op *op, GPtrArray *specs)
{
  void *state = NULL;
  const msperf_plugin *p = msperf_registry_decomposer (e->shared->registry, op->name, &state);
  g_autoptr (GPtrArray) in = msperf_op_tensor_inputs (op);
  g_autoptr (GArray) inputs = g_array_new (FALSE, FALSE, sizeof (msperf_tensor));
  static const char *const none[] = { NULL };
  msperf_query q = { 0 };

  assert_non_null (p);
  assert_string_equal (p->name, "mla");
  assert_non_null (p->decompose);
  for (guint k = 0; k < in->len; k++)
    g_array_append_val (inputs, *(msperf_tensor *) g_ptr_array_index (in, k));
  q.engine = e;
  q.op = op;
  q.entry = msperf_database_entry (msperf_engine_database (e), op->name);
  q.mode = "mla";
  q.kernel_types = none;
  q.inputs = (const msperf_tensor *) (void *) inputs->data;
  q.n_inputs = inputs->len;
  q.tc_input_count = -1;
  {
    msperf_plan plan = { specs, NULL };
    msperf_status st = p->decompose (e, state, &q, &plan);

    g_free (plan.miss);
    return st;
  }
}

static GPtrArray *
new_specs (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_subquery_free);
}

static const msperf_subquery *
spec (GPtrArray *specs, guint k)
{
  assert_true (k < specs->len);
  return g_ptr_array_index (specs, k);
}

static void
assert_kernels (const msperf_subquery *sq, const char *joined)
{
  g_autofree char *got = g_strjoinv (",", sq->kernel_types);

  assert_string_equal (got, joined);
}

/* Input i of sq is "d0,d1[,d2]" in dtype. */
static void
assert_input (const msperf_subquery *sq, guint i, const char *dims, msperf_dtype dtype)
{
  const msperf_tensor *t;
  g_autofree char *got = NULL;
  msperf_tensor want;

  assert_true (i < sq->inputs->len);
  t = &g_array_index (sq->inputs, msperf_tensor, i);
  tu_tensor (&want, dtype, dims);
  got = msperf_tensor_shape_repr (t);
  if (!msperf_tensor_same_shape (t, &want))
    fail_msg ("input %u: got %s, want %s", i, got, dims);
  assert_int_equal (t->dtype, dtype);
}

static int64_t
param_int (const msperf_subquery *sq, const char *key)
{
  int64_t v = -999;

  if (!msperf_value_get_int (msperf_value_lookup (sq->params, key), &v))
    fail_msg ("param %s missing or not an int", key);
  return v;
}

static void
assert_q_shape (const msperf_subquery *sq, int64_t t, int64_t n, int64_t d)
{
  const msperf_value *q = msperf_value_lookup (sq->params, "q_shape_3d");

  assert_true (msperf_value_is_int_list (q));
  assert_int_equal (q->items->len, 3);
  assert_int_equal (((msperf_value *) g_ptr_array_index (q->items, 0))->i, t);
  assert_int_equal (((msperf_value *) g_ptr_array_index (q->items, 1))->i, n);
  assert_int_equal (((msperf_value *) g_ptr_array_index (q->items, 2))->i, d);
}

static void
test_mla_lists_the_seven_registry_ops (void **state)
{
  void *st = NULL;
  msperf_engine *e = *state;
  const msperf_plugin *p
    = msperf_registry_decomposer (e->shared->registry, "tensor_cast.dsa_indexer.default", &st);
  /* reference §2.8 registry table */
  static const char *const want[] = {
    MLA, MLA_QUANT, MLA_SPARSE, "tensor_cast.mla_sparse_attention_quant.default",
    "tensor_cast.mlapo.default", "tensor_cast.mlapo_quant.default",
    "tensor_cast.dsa_indexer.default", NULL
  };

  assert_non_null (p);
  assert_int_equal (g_strv_length ((char **) p->op_names), 7);
  for (int k = 0; want[k]; k++)
    assert_true (g_strv_contains (p->op_names, want[k]));
  assert_null (p->lookup);
}

/* Reference §2.8 decode: BMM [(N,T,nope),(N,nope,kv_lora)], FIA {(B,N,kv_lora), avg, 0, 1},
 * TransposeBMM [(N,T,kv_lora),(N,kv_lora,v)]. */
static void
test_mla_decode_specs (void **state)
{
  g_autoptr (msperf_op) op = mla_op (MLA, FALSE);
  g_autoptr (GPtrArray) specs = new_specs ();
  const msperf_subquery *bmm, *fia, *tbmm;

  assert_int_equal (decompose (*state, op, specs), MSPERF_HIT);
  assert_int_equal (specs->len, 3);
  bmm = spec (specs, 0);
  assert_string_equal (bmm->mode, "compute");
  assert_kernels (bmm, "BatchMatMulV2,BatchMatMulNd");
  assert_int_equal (bmm->inputs->len, 2);
  assert_input (bmm, 0, "16,4,128", BF16);
  assert_input (bmm, 1, "16,128,512", BF16);
  assert_int_equal (bmm->tc_input_count, 2);
  assert_null (bmm->params);

  fia = spec (specs, 1);
  assert_string_equal (fia->mode, "attention_special");
  assert_kernels (fia, "FusedInferAttentionScore");
  assert_q_shape (fia, 4, 16, 512);
  assert_int_equal (param_int (fia, "avg_seq_len"), 1001);
  assert_int_equal (param_int (fia, "sparse_mode"), 0);
  assert_int_equal (param_int (fia, "num_kv_heads"), 1);
  assert_int_equal (fia->params->keys->len, 4);
  assert_input (fia, 0, "4,16,512", BF16);

  tbmm = spec (specs, 2);
  assert_kernels (tbmm, "TransposeBatchMatMul");
  assert_input (tbmm, 0, "16,4,512", BF16);
  assert_input (tbmm, 1, "16,512,128", BF16);
  assert_int_equal (tbmm->tc_input_count, 2);
}

/* Quant decode: QuantBatchMatmulV3 alone, tc_input_count 2. */
static void
test_mla_quant_decode_uses_quant_bmm (void **state)
{
  g_autoptr (msperf_op) op = mla_op (MLA_QUANT, FALSE);
  g_autoptr (GPtrArray) specs = new_specs ();

  assert_int_equal (decompose (*state, op, specs), MSPERF_HIT);
  assert_int_equal (specs->len, 3);
  assert_kernels (spec (specs, 0), "QuantBatchMatmulV3");
  assert_int_equal (spec (specs, 0)->tc_input_count, 2);
  assert_kernels (spec (specs, 1), "FusedInferAttentionScore");
  assert_kernels (spec (specs, 2), "TransposeBatchMatMul");
}

/* Reference §2.8 prefill: MatMulV2 [(T,kv_lora), kv_b_proj] tc 2; FIA {(T,N,qk_head−rope), avg, 3,
 * N}: (256,16,192−64). */
static void
test_mla_prefill_specs (void **state)
{
  g_autoptr (msperf_op) op = mla_op (MLA, TRUE);
  g_autoptr (GPtrArray) specs = new_specs ();
  const msperf_subquery *mm, *fia;

  assert_int_equal (decompose (*state, op, specs), MSPERF_HIT);
  assert_int_equal (specs->len, 2);
  mm = spec (specs, 0);
  assert_string_equal (mm->mode, "compute");
  assert_kernels (mm, "MatMulV2");
  assert_input (mm, 0, "256,512", BF16);
  assert_input (mm, 1, "512,4096", BF16);
  assert_int_equal (mm->tc_input_count, 2);
  fia = spec (specs, 1);
  assert_q_shape (fia, 256, 16, 128);
  assert_int_equal (param_int (fia, "avg_seq_len"), 128);
  assert_int_equal (param_int (fia, "sparse_mode"), 3);
  assert_int_equal (param_int (fia, "num_kv_heads"), 16);
}

/* The phase kwarg wins over query_lens; is_decode_values all true reads as decode. */
static void
test_mla_phase_kwargs_decide_phase (void **state)
{
  g_autoptr (msperf_op) op = mla_op (MLA, TRUE);
  g_autoptr (msperf_op) op2 = mla_op (MLA, TRUE);
  g_autoptr (GPtrArray) specs = new_specs ();
  g_autoptr (GPtrArray) specs2 = new_specs ();
  msperf_value *flags = msperf_value_new (MSPERF_VALUE_LIST);

  msperf_value_map_set (op->kwargs, "phase", msperf_value_new_string ("decode"));
  assert_int_equal (decompose (*state, op, specs), MSPERF_HIT);
  assert_int_equal (specs->len, 3);
  msperf_value_list_append (flags, msperf_value_new_bool (TRUE));
  msperf_value_list_append (flags, msperf_value_new_bool (TRUE));
  msperf_value_map_set (op2->kwargs, "is_decode_values", flags);
  assert_int_equal (decompose (*state, op2, specs2), MSPERF_HIT);
  assert_int_equal (specs2->len, 3);
}

/* Quirk Q24 (mixed batch) and the ≥ 10 args rule: the decomposition fails. */
static void
test_mla_mixed_batch_and_short_args_fail (void **state)
{
  g_autoptr (msperf_op) op = mla_op (MLA, FALSE);
  g_autoptr (msperf_op) short_op = mla_op (MLA, FALSE);
  g_autoptr (GPtrArray) specs = new_specs ();

  msperf_value_map_set (op->kwargs, "phase", msperf_value_new_string ("mixed"));
  assert_int_equal (decompose (*state, op, specs), MSPERF_MISS);
  assert_int_equal (specs->len, 0);
  g_ptr_array_set_size (short_op->args, 9);
  assert_int_equal (decompose (*state, short_op, specs), MSPERF_MISS);
  assert_int_equal (specs->len, 0);
}

/* Sparse MLA: SparseFlashAttention with the runtime parameters of §2.8 (topk from the kwarg,
 * block_size = kv_cache.shape[1], the per-request kv lengths). */
static void
test_mla_sparse_decode_uses_sfa_runtime_params (void **state)
{
  g_autoptr (msperf_op) op = mla_op (MLA_SPARSE, FALSE);
  g_autoptr (GPtrArray) specs = new_specs ();
  const msperf_subquery *sfa;
  const msperf_value *kv;

  msperf_value_map_set (op->kwargs, "topk", msperf_value_new_int (2048));
  assert_int_equal (decompose (*state, op, specs), MSPERF_HIT);
  assert_int_equal (specs->len, 3);
  sfa = spec (specs, 1);
  assert_kernels (sfa, "SparseFlashAttention");
  assert_q_shape (sfa, 4, 16, 512);
  assert_int_equal (param_int (sfa, "sparse_mode"), 3);
  assert_int_equal (param_int (sfa, "num_kv_heads"), 1);
  assert_int_equal (param_int (sfa, "topk"), 2048);
  assert_int_equal (param_int (sfa, "block_size"), 128);
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (sfa->params, "input_layout")),
                       "TND");
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (sfa->params, "cache_layout")),
                       "PA_BSND");
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (sfa->params, "kv_cache_mode")),
                       "paged");
  kv = msperf_value_lookup (sfa->params, "actual_seq_lengths_kv");
  assert_true (msperf_value_is_int_list (kv));
  assert_int_equal (kv->items->len, 4);
  assert_int_equal (((msperf_value *) g_ptr_array_index (kv->items, 3))->i, 1004);
}

/* What the reference does not specify is reported, not guessed. */
static void
test_mla_unspecified_ops_are_unsupported (void **state)
{
  static const char *const ops[] = { "tensor_cast.mlapo.default",
                                     "tensor_cast.mlapo_quant.default",
                                     "tensor_cast.dsa_indexer.default", NULL };
  g_autoptr (msperf_engine) sp = NULL;
  g_autoptr (msperf_op) sparse = mla_op (MLA_SPARSE, FALSE);
  static const char *const sp_on[] = { "parallel.sequence_parallel", "true", NULL };

  for (int k = 0; ops[k]; k++)
    {
      g_autoptr (msperf_op) op = mla_op (ops[k], FALSE);
      g_autoptr (GPtrArray) specs = new_specs ();
      assert_int_equal (decompose (*state, op, specs), MSPERF_ERROR);
      assert_int_equal (specs->len, 0);
    }
  sp = tu_engine_new ("mla", sp_on);
  {
    g_autoptr (GPtrArray) specs = new_specs ();
    assert_int_equal (decompose (sp, sparse, specs), MSPERF_ERROR);
  }
}

/* End to end: decode 5.0 + 30.0 + 6.0 = 41.0; prefill 12.0 + 40.0 = 52.0 (fixture rows). */
static void
test_mla_decode_and_prefill_answer_from_fixture (void **state)
{
  g_autoptr (msperf_op) dop = mla_op (MLA, FALSE);
  g_autoptr (msperf_op) pop = mla_op (MLA, TRUE);
  g_autoptr (msperf_result) d = msperf_engine_query (*state, dop);
  g_autoptr (msperf_result) p = msperf_engine_query (*state, pop);

  assert_int_equal (d->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (d->latency_us, 41.0, 1e-9);
  assert_float_equal (d->confidence, 0.8, 1e-12);
  assert_int_equal (p->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (p->latency_us, 52.0, 1e-9);
  assert_string_equal (tu_detail_string (p, "kernel_type"), "MatMulV2,FusedInferAttentionScore");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_mla_lists_the_seven_registry_ops, setup_mla,
                                     tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_mla_decode_specs, setup_mla, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_mla_quant_decode_uses_quant_bmm, setup_mla,
                                     tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_mla_prefill_specs, setup_mla, tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_mla_phase_kwargs_decide_phase, setup_mla,
                                     tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_mla_mixed_batch_and_short_args_fail, setup_mla,
                                     tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_mla_sparse_decode_uses_sfa_runtime_params, setup_mla,
                                     tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_mla_unspecified_ops_are_unsupported, setup_mla,
                                     tu_teardown_engine),
    cmocka_unit_test_setup_teardown (test_mla_decode_and_prefill_answer_from_fixture, setup_mla,
                                     tu_teardown_engine),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
