/* Tests of what modules declare and the core applies at start (core/engine/declarations.c):
 * the interpolation.<name> policy blocks, the default interpolation.modes, the collective
 * kernel prefixes. The shipped modules keep the effective policy (and its hash) of the
 * built-in policy; a fake module (tests/fake/fake_plugin.c, FAKE_KIND 6) declaring a block, a
 * prefix and a default-interpolated mode of its own is honoured without a core change. */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <glib/gstdio.h>
#include <msperf/plugin.h>
#include <msperf/details.h>
#include "common/test_util.h"
#include "engine/policy.h"

/* The effective policy of the shipped modules with no database, no --policy and no override:
 * the built-in policy's canonical JSON as it was when the core wrote modes and the attention
 * block itself (tests/engine/test_policy.c carried it by hand), so its hash is unchanged. */
static const char shipped_json[] =
  "{\"analytic\":{\"device_profile\":null},"
  "\"interpolation\":{\"aggregate\":\"median\",\"allow_extrapolation\":false,"
  "\"attention\":{\"query_length_rule\":\"per_sequence\",\"sparse_mode_default\":null},"
  "\"enabled\":true,\"kernel_overrides\":{},\"max_interpolation_dim\":3,"
  "\"modes\":[\"compute\",\"attention_special\"]},"
  "\"modules\":{},"
  "\"parallel\":{\"dp_size\":1,\"ep_size\":null,\"sequence_parallel\":false,\"tp_size\":1,"
  "\"world_size\":1}}";

static const char *
env (const char *name)
{
  const char *v = g_getenv (name);

  if (v == NULL)
    fail_msg ("%s is not set (run through make check)", name);
  return v;
}

/* An engine on the shipped modules (no database); policy_text, when given, is a --policy
 * file. Returns NULL with *error when start fails. */
static msperf_engine *
shipped_engine (const char *policy_text, const char *const *overrides, GError **error)
{
  g_autoptr (msperf_engine) e = msperf_engine_new ();
  g_autofree char *path = NULL;

  msperf_engine_set_plugin_search_defaults (e, FALSE);
  msperf_engine_add_plugin_dir (e, env ("MSPERF_TEST_PLUGINDIR"));
  if (policy_text != NULL)
    {
      int fd = g_file_open_tmp ("msperf-decl-XXXXXX.yaml", &path, error);
      if (fd < 0)
        return NULL;
      close (fd);
      if (!g_file_set_contents (path, policy_text, -1, error)
          || !msperf_engine_load_policy (e, path, error))
        {
          g_unlink (path);
          return NULL;
        }
    }
  for (const char *const *kv = overrides; kv && kv[0]; kv += 2)
    if (!msperf_engine_set_override (e, kv[0], kv[1], error))
      return NULL;
  if (!msperf_engine_start (e, error))
    {
      if (path)
        g_unlink (path);
      return NULL;
    }
  if (path)
    g_unlink (path);
  return g_steal_pointer (&e);
}

static char *
list_json (msperf_engine *e, const char *path)
{
  return msperf_value_canonical_json (msperf_engine_policy_value (e, path));
}

static void
test_shipped_modules_keep_the_builtin_policy_and_hash (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_engine) e = shipped_engine (NULL, NULL, &error);
  g_autofree char *want = g_compute_checksum_for_string (G_CHECKSUM_SHA256, shipped_json, -1);

  (void) state;
  if (e == NULL)
    fail_msg ("%s", error->message);
  assert_string_equal (msperf_engine_policy_json (e), shipped_json);
  assert_string_equal (msperf_engine_policy_hash (e), want);
  /* the hash the saved answers carry for a database without interpolation_policy */
  assert_string_equal (want, "3cd77ebb58ce7f6f1ee36c20474bfa2e69863454107c0fd11636dbfd2cc2158f");
}

/* policies/default.yaml spells the built-in policy out: loading it changes nothing. */
static void
test_default_yaml_loaded_changes_nothing (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tu_srcdir_path ("policies/default.yaml");
  g_autofree char *text = NULL;
  g_autoptr (msperf_engine) e = NULL;

  (void) state;
  assert_true (g_file_get_contents (path, &text, NULL, &error));
  e = shipped_engine (text, NULL, &error);
  if (e == NULL)
    fail_msg ("%s", error->message);
  assert_string_equal (msperf_engine_policy_json (e), shipped_json);
}

/* A policy's own modes replace the declared list; the attention block validates and merges
 * over the declared defaults. */
