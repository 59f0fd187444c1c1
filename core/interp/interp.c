/* msperf — interpolation math: boundaries, 1-D linear, duplicate aggregation and scipy's
 * griddata(method="linear") in 2-D/3-D on a Qhull Delaunay triangulation.
 *
 * Everything that decides a result's bits follows scipy 1.10 / numpy 1.24 / reference LAPACK
 * 3.11 operation by operation (shared/reference/griddata-qhull.md): the Qhull options, the
 * facet order, the LU factorisation behind the barycentric transforms, the simplex walk and
 * its tolerances, and the order of every floating-point accumulation. tests/test_interp.c
 * checks this bit for bit against fixtures generated with scipy. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <setjmp.h>

#include <libqhull_r/libqhull_r.h>

#include <msperf/error.h>
#include "interp/interp.h"

/* ====================================================================== statuses */

static const char *const status_names[] = {
  [MSPERF_INTERP_OK] = "ok",
  [MSPERF_INTERP_OUTSIDE_AXIS_BOUNDARY] = "outside_axis_boundary",
  [MSPERF_INTERP_INSUFFICIENT_POINTS] = "insufficient_points",
  [MSPERF_INTERP_NON_FINITE_INPUT] = "non_finite_input",
  [MSPERF_INTERP_DEGENERATE_POINT_CLOUD] = "degenerate_point_cloud",
  [MSPERF_INTERP_QHULL_ERROR] = "qhull_error",
  [MSPERF_INTERP_OUTSIDE_CONVEX_HULL] = "outside_convex_hull",
  [MSPERF_INTERP_LATENCY_GUARD_REJECTED] = "latency_guard_rejected",
};

const char *
msperf_interp_status_name (msperf_interp_status status)
{
  if ((size_t) status >= G_N_ELEMENTS (status_names))
    return "unknown";
  return status_names[status];
}

msperf_interp_status
msperf_interp_status_from_error (const GError *error)
{
  if (error == NULL)
    return MSPERF_INTERP_OK;
  for (size_t i = 1; i < G_N_ELEMENTS (status_names); i++)
    {
      size_t len = strlen (status_names[i]);
      if (strncmp (error->message, status_names[i], len) == 0 && error->message[len] == ':')
        return (msperf_interp_status) i;
    }
  return MSPERF_INTERP_QHULL_ERROR;
}

/* ====================================================================== 1-D */

gboolean
msperf_interp_find_boundary (const double *values, size_t n, double t, double *lo, double *hi)
{
  return msperf_interp_find_boundary_strided (values, n, 1, t, lo, hi);
}

gboolean
msperf_interp_find_boundary_strided (const double *values, size_t n, size_t stride, double t,
                                     double *lo, double *hi)
{
  gboolean have_lo = FALSE, have_hi = FALSE;
  double l = 0.0, h = 0.0;

  g_return_val_if_fail ((values != NULL || n == 0) && stride >= 1, FALSE);
  if (isnan (t))
    return FALSE;
  for (size_t i = 0; i < n; i++)
    {
      double v = values[i * stride];
      if (v <= t && (!have_lo || v > l))
        {
          l = v;
          have_lo = TRUE;
        }
      if (v >= t && (!have_hi || v < h))
        {
          h = v;
          have_hi = TRUE;
        }
    }
  if (!have_lo || !have_hi)
    return FALSE;
  if (lo)
    *lo = l;
  if (hi)
    *hi = h;
  return TRUE;
}

double
msperf_interp_linear (double x, double x0, double y0, double x1, double y1)
{
  double slope, r;

  if (x1 == x0)
    return y0;
  /* numpy's arr_interp: the slope form, then its two NaN fallbacks (infinite inputs). */
  slope = (y1 - y0) / (x1 - x0);
  r = slope * (x - x0) + y0;
  if (isnan (r))
    {
      r = slope * (x - x1) + y1;
      if (isnan (r) && y0 == y1)
        r = y0;
    }
  return r;
}

gboolean
msperf_interp_1d (const double *xp, const double *fp, size_t n, double x, double *out)
{
  size_t lo, hi;

  g_return_val_if_fail (xp != NULL && fp != NULL && out != NULL, FALSE);
  /* interp1d(fill_value=nan) replaces everything outside the inclusive range with NaN. */
  if (n == 0 || isnan (x) || x < xp[0] || x > xp[n - 1])
    return FALSE;
  if (x == xp[n - 1])
    {
      *out = fp[n - 1];
      return TRUE;
    }
  /* j = the largest index with xp[j] <= x (numpy's binary search gives the same j). */
  lo = 0;
  hi = n - 1;
  while (hi - lo > 1)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (xp[mid] <= x)
        lo = mid;
      else
        hi = mid;
    }
  if (xp[lo] == x)
    *out = fp[lo];
  else
    *out = msperf_interp_linear (x, xp[lo], fp[lo], xp[lo + 1], fp[lo + 1]);
  return TRUE;
}

gboolean
msperf_interp_latency_valid (double latency_us)
{
  return isfinite (latency_us) && latency_us > 0.0;
}

gboolean
msperf_interp_latency_guard (double value, const double *candidates, size_t n)
{
  g_return_val_if_fail (candidates != NULL || n == 0, FALSE);
  if (!msperf_interp_latency_valid (value))
    return FALSE;
  for (size_t i = 0; i < n; i++)
    if (candidates[i] > 0.0)
      return TRUE;
  return FALSE;
}

/* ====================================================================== aggregation */

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

