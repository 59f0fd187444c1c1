/* Tests of the point-location grid of core/interp/interp.c (build_grid): its cuts follow the
 * points' coordinates (lattice values or ranks), and whatever they are, the grid-accelerated
 * brute force must return the plain scan's simplex and barycentric bits (scipy's
 * _find_simplex_bruteforce, so griddata stays bit-identical to scipy). On log-spaced axes a
 * query must test few simplices, which uniform cells did not (677 a query on the
 * aiconfigurator GEMM table). No Python: the reference is the plain scan itself. */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include "interp/interp.h"
#include "interp/bruteforce_check.h"

/* ====================================================================== helpers */

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

/* The axis values of a lattice point set; the lattice is their product. */
typedef struct {
  int n;
  const double *v;
} axis;

/* The points of the product a[0] × … × a[dim−1] (last axis fastest), leaving out the point
 * of flat index p when hole (p) is TRUE (holes make degenerate simplices and odd hulls). */
static double *
lattice_points (int dim, const axis *a, gboolean (*hole) (size_t p), size_t *np)
{
  size_t total = 1, n = 0;
  double *pts;

  for (int k = 0; k < dim; k++)
    total *= (size_t) a[k].n;
  pts = g_new (double, total * (size_t) dim);
  for (size_t p = 0; p < total; p++)
    {
      size_t r = p;

      if (hole && hole (p))
        continue;
      for (int k = dim - 1; k >= 0; k--)
        {
          pts[n * (size_t) dim + (size_t) k] = a[k].v[r % (size_t) a[k].n];
          r /= (size_t) a[k].n;
        }
      n++;
    }
  *np = n;
  return pts;
}

static double
nudge (double v, int ulps)
{
  for (; ulps > 0; ulps--)
    v = nextafter (v, INFINITY);
  for (; ulps < 0; ulps++)
    v = nextafter (v, -INFINITY);
  return v;
}

/* One coordinate of a query on axis values v[0..n−1] (ascending): a value, a value nudged by
 * ulps, inside the eps band, next to where a lattice cut lies (value ± gap/64, ± ulps), a
 * midpoint, uniform or log-uniform between the ends, or a little outside. */
static double
query_coord (const double *v, int n, uint64_t *st)
{
  int i = (int) (lcg (st) % (uint64_t) n);
  int j = i + 1 < n ? i + 1 : i - 1;
  double gap = v[j] - v[i], lo = v[0], hi = v[n - 1];

  switch (lcg (st) % 8)
    {
    case 0:
      return v[i];
    case 1:
      return nudge (v[i], (int) (lcg (st) % 9) - 4);
    case 2:
      return v[i] + (unit (st) - 0.5) * 4e-14 * (fabs (v[i]) + fabs (gap));
    case 3:
      return nudge (v[i] + gap / 64.0, (int) (lcg (st) % 9) - 4);
    case 4:
      return (v[i] + v[j]) / 2.0;
    case 5:
      return lo + unit (st) * (hi - lo);
    case 6:
      if (lo > 0.0)
        return exp (log (lo) + unit (st) * (log (hi) - log (lo)));
      return lo + unit (st) * unit (st) * (hi - lo);
    default:
      return lo + (unit (st) * 1.2 - 0.1) * (hi - lo);
    }
}

/* nq queries built from per-axis values (query_coord), plus every point itself. */
static size_t
check_queries (const msperf_delaunay *tri, const double *pts, size_t np, const axis *a,
               size_t nq, uint64_t seed)
{
  int dim = msperf_delaunay_dim (tri);
  size_t bad = 0;
  uint64_t st = seed;

  for (size_t q = 0; q < nq; q++)
    {
      double x[3];

      for (int k = 0; k < dim; k++)
        x[k] = query_coord (a[k].v, a[k].n, &st);
      bad += tu_bruteforce_mismatches (tri, x);
    }
  for (size_t p = 0; p < np; p++)
    bad += tu_bruteforce_mismatches (tri, pts + p * (size_t) dim);
  return bad;
}

/* Sorted distinct values of axis k of pts (for scattered sets); transfer full. */
static double *
axis_values (const double *pts, size_t np, int dim, int k, int *n)
{
  double *v = g_new (double, np);
  int m = 0;

  for (size_t i = 0; i < np; i++)
    v[i] = pts[i * (size_t) dim + (size_t) k];
  for (size_t i = 1; i < np; i++)   /* insertion sort: small sets */
    for (size_t j = i; j > 0 && v[j] < v[j - 1]; j--)
      {
        double t = v[j];
        v[j] = v[j - 1];
        v[j - 1] = t;
      }
  for (size_t i = 0; i < np; i++)
    if (m == 0 || v[i] != v[m - 1])
      v[m++] = v[i];
  *n = m;
  return v;
}

