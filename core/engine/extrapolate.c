/* msperf — guarded extrapolation (see extrapolate.h; seed 000 §8, doc/formats.md
 * § Extrapolation). The target is placed against its bucket's data (the points whose exact
 * fields and pinned axes match it); a ratio above max_ratio or a coordinate above a max_bound
 * refuses. hold_analytic interpolates at the target clamped into the data and scales by the
 * work model's roofline; marginal fits latency affine in work through the last two measured
 * values of the one axis outside. Both interpolate with the normal stage (same policy). */
#define G_LOG_DOMAIN "msperf"
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/shape.h>
#include "engine/shared.h"
#include "engine/interpolate.h"
#include "engine/confidence.h"
#include "engine/extrapolate.h"
#include "engine/work_model.h"

#define MAX_AXES MSPERF_POINT_MAX_AXES

typedef enum { HOLD_ANALYTIC, MARGINAL } strategy;

static const char *const strategy_names[] = { "hold_analytic", "marginal" };

typedef struct {
  strategy strategy;
  double max_ratio;
  const msperf_value *max_bound;   /* MAP axis → number, or NULL */
} extrap_policy;

/* The target against one bucket's data. */
typedef struct {
  const msperf_index_bucket *b;
  double target[MAX_AXES];
  gboolean known[MAX_AXES];
  gboolean free[MAX_AXES];          /* may vary (policy axes / exact_fields) and known */
  double lo[MAX_AXES], hi[MAX_AXES];
  double ratio[MAX_AXES];           /* ≥ 1; 1 inside [lo, hi] */
  int n_outside;
  size_t outside;                   /* the outside axis when n_outside == 1 */
  GArray *cand;                     /* guint: bucket point indices */
} placement;

/* One answer of a strategy. */
typedef struct {
  double value;
  double clamped[MAX_AXES];
  double inner_us;                  /* the interpolated latency the strategy started from */
  double analytic_ratio;            /* hold_analytic */
  double x[2], y[2], w[2], slope;   /* marginal: the two points (axis value, latency, work) */
  const char *clamp_rule;           /* "box" or "nearest_point" (hold_analytic) */
  const char *note;                 /* why marginal used hold_analytic, or NULL */
} answer;

/* ------------------------------------------------------------------ policy */

/* interpolation.extrapolation.KEY: the kernel's block first, key by key. */
static const msperf_value *
extrap_option (msperf_engine *e, const char *kernel, const char *key)
{
  const msperf_value *block = msperf_engine_kernel_option (e, "interpolation_policy", kernel,
                                                           "extrapolation");
  const msperf_value *v = block && block->kind == MSPERF_VALUE_MAP
                            ? msperf_value_lookup (block, key) : NULL;
  g_autofree char *path = NULL;

  if (v && v->kind != MSPERF_VALUE_NONE)
    return v;
  path = g_strdup_printf ("interpolation.extrapolation.%s", key);
  return msperf_engine_policy_value (e, path);
}

gboolean
msperf_extrapolation_allowed (msperf_engine *e, const char *kernel)
{
  const msperf_value *v;

  g_return_val_if_fail (e != NULL && kernel != NULL, FALSE);
  v = msperf_interpolation_option (e, kernel, "allow_extrapolation");
  return v != NULL && v->kind == MSPERF_VALUE_BOOL && v->b;
}

static void
read_policy (msperf_engine *e, const char *kernel, extrap_policy *p)
{
  const char *s = msperf_value_get_string (extrap_option (e, kernel, "strategy"));
  const msperf_value *bound = extrap_option (e, kernel, "max_bound");
  double ratio;

  p->strategy = g_strcmp0 (s, "marginal") == 0 ? MARGINAL : HOLD_ANALYTIC;
  p->max_ratio = msperf_value_get_double (extrap_option (e, kernel, "max_ratio"), &ratio)
                 && ratio > 1.0 ? ratio : MSPERF_EXTRAP_DEFAULT_MAX_RATIO;
  p->max_bound = bound && bound->kind == MSPERF_VALUE_MAP ? bound : NULL;
}

