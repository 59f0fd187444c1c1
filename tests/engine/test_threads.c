/* The engine's thread-safety contract (include/msperf/engine.h § Threads): 4 threads × 10 000
 * mixed queries (exact hits, 1-D/2-D/3-D interpolations, composites, ATT models, roofline
 * fallbacks and rejections) on sessions of one shared model give exactly the answers of one
 * handle answering alone. Each thread takes a fresh session every SESSION_SPAN queries, so
 * first answers (tables, candidate indexes and triangulations built on first use) race for
 * real instead of coming from a session's cache. Run under TSan in CI (scripts/ci-extra.sh). */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include <msperf/msperf.h>
#include <msperf/format.h>
#include "common/test_util.h"
#include "app/trace/trace.h"
#include "engine/engine.h"

#define N_THREADS 4
#define QUERIES_PER_THREAD 10000
#define SESSION_SPAN 1500

typedef struct {
  msperf_engine *root;
  GPtrArray *ops;        /* msperf_op*, shared read-only */
  GPtrArray *expected;   /* char*: the single-handle answer of each op */
  guint seed;
  guint mismatches;
  guint first_mismatch;  /* op index + 1 */
  char *got;             /* the answer that differed */
} worker;

/* Everything an answer carries, as text: equal text means the same answer. The one detail
 * left out is index_cache (hit or miss): it says whether this query found the candidate
 * index already built, which depends on the queries before it, not on the answer. */
static char *
answer_text (const msperf_result *r)
{
  GString *s = g_string_new (msperf_source_name (r->source));
  g_autoptr (msperf_value) details = msperf_result_details (r) ? msperf_value_copy (msperf_result_details (r)) : NULL;

  g_string_append_c (s, '|');
  msperf_fmt_py_float (s, r->latency_us);
  g_string_append_c (s, '|');
  msperf_fmt_py_float (s, r->confidence);
  g_string_append_printf (s, "|%s|%s|%s|%s|", r->method ? r->method : "-",
                          r->miss_reason ? r->miss_reason : "-",
                          r->kernel_type ? r->kernel_type : "-",
                          r->shape_match_rule ? r->shape_match_rule : "-");
  if (details && details->kind == MSPERF_VALUE_MAP)
    for (guint k = 0; k < details->keys->len; k++)
      if (strcmp (g_ptr_array_index (details->keys, k), "index_cache") == 0)
        msperf_value_map_set (details, "index_cache", msperf_value_new_string ("-"));
  if (details)
    msperf_fmt_json_value (s, details, -1, 0);
  return g_string_free (s, FALSE);
}

static void
add_trace (GPtrArray *ops, const char *path)
{
  g_autoptr (GError) error = NULL;
  msperf_trace_reader *reader = msperf_trace_reader_open (path, &error);
  msperf_trace_item item = { 0 };

  if (reader == NULL)
    fail_msg ("%s", error->message);
  while (msperf_trace_reader_next (reader, &item))
    {
      if (item.op != NULL)
        g_ptr_array_add (ops, g_steal_pointer (&item.op));
      msperf_trace_item_clear (&item);
    }
  msperf_trace_reader_free (reader);
}

/* mm shapes off the measured grid inside its hull: each one an interpolation (1-D to 3-D). */
static void
add_interpolated_mm (GPtrArray *ops, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      msperf_op *op = tu_op ("aten.mm.default");
      char a[64], b[64];
      guint m = 1 + (i * 97u) % 4000u, k = 256 + (i * 389u) % 7000u, nn = 256 + (i * 613u) % 7000u;

      g_snprintf (a, sizeof a, "%u,%u", m, k);
      g_snprintf (b, sizeof b, "%u,%u", k, nn);
      tu_op_add_tensor (op, MSPERF_DTYPE_BF16, a);
      tu_op_add_tensor (op, MSPERF_DTYPE_BF16, b);
      tu_op_add_out (op, MSPERF_DTYPE_BF16, a);
      g_ptr_array_add (ops, op);
    }
}

static gpointer
work (gpointer data)
{
  worker *w = data;
  GRand *rng = g_rand_new_with_seed (w->seed);
  msperf_engine *session = NULL;

  for (guint q = 0; q < QUERIES_PER_THREAD; q++)
    {
      guint i = (guint) g_rand_int_range (rng, 0, (gint32) w->ops->len);
      msperf_result *r;
      char *text;

      if (q % SESSION_SPAN == 0)
        {
          msperf_engine_free (session);
          session = msperf_engine_new_session (w->root);
        }
      r = msperf_engine_query (session, g_ptr_array_index (w->ops, i));
      text = answer_text (r);
      if (strcmp (text, g_ptr_array_index (w->expected, i)) != 0 && w->mismatches++ == 0)
        {
          w->first_mismatch = i + 1;
          w->got = g_steal_pointer (&text);
        }
      g_free (text);
      msperf_result_unref (r);
    }
  msperf_engine_free (session);
  g_rand_free (rng);
  return NULL;
}

