/* msperf — the groups of the interpolation stage (see interpolate.h), over the buckets of a
 * candidate index (core/interp): every decision here follows reference §4.2–§4.7: the groups of
 * one bucket in the fixed order, per group the filter, boundaries, 1-D linear or the grid check
 * and griddata, the latency guard; per failed group one "<dim>d(<axes>): <status>" reason. The
 * stage that asks the module for its target and picks the index is interpolation_stage.c. */
#define G_LOG_DOMAIN "msperf"
#include <config.h>
#include <math.h>
#include <string.h>
#include "engine/shared.h"
#include "engine/interpolate.h"
#include "engine/confidence.h"
#include "engine/interp_details.h"


/* Highest group dimension: the Delaunay stage supports 2-D to 4-D. */
#define MAX_GROUP_DIM MSPERF_DELAUNAY_MAX_DIM
/* Built-in max_interpolation_dim when no policy sets one: 4-D groups are opt-in. */
#define DEFAULT_GROUP_DIM 3

/* A log-space group whose target or candidates have a selected coordinate <= 0. */
#define REASON_NON_POSITIVE_FOR_LOG "non_positive_axis_for_log"

struct msperf_kernel_policy {
  char *kernel;
  int max_dim;
  msperf_interp_aggregate_kind aggregate;
  gboolean sqrt_seq;
  gboolean log_space;                 /* space: log (sqrt_seq is then ignored) */
  int64_t seq_block;                  /* seq_block: N, 0 when unset */
  GStrv axes;                         /* axis names allowed to vary, or NULL = all */
  GStrv exact_fields;                 /* axis names pinned to the target, or NULL */
};
typedef msperf_kernel_policy kernel_policy;

/* One successful group attempt. */
typedef struct {
  double value;
  msperf_index_set *set;
  size_t n_idx;
  size_t idx[MSPERF_DELAUNAY_MAX_DIM + 1];     /* unique points used (bracket or simplex) */
  double weights[MSPERF_DELAUNAY_MAX_DIM + 1];
  gboolean have_weights;
  double x[MSPERF_DELAUNAY_MAX_DIM];           /* target, transformed */
  double lo[MSPERF_DELAUNAY_MAX_DIM], hi[MSPERF_DELAUNAY_MAX_DIM];
  msperf_index_set *owned;                     /* holdout: set without the target's points */
} outcome;

/* ------------------------------------------------------------------ policy */

const msperf_value *
msperf_interpolation_option (msperf_engine *e, const char *kernel, const char *key)
{
  const msperf_value *v = msperf_engine_kernel_option (e, "interpolation_policy", kernel, key);
  g_autofree char *path = NULL;

  if (v && v->kind != MSPERF_VALUE_NONE)
    return v;
  path = g_strdup_printf ("interpolation.%s", key);
  return msperf_engine_policy_value (e, path);
}

gboolean
msperf_interpolation_list_has (const msperf_value *list, const char *name)
{
  for (guint k = 0; list && list->kind == MSPERF_VALUE_LIST && k < list->items->len; k++)
    if (g_strcmp0 (msperf_value_get_string (g_ptr_array_index (list->items, k)), name) == 0)
      return TRUE;
  return FALSE;
}

/* The names of a LIST value (copied: the policy cached in an index must not point into the
 * engine's policy), NULL when the value is not a list. */
static GStrv
name_list (const msperf_value *v)
{
  GStrvBuilder *sb;
  GStrv out;

  if (v == NULL || v->kind != MSPERF_VALUE_LIST)
    return NULL;
  sb = g_strv_builder_new ();
  for (guint k = 0; k < v->items->len; k++)
    {
      const char *name = msperf_value_get_string (g_ptr_array_index (v->items, k));
      /* A non-string item matches no axis (as msperf_interpolation_list_has compares it). */
      if (name)
        g_strv_builder_add (sb, name);
    }
  out = g_strv_builder_end (sb);
  g_strv_builder_unref (sb);
  return out;
}

