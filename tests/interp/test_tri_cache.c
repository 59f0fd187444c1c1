/* Tests of core/interp/tri_cache.c: a triangulation written and mapped back has every array
 * and every answer of the one Qhull built; a truncated, damaged, foreign or outdated file is
 * refused, warned about once and rebuilt; a missing or unwritable directory still answers. */
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
#include "interp/tri_cache.h"

#define HEADER_SIZE 168   /* file_header of tri_cache.c */

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

/* n pseudo-random points (a fixed LCG: the same set every run) in [0, 100)^dim. */
static double *
make_points (size_t n, int dim, guint32 seed)
{
  double *p = g_new (double, n * (size_t) dim);

  for (size_t i = 0; i < n * (size_t) dim; i++)
    {
      seed = seed * 1664525u + 1013904223u;
      p[i] = (double) (seed >> 8) / (double) (1u << 24) * 100.0;
    }
  return p;
}

typedef struct {
  char *dir;
  char *path;
  double *points;
  size_t n;
  int dim;
  msperf_delaunay *tri;    /* built by Qhull */
} fixture;

static int
setup_dim (void **state, int dim, size_t n)
{
  fixture *f = g_new0 (fixture, 1);

  f->dir = g_dir_make_tmp ("msperf-tri-XXXXXX", NULL);
  f->n = n;
  f->dim = dim;
  f->points = make_points (n, dim, 12345u + (guint32) dim);
  f->tri = msperf_delaunay_new (f->points, n, dim, NULL);
  f->path = msperf_tri_cache_path (f->dir, f->points, n, dim);
  assert_non_null (f->tri);
  n_warnings = 0;
  *state = f;
  return 0;
}

static int
setup3 (void **state)
{
  return setup_dim (state, 3, 600);
}

static int
setup2 (void **state)
{
  return setup_dim (state, 2, 400);
}

static int
teardown (void **state)
{
  fixture *f = *state;
  const char *name;
  GDir *d = g_dir_open (f->dir, 0, NULL);

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *p = g_build_filename (f->dir, name, NULL);
      g_unlink (p);
    }
  if (d)
    g_dir_close (d);
  g_rmdir (f->dir);
  msperf_delaunay_free (f->tri);
  g_free (f->points);
  g_free (f->path);
  g_free (f->dir);
  g_free (f);
  return 0;
}

static void
assert_same_arrays (const msperf_delaunay *a, const msperf_delaunay *b)
{
  msperf_delaunay_view va, vb;
  size_t fd, ns;

  msperf_delaunay_view_of (a, &va);
  msperf_delaunay_view_of (b, &vb);
  assert_int_equal (va.ndim, vb.ndim);
  assert_int_equal (va.nsimplex, vb.nsimplex);
  assert_int_equal (va.npoints, vb.npoints);
  fd = (size_t) va.ndim + 1;
  ns = (size_t) va.nsimplex;
  assert_memory_equal (va.points, vb.points, va.npoints * (size_t) va.ndim * sizeof (double));
  assert_memory_equal (va.simplices, vb.simplices, ns * fd * sizeof (int));
  assert_memory_equal (va.neighbors, vb.neighbors, ns * fd * sizeof (int));
  assert_memory_equal (va.equations, vb.equations, ns * (fd + 1) * sizeof (double));
  assert_memory_equal (va.transform, vb.transform, ns * fd * (size_t) va.ndim * sizeof (double));
  assert_memory_equal (va.min_bound, vb.min_bound, sizeof va.min_bound);
  assert_memory_equal (va.max_bound, vb.max_bound, sizeof va.max_bound);
  assert_memory_equal (&va.paraboloid_scale, &vb.paraboloid_scale, sizeof (double));
  assert_memory_equal (&va.paraboloid_shift, &vb.paraboloid_shift, sizeof (double));
  assert_true ((va.grid.start == NULL) == (vb.grid.start == NULL));
  if (va.grid.start == NULL)
    return;
  assert_memory_equal (va.grid.n, vb.grid.n, sizeof (int) * (size_t) va.ndim);
  assert_int_equal (va.grid.ncuts, vb.grid.ncuts);
  assert_memory_equal (va.grid.cuts, vb.grid.cuts, va.grid.ncuts * sizeof (double));
  assert_int_equal (va.grid.ncells, vb.grid.ncells);
  assert_int_equal (va.grid.nitems, vb.grid.nitems);
  assert_memory_equal (va.grid.start, vb.grid.start, (va.grid.ncells + 1) * sizeof (size_t));
  assert_memory_equal (va.grid.items, vb.grid.items, va.grid.nitems * sizeof (int));
}

