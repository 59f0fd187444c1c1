/* The mappings' transfer declarations: `split_transfer` (core/io/split_spec.c) and
 * `quant_transfer` (core/io/quant_spec.c). The shipped H200 fused-MoE entry's specs are read as
 * written, a value without stand-ins has none, and each malformed form is refused saying what
 * is wrong (the database's load check prints it with the entry and the line). */
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

/* A malformed declaration and what its refusal must say. */
typedef struct {
  const char *text, *want;
} bad_case;

/* Each text must be refused by valid with a problem containing its want. */
static void
refused_all (gboolean (*valid) (const msperf_value *, char **), const bad_case *cases, gsize n)
{
  for (gsize k = 0; k < n; k++)
    {
      msperf_value *v = yaml (cases[k].text);
      char *problem = NULL;

      assert_false (valid (v, &problem));
      assert_non_null (problem);
      if (strstr (problem, cases[k].want) == NULL)
        fail_msg ("'%s' not in '%s'", cases[k].want, problem);
      g_free (problem);
      msperf_value_free (v);
    }
}

static void
test_split_shipped (void **state)
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

static void
test_split_malformed (void **state)
{
  static const bad_case cases[] = {
    { "[moe_tp, moe_ep]\n",
      "expected a mapping" },
    { "fields: [moe_tp]\ndims: {moe_tp: [[1, 1]]}\n",
      "fields: expected a list of two" },
    { "fields: [moe_tp, moe_tp]\ndims: {moe_tp: [[1, 1]]}\n",
      "must differ" },
    { "fields: [moe_tp, [1]]\ndims: {}\n",
      "fields[1]: expected a kwarg name" },
    { "fields: [a, b]\n",
      "dims: expected a mapping" },
    { "fields: [a, b]\ndims: {a: [[1, 1]]}\n",
      "dims.b: expected a list" },
    { "fields: [a, b]\ndims: {a: [[1, 1]], b: [[1]]}\n",
      "dims.b[0]: expected [arg, dim]" },
    { "fields: [a, b]\ndims: {a: [[1, 9]], b: [[1, 0]]}\n",
      "dims.a[0]" },
    { "fields: [a, b]\ndims: {a: [[-1, 0]], b: [[1, 0]]}\n",
      "dims.a[0]" },
    { "fields: [a, b]\ndims: {a: [[1, 0], [1, 1], [1, 2], [2, 0], [2, 1], "
      "[2, 2], [3, 0], [3, 1], [3, 2]], b: [[1, 0]]}\n",
      "dims.a: expected a list of 1 to 8" },
  };

  (void) state;
  refused_all (msperf_split_spec_valid, cases, G_N_ELEMENTS (cases));
}

static const char quant_shipped[] =
  "field: quant\n"
  "from:\n"
  "  int4_wo:\n"
  "    - {quant: fp8_block, dtypes: [float8_e4m3fn, float8_e4m3fn, float8_e4m3fn]}\n"
  "  bf16:\n"
  "    - {quant: fp8, dtypes: [bfloat16]}\n"
  "    - {quant: fp8_block, dtypes: [bfloat16, float8_e4m3fn]}\n";

static void
test_quant_shipped (void **state)
{
  msperf_value *v = yaml (quant_shipped);
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

static void
test_quant_malformed (void **state)
{
  static const bad_case cases[] = {
    { "[quant]\n",
      "expected a mapping" },
    { "from: {a: [{quant: b, dtypes: [bfloat16]}]}\n",
      "field: expected a kwarg name" },
    { "field: [quant]\nfrom: {a: [{quant: b, dtypes: [bfloat16]}]}\n",
      "field: expected" },
    { "field: quant\n",
      "from: expected a mapping" },
    { "field: quant\nfrom: {}\n",
      "from: expected a mapping" },
    { "field: quant\nfrom: {a: b}\n",
      "from.a: expected a list of 1 to 8" },
    { "field: quant\nfrom: {a: []}\n",
      "from.a: expected a list of 1 to 8" },
    { "field: quant\nfrom: {a: [b]}\n",
      "from.a[0]: expected {quant: VALUE" },
    { "field: quant\nfrom: {a: [{quant: b}]}\n",
      "from.a[0]: expected {quant: VALUE" },
    { "field: quant\nfrom: {a: [{dtypes: [bfloat16]}]}\n",
      "from.a[0]: expected" },
    { "field: quant\nfrom: {a: [{quant: b, dtypes: []}]}\n",
      "from.a[0]: expected" },
    { "field: quant\nfrom: {a: [{quant: b, dtypes: [bfloat16, float9]}]}\n",
      "from.a[0].dtypes[1]: unknown dtype 'float9'" },
    { "field: quant\nfrom: {a: [{quant: b, dtypes: [bfloat16]}, "
      "{quant: a, dtypes: [bfloat16]}]}\n",
      "from.a[1]: a value cannot stand in for itself" },
    { "field: quant\nfrom: {a: [{quant: b, dtypes: [bfloat16, bfloat16, "
      "bfloat16, bfloat16, bfloat16, bfloat16, "
      "bfloat16, bfloat16, bfloat16]}]}\n",
      "from.a[0]: expected" },
  };

  (void) state;
  refused_all (msperf_quant_spec_valid, cases, G_N_ELEMENTS (cases));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_split_shipped),
    cmocka_unit_test (test_split_malformed),
    cmocka_unit_test (test_quant_shipped),
    cmocka_unit_test (test_quant_malformed),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
