/* Tests of core/registry.c: discovery, the rejection rules of ARCHITECTURE.md § Module ABI
 * ("Loading") and the search path. The fake modules come from tests/fake/fake_plugin.c, built by
 * `make check` (check_LTLIBRARIES in Makefile.am). */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <cmocka.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "engine/registry.h"

/* Warning and critical messages seen since the last reset. The GLib writer is per process, so
 * this is the one piece of file-level state: set once in main, cleared by each test. */
static GPtrArray *captured;

static GLogWriterOutput
capture_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
  (void) data;
  if ((level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) == 0)
    return G_LOG_WRITER_HANDLED;
  for (gsize i = 0; i < n_fields; i++)
    if (strcmp (fields[i].key, "MESSAGE") == 0)
      {
        char *msg = fields[i].length < 0 ? g_strdup (fields[i].value)
                                         : g_strndup (fields[i].value, (gsize) fields[i].length);

        /* Kept in the test log for whoever reads a failure. */
        fprintf (stderr, "# warning: %s\n", msg);
        g_ptr_array_add (captured, msg);
      }
  return G_LOG_WRITER_HANDLED;
}

static int
reset_log (void **state)
{
  (void) state;
  g_ptr_array_set_size (captured, 0);
  return 0;
}

static const char *
env (const char *name)
{
  const char *v = g_getenv (name);

  if (v == NULL || *v == '\0')
    fail_msg ("%s is not set: run this test through `make check`", name);
  return v;
}

static const msperf_plugin_info *
find_info (msperf_registry *reg, const char *name)
{
  const GPtrArray *infos = msperf_registry_infos (reg);

  for (guint i = 0; i < infos->len; i++)
    {
      const msperf_plugin_info *info = g_ptr_array_index (infos, i);

      if (strcmp (info->name, name) == 0)
        return info;
    }
  fail_msg ("no module info named %s", name);
  abort (); /* not reached: tells the compiler the result is never NULL */
}

static const msperf_plugin_info *
info_at (msperf_registry *reg, guint i)
{
  const GPtrArray *infos = msperf_registry_infos (reg);

  assert_true (i < infos->len);
  return g_ptr_array_index (infos, i);
}

static msperf_registry *
load_dirs (const char *const *dirs, GHashTable *disabled)
{
  msperf_registry *reg = msperf_registry_new ();

  msperf_registry_load (reg, dirs, disabled, NULL);
  return reg;
}

/* Loads the build tree's directory of fake .la modules. */
static msperf_registry *
load_fakes (void)
{
  const char *dirs[] = { env ("MSPERF_TEST_FAKELA"), NULL };

  return load_dirs (dirs, NULL);
}

static char *
make_tmp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("msperf-registry-XXXXXX", &error);

  assert_non_null (dir);
  return dir;
}

static void
remove_tree (const char *path)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0)
    return;
  if (S_ISDIR (st.st_mode))
    {
      GDir *d = g_dir_open (path, 0, NULL);
      const char *entry;

      while (d != NULL && (entry = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, entry, NULL);

          remove_tree (child);
        }
      if (d != NULL)
        g_dir_close (d);
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

/* Copies a fake module's real shared object into dir under file_name. */
static char *
copy_fake_so (const char *stem, const char *dir, const char *file_name)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *src_name = g_strconcat ("msperf_", stem, ".so", NULL);
  g_autofree char *src = g_build_filename (env ("MSPERF_TEST_FAKEDIR"), src_name, NULL);
  g_autofree char *contents = NULL;
  char *dst = g_build_filename (dir, file_name, NULL);
  gsize len = 0;

  if (!g_file_get_contents (src, &contents, &len, &error))
    fail_msg ("%s", error->message);
  if (!g_file_set_contents_full (dst, contents, (gssize) len, G_FILE_SET_CONTENTS_NONE, 0755,
                                 &error))
    fail_msg ("%s", error->message);
  return dst;
}

static void
assert_rejected (const msperf_plugin_info *info, const char *reason)
{
  assert_non_null (info);
  assert_int_equal (info->status, MSPERF_PLUGIN_REJECTED);
  assert_non_null (info->reason);
  assert_string_equal (info->reason, reason);
}