/* The stage's free axes (interpolate.c free_axes): in `axes` when set, not in exact_fields. */
static gboolean
axis_free (msperf_engine *e, const char *kernel, const char *name)
{
  const msperf_value *axes = msperf_interpolation_option (e, kernel, "axes");
  const msperf_value *exact = msperf_interpolation_option (e, kernel, "exact_fields");

  if (axes && axes->kind == MSPERF_VALUE_LIST && !msperf_interpolation_list_has (axes, name))
    return FALSE;
  return !msperf_interpolation_list_has (exact, name);
}

/* ------------------------------------------------------------------ placement */

static gboolean
target_value (const msperf_point *t, const char *name, double *v)
{
  for (size_t k = 0; k < t->n_axes; k++)
    if (strcmp (t->axis_names[k], name) == 0)
      {
        *v = t->axis_known[k] ? t->axes[k] : NAN;
        return t->axis_known[k];
      }
  *v = NAN;
  return FALSE;
}

static int
field_index (const msperf_index_bucket *b, const char *name)
{
  for (size_t j = 0; j < b->n_fields; j++)
    if (strcmp (b->field_names[j], name) == 0)
      return (int) j;
  return -1;
}

/* Point i of the bucket may stand in for the target: its exact fields match as the stage's
 * filter matches them, its pinned axes equal the target's, the target's known axes are known. */
static gboolean
is_candidate (const placement *pl, const msperf_point *t, size_t i)
{
  const msperf_index_bucket *b = pl->b;
  const double *c = &g_array_index (b->coords, double, i * b->n_axes);
  const guint8 *k = &g_array_index (b->known, guint8, i * b->n_axes);

  for (size_t a = 0; a < b->n_axes; a++)
    {
      if (!pl->known[a])
        {
          if (k[a])
            return FALSE;
          continue;
        }
      if (!k[a] || (!pl->free[a] && c[a] != pl->target[a]))
        return FALSE;
    }
  for (size_t f = 0; f < t->n_fields; f++)
    {
      int j = field_index (b, t->field_names[f]);
      int64_t v;

      if (j < 0)
        return FALSE;
      v = g_array_index (b->fields, int64_t, i * b->n_fields + (size_t) j);
      if (v != t->fields[f]
          && !(t->matchers[f] == MSPERF_MATCH_BLOCK_PADDED
               && (msperf_is_block_padded (t->fields[f], v)
                   || msperf_is_block_padded (v, t->fields[f]))))
        return FALSE;
    }
  return TRUE;
}

/* Fills pl for bucket b; FALSE when no point of b can stand in for the target. */
static gboolean
place (msperf_engine *e, const char *kernel, const msperf_index_bucket *b, const msperf_point *t,
       placement *pl)
{
  memset (pl, 0, sizeof *pl);
  pl->b = b;
  pl->cand = g_array_new (FALSE, FALSE, sizeof (guint));
  for (size_t a = 0; a < b->n_axes; a++)
    {
      pl->known[a] = target_value (t, b->axis_names[a], &pl->target[a]);
      pl->free[a] = pl->known[a] && axis_free (e, kernel, b->axis_names[a]);
      pl->lo[a] = INFINITY;
      pl->hi[a] = -INFINITY;
      pl->ratio[a] = 1.0;
    }
  for (size_t i = 0; i < b->n; i++)
    if (is_candidate (pl, t, i))
      {
        guint gi = (guint) i;
        const double *c = &g_array_index (b->coords, double, i * b->n_axes);

        g_array_append_val (pl->cand, gi);
        for (size_t a = 0; a < b->n_axes; a++)
          if (pl->free[a])
            {
              pl->lo[a] = MIN (pl->lo[a], c[a]);
              pl->hi[a] = MAX (pl->hi[a], c[a]);
            }
      }
  if (pl->cand->len == 0)
    return FALSE;
  for (size_t a = 0; a < b->n_axes; a++)
    {
      double v = pl->target[a];

      if (!pl->free[a] || (v >= pl->lo[a] && v <= pl->hi[a]))
        continue;
      /* Nearest measured value over target above the range, target over it below: ≥ 1. */
      pl->ratio[a] = v > pl->hi[a] ? v / pl->hi[a] : pl->lo[a] / v;
      pl->n_outside++;
      pl->outside = a;
    }
  return TRUE;
}

