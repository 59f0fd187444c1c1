/* Tests of core/io/table_cache.c: a table written and mapped back has every cell, row, slot,
 * problem and index of the one parsed from the CSV; a changed CSV gets another key (never the
 * stale image); a truncated, damaged, foreign or outdated image is refused, warned about once
 * and rebuilt; an unwritable directory still loads. Also the per-table column memo
 * (msperf_table_column_parsed, msperf_table_rows_in_range). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <msperf/error.h>
#include "io/table_cache.h"
#include "io/gzip_data.h"
#include "app/import/import_aic.h"

#define HEADER_SIZE 96   /* file_header of table_cache.c */

static int n_warnings;

static GLogWriterOutput
count_writer (GLogLevelFlags level, const GLogField *fields, gsize n, gpointer data)
{
  (void) fields;
  (void) n;
  (void) data;
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR))
    fail_msg ("critical log message");
  if (level & G_LOG_LEVEL_WARNING)
    n_warnings++;
  return G_LOG_WRITER_HANDLED;
}

/* Two input slots (one empty, dropped by the Q1 fix), a repeated dtype, a row without a
 * latency, a ragged row (a problem), quoted cells and a multi-byte name. */
static const char csv[] =
  "Input Shapes,Input Data Types,Input Formats,Output Shapes,Average Duration(us),Runtime x,Note\n"
  "\"128,256;256,512\",DT_BF16;DT_BF16,ND;ND,\"128,512\",10.5,3,a\n"
  "\"64,256;;256,512\",DT_BF16;DT_FLOAT;DT_BF16,ND;ND;ND,\"64,512\",7.25,1,b\n"
  "\"32,256;256,512\",DT_FLOAT16;DT_FLOAT16,ND;ND,\"32,512\",,2,c\n"
  "ragged,row\n"
  "\"16,256;256,512\",DT_BF16;DT_BF16,ND;ND,\"16,512\",2.5,nan,\"d\xc3\xa9\"\n"
  "\"8,256;256,512\",DT_BF16;DT_BF16,ND;ND,\"8,512\",1.5,2,e\n";

typedef struct {
  char *dir;       /* the cache directory */
  char *csv_dir;
  char *path;      /* the CSV */
} fixture;

static int
setup (void **state)
{
  fixture *f = g_new0 (fixture, 1);

  f->dir = g_dir_make_tmp ("msperf-tbl-XXXXXX", NULL);
  f->csv_dir = g_dir_make_tmp ("msperf-csv-XXXXXX", NULL);
  f->path = g_build_filename (f->csv_dir, "MatMulV2.csv", NULL);
  assert_true (g_file_set_contents (f->path, csv, -1, NULL));
  n_warnings = 0;
  *state = f;
  return 0;
}

static void
remove_dir (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);

      g_unlink (p);
    }
  g_dir_close (d);
  g_rmdir (dir);
}

static int
teardown (void **state)
{
  fixture *f = *state;

  remove_dir (f->dir);
  remove_dir (f->csv_dir);
  g_free (f->dir);
  g_free (f->csv_dir);
  g_free (f->path);
  g_free (f);
  return 0;
}

/* The one image file of the directory (NULL when none). Transfer full. */
static char *
image_of (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;
  char *found = NULL;
  int n = 0;

  if (d == NULL)
    return NULL;
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".table"))
      {
        g_free (found);
        found = g_build_filename (dir, name, NULL);
        n++;
      }
  g_dir_close (d);
  assert_true (n <= 1);
  return found;
}