/* griddata, details and find_simplex on queries inside and around the hull, bit for bit. */
static void
assert_same_answers (const fixture *f, const msperf_delaunay *b)
{
  g_autofree double *values = make_points (f->n, 1, 777u);
  g_autofree double *xi = make_points (2000, f->dim, 4242u);
  g_autofree double *ra = g_new (double, 2000), *rb = g_new (double, 2000);

  for (size_t i = 0; i < 2000 * (size_t) f->dim; i++)
    xi[i] = xi[i] * 1.1 - 5.0;   /* some outside the hull */
  assert_int_equal (msperf_interp_griddata_many (f->tri, values, xi, 2000, ra),
                    msperf_interp_griddata_many (b, values, xi, 2000, rb));
  assert_memory_equal (ra, rb, 2000 * sizeof (double));
  for (size_t q = 0; q < 2000; q++)
    {
      double oa = 0, ob = 0, wa[4] = { 0 }, wb[4] = { 0 }, ba[4] = { 0 }, bb[4] = { 0 };
      int va[4] = { 0 }, vb[4] = { 0 }, sa = -1, sb = -1;
      const double *x = xi + q * (size_t) f->dim;

      assert_int_equal (msperf_interp_griddata_details (f->tri, values, x, &oa, va, wa),
                        msperf_interp_griddata_details (b, values, x, &ob, vb, wb));
      assert_memory_equal (&oa, &ob, sizeof oa);
      assert_memory_equal (va, vb, sizeof va);
      assert_memory_equal (wa, wb, sizeof wa);
      assert_int_equal (msperf_delaunay_locate (f->tri, x, &sa, ba),
                        msperf_delaunay_locate (b, x, &sb, bb));
      assert_int_equal (sa, sb);
      assert_memory_equal (ba, bb, sizeof ba);
    }
}

static void
test_write_load_same_arrays_and_answers (void **state)
{
  fixture *f = *state;
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_delaunay) b = NULL;

  assert_true (msperf_tri_cache_write (f->path, f->tri, &error));
  b = msperf_tri_cache_load (f->path, f->points, f->n, f->dim, &error);
  assert_null (error);
  assert_non_null (b);
  if (f->dim == 3)
    assert_true (msperf_delaunay_grid_cells (b) > 0);
  assert_same_arrays (f->tri, b);
  assert_same_answers (f, b);
  assert_int_equal (n_warnings, 0);
}

static void
test_second_build_comes_from_the_file (void **state)
{
  fixture *f = *state;
  gboolean hit = TRUE;
  g_autoptr (msperf_delaunay) a = NULL, b = NULL;

  a = msperf_tri_cache_delaunay (f->dir, f->points, f->n, f->dim, &hit, NULL);
  assert_non_null (a);
  assert_false (hit);
  assert_true (g_file_test (f->path, G_FILE_TEST_IS_REGULAR));
  b = msperf_tri_cache_delaunay (f->dir, f->points, f->n, f->dim, &hit, NULL);
  assert_non_null (b);
  assert_true (hit);
  assert_same_arrays (a, b);
  assert_same_answers (f, b);
  /* Without a directory, or for a tiny set, nothing is read or written. */
  g_clear_pointer (&b, msperf_delaunay_free);
  b = msperf_tri_cache_delaunay (NULL, f->points, f->n, f->dim, &hit, NULL);
  assert_false (hit);
  assert_int_equal (n_warnings, 0);
}

static guint8 *
file_image (const fixture *f, size_t *size)
{
  char *data = NULL;
  gsize len = 0;

  assert_true (msperf_tri_cache_write (f->path, f->tri, NULL));
  assert_true (g_file_get_contents (f->path, &data, &len, NULL));
  *size = len;
  return (guint8 *) data;
}