static size_t
check_scattered (const double *pts, size_t np, int dim, size_t nq, uint64_t seed)
{
  g_autoptr (msperf_delaunay) tri = msperf_delaunay_new (pts, np, dim, NULL);
  double *vals[3] = { NULL, NULL, NULL };
  axis a[3] = { { 0, NULL }, { 0, NULL }, { 0, NULL } };
  size_t bad;

  assert_non_null (tri);
  assert_true (msperf_delaunay_grid_cells (tri) > 0);
  for (int k = 0; k < dim; k++)
    {
      vals[k] = axis_values (pts, np, dim, k, &a[k].n);
      a[k].v = vals[k];
    }
  bad = check_queries (tri, pts, np, a, nq, seed);
  for (int k = 0; k < dim; k++)
    g_free (vals[k]);
  return bad;
}

/* ====================================================================== axes */

/* The aiconfigurator H200 GEMM table's axes (shared/data/aic-h200-gemm/SOURCE.md), thinned:
 * M with its dense start and x/x+1 pairs, K and N log-spaced with irregular steps. */
static const double aic_m[] = { 1, 2, 3, 4, 5, 8, 16, 17, 32, 33, 128, 129, 512, 513, 2048,
                                2049, 4096, 4097, 8192, 16384, 32768 };
static const double aic_kn[] = { 32, 64, 128, 256, 512, 768, 1024, 1536, 2048, 3072, 4096,
                                 7168, 8192, 16384, 51200, 65536 };
static const double pow2_m[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
                                 8192 };
static const double pow2_kn[] = { 256, 512, 1024, 2048, 3072, 4096, 6144, 8192 };

/* Holes like the aiconfigurator table's (the whole top (N, K) corner site is missing). */
static gboolean
skip_corner (size_t p)
{
  size_t nkn = G_N_ELEMENTS (aic_kn);

  return p % (nkn * nkn) == nkn * nkn - 1 || (p % 97 == 13);
}

/* ====================================================================== tests */

static void
test_grid_equals_plain_scan_on_log_spaced_lattices (void **state)
{
  size_t bad = 0, np;
  (void) state;

  {
    /* aiconfigurator-like, with holes: 21 × 16 × 16 less the corner site. */
    axis a[3] = { { G_N_ELEMENTS (aic_m), aic_m }, { G_N_ELEMENTS (aic_kn), aic_kn },
                  { G_N_ELEMENTS (aic_kn), aic_kn } };
    g_autofree double *pts = lattice_points (3, a, skip_corner, &np);
    g_autoptr (msperf_delaunay) tri = msperf_delaunay_new (pts, np, 3, NULL);
    msperf_delaunay_grid_info info;

    assert_non_null (tri);
    assert_true (msperf_delaunay_grid_stats (tri, &info));
    /* Lattice axes: a thin cell around each value, a wide one between two. */
    assert_int_equal (info.axis_cells[0], 2 * G_N_ELEMENTS (aic_m) - 1);
    assert_int_equal (info.axis_cells[1], 2 * G_N_ELEMENTS (aic_kn) - 1);
    assert_int_equal (info.cells, (size_t) info.axis_cells[0] * (size_t) info.axis_cells[1]
                                  * (size_t) info.axis_cells[2]);
    bad += check_queries (tri, pts, 0, a, 1000, 11);
  }
  {
    /* The sample database's grid in log2 space and in raw coordinates. */
    double lm[G_N_ELEMENTS (pow2_m)], lkn[G_N_ELEMENTS (pow2_kn)];
    axis raw[3] = { { G_N_ELEMENTS (pow2_m), pow2_m }, { G_N_ELEMENTS (pow2_kn), pow2_kn },
                    { G_N_ELEMENTS (pow2_kn), pow2_kn } };
    axis lg[3] = { { G_N_ELEMENTS (lm), lm }, { G_N_ELEMENTS (lkn), lkn },
                   { G_N_ELEMENTS (lkn), lkn } };

    for (size_t i = 0; i < G_N_ELEMENTS (lm); i++)
      lm[i] = log2 (pow2_m[i]);
    for (size_t i = 0; i < G_N_ELEMENTS (lkn); i++)
      lkn[i] = log2 (pow2_kn[i]);
    for (int s = 0; s < 2; s++)
      {
        const axis *a = s == 0 ? raw : lg;
        g_autofree double *pts = lattice_points (3, a, NULL, &np);
        g_autoptr (msperf_delaunay) tri = msperf_delaunay_new (pts, np, 3, NULL);

        assert_non_null (tri);
        assert_true (msperf_delaunay_grid_cells (tri) > 0);
        bad += check_queries (tri, pts, np, a, 1500, 20 + (uint64_t) s);
      }
  }
  {
    /* 2-D: M × N of the aiconfigurator axes. */
    axis a[2] = { { G_N_ELEMENTS (aic_m), aic_m }, { G_N_ELEMENTS (aic_kn), aic_kn } };
    g_autofree double *pts = lattice_points (2, a, NULL, &np);
    g_autoptr (msperf_delaunay) tri = msperf_delaunay_new (pts, np, 2, NULL);

    assert_non_null (tri);
    assert_true (msperf_delaunay_grid_cells (tri) > 0);
    bad += check_queries (tri, pts, np, a, 2000, 30);
  }
  assert_int_equal (bad, 0);
}

