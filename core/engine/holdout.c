/* msperf — `msperf holdout` (see holdout.h): leave-one-coordinate-out or a seeded fraction of
 * coordinates over each kernel's candidate index, statistics per kernel and per dimension, and
 * the md / json / html report. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/details.h>
#include "engine/confidence.h"
#include "engine/shared.h"
#include "engine/dispatch.h"
#include "engine/holdout_extrap.h"
#include "engine/interpolate.h"
#include "engine/interpolation_stage.h"
#include "engine/registry.h"
#include <msperf/holdout.h>

#define MAX_DIM MSPERF_DELAUNAY_MAX_DIM

/* One kernel to hold out: the module whose describe_row builds its index. */
typedef struct {
  char *kernel;
  const char *mode;             /* static or owned by the mapping entry */
  int64_t tc_input_count;
} kernel_job;

/* One coordinate of an index: the bucket and point that first had it, and its rows. */
typedef struct {
  msperf_index_bucket *bucket;
  size_t point;
  GArray *latencies;            /* double */
} coordinate;

static void
coordinate_free (gpointer p)
{
  coordinate *c = p;

  g_array_unref (c->latencies);
  g_free (c);
}

static void
sample_free (gpointer p)
{
  msperf_holdout_sample *s = p;

  g_free (s->kernel);
  g_free (s->regime);
  for (size_t k = 0; k < s->n_axes; k++)
    g_free (s->axis_names[k]);
  for (size_t k = 0; k < s->n_fields; k++)
    g_free (s->field_names[k]);
  g_free (s->source);
  g_free (s->method);
  g_free (s->reason);
  g_free (s->method_key);
  g_free (s);
}

static void
stats_free (gpointer p)
{
  msperf_holdout_stats *s = p;

  g_free (s->kernel);
  g_free (s->method);
  g_free (s);
}

static void
confidence_free (gpointer p)
{
  msperf_holdout_confidence *c = p;

  g_free (c->key);
  g_free (c);
}

void
msperf_holdout_report_free (msperf_holdout_report *r)
{
  if (r == NULL)
    return;
  g_free (r->database);
  g_free (r->policy_hash);
  g_ptr_array_unref (r->samples);
  g_ptr_array_unref (r->stats);
  g_ptr_array_unref (r->method_stats);
  g_ptr_array_unref (r->confidence);
  g_free (r);
}

/* ------------------------------------------------------------------ statistics */

