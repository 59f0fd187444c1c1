/* Tests of core/app/report/plot_svg.c: tick values are 1-2-5 steps covering the data, the
 * document is well-formed XML with every text escaped, highlighted points are labelled without
 * two label boxes overlapping (the ones without room are numbered and listed), limit lines are
 * drawn with their labels, and non-finite points are left out. */
#include <config.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include "app/report/plot_svg.h"

static guint
count (const char *haystack, const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (haystack, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

static void
test_ticks (void **state)
{
  double t[16];
  guint n;

  (void) state;
  n = msperf_plot_ticks (0, 77.3, 6, t);
  assert_int_equal (n, 5);   /* 0 20 40 60 80 */
  assert_true (t[0] == 0 && t[1] == 20 && t[4] == 80);
  n = msperf_plot_ticks (0, 0.043, 5, t);
  assert_true (t[0] == 0 && t[n - 1] >= 0.043 && fabs (t[1] - 0.01) < 1e-12);
  n = msperf_plot_ticks (-3, 12, 5, t);
  assert_true (t[0] <= -3 && t[n - 1] >= 12);
  for (guint k = 1; k < n; k++)
    assert_true (t[k] > t[k - 1]);
  n = msperf_plot_ticks (5, 5, 5, t);   /* a single value still gets an axis */
  assert_true (n >= 2 && t[0] <= 5 && t[n - 1] >= 5);
  assert_int_equal (msperf_plot_ticks (0, INFINITY, 5, t), 0);
}

static void
test_document (void **state)
{
  msperf_plot_point pts[] = {
    { 10, 500, 0, FALSE, "a<b" }, { 40, 300, 0, TRUE, "tp2 & co" }, { 60, 100, 0, TRUE, "tp8" },
    { 30, 350, 1, TRUE, "disagg 1p1d" }, { NAN, 3, 0, TRUE, "lost" },
  };
  msperf_plot plot = { .title = "T \"q\"", .x_title = "tokens/s/user",
                       .y_title = "tokens/s/GPU", .series = { "agg", "disagg" }, .n_lines = 1,
                       .lines = { { TRUE, 50, "TPOT \u2264 20 ms" } } };
  g_autoptr (GString) s = g_string_new (NULL);
  g_autoptr (GMarkupParseContext) ctx = NULL;
  GMarkupParser parser = { 0 };
  g_autoptr (GError) error = NULL;

  (void) state;
  msperf_plot_svg (s, &plot, pts, G_N_ELEMENTS (pts));
  ctx = g_markup_parse_context_new (&parser, 0, NULL, NULL);
  assert_true (g_markup_parse_context_parse (ctx, s->str, (gssize) s->len, &error)
               && g_markup_parse_context_end_parse (ctx, &error));
  assert_non_null (strstr (s->str, "tp2 &amp; co"));
  assert_non_null (strstr (s->str, "a&lt;b"));
  assert_non_null (strstr (s->str, "tokens/s/GPU"));
  assert_non_null (strstr (s->str, ">TPOT \u2264 20 ms</text>"));
  assert_int_equal (count (s->str, "class=\"limit\""), 1);
  assert_null (strstr (s->str, "lost"));                 /* the NaN point */
  assert_int_equal (count (s->str, "<circle cx"), 4 + 2);  /* 4 points + 2 legend dots */
  assert_int_equal (count (s->str, "class=\"label\""), 3); /* every front point labelled */
  assert_int_equal (count (s->str, "class=\"tick\""), 5 + 7);
}

/* Parses the label boxes back out of the document: x, y of each <text class="label...">. */
static void
test_crowded_labels_do_not_overlap (void **state)
{
  enum { N = 40 };
  msperf_plot_point pts[N];
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  msperf_plot plot = { .title = "crowded", .x_title = "x", .y_title = "y" };
  g_autoptr (GString) s = g_string_new (NULL);
  GArray *boxes = g_array_new (FALSE, FALSE, sizeof (double) * 4);
  const char *p;
  guint numbered = 0;

  (void) state;
  for (guint i = 0; i < N; i++)
    {
      char *l = g_strdup_printf ("tp%u pp1 ep1 dp1 b%u", i % 8 + 1, i);
      g_ptr_array_add (labels, l);
      pts[i] = (msperf_plot_point) { 50 + i * 0.5, 400 - i * 0.8, 0, TRUE, l };
    }
  msperf_plot_svg (s, &plot, pts, N);
  for (p = strstr (s->str, "<text class=\"label"); p != NULL;
       p = strstr (p + 1, "<text class=\"label"))
    {
      double b[4], x, y;
      const char *gt = strchr (p, '>'), *end = strstr (gt, "</text>");
      gboolean number = g_str_has_prefix (p, "<text class=\"label label-number\"");

      if (g_str_has_prefix (p, "<text class=\"label-list\""))
        continue;
      assert_int_equal (sscanf (strstr (p, "x=\""), "x=\"%lf\" y=\"%lf\"", &x, &y), 2);
      b[0] = x, b[1] = y - 11, b[2] = x + 6.6 * (double) (end - gt - 1), b[3] = y;
      numbered += number;
      for (guint j = 0; j < boxes->len; j++)
        {
          const double *o = &g_array_index (boxes, double, j * 4);
          assert_false (b[0] < o[2] - 0.05 && o[0] < b[2] - 0.05 && b[1] < o[3] - 0.05
                        && o[1] < b[3] - 0.05);
        }
      g_array_append_vals (boxes, b, 1);
    }
  assert_int_equal (boxes->len, N);
  assert_true (numbered > 0);                                 /* too crowded for all texts */
  assert_int_equal (count (s->str, "class=\"label-list\""), numbered);
  g_array_free (boxes, TRUE);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_ticks),
    cmocka_unit_test (test_document),
    cmocka_unit_test (test_crowded_labels_do_not_overlap),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
