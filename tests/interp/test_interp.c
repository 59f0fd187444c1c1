/* Tests of core/interp.c: boundaries, 1-D linear, aggregation, and bit-for-bit agreement with
 * scipy's griddata / Delaunay.find_simplex on the golden fixtures of tests/data/interp/
 * (generated once by tests/gen_griddata_golden.py with Debian 12's scipy 1.10.1). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <msperf/error.h>
#include "interp/interp.h"
#include "interp/bruteforce_check.h"

/* ====================================================================== fixtures */

typedef struct {
  int dim;
  size_t npoints;
  double *points;
  double *values;
  gboolean degenerate;
  int nsimplex;          /* -1 when absent */
  size_t nlisted;        /* simplices listed (0: none) */
  int *simplices;
  size_t nqueries;
  double *x;             /* nqueries × dim */
  double *single;        /* griddata one query per call (D ≥ 2) / interp1d (D = 1) */
  double *batch;         /* griddata on all queries (D ≥ 2) / numpy.interp (D = 1) */
  int *simplex;          /* find_simplex */
  int *vertices;         /* nqueries × (dim + 1); -1 when outside */
} golden;

static void
golden_free (golden *g)
{
  if (!g)
    return;
  g_free (g->points);
  g_free (g->values);
  g_free (g->simplices);
  g_free (g->x);
  g_free (g->single);
  g_free (g->batch);
  g_free (g->simplex);
  g_free (g->vertices);
  g_free (g);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (golden, golden_free)

typedef struct {
  gchar **tok;
  size_t i;
} scanner;

static const char *
next_tok (scanner *s)
{
  while (s->tok[s->i] && s->tok[s->i][0] == '\0')
    s->i++;
  assert_non_null (s->tok[s->i]);
  return s->tok[s->i++];
}

static double
next_double (scanner *s)
{
  const char *t = next_tok (s);
  char *end = NULL;
  double v = g_ascii_strtod (t, &end);
  assert_true (end != t && *end == '\0');
  return v;
}

static long
next_long (scanner *s)
{
  const char *t = next_tok (s);
  char *end = NULL;
  long v = strtol (t, &end, 10);
  assert_true (end != t && *end == '\0');
  return v;
}

static void
expect_word (scanner *s, const char *word)
{
  assert_string_equal (next_tok (s), word);
}

static golden *
golden_load (const char *name)
{
  const char *dir = g_getenv ("MSPERF_TEST_DATADIR");
  g_autofree char *path = NULL, *text = NULL, *clean = NULL;
  g_autoptr (GString) body = g_string_new (NULL);
  g_auto (GStrv) lines = NULL;
  g_autoptr (GError) error = NULL;
  golden *g = g_new0 (golden, 1);
  scanner s = { NULL, 0 };
  const char *build;
  size_t nv;

  assert_non_null (dir);
  path = g_strdup_printf ("%s/interp/%s.txt", dir, name);
  assert_true (g_file_get_contents (path, &text, NULL, &error));
  /* Drop comment lines, then scan whitespace-separated tokens. */
  lines = g_strsplit (text, "\n", -1);
  for (size_t i = 0; lines[i]; i++)
    if (lines[i][0] != '#')
      g_string_append_printf (body, "%s ", lines[i]);
  s.tok = g_strsplit_set (body->str, " \t\r", -1);

  expect_word (&s, "dim");
  g->dim = (int) next_long (&s);
  expect_word (&s, "points");
  g->npoints = (size_t) next_long (&s);
  g->points = g_new (double, g->npoints * (size_t) g->dim);
  for (size_t i = 0; i < g->npoints * (size_t) g->dim; i++)
    g->points[i] = next_double (&s);
  expect_word (&s, "values");
  assert_int_equal (next_long (&s), g->npoints);
  g->values = g_new (double, g->npoints);
  for (size_t i = 0; i < g->npoints; i++)
    g->values[i] = next_double (&s);
  expect_word (&s, "build");
  build = next_tok (&s);
  g->degenerate = strcmp (build, "degenerate") == 0;
  g->nsimplex = -1;
  for (;;)
    {
      const char *w = next_tok (&s);
      if (strcmp (w, "nsimplex") == 0)
        g->nsimplex = (int) next_long (&s);
      else if (strcmp (w, "simplices") == 0)
        {
          g->nlisted = (size_t) next_long (&s);
          g->simplices = g_new (int, g->nlisted * (size_t) (g->dim + 1));
          for (size_t i = 0; i < g->nlisted * (size_t) (g->dim + 1); i++)
            g->simplices[i] = (int) next_long (&s);
        }
      else
        {
          assert_string_equal (w, "queries");
          break;
        }
    }
  g->nqueries = (size_t) next_long (&s);
  nv = (size_t) (g->dim + 1);
  g->x = g_new (double, g->nqueries * (size_t) g->dim + 1);
  g->single = g_new (double, g->nqueries + 1);
  g->batch = g_new (double, g->nqueries + 1);
  g->simplex = g_new (int, g->nqueries + 1);
  g->vertices = g_new (int, g->nqueries * nv + 1);
  for (size_t q = 0; q < g->nqueries; q++)
    {
      for (int k = 0; k < g->dim; k++)
        g->x[q * (size_t) g->dim + (size_t) k] = next_double (&s);
      g->single[q] = next_double (&s);
      g->batch[q] = next_double (&s);
      if (g->dim == 1)
        continue;
      g->simplex[q] = (int) next_long (&s);
      for (size_t k = 0; k < nv; k++)
        g->vertices[q * nv + k] = g->simplex[q] >= 0 ? (int) next_long (&s) : -1;
    }
  g_strfreev (s.tok);
  return g;
}

/* Bit equality; a NaN expectation means "outside" (the function must fail). */
static gboolean
same_bits (double a, double b)
{
  return memcmp (&a, &b, sizeof a) == 0;
}

static int
cmp_int (const void *a, const void *b)
{
  return *(const int *) a - *(const int *) b;
}

static gboolean
same_set (const int *a, const int *b, int n)
{
  int x[4], y[4];
  memcpy (x, a, sizeof (int) * (size_t) n);
  memcpy (y, b, sizeof (int) * (size_t) n);
  qsort (x, (size_t) n, sizeof (int), cmp_int);
  qsort (y, (size_t) n, sizeof (int), cmp_int);
  return memcmp (x, y, sizeof (int) * (size_t) n) == 0;
}

/* ====================================================================== golden tests */

typedef struct {
  size_t queries;      /* golden values compared (single + batch (+ numpy) per query) */
  size_t bit_equal;
} golden_tally;

typedef struct {
  const char *name;
  golden_tally *tally;
} golden_case;

static void
check_golden_1d (const golden *g, golden_tally *tally)
{
  g_autofree double *xp = g_memdup2 (g->points, g->npoints * sizeof (double));
  g_autofree double *fp = g_new (double, g->npoints);
  g_autofree size_t *idx = g_new (size_t, g->npoints);
  size_t bad = 0;

  /* griddata sorts the points (argsort); the fixture's points are distinct. */
  for (size_t i = 0; i < g->npoints; i++)
    idx[i] = i;
  for (size_t i = 1; i < g->npoints; i++)
    for (size_t j = i; j > 0 && g->points[idx[j - 1]] > g->points[idx[j]]; j--)
      {
        size_t t = idx[j];
        idx[j] = idx[j - 1];
        idx[j - 1] = t;
      }
  for (size_t i = 0; i < g->npoints; i++)
    {
      xp[i] = g->points[idx[i]];
      fp[i] = g->values[idx[i]];
    }
  for (size_t q = 0; q < g->nqueries; q++)
    {
      double x = g->x[q], got = NAN, lo, hi, y0 = NAN, y1 = NAN, up = NAN;
      gboolean in = msperf_interp_1d (xp, fp, g->npoints, x, &got);

      /* The upstream route: find_boundary, the latency at each end, linear_interp. */
      if (msperf_interp_find_boundary (g->points, g->npoints, x, &lo, &hi))
        {
          for (size_t i = 0; i < g->npoints; i++)
            {
              if (g->points[i] == lo)
                y0 = g->values[i];
              if (g->points[i] == hi)
                y1 = g->values[i];
            }
          up = msperf_interp_linear (x, lo, y0, hi, y1);
        }
      for (int k = 0; k < 2; k++)
        {
          double want = k == 0 ? g->single[q] : g->batch[q];
          gboolean ok = isnan (want) ? !in && isnan (up) : in && same_bits (got, want)
                                                          && same_bits (up, want);
          tally->queries++;
          if (ok)
            tally->bit_equal++;
          else
            {
              bad++;
              print_message ("1-D query %zu x=%a: got %a / %a, want %a\n", q, x, got, up, want);
            }
        }
    }
  assert_int_equal (bad, 0);
}

static void
check_golden_nd (const golden *g, golden_tally *tally)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_delaunay) tri = NULL;
  g_autofree double *batch = g_new (double, g->nqueries + 1);
  size_t nv = (size_t) (g->dim + 1), bad = 0;

  tri = msperf_delaunay_new (g->points, g->npoints, g->dim, &error);
  if (g->degenerate)
    {
      /* scipy raises QhullError; msperf fails with the upstream reason. */
      assert_null (tri);
      assert_non_null (error);
      assert_int_equal (msperf_interp_status_from_error (error),
                        MSPERF_INTERP_DEGENERATE_POINT_CLOUD);
      assert_true (g_str_has_prefix (error->message, "degenerate_point_cloud: "));
      tally->queries++;
      tally->bit_equal++;
      return;
    }
  if (error)
    fail_msg ("%s", error->message);
  assert_non_null (tri);
  assert_int_equal (msperf_delaunay_dim (tri), g->dim);
  assert_int_equal (msperf_delaunay_n_points (tri), g->npoints);
  assert_int_equal (msperf_delaunay_n_simplices (tri), g->nsimplex);
  for (size_t s = 0; s < g->nlisted; s++)
    assert_memory_equal (msperf_delaunay_simplex (tri, (int) s), g->simplices + s * nv,
                         nv * sizeof (int));

  msperf_interp_griddata_many (tri, g->values, g->x, g->nqueries, batch);
  for (size_t q = 0; q < g->nqueries; q++)
    {
      const double *x = g->x + q * (size_t) g->dim;
      double got = NAN, bary[4];
      int vertices[4], s = -2;
      gboolean in = msperf_interp_griddata (tri, g->values, x, &got, vertices);
      gboolean found = msperf_delaunay_locate (tri, x, &s, bary);
      gboolean ok_single = isnan (g->single[q]) ? !in : in && same_bits (got, g->single[q]);
      gboolean ok_batch = same_bits (batch[q], g->batch[q])
                          || (isnan (batch[q]) && isnan (g->batch[q]));
      gboolean ok_simplex = s == g->simplex[q] && found == (g->simplex[q] >= 0);

      if (found && ok_simplex)
        ok_simplex = same_set (msperf_delaunay_simplex (tri, s), g->vertices + q * nv,
                               (int) nv);
      /* griddata's vertices are the simplex scipy's find_simplex reports, away from
       * degenerate simplices (the two differ only in eps_broad). */
      if (in && found)
        ok_simplex = ok_simplex && same_set (vertices, g->vertices + q * nv, (int) nv);
      tally->queries += 2;
      tally->bit_equal += (size_t) ok_single + (size_t) ok_batch;
      if (!ok_single || !ok_batch || !ok_simplex)
        {
          bad++;
          print_message ("query %zu: single %a want %a, batch %a want %a, simplex %d want %d\n",
                         q, got, g->single[q], batch[q], g->batch[q], s, g->simplex[q]);
        }
    }
  assert_int_equal (bad, 0);
}

