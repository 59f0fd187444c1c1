/* Tests of the "field_table" module (plugins/field_table) through the engine on the fixture
 * tests/data/field_table: a fused-MoE table whose rows differ by named fields. Rows (tokens:
 * latency) with num_experts 8, power_law_1.2: 1: 10, 8: 20, 16: 40; balanced: 8: 30, 16: 60;
 * num_experts 16, power_law_1.2: 8: 99. Every other field is moe_tp 1, moe_ep 2, topk 2, fp8.
 * Column axes on tests/data/field_table_axes: two MLA tables without tensors, every row at 16
 * heads, bf16 q and cache. CtxMla (step 0; linear) (batch, isl): (1, 128) 10, (1, 256) 20,
 * (2, 128) 20, (2, 256) 40. GenMla (isl 1; log space) (batch, step): (1, 1024) 10, (1, 4096) 40,
 * (4, 1024) 30, (4, 4096) 90. */
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
#define FP8 MSPERF_DTYPE_FP8_E4M3
#define I32 MSPERF_DTYPE_INT32

/* A fused_moe op of `tokens` tokens with the fixture's weights; kwargs as given (NULL: absent). */
static msperf_op *
moe (int64_t tokens, msperf_value *num_experts, const char *distribution)
{
  msperf_op *op = tu_op ("tensor_cast.fused_moe.default");
  char dims[64];

  g_snprintf (dims, sizeof dims, "%" G_GINT64_FORMAT ",64", tokens);
  tu_op_add_tensor (op, BF16, dims);
  tu_op_add_tensor (op, FP8, "4,32,64");
  tu_op_add_tensor (op, FP8, "4,64,16");
  g_snprintf (dims, sizeof dims, "%" G_GINT64_FORMAT ",2", tokens);
  tu_op_add_tensor (op, I32, dims);
  tu_op_add_out (op, BF16, "8,64");
  msperf_value_map_set (op->kwargs, "num_experts",
                        num_experts ? num_experts : msperf_value_new_int (8));
  msperf_value_map_set (op->kwargs, "moe_tp", msperf_value_new_int (1));
  msperf_value_map_set (op->kwargs, "moe_ep", msperf_value_new_int (2));
  msperf_value_map_set (op->kwargs, "topk", msperf_value_new_int (2));
  msperf_value_map_set (op->kwargs, "quant", msperf_value_new_string ("fp8"));
  if (distribution)
    msperf_value_map_set (op->kwargs, "distribution", msperf_value_new_string (distribution));
  return op;
}

/* Every field and the token count equal: the row, MEASURED (the op's bf16 activation against
 * the row's fp8 one: dtypes are not compared). */
static void
test_exact_row (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table", NULL);
  g_autoptr (msperf_result) r = tu_run (e, moe (8, NULL, "power_law_1.2"));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 20.0, 1e-12);
  assert_string_equal (r->shape_match_rule, "field_exact");
  assert_string_equal (r->kernel_type, "FusedMoE");
}

/* 12 tokens between 8 (20 us) and 16 (40 us) of the same fields: 30 us. */
static void
test_tokens_interpolated (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table", NULL);
  g_autoptr (msperf_result) r = tu_run (e, moe (12, NULL, "power_law_1.2"));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (r->latency_us, 30.0, 1e-9);
  assert_string_equal (r->method, "linear_1d");
}

/* The distribution is exact: balanced interpolates its own rows (30, 60 -> 45). */
static void
test_distribution_exact (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table", NULL);
  g_autoptr (msperf_result) r = tu_run (e, moe (12, NULL, "balanced"));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (r->latency_us, 45.0, 1e-9);
}

/* No distribution kwarg: the entry's field_defaults (power_law_1.2). */
static void
test_field_default (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table", NULL);
  g_autoptr (msperf_result) r = tu_run (e, moe (8, NULL, NULL));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 20.0, 1e-12);
}