static void
kernel_policy_free (kernel_policy *kp)
{
  if (kp == NULL)
    return;
  g_free (kp->kernel);
  g_strfreev (kp->axes);
  g_strfreev (kp->exact_fields);
  g_free (kp);
}

/* One interpolation option of the kernel, as a string (NULL when absent or not one). */
static const char *
option_string (msperf_engine *e, const char *kernel, const char *key)
{
  return msperf_value_get_string (msperf_interpolation_option (e, kernel, key));
}

static kernel_policy *
read_kernel_policy (msperf_engine *e, const char *kernel)
{
  kernel_policy *kp = g_new0 (kernel_policy, 1);
  int64_t dim;
  const char *agg = option_string (e, kernel, "aggregate");
  const char *transform = option_string (e, kernel, "axis_transform");

  kp->kernel = g_strdup (kernel);
  kp->max_dim = msperf_value_get_int (msperf_interpolation_option (e, kernel,
                                                                   "max_interpolation_dim"), &dim)
                ? (int) CLAMP (dim, 0, MAX_GROUP_DIM) : DEFAULT_GROUP_DIM;
  kp->aggregate = g_strcmp0 (agg, "mean") == 0 ? MSPERF_INTERP_AGGREGATE_MEAN
                                                : MSPERF_INTERP_AGGREGATE_MEDIAN;
  kp->sqrt_seq = g_strcmp0 (transform, "sqrt_seq") == 0;
  kp->log_space = g_strcmp0 (option_string (e, kernel, "space"), "log") == 0;
  if (!msperf_value_get_int (msperf_interpolation_option (e, kernel, "seq_block"), &kp->seq_block)
      || kp->seq_block < 1)
    kp->seq_block = 0;
  kp->axes = name_list (msperf_interpolation_option (e, kernel, "axes"));
  kp->exact_fields = name_list (msperf_interpolation_option (e, kernel, "exact_fields"));
  return kp;
}

/* The kernel's policy, read once per index (the caller holds the shared lock): the index key holds the policy hash and the
 * engine's policy never changes, so it stays valid as long as the index. Transfer none. */
const msperf_kernel_policy *
msperf_interpolation_kernel_policy (msperf_engine *e, msperf_index *idx, const char *kernel)
{
  kernel_policy *kp = msperf_index_get_stage_data (idx);

  if (kp == NULL || strcmp (kp->kernel, kernel) != 0)
    {
      kp = read_kernel_policy (e, kernel);
      msperf_index_set_stage_data (idx, kp, (GDestroyNotify) kernel_policy_free);
    }
  return kp;
}

gboolean
msperf_interpolation_allows (msperf_engine *e, const char *mode)
{
  const msperf_value *enabled, *modes;
  const msperf_plugin *plugin;

  g_return_val_if_fail (e != NULL, FALSE);
  if (mode == NULL || e->shared->db == NULL)
    return FALSE;
  plugin = msperf_registry_lookup (e->shared->registry, mode, NULL);
  if (plugin != NULL && (plugin->flags & MSPERF_PLUGIN_OWN_INTERPOLATION))
    return FALSE;
  enabled = msperf_engine_policy_value (e, "interpolation.enabled");
  if (enabled && enabled->kind == MSPERF_VALUE_BOOL && !enabled->b)
    return FALSE;
  modes = msperf_engine_policy_value (e, "interpolation.modes");
  if (modes && modes->kind == MSPERF_VALUE_LIST && msperf_interpolation_list_has (modes, mode))
    return TRUE;
  /* A module interpolated by default joins the built-in list unless a policy set its own. */
  return e->shared->modes_builtin && plugin != NULL
         && (plugin->flags & MSPERF_PLUGIN_INTERPOLATE_BY_DEFAULT);
}

void
msperf_engine_index_stats (msperf_engine *e, msperf_index_stats *out)
{
  g_return_if_fail (e != NULL && out != NULL);
  msperf_shared_lock (e);
  if (e->shared->index_cache)
    msperf_index_cache_stats (e->shared->index_cache, out);
  else
    *out = (msperf_index_stats){ 0 };
  msperf_shared_unlock (e);
}

/* ------------------------------------------------------------------ values for details */

