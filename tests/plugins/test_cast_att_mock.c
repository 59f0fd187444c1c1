/* Unit tests of the "cast_att" module's slots (init, model, fini) over the host mock: the
 * vector clock is the fake engine's (msperf_engine_vector_clock_ghz), not a device profile's,
 * so the cycles → µs conversion is tested on its own. Cycle goldens as
 * tests/plugins/test_cast_att.c: the upstream-asserted §3.5 values (graph-autofusion
 * test_ascir_perf_v2.cpp: TestCastV2 30, ...Int64ToUInt8UsesPackCost 38) and the symbolic
 * shape-product cost ((2 * Ceiling((2 * s0))) + 24) derived there. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include <msperf/plugin.h>
#include "common/att_mock.h"
#include "common/host_mock.h"
#include "common/test_util.h"

#define E AM_ENGINE (state)

/* Calls the model slot for ascir.Cast with att (JSON, NULL = no att object). */
static msperf_result *
model (void **state, const char *att_json, msperf_status *status)
{
  return am_model (state, "ascir.Cast", "cast_att", att_json, status);
}

/* §3.5 TestCastV2: float32 → float16 [129], 30 cycles; at the A3 clock 1.85 GHz
 * (policies/devices/ascend-a3.yaml) 30 / 1.85 / 1e3 µs. */
