/* msperf — scatter plots as self-contained SVG (plot_svg.h). Text widths are estimated from
 * the character count (sans-serif at 11 px averages under 6.6 px a character), which is what
 * lets the labels be placed without a renderer; the Chromium check of the tests measures the
 * real boxes. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <glib.h>
#include "app/report/plot_svg.h"

#define FONT_PX 11.0
#define CHAR_PX 6.6
#define LINE_PX 14.0
#define MARGIN_LEFT 84.0
#define MARGIN_RIGHT 24.0
#define MARGIN_TOP 44.0
#define MARGIN_BOTTOM 78.0
#define MAX_TICKS 16

static const char *const colours[MSPERF_PLOT_MAX_SERIES] = {
  "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
};

typedef struct {
  double x0, y0, x1, y1;
} box;

typedef struct {
  double left, right, top, bottom;   /* the plot area in pixels */
  double xlo, xhi, ylo, yhi;         /* the axes' value ranges */
  double xt[MAX_TICKS], yt[MAX_TICKS];
  guint nxt, nyt;
} frame;

static double
nice_step (double span, guint want)
{
  double raw = span / (double) MAX (want, 1), mag = pow (10.0, floor (log10 (raw)));
  double f = raw / mag;

  return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * mag;
}

guint
msperf_plot_ticks (double lo, double hi, guint want, double *ticks)
{
  double step, first;
  guint n = 0;

  g_return_val_if_fail (ticks != NULL, 0);
  if (!isfinite (lo) || !isfinite (hi))
    return 0;
  if (hi <= lo)
    hi = lo + (lo != 0.0 ? fabs (lo) : 1.0);
  step = nice_step (hi - lo, want);
  first = floor (lo / step) * step;
  while (n < MAX_TICKS)
    {
      /* k * step rather than a running sum: no drift in the printed values */
      ticks[n] = first + (double) n * step;
      if (fabs (ticks[n]) < step * 1e-9)
        ticks[n] = 0.0;
      n++;
      if (ticks[n - 1] >= hi - step * 1e-9)
        break;
    }
  return n;
}

static void
tick_text (char *buf, gsize size, double v, double step)
{
  int decimals = step >= 1.0 ? 0 : (int) ceil (-log10 (step) - 1e-9);

  g_snprintf (buf, size, "%.*f", CLAMP (decimals, 0, 6), v);
}

static void
esc (GString *s, const char *text)
{
  g_autofree char *e = g_markup_escape_text (text != NULL ? text : "", -1);

  g_string_append (s, e);
}

static double
text_width (const char *text)
{
  return CHAR_PX * (double) g_utf8_strlen (text != NULL ? text : "", -1);
}

