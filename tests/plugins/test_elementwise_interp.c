/* Tests of elementwise interpolation (plugins/elementwise/elementwise_axes.c): the broadcast
 * signature, the regime rules (same-shape vs broadcast vs scalar, input count, dtypes, the
 * float16 alias, primary kernel only) and the opt-in through interpolation.modes, on the
 * fixture tests/data/elementwise/interp. Expected latencies are linear interpolations between
 * the two bracketing fixture rows, worked out by hand next to each test. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "common/test_util.h"
#include "../../plugins/elementwise/elementwise_axes.h"

#define BF16 MSPERF_DTYPE_BF16
#define FP16 MSPERF_DTYPE_FLOAT16
#define FP32 MSPERF_DTYPE_FLOAT32

static const char *const opt_in[] = {
  "interpolation.modes", "[compute, attention_special, elementwise]", NULL
};

static int
setup_opt_in (void **state)
{
  *state = tu_engine_new ("elementwise/interp", opt_in);
  return 0;
}

/* ------------------------------------------------------------------ signature */

/* The signature of inputs given as "dims|dims|…" against out. */
static char *
signature (const char *inputs, const char *out)
{
  g_auto (GStrv) parts = g_strsplit (inputs, "|", -1);
  msperf_tensor in[8], o;
  g_autoptr (GString) sig = g_string_new (NULL);
  size_t n = 0;

  for (; parts[n]; n++)
    tu_tensor (&in[n], BF16, parts[n]);
  tu_tensor (&o, BF16, out);
  if (!elementwise_broadcast_signature (in, n, &o, sig))
    return g_strdup ("(none)");
  return g_strdup (sig->str);
}

static void
assert_signature (const char *inputs, const char *out, const char *want)
{
  g_autofree char *got = signature (inputs, out);

  assert_string_equal (got, want);
}

/* Same-shape, whatever the rank: a [tokens, hidden] op and a flat row agree. */
static void
test_signature_same_shape_any_rank (void **state)
{
  (void) state;
  assert_signature ("2048,4096|2048,4096", "2048,4096", "same-shape");
  assert_signature ("8388608|8388608", "8388608", "same-shape");
  assert_signature ("1,2048,4096|1,2048,4096", "2048,4096", "same-shape");
  assert_signature ("2048,14336", "2048,14336", "same-shape");
  /* a leading 1 on the output only */
  assert_signature ("2048,4096|2048,4096", "1,2048,4096", "same-shape");
}

/* Broadcast patterns: one letter per coalesced axis and input; adjacent axes with the same letters
 * in every input merge, so [B,T,H] + [H] is [B·T,H] + [H]. */
static void
test_signature_broadcast_patterns (void **state)
{
  (void) state;
  assert_signature ("32,1024|1024", "32,1024", "ff;bf");
  assert_signature ("2,16,1024|1024", "2,16,1024", "ff;bf");
  assert_signature ("2,16,1024|1,1,1024", "2,16,1024", "ff;bf");
  assert_signature ("32,1024|32,1", "32,1024", "ff;fb");
  assert_signature ("32,1|1,1024", "32,1024", "fb;bf");
  assert_signature ("8,32,1024|8,1,1024", "8,32,1024", "fff;fbf");
}

/* A one-element input is a scalar, whatever its rank; all-scalar ops are not same-shape. */
static void
test_signature_scalars (void **state)
{
  (void) state;
  assert_signature ("4096|1", "4096", "f;s");
  assert_signature ("1|4096", "4096", "s;f");
  assert_signature ("1,1|1", "1", "s;s");
}

/* Shapes that do not broadcast to the output, and empty outputs, have no signature. */
static void
test_signature_rejects_non_broadcast (void **state)
{
  (void) state;
  assert_signature ("32,1024|512", "32,1024", "(none)");
  assert_signature ("2,32,1024", "32,1024", "(none)");
  assert_signature ("0,4", "0,4", "(none)");
}

/* ------------------------------------------------------------------ through the engine */

