/* msperf tests — interpolation space: log (and 4-D linear) against scipy (tests/data/interp/log_space.txt,
 * written by tests/interp/gen_log_goldens.py): the candidate index aggregates the raw points,
 * takes log2 of the coordinates and ln of the latencies (MSPERF_INDEX_LOG), and the stage's
 * arithmetic — exp (msperf_interp_linear) in 1-D, exp (griddata) in 2-D to 4-D — equals
 * numpy.exp (numpy.interp / griddata (log2 points, log values, log2 xi)) to the last bit. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "interp/index.h"

typedef struct {
  char *name;
  int dim;
  gboolean log_space;   /* else linear: griddata on the raw points (4-D goldens) */
  size_t n;
  double *points;       /* n × (dim + 1): coordinates then latency */
  gboolean build_ok;
  size_t nq;
  double *queries;      /* nq × (dim + 1): coordinates then expected (NaN outside) */
} log_case;

static void
case_free (log_case *c)
{
  g_free (c->name);
  g_free (c->points);
  g_free (c->queries);
  g_free (c);
}

static const char *
next_tok (char ***tok)
{
  while (**tok && ***tok == '\0')
    (*tok)++;
  assert_non_null (**tok);
  return *(*tok)++;
}

static double
next_double (char ***tok)
{
  const char *t = next_tok (tok);
  char *end = NULL;
  double v = g_ascii_strtod (t, &end);

  assert_true (end != t && *end == '\0');
  return v;
}

static void
expect (char ***tok, const char *word)
{
  assert_string_equal (next_tok (tok), word);
}

/* Every case of the fixture, in file order. */
static GPtrArray *
load_cases (void)
{
  const char *dir = g_getenv ("MSPERF_TEST_DATADIR");
  g_autofree char *path = NULL, *text = NULL;
  g_autoptr (GString) body = g_string_new (NULL);
  g_auto (GStrv) lines = NULL, toks = NULL;
  GPtrArray *cases = g_ptr_array_new_with_free_func ((GDestroyNotify) case_free);
  char **tok;

  assert_non_null (dir);
  path = g_strdup_printf ("%s/interp/log_space.txt", dir);
  assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (size_t i = 0; lines[i]; i++)
    if (lines[i][0] != '#')
      g_string_append_printf (body, "%s ", lines[i]);
  toks = g_strsplit_set (body->str, " \t\r", -1);
  tok = toks;
  for (;;)
    {
      log_case *c;

      while (*tok && **tok == '\0')
        tok++;
      if (*tok == NULL)
        break;
      c = g_new0 (log_case, 1);
      expect (&tok, "case");
      c->name = g_strdup (next_tok (&tok));
      expect (&tok, "dim");
      c->dim = (int) next_double (&tok);
      expect (&tok, "space");
      c->log_space = strcmp (next_tok (&tok), "log") == 0;
      expect (&tok, "points");
      c->n = (size_t) next_double (&tok);
      c->points = g_new (double, c->n * (size_t) (c->dim + 1) + 1);
      for (size_t i = 0; i < c->n * (size_t) (c->dim + 1); i++)
        c->points[i] = next_double (&tok);
      expect (&tok, "build");
      c->build_ok = strcmp (next_tok (&tok), "ok") == 0;
      expect (&tok, "queries");
      c->nq = (size_t) next_double (&tok);
      c->queries = g_new (double, c->nq * (size_t) (c->dim + 1) + 1);
      for (size_t i = 0; i < c->nq * (size_t) (c->dim + 1); i++)
        c->queries[i] = next_double (&tok);
      expect (&tok, "end");
      g_ptr_array_add (cases, c);
    }
  assert_true (cases->len >= 10);
  return cases;
}

/* ------------------------------------------------------------------ a module stub */

static const char *const axis_names[] = { "x0", "x1", "x2", "x3" };
static const char *const column_names[] = { "X0", "X1", "X2", "X3" };

/* Axes x0 .. x{dim-1} from columns X0 .., regime "|log"; state points to the dim. */
static gboolean
log_row (gpointer state, const msperf_table *t, size_t row, msperf_point *p)
{
  int dim = *(const int *) state;

  msperf_point_regime_add (p, "log");
  for (int k = 0; k < dim; k++)
    msperf_point_add_axis (p, axis_names[k],
                           g_ascii_strtod (msperf_table_cell_by_name (t, row, column_names[k]),
                                           NULL), TRUE);
  return TRUE;
}

