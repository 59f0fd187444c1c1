/* Tests of core/database.c (op_mapping.yaml, path rules, CSV resolution), core/device.c
 * (device profiles) and core/cli_validate.c (msperf validate). */
#define _XOPEN_SOURCE 700   /* symlink, fdopen */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "common/test_util.h"
#include <glib.h>
#include <glib/gstdio.h>
#include <msperf/database.h>
#include <msperf/error.h>
#include <msperf/table.h>
#include "cli/cli.h"
#include "io/device.h"

static void
write_file (const char *dir, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  assert_true (g_file_set_contents (path, text, -1, NULL));
}

static gboolean
warnings_contain (const msperf_database *db, const char *needle)
{
  const GPtrArray *w = msperf_database_warnings (db);
  for (guint k = 0; k < w->len; k++)
    if (strstr (g_ptr_array_index (w, k), needle) != NULL)
      return TRUE;
  return FALSE;
}

/* Entry kinds by the dispatch precedence of reference §2.2: composite, then category
 * communication, then query_mode, then zero_cost (after those: quirk Q15), then accepted_miss,
 * else compute. */
enum { K_COMPUTE, K_ZERO, K_COMPOSITE, K_COMM, K_ELEM, K_ATTN, K_MOE, K_MTP, K_MISS, K_N };

static int
classify (const msperf_mapping_entry *e)
{
  if (e->composite)
    return K_COMPOSITE;
  if (g_strcmp0 (e->category, "communication") == 0)
    return K_COMM;
  if (e->query_mode != NULL)
    {
      if (strcmp (e->query_mode, "elementwise") == 0)
        return K_ELEM;
      if (strcmp (e->query_mode, "attention_special") == 0)
        return K_ATTN;
      if (strcmp (e->query_mode, "moe_fused") == 0)
        return K_MOE;
      if (strcmp (e->query_mode, "mtp_projection") == 0)
        return K_MTP;
      fail_msg ("unexpected query_mode %s", e->query_mode);
    }
  if (e->zero_cost)
    return K_ZERO;
  if (e->accepted_miss != NULL)
    return K_MISS;
  return K_COMPUTE;
}

/* ------------------------------------------------------------------ database */

static void
test_database_real_ascend_mappings_load_with_reference_counts (void **state)
{
  /* Golden: reference profiling-semantics.md §1.2 "Entry kinds per database"
   * (entries, compute, zero_cost, composite, communication, elementwise, attention_special,
   * moe_fused, mtp_projection). */
  static const struct { const char *dir; guint entries; int kinds[K_MTP + 1]; } dbs[] = {
    { "database/ascend/vllm0.13.0_torch2.8.0_cann8.3", 113, { 73, 16, 16, 5, 1, 2, 0, 0 } },
    { "database/ascend/vllm0.15.0_torch2.9.0_cann8.5", 143, { 85, 29, 14, 5, 3, 2, 5, 0 } },
    { "database/ascend/vllm0.18.0_torch2.9.0_cann8.5", 147, { 81, 36, 15, 5, 2, 2, 5, 1 } },
  };

  (void) state;
  for (size_t d = 0; d < G_N_ELEMENTS (dbs); d++)
    {
      g_autofree char *dir = tu_data_path (dbs[d].dir);
      g_autoptr (GError) error = NULL;
      g_autoptr (msperf_database) db = msperf_database_open (dir, NULL, &error);
      int kinds[K_N] = { 0 };
      const GPtrArray *entries;

      if (db == NULL)
        fail_msg ("%s: %s", dbs[d].dir, error->message);
      entries = msperf_database_entries (db);
      assert_int_equal (entries->len, dbs[d].entries);
      for (guint k = 0; k < entries->len; k++)
        kinds[classify (g_ptr_array_index (entries, k))]++;
      for (int k = 0; k <= K_MTP; k++)
        if (kinds[k] != dbs[d].kinds[k])
          fail_msg ("%s: kind %d: %d entries, expected %d", dbs[d].dir, k, kinds[k],
                    dbs[d].kinds[k]);
      assert_int_equal (kinds[K_MISS], 0);
      assert_string_equal (msperf_database_device (db), "ATLAS_800_A3_752T_128G_DIE");
      /* The only load-time warning: the hccl directory is not shipped next to the copies
       * (Q14; for 0.13 it does not exist upstream either). No entry is rejected. */
      assert_int_equal (msperf_database_warnings (db)->len, 1);
      assert_true (warnings_contain (db, "names a missing directory"));
    }
}