static void
test_griddata_golden_bit_equal (void **state)
{
  golden_case *c = *state;
  g_autoptr (golden) g = golden_load (c->name);

  if (g->dim == 1)
    check_golden_1d (g, c->tally);
  else
    check_golden_nd (g, c->tally);
}

static void
test_griddata_golden_all_bit_equal_summary (void **state)
{
  golden_tally *tally = *state;

  print_message ("golden values: %zu compared, %zu bit-equal\n", tally->queries,
                 tally->bit_equal);
  assert_true (tally->queries > 2000);
  assert_int_equal (tally->bit_equal, tally->queries);
}

/* ====================================================================== unit tests */

static void
test_find_boundary_brackets_target (void **state)
{
  /* profiling-semantics.md §4.4 step 3: (max{v ≤ t}, min{v ≥ t}); unsorted, duplicates. */
  const double v[] = { 64, 16, 128, 16, 32, 256 };
  double lo = 0, hi = 0;
  (void) state;

  assert_true (msperf_interp_find_boundary (v, G_N_ELEMENTS (v), 100, &lo, &hi));
  assert_true (lo == 64 && hi == 128);
  assert_true (msperf_interp_find_boundary (v, G_N_ELEMENTS (v), 32, &lo, &hi));
  assert_true (lo == 32 && hi == 32);
  /* Both ends are inclusive. */
  assert_true (msperf_interp_find_boundary (v, G_N_ELEMENTS (v), 16, &lo, &hi));
  assert_true (lo == 16 && hi == 16);
  assert_true (msperf_interp_find_boundary (v, G_N_ELEMENTS (v), 256, &lo, &hi));
  assert_true (lo == 256 && hi == 256);
}