double
msperf_holdout_quantile (const double *sorted, size_t n, double q)
{
  double pos, frac;
  size_t lo;

  if (n == 0)
    return NAN;
  pos = q * (double) (n - 1);
  lo = (size_t) floor (pos);
  if (lo >= n - 1)
    return sorted[n - 1];
  frac = pos - (double) lo;
  /* numpy's linear method: lerp(a, b, t) as a + (b − a)·t. */
  return sorted[lo] + (sorted[lo + 1] - sorted[lo]) * frac;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* 4-D groups are opt-in (max_interpolation_dim: 4): their row appears only when one answered,
 * so reports of the default policy keep rows 1..3. */
static gboolean
any_at_dim (const GPtrArray *samples, guint from, guint to, int dim)
{
  for (guint k = from; k < to; k++)
    {
      const msperf_holdout_sample *s = g_ptr_array_index (samples, k);

      if (s->interpolated && s->dim == dim)
        return TRUE;
    }
  return FALSE;
}

/* Statistics of the samples [from, to) of one kernel that dim answered (0: any), or with
 * method set, that method answered. */
static msperf_holdout_stats *
compute_stats (const GPtrArray *samples, guint from, guint to, const char *kernel, int dim,
               const char *method)
{
  msperf_holdout_stats *st = g_new0 (msperf_holdout_stats, 1);
  g_autoptr (GArray) errs = g_array_new (FALSE, FALSE, sizeof (double));

  st->kernel = g_strdup (kernel);
  st->dim = dim;
  st->method = g_strdup (method);
  st->samples = to - from;
  st->confidence_min = st->confidence_max = NAN;
  for (guint k = from; k < to; k++)
    {
      const msperf_holdout_sample *s = g_ptr_array_index (samples, k);

      if (!s->interpolated || (method ? g_strcmp0 (s->method_key, method) != 0
                                      : dim != 0 && s->dim != dim))
        continue;
      g_array_append_val (errs, s->rel_error);
      if (!(s->confidence >= st->confidence_min))
        st->confidence_min = s->confidence;
      if (!(s->confidence <= st->confidence_max))
        st->confidence_max = s->confidence;
    }
  st->recovered = errs->len;
  st->coverage = st->samples ? (double) st->recovered / (double) st->samples : NAN;
  if (errs->len > 1) /* qsort on an empty array passes NULL: undefined behaviour */
    qsort (errs->data, errs->len, sizeof (double), cmp_double);
  st->median_rel = msperf_holdout_quantile ((double *) (void *) errs->data, errs->len, 0.5);
  st->p90_rel = msperf_holdout_quantile ((double *) (void *) errs->data, errs->len, 0.9);
  st->max_rel = errs->len ? g_array_index (errs, double, errs->len - 1) : NAN;
  return st;
}

/* Method rows: interpolation by dimension first, then anything else (extrapolated_…). */
static int
method_rank (const msperf_holdout_sample *s)
{
  return g_str_has_prefix (s->method_key, "linear_1d") || g_str_has_prefix (s->method_key,
                                                                            "griddata_")
           ? s->dim : 100;
}

static gint
cmp_method (gconstpointer a, gconstpointer b)
{
  const msperf_holdout_sample *x = *(const msperf_holdout_sample *const *) a;
  const msperf_holdout_sample *y = *(const msperf_holdout_sample *const *) b;
  int rx = method_rank (x), ry = method_rank (y);

  return rx != ry ? (rx > ry) - (rx < ry) : strcmp (x->method_key, y->method_key);
}

/* One statistics row per method that answered a sample of the kernel's [from, end). */
static void
add_method_stats (msperf_holdout_report *rep, guint from, const char *kernel)
{
  g_autoptr (GPtrArray) firsts = g_ptr_array_new ();   /* one sample per method_key */
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint k = from; k < rep->samples->len; k++)
    {
      msperf_holdout_sample *s = g_ptr_array_index (rep->samples, k);

      if (s->method_key && g_hash_table_add (seen, s->method_key))
        g_ptr_array_add (firsts, s);
    }
  g_ptr_array_sort (firsts, cmp_method);
  for (guint k = 0; k < firsts->len; k++)
    {
      const msperf_holdout_sample *s = g_ptr_array_index (firsts, k);

      g_ptr_array_add (rep->method_stats,
                       compute_stats (rep->samples, from, rep->samples->len, kernel, s->dim,
                                      s->method_key));
    }
}

/* The confidence table in effect, every built-in key in documentation order. */
static GPtrArray *
confidence_table (msperf_engine *e)
{
  size_t n;
  const msperf_confidence_entry *d = msperf_confidence_defaults (&n);
  GPtrArray *t = g_ptr_array_new_with_free_func (confidence_free);

  for (size_t k = 0; k < n; k++)
    {
      msperf_holdout_confidence *c = g_new0 (msperf_holdout_confidence, 1);

      c->key = g_strdup (d[k].key);
      c->value = msperf_confidence_value (e, d[k].key, &c->from_policy);
      g_ptr_array_add (t, c);
    }
  return t;
}

/* ------------------------------------------------------------------ kernels */

/* The module an entry's kernels answer through (dispatch's rule); NULL = none, or a module
 * that interpolates by itself. */
