/* msperf — interpolation math (internal): boundaries, 1-D linear, duplicate aggregation and
 * the 2-D/3-D Delaunay interpolation of scipy's griddata(method="linear"), reproduced to the
 * last bit (see shared/reference/griddata-qhull.md; golden fixtures in tests/data/interp/). */
#ifndef MSPERF_CORE_INTERP_H
#define MSPERF_CORE_INTERP_H

#include <float.h>
#include <stddef.h>
#include <glib.h>

G_BEGIN_DECLS

/* Why an interpolation attempt failed; names are the upstream reason strings
 * (profiling-semantics.md §4.4 and §4.7). */
typedef enum {
  MSPERF_INTERP_OK = 0,
  MSPERF_INTERP_OUTSIDE_AXIS_BOUNDARY,
  MSPERF_INTERP_INSUFFICIENT_POINTS,
  MSPERF_INTERP_NON_FINITE_INPUT,
  MSPERF_INTERP_DEGENERATE_POINT_CLOUD,
  MSPERF_INTERP_QHULL_ERROR,
  MSPERF_INTERP_OUTSIDE_CONVEX_HULL,
  MSPERF_INTERP_LATENCY_GUARD_REJECTED
} msperf_interp_status;

/* "outside_convex_hull", …; never NULL (static string). */
const char *msperf_interp_status_name (msperf_interp_status status);

/* The status carried by a GError of msperf_delaunay_new (its message starts with the status
 * name and a colon); MSPERF_INTERP_QHULL_ERROR for any other error, OK for NULL. */
msperf_interp_status msperf_interp_status_from_error (const GError *error);

/* (max{v ≤ t}, min{v ≥ t}) over values[0..n-1] (any order, duplicates allowed; NaN values are
 * ignored). FALSE when t is NaN or outside [min, max] (no extrapolation); both ends are
 * inclusive, and t equal to a value gives lo == hi == t. */
gboolean msperf_interp_find_boundary (const double *values, size_t n, double t,
                                      double *lo, double *hi);
/* The same over values[0], values[stride], ... values[(n − 1)·stride]: one column of a
 * row-major matrix, read in place. */
gboolean msperf_interp_find_boundary_strided (const double *values, size_t n, size_t stride,
                                              double t, double *lo, double *hi);

/* Upstream linear_interp: y0 when x1 == x0; otherwise numpy.interp's slope form
 * slope·(x − x0) + y0 with slope = (y1 − y0)/(x1 − x0), so results equal numpy's and scipy's
 * interp1d to the last bit (with numpy's NaN fallbacks for infinite inputs). */
double msperf_interp_linear (double x, double x0, double y0, double x1, double y1);

/* numpy.interp / interp1d(kind="linear", fill_value=nan) on xp sorted ascending and distinct:
 * FALSE (out untouched) when x is NaN or outside [xp[0], xp[n-1]]. */
gboolean msperf_interp_1d (const double *xp, const double *fp, size_t n, double x, double *out);

/* Latency validation (upstream validate_positive_latency): finite and > 0. */
gboolean msperf_interp_latency_valid (double latency_us);

/* Upstream validate_interpolated_latency (reason latency_guard_rejected when FALSE): the
 * interpolated value is finite and > 0, and at least one candidate latency is > 0. */
gboolean msperf_interp_latency_guard (double value, const double *candidates, size_t n);

/* ------------------------------------------------------------------ duplicate aggregation */

typedef enum {
  MSPERF_INTERP_AGGREGATE_MEDIAN = 0,  /* upstream (quirk Q19): even count → mean of the two middle */
  MSPERF_INTERP_AGGREGATE_MEAN         /* policy `aggregate: mean` (the upstream RFC, seed 000): sum / count */
} msperf_interp_aggregate_kind;

typedef struct {
  size_t raw;         /* points given */
  size_t aggregated;  /* unique coordinates kept */
  size_t dropped;     /* points rejected: latency not finite and > 0, or a non-finite coordinate */
} msperf_interp_counts;

/* Median of values[0..n-1] (n > 0); sorts values in place. */
double msperf_interp_median (double *values, size_t n);
/* Arithmetic mean, summed in index order (n > 0). */
double msperf_interp_mean (const double *values, size_t n);

/* Groups the n points (dim doubles each, row-major in coords) whose coordinates are equal
 * (==, so -0.0 equals 0.0) and reduces each group's latencies with `kind`. Invalid points are
 * dropped first. The unique points keep the order of their first occurrence, so the
 * triangulation built on them is deterministic. *out_coords (aggregated·dim) and *out_values
 * are transfer full (g_free; NULL when nothing is kept); counts may be NULL. */