/* The image must be refused by load (error naming the problem, containing want when not
 * NULL); through the cached build it is warned about once, rebuilt and rewritten. */
/* Only refused (no rebuild): the sweeps below check every case this way and rebuild for
 * some, so that the test stays fast under valgrind. */
static void
assert_refused (const fixture *f, const guint8 *img, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_delaunay) b = NULL;

  assert_true (g_file_set_contents (f->path, (const char *) img, (gssize) size, NULL));
  b = msperf_tri_cache_load (f->path, f->points, f->n, f->dim, &error);
  assert_null (b);
  assert_non_null (error);
}

static void
assert_refused_and_rebuilt (const fixture *f, const guint8 *img, size_t size, const char *want)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_delaunay) b = NULL, again = NULL;
  gboolean hit = TRUE;

  assert_true (g_file_set_contents (f->path, (const char *) img, (gssize) size, NULL));
  b = msperf_tri_cache_load (f->path, f->points, f->n, f->dim, &error);
  assert_null (b);
  assert_non_null (error);
  if (want && strstr (error->message, want) == NULL)
    fail_msg ("'%s' does not say '%s'", error->message, want);
  n_warnings = 0;
  b = msperf_tri_cache_delaunay (f->dir, f->points, f->n, f->dim, &hit, NULL);
  assert_non_null (b);
  assert_false (hit);
  assert_int_equal (n_warnings, 1);
  assert_same_arrays (f->tri, b);
  again = msperf_tri_cache_load (f->path, f->points, f->n, f->dim, NULL);
  assert_non_null (again);
}

static void
test_truncated_files_are_rebuilt (void **state)
{
  fixture *f = *state;
  size_t size, cuts[64], nc = 0;
  g_autofree guint8 *img = file_image (f, &size);

  /* Empty, inside the header, at its end, in the section table, in every section, short of
   * the end by one. */
  cuts[nc++] = 0;
  cuts[nc++] = 1;
  cuts[nc++] = 7;
  cuts[nc++] = HEADER_SIZE - 1;
  cuts[nc++] = HEADER_SIZE;
  cuts[nc++] = HEADER_SIZE + 24;
  for (size_t k = 1; k < 40; k++)
    cuts[nc++] = HEADER_SIZE + k * (size - HEADER_SIZE) / 40;
  cuts[nc++] = size - 8;
  cuts[nc++] = size - 1;
  for (size_t k = 0; k < nc; k++)
    if (k % 8 == 0 || k + 1 == nc)
      assert_refused_and_rebuilt (f, img, cuts[k], NULL);
    else
      assert_refused (f, img, cuts[k]);
  /* One byte more is no better. */
  {
    g_autofree guint8 *longer = g_malloc0 (size + 1);
    memcpy (longer, img, size);
    assert_refused_and_rebuilt (f, longer, size + 1, "truncated or extended");
  }
}

static void
test_flipped_bytes_are_rebuilt (void **state)
{
  fixture *f = *state;
  size_t size;
  g_autofree guint8 *img = file_image (f, &size);
  /* Every header byte, then bytes spread over the whole file. */
  size_t k = 0;

  for (size_t at = 0; at < size; at = at < HEADER_SIZE + 48 ? at + 1 : at + size / 97, k++)
    {
      img[at] ^= 0x10;
      if (k % 32 == 0)
        assert_refused_and_rebuilt (f, img, size, NULL);
      else
        assert_refused (f, img, size);
      img[at] ^= 0x10;
    }
}