double
msperf_interp_median (double *values, size_t n)
{
  g_return_val_if_fail (values != NULL && n > 0, NAN);
  qsort (values, n, sizeof *values, cmp_double);
  if (n % 2 == 1)
    return values[n / 2];
  /* Python's statistics.median / numpy.median: the mean of the two middle values. */
  return (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

double
msperf_interp_mean (const double *values, size_t n)
{
  double sum = 0.0;

  g_return_val_if_fail (values != NULL && n > 0, NAN);
  for (size_t i = 0; i < n; i++)
    sum += values[i];
  return sum / (double) n;
}

typedef struct {
  const double *coords;
  int dim;
} sort_ctx;

static int
cmp_rows (gconstpointer a, gconstpointer b, gpointer data)
{
  const sort_ctx *ctx = data;
  size_t i = *(const size_t *) a, j = *(const size_t *) b;

  for (int k = 0; k < ctx->dim; k++)
    {
      double x = ctx->coords[i * (size_t) ctx->dim + (size_t) k];
      double y = ctx->coords[j * (size_t) ctx->dim + (size_t) k];
      if (x < y)
        return -1;
      if (x > y)
        return 1;
    }
  /* Equal coordinates: keep input order, so each group starts with its first occurrence. */
  return (i > j) - (i < j);
}

static gboolean
same_row (const double *coords, int dim, size_t i, size_t j)
{
  for (int k = 0; k < dim; k++)
    if (coords[i * (size_t) dim + (size_t) k] != coords[j * (size_t) dim + (size_t) k])
      return FALSE;
  return TRUE;
}

static int
cmp_size (const void *a, const void *b)
{
  size_t x = *(const size_t *) a, y = *(const size_t *) b;
  return (x > y) - (x < y);
}

void
msperf_interp_aggregate (const double *coords, const double *latencies, size_t n, int dim,
                         msperf_interp_aggregate_kind kind, double **out_coords,
                         double **out_values, msperf_interp_counts *counts)
{
  g_autofree size_t *order = NULL;
  g_autofree size_t *groups = NULL;
  g_autofree double *reduced = NULL;
  g_autofree double *scratch = NULL;
  size_t nvalid = 0, ngroups = 0;
  sort_ctx ctx = { coords, dim };

  g_return_if_fail (dim > 0 && out_coords != NULL && out_values != NULL);
  g_return_if_fail (n == 0 || (coords != NULL && latencies != NULL));
  g_return_if_fail (n <= (size_t) G_MAXINT);   /* g_qsort_with_data takes a gint */
  *out_coords = NULL;
  *out_values = NULL;

  order = g_new (size_t, n + 1);
  for (size_t i = 0; i < n; i++)
    {
      gboolean ok = msperf_interp_latency_valid (latencies[i]);
      for (int k = 0; ok && k < dim; k++)
        ok = isfinite (coords[i * (size_t) dim + (size_t) k]);
      if (ok)
        order[nvalid++] = i;
    }
  g_qsort_with_data (order, (gint) nvalid, sizeof *order, cmp_rows, &ctx);

  /* Reduce each run of equal rows; the run starts with its first occurrence in the input. */
  groups = g_new (size_t, 2 * (nvalid + 1));
  reduced = g_new (double, nvalid + 1);
  scratch = g_new (double, nvalid + 1);
  for (size_t a = 0; a < nvalid;)
    {
      size_t b = a + 1;
      while (b < nvalid && same_row (coords, dim, order[a], order[b]))
        b++;
      for (size_t i = a; i < b; i++)
        scratch[i - a] = latencies[order[i]];
      groups[2 * ngroups] = order[a];
      groups[2 * ngroups + 1] = ngroups;
      reduced[ngroups] = kind == MSPERF_INTERP_AGGREGATE_MEAN
                         ? msperf_interp_mean (scratch, b - a)
                         : msperf_interp_median (scratch, b - a);
      ngroups++;
      a = b;
    }

  if (ngroups > 0)
    {
      /* Emit the groups in the order of their first occurrence (pairs sorted by index). */
      qsort (groups, ngroups, 2 * sizeof *groups, cmp_size);
      *out_coords = g_new (double, ngroups * (size_t) dim);
      *out_values = g_new (double, ngroups);
      for (size_t g = 0; g < ngroups; g++)
        {
          memcpy (*out_coords + g * (size_t) dim, coords + groups[2 * g] * (size_t) dim,
                  (size_t) dim * sizeof (double));
          (*out_values)[g] = reduced[groups[2 * g + 1]];
        }
    }
  if (counts)
    {
      counts->raw = n;
      counts->aggregated = ngroups;
      counts->dropped = n - nvalid;
    }
}

/* ====================================================================== Delaunay */

/* The brute-force grid (see build_grid): the largest eps / eps_broad its margins cover
 * (scipy's are 2.2e-14 and 1.5e-7 or 1.5e-8), triangulations too small to need it, the
 * cells per axis, and the list length (per simplex) above which it is not worth keeping. */
#define GRID_TOL_MAX 1e-6
#define GRID_MIN_SIMPLICES 8
#define GRID_MAX_AXIS_CELLS 4096
#define GRID_MAX_ITEMS_PER_SIMPLEX 64
/* On a lattice axis (few distinct values) the cuts sit this fraction of the gap to the
 * neighbouring value on either side of each value: far wider than any simplex's margin
 * (step_box: about 8e-6 of its extent), so a query strictly between two values finds only
 * the simplices of that gap in its cell. */
#define GRID_LATTICE_GAP_FRACTION (1.0 / 64.0)

struct msperf_delaunay {
  int ndim;
  int nsimplex;
  size_t npoints;
  double *points;       /* npoints × ndim, the caller's coordinates */
  int *simplices;       /* nsimplex × (ndim + 1) point indices */
  int *neighbors;       /* nsimplex × (ndim + 1); neighbour k is opposite vertex k; -1 none */
  double *equations;    /* nsimplex × (ndim + 2): lifted facet normal and offset */
  double *transform;    /* nsimplex × (ndim + 1) × ndim: Tinv then r_ndim; NaN if degenerate */
  double min_bound[MSPERF_DELAUNAY_MAX_DIM];
  double max_bound[MSPERF_DELAUNAY_MAX_DIM];
  double paraboloid_scale;
  double paraboloid_shift;
  int *id_map;          /* Qhull facet id → simplex index, only while extracting */
  /* The brute-force accelerator (see "the brute-force grid" below): a rectilinear grid with
   * cuts placed by the points' coordinates (lattice values or ranks); cell c lists, in
   * ascending index order, every simplex whose brute-force test can accept a point of that
   * cell. grid_start is NULL when there is no grid. */
  int grid_n[MSPERF_DELAUNAY_MAX_DIM];  /* cells on axis k */
  double *grid_cuts;    /* Σ_k (grid_n[k] − 1) non-decreasing cuts, axis 0's first */
  size_t *grid_start;   /* n_cells + 1 offsets into grid_items */
  int *grid_items;
  /* msperf_delaunay_new_from_view: the arrays are borrowed (a cache file's mapping), and
   * release (nullable) is called with release_data instead of freeing them. */
  gboolean borrowed;
  GDestroyNotify release;
  gpointer release_data;
};

void
msperf_delaunay_free (msperf_delaunay *tri)
{
  if (tri == NULL)
    return;
  if (tri->borrowed)
    {
      if (tri->release)
        tri->release (tri->release_data);
      g_free (tri);
      return;
    }
  g_free (tri->points);
  g_free (tri->simplices);
  g_free (tri->neighbors);
  g_free (tri->equations);
  g_free (tri->transform);
  g_free (tri->id_map);
  g_free (tri->grid_cuts);
  g_free (tri->grid_start);
  g_free (tri->grid_items);
  g_free (tri);
}

int
msperf_delaunay_dim (const msperf_delaunay *tri)
{
  g_return_val_if_fail (tri != NULL, 0);
  return tri->ndim;
}

size_t
msperf_delaunay_n_points (const msperf_delaunay *tri)
{
  g_return_val_if_fail (tri != NULL, 0);
  return tri->npoints;
}

int
msperf_delaunay_n_simplices (const msperf_delaunay *tri)
{
  g_return_val_if_fail (tri != NULL, 0);
  return tri->nsimplex;
}

const int *
msperf_delaunay_simplex (const msperf_delaunay *tri, int s)
{
  g_return_val_if_fail (tri != NULL && s >= 0 && s < tri->nsimplex, NULL);
  return tri->simplices + (size_t) s * (size_t) (tri->ndim + 1);
}

/* ---------------------------------------------------------------- views (tri_cache.c) */

void
msperf_delaunay_view_of (const msperf_delaunay *tri, msperf_delaunay_view *out)
{
  g_return_if_fail (tri != NULL && out != NULL);
  *out = (msperf_delaunay_view){
    .ndim = tri->ndim, .nsimplex = tri->nsimplex, .npoints = tri->npoints,
    .points = tri->points, .simplices = tri->simplices, .neighbors = tri->neighbors,
    .equations = tri->equations, .transform = tri->transform,
    .paraboloid_scale = tri->paraboloid_scale, .paraboloid_shift = tri->paraboloid_shift,
  };
  memcpy (out->min_bound, tri->min_bound, sizeof out->min_bound);
  memcpy (out->max_bound, tri->max_bound, sizeof out->max_bound);
  if (tri->grid_start == NULL)
    return;
  memcpy (out->grid.n, tri->grid_n, sizeof out->grid.n);
  out->grid.ncuts = 0;
  for (int k = 0; k < tri->ndim; k++)
    out->grid.ncuts += (size_t) (tri->grid_n[k] - 1);
  out->grid.cuts = tri->grid_cuts;
  out->grid.ncells = msperf_delaunay_grid_cells (tri);
  out->grid.start = tri->grid_start;
  out->grid.nitems = tri->grid_start[out->grid.ncells];
  out->grid.items = tri->grid_items;
}

msperf_delaunay *
msperf_delaunay_new_from_view (const msperf_delaunay_view *v, GDestroyNotify release,
                               gpointer release_data)
{
  msperf_delaunay *tri;

  g_return_val_if_fail (v != NULL && v->ndim >= 2 && v->ndim <= MSPERF_DELAUNAY_MAX_DIM, NULL);
  tri = g_new0 (msperf_delaunay, 1);
  tri->ndim = v->ndim;
  tri->nsimplex = v->nsimplex;
  tri->npoints = v->npoints;
  /* Read-only after construction (see msperf_delaunay_new): casting const away is safe. */
  tri->points = (double *) v->points;
  tri->simplices = (int *) v->simplices;
  tri->neighbors = (int *) v->neighbors;
  tri->equations = (double *) v->equations;
  tri->transform = (double *) v->transform;
  memcpy (tri->min_bound, v->min_bound, sizeof tri->min_bound);
  memcpy (tri->max_bound, v->max_bound, sizeof tri->max_bound);
  tri->paraboloid_scale = v->paraboloid_scale;
  tri->paraboloid_shift = v->paraboloid_shift;
  if (v->grid.start != NULL)
    {
      memcpy (tri->grid_n, v->grid.n, sizeof tri->grid_n);
      tri->grid_cuts = (double *) v->grid.cuts;
      tri->grid_start = (size_t *) v->grid.start;
      tri->grid_items = (int *) v->grid.items;
    }
  tri->borrowed = TRUE;
  tri->release = release;
  tri->release_data = release_data;
  return tri;
}

/* ---------------------------------------------------------------- rank pre-check */

/* Rank of the n × dim matrix A = points − p0 as numpy.linalg.matrix_rank computes it:
 * singular values above σ_max·max(n, dim)·DBL_EPSILON. The singular values come from a
 * one-sided Jacobi SVD (Hestenes), accurate to rounding relative to σ_max like LAPACK's.
 * Upstream rejects rank < dim before Qhull, which would otherwise fail on flat input
 * ("QH6154 initial simplex is flat"). */
static int
point_rank (const double *points, size_t n, int dim)
{
  g_autofree double *a = g_new0 (double, (size_t) dim * n + 1);
  double sigma[MSPERF_DELAUNAY_MAX_DIM], smax = 0.0, tol;
  int rank = 0;

  for (int k = 0; k < dim; k++)
    for (size_t i = 0; i < n; i++)
      a[(size_t) k * n + i] = points[i * (size_t) dim + (size_t) k] - points[k];
  for (int sweep = 0; sweep < 60; sweep++)
    {
      gboolean rotated = FALSE;
      for (int p = 0; p < dim - 1; p++)
        for (int q = p + 1; q < dim; q++)
          {
            double *ap = a + (size_t) p * n, *aq = a + (size_t) q * n;
            double alpha = 0.0, beta = 0.0, gamma = 0.0, zeta, t, c, sn;
            for (size_t i = 0; i < n; i++)
              {
                alpha += ap[i] * ap[i];
                beta += aq[i] * aq[i];
                gamma += ap[i] * aq[i];
              }
            if (gamma == 0.0 || fabs (gamma) <= DBL_EPSILON * sqrt (alpha * beta))
              continue;
            zeta = (beta - alpha) / (2.0 * gamma);
            t = (zeta >= 0 ? 1.0 : -1.0) / (fabs (zeta) + sqrt (1.0 + zeta * zeta));
            c = 1.0 / sqrt (1.0 + t * t);
            sn = c * t;
            for (size_t i = 0; i < n; i++)
              {
                double x = ap[i], y = aq[i];
                ap[i] = c * x - sn * y;
                aq[i] = sn * x + c * y;
              }
            rotated = TRUE;
          }
      if (!rotated)
        break;
    }
  for (int k = 0; k < dim; k++)
    {
      double s2 = 0.0;
      for (size_t i = 0; i < n; i++)
        s2 += a[(size_t) k * n + i] * a[(size_t) k * n + i];
      sigma[k] = sqrt (s2);
      smax = MAX (smax, sigma[k]);
    }
  tol = smax * (double) MAX (n, (size_t) dim) * DBL_EPSILON;
  for (int k = 0; k < dim; k++)
    if (sigma[k] > tol)
      rank++;
  return rank;
}

/* ---------------------------------------------------------------- LU (reference LAPACK) */

/* Column-major helpers transcribed from reference BLAS/LAPACK 3.11 (the library Debian's
 * scipy calls): same loops, same order of operations, 0-based. A(i,j) = a[i + j·lda]. */

static int
blas_idamax (int n, const double *x)
{
  int imax = 0;
  double dmax = fabs (x[0]);
  for (int i = 1; i < n; i++)
    if (fabs (x[i]) > dmax)
      {
        imax = i;
        dmax = fabs (x[i]);
      }
  return imax;
}

/* DLASWP with INCX = 1: row interchanges k1 .. k2-1 on n columns. */
static void
lapack_laswp (int n, double *a, int lda, int k1, int k2, const int *ipiv)
{
  for (int i = k1; i < k2; i++)
    {
      int ip = ipiv[i];
      if (ip == i)
        continue;
      for (int j = 0; j < n; j++)
        {
          double t = a[i + j * lda];
          a[i + j * lda] = a[ip + j * lda];
          a[ip + j * lda] = t;
        }
    }
}

/* DTRSM('L', 'L', 'N', 'U'), alpha = 1: B := inv(L)·B, L unit lower m × m. */
static void
blas_trsm_llnu (int m, int n, const double *a, int lda, double *b, int ldb)
{
  for (int j = 0; j < n; j++)
    for (int k = 0; k < m; k++)
      if (b[k + j * ldb] != 0.0)
        for (int i = k + 1; i < m; i++)
          b[i + j * ldb] = b[i + j * ldb] - b[k + j * ldb] * a[i + k * lda];
}

/* DTRSM('L', 'U', 'N', 'N'), alpha = 1: B := inv(U)·B. */
static void
blas_trsm_lunn (int m, int n, const double *a, int lda, double *b, int ldb)
{
  for (int j = 0; j < n; j++)
    for (int k = m - 1; k >= 0; k--)
      if (b[k + j * ldb] != 0.0)
        {
          b[k + j * ldb] = b[k + j * ldb] / a[k + k * lda];
          for (int i = 0; i < k; i++)
            b[i + j * ldb] = b[i + j * ldb] - b[k + j * ldb] * a[i + k * lda];
        }
}

/* DGEMM('N', 'N'), alpha = -1, beta = 1: C := C − A·B, A m × k, B k × n. */
static void
blas_gemm_sub (int m, int n, int k, const double *a, int lda, const double *b, int ldb,
               double *c, int ldc)
{
  for (int j = 0; j < n; j++)
    for (int l = 0; l < k; l++)
      {
        double temp = -1.0 * b[l + j * ldb];
        for (int i = 0; i < m; i++)
          c[i + j * ldc] = c[i + j * ldc] + temp * a[i + l * lda];
      }
}

/* DGETRF2 (recursive LU with partial pivoting; DGETRF calls it for n < 64). Returns INFO. */
static int
lapack_getrf2 (int m, int n, double *a, int lda, int *ipiv)
{
  int info = 0;

  if (m == 0 || n == 0)
    return 0;
  if (m == 1)
    {
      ipiv[0] = 0;
      if (a[0] == 0.0)
        info = 1;
    }
  else if (n == 1)
    {
      int i = blas_idamax (m, a);
      ipiv[0] = i;
      if (a[i] != 0.0)
        {
          if (i != 0)
            {
              double t = a[0];
              a[0] = a[i];
              a[i] = t;
            }
          /* DLAMCH('S') is DBL_MIN for IEEE doubles; DSCAL multiplies by the reciprocal. */
          if (fabs (a[0]) >= DBL_MIN)
            {
              double r = 1.0 / a[0];
              for (int k = 1; k < m; k++)
                a[k] = r * a[k];
            }
          else
            for (int k = 1; k < m; k++)
              a[k] = a[k] / a[0];
        }
      else
        info = 1;
    }
  else
    {
      int mn = MIN (m, n), n1 = mn / 2, n2 = n - n1, iinfo;

      iinfo = lapack_getrf2 (m, n1, a, lda, ipiv);
      if (info == 0 && iinfo > 0)
        info = iinfo;
      lapack_laswp (n2, a + n1 * lda, lda, 0, n1, ipiv);
      blas_trsm_llnu (n1, n2, a, lda, a + n1 * lda, lda);
      blas_gemm_sub (m - n1, n2, n1, a + n1, lda, a + n1 * lda, lda, a + n1 + n1 * lda, lda);
      iinfo = lapack_getrf2 (m - n1, n2, a + n1 + n1 * lda, lda, ipiv + n1);
      if (info == 0 && iinfo > 0)
        info = iinfo + n1;
      for (int i = n1; i < mn; i++)
        ipiv[i] += n1;
      lapack_laswp (n1, a, lda, n1, mn, ipiv);
    }
  return info;
}

/* scipy's _get_barycentric_transforms for one simplex. T[i][j] = (r_j − r_ndim)_i is stored
 * row-major and handed to LAPACK, which therefore factors Tᵀ; solving Tᵀ·X = I and reading X
 * row-major yields T⁻¹. The simplex is degenerate (block all NaN) when DGETRF finds an exact
 * zero pivot or the reciprocal condition number is below 1000·DBL_EPSILON. scipy estimates
 * it with DGECON; for n ≤ 4 we compute ‖Tᵀ‖₁·‖(Tᵀ)⁻¹‖₁ exactly from the solved inverse, which
 * can differ from the estimate only for simplices within rounding of that threshold. */
static void
barycentric_transform (const msperf_delaunay *tri, const int *simplex, double *block)
{
  int nd = tri->ndim, ipiv[MSPERF_DELAUNAY_MAX_DIM], info;
  double t[MSPERF_DELAUNAY_MAX_DIM * MSPERF_DELAUNAY_MAX_DIM];
  double anorm = 0.0, ainvnm = 0.0, rcond = 0.0;
  const double *rn = tri->points + (size_t) simplex[nd] * (size_t) nd;

  memset (block, 0, sizeof (double) * (size_t) (nd * (nd + 1)));
  for (int i = 0; i < nd; i++)
    {
      block[nd * nd + i] = rn[i];
      for (int j = 0; j < nd; j++)
        t[i * nd + j] = tri->points[(size_t) simplex[j] * (size_t) nd + (size_t) i] - rn[i];
      block[i * nd + i] = 1.0;
    }
  /* scipy's _matrix_norm1: the largest column sum of the memory read column-major. */
  for (int j = 0; j < nd; j++)
    {
      double colsum = 0.0;
      for (int i = 0; i < nd; i++)
        colsum += fabs (t[j * nd + i]);
      if (anorm < colsum)
        anorm = colsum;
    }
  info = lapack_getrf2 (nd, nd, t, nd, ipiv);
  if (info == 0)
    {
      /* DGETRS('N'): row interchanges, then L and U solves on the identity. */
      lapack_laswp (nd, block, nd, 0, nd, ipiv);
      blas_trsm_llnu (nd, nd, t, nd, block, nd);
      blas_trsm_lunn (nd, nd, t, nd, block, nd);
      for (int j = 0; j < nd; j++)
        {
          double colsum = 0.0;
          for (int i = 0; i < nd; i++)
            colsum += fabs (block[j * nd + i]);
          if (ainvnm < colsum || isnan (colsum))
            ainvnm = colsum;
        }
      /* DGECON: RCOND = (1/AINVNM)/ANORM, zero when ANORM is zero. */
      if (anorm != 0.0 && ainvnm != 0.0)
        rcond = (1.0 / ainvnm) / anorm;
      if (!(rcond >= 1000.0 * DBL_EPSILON))
        info = 1;
    }
  if (info != 0)
    for (int i = 0; i < nd * (nd + 1); i++)
      block[i] = NAN;
}

/* ---------------------------------------------------------------- Qhull */

/* Copies the lower Delaunay facets out of Qhull exactly as scipy's
 * _Qhull.get_simplex_facet_array. FALSE on a non-simplicial facet (cannot happen with Qt). */
static gboolean
extract_facets (qhT *qh, msperf_delaunay *tri)
{
  int fd = tri->ndim + 1, j;
  facetT *facet;

  tri->id_map = g_new (int, (size_t) qh->facet_id + 1);
  for (unsigned i = 0; i <= qh->facet_id; i++)
    tri->id_map[i] = -1;
  j = 0;
  FORALLfacets
    {
      if (facet->upperdelaunay != qh->UPPERdelaunay)
        continue;
      if (!facet->simplicial && (qh_setsize (qh, facet->vertices) != fd
                                 || qh_setsize (qh, facet->neighbors) != fd))
        return FALSE;
      tri->id_map[facet->id] = j++;
    }
  tri->nsimplex = j;
  tri->simplices = g_new (int, (size_t) j * (size_t) fd + 1);
  tri->neighbors = g_new (int, (size_t) j * (size_t) fd + 1);
  tri->equations = g_new (double, (size_t) j * (size_t) (fd + 1) + 1);
  j = 0;
  FORALLfacets
    {
      int *sv, *sn;
      double *eq;

      if (facet->upperdelaunay != qh->UPPERdelaunay)
        continue;
      sv = tri->simplices + (size_t) j * (size_t) fd;
      sn = tri->neighbors + (size_t) j * (size_t) fd;
      eq = tri->equations + (size_t) j * (size_t) (fd + 1);
      for (int i = 0; i < fd; i++)
        {
          vertexT *vertex = SETelemt_ (facet->vertices, i, vertexT);
          facetT *neighbor = SETelemt_ (facet->neighbors, i, facetT);
          sv[i] = qh_pointid (qh, vertex->point);
          sn[i] = tri->id_map[neighbor->id];
          eq[i] = facet->normal[i];
        }
      eq[fd] = facet->offset;
      if (fd == 3 && facet->toporient == qh_ORIENTclock)
        {
          /* scipy swaps the first two entries so 2-D simplices are counter-clockwise. */
          int t = sv[0];
          sv[0] = sv[1];
          sv[1] = t;
          t = sn[0];
          sn[0] = sn[1];
          sn[1] = t;
        }
      j++;
    }
  if (qh->SCALElast)
    {
      tri->paraboloid_scale = qh->last_newhigh / (qh->last_high - qh->last_low);
      tri->paraboloid_shift = -qh->last_low * tri->paraboloid_scale;
    }
  else
    {
      tri->paraboloid_scale = 1.0;
      tri->paraboloid_shift = 0.0;
    }
  return TRUE;
}

/* Qhull reports errors by longjmp to qh->errexit: every call outside qh_new_qhull runs
 * under this setjmp. Nothing local is modified after setjmp (results live in *tri), so no
 * variable can be clobbered. */
static int
triangulate_and_extract (qhT *qh, msperf_delaunay *tri)
{
  if (setjmp (qh->errexit))
    {
      qh->NOerrexit = True;
      return -1;
    }
  qh->NOerrexit = False;
  qh_triangulate (qh);   /* a no-op after Qt; scipy calls it too */
  if (!extract_facets (qh, tri))
    {
      qh->NOerrexit = True;
      return 1;
    }
  qh->NOerrexit = True;
  return 0;
}

/* The first "QH…" line Qhull wrote to errfile, for the error message. */
static char *
qhull_message (FILE *errfile)
{
  char line[512];

  if (errfile == NULL || fflush (errfile) != 0 || fseek (errfile, 0, SEEK_SET) != 0)
    return g_strdup ("(no message)");
  while (fgets (line, sizeof line, errfile))
    if (g_str_has_prefix (line, "QH"))
      return g_strdup (g_strstrip (line));
  return g_strdup ("(no message)");
}

static gboolean
run_qhull (msperf_delaunay *tri, GError **error)
{
  char cmd[] = MSPERF_DELAUNAY_QHULL_OPTIONS;
  g_autofree qhT *qh = g_new0 (qhT, 1);
  g_autofree double *coords = NULL;
  FILE *errfile;
  int rc, curlong = 0, totlong = 0;
  gboolean ok = FALSE;

  QHULL_LIB_CHECK
  /* Qhull writes its diagnostics to errfile: never to our stderr, and tmpfile() lets us quote
   * the message; /dev/null when no temporary file can be made. */
  errfile = tmpfile ();
  if (errfile == NULL)
    errfile = fopen ("/dev/null", "w");
  if (errfile == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO,
                   "qhull_error: cannot open a file for Qhull's messages");
      return FALSE;
    }
  /* ismalloc = False: Qhull keeps using coords until qh_freeqhull. */
  coords = g_memdup2 (tri->points, tri->npoints * (size_t) tri->ndim * sizeof (double));
  qh_zero (qh, errfile);
  rc = qh_new_qhull (qh, tri->ndim, (int) tri->npoints, coords, False, cmd, NULL, errfile);
  if (rc == 0)
    {
      int st = triangulate_and_extract (qh, tri);
      if (st == 0)
        ok = TRUE;
      else
        {
          g_autofree char *msg = qhull_message (errfile);
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       st > 0 ? "qhull_error: non-simplicial facet after triangulation"
                              : "qhull_error: %s", msg);
        }
    }
  else
    {
      g_autofree char *msg = qhull_message (errfile);
      /* qh_ERRsingular: the input is flat (collinear / coplanar) for Qhull's precision. */
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s: Qhull exit %d: %s",
                   rc == qh_ERRsingular ? "degenerate_point_cloud" : "qhull_error", rc, msg);
    }
  g_free (tri->id_map);
  tri->id_map = NULL;
  qh_freeqhull (qh, !qh_ALL);
  qh_memfreeshort (qh, &curlong, &totlong);
  if (curlong || totlong)
    g_warning ("Qhull did not free %d bytes in %d long blocks", totlong, curlong);
  fclose (errfile);
  return ok;
}

