/* msperf tests — candidate index and interpolation stage (placeholder while written). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_util.h"

static void
placeholder_runs (void **state)
{
  (void) state;
  assert_true (1);
}

int
main (void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test (placeholder_runs) };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