/* NULL when the policy's guards let the target through, else why not (owned). */
static char *
refusal (const placement *pl, const extrap_policy *p)
{
  const msperf_index_bucket *b = pl->b;

  for (size_t a = 0; a < b->n_axes; a++)
    {
      double bound;

      if (!pl->known[a])
        continue;
      if (p->max_bound
          && msperf_value_get_double (msperf_value_lookup (p->max_bound, b->axis_names[a]),
                                      &bound)
          && pl->target[a] > bound)
        return g_strdup_printf ("%s %g > max_bound %g", b->axis_names[a], pl->target[a], bound);
      if (pl->ratio[a] > p->max_ratio)
        return g_strdup_printf ("ratio %.3g > max_ratio %g on %s", pl->ratio[a], p->max_ratio,
                                b->axis_names[a]);
    }
  return NULL;
}

/* ------------------------------------------------------------------ helpers */

/* A copy of t with the bucket axes set to coords (the other axes and fields unchanged). */
static void
point_at (const msperf_point *t, const msperf_index_bucket *b, const double *coords,
          msperf_point *out)
{
  msperf_point_init (out);
  g_string_assign (out->regime, t->regime->str);
  out->n_axes = t->n_axes;
  memcpy (out->axis_names, t->axis_names, sizeof t->axis_names);
  memcpy (out->axes, t->axes, sizeof t->axes);
  memcpy (out->axis_known, t->axis_known, sizeof t->axis_known);
  out->n_fields = t->n_fields;
  memcpy (out->field_names, t->field_names, sizeof t->field_names);
  memcpy (out->fields, t->fields, sizeof t->fields);
  memcpy (out->matchers, t->matchers, sizeof t->matchers);
  out->input_limit = t->input_limit;
  for (size_t a = 0; a < b->n_axes; a++)
    for (size_t k = 0; k < out->n_axes; k++)
      if (strcmp (out->axis_names[k], b->axis_names[a]) == 0 && out->axis_known[k])
        out->axes[k] = coords[a];
}

/* The normal stage at coords: its latency, or NAN. */
static double
interpolate_at (msperf_engine *e, msperf_index *idx, const char *kernel, const msperf_query *q,
                const GPtrArray *buckets, const msperf_point *t, const double *coords)
{
  msperf_point p;
  g_autoptr (GPtrArray) reasons = g_ptr_array_new_with_free_func (g_free);
  msperf_result *r = msperf_result_new ();
  double v = NAN;

  point_at (t, g_ptr_array_index (buckets, 0), coords, &p);
  if (msperf_interpolate_at (e, idx, kernel, q, buckets, &p, reasons, r))
    v = r->latency_us;
  msperf_result_free (r);
  msperf_point_clear (&p);
  return v;
}

static msperf_dtype
query_dtype (const msperf_query *q)
{
  g_autoptr (GPtrArray) in = NULL;

  if (q->op == NULL)
    return MSPERF_DTYPE_BF16;
  in = msperf_op_tensor_inputs (q->op);
  return in->len ? ((const msperf_tensor *) g_ptr_array_index (in, 0))->dtype
                 : MSPERF_DTYPE_BF16;
}

static gboolean
work_at (const msperf_index_bucket *b, const double *coords, msperf_dtype dtype,
         msperf_work *w)
{
  guint size = msperf_dtype_size (dtype);

  return msperf_work_model ((const char *const *) b->axis_names, coords, b->n_axes,
                            size ? (double) size : 2.0, w);
}

/* ------------------------------------------------------------------ hold_analytic */

/* The candidate nearest to x by normalised log distance: per free axis the log distance over
 * the log range of the data (axes without a range do not count). */
static void
nearest_candidate (const placement *pl, const double *x, double *out)
{
  const msperf_index_bucket *b = pl->b;
  double best = INFINITY;

  for (guint k = 0; k < pl->cand->len; k++)
    {
      size_t i = g_array_index (pl->cand, guint, k);
      const double *c = &g_array_index (b->coords, double, i * b->n_axes);
      double d = 0.0;

      for (size_t a = 0; a < b->n_axes; a++)
        if (pl->free[a] && pl->hi[a] > pl->lo[a] && pl->lo[a] > 0.0 && c[a] > 0.0)
          {
            double u = (log (c[a]) - log (x[a])) / (log (pl->hi[a]) - log (pl->lo[a]));
            d += u * u;
          }
      if (d < best)
        {
          best = d;
          memcpy (out, c, b->n_axes * sizeof (double));
        }
    }
}