static void
assert_good_loaded (msperf_registry *reg)
{
  const msperf_plugin_info *info = find_info (reg, "fake_good");
  void *state = NULL;

  assert_non_null (info);
  assert_int_equal (info->status, MSPERF_PLUGIN_LOADED);
  assert_non_null (msperf_registry_lookup (reg, "fake_good", &state));
  /* fake_init stores this string (tests/fake/fake_plugin.c). */
  assert_string_equal (state, "fake state");
}

static gboolean
captured_contains (const char *needle)
{
  for (guint i = 0; i < captured->len; i++)
    if (strstr (g_ptr_array_index (captured, i), needle) != NULL)
      return TRUE;
  return FALSE;
}

/* ------------------------------------------------------------------------------------------ */

static void
test_registry_good_fake_loads_with_its_descriptor (void **state)
{
  msperf_registry *reg = load_fakes ();
  const msperf_plugin_info *info = find_info (reg, "fake_good");
  const msperf_plugin *p;

  (void) state;
  assert_good_loaded (reg);
  /* Values of the descriptor in tests/fake/fake_plugin.c (FAKE_KIND 0). */
  assert_string_equal (info->version, "9.9.9");
  assert_string_equal (info->description, "fake module for loader tests");
  assert_string_equal (info->capabilities, "lookup,decompose");
  assert_null (info->reason);
  /* The directory holds only .la files (the objects are in .libs): the .la is the candidate. */
  assert_true (g_path_is_absolute (info->file));
  assert_true (g_str_has_suffix (info->file, "/msperf_fake_good.la"));
  p = msperf_registry_lookup (reg, "fake_good", NULL);
  assert_non_null (p);
  assert_string_equal (p->name, "fake_good");
  msperf_registry_free (reg);
}

static void
test_registry_wrong_abi_is_rejected_naming_both_versions (void **state)
{
  msperf_registry *reg = load_fakes ();

  (void) state;
  /* fake_plugin.c FAKE_KIND 1 exports abi = MSPERF_PLUGIN_ABI + 41 = 42. The name is the file
   * stem: nothing past abi/size is trusted in a foreign layout. */
  assert_rejected (find_info (reg, "fake_bad_abi"), "ABI 43, expected 2");
  assert_null (msperf_registry_lookup (reg, "fake_bad_abi", NULL));
  assert_good_loaded (reg);
  msperf_registry_free (reg);
}

static void
test_registry_small_descriptor_is_rejected (void **state)
{
  msperf_registry *reg = load_fakes ();
  g_autofree char *expected = g_strdup_printf ("descriptor size 16 smaller than %zu",
                                               sizeof (msperf_plugin));

  (void) state;
  /* FAKE_KIND 2 declares .size = 16. */
  assert_rejected (find_info (reg, "fake_small"), expected);
  assert_null (msperf_registry_lookup (reg, "fake_small", NULL));
  assert_good_loaded (reg);
  msperf_registry_free (reg);
}

static void
test_registry_missing_symbol_is_rejected (void **state)
{
  msperf_registry *reg = load_fakes ();
  const msperf_plugin_info *info = find_info (reg, "fake_no_symbol");

  (void) state;
  assert_rejected (info, "missing symbol msperf_plugin_v1");
  assert_string_equal (info->capabilities, "");
  assert_good_loaded (reg);
  msperf_registry_free (reg);
}

static void
test_registry_failing_init_is_rejected_with_its_message (void **state)
{
  msperf_registry *reg = load_fakes ();
  const msperf_plugin_info *info = find_info (reg, "fake_init_fail");

  (void) state;
  /* FAKE_KIND 4: init sets "fake init failure" and returns FALSE; the descriptor was valid,
   * so its name (not the stem "fake_init_fail" — the same text here) and version are known. */
  assert_rejected (info, "fake init failure");
  assert_string_equal (info->version, "9.9.9");
  assert_null (msperf_registry_lookup (reg, "fake_init_fail", NULL));
  assert_good_loaded (reg);
  msperf_registry_free (reg);
}

