/* msperf — an interpolation coordinate: regime key, ordered axes and exact non-axis fields.
 * Filled by a module's describe_target / describe_row; read by the core's candidate index. */
#ifndef MSPERF_POINT_H
#define MSPERF_POINT_H

#include <msperf/api.h>
#include <glib.h>

G_BEGIN_DECLS

#define MSPERF_POINT_MAX_AXES 4
#define MSPERF_POINT_MAX_FIELDS 4

typedef enum {
  MSPERF_MATCH_EXACT = 0,    /* the candidate's field must equal the target's */
  MSPERF_MATCH_BLOCK_PADDED  /* equal, or block-padded in either direction */
} msperf_matcher;

typedef struct msperf_point {
  GString *regime;                               /* exact regime key (owned) */
  size_t n_axes;
  const char *axis_names[MSPERF_POINT_MAX_AXES]; /* static strings, priority order */
  double axes[MSPERF_POINT_MAX_AXES];
  gboolean axis_known[MSPERF_POINT_MAX_AXES];
  size_t n_fields;
  const char *field_names[MSPERF_POINT_MAX_FIELDS];
  int64_t fields[MSPERF_POINT_MAX_FIELDS];
  msperf_matcher matchers[MSPERF_POINT_MAX_FIELDS];
  /* Appended; msperf_point_init sets the defaults noted. */
  GString *group;        /* sub-key of the regime (e.g. a row's CSV input formats), owned; NULL =
                          * none. A target leaves it NULL: every group of its regime is a
                          * candidate, tried by ascending group_rank (ND before other formats). */
  int group_rank;        /* 0 */
  double latency_us;     /* describe_row may set the row latency its latency policy picks; NAN
                          * (default) = msperf_table_row_latency */
  int64_t input_limit;   /* set by the core before either describe call: the query's
                          * tc_input_count (-1 = none); row slots beyond it are not compared */
} msperf_point;

MSPERF_API void msperf_point_init (msperf_point *p);
MSPERF_API void msperf_point_clear (msperf_point *p);
/* Appends "|part" to the regime key. */
MSPERF_API void msperf_point_regime_add (msperf_point *p, const char *part);
/* name must be a static string. FALSE when the point is full. */
MSPERF_API gboolean msperf_point_add_axis (msperf_point *p, const char *name, double value, gboolean known);
MSPERF_API gboolean msperf_point_add_field (msperf_point *p, const char *name, int64_t value,
                                 msperf_matcher matcher);
/* Sets the group (copied) and its rank. */
MSPERF_API void msperf_point_set_group (msperf_point *p, const char *group, int rank);

G_END_DECLS

#endif /* MSPERF_POINT_H */
