/* Tests of the elementwise module's memory-bound proxies (plugins/elementwise/elementwise_proxy.c,
 * the mapping key proxy_bytes): the bytes rules, the exact lookup of the unary op of the same
 * bytes (unary rows only), the interpolation target, the refused tc_input_count and bad rule, on
 * the fixture tests/data/elementwise/proxy. Expected latencies are worked out next to each test
 * (linear interpolation between the bracketing unary rows 1024 → 1.0, 4096 → 2.0). */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "common/test_util.h"
#include "../../plugins/elementwise/elementwise_proxy.h"

#define BF16 MSPERF_DTYPE_BF16
#define FP32 MSPERF_DTYPE_FLOAT32
#define I64 MSPERF_DTYPE_INT64

static const char *const opt_in[] = {
  "interpolation.modes", "[compute, attention_special, elementwise]", NULL
};

static int
setup_opt_in (void **state)
{
  *state = tu_engine_new ("elementwise/proxy", opt_in);
  return 0;
}

/* ------------------------------------------------------------------ the bytes rules */

static void
test_bytes_all_counts_every_input_and_output (void **state)
{
  msperf_tensor in[2], o[2];
  const msperf_tensor *outs[] = { &o[0], &o[1] };
  int64_t b = -1;

  (void) state;
  tu_tensor (&in[0], BF16, "32,128");  /* 8192 B */
  tu_tensor (&in[1], FP32, "4");       /* 16 B */
  tu_tensor (&o[0], BF16, "32,8");     /* 512 B */
  tu_tensor (&o[1], I64, "32,8");      /* 2048 B */
  assert_true (elementwise_proxy_bytes ("all", in, 2, outs, 2, &b));
  assert_int_equal (b, 8192 + 16 + 512 + 2048);
}

/* A gather reads what it writes: the source table (first input) is not read whole. */
static void
test_bytes_gather_reads_what_it_writes (void **state)
{
  msperf_tensor in[2], o;
  const msperf_tensor *outs[] = { &o };
  int64_t b = -1;

  (void) state;
  tu_tensor (&in[0], BF16, "128256,4096");
  tu_tensor (&in[1], I64, "1,16");     /* 128 B */
  tu_tensor (&o, BF16, "1,16,4096");   /* 131072 B, read then written */
  assert_true (elementwise_proxy_bytes ("gather", in, 2, outs, 1, &b));
  assert_int_equal (b, 2 * 131072 + 128);
}

static void
test_bytes_rejects_unknown_rule_and_dtype (void **state)
{
  msperf_tensor in, o;
  const msperf_tensor *outs[] = { &o };
  int64_t b = 7;

  (void) state;
  tu_tensor (&in, BF16, "16");
  tu_tensor (&o, BF16, "16");
  assert_false (elementwise_proxy_bytes ("outputs", &in, 1, outs, 1, &b));
  assert_false (elementwise_proxy_bytes (NULL, &in, 1, outs, 1, &b));
  o.dtype = MSPERF_DTYPE_UNKNOWN;
  assert_false (elementwise_proxy_bytes ("all", &in, 1, outs, 1, &b));
  assert_int_equal (b, 7);
}

/* ------------------------------------------------------------------ through the engine */

/* RoPE as the templates emit it: k [1,kvh,T,hd], q [1,h,T,hd], cos and sin [1,T,hd]; outputs k
 * and q [1,T,heads,hd]. */
static msperf_op *
rope (int kvh, int h, int t, int hd)
{
  msperf_op *op = tu_op ("tensor_cast.apply_rope.default");
  g_autofree char *k = g_strdup_printf ("1,%d,%d,%d", kvh, t, hd);
  g_autofree char *q = g_strdup_printf ("1,%d,%d,%d", h, t, hd);
  g_autofree char *cs = g_strdup_printf ("1,%d,%d", t, hd);
  g_autofree char *ko = g_strdup_printf ("1,%d,%d,%d", t, kvh, hd);
  g_autofree char *qo = g_strdup_printf ("1,%d,%d,%d", t, h, hd);

  tu_op_add_tensor (op, BF16, k);
  tu_op_add_tensor (op, BF16, q);
  tu_op_add_tensor (op, BF16, cs);
  tu_op_add_tensor (op, BF16, cs);
  tu_op_add_out (op, BF16, ko);
  tu_op_add_out (op, BF16, qo);
  return op;
}

static void
assert_interpolated (const msperf_result *r, double latency)
{
  if (r->source != MSPERF_SOURCE_INTERPOLATED)
    fail_msg ("expected INTERPOLATED, got %s (reason %s)", msperf_source_name (r->source),
              r->miss_reason ? r->miss_reason : "-");
  assert_float_equal (r->latency_us, latency, 1e-9);
  assert_string_equal (r->kernel_type, "Silu");
  assert_string_equal (tu_detail_string (r, "regime"),
                       "|Silu|elementwise|same-shape|inputs=1|dtypes=DT_BF16->DT_BF16");
}

/* Embedding of 2 tokens, H = 2046: reads and writes [2, 2046] bf16 (8184 B, twice)
 * plus the [1,2] int64 indices (16 B) = 16384 B = the unary op of 4096 elements: the 4096 row,
 * exact. The [100, 2046] table is not counted. */