static void
test_database_missing_comm_dir_warning_names_it (void **state)
{
  g_autofree char *dir = tu_data_path ("database/ascend/vllm0.13.0_torch2.8.0_cann8.3");
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_database) db = msperf_database_open (dir, NULL, &error);
  const msperf_table *t;

  (void) state;
  assert_non_null (db);
  /* Q14: the 0.13 file (line 159) names ../../hccl/v8.3.RC1/ */
  assert_true (warnings_contain (db, "op_mapping.yaml:159: communication_data_ref "
                                     "'../../hccl/v8.3.RC1/' names a missing directory"));
  /* the lookup falls back to the database directory, then csv_not_found */
  t = msperf_database_table (db, "hcom_allReduce_", &error);
  assert_null (t);
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND));
}

static void
test_database_entry_fields_decode (void **state)
{
  g_autofree char *dir = tu_data_path ("database/ascend/vllm0.18.0_torch2.9.0_cann8.5");
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_database) db = msperf_database_open (dir, NULL, &error);
  const msperf_mapping_entry *e;
  const msperf_value *v;

  (void) state;
  assert_non_null (db);
  /* reference §1.2 "Other real 0.18 entries": embedding → GatherV2 [GatherV3, GatherV2AiCore],
   * tc_input_count 2 */
  e = msperf_database_entry (db, "aten.embedding.default");
  assert_non_null (e);
  assert_string_equal (e->kernel_type, "GatherV2");
  assert_int_equal (g_strv_length (e->kernel_types), 3);
  assert_string_equal (e->kernel_types[1], "GatherV3");
  assert_string_equal (e->kernel_types[2], "GatherV2AiCore");
  assert_int_equal (e->tc_input_count, 2);
  assert_non_null (msperf_value_lookup (e->raw, "notes"));
  e = msperf_database_entry (db, "tensor_cast.attention.default");
  assert_non_null (e);
  assert_string_equal (e->query_mode, "attention_special");
  e = msperf_database_entry (db, "aten.mm.default");
  assert_int_equal (e->tc_input_count, -1);
  assert_false (e->composite);
  assert_null (msperf_database_entry (db, "aten.nonexistent.default"));
  /* policy blocks: reference §1.2 — QuantBatchMatmulV3 ratio 1.5, FIA semantic unique,
   * MatMulV2 max dim 1 */
  v = msperf_database_kernel_option (db, "latency_policy", "QuantBatchMatmulV3",
                                     "profiling_core_envelope_fallback");
  assert_non_null (v);
  assert_true (msperf_value_lookup (v, "max_duration_to_core_ratio")->f == 1.5);
  v = msperf_database_kernel_option (db, "query_selection_policy", "FusedInferAttentionScore",
                                     "require_semantic_unique");
  assert_true (v != NULL && v->kind == MSPERF_VALUE_BOOL && v->b);
  v = msperf_database_kernel_option (db, "interpolation_policy", "MatMulV2",
                                     "max_interpolation_dim");
  assert_int_equal (v->i, 1);
  assert_null (msperf_database_kernel_option (db, "interpolation_policy", "Nope", "x"));
  assert_non_null (msperf_database_top (db, "torch_npu_reference"));
}

static void
test_database_h200_sample_loads_and_tables_resolve (void **state)
{
  g_autofree char *dir = tu_srcdir_path ("doc/examples/h200-db");
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) error2 = NULL;
  g_autoptr (msperf_database) db = msperf_database_open (dir, NULL, &error);
  const msperf_table *t;

  (void) state;
  assert_non_null (db);
  assert_int_equal (msperf_database_entries (db)->len, 11);
  assert_int_equal (msperf_database_warnings (db)->len, 0);
  assert_string_equal (msperf_database_device (db), "NVIDIA_H200_SXM");
  assert_string_equal (msperf_database_entry (db, "aten.detach.default")->accepted_miss,
                       "metadata-only op; no standalone kernel");
  assert_true (msperf_database_entry (db, "aten.view.default")->zero_cost);
  assert_string_equal (msperf_database_kernel_option (db, "interpolation_policy",
                                                      "FusedInferAttentionScore",
                                                      "axis_transform")->s, "sqrt_seq");
  t = msperf_database_table (db, "MatMulV2", &error);
  if (t == NULL)
    fail_msg ("%s", error->message);
  assert_string_equal (msperf_table_kernel_type (t), "MatMulV2");
  assert_true (msperf_database_table (db, "MatMulV2", &error) == t);   /* cached */
  /* no collective was measured: absent, and still absent from the cache */
  assert_null (msperf_database_table (db, "hcom_allReduce_", &error2));
  assert_true (g_error_matches (error2, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND));
  g_clear_error (&error2);
  assert_null (msperf_database_table (db, "hcom_allReduce_", &error2));
  assert_true (g_error_matches (error2, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND));
  msperf_database_clear_cache (db);
  assert_non_null (msperf_database_table (db, "MatMulV2", &error));
}

