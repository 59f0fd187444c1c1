/* Tests of core/yaml_doc.c and core/policy.c: YAML → value trees, strict errors with lines,
 * policy schema, precedence, canonical JSON and hashing. */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>
#include "common/test_util.h"
#include <glib.h>
#include <glib/gstdio.h>
#include <msperf/database.h>
#include <msperf/error.h>
#include "engine/policy.h"
#include "io/yaml_doc.h"

static msperf_value *
load (const char *text, GError **error)
{
  return msperf_yaml_load_data (text, strlen (text), "t.yaml", error);
}

/* Loads text and asserts it fails with a message containing want. */
static void
assert_load_fails (const char *text, const char *want)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_value) v = load (text, &error);

  assert_null (v);
  assert_non_null (error);
  if (strstr (error->message, want) == NULL)
    fail_msg ("'%s' does not contain '%s'", error->message, want);
}

/* ------------------------------------------------------------------ yaml_doc */

static void
test_yaml_scalars_resolve_by_plain_style_only (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_value) v = load ("a: 12\n"
                                     "b: -7\n"
                                     "c: 1.5e-3\n"
                                     "d: true\n"
                                     "e: ~\n"
                                     "f: \"12\"\n"
                                     "g: 0.15.0\n"
                                     "h: .inf\n"
                                     "i: -.inf\n"
                                     "j: .nan\n"
                                     "k: nan\n"
                                     "l: 99999999999999999999\n"
                                     "m:\n"
                                     "n: 'true'\n"
                                     "o: 0x10\n", &error);
  (void) state;
  assert_non_null (v);
  assert_int_equal (v->kind, MSPERF_VALUE_MAP);
  assert_int_equal (msperf_value_lookup (v, "a")->kind, MSPERF_VALUE_INT);
  assert_int_equal (msperf_value_lookup (v, "a")->i, 12);
  assert_int_equal (msperf_value_lookup (v, "b")->i, -7);
  assert_int_equal (msperf_value_lookup (v, "c")->kind, MSPERF_VALUE_FLOAT);
  assert_true (msperf_value_lookup (v, "c")->f == 1.5e-3);
  assert_int_equal (msperf_value_lookup (v, "d")->kind, MSPERF_VALUE_BOOL);
  assert_true (msperf_value_lookup (v, "d")->b);
  assert_int_equal (msperf_value_lookup (v, "e")->kind, MSPERF_VALUE_NONE);
  assert_int_equal (msperf_value_lookup (v, "f")->kind, MSPERF_VALUE_STRING);  /* quoted */
  assert_string_equal (msperf_value_lookup (v, "g")->s, "0.15.0");
  assert_true (isinf (msperf_value_lookup (v, "h")->f) && msperf_value_lookup (v, "h")->f > 0);
  assert_true (isinf (msperf_value_lookup (v, "i")->f) && msperf_value_lookup (v, "i")->f < 0);
  assert_true (isnan (msperf_value_lookup (v, "j")->f));
  assert_int_equal (msperf_value_lookup (v, "k")->kind, MSPERF_VALUE_STRING); /* not YAML's nan */
  assert_int_equal (msperf_value_lookup (v, "l")->kind, MSPERF_VALUE_FLOAT);  /* > int64 */
  assert_int_equal (msperf_value_lookup (v, "m")->kind, MSPERF_VALUE_NONE);
  assert_int_equal (msperf_value_lookup (v, "n")->kind, MSPERF_VALUE_STRING);
  assert_int_equal (msperf_value_lookup (v, "o")->kind, MSPERF_VALUE_STRING); /* no hex */
  /* keys keep file order and values carry 1-based lines */
  assert_string_equal (g_ptr_array_index (v->keys, 0), "a");
  assert_string_equal (g_ptr_array_index (v->keys, 14), "o");
  assert_int_equal (msperf_value_lookup (v, "a")->line, 1);
  assert_int_equal (msperf_value_lookup (v, "o")->line, 15);
}