/* NULL on success (ans filled), else why it failed (static). */
static const char *
hold_analytic (msperf_engine *e, msperf_index *idx, const char *kernel, const msperf_query *q,
               const GPtrArray *buckets, const msperf_point *t, const placement *pl,
               answer *ans)
{
  const msperf_index_bucket *b = pl->b;
  msperf_dtype dtype = query_dtype (q);
  const msperf_device *device = msperf_engine_device (e);
  msperf_work wt, wc;
  double at, ac;

  /* Per axis into [min, max] of the data; when the stage cannot answer there (outside the
   * convex hull of a ragged grid), the nearest measured point. */
  for (size_t a = 0; a < b->n_axes; a++)
    ans->clamped[a] = pl->free[a] ? CLAMP (pl->target[a], pl->lo[a], pl->hi[a]) : pl->target[a];
  ans->clamp_rule = "box";
  ans->inner_us = interpolate_at (e, idx, kernel, q, buckets, t, ans->clamped);
  if (isnan (ans->inner_us))
    {
      nearest_candidate (pl, ans->clamped, ans->clamped);
      ans->clamp_rule = "nearest_point";
      ans->inner_us = interpolate_at (e, idx, kernel, q, buckets, t, ans->clamped);
    }
  if (isnan (ans->inner_us))
    return "interpolation_failed_at_clamped_point";
  if (!work_at (b, pl->target, dtype, &wt) || !work_at (b, ans->clamped, dtype, &wc))
    return "no_work_model_for_axes";
  at = msperf_work_roofline_us (device, dtype, &wt);
  ac = msperf_work_roofline_us (device, dtype, &wc);
  if (!(at > 0.0) || !(ac > 0.0))
    return "no_device_roofline";
  ans->analytic_ratio = at / ac;
  ans->value = ans->inner_us * ans->analytic_ratio;
  return NULL;
}

/* ------------------------------------------------------------------ marginal */

/* The last two distinct measured values of axis a on the target's side (the outermost first). */
static gboolean
last_two (const placement *pl, size_t a, double *x)
{
  const msperf_index_bucket *b = pl->b;
  gboolean above = pl->target[a] > pl->hi[a];
  double edge = above ? pl->hi[a] : pl->lo[a], next = above ? -INFINITY : INFINITY;

  for (guint k = 0; k < pl->cand->len; k++)
    {
      size_t i = g_array_index (pl->cand, guint, k);
      double v = g_array_index (b->coords, double, i * b->n_axes + a);

      if (above ? (v < edge && v > next) : (v > edge && v < next))
        next = v;
    }
  x[0] = edge;
  x[1] = next;
  return isfinite (next);
}

static const char *
marginal (msperf_engine *e, msperf_index *idx, const char *kernel, const msperf_query *q,
          const GPtrArray *buckets, const msperf_point *t, const placement *pl, answer *ans)
{
  const msperf_index_bucket *b = pl->b;
  size_t a = pl->outside;
  msperf_dtype dtype = query_dtype (q);
  msperf_work w;
  double wt;

  memcpy (ans->clamped, pl->target, sizeof ans->clamped);
  if (!last_two (pl, a, ans->x))
    return "one_measured_value_on_axis";
  for (int k = 0; k < 2; k++)
    {
      double at[MAX_AXES];

      memcpy (at, pl->target, sizeof at);
      at[a] = ans->x[k];
      ans->y[k] = interpolate_at (e, idx, kernel, q, buckets, t, at);
      if (isnan (ans->y[k]))
        return "interpolation_failed_at_marginal_point";
      if (!work_at (b, at, dtype, &w))
        return "no_work_model_for_axes";
      ans->w[k] = msperf_work_measure (&w);
    }
  if (!work_at (b, pl->target, dtype, &w))
    return "no_work_model_for_axes";
  wt = msperf_work_measure (&w);
  ans->clamped[a] = ans->x[0];
  ans->inner_us = ans->y[0];
  /* Latency affine in work through both points; more work never runs faster. */
  ans->slope = ans->w[0] != ans->w[1] ? (ans->y[0] - ans->y[1]) / (ans->w[0] - ans->w[1]) : 0.0;
  if (!(ans->slope > 0.0))
    ans->slope = 0.0;
  ans->value = ans->y[0] + ans->slope * (wt - ans->w[0]);
  if (!(ans->value > 0.0))
    return "marginal_fit_not_positive";
  return NULL;
}