static void
test_wrong_version_and_foreign_files_are_rebuilt (void **state)
{
  fixture *f = *state;
  size_t size;
  g_autofree guint8 *img = file_image (f, &size);
  g_autofree double *other = g_memdup2 (f->points, f->n * (size_t) f->dim * sizeof (double));
  g_autofree char *other_path = NULL;
  guint32 format = MSPERF_TRI_CACHE_FORMAT + 1;
  g_autoptr (GError) error = NULL;

  memcpy (img + 8, &format, sizeof format);
  msperf_tri_cache_seal (img, size, f->points, f->n, f->dim);
  assert_refused_and_rebuilt (f, img, size, "format version");
  format = MSPERF_TRI_CACHE_FORMAT;
  memcpy (img + 8, &format, sizeof format);
  memcpy (img, "NOTMSPT", 8);
  assert_refused_and_rebuilt (f, img, size, "bad magic");
  memcpy (img, "MSPTRIC", 8);
  msperf_tri_cache_seal (img, size, f->points, f->n, f->dim);
  /* Another point set's file under this one's name (one coordinate differs: the wrong
   * points), and this one's file for other points. */
  other[5] += 1.0;
  other_path = msperf_tri_cache_path (f->dir, other, f->n, f->dim);
  assert_string_not_equal (other_path, f->path);
  assert_true (g_file_set_contents (f->path, (const char *) img, (gssize) size, NULL));
  {
    g_autoptr (msperf_delaunay) ok = msperf_tri_cache_load (f->path, f->points, f->n, f->dim,
                                                            NULL);
    assert_non_null (ok);
  }
  assert_null (msperf_tri_cache_load (f->path, other, f->n, f->dim, &error));
  assert_non_null (strstr (error->message, "foreign"));
  assert_true (g_file_set_contents (other_path, (const char *) img, (gssize) size, NULL));
  {
    g_clear_error (&error);
    assert_null (msperf_tri_cache_load (other_path, other, f->n, f->dim, &error));
    assert_non_null (strstr (error->message, "foreign"));
    n_warnings = 0;
    {
      gboolean hit = TRUE;
      g_autoptr (msperf_delaunay) b = msperf_tri_cache_delaunay (f->dir, other, f->n, f->dim,
                                                                 &hit, NULL);
      assert_non_null (b);
      assert_false (hit);
      assert_int_equal (n_warnings, 1);
    }
  }
}

/* Sealed files with a damaged structure: the checks behind the checksum. */
static void
test_sealed_bad_structure_is_rebuilt (void **state)
{
  fixture *f = *state;
  size_t size;
  g_autofree guint8 *img = file_image (f, &size);
  g_autofree guint8 *copy = NULL;
  guint64 offset;
  int bad_index = 1 << 30;
  double bad_point = -1.0;

  /* Section table entries (id, size, count, offset): 0 points, 1 simplices, 2 neighbours,
   * 3 equations, 4 transforms, 5-8 the grid (n, cuts, start, items). */
  memcpy (&offset, img + HEADER_SIZE + 24 * 1 + 16, 8);
  copy = g_memdup2 (img, size);
  memcpy (copy + offset, &bad_index, sizeof bad_index);
  msperf_tri_cache_seal (copy, size, f->points, f->n, f->dim);
  assert_refused_and_rebuilt (f, copy, size, "simplex vertex");

  memcpy (&offset, img + HEADER_SIZE + 24 * 2 + 16, 8);
  memcpy (copy, img, size);
  memcpy (copy + offset, &bad_index, sizeof bad_index);
  msperf_tri_cache_seal (copy, size, f->points, f->n, f->dim);
  assert_refused_and_rebuilt (f, copy, size, "neighbour");

  memcpy (&offset, img + HEADER_SIZE + 16, 8);
  memcpy (copy, img, size);
  memcpy (copy + offset, &bad_point, sizeof bad_point);
  msperf_tri_cache_seal (copy, size, f->points, f->n, f->dim);
  assert_refused_and_rebuilt (f, copy, size, "points differ");

  /* A section offset past the end. */
  memcpy (copy, img, size);
  offset = size;
  memcpy (copy + HEADER_SIZE + 24 * 3 + 16, &offset, 8);
  msperf_tri_cache_seal (copy, size, f->points, f->n, f->dim);
  assert_refused_and_rebuilt (f, copy, size, "past the end");

  /* Grid: an item that is no simplex (the last 4 bytes of the items are an item or pad). */
  if (f->dim == 3)
    {
      guint64 count;

      memcpy (copy, img, size);
      memcpy (&offset, img + HEADER_SIZE + 24 * 8 + 16, 8);
      memcpy (&count, img + HEADER_SIZE + 24 * 8 + 8, 8);
      memcpy (copy + offset + (count - 1) * sizeof (int), &bad_index, sizeof bad_index);
      msperf_tri_cache_seal (copy, size, f->points, f->n, f->dim);
      assert_refused_and_rebuilt (f, copy, size, "grid item");

      /* Grid: a NaN cut (the binary search of grid_cell needs ordered cuts). */
      memcpy (copy, img, size);
      memcpy (&offset, img + HEADER_SIZE + 24 * 6 + 16, 8);
      memcpy (&count, img + HEADER_SIZE + 24 * 6 + 8, 8);
      assert_true (count > 0);
      memcpy (copy + offset, &(double){ NAN }, sizeof (double));
      msperf_tri_cache_seal (copy, size, f->points, f->n, f->dim);
      assert_refused_and_rebuilt (f, copy, size, "cuts are not ordered");
    }
}