static void
test_yaml_errors_name_file_and_line (void **state)
{
  (void) state;
  assert_load_fails ("a: 1\nb: [1, 2\n", "t.yaml:");
  assert_load_fails ("a: 1\nb: 2\na: 3\n", "t.yaml:3: duplicate key 'a'");
  assert_load_fails ("? [1, 2]\n: x\n", "mapping keys must be scalars");
  assert_load_fails ("base: &b {x: 1}\nm:\n  <<: *b\n", "t.yaml:3: merge keys are not supported");
  assert_load_fails ("a: 1\n---\nb: 2\n", "t.yaml:3: more than one YAML document");
  assert_load_fails ("a: \"\xff\xfe\"\n", "t.yaml:1: the file is not UTF-8 text");
}

static void
test_yaml_quoted_merge_key_is_an_ordinary_key (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_value) v = load ("\"<<\": 1\n", &error);

  (void) state;
  assert_non_null (v);
  assert_int_equal (msperf_value_lookup (v, "<<")->i, 1);
}

static void
test_yaml_nesting_deeper_than_64_is_refused (void **state)
{
  GString *deep = g_string_new (NULL);
  GString *ok = g_string_new (NULL);

  (void) state;
  for (int k = 0; k < 70; k++)
    g_string_append_c (deep, '[');
  for (int k = 0; k < 70; k++)
    g_string_append_c (deep, ']');
  assert_load_fails (deep->str, "nesting deeper than 64 levels");
  for (int k = 0; k < 64; k++)
    g_string_append_c (ok, '[');
  for (int k = 0; k < 64; k++)
    g_string_append_c (ok, ']');
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (msperf_value) v = load (ok->str, &error);
    assert_non_null (v);
  }
  g_string_free (deep, TRUE);
  g_string_free (ok, TRUE);
}

static void
test_yaml_alias_bomb_is_refused_before_expansion (void **state)
{
  /* 10 levels of 10 aliases: 10^10 nodes once expanded. */
  GString *bomb = g_string_new ("l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");

  (void) state;
  for (int k = 1; k <= 10; k++)
    {
      g_string_append_printf (bomb, "l%d: &l%d [", k, k);
      for (int j = 0; j < 10; j++)
        g_string_append_printf (bomb, "%s*l%d", j ? ", " : "", k - 1);
      g_string_append (bomb, "]\n");
    }
  assert_load_fails (bomb->str, "alias expansion exceeds 1000000 nodes");
  g_string_free (bomb, TRUE);
}

static void
test_yaml_small_aliases_expand (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_value) v = load ("a: &x [1, 2]\nb: *x\n", &error);

  (void) state;
  assert_non_null (v);
  assert_int_equal (msperf_value_lookup (v, "b")->items->len, 2);
}

static void
test_yaml_empty_document_is_none (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_value) v = load ("# only a comment\n", &error);

  (void) state;
  assert_non_null (v);
  assert_int_equal (v->kind, MSPERF_VALUE_NONE);
}

static void
test_yaml_strict_helpers_report_key_and_value (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_value) v = load ("x: 1\ny: abc\nz: true\n", &error);
  int64_t i = 0;
  double d = 0;
  gboolean b = FALSE;
  const char *s = NULL;

  (void) state;
  assert_non_null (v);
  assert_true (msperf_yaml_get_int (v, "x", "t.yaml", &i, &error));
  assert_int_equal (i, 1);
  assert_true (msperf_yaml_get_bool (v, "z", "t.yaml", &b, &error));
  assert_true (b);
  assert_true (msperf_yaml_get_string (v, "absent", "t.yaml", &s, &error));
  assert_null (s);
  assert_false (msperf_yaml_get_double (v, "y", "t.yaml", &d, &error));
  assert_string_equal (error->message, "t.yaml:2: key 'y': expected a number, got 'abc'");
}

static void
test_yaml_missing_file_is_not_found (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_value) v = msperf_yaml_load_file ("/nonexistent/x.yaml", &error);

  (void) state;
  assert_null (v);
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND));
}

/* ------------------------------------------------------------------ policy */

