/* cmocka tests of deferred details (include/msperf/details.h, core/base/detail_sink.c,
 * core/base/result.c): a record's details read as a tree, printed as JSON, or one key at a time
 * are the same details, in the same order, whichever way they were asked for. */
#include <config.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include <msperf/format.h>
#include "base/detail_sink.h"

/* A record exercising every sink call: scalars of each kind, nested maps and lists, an empty
 * map and list, an existing value tree, strings that need escaping. */
typedef struct {
  int frees;            /* counted by record_free */
  int depth;            /* nesting of the "deep" key; 0: no such key */
  gboolean with_tail;   /* the optional last key */
} record;

static void
record_free (gpointer p)
{
  ((record *) p)->frees++;
}

static void
emit_deep (msperf_detail_sink *s, int depth)
{
  msperf_detail_sink_begin_map (s, "deep");
  for (int k = 1; k < depth; k++)
    msperf_detail_sink_begin_list (s, k % 2 ? "l" : NULL);
  msperf_detail_sink_int (s, NULL, depth);
  for (int k = 1; k < depth; k++)
    msperf_detail_sink_end (s);
  msperf_detail_sink_end (s);
}

static void
emit (gconstpointer p, msperf_detail_sink *s)
{
  const record *rec = p;
  g_autoptr (msperf_value) tree = msperf_value_new (MSPERF_VALUE_MAP);

  msperf_value_map_set (tree, "x", msperf_value_new_double (0.1));
  msperf_value_map_set (tree, "y", msperf_value_new_string ("a\"b\n"));
  msperf_detail_sink_string (s, "kernel_type", "MatMulV2");
  msperf_detail_sink_int (s, "n", -42);
  msperf_detail_sink_double (s, "third", 1.0 / 3.0);
  msperf_detail_sink_double (s, "big", 1e300);
  msperf_detail_sink_double (s, "whole", 3.0);
  msperf_detail_sink_double (s, "nan", NAN);
  msperf_detail_sink_bool (s, "yes", TRUE);
  msperf_detail_sink_null (s, "nothing");
  msperf_detail_sink_string (s, "null_string", NULL);
  msperf_detail_sink_string (s, "escaped", "tab\there \"q\" \xc3\xa9");
  msperf_detail_sink_begin_map (s, "axes");
  msperf_detail_sink_int (s, "M", 8);
  msperf_detail_sink_double (s, "K", 2.5);
  msperf_detail_sink_end (s);
  msperf_detail_sink_begin_list (s, "points");
  for (int k = 0; k < 3; k++)
    {
      msperf_detail_sink_begin_map (s, NULL);
      msperf_detail_sink_begin_list (s, "pair");
      msperf_detail_sink_int (s, NULL, k);
      msperf_detail_sink_double (s, NULL, k + 0.5);
      msperf_detail_sink_end (s);
      msperf_detail_sink_end (s);
    }
  msperf_detail_sink_end (s);
  msperf_detail_sink_begin_map (s, "empty_map");
  msperf_detail_sink_end (s);
  msperf_detail_sink_begin_list (s, "fallback_reasons");
  msperf_detail_sink_end (s);
  msperf_detail_sink_value (s, "tree", tree);
  msperf_detail_sink_value (s, "no_tree", NULL);
  if (rec->depth)
    emit_deep (s, rec->depth);
  if (rec->with_tail)
    msperf_detail_sink_string (s, "tail", "last");
}

static const char *const record_keys[] = {
  "kernel_type", "n", "third", "big", "whole", "nan", "yes", "nothing", "null_string", "escaped",
  "axes", "points", "empty_map", "fallback_reasons", "tree", "no_tree", NULL
};

static char *
fmt (const msperf_value *v)
{
  GString *s = g_string_new (NULL);

  msperf_fmt_json_value (s, v, -1, 0);
  return g_string_free (s, FALSE);
}

static char *
details_json (const msperf_result *r, const char *const *keys, msperf_detail_span *spans)
{
  GString *s = g_string_new (NULL);

  msperf_result_details_json (r, s, keys, spans);
  return g_string_free (s, FALSE);
}

/* The printed details equal the built tree printed; every span is its key's value printed. */
static void
assert_json_matches_tree (msperf_result *r, const char *const *keys)
{
  msperf_detail_span spans[32];
  g_autofree char *direct = details_json (r, keys, spans);
  g_autofree char *built = fmt (msperf_result_details (r));
  g_autofree char *again = details_json (r, NULL, NULL);

  assert_string_equal (direct, built);
  assert_string_equal (again, built);
  for (int k = 0; keys[k]; k++)
    {
      const msperf_value *v = msperf_value_lookup (msperf_result_details (r), keys[k]);

      if (v == NULL)
        {
          assert_int_equal (spans[k].end, 0);
          continue;
        }
      {
        g_autofree char *want = fmt (v);
        g_autofree char *got = g_strndup (direct + spans[k].start, spans[k].end - spans[k].start);

        assert_string_equal (got, want);
      }
    }
}

