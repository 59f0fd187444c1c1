/* An operator mapping's `split_transfer` declaration (core/io/split_spec.c): the shipped H200
 * fused-MoE entry's spec is read as written, and each malformed form is refused saying what is
 * wrong (the database's load check prints it with the entry and the line). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include "io/yaml_doc.h"
#include "io/split_spec.h"

static msperf_value *
yaml (const char *text)
{
  GError *error = NULL;
  msperf_value *v = msperf_yaml_load_data (text, strlen (text), "spec.yaml", &error);

  assert_null (error);
  assert_non_null (v);
  return v;
}

static void
test_shipped_spec (void **state)
{
  msperf_value *v = yaml ("fields: [moe_tp, moe_ep]\n"
                          "dims: {moe_tp: [[1, 1], [2, 2]], moe_ep: [[1, 0], [2, 0]]}\n");
  msperf_split_spec spec;
  char *problem = NULL;

  (void) state;
  assert_true (msperf_split_spec_parse (v, &spec, &problem));
  assert_null (problem);
  assert_string_equal (spec.field[0], "moe_tp");
  assert_string_equal (spec.field[1], "moe_ep");
  assert_int_equal (spec.n_dims[0], 2);
  assert_int_equal (spec.n_dims[1], 2);
  assert_int_equal (spec.dims[0][1].arg, 2);
  assert_int_equal (spec.dims[0][1].dim, 2);
  assert_int_equal (spec.dims[1][0].arg, 1);
  assert_int_equal (spec.dims[1][0].dim, 0);
  msperf_value_free (v);
}

/* text must be refused with a problem containing want. */
static void
refused (const char *text, const char *want)
{
  msperf_value *v = yaml (text);
  msperf_split_spec spec;
  char *problem = NULL;

  assert_false (msperf_split_spec_parse (v, &spec, &problem));
  assert_non_null (problem);
  if (strstr (problem, want) == NULL)
    fail_msg ("'%s' not in '%s'", want, problem);
  g_free (problem);
  msperf_value_free (v);
}

static void
test_malformed_specs (void **state)
{
  (void) state;
  refused ("[moe_tp, moe_ep]\n", "expected a mapping");
  refused ("fields: [moe_tp]\ndims: {moe_tp: [[1, 1]]}\n", "fields: expected a list of two");
  refused ("fields: [moe_tp, moe_tp]\ndims: {moe_tp: [[1, 1]]}\n", "must differ");
  refused ("fields: [moe_tp, [1]]\ndims: {}\n", "fields[1]: expected a kwarg name");
  refused ("fields: [a, b]\n", "dims: expected a mapping");
  refused ("fields: [a, b]\ndims: {a: [[1, 1]]}\n", "dims.b: expected a list");
  refused ("fields: [a, b]\ndims: {a: [[1, 1]], b: [[1]]}\n", "dims.b[0]: expected [arg, dim]");
  refused ("fields: [a, b]\ndims: {a: [[1, 9]], b: [[1, 0]]}\n", "dims.a[0]");
  refused ("fields: [a, b]\ndims: {a: [[-1, 0]], b: [[1, 0]]}\n", "dims.a[0]");
  refused ("fields: [a, b]\ndims: {a: [[1, 0], [1, 1], [1, 2], [2, 0], [2, 1], [2, 2], [3, 0], "
           "[3, 1], [3, 2]], b: [[1, 0]]}\n", "dims.a: expected a list of 1 to 8");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_shipped_spec),
    cmocka_unit_test (test_malformed_specs),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