/* Numbers compare in one form: the kwarg 16.0 and the text "16" both find the 16-expert row. */
static void
test_numbers_canonical (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table", NULL);
  g_autoptr (msperf_result) a
    = tu_run (e, moe (8, msperf_value_new_double (16.0), "power_law_1.2"));
  g_autoptr (msperf_result) b
    = tu_run (e, moe (8, msperf_value_new_string ("16"), "power_law_1.2"));

  (void) state;
  tu_assert_source (a, MSPERF_SOURCE_MEASURED);
  assert_float_equal (a->latency_us, 99.0, 1e-12);
  tu_assert_source (b, MSPERF_SOURCE_MEASURED);
  assert_float_equal (b->latency_us, 99.0, 1e-12);
}

/* Fields no row has: no row of other fields stands in; the roofline answers. */
static void
test_unknown_fields_miss (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table", NULL);
  g_autoptr (msperf_result) r = tu_run (e, moe (8, msperf_value_new_int (32), "power_law_1.2"));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (tu_detail_string (r, "base_reason"), "field_row_not_found");
}

/* A field value that is no scalar is a missing field, named. */
static void
test_field_not_scalar (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table", NULL);
  g_autoptr (msperf_result) r
    = tu_run (e, moe (8, msperf_value_new (MSPERF_VALUE_LIST), "power_law_1.2"));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (tu_detail_string (r, "base_reason"), "field_missing:num_experts");
}

/* A weight of other dims is another regime, whatever the fields. */
static void
test_dims_exact (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table", NULL);
  msperf_op *op = moe (8, NULL, "power_law_1.2");
  g_autoptr (msperf_result) r = NULL;
  msperf_value *w = g_ptr_array_index (op->args, 1);

  (void) state;
  w->tensor.dims[1] = 48;
  r = tu_run (e, op);
  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (tu_detail_string (r, "base_reason"), "field_row_not_found");
}

/* ------------------------------------------------------------------ column axes */

/* One int64 tensor [batch] holding `value` in every entry (seq_lens, query_lens). */
static void
add_lens (msperf_op *op, int64_t batch, int64_t value)
{
  char dims[32];
  msperf_value *v;

  g_snprintf (dims, sizeof dims, "%" G_GINT64_FORMAT, batch);
  tu_op_add_tensor (op, MSPERF_DTYPE_INT64, dims);
  v = g_ptr_array_index (op->args, op->args->len - 1);
  v->tensor.n_values = (size_t) batch;
  v->tensor.values = g_new (int64_t, batch);
  for (int64_t i = 0; i < batch; i++)
    v->tensor.values[i] = value;
}

/* The mla_moe op: q [T, 16, 192], the latent cache, block table, seq_lens (the KV length),
 * query_lens (the new tokens). */
static msperf_op *
mla (int64_t batch, int64_t kv_len, int64_t q_len, msperf_dtype kv_dtype)
{
  msperf_op *op = tu_op ("tensor_cast.multihead_latent_attention.default");
  char dims[64];

  g_snprintf (dims, sizeof dims, "%" G_GINT64_FORMAT ",16,192", batch * q_len);
  tu_op_add_tensor (op, BF16, dims);
  tu_op_add_tensor (op, kv_dtype, "33,128,576");
  tu_op_add_none (op);
  g_snprintf (dims, sizeof dims, "%" G_GINT64_FORMAT ",8", batch);
  tu_op_add_tensor (op, MSPERF_DTYPE_INT64, dims);
  add_lens (op, batch, kv_len);
  add_lens (op, batch, q_len);
  g_snprintf (dims, sizeof dims, "%" G_GINT64_FORMAT ",16,128", batch * q_len);
  tu_op_add_out (op, BF16, dims);
  return op;
}

/* Heads from q, batch from seq_lens, isl from query_lens, step 0: the context row. */
static void
test_axes_exact_context (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table_axes", NULL);
  g_autoptr (msperf_result) r = tu_run (e, mla (2, 256, 256, BF16));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 40.0, 1e-12);
  assert_string_equal (r->kernel_type, "CtxMla");
  assert_string_equal (r->shape_match_rule, "field_exact");
}