/* Expected canonical JSON of the core's built-in defaults: the values of the brief / FORMATS
 * §3, keys sorted, no whitespace (worked out by hand). interpolation.modes and the attention
 * block are the modules' declarations, added at start (tests/engine/test_declarations.c). */
static const char defaults_json[] =
  "{\"analytic\":{\"device_profile\":null},"
  "\"interpolation\":{\"aggregate\":\"median\",\"allow_extrapolation\":false,"
  "\"enabled\":true,\"kernel_overrides\":{},\"max_interpolation_dim\":3},"
  "\"modules\":{},"
  "\"parallel\":{\"dp_size\":1,\"ep_size\":null,\"sequence_parallel\":false,\"tp_size\":1,"
  "\"world_size\":1}}";

static void
test_policy_defaults_canonical_json (void **state)
{
  g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
  g_autofree char *json = msperf_policy_canonical_json (p);
  g_autofree char *hash = msperf_policy_hash (p);
  g_autofree char *want = g_compute_checksum_for_string (G_CHECKSUM_SHA256, defaults_json, -1);

  (void) state;
  assert_string_equal (json, defaults_json);
  assert_string_equal (hash, want);
  assert_int_equal (strlen (hash), 64);
  assert_int_equal (msperf_policy_get (p, "parallel.ep_size")->kind, MSPERF_VALUE_NONE);
  assert_int_equal (msperf_policy_get (p, "interpolation.max_interpolation_dim")->i, 3);
  assert_null (msperf_policy_get (p, "interpolation.nope"));
}

static void
test_policy_default_yaml_equals_builtin_defaults (void **state)
{
  g_autoptr (msperf_policy) builtin = msperf_policy_new_defaults ();
  g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
  g_autoptr (msperf_policy) fresh = msperf_policy_new_defaults ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tu_srcdir_path ("policies/default.yaml");
  g_autofree char *h1 = msperf_policy_hash (builtin);
  g_autofree char *h2 = NULL;

  (void) state;
  assert_true (msperf_policy_merge_file (p, path, &error));
  h2 = msperf_policy_hash (p);
  assert_string_equal (h1, h2);
  assert_int_equal (msperf_policy_warnings (p)->len, 0);
  /* and every key of the defaults is written in the file (merging onto defaults cannot
   * tell a missing key apart): compare the file's own tree with the defaults' tree */
  {
    g_autoptr (msperf_value) tree = msperf_yaml_load_file (path, &error);
    g_autofree char *a = msperf_value_canonical_json (tree);
    g_autofree char *b = msperf_policy_canonical_json (fresh);
    assert_non_null (tree);
    assert_string_equal (a, b);
  }
}

static void
test_policy_unknown_key_is_an_error_with_its_line (void **state)
{
  g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tu_data_path ("policy/unknown-key.yaml");
  g_autofree char *want = g_strdup_printf ("%s:4: unknown key 'max_interp_dim' in 'interpolation'",
                                           path);
  g_autofree char *before = msperf_policy_hash (p);
  g_autofree char *after = NULL;

  (void) state;
  assert_false (msperf_policy_merge_file (p, path, &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID));
  assert_string_equal (error->message, want);
  after = msperf_policy_hash (p);
  assert_string_equal (before, after);   /* a failed merge changes nothing */
}

static void
test_policy_bad_number_is_an_error_with_its_line (void **state)
{
  g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tu_data_path ("policy/bad-number.yaml");
  g_autofree char *want = g_strdup_printf (
    "%s:5: key 'interpolation.kernel_overrides.MatMulV2.max_interpolation_dim': expected an "
    "integer from 1 to 4, got 'abc'", path);

  (void) state;
  assert_false (msperf_policy_merge_file (p, path, &error));
  assert_string_equal (error->message, want);
}

