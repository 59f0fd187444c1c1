/* Tests of the confidence table (core/engine/confidence.c, policy key `confidence`): the
 * built-in values equal the constants they replace bit for bit, a policy overrides an entry,
 * the prefix fallback for extrapolation strategies, and bad values rejected with FILE:LINE.
 * The old constants: interpolate.c confidence_by_dim {0.70, 0.65, 0.60} and TRANSFORM_PENALTY
 * 0.05, dispatch.c ROOFLINE_CONFIDENCE 0.3. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/error.h>
#include "engine/confidence.h"
#include "engine/policy.h"
#include "common/test_util.h"

static void
test_defaults_equal_old_constants (void **state)
{
  g_autoptr (msperf_engine) e = tu_engine_new ("holdout/compute", NULL);
  g_autofree char *k1 = msperf_confidence_key ("interpolated", 1);
  g_autofree char *k3 = msperf_confidence_key ("interpolated", 3);
  g_autofree char *ka = msperf_confidence_key ("analytic", 0);

  (void) state;
  assert_string_equal (k1, "linear_1d");
  assert_string_equal (k3, "griddata_3d");
  assert_string_equal (ka, "analytic");
  /* == on doubles on purpose: the answers must stay bit-identical */
  assert_true (msperf_confidence_for (e, "interpolated", 1, FALSE) == 0.70);
  assert_true (msperf_confidence_for (e, "interpolated", 2, FALSE) == 0.65);
  assert_true (msperf_confidence_for (e, "interpolated", 3, FALSE) == 0.60);
  assert_true (msperf_confidence_for (e, "interpolated", 4, FALSE) == 0.55);
  assert_true (msperf_confidence_for (e, "interpolated", 1, TRUE) == 0.70 - 0.05);
  assert_true (msperf_confidence_for (e, "interpolated", 2, TRUE) == 0.65 - 0.05);
  assert_true (msperf_confidence_for (e, "interpolated", 3, TRUE) == 0.60 - 0.05);
  assert_true (msperf_confidence_for (e, "analytic", 0, FALSE) == 0.3);
  /* no engine: the built-in table */
  assert_true (msperf_confidence_for (NULL, "interpolated", 2, FALSE) == 0.65);
}

static void
test_prefix_fallback_and_unknown (void **state)
{
  gboolean from_policy = TRUE;

  (void) state;
  assert_true (msperf_confidence_value (NULL, "extrapolated_hold_analytic", &from_policy) == 0.45);
  assert_false (from_policy);
  /* a strategy without an entry of its own takes the family's */
  assert_true (msperf_confidence_value (NULL, "extrapolated_new_strategy", NULL) == 0.45);
  assert_true (isnan (msperf_confidence_value (NULL, "no_such_method", NULL)));
  assert_true (msperf_confidence_for (NULL, "no_such_method", 0, FALSE) == 0.0);
}

static void
test_policy_overrides_an_entry (void **state)
{
  static const char *const overrides[] = { "confidence.linear_1d", "0.5",
                                           "confidence.transform_penalty", "0.1",
                                           "confidence.extrapolated", "0.4", NULL };
  g_autoptr (msperf_engine) e = tu_engine_new ("holdout/compute", overrides);
  gboolean from_policy = FALSE;

  (void) state;
  assert_true (msperf_confidence_value (e, "linear_1d", &from_policy) == 0.5);
  assert_true (from_policy);
  assert_true (msperf_confidence_for (e, "interpolated", 1, TRUE) == 0.5 - 0.1);
  /* untouched entries keep their default */
  assert_true (msperf_confidence_value (e, "griddata_2d", &from_policy) == 0.65);
  assert_false (from_policy);
  /* a key with a value of its own (built-in or policy) is used before its family's entry;
   * only a key with neither falls back to the family */
  assert_true (msperf_confidence_value (e, "extrapolated_marginal", NULL) == 0.45);
  assert_true (msperf_confidence_value (e, "extrapolated_other", NULL) == 0.4);
  /* an integer is a number too; a penalty larger than the value stops at 0 */
  {
    static const char *const o2[] = { "confidence.griddata_2d", "0",
                                      "confidence.transform_penalty", "1", NULL };
    g_autoptr (msperf_engine) e2 = tu_engine_new ("holdout/compute", o2);

    assert_true (msperf_confidence_for (e2, "interpolated", 2, FALSE) == 0.0);
    assert_true (msperf_confidence_for (e2, "interpolated", 1, TRUE) == 0.0);
  }
}

