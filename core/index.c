/* msperf — the candidate index (see index.h): buckets of described rows and, per bucket, the
 * cached filtered point sets and triangulations the interpolation stage asks for. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/shape.h>
#include "index.h"

struct msperf_index {
  char *kernel;
  char *table_hash;
  char *mode;
  int64_t tc_input_count;
  size_t n_rows;              /* valid rows offered to describe_row */
  size_t n_points;
  GPtrArray *buckets;         /* msperf_index_bucket*, owned, in first-row order */
  GHashTable *by_key;         /* regime \x1f group → bucket (borrowed) */
  GHashTable *by_regime;      /* regime → GPtrArray of buckets (borrowed), sorted */
};

struct msperf_index_cache {
  GHashTable *indexes;        /* cache key → msperf_index* */
  msperf_index_stats stats;
};

/* ------------------------------------------------------------------ sets and buckets */

static void
set_free (msperf_index_set *s)
{
  if (s == NULL)
    return;
  g_free (s->raw);
  g_free (s->raw_latency);
  g_free (s->raw_lines);
  g_free (s->coords);
  g_free (s->values);
  msperf_delaunay_free (s->tri);
  g_free (s->tri_message);
  g_free (s);
}

static msperf_index_bucket *
bucket_new (const char *regime, const msperf_point *p, size_t row)
{
  msperf_index_bucket *b = g_new0 (msperf_index_bucket, 1);

  b->regime = g_strdup (regime);
  b->group = g_strdup (p->group ? p->group->str : "");
  b->group_rank = p->group ? p->group_rank : 0;
  b->first_row = row;
  b->n_axes = p->n_axes;
  for (size_t k = 0; k < p->n_axes; k++)
    b->axis_names[k] = g_strdup (p->axis_names[k]);
  b->n_fields = p->n_fields;
  for (size_t k = 0; k < p->n_fields; k++)
    {
      b->field_names[k] = g_strdup (p->field_names[k]);
      b->field_matchers[k] = p->matchers[k];
    }
  b->coords = g_array_new (FALSE, FALSE, sizeof (double));
  b->known = g_array_new (FALSE, FALSE, sizeof (guint8));
  b->fields = g_array_new (FALSE, FALSE, sizeof (int64_t));
  b->latency = g_array_new (FALSE, FALSE, sizeof (double));
  b->lines = g_array_new (FALSE, FALSE, sizeof (guint));
  b->sets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) set_free);
  return b;
}

static void
bucket_free (msperf_index_bucket *b)
{
  if (b == NULL)
    return;
  g_free (b->regime);
  g_free (b->group);
  for (size_t k = 0; k < b->n_axes; k++)
    g_free (b->axis_names[k]);
  for (size_t k = 0; k < b->n_fields; k++)
    g_free (b->field_names[k]);
  g_array_unref (b->coords);
  g_array_unref (b->known);
  g_array_unref (b->fields);
  g_array_unref (b->latency);
  g_array_unref (b->lines);
  g_hash_table_unref (b->sets);
  g_free (b);
}

/* A row joins a bucket only with the bucket's axis and field names, in the same order: a
 * module that describes rows of one regime differently has a bug, and mixing would compare
 * unlike coordinates. */
static gboolean
same_layout (const msperf_index_bucket *b, const msperf_point *p)
{
  if (b->n_axes != p->n_axes || b->n_fields != p->n_fields)
    return FALSE;
  for (size_t k = 0; k < p->n_axes; k++)
    if (strcmp (b->axis_names[k], p->axis_names[k]) != 0)
      return FALSE;
  for (size_t k = 0; k < p->n_fields; k++)
    if (strcmp (b->field_names[k], p->field_names[k]) != 0)
      return FALSE;
  return TRUE;
}