static void
test_grid_equals_plain_scan_on_random_sets (void **state)
{
  uint64_t st = 5;
  size_t bad = 0;
  (void) state;

  for (int set = 0; set < 6; set++)
    {
      int dim = set % 2 == 0 ? 3 : 2;
      size_t np = set < 2 ? 400 : 150;
      g_autofree double *pts = g_new (double, np * (size_t) dim);

      for (size_t i = 0; i < np * (size_t) dim; i++)
        {
          double u = unit (&st);

          switch (set / 2)
            {
            case 0:   /* uniform in a unit box */
              pts[i] = u;
              break;
            case 1:   /* log-uniform over six decades (rank cuts) */
              pts[i] = exp2 (20.0 * u);
              break;
            default:  /* clustered: most points near 0, a few far away, anisotropic */
              pts[i] = (i % (size_t) dim == 0 ? 1e6 : 1e-3) * u * u * u * u;
              break;
            }
        }
      bad += check_scattered (pts, np, dim, 1500, 100 + (uint64_t) set);
    }
  assert_int_equal (bad, 0);
}

/* Mixed and degenerate sets: few distinct values on some axes (lattice cuts) and scattered
 * values on the others (rank cuts); many duplicated coordinates; points on a few planes. */
static void
test_grid_equals_plain_scan_on_degenerate_sets (void **state)
{
  uint64_t st = 9;
  size_t bad = 0;
  (void) state;

  for (int set = 0; set < 4; set++)
    {
      size_t np = 300;
      g_autofree double *pts = g_new (double, np * 3);

      for (size_t i = 0; i < np; i++)
        {
          double *p = pts + 3 * i;

          switch (set)
            {
            case 0:   /* M on 3 values, K and N scattered */
              p[0] = (double) (1u << (2 * (lcg (&st) % 3)));
              p[1] = 32.0 + 4000.0 * unit (&st);
              p[2] = exp2 (5.0 + 10.0 * unit (&st));
              break;
            case 1:   /* two axes on a lattice of 2 and 5 values, one scattered */
              p[0] = (double) (lcg (&st) % 2);
              p[1] = exp2 ((double) (lcg (&st) % 5));
              p[2] = unit (&st);
              break;
            case 2:   /* heavy duplication: every coordinate one of 6 values, repeats kept */
              for (int k = 0; k < 3; k++)
                p[k] = exp2 (3.0 * (double) (lcg (&st) % 6));
              break;
            default:  /* points on 4 planes of constant N, scattered within */
              p[0] = unit (&st);
              p[1] = unit (&st) * unit (&st);
              p[2] = (double) (lcg (&st) % 4) * 0.25;
              break;
            }
        }
      bad += check_scattered (pts, np, 3, 1500, 200 + (uint64_t) set);
    }
  assert_int_equal (bad, 0);
}

/* The point of the grid: a query tests few simplices on log-spaced axes. On this
 * aiconfigurator-like lattice uniform cells made a query test hundreds (the cells near the
 * origin hold every small-M/K/N simplex); the bound of 20 fails with them. */
