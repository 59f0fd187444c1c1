/* msperf — holdout of guarded extrapolation (see holdout_extrap.h). Each bucket with the axis
 * is copied without its outer values (msperf_index_bucket_copy_below); the hidden coordinates
 * are then answered from the copy exactly as run_stage answers an op: the groups first, then
 * msperf_extrapolate. */
#define G_LOG_DOMAIN "msperf"
#include <config.h>
#include <math.h>
#include <string.h>
#include "engine/shared.h"
#include <msperf/details.h>
#include "engine/interpolate.h"
#include "engine/extrapolate.h"
#include "engine/holdout_extrap.h"

void
msperf_holdout_sample_predicted (msperf_holdout_sample *s, const msperf_result *r)
{
  g_return_if_fail (s != NULL && r != NULL);
  s->predicted_us = r->latency_us;
  s->abs_error_us = fabs (s->predicted_us - s->measured_us);
  s->rel_error = s->abs_error_us / s->measured_us;
  s->confidence = r->confidence;
  s->method = g_strdup (r->method);
  s->dim = r->interpolation_dim;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* The threshold below which points stay: the hide_outer-th largest distinct value of axis a,
 * or -INFINITY when the bucket has too few distinct values to keep any. */
static double
hide_from (const msperf_index_bucket *b, size_t a, guint hide_outer)
{
  g_autoptr (GArray) v = g_array_new (FALSE, FALSE, sizeof (double));
  guint distinct = 0;

  for (size_t i = 0; i < b->n; i++)
    if (g_array_index (b->known, guint8, i * b->n_axes + a))
      g_array_append_val (v, g_array_index (b->coords, double, i * b->n_axes + a));
  if (v->len == 0)
    return -INFINITY;
  g_array_sort (v, (GCompareFunc) cmp_double);
  for (guint k = v->len; k-- > 0;)
    if (k + 1 == v->len || g_array_index (v, double, k) != g_array_index (v, double, k + 1))
      if (++distinct == hide_outer)
        return g_array_index (v, double, k) == g_array_index (v, double, 0)
                 ? -INFINITY : g_array_index (v, double, k);
  return -INFINITY;
}

static gboolean
same_point (const msperf_index_bucket *b, size_t i, size_t j)
{
  for (size_t a = 0; a < b->n_axes; a++)
    if (g_array_index (b->known, guint8, i * b->n_axes + a)
          != g_array_index (b->known, guint8, j * b->n_axes + a)
        || g_array_index (b->coords, double, i * b->n_axes + a)
             != g_array_index (b->coords, double, j * b->n_axes + a))
      return FALSE;
  for (size_t f = 0; f < b->n_fields; f++)
    if (g_array_index (b->fields, int64_t, i * b->n_fields + f)
        != g_array_index (b->fields, int64_t, j * b->n_fields + f))
      return FALSE;
  return TRUE;
}

/* Why a hidden coordinate got no answer: the refusal, then the failed groups. */
static char *
join_reasons (const msperf_result *r, const GPtrArray *reasons)
{
  const char *refused = msperf_value_get_string (msperf_value_lookup (msperf_result_details (r),
                                                                      "extrapolation_refused"));
  GString *s = g_string_new (NULL);

  if (refused)
    g_string_append_printf (s, "extrapolation_refused: %s", refused);
  for (guint k = 0; k < reasons->len; k++)
    g_string_append_printf (s, "%s%s", s->len ? "; " : "",
                            (const char *) g_ptr_array_index (reasons, k));
  return g_string_free (s, FALSE);
}

/* The target point i of bucket b, as its row was described; fills the sample's coordinates. */
static void
target_of (const msperf_index_bucket *b, size_t i, int64_t tc_input_count, msperf_point *t,
           msperf_holdout_sample *s)
{
  msperf_point_init (t);
  g_string_assign (t->regime, b->regime);
  t->input_limit = tc_input_count;
  t->n_axes = s->n_axes = b->n_axes;
  for (size_t a = 0; a < b->n_axes; a++)
    {
      gboolean known = g_array_index (b->known, guint8, i * b->n_axes + a) != 0;
      double v = g_array_index (b->coords, double, i * b->n_axes + a);

      t->axis_names[a] = b->axis_names[a];
      t->axes[a] = s->axes[a] = known ? v : NAN;
      t->axis_known[a] = known;
      s->axis_names[a] = g_strdup (b->axis_names[a]);
    }
  t->n_fields = s->n_fields = b->n_fields;
  for (size_t f = 0; f < b->n_fields; f++)
    {
      t->field_names[f] = b->field_names[f];
      t->fields[f] = s->fields[f] = g_array_index (b->fields, int64_t, i * b->n_fields + f);
      t->matchers[f] = b->field_matchers[f];
      s->field_names[f] = g_strdup (b->field_names[f]);
    }
}

/* One hidden coordinate (point i of the full bucket b, its duplicates' latencies lat). */
static msperf_holdout_sample *
run_sample (msperf_engine *e, msperf_index *idx, const char *kernel, const char *mode,
            int64_t tc_input_count, const msperf_index_bucket *b, GPtrArray *rest, size_t i,
            GArray *lat)
{
  const char *one[] = { kernel, NULL };
  msperf_query q = { 0 };
  msperf_holdout_sample *s = g_new0 (msperf_holdout_sample, 1);
  g_autoptr (msperf_result) r = msperf_result_new ();
  g_autoptr (GPtrArray) reasons = g_ptr_array_new_with_free_func (g_free);
  msperf_point t;
  gboolean ok;

  q.engine = e;
  q.mode = mode;
  q.kernel_types = one;
  q.tc_input_count = tc_input_count;
  s->kernel = g_strdup (kernel);
  s->regime = g_strdup (b->regime);
  s->line = g_array_index (b->lines, guint, i);
  s->n_rows = lat->len;
  s->measured_us = msperf_interp_median ((double *) lat->data, lat->len);
  target_of (b, i, tc_input_count, &t, s);
  /* As run_stage: the groups, then extrapolation when every group failed. */
  ok = msperf_interpolate_at (e, idx, kernel, &q, rest, &t, reasons, r)
       || msperf_extrapolate (e, idx, kernel, &q, &t, rest, NULL, "holdout", reasons, r);
  msperf_point_clear (&t);
  s->interpolated = ok;
  s->source = g_strdup (ok ? msperf_source_name (r->source) : "NONE");
  if (ok)
    msperf_holdout_sample_predicted (s, r);
  else
    {
      s->predicted_us = s->abs_error_us = s->rel_error = s->confidence = NAN;
      s->reason = join_reasons (r, reasons);
    }
  return s;
}

static size_t
extrapolate_bucket (msperf_engine *e, msperf_index *idx, const char *kernel, const char *mode,
                    int64_t tc_input_count, const msperf_index_bucket *b, size_t a,
                    guint hide_outer, GPtrArray *samples)
{
  double below = hide_from (b, a, hide_outer);
  msperf_index_bucket *copy;
  g_autoptr (GPtrArray) rest = g_ptr_array_new ();
  g_autofree gboolean *done = g_new0 (gboolean, b->n + 1);
  size_t added = 0;

  if (!isfinite (below))
    return 0;
  copy = msperf_index_bucket_copy_below (b, a, below);
  g_ptr_array_add (rest, copy);
  for (size_t i = 0; i < b->n; i++)
    {
      g_autoptr (GArray) lat = NULL;

      if (done[i] || !g_array_index (b->known, guint8, i * b->n_axes + a)
          || g_array_index (b->coords, double, i * b->n_axes + a) < below)
        continue;
      lat = g_array_new (FALSE, FALSE, sizeof (double));
      for (size_t j = i; j < b->n; j++)
        if (!done[j] && same_point (b, i, j))
          {
            done[j] = TRUE;
            g_array_append_val (lat, g_array_index (b->latency, double, j));
          }
      g_ptr_array_add (samples, run_sample (e, idx, kernel, mode, tc_input_count, b, rest, i,
                                            lat));
      added++;
    }
  msperf_index_bucket_free (copy);
  return added;
}

size_t
msperf_holdout_extrapolate (msperf_engine *e, msperf_index *idx, const char *kernel,
                            const char *mode, int64_t tc_input_count,
                            const msperf_holdout_extrap_options *o, GPtrArray *samples)
{
  const GPtrArray *buckets;
  size_t added = 0;

  g_return_val_if_fail (e != NULL && idx != NULL && kernel != NULL && mode != NULL && o != NULL
                        && o->axis != NULL && samples != NULL, 0);
  buckets = msperf_index_all_buckets (idx);
  for (guint bi = 0; buckets && bi < buckets->len; bi++)
    {
      const msperf_index_bucket *b = g_ptr_array_index (buckets, bi);

      for (size_t a = 0; a < b->n_axes; a++)
        if (strcmp (b->axis_names[a], o->axis) == 0)
          added += extrapolate_bucket (e, idx, kernel, mode, tc_input_count, b, a,
                                       MAX (o->hide_outer, 1), samples);
    }
  return added;
}
