/* An operator mapping's `quant_transfer` declaration (core/io/quant_spec.c): the shipped H200
 * fused-MoE entry's spec is read as written, a value without stand-ins has none, and each
 * malformed form is refused saying what is wrong (the database's load check prints it with
 * the entry and the line). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include "io/yaml_doc.h"
#include "io/quant_spec.h"

static msperf_value *
yaml (const char *text)
{
  GError *error = NULL;
  msperf_value *v = msperf_yaml_load_data (text, strlen (text), "spec.yaml", &error);

  assert_null (error);
  assert_non_null (v);
  return v;
}

static const char shipped[] =
  "field: quant\n"
  "from:\n"
  "  int4_wo:\n"
  "    - {quant: fp8_block, dtypes: [float8_e4m3fn, float8_e4m3fn, float8_e4m3fn]}\n"
  "  bf16:\n"
  "    - {quant: fp8, dtypes: [bfloat16]}\n"
  "    - {quant: fp8_block, dtypes: [bfloat16, float8_e4m3fn]}\n";

static void
test_shipped_spec (void **state)
{
  msperf_value *v = yaml (shipped);
  msperf_quant_spec spec;
  char *problem = NULL;

  (void) state;
  assert_true (msperf_quant_spec_parse (v, "int4_wo", &spec, &problem));
  assert_null (problem);
  assert_string_equal (spec.field, "quant");
  assert_int_equal (spec.n_refs, 1);
  assert_string_equal (spec.refs[0].value, "fp8_block");
  assert_int_equal (spec.refs[0].n_dtypes, 3);
  assert_int_equal (spec.refs[0].dtypes[2], MSPERF_DTYPE_FP8_E4M3);
  /* the stand-ins of another value, in their order */
  assert_true (msperf_quant_spec_parse (v, "bf16", &spec, &problem));
  assert_int_equal (spec.n_refs, 2);
  assert_string_equal (spec.refs[1].value, "fp8_block");
  assert_int_equal (spec.refs[1].n_dtypes, 2);
  assert_int_equal (spec.refs[1].dtypes[0], MSPERF_DTYPE_BF16);
  /* a value the spec does not list has none; NULL only checks */
  assert_true (msperf_quant_spec_parse (v, "fp8", &spec, &problem));
  assert_int_equal (spec.n_refs, 0);
  assert_true (msperf_quant_spec_parse (v, NULL, &spec, &problem));
  assert_int_equal (spec.n_refs, 0);
  msperf_value_free (v);
}

/* text must be refused with a problem containing want. */
static void
refused (const char *text, const char *want)
{
  msperf_value *v = yaml (text);
  msperf_quant_spec spec;
  char *problem = NULL;

  assert_false (msperf_quant_spec_parse (v, NULL, &spec, &problem));
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
  refused ("[quant]\n", "expected a mapping");
  refused ("from: {a: [{quant: b, dtypes: [bfloat16]}]}\n", "field: expected a kwarg name");
  refused ("field: [quant]\nfrom: {a: [{quant: b, dtypes: [bfloat16]}]}\n", "field: expected");
  refused ("field: quant\n", "from: expected a mapping");
  refused ("field: quant\nfrom: {}\n", "from: expected a mapping");
  refused ("field: quant\nfrom: {a: b}\n", "from.a: expected a list of 1 to 8");
  refused ("field: quant\nfrom: {a: []}\n", "from.a: expected a list of 1 to 8");
  refused ("field: quant\nfrom: {a: [b]}\n", "from.a[0]: expected {quant: VALUE");
  refused ("field: quant\nfrom: {a: [{quant: b}]}\n", "from.a[0]: expected {quant: VALUE");
  refused ("field: quant\nfrom: {a: [{dtypes: [bfloat16]}]}\n", "from.a[0]: expected");
  refused ("field: quant\nfrom: {a: [{quant: b, dtypes: []}]}\n", "from.a[0]: expected");
  refused ("field: quant\nfrom: {a: [{quant: b, dtypes: [bfloat16, float9]}]}\n",
           "from.a[0].dtypes[1]: unknown dtype 'float9'");
  refused ("field: quant\nfrom: {a: [{quant: b, dtypes: [bfloat16]}, {quant: a, dtypes: [bfloat16]}]}\n",
           "from.a[1]: a value cannot stand in for itself");
  refused ("field: quant\nfrom: {a: [{quant: b, dtypes: [bfloat16, bfloat16, bfloat16, bfloat16, bfloat16, bfloat16, "
           "bfloat16, bfloat16, bfloat16]}]}\n", "from.a[0]: expected");
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