/* The untransformed coordinates of unique point u: the first filtered raw point whose
 * transformed coordinates are u's (aggregation keeps first occurrences, so that is the point
 * that stands for u). */
static void
untransformed (const msperf_index_set *s, size_t u, double *out)
{
  const double *c = &s->coords[u * (size_t) s->dim];
  gboolean any = FALSE;

  if (s->ucoords)
    {
      memcpy (out, &s->ucoords[u * (size_t) s->dim], (size_t) s->dim * sizeof (double));
      return;
    }
  for (int j = 0; j < s->dim; j++)
    {
      out[j] = c[j];
      any |= s->transformed[j];
    }
  if (!any)
    return;
  for (size_t i = 0; i < s->n_filtered; i++)
    {
      const double *r = &s->raw[i * (size_t) s->dim];
      gboolean same = TRUE;

      for (int j = 0; j < s->dim && same; j++)
        same = (s->transformed[j] ? sqrt (r[j]) : r[j]) == c[j];
      if (same)
        {
          memcpy (out, r, (size_t) s->dim * sizeof (double));
          return;
        }
    }
}

/* ------------------------------------------------------------------ one group */

/* find_boundary on each selected axis of the unique points (by binary search over the set's
 * sorted axis values: the same bracket, without a pass over every point per query). */
static const char *
boundary_reason (const msperf_index_set *s, const double *x, outcome *o)
{
  for (int j = 0; j < s->dim; j++)
    if (!msperf_index_set_boundary (s, j, x[j], &o->lo[j], &o->hi[j]))
      return msperf_interp_status_name (MSPERF_INTERP_OUTSIDE_AXIS_BOUNDARY);
  return NULL;
}

static gboolean
find_unique (const msperf_index_set *s, double v, size_t *u)
{
  for (size_t k = 0; k < s->n_unique; k++)
    if (s->coords[k] == v)
      {
        *u = k;
        return TRUE;
      }
  return FALSE;
}

static const char *
interp_1d (const msperf_index_set *s, outcome *o)
{
  size_t ulo, uhi;
  double y[2];

  if (!find_unique (s, o->lo[0], &ulo) || !find_unique (s, o->hi[0], &uhi))
    return MSPERF_INTERP_REASON_BOUNDARY_MISSING;
  y[0] = s->values[ulo];
  y[1] = s->values[uhi];
  if (s->log_space)
    /* numpy.exp (numpy.interp (log2 x, log2 xp, log fp)): the guard sees latencies. */
    o->value = exp (msperf_interp_linear (o->x[0], o->lo[0], s->log_values[ulo], o->hi[0],
                                          s->log_values[uhi]));
  else
    o->value = msperf_interp_linear (o->x[0], o->lo[0], y[0], o->hi[0], y[1]);
  if (!msperf_interp_latency_guard (o->value, y, 2))
    return msperf_interp_status_name (MSPERF_INTERP_LATENCY_GUARD_REJECTED);
  o->idx[0] = ulo;
  o->n_idx = 1;
  if (uhi != ulo)
    o->idx[o->n_idx++] = uhi;
  return NULL;
}

/* Grid-quality check (reference §4.4 step 5): dim + 1 unique points and two distinct values on
 * every selected axis (the latter known from the set's build). */
static gboolean
grid_ok (const msperf_index_set *s)
{
  return s->n_unique >= (size_t) s->dim + 1 && s->axes_vary;
}