static void
bucket_add (msperf_index_bucket *b, const msperf_point *p, double latency, guint line)
{
  for (size_t k = 0; k < p->n_axes; k++)
    {
      guint8 known = p->axis_known[k] ? 1 : 0;
      double v = known ? p->axes[k] : NAN;

      g_array_append_val (b->coords, v);
      g_array_append_val (b->known, known);
    }
  for (size_t k = 0; k < p->n_fields; k++)
    g_array_append_val (b->fields, p->fields[k]);
  g_array_append_val (b->latency, latency);
  g_array_append_val (b->lines, line);
  b->n++;
}

/* ------------------------------------------------------------------ index */

static void
index_free (msperf_index *idx)
{
  if (idx == NULL)
    return;
  g_hash_table_unref (idx->by_regime);
  g_hash_table_unref (idx->by_key);
  g_ptr_array_unref (idx->buckets);
  g_free (idx->kernel);
  g_free (idx->table_hash);
  g_free (idx->mode);
  g_free (idx);
}

static gint
bucket_order (gconstpointer a, gconstpointer b)
{
  const msperf_index_bucket *x = *(msperf_index_bucket *const *) a;
  const msperf_index_bucket *y = *(msperf_index_bucket *const *) b;

  if (x->group_rank != y->group_rank)
    return x->group_rank < y->group_rank ? -1 : 1;
  return x->first_row < y->first_row ? -1 : x->first_row > y->first_row ? 1 : 0;
}

static msperf_index *
index_build (const msperf_plugin *plugin, void *state, const msperf_table *table,
             const char *mode, int64_t tc_input_count)
{
  msperf_index *idx = g_new0 (msperf_index, 1);
  GHashTableIter it;
  gpointer key, value;

  idx->kernel = g_strdup (msperf_table_kernel_type (table));
  idx->table_hash = g_strdup (msperf_table_hash (table));
  idx->mode = g_strdup (mode);
  idx->tc_input_count = tc_input_count;
  idx->buckets = g_ptr_array_new_with_free_func ((GDestroyNotify) bucket_free);
  idx->by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  idx->by_regime = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify) g_ptr_array_unref);

  for (size_t row = 0; row < msperf_table_n_rows (table); row++)
    {
      msperf_point p;
      msperf_index_bucket *b;
      g_autofree char *bkey = NULL;
      double latency;

      /* Rows without a valid latency are not points (reference §4.3). */
      if (!msperf_table_row_valid (table, row))
        continue;
      idx->n_rows++;
      msperf_point_init (&p);
      p.input_limit = tc_input_count;
      if (!plugin->describe_row (state, table, row, &p))
        {
          msperf_point_clear (&p);
          continue;
        }
      latency = isnan (p.latency_us) ? msperf_table_row_latency (table, row) : p.latency_us;
      if (!msperf_interp_latency_valid (latency))
        {
          msperf_point_clear (&p);
          continue;
        }
      bkey = g_strdup_printf ("%s\x1f%s", p.regime->str, p.group ? p.group->str : "");
      b = g_hash_table_lookup (idx->by_key, bkey);
      if (b == NULL)
        {
          GPtrArray *list;

          b = bucket_new (p.regime->str, &p, row);
          g_ptr_array_add (idx->buckets, b);
          g_hash_table_insert (idx->by_key, g_steal_pointer (&bkey), b);
          list = g_hash_table_lookup (idx->by_regime, p.regime->str);
          if (list == NULL)
            {
              list = g_ptr_array_new ();
              g_hash_table_insert (idx->by_regime, g_strdup (p.regime->str), list);
            }
          g_ptr_array_add (list, b);
        }
      if (same_layout (b, &p))
        {
          bucket_add (b, &p, latency, msperf_table_row_line (table, row));
          idx->n_points++;
        }
      msperf_point_clear (&p);
    }

  g_hash_table_iter_init (&it, idx->by_regime);
  while (g_hash_table_iter_next (&it, &key, &value))
    g_ptr_array_sort ((GPtrArray *) value, bucket_order);
  return idx;
}

size_t
msperf_index_n_rows (const msperf_index *index)
{
  g_return_val_if_fail (index != NULL, 0);
  return index->n_rows;
}