static void
test_find_boundary_fails_outside_range (void **state)
{
  const double v[] = { 16, 32, 64 };
  double lo = -1, hi = -1;
  (void) state;

  assert_false (msperf_interp_find_boundary (v, 3, 8, &lo, &hi));
  assert_false (msperf_interp_find_boundary (v, 3, 65, &lo, &hi));
  assert_false (msperf_interp_find_boundary (v, 3, NAN, &lo, &hi));
  assert_false (msperf_interp_find_boundary (v, 0, 16, &lo, &hi));
  assert_true (lo == -1 && hi == -1);
}

/* The strided form reads column j of a row-major n × 3 matrix as the plain form reads a copy
 * of it (what fill_result's boundaries relied on before reading in place). */
static void
test_find_boundary_strided_equals_column_copy (void **state)
{
  const double m[] = { 64, 1, 7,  16, 2, 7,  128, 3, 5,  16, 4, 9,  32, NAN, 6,  256, 6, 1 };
  const size_t n = G_N_ELEMENTS (m) / 3;
  const double targets[] = { 100, 32, 16, 256, 3.5, 1, 6, 7.5, 0, 300, NAN, 2 };
  (void) state;

  for (size_t j = 0; j < 3; j++)
    {
      double col[G_N_ELEMENTS (m) / 3];

      for (size_t i = 0; i < n; i++)
        col[i] = m[i * 3 + j];
      for (size_t q = 0; q < G_N_ELEMENTS (targets); q++)
        {
          double lo1 = -1, hi1 = -1, lo2 = -1, hi2 = -1;
          gboolean ok1 = msperf_interp_find_boundary (col, n, targets[q], &lo1, &hi1);
          gboolean ok2 = msperf_interp_find_boundary_strided (m + j, n, 3, targets[q], &lo2,
                                                              &hi2);

          assert_int_equal (ok1, ok2);
          assert_memory_equal (&lo1, &lo2, sizeof lo1);
          assert_memory_equal (&hi1, &hi2, sizeof hi1);
        }
    }
  /* Column 0 brackets 100 by (64, 128); column 1 skips its NaN. */
  {
    double lo = 0, hi = 0;

    assert_true (msperf_interp_find_boundary_strided (m, n, 3, 100, &lo, &hi));
    assert_true (lo == 64 && hi == 128);
    assert_true (msperf_interp_find_boundary_strided (m + 1, n, 3, 4.5, &lo, &hi));
    assert_true (lo == 4 && hi == 6);
  }
}