static void
test_database_path_rules_reject_entries_and_keep_the_rest (void **state)
{
  g_autofree char *dir = tu_data_path ("database/bad-paths");
  g_autofree char *yaml = g_build_filename (dir, "op_mapping.yaml", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_database) db = msperf_database_open (dir, NULL, &error);
  const GPtrArray *w;
  g_autofree char *w0 = NULL, *w1 = NULL, *w2 = NULL;

  (void) state;
  assert_non_null (db);
  assert_int_equal (msperf_database_entries (db)->len, 2);
  assert_non_null (msperf_database_entry (db, "aten.mm.default"));
  assert_non_null (msperf_database_entry (db, "aten.view.default"));
  assert_null (msperf_database_entry (db, "evil.passwd.default"));
  assert_null (msperf_database_entry (db, "evil.subdir.default"));
  assert_null (msperf_database_entry (db, "evil.hidden.default"));
  w = msperf_database_warnings (db);
  assert_int_equal (w->len, 3);
  w0 = g_strdup_printf ("%s:8: operator 'evil.passwd.default': kernel_type '../etc/passwd' is "
                        "not a plain file stem", yaml);
  w1 = g_strdup_printf ("%s:11: operator 'evil.subdir.default': alternate_kernel_types 'a/b' "
                        "is not a plain file stem", yaml);
  w2 = g_strdup_printf ("%s:14: operator 'evil.hidden.default': sub_kernels '.hidden' is not a "
                        "plain file stem", yaml);
  assert_string_equal (g_ptr_array_index (w, 0), w0);
  assert_string_equal (g_ptr_array_index (w, 1), w1);
  assert_string_equal (g_ptr_array_index (w, 2), w2);
  /* a direct lookup of such a name is refused too */
  assert_null (msperf_database_table (db, "../etc/passwd", &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH));
}

static void
test_kernel_type_is_plain_rules (void **state)
{
  (void) state;
  assert_true (msperf_kernel_type_is_plain ("MatMulV2"));
  assert_true (msperf_kernel_type_is_plain ("hcom_allReduce_"));
  assert_true (msperf_kernel_type_is_plain ("reshape_and_cache_200000000"));
  assert_false (msperf_kernel_type_is_plain (""));
  assert_false (msperf_kernel_type_is_plain (".hidden"));
  assert_false (msperf_kernel_type_is_plain ("a/b"));
  assert_false (msperf_kernel_type_is_plain ("a\\b"));
  assert_false (msperf_kernel_type_is_plain ("x..y"));
  assert_false (msperf_kernel_type_is_plain ("tab\there"));
  assert_false (msperf_kernel_type_is_plain (NULL));
}

static void
test_database_symlink_escape_is_refused (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *top = g_dir_make_tmp ("msperf-db-XXXXXX", &error);
  g_autofree char *dbdir = g_build_filename (top, "db", NULL);
  g_autofree char *link = g_build_filename (dbdir, "X.csv", NULL);
  g_autofree char *inside = g_build_filename (top, "shared.csv", NULL);
  g_autofree char *link2 = g_build_filename (dbdir, "Y.csv", NULL);
  const char *csv = "OP State,Accelerator Core,Input Shapes,Input Data Types,Input Formats,"
                    "Output Shapes,Output Data Types,Output Formats,Average Duration(us)\n"
                    "dynamic,AI_CORE,\"4,8\",DT_BF16,ND,\"4,8\",DT_BF16,ND,1.5\n";

  (void) state;
  assert_non_null (top);
  assert_int_equal (g_mkdir (dbdir, 0700), 0);
  write_file (dbdir, "op_mapping.yaml",
              "operator_mappings:\n  \"x.default\": {kernel_type: X}\n"
              "  \"y.default\": {kernel_type: Y}\n");
  assert_int_equal (symlink ("/etc/hostname", link), 0);
  write_file (top, "shared.csv", csv);
  assert_int_equal (symlink (inside, link2), 0);

  {
    g_autoptr (msperf_database) db = msperf_database_open (dbdir, NULL, &error);
    g_autoptr (GError) e1 = NULL;
    g_autoptr (GError) e2 = NULL;
    assert_non_null (db);
    assert_null (msperf_database_table (db, "X", &e1));
    assert_true (g_error_matches (e1, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH));
    assert_non_null (strstr (e1->message, "outside the database directory"));
    /* without a root, a symlink out of the database directory is refused even when harmless */
    assert_null (msperf_database_table (db, "Y", &e2));
    assert_true (g_error_matches (e2, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH));
  }
  {
    /* with --database-root top, the file under top is allowed, /etc/hostname is not */
    g_autoptr (msperf_database) db = msperf_database_open (dbdir, top, &error);
    g_autoptr (GError) e1 = NULL;
    g_autoptr (GError) e2 = NULL;
    const msperf_table *t;
    assert_non_null (db);
    assert_null (msperf_database_table (db, "X", &e1));
    assert_true (g_error_matches (e1, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH));
    assert_non_null (strstr (e1->message, "resolves outside the database root"));
    t = msperf_database_table (db, "Y", &e2);
    if (t == NULL)
      fail_msg ("%s", e2->message);
  }
  {
    /* a root that does not contain the database refuses op_mapping.yaml itself */
    g_autoptr (GError) e = NULL;
    g_autoptr (msperf_database) db = msperf_database_open (dbdir, "/usr", &e);
    assert_null (db);
    assert_true (g_error_matches (e, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH));
  }
  tu_rm_tree (top);
}