void msperf_interp_aggregate (const double *coords, const double *latencies, size_t n, int dim,
                              msperf_interp_aggregate_kind kind, double **out_coords,
                              double **out_values, msperf_interp_counts *counts);

/* ------------------------------------------------------------------ Delaunay (2-D to 4-D) */

typedef struct msperf_delaunay msperf_delaunay;

/* Up to 4-D, opt-in: the policy's max_interpolation_dim stays 3 by default. */
#define MSPERF_DELAUNAY_MAX_DIM 4

/* Builds scipy's Delaunay(points) for n points of dim (2, 3 or 4) coordinates (row-major): Qhull
 * `qhull d Qbb Qc Qz Q12 Qt`, lower facets in Qhull's list order, scipy's 2-D orientation swap
 * and barycentric transforms (NaN block for a degenerate simplex). The points are copied.
 * Errors (MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID; message "REASON: detail"):
 * non_finite_input; degenerate_point_cloud when n < dim + 1 or the points − p0 have rank below
 * dim (collinear, coplanar, all equal), checked before Qhull as upstream does, and when Qhull
 * itself finds the input flat; qhull_error for any other Qhull failure (Qhull's message is
 * quoted, never printed). Read-only afterwards: one triangulation may serve many threads.
 * Transfer full (msperf_delaunay_free). */
msperf_delaunay *msperf_delaunay_new (const double *points, size_t n, int dim, GError **error);
void msperf_delaunay_free (msperf_delaunay *tri);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_delaunay, msperf_delaunay_free)

int msperf_delaunay_dim (const msperf_delaunay *tri);
size_t msperf_delaunay_n_points (const msperf_delaunay *tri);
int msperf_delaunay_n_simplices (const msperf_delaunay *tri);
/* The dim + 1 point indices of simplex s (scipy's simplices[s]); transfer none. */
const int *msperf_delaunay_simplex (const msperf_delaunay *tri, int s);

/* scipy's tolerances: eps = 100·DBL_EPSILON for both; eps_broad = sqrt(DBL_EPSILON) in
 * LinearNDInterpolator (griddata) and sqrt(eps) in Delaunay.find_simplex. */
#define MSPERF_DELAUNAY_EPS (100.0 * DBL_EPSILON)

/* scipy's _find_simplex: bounding box, plane-distance walk from *start, directed walk,
 * brute-force fallback. *start is the warm start (in/out; any value out of range means 0),
 * updated exactly as scipy does so a sequence of calls reproduces scipy's batch evaluation.
 * bary (dim + 1 doubles) receives the barycentric coordinates in the returned simplex.
 * Returns the simplex index, or -1 when x is outside the triangulation. */
int msperf_delaunay_find_simplex (const msperf_delaunay *tri, const double *x, int *start,
                                  double eps, double eps_broad, double *bary);

/* scipy's _find_simplex_bruteforce alone (the fallback of the directed walk): the first
 * simplex in index order that accepts x, or -1. With use_grid, only the simplices listed in
 * x's cell of the triangulation's grid are tried (in index order); without, every simplex is
 * (scipy's plain scan). Both return the same simplex and bary (dim + 1 doubles, may be NULL)
 * for every x; tests check it. */
int msperf_delaunay_find_bruteforce (const msperf_delaunay *tri, const double *x, double eps,
                                     double eps_broad, gboolean use_grid, double *bary);

/* Cells of the brute-force grid (0 when the triangulation has none: too few simplices). */
size_t msperf_delaunay_grid_cells (const msperf_delaunay *tri);

/* The shape of the brute-force grid, for tests and measurements. */
typedef struct {
  size_t cells;                              /* 0 without a grid */
  size_t items;                              /* list entries over all cells */
  size_t max_list;                           /* longest cell list */
  int axis_cells[MSPERF_DELAUNAY_MAX_DIM];   /* cells per axis */
} msperf_delaunay_grid_info;

/* Fills info (all zero without a grid); FALSE when the triangulation has no grid. */
gboolean msperf_delaunay_grid_stats (const msperf_delaunay *tri,
                                     msperf_delaunay_grid_info *info);

/* How many simplices msperf_delaunay_find_bruteforce (same arguments) tests for x: the
 * steps up to and including the first acceptance, or all it tries when none accepts; 0 when
 * x is outside the bounding box. With use_grid that is a prefix of x's cell list. */
