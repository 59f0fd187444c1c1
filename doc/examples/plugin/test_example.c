/* test_example.c — tests of the example module through the engine, as any module can be tested:
 * a real engine that loads only the module under test, on a fixture database, asked real ops.
 *
 *   cc -std=c11 -DMODULE_DIR='"."' -DDB_DIR='"db"' -o test_example test_example.c \
 *      $(pkg-config --cflags --libs msperf cmocka)
 *
 * (the Makefile's `check` target does this). Goldens come from db/Scale.csv. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <msperf/msperf.h>

/* An engine that sees only this module and a fixture database. */
#ifndef MODULE_DIR
#define MODULE_DIR "."
#endif
#ifndef DB_DIR
#define DB_DIR "db"
#endif

static int
setup (void **state)
{
  g_autoptr (GError) error = NULL;
  msperf_engine *e = msperf_engine_new ();

  msperf_engine_set_plugin_search_defaults (e, FALSE);   /* no MSPERF_PLUGIN_PATH, no install */
  msperf_engine_add_plugin_dir (e, MODULE_DIR);
  if (!msperf_engine_open_database (e, DB_DIR, NULL, &error)
      || !msperf_engine_start (e, &error))
    fail_msg ("%s", error->message);
  assert_true (msperf_engine_has_module (e, "example"));
  *state = e;
  return 0;
}

static int
teardown (void **state)
{
  msperf_engine_free (*state);
  return 0;
}

/* Appends a positional tensor argument, as a trace line would give it. */
static void
add_tensor (msperf_op *op, msperf_dtype dtype, int64_t d0, int64_t d1)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_TENSOR);

  v->tensor.rank = 2;
  v->tensor.dims[0] = d0;
  v->tensor.dims[1] = d1;
  v->tensor.dtype = dtype;
  g_ptr_array_add (op->args, v);
}

/* Golden: db/Scale.csv line 2 (first input 16,1024 DT_BF16, 3.25 us); the FLOAT row of the same
 * shape (line 3) is a worse candidate for a bf16 op. */
static void
test_example_matches_first_input_shape (void **state)
{
  g_autoptr (msperf_op) op = msperf_op_new ("example.scale");
  g_autoptr (msperf_result) r = NULL;

  add_tensor (op, MSPERF_DTYPE_BF16, 16, 1024);
  r = msperf_engine_query (*state, op);
  assert_int_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 3.25, 1e-12);
  assert_string_equal (r->kernel_type, "Scale");
  assert_string_equal (r->shape_match_rule, "example_first_input");
}

/* Golden: db/Scale.csv line 3 (16,1024 FLOAT, 5.5 us): the dtype decides between rows. */
static void
test_example_prefers_the_row_of_the_same_dtype (void **state)
{
  g_autoptr (msperf_op) op = msperf_op_new ("example.scale");
  g_autoptr (msperf_result) r = NULL;

  add_tensor (op, MSPERF_DTYPE_FLOAT32, 16, 1024);
  r = msperf_engine_query (*state, op);
  assert_int_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 5.5, 1e-12);
  assert_float_equal (r->confidence, 1.0, 1e-12);
}

/* Golden: db/ScaleV2.csv line 2 (128,4096 DT_BF16, 9.75 us): the alternate kernel answers when
 * the primary has no such shape; float16 is another dtype, so confidence 0.5. */
static void
test_example_tries_the_alternate_kernel (void **state)
{
  g_autoptr (msperf_op) op = msperf_op_new ("example.scale");
  g_autoptr (msperf_result) r = NULL;

  add_tensor (op, MSPERF_DTYPE_FLOAT16, 128, 4096);
  r = msperf_engine_query (*state, op);
  assert_int_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 9.75, 1e-12);
  assert_float_equal (r->confidence, 0.5, 1e-12);
  assert_string_equal (r->kernel_type, "ScaleV2");
}

/* No row has a 7x7 first input: the module misses and the roofline answers. */
static void
test_example_miss_falls_back_to_roofline (void **state)
{
  g_autoptr (msperf_op) op = msperf_op_new ("example.scale");
  g_autoptr (msperf_result) r = NULL;

  add_tensor (op, MSPERF_DTYPE_BF16, 7, 7);
  r = msperf_engine_query (*state, op);
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (r->miss_reason, "example_first_input_mismatch");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_example_matches_first_input_shape),
    cmocka_unit_test (test_example_prefers_the_row_of_the_same_dtype),
    cmocka_unit_test (test_example_tries_the_alternate_kernel),
    cmocka_unit_test (test_example_miss_falls_back_to_roofline),
  };
  return cmocka_run_group_tests (tests, setup, teardown);
}