size_t
msperf_index_n_points (const msperf_index *index)
{
  g_return_val_if_fail (index != NULL, 0);
  return index->n_points;
}

const GPtrArray *
msperf_index_buckets (const msperf_index *index, const char *regime)
{
  g_return_val_if_fail (index != NULL && regime != NULL, NULL);
  return g_hash_table_lookup (index->by_regime, regime);
}

const GPtrArray *
msperf_index_all_buckets (const msperf_index *index)
{
  g_return_val_if_fail (index != NULL, NULL);
  return index->buckets;
}

/* ------------------------------------------------------------------ cache */

msperf_index_cache *
msperf_index_cache_new (void)
{
  msperf_index_cache *c = g_new0 (msperf_index_cache, 1);

  c->indexes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify) index_free);
  return c;
}

void
msperf_index_cache_free (msperf_index_cache *c)
{
  if (c == NULL)
    return;
  g_hash_table_unref (c->indexes);
  g_free (c);
}

void
msperf_index_cache_clear (msperf_index_cache *c)
{
  g_return_if_fail (c != NULL);
  g_hash_table_remove_all (c->indexes);
}

void
msperf_index_cache_stats (const msperf_index_cache *c, msperf_index_stats *out)
{
  g_return_if_fail (c != NULL && out != NULL);
  *out = c->stats;
}

typedef struct {
  const char *kernel;
  const char *mode;
  int64_t tc;
} stale_match;

/* An index of the same kernel, mode and tc_input_count on other content (the CSV changed and
 * the table was reloaded): it can never be asked for again. */
static gboolean
is_stale (gpointer key, gpointer value, gpointer data)
{
  const msperf_index *idx = value;
  const stale_match *m = data;

  (void) key;
  return strcmp (idx->kernel, m->kernel) == 0 && strcmp (idx->mode, m->mode) == 0
         && idx->tc_input_count == m->tc;
}

msperf_index *
msperf_index_cache_get (msperf_index_cache *c, const msperf_plugin *plugin, void *state,
                        const msperf_table *table, const char *mode, const char *policy_hash,
                        int64_t tc_input_count, gboolean *hit)
{
  g_autofree char *key = NULL;
  msperf_index *idx;
  stale_match m;

  g_return_val_if_fail (c != NULL && plugin != NULL && plugin->describe_row != NULL
                        && table != NULL && mode != NULL, NULL);
  key = g_strdup_printf ("%s\x1f%s\x1f%s\x1f%s\x1f%" G_GINT64_FORMAT,
                         msperf_table_kernel_type (table), msperf_table_hash (table),
                         policy_hash ? policy_hash : "", mode, tc_input_count);
  idx = g_hash_table_lookup (c->indexes, key);
  if (hit)
    *hit = idx != NULL;
  if (idx)
    {
      c->stats.index_hits++;
      return idx;
    }
  m.kernel = msperf_table_kernel_type (table);
  m.mode = mode;
  m.tc = tc_input_count;
  g_hash_table_foreach_remove (c->indexes, is_stale, &m);
  idx = index_build (plugin, state, table, mode, tc_input_count);
  c->stats.index_builds++;
  g_hash_table_insert (c->indexes, g_steal_pointer (&key), idx);
  return idx;
}

/* ------------------------------------------------------------------ filtered sets */

static int
bucket_field (const msperf_index_bucket *b, const char *name)
{
  for (size_t k = 0; k < b->n_fields; k++)
    if (strcmp (b->field_names[k], name) == 0)
      return (int) k;
  return -1;
}

static int
target_axis (const msperf_point *t, const char *name)
{
  for (size_t k = 0; k < t->n_axes; k++)
    if (strcmp (t->axis_names[k], name) == 0)
      return (int) k;
  return -1;
}

static gboolean
field_matches (int64_t target, int64_t candidate, msperf_matcher matcher)
{
  if (target == candidate)
    return TRUE;
  /* Block padding in either direction (reference §2.5, attention q_tokens). */
  return matcher == MSPERF_MATCH_BLOCK_PADDED
         && (msperf_is_block_padded (target, candidate)
             || msperf_is_block_padded (candidate, target));
}