static void
test_tree_order_and_kinds (void **state)
{
  record rec = { 0, 0, TRUE };
  msperf_result *r = msperf_result_new ();
  const msperf_value *d, *v;
  double f;
  int64_t i;

  (void) state;
  msperf_result_detail_string (r, "dropped", "set before the record");
  msperf_result_defer_details (r, emit, &rec, record_free);
  msperf_result_detail_int (r, "after", 7);
  d = msperf_result_details (r);
  assert_int_equal (d->kind, MSPERF_VALUE_MAP);
  /* the record's keys in order, then what was set after it; what came before is gone */
  for (int k = 0; record_keys[k]; k++)
    assert_string_equal (g_ptr_array_index (d->keys, k), record_keys[k]);
  assert_string_equal (g_ptr_array_index (d->keys, 16), "tail");
  assert_string_equal (g_ptr_array_index (d->keys, 17), "after");
  assert_int_equal (d->keys->len, 18);
  assert_null (msperf_value_lookup (d, "dropped"));
  assert_true (msperf_value_get_int (msperf_value_lookup (d, "n"), &i) && i == -42);
  v = msperf_value_lookup (d, "whole");
  assert_int_equal (v->kind, MSPERF_VALUE_FLOAT);   /* a double stays a double */
  assert_true (msperf_value_get_double (v, &f) && f == 3.0);
  assert_int_equal (msperf_value_lookup (d, "null_string")->kind, MSPERF_VALUE_NONE);
  assert_int_equal (msperf_value_lookup (d, "no_tree")->kind, MSPERF_VALUE_NONE);
  v = msperf_value_lookup (d, "points");
  assert_int_equal (v->items->len, 3);
  v = msperf_value_lookup (g_ptr_array_index (v->items, 2), "pair");
  assert_true (msperf_value_get_double (g_ptr_array_index (v->items, 1), &f) && f == 2.5);
  /* built once: the same tree on every call, and now in the field */
  assert_ptr_equal (msperf_result_details (r), d);
  assert_ptr_equal (r->details, d);
  assert_int_equal (rec.frees, 0);
  msperf_result_free (r);
  assert_int_equal (rec.frees, 1);
}

static void
test_json_equals_tree (void **state)
{
  static const char *const keys[] = { "axes", "n", "fallback_reasons", "after", "absent",
                                      "escaped", "tail", NULL };
  record rec = { 0, 0, TRUE };
  msperf_result *r = msperf_result_new ();
  msperf_result *plain = msperf_result_new ();
  msperf_detail_span spans[8];
  g_autofree char *pending = NULL;

  (void) state;
  msperf_result_defer_details (r, emit, &rec, record_free);
  msperf_result_detail_int (r, "after", 7);
  /* printed before the tree exists, then after: the same bytes */
  pending = details_json (r, keys, spans);
  assert_null (msperf_value_lookup (r->details, "n"));  /* still a record */
  assert_json_matches_tree (r, keys);
  {
    g_autofree char *built = fmt (msperf_result_details (r));
    assert_string_equal (pending, built);
  }
  /* an answer without a record prints the same way */
  msperf_result_detail_string (plain, "kernel_type", "k");
  msperf_result_detail_value (plain, "fallback_reasons", msperf_value_new (MSPERF_VALUE_LIST));
  assert_json_matches_tree (plain, keys);
  msperf_result_reset (plain);
  {
    g_autofree char *empty = details_json (plain, keys, spans);
    assert_string_equal (empty, "{}");
    assert_int_equal (spans[0].end, 0);
  }
  msperf_result_free (plain);
  msperf_result_free (r);
  assert_int_equal (rec.frees, 1);
}

static void
test_dup_does_not_build (void **state)
{
  record rec = { 0, 0, FALSE };
  msperf_result *r = msperf_result_new ();
  msperf_value *v;
  int64_t i;

  (void) state;
  msperf_result_defer_details (r, emit, &rec, record_free);
  msperf_result_detail_int (r, "after", 7);
  v = msperf_result_detail_dup (r, "axes");
  assert_non_null (v);
  assert_true (msperf_value_get_int (msperf_value_lookup (v, "M"), &i) && i == 8);
  msperf_value_free (v);
  v = msperf_result_detail_dup (r, "after");
  assert_true (msperf_value_get_int (v, &i) && i == 7);
  msperf_value_free (v);
  assert_null (msperf_result_detail_dup (r, "absent"));
  assert_null (msperf_result_detail_dup (r, "tail"));   /* the record did not write it */
  /* nothing was built: the field still holds only the suffix */
  assert_int_equal (r->details->keys->len, 1);
  /* and a built answer gives the same copies */
  msperf_result_details (r);
  v = msperf_result_detail_dup (r, "axes");
  assert_true (msperf_value_get_int (msperf_value_lookup (v, "M"), &i) && i == 8);
  msperf_value_free (v);
  msperf_result_free (r);
}