static const char *
entry_mode (msperf_engine *e, const msperf_mapping_entry *entry)
{
  const msperf_plugin *p;
  const char *mode;

  if (entry->composite)
    return NULL;
  mode = msperf_engine_resolve_mode (e, entry, NULL);
  p = mode ? msperf_registry_lookup (e->shared->registry, mode, NULL) : NULL;
  if (p != NULL && (p->flags & MSPERF_PLUGIN_OWN_INTERPOLATION))
    return NULL;
  return mode;
}

static void
job_free (gpointer p)
{
  kernel_job *j = p;

  g_free (j->kernel);
  g_free (j);
}

/* Every kernel of the mapping with an interpolating mode, first entry first; restricted to
 * wanted (in its order) when given. */
static GPtrArray *
collect_jobs (msperf_engine *e, const char *const *wanted, GError **error)
{
  const GPtrArray *entries = msperf_database_entries (e->shared->db);
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (job_free);
  GPtrArray *jobs;

  for (guint k = 0; entries && k < entries->len; k++)
    {
      const msperf_mapping_entry *entry = g_ptr_array_index (entries, k);
      const char *mode = entry_mode (e, entry);

      if (mode == NULL || !msperf_interpolation_allows (e, mode))
        continue;
      for (char **kt = entry->kernel_types; kt && *kt; kt++)
        {
          gboolean seen = FALSE;
          kernel_job *j;

          for (guint i = 0; i < all->len && !seen; i++)
            seen = strcmp (((kernel_job *) g_ptr_array_index (all, i))->kernel, *kt) == 0;
          if (seen)
            continue;
          j = g_new0 (kernel_job, 1);
          j->kernel = g_strdup (*kt);
          j->mode = mode;
          j->tc_input_count = entry->tc_input_count;
          g_ptr_array_add (all, j);
        }
    }
  if (wanted == NULL || wanted[0] == NULL)
    return g_steal_pointer (&all);
  jobs = g_ptr_array_new_with_free_func (job_free);
  for (const char *const *w = wanted; *w; w++)
    {
      kernel_job *found = NULL;

      for (guint i = 0; i < all->len && !found; i++)
        if (strcmp (((kernel_job *) g_ptr_array_index (all, i))->kernel, *w) == 0)
          found = g_ptr_array_index (all, i);
      if (found == NULL)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND,
                       "%s: no mapping entry sends this kernel to a query mode the policy "
                       "interpolates (interpolation.modes)", *w);
          g_ptr_array_unref (jobs);
          return NULL;
        }
      g_ptr_array_add (jobs, g_memdup2 (found, sizeof *found));
      ((kernel_job *) g_ptr_array_index (jobs, jobs->len - 1))->kernel = g_strdup (found->kernel);
    }
  return jobs;
}

/* ------------------------------------------------------------------ coordinates */

static char *
coordinate_key (const msperf_index_bucket *b, size_t i)
{
  GString *s = g_string_new (b->regime);
  const double *c = &g_array_index (b->coords, double, i * b->n_axes);
  const guint8 *known = &g_array_index (b->known, guint8, i * b->n_axes);

  for (size_t a = 0; a < b->n_axes; a++)
    {
      if (known[a])
        g_string_append_printf (s, "\x1f%s=%a", b->axis_names[a], c[a]);
      else
        g_string_append_printf (s, "\x1f%s=?", b->axis_names[a]);
    }
  for (size_t f = 0; f < b->n_fields; f++)
    g_string_append_printf (s, "\x1f%s=%" G_GINT64_FORMAT, b->field_names[f],
                            g_array_index (b->fields, int64_t, i * b->n_fields + f));
  return g_string_free (s, FALSE);
}