static void
test_registry_each_rejection_is_one_warning_naming_the_file (void **state)
{
  msperf_registry *reg = load_fakes ();
  const GPtrArray *infos = msperf_registry_infos (reg);

  (void) state;
  /* Seven fakes: good, bad_abi, small, no_symbol, init_fail, newer_minor, declares; five are
   * rejected. */
  assert_int_equal (infos->len, 7);
  assert_int_equal (captured->len, 5);
  assert_true (captured_contains ("msperf_fake_newer_minor.la: module rejected: ABI 2.3 is newer "
                                  "than this msperf's 2.2"));
  assert_true (captured_contains ("msperf_fake_bad_abi.la: module rejected: ABI 43, expected 2"));
  assert_true (captured_contains ("msperf_fake_small.la: module rejected: descriptor size 16"));
  assert_true (captured_contains ("msperf_fake_no_symbol.la: module rejected: missing symbol"));
  assert_true (captured_contains ("msperf_fake_init_fail.la: module rejected: fake init failure"));
  /* Discovery order is sorted by file name. */
  assert_string_equal (info_at (reg, 0)->name, "fake_bad_abi");
  assert_string_equal (info_at (reg, 1)->name, "fake_declares");
  assert_string_equal (info_at (reg, 2)->name, "fake_good");
  msperf_registry_free (reg);
}

static void
test_registry_duplicate_name_in_one_dir_rejects_the_second (void **state)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *first = copy_fake_so ("fake_good", dir, "msperf_fake_good.so");
  g_autofree char *second = copy_fake_so ("fake_good", dir, "msperf_fake_good2.so");
  g_autofree char *expected = g_strdup_printf ("duplicate module name 'fake_good' in %s "
                                               "(already loaded from %s)", dir, first);
  const char *dirs[] = { dir, NULL };
  msperf_registry *reg = load_dirs (dirs, NULL);

  (void) state;
  assert_int_equal (msperf_registry_infos (reg)->len, 2);
  assert_int_equal (info_at (reg, 0)->status, MSPERF_PLUGIN_LOADED);
  assert_string_equal (info_at (reg, 0)->file, first);
  assert_string_equal (info_at (reg, 1)->file, second);
  assert_rejected (info_at (reg, 1), expected);
  assert_int_equal (captured->len, 1);
  assert_good_loaded (reg);
  msperf_registry_free (reg);
  remove_tree (dir);
}

static void
test_registry_same_name_in_later_dir_is_skipped_quietly (void **state)
{
  g_autofree char *dir_a = make_tmp_dir ();
  g_autofree char *dir_b = make_tmp_dir ();
  g_autofree char *in_a = copy_fake_so ("fake_good", dir_a, "msperf_fake_good.so");
  g_autofree char *in_b = copy_fake_so ("fake_good", dir_b, "msperf_fake_good.so");
  g_autofree char *expected = g_strdup_printf ("shadowed by %s", in_a);
  const char *dirs[] = { dir_a, dir_b, NULL };
  msperf_registry *reg = load_dirs (dirs, NULL);
  const msperf_plugin_info *skipped;

  (void) state;
  assert_int_equal (msperf_registry_infos (reg)->len, 2);
  assert_int_equal (info_at (reg, 0)->status, MSPERF_PLUGIN_LOADED);
  skipped = info_at (reg, 1);
  assert_string_equal (skipped->file, in_b);
  assert_int_equal (skipped->status, MSPERF_PLUGIN_SKIPPED);
  assert_string_equal (skipped->reason, expected);
  assert_string_equal (skipped->name, "fake_good");
  assert_int_equal (captured->len, 0);
  assert_good_loaded (reg);
  msperf_registry_free (reg);
  remove_tree (dir_a);
  remove_tree (dir_b);
}