static void build_grid (msperf_delaunay *tri);

msperf_delaunay *
msperf_delaunay_new (const double *points, size_t n, int dim, GError **error)
{
  g_autoptr (msperf_delaunay) tri = NULL;
  size_t block;
  int rank;

  g_return_val_if_fail (points != NULL || n == 0, NULL);
  g_return_val_if_fail (dim >= 2 && dim <= MSPERF_DELAUNAY_MAX_DIM, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (n < (size_t) dim + 1)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "degenerate_point_cloud: %zu points cannot span %d dimensions "
                   "(at least %d are needed)", n, dim, dim + 1);
      return NULL;
    }
  if (n > (size_t) INT_MAX / 8)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "qhull_error: %zu points exceed Qhull's int point count", n);
      return NULL;
    }
  for (size_t i = 0; i < n * (size_t) dim; i++)
    if (!isfinite (points[i]))
      {
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                     "non_finite_input: coordinate %zu of point %zu is %g",
                     i % (size_t) dim, i / (size_t) dim, points[i]);
        return NULL;
      }
  rank = point_rank (points, n, dim);
  if (rank < dim)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "degenerate_point_cloud: the %zu points span %d of %d dimensions "
                   "(%s)", n, rank, dim,
                   rank == 0 ? "all equal" : rank == 1 ? "collinear"
                   : rank == 2 ? "coplanar" : "in a hyperplane");
      return NULL;
    }

  tri = g_new0 (msperf_delaunay, 1);
  tri->ndim = dim;
  tri->npoints = n;
  tri->points = g_memdup2 (points, n * (size_t) dim * sizeof (double));
  for (int k = 0; k < dim; k++)
    {
      tri->min_bound[k] = tri->max_bound[k] = points[k];
      for (size_t i = 1; i < n; i++)
        {
          double v = points[i * (size_t) dim + (size_t) k];
          if (v < tri->min_bound[k])
            tri->min_bound[k] = v;
          if (v > tri->max_bound[k])
            tri->max_bound[k] = v;
        }
    }
  if (!run_qhull (tri, error))
    return NULL;

  block = (size_t) dim * (size_t) (dim + 1);
  tri->transform = g_new (double, (size_t) tri->nsimplex * block + 1);
  for (int s = 0; s < tri->nsimplex; s++)
    barycentric_transform (tri, tri->simplices + (size_t) s * (size_t) (dim + 1),
                           tri->transform + (size_t) s * block);
  build_grid (tri);
  return g_steal_pointer (&tri);
}