static const char *
interp_nd (msperf_engine *e, msperf_index_cache *c, msperf_index_set *s, outcome *o)
{
  const msperf_delaunay *tri;
  msperf_interp_status st;
  int vertices[MSPERF_DELAUNAY_MAX_DIM + 1];

  if (!grid_ok (s))
    return MSPERF_INTERP_REASON_GRID_REJECTED;
  /* Built once and shared: under the shared lock. Once built it is never changed, so the
   * evaluation below runs unlocked, on every session at once. */
  msperf_shared_lock (e);
  tri = msperf_index_set_delaunay (c, s, &st, NULL);
  msperf_shared_unlock (e);
  if (tri == NULL)
    return msperf_interp_status_name (st);
  if (!msperf_interp_griddata_details (tri, s->log_space ? s->log_values : s->values, o->x,
                                       &o->value, vertices, o->weights))
    return msperf_interp_status_name (MSPERF_INTERP_OUTSIDE_CONVEX_HULL);
  if (s->log_space)
    o->value = exp (o->value);   /* numpy.exp (griddata (log2 points, log values, log2 xi)) */
  if (!msperf_interp_latency_guard (o->value, s->values, s->n_unique))
    return msperf_interp_status_name (MSPERF_INTERP_LATENCY_GUARD_REJECTED);
  o->n_idx = (size_t) s->dim + 1;
  for (size_t k = 0; k < o->n_idx; k++)
    o->idx[k] = (size_t) vertices[k];
  o->have_weights = TRUE;
  return NULL;
}

/* Target coordinate of bucket axis a (NAN + FALSE when unknown). */
static gboolean
target_value (const msperf_point *t, const msperf_index_bucket *b, size_t a, double *v)
{
  for (size_t k = 0; k < t->n_axes; k++)
    if (strcmp (t->axis_names[k], b->axis_names[a]) == 0)
      {
        *v = t->axis_known[k] ? t->axes[k] : NAN;
        return t->axis_known[k];
      }
  *v = NAN;
  return FALSE;
}

/* msperf holdout with seq_block: the held-out point can be in the set of the rounded target
 * only when the two agree on every non-selected axis (else its seq differs from the set's). */
static gboolean
held_in_set (const msperf_point *t, const msperf_point *held, const msperf_index_bucket *b,
             const size_t *axes, int dim)
{
  for (size_t a = 0; a < b->n_axes; a++)
    {
      double u, v;
      gboolean selected = FALSE, ku, kv;

      for (int j = 0; j < dim; j++)
        selected |= axes[j] == a;
      ku = target_value (t, b, a, &u);
      kv = target_value (held, b, a, &v);
      if (!selected && (ku != kv || (ku && u != v)))
        return FALSE;
    }
  return TRUE;
}

/* Tries one axis group of one bucket: NULL on success (o filled), else the status. held is
 * the held-out point (msperf holdout; NULL otherwise): t itself, or t before seq_block. */
static const char *
try_group (msperf_engine *e, msperf_index_cache *c, msperf_index_bucket *b, const msperf_point *t,
           const size_t *axes, int dim, const kernel_policy *kp, const msperf_point *held,
           outcome *o)
{
  msperf_index_set *s;
  const char *why;

  memset (o, 0, sizeof *o);
  if (dim > kp->max_dim)
    return MSPERF_INTERP_REASON_DIM_DISABLED;
  for (int j = 0; j < dim; j++)
    {
      double v;

      if (!target_value (t, b, axes[j], &v))
        return MSPERF_INTERP_REASON_MISSING_AXIS;
      if (kp->log_space)
        {
          /* Log space wins over sqrt_seq (doc/decisions.md): log2 (sqrt x) is affine in
           * log2 x, but Delaunay is not affine-invariant, so only one of them can hold. */
          if (!(v > 0.0))
            return REASON_NON_POSITIVE_FOR_LOG;
          o->x[j] = log2 (v);
        }
      else
        o->x[j] = kp->sqrt_seq && strcmp (b->axis_names[axes[j]], "seq") == 0 ? sqrt (v) : v;
    }
  /* The set is built on first use and cached in the shared bucket; once built it is read
   * only, until msperf_engine_drop_tables (not thread-safe by contract). */
  msperf_shared_lock (e);
  s = msperf_index_bucket_set (c, b, axes, dim, t, kp->aggregate,
                               kp->log_space ? MSPERF_INDEX_LOG
                               : kp->sqrt_seq ? MSPERF_INDEX_SQRT_SEQ : MSPERF_INDEX_LINEAR);
  msperf_shared_unlock (e);
  if (held && held_in_set (t, held, b, axes, dim))
    {
      /* Every point at the held-out coordinate leaves (msperf holdout); o->owned is freed by
       * the caller. */
      double raw[MSPERF_DELAUNAY_MAX_DIM];

      for (int j = 0; j < dim; j++)
        target_value (held, b, axes[j], &raw[j]);
      s = o->owned = msperf_index_set_without (s, raw, kp->aggregate);
    }
  o->set = s;
  if (s->n_filtered < 2)
    return MSPERF_INTERP_REASON_INSUFFICIENT;
  if (s->non_positive)
    return REASON_NON_POSITIVE_FOR_LOG;
  why = boundary_reason (s, o->x, o);
  if (why)
    return why;
  return dim == 1 ? interp_1d (s, o) : interp_nd (e, c, s, o);
}

