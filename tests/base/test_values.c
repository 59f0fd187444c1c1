/* cmocka tests of the small value and input helpers the engine and the modules share
 * (include/msperf/op.h msperf_value_new_string_list, include/msperf/subquery.h
 * msperf_input_count_limit; core/base/value.c, core/base/subquery.c). */
#include <config.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/op.h>
#include <msperf/subquery.h>

/* The strings in order, each copied: freeing the array first leaves the list intact. */
static void
test_string_list_copies_in_order (void **unused)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  msperf_value *l;

  (void) unused;
  g_ptr_array_add (a, g_strdup ("exact_miss"));
  g_ptr_array_add (a, g_strdup ("outside_hull"));
  g_ptr_array_add (a, g_strdup (""));
  l = msperf_value_new_string_list (a);
  g_ptr_array_unref (a);
  assert_int_equal (l->kind, MSPERF_VALUE_LIST);
  assert_int_equal (l->items->len, 3);
  assert_string_equal (msperf_value_get_string (g_ptr_array_index (l->items, 0)), "exact_miss");
  assert_string_equal (msperf_value_get_string (g_ptr_array_index (l->items, 1)), "outside_hull");
  assert_string_equal (msperf_value_get_string (g_ptr_array_index (l->items, 2)), "");
  msperf_value_free (l);
}

/* No array and an empty one both give an empty LIST (a detail always has its list). */
static void
test_string_list_of_nothing_is_empty (void **unused)
{
  GPtrArray *a = g_ptr_array_new ();
  msperf_value *l1 = msperf_value_new_string_list (NULL);
  msperf_value *l2 = msperf_value_new_string_list (a);

  (void) unused;
  assert_int_equal (l1->kind, MSPERF_VALUE_LIST);
  assert_int_equal (l1->items->len, 0);
  assert_int_equal (l2->kind, MSPERF_VALUE_LIST);
  assert_int_equal (l2->items->len, 0);
  msperf_value_free (l1);
  msperf_value_free (l2);
  g_ptr_array_unref (a);
}

/* tc_input_count -1 (none set) keeps every input; 0..n-1 cut; n and above keep n. */
static void
test_input_count_limit (void **unused)
{
  (void) unused;
  assert_int_equal (msperf_input_count_limit (3, -1), 3);
  assert_int_equal (msperf_input_count_limit (3, INT64_MIN), 3);
  assert_int_equal (msperf_input_count_limit (3, 0), 0);
  assert_int_equal (msperf_input_count_limit (3, 2), 2);
  assert_int_equal (msperf_input_count_limit (3, 3), 3);
  assert_int_equal (msperf_input_count_limit (3, 7), 3);
  assert_int_equal (msperf_input_count_limit (3, INT64_MAX), 3);
  assert_int_equal (msperf_input_count_limit (0, 2), 0);
  assert_int_equal (msperf_input_count_limit (0, -1), 0);
}

/* A new sub-query has no limit, so its inputs are never cut unless a module sets one. */
static void
test_new_subquery_has_no_limit (void **unused)
{
  msperf_subquery *sq = msperf_subquery_new ("compute", "MatMulV2");

  (void) unused;
  assert_int_equal (sq->tc_input_count, -1);
  assert_int_equal (msperf_input_count_limit (5, sq->tc_input_count), 5);
  msperf_subquery_free (sq);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_string_list_copies_in_order),
    cmocka_unit_test (test_string_list_of_nothing_is_empty),
    cmocka_unit_test (test_input_count_limit),
    cmocka_unit_test (test_new_subquery_has_no_limit),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
