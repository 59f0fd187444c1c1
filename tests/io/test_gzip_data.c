/* Gzip-compressed kernel tables (KERNEL.csv.gz): core/io/gzip_data.c and the database's
 * resolution of KERNEL.csv then KERNEL.csv.gz. Fixture: doc/examples/h200-db/MatMulV2.csv,
 * compressed here by the importer's writer (msperf_import_gzip: the bytes `gzip -n` writes up
 * to the header). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <msperf/database.h>
#include <msperf/error.h>
#include <msperf/table.h>
#include "io/gzip_data.h"
#include "app/import/import_aic.h"

static char *
example_csv (size_t *len)
{
  const char *top = g_getenv ("MSPERF_TOP_SRCDIR");
  g_autofree char *path = g_build_filename (top ? top : MSPERF_SRCDIR, "doc", "examples",
                                            "h200-db", "MatMulV2.csv", NULL);
  char *text = NULL;
  gsize n = 0;

  assert_true (g_file_get_contents (path, &text, &n, NULL));
  *len = n;
  return text;
}

static void
test_gzip_inflate_round_trips_and_reads_concatenated_members (void **state)
{
  size_t len = 0, out_len = 0;
  g_autofree char *text = example_csv (&len);
  g_autoptr (GByteArray) gz = g_bytes_unref_to_array (msperf_import_gzip (text, len));
  g_autoptr (GByteArray) two = g_byte_array_new ();
  g_autoptr (GByteArray) half1 = g_bytes_unref_to_array (msperf_import_gzip (text, len / 2));
  g_autoptr (GByteArray) half2 = g_bytes_unref_to_array (msperf_import_gzip (text + len / 2,
                                                                              len - len / 2));
  g_autofree char *plain = NULL;
  g_autofree char *joined = NULL;
  g_autoptr (GError) error = NULL;

  (void) state;
  assert_true (msperf_gzip_is_compressed ((const char *) gz->data, gz->len));
  assert_false (msperf_gzip_is_compressed (text, len));
  plain = msperf_gzip_inflate ((const char *) gz->data, gz->len, "t.csv.gz", (size_t) 1 << 30,
                               &out_len, &error);
  assert_non_null (plain);
  assert_int_equal (out_len, len);
  assert_memory_equal (plain, text, len);
  assert_int_equal (plain[out_len], '\0');

  g_byte_array_append (two, half1->data, half1->len);
  g_byte_array_append (two, half2->data, half2->len);
  joined = msperf_gzip_inflate ((const char *) two->data, two->len, "t.csv.gz",
                                (size_t) 1 << 30, &out_len, &error);
  assert_non_null (joined);
  assert_int_equal (out_len, len);
  assert_memory_equal (joined, text, len);
}

static void
test_gzip_truncated_trailing_junk_damaged_and_bomb_are_errors (void **state)
{
  size_t len = 0, out_len = 0;
  g_autofree char *text = example_csv (&len);
  g_autoptr (GByteArray) gz = g_bytes_unref_to_array (msperf_import_gzip (text, len));
  g_autoptr (GByteArray) junk = g_byte_array_new ();
  g_autoptr (GByteArray) bad = g_byte_array_new ();
  char *r;

  (void) state;
  {
    g_autoptr (GError) error = NULL;
    r = msperf_gzip_inflate ((const char *) gz->data, gz->len - 9, "t.csv.gz", (size_t) 1 << 30,
                             &out_len, &error);
    assert_null (r);
    assert_non_null (strstr (error->message, "t.csv.gz: truncated gzip data"));
  }
  g_byte_array_append (junk, gz->data, gz->len);
  g_byte_array_append (junk, (const guint8 *) "junk", 4);
  {
    g_autoptr (GError) error = NULL;
    r = msperf_gzip_inflate ((const char *) junk->data, junk->len, "t.csv.gz", (size_t) 1 << 30,
                             &out_len, &error);
    assert_null (r);
    assert_non_null (strstr (error->message, "trailing bytes after the gzip data"));
  }
  g_byte_array_append (bad, gz->data, gz->len);
  bad->data[bad->len / 2] ^= 0x55;
  bad->data[bad->len / 2 + 1] ^= 0xaa;
  {
    g_autoptr (GError) error = NULL;
    r = msperf_gzip_inflate ((const char *) bad->data, bad->len, "t.csv.gz", (size_t) 1 << 30,
                             &out_len, &error);
    assert_null (r);
    assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE));
  }
  {
    g_autoptr (GError) error = NULL;
    r = msperf_gzip_inflate ((const char *) gz->data, gz->len, "t.csv.gz", 1000, &out_len,
                             &error);
    assert_null (r);
    assert_non_null (strstr (error->message, "inflates to more than 1000 bytes: refused"));
  }
}

/* The database finds KERNEL.csv.gz when KERNEL.csv is absent, and the table is the plain
 * CSV's: same rows, same hash (so the same answers and cache keys). */
static void
test_gzip_database_reads_csv_gz_as_the_plain_table (void **state)
{
  size_t len = 0;
  g_autofree char *text = example_csv (&len);
  g_autoptr (GByteArray) gz = g_bytes_unref_to_array (msperf_import_gzip (text, len));
  g_autofree char *dir = g_dir_make_tmp ("msperf-gz-XXXXXX", NULL);
  g_autofree char *yaml = g_build_filename (dir, "op_mapping.yaml", NULL);
  g_autofree char *gz_path = g_build_filename (dir, "MatMulV2.csv.gz", NULL);
  g_autoptr (msperf_table) plain = msperf_table_load_data (text, len, "MatMulV2.csv",
                                                           "MatMulV2", NULL);
  g_autoptr (GError) error = NULL;
  msperf_database *db;
  const msperf_table *t;

  (void) state;
  assert_non_null (dir);
  assert_true (g_file_set_contents (yaml, "version: \"1.0\"\noperator_mappings:\n"
                                    "  \"aten.mm.default\": {kernel_type: MatMulV2}\n", -1, NULL));
  assert_true (g_file_set_contents (gz_path, (const char *) gz->data, gz->len, NULL));
  db = msperf_database_open (dir, NULL, &error);
  assert_non_null (db);
  t = msperf_database_table (db, "MatMulV2", &error);
  if (t == NULL)
    fail_msg ("%s", error->message);
  assert_int_equal (msperf_table_n_rows (t), msperf_table_n_rows (plain));
  assert_int_equal (msperf_table_n_rows (t), 1092);
  assert_string_equal (msperf_table_hash (t), msperf_table_hash (plain));
  assert_string_equal (msperf_table_kernel_type (t), "MatMulV2");
  msperf_database_free (db);
  g_unlink (gz_path);
  g_unlink (yaml);
  g_rmdir (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_gzip_inflate_round_trips_and_reads_concatenated_members),
    cmocka_unit_test (test_gzip_truncated_trailing_junk_damaged_and_bomb_are_errors),
    cmocka_unit_test (test_gzip_database_reads_csv_gz_as_the_plain_table),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