/* ------------------------------------------------------------------ the result */

static msperf_value *
number_value (double v)
{
  if (isfinite (v) && v == floor (v) && fabs (v) < 9007199254740992.0)
    return msperf_value_new_int ((int64_t) v);
  return isnan (v) ? msperf_value_new (MSPERF_VALUE_NONE) : msperf_value_new_double (v);
}

static msperf_value *
axes_map (const placement *pl, const double *v)
{
  msperf_value *m = msperf_value_new (MSPERF_VALUE_MAP);

  for (size_t a = 0; a < pl->b->n_axes; a++)
    msperf_value_map_set (m, pl->b->axis_names[a],
                          pl->known[a] ? number_value (v[a]) : msperf_value_new (MSPERF_VALUE_NONE));
  return m;
}

static msperf_value *
extrapolation_value (const placement *pl, strategy used, const answer *ans)
{
  msperf_value *x = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *ratio = msperf_value_new (MSPERF_VALUE_MAP);

  for (size_t a = 0; a < pl->b->n_axes; a++)
    if (pl->free[a])
      msperf_value_map_set (ratio, pl->b->axis_names[a], msperf_value_new_double (pl->ratio[a]));
  msperf_value_map_set (x, "strategy", msperf_value_new_string (strategy_names[used]));
  msperf_value_map_set (x, "target", axes_map (pl, pl->target));
  msperf_value_map_set (x, "clamped", axes_map (pl, ans->clamped));
  msperf_value_map_set (x, "ratio", ratio);
  msperf_value_map_set (x, "axes_outside", msperf_value_new_int (pl->n_outside));
  msperf_value_map_set (x, "inner_latency_us", msperf_value_new_double (ans->inner_us));
  if (used == HOLD_ANALYTIC)
    {
      msperf_value_map_set (x, "clamp_rule", msperf_value_new_string (ans->clamp_rule));
      msperf_value_map_set (x, "analytic_ratio", msperf_value_new_double (ans->analytic_ratio));
    }
  else
    {
      msperf_value *pts = msperf_value_new (MSPERF_VALUE_LIST);

      for (int k = 0; k < 2; k++)
        {
          msperf_value *pt = msperf_value_new (MSPERF_VALUE_MAP);

          msperf_value_map_set (pt, pl->b->axis_names[pl->outside], number_value (ans->x[k]));
          msperf_value_map_set (pt, "latency_us", msperf_value_new_double (ans->y[k]));
          msperf_value_map_set (pt, "work", msperf_value_new_double (ans->w[k]));
          msperf_value_list_append (pts, pt);
        }
      msperf_value_map_set (x, "axis", msperf_value_new_string (pl->b->axis_names[pl->outside]));
      msperf_value_map_set (x, "fit_points", pts);
      msperf_value_map_set (x, "slope_us_per_work", msperf_value_new_double (ans->slope));
    }
  if (ans->note)
    msperf_value_map_set (x, "note", msperf_value_new_string (ans->note));
  return x;
}

static void
fill_result (msperf_engine *e, const placement *pl, strategy used, const answer *ans, const char *kernel,
             const msperf_query *q, const char *base_reason, const char *fallback_from,
             const GPtrArray *reasons, msperf_result *r)
{
  int extra = pl->n_outside > 1 ? pl->n_outside - 1 : 0;
  g_autofree char *method = g_strdup_printf ("extrapolated_%s", strategy_names[used]);
  /* The policy's confidence table (engine/confidence.c) gives the base; each axis outside
   * beyond the first lowers it, never below the floor. */
  double base = msperf_confidence_value (e, method, NULL);
  double conf = MAX ((isnan (base) ? MSPERF_EXTRAP_CONFIDENCE : base)
                     - MSPERF_EXTRAP_CONFIDENCE_PER_AXIS * extra,
                     MSPERF_EXTRAP_CONFIDENCE_MIN);

  msperf_result_reset (r);
  msperf_result_set_method (r, method);
  msperf_result_set_hit (r, MSPERF_SOURCE_EXTRAPOLATED, ans->value, conf, kernel, method);
  msperf_result_detail_string (r, "method", method);
  msperf_result_detail_value (r, "extrapolation", extrapolation_value (pl, used, ans));
  msperf_result_detail_double (r, "confidence", conf);
  msperf_result_detail_string (r, "fallback_from", fallback_from);
  msperf_result_detail_string (r, "regime", pl->b->regime);
  msperf_result_detail_string (r, "query_mode", q->mode);
  msperf_result_detail_value (r, "fallback_reasons", msperf_value_new_string_list (reasons));
  msperf_result_detail_string (r, "interpolation_reason", "wrapper_interpolation_failed");
  if (base_reason)
    msperf_result_detail_string (r, "base_reason", base_reason);
  if (!g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN))
    g_debug ("op=%s query_mode=%s source=EXTRAPOLATED method=%s confidence=%.2f latency_us=%.6g "
             "kernel=%s", q->op ? q->op->name : "-", q->mode, method, conf, ans->value, kernel);
}

