/* msperf — an interpolated answer's details as one compact record, written out
 * only when the details are read or printed (include/msperf/details.h). */
#ifndef MSPERF_INTERP_DETAILS_H
#define MSPERF_INTERP_DETAILS_H

#include <msperf/details.h>
#include <msperf/point.h>
#include "interp/interp.h"

#define MSPERF_INTERP_DETAILS_MAX_POINTS (MSPERF_DELAUNAY_MAX_DIM + 1)

/* What fill_result knows. Strings may point anywhere: msperf_interp_details_defer copies them.
 * The keys, their order and their value kinds are FORMATS § details (interpolated answers). */
typedef struct {
  const char *kernel;                          /* kernel_type (NULL: no key) */
  const char *method;
  int dim;
  size_t n_axes;                               /* the bucket's axes, in order */
  const char *axis_names[MSPERF_POINT_MAX_AXES];
  double target[MSPERF_POINT_MAX_AXES];        /* NAN when unknown */
  size_t axes[MSPERF_DELAUNAY_MAX_DIM];        /* the selected bucket axes, in group order */
  double lo[MSPERF_DELAUNAY_MAX_DIM], hi[MSPERF_DELAUNAY_MAX_DIM];
  size_t n_points;                             /* candidate_points */
  double point_axes[MSPERF_INTERP_DETAILS_MAX_POINTS][MSPERF_DELAUNAY_MAX_DIM];
  double point_latency[MSPERF_INTERP_DETAILS_MAX_POINTS];
  double point_weight[MSPERF_INTERP_DETAILS_MAX_POINTS];
  gboolean have_weights;
  size_t n_fields;                             /* the target's exact fields */
  const char *field_names[MSPERF_POINT_MAX_FIELDS];
  int64_t fields[MSPERF_POINT_MAX_FIELDS];
  int64_t candidate_count, raw_count, aggregated_count, dropped_count;
  const char *aggregate;
  double confidence;
  const char *fallback_from;                   /* NULL: null */
  const char *regime;
  const char *regime_group;                    /* NULL or "": no key */
  gboolean transformed;                        /* axis_transform sqrt_seq */
  gboolean log_space;
  gboolean sqrt_seq_ignored;
  int64_t seq_block;                           /* 0: no keys */
  gboolean seq_rounded;
  double seq_rounded_from;
  const char *query_mode;
  guint n_reasons;
  const char *const *reasons;                  /* fallback_reasons */
  const char *base_reason;                     /* NULL: no key */
} msperf_interp_details;

/* Packs d into one allocation (its strings copied) and makes it r's details. */
void msperf_interp_details_defer (msperf_result *r, const msperf_interp_details *d);
/* The emitter (exposed for the tests). */
void msperf_interp_details_emit (gconstpointer record, msperf_detail_sink *sink);

#endif /* MSPERF_INTERP_DETAILS_H */