static gboolean
overlaps (const box *a, const box *b)
{
  return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

static double
px (const frame *f, double x)
{
  return f->left + (x - f->xlo) / (f->xhi - f->xlo) * (f->right - f->left);
}

static double
py (const frame *f, double y)
{
  return f->bottom - (y - f->ylo) / (f->yhi - f->ylo) * (f->bottom - f->top);
}

static gboolean
usable (const msperf_plot_point *p)
{
  return isfinite (p->x) && isfinite (p->y) && p->series < MSPERF_PLOT_MAX_SERIES;
}

/* The value ranges: from 0 when every value is positive (throughputs), covering the limit
 * lines too, widened to whole ticks. */
static void
frame_ranges (frame *f, const msperf_plot *plot, const msperf_plot_point *pts, guint n)
{
  double xmin = 0.0, xmax = 0.0, ymin = 0.0, ymax = 0.0;

  for (guint i = 0; i < n; i++)
    if (usable (&pts[i]))
      {
        xmin = MIN (xmin, pts[i].x), xmax = MAX (xmax, pts[i].x);
        ymin = MIN (ymin, pts[i].y), ymax = MAX (ymax, pts[i].y);
      }
  for (guint k = 0; k < plot->n_lines && k < MSPERF_PLOT_MAX_LINES; k++)
    if (isfinite (plot->lines[k].value))
      {
        if (plot->lines[k].vertical)
          xmin = MIN (xmin, plot->lines[k].value), xmax = MAX (xmax, plot->lines[k].value);
        else
          ymin = MIN (ymin, plot->lines[k].value), ymax = MAX (ymax, plot->lines[k].value);
      }
  f->nxt = msperf_plot_ticks (xmin, xmax * 1.02, 6, f->xt);
  f->nyt = msperf_plot_ticks (ymin, ymax * 1.02, 6, f->yt);
  f->xlo = f->xt[0], f->xhi = f->xt[f->nxt - 1];
  f->ylo = f->yt[0], f->yhi = f->yt[f->nyt - 1];
}

static void
draw_axes (GString *s, const frame *f, const msperf_plot *plot, double width)
{
  char buf[48];
  double xstep = f->nxt > 1 ? f->xt[1] - f->xt[0] : 1.0;
  double ystep = f->nyt > 1 ? f->yt[1] - f->yt[0] : 1.0;

  g_string_append (s, "<g class=\"axes\" stroke=\"#ccc\">\n");
  for (guint k = 0; k < f->nxt; k++)
    g_string_append_printf (s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                            px (f, f->xt[k]), f->top, px (f, f->xt[k]), f->bottom);
  for (guint k = 0; k < f->nyt; k++)
    g_string_append_printf (s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                            f->left, py (f, f->yt[k]), f->right, py (f, f->yt[k]));
  g_string_append_printf (s, "</g>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                          "fill=\"none\" stroke=\"#333\"/>\n", f->left, f->top,
                          f->right - f->left, f->bottom - f->top);
  for (guint k = 0; k < f->nxt; k++)
    {
      tick_text (buf, sizeof buf, f->xt[k], xstep);
      g_string_append_printf (s, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
                              "text-anchor=\"middle\">%s</text>\n", px (f, f->xt[k]),
                              f->bottom + 16, buf);
    }
  for (guint k = 0; k < f->nyt; k++)
    {
      tick_text (buf, sizeof buf, f->yt[k], ystep);
      g_string_append_printf (s, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
                              "text-anchor=\"end\">%s</text>\n", f->left - 6,
                              py (f, f->yt[k]) + 4, buf);
    }
  g_string_append_printf (s, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" "
                          "text-anchor=\"middle\">", (f->left + f->right) / 2, f->bottom + 36);
  esc (s, plot->x_title);
  g_string_append_printf (s, "</text>\n<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" "
                          "text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\">", 18.0,
                          (f->top + f->bottom) / 2, 18.0, (f->top + f->bottom) / 2);
  esc (s, plot->y_title);
  g_string_append_printf (s, "</text>\n<text class=\"title\" x=\"%.1f\" y=\"24\" "
                          "text-anchor=\"middle\" font-size=\"14\">", width / 2);
  esc (s, plot->title);
  g_string_append (s, "</text>\n");
}

static void
draw_lines (GString *s, const frame *f, const msperf_plot *plot, GArray *taken)
{
  for (guint k = 0; k < plot->n_lines && k < MSPERF_PLOT_MAX_LINES; k++)
    {
      const msperf_plot_line *l = &plot->lines[k];
      double w = text_width (l->label);
      box b;

      if (!isfinite (l->value))
        continue;
      if (l->vertical)
        {
          double x = px (f, l->value), tx = x + 4 + w <= f->right ? x + 4 : x - 4 - w;
          g_string_append_printf (s, "<line class=\"limit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                                  "y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"6 4\"/>\n", x,
                                  f->top, x, f->bottom);
          b = (box) { tx, f->top + 4, tx + w, f->top + 4 + LINE_PX };
        }
      else
        {
          double y = py (f, l->value);
          g_string_append_printf (s, "<line class=\"limit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                                  "y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"6 4\"/>\n",
                                  f->left, y, f->right, y);
          b = (box) { f->right - 4 - w, y - 4 - LINE_PX, f->right - 4, y - 4 };
        }
      if (l->label == NULL)
        continue;
      g_array_append_val (taken, b);
      g_string_append_printf (s, "<text class=\"label limit-label\" x=\"%.1f\" y=\"%.1f\">",
                              b.x0, b.y1 - 3);
      esc (s, l->label);
      g_string_append (s, "</text>\n");
    }
}

static int
by_x (gconstpointer a, gconstpointer b)
{
  const msperf_plot_point *p = *(msperf_plot_point *const *) a;
  const msperf_plot_point *q = *(msperf_plot_point *const *) b;

  return (p->x > q->x) - (p->x < q->x);
}

static void
draw_points (GString *s, const frame *f, const msperf_plot_point *pts, guint n)
{
  for (guint pass = 0; pass < 2; pass++)   /* highlighted points on top */
    for (guint i = 0; i < n; i++)
      {
        const msperf_plot_point *p = &pts[i];

        if (!usable (p) || p->highlight != (pass == 1))
          continue;
        g_string_append_printf (s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" "
                                "fill-opacity=\"%s\"><title>", px (f, p->x), py (f, p->y),
                                p->highlight ? "4.5" : "2.5", colours[p->series],
                                p->highlight ? "1" : "0.45");
        esc (s, p->label);
        g_string_append (s, "</title></circle>\n");
      }
}

static void
draw_fronts (GString *s, const frame *f, const msperf_plot_point *pts, guint n)
{
  for (guint series = 0; series < MSPERF_PLOT_MAX_SERIES; series++)
    {
      g_autoptr (GPtrArray) front = g_ptr_array_new ();

      for (guint i = 0; i < n; i++)
        if (usable (&pts[i]) && pts[i].highlight && pts[i].series == series)
          g_ptr_array_add (front, (gpointer) &pts[i]);
      if (front->len < 2)
        continue;
      g_ptr_array_sort (front, by_x);
      g_string_append_printf (s, "<polyline class=\"front\" fill=\"none\" stroke=\"%s\" "
                              "stroke-width=\"1.5\" points=\"", colours[series]);
      for (guint k = 0; k < front->len; k++)
        {
          const msperf_plot_point *p = g_ptr_array_index (front, k);
          g_string_append_printf (s, "%s%.1f,%.1f", k ? " " : "", px (f, p->x), py (f, p->y));
        }
      g_string_append (s, "\"/>\n");
    }
}

/* Tries the eight places around the point for a text of width w, at distance 1, then up to
 * `reach` times further out; TRUE with its box. */
static gboolean
place (const frame *f, double x, double y, double w, guint reach, GArray *taken, box *out)
{
  static const double off[8][2] = {
    { 7, 4 }, { -7, 4 }, { 6, -7 }, { -6, -7 }, { 6, 15 }, { -6, 15 }, { 0, -10 }, { 0, 18 },
  };

  for (guint k = 0; k < reach * G_N_ELEMENTS (off); k++)
    {
      double r = (double) (1 + k / G_N_ELEMENTS (off)), dx = off[k % 8][0] * r;
      double base = y + (off[k % 8][1] - 4) * r + 4;
      double x0 = dx > 0 ? x + dx : dx < 0 ? x + dx - w : x - w / 2;
      box b = { x0, base - FONT_PX, x0 + w, base + 3 };
      gboolean free = b.x0 >= f->left + 2 && b.x1 <= f->right - 2 && b.y0 >= f->top + 2
                      && b.y1 <= f->bottom - 2;

      for (guint j = 0; free && j < taken->len; j++)
        free = !overlaps (&b, &g_array_index (taken, box, j));
      if (free)
        {
          *out = b;
          return TRUE;
        }
    }
  return FALSE;
}

static void
label_text (GString *s, const box *b, const char *text, const char *cls)
{
  g_string_append_printf (s, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\">", cls, b->x0, b->y1 - 3);
  esc (s, text);
  g_string_append (s, "</text>\n");
}

/* Labels of the highlighted points, left to right; the ones without room get a number and a
 * line of the list under the plot. Returns the list's lines. */
static GPtrArray *
draw_labels (GString *s, const frame *f, const msperf_plot_point *pts, guint n, GArray *taken)
{
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  GPtrArray *listed = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < n; i++)
    if (usable (&pts[i]) && pts[i].highlight)
      {
        double x = px (f, pts[i].x), y = py (f, pts[i].y);
        box marker = { x - 5, y - 5, x + 5, y + 5 };

        g_array_append_val (taken, marker);
        if (pts[i].label != NULL && *pts[i].label)
          g_ptr_array_add (order, (gpointer) &pts[i]);
      }
  g_ptr_array_sort (order, by_x);
  for (guint k = 0; k < order->len; k++)
    {
      const msperf_plot_point *p = g_ptr_array_index (order, k);
      double x = px (f, p->x), y = py (f, p->y);
      box b;

      if (place (f, x, y, text_width (p->label), 1, taken, &b))
        {
          g_array_append_val (taken, b);
          label_text (s, &b, p->label, "label");
          continue;
        }
      g_autofree char *num = g_strdup_printf ("%u", listed->len + 1);
      if (!place (f, x, y, text_width (num), 4, taken, &b))
        b = (box) { x + 6, y - 8, x + 6 + text_width (num), y + 3 };
      g_array_append_val (taken, b);
      label_text (s, &b, num, "label label-number");
      g_ptr_array_add (listed, g_strdup_printf ("%s  %s", num, p->label));
    }
  return listed;
}