static msperf_table *
case_table (const log_case *c)
{
  g_autoptr (GString) csv = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  msperf_table *t;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (int k = 0; k < c->dim; k++)
    g_string_append_printf (csv, "%s,", column_names[k]);
  g_string_append (csv, "Average Duration(us)\n");
  for (size_t i = 0; i < c->n; i++)
    for (int k = 0; k <= c->dim; k++)
      g_string_append_printf (csv, "%s%c",
                              g_ascii_dtostr (buf, sizeof buf,
                                              c->points[i * (size_t) (c->dim + 1) + (size_t) k]),
                              k == c->dim ? '\n' : ',');
  t = msperf_table_load_data (csv->str, csv->len, "log.csv", "Log", &error);
  assert_non_null (t);
  return t;
}

/* ------------------------------------------------------------------ the stage's arithmetic */

/* interp_1d of core/engine/interpolate.c in log space: the bracket on log2 x over the set's
 * unique log2 coordinates, then exp of the log/log line. */
static double
eval_1d (const msperf_index_set *s, double x)
{
  double lx = log2 (x), lo, hi;
  size_t ulo = G_MAXSIZE, uhi = G_MAXSIZE;

  if (!msperf_index_set_boundary (s, 0, lx, &lo, &hi))
    return NAN;
  for (size_t u = 0; u < s->n_unique; u++)
    {
      if (ulo == G_MAXSIZE && s->coords[u] == lo)
        ulo = u;
      if (uhi == G_MAXSIZE && s->coords[u] == hi)
        uhi = u;
    }
  assert_true (ulo != G_MAXSIZE && uhi != G_MAXSIZE);
  return exp (msperf_interp_linear (lx, lo, s->log_values[ulo], hi, s->log_values[uhi]));
}

/* interp_nd in log space: griddata on the log values at log2 x, then exp. */
static double
eval_nd (const msperf_delaunay *tri, const msperf_index_set *s, const double *x)
{
  double lx[MSPERF_DELAUNAY_MAX_DIM], v;

  for (int j = 0; j < s->dim; j++)
    lx[j] = log2 (x[j]);
  if (!msperf_interp_griddata (tri, s->log_values, lx, &v, NULL))
    return NAN;
  return exp (v);
}

/* A linear case (4-D): griddata on the set's aggregated points and values. */
static void
check_linear (const log_case *c, msperf_index_cache *cache, msperf_index_set *lin)
{
  msperf_interp_status st = MSPERF_INTERP_OK;
  const msperf_delaunay *tri = msperf_index_set_delaunay (cache, lin, &st, NULL);
  size_t mismatches = 0;

  assert_false (lin->log_space);
  if (!c->build_ok)
    {
      assert_null (tri);
      assert_int_equal (st, MSPERF_INTERP_DEGENERATE_POINT_CLOUD);
      return;
    }
  if (tri == NULL)
    fail_msg ("%s: Delaunay failed (%s)", c->name, msperf_interp_status_name (st));
  assert_int_equal (msperf_delaunay_dim (tri), c->dim);
  for (size_t q = 0; q < c->nq; q++)
    {
      const double *x = &c->queries[q * (size_t) (c->dim + 1)];
      double want = x[c->dim], got = NAN;

      if (!msperf_interp_griddata (tri, lin->values, x, &got, NULL))
        got = NAN;
      if (!(got == want || (isnan (got) && isnan (want))))
        {
          print_error ("%s query %zu: got %.17g, scipy %.17g\n", c->name, q, got, want);
          mismatches++;
        }
    }
  assert_int_equal (mismatches, 0);
}