static void
test_policy_duplicate_and_merge_keys_are_errors (void **state)
{
  g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) error2 = NULL;
  g_autofree char *dup = tu_data_path ("policy/duplicate-key.yaml");
  g_autofree char *merge = tu_data_path ("policy/merge-key.yaml");
  g_autofree char *want = g_strdup_printf ("%s:4: duplicate key 'parallel'", dup);
  g_autofree char *want2 = g_strdup_printf ("%s:5: merge keys are not supported", merge);

  (void) state;
  assert_false (msperf_policy_merge_file (p, dup, &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE));
  assert_string_equal (error->message, want);
  assert_false (msperf_policy_merge_file (p, merge, &error2));
  assert_string_equal (error2->message, want2);
}

static void
test_policy_schema_rejects_wrong_types_and_ranges (void **state)
{
  static const struct { const char *text; const char *want; } cases[] = {
    { "interpolation: {max_interpolation_dim: 5}\n",
      "x.yaml:1: key 'interpolation.max_interpolation_dim': expected an integer from 1 to 4, got '5'" },
    { "interpolation: {aggregate: mode}\n",
      "x.yaml:1: key 'interpolation.aggregate': expected median or mean, got 'mode'" },
    { "interpolation:\n  modes: compute\n",
      "x.yaml:2: key 'interpolation.modes': expected a list of strings, got 'compute'" },
    { "parallel: {tp_size: 0}\n",
      "x.yaml:1: key 'parallel.tp_size': expected an integer >= 1, got '0'" },
    { "parallel: {ep_size: two}\n",
      "x.yaml:1: key 'parallel.ep_size': expected an integer >= 1 or null, got 'two'" },
    { "modules: {cast_att: {enabled: no}}\n",
      "x.yaml:1: key 'modules.cast_att.enabled': expected true or false, got 'no'" },
    { "interpolation:\n  kernel_overrides:\n    K: {axis_transform: log}\n",
      "x.yaml:3: key 'interpolation.kernel_overrides.K.axis_transform': expected sqrt_seq or linear, got 'log'" },
    { "analytic: {device_profile: 3}\n",
      "x.yaml:1: key 'analytic.device_profile': expected a string or null, got '3'" },
    { "colour: red\n", "x.yaml:1: unknown key 'colour'" },
    { "- a\n- b\n", "x.yaml:1: key '(top level)': expected a mapping, got a list" },
  };

  (void) state;
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
      g_autoptr (GError) error = NULL;
      assert_false (msperf_policy_merge_data (p, cases[k].text, "x.yaml", &error));
      assert_non_null (error);
      assert_string_equal (error->message, cases[k].want);
    }
}

static void
test_policy_hash_equal_for_equal_policies_and_changes_with_any_field (void **state)
{
  /* Every field of the schema, each set to a value different from its default. */
  static const char *const changes[][2] = {
    { "modules.cast_att.enabled", "false" },
    { "interpolation.enabled", "false" },
    { "interpolation.modes", "[compute]" },
    { "interpolation.max_interpolation_dim", "2" },
    { "interpolation.aggregate", "mean" },
    { "interpolation.allow_extrapolation", "true" },
    { "interpolation.kernel_overrides.MatMulV2.max_interpolation_dim", "1" },
    { "interpolation.kernel_overrides.MatMulV2.axis_transform", "linear" },
    { "interpolation.kernel_overrides.GatherV2.generic_compute.axis", "output_numel" },
    { "interpolation.kernel_overrides.K.axes", "[M]" },
    { "interpolation.kernel_overrides.K.exact_fields", "[dtype]" },
    { "interpolation.kernel_overrides.K.aggregate", "mean" },
    { "analytic.device_profile", "ascend-a3" },
    { "parallel.tp_size", "2" },
    { "parallel.ep_size", "8" },
    { "parallel.dp_size", "2" },
    { "parallel.world_size", "16" },
    { "parallel.sequence_parallel", "true" },
  };
  g_autoptr (msperf_policy) base = msperf_policy_new_defaults ();
  g_autofree char *base_hash = msperf_policy_hash (base);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  (void) state;
  g_hash_table_add (seen, g_strdup (base_hash));
  for (size_t k = 0; k < G_N_ELEMENTS (changes); k++)
    {
      g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
      g_autoptr (GError) error = NULL;
      char *hash;
      if (!msperf_policy_set (p, changes[k][0], changes[k][1], &error))
        fail_msg ("%s: %s", changes[k][0], error->message);
      hash = msperf_policy_hash (p);
      if (g_hash_table_contains (seen, hash))
        fail_msg ("changing %s did not change the hash", changes[k][0]);
      g_hash_table_add (seen, hash);
    }

  /* Equal effective policies, reached in different ways, hash alike. */
  {
    g_autoptr (msperf_policy) a = msperf_policy_new_defaults ();
    g_autoptr (msperf_policy) b = msperf_policy_new_defaults ();
    g_autoptr (GError) error = NULL;
    g_autofree char *ha = NULL, *hb = NULL;
    assert_true (msperf_policy_set (a, "parallel.tp_size", "4", &error));
    assert_true (msperf_policy_set (a, "interpolation.aggregate", "mean", &error));
    assert_true (msperf_policy_merge_data (b, "interpolation: {aggregate: mean}\n"
                                              "parallel: {tp_size: 2}\n", "b.yaml", &error));
    assert_true (msperf_policy_set (b, "parallel.tp_size", "4", &error));
    ha = msperf_policy_hash (a);
    hb = msperf_policy_hash (b);
    assert_string_equal (ha, hb);
  }
}