/* The target's known "seq" axis (index *k when k is not NULL). */
static gboolean
point_seq_at (const msperf_point *t, double *v, size_t *k)
{
  for (size_t a = 0; a < t->n_axes; a++)
    if (t->axis_known[a] && strcmp (t->axis_names[a], "seq") == 0)
      {
        *v = t->axes[a];
        if (k)
          *k = a;
        return TRUE;
      }
  return FALSE;
}

static gboolean
point_seq (const msperf_point *t, double *v)
{
  return point_seq_at (t, v, NULL);
}

/* seq_block: N — *out is t with seq rounded up to a multiple of N (FlashAttention tiles the
 * queries in blocks); a shallow copy that shares t's strings, so never cleared. FALSE when
 * there is nothing to round (no block, no finite seq > 0, already a multiple). */
static gboolean
round_seq (const msperf_point *t, int64_t block, msperf_point *out)
{
  double v, up;
  size_t k;

  if (block < 1 || !point_seq_at (t, &v, &k) || !(v > 0.0) || !(v < 9007199254740992.0))
    return FALSE;
  up = ceil (v / (double) block) * (double) block;
  if (up == v)
    return FALSE;
  *out = *t;
  out->axes[k] = up;
  return TRUE;
}

/* ------------------------------------------------------------------ the result */

typedef struct {
  msperf_engine *e;
  const msperf_query *q;
  const char *kernel;
  const msperf_index_bucket *b;
  const msperf_point *t;
  const size_t *axes;
  int dim;
  const kernel_policy *kp;
  const outcome *o;
  GPtrArray *reasons;
  const char *base_reason;
  const char *fallback_from;
  gboolean holdout;
  const msperf_point *seq_from;       /* seq_block: the unrounded target when t is rounded */
  msperf_point rounded;               /* seq_block: shallow copy of the target, seq rounded */
} success;

/* The target's coordinates and exact fields, the selected axes and their boundaries in the
 * coordinates the user wrote, and the candidate points, into d. */
static void
describe_answer (const success *w, msperf_interp_details *d)
{
  const msperf_index_bucket *b = w->b;
  const msperf_index_set *s = w->o->set;

  d->dim = w->dim;
  d->n_axes = b->n_axes;
  for (size_t a = 0; a < b->n_axes; a++)
    {
      d->axis_names[a] = b->axis_names[a];
      target_value (w->t, b, a, &d->target[a]);
    }
  for (int j = 0; j < w->dim; j++)
    {
      d->axes[j] = w->axes[j];
      d->lo[j] = w->o->lo[j];
      d->hi[j] = w->o->hi[j];
      if (s->transformed[j] || s->log_space)
        {
          /* Boundaries in the coordinates the user wrote: the transform is monotone, so the
           * untransformed bracket holds the same points (the set's sorted raw coordinates). */
          msperf_index_set_raw_boundary (s, j, d->target[w->axes[j]], &d->lo[j], &d->hi[j]);
        }
    }
  d->n_points = MIN (w->o->n_idx, (size_t) MSPERF_INTERP_DETAILS_MAX_POINTS);
  for (size_t k = 0; k < d->n_points; k++)
    {
      size_t u = w->o->idx[k];

      untransformed (s, u, d->point_axes[k]);
      d->point_latency[k] = s->values[u];
      d->point_weight[k] = w->o->weights[k];
    }
  d->have_weights = w->o->have_weights;
  d->n_fields = w->t->n_fields;
  for (size_t f = 0; f < w->t->n_fields; f++)
    {
      d->field_names[f] = w->t->field_names[f];
      d->fields[f] = w->t->fields[f];
    }
}