static void
test_grid_tests_few_simplices_on_log_spaced_axes (void **state)
{
  axis a[3] = { { G_N_ELEMENTS (aic_m), aic_m }, { G_N_ELEMENTS (aic_kn), aic_kn },
                { G_N_ELEMENTS (aic_kn), aic_kn } };
  size_t np, total = 0, plain = 0, inside = 0, nplain = 0, nq = 3000;
  g_autofree double *pts = lattice_points (3, a, skip_corner, &np);
  g_autoptr (msperf_delaunay) tri = msperf_delaunay_new (pts, np, 3, NULL);
  double eb = sqrt (DBL_EPSILON);
  uint64_t st = 77;
  (void) state;

  assert_non_null (tri);
  for (size_t q = 0; q < nq; q++)
    {
      double x[3];

      /* Log-uniform inside the box (most off the lattice, like GEMM shapes). */
      x[0] = exp (unit (&st) * log (32768.0));
      x[1] = exp (log (32.0) + unit (&st) * (log (51200.0) - log (32.0)));
      x[2] = exp (log (32.0) + unit (&st) * (log (51200.0) - log (32.0)));
      if (msperf_delaunay_find_bruteforce (tri, x, MSPERF_DELAUNAY_EPS, eb, TRUE, NULL) < 0)
        continue;
      inside++;
      total += msperf_delaunay_bruteforce_tested (tri, x, MSPERF_DELAUNAY_EPS, eb, TRUE);
      if (inside % 10 == 0)   /* the plain scan on a tenth: it is slow */
        {
          plain += msperf_delaunay_bruteforce_tested (tri, x, MSPERF_DELAUNAY_EPS, eb, FALSE);
          nplain++;
        }
    }
  print_message ("%zu in-hull queries: grid %.2f simplices tested a query, plain scan %.1f "
                 "(%d simplices)\n", inside, (double) total / (double) inside,
                 (double) plain / (double) nplain, msperf_delaunay_n_simplices (tri));
  assert_true (inside > nq / 2);
  assert_true ((double) total / (double) inside <= 20.0);
  assert_true ((double) total / (double) inside * 50.0 < (double) plain / (double) nplain);
}

static void
test_grid_stats_and_tested_counts (void **state)
{
  /* Below GRID_MIN_SIMPLICES: no grid, the plain scan's count. */
  static const double tiny[] = { 0, 0, 1, 0, 0, 1, 1, 1 };
  g_autoptr (msperf_delaunay) t = msperf_delaunay_new (tiny, 4, 2, NULL);
  msperf_delaunay_grid_info info;
  const double in[2] = { 0.75, 0.5 }, out[2] = { 2.0, 0.5 };
  double eb = sqrt (DBL_EPSILON);
  (void) state;

  assert_non_null (t);
  assert_false (msperf_delaunay_grid_stats (t, &info));
  assert_int_equal (info.cells, 0);
  assert_int_equal (msperf_delaunay_grid_cells (t), 0);
  assert_true (msperf_delaunay_bruteforce_tested (t, in, MSPERF_DELAUNAY_EPS, eb, TRUE) >= 1);
  assert_true (msperf_delaunay_bruteforce_tested (t, in, MSPERF_DELAUNAY_EPS, eb, TRUE)
               <= (size_t) msperf_delaunay_n_simplices (t));
  assert_int_equal (msperf_delaunay_bruteforce_tested (t, out, MSPERF_DELAUNAY_EPS, eb, TRUE),
                    0);
  {
    axis a[2] = { { G_N_ELEMENTS (pow2_m), pow2_m }, { G_N_ELEMENTS (pow2_kn), pow2_kn } };
    size_t np;
    g_autofree double *pts = lattice_points (2, a, NULL, &np);
    g_autoptr (msperf_delaunay) tri = msperf_delaunay_new (pts, np, 2, NULL);

    assert_non_null (tri);
    assert_true (msperf_delaunay_grid_stats (tri, &info));
    assert_int_equal (info.cells, msperf_delaunay_grid_cells (tri));
    assert_true (info.items >= (size_t) msperf_delaunay_n_simplices (tri));
    assert_true (info.max_list >= 1 && info.max_list <= info.items);
  }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_grid_equals_plain_scan_on_log_spaced_lattices),
    cmocka_unit_test (test_grid_equals_plain_scan_on_random_sets),
    cmocka_unit_test (test_grid_equals_plain_scan_on_degenerate_sets),
    cmocka_unit_test (test_grid_tests_few_simplices_on_log_spaced_axes),
    cmocka_unit_test (test_grid_stats_and_tested_counts),
  };

  g_log_set_always_fatal (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL);
  return cmocka_run_group_tests (tests, NULL, NULL);
}