static void
test_policy_set_validates_like_a_file (void **state)
{
  g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (GError) e3 = NULL;

  (void) state;
  assert_false (msperf_policy_set (p, "parallel.tp_size", "0", &e1));
  assert_string_equal (e1->message,
                       "command line: key 'parallel.tp_size': expected an integer >= 1, got '0'");
  assert_false (msperf_policy_set (p, "parallel.tp", "2", &e2));
  assert_string_equal (e2->message, "command line: unknown key 'tp' in 'parallel'");
  assert_false (msperf_policy_set (p, "parallel..tp_size", "2", &e3));
  assert_true (msperf_policy_set (p, "parallel.ep_size", "null", &e3));
  assert_int_equal (msperf_policy_get (p, "parallel.ep_size")->kind, MSPERF_VALUE_NONE);
}

static void
test_policy_allow_extrapolation_is_accepted_without_a_warning (void **state)
{
  g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (GError) e3 = NULL;
  const GPtrArray *w;

  (void) state;
  assert_true (msperf_policy_merge_data (p,
                                         "interpolation:\n  allow_extrapolation: true\n"
                                         "  extrapolation: {strategy: marginal, max_ratio: 1.5,"
                                         " max_bound: {N: 16384}}\n"
                                         "  kernel_overrides:\n    MatMulV2:\n"
                                         "      allow_extrapolation: false\n"
                                         "      extrapolation: {max_ratio: 3}\n",
                                         "x.yaml", &error));
  w = msperf_policy_warnings (p);
  assert_int_equal (w->len, 0);
  assert_true (msperf_policy_get (p, "interpolation.allow_extrapolation")->b);
  assert_string_equal (msperf_policy_get (p, "interpolation.extrapolation.strategy")->s,
                       "marginal");
  /* Still does nothing where the same layer turns the stage off. */
  assert_true (msperf_policy_merge_data (p, "interpolation:\n  enabled: false\n"
                                         "  allow_extrapolation: true\n", "y.yaml", &error));
  assert_int_equal (w->len, 1);
  assert_non_null (strstr (g_ptr_array_index (w, 0), "y.yaml:3:"));
  assert_non_null (strstr (g_ptr_array_index (w, 0), "no effect while interpolation is disabled"));
  /* max_ratio must exceed 1; the strategy is one of two. */
  assert_false (msperf_policy_merge_data (p, "interpolation:\n  extrapolation: {max_ratio: 1}\n",
                                          "z.yaml", &e2));
  assert_non_null (strstr (e2->message, "expected a number > 1"));
  assert_false (msperf_policy_merge_data (p, "interpolation:\n  extrapolation: {strategy: x}\n",
                                          "z.yaml", &e3));
}