static void
test_cast_mock_upstream_30_cycles_at_a3_clock (void **state)
{
  msperf_status status;
  g_autoptr (msperf_result) r = NULL;

  hm_vector_clock_ghz (E, 1.85);
  r = model (state, "{\"kind\": \"cast\", \"in_dtype\": \"float32\", \"out_dtype\": \"float16\", "
                    "\"shape\": [129]}", &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (r->method, "att");
  assert_string_equal (r->kernel_type, "Cast");
  assert_float_equal (r->confidence, 0.5, 1e-12);
  assert_null (r->miss_reason);
  assert_int_equal (am_detail (r, "cycles")->i, 30);
  assert_float_equal (r->latency_us, 30.0 / 1.85 / 1e3, 1e-12);
  assert_string_equal (msperf_value_get_string (am_detail (r, "expression")), "30");
  /* Load, Cast, Store */
  assert_int_equal (am_detail_len (r, "ledger"), 3);
  assert_int_equal (am_detail (r, "ternaries")->kind, MSPERF_VALUE_MAP);
}

/* The clock is whatever the host says: 38 cycles (§3.5 Int64ToUInt8UsesPackCost) at 2 GHz
 * are 0.019 µs; without a clock (NAN, as the H200 profile) the answer keeps the cycles and
 * says no_vector_clock. */
static void
test_cast_mock_latency_follows_host_clock (void **state)
{
  static const char *att = "{\"kind\": \"cast\", \"in_dtype\": \"int64\", "
                           "\"out_dtype\": \"uint8\", \"shape\": [64]}";
  msperf_status status;
  g_autoptr (msperf_result) fast = NULL;
  g_autoptr (msperf_result) none = NULL;

  hm_vector_clock_ghz (E, 2.0);
  fast = model (state, att, &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_int_equal (am_detail (fast, "cycles")->i, 38);
  assert_float_equal (fast->latency_us, 0.019, 1e-12);
  hm_vector_clock_ghz (E, NAN);
  none = model (state, att, &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_int_equal (none->source, MSPERF_SOURCE_ANALYTIC);
  assert_true (isnan (none->latency_us));
  assert_string_equal (none->miss_reason, "no_vector_clock");
  assert_int_equal (am_detail (none, "cycles")->i, 38);
}

/* A symbolic shape [s0, 128] costs ((2 * Ceiling((2 * s0))) + 24): unbound it is the answer
 * (cycles = the expression, value null, symbolic_cost); att.bind s0 = 3 gives
 * 2·⌈6⌉ + 24 = 36 cycles → 36 / 1.85 / 1e3 µs. */
static void
test_cast_mock_symbolic_cost_and_bind (void **state)
{
  msperf_status status;
  g_autoptr (msperf_result) sym = NULL;
  g_autoptr (msperf_result) bound = NULL;

  hm_vector_clock_ghz (E, 1.85);
  sym = model (state, "{\"kind\": \"cast\", \"in_dtype\": \"float32\", \"out_dtype\": \"float16\", "
                      "\"shape\": [\"s0\", 128]}", &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_string_equal (sym->miss_reason, "symbolic_cost");
  assert_true (isnan (sym->latency_us));
  assert_string_equal (msperf_value_get_string (am_detail (sym, "cycles")),
                       "((2 * Ceiling((2 * s0))) + 24)");
  assert_int_equal (am_detail (sym, "value")->kind, MSPERF_VALUE_NONE);
  bound = model (state, "{\"kind\": \"cast\", \"in_dtype\": \"float32\", "
                        "\"out_dtype\": \"float16\", \"shape\": [\"s0\", 128], "
                        "\"bind\": {\"s0\": 3}}", &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_null (bound->miss_reason);
  assert_int_equal (am_detail (bound, "value")->i, 36);
  assert_float_equal (bound->latency_us, 36.0 / 1.85 / 1e3, 1e-12);
}

/* Not a cast: MISS no_att_cast_params (no att, another kind); bad parameters: MSPERF_ERROR
 * with the message (unknown dtype, att.bind not an object, a bound symbol not a number). */
static void
test_cast_mock_misses_and_errors (void **state)
{
  msperf_status s_none, s_kind, s_dtype, s_bind, s_sym;
  g_autoptr (msperf_result) none = model (state, NULL, &s_none);
  g_autoptr (msperf_result) kind = model (state, "{\"kind\": \"duplicate\"}", &s_kind);
  g_autoptr (msperf_result) dtype
    = model (state, "{\"kind\": \"cast\", \"in_dtype\": \"floatX\", \"out_dtype\": \"int8\", "
                    "\"shape\": [4]}", &s_dtype);
  g_autoptr (msperf_result) bind
    = model (state, "{\"kind\": \"cast\", \"in_dtype\": \"int8\", \"out_dtype\": \"int8\", "
                    "\"shape\": [4], \"bind\": [1]}", &s_bind);
  g_autoptr (msperf_result) sym
    = model (state, "{\"kind\": \"cast\", \"in_dtype\": \"int8\", \"out_dtype\": \"int8\", "
                    "\"shape\": [\"s\"], \"bind\": {\"s\": \"x\"}}", &s_sym);

  assert_int_equal (s_none, MSPERF_MISS);
  assert_string_equal (none->miss_reason, "no_att_cast_params");
  assert_int_equal (s_kind, MSPERF_MISS);
  assert_string_equal (kind->miss_reason, "no_att_cast_params");
  assert_int_equal (s_dtype, MSPERF_ERROR);
  assert_non_null (strstr (dtype->miss_reason, "unknown dtype 'floatX'"));
  assert_int_equal (s_bind, MSPERF_ERROR);
  assert_non_null (strstr (bind->miss_reason, "att.bind: expected an object"));
  assert_int_equal (s_sym, MSPERF_ERROR);
  assert_non_null (strstr (sym->miss_reason, "att.bind.s: expected a finite number"));
}

/* The descriptor routes att.kind "cast" to the model slot and has no lookup. */
static void
test_cast_mock_descriptor (void **state)
{
  (void) state;
  assert_int_equal (msperf_plugin_v1.abi, MSPERF_PLUGIN_ABI_MAJOR);
  assert_string_equal (msperf_plugin_v1.name, "cast_att");
  assert_string_equal (msperf_plugin_v1.att_kinds[0], "cast");
  assert_null (msperf_plugin_v1.att_kinds[1]);
  assert_null (msperf_plugin_v1.lookup);
  assert_non_null (msperf_plugin_v1.model);
}

#define T(t) cmocka_unit_test_setup_teardown (t, am_setup, am_teardown)

int
main (void)
{
  const struct CMUnitTest tests[] = {
    T (test_cast_mock_upstream_30_cycles_at_a3_clock),
    T (test_cast_mock_latency_follows_host_clock),
    T (test_cast_mock_symbolic_cost_and_bind),
    T (test_cast_mock_misses_and_errors),
    cmocka_unit_test (test_cast_mock_descriptor),
  };
  return cmocka_run_group_tests_name ("cast_att_mock", tests, NULL, NULL);
}