static void
test_database_communication_data_ref_resolution (void **state)
{
  g_autofree char *top = tu_data_path ("database/comm-ref");
  g_autofree char *dir = tu_data_path ("database/comm-ref/db");
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (GError) e3 = NULL;
  g_autoptr (GError) e0 = NULL;
  const msperf_table *t;
  static const char *const prefixes[] = { "hcom_", "nccl_", NULL };

  (void) state;
  {
    g_autoptr (msperf_database) db = msperf_database_open (dir, top, &error);
    assert_non_null (db);
    assert_int_equal (msperf_database_warnings (db)->len, 0);
    /* No declared collective prefix: every kernel is looked up in the database directory
     * alone (hcom_allReduce_ is only in ../hccl). */
    assert_false (msperf_database_kernel_is_collective (db, "hcom_allReduce_"));
    assert_null (msperf_database_table (db, "hcom_allReduce_", &e0));
    assert_true (g_error_matches (e0, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND));
    /* The communication module's declaration (collective_prefixes) as the engine hands it
     * over; a made-up prefix declared alongside is honoured too. */
    msperf_database_set_collective_prefixes (db, prefixes);
    assert_true (msperf_database_kernel_is_collective (db, "hcom_allReduce_"));
    assert_true (msperf_database_kernel_is_collective (db, "nccl_x"));
    assert_false (msperf_database_kernel_is_collective (db, "MatMulV2"));
    /* reference §1.1: data_dir/communication_data_ref first ... */
    t = msperf_database_table (db, "hcom_allReduce_", &error);
    if (t == NULL)
      fail_msg ("%s", error->message);
    assert_non_null (strstr (msperf_table_path (t), "hccl"));
    /* ... then data_dir itself ... */
    t = msperf_database_table (db, "hcom_allGather_", &error);
    assert_non_null (t);
    assert_non_null (strstr (msperf_table_path (t), "/db/"));
    /* ... else csv_not_found */
    assert_null (msperf_database_table (db, "hcom_reduceScatter_", &e2));
    assert_true (g_error_matches (e2, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND));
  }
  {
    /* a root of the database directory alone excludes ../hccl */
    g_autoptr (msperf_database) db = msperf_database_open (dir, dir, &error);
    assert_non_null (db);
    msperf_database_set_collective_prefixes (db, prefixes);
    assert_null (msperf_database_table (db, "hcom_allReduce_", &e3));
    assert_true (g_error_matches (e3, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH));
    assert_non_null (strstr (e3->message, "resolves outside the database root"));
  }
}

/* Without --database-root, communication_data_ref is confined to the database directory as
 * kernel CSVs are: '../hccl/' (a real directory with a CSV) is refused at its line, and the
 * lookup through it fails with a path error instead of answering from the foreign file; a
 * reference inside the database that is a symlink out is refused the same way. */