static void
test_policy_disable_att_example_disables_both_att_modules (void **state)
{
  g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tu_srcdir_path ("policies/examples/disable-att.yaml");
  g_autoptr (GHashTable) off = NULL;

  (void) state;
  assert_true (msperf_policy_merge_file (p, path, &error));
  off = msperf_policy_disabled_modules (p);
  assert_int_equal (g_hash_table_size (off), 2);
  assert_string_equal (g_hash_table_lookup (off, "broadcast_att"), "disabled by policy");
  assert_string_equal (g_hash_table_lookup (off, "cast_att"), "disabled by policy");
}

static void
test_policy_precedence_defaults_database_file_flags (void **state)
{
  g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
  g_autoptr (GError) error = NULL;
  g_autofree char *dbdir = tu_data_path ("database/ascend/vllm0.18.0_torch2.9.0_cann8.5");
  g_autofree char *file = tu_data_path ("policy/override.yaml");
  g_autoptr (msperf_database) db = msperf_database_open (dbdir, NULL, &error);
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  const char *k = "interpolation.kernel_overrides.MatMulV2.max_interpolation_dim";
  g_autoptr (GHashTable) off = NULL;

  (void) state;
  assert_non_null (db);
  assert_null (msperf_policy_get (p, k));                      /* defaults: no override */
  assert_true (msperf_policy_merge_database (p, db, warnings, &error));
  assert_int_equal (warnings->len, 0);
  assert_int_equal (msperf_policy_get (p, k)->i, 1);           /* 0.18 database: 1 */
  assert_string_equal (msperf_policy_get (p, "interpolation.kernel_overrides."
                                             "FusedInferAttentionScore.axis_transform")->s,
                       "sqrt_seq");
  assert_true (msperf_policy_merge_file (p, file, &error));
  assert_int_equal (msperf_policy_get (p, k)->i, 2);           /* --policy file: 2 */
  /* deep merge: the database's other overrides survive the file */
  assert_string_equal (msperf_policy_get (p, "interpolation.kernel_overrides."
                                             "GatherV2.generic_compute.axis")->s,
                       "output_numel");
  assert_int_equal (msperf_policy_get (p, "parallel.tp_size")->i, 4);
  assert_true (msperf_policy_set (p, k, "3", &error));
  assert_true (msperf_policy_set (p, "parallel.tp_size", "8", &error));
  assert_int_equal (msperf_policy_get (p, k)->i, 3);           /* flags win */
  assert_int_equal (msperf_policy_get (p, "parallel.tp_size")->i, 8);
  off = msperf_policy_disabled_modules (p);
  assert_true (g_hash_table_contains (off, "broadcast_att"));
  /* lists replace rather than append */
  assert_true (msperf_policy_set (p, "interpolation.modes", "[compute]", &error));
  assert_int_equal (msperf_policy_get (p, "interpolation.modes")->items->len, 1);
}

static void
test_policy_database_unknown_keys_are_warnings (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("msperf-policy-XXXXXX", &error);
  g_autofree char *yaml = g_build_filename (dir, "op_mapping.yaml", NULL);
  g_autoptr (msperf_database) db = NULL;
  g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);

  (void) state;
  assert_non_null (dir);
  assert_true (g_file_set_contents (yaml,
                                    "interpolation_policy:\n"
                                    "  future_knob: 1\n"
                                    "  kernel_overrides:\n"
                                    "    MatMulV2: {max_interpolation_dim: 1, new_key: x}\n"
                                    "    Bad: {max_interpolation_dim: 9}\n"
                                    "operator_mappings: {}\n", -1, &error));
  db = msperf_database_open (dir, NULL, &error);
  assert_non_null (db);
  assert_true (msperf_policy_merge_database (p, db, warnings, &error));
  assert_int_equal (warnings->len, 3);
  assert_non_null (strstr (g_ptr_array_index (warnings, 0),
                           ":2: unknown key 'future_knob' in 'interpolation_policy'"));
  assert_non_null (strstr (g_ptr_array_index (warnings, 1), ":4: unknown key 'new_key'"));
  assert_non_null (strstr (g_ptr_array_index (warnings, 2), ":5: key "));
  assert_int_equal (msperf_policy_get (p, "interpolation.kernel_overrides.MatMulV2."
                                          "max_interpolation_dim")->i, 1);
  assert_null (msperf_policy_get (p, "interpolation.kernel_overrides.Bad.max_interpolation_dim"));
  tu_rm_tree (dir);
}