static void
assert_same_table (const msperf_table *a, const msperf_table *b)
{
  assert_string_equal (msperf_table_kernel_type (a), msperf_table_kernel_type (b));
  assert_string_equal (msperf_table_path (a), msperf_table_path (b));
  assert_string_equal (msperf_table_hash (a), msperf_table_hash (b));
  assert_int_equal (msperf_table_n_rows (a), msperf_table_n_rows (b));
  assert_int_equal (msperf_table_n_columns (a), msperf_table_n_columns (b));
  assert_int_equal (msperf_table_n_skipped (a), msperf_table_n_skipped (b));
  assert_int_equal (msperf_table_first_skipped_line (a), msperf_table_first_skipped_line (b));
  for (size_t c = 0; c < msperf_table_n_columns (a); c++)
    {
      const char *name = msperf_table_column_name (a, c);

      assert_string_equal (name, msperf_table_column_name (b, c));
      assert_int_equal (msperf_table_column (a, name), msperf_table_column (b, name));
    }
  assert_int_equal (msperf_table_problems (a)->len, msperf_table_problems (b)->len);
  for (guint k = 0; k < msperf_table_problems (a)->len; k++)
    assert_string_equal (g_ptr_array_index (msperf_table_problems (a), k),
                         g_ptr_array_index (msperf_table_problems (b), k));
  for (size_t r = 0; r < msperf_table_n_rows (a); r++)
    {
      const msperf_slots *ia = msperf_table_row_inputs (a, r), *ib = msperf_table_row_inputs (b, r);
      const msperf_slots *oa = msperf_table_row_outputs (a, r);
      const msperf_slots *ob = msperf_table_row_outputs (b, r);

      assert_int_equal (msperf_table_row_line (a, r), msperf_table_row_line (b, r));
      assert_int_equal (msperf_table_row_latency_column (a, r),
                        msperf_table_row_latency_column (b, r));
      assert_true (msperf_table_row_latency (a, r) == msperf_table_row_latency (b, r));
      assert_int_equal (msperf_table_row_valid (a, r), msperf_table_row_valid (b, r));
      for (size_t c = 0; c < msperf_table_n_columns (a); c++)
        assert_string_equal (msperf_table_cell (a, r, (int) c), msperf_table_cell (b, r, (int) c));
      assert_int_equal (ia->n, ib->n);
      assert_int_equal (oa->n, ob->n);
      for (size_t i = 0; i < ia->n; i++)
        {
          assert_int_equal (ia->t[i].rank, ib->t[i].rank);
          assert_int_equal (ia->t[i].dtype, ib->t[i].dtype);
          assert_int_equal (ia->t[i].format, ib->t[i].format);
          assert_memory_equal (ia->t[i].dims, ib->t[i].dims, sizeof ia->t[i].dims);
          assert_null (ib->t[i].values);
        }
      for (size_t i = 0; i < oa->n; i++)
        assert_memory_equal (oa->t[i].dims, ob->t[i].dims, sizeof oa->t[i].dims);
    }
  {
    g_autoptr (GArray) ra = g_array_new (FALSE, FALSE, sizeof (size_t));
    g_autoptr (GArray) rb = g_array_new (FALSE, FALSE, sizeof (size_t));

    msperf_table_rows_by_input_numel (a, 0, UINT64_MAX, ra);
    msperf_table_rows_by_input_numel (b, 0, UINT64_MAX, rb);
    assert_int_equal (ra->len, rb->len);
    assert_memory_equal (ra->data, rb->data, ra->len * sizeof (size_t));
  }
}

static msperf_table *
load (const fixture *f, const char *dir)
{
  GError *error = NULL;
  msperf_table *t = msperf_table_load_cached (f->path, NULL, dir, &error);

  assert_null (error);
  assert_non_null (t);
  return t;
}

static void
test_image_is_the_parsed_table (void **state)
{
  fixture *f = *state;
  g_autoptr (msperf_table) plain = load (f, NULL);
  g_autoptr (msperf_table) cold = NULL, warm = NULL;
  g_autofree char *image = NULL;

  assert_null (image_of (f->dir));
  cold = load (f, f->dir);
  image = image_of (f->dir);
  assert_non_null (image);
  warm = load (f, f->dir);
  assert_same_table (plain, cold);
  assert_same_table (plain, warm);
  assert_int_equal (msperf_table_n_rows (warm), 5);
  assert_int_equal (msperf_table_problems (warm)->len, 1);
  assert_int_equal (n_warnings, 0);
}