static void
test_database_communication_data_ref_stays_inside_the_database (void **state)
{
  g_autofree char *dir = tu_data_path ("database/comm-ref/db");
  g_autofree char *hccl = tu_data_path ("database/comm-ref/hccl");
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *link = NULL;
  g_autofree char *inner = NULL;
  g_autofree char *inner_csv = NULL;
  /* the communication module's declaration, as a started engine hands it over */
  static const char *const hcom[] = { "hcom_", NULL };

  (void) state;
  {
    g_autoptr (msperf_database) db = msperf_database_open (dir, NULL, &error);
    assert_non_null (db);
    msperf_database_set_collective_prefixes (db, hcom);
    assert_true (warnings_contain (db, "op_mapping.yaml:5: communication_data_ref '../hccl/' "
                                       "resolves outside the database directory"));
    assert_null (msperf_database_table (db, "hcom_allReduce_", &e1));
    assert_true (g_error_matches (e1, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH));
    assert_non_null (strstr (e1->message, "resolves outside the database directory"));
    /* as with an absolute reference, every collective lookup names the refused reference
     * (the one it would have looked in first) rather than answering past it */
    assert_null (msperf_database_table (db, "hcom_allGather_", &error));
    assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH));
    g_clear_error (&error);
  }
  tmp = g_dir_make_tmp ("msperf-db-XXXXXX", &error);
  assert_non_null (tmp);
  write_file (tmp, "op_mapping.yaml", "communication_data_ref: comm\noperator_mappings: {}\n");
  link = g_build_filename (tmp, "comm", NULL);
  assert_int_equal (symlink (hccl, link), 0);
  {
    g_autoptr (msperf_database) db = msperf_database_open (tmp, NULL, &error);
    assert_non_null (db);
    msperf_database_set_collective_prefixes (db, hcom);
    assert_true (warnings_contain (db, "op_mapping.yaml:1: communication_data_ref 'comm' "
                                       "resolves outside the database directory"));
    assert_null (msperf_database_table (db, "hcom_allReduce_", &e2));
    assert_true (g_error_matches (e2, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH));
  }
  /* a real subdirectory is fine, and so is its CSV */
  assert_int_equal (unlink (link), 0);
  inner = g_build_filename (tmp, "comm", NULL);
  assert_int_equal (g_mkdir (inner, 0700), 0);
  inner_csv = g_build_filename (hccl, "hcom_allReduce_.csv", NULL);
  {
    g_autofree char *text = NULL;
    g_autoptr (msperf_database) db = NULL;
    g_autoptr (GError) e3 = NULL;

    assert_true (g_file_get_contents (inner_csv, &text, NULL, NULL));
    write_file (inner, "hcom_allReduce_.csv", text);
    db = msperf_database_open (tmp, NULL, &error);
    assert_non_null (db);
    msperf_database_set_collective_prefixes (db, hcom);
    assert_int_equal (msperf_database_warnings (db)->len, 0);
    if (msperf_database_table (db, "hcom_allReduce_", &e3) == NULL)
      fail_msg ("%s", e3->message);
  }
  tu_rm_tree (tmp);
}

static void
test_database_load_warnings_for_q15_absolute_ref_and_bad_fields (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("msperf-db-XXXXXX", &error);
  g_autoptr (msperf_database) db = NULL;
  const msperf_mapping_entry *e;
  g_autoptr (GError) e1 = NULL;

  (void) state;
  write_file (dir, "op_mapping.yaml",
              "communication_data_ref: /abs/hccl\n"
              "operator_mappings:\n"
              "  \"a.default\": {kernel_type: A, alternate_kernel_types: [B, A, B]}\n"
              "  \"b.default\": {composite: true, zero_cost: true}\n"
              "  \"c.default\": {kernel_type: C, tc_input_count: 0}\n"
              "  \"d.default\": {kernel_type: 7}\n"
              "  \"e.default\": {alternate_kernel_types: [E1, E2]}\n");
  db = msperf_database_open (dir, NULL, &error);
  assert_non_null (db);
  assert_true (warnings_contain (db, "op_mapping.yaml:1: communication_data_ref '/abs/hccl' "
                                     "is an absolute path"));
  assert_true (warnings_contain (db, ":4: operator 'b.default': zero_cost is ignored because "
                                     "composite takes precedence"));
  assert_true (warnings_contain (db, ":5: operator 'c.default': tc_input_count: expected a "
                                     "positive integer, got '0'"));
  assert_true (warnings_contain (db, ":6: operator 'd.default': kernel_type: expected a kernel "
                                     "name, got '7'"));
  assert_int_equal (msperf_database_warnings (db)->len, 4);
  assert_int_equal (msperf_database_entries (db)->len, 3);
  e = msperf_database_entry (db, "a.default");
  assert_int_equal (g_strv_length (e->kernel_types), 2);   /* duplicates removed */
  assert_string_equal (e->kernel_types[0], "A");
  assert_string_equal (e->kernel_types[1], "B");
  e = msperf_database_entry (db, "e.default");            /* only alternates: kept */
  assert_null (e->kernel_type);
  assert_int_equal (g_strv_length (e->kernel_types), 2);
  assert_true (msperf_database_entry (db, "b.default")->composite);
  /* an absolute communication_data_ref makes communication lookups fail */
  msperf_database_set_collective_prefixes (db, (const char *const[]){ "hcom_", NULL });
  assert_null (msperf_database_table (db, "hcom_allReduce_", &e1));
  assert_true (g_error_matches (e1, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH));
  tu_rm_tree (dir);
}

static void
test_database_open_errors (void **state)
{
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("msperf-db-XXXXXX", &error);
  g_autoptr (msperf_database) db1 = msperf_database_open ("/nonexistent/db", NULL, &e1);
  g_autoptr (msperf_database) db2 = NULL;

  (void) state;
  assert_null (db1);
  assert_true (g_error_matches (e1, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND));
  write_file (dir, "op_mapping.yaml", "operator_mappings:\n  a: 1\n  a: 2\n");
  db2 = msperf_database_open (dir, NULL, &e2);
  assert_null (db2);
  assert_non_null (strstr (e2->message, "op_mapping.yaml:3: duplicate key 'a'"));
  tu_rm_tree (dir);
}