/* Absent key: the built-in policy hash is unchanged (the key is not in the defaults tree;
 * the value is the hash of the built-in defaults on main before the table existed). */
static void
test_absent_key_keeps_the_hash (void **state)
{
  g_autoptr (msperf_policy) a = msperf_policy_new_defaults ();
  g_autoptr (msperf_policy) b = msperf_policy_new_defaults ();
  g_autoptr (GError) error = NULL;
  g_autofree char *ha = msperf_policy_hash (a);
  g_autofree char *hb = NULL;

  (void) state;
  assert_null (msperf_policy_get (a, "confidence"));
  /* The core's own defaults (tests/engine/test_policy.c defaults_json); with the shipped
   * modules' declarations the engine's hash is 3cd77ebb… (tests/engine/test_declarations.c). */
  assert_string_equal (ha, "83f15862128d49c0ebebe0ebbf351279cd6b48f879499a96fbd9400508055f68");
  assert_true (msperf_policy_merge_data (b, "confidence: {griddata_2d: 0.5}\n", "p.yaml", &error));
  hb = msperf_policy_hash (b);
  assert_string_not_equal (ha, hb);
}

static void
test_bad_values_rejected_with_file_line (void **state)
{
  static const struct { const char *text; const char *message; } cases[] = {
    { "confidence:\n  linear_1d: 1.5\n",
      "p.yaml:2: key 'confidence.linear_1d': expected a number from 0 to 1, got '1.5'" },
    { "confidence:\n  griddata_2d: -0.1\n",
      "p.yaml:2: key 'confidence.griddata_2d': expected a number from 0 to 1" },
    { "confidence:\n\n  analytic: high\n",
      "p.yaml:3: key 'confidence.analytic': expected a number from 0 to 1" },
    { "confidence:\n  cubic_1d: 0.5\n", "p.yaml:2: unknown key 'cubic_1d' in 'confidence'" },
    { "confidence: 0.5\n", "p.yaml:1: key 'confidence': expected a mapping" },
  };

  (void) state;
  for (gsize k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
      g_autoptr (GError) error = NULL;

      assert_false (msperf_policy_merge_data (p, cases[k].text, "p.yaml", &error));
      assert_non_null (error);
      assert_int_equal (error->code, MSPERF_ERROR_INVALID);
      if (!g_str_has_prefix (error->message, cases[k].message))
        fail_msg ("case %zu: got '%s', expected '%s…'", k, error->message, cases[k].message);
      assert_null (msperf_policy_get (p, "confidence"));
    }
}

/* The same through msperf_engine_set_override (the --variant path). */
static void
test_bad_override_rejected (void **state)
{
  g_autoptr (msperf_engine) e = msperf_engine_new ();
  g_autoptr (GError) error = NULL;

  (void) state;
  assert_false (msperf_engine_set_override (e, "confidence.linear_1d", "2", &error));
  assert_non_null (strstr (error->message, "expected a number from 0 to 1"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_defaults_equal_old_constants),
    cmocka_unit_test (test_prefix_fallback_and_unknown),
    cmocka_unit_test (test_policy_overrides_an_entry),
    cmocka_unit_test (test_absent_key_keeps_the_hash),
    cmocka_unit_test (test_bad_values_rejected_with_file_line),
    cmocka_unit_test (test_bad_override_rejected),
  };

  return cmocka_run_group_tests_name ("confidence", tests, NULL, NULL);
}