static void
test_canonical_json_numbers_and_strings (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_value) v = load ("b: 0.1\na: 2.0\nc: 1e21\nd: \"q\\\"\\\\\\n\\u0001é\"\n"
                                     "e: -0.0\nf: 123456789012345678\ng: 0.30000000000000004\n",
                                     &error);
  g_autofree char *json = NULL;

  (void) state;
  assert_non_null (v);
  json = msperf_value_canonical_json (v);
  /* shortest round-trip doubles; integers as integers; JSON escapes; UTF-8 unescaped */
  assert_string_equal (json, "{\"a\":2,\"b\":0.1,\"c\":1e+21,\"d\":\"q\\\"\\\\\\n\\u0001é\","
                             "\"e\":-0,\"f\":123456789012345678,\"g\":0.30000000000000004}");
}

/* ------------------------------------------------------------------ declared blocks */

/* A block a module declares (as its descriptor's policy_schema would): kept aside while the
 * layers merge, validated and merged at seal, its defaults below every layer. */
static const char fake_schema[] =
  "interpolation.fake:\n"
  "  level: {type: integer, min: 1, max: 5, default: 2}\n"
  "  mode: {type: choice, choices: [a, b], default: a}\n"
  "  ratio: {type: number, min: 0, max: 1, nullable: true}\n"
  "  names: {type: strings}\n"
  "  flag: {type: bool}\n";

static void
test_policy_declared_block_merges_over_its_defaults (void **state)
{
  g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
  g_autoptr (GError) error = NULL;
  int64_t level = 0;

  (void) state;
  assert_true (msperf_policy_merge_data (p, "interpolation:\n  fake: {level: 3}\n", "x.yaml",
                                         &error));
  assert_true (msperf_policy_set (p, "interpolation.fake.flag", "true", &error));
  /* not merged until sealed: a block is checked against its declaration */
  assert_null (msperf_policy_get (p, "interpolation.fake"));
  assert_true (msperf_policy_declare (p, "fake_module", fake_schema, &error));
  assert_true (msperf_policy_seal (p, NULL, &error));
  assert_true (msperf_value_get_int (msperf_policy_get (p, "interpolation.fake.level"), &level));
  assert_int_equal (level, 3);
  assert_string_equal (msperf_value_get_string (msperf_policy_get (p, "interpolation.fake.mode")),
                       "a");
  assert_true (msperf_policy_get (p, "interpolation.fake.flag")->b);
  assert_null (msperf_policy_get (p, "interpolation.fake.ratio"));
  /* sealed: a value set now is validated at once */
  assert_true (msperf_policy_set (p, "interpolation.fake.mode", "b", &error));
  assert_false (msperf_policy_set (p, "interpolation.fake.level", "0", &error));
  assert_string_equal (error->message, "command line: key 'interpolation.fake.level': expected "
                                       "an integer from 1 to 5, got '0'");
}

static void
test_policy_declared_block_errors_name_the_layer (void **state)
{
  g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
  g_autoptr (msperf_policy) q = msperf_policy_new_defaults ();
  g_autoptr (msperf_policy) r = msperf_policy_new_defaults ();
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (GError) e3 = NULL;
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);

  (void) state;
  assert_true (msperf_policy_merge_data (p, "interpolation:\n  fake:\n    mode: c\n", "x.yaml",
                                         &e1));
  assert_true (msperf_policy_declare (p, "fake_module", fake_schema, &e1));
  assert_false (msperf_policy_seal (p, NULL, &e1));
  assert_string_equal (e1->message, "x.yaml:3: key 'interpolation.fake.mode': expected a or b, "
                                    "got 'c'");
  /* nobody declares it: an unknown key, as for the core's own keys */
  assert_true (msperf_policy_merge_data (q, "interpolation:\n  other: {x: 1}\n", "y.yaml", &e2));
  assert_true (msperf_policy_seal (q, warnings, &e2) == FALSE);
  assert_string_equal (e2->message, "y.yaml:2: unknown key 'other' in 'interpolation'");
  /* an unknown key inside the declared block */
  assert_true (msperf_policy_merge_data (r, "interpolation: {fake: {colour: red}}\n", "z.yaml",
                                         &e3));
  assert_true (msperf_policy_declare (r, "fake_module", fake_schema, &e3));
  assert_false (msperf_policy_seal (r, NULL, &e3));
  assert_string_equal (e3->message, "z.yaml:1: unknown key 'colour' in 'interpolation.fake'");
}