/* ------------------------------------------------------------------ device profiles */

static void
test_device_shipped_profiles_load_with_their_figures (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *h200_path = tu_srcdir_path ("policies/devices/nvidia-h200.yaml");
  g_autofree char *a3_path = tu_srcdir_path ("policies/devices/ascend-a3.yaml");
  g_autoptr (msperf_device) h200 = msperf_device_load (h200_path, &error);
  g_autoptr (msperf_device) a3 = msperf_device_load (a3_path, &error);

  (void) state;
  assert_non_null (h200);
  /* FORMATS §4: 790 bf16/fp16, 67 fp32, 1580 fp8/int8, 4300 GB/s, 2.0 µs, no vector clock */
  assert_string_equal (h200->name, "nvidia-h200");
  assert_true (h200->peak_tflops[MSPERF_DTYPE_BF16] == 790);
  assert_true (h200->peak_tflops[MSPERF_DTYPE_FLOAT16] == 790);
  assert_true (h200->peak_tflops[MSPERF_DTYPE_FLOAT32] == 67);
  assert_true (h200->peak_tflops[MSPERF_DTYPE_FP8_E4M3] == 1580);
  assert_true (h200->peak_tflops[MSPERF_DTYPE_FP8_E5M2] == 1580);
  assert_true (h200->peak_tflops[MSPERF_DTYPE_INT8] == 1580);
  assert_true (h200->peak_tflops[MSPERF_DTYPE_INT4] == 1580);
  assert_true (isnan (h200->peak_tflops[MSPERF_DTYPE_INT32]));
  assert_true (h200->memory_bandwidth_gbps == 4300);
  assert_true (h200->launch_overhead_us == 2.0);
  assert_true (isnan (h200->vector_clock_ghz));
  assert_null (h200->comm_grid);
  assert_int_equal (h200->tiers->len, 1);
  assert_true (((msperf_comm_tier *) g_ptr_array_index (h200->tiers, 0))->bandwidth_gbps == 450);
  /* aiconfigurator's h200_sxm.yaml node: 8 GPUs, inter_node_bw 50 GB/s, p2p_latency 10 us */
  assert_int_equal (h200->node_devices, 8);
  assert_string_equal (h200->node_tier->name, "inter_node");
  assert_true (h200->node_tier->bandwidth_gbps == 50);
  assert_true (h200->node_tier->latency_us == 10.0);
  assert_string_equal (h200->aliases[0], "NVIDIA_H200_SXM");

  assert_non_null (a3);
  /* upstream msmodeling tensor_cast/device.py A3_752T_128G_DIE: bf16 353.9, fp16 376,
   * fp32 99.5, int8 752; grid [48,8,2]; tiers 196/5.5, 196/0.5, 224/0.2 */
  assert_string_equal (a3->name, "ascend-a3");
  assert_true (a3->peak_tflops[MSPERF_DTYPE_BF16] == 353.9);
  assert_true (a3->peak_tflops[MSPERF_DTYPE_FLOAT16] == 376);
  assert_true (a3->peak_tflops[MSPERF_DTYPE_FLOAT32] == 99.5);
  assert_true (a3->peak_tflops[MSPERF_DTYPE_INT8] == 752);
  assert_true (isnan (a3->peak_tflops[MSPERF_DTYPE_FP8_E4M3]));
  assert_true (a3->vector_clock_ghz == 1.85);
  assert_int_equal (a3->comm_grid->len, 3);
  assert_int_equal (g_array_index (a3->comm_grid, int64_t, 0), 48);
  assert_int_equal (g_array_index (a3->comm_grid, int64_t, 2), 2);
  assert_int_equal (a3->tiers->len, 3);
  assert_string_equal (((msperf_comm_tier *) g_ptr_array_index (a3->tiers, 0))->name, "inter_pod");
  assert_true (((msperf_comm_tier *) g_ptr_array_index (a3->tiers, 2))->latency_us == 0.2);
  assert_string_equal (a3->aliases[0], "ATLAS_800_A3_752T_128G_DIE");
  assert_int_equal (a3->node_devices, 0);
  assert_null (a3->node_tier);
}