/* The distinct coordinates of an index, in first-row order of their buckets. */
static GPtrArray *
collect_coordinates (msperf_index *idx)
{
  const GPtrArray *buckets = msperf_index_all_buckets (idx);
  GPtrArray *coords = g_ptr_array_new_with_free_func (coordinate_free);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint bi = 0; buckets && bi < buckets->len; bi++)
    {
      msperf_index_bucket *b = g_ptr_array_index (buckets, bi);

      for (size_t i = 0; i < b->n; i++)
        {
          char *key = coordinate_key (b, i);
          coordinate *c = g_hash_table_lookup (seen, key);

          if (c == NULL)
            {
              c = g_new0 (coordinate, 1);
              c->bucket = b;
              c->point = i;
              c->latencies = g_array_new (FALSE, FALSE, sizeof (double));
              g_ptr_array_add (coords, c);
              g_hash_table_insert (seen, key, c);
            }
          else
            g_free (key);
          g_array_append_val (c->latencies, g_array_index (b->latency, double, i));
        }
    }
  return coords;
}

static gint
cmp_guint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return (x > y) - (x < y);
}

/* Which coordinates to hold out: all, or ceil(fraction·n) (at least 1) drawn by a partial
 * Fisher–Yates shuffle, returned in index order. */
static GArray *
choose (size_t n, const msperf_holdout_options *o, GRand *rng)
{
  GArray *pick = g_array_sized_new (FALSE, FALSE, sizeof (guint), (guint) n);
  size_t k;

  for (guint i = 0; i < n; i++)
    g_array_append_val (pick, i);
  if (o->leave_one_out || o->fraction <= 0.0 || o->fraction >= 1.0 || n == 0)
    return pick;
  k = (size_t) ceil (o->fraction * (double) n);
  k = CLAMP (k, 1, n);
  for (size_t i = 0; i < k; i++)
    {
      guint j = (guint) g_rand_int_range (rng, (gint32) i, (gint32) n);
      guint tmp = g_array_index (pick, guint, i);

      g_array_index (pick, guint, i) = g_array_index (pick, guint, j);
      g_array_index (pick, guint, j) = tmp;
    }
  g_array_set_size (pick, (guint) k);
  g_array_sort (pick, cmp_guint);
  return pick;
}

/* ------------------------------------------------------------------ one sample */

static gboolean
aggregate_mean (msperf_engine *e, const char *kernel)
{
  const msperf_value *v = msperf_engine_kernel_option (e, "interpolation_policy", kernel,
                                                       "aggregate");

  if (v == NULL || v->kind == MSPERF_VALUE_NONE)
    v = msperf_engine_policy_value (e, "interpolation.aggregate");
  return g_strcmp0 (msperf_value_get_string (v), "mean") == 0;
}

static char *
join_reasons (const msperf_result *r)
{
  const msperf_value *list = msperf_value_lookup (msperf_result_details (r), "fallback_reasons");
  GString *s = g_string_new (r->miss_reason ? r->miss_reason : "");

  for (guint k = 0; list && list->kind == MSPERF_VALUE_LIST && k < list->items->len; k++)
    {
      const char *text = msperf_value_get_string (g_ptr_array_index (list->items, k));

      if (text)
        g_string_append_printf (s, "%s%s", s->len ? "; " : "", text);
    }
  return g_string_free (s, FALSE);
}

/* The method row of an answer: the interpolation's confidence-table key (so the row and its
 * confidence label name the same entry), "_sqrt" after an axis transform; any other method
 * (extrapolation) as it is. */
static char *
method_key (const msperf_result *r)
{
  const char *m = r->method ? r->method : "unknown";
  char *key;

  if (!g_str_has_prefix (m, "linear_1d") && !g_str_has_prefix (m, "griddata_linear"))
    return g_strdup (m);
  key = msperf_confidence_key ("interpolated", r->interpolation_dim);
  if (g_str_has_suffix (m, "_sqrt"))
    {
      char *t = g_strconcat (key, "_sqrt", NULL);

      g_free (key);
      key = t;
    }
  return key;
}