static void
test_registry_non_regular_and_junk_files_are_rejected (void **state)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *good = copy_fake_so ("fake_good", dir, "msperf_fake_good.so");
  g_autofree char *subdir = g_build_filename (dir, "msperf_dir.so", NULL);
  g_autofree char *fifo = g_build_filename (dir, "msperf_fifo.so", NULL);
  g_autofree char *junk = g_build_filename (dir, "msperf_junk.so", NULL);
  g_autofree char *other = g_build_filename (dir, "readme.so", NULL);
  g_autofree char *bogus_la = g_build_filename (dir, "msperf_bogus.la", NULL);
  const char *dirs[] = { dir, NULL };
  const msperf_plugin_info *info;
  msperf_registry *reg;

  (void) state;
  assert_int_equal (g_mkdir (subdir, 0755), 0);
  assert_int_equal (mkfifo (fifo, 0644), 0);
  assert_true (g_file_set_contents (junk, "not an ELF object\n", -1, NULL));
  assert_true (g_file_set_contents (bogus_la, "# not a libtool library file\n", -1, NULL));
  {
    /* An ELF header with nothing behind it: loadable by name, not in fact. */
    g_autofree char *whole = copy_fake_so ("fake_good", dir, "msperf_truncated.so");

    assert_int_equal (truncate (whole, 64), 0);
  }
  /* Without the msperf_ prefix a file is not a candidate at all. */
  assert_true (g_file_set_contents (other, "x", -1, NULL));

  reg = load_dirs (dirs, NULL);
  assert_int_equal (msperf_registry_infos (reg)->len, 6);
  assert_rejected (find_info (reg, "dir"), "not a regular file");
  /* A fifo must be refused before dlopen, which would block on it. */
  assert_rejected (find_info (reg, "fifo"), "not a regular file");
  info = find_info (reg, "junk");
  assert_non_null (info);
  assert_int_equal (info->status, MSPERF_PLUGIN_REJECTED);
  assert_true (g_str_has_prefix (info->reason, "not a loadable object: not an ELF file"));
  assert_string_equal (info->file, junk);
  info = find_info (reg, "truncated");
  assert_int_equal (info->status, MSPERF_PLUGIN_REJECTED);
  assert_true (g_str_has_prefix (info->reason, "not a loadable object (libltdl: "));
  assert_non_null (strstr (info->reason, "run 'ldd "));
  info = find_info (reg, "bogus");
  assert_int_equal (info->status, MSPERF_PLUGIN_REJECTED);
  assert_true (g_str_has_prefix (info->reason, "not a loadable object"));
  assert_int_equal (captured->len, 5);
  assert_good_loaded (reg);
  msperf_registry_free (reg);
  remove_tree (dir);
}

static void
test_registry_unreadable_file_is_rejected (void **state)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *locked = copy_fake_so ("fake_good", dir, "msperf_locked.so");
  g_autofree char *dangling = g_build_filename (dir, "msperf_dangling.so", NULL);
  const char *dirs[] = { dir, NULL };
  gboolean root = geteuid () == 0;
  msperf_registry *reg;

  (void) state;
  assert_int_equal (symlink ("/nonexistent/msperf_x.so", dangling), 0);
  assert_int_equal (g_chmod (locked, 0), 0);
  reg = load_dirs (dirs, NULL);
  assert_rejected (find_info (reg, "dangling"), "unreadable: No such file or directory");
  /* root reads any file: then the locked copy simply loads. */
  if (root)
    assert_int_equal (find_info (reg, "fake_good")->status, MSPERF_PLUGIN_LOADED);
  else
    assert_rejected (find_info (reg, "locked"), "unreadable: Permission denied");
  assert_int_equal (captured->len, root ? 1 : 2);
  msperf_registry_free (reg);
  remove_tree (dir);
}

static void
test_registry_la_is_preferred_over_so_of_one_stem (void **state)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *so = copy_fake_so ("fake_good", dir, "msperf_fake_good.so");
  g_autofree char *la_src = g_build_filename (env ("MSPERF_TEST_FAKELA"), "msperf_fake_good.la",
                                              NULL);
  g_autofree char *la = g_build_filename (dir, "msperf_fake_good.la", NULL);
  g_autofree char *libs = g_build_filename (dir, ".libs", NULL);
  const char *dirs[] = { dir, NULL };
  msperf_registry *reg;

  (void) state;
  /* An uninstalled .la names its object in .libs next to it. */
  assert_int_equal (symlink (la_src, la), 0);
  assert_int_equal (symlink (env ("MSPERF_TEST_FAKEDIR"), libs), 0);
  reg = load_dirs (dirs, NULL);
  assert_int_equal (msperf_registry_infos (reg)->len, 1);
  assert_string_equal (info_at (reg, 0)->file, la);
  assert_good_loaded (reg);
  msperf_registry_free (reg);
  remove_tree (dir);
}

