/* Every public header compiles on its own (STYLE.md § Layout), and the ABI descriptor keeps
 * the layout modules were built against. */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <msperf/plugin.h>
#include "headers/headers.h"

static void
test_headers_each_compiles_alone (void **state)
{
  (void) state;
  assert_int_equal (msperf_test_header_msperf () + msperf_test_header_error ()
                      + msperf_test_header_dtype () + msperf_test_header_op ()
                      + msperf_test_header_shape () + msperf_test_header_table ()
                      + msperf_test_header_select () + msperf_test_header_result ()
                      + msperf_test_header_point () + msperf_test_header_database ()
                      + msperf_test_header_engine () + msperf_test_header_plugin ()
                      + msperf_test_header_latency () + msperf_test_header_handle ()
                      + msperf_test_header_subquery () + msperf_test_header_host (),
                    16);
}

/* Fields are only ever appended (ARCHITECTURE § Module ABI): the v1 prefix must not move. */
static void
test_headers_plugin_descriptor_layout_is_stable (void **state)
{
  (void) state;
  assert_int_equal (offsetof (msperf_plugin, abi), 0);
  assert_int_equal (offsetof (msperf_plugin, size), 4);
  /* ABI 2: abi and size keep their version-1 place (so the loader can read them from any
   * module), then abi_minor and flags. */
  assert_int_equal (offsetof (msperf_plugin, abi_minor), 8);
  assert_int_equal (offsetof (msperf_plugin, flags), 12);
  assert_int_equal (offsetof (msperf_plugin, name), 16);
  assert_true (offsetof (msperf_plugin, options) < offsetof (msperf_plugin, init));
  assert_true (offsetof (msperf_plugin, init) < offsetof (msperf_plugin, lookup));
  assert_true (offsetof (msperf_plugin, decompose) < offsetof (msperf_plugin, reserved));
  /* 2.2 gave three reserved slots a meaning, in place: the size is unchanged. */
  assert_int_equal (offsetof (msperf_plugin, semantic_key_rule),
                    offsetof (msperf_plugin, decompose) + sizeof (gpointer));
  assert_int_equal (offsetof (msperf_plugin, collective_prefixes),
                    offsetof (msperf_plugin, semantic_key_rule) + sizeof (gpointer));
  assert_int_equal (offsetof (msperf_plugin, policy_schema),
                    offsetof (msperf_plugin, collective_prefixes) + sizeof (gpointer));
  assert_int_equal (offsetof (msperf_plugin, reserved),
                    offsetof (msperf_plugin, policy_schema) + sizeof (gpointer));
  assert_int_equal (sizeof (((msperf_plugin *) 0)->reserved) / sizeof (gpointer), 5);
  assert_int_equal (sizeof (msperf_plugin),
                    offsetof (msperf_plugin, decompose) + 9 * sizeof (gpointer));
  /* msperf_subquery keeps the 2.1 layout: the retired flag's slot is reserved_flags. */
  assert_int_equal (offsetof (msperf_subquery, reserved_flags),
                    offsetof (msperf_subquery, tc_input_count) + sizeof (int64_t));
  assert_int_equal (sizeof (((msperf_query *) 0)->reserved) / sizeof (gpointer), 4);
  assert_int_equal (MSPERF_PLUGIN_ABI_MAJOR, 2);
  assert_int_equal (MSPERF_PLUGIN_ABI, MSPERF_PLUGIN_ABI_MAJOR);
  assert_int_equal (MSPERF_PLUGIN_ABI_MINOR, 2);
  /* The generated version header agrees with the package. */
  assert_string_equal (MSPERF_VERSION_STRING, PACKAGE_VERSION);
  assert_true (MSPERF_CHECK_VERSION (0, 0, 0));
  assert_false (MSPERF_CHECK_VERSION (MSPERF_MAJOR_VERSION + 1, 0, 0));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_headers_each_compiles_alone),
    cmocka_unit_test (test_headers_plugin_descriptor_layout_is_stable),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