static msperf_holdout_sample *
run_sample (msperf_engine *e, msperf_index *idx, const kernel_job *job, const coordinate *c,
            gboolean mean)
{
  const msperf_index_bucket *b = c->bucket;
  msperf_holdout_sample *s = g_new0 (msperf_holdout_sample, 1);
  g_autoptr (msperf_result) r = msperf_result_new ();
  g_autofree double *lat = g_memdup2 (c->latencies->data, c->latencies->len * sizeof (double));
  msperf_point t;
  int64_t count;

  s->kernel = g_strdup (job->kernel);
  s->regime = g_strdup (b->regime);
  s->line = g_array_index (b->lines, guint, c->point);
  s->n_rows = c->latencies->len;
  s->measured_us = mean ? msperf_interp_mean (lat, c->latencies->len)
                        : msperf_interp_median (lat, c->latencies->len);

  /* The target is the coordinate as its rows were described. */
  msperf_point_init (&t);
  g_string_assign (t.regime, b->regime);
  t.input_limit = job->tc_input_count;
  s->n_axes = b->n_axes;
  for (size_t a = 0; a < b->n_axes; a++)
    {
      gboolean known = g_array_index (b->known, guint8, c->point * b->n_axes + a) != 0;
      double v = g_array_index (b->coords, double, c->point * b->n_axes + a);

      t.axis_names[a] = b->axis_names[a];
      t.axes[a] = known ? v : NAN;
      t.axis_known[a] = known;
      s->axis_names[a] = g_strdup (b->axis_names[a]);
      s->axes[a] = known ? v : NAN;
    }
  t.n_axes = b->n_axes;
  s->n_fields = b->n_fields;
  for (size_t f = 0; f < b->n_fields; f++)
    {
      t.field_names[f] = b->field_names[f];
      t.fields[f] = g_array_index (b->fields, int64_t, c->point * b->n_fields + f);
      t.matchers[f] = b->field_matchers[f];
      s->field_names[f] = g_strdup (b->field_names[f]);
      s->fields[f] = t.fields[f];
    }
  t.n_fields = b->n_fields;

  s->interpolated = msperf_interpolate_holdout (e, idx, job->kernel, job->mode, &t, r);
  msperf_point_clear (&t);
  s->source = g_strdup (s->interpolated ? msperf_source_name (r->source) : "NONE");
  if (s->interpolated)
    {
      msperf_holdout_sample_predicted (s, r);
      s->method_key = method_key (r);
      if (msperf_value_get_int (msperf_value_lookup (msperf_result_details (r), "candidate_count"), &count))
        s->candidate_count = count;
    }
  else
    {
      s->predicted_us = s->abs_error_us = s->rel_error = s->confidence = NAN;
      s->reason = join_reasons (r);
    }
  return s;
}

/* ------------------------------------------------------------------ run */

