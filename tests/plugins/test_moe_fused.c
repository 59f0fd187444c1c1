/* Tests of the "moe_fused" module (placeholder while the module is written). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "../test_util.h"

static void
test_moe_placeholder (void **state)
{
  (void) state;
  assert_true (1);
}

int
main (void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test (test_moe_placeholder) };

  return cmocka_run_group_tests_name ("moe_fused", tests, NULL, NULL);
}