static void
fill_result (const success *w, msperf_result *r)
{
  const msperf_index_set *s = w->o->set;
  msperf_interp_details d = { 0 };
  gboolean transformed = FALSE;
  double seq_from;
  char method[64], rule[64];

  for (int j = 0; j < w->dim; j++)
    transformed |= s->transformed[j];
  /* joined by hand, not printf: once an interpolated answer */
  g_strlcpy (method, w->dim == 1 ? "linear_1d" : "griddata_linear", sizeof method);
  g_strlcpy (rule, w->dim == 1 ? "interpolated_1d_linear" : "interpolated_0d_griddata_linear",
             sizeof rule);
  if (w->dim > 1)
    rule[strlen ("interpolated_")] = (char) ('0' + w->dim);  /* dim <= MAX_GROUP_DIM < 10 */
  if (transformed)
    {
      g_strlcat (method, "_sqrt", sizeof method);
      g_strlcat (rule, "_sqrt", sizeof rule);
    }
  if (s->log_space)
    {
      g_strlcat (method, "_log", sizeof method);
      g_strlcat (rule, "_log", sizeof rule);
    }

  describe_answer (w, &d);
  d.kernel = w->kernel;
  d.method = method;
  d.candidate_count = (int64_t) s->n_unique;
  d.raw_count = (int64_t) s->counts.raw;
  d.aggregated_count = (int64_t) s->counts.aggregated;
  d.dropped_count = (int64_t) s->counts.dropped;
  d.aggregate = w->kp->aggregate == MSPERF_INTERP_AGGREGATE_MEAN ? "mean" : "median";
  /* Display only, by dimension, lowered by an axis transform (reference §4.4 step 6, seed 000
   * §5.6): the policy's confidence table (engine/confidence.c). */
  d.confidence = msperf_confidence_interpolated (w->e, w->dim, transformed);
  d.fallback_from = w->fallback_from;
  d.regime = w->b->regime;
  d.regime_group = w->b->group;
  d.transformed = transformed;
  d.log_space = s->log_space;
  d.sqrt_seq_ignored = s->log_space && w->kp->sqrt_seq;
  d.seq_block = w->kp->seq_block;
  d.seq_rounded = w->seq_from && point_seq (w->seq_from, &seq_from);
  d.seq_rounded_from = d.seq_rounded ? seq_from : NAN;
  d.query_mode = w->q->mode;
  d.n_reasons = w->reasons ? w->reasons->len : 0;
  d.reasons = w->reasons ? (const char *const *) w->reasons->pdata : NULL;
  d.base_reason = w->base_reason;

  msperf_result_reset (r);
  msperf_result_set_method (r, method);
  msperf_result_set_hit (r, MSPERF_SOURCE_INTERPOLATED, w->o->value, d.confidence, w->kernel,
                         rule);
  msperf_result_set_interpolation_dim (r, w->dim);
  /* The details are the record, written out only when read or printed. */
  msperf_interp_details_defer (r, &d);

  /* Not formatted at all unless a debug message would be written: the hot path. */
  if (!g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN))
    g_debug ("op=%s query_mode=%s source=INTERPOLATED dim=%d method=%s confidence=%.2f "
             "latency_us=%.6g kernel=%s candidates=%zu",
             w->q->op ? w->q->op->name : "-", w->q->mode, w->dim, method, d.confidence,
             w->o->value, w->kernel, s->n_unique);
}

/* ------------------------------------------------------------------ the stage */

/* Bucket axes that may vary under the policy, in priority order. */
static size_t
free_axes (const msperf_index_bucket *b, const kernel_policy *kp, size_t *out)
{
  size_t n = 0;

  for (size_t a = 0; a < b->n_axes; a++)
    {
      if (kp->axes && !g_strv_contains ((const char *const *) kp->axes, b->axis_names[a]))
        continue;
      if (kp->exact_fields
          && g_strv_contains ((const char *const *) kp->exact_fields, b->axis_names[a]))
        continue;
      out[n++] = a;
    }
  return n;
}