size_t msperf_delaunay_bruteforce_tested (const msperf_delaunay *tri, const double *x,
                                          double eps, double eps_broad, gboolean use_grid);
/* ----------------------------------------------------- the arrays (on-disk cache, tri_cache.c) */

/* The brute-force location grid of a triangulation (start == NULL: none). Everything the
 * grid needs is here, and tri_cache.c stores exactly this struct's fields (one section per
 * field): a new grid field goes here and into tri_cache.c's grid sections. */
typedef struct {
  int n[MSPERF_DELAUNAY_MAX_DIM];          /* cells per axis */
  size_t ncuts;                            /* Σ_k (n[k] − 1) */
  const double *cuts;                      /* per axis, non-decreasing; axis 0's first */
  size_t ncells;                           /* product of n */
  const size_t *start;                     /* ncells + 1 offsets into items, start[0] == 0 */
  size_t nitems;                           /* start[ncells] */
  const int *items;                        /* simplex indices, ascending within a cell */
} msperf_delaunay_grid_view;

/* Every array of a triangulation, borrowed (row-major; sizes as in struct msperf_delaunay). */
typedef struct {
  int ndim;
  int nsimplex;
  size_t npoints;
  const double *points;      /* npoints × ndim */
  const int *simplices;      /* nsimplex × (ndim + 1) */
  const int *neighbors;      /* nsimplex × (ndim + 1), -1 none */
  const double *equations;   /* nsimplex × (ndim + 2) */
  const double *transform;   /* nsimplex × (ndim + 1) × ndim */
  double min_bound[MSPERF_DELAUNAY_MAX_DIM];
  double max_bound[MSPERF_DELAUNAY_MAX_DIM];
  double paraboloid_scale;
  double paraboloid_shift;
  msperf_delaunay_grid_view grid;
} msperf_delaunay_view;

/* The arrays of tri (transfer none: valid while tri lives). */
void msperf_delaunay_view_of (const msperf_delaunay *tri, msperf_delaunay_view *out);

/* A triangulation on arrays someone else owns (a cache file's read-only mapping, checked by
 * the caller: indices in range, sizes consistent): nothing is copied; msperf_delaunay_free
 * calls release (nullable) with release_data instead of freeing the arrays. */
msperf_delaunay *msperf_delaunay_new_from_view (const msperf_delaunay_view *view,
                                                GDestroyNotify release, gpointer release_data);

/* Qhull's options string of msperf_delaunay_new (part of the cache key). */
#define MSPERF_DELAUNAY_QHULL_OPTIONS "qhull d Qbb Qc Qz Q12 Qt"

/* Delaunay.find_simplex([x]) for one point (walk from simplex 0, find_simplex tolerances).
 * On success *simplex and bary (dim + 1 doubles, may be NULL) are set; FALSE when x is outside
 * the convex hull (*simplex = -1). */
gboolean msperf_delaunay_locate (const msperf_delaunay *tri, const double *x, int *simplex,
                                 double *bary);

/* griddata(points, values, [x], method="linear")[0] for one point: the simplex found from
 * simplex 0 with LinearNDInterpolator's tolerances, value Σ_j bary_j·values[simplices[s][j]]
 * accumulated from 0.0 in j order (scipy's order, so equal to the last bit). values has one
 * latency per point given to msperf_delaunay_new. vertices (dim + 1 ints, may be NULL)
 * receives simplices[s]. FALSE (outside_convex_hull; out and vertices untouched) when x is
 * outside the hull. */
gboolean msperf_interp_griddata (const msperf_delaunay *tri, const double *values,
                                 const double *x, double *out, int *vertices);

/* The same, also returning the barycentric weights (dim + 1 doubles, may be NULL) in the
 * order of vertices, for the result details (upstream return_details). Upstream reports the
 * simplex of Delaunay.find_simplex, which differs from griddata's only in eps_broad, i.e.
 * next to a degenerate simplex; msperf reports the simplex the value was computed in. */
gboolean msperf_interp_griddata_details (const msperf_delaunay *tri, const double *values,
                                         const double *x, double *out, int *vertices,
                                         double *weights);

/* griddata(points, values, xi, method="linear") for m points (row-major xi): the warm start
 * carried from one point to the next as in scipy, NaN outside the hull. Returns the number of
 * points inside. */
size_t msperf_interp_griddata_many (const msperf_delaunay *tri, const double *values,
                                   const double *xi, size_t m, double *out);

G_END_DECLS

#endif /* MSPERF_CORE_INTERP_H */