static msperf_holdout_report *
holdout_run_locked (msperf_engine *e, const msperf_holdout_options *o, GError **error)
{
  g_autoptr (msperf_holdout_report) rep = NULL;
  g_autoptr (GPtrArray) jobs = NULL;
  g_autoptr (GPtrArray) per_job = NULL;   /* GPtrArray of coordinates, per job */
  g_autoptr (GPtrArray) picks = NULL;     /* GArray of indices, per job */
  g_autoptr (GPtrArray) indexes = g_ptr_array_new ();
  g_autoptr (GRand) rng = NULL;
  size_t total = 0, done = 0;

  g_return_val_if_fail (e != NULL && o != NULL, NULL);
  if (e->shared->db == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "holdout: no profiling database");
      return NULL;
    }
  if (!o->leave_one_out && !(o->fraction > 0.0 && o->fraction <= 1.0))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "holdout: the fraction must be in (0, 1], not %g", o->fraction);
      return NULL;
    }
  jobs = collect_jobs (e, o->kernels, error);
  if (jobs == NULL)
    return NULL;
  if (e->shared->index_cache == NULL)
    e->shared->index_cache = msperf_index_cache_new ();

  rep = g_new0 (msperf_holdout_report, 1);
  rep->database = g_strdup (msperf_database_dir (e->shared->db));
  rep->policy_hash = g_strdup (e->shared->policy_hash);
  rep->leave_one_out = o->leave_one_out || o->fraction >= 1.0;
  rep->fraction = rep->leave_one_out ? 1.0 : o->fraction;
  rep->seed = o->seed;
  rep->samples = g_ptr_array_new_with_free_func (sample_free);
  rep->stats = g_ptr_array_new_with_free_func (stats_free);
  rep->method_stats = g_ptr_array_new_with_free_func (stats_free);
  rep->confidence = confidence_table (e);
  rng = g_rand_new_with_seed (o->seed);
  per_job = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  picks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);

  /* First every index and draw, so the progress bar knows the total. */
  for (guint k = 0; k < jobs->len; k++)
    {
      kernel_job *job = g_ptr_array_index (jobs, k);
      g_autoptr (GError) local = NULL;
      const msperf_table *table = msperf_engine_table (e, job->kernel, &local);
      void *state = NULL;
      const msperf_plugin *plugin = msperf_registry_lookup (e->shared->registry, job->mode, &state);
      msperf_index *idx = NULL;
      GPtrArray *coords;

      if (table == NULL && o->kernels && o->kernels[0])
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return NULL;
        }
      if (table && plugin && plugin->describe_target && plugin->describe_row)
        idx = msperf_interpolation_index (e, plugin, state, table, job->mode,
                                          job->tc_input_count, NULL);
      coords = idx ? collect_coordinates (idx)
                   : g_ptr_array_new_with_free_func (coordinate_free);
      g_ptr_array_add (indexes, idx);
      g_ptr_array_add (per_job, coords);
      g_ptr_array_add (picks, choose (coords->len, o, rng));
      total += ((GArray *) g_ptr_array_index (picks, k))->len;
    }

  for (guint k = 0; k < jobs->len; k++)
    {
      kernel_job *job = g_ptr_array_index (jobs, k);
      GPtrArray *coords = g_ptr_array_index (per_job, k);
      GArray *pick = g_ptr_array_index (picks, k);
      gboolean mean = aggregate_mean (e, job->kernel);
      guint from = rep->samples->len;
      msperf_holdout_extrap_options xo = { o->extrapolate_axis, o->hide_outer };

      /* The extrapolation holdout replaces the draw (holdout_extrap.h). */
      if (o->extrapolate_axis && g_ptr_array_index (indexes, k))
        msperf_holdout_extrapolate (e, g_ptr_array_index (indexes, k), job->kernel, job->mode,
                                    job->tc_input_count, &xo, rep->samples);
      for (guint i = 0; !o->extrapolate_axis && i < pick->len; i++)
        {
          const coordinate *c = g_ptr_array_index (coords, g_array_index (pick, guint, i));

          g_ptr_array_add (rep->samples, run_sample (e, g_ptr_array_index (indexes, k), job, c,
                                                     mean));
          done++;
          if (o->progress)
            o->progress (done, total, o->progress_data);
        }
      if (rep->samples->len == from)
        continue;
      for (int dim = 0; dim <= MAX_DIM; dim++)
        if (dim <= 3 || any_at_dim (rep->samples, from, rep->samples->len, dim))
          g_ptr_array_add (rep->stats, compute_stats (rep->samples, from, rep->samples->len,
                                                      job->kernel, dim, NULL));
      add_method_stats (rep, from, job->kernel);
    }
  return g_steal_pointer (&rep);
}


/* The whole run holds the shared lock: it builds and walks the shared candidate indexes. */
msperf_holdout_report *
msperf_holdout_run (msperf_engine *e, const msperf_holdout_options *o, GError **error)
{
  msperf_holdout_report *rep;

  g_return_val_if_fail (e != NULL && o != NULL, NULL);
  msperf_shared_lock (e);
  rep = holdout_run_locked (e, o, error);
  msperf_shared_unlock (e);
  return rep;
}