/* Appends s to *at (room reserved by the caller). */
static void
put (char **at, const char *s)
{
  size_t n = strlen (s);

  memcpy (*at, s, n);
  *at += n;
}

static void
add_reason (GPtrArray *reasons, const msperf_index_bucket *b, const size_t *axes, int dim,
            const char *why)
{
  /* "<dim>d(<axis>,…): <why>", measured then copied: one allocation, no printf (six of these
   * per 3-D query) */
  size_t n = strlen ("0d(): ") + strlen (why) + 1;
  char *text, *at;

  for (int j = 0; j < dim; j++)
    n += strlen (b->axis_names[axes[j]]) + (j > 0);
  at = text = g_malloc (n);
  *at++ = (char) ('0' + dim);
  put (&at, "d(");
  for (int j = 0; j < dim; j++)
    {
      if (j)
        *at++ = ',';
      put (&at, b->axis_names[axes[j]]);
    }
  put (&at, "): ");
  put (&at, why);
  *at = '\0';
  g_ptr_array_add (reasons, text);
}

/* try_group with seq_block: first with the target's seq rounded up to the block, and when
 * that fails (outside the boundary or the hull, or any other reason), with the seq as given.
 * On success with the rounded seq, w->t is the rounded copy w->rounded and w->seq_from the
 * caller's target (restored by the caller after fill_result). */
static const char *
try_group_blocked (msperf_engine *e, msperf_index_bucket *b, const size_t *axes, int dim,
                   success *w, outcome *o)
{
  const char *why;

  if (round_seq (w->t, w->kp->seq_block, &w->rounded))
    {
      why = try_group (e, e->shared->index_cache, b, &w->rounded, axes, dim, w->kp,
                       w->holdout ? w->t : NULL, o);
      if (why == NULL)
        {
          w->seq_from = w->t;
          w->t = &w->rounded;
          return NULL;
        }
      msperf_index_set_free (o->owned);
      o->owned = NULL;
    }
  return try_group (e, e->shared->index_cache, b, w->t, axes, dim, w->kp, w->holdout ? w->t : NULL,
                    o);
}

/* Every group of dimension dim over the free axes, in combination order (itertools), for
 * bucket b: TRUE at the first success (r filled). */
static gboolean
try_dim (msperf_engine *e, msperf_index_bucket *b, const size_t *free, size_t n_free, int dim,
         success *w, msperf_result *r)
{
  size_t pick[MAX_GROUP_DIM];

  if ((size_t) dim > n_free)
    return FALSE;
  for (int j = 0; j < dim; j++)
    pick[j] = (size_t) j;
  for (;;)
    {
      size_t axes[MAX_GROUP_DIM];
      outcome o;
      const char *why;
      int j;

      for (j = 0; j < dim; j++)
        axes[j] = free[pick[j]];
      why = try_group_blocked (e, b, axes, dim, w, &o);
      if (why == NULL)
        {
          w->b = b;
          w->axes = axes;
          w->dim = dim;
          w->o = &o;
          fill_result (w, r);
          msperf_index_set_free (o.owned);
          w->t = w->seq_from ? w->seq_from : w->t;
          w->seq_from = NULL;
          return TRUE;
        }
      msperf_index_set_free (o.owned);
      add_reason (w->reasons, b, axes, dim, why);
      /* next combination */
      for (j = dim - 1; j >= 0 && pick[j] == n_free - (size_t) dim + (size_t) j; j--)
        ;
      if (j < 0)
        return FALSE;
      pick[j]++;
      for (int k = j + 1; k < dim; k++)
        pick[k] = pick[k - 1] + 1;
    }
}

