/* cmocka tests of reading numbers from text and their canonical text (include/msperf/number.h,
 * core/base/number.c), which the field_table and moe_fused modules read table cells with. */
#include <config.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/number.h>

/* Whole decimal numbers are read, in C-locale notation. */
static void
test_parse_reads_decimal_numbers (void **unused)
{
  double v = 0;

  (void) unused;
  assert_true (msperf_number_parse ("8", &v));
  assert_true (v == 8.0);
  assert_true (msperf_number_parse ("-2.5", &v));
  assert_true (v == -2.5);
  assert_true (msperf_number_parse ("1e+16", &v));
  assert_true (v == 1e16);
  assert_true (msperf_number_parse ("0.000125", &v));
  assert_true (v == 0.000125);
}

/* Everything else is refused and leaves *out alone. */
static void
test_parse_refuses_other_text (void **unused)
{
  static const char *const bad[] = {
    "", " 8", "8 ", "8x", "8,5", "abc", "inf", "-inf", "nan", "NaN", "0x10", "1e999",
    "power_law_1.2", NULL
  };
  double v = 42.0;

  (void) unused;
  for (int k = 0; bad[k] != NULL; k++)
    {
      assert_false (msperf_number_parse (bad[k], &v));
      assert_true (v == 42.0);
    }
  assert_false (msperf_number_parse (NULL, &v));
  assert_true (v == 42.0);
}

/* Numbers written differently give one text; other text is kept as is. */
static void
test_canonical_numbers_compare_equal (void **unused)
{
  static const char *const same[] = { "8", "8.0", "8e0", "8.000", "+8", NULL };
  g_autoptr (GString) s = g_string_new (NULL);

  (void) unused;
  for (int k = 0; same[k] != NULL; k++)
    {
      g_string_truncate (s, 0);
      msperf_number_append_canonical (s, same[k]);
      assert_string_equal (s->str, "8");
    }
  g_string_truncate (s, 0);
  msperf_number_append_canonical (s, "0.1");
  assert_string_equal (s->str, "0.10000000000000001");
  g_string_assign (s, "k=");
  msperf_number_append_canonical (s, "power_law_1.2");
  assert_string_equal (s->str, "k=power_law_1.2");
  g_string_truncate (s, 0);
  msperf_number_append_canonical (s, " 8");
  assert_string_equal (s->str, " 8");
  g_string_truncate (s, 0);
  msperf_number_append_canonical (s, NULL);
  assert_string_equal (s->str, "");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_parse_reads_decimal_numbers),
    cmocka_unit_test (test_parse_refuses_other_text),
    cmocka_unit_test (test_canonical_numbers_compare_equal),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