static msperf_op *
binary (const char *name, msperf_dtype dtype, const char *a, const char *b, const char *out)
{
  msperf_op *op = tu_op (name);

  tu_op_add_tensor (op, dtype, a);
  if (b)
    tu_op_add_tensor (op, dtype, b);
  tu_op_add_out (op, dtype, out);
  return op;
}

static void
assert_interpolated (const msperf_result *r, double latency, const char *regime)
{
  if (r->source != MSPERF_SOURCE_INTERPOLATED)
    fail_msg ("expected INTERPOLATED, got %s (reason %s)", msperf_source_name (r->source),
              r->miss_reason ? r->miss_reason : "-");
  assert_float_equal (r->latency_us, latency, 1e-9);
  assert_float_equal (r->confidence, 0.70, 1e-12);
  assert_string_equal (r->method, "linear_1d");
  assert_string_equal (tu_detail_string (r, "query_mode"), "elementwise");
  assert_string_equal (tu_detail_string (r, "base_reason"), "elementwise_output_shape_mismatch");
  assert_string_equal (tu_detail_string (r, "regime"), regime);
}

/* Not answered from data: the fallback (analytic) answers, with the stage's reason. */
static void
assert_miss (const msperf_result *r, const char *reason)
{
  assert_int_not_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_int_not_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
  assert_non_null (r->miss_reason);
  assert_string_equal (r->miss_reason, reason);
}

/* [2,1024] same-shape (2048 elements) between the flat BF16 rows 1024 (1.0) and 4096 (2.0):
 * 1 + 1024/3072 = 1.3333…; [8,1024] (8192) between 4096 (2.0) and 16384 (5.0): 2 + 3·4096/12288 = 3. */
static void
test_same_shape_target_uses_flat_rows (void **state)
{
  const char *regime = "|Add|elementwise|same-shape|inputs=2|dtypes=DT_BF16,DT_BF16->DT_BF16";
  g_autoptr (msperf_result) a = tu_run (*state, binary ("aten.add.Tensor", BF16, "2,1024",
                                                        "2,1024", "2,1024"));
  g_autoptr (msperf_result) b = tu_run (*state, binary ("aten.add.Tensor", BF16, "1,8,1024",
                                                        "1,8,1024", "1,8,1024"));

  assert_interpolated (a, 1.0 + 1024.0 / 3072.0, regime);
  assert_interpolated (b, 3.0, regime);
}

/* [40,1024] + [1024] (40960) between the broadcast rows 16384 (4.0) and 65536 (10.0):
 * 4 + 6·24576/49152 = 7; a 3-D [2,20,1024] + [1024] is the same regime and point. (40 rows:
 * 32 would be an exact block-padded hit of the 16-row row.) */
static void
test_broadcast_target_uses_broadcast_rows (void **state)
{
  const char *regime = "|Add|elementwise|ff;bf|inputs=2|dtypes=DT_BF16,DT_BF16->DT_BF16";
  g_autoptr (msperf_result) a = tu_run (*state, binary ("aten.add.Tensor", BF16, "40,1024",
                                                        "1024", "40,1024"));
  g_autoptr (msperf_result) b = tu_run (*state, binary ("aten.add.Tensor", BF16, "2,20,1024",
                                                        "1024", "2,20,1024"));
  /* [40,1] broadcasts along the other axis: no rows of that pattern. */
  g_autoptr (msperf_result) c = tu_run (*state, binary ("aten.add.Tensor", BF16, "40,1024",
                                                        "40,1", "40,1024"));

  assert_interpolated (a, 7.0, regime);
  assert_interpolated (b, 7.0, regime);
  assert_miss (c, "regime_key_unmatched");
}

/* Tensor + one-element tensor: 8192 between the scalar rows 4096 (1.8) and 16384 (3.8):
 * 1.8 + 2·4096/12288. */
static void
test_scalar_target_uses_scalar_rows (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, binary ("aten.add.Tensor", BF16, "8,1024", "1",
                                                        "8,1024"));

  assert_interpolated (r, 1.8 + 2.0 * 4096.0 / 12288.0,
                       "|Add|elementwise|f;s|inputs=2|dtypes=DT_BF16,DT_BF16->DT_BF16");
}