static void
test_registry_disabled_module_is_listed_but_not_loaded (void **state)
{
  g_autoptr (GHashTable) disabled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                           g_free);
  const char *dirs[] = { env ("MSPERF_TEST_FAKELA"), NULL };
  const msperf_plugin_info *info;
  msperf_registry *reg;
  void *module_state = &reg;

  (void) state;
  g_hash_table_insert (disabled, g_strdup ("fake_good"), g_strdup ("policy says so"));
  reg = load_dirs (dirs, disabled);
  info = find_info (reg, "fake_good");
  assert_non_null (info);
  assert_int_equal (info->status, MSPERF_PLUGIN_DISABLED);
  assert_string_equal (info->reason, "disabled by policy");
  assert_string_equal (info->version, "9.9.9");
  assert_null (msperf_registry_lookup (reg, "fake_good", &module_state));
  assert_null (module_state);
  assert_null (msperf_registry_decomposer (reg, "FakeComposite", NULL));
  /* Disabling is a choice, not a problem: only the 5 broken fakes warn. */
  assert_int_equal (captured->len, 5);
  msperf_registry_free (reg);
}

static void
test_registry_decomposer_is_found_by_op_name (void **state)
{
  msperf_registry *reg = load_fakes ();
  void *module_state = NULL;
  const msperf_plugin *p;

  (void) state;
  /* fake_good lists op_names { "FakeComposite" } (tests/fake/fake_plugin.c). */
  p = msperf_registry_decomposer (reg, "FakeComposite", &module_state);
  assert_non_null (p);
  assert_string_equal (p->name, "fake_good");
  assert_string_equal (module_state, "fake state");
  assert_null (msperf_registry_decomposer (reg, "MatMulV2", &module_state));
  assert_null (module_state);
  assert_null (msperf_registry_lookup (reg, "no_such_mode", NULL));
  msperf_registry_free (reg);
}

static void
test_registry_same_dir_twice_is_scanned_once (void **state)
{
  g_autofree char *with_slash = g_strconcat (env ("MSPERF_TEST_FAKELA"), "/.", NULL);
  const char *dirs[] = { env ("MSPERF_TEST_FAKELA"), with_slash, NULL };
  msperf_registry *reg = load_dirs (dirs, NULL);

  (void) state;
  assert_int_equal (msperf_registry_infos (reg)->len, 7);
  assert_good_loaded (reg);
  msperf_registry_free (reg);
}

static void
test_registry_missing_dir_is_skipped_silently (void **state)
{
  const char *dirs[] = { "/nonexistent/msperf-modules", NULL };
  msperf_registry *reg = load_dirs (dirs, NULL);

  (void) state;
  assert_int_equal (msperf_registry_infos (reg)->len, 0);
  assert_int_equal (captured->len, 0);
  msperf_registry_free (reg);
}

static void
test_registry_two_registries_are_independent (void **state)
{
  msperf_registry *a = load_fakes ();
  msperf_registry *b = load_fakes ();
  void *state_a = NULL;
  void *state_b = NULL;

  (void) state;
  assert_non_null (msperf_registry_lookup (a, "fake_good", &state_a));
  assert_non_null (msperf_registry_lookup (b, "fake_good", &state_b));
  /* One init per engine: each registry has its own state. */
  assert_ptr_not_equal (state_a, state_b);
  msperf_registry_free (a);
  /* libltdl is reference counted: b still works after a's lt_dlexit. */
  assert_string_equal (state_b, "fake state");
  msperf_registry_free (b);
}

/* Slots that are only ever compared with NULL. */
static msperf_status
dummy_answer (msperf_engine *engine, void *state, const msperf_query *query, msperf_result *result)
{
  (void) engine;
  (void) state;
  (void) query;
  (void) result;
  return MSPERF_MISS;
}

static gboolean
dummy_target (msperf_engine *engine, void *state, const msperf_query *query, msperf_point *point)
{
  (void) engine;
  (void) state;
  (void) query;
  (void) point;
  return FALSE;
}

static gboolean
dummy_row (msperf_engine *engine, void *state, const msperf_table *table, size_t row, msperf_point *point)
{
  (void) engine;
  (void) state;
  (void) table;
  (void) row;
  (void) point;
  return FALSE;
}

