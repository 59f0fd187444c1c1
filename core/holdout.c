/* msperf — `msperf holdout` (see holdout.h): leave-one-coordinate-out or a seeded fraction of
 * coordinates over each kernel's candidate index, statistics per kernel and per dimension, and
 * the md / json / html report. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <msperf/error.h>
#include "engine_private.h"
#include "interpolate.h"
#include "numfmt.h"
#include "registry.h"
#include "report.h"
#include "holdout.h"

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
  g_free (s);
}

static void
stats_free (gpointer p)
{
  msperf_holdout_stats *s = p;

  g_free (s->kernel);
  g_free (s);
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

/* Statistics of the samples [from, to) of one kernel that dim answered (0: any). */
static msperf_holdout_stats *
compute_stats (const GPtrArray *samples, guint from, guint to, const char *kernel, int dim)
{
  msperf_holdout_stats *st = g_new0 (msperf_holdout_stats, 1);
  g_autoptr (GArray) errs = g_array_new (FALSE, FALSE, sizeof (double));

  st->kernel = g_strdup (kernel);
  st->dim = dim;
  st->samples = to - from;
  for (guint k = from; k < to; k++)
    {
      const msperf_holdout_sample *s = g_ptr_array_index (samples, k);

      if (s->interpolated && (dim == 0 || s->dim == dim))
        g_array_append_val (errs, s->rel_error);
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

/* ------------------------------------------------------------------ kernels */

/* The module an entry's kernels answer through (dispatch.c's rule); NULL = none. */
static const char *
entry_mode (const msperf_mapping_entry *entry)
{
  if (entry->composite || (entry->category && strcmp (entry->category, "communication") == 0))
    return NULL;
  if (entry->query_mode)
    return strcmp (entry->query_mode, "mtp_projection") == 0 ? "compute" : entry->query_mode;
  if (entry->zero_cost || entry->accepted_miss)
    return NULL;
  return "compute";
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
  const GPtrArray *entries = msperf_database_entries (e->db);
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (job_free);
  GPtrArray *jobs;

  for (guint k = 0; entries && k < entries->len; k++)
    {
      const msperf_mapping_entry *entry = g_ptr_array_index (entries, k);
      const char *mode = entry_mode (entry);

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
  const msperf_value *list = msperf_value_lookup (r->details, "fallback_reasons");
  GString *s = g_string_new (r->miss_reason ? r->miss_reason : "");

  for (guint k = 0; list && list->kind == MSPERF_VALUE_LIST && k < list->items->len; k++)
    {
      const char *text = msperf_value_get_string (g_ptr_array_index (list->items, k));

      if (text)
        g_string_append_printf (s, "%s%s", s->len ? "; " : "", text);
    }
  return g_string_free (s, FALSE);
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
      s->predicted_us = r->latency_us;
      s->abs_error_us = fabs (s->predicted_us - s->measured_us);
      s->rel_error = s->abs_error_us / s->measured_us;
      s->confidence = r->confidence;
      s->method = g_strdup (r->method);
      s->dim = r->interpolation_dim;
      if (msperf_value_get_int (msperf_value_lookup (r->details, "candidate_count"), &count))
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

msperf_holdout_report *
msperf_holdout_run (msperf_engine *e, const msperf_holdout_options *o, GError **error)
{
  g_autoptr (msperf_holdout_report) rep = NULL;
  g_autoptr (GPtrArray) jobs = NULL;
  g_autoptr (GPtrArray) per_job = NULL;   /* GPtrArray of coordinates, per job */
  g_autoptr (GPtrArray) picks = NULL;     /* GArray of indices, per job */
  g_autoptr (GPtrArray) indexes = g_ptr_array_new ();
  g_autoptr (GRand) rng = NULL;
  size_t total = 0, done = 0;

  g_return_val_if_fail (e != NULL && o != NULL, NULL);
  if (e->db == NULL)
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
  if (e->index_cache == NULL)
    e->index_cache = msperf_index_cache_new ();

  rep = g_new0 (msperf_holdout_report, 1);
  rep->database = g_strdup (msperf_database_dir (e->db));
  rep->policy_hash = g_strdup (e->policy_hash);
  rep->leave_one_out = o->leave_one_out || o->fraction >= 1.0;
  rep->fraction = rep->leave_one_out ? 1.0 : o->fraction;
  rep->seed = o->seed;
  rep->samples = g_ptr_array_new_with_free_func (sample_free);
  rep->stats = g_ptr_array_new_with_free_func (stats_free);
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
      const msperf_plugin *plugin = msperf_registry_lookup (e->registry, job->mode, &state);
      msperf_index *idx = NULL;
      GPtrArray *coords;

      if (table == NULL && o->kernels && o->kernels[0])
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return NULL;
        }
      if (table && plugin && plugin->describe_target && plugin->describe_row)
        idx = msperf_index_cache_get (e->index_cache, plugin, state, table, job->mode,
                                      e->policy_hash, job->tc_input_count, NULL);
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

      for (guint i = 0; i < pick->len; i++)
        {
          const coordinate *c = g_ptr_array_index (coords, g_array_index (pick, guint, i));

          g_ptr_array_add (rep->samples, run_sample (e, g_ptr_array_index (indexes, k), job, c,
                                                     mean));
          done++;
          if (o->progress)
            o->progress (done, total, o->progress_data);
        }
      if (pick->len == 0)
        continue;
      for (int dim = 0; dim <= MAX_DIM; dim++)
        g_ptr_array_add (rep->stats, compute_stats (rep->samples, from, rep->samples->len,
                                                    job->kernel, dim));
    }
  return g_steal_pointer (&rep);
}

/* ------------------------------------------------------------------ value tree (JSON) */

static msperf_value *
num_or_null (double v)
{
  return isfinite (v) ? msperf_value_new_double (v) : msperf_value_new (MSPERF_VALUE_NONE);
}

/* Axis coordinates are counts: integral values as integers. */
static msperf_value *
axis_value (double v)
{
  if (isfinite (v) && v == floor (v) && fabs (v) < 9007199254740992.0)
    return msperf_value_new_int ((int64_t) v);
  return num_or_null (v);
}

static msperf_value *
stats_value (const msperf_holdout_stats *st)
{
  msperf_value *m = msperf_value_new (MSPERF_VALUE_MAP);

  msperf_value_map_set (m, "samples", msperf_value_new_int ((int64_t) st->samples));
  msperf_value_map_set (m, "recovered", msperf_value_new_int ((int64_t) st->recovered));
  msperf_value_map_set (m, "coverage", num_or_null (st->coverage));
  msperf_value_map_set (m, "median_rel_error", num_or_null (st->median_rel));
  msperf_value_map_set (m, "p90_rel_error", num_or_null (st->p90_rel));
  msperf_value_map_set (m, "max_rel_error", num_or_null (st->max_rel));
  return m;
}

static msperf_value *
sample_value (const msperf_holdout_sample *s)
{
  msperf_value *m = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *axes = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *fields = msperf_value_new (MSPERF_VALUE_MAP);

  for (size_t a = 0; a < s->n_axes; a++)
    msperf_value_map_set (axes, s->axis_names[a], axis_value (s->axes[a]));
  for (size_t f = 0; f < s->n_fields; f++)
    msperf_value_map_set (fields, s->field_names[f], msperf_value_new_int (s->fields[f]));
  msperf_value_map_set (m, "kernel", msperf_value_new_string (s->kernel));
  msperf_value_map_set (m, "regime", msperf_value_new_string (s->regime));
  msperf_value_map_set (m, "csv_line", msperf_value_new_int (s->line));
  msperf_value_map_set (m, "rows_removed", msperf_value_new_int ((int64_t) s->n_rows));
  msperf_value_map_set (m, "axes", axes);
  msperf_value_map_set (m, "exact_fields", fields);
  msperf_value_map_set (m, "measured_us", num_or_null (s->measured_us));
  msperf_value_map_set (m, "interpolated_us", num_or_null (s->predicted_us));
  msperf_value_map_set (m, "abs_error_us", num_or_null (s->abs_error_us));
  msperf_value_map_set (m, "rel_error", num_or_null (s->rel_error));
  msperf_value_map_set (m, "source", msperf_value_new_string (s->source));
  msperf_value_map_set (m, "confidence", num_or_null (s->confidence));
  msperf_value_map_set (m, "method", msperf_value_new_string (s->method));
  msperf_value_map_set (m, "interpolation_dim", msperf_value_new_int (s->dim));
  msperf_value_map_set (m, "candidate_count", msperf_value_new_int (s->candidate_count));
  msperf_value_map_set (m, "reason", msperf_value_new_string (s->reason));
  return m;
}

msperf_value *
msperf_holdout_report_value (const msperf_holdout_report *r)
{
  msperf_value *doc = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *kernels = msperf_value_new (MSPERF_VALUE_LIST);
  msperf_value *samples = msperf_value_new (MSPERF_VALUE_LIST);
  msperf_value *by_dim = NULL;

  g_return_val_if_fail (r != NULL, NULL);
  for (guint k = 0; k < r->stats->len; k++)
    {
      const msperf_holdout_stats *st = g_ptr_array_index (r->stats, k);
      msperf_value *v = stats_value (st);

      if (st->dim == 0)
        {
          msperf_value *kv = msperf_value_new (MSPERF_VALUE_MAP);

          msperf_value_map_set (kv, "kernel", msperf_value_new_string (st->kernel));
          for (guint j = 0; j < v->keys->len; j++)
            msperf_value_map_set (kv, g_ptr_array_index (v->keys, j),
                                  msperf_value_copy (g_ptr_array_index (v->items, j)));
          msperf_value_free (v);
          by_dim = msperf_value_new (MSPERF_VALUE_LIST);
          msperf_value_map_set (kv, "by_dim", by_dim);
          msperf_value_list_append (kernels, kv);
        }
      else
        {
          msperf_value *dv = msperf_value_new (MSPERF_VALUE_MAP);

          msperf_value_map_set (dv, "dim", msperf_value_new_int (st->dim));
          for (guint j = 1; j < v->keys->len; j++)   /* samples is the kernel's */
            msperf_value_map_set (dv, g_ptr_array_index (v->keys, j),
                                  msperf_value_copy (g_ptr_array_index (v->items, j)));
          msperf_value_free (v);
          msperf_value_list_append (by_dim, dv);
        }
    }
  for (guint k = 0; k < r->samples->len; k++)
    msperf_value_list_append (samples, sample_value (g_ptr_array_index (r->samples, k)));
  msperf_value_map_set (doc, "schema_version", msperf_value_new_int (1));
  msperf_value_map_set (doc, "database", msperf_value_new_string (r->database));
  msperf_value_map_set (doc, "policy_hash", msperf_value_new_string (r->policy_hash));
  msperf_value_map_set (doc, "selection", msperf_value_new_string (r->leave_one_out
                                                                     ? "leave_one_out"
                                                                     : "fraction"));
  msperf_value_map_set (doc, "fraction", msperf_value_new_double (r->fraction));
  msperf_value_map_set (doc, "seed", msperf_value_new_int (r->seed));
  msperf_value_map_set (doc, "kernels", kernels);
  msperf_value_map_set (doc, "samples", samples);
  return doc;
}

/* ------------------------------------------------------------------ text */

static char *
pct (double v)
{
  return isfinite (v) ? g_strdup_printf ("%.2f%%", v * 100.0) : g_strdup ("-");
}

static char *
num (double v, int decimals)
{
  return isfinite (v) ? g_strdup_printf ("%.*f", decimals, v) : g_strdup ("-");
}

char *
msperf_holdout_summary_text (const msperf_holdout_report *r)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (r != NULL, NULL);
  g_string_append_printf (s, "Holdout (%s", r->leave_one_out ? "leave one coordinate out"
                                                             : "random fraction");
  if (!r->leave_one_out)
    g_string_append_printf (s, " %g, seed %u", r->fraction, r->seed);
  g_string_append_printf (s, ") on %s\n", r->database ? r->database : "-");
  g_string_append_printf (s, "%-28s %-4s %8s %9s %9s %9s %9s %9s\n", "kernel", "dim", "samples",
                          "recovered", "coverage", "median", "p90", "max");
  for (guint k = 0; k < r->stats->len; k++)
    {
      const msperf_holdout_stats *st = g_ptr_array_index (r->stats, k);
      g_autofree char *cov = pct (st->coverage), *med = pct (st->median_rel);
      g_autofree char *p90 = pct (st->p90_rel), *max = pct (st->max_rel);
      char dim[8];

      g_snprintf (dim, sizeof dim, st->dim ? "%d" : "all", st->dim);
      g_string_append_printf (s, "%-28s %-4s %8zu %9zu %9s %9s %9s %9s\n", st->kernel, dim,
                              st->samples, st->recovered, cov, med, p90, max);
    }
  if (r->stats->len == 0)
    g_string_append (s, "(no coordinate held out)\n");
  return g_string_free (s, FALSE);
}

static void
axes_text (GString *out, const msperf_holdout_sample *s)
{
  for (size_t a = 0; a < s->n_axes; a++)
    {
      g_string_append_printf (out, "%s%s=", a ? " " : "", s->axis_names[a]);
      if (isfinite (s->axes[a]))
        g_string_append_printf (out, "%.17g", s->axes[a]);
      else
        g_string_append_c (out, '?');
    }
  for (size_t f = 0; f < s->n_fields; f++)
    g_string_append_printf (out, " %s=%" G_GINT64_FORMAT, s->field_names[f], s->fields[f]);
}

/* The printed cells of one sample row, shared by the Markdown and HTML tables. */
typedef struct {
  GString *axes;
  char *measured;
  char *predicted;
  char *abs_error;
  char *rel_error;
  char *confidence;
} sample_cells;

static void
sample_cells_init (sample_cells *c, const msperf_holdout_sample *x)
{
  c->axes = g_string_new (NULL);
  axes_text (c->axes, x);
  c->measured = num (x->measured_us, 4);
  c->predicted = num (x->predicted_us, 4);
  c->abs_error = num (x->abs_error_us, 4);
  c->rel_error = pct (x->rel_error);
  c->confidence = num (x->confidence, 2);
}

static void
sample_cells_clear (sample_cells *c)
{
  g_string_free (c->axes, TRUE);
  g_free (c->measured);
  g_free (c->predicted);
  g_free (c->abs_error);
  g_free (c->rel_error);
  g_free (c->confidence);
}

/* ------------------------------------------------------------------ Markdown */

static void
md_stats (GString *s, const msperf_holdout_report *r)
{
  g_string_append (s, "| kernel | dim | samples | recovered | coverage | median rel. error | "
                      "p90 | max |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (guint k = 0; k < r->stats->len; k++)
    {
      const msperf_holdout_stats *st = g_ptr_array_index (r->stats, k);
      g_autofree char *cov = pct (st->coverage), *med = pct (st->median_rel);
      g_autofree char *p90 = pct (st->p90_rel), *max = pct (st->max_rel);

      g_string_append (s, "| ");
      msperf_doc_md_cell (s, st->kernel);
      if (st->dim)
        g_string_append_printf (s, " | %d", st->dim);
      else
        g_string_append (s, " | all");
      g_string_append_printf (s, " | %zu | %zu | %s | %s | %s | %s |\n", st->samples,
                              st->recovered, cov, med, p90, max);
    }
}

static char *
render_md (const msperf_holdout_report *r)
{
  GString *s = g_string_new ("# msperf holdout report\n\n");

  g_string_append (s, "- database: ");
  msperf_doc_md_cell (s, r->database ? r->database : "-");
  g_string_append (s, "\n- policy hash: ");
  msperf_doc_md_cell (s, r->policy_hash ? r->policy_hash : "-");
  if (r->leave_one_out)
    g_string_append (s, "\n- selection: leave one coordinate out\n");
  else
    g_string_append_printf (s, "\n- selection: random fraction %g of the coordinates, seed %u\n",
                            r->fraction, r->seed);
  g_string_append (s, "- every row at a held-out coordinate is removed and the phase-1 rules "
                      "interpolate at it; relative error = |interpolated − measured| / "
                      "measured; median and p90 as numpy.percentile (linear)\n\n"
                      "## Per kernel and dimension\n\n");
  md_stats (s, r);
  g_string_append (s, "\n## Samples\n\n| kernel | csv line | target axes | removed µs | "
                      "interpolated µs | abs. error µs | rel. error | source | confidence | "
                      "method | candidates | reason |\n"
                      "|---|---:|---|---:|---:|---:|---:|---|---:|---|---:|---|\n");
  for (guint k = 0; k < r->samples->len; k++)
    {
      const msperf_holdout_sample *x = g_ptr_array_index (r->samples, k);
      sample_cells c;

      sample_cells_init (&c, x);
      g_string_append (s, "| ");
      msperf_doc_md_cell (s, x->kernel);
      g_string_append_printf (s, " | %u | ", x->line);
      msperf_doc_md_cell (s, c.axes->str);
      g_string_append_printf (s, " | %s | %s | %s | %s | %s | %s | ", c.measured, c.predicted,
                              c.abs_error, c.rel_error, x->source, c.confidence);
      msperf_doc_md_cell (s, x->method ? x->method : "-");
      g_string_append_printf (s, " | %" G_GINT64_FORMAT " | ", x->candidate_count);
      msperf_doc_md_cell (s, x->reason ? x->reason : "");
      g_string_append (s, " |\n");
      sample_cells_clear (&c);
    }
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------ HTML */

static const char *const kernel_colors[] = {
  "#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#c62828", "#00838f", "#5d4037", "#757575"
};

/* Predicted vs measured on log-log axes, one colour per kernel, the y = x diagonal. */
static void
svg_scatter (GString *s, const msperf_holdout_report *r)
{
  const int size = 420, left = 60, top = 30, legend_w = 260;
  double lo = INFINITY, hi = -INFINITY, l0, l1;
  g_autoptr (GPtrArray) kernels = g_ptr_array_new ();

  for (guint k = 0; k < r->samples->len; k++)
    {
      const msperf_holdout_sample *x = g_ptr_array_index (r->samples, k);

      if (!x->interpolated || !(x->measured_us > 0) || !(x->predicted_us > 0))
        continue;
      lo = MIN (lo, MIN (x->measured_us, x->predicted_us));
      hi = MAX (hi, MAX (x->measured_us, x->predicted_us));
    }
  g_string_append_printf (s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                          "height=\"%d\" role=\"img\"><title>Interpolated vs measured "
                          "latency</title><text x=\"0\" y=\"18\" class=\"t\">Interpolated vs "
                          "measured latency (µs, log–log)</text>",
                          left + size + legend_w, top + size + 50);
  if (!isfinite (lo))
    {
      g_string_append (s, "<text x=\"60\" y=\"60\">no interpolated sample</text></svg>\n");
      return;
    }
  l0 = floor (log10 (lo));
  l1 = ceil (log10 (hi));
  if (l1 <= l0)
    l1 = l0 + 1;
  g_string_append_printf (s, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                          "stroke=\"#999\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                          "stroke=\"#bbb\" stroke-dasharray=\"4 3\"/>",
                          left, top, size, size, left, top + size, left + size, top);
  for (double d = l0; d <= l1; d++)
    {
      double f = (d - l0) / (l1 - l0) * size;

      g_string_append_printf (s, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">1e%d</text>"
                              "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>",
                              left + f, top + size + 16, (int) d, left - 4,
                              top + size - f + 4, (int) d);
    }
  g_string_append_printf (s, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">measured (removed) "
                          "µs</text>", left + size / 2, top + size + 36);
  for (guint k = 0; k < r->samples->len; k++)
    {
      const msperf_holdout_sample *x = g_ptr_array_index (r->samples, k);
      guint ci;
      double px, py;

      if (!x->interpolated || !(x->measured_us > 0) || !(x->predicted_us > 0))
        continue;
      for (ci = 0; ci < kernels->len; ci++)
        if (strcmp (g_ptr_array_index (kernels, ci), x->kernel) == 0)
          break;
      if (ci == kernels->len)
        g_ptr_array_add (kernels, x->kernel);
      px = left + (log10 (x->measured_us) - l0) / (l1 - l0) * size;
      py = top + size - (log10 (x->predicted_us) - l0) / (l1 - l0) * size;
      g_string_append_printf (s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\" "
                              "fill-opacity=\"0.6\"><title>", px, py,
                              kernel_colors[ci % G_N_ELEMENTS (kernel_colors)]);
      msperf_doc_html_escape (s, x->kernel);
      g_string_append_printf (s, " line %u: measured %.4g, interpolated %.4g µs</title>"
                              "</circle>", x->line, x->measured_us, x->predicted_us);
    }
  for (guint ci = 0; ci < kernels->len; ci++)
    {
      int y = top + 10 + (int) ci * 18;

      g_string_append_printf (s, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" "
                              "fill=\"%s\"/><text x=\"%d\" y=\"%d\">", left + size + 16, y,
                              kernel_colors[ci % G_N_ELEMENTS (kernel_colors)],
                              left + size + 32, y + 9);
      msperf_doc_html_escape (s, g_ptr_array_index (kernels, ci));
      g_string_append (s, "</text>");
    }
  g_string_append (s, "</svg>\n");
}

/* Relative-error histogram as bars (report_doc.c's chart). */
static void
svg_error_histogram (GString *s, const msperf_holdout_report *r)
{
  static const double edges[] = { 0.01, 0.02, 0.05, 0.10, 0.20, 0.50, INFINITY };
  static const char *const labels[] = { "< 1 %", "1–2 %", "2–5 %", "5–10 %", "10–20 %",
                                        "20–50 %", "≥ 50 %" };
  const char *colors[G_N_ELEMENTS (edges)];
  double counts[G_N_ELEMENTS (edges)] = { 0 };

  for (guint k = 0; k < r->samples->len; k++)
    {
      const msperf_holdout_sample *x = g_ptr_array_index (r->samples, k);
      gsize b = 0;

      if (!x->interpolated)
        continue;
      while (b + 1 < G_N_ELEMENTS (edges) && !(x->rel_error < edges[b]))
        b++;
      counts[b]++;
    }
  for (gsize b = 0; b < G_N_ELEMENTS (edges); b++)
    colors[b] = "#1565c0";
  msperf_doc_svg_hbars (s, "Relative error of the interpolated samples", G_N_ELEMENTS (edges),
                        labels, counts, colors, "samples");
}

static char *
render_html (const msperf_holdout_report *r)
{
  GString *s = g_string_new (NULL);
  g_autofree char *summary = msperf_holdout_summary_text (r);

  g_string_append_printf (s, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                          "<title>msperf holdout report</title><style>%s</style></head><body>\n"
                          "<h1>msperf holdout report</h1>\n<pre>", msperf_doc_html_css ());
  msperf_doc_html_escape (s, summary);
  g_string_append (s, "</pre>\n<h2>Charts</h2>\n");
  svg_scatter (s, r);
  svg_error_histogram (s, r);
  g_string_append (s, "<h2>Samples</h2>\n<table><tr><th>kernel</th><th>csv line</th>"
                      "<th>target axes</th><th>removed µs</th><th>interpolated µs</th>"
                      "<th>abs. error µs</th><th>rel. error</th><th>source</th>"
                      "<th>confidence</th><th>method</th><th>candidates</th><th>reason</th>"
                      "</tr>\n");
  for (guint k = 0; k < r->samples->len; k++)
    {
      const msperf_holdout_sample *x = g_ptr_array_index (r->samples, k);
      sample_cells c;

      sample_cells_init (&c, x);
      g_string_append (s, "<tr><td>");
      msperf_doc_html_escape (s, x->kernel);
      g_string_append_printf (s, "</td><td class=\"n\">%u</td><td>", x->line);
      msperf_doc_html_escape (s, c.axes->str);
      g_string_append_printf (s, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                              "<td class=\"n\">%s</td><td class=\"n\">%s</td><td>%s</td>"
                              "<td class=\"n\">%s</td><td>", c.measured, c.predicted,
                              c.abs_error, c.rel_error, x->source, c.confidence);
      msperf_doc_html_escape (s, x->method ? x->method : "-");
      g_string_append_printf (s, "</td><td class=\"n\">%" G_GINT64_FORMAT "</td><td>",
                              x->candidate_count);
      msperf_doc_html_escape (s, x->reason ? x->reason : "");
      g_string_append (s, "</td></tr>\n");
      sample_cells_clear (&c);
    }
  g_string_append (s, "</table>\n</body></html>\n");
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------ entry point */

gboolean
msperf_holdout_write (const msperf_holdout_report *r, const char *path, GError **error)
{
  g_autofree char *lower = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (r != NULL && path != NULL, FALSE);
  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".md") || g_str_has_suffix (lower, ".markdown"))
    text = render_md (r);
  else if (g_str_has_suffix (lower, ".json"))
    {
      g_autoptr (GString) s = g_string_new (NULL);
      msperf_value *doc = msperf_holdout_report_value (r);

      msperf_fmt_json_value (s, doc, 2, 0);
      g_string_append_c (s, '\n');
      msperf_value_free (doc);
      text = g_strdup (s->str);
    }
  else if (g_str_has_suffix (lower, ".html") || g_str_has_suffix (lower, ".htm"))
    text = render_html (r);
  else
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s: unknown report format (use a .md, .json or .html file name)", path);
      return FALSE;
    }
  return msperf_report_write_file (path, text, -1, error);
}