static void
check_case (const log_case *c)
{
  static const size_t axes[] = { 0, 1, 2, 3 };
  g_autoptr (msperf_table) t = case_table (c);
  msperf_index_cache *cache = msperf_index_cache_new ();
  const msperf_delaunay *tri = NULL;
  const GPtrArray *buckets;
  msperf_index_set *s, *lin;
  msperf_index *idx;
  msperf_point target;
  msperf_interp_status st = MSPERF_INTERP_OK;
  int dim = c->dim;
  size_t mismatches = 0;

  idx = msperf_index_cache_get (cache, log_row, &dim, t, "log", "h", -1, NULL);
  buckets = msperf_index_buckets (idx, "|log");
  assert_non_null (buckets);
  msperf_point_init (&target);
  for (int k = 0; k < dim; k++)
    msperf_point_add_axis (&target, axis_names[k], 1.0, TRUE);
  lin = msperf_index_bucket_set (cache, g_ptr_array_index (buckets, 0), axes, dim, &target,
                                 MSPERF_INTERP_AGGREGATE_MEDIAN, MSPERF_INDEX_LINEAR);
  if (!c->log_space)
    {
      check_linear (c, cache, lin);
      msperf_point_clear (&target);
      msperf_index_cache_free (cache);
      return;
    }
  s = msperf_index_bucket_set (cache, g_ptr_array_index (buckets, 0), axes, dim, &target,
                               MSPERF_INTERP_AGGREGATE_MEDIAN, MSPERF_INDEX_LOG);
  /* The space is part of the set's cache key; aggregation is the linear one. */
  assert_true (s != lin);
  assert_true (s->log_space && !lin->log_space && !s->non_positive);
  assert_int_equal (s->n_filtered, c->n);
  assert_int_equal (s->n_unique, lin->n_unique);
  for (size_t u = 0; u < s->n_unique; u++)
    {
      assert_true (s->values[u] == lin->values[u]);
      assert_true (s->log_values[u] == log (lin->values[u]));
      for (int j = 0; j < dim; j++)
        {
          size_t at = u * (size_t) dim + (size_t) j;

          assert_true (s->ucoords[at] == lin->coords[at]);
          assert_true (s->coords[at] == log2 (lin->coords[at]));
        }
    }
  if (dim >= 2)
    {
      tri = msperf_index_set_delaunay (cache, s, &st, NULL);
      if (!c->build_ok)
        {
          assert_null (tri);
          assert_int_equal (st, MSPERF_INTERP_DEGENERATE_POINT_CLOUD);
        }
      else if (tri == NULL)
        fail_msg ("%s: Delaunay failed (%s)", c->name, msperf_interp_status_name (st));
    }
  for (size_t q = 0; q < c->nq; q++)
    {
      const double *x = &c->queries[q * (size_t) (dim + 1)];
      double want = x[dim];
      double got = dim == 1 ? eval_1d (s, x[0]) : eval_nd (tri, s, x);

      if (!(got == want || (isnan (got) && isnan (want))))
        {
          print_error ("%s query %zu: got %.17g, scipy %.17g\n", c->name, q, got, want);
          mismatches++;
        }
    }
  assert_int_equal (mismatches, 0);
  msperf_point_clear (&target);
  msperf_index_cache_free (cache);
}

static void
test_log_space_goldens (void **state)
{
  g_autoptr (GPtrArray) cases = load_cases ();
  int by_dim[MSPERF_DELAUNAY_MAX_DIM + 1] = { 0 };

  (void) state;
  for (guint k = 0; k < cases->len; k++)
    {
      const log_case *c = g_ptr_array_index (cases, k);

      check_case (c);
      by_dim[c->dim]++;
    }
  /* 1-D, 2-D, 3-D and 4-D cases are all there. */
  for (int d = 1; d <= MSPERF_DELAUNAY_MAX_DIM; d++)
    assert_true (by_dim[d] > 0);
}

/* A selected coordinate <= 0 has no logarithm: the set says so (the stage then fails the group
 * with non_positive_axis_for_log); a linear set of the same points is fine. */
static void
test_log_space_non_positive (void **state)
{
  static const char data[] = "X0,Average Duration(us)\n0,1\n4,2\n16,3\n";
  static const size_t axis = 0;
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_table) t = msperf_table_load_data (data, sizeof data - 1, "log.csv", "Log",
                                                       &error);
  msperf_index_cache *cache = msperf_index_cache_new ();
  msperf_index *idx;
  msperf_index_set *s;
  msperf_point target;
  int dim = 1;

  (void) state;
  assert_non_null (t);
  idx = msperf_index_cache_get (cache, log_row, &dim, t, "log", "h", -1, NULL);
  msperf_point_init (&target);
  msperf_point_add_axis (&target, "x0", 8.0, TRUE);
  s = msperf_index_bucket_set (cache, g_ptr_array_index (msperf_index_buckets (idx, "|log"), 0),
                               &axis, 1, &target, MSPERF_INTERP_AGGREGATE_MEDIAN,
                               MSPERF_INDEX_LOG);
  assert_true (s->non_positive);
  s = msperf_index_bucket_set (cache, g_ptr_array_index (msperf_index_buckets (idx, "|log"), 0),
                               &axis, 1, &target, MSPERF_INTERP_AGGREGATE_MEDIAN,
                               MSPERF_INDEX_LINEAR);
  assert_false (s->non_positive);
  msperf_point_clear (&target);
  msperf_index_cache_free (cache);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_log_space_goldens),
    cmocka_unit_test (test_log_space_non_positive),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