static void
test_policy_values_override_declared_defaults (void **state)
{
  static const char *const ov[] = { "interpolation.modes", "[compute]",
                                    "interpolation.attention.sparse_mode_default", "3", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_engine) e = shipped_engine (
    "interpolation:\n  attention:\n    query_length_rule: literal_tokens\n", ov, &error);
  g_autofree char *modes = NULL;
  int64_t mode = 0;

  (void) state;
  if (e == NULL)
    fail_msg ("%s", error->message);
  modes = list_json (e, "interpolation.modes");
  assert_string_equal (modes, "[\"compute\"]");
  assert_string_equal (msperf_value_get_string (msperf_engine_policy_value (
                         e, "interpolation.attention.query_length_rule")), "literal_tokens");
  assert_true (msperf_value_get_int (msperf_engine_policy_value (
                 e, "interpolation.attention.sparse_mode_default"), &mode));
  assert_int_equal (mode, 3);
  assert_null (msperf_engine_policy_value (e, "interpolation.attention.mha_heads_axis"));
}

/* A bad value in a declared block of a --policy file is that file's error, at start, with the
 * message the core's own keys give. */
static void
test_declared_block_is_validated_with_file_and_line (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_engine) e
    = shipped_engine ("interpolation:\n  attention:\n    query_length_rule: sideways\n", NULL,
                      &error);

  (void) state;
  assert_null (e);
  assert_non_null (error);
  assert_non_null (strstr (error->message, ".yaml:3: key 'interpolation.attention."
                                           "query_length_rule': expected per_sequence or "
                                           "literal_tokens, got 'sideways'"));
}

/* A block nobody declares is an unknown key, as before modules declared blocks. */
static void
test_undeclared_block_is_an_unknown_key (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_engine) e
    = shipped_engine ("interpolation:\n  nobody: {x: 1}\n", NULL, &error);

  (void) state;
  assert_null (e);
  assert_non_null (strstr (error->message, ".yaml:2: unknown key 'nobody' in 'interpolation'"));
}

static void
test_shipped_collective_prefix_is_the_communication_modules (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_engine) e = shipped_engine (NULL, NULL, &error);
  const char *const *prefixes;

  (void) state;
  if (e == NULL)
    fail_msg ("%s", error->message);
  assert_true (msperf_engine_kernel_is_collective (e, "hcom_allReduce_"));
  assert_false (msperf_engine_kernel_is_collective (e, "MatMulV2"));
  prefixes = msperf_engine_collective_prefixes (e);
  assert_string_equal (prefixes[0], "hcom_");
  assert_null (prefixes[1]);
}

/* ------------------------------------------------------------------ a fake module */

/* An engine loading only the fake module that declares everything (copied alone into a
 * temporary directory, so the other fakes' rejections stay out). */
static msperf_engine *
fake_engine_on (const char *db, const char *const *overrides, char **dir_out, GError **error);

static msperf_engine *
fake_engine (const char *const *overrides, char **dir_out, GError **error)
{
  return fake_engine_on (NULL, overrides, dir_out, error);
}