/* ---------------------------------------------------------------- point location */

/* The accumulation orders below are scipy's _barycentric_inside / _coordinates /
 * _coordinate_single (c_ndim = 1 − c_0 − c_1 − …, in that order). */

static const double *
transform_of (const msperf_delaunay *tri, int s)
{
  return tri->transform + (size_t) s * (size_t) (tri->ndim * (tri->ndim + 1));
}

static void
bary_single (int nd, const double *tr, const double *x, double *c, int i)
{
  if (i == nd)
    {
      c[nd] = 1.0;
      for (int j = 0; j < nd; j++)
        c[nd] -= c[j];
    }
  else
    {
      c[i] = 0.0;
      for (int j = 0; j < nd; j++)
        c[i] += tr[nd * i + j] * (x[j] - tr[nd * nd + j]);
    }
}

static void
bary_all (int nd, const double *tr, const double *x, double *c)
{
  c[nd] = 1.0;
  for (int i = 0; i < nd; i++)
    {
      c[i] = 0.0;
      for (int j = 0; j < nd; j++)
        c[i] += tr[nd * i + j] * (x[j] - tr[nd * nd + j]);
      c[nd] -= c[i];
    }
}

static gboolean
bary_inside (int nd, const double *tr, const double *x, double *c, double eps)
{
  c[nd] = 1.0;
  for (int i = 0; i < nd; i++)
    {
      c[i] = 0.0;
      for (int j = 0; j < nd; j++)
        c[i] += tr[nd * i + j] * (x[j] - tr[nd * nd + j]);
      c[nd] -= c[i];
      if (!(-eps <= c[i] && c[i] <= 1.0 + eps))
        return FALSE;
    }
  return -eps <= c[nd] && c[nd] <= 1.0 + eps;
}

