/* Tests of the per-kernel latency policy (include/msperf/latency.h) on the fixture database
 * tests/data/latency: the core-envelope fallback of reference §1.3 and the latency priority of
 * §2.3 step 5, as the compute and attention_special modules apply them. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "common/test_util.h"

static int
setup_engine (void **state)
{
  *state = tu_engine_new ("latency", NULL);
  return 0;
}

static const msperf_table *
table_of (msperf_engine *e, const char *kernel)
{
  g_autoptr (GError) error = NULL;
  const msperf_table *t = msperf_engine_table (e, kernel, &error);

  if (t == NULL)
    fail_msg ("table %s: %s", kernel, error->message);
  return t;
}

/* Asserts the latency, priority and selection of row under the policy of kernel. */
static void
assert_row (msperf_engine *e, const char *kernel, const msperf_table *t, size_t row,
            double latency, int priority, const char *selection)
{
  msperf_latency_policy policy;
  const char *got_selection = "unset";
  int got_priority = -1;
  double lat;

  msperf_latency_policy_init (&policy, e, kernel);
  lat = msperf_latency_policy_row (&policy, t, row, &got_priority, &got_selection);
  assert_float_equal (lat, latency, 1e-12);
  assert_int_equal (got_priority, priority);
  if (selection == NULL)
    assert_null (got_selection);
  else
    assert_string_equal (got_selection, selection);
}

static void
test_latency_policy_init_reads_kernel_overrides (void **state)
{
  msperf_latency_policy envelope, preferred, plain;

  msperf_latency_policy_init (&envelope, *state, "Envelope");
  msperf_latency_policy_init (&preferred, *state, "Preferred");
  msperf_latency_policy_init (&plain, *state, "NoSuchKernel");
  /* tests/data/latency/op_mapping.yaml */
  assert_float_equal (envelope.envelope_ratio, 1.5, 0.0);
  assert_false (envelope.prefer_profiling_rows);
  assert_true (isnan (preferred.envelope_ratio));
  assert_true (preferred.prefer_profiling_rows);
  assert_true (isnan (plain.envelope_ratio));
  assert_false (plain.prefer_profiling_rows);
}

/* Reference §1.3 latency quality fallback: profiling column, MIX_AIC and duration over
 * max(aicore, aiv) above the ratio. Rows of tests/data/latency/Envelope.csv. */
static void
test_latency_policy_core_envelope_fallback_applies_to_mix_aic_profiling_rows (void **state)
{
  msperf_engine *e = *state;
  const msperf_table *t = table_of (e, "Envelope");
  const char *env = MSPERF_LATENCY_SELECTION_CORE_ENVELOPE;

  assert_string_equal (env, "profiling_core_envelope_fallback");
  /* 30 / max(10, 12) = 2.5 > 1.5: the busiest core's 12 µs. */
  assert_row (e, "Envelope", t, 0, 12.0, MSPERF_LATENCY_PROFILING_AVERAGE, env);
  /* AI_CORE: never. */
  assert_row (e, "Envelope", t, 1, 30.0, MSPERF_LATENCY_PROFILING_AVERAGE, NULL);
  /* 16 / 12 = 1.33 <= 1.5. */
  assert_row (e, "Envelope", t, 2, 16.0, MSPERF_LATENCY_PROFILING_AVERAGE, NULL);
  /* Blank aicore: the aiv time alone ("  12.0 " read as pandas reads it). */
  assert_row (e, "Envelope", t, 3, 12.0, MSPERF_LATENCY_PROFILING_AVERAGE, env);
  /* An infinite core time is no measurement: the other core's 10 µs. */
  assert_row (e, "Envelope", t, 4, 10.0, MSPERF_LATENCY_PROFILING_AVERAGE, env);
  /* No core time at all: the duration stays. */
  assert_row (e, "Envelope", t, 5, 30.0, MSPERF_LATENCY_PROFILING_AVERAGE, NULL);
  /* Read from "Average Duration(us)": not a profiling latency, the fallback does not apply. */
  assert_row (e, "Envelope", t, 6, 30.0, MSPERF_LATENCY_AVERAGE, NULL);
  /* Without the option (another kernel's policy) nothing changes. */
  assert_row (e, "NoSuchKernel", t, 0, 30.0, MSPERF_LATENCY_PROFILING_AVERAGE, NULL);
}

/* Reference §2.3 step 5: the priority is the latency column; prefer_profiling_rows ranks a
 * profiling latency first and every other column second. Rows of Preferred.csv. */
static void
test_latency_policy_prefer_profiling_rows_reorders_priority (void **state)
{
  msperf_engine *e = *state;
  const msperf_table *t = table_of (e, "Preferred");

  assert_row (e, "NoSuchKernel", t, 0, 5.0, MSPERF_LATENCY_AVERAGE, NULL);
  assert_row (e, "NoSuchKernel", t, 1, 7.0, MSPERF_LATENCY_PROFILING_AVERAGE, NULL);
  assert_row (e, "NoSuchKernel", t, 2, 8.0, MSPERF_LATENCY_DURATION, NULL);
  assert_row (e, "Preferred", t, 0, 5.0, 1, NULL);
  assert_row (e, "Preferred", t, 1, 7.0, 0, NULL);
  assert_row (e, "Preferred", t, 2, 8.0, 1, NULL);
}

/* The one-shot form resolves the policy of the table's own kernel; NULL outputs are allowed. */
static void
test_latency_policy_apply_uses_the_tables_kernel (void **state)
{
  msperf_engine *e = *state;
  const msperf_table *env = table_of (e, "Envelope");
  const msperf_table *pref = table_of (e, "Preferred");
  const char *selection = NULL;
  int priority = -1;

  assert_float_equal (msperf_latency_policy_apply (e, env, 0, &priority, &selection), 12.0,
                      1e-12);
  assert_int_equal (priority, MSPERF_LATENCY_PROFILING_AVERAGE);
  assert_string_equal (selection, "profiling_core_envelope_fallback");
  assert_float_equal (msperf_latency_policy_apply (e, env, 2, NULL, NULL), 16.0, 1e-12);
  assert_float_equal (msperf_latency_policy_apply (e, pref, 1, &priority, &selection), 7.0,
                      1e-12);
  assert_int_equal (priority, 0);
  assert_null (selection);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_latency_policy_init_reads_kernel_overrides),
    cmocka_unit_test (test_latency_policy_core_envelope_fallback_applies_to_mix_aic_profiling_rows),
    cmocka_unit_test (test_latency_policy_prefer_profiling_rows_reorders_priority),
    cmocka_unit_test (test_latency_policy_apply_uses_the_tables_kernel),
  };

  return cmocka_run_group_tests (tests, setup_engine, tu_teardown_engine);
}