/* The same on the database tests/data/DB when db is not NULL. */
static msperf_engine *
fake_engine_on (const char *db, const char *const *overrides, char **dir_out, GError **error)
{
  g_autoptr (msperf_engine) e = msperf_engine_new ();
  g_autofree char *src = g_build_filename (env ("MSPERF_TEST_FAKEDIR"),
                                           "msperf_fake_declares.so", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *dst = NULL;
  char *dir = g_dir_make_tmp ("msperf-decl-XXXXXX", error);
  gsize len = 0;

  *dir_out = dir;
  if (dir == NULL || !g_file_get_contents (src, &contents, &len, error))
    return NULL;
  dst = g_build_filename (dir, "msperf_fake_declares.so", NULL);
  if (!g_file_set_contents_full (dst, contents, (gssize) len, G_FILE_SET_CONTENTS_NONE, 0755,
                                 error))
    return NULL;
  msperf_engine_set_plugin_search_defaults (e, FALSE);
  msperf_engine_add_plugin_dir (e, dir);
  for (const char *const *kv = overrides; kv && kv[0]; kv += 2)
    if (!msperf_engine_set_override (e, kv[0], kv[1], error))
      return NULL;
  if (db != NULL)
    {
      g_autofree char *path = tu_data_path (db);
      if (!msperf_engine_open_database (e, path, NULL, error))
        return NULL;
    }
  if (!msperf_engine_start (e, error))
    return NULL;
  return g_steal_pointer (&e);
}

static void
remove_fake_dir (char *dir)
{
  g_autofree char *so = g_build_filename (dir, "msperf_fake_declares.so", NULL);

  g_unlink (so);
  g_rmdir (dir);
  g_free (dir);
}

static void
test_fake_module_declarations_are_honoured (void **state)
{
  g_autoptr (GError) error = NULL;
  char *dir = NULL;
  g_autoptr (msperf_engine) e = fake_engine (NULL, &dir, &error);
  g_autofree char *modes = NULL;
  g_autofree char *block = NULL;

  (void) state;
  if (e == NULL)
    fail_msg ("%s", error->message);
  assert_true (msperf_engine_has_module (e, "fake_declares"));
  /* its default-interpolated mode is the whole default list: no mode is named by the core */
  modes = list_json (e, "interpolation.modes");
  assert_string_equal (modes, "[\"fake_declares\"]");
  /* its block, with the declared defaults (extra has none: absent) */
  block = list_json (e, "interpolation.fake_block");
  assert_string_equal (block, "{\"level\":2,\"style\":\"plain\"}");
  /* the shipped modules' declarations are not there */
  assert_null (msperf_engine_policy_value (e, "interpolation.attention"));
  /* its collective prefix, and no other */
  assert_true (msperf_engine_kernel_is_collective (e, "fakecomm_allReduce"));
  assert_false (msperf_engine_kernel_is_collective (e, "hcom_allReduce_"));
  remove_fake_dir (dir);
}

static void
test_fake_module_block_is_validated (void **state)
{
  static const char *const ok[] = { "interpolation.fake_block.style", "fancy",
                                    "interpolation.fake_block.extra", "true", NULL };
  static const char *const bad[] = { "interpolation.fake_block.level", "9", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) error2 = NULL;
  char *dir = NULL, *dir2 = NULL;
  g_autoptr (msperf_engine) e = fake_engine (ok, &dir, &error);
  g_autoptr (msperf_engine) e2 = NULL;
  g_autofree char *block = NULL;

  (void) state;
  if (e == NULL)
    fail_msg ("%s", error->message);
  block = list_json (e, "interpolation.fake_block");
  assert_string_equal (block, "{\"extra\":true,\"level\":2,\"style\":\"fancy\"}");
  e2 = fake_engine (bad, &dir2, &error2);
  assert_null (e2);
  assert_string_equal (error2->message, "command line: key 'interpolation.fake_block.level': "
                                        "expected an integer from 1 to 5, got '9'");
  remove_fake_dir (dir);
  remove_fake_dir (dir2);
}

/* Parts of a module declaring semantic_key_rule are recorded under its rule with no shapes,
 * and a miss of one fails the whole op with "<rule>_sub_kernel_miss" (no PARTIAL). */
static void
test_fake_semantic_key_rule_is_honoured (void **state)
{
  g_autoptr (GError) error = NULL;
  char *dir = NULL;
  g_autoptr (msperf_engine) e = fake_engine_on ("fake-keyed", NULL, &dir, &error);
  g_autoptr (msperf_result) hit = NULL;
  g_autoptr (msperf_result) miss = NULL;
  g_autoptr (GString) json = g_string_new (NULL);

  (void) state;
  if (e == NULL)
    fail_msg ("%s", error->message);
  hit = tu_run (e, tu_op ("fake.keyed_hit.default"));
  tu_assert_source (hit, MSPERF_SOURCE_MEASURED);
  assert_true (hit->latency_us == 84.0);
  msperf_result_details_json (hit, json, NULL, NULL);
  assert_non_null (strstr (json->str, "\"fake_rule\""));
  assert_null (strstr (json->str, "\"unknown\""));
  miss = tu_run (e, tu_op ("fake.keyed_miss.default"));
  assert_int_not_equal (miss->source, MSPERF_SOURCE_PARTIAL);
  assert_non_null (miss->miss_reason);
  assert_string_equal (miss->miss_reason,
                       "fake_rule_sub_kernel_miss:FakeMiss:no_row;semantic_key=k=1;dtype=?");
  remove_fake_dir (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_shipped_modules_keep_the_builtin_policy_and_hash),
    cmocka_unit_test (test_default_yaml_loaded_changes_nothing),
    cmocka_unit_test (test_policy_values_override_declared_defaults),
    cmocka_unit_test (test_declared_block_is_validated_with_file_and_line),
    cmocka_unit_test (test_undeclared_block_is_an_unknown_key),
    cmocka_unit_test (test_shipped_collective_prefix_is_the_communication_modules),
    cmocka_unit_test (test_fake_module_declarations_are_honoured),
    cmocka_unit_test (test_fake_module_block_is_validated),
    cmocka_unit_test (test_fake_semantic_key_rule_is_honoured),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