static gboolean
fully_outside (const msperf_delaunay *tri, const double *x, double eps)
{
  for (int i = 0; i < tri->ndim; i++)
    if (x[i] < tri->min_bound[i] - eps || x[i] > tri->max_bound[i] + eps)
      return TRUE;
  return FALSE;
}

/* One step of scipy's _find_simplex_bruteforce: the simplex it returns when it reaches s in
 * its scan (s itself, or for a degenerate s the first neighbour that accepts x), else -1. */
static int
bruteforce_step (const msperf_delaunay *tri, int s, const double *x, double *c, double eps,
                 double eps_broad)
{
  int nd = tri->ndim;
  const double *tr = transform_of (tri, s);

  if (!isnan (tr[0]))
    return bary_inside (nd, tr, x, c, eps) ? s : -1;
  /* A degenerate simplex: accept a neighbour that (almost) contains x, with extra leeway
   * toward the degenerate one. */
  for (int k = 0; k < nd + 1; k++)
    {
      int m = tri->neighbors[(size_t) s * (size_t) (nd + 1) + (size_t) k];
      gboolean inside = TRUE;
      const double *trm;
      if (m == -1)
        continue;
      trm = transform_of (tri, m);
      if (isnan (trm[0]))
        continue;
      bary_all (nd, trm, x, c);
      for (int i = 0; i < nd + 1 && inside; i++)
        {
          if (tri->neighbors[(size_t) m * (size_t) (nd + 1) + (size_t) i] == s)
            inside = -eps_broad <= c[i] && c[i] <= 1.0 + eps;
          else
            inside = -eps <= c[i] && c[i] <= 1.0 + eps;
        }
      if (inside)
        return m;
    }
  return -1;
}

/* The grid's cell of coordinate v on axis k: the number of axis k's cuts that are <= v
 * (binary search over the non-decreasing cuts). A count over fixed thresholds, so monotone
 * non-decreasing in v and within [0, grid_n[k] − 1]: a point inside a box [lo, hi] always
 * falls in a cell of the box's cell range, even outside the grid (NaN counts 0). */