static void
test_subset_in_details_order (void **state)
{
  static const char *const keys[] = { "after", "absent", "axes", "kernel_type", NULL };
  record rec = { 0, 0, FALSE };
  msperf_result *r = msperf_result_new ();
  g_autoptr (msperf_value) pending = NULL;
  g_autoptr (msperf_value) built = NULL;
  g_autofree char *pending_text = NULL, *built_text = NULL;

  (void) state;
  msperf_result_defer_details (r, emit, &rec, record_free);
  msperf_result_detail_int (r, "after", 7);
  pending = msperf_result_details_subset (r, keys);
  assert_int_equal (r->details->keys->len, 1);   /* nothing built */
  /* the details' order, not the keys' */
  assert_int_equal (pending->keys->len, 3);
  assert_string_equal (g_ptr_array_index (pending->keys, 0), "kernel_type");
  assert_string_equal (g_ptr_array_index (pending->keys, 1), "axes");
  assert_string_equal (g_ptr_array_index (pending->keys, 2), "after");
  msperf_result_details (r);
  built = msperf_result_details_subset (r, keys);
  pending_text = fmt (pending);
  built_text = fmt (built);
  assert_string_equal (pending_text, built_text);
  assert_string_equal (pending_text, "{\"kernel_type\": \"MatMulV2\", \"axes\": {\"M\": 8, \"K\": 2.5}, "
                                     "\"after\": 7}");
  msperf_result_free (r);
}

static void
test_setting_a_record_key_keeps_its_place (void **state)
{
  record rec = { 0, 0, FALSE };
  msperf_result *r = msperf_result_new ();
  const msperf_value *d;
  int64_t i;

  (void) state;
  msperf_result_defer_details (r, emit, &rec, record_free);
  msperf_result_detail_int (r, "n", 5);      /* the record's own key: replaced in place */
  msperf_result_detail_int (r, "after", 7);
  d = msperf_result_details (r);
  assert_string_equal (g_ptr_array_index (d->keys, 1), "n");
  assert_true (msperf_value_get_int (msperf_value_lookup (d, "n"), &i) && i == 5);
  assert_string_equal (g_ptr_array_index (d->keys, d->keys->len - 1), "after");
  msperf_result_free (r);
}

static void
test_reset_copy_and_redefer (void **state)
{
  record a = { 0, 0, FALSE }, b = { 0, 0, TRUE };
  msperf_result *r = msperf_result_new ();
  msperf_result *c;
  g_autofree char *want = NULL, *got = NULL;

  (void) state;
  msperf_result_defer_details (r, emit, &a, record_free);
  msperf_result_defer_details (r, emit, &b, record_free);   /* replaces: a is freed */
  assert_int_equal (a.frees, 1);
  c = msperf_result_copy (r);
  want = fmt (msperf_result_details (r));
  got = fmt (msperf_result_details (c));
  assert_string_equal (got, want);
  assert_non_null (strstr (got, "\"tail\": \"last\""));
  msperf_result_reset (r);
  assert_int_equal (b.frees, 1);
  assert_int_equal (msperf_result_details (r)->items->len, 0);
  msperf_result_free (c);   /* the copy is a plain tree: no record of its own */
  assert_int_equal (b.frees, 1);
  msperf_result_free (r);
  assert_int_equal (a.frees + b.frees, 2);
}

/* Deeper than a sink follows: the cut subtree is left out of the tree and of the JSON alike. */
static void
test_too_deep_is_cut_alike (void **state)
{
  record rec = { 0, MSPERF_DETAIL_SINK_MAX_DEPTH + 3, FALSE };
  msperf_result *r = msperf_result_new ();

  (void) state;
  msperf_result_defer_details (r, emit, &rec, record_free);
  assert_json_matches_tree (r, record_keys);
  assert_non_null (msperf_value_lookup (msperf_result_details (r), "deep"));
  msperf_result_free (r);
}

static gpointer
build_on_thread (gpointer p)
{
  return (gpointer) msperf_result_details (p);
}

/* A shared answer read on several threads at once is built exactly once. */
static void
test_built_once_across_threads (void **state)
{
  record rec = { 0, 0, TRUE };
  msperf_result *r = msperf_result_new ();
  GThread *t[4];
  gpointer got[4];

  (void) state;
  msperf_result_defer_details (r, emit, &rec, record_free);
  msperf_result_ref (r);
  for (int k = 0; k < 4; k++)
    t[k] = g_thread_new ("details", build_on_thread, r);
  for (int k = 0; k < 4; k++)
    got[k] = g_thread_join (t[k]);
  for (int k = 1; k < 4; k++)
    assert_ptr_equal (got[k], got[0]);
  assert_ptr_equal (got[0], r->details);
  assert_int_equal (r->details->keys->len, 17);
  msperf_result_unref (r);
  msperf_result_unref (r);
  assert_int_equal (rec.frees, 1);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_tree_order_and_kinds),
    cmocka_unit_test (test_json_equals_tree),
    cmocka_unit_test (test_dup_does_not_build),
    cmocka_unit_test (test_subset_in_details_order),
    cmocka_unit_test (test_setting_a_record_key_keeps_its_place),
    cmocka_unit_test (test_reset_copy_and_redefer),
    cmocka_unit_test (test_too_deep_is_cut_alike),
    cmocka_unit_test (test_built_once_across_threads),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