static void
test_missing_or_unwritable_dir_still_answers (void **state)
{
  fixture *f = *state;
  g_autofree char *missing = g_build_filename (f->dir, "a", "b", NULL);
  g_autofree char *file = g_build_filename (f->dir, "plain-file", NULL);
  g_autofree char *under_file = g_build_filename (file, "cache", NULL);
  g_autoptr (msperf_delaunay) a = NULL, b = NULL;
  gboolean hit = TRUE;

  /* A missing directory is made. */
  a = msperf_tri_cache_delaunay (missing, f->points, f->n, f->dim, &hit, NULL);
  assert_non_null (a);
  assert_false (hit);
  assert_int_equal (n_warnings, 0);
  g_clear_pointer (&a, msperf_delaunay_free);
  a = msperf_tri_cache_delaunay (missing, f->points, f->n, f->dim, &hit, NULL);
  assert_true (hit);
  /* One that cannot be made (a file is in the way; works as root too): answers, warns at
   * most once per process. */
  assert_true (g_file_set_contents (file, "x", 1, NULL));
  b = msperf_tri_cache_delaunay (under_file, f->points, f->n, f->dim, &hit, NULL);
  assert_non_null (b);
  assert_false (hit);
  assert_same_arrays (f->tri, b);
  g_clear_pointer (&b, msperf_delaunay_free);
  b = msperf_tri_cache_delaunay (under_file, f->points, f->n, f->dim, &hit, NULL);
  assert_non_null (b);
  assert_true (n_warnings <= 1);
  g_clear_pointer (&a, msperf_delaunay_free);
  {
    g_autofree char *p = msperf_tri_cache_path (missing, f->points, f->n, f->dim);
    g_autofree char *b1 = g_build_filename (f->dir, "a", NULL);
    g_unlink (p);
    g_rmdir (missing);
    g_rmdir (b1);
  }
}

static void
test_key_depends_on_order_and_shape (void **state)
{
  fixture *f = *state;
  g_autofree char *k = msperf_tri_cache_key (f->points, f->n, f->dim);
  g_autofree double *swapped = g_memdup2 (f->points, f->n * (size_t) f->dim * sizeof (double));
  g_autofree char *k_swap = NULL, *k_fewer = NULL;

  for (int j = 0; j < f->dim; j++)
    {
      double t = swapped[j];
      swapped[j] = swapped[(size_t) f->dim + (size_t) j];
      swapped[(size_t) f->dim + (size_t) j] = t;
    }
  k_swap = msperf_tri_cache_key (swapped, f->n, f->dim);
  k_fewer = msperf_tri_cache_key (f->points, f->n - 1, f->dim);
  assert_int_equal (strlen (k), 64);
  assert_string_not_equal (k, k_swap);
  assert_string_not_equal (k, k_fewer);
}

#define TF(fn) cmocka_unit_test_setup_teardown (fn, setup3, teardown), \
               cmocka_unit_test_setup_teardown (fn, setup2, teardown)

int
main (void)
{
  const struct CMUnitTest tests[] = {
    TF (test_write_load_same_arrays_and_answers),
    TF (test_second_build_comes_from_the_file),
    TF (test_truncated_files_are_rebuilt),
    TF (test_flipped_bytes_are_rebuilt),
    TF (test_wrong_version_and_foreign_files_are_rebuilt),
    TF (test_sealed_bad_structure_is_rebuilt),
    TF (test_missing_or_unwritable_dir_still_answers),
    TF (test_key_depends_on_order_and_shape),
  };

  g_log_set_writer_func (count_writer, NULL, NULL);
  return cmocka_run_group_tests (tests, NULL, NULL);
}