/* The dtype is part of the regime: FLOAT [2048] uses the FLOAT rows 1024 (1.5) and 4096 (3.5):
 * 1.5 + 2·1024/3072, never the BF16 ones scaled; a FLOAT broadcast op has no FLOAT rows. */
static void
test_dtype_regime_prefers_own_dtype (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, binary ("aten.add.Tensor", FP32, "2,1024",
                                                        "2,1024", "2,1024"));
  g_autoptr (msperf_result) m = tu_run (*state, binary ("aten.add.Tensor", FP32, "40,1024",
                                                        "1024", "40,1024"));

  assert_interpolated (r, 1.5 + 2.0 * 1024.0 / 3072.0,
                       "|Add|elementwise|same-shape|inputs=2|dtypes=FLOAT,FLOAT->FLOAT");
  assert_miss (m, "regime_key_unmatched");
}

/* On an exact output shape the exact path still scales across dtypes (the scaling is an
 * exact-shape rule): FLOAT [16384] from the BF16 row 5.0 × 4/2. */
static void
test_exact_dtype_scaling_unchanged (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, binary ("aten.add.Tensor", FP32, "16384",
                                                        "16384", "16384"));

  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 10.0, 1e-12);
  assert_float_equal (tu_detail_double (r, "dtype_scale"), 2.0, 1e-12);
}

/* Q3: float16 reads as DT_BF16 when the kernel has no DT_FLOAT16 output row. */
static void
test_fp16_aliases_bf16_rows (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, binary ("aten.add.Tensor", FP16, "2048", "2048",
                                                        "2048"));

  assert_interpolated (r, 1.0 + 1024.0 / 3072.0,
                       "|Add|elementwise|same-shape|inputs=2|dtypes=DT_BF16,DT_BF16->DT_BF16");
}

/* Q17: the alternate MulAiCore has two rows bracketing 2048, the primary Mul one: no answer. */
static void
test_alternate_kernel_not_interpolated (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, binary ("aten.mul.Tensor", BF16, "2048", "2048",
                                                        "2048"));

  assert_miss (r, "wrapper_interpolation_failed");
}

/* The input count is in the regime: a one-input add finds no rows. */
static void
test_input_count_in_regime (void **state)
{
  g_autoptr (msperf_result) r = tu_run (*state, binary ("aten.add.Tensor", BF16, "2048", NULL,
                                                        "2048"));

  assert_miss (r, "regime_key_unmatched");
}

/* Opt-in: without elementwise in interpolation.modes the exact miss stands, untouched. */
static void
test_default_policy_does_not_interpolate (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("elementwise/interp", NULL);
  g_autoptr (msperf_result) r = tu_run (e, binary ("aten.add.Tensor", BF16, "2,1024", "2,1024",
                                                   "2,1024"));

  (void) state;
  assert_miss (r, "elementwise_output_shape_mismatch");
  assert_null (tu_detail_string (r, "interpolation_reason"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_signature_same_shape_any_rank),
    cmocka_unit_test (test_signature_broadcast_patterns),
    cmocka_unit_test (test_signature_scalars),
    cmocka_unit_test (test_signature_rejects_non_broadcast),
    cmocka_unit_test (test_same_shape_target_uses_flat_rows),
    cmocka_unit_test (test_broadcast_target_uses_broadcast_rows),
    cmocka_unit_test (test_scalar_target_uses_scalar_rows),
    cmocka_unit_test (test_dtype_regime_prefers_own_dtype),
    cmocka_unit_test (test_exact_dtype_scaling_unchanged),
    cmocka_unit_test (test_fp16_aliases_bf16_rows),
    cmocka_unit_test (test_alternate_kernel_not_interpolated),
    cmocka_unit_test (test_input_count_in_regime),
    cmocka_unit_test (test_default_policy_does_not_interpolate),
  };
  return cmocka_run_group_tests (tests, setup_opt_in, tu_teardown_engine);
}