static void
test_linear_returns_y0_when_ends_coincide (void **state)
{
  (void) state;
  /* Upstream linear_interp: y0 when x1 == x0 (a target equal to a measured coordinate). */
  assert_true (msperf_interp_linear (32, 32, 7.5, 32, 9.0) == 7.5);
  assert_true (msperf_interp_linear (3, 2, 10, 4, 20) == 15);
  /* The slope form of numpy.interp: (0.3−0.1)/(3−1)·(2.2−1)+0.1, not the two-weight form
   * ((3−2.2)·0.1+(2.2−1)·0.3)/2. */
  assert_true (same_bits (msperf_interp_linear (2.2, 1, 0.1, 3, 0.3),
                          (0.3 - 0.1) / (3.0 - 1.0) * (2.2 - 1.0) + 0.1));
}

static void
test_linear_1d_matches_numpy_at_ends_and_outside (void **state)
{
  const double xp[] = { 1, 2, 4 }, fp[] = { 10, 20, 40 };
  double out = -1;
  (void) state;

  assert_true (msperf_interp_1d (xp, fp, 3, 4, &out));
  assert_true (out == 40);
  assert_true (msperf_interp_1d (xp, fp, 3, 1, &out));
  assert_true (out == 10);
  assert_true (msperf_interp_1d (xp, fp, 3, 3, &out));
  assert_true (out == 30);
  out = -1;
  assert_false (msperf_interp_1d (xp, fp, 3, 0.5, &out));
  assert_false (msperf_interp_1d (xp, fp, 3, 4.5, &out));
  assert_false (msperf_interp_1d (xp, fp, 3, NAN, &out));
  assert_true (out == -1);
}

static void
test_latency_validation_requires_finite_positive (void **state)
{
  (void) state;
  assert_true (msperf_interp_latency_valid (2.5));
  assert_false (msperf_interp_latency_valid (0.0));
  assert_false (msperf_interp_latency_valid (-1.0));
  assert_false (msperf_interp_latency_valid (NAN));
  assert_false (msperf_interp_latency_valid (INFINITY));
}

static void
test_latency_guard_needs_valid_value_and_positive_candidate (void **state)
{
  /* profiling-semantics.md §4.4 helpers: validate_interpolated_latency. */
  const double ok[] = { 0.0, 3.0 }, none[] = { 0.0, -1.0 };
  (void) state;

  assert_true (msperf_interp_latency_guard (2.0, ok, 2));
  assert_false (msperf_interp_latency_guard (2.0, none, 2));
  assert_false (msperf_interp_latency_guard (2.0, NULL, 0));
  assert_false (msperf_interp_latency_guard (0.0, ok, 2));
  assert_false (msperf_interp_latency_guard (NAN, ok, 2));
  assert_string_equal (msperf_interp_status_name (MSPERF_INTERP_LATENCY_GUARD_REJECTED),
                       "latency_guard_rejected");
}

static void
test_griddata_details_weights_reproduce_value (void **state)
{
  /* Right triangle (0,0) (2,0) (0,2): at (0.5, 0.5) the weights are 1/4, 1/4, 1/2 (exact in
   * binary) and the value their combination of the vertex latencies. */
  const double p[] = { 0, 0, 2, 0, 0, 2 }, v[] = { 10, 20, 40 }, x[] = { 0.5, 0.5 };
  g_autoptr (msperf_delaunay) tri = msperf_delaunay_new (p, 3, 2, NULL);
  double out = 0, w[3] = { 0 };
  int vert[3] = { 0 };
  (void) state;

  assert_non_null (tri);
  assert_true (msperf_interp_griddata_details (tri, v, x, &out, vert, w));
  for (int j = 0; j < 3; j++)
    {
      double want = vert[j] == 0 ? 0.5 : 0.25;
      assert_true (w[j] == want);
    }
  assert_true (out == 10 * 0.5 + 20 * 0.25 + 40 * 0.25);
}

static void
test_median_even_count_is_mean_of_middle (void **state)
{
  /* Quirk Q19: median, and for an even count the mean of the two middle values. */
  double odd[] = { 9, 1, 5 }, even[] = { 8, 1, 4, 100 };
  const double mean[] = { 1, 2, 4 };
  (void) state;

  assert_true (msperf_interp_median (odd, 3) == 5);
  assert_true (msperf_interp_median (even, 4) == 6);
  assert_true (msperf_interp_mean (mean, 3) == 7.0 / 3.0);
}

