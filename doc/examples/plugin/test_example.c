/* test_example.c — tests of the example module through the engine, as any module can be tested:
 * a real engine that loads only the module under test, on a fixture database, asked real ops:
 * its lookup slot (ops mapped to `query_mode: example`), its model slot (ops whose att.kind is
 * example_scale), its option modules.example.scale_factor (defaults, a --policy file, the
 * core's validation) and sessions of one model on two threads.
 *
 *   cc -std=c11 -DMODULE_DIR='"."' -DDB_DIR='"db"' -o test_example test_example.c \
 *      $(pkg-config --cflags --libs msperf cmocka)
 *
 * (the Makefile's `check` target does this). Lookup goldens come from db/Scale.csv and
 * db/ScaleV2.csv; model goldens from the formula elements / elements_per_us * scale_factor. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <glib/gstdio.h>
#include <msperf/msperf.h>

/* An engine that sees only this module and a fixture database. */
#ifndef MODULE_DIR
#define MODULE_DIR "."
#endif
#ifndef DB_DIR
#define DB_DIR "db"
#endif

/* A started engine on the fixture database that sees only this module, with the policy file
 * policy (or none); NULL with *error when the start is refused. */
static msperf_engine *
example_engine (const char *policy, GError **error)
{
  msperf_engine *e = msperf_engine_new ();

  msperf_engine_set_plugin_search_defaults (e, FALSE);   /* no MSPERF_PLUGIN_PATH, no install */
  msperf_engine_add_plugin_dir (e, MODULE_DIR);
  if (!msperf_engine_open_database (e, DB_DIR, NULL, error)
      || (policy != NULL && !msperf_engine_load_policy (e, policy, error))
      || !msperf_engine_start (e, error))
    {
      msperf_engine_free (e);
      return NULL;
    }
  return e;
}

static int
setup (void **state)
{
  g_autoptr (GError) error = NULL;
  msperf_engine *e = example_engine (NULL, &error);

  if (e == NULL)
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

/* ------------------------------------------------------------------ the model slot */

/* An op as the trace line {"op": "example.scaled", "att": {"kind": "example_scale",
 * "elements": E[, "elements_per_us": P]}} gives it (P <= 0: left out). */
static msperf_op *
att_op (double elements, double per_us)
{
  msperf_op *op = msperf_op_new ("example.scaled");

  op->att = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value_map_set (op->att, "kind", msperf_value_new_string ("example_scale"));
  msperf_value_map_set (op->att, "elements", msperf_value_new_double (elements));
  if (per_us > 0.0)
    msperf_value_map_set (op->att, "elements_per_us", msperf_value_new_double (per_us));
  return op;
}

/* att.kind example_scale is routed to the model slot (no mapping entry needed):
 * 4096 / 1024 * 1.0 (the declared default of scale_factor) = 4 us. */
static void
test_example_model_answers_its_att_kind (void **state)
{
  g_autoptr (msperf_op) op = att_op (4096, 1024);
  g_autoptr (msperf_result) r = msperf_engine_query (*state, op);
  double f = 0.0;

  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_float_equal (r->latency_us, 4.0, 1e-12);
  assert_float_equal (r->confidence, 0.5, 1e-12);
  assert_string_equal (r->method, "example_model");
  assert_string_equal (r->shape_match_rule, "example_scale");
  assert_null (r->miss_reason);
  assert_true (msperf_value_get_double (msperf_value_lookup (r->details, "scale_factor"), &f));
  assert_float_equal (f, 1.0, 1e-12);
}

/* elements_per_us defaults to 1024: 2048 / 1024 = 2 us. */
static void
test_example_model_default_rate (void **state)
{
  g_autoptr (msperf_op) op = att_op (2048, 0);
  g_autoptr (msperf_result) r = msperf_engine_query (*state, op);

  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_float_equal (r->latency_us, 2.0, 1e-12);
}

/* Parameters the model cannot use are MSPERF_ERROR: the op is REJECTED with the message. */
static void
test_example_model_refuses_bad_parameters (void **state)
{
  g_autoptr (msperf_op) op = att_op (-1, 1024);
  g_autoptr (msperf_result) r = msperf_engine_query (*state, op);

  assert_int_equal (r->source, MSPERF_SOURCE_REJECTED);
  assert_non_null (r->miss_reason);
  assert_non_null (strstr (r->miss_reason, "att.elements must be a positive number"));
}

/* ------------------------------------------------------------------ the option */

/* A policy file with text (removed by the caller); returns its path. */
static char *
write_policy (const char *text)
{
  g_autoptr (GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("example-policy-XXXXXX.yaml", &path, &error);

  if (fd < 0)
    fail_msg ("%s", error->message);
  g_close (fd, NULL);
  if (!g_file_set_contents (path, text, -1, &error))
    fail_msg ("%s", error->message);
  return path;
}

/* The declared default when no policy sets it; NULL for a key the module did not declare. */
static void
test_example_option_default (void **state)
{
  double f = 0.0;

  assert_true (msperf_value_get_double (
    msperf_engine_module_option (*state, "example", "scale_factor"), &f));
  assert_float_equal (f, 1.0, 1e-12);
  assert_null (msperf_engine_module_option (*state, "example", "no_such_key"));
}

/* modules.example.scale_factor from a --policy file changes the model's answer:
 * 4096 / 1024 * 2.5 = 10 us; an integer is a number too (3 -> 12 us). */
static void
test_example_option_from_policy (void **state)
{
  static const struct { const char *yaml; double want; } cases[] = {
    { "modules:\n  example:\n    scale_factor: 2.5\n", 10.0 },
    { "modules:\n  example:\n    scale_factor: 3\n", 12.0 },
  };

  (void) state;
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path = write_policy (cases[k].yaml);
      g_autoptr (msperf_engine) e = example_engine (path, &error);
      g_autoptr (msperf_op) op = att_op (4096, 1024);
      g_autoptr (msperf_result) r = NULL;

      g_unlink (path);
      if (e == NULL)
        fail_msg ("%s", error->message);
      r = msperf_engine_query (e, op);
      assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
      assert_float_equal (r->latency_us, cases[k].want, 1e-12);
    }
}

/* The core validates the block against the declaration: an unknown key or a wrong type stops
 * the start with FILE:LINE and the module's known keys. */
static void
test_example_option_validated (void **state)
{
  static const struct { const char *yaml; const char *want; } cases[] = {
    { "modules:\n  example:\n    scale_factr: 2.5\n",
      ":3: module 'example' has no option 'scale_factr' (its options: scale_factor)" },
    { "modules:\n  example:\n    scale_factor: fast\n",
      ":3: key 'modules.example.scale_factor': expected a number" },
  };

  (void) state;
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path = write_policy (cases[k].yaml);
      g_autoptr (msperf_engine) e = example_engine (path, &error);

      g_unlink (path);
      assert_null (e);
      assert_non_null (error);
      assert_true (g_str_has_prefix (error->message, path));
      assert_non_null (strstr (error->message, cases[k].want));
    }
}