/* A decode step (step = 4096 cached tokens) is no context row: the alternate's exact row. */
static void
test_axes_alternate_kernel (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table_axes", NULL);
  g_autoptr (msperf_result) r = tu_run (e, mla (1, 4097, 1, BF16));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 40.0, 1e-12);
  assert_string_equal (r->kernel_type, "GenMla");
}

/* isl 192 between 128 (10 us) and 256 (20 us) at batch 1, linear: 15 us. */
static void
test_axes_interpolated_linear (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table_axes", NULL);
  g_autoptr (msperf_result) r = tu_run (e, mla (1, 192, 192, BF16));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (r->latency_us, 15.0, 1e-9);
  assert_string_equal (r->kernel_type, "CtxMla");
  assert_string_equal (r->method, "linear_1d");
}

/* step 2048 between 1024 (10 us) and 4096 (40 us), log space: log2 2048 is halfway, so
 * exp ((ln 10 + ln 40) / 2) = 20 us (linear would give 20/3 + 10 = 16.67). */
static void
test_axes_interpolated_log (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table_axes", NULL);
  g_autoptr (msperf_result) r = tu_run (e, mla (1, 2049, 1, BF16));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (r->latency_us, 20.0, 1e-9);
  assert_string_equal (r->method, "linear_1d_log");
}

/* Past the largest step: no answer from data, the reason says the boundary. */
static void
test_axes_out_of_range (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table_axes", NULL);
  g_autoptr (msperf_result) r = tu_run (e, mla (1, 8193, 1, BF16));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (r->miss_reason, "wrapper_interpolation_failed");
  assert_string_equal (tu_detail_string (r, "base_reason"), "field_row_not_found");
}

/* An fp8 cache is an exact field no row has: never answered from the bf16 rows. */
static void
test_axes_exact_field_fp8 (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table_axes", NULL);
  g_autoptr (msperf_result) r = tu_run (e, mla (1, 2049, 1, FP8));

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (r->miss_reason, "regime_key_unmatched");
}

/* An op without seq_lens values: the batch axis cannot be derived, named in the reason. */
static void
test_axes_missing_values (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table_axes", NULL);
  msperf_op *op = mla (1, 2049, 1, BF16);
  g_autoptr (msperf_result) r = NULL;
  msperf_value *lens = g_ptr_array_index (op->args, 4);

  (void) state;
  g_clear_pointer (&lens->tensor.values, g_free);
  lens->tensor.n_values = 0;
  r = tu_run (e, op);
  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (tu_detail_string (r, "base_reason"), "field_missing:step");
}

/* A kwarg wins over field_args: step 1024 given, whatever seq_lens says. */
static void
test_axes_kwarg_wins (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("field_table_axes", NULL);
  msperf_op *op = mla (1, 2049, 1, BF16);
  g_autoptr (msperf_result) r = NULL;

  (void) state;
  msperf_value_map_set (op->kwargs, "step", msperf_value_new_int (1024));
  r = tu_run (e, op);
  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 10.0, 1e-12);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_exact_row),
    cmocka_unit_test (test_tokens_interpolated),
    cmocka_unit_test (test_distribution_exact),
    cmocka_unit_test (test_field_default),
    cmocka_unit_test (test_numbers_canonical),
    cmocka_unit_test (test_unknown_fields_miss),
    cmocka_unit_test (test_field_not_scalar),
    cmocka_unit_test (test_dims_exact),
    cmocka_unit_test (test_axes_exact_context),
    cmocka_unit_test (test_axes_alternate_kernel),
    cmocka_unit_test (test_axes_interpolated_linear),
    cmocka_unit_test (test_axes_interpolated_log),
    cmocka_unit_test (test_axes_out_of_range),
    cmocka_unit_test (test_axes_exact_field_fp8),
    cmocka_unit_test (test_axes_missing_values),
    cmocka_unit_test (test_axes_kwarg_wins),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