static void
test_aggregate_duplicates_by_median_keeps_counts (void **state)
{
  /* (M, K) points: (1,2) three times, (4,4) twice, (8,1) once, two invalid latencies. */
  const double coords[] = { 1, 2, 4, 4, 1, 2, 8, 1, 1, 2, 4, 4, 3, 3, 5, 5 };
  const double lat[] = { 10, 30, 12, 7, 11, 31, NAN, -2 };
  g_autofree double *uc = NULL, *uv = NULL;
  msperf_interp_counts counts = { 0 };
  (void) state;

  msperf_interp_aggregate (coords, lat, 8, 2, MSPERF_INTERP_AGGREGATE_MEDIAN, &uc, &uv, &counts);
  assert_int_equal (counts.raw, 8);
  assert_int_equal (counts.aggregated, 3);
  assert_int_equal (counts.dropped, 2);
  /* First-occurrence order. */
  assert_true (uc[0] == 1 && uc[1] == 2 && uc[2] == 4 && uc[3] == 4 && uc[4] == 8 && uc[5] == 1);
  assert_true (uv[0] == 11);     /* median(10, 12, 11) */
  assert_true (uv[1] == 30.5);   /* median(30, 31) = (30 + 31) / 2 */
  assert_true (uv[2] == 7);
}

static void
test_aggregate_mean_policy (void **state)
{
  const double coords[] = { 1, 1, 2, 1, -0.0, 0.0 };
  const double lat[] = { 1, 2, 3, 10, 20, 30 };
  g_autofree double *uc = NULL, *uv = NULL;
  msperf_interp_counts counts = { 0 };
  (void) state;

  msperf_interp_aggregate (coords, lat, 6, 1, MSPERF_INTERP_AGGREGATE_MEAN, &uc, &uv, &counts);
  assert_int_equal (counts.aggregated, 3);
  assert_int_equal (counts.dropped, 0);
  assert_true (uc[0] == 1 && uc[1] == 2 && uc[2] == 0);
  assert_true (uv[0] == (1.0 + 2 + 10) / 3);
  assert_true (uv[1] == 3);
  /* -0.0 and 0.0 are the same coordinate. */
  assert_true (uv[2] == 25);

  g_clear_pointer (&uc, g_free);
  g_clear_pointer (&uv, g_free);
  msperf_interp_aggregate (coords, lat, 0, 1, MSPERF_INTERP_AGGREGATE_MEAN, &uc, &uv, &counts);
  assert_null (uc);
  assert_null (uv);
  assert_int_equal (counts.raw, 0);
}

static void
expect_build_failure (const double *p, size_t n, int dim, msperf_interp_status status)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_delaunay) tri = msperf_delaunay_new (p, n, dim, &error);

  assert_null (tri);
  assert_non_null (error);
  assert_true (error->domain == MSPERF_ERROR_DOMAIN);
  assert_int_equal (msperf_interp_status_from_error (error), status);
}

static void
test_delaunay_rejects_degenerate_clouds (void **state)
{
  const double three[] = { 0, 0, 1, 0, 0, 1 };
  const double same[] = { 2, 2, 2, 2, 2, 2, 2, 2 };
  const double line3d[] = { 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 5, 5, 5 };
  const double collinear_inexact[] = { 0.1, 0.3, 0.2, 0.6, 0.7, 2.1, 1.3, 3.9 };
  const double nonfinite[] = { 0, 0, 1, 0, 0, NAN, 1, 1 };
  (void) state;

  expect_build_failure (three, 2, 2, MSPERF_INTERP_DEGENERATE_POINT_CLOUD);
  expect_build_failure (three, 3, 3 /* 1 point of 3-D would need 4 */,
                        MSPERF_INTERP_DEGENERATE_POINT_CLOUD);
  expect_build_failure (same, 4, 2, MSPERF_INTERP_DEGENERATE_POINT_CLOUD);
  expect_build_failure (line3d, 5, 3, MSPERF_INTERP_DEGENERATE_POINT_CLOUD);
  /* y = 3x with rounding in the coordinates is still collinear. */
  expect_build_failure (collinear_inexact, 4, 2, MSPERF_INTERP_DEGENERATE_POINT_CLOUD);
  expect_build_failure (nonfinite, 4, 2, MSPERF_INTERP_NON_FINITE_INPUT);
  assert_string_equal (msperf_interp_status_name (MSPERF_INTERP_DEGENERATE_POINT_CLOUD),
                       "degenerate_point_cloud");
  assert_int_equal (msperf_interp_status_from_error (NULL), MSPERF_INTERP_OK);
}

static void
test_griddata_outside_hull_fails (void **state)
{
  const double p[] = { 0, 0, 1, 0, 0, 1, 1, 1 };
  const double v[] = { 1, 2, 3, 4 };
  const double outside[] = { 1.5, 0.5 }, corner[] = { 1, 1 }, beyond_diag[] = { 0.9, 1.2 };
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_delaunay) tri = msperf_delaunay_new (p, 4, 2, &error);
  double out = -1;
  int vert[3] = { -7, -7, -7 }, s = 0;
  (void) state;

  assert_non_null (tri);
  assert_false (msperf_interp_griddata (tri, v, outside, &out, vert));
  assert_false (msperf_interp_griddata (tri, v, beyond_diag, &out, vert));
  assert_true (out == -1 && vert[0] == -7);
  assert_false (msperf_delaunay_locate (tri, outside, &s, NULL));
  assert_int_equal (s, -1);
  assert_string_equal (msperf_interp_status_name (MSPERF_INTERP_OUTSIDE_CONVEX_HULL),
                       "outside_convex_hull");
  /* A hull vertex is inside (tolerance eps), with that vertex's value exactly. */
  assert_true (msperf_interp_griddata (tri, v, corner, &out, vert));
  assert_true (out == 4);
}