static void
test_gather_exact_hit (void **state)
{
  msperf_op *op = tu_op ("aten.embedding.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "100,2046");
  tu_op_add_tensor (op, I64, "1,2");
  tu_op_add_out (op, BF16, "1,2,2046");
  r = tu_run (*state, op);
  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 2.0, 1e-12);
  assert_string_equal (r->kernel_type, "Silu");
  assert_string_equal (tu_detail_string (r, "proxy_bytes"), "gather");
  assert_float_equal (tu_detail_double (r, "proxy_op_bytes"), 16384.0, 0);
}

/* RoPE, kvh 2, h 4, T 8, hd 32: inputs 512 + 1024 + 256 + 256 elements (4096 B), outputs
 * 512 + 1024 (3072 B): 7168 B, the unary op of 1792 elements → 1 + (1792 − 1024) / 3072 = 1.25.
 * Counting the first output only (what the plain mode reads) would be far less. */
static void
test_rope_sums_every_output (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, rope (2, 4, 8, 32));

  assert_interpolated (r, 1.25);
}

/* top-k over [32, 128] bf16, k = 8: reads 8192 B, writes values [32, 8] bf16 (512 B) and int64
 * indices (2048 B): 10752 B → 2688 elements → 1 + 1664 / 3072. */
static void
test_topk_counts_int64_indices (void **state)
{
  msperf_op *op = tu_op ("aten.topk.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "32,128");
  tu_op_add_int (op, 8);
  tu_op_add_out (op, BF16, "32,8");
  tu_op_add_out (op, I64, "32,8");
  r = tu_run (*state, op);
  assert_interpolated (r, 1.0 + 1664.0 / 3072.0);
}

/* Embedding of 2 tokens, H = 1022: 2 × 4088 B + 16 B of indices = 8192 B = 2048 elements. The
 * 2048-element row is binary (three tensors' bytes): the proxy never matches it exactly and
 * interpolates 1 + 1024 / 3072 between the unary rows instead (the row would have said 9.0). */
static void
test_unary_rows_only (void **state)
{
  msperf_op *op = tu_op ("aten.embedding.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "100,1022");
  tu_op_add_tensor (op, I64, "1,2");
  tu_op_add_out (op, BF16, "1,2,1022");
  r = tu_run (*state, op);
  assert_interpolated (r, 1.0 + 1024.0 / 3072.0);
  assert_string_equal (tu_detail_string (r, "base_reason"), "elementwise_output_shape_mismatch");
}

/* tc_input_count with proxy_bytes is refused: the candidate index would cut the kernel's rows
 * too (a binary row would pass as unary). */
static void
test_tc_input_count_refused (void **state)
{
  msperf_op *op = tu_op ("test.cut.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "2048");
  tu_op_add_tensor (op, BF16, "4096");
  tu_op_add_out (op, BF16, "2048");
  r = tu_run (*state, op);
  assert_int_not_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_int_not_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
  assert_string_equal (tu_detail_string (r, "base_reason"),
                       "elementwise_proxy_with_tc_input_count");
}

/* An unknown rule is not looked up: the op falls to the roofline with the reason. */
static void
test_bad_rule_is_a_miss (void **state)
{
  msperf_op *op = tu_op ("test.bad_rule.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "1024");
  tu_op_add_out (op, BF16, "1024");
  r = tu_run (*state, op);
  assert_int_not_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_int_not_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
  assert_string_equal (tu_detail_string (r, "base_reason"), "elementwise_proxy_bytes_invalid");
}

/* Without proxy_bytes the op is looked up as before, by its output shape. */
static void
test_without_key_unchanged (void **state)
{
  msperf_op *op = tu_op ("aten.sigmoid.default");
  g_autoptr (msperf_result) r = NULL;

  tu_op_add_tensor (op, BF16, "1024");
  tu_op_add_out (op, BF16, "1024");
  r = tu_run (*state, op);
  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 1.0, 1e-12);
  assert_null (tu_detail_string (r, "proxy_bytes"));
}

/* Without the opt-in an off-grid proxy is not interpolated. */
static void
test_default_policy_does_not_interpolate (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("elementwise/proxy", NULL);
  g_autoptr (msperf_result) r = tu_run (e, rope (2, 4, 8, 32));

  (void) state;
  assert_int_not_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
  assert_string_equal (r->miss_reason, "elementwise_output_shape_mismatch");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_bytes_all_counts_every_input_and_output),
    cmocka_unit_test (test_bytes_gather_reads_what_it_writes),
    cmocka_unit_test (test_bytes_rejects_unknown_rule_and_dtype),
    cmocka_unit_test (test_gather_exact_hit),
    cmocka_unit_test (test_rope_sums_every_output),
    cmocka_unit_test (test_topk_counts_int64_indices),
    cmocka_unit_test (test_unary_rows_only),
    cmocka_unit_test (test_tc_input_count_refused),
    cmocka_unit_test (test_bad_rule_is_a_miss),
    cmocka_unit_test (test_without_key_unchanged),
    cmocka_unit_test (test_default_policy_does_not_interpolate),
  };
  return cmocka_run_group_tests (tests, setup_opt_in, tu_teardown_engine);
}