gboolean
msperf_interpolate_buckets (msperf_engine *e, const msperf_kernel_policy *kp, const char *kernel,
                            const msperf_query *q, const GPtrArray *buckets,
                            const msperf_point *t, const char *base_reason,
                            const char *fallback_from, GPtrArray *reasons, msperf_result *r)
{
  g_return_val_if_fail (e != NULL && kp != NULL && kernel != NULL && q != NULL && t != NULL
                        && reasons != NULL && r != NULL, FALSE);
  for (guint bi = 0; buckets && bi < buckets->len; bi++)
    {
      msperf_index_bucket *b = g_ptr_array_index (buckets, bi);
      size_t free[MSPERF_POINT_MAX_AXES];
      size_t n_free = free_axes (b, kp, free);
      success w = { .e = e, .q = q, .kernel = kernel, .t = t, .kp = kp, .reasons = reasons,
                    .base_reason = base_reason, .fallback_from = fallback_from };

      for (int dim = 1; dim <= MAX (DEFAULT_GROUP_DIM, kp->max_dim); dim++)
        if (try_dim (e, b, free, n_free, dim, &w, r))
          return TRUE;
    }
  return FALSE;
}

gboolean
msperf_interpolate_holdout (msperf_engine *e, msperf_index *index, const char *kernel,
                            const char *mode, const msperf_point *t, msperf_result *r)
{
  const char *one[] = { kernel, NULL };
  msperf_query q = { 0 };
  const GPtrArray *buckets;
  g_autoptr (GPtrArray) reasons = g_ptr_array_new_with_free_func (g_free);
  const kernel_policy *kp;

  g_return_val_if_fail (e != NULL && index != NULL && kernel != NULL && mode != NULL
                        && t != NULL && r != NULL, FALSE);
  if (e->shared->index_cache == NULL)
    e->shared->index_cache = msperf_index_cache_new ();
  q.engine = e;
  q.mode = mode;
  q.kernel_types = one;
  q.tc_input_count = t->input_limit;
  msperf_result_reset (r);
  kp = msperf_interpolation_kernel_policy (e, index, kernel);
  buckets = msperf_index_buckets (index, t->regime->str);
  /* The same bucket and group order as run_stage, with the target's points left out. */
  for (guint bi = 0; buckets && bi < buckets->len; bi++)
    {
      msperf_index_bucket *b = g_ptr_array_index (buckets, bi);
      size_t free[MSPERF_POINT_MAX_AXES];
      size_t n_free = free_axes (b, kp, free);
      success w = { .e = e, .q = &q, .kernel = kernel, .t = t, .kp = kp, .reasons = reasons,
                    .fallback_from = "holdout", .holdout = TRUE };

      for (int dim = 1; dim <= MAX (DEFAULT_GROUP_DIM, kp->max_dim); dim++)
        if (try_dim (e, b, free, n_free, dim, &w, r))
          return TRUE;
    }
  msperf_result_set_miss (r, buckets ? "wrapper_interpolation_failed" : "regime_key_unmatched");
  msperf_result_detail_value (r, "fallback_reasons", msperf_value_new_string_list (reasons));
  return FALSE;
}

gboolean
msperf_interpolate_at (msperf_engine *e, msperf_index *index, const char *kernel,
                       const msperf_query *q, const GPtrArray *buckets, const msperf_point *t,
                       GPtrArray *reasons, msperf_result *r)
{
  const kernel_policy *kp;

  g_return_val_if_fail (e != NULL && index != NULL && kernel != NULL && q != NULL && t != NULL
                        && reasons != NULL && r != NULL, FALSE);
  msperf_shared_lock (e);
  kp = msperf_interpolation_kernel_policy (e, index, kernel);
  msperf_shared_unlock (e);
  for (guint bi = 0; buckets && bi < buckets->len; bi++)
    {
      msperf_index_bucket *b = g_ptr_array_index (buckets, bi);
      size_t free[MSPERF_POINT_MAX_AXES];
      size_t n_free = free_axes (b, kp, free);
      success w = { .e = e, .q = q, .kernel = kernel, .t = t, .kp = kp, .reasons = reasons,
                    .fallback_from = "extrapolation" };

      for (int dim = 1; dim <= MAX_GROUP_DIM; dim++)
        if (try_dim (e, b, free, n_free, dim, &w, r))
          return TRUE;
    }
  return FALSE;
}
