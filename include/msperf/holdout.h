/* msperf — `msperf holdout` (FORMATS §5, reference §4.8, seed 000 §11.3): the
 * accuracy of the interpolation stage measured on the database itself. Each held-out sample is
 * one coordinate of a kernel's candidate index (regime, axes, exact fields): every row at that
 * coordinate is removed and the interpolation rules interpolate at it, through the very index and
 * routine the estimate uses (msperf_interpolate_holdout). */
#ifndef MSPERF_HOLDOUT_H
#define MSPERF_HOLDOUT_H

#include <msperf/api.h>
#include <msperf/engine.h>
#include <msperf/point.h>

G_BEGIN_DECLS

typedef void (*msperf_holdout_progress_fn) (size_t done, size_t total, gpointer data);

typedef struct msperf_holdout_options {
  const char *const *kernels;   /* NULL-terminated; NULL or empty = every kernel the mapping
                                 * sends to a query mode the policy lets interpolate */
  gboolean leave_one_out;       /* every coordinate (the default when fraction is 0) */
  double fraction;              /* else: this share of each kernel's coordinates, (0, 1] */
  guint32 seed;                 /* the draw of the fraction (GLib's Mersenne Twister) */
  msperf_holdout_progress_fn progress;   /* nullable, called after every sample */
  gpointer progress_data;
  /* Appended. Extrapolation instead of leave-one-out (core/engine/holdout_extrap.c): hide the
   * hide_outer (0 = 1) largest distinct values of this axis in every bucket and predict them
   * from the rest as an estimate would (the policy must allow extrapolation). NULL = off. */
  const char *extrapolate_axis;
  guint hide_outer;
} msperf_holdout_options;

typedef struct msperf_holdout_sample {
  char *kernel;
  char *regime;
  guint line;                   /* CSV line of the first row at the coordinate */
  size_t n_rows;                /* rows removed */
  size_t n_axes;
  char *axis_names[MSPERF_POINT_MAX_AXES];
  double axes[MSPERF_POINT_MAX_AXES];       /* NAN when unknown */
  size_t n_fields;
  char *field_names[MSPERF_POINT_MAX_FIELDS];
  int64_t fields[MSPERF_POINT_MAX_FIELDS];
  double measured_us;           /* the removed latency (aggregated like duplicates) */
  gboolean interpolated;
  double predicted_us;          /* NAN when not interpolated */
  double abs_error_us;          /* |predicted − measured|, NAN when not interpolated */
  double rel_error;             /* abs_error / measured, NAN when not interpolated */
  char *source;                 /* INTERPOLATED, or NONE (the estimate would fall back) */
  double confidence;            /* NAN when not interpolated */
  char *method;                 /* linear_1d, griddata_linear, …_sqrt; NULL when not */
  int dim;                      /* 0 when not interpolated */
  int64_t candidate_count;      /* unique candidates of the group that answered, else 0 */
  char *reason;                 /* why not (the failed groups joined by "; "), else NULL */
  char *method_key;             /* the method row it counts in: the confidence-table key of the
                                 * answer (linear_1d, griddata_2d, …) with "_sqrt" after an axis
                                 * transform, or the answer's own method (extrapolated_…);
                                 * NULL when not interpolated */
} msperf_holdout_sample;

/* Statistics of one kernel (dim 0, method NULL: every sample), of the samples one dimension
 * answered (dim > 0), or of those one method answered (method set, dim its dimension). */
typedef struct msperf_holdout_stats {
  char *kernel;
  int dim;                      /* 0 = all dimensions */
  char *method;                 /* a method_key of the samples, or NULL */
  double confidence_min;        /* the confidence the method's answers carried (min and max:
                                 * equal for a table entry); NAN when none */
  double confidence_max;
  size_t samples;               /* coordinates held out of the kernel */
  size_t recovered;             /* of them interpolated (at dim, when dim > 0) */
  double coverage;              /* recovered / samples */
  double median_rel;            /* relative error over the recovered samples; NAN when none */
  double p90_rel;
  double max_rel;
} msperf_holdout_stats;

typedef struct msperf_holdout_report {
  char *database;
  char *policy_hash;
  gboolean leave_one_out;
  double fraction;
  guint32 seed;
  GPtrArray *samples;           /* msperf_holdout_sample*, by kernel then CSV order */
  GPtrArray *stats;             /* msperf_holdout_stats*: per kernel dim 0, then dims 1..3
                                 * (and 4 when a 4-D group answered) */
  GPtrArray *method_stats;      /* msperf_holdout_stats*: per kernel, one per method_key that
                                 * answered, by dimension then name (extrapolated_… last) */
  GPtrArray *confidence;        /* msperf_holdout_confidence*: the effective confidence table */
} msperf_holdout_report;

/* One entry of the confidence table in effect (policy key `confidence`, FORMATS §3). */
typedef struct msperf_holdout_confidence {
  char *key;                    /* linear_1d, griddata_2d, transform_penalty, analytic, … */
  double value;
  gboolean from_policy;         /* set by the policy, else the built-in default */
} msperf_holdout_confidence;

/* Runs the holdout on a started engine with a database. Errors (MSPERF_ERROR_DOMAIN): a
 * requested kernel that no mapping entry sends to an interpolating query mode, or whose table
 * cannot be read (MSPERF_ERROR_NOT_FOUND / INVALID); a fraction outside (0, 1]. Transfer full. */
MSPERF_API msperf_holdout_report *msperf_holdout_run (msperf_engine *engine,
                                           const msperf_holdout_options *options,
                                           GError **error);
MSPERF_API void msperf_holdout_report_free (msperf_holdout_report *report);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_holdout_report, msperf_holdout_report_free)

/* numpy.percentile(values, 100·q) with the default linear method, on sorted[0..n-1] sorted
 * ascending; NAN when n == 0. */
MSPERF_API double msperf_holdout_quantile (const double *sorted, size_t n, double q);

G_END_DECLS

#endif /* MSPERF_HOLDOUT_H */