static void
test_device_find_by_name_path_and_alias (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *devdir = tu_data_path ("device");
  g_autofree char *shipped = tu_srcdir_path ("policies/devices");
  const char *const dirs[] = { devdir, shipped, NULL };
  g_autofree char *good = tu_data_path ("device/good.yaml");
  g_autoptr (msperf_device) by_name = msperf_device_find ("ascend-a3", dirs, &error);
  g_autoptr (msperf_device) by_path = msperf_device_find (good, dirs, &error);
  g_autoptr (msperf_device) by_alias = msperf_device_find_alias ("OTHER_NAME", dirs);
  g_autoptr (msperf_device) h200 = msperf_device_find_alias ("NVIDIA_H200_SXM", dirs);
  g_autoptr (msperf_device) none = msperf_device_find_alias ("NO_SUCH_DEVICE", dirs);
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (msperf_device) missing = msperf_device_find ("no-such", dirs, &e1);
  g_autoptr (msperf_device) sneaky = msperf_device_find ("..", dirs, &e2);

  (void) state;
  assert_non_null (by_name);
  assert_string_equal (by_name->name, "ascend-a3");
  assert_non_null (by_path);
  assert_string_equal (by_path->name, "test-device");
  assert_true (by_path->peak_tflops[MSPERF_DTYPE_FLOAT16] == 120.5);
  assert_true (by_path->launch_overhead_us == 1.5);
  assert_non_null (by_alias);
  assert_string_equal (by_alias->name, "test-device");
  assert_non_null (h200);
  assert_string_equal (h200->name, "nvidia-h200");
  assert_null (none);
  assert_null (missing);
  assert_true (g_error_matches (e1, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND));
  assert_null (sneaky);
  assert_non_null (e2);
}

static void
test_device_errors_name_file_line_and_key (void **state)
{
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (GError) e3 = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *unknown = tu_data_path ("device/unknown-key.yaml");
  g_autofree char *bad = tu_data_path ("device/bad-number.yaml");
  g_autofree char *want1 = g_strdup_printf ("%s:3: unknown key 'memory_bandwith_gbps'", unknown);
  g_autofree char *want2 = g_strdup_printf ("%s:3: key 'memory_bandwidth_gbps': expected a "
                                            "number, got 'fast'", bad);
  g_autoptr (msperf_device) d1 = msperf_device_load (unknown, &e1);
  g_autoptr (msperf_device) d2 = msperf_device_load (bad, &e2);
  g_autofree char *dir = g_dir_make_tmp ("msperf-dev-XXXXXX", &error);
  g_autofree char *grid = g_build_filename (dir, "grid.yaml", NULL);
  g_autoptr (msperf_device) d3 = NULL;

  (void) state;
  assert_null (d1);
  assert_string_equal (e1->message, want1);
  assert_null (d2);
  assert_string_equal (e2->message, want2);
  assert_true (g_file_set_contents (grid, "name: g\npeak_tflops: {bf16: 1, fp4: 2}\n"
                                          "memory_bandwidth_gbps: 1\n", -1, NULL));
  d3 = msperf_device_load (grid, &e3);
  assert_null (d3);
  assert_non_null (strstr (e3->message, ":2: unknown key 'fp4' in 'peak_tflops'"));
  /* comm.nodes: refused beside a grid, without devices or bandwidth, with devices < 1 */
  {
    static const struct { const char *comm, *want; } bad_nodes[] = {
      { "{grid: [2, 8], tiers: [{name: a, bandwidth_gbps: 1}, {name: b, bandwidth_gbps: 2}], "
        "nodes: {devices: 8, name: n, bandwidth_gbps: 5}}", ":3: comm: 'nodes' beside a grid" },
      { "{nodes: {name: n, bandwidth_gbps: 5}}", ":3: comm.nodes: missing key 'devices'" },
      { "{nodes: {devices: 8, name: n}}", ":3: comm.nodes: missing key 'bandwidth_gbps'" },
      { "{nodes: {devices: 0, name: n, bandwidth_gbps: 5}}",
        ":3: key 'comm.nodes.devices': 0 < 1" },
      { "{nodes: {devices: 8, name: n, bandwidth_gbps: 5, gpus: 8}}",
        ":3: unknown key 'gpus' in 'comm.nodes'" },
    };

    for (guint k = 0; k < G_N_ELEMENTS (bad_nodes); k++)
      {
        g_autoptr (GError) e = NULL;
        g_autofree char *text = g_strdup_printf ("name: n\nmemory_bandwidth_gbps: 1\n"
                                                 "comm: %s\npeak_tflops: {bf16: 1}\n",
                                                 bad_nodes[k].comm);
        g_autoptr (msperf_device) d = NULL;

        assert_true (g_file_set_contents (grid, text, -1, NULL));
        d = msperf_device_load (grid, &e);
        assert_null (d);
        if (strstr (e->message, bad_nodes[k].want) == NULL)
          fail_msg ("%s: got '%s'", bad_nodes[k].want, e->message);
      }
  }
  tu_rm_tree (dir);
}

/* ------------------------------------------------------------------ msperf validate */