static double
draw_legend (GString *s, const msperf_plot *plot, const frame *f, double width)
{
  double x = f->left, y = f->bottom + 58;

  for (guint k = 0; k < MSPERF_PLOT_MAX_SERIES; k++)
    {
      double w;

      if (plot->series[k] == NULL)
        continue;
      w = 16 + text_width (plot->series[k]) + 18;
      if (x + w > width - MARGIN_RIGHT && x > f->left)
        x = f->left, y += LINE_PX + 4;
      g_string_append_printf (s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\"/>\n",
                              x + 5, y - 4, colours[k]);
      g_string_append_printf (s, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">", x + 14, y);
      esc (s, plot->series[k]);
      g_string_append (s, "</text>\n");
      x += w;
    }
  return y;
}

void
msperf_plot_svg (GString *s, const msperf_plot *plot, const msperf_plot_point *pts, guint n)
{
  double width = plot->width > 0 ? plot->width : 760, height = plot->height > 0 ? plot->height : 520;
  g_autoptr (GString) body = g_string_new (NULL);
  g_autoptr (GArray) taken = g_array_new (FALSE, FALSE, sizeof (box));
  g_autoptr (GPtrArray) listed = NULL;
  frame f = { .left = MARGIN_LEFT, .right = width - MARGIN_RIGHT, .top = MARGIN_TOP,
              .bottom = height - MARGIN_BOTTOM };
  double y;

  g_return_if_fail (s != NULL && plot != NULL && (pts != NULL || n == 0));
  frame_ranges (&f, plot, pts, n);
  draw_axes (body, &f, plot, width);
  draw_lines (body, &f, plot, taken);
  draw_fronts (body, &f, pts, n);
  draw_points (body, &f, pts, n);
  listed = draw_labels (body, &f, pts, n, taken);
  y = draw_legend (body, plot, &f, width);
  for (guint k = 0; k < listed->len; k++)
    {
      y += LINE_PX;
      g_string_append_printf (body, "<text class=\"label-list\" x=\"%.1f\" y=\"%.1f\">",
                              f.left, y);
      esc (body, g_ptr_array_index (listed, k));
      g_string_append (body, "</text>\n");
    }
  height = MAX (height, y + 12);
  g_string_append_printf (s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
                          "font-size=\"%.0f\" role=\"img\">\n<title>", width, height, width,
                          height, FONT_PX);
  esc (s, plot->title);
  g_string_append_printf (s, "</title>\n<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n",
                          width, height);
  g_string_append_len (s, body->str, (gssize) body->len);
  g_string_append (s, "</svg>\n");
}

gboolean
msperf_plot_svg_file (const char *path, const msperf_plot *plot, const msperf_plot_point *pts,
                      guint n, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);

  g_return_val_if_fail (path != NULL && plot != NULL, FALSE);
  msperf_plot_svg (s, plot, pts, n);
  return g_file_set_contents (path, s->str, (gssize) s->len, error);
}