/* ------------------------------------------------------------------ threads */

typedef struct {
  msperf_engine *session;
  double lookup_us;
  double model_us;
} thread_job;

static gpointer
query_in_thread (gpointer data)
{
  thread_job *job = data;

  for (int i = 0; i < 200; i++)
    {
      g_autoptr (msperf_op) op = msperf_op_new ("example.scale");
      g_autoptr (msperf_op) att = att_op (4096 + i, 1024);
      g_autoptr (msperf_result) r1 = NULL;
      g_autoptr (msperf_result) r2 = NULL;

      add_tensor (op, MSPERF_DTYPE_BF16, 16, 1024);
      r1 = msperf_engine_query (job->session, op);
      r2 = msperf_engine_query (job->session, att);
      job->lookup_us = r1->latency_us;
      job->model_us = r2->latency_us;
    }
  return NULL;
}

/* One model, one session per thread: the module's state is shared, every slot gets the
 * calling thread's handle, and the answers are those of one handle. */
static void
test_example_sessions_on_two_threads (void **state)
{
  thread_job jobs[2];
  GThread *threads[2];

  for (int t = 0; t < 2; t++)
    {
      jobs[t].session = msperf_engine_new_session (*state);
      threads[t] = g_thread_new ("example", query_in_thread, &jobs[t]);
    }
  for (int t = 0; t < 2; t++)
    {
      g_thread_join (threads[t]);
      assert_float_equal (jobs[t].lookup_us, 3.25, 1e-12);              /* Scale.csv line 2 */
      assert_float_equal (jobs[t].model_us, (4096.0 + 199) / 1024, 1e-12);
      msperf_engine_free (jobs[t].session);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_example_matches_first_input_shape),
    cmocka_unit_test (test_example_prefers_the_row_of_the_same_dtype),
    cmocka_unit_test (test_example_tries_the_alternate_kernel),
    cmocka_unit_test (test_example_miss_falls_back_to_roofline),
    cmocka_unit_test (test_example_model_answers_its_att_kind),
    cmocka_unit_test (test_example_model_default_rate),
    cmocka_unit_test (test_example_model_refuses_bad_parameters),
    cmocka_unit_test (test_example_option_default),
    cmocka_unit_test (test_example_option_from_policy),
    cmocka_unit_test (test_example_option_validated),
    cmocka_unit_test (test_example_sessions_on_two_threads),
  };
  return cmocka_run_group_tests (tests, setup, teardown);
}