/* Runs msperf_cli_validate with its standard output (the run's stream) written to a temporary
 * file, read back into *out. */
static int
run_validate (const char *dir, char **out)
{
  char *argv[] = { (char *) "validate", (char *) "--profiling-database", (char *) dir, NULL };
  msperf_cli_global g = { 0 };
  g_autoptr (GError) error = NULL;
  g_autofree char *tmp = NULL;
  int fd = g_file_open_tmp ("msperf-validate-XXXXXX", &tmp, &error);
  int status;

  assert_true (fd >= 0);
  g.out = fdopen (fd, "w");
  assert_non_null (g.out);
  status = msperf_cli_validate (&g, 3, argv);
  assert_int_equal (fclose (g.out), 0);
  assert_true (g_file_get_contents (tmp, out, NULL, NULL));
  g_unlink (tmp);
  return status;
}

static void
test_validate_h200_sample_has_no_errors (void **state)
{
  g_autofree char *dir = tu_srcdir_path ("doc/examples/h200-db");
  g_autofree char *out = NULL;

  (void) state;
  assert_int_equal (run_validate (dir, &out), MSPERF_EXIT_OK);
  assert_null (strstr (out, "error: "));
  /* the collective CSV is absent: only a warning */
  assert_non_null (strstr (out, "warning: "));
  assert_non_null (strstr (out, "hcom_allReduce_"));
  assert_non_null (strstr (out, " 0 errors"));
}

static void
test_validate_missing_compute_csv_is_an_error (void **state)
{
  g_autofree char *dir = tu_data_path ("database/missing-csv");
  g_autofree char *out = NULL;

  (void) state;
  assert_int_equal (run_validate (dir, &out), MSPERF_EXIT_PROBLEMS);
  assert_non_null (strstr (out, "error: "));
  assert_non_null (strstr (out, "compute kernel 'Missing'"));
  assert_non_null (strstr (out, "warning: "));
  assert_non_null (strstr (out, "communication kernel 'hcom_allReduce_'"));
  assert_non_null (strstr (out, "1 error, 1 warning"));
}

static void
test_validate_reports_duplicate_rows_and_skipped_rows (void **state)
{
  g_autofree char *dir = tu_data_path ("database/dup-rows");
  g_autofree char *out = NULL;

  (void) state;
  assert_int_equal (run_validate (dir, &out), MSPERF_EXIT_OK);
  assert_non_null (strstr (out, "MatMulV2.csv:3: row equals the row at line 2 in every column "
                                "but the latency (3.5 vs 2.5 us)"));
  assert_non_null (strstr (out, "1 row skipped for an invalid latency"));
  assert_non_null (strstr (out, "zero_cost is ignored"));   /* Q15 */
}

static void
test_validate_path_rules_and_unreadable_database (void **state)
{
  g_autofree char *bad = tu_data_path ("database/bad-paths");
  g_autofree char *out = NULL;
  g_autofree char *out2 = NULL;

  (void) state;
  assert_int_equal (run_validate (bad, &out), MSPERF_EXIT_PROBLEMS);
  assert_non_null (strstr (out, "error: "));
  assert_non_null (strstr (out, "'../etc/passwd' is not a plain file stem"));
  assert_int_equal (run_validate ("/nonexistent/db", &out2), MSPERF_EXIT_USAGE);
  assert_non_null (strstr (out2, "unreadable database"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_database_real_ascend_mappings_load_with_reference_counts),
    cmocka_unit_test (test_database_missing_comm_dir_warning_names_it),
    cmocka_unit_test (test_database_entry_fields_decode),
    cmocka_unit_test (test_database_h200_sample_loads_and_tables_resolve),
    cmocka_unit_test (test_database_path_rules_reject_entries_and_keep_the_rest),
    cmocka_unit_test (test_kernel_type_is_plain_rules),
    cmocka_unit_test (test_database_symlink_escape_is_refused),
    cmocka_unit_test (test_database_communication_data_ref_resolution),
    cmocka_unit_test (test_database_communication_data_ref_stays_inside_the_database),
    cmocka_unit_test (test_database_load_warnings_for_q15_absolute_ref_and_bad_fields),
    cmocka_unit_test (test_database_open_errors),
    cmocka_unit_test (test_device_shipped_profiles_load_with_their_figures),
    cmocka_unit_test (test_device_find_by_name_path_and_alias),
    cmocka_unit_test (test_device_errors_name_file_line_and_key),
    cmocka_unit_test (test_validate_h200_sample_has_no_errors),
    cmocka_unit_test (test_validate_missing_compute_csv_is_an_error),
    cmocka_unit_test (test_validate_reports_duplicate_rows_and_skipped_rows),
    cmocka_unit_test (test_validate_path_rules_and_unreadable_database),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