/* ------------------------------------------------------------------ the hook */

/* One bucket: TRUE with r EXTRAPOLATED; FALSE with *why (owned). */
static gboolean
extrapolate_bucket (msperf_engine *e, msperf_index *idx, const char *kernel,
                    const msperf_query *q, const msperf_point *t, const GPtrArray *buckets,
                    const msperf_index_bucket *b, const extrap_policy *p,
                    const char *base_reason, const char *fallback_from,
                    const GPtrArray *reasons, msperf_result *r, char **why)
{
  placement pl;
  answer ans = { 0 };
  strategy used = p->strategy;
  const char *failed = NULL;
  gboolean ok = FALSE;

  if (!place (e, kernel, b, t, &pl))
    {
      *why = g_strdup ("no_regime_data_matching_the_target");
      goto out;
    }
  *why = refusal (&pl, p);
  if (*why)
    goto out;
  /* marginal moves one axis; with several (or none) outside it is hold_analytic's case. */
  if (used == MARGINAL && pl.n_outside != 1)
    {
      used = HOLD_ANALYTIC;
      ans.note = "marginal_needs_one_axis_outside";
    }
  if (used == MARGINAL)
    {
      failed = marginal (e, idx, kernel, q, buckets, t, &pl, &ans);
      if (failed)
        {
          used = HOLD_ANALYTIC;
          ans.note = failed;
        }
    }
  if (used == HOLD_ANALYTIC)
    failed = hold_analytic (e, idx, kernel, q, buckets, t, &pl, &ans);
  if (failed)
    {
      *why = g_strdup (failed);
      goto out;
    }
  fill_result (e, &pl, used, &ans, kernel, q, base_reason, fallback_from, reasons, r);
  ok = TRUE;
out:
  if (pl.cand)
    g_array_unref (pl.cand);
  return ok;
}

gboolean
msperf_extrapolate (msperf_engine *e, msperf_index *idx, const char *kernel,
                    const msperf_query *q, const msperf_point *t, const GPtrArray *buckets,
                    const char *base_reason, const char *fallback_from,
                    const GPtrArray *reasons, msperf_result *r)
{
  extrap_policy p;
  g_autofree char *why = NULL;

  g_return_val_if_fail (e != NULL && kernel != NULL && q != NULL && t != NULL && r != NULL,
                        FALSE);
  if (idx == NULL || buckets == NULL || buckets->len == 0
      || !msperf_extrapolation_allowed (e, kernel))
    return FALSE;
  read_policy (e, kernel, &p);
  for (guint bi = 0; bi < buckets->len; bi++)
    {
      /* Each bucket alone: the stage's answers inside it, its data for the guards. */
      g_autoptr (GPtrArray) one = g_ptr_array_new ();

      g_ptr_array_add (one, g_ptr_array_index (buckets, bi));
      g_clear_pointer (&why, g_free);
      if (extrapolate_bucket (e, idx, kernel, q, t, one, g_ptr_array_index (buckets, bi), &p,
                              base_reason, fallback_from, reasons, r, &why))
        return TRUE;
    }
  /* Refused: the fallback's answer keeps why (details are kept by the roofline stage). */
  msperf_result_detail_string (r, "extrapolation_refused", why);
  return FALSE;
}
