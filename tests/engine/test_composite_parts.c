/* Tests of the interpolation of composite parts (core/engine/parts.c, policy key
 * interpolation.part_modes) on the fixture tests/data/composite/parts: without the key the
 * parts of composite entries in an interpolated mode are interpolated as before; with it only
 * the listed part modes are, and interpolation.modes still has the last word.
 * RmsNorm part of 120 tokens between the rows 64 (4.0) and 256 (10.0): 4 + 6·56/192 = 5.75;
 * a composite with an interpolated part has confidence 0.5 (reference §2.12). */
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
#define RMS_COMPOSITE "tensor_cast.rms_norm_dynamic_quant_symmetric.default"

static msperf_result *
run_rms (const char *const *overrides, const char *op_name, const char *tokens_dims)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("composite/parts", overrides);
  msperf_op *op = tu_op (op_name);

  tu_op_add_tensor (op, BF16, tokens_dims);
  tu_op_add_tensor (op, BF16, "7168");
  return tu_run (e, op);
}

static void
assert_interpolated_part (const msperf_result *r)
{
  if (r->source != MSPERF_SOURCE_INTERPOLATED)
    fail_msg ("expected INTERPOLATED, got %s (reason %s)", msperf_source_name (r->source),
              r->miss_reason ? r->miss_reason : "-");
  assert_float_equal (r->latency_us, 5.75, 1e-9);
  assert_float_equal (r->confidence, 0.5, 1e-12);
  assert_string_equal (r->kernel_type, "RmsNorm");
  assert_true (tu_detail_bool (r, "composite"));
}

static void
assert_part_missed (const msperf_result *r)
{
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_non_null (r->miss_reason);
  assert_string_equal (r->miss_reason, "shape_mismatch");
}

/* Default: without part_modes, a composite's compute part is interpolated. */
static void
test_default_interpolates_composite_parts (void **state)
{
  g_autoptr (msperf_result) r = run_rms (NULL, RMS_COMPOSITE, "120,7168");

  (void) state;
  assert_interpolated_part (r);
}

/* part_modes lists compute: the same answer. */
static void
test_part_modes_listing_compute (void **state)
{
  const char *const ov[] = { "interpolation.part_modes", "[compute]", NULL };
  g_autoptr (msperf_result) r = run_rms (ov, RMS_COMPOSITE, "120,7168");

  (void) state;
  assert_interpolated_part (r);
}

/* part_modes without compute (or empty): the compute part stays exact and the op misses. */
static void
test_part_modes_without_compute (void **state)
{
  const char *const att[] = { "interpolation.part_modes", "[attention_special]", NULL };
  const char *const none[] = { "interpolation.part_modes", "[]", NULL };
  g_autoptr (msperf_result) a = run_rms (att, RMS_COMPOSITE, "120,7168");
  g_autoptr (msperf_result) b = run_rms (none, RMS_COMPOSITE, "120,7168");

  (void) state;
  assert_part_missed (a);
  assert_part_missed (b);
}

/* interpolation.modes has the last word: a listed part mode that is not interpolated is not. */
static void
test_part_modes_need_interpolated_mode (void **state)
{
  const char *const ov[] = { "interpolation.part_modes", "[compute]",
                             "interpolation.modes", "[attention_special]", NULL };
  g_autoptr (msperf_result) r = run_rms (ov, RMS_COMPOSITE, "120,7168");

  (void) state;
  assert_part_missed (r);
}

/* The op-level interpolation of a plain compute op is not what part_modes governs. */
static void
test_part_modes_leave_ops_alone (void **state)
{
  const char *const none[] = { "interpolation.part_modes", "[]", NULL };
  g_autoptr (msperf_result) r = run_rms (none, "aten.rms_norm.default", "120,7168");

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (r->latency_us, 5.75, 1e-9);
}

/* A bad value is a policy error. */
static void
test_part_modes_schema (void **state)
{
  g_autoptr (msperf_engine) e = msperf_engine_new ();
  g_autoptr (GError) error = NULL;

  (void) state;
  assert_true (msperf_engine_set_override (e, "interpolation.part_modes", "[compute]", &error));
  assert_false (msperf_engine_set_override (e, "interpolation.part_modes", "7", &error));
  assert_non_null (error);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_default_interpolates_composite_parts),
    cmocka_unit_test (test_part_modes_listing_compute),
    cmocka_unit_test (test_part_modes_without_compute),
    cmocka_unit_test (test_part_modes_need_interpolated_mode),
    cmocka_unit_test (test_part_modes_leave_ops_alone),
    cmocka_unit_test (test_part_modes_schema),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