static void
test_policy_bad_declarations_are_refused (void **state)
{
  static const struct { const char *text; const char *want; } cases[] = {
    { "interpolation.modes:\n  x: {type: bool}\n",
      "module m: policy_schema:2: block 'interpolation.modes' is already declared by the core" },
    { "interpolation.fake:\n  x: {type: bool}\n",
      "module m: policy_schema:2: block 'interpolation.fake' is already declared by fake_module" },
    { "parallel.fake:\n  x: {type: bool}\n",
      "module m: policy_schema:2: block 'parallel.fake': a module declares interpolation.<name> "
      "blocks only" },
    { "interpolation.other:\n  x: {type: colour}\n",
      "module m: policy_schema:2: key 'interpolation.other.x.type': expected bool, integer, "
      "number, choice, string or strings" },
    { "interpolation.other:\n  x: {type: integer, min: 1, default: 0}\n",
      "module m: policy_schema:2: key 'interpolation.other.x': expected an integer >= 1, got '0'" },
  };

  (void) state;
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
      g_autoptr (GError) error = NULL;

      assert_true (msperf_policy_declare (p, "fake_module", fake_schema, &error));
      assert_false (msperf_policy_declare (p, "m", cases[k].text, &error));
      assert_string_equal (error->message, cases[k].want);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_yaml_scalars_resolve_by_plain_style_only),
    cmocka_unit_test (test_yaml_errors_name_file_and_line),
    cmocka_unit_test (test_yaml_quoted_merge_key_is_an_ordinary_key),
    cmocka_unit_test (test_yaml_nesting_deeper_than_64_is_refused),
    cmocka_unit_test (test_yaml_alias_bomb_is_refused_before_expansion),
    cmocka_unit_test (test_yaml_small_aliases_expand),
    cmocka_unit_test (test_yaml_empty_document_is_none),
    cmocka_unit_test (test_yaml_strict_helpers_report_key_and_value),
    cmocka_unit_test (test_yaml_missing_file_is_not_found),
    cmocka_unit_test (test_policy_defaults_canonical_json),
    cmocka_unit_test (test_policy_default_yaml_equals_builtin_defaults),
    cmocka_unit_test (test_policy_unknown_key_is_an_error_with_its_line),
    cmocka_unit_test (test_policy_bad_number_is_an_error_with_its_line),
    cmocka_unit_test (test_policy_duplicate_and_merge_keys_are_errors),
    cmocka_unit_test (test_policy_schema_rejects_wrong_types_and_ranges),
    cmocka_unit_test (test_policy_hash_equal_for_equal_policies_and_changes_with_any_field),
    cmocka_unit_test (test_policy_set_validates_like_a_file),
    cmocka_unit_test (test_policy_allow_extrapolation_is_accepted_without_a_warning),
    cmocka_unit_test (test_policy_disable_att_example_disables_both_att_modules),
    cmocka_unit_test (test_policy_precedence_defaults_database_file_flags),
    cmocka_unit_test (test_policy_database_unknown_keys_are_warnings),
    cmocka_unit_test (test_canonical_json_numbers_and_strings),
    cmocka_unit_test (test_policy_declared_block_merges_over_its_defaults),
    cmocka_unit_test (test_policy_declared_block_errors_name_the_layer),
    cmocka_unit_test (test_policy_bad_declarations_are_refused),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