static msperf_delaunay *
build_nearly_collinear (double offset, GError **error, char **captured_stderr)
{
  const double p[] = { 0, 0, 1, 1, 2, 2 + offset, 3, 3, 4, 4 };
  g_autofree char *path = NULL;
  msperf_delaunay *tri;
  int saved, fd;

  fd = g_file_open_tmp ("msperf-interp-XXXXXX", &path, NULL);
  assert_true (fd >= 0);
  fflush (stderr);
  saved = dup (STDERR_FILENO);
  assert_true (dup2 (fd, STDERR_FILENO) >= 0);
  tri = msperf_delaunay_new (p, 5, 2, error);
  fflush (stderr);
  assert_true (dup2 (saved, STDERR_FILENO) >= 0);
  close (saved);
  close (fd);
  assert_true (g_file_get_contents (path, captured_stderr, NULL, NULL));
  g_unlink (path);
  return tri;
}

static void
test_qhull_failure_is_an_error_and_silent (void **state)
{
  /* Points (0,0) (1,1) (2,2+d) (3,3) (4,4); source: numpy 1.24 / scipy 1.10.1 on Debian 12:
   *   d = 1e-14: matrix_rank 1 → rejected before Qhull;
   *   d = 3e-14: matrix_rank 2 but QhullError "QH6154 … Initial simplex is flat";
   *   d = 1e-13: Delaunay succeeds with 3 simplices.
   * Qhull's failure must come back as a GError and Qhull must print nothing on stderr. */
  const double offsets[] = { 1e-14, 3e-14, 1e-13 };
  (void) state;

  for (size_t i = 0; i < G_N_ELEMENTS (offsets); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *captured = NULL;
      g_autoptr (msperf_delaunay) tri = build_nearly_collinear (offsets[i], &error, &captured);

      assert_string_equal (captured, "");
      if (i < 2)
        {
          assert_null (tri);
          assert_int_equal (msperf_interp_status_from_error (error),
                            MSPERF_INTERP_DEGENERATE_POINT_CLOUD);
          print_message ("offset %g: %s\n", offsets[i], error->message);
          /* Rejected by the rank check first, then by Qhull itself. */
          if (i == 0)
            assert_null (strstr (error->message, "QH6154"));
          else
            assert_non_null (strstr (error->message, "QH6154"));
        }
      else
        {
          assert_null (error);
          assert_int_equal (msperf_delaunay_n_simplices (tri), 3);
        }
    }
}

static void
test_triangulation_built_once_answers_like_rebuilt (void **state)
{
  g_autoptr (golden) g = golden_load ("random3d_60");
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_delaunay) once = msperf_delaunay_new (g->points, g->npoints, 3, &error);
  (void) state;

  assert_non_null (once);
  /* Query in reverse order on the shared triangulation, rebuilding for every query. */
  for (size_t r = 0; r < g->nqueries; r++)
    {
      size_t q = g->nqueries - 1 - r;
      const double *x = g->x + q * 3;
      g_autoptr (msperf_delaunay) fresh = msperf_delaunay_new (g->points, g->npoints, 3, NULL);
      double a = NAN, b = NAN;
      int va[4] = { 0 }, vb[4] = { 0 };
      gboolean ia = msperf_interp_griddata (once, g->values, x, &a, va);
      gboolean ib = msperf_interp_griddata (fresh, g->values, x, &b, vb);
      assert_int_equal (ia, ib);
      if (ia)
        {
          assert_true (same_bits (a, b));
          assert_memory_equal (va, vb, sizeof va);
        }
    }
}

typedef struct {
  const msperf_delaunay *tri;
  const golden *g;
  size_t mismatches;
} thread_job;

static gpointer
query_all (gpointer data)
{
  thread_job *job = data;
  for (int round = 0; round < 20; round++)
    for (size_t q = 0; q < job->g->nqueries; q++)
      {
        double v = NAN;
        gboolean in = msperf_interp_griddata (job->tri, job->g->values,
                                              job->g->x + q * (size_t) job->g->dim, &v, NULL);
        if (in ? !same_bits (v, job->g->single[q]) : !isnan (job->g->single[q]))
          job->mismatches++;
      }
  return NULL;
}

static void
test_triangulation_is_shareable_between_threads (void **state)
{
  g_autoptr (golden) g = golden_load ("random2d_400_aniso");
  g_autoptr (msperf_delaunay) tri = msperf_delaunay_new (g->points, g->npoints, 2, NULL);
  thread_job jobs[4];
  GThread *threads[4];
  (void) state;

  assert_non_null (tri);
  for (int i = 0; i < 4; i++)
    {
      jobs[i] = (thread_job){ tri, g, 0 };
      threads[i] = g_thread_new ("interp", query_all, &jobs[i]);
    }
  for (int i = 0; i < 4; i++)
    {
      g_thread_join (threads[i]);
      assert_int_equal (jobs[i].mismatches, 0);
    }
}

