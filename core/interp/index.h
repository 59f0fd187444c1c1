/* msperf (internal) — the candidate index of the interpolation stage (seed 000 §5.3, reference
 * §4.3): every valid row of one kernel table reduced by a row-describing callback (the
 * engine passes the module's describe_row) to (regime,
 * group, axes, exact fields, latency) and grouped into buckets; per bucket, the filtered and
 * aggregated point sets of each (axis group, filter) with their Delaunay triangulation. Built
 * lazily, cached in the engine (never globally) under (kernel_type, table content hash,
 * policy_hash, index kind = mode, tc_input_count). */
#ifndef MSPERF_CORE_INDEX_H
#define MSPERF_CORE_INDEX_H

#include <msperf/point.h>
#include <msperf/table.h>
#include "interp/interp.h"

G_BEGIN_DECLS

/* Counters for tests and diagnostics. */
typedef struct msperf_index_stats {
  guint64 index_builds;   /* kernel indexes built (cache misses) */
  guint64 index_hits;     /* kernel indexes found in the cache */
  guint64 set_builds;     /* filtered point sets built */
  guint64 set_hits;
  guint64 tri_builds;     /* Delaunay triangulations attempted */
  guint64 tri_cache_loads; /* of which served by the on-disk cache (tri_cache.h) */
} msperf_index_stats;

/* One (regime, group) of one kernel table. Points are stored by value: nothing points into the
 * table or the module, so an index outlives neither and may outlive both. */
typedef struct msperf_index_bucket {
  char *regime;
  char *group;                                   /* "" when the rows have none */
  int group_rank;
  size_t first_row;
  size_t n_axes;
  char *axis_names[MSPERF_POINT_MAX_AXES];
  size_t n_fields;
  char *field_names[MSPERF_POINT_MAX_FIELDS];
  size_t n;                                      /* points */
  GArray *coords;                                /* double, n × n_axes */
  GArray *known;                                 /* guint8, n × n_axes */
  GArray *fields;                                /* int64_t, n × n_fields */
  GArray *latency;                               /* double, n */
  GArray *lines;                                 /* guint: CSV line of each point */
  GPtrArray *partitions;                         /* per axis group: the points grouped by
                                                  * their other axes' values, and the
                                                  * cached sets (index.c) */
  msperf_matcher field_matchers[MSPERF_POINT_MAX_FIELDS]; /* as the first row described them */
} msperf_index_bucket;

/* How a set's coordinates (and latencies) are transformed before interpolation. */
typedef enum {
  MSPERF_INDEX_LINEAR = 0,      /* as measured */
  MSPERF_INDEX_SQRT_SEQ = 1,    /* sqrt of the axis named "seq" (policy axis_transform) */
  MSPERF_INDEX_LOG = 2          /* policy space: log — every selected axis log2, latency ln */
} msperf_index_transform;

/* The points of a bucket that pass one filter, for one axis group (dim selected axes). */
typedef struct msperf_index_set {
  int dim;
  size_t axes[MSPERF_DELAUNAY_MAX_DIM];          /* bucket axis indices, in group order */
  gboolean transformed[MSPERF_DELAUNAY_MAX_DIM]; /* sqrt applied to that column */
  gboolean log_space;                            /* MSPERF_INDEX_LOG: coords are log2 of the
                                                  * aggregated raw coordinates */
  gboolean non_positive;                         /* log_space and a selected raw coordinate
                                                  * is <= 0 (the set cannot be used) */
  size_t n_filtered;                             /* raw points passing the filter */
  double *raw;                                   /* n_filtered × dim, untransformed */
  double *raw_latency;                           /* n_filtered */
  guint *raw_lines;                              /* n_filtered */
  size_t n_unique;
  double *coords;                                /* n_unique × dim, transformed, aggregated */
  double *values;                                /* n_unique latencies (median or mean) */
  double *ucoords;                               /* log_space: n_unique × dim aggregated raw
                                                  * coordinates (coords = log2 of them) */
  double *log_values;                            /* log_space: ln of values */
  msperf_interp_counts counts;
  double *axis_values[MSPERF_DELAUNAY_MAX_DIM];  /* per axis: the distinct coords, ascending */
  size_t n_axis_values[MSPERF_DELAUNAY_MAX_DIM];
  double *raw_values[MSPERF_DELAUNAY_MAX_DIM];   /* transformed or log_space: per axis the
                                                  * distinct raw coords, ascending (else NULL) */
  size_t n_raw_values[MSPERF_DELAUNAY_MAX_DIM];
  gboolean axes_vary;                            /* every selected axis has two coords that
                                                  * compare unequal (the grid check's second
                                                  * half, reference §4.4 step 5) */
  gboolean transient;                            /* msperf_index_set_without: one holdout
                                                  * question's set, kept off the disk cache */
  gboolean tri_done;
  msperf_delaunay *tri;                          /* NULL when the build failed */
  msperf_interp_status tri_status;
  char *tri_message;
} msperf_index_set;

typedef struct msperf_index msperf_index;
typedef struct msperf_index_cache msperf_index_cache;