static msperf_status
dummy_decompose (msperf_engine *engine, void *state, const msperf_query *query, msperf_plan *subqueries)
{
  (void) engine;
  (void) state;
  (void) query;
  (void) subqueries;
  return MSPERF_MISS;
}

static void
test_registry_capabilities_follow_the_filled_slots (void **state)
{
  msperf_plugin p = { 0 };
  g_autofree char *none = NULL;
  g_autofree char *half = NULL;
  g_autofree char *all = NULL;

  (void) state;
  none = msperf_plugin_capabilities (&p);
  assert_string_equal (none, "");
  /* interpolate needs both describe slots (ARCHITECTURE.md § Module ABI). */
  p.describe_target = dummy_target;
  p.model = dummy_answer;
  half = msperf_plugin_capabilities (&p);
  assert_string_equal (half, "model");
  p.describe_row = dummy_row;
  p.lookup = dummy_answer;
  p.decompose = dummy_decompose;
  all = msperf_plugin_capabilities (&p);
  assert_string_equal (all, "lookup,interpolate,model,decompose");
}

static void
test_registry_status_names (void **state)
{
  (void) state;
  assert_string_equal (msperf_plugin_status_name (MSPERF_PLUGIN_LOADED), "loaded");
  assert_string_equal (msperf_plugin_status_name (MSPERF_PLUGIN_DISABLED), "disabled");
  assert_string_equal (msperf_plugin_status_name (MSPERF_PLUGIN_SKIPPED), "skipped");
  assert_string_equal (msperf_plugin_status_name (MSPERF_PLUGIN_REJECTED), "rejected");
}

static void
assert_path (GPtrArray *path, guint i, const char *expected)
{
  assert_true (i < path->len);
  assert_string_equal (g_ptr_array_index (path, i), expected);
}

static void
test_registry_search_path_is_cli_then_env_then_build_tree (void **state)
{
  const char *cli[] = { "/cli/one", "/cli/two", NULL };
  g_autofree char *old = g_strdup (g_getenv ("MSPERF_PLUGIN_PATH"));
  g_autofree char *build = g_build_filename (env ("MSPERF_TOP_BUILDDIR"), "plugins", NULL);
  g_autoptr (GPtrArray) path = NULL;
  g_autoptr (GPtrArray) only_cli = NULL;

  (void) state;
  /* Empty entries of MSPERF_PLUGIN_PATH are ignored. */
  g_setenv ("MSPERF_PLUGIN_PATH", ":/env/a::/env/b:", TRUE);
  path = msperf_registry_search_path (cli, TRUE);
  only_cli = msperf_registry_search_path (cli, FALSE);
  if (old != NULL)
    g_setenv ("MSPERF_PLUGIN_PATH", old, TRUE);
  else
    g_unsetenv ("MSPERF_PLUGIN_PATH");

  assert_int_equal (path->len, 5);
  assert_path (path, 0, "/cli/one");
  assert_path (path, 1, "/cli/two");
  assert_path (path, 2, "/env/a");
  assert_path (path, 3, "/env/b");
  /* This test binary runs from the build tree, so the default is its plugins/, not pkglibdir. */
  assert_path (path, 4, build);
  assert_int_equal (only_cli->len, 2);
  assert_path (only_cli, 1, "/cli/two");
}

static void
test_registry_search_path_without_env_has_only_the_default (void **state)
{
  g_autofree char *old = g_strdup (g_getenv ("MSPERF_PLUGIN_PATH"));
  g_autoptr (GPtrArray) path = NULL;

  (void) state;
  g_unsetenv ("MSPERF_PLUGIN_PATH");
  path = msperf_registry_search_path (NULL, TRUE);
  if (old != NULL)
    g_setenv ("MSPERF_PLUGIN_PATH", old, TRUE);
  assert_int_equal (path->len, 1);
}