static void
test_griddata_at_duplicated_point_uses_vertex_copy (void **state)
{
  /* duplicates2d: point 5 is repeated three times with other values; scipy (Qc) keeps the
   * copies as coplanar points and answers with the copy that is a vertex (fixture). */
  g_autoptr (golden) g = golden_load ("duplicates2d");
  g_autoptr (msperf_delaunay) tri = msperf_delaunay_new (g->points, g->npoints, 2, NULL);
  double v = NAN;
  int vert[3];
  (void) state;

  assert_non_null (tri);
  assert_true (msperf_interp_griddata (tri, g->values, g->points + 5 * 2, &v, vert));
  assert_true (same_bits (v, g->single[5]));
  assert_true (v == g->values[5] || v == g->values[11] || v == g->values[12]);
}

/* ====================================================================== brute-force grid */

static void
test_bruteforce_grid_matches_plain_scan_on_golden_queries (void **state)
{
  static const char *const names[] = {
    "random2d_50", "random2d_400_aniso", "random3d_60", "random3d_900_normal", "grid2d_8x8",
    "grid2d_5x4_aniso", "grid3d_6x6x6", "duplicates2d", "duplicates3d", "matmul3d",
    "matmul2d_mn",
  };
  size_t compared = 0, bad = 0, gridded = 0;
  (void) state;

  for (size_t i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (golden) g = golden_load (names[i]);
      g_autoptr (msperf_delaunay) tri = msperf_delaunay_new (g->points, g->npoints, g->dim,
                                                             NULL);

      assert_non_null (tri);
      if (msperf_delaunay_grid_cells (tri) > 0)
        gridded++;
      for (size_t q = 0; q < g->nqueries; q++)
        {
          bad += tu_bruteforce_mismatches (tri, g->x + q * (size_t) g->dim);
          compared++;
        }
      /* The points themselves: every vertex of the triangulation. */
      for (size_t p = 0; p < g->npoints; p++)
        {
          bad += tu_bruteforce_mismatches (tri, g->points + p * (size_t) g->dim);
          compared++;
        }
    }
  print_message ("brute force: %zu golden queries and points, %zu on a grid\n", compared,
                 gridded);
  assert_true (compared > 2000);
  assert_true (gridded >= 9);
  assert_int_equal (bad, 0);
}

static uint64_t
lcg (uint64_t *state)
{
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return *state >> 11;
}

static double
unit (uint64_t *state)
{
  return (double) lcg (state) / 9007199254740992.0;
}

/* Queries on a regular grid of n[k] values per axis (origin[k] + i·step[k]): every grid
 * point, every midpoint between neighbouring grid values (edges, face diagonals, cell
 * centres), grid values nudged by 1–4 ulps and by ±1e-14 relative (the eps band), random
 * interior points, random points snapped to grid values on some axes, and points just outside
 * the hull. */
static size_t
grid_mismatches (int dim, const int *n, const double *origin, const double *step,
                 uint64_t seed, size_t *compared)
{
  size_t np = 1, bad = 0;
  g_autofree double *pts = NULL;
  g_autoptr (msperf_delaunay) tri = NULL;
  double x[3];
  uint64_t st = seed;

  for (int k = 0; k < dim; k++)
    np *= (size_t) n[k];
  pts = g_new (double, np * (size_t) dim);
  for (size_t p = 0; p < np; p++)
    {
      size_t r = p;

      for (int k = dim - 1; k >= 0; k--)
        {
          pts[p * (size_t) dim + (size_t) k] = origin[k] + (double) (r % (size_t) n[k]) * step[k];
          r /= (size_t) n[k];
        }
    }
  tri = msperf_delaunay_new (pts, np, dim, NULL);
  assert_non_null (tri);
  assert_true (msperf_delaunay_grid_cells (tri) > 0);
  /* Half-steps: every grid point and every midpoint. */
  {
    int h[3] = { 0, 0, 0 };
    for (;;)
      {
        int k;

        for (k = 0; k < dim; k++)
          x[k] = origin[k] + (double) h[k] * step[k] / 2.0;
        bad += tu_bruteforce_mismatches (tri, x);
        (*compared)++;
        for (k = 0; k < dim && h[k] == 2 * (n[k] - 1); k++)
          h[k] = 0;
        if (k == dim)
          break;
        h[k]++;
      }
  }
  for (int q = 0; q < 3000; q++)
    {
      int kind = q % 5;

      for (int k = 0; k < dim; k++)
        {
          int i = (int) (lcg (&st) % (uint64_t) n[k]);
          double v = origin[k] + (double) i * step[k];

          switch (kind)
            {
            case 0:   /* random interior point */
              v = origin[k] + unit (&st) * (double) (n[k] - 1) * step[k];
              break;
            case 1:   /* grid value nudged by a few ulps */
              {
                int ulps = (int) (lcg (&st) % 9) - 4;
                for (; ulps > 0; ulps--)
                  v = nextafter (v, INFINITY);
                for (; ulps < 0; ulps++)
                  v = nextafter (v, -INFINITY);
              }
              break;
            case 2:   /* inside the eps band around a grid value */
              v += (unit (&st) - 0.5) * 4e-14 * (fabs (v) + step[k]);
              break;
            case 3:   /* snapped on some axes, random on the others */
              if (lcg (&st) % 2)
                v = origin[k] + unit (&st) * (double) (n[k] - 1) * step[k];
              break;
            default:  /* around the hull, partly outside */
              v = origin[k] + (unit (&st) * 1.2 - 0.1) * (double) (n[k] - 1) * step[k];
              break;
            }
          x[k] = v;
        }
      bad += tu_bruteforce_mismatches (tri, x);
      (*compared)++;
    }
  return bad;
}