static int
grid_cell (const msperf_delaunay *tri, int k, double v)
{
  const double *cut = tri->grid_cuts;
  int lo = 0, hi;

  for (int j = 0; j < k; j++)
    cut += tri->grid_n[j] - 1;
  hi = tri->grid_n[k] - 1;
  while (lo < hi)
    {
      int mid = lo + (hi - lo) / 2;

      if (cut[mid] <= v)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static size_t
grid_index (const msperf_delaunay *tri, const int *cell)
{
  size_t idx = 0;

  for (int k = tri->ndim - 1; k >= 0; k--)
    idx = idx * (size_t) tri->grid_n[k] + (size_t) cell[k];
  return idx;
}

/* scipy's _find_simplex_bruteforce. The plain scan tries every simplex in index order; with
 * the grid only the simplices listed in x's cell are tried, in the same (ascending) order.
 * Every simplex whose step can accept x is listed there (proof at build_grid), and a step
 * that cannot accept returns -1 in both scans, so the first acceptance — simplex and
 * coordinates in c — is the plain scan's. */
static int
find_bruteforce_mode (const msperf_delaunay *tri, const double *x, double *c, double eps,
                      double eps_broad, gboolean use_grid, size_t *tested)
{
  int cell[MSPERF_DELAUNAY_MAX_DIM];
  gboolean finite = TRUE;
  size_t at, begin, end;

  if (fully_outside (tri, x, eps))
    return -1;
  for (int k = 0; k < tri->ndim; k++)
    finite = finite && isfinite (x[k]);
  /* The grid's margins cover tolerances up to GRID_TOL_MAX only. */
  if (!use_grid || tri->grid_start == NULL || !finite || !(eps <= GRID_TOL_MAX)
      || !(eps_broad <= GRID_TOL_MAX))
    {
      for (int s = 0; s < tri->nsimplex; s++)
        {
          int r = bruteforce_step (tri, s, x, c, eps, eps_broad);
          if (r >= 0)
            {
              if (tested)
                *tested = (size_t) s + 1;
              return r;
            }
        }
      if (tested)
        *tested = (size_t) tri->nsimplex;
      return -1;
    }
  for (int k = 0; k < tri->ndim; k++)
    cell[k] = grid_cell (tri, k, x[k]);
  at = grid_index (tri, cell);
  begin = tri->grid_start[at];
  end = tri->grid_start[at + 1];
  for (at = begin; at < end; at++)
    {
      int r = bruteforce_step (tri, tri->grid_items[at], x, c, eps, eps_broad);
      if (r >= 0)
        {
          if (tested)
            *tested = at - begin + 1;
          return r;
        }
    }
  if (tested)
    *tested = end - begin;
  return -1;
}

static int
find_bruteforce (const msperf_delaunay *tri, const double *x, double *c, double eps,
                 double eps_broad)
{
  return find_bruteforce_mode (tri, x, c, eps, eps_broad, TRUE, NULL);
}

int
msperf_delaunay_find_bruteforce (const msperf_delaunay *tri, const double *x, double eps,
                                 double eps_broad, gboolean use_grid, double *bary)
{
  double c[MSPERF_DELAUNAY_MAX_DIM + 1];
  int s;

  g_return_val_if_fail (tri != NULL && x != NULL, -1);
  s = find_bruteforce_mode (tri, x, c, eps, eps_broad, use_grid, NULL);
  if (s >= 0 && bary)
    memcpy (bary, c, sizeof (double) * (size_t) (tri->ndim + 1));
  return s;
}

size_t
msperf_delaunay_bruteforce_tested (const msperf_delaunay *tri, const double *x, double eps,
                                   double eps_broad, gboolean use_grid)
{
  double c[MSPERF_DELAUNAY_MAX_DIM + 1];
  size_t tested = 0;

  g_return_val_if_fail (tri != NULL && x != NULL, 0);
  find_bruteforce_mode (tri, x, c, eps, eps_broad, use_grid, &tested);
  return tested;
}

size_t
msperf_delaunay_grid_cells (const msperf_delaunay *tri)
{
  size_t n = 1;

  g_return_val_if_fail (tri != NULL, 0);
  if (tri->grid_start == NULL)
    return 0;
  for (int k = 0; k < tri->ndim; k++)
    n *= (size_t) tri->grid_n[k];
  return n;
}

gboolean
msperf_delaunay_grid_stats (const msperf_delaunay *tri, msperf_delaunay_grid_info *info)
{
  size_t cells;

  g_return_val_if_fail (tri != NULL && info != NULL, FALSE);
  memset (info, 0, sizeof *info);
  cells = msperf_delaunay_grid_cells (tri);
  if (cells == 0)
    return FALSE;
  info->cells = cells;
  info->items = tri->grid_start[cells];
  for (size_t c = 0; c < cells; c++)
    info->max_list = MAX (info->max_list, tri->grid_start[c + 1] - tri->grid_start[c]);
  for (int k = 0; k < tri->ndim; k++)
    info->axis_cells[k] = tri->grid_n[k];
  return TRUE;
}

/* ---------------------------------------------------------------- the brute-force grid */

/* The box, in point coordinates, outside of which bruteforce_step (tri, s, …) can accept no
 * point, for any eps, eps_broad ≤ τ = GRID_TOL_MAX. FALSE when s can accept nothing.
 *
 * Non-degenerate s, vertices v_0 … v_n (n = ndim), r = v_n, T = [v_j − r] (n × n), M the
 * stored Tinv, κ = ‖T‖∞·‖M‖∞ (u = DBL_EPSILON/2). Its transform passed scipy's condition test,
 * so κ ≤ 1/(1000·DBL_EPSILON) ≈ 4.5e12.
 * (1) M came from LU with partial pivoting of Tᵀ and two triangular solves (n ≤ 3), so
 *     E = M·T − I obeys ‖E‖∞ ≤ γ_3n·‖|L||U|‖·‖M‖ ≤ 9.1u·n²·ρ_n·κ ≤ 330·u·κ (growth ρ_3 ≤ 4;
 *     Higham, Accuracy and Stability, §14.3), ≤ 0.17 here.
 * (2) bary_inside/bary_all compute c̃_i = fl(Σ_j M_ij·fl(x_j − r_j)); with a = M·(x − r)
 *     (exact), |c̃_i − a_i| ≤ γ_(n+1)·‖M‖·‖x − r‖ =: δ.
 * (3) An acceptance needs c̃_i ≥ −τ for every i ≤ n (c̃_n = fl(1 − Σ c̃_i)), all ≤ 1 + τ.
 *     So ‖a‖ ≤ 1 + τ + δ, ‖x − r‖ = ‖T·(I + E)⁻¹·a‖ ≤ ‖T‖·‖a‖/0.83, hence δ ≤ 6·u·κ·‖a‖ and
 *     ‖a‖ ≤ 1.01. The exact barycentric coordinates of x in the simplex, b = (I + E)⁻¹·a,
 *     satisfy ‖b − a‖ ≤ ‖E‖·‖a‖/0.83 ≤ 410·u·κ; with the rounding of the final subtraction
 *     (≤ 4n·u), every exact barycentric coordinate β_j of x (Σ β_j = 1) is ≥ −ν with
 *     ν = τ + n·(6 + 410)·u·κ + 16·u ≤ τ + 1000·DBL_EPSILON·κ + 8·DBL_EPSILON.
 * (4) x_k − min_j v_jk = Σ β_j·(v_jk − min_j v_jk) ≥ −(n + 1)·ν·extent_k, and likewise below
 *     the maximum: x lies in the vertices' bounding box widened by (n + 1)·ν·extent_k on
 *     axis k. We widen by twice that (slack for the rounding of κ and of the margin itself;
 *     lo − m rounded to nearest is still ≤ every double ≥ lo − m).
 * Degenerate s (NaN transform): its step accepts only inside a non-degenerate neighbour m,
 * with the test above (eps_broad toward s, eps elsewhere, both ≤ τ): the union of those
 * neighbours' boxes. */
static gboolean
step_box (const msperf_delaunay *tri, int s, double *lo, double *hi)
{
  int nd = tri->ndim;
  const int *sv = tri->simplices + (size_t) s * (size_t) (nd + 1);
  const double *tr = transform_of (tri, s);
  const double *rn = tri->points + (size_t) sv[nd] * (size_t) nd;
  double anorm = 0.0, ainvnm = 0.0, nu;

  if (isnan (tr[0]))
    {
      gboolean any = FALSE;

      for (int k = 0; k < nd + 1; k++)
        {
          int m = tri->neighbors[(size_t) s * (size_t) (nd + 1) + (size_t) k];
          double mlo[MSPERF_DELAUNAY_MAX_DIM], mhi[MSPERF_DELAUNAY_MAX_DIM];

          if (m == -1 || isnan (transform_of (tri, m)[0]) || !step_box (tri, m, mlo, mhi))
            continue;
          for (int i = 0; i < nd; i++)
            {
              lo[i] = any ? MIN (lo[i], mlo[i]) : mlo[i];
              hi[i] = any ? MAX (hi[i], mhi[i]) : mhi[i];
            }
          any = TRUE;
        }
      return any;
    }
  for (int i = 0; i < nd; i++)
    {
      double rowsum = 0.0, invsum = 0.0;

      lo[i] = hi[i] = rn[i];
      for (int j = 0; j < nd; j++)
        {
          double v = tri->points[(size_t) sv[j] * (size_t) nd + (size_t) i];

          lo[i] = MIN (lo[i], v);
          hi[i] = MAX (hi[i], v);
          rowsum += fabs (v - rn[i]);
          invsum += fabs (tr[nd * i + j]);
        }
      anorm = MAX (anorm, rowsum);
      ainvnm = MAX (ainvnm, invsum);
    }
  nu = GRID_TOL_MAX + 1000.0 * DBL_EPSILON * (anorm * ainvnm) + 8.0 * DBL_EPSILON;
  for (int i = 0; i < nd; i++)
    {
      double margin = 2.0 * (double) (nd + 1) * nu * (hi[i] - lo[i]);

      lo[i] -= margin;
      hi[i] += margin;
    }
  return TRUE;
}

/* Visits every cell of the box's cell range: counts[cell]++ (counting pass) or appends item
 * to the cell's list at fill[cell] (filling pass). Returns the number of cells. */
static size_t
box_cells (const msperf_delaunay *tri, const double *lo, const double *hi, size_t *counts,
           int *items, size_t *fill, int item)
{
  int a[MSPERF_DELAUNAY_MAX_DIM], b[MSPERF_DELAUNAY_MAX_DIM], cell[MSPERF_DELAUNAY_MAX_DIM];
  int nd = tri->ndim;
  size_t n = 0;

  for (int k = 0; k < nd; k++)
    {
      a[k] = grid_cell (tri, k, lo[k]);
      /* NaN counts 0 cuts; as an upper end it must mean "unbounded". */
      b[k] = isnan (hi[k]) ? tri->grid_n[k] - 1 : grid_cell (tri, k, hi[k]);
      cell[k] = a[k];
    }
  for (;;)
    {
      size_t idx = grid_index (tri, cell);
      int k;

      if (counts)
        counts[idx]++;
      else
        items[fill[idx]++] = item;
      n++;
      for (k = 0; k < nd && cell[k] == b[k]; k++)
        cell[k] = a[k];
      if (k == nd)
        break;
      cell[k]++;
    }
  return n;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Axis k's coordinates of every point, sorted ascending (transfer full). */
static double *
sorted_axis (const msperf_delaunay *tri, int k)
{
  double *v = g_new (double, tri->npoints);

  for (size_t i = 0; i < tri->npoints; i++)
    v[i] = tri->points[i * (size_t) tri->ndim + (size_t) k];
  qsort (v, tri->npoints, sizeof (double), compare_double);
  return v;
}

static size_t
count_distinct (const double *sorted, size_t n)
{
  size_t d = n > 0;

  for (size_t i = 1; i < n; i++)
    d += sorted[i] != sorted[i - 1];
  return d;
}

/* Lattice cuts: u − gap·f and u + gap·f around every distinct value u (toward each
 * neighbour), so 2·D − 1 cells: a thin one around each value, a wide one between two. */
static size_t
lattice_cuts (const double *sorted, size_t n, double *cuts)
{
  size_t nc = 0, prev = 0;

  for (size_t i = 1; i < n; i++)
    if (sorted[i] != sorted[prev])
      {
        double gap = sorted[i] - sorted[prev];

        cuts[nc++] = sorted[prev] + gap * GRID_LATTICE_GAP_FRACTION;
        cuts[nc++] = sorted[i] - gap * GRID_LATTICE_GAP_FRACTION;
        prev = i;
      }
  return nc;
}

/* Rank cuts: ncell − 1 cuts halfway between the coordinates of rank j·n/ncell − 1 and
 * j·n/ncell, so about as many points fall in every cell. */
static size_t
rank_cuts (const double *sorted, size_t n, int ncell, double *cuts)
{
  for (int j = 1; j < ncell; j++)
    {
      size_t r = (size_t) j * n / (size_t) ncell;
      double a = sorted[r - 1], b = sorted[r];

      cuts[j - 1] = a + (b - a) / 2.0;
    }
  return ncell > 1 ? (size_t) ncell - 1 : 0;
}

/* Chooses the cuts of every axis into tri->grid_n / tri->grid_cuts; the product of the cell
 * counts (about nsimplex) is returned. Axes with few distinct values (lattices, e.g. GEMM
 * tables) get lattice cuts when their 2·D − 1 cells stay within twice their fair share of
 * the budget; the others rank cuts with their fair share. Axes are planned from the fewest
 * values up, so a short lattice axis leaves its unused share to the others. */
static size_t
plan_grid (msperf_delaunay *tri)
{
  int nd = tri->ndim, order[MSPERF_DELAUNAY_MAX_DIM];
  size_t distinct[MSPERF_DELAUNAY_MAX_DIM], ncells = 1, at = 0;
  double *sorted[MSPERF_DELAUNAY_MAX_DIM] = { NULL };
  double budget = (double) tri->nsimplex;
  gboolean lattice[MSPERF_DELAUNAY_MAX_DIM];

  for (int k = 0; k < nd; k++)
    {
      sorted[k] = sorted_axis (tri, k);
      distinct[k] = count_distinct (sorted[k], tri->npoints);
      order[k] = k;
    }
  for (int i = 1; i < nd; i++)   /* insertion sort by distinct values, ties by axis */
    for (int j = i; j > 0 && distinct[order[j]] < distinct[order[j - 1]]; j--)
      {
        int t = order[j];
        order[j] = order[j - 1];
        order[j - 1] = t;
      }
  for (int i = 0; i < nd; i++)
    {
      int k = order[i];
      double share = pow (budget / (double) ncells, 1.0 / (double) (nd - i));
      double lat = 2.0 * (double) distinct[k] - 1.0;

      lattice[k] = lat <= 2.0 * share && lat <= GRID_MAX_AXIS_CELLS;
      tri->grid_n[k] = lattice[k] ? (int) lat
                       : (int) CLAMP (floor (share), 1.0,
                                      MIN ((double) GRID_MAX_AXIS_CELLS, (double) tri->npoints));
      ncells *= (size_t) tri->grid_n[k];
      at += (size_t) tri->grid_n[k] - 1;
    }
  tri->grid_cuts = g_new (double, at + 1);
  at = 0;
  for (int k = 0; k < nd; k++)
    {
      double *cuts = tri->grid_cuts + at;
      size_t nc = lattice[k] ? lattice_cuts (sorted[k], tri->npoints, cuts)
                  : rank_cuts (sorted[k], tri->npoints, tri->grid_n[k], cuts);

      /* Cuts must not decrease for the binary search; rounding must not break that. */
      for (size_t j = 1; j < nc; j++)
        cuts[j] = MAX (cuts[j], cuts[j - 1]);
      at += nc;
      g_free (sorted[k]);
    }
  return ncells;
}

/* Builds the accelerator; leaves none (plain scan) for tiny triangulations or when the cells
 * or lists would be unreasonably many (memory caps).
 *
 * Why the grid returns scipy's answer. find_bruteforce_mode tries the simplices of x's cell
 * in ascending index order and the plain scan tries all of them in that order; a step that
 * cannot accept x returns -1 in both, so the two return the same first acceptance as long as
 * x's cell lists every simplex s whose step can accept x, in ascending order.
 * - step_box gives for such an s a box [lo, hi] with lo ≤ x ≤ hi on every axis (proof there).
 * - The cell of x is (cell_0 (x_0), …) with cell_k (v) = #{cuts of axis k ≤ v} (grid_cell):
 *   a count over fixed thresholds, so non-decreasing in v whatever the cuts are — lattice
 *   values, ranks or anything else; their placement only decides how short the lists are.
 *   Hence cell_k (lo_k) ≤ cell_k (x_k) ≤ cell_k (hi_k): x's cell lies in the range of cells
 *   box_cells visits for s (a NaN upper end visits to the last cell), and s is listed there.
 * - The lists are filled by s ascending, so each is in index order.
 * - Outside the grid's cut range the count clamps to the first / last cell, which the same
 *   inequality covers; a query with a non-finite coordinate or a tolerance above
 *   GRID_TOL_MAX takes the plain scan. */
static void
build_grid (msperf_delaunay *tri)
{
  int nd = tri->ndim;
  size_t ncells, total = 0;
  g_autofree double *boxes = NULL;
  g_autofree guint8 *has_box = NULL;
  g_autofree size_t *fill = NULL;

  /* The box bound of step_box is proved for n <= 3 (LU growth ρ_3 <= 4); 4-D triangulations
   * keep scipy's plain scan, which is the reference anyway. */
  if (tri->nsimplex < GRID_MIN_SIMPLICES || nd > 3)
    return;
  ncells = plan_grid (tri);
  if (ncells > 8 * (size_t) tri->nsimplex + 64)
    {
      g_clear_pointer (&tri->grid_cuts, g_free);
      return;
    }

  boxes = g_new (double, (size_t) tri->nsimplex * 2 * (size_t) nd);
  has_box = g_new0 (guint8, (size_t) tri->nsimplex);
  tri->grid_start = g_new0 (size_t, ncells + 1);
  for (int s = 0; s < tri->nsimplex; s++)
    {
      double *lo = boxes + (size_t) s * 2 * (size_t) nd, *hi = lo + nd;

      if (!step_box (tri, s, lo, hi))
        continue;
      has_box[s] = 1;
      total += box_cells (tri, lo, hi, tri->grid_start, NULL, NULL, s);
    }
  if (total > GRID_MAX_ITEMS_PER_SIMPLEX * (size_t) tri->nsimplex + ncells)
    {
      g_clear_pointer (&tri->grid_start, g_free);
      g_clear_pointer (&tri->grid_cuts, g_free);
      return;
    }
  /* Counts → offsets; then fill in index order, so every cell's list is ascending. */
  for (size_t c = 0, sum = 0; c <= ncells; c++)
    {
      size_t n = c < ncells ? tri->grid_start[c] : 0;

      tri->grid_start[c] = sum;
      sum += n;
    }
  fill = g_memdup2 (tri->grid_start, ncells * sizeof (size_t));
  tri->grid_items = g_new (int, total + 1);
  for (int s = 0; s < tri->nsimplex; s++)
    if (has_box[s])
      {
        double *lo = boxes + (size_t) s * 2 * (size_t) nd;

        box_cells (tri, lo, lo + nd, NULL, tri->grid_items, fill, s);
      }
}

static int
find_directed (const msperf_delaunay *tri, const double *x, int *start, double *c,
               double eps, double eps_broad)
{
  int nd = tri->ndim, s = *start;
  int cycles = 1 + tri->nsimplex / 4;
  gboolean converged = FALSE;

  if (s < 0 || s >= tri->nsimplex)
    s = 0;
  for (int cycle = 0; cycle < cycles; cycle++)
    {
      const double *tr;
      int state = 1;  /* 1 inside, -1 hopped, 0 failed */

      if (s == -1)
        {
          converged = TRUE;
          break;
        }
      tr = transform_of (tri, s);
      for (int k = 0; k < nd + 1; k++)
        {
          bary_single (nd, tr, x, c, k);
          if (c[k] < -eps)
            {
              int m = tri->neighbors[(size_t) s * (size_t) (nd + 1) + (size_t) k];
              if (m == -1)
                {
                  *start = s;
                  return -1;
                }
              s = m;
              state = -1;
              break;
            }
          else if (c[k] <= 1.0 + eps)
            ;
          else
            state = 0;  /* > 1 + eps, or NaN in a degenerate simplex */
        }
      if (state == -1)
        continue;
      if (state == 0)
        s = find_bruteforce (tri, x, c, eps, eps_broad);
      converged = TRUE;
      break;
    }
  if (!converged)
    s = find_bruteforce (tri, x, c, eps, eps_broad);
  *start = s;
  return s;
}

static double
distplane (const msperf_delaunay *tri, int s, const double *z)
{
  const double *eq = tri->equations + (size_t) s * (size_t) (tri->ndim + 2);
  double dist = eq[tri->ndim + 1];
  for (int k = 0; k < tri->ndim + 1; k++)
    dist += eq[k] * z[k];
  return dist;
}

int
msperf_delaunay_find_simplex (const msperf_delaunay *tri, const double *x, int *start,
                              double eps, double eps_broad, double *bary)
{
  double z[MSPERF_DELAUNAY_MAX_DIM + 1], c[MSPERF_DELAUNAY_MAX_DIM + 1];
  double best;
  int nd, s;
  gboolean changed;

  g_return_val_if_fail (tri != NULL && x != NULL && start != NULL, -1);
  nd = tri->ndim;
  if (fully_outside (tri, x, eps) || tri->nsimplex <= 0)
    return -1;

  /* Lift onto the paraboloid with Qhull's Qbb scale and shift. */
  z[nd] = 0.0;
  for (int i = 0; i < nd; i++)
    {
      z[i] = x[i];
      z[nd] += x[i] * x[i];
    }
  z[nd] *= tri->paraboloid_scale;
  z[nd] += tri->paraboloid_shift;

  s = *start;
  if (s < 0 || s >= tri->nsimplex)
    s = 0;
  best = distplane (tri, s, z);
  changed = TRUE;
  while (changed)
    {
      if (best > 0)
        break;
      changed = FALSE;
      /* On a move the k loop goes on with the new simplex's neighbours (scipy does so). */
      for (int k = 0; k < nd + 1; k++)
        {
          int m = tri->neighbors[(size_t) s * (size_t) (nd + 1) + (size_t) k];
          double dist;
          if (m == -1)
            continue;
          dist = distplane (tri, m, z);
          /* The margin guarantees termination (scipy's comment on extended precision). */
          if (dist > best + eps * (1.0 + fabs (best)))
            {
              s = m;
              best = dist;
              changed = TRUE;
            }
        }
    }
  *start = s;
  s = find_directed (tri, x, start, c, eps, eps_broad);
  if (s >= 0 && bary)
    memcpy (bary, c, sizeof (double) * (size_t) (nd + 1));
  return s;
}

gboolean
msperf_delaunay_locate (const msperf_delaunay *tri, const double *x, int *simplex, double *bary)
{
  int start = 0, s;

  g_return_val_if_fail (tri != NULL && x != NULL, FALSE);
  s = msperf_delaunay_find_simplex (tri, x, &start, MSPERF_DELAUNAY_EPS,
                                    sqrt (MSPERF_DELAUNAY_EPS), bary);
  if (simplex)
    *simplex = s;
  return s >= 0;
}

static gboolean
evaluate (const msperf_delaunay *tri, const double *values, const double *x, int *start,
          double *out, int *vertices, double *weights)
{
  double c[MSPERF_DELAUNAY_MAX_DIM + 1], v = 0.0;
  const int *sv;
  int s;

  s = msperf_delaunay_find_simplex (tri, x, start, MSPERF_DELAUNAY_EPS, sqrt (DBL_EPSILON), c);
  if (s < 0)
    return FALSE;
  sv = tri->simplices + (size_t) s * (size_t) (tri->ndim + 1);
  for (int j = 0; j < tri->ndim + 1; j++)
    v = v + c[j] * values[sv[j]];
  *out = v;
  if (vertices)
    memcpy (vertices, sv, sizeof (int) * (size_t) (tri->ndim + 1));
  if (weights)
    memcpy (weights, c, sizeof (double) * (size_t) (tri->ndim + 1));
  return TRUE;
}

gboolean
msperf_interp_griddata (const msperf_delaunay *tri, const double *values, const double *x,
                        double *out, int *vertices)
{
  return msperf_interp_griddata_details (tri, values, x, out, vertices, NULL);
}

gboolean
msperf_interp_griddata_details (const msperf_delaunay *tri, const double *values,
                                const double *x, double *out, int *vertices, double *weights)
{
  int start = 0;

  g_return_val_if_fail (tri != NULL && values != NULL && x != NULL && out != NULL, FALSE);
  return evaluate (tri, values, x, &start, out, vertices, weights);
}

size_t
msperf_interp_griddata_many (const msperf_delaunay *tri, const double *values,
                             const double *xi, size_t m, double *out)
{
  int start = 0;
  size_t inside = 0;

  g_return_val_if_fail (tri != NULL && values != NULL && (m == 0 || (xi && out)), 0);
  for (size_t i = 0; i < m; i++)
    {
      if (evaluate (tri, values, xi + i * (size_t) tri->ndim, &start, &out[i], NULL, NULL))
        inside++;
      else
        out[i] = NAN;
    }
  return inside;
}