static void
test_threads_sessions_answer_as_one_handle (void **state)
{
  g_autofree char *db = tu_srcdir_path ("doc/examples/h200-db");
  msperf_engine *root = tu_engine_new (db, NULL);
  msperf_engine *alone;
  g_autoptr (GPtrArray) ops = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_op_free);
  g_autoptr (GPtrArray) expected = g_ptr_array_new_with_free_func (g_free);
  const char *traces[] = { "doc/examples/traces/llama3-8b-prefill.jsonl",
                           "doc/examples/traces/llama3-8b-decode.jsonl",
                           "doc/examples/traces/llama3-8b-prefill-tp2.jsonl",
                           "tests/data/broadcast/att_trace.jsonl",
                           "tests/data/att/cast_trace.jsonl",
                           "tests/data/trace/formats-examples.jsonl" };
  worker workers[N_THREADS];
  GThread *threads[N_THREADS];
  guint interpolated = 0;

  (void) state;
  for (size_t k = 0; k < G_N_ELEMENTS (traces); k++)
    {
      g_autofree char *path = tu_srcdir_path (traces[k]);
      add_trace (ops, path);
    }
  add_interpolated_mm (ops, 300);
  /* The reference: a separate handle on the same shared state, alone, before any thread runs. */
  alone = msperf_engine_new_session (root);
  for (guint i = 0; i < ops->len; i++)
    {
      msperf_result *r = msperf_engine_query (alone, g_ptr_array_index (ops, i));

      interpolated += r->source == MSPERF_SOURCE_INTERPOLATED;
      g_ptr_array_add (expected, answer_text (r));
      msperf_result_unref (r);
    }
  msperf_engine_free (alone);
  /* The mix must exercise the shared indexes, or the test proves little. */
  assert_true (interpolated >= 100);
  /* Start the threads on a shared state whose lazy state is cold again. */
  msperf_engine_drop_tables (root);
  for (guint t = 0; t < N_THREADS; t++)
    {
      workers[t] = (worker){ .root = root, .ops = ops, .expected = expected, .seed = 17 + t };
      threads[t] = g_thread_new ("msperf-test", work, &workers[t]);
    }
  for (guint t = 0; t < N_THREADS; t++)
    g_thread_join (threads[t]);
  for (guint t = 0; t < N_THREADS; t++)
    {
      if (workers[t].mismatches > 0)
        fail_msg ("thread %u: %u answers differ; op %u: expected %s, got %s", t,
                  workers[t].mismatches, workers[t].first_mismatch - 1,
                  (const char *) g_ptr_array_index (expected, workers[t].first_mismatch - 1),
                  workers[t].got);
    }
  msperf_engine_free (root);
}

/* The model outlives the handle it was started on: sessions keep it alive. */
static void
test_threads_session_outlives_the_root_handle (void **state)
{
  g_autofree char *db = tu_srcdir_path ("doc/examples/h200-db");
  msperf_engine *root = tu_engine_new (db, NULL);
  msperf_engine *session = msperf_engine_new_session (root);
  msperf_op *op = tu_op ("aten.mm.default");
  msperf_result *r;

  (void) state;
  tu_op_add_tensor (op, MSPERF_DTYPE_BF16, "1,256");
  tu_op_add_tensor (op, MSPERF_DTYPE_BF16, "256,256");
  tu_op_add_out (op, MSPERF_DTYPE_BF16, "1,256");
  msperf_engine_free (root);
  r = tu_run (session, op);
  tu_assert_source (r, MSPERF_SOURCE_MEASURED);
  /* MatMulV2.csv line 2 of the sample database. */
  assert_float_equal (r->latency_us, 2.6338, 1e-9);
  msperf_result_unref (r);
  msperf_engine_free (session);
}

/* Engines started and freed on several threads at once (the registry's libltdl lock). */
static gpointer
start_stop (gpointer data)
{
  const char *db = data;
  double *latency = g_new (double, 1);

  *latency = NAN;
  for (int k = 0; k < 3; k++)
    {
      msperf_engine *e = tu_engine_new (db, NULL);
      msperf_op *op = tu_op ("aten.mm.default");
      msperf_result *r;

      tu_op_add_tensor (op, MSPERF_DTYPE_BF16, "1,256");
      tu_op_add_tensor (op, MSPERF_DTYPE_BF16, "256,256");
      tu_op_add_out (op, MSPERF_DTYPE_BF16, "1,256");
      r = tu_run (e, op);
      *latency = r->latency_us;
      msperf_result_unref (r);
      msperf_engine_free (e);
    }
  return latency;
}

static void
test_threads_engines_start_and_free_concurrently (void **state)
{
  g_autofree char *db = tu_srcdir_path ("doc/examples/h200-db");
  GThread *threads[N_THREADS];

  (void) state;
  for (guint t = 0; t < N_THREADS; t++)
    threads[t] = g_thread_new ("msperf-start", start_stop, db);
  for (guint t = 0; t < N_THREADS; t++)
    {
      double *latency = g_thread_join (threads[t]);

      /* MatMulV2.csv line 2 of the sample database, on every thread. */
      assert_float_equal (*latency, 2.6338, 1e-9);
      g_free (latency);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_threads_sessions_answer_as_one_handle),
    cmocka_unit_test (test_threads_session_outlives_the_root_handle),
    cmocka_unit_test (test_threads_engines_start_and_free_concurrently),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