static void
test_bruteforce_grid_matches_plain_scan_on_regular_grids (void **state)
{
  size_t compared = 0, bad = 0;
  (void) state;

  /* Cospherical grids (degenerate simplices, the walk falls back to the brute force): a
   * matmul-like anisotropic M × K × N grid (the bench's spacing), a cube, and 2-D grids. */
  bad += grid_mismatches (3, (const int[]){ 7, 6, 5 }, (const double[]){ 64, 256, 128 },
                          (const double[]){ 64, 256, 128 }, 1, &compared);
  bad += grid_mismatches (3, (const int[]){ 5, 5, 5 }, (const double[]){ 0, 0, 0 },
                          (const double[]){ 1, 1, 1 }, 2, &compared);
  bad += grid_mismatches (3, (const int[]){ 4, 9, 3 }, (const double[]){ -1.5, 1e6, 0.001 },
                          (const double[]){ 0.25, 4096, 0.001 }, 3, &compared);
  bad += grid_mismatches (2, (const int[]){ 12, 9 }, (const double[]){ 0, 0 },
                          (const double[]){ 1, 1 }, 4, &compared);
  bad += grid_mismatches (2, (const int[]){ 10, 6 }, (const double[]){ 128, 1 },
                          (const double[]){ 128, 30 }, 5, &compared);
  /* A strip 9 × 2 with a short second axis: the grid gets one cell across it and 2 cells per
   * unit along the first axis (nsimplex = 16 cells over 8 units), so cell boundaries fall
   * exactly on grid lines and a point a few ulps outside a triangle's bounding box, which the
   * triangle still accepts within eps, lies in the neighbouring cell: only the grid's
   * margins keep that triangle listed there. */
  bad += grid_mismatches (2, (const int[]){ 9, 2 }, (const double[]){ 0, 0 },
                          (const double[]){ 1, 0.25 }, 6, &compared);
  print_message ("brute force on regular grids: %zu queries\n", compared);
  assert_true (compared > 15000);
  assert_int_equal (bad, 0);
}

int
main (void)
{
  static const char *const cases[] = {
    "random2d_50", "random2d_400_aniso", "random3d_60", "random3d_900_normal",
    "grid2d_8x8", "grid2d_5x4_aniso", "grid3d_6x6x6", "duplicates2d", "duplicates3d",
    "collinear2d", "coplanar3d", "matmul3d", "matmul2d_mn", "linear1d_matmul",
    "linear1d_random",
  };
  enum { NCASES = G_N_ELEMENTS (cases) };
  golden_tally tally = { 0, 0 };
  golden_case gc[NCASES];
  char *names[NCASES];
  struct CMUnitTest tests[NCASES + 32];
  size_t nt = 0;

  /* Any warning (e.g. Qhull reporting unfreed memory) fails the test. */
  g_log_set_always_fatal (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL);
  for (size_t i = 0; i < NCASES; i++)
    {
      gc[i] = (golden_case){ cases[i], &tally };
      names[i] = g_strdup_printf ("test_griddata_golden_bit_equal_%s", cases[i]);
      tests[nt++] = (struct CMUnitTest){ names[i], test_griddata_golden_bit_equal, NULL, NULL,
                                         &gc[i] };
    }
  tests[nt++] = (struct CMUnitTest){ "test_griddata_golden_all_bit_equal_summary",
                                     test_griddata_golden_all_bit_equal_summary, NULL, NULL,
                                     &tally };
#define T(f) tests[nt++] = (struct CMUnitTest) cmocka_unit_test (f)
  T (test_find_boundary_brackets_target);
  T (test_find_boundary_fails_outside_range);
  T (test_find_boundary_strided_equals_column_copy);
  T (test_linear_returns_y0_when_ends_coincide);
  T (test_linear_1d_matches_numpy_at_ends_and_outside);
  T (test_latency_validation_requires_finite_positive);
  T (test_latency_guard_needs_valid_value_and_positive_candidate);
  T (test_griddata_details_weights_reproduce_value);
  T (test_median_even_count_is_mean_of_middle);
  T (test_aggregate_duplicates_by_median_keeps_counts);
  T (test_aggregate_mean_policy);
  T (test_delaunay_rejects_degenerate_clouds);
  T (test_griddata_outside_hull_fails);
  T (test_qhull_failure_is_an_error_and_silent);
  T (test_triangulation_built_once_answers_like_rebuilt);
  T (test_triangulation_is_shareable_between_threads);
  T (test_griddata_at_duplicated_point_uses_vertex_copy);
  T (test_bruteforce_grid_matches_plain_scan_on_golden_queries);
  T (test_bruteforce_grid_matches_plain_scan_on_regular_grids);
#undef T
  {
    int rc = _cmocka_run_group_tests ("interp", tests, nt, NULL, NULL);
    for (size_t i = 0; i < NCASES; i++)
      g_free (names[i]);
    return rc;
  }
}