static void
test_registry_the_ten_real_modules_load (void **state)
{
  static const char *const names[] = { "compute", "attention_special", "communication",
                                       "elementwise", "moe_fused", "mla", "field_table",
                                       "broadcast_att", "cast_att", "composite" };
  const char *dirs[] = { env ("MSPERF_TEST_PLUGINDIR"), NULL };
  msperf_registry *reg = load_dirs (dirs, NULL);

  (void) state;
  for (size_t i = 0; i < G_N_ELEMENTS (names); i++)
    {
      const msperf_plugin_info *info = find_info (reg, names[i]);

      if (info->status != MSPERF_PLUGIN_LOADED)
        fail_msg ("module %s: %s: %s", names[i], msperf_plugin_status_name (info->status),
                  info->reason ? info->reason : "");
      assert_true (g_str_has_suffix (info->file, ".la"));
      assert_non_null (msperf_registry_lookup (reg, names[i], NULL));
    }
  assert_int_equal (msperf_registry_infos (reg)->len, G_N_ELEMENTS (names));
  assert_int_equal (captured->len, 0);
  /* Routing comes from the descriptors (ABI 2), not from names in the core. */
  assert_string_equal (msperf_registry_att_module (reg, "cast"), "cast_att");
  assert_string_equal (msperf_registry_att_module (reg, "broadcast_extend"), "broadcast_att");
  assert_string_equal (msperf_registry_att_module (reg, "duplicate"), "broadcast_att");
  assert_null (msperf_registry_att_module (reg, "no_such_kind"));
  assert_string_equal (msperf_registry_category_module (reg, "communication"), "communication");
  assert_string_equal (msperf_registry_canonical_mode (reg, "mtp_projection"), "compute");
  assert_string_equal (msperf_registry_canonical_mode (reg, "moe_fused"), "moe_fused");
  assert_string_equal (msperf_registry_default_mode (reg), "compute");
  assert_string_equal (msperf_registry_static_composite (reg), "composite");
  msperf_registry_free (reg);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup (test_registry_good_fake_loads_with_its_descriptor, reset_log),
    cmocka_unit_test_setup (test_registry_wrong_abi_is_rejected_naming_both_versions, reset_log),
    cmocka_unit_test_setup (test_registry_small_descriptor_is_rejected, reset_log),
    cmocka_unit_test_setup (test_registry_missing_symbol_is_rejected, reset_log),
    cmocka_unit_test_setup (test_registry_failing_init_is_rejected_with_its_message, reset_log),
    cmocka_unit_test_setup (test_registry_each_rejection_is_one_warning_naming_the_file,
                            reset_log),
    cmocka_unit_test_setup (test_registry_duplicate_name_in_one_dir_rejects_the_second,
                            reset_log),
    cmocka_unit_test_setup (test_registry_same_name_in_later_dir_is_skipped_quietly, reset_log),
    cmocka_unit_test_setup (test_registry_non_regular_and_junk_files_are_rejected, reset_log),
    cmocka_unit_test_setup (test_registry_unreadable_file_is_rejected, reset_log),
    cmocka_unit_test_setup (test_registry_la_is_preferred_over_so_of_one_stem, reset_log),
    cmocka_unit_test_setup (test_registry_disabled_module_is_listed_but_not_loaded, reset_log),
    cmocka_unit_test_setup (test_registry_decomposer_is_found_by_op_name, reset_log),
    cmocka_unit_test_setup (test_registry_same_dir_twice_is_scanned_once, reset_log),
    cmocka_unit_test_setup (test_registry_missing_dir_is_skipped_silently, reset_log),
    cmocka_unit_test_setup (test_registry_two_registries_are_independent, reset_log),
    cmocka_unit_test_setup (test_registry_capabilities_follow_the_filled_slots, reset_log),
    cmocka_unit_test_setup (test_registry_status_names, reset_log),
    cmocka_unit_test_setup (test_registry_search_path_is_cli_then_env_then_build_tree, reset_log),
    cmocka_unit_test_setup (test_registry_search_path_without_env_has_only_the_default,
                            reset_log),
    cmocka_unit_test_setup (test_registry_the_ten_real_modules_load, reset_log),
  };
  int rc;

  captured = g_ptr_array_new_with_free_func (g_free);
  g_log_set_writer_func (capture_writer, NULL, NULL);
  rc = cmocka_run_group_tests (tests, NULL, NULL);
  g_ptr_array_unref (captured);
  return rc;
}