static gboolean
is_selected (const size_t *axes, int dim, size_t a)
{
  for (int j = 0; j < dim; j++)
    if (axes[j] == a)
      return TRUE;
  return FALSE;
}

/* Everything the filtered set depends on, exactly (hex floats). */
static char *
set_key (const msperf_index_bucket *b, const size_t *axes, int dim, const msperf_point *t,
         msperf_interp_aggregate_kind kind, gboolean sqrt_seq)
{
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "%d:%d:%d", dim, (int) kind, sqrt_seq ? 1 : 0);
  for (int j = 0; j < dim; j++)
    g_string_append_printf (s, ",%zu", axes[j]);
  for (size_t a = 0; a < b->n_axes; a++)
    {
      int ta = target_axis (t, b->axis_names[a]);

      if (is_selected (axes, dim, a))
        continue;
      if (ta < 0 || !t->axis_known[ta])
        g_string_append_printf (s, "|%s=?", b->axis_names[a]);
      else
        g_string_append_printf (s, "|%s=%a", b->axis_names[a], t->axes[ta]);
    }
  for (size_t f = 0; f < t->n_fields; f++)
    g_string_append_printf (s, "|%s=%" G_GINT64_FORMAT "/%d", t->field_names[f], t->fields[f],
                            (int) t->matchers[f]);
  return g_string_free (s, FALSE);
}

static gboolean
point_passes (const msperf_index_bucket *b, size_t i, const size_t *axes, int dim,
              const msperf_point *t, const int *field_map)
{
  const double *c = &g_array_index (b->coords, double, i * b->n_axes);
  const guint8 *known = &g_array_index (b->known, guint8, i * b->n_axes);

  for (size_t a = 0; a < b->n_axes; a++)
    {
      int ta;

      if (is_selected (axes, dim, a))
        {
          if (!known[a])
            return FALSE;
          continue;
        }
      ta = target_axis (t, b->axis_names[a]);
      if (ta < 0 || !t->axis_known[ta])
        {
          if (known[a])
            return FALSE;
          continue;
        }
      if (!known[a] || c[a] != t->axes[ta])
        return FALSE;
    }
  for (size_t f = 0; f < t->n_fields; f++)
    {
      int64_t v;

      if (field_map[f] < 0)
        return FALSE;
      v = g_array_index (b->fields, int64_t, i * b->n_fields + (size_t) field_map[f]);
      if (!field_matches (t->fields[f], v, t->matchers[f]))
        return FALSE;
    }
  return TRUE;
}

msperf_index_set *
msperf_index_bucket_set (msperf_index_cache *c, msperf_index_bucket *b, const size_t *axes,
                         int dim, const msperf_point *t, msperf_interp_aggregate_kind kind,
                         gboolean sqrt_seq)
{
  g_autofree char *key = NULL;
  msperf_index_set *s;
  int field_map[MSPERF_POINT_MAX_FIELDS];
  g_autofree double *transformed = NULL;

  g_return_val_if_fail (c != NULL && b != NULL && axes != NULL && t != NULL, NULL);
  g_return_val_if_fail (dim >= 1 && dim <= MSPERF_DELAUNAY_MAX_DIM, NULL);
  key = set_key (b, axes, dim, t, kind, sqrt_seq);
  s = g_hash_table_lookup (b->sets, key);
  if (s)
    {
      c->stats.set_hits++;
      return s;
    }
  c->stats.set_builds++;
  for (size_t f = 0; f < t->n_fields; f++)
    field_map[f] = bucket_field (b, t->field_names[f]);

  s = g_new0 (msperf_index_set, 1);
  s->dim = dim;
  for (int j = 0; j < dim; j++)
    {
      s->axes[j] = axes[j];
      s->transformed[j] = sqrt_seq && strcmp (b->axis_names[axes[j]], "seq") == 0;
    }
  s->raw = g_new (double, b->n * (size_t) dim + 1);
  s->raw_latency = g_new (double, b->n + 1);
  s->raw_lines = g_new (guint, b->n + 1);
  transformed = g_new (double, b->n * (size_t) dim + 1);
  for (size_t i = 0; i < b->n; i++)
    {
      const double *pc = &g_array_index (b->coords, double, i * b->n_axes);
      size_t at = s->n_filtered;

      if (!point_passes (b, i, axes, dim, t, field_map))
        continue;
      for (int j = 0; j < dim; j++)
        {
          double v = pc[axes[j]];

          s->raw[at * (size_t) dim + (size_t) j] = v;
          transformed[at * (size_t) dim + (size_t) j] = s->transformed[j] ? sqrt (v) : v;
        }
      s->raw_latency[at] = g_array_index (b->latency, double, i);
      s->raw_lines[at] = g_array_index (b->lines, guint, i);
      s->n_filtered++;
    }
  msperf_interp_aggregate (transformed, s->raw_latency, s->n_filtered, dim, kind, &s->coords,
                           &s->values, &s->counts);
  s->n_unique = s->counts.aggregated;
  g_hash_table_insert (b->sets, g_steal_pointer (&key), s);
  return s;
}

