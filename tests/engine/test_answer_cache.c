/* The answer cache's LRU (core/engine/dispatch.c): its size from the optional policy key
 * cache.answers (absent = 4096, never in the policy hash), eviction of the least recently
 * used answer, and an evicted answer recomputed bit for bit. */
#include <config.h>
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
#include "engine/shared.h"
#include "engine/answers.h"

/* An mm strictly inside the sample MatMulV2 grid (3-D interpolation) when i > 0. */
static msperf_op *
mm (guint i)
{
  msperf_op *op = tu_op ("aten.mm.default");
  char a[64], b[64];
  guint m = 3 + i * 131u, k = 301 + i * 389u, n = 307 + i * 613u;

  g_snprintf (a, sizeof a, "%u,%u", m, k);
  g_snprintf (b, sizeof b, "%u,%u", k, n);
  tu_op_add_tensor (op, MSPERF_DTYPE_BF16, a);
  tu_op_add_tensor (op, MSPERF_DTYPE_BF16, b);
  tu_op_add_out (op, MSPERF_DTYPE_BF16, a);
  return op;
}

static msperf_engine *
engine_with (const char *answers)
{
  g_autofree char *db = tu_srcdir_path ("doc/examples/h200-db");
  const char *overrides[] = { "cache.answers", answers, NULL };

  return tu_engine_new (db, answers ? overrides : NULL);
}

/* Everything an answer carries, as text. */
static char *
answer_text (const msperf_result *r)
{
  GString *s = g_string_new (msperf_source_name (r->source));

  g_string_append_c (s, '|');
  msperf_fmt_py_float (s, r->latency_us);
  g_string_append_c (s, '|');
  msperf_fmt_py_float (s, r->confidence);
  g_string_append_printf (s, "|%s|%s|%s|%s|%d|", r->method ? r->method : "-",
                          r->miss_reason ? r->miss_reason : "-",
                          r->kernel_type ? r->kernel_type : "-",
                          r->shape_match_rule ? r->shape_match_rule : "-", r->interpolation_dim);
  msperf_fmt_json_value (s, msperf_result_details (r), -1, 0);
  return g_string_free (s, FALSE);
}

static void
query_drop (msperf_engine *e, msperf_op *op)
{
  msperf_result_unref (msperf_engine_query (e, op));
}

static void
test_cache_size_from_policy (void **state)
{
  msperf_engine *dflt = engine_with (NULL), *three = engine_with ("3"), *big = engine_with ("100000");
  g_autofree char *policy = g_strdup (msperf_engine_policy_hash (dflt));

  (void) state;
  assert_int_equal (msperf_answers_capacity (dflt), 4096);
  assert_int_equal (msperf_answers_capacity (three), 3);
  assert_int_equal (msperf_answers_capacity (big), 100000);
  /* A cache size changes no answer, so not the hash answers carry either. */
  assert_string_equal (msperf_engine_policy_hash (three), policy);
  assert_string_equal (msperf_engine_policy_hash (big), policy);
  /* A session has its own cache of the shared policy's size. */
  {
    msperf_engine *s = msperf_engine_new_session (three);

    assert_int_equal (msperf_answers_capacity (s), 3);
    msperf_engine_free (s);
  }
  msperf_engine_free (dflt);
  msperf_engine_free (three);
  msperf_engine_free (big);
}

static void
test_cache_size_refused (void **state)
{
  msperf_engine *e = msperf_engine_new ();
  g_autoptr (GError) error = NULL;

  (void) state;
  assert_false (msperf_engine_set_override (e, "cache.answers", "0", &error));
  assert_non_null (error);
  g_clear_error (&error);
  assert_false (msperf_engine_set_override (e, "cache.answers", "lots", &error));
  assert_non_null (error);
  g_clear_error (&error);
  assert_false (msperf_engine_set_override (e, "cache.entries", "3", &error));
  msperf_engine_free (e);
}

static void
test_cache_evicts_least_recently_used (void **state)
{
  msperf_engine *e = engine_with ("3");
  msperf_op *ops[5];

  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    ops[i] = mm (i + 1);
  query_drop (e, ops[0]);
  query_drop (e, ops[1]);
  query_drop (e, ops[2]);
  assert_int_equal (msperf_answers_size (e->answers), 3);
  /* ops[0] used again: ops[1] is now the least recently used. */
  query_drop (e, ops[0]);
  query_drop (e, ops[3]);
  assert_int_equal (msperf_answers_size (e->answers), 3);
  assert_true (msperf_answers_has (e, ops[0]));
  assert_false (msperf_answers_has (e, ops[1]));
  assert_true (msperf_answers_has (e, ops[2]));
  assert_true (msperf_answers_has (e, ops[3]));
  /* then ops[2], the oldest of the three */
  query_drop (e, ops[4]);
  assert_false (msperf_answers_has (e, ops[2]));
  assert_true (msperf_answers_has (e, ops[0]));
  assert_true (msperf_answers_has (e, ops[3]));
  assert_true (msperf_answers_has (e, ops[4]));
  msperf_answers_clear (e->answers);
  assert_int_equal (msperf_answers_size (e->answers), 0);
  query_drop (e, ops[1]);
  assert_true (msperf_answers_has (e, ops[1]));
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    msperf_op_free (ops[i]);
  msperf_engine_free (e);
}

static void
test_cache_evicted_answer_recomputed_identically (void **state)
{
  msperf_engine *e = engine_with ("2"), *roomy = engine_with (NULL);
  msperf_op *x = mm (7);
  msperf_result *first = msperf_engine_query (e, x), *again, *hit, *ref;
  g_autofree char *want = answer_text (first);
  g_autofree char *got = NULL, *got_ref = NULL;

  (void) state;
  assert_int_equal (first->source, MSPERF_SOURCE_INTERPOLATED);
  /* A cached answer is the same shared object. */
  hit = msperf_engine_query (e, x);
  assert_ptr_equal (hit, first);
  msperf_result_unref (hit);
  for (guint i = 20; i < 24; i++)
    {
      msperf_op *other = mm (i);
      query_drop (e, other);
      msperf_op_free (other);
    }
  assert_false (msperf_answers_has (e, x));
  again = msperf_engine_query (e, x);
  assert_ptr_not_equal (again, first);
  got = answer_text (again);
  assert_string_equal (got, want);
  /* and the answer of an engine that never evicted it */
  ref = msperf_engine_query (roomy, x);
  got_ref = answer_text (ref);
  assert_string_equal (got_ref, want);
  msperf_result_unref (first);
  msperf_result_unref (again);
  msperf_result_unref (ref);
  msperf_op_free (x);
  msperf_engine_free (e);
  msperf_engine_free (roomy);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_cache_size_from_policy),
    cmocka_unit_test (test_cache_size_refused),
    cmocka_unit_test (test_cache_evicts_least_recently_used),
    cmocka_unit_test (test_cache_evicted_answer_recomputed_identically),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