/* The key covers the bytes, the path and the kernel type: a changed CSV is a new image. */
static void
test_changed_csv_is_never_served_stale (void **state)
{
  fixture *f = *state;
  g_autoptr (msperf_table) before = load (f, f->dir);
  g_autoptr (msperf_table) after = NULL;
  g_autofree char *k1 = msperf_table_cache_key (f->path, NULL, csv, strlen (csv));
  g_autofree char *k2 = msperf_table_cache_key (f->path, "Other", csv, strlen (csv));
  g_autofree char *k3 = msperf_table_cache_key ("x/MatMulV2.csv", NULL, csv, strlen (csv));
  g_autofree char *changed = g_strdup (csv);
  g_autofree char *k4 = NULL;
  char *p = strstr (changed, "10.5");

  assert_string_not_equal (k1, k2);
  assert_string_not_equal (k1, k3);
  p[0] = '9';
  k4 = msperf_table_cache_key (f->path, NULL, changed, strlen (changed));
  assert_string_not_equal (k1, k4);
  assert_true (g_file_set_contents (f->path, changed, -1, NULL));
  after = load (f, f->dir);
  assert_true (msperf_table_row_latency (before, 0) == 10.5);
  assert_true (msperf_table_row_latency (after, 0) == 90.5);
  assert_string_not_equal (msperf_table_hash (before), msperf_table_hash (after));
  assert_int_equal (n_warnings, 0);
}

/* A gzip-compressed CSV: keyed by its compressed bytes, the image that of the plain CSV. */
static void
test_gzip_table_is_cached (void **state)
{
  fixture *f = *state;
  g_autoptr (msperf_table) plain = load (f, NULL);
  g_autofree char *gz = g_strconcat (f->path, ".gz", NULL);
  g_autoptr (GByteArray) bytes = g_bytes_unref_to_array (msperf_import_gzip (csv, strlen (csv)));
  g_autoptr (msperf_table) a = NULL, b = NULL;
  GError *error = NULL;

  assert_true (g_file_set_contents (gz, (const char *) bytes->data, bytes->len, NULL));
  a = msperf_table_load_cached (gz, "MatMulV2", f->dir, &error);
  assert_null (error);
  b = msperf_table_load_cached (gz, "MatMulV2", f->dir, &error);
  assert_null (error);
  assert_string_equal (msperf_table_hash (plain), msperf_table_hash (b));
  assert_int_equal (msperf_table_n_rows (plain), msperf_table_n_rows (b));
  assert_string_equal (msperf_table_cell (plain, 4, 6), msperf_table_cell (b, 4, 6));
  g_unlink (gz);
}

/* Loads with the cache after damaging the image: one warning, the same table, and a fresh
 * image for the next load (which warns no more). */
static void
assert_rebuilt (fixture *f, const msperf_table *plain, const char *want_in_message)
{
  g_autofree char *image = image_of (f->dir);
  g_autofree char *key = msperf_table_cache_key (f->path, NULL, csv, strlen (csv));
  GError *error = NULL;
  msperf_table *direct;

  assert_non_null (image);
  direct = msperf_table_cache_load (image, key, f->path, NULL, &error);
  assert_null (direct);
  assert_non_null (error);
  if (want_in_message && strstr (error->message, want_in_message) == NULL)
    fail_msg ("'%s' does not say '%s'", error->message, want_in_message);
  g_clear_error (&error);
  n_warnings = 0;
  {
    g_autoptr (msperf_table) t = load (f, f->dir);

    assert_int_equal (n_warnings, 1);
    assert_same_table (plain, t);
  }
  {
    g_autoptr (msperf_table) t = load (f, f->dir);

    assert_int_equal (n_warnings, 1);
    assert_same_table (plain, t);
  }
  direct = msperf_table_cache_load (image, key, f->path, NULL, &error);
  assert_null (error);
  assert_non_null (direct);
  msperf_table_free (direct);
}

static void
read_image (const fixture *f, guint8 **data, gsize *len)
{
  g_autofree char *image = image_of (f->dir);

  assert_true (g_file_get_contents (image, (char **) data, len, NULL));
}

static void
write_image (const fixture *f, const guint8 *data, gsize len)
{
  g_autofree char *image = image_of (f->dir);

  assert_true (g_file_set_contents (image, (const char *) data, (gssize) len, NULL));
}

