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
#include "common/host_mock.h"
#include "common/test_util.h"

extern const msperf_plugin msperf_plugin_v1;

typedef struct {
  msperf_engine *engine;
  void *state;
} fx;

#define E (((fx *) *state)->engine)

static int
setup (void **state)
{
  fx *f = g_new0 (fx, 1);
  g_autoptr (GError) error = NULL;

  f->engine = hm_engine_new ();
  if (!msperf_plugin_v1.init (f->engine, &f->state, &error))
    fail_msg ("init: %s", error->message);
  assert_non_null (f->state);
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  fx *f = *state;

  msperf_plugin_v1.fini (f->state);
  msperf_engine_free (f->engine);
  g_free (f);
  return 0;
}

/* Calls the model slot for ascir.Cast with att (JSON, NULL = no att object). */
static msperf_result *
model (void **state, const char *att_json, msperf_status *status)
{
  fx *f = *state;
  g_autoptr (msperf_op) op = tu_op ("ascir.Cast");
  g_autoptr (msperf_query) q = NULL;
  msperf_result *r = msperf_result_new ();

  if (att_json)
    op->att = hm_value_from_json (att_json);
  q = hm_query_new (f->engine, op, "cast_att", NULL);
  *status = msperf_plugin_v1.model (f->engine, f->state, q, r);
  return r;
}

static const msperf_value *
detail (const msperf_result *r, const char *key)
{
  const msperf_value *v = msperf_value_lookup (msperf_result_details (r), key);

  if (v == NULL)
    fail_msg ("no detail '%s'", key);
  return v;
}

/* Items of a LIST detail (fails the test for anything else). */
static guint
detail_len (const msperf_result *r, const char *key)
{
  const msperf_value *v = detail (r, key);

  if (v == NULL || v->kind != MSPERF_VALUE_LIST)
    fail_msg ("detail '%s' is not a list", key);
  return v != NULL && v->items != NULL ? v->items->len : 0;
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
  assert_int_equal (detail (r, "cycles")->i, 30);
  assert_float_equal (r->latency_us, 30.0 / 1.85 / 1e3, 1e-12);
  assert_string_equal (msperf_value_get_string (detail (r, "expression")), "30");
  /* Load, Cast, Store */
  assert_int_equal (detail_len (r, "ledger"), 3);
  assert_int_equal (detail (r, "ternaries")->kind, MSPERF_VALUE_MAP);
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
  assert_int_equal (detail (fast, "cycles")->i, 38);
  assert_float_equal (fast->latency_us, 0.019, 1e-12);
  hm_vector_clock_ghz (E, NAN);
  none = model (state, att, &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_int_equal (none->source, MSPERF_SOURCE_ANALYTIC);
  assert_true (isnan (none->latency_us));
  assert_string_equal (none->miss_reason, "no_vector_clock");
  assert_int_equal (detail (none, "cycles")->i, 38);
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
  assert_string_equal (msperf_value_get_string (detail (sym, "cycles")),
                       "((2 * Ceiling((2 * s0))) + 24)");
  assert_int_equal (detail (sym, "value")->kind, MSPERF_VALUE_NONE);
  bound = model (state, "{\"kind\": \"cast\", \"in_dtype\": \"float32\", "
                        "\"out_dtype\": \"float16\", \"shape\": [\"s0\", 128], "
                        "\"bind\": {\"s0\": 3}}", &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_null (bound->miss_reason);
  assert_int_equal (detail (bound, "value")->i, 36);
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

#define T(t) cmocka_unit_test_setup_teardown (t, setup, teardown)

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
