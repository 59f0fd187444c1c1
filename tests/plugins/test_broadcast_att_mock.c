/* Unit tests of the "broadcast_att" module's slots (init, model, fini) over the host mock:
 * the vector clock is the fake engine's. Cycle goldens as tests/plugins/test_broadcast_att.c,
 * which derives each by hand from reference att-model.md §4.4–§4.9, seed 002 FR1–FR6 and the
 * §1.4 perf table (there is no upstream implementation of this model): E2B [64,16] ← [64,1]
 * float16 71 cycles; Duplicate float16 count 300 31 cycles; Duplicate uint8 kTensorVecIn 30
 * cycles with 8 ledger rows; the int8 4-D NLast case with att.bind a = 1 1367 cycles. */
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

/* Calls the model slot for ascir.Broadcast with att (JSON, NULL = no att object). */
static msperf_result *
model (void **state, const char *att_json, msperf_status *status)
{
  return am_model (state, "ascir.Broadcast", "broadcast_att", att_json, status);
}

/* E2B: 71 cycles; at the A3 clock 1.85 GHz 71 / 1.85 / 1e3 µs; one VF launch. */
static void
test_broadcast_mock_e2b_71_cycles_at_a3_clock (void **state)
{
  msperf_status status;
  g_autoptr (msperf_result) r = NULL;

  hm_vector_clock_ghz (E, 1.85);
  r = model (state, "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", "
                    "\"dst_shapes\": [64, 16], \"src_shapes\": [64, 1]}", &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (r->method, "att");
  assert_string_equal (r->kernel_type, "Broadcast");
  assert_float_equal (r->confidence, 0.5, 1e-12);
  assert_null (r->miss_reason);
  assert_int_equal (am_detail (r, "cycles")->i, 71);
  assert_int_equal (am_detail (r, "value")->i, 71);
  assert_float_equal (r->latency_us, 71.0 / 1.85 / 1e3, 1e-12);
  assert_int_equal (am_detail (r, "vf_launches")->i, 1);
  assert_string_equal (msperf_value_get_string (am_detail (r, "att_kind")), "broadcast_extend");
  assert_string_equal (msperf_value_get_string (am_detail (r, "att_branch")),
                       "Last/LastWrap2D/BrcLastE2B2D");
}

/* Duplicate float16 count 300: 31 cycles; no clock → no_vector_clock, cycles kept; at 1 GHz
 * 31 cycles are 0.031 µs. */
static void
test_broadcast_mock_duplicate_latency_follows_host_clock (void **state)
{
  static const char *att = "{\"kind\": \"duplicate\", \"dtype\": \"float16\", \"count\": 300}";
  msperf_status status;
  g_autoptr (msperf_result) none = NULL;
  g_autoptr (msperf_result) one = NULL;

  none = model (state, att, &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_true (isnan (none->latency_us));
  assert_string_equal (none->miss_reason, "no_vector_clock");
  assert_int_equal (am_detail (none, "cycles")->i, 31);
  assert_string_equal (msperf_value_get_string (am_detail (none, "att_kind")), "duplicate");
  hm_vector_clock_ghz (E, 1.0);
  one = model (state, att, &status);
  assert_null (one->miss_reason);
  assert_float_equal (one->latency_us, 0.031, 1e-12);
}

/* Duplicate uint8 from a vector-in tensor (dst_view_size 320): 30 cycles, 8 ledger rows. */
static void
test_broadcast_mock_duplicate_tensor_source_ledger (void **state)
{
  msperf_status status;
  g_autoptr (msperf_result) r
    = model (state, "{\"kind\": \"duplicate\", \"dtype\": \"uint8\", \"count\": 300, "
                    "\"dst_view_size\": 320, \"source_kind\": \"kTensorVecIn\"}", &status);

  assert_int_equal (status, MSPERF_HIT);
  assert_int_equal (am_detail (r, "cycles")->i, 30);
  assert_int_equal (am_detail_len (r, "ledger"), 8);
}

/* Symbols: unbound, the expression is the answer (cycles "broadcast_cost", value null,
 * branch "symbolic"); att.bind a = 1 folds the int8 4-D case to its static branch, 1367. */
static void
test_broadcast_mock_symbolic_and_bind (void **state)
{
  msperf_status status;
  g_autoptr (msperf_result) sym = NULL;
  g_autoptr (msperf_result) bound = NULL;

  hm_vector_clock_ghz (E, 1.85);
  sym = model (state, "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", "
                      "\"dst_shapes\": [8, 16, \"s0\"], \"src_shapes\": [8, 1, \"s0\"]}", &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_string_equal (sym->miss_reason, "symbolic_cost");
  assert_true (isnan (sym->latency_us));
  assert_int_equal (am_detail (sym, "value")->kind, MSPERF_VALUE_NONE);
  assert_string_equal (msperf_value_get_string (am_detail (sym, "cycles")), "broadcast_cost");
  bound = model (state, "{\"kind\": \"broadcast_extend\", \"dtype\": \"int8\", "
                        "\"dst_shapes\": [\"a\", 2, 2, 2, 8192], "
                        "\"src_shapes\": [1, 1, 2, 1, 8192], \"bind\": {\"a\": 1}}", &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_int_equal (am_detail (bound, "value")->i, 1367);
  assert_float_equal (bound->latency_us, 1367.0 / 1.85 / 1e3, 1e-12);
}

/* Not a broadcast: MISS no_att_broadcast_params; refused parameters: MSPERF_ERROR naming the
 * problem (a source dim neither 1 nor the destination's, a zero destination dim). */
static void
test_broadcast_mock_misses_and_errors (void **state)
{
  msperf_status s_none, s_kind, s_dim, s_zero;
  g_autoptr (msperf_result) none = model (state, NULL, &s_none);
  g_autoptr (msperf_result) kind = model (state, "{\"kind\": \"cast\"}", &s_kind);
  g_autoptr (msperf_result) dim
    = model (state, "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", "
                    "\"dst_shapes\": [4, 8], \"src_shapes\": [4, 3]}", &s_dim);
  g_autoptr (msperf_result) zero
    = model (state, "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", "
                    "\"dst_shapes\": [0], \"src_shapes\": [1]}", &s_zero);

  assert_int_equal (s_none, MSPERF_MISS);
  assert_string_equal (none->miss_reason, "no_att_broadcast_params");
  assert_int_equal (s_kind, MSPERF_MISS);
  assert_string_equal (kind->miss_reason, "no_att_broadcast_params");
  assert_int_equal (s_dim, MSPERF_ERROR);
  assert_non_null (strstr (dim->miss_reason, "must be 1 or equal"));
  assert_int_equal (s_zero, MSPERF_ERROR);
  assert_non_null (strstr (zero->miss_reason, "att.dst_shapes[0] is 0"));
}

static void
test_broadcast_mock_descriptor (void **state)
{
  (void) state;
  assert_string_equal (msperf_plugin_v1.name, "broadcast_att");
  assert_string_equal (msperf_plugin_v1.att_kinds[0], "broadcast_extend");
  assert_string_equal (msperf_plugin_v1.att_kinds[1], "duplicate");
  assert_null (msperf_plugin_v1.att_kinds[2]);
  assert_null (msperf_plugin_v1.lookup);
}

#define T(t) cmocka_unit_test_setup_teardown (t, am_setup, am_teardown)

int
main (void)
{
  const struct CMUnitTest tests[] = {
    T (test_broadcast_mock_e2b_71_cycles_at_a3_clock),
    T (test_broadcast_mock_duplicate_latency_follows_host_clock),
    T (test_broadcast_mock_duplicate_tensor_source_ledger),
    T (test_broadcast_mock_symbolic_and_bind),
    T (test_broadcast_mock_misses_and_errors),
    cmocka_unit_test (test_broadcast_mock_descriptor),
  };
  return cmocka_run_group_tests_name ("broadcast_att_mock", tests, NULL, NULL);
}