static void
test_truncated_images_are_rebuilt (void **state)
{
  fixture *f = *state;
  g_autoptr (msperf_table) plain = load (f, NULL);
  const gsize cuts[] = { 0, 10, HEADER_SIZE - 1, HEADER_SIZE + 5, 0 /* len - 8 */ };

  for (size_t k = 0; k < G_N_ELEMENTS (cuts); k++)
    {
      g_autofree guint8 *data = NULL;
      gsize len;

      msperf_table_free (load (f, f->dir));
      read_image (f, &data, &len);
      write_image (f, data, k + 1 == G_N_ELEMENTS (cuts) ? len - 8 : cuts[k]);
      assert_rebuilt (f, plain, k < 3 ? "truncated" : NULL);
    }
}

static void
test_flipped_bytes_are_rebuilt (void **state)
{
  fixture *f = *state;
  g_autoptr (msperf_table) plain = load (f, NULL);
  g_autofree guint8 *data = NULL;
  gsize len;

  msperf_table_free (load (f, f->dir));
  read_image (f, &data, &len);
  for (gsize at = HEADER_SIZE; at < len; at += 97)
    {
      g_autofree guint8 *copy = g_memdup2 (data, len);

      copy[at] ^= 0x5a;
      write_image (f, copy, len);
      assert_rebuilt (f, plain, NULL);
    }
}

static void
test_wrong_version_and_foreign_images_are_rebuilt (void **state)
{
  fixture *f = *state;
  g_autoptr (msperf_table) plain = load (f, NULL);
  g_autofree guint8 *data = NULL;
  gsize len;
  guint32 format = MSPERF_TABLE_CACHE_FORMAT + 1;

  msperf_table_free (load (f, f->dir));
  read_image (f, &data, &len);
  {
    g_autofree guint8 *copy = g_memdup2 (data, len);

    memcpy (copy + 8, &format, sizeof format);
    msperf_table_cache_seal (copy, len);
    write_image (f, copy, len);
    assert_rebuilt (f, plain, "format version");
  }
  {
    g_autofree guint8 *copy = g_memdup2 (data, len);

    copy[40] ^= 1;   /* the key */
    msperf_table_cache_seal (copy, len);
    write_image (f, copy, len);
    assert_rebuilt (f, plain, "foreign");
  }
  {
    g_autofree guint8 *copy = g_memdup2 (data, len);

    copy[0] = 'X';
    msperf_table_cache_seal (copy, len);
    write_image (f, copy, len);
    assert_rebuilt (f, plain, "magic");
  }
}

/* Damage behind a valid checksum: the structural checks refuse it, nothing reads out of
 * bounds (ASan/valgrind runs of this test say so). */
static void
test_sealed_bad_structure_is_rebuilt (void **state)
{
  fixture *f = *state;
  g_autoptr (msperf_table) plain = load (f, NULL);
  g_autofree guint8 *data = NULL;
  gsize len;
  guint32 nsec;

  msperf_table_free (load (f, f->dir));
  read_image (f, &data, &len);
  memcpy (&nsec, data + 16, sizeof nsec);
  /* Every field of every section entry (id, element size, count, offset), set to a large
   * value in turn. */
  for (guint32 s = 0; s < nsec; s++)
    for (gsize field = 0; field < 24; field += 4)
      {
        g_autofree guint8 *copy = g_memdup2 (data, len);
        gsize at = HEADER_SIZE + s * 24 + field;

        copy[at + 2] ^= 0x7f;
        msperf_table_cache_seal (copy, len);
        write_image (f, copy, len);
        assert_rebuilt (f, plain, NULL);
      }
  /* Every byte of the sections, each set to 0xff: refused or, when the byte is free text,
   * a valid table; never a crash. */
  for (gsize at = HEADER_SIZE + nsec * 24; at < len; at++)
    {
      g_autofree guint8 *copy = g_memdup2 (data, len);
      g_autofree char *image = image_of (f->dir);
      g_autofree char *key = msperf_table_cache_key (f->path, NULL, csv, strlen (csv));
      GError *error = NULL;
      msperf_table *t;

      copy[at] = 0xff;
      msperf_table_cache_seal (copy, len);
      write_image (f, copy, len);
      t = msperf_table_cache_load (image, key, f->path, NULL, &error);
      assert_true ((t == NULL) != (error == NULL));
      if (t)
        {
          for (size_t r = 0; r < msperf_table_n_rows (t); r++)
            for (size_t c = 0; c < msperf_table_n_columns (t); c++)
              assert_non_null (msperf_table_cell (t, r, (int) c));
          msperf_table_free (t);
        }
      g_clear_error (&error);
    }
}