const msperf_delaunay *
msperf_index_set_delaunay (msperf_index_cache *c, msperf_index_set *s,
                           msperf_interp_status *status, const char **message)
{
  g_return_val_if_fail (c != NULL && s != NULL && s->dim >= 2, NULL);
  if (!s->tri_done)
    {
      g_autoptr (GError) error = NULL;

      s->tri_done = TRUE;
      c->stats.tri_builds++;
      s->tri = msperf_delaunay_new (s->coords, s->n_unique, s->dim, &error);
      s->tri_status = msperf_interp_status_from_error (error);
      if (error)
        s->tri_message = g_strdup (error->message);
    }
  if (status)
    *status = s->tri ? MSPERF_INTERP_OK : s->tri_status;
  if (message)
    *message = s->tri_message;
  return s->tri;
}

void
msperf_index_set_free (msperf_index_set *s)
{
  set_free (s);
}

msperf_index_set *
msperf_index_set_without (const msperf_index_set *s, const double *raw_target,
                          msperf_interp_aggregate_kind kind)
{
  msperf_index_set *o;
  size_t dim;
  g_autofree double *transformed = NULL;

  g_return_val_if_fail (s != NULL && raw_target != NULL, NULL);
  dim = (size_t) s->dim;
  o = g_new0 (msperf_index_set, 1);
  o->dim = s->dim;
  memcpy (o->axes, s->axes, sizeof o->axes);
  memcpy (o->transformed, s->transformed, sizeof o->transformed);
  o->raw = g_new (double, s->n_filtered * dim + 1);
  o->raw_latency = g_new (double, s->n_filtered + 1);
  o->raw_lines = g_new (guint, s->n_filtered + 1);
  transformed = g_new (double, s->n_filtered * dim + 1);
  for (size_t i = 0; i < s->n_filtered; i++)
    {
      const double *r = &s->raw[i * dim];
      gboolean at_target = TRUE;

      for (size_t j = 0; j < dim && at_target; j++)
        at_target = r[j] == raw_target[j];
      if (at_target)
        continue;
      for (size_t j = 0; j < dim; j++)
        {
          o->raw[o->n_filtered * dim + j] = r[j];
          transformed[o->n_filtered * dim + j] = o->transformed[j] ? sqrt (r[j]) : r[j];
        }
      o->raw_latency[o->n_filtered] = s->raw_latency[i];
      o->raw_lines[o->n_filtered] = s->raw_lines[i];
      o->n_filtered++;
    }
  msperf_interp_aggregate (transformed, o->raw_latency, o->n_filtered, o->dim, kind, &o->coords,
                           &o->values, &o->counts);
  o->n_unique = o->counts.aggregated;
  return o;
}