msperf_index_cache *msperf_index_cache_new (void);
void msperf_index_cache_free (msperf_index_cache *cache);
/* Drops every index (the tables they were built on are being dropped). Counters stay. */
void msperf_index_cache_clear (msperf_index_cache *cache);
void msperf_index_cache_stats (const msperf_index_cache *cache, msperf_index_stats *out);
/* The directory of the on-disk triangulation cache (tri_cache.h) the triangulations go
 * through from now on; NULL (the default) builds every one with Qhull. Copied. */
void msperf_index_cache_set_tri_dir (msperf_index_cache *cache, const char *dir);

/* Describes row of table as a point (regime, group, axes, exact fields, optional latency):
 * FALSE when the row is not a point. point arrives initialised, with input_limit set. */
typedef gboolean (*msperf_index_row_func) (gpointer user_data, const msperf_table *table,
                                           size_t row, msperf_point *point);

/* The index of table for (mode, policy_hash, tc_input_count), built on first use with
 * describe_row (called with user_data for every valid row); *hit (nullable) says whether it
 * came from the cache. An index of the same kernel, mode and tc_input_count built on other
 * table content is dropped. Transfer none. */
msperf_index *msperf_index_cache_get (msperf_index_cache *cache,
                                      msperf_index_row_func describe_row, gpointer user_data,
                                      const msperf_table *table, const char *mode,
                                      const char *policy_hash, int64_t tc_input_count,
                                      gboolean *hit);

/* One value the interpolation stage derives from the index key alone (the kernel's policy),
 * kept with the index and freed with it or when replaced. Transfer none / full. */
gpointer msperf_index_get_stage_data (const msperf_index *index);
void msperf_index_set_stage_data (msperf_index *index, gpointer data, GDestroyNotify destroy);

/* Rows described / rows that became points. */
size_t msperf_index_n_rows (const msperf_index *index);
size_t msperf_index_n_points (const msperf_index *index);
/* The buckets of a regime, by ascending (group_rank, first row); NULL when none. Transfer
 * none. */
const GPtrArray *msperf_index_buckets (const msperf_index *index, const char *regime);

/* Every bucket, in first-row order (msperf holdout walks the whole index). Transfer none. */
const GPtrArray *msperf_index_all_buckets (const msperf_index *index);

/* The points of bucket b whose non-selected axes equal the target's (an axis unknown on both
 * sides counts as equal), whose exact fields match the target's by the target's matcher and
 * whose selected axes are known; the selected coordinates go through sqrt when transform is
 * MSPERF_INDEX_SQRT_SEQ and the axis is named "seq"; duplicates are aggregated with kind. With
 * MSPERF_INDEX_LOG the duplicates are aggregated on the raw coordinates and raw latencies
 * first (exactly as linear), then coords = log2 (ucoords) and log_values = ln (values).
 * axes holds dim bucket axis indices.
 * Cached in the bucket per (axes, filter values, kind, transform); the bucket's points are
 * grouped once per axes by their other axes' values, so a request touches only the points of
 * its group, and every request whose group is empty shares one empty set. Transfer none. */
msperf_index_set *msperf_index_bucket_set (msperf_index_cache *cache, msperf_index_bucket *b,
                                           const size_t *axes, int dim,
                                           const msperf_point *target,
                                           msperf_interp_aggregate_kind kind,
                                           msperf_index_transform transform);

/* msperf_interp_find_boundary over column j of s->coords (same answer, by binary search). */
/* The same bracket in the coordinates the user wrote (a transformed or log-space set): the
 * largest raw coordinate ≤ t and the smallest ≥ t of the filtered points on axis j, as
 * msperf_interp_find_boundary_strided over s->raw gives it, by binary search. FALSE (lo, hi
 * untouched) when t is outside or the set is not transformed. */
gboolean msperf_index_set_raw_boundary (const msperf_index_set *s, int j, double t, double *lo,
                                        double *hi);
gboolean msperf_index_set_boundary (const msperf_index_set *s, int j, double t, double *lo,
                                    double *hi);

/* The set's Delaunay triangulation (dim 2 to MSPERF_DELAUNAY_MAX_DIM), built once; NULL with *status (and a message,
 * transfer none) when it cannot be built. */
const msperf_delaunay *msperf_index_set_delaunay (msperf_index_cache *cache, msperf_index_set *s,
                                                  msperf_interp_status *status,
                                                  const char **message);

/* Leave-one-coordinate-out (msperf holdout): a new, uncached set holding s's filtered points
 * except those whose untransformed selected coordinates equal raw_target (dim values), with
 * the same transform and aggregation. Transfer full (msperf_index_set_free). */
msperf_index_set *msperf_index_set_without (const msperf_index_set *s, const double *raw_target,
                                            msperf_interp_aggregate_kind kind);
void msperf_index_set_free (msperf_index_set *s);

/* msperf holdout of extrapolation (core/engine/holdout_extrap.c): a new, uncached bucket with
 * b's points whose coordinate on axis is below `below` (the outer values hidden; points with
 * that axis unknown stay), its sets built on use like b's. Transfer full
 * (msperf_index_bucket_free). */
msperf_index_bucket *msperf_index_bucket_copy_below (const msperf_index_bucket *b, size_t axis,
                                                     double below);
void msperf_index_bucket_free (msperf_index_bucket *b);

G_END_DECLS

#endif /* MSPERF_CORE_INDEX_H */