static void
test_missing_or_unwritable_dir_still_loads (void **state)
{
  fixture *f = *state;
  g_autoptr (msperf_table) plain = load (f, NULL);
  g_autofree char *file = g_build_filename (f->dir, "plain-file", NULL);
  g_autofree char *under = g_build_filename (file, "sub", NULL);
  g_autofree char *fresh = g_build_filename (f->dir, "new", "deeper", NULL);

  assert_true (g_file_set_contents (file, "x", 1, NULL));
  {
    g_autoptr (msperf_table) t = load (f, under);

    assert_same_table (plain, t);
    assert_true (n_warnings <= 1);
  }
  {
    g_autoptr (msperf_table) t = load (f, fresh);
    g_autofree char *image = NULL;
    g_autofree char *parent = g_path_get_dirname (fresh);

    assert_same_table (plain, t);
    image = image_of (fresh);
    assert_non_null (image);
    g_unlink (image);
    g_rmdir (fresh);
    g_rmdir (parent);
    g_unlink (file);
  }
}

static double
parse_number (const char *cell)
{
  char *end;
  double v = g_ascii_strtod (cell, &end);

  return end != cell && *end == '\0' ? v : NAN;
}

static double
parse_length (const char *cell)
{
  return (double) strlen (cell);
}

static void
test_column_memo_and_ranges (void **state)
{
  fixture *f = *state;
  g_autoptr (msperf_table) t = load (f, NULL);
  int col = msperf_table_column (t, "Runtime x");
  const double *v = msperf_table_column_parsed (t, col, parse_number);
  const double *len = msperf_table_column_parsed (t, col, parse_length);
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (size_t));

  assert_non_null (v);
  assert_ptr_equal (v, msperf_table_column_parsed (t, col, parse_number));
  assert_ptr_not_equal (v, len);
  assert_null (msperf_table_column_parsed (t, -1, parse_number));
  assert_null (msperf_table_column_parsed (t, 99, parse_number));
  /* rows: x = 3, 1, 2, "nan" (NaN), 2 (the ragged line is no row) */
  assert_true (v[0] == 3 && v[1] == 1 && v[2] == 2 && isnan (v[3]) && v[4] == 2);
  assert_int_equal (msperf_table_rows_in_range (t, col, parse_number, 2, 3, rows), 3);
  assert_int_equal (g_array_index (rows, size_t, 0), 0);
  assert_int_equal (g_array_index (rows, size_t, 1), 2);
  assert_int_equal (g_array_index (rows, size_t, 2), 4);
  g_array_set_size (rows, 0);
  assert_int_equal (msperf_table_rows_in_range (t, col, parse_number, -INFINITY, INFINITY, rows),
                    4);
  g_array_set_size (rows, 0);
  assert_int_equal (msperf_table_rows_in_range (t, col, parse_number, 1.5, 1.9, rows), 0);
  assert_int_equal (msperf_table_rows_in_range (t, col, parse_number, 3, 2, rows), 0);
  assert_int_equal (msperf_table_rows_in_range (t, col, parse_number, NAN, 2, rows), 0);
  assert_int_equal (msperf_table_rows_in_range (t, -1, parse_number, 0, 9, rows), 0);
  assert_int_equal (rows->len, 0);
}

#define TF(f) cmocka_unit_test_setup_teardown (f, setup, teardown)

int
main (void)
{
  const struct CMUnitTest tests[] = {
    TF (test_image_is_the_parsed_table),
    TF (test_changed_csv_is_never_served_stale),
    TF (test_gzip_table_is_cached),
    TF (test_truncated_images_are_rebuilt),
    TF (test_flipped_bytes_are_rebuilt),
    TF (test_wrong_version_and_foreign_images_are_rebuilt),
    TF (test_sealed_bad_structure_is_rebuilt),
    TF (test_missing_or_unwritable_dir_still_loads),
    TF (test_column_memo_and_ranges),
  };

  g_log_set_writer_func (count_writer, NULL, NULL);
  return cmocka_run_group_tests (tests, NULL, NULL);
}
