/* msperf (internal) — scatter plots as self-contained SVG: "nice" tick values on both axes,
 * axis titles inside the picture, series in their own colours with a legend, dashed limit
 * lines (an SLA), and the labels of the highlighted points (a Pareto front) placed where they
 * overlap neither each other nor the plot's edges. Used by sweep, recommend and serve. */
#ifndef MSPERF_APP_PLOT_SVG_H
#define MSPERF_APP_PLOT_SVG_H

#include <glib.h>

#define MSPERF_PLOT_MAX_SERIES 6
#define MSPERF_PLOT_MAX_LINES 4

typedef struct {
  double x, y;
  guint series;          /* colour and legend entry, < MSPERF_PLOT_MAX_SERIES */
  gboolean highlight;    /* drawn larger, joined per series, labelled */
  const char *label;     /* shown beside highlighted points (and as the tooltip of all) */
} msperf_plot_point;

/* A dashed limit line: vertical at x = value (vertical TRUE) or horizontal at y = value. */
typedef struct {
  gboolean vertical;
  double value;
  const char *label;
} msperf_plot_line;

typedef struct {
  const char *title;
  const char *x_title, *y_title;
  const char *series[MSPERF_PLOT_MAX_SERIES];   /* legend names; NULL: not in the legend */
  guint n_lines;
  msperf_plot_line lines[MSPERF_PLOT_MAX_LINES];
  double width, height;                          /* pixels; 0: 760 × 520 */
} msperf_plot;

/* Tick values covering [lo, hi]: a step of 1, 2 or 5 × 10^k giving about `want` ticks; the
 * first tick <= lo and the last >= hi. Returns the count (<= 16) written to ticks. */
guint msperf_plot_ticks (double lo, double hi, guint want, double *ticks);

/* Appends the SVG document of the points to s. Points with a non-finite coordinate are left
 * out. Labels that find no free place are numbered and listed under the plot. */
void msperf_plot_svg (GString *s, const msperf_plot *plot, const msperf_plot_point *points,
                      guint n);

/* The same, written to path. */
gboolean msperf_plot_svg_file (const char *path, const msperf_plot *plot,
                               const msperf_plot_point *points, guint n, GError **error);

#endif
