/* msperf — the candidate index (see index.h): buckets of described rows and, per bucket, the
 * cached filtered point sets and triangulations the interpolation stage asks for. */
#include <config.h>
#include <msperf/format.h>
#include <math.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/shape.h>
#include "interp/index.h"
#include "interp/tri_cache.h"

struct msperf_index {
  char *kernel;
  char *table_hash;
  char *policy_hash;
  char *mode;
  int64_t tc_input_count;
  size_t n_rows;              /* valid rows offered to describe_row */
  size_t n_points;
  GPtrArray *buckets;         /* msperf_index_bucket*, owned, in first-row order */
  GHashTable *by_key;         /* regime \x1f group → bucket (borrowed) */
  GHashTable *by_regime;      /* regime → GPtrArray of buckets (borrowed), sorted */
  gpointer stage_data;
  GDestroyNotify stage_data_free;
};

struct msperf_index_cache {
  GHashTable *indexes;        /* cache key → msperf_index* */
  msperf_index *last;         /* the index returned last (borrowed): most queries ask again */
  msperf_index_stats stats;
  char *tri_dir;              /* the on-disk triangulation cache (tri_cache.h); NULL: none */
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
  g_free (s->ucoords);
  g_free (s->log_values);
  for (int j = 0; j < MSPERF_DELAUNAY_MAX_DIM; j++)
    {
      g_free (s->axis_values[j]);
      g_free (s->raw_values[j]);
    }
  msperf_delaunay_free (s->tri);
  g_free (s->tri_message);
  g_free (s);
}

/* The points of one bucket for one axis group, grouped by the values of the other axes (the
 * filter's axis part): a request reads only the points of its group. Points that can pass no
 * filter of this group (a selected axis unknown, a known NaN on another axis) are in none. */
typedef struct {
  int dim;
  size_t axes[MSPERF_DELAUNAY_MAX_DIM];
  size_t n_other;
  size_t other[MSPERF_POINT_MAX_AXES];
  size_t n_groups;
  size_t *rep;                  /* one point of each group */
  guint64 *hash;                /* each group's hash */
  size_t *start;                /* n_groups + 1 offsets into members */
  size_t *members;              /* point indices, ascending within a group */
  size_t mask;                  /* slots − 1 (a power of two minus one) */
  size_t *slots;                /* group + 1; 0 = free */
  GHashTable *sets;             /* filter key → msperf_index_set* */
  msperf_index_set *empty[2][3];  /* the set of every empty group, by [kind][transform] */
} partition;

static void
partition_free (partition *p)
{
  if (p == NULL)
    return;
  g_free (p->rep);
  g_free (p->hash);
  g_free (p->start);
  g_free (p->members);
  g_free (p->slots);
  g_hash_table_unref (p->sets);
  for (int k = 0; k < 2; k++)
    for (int q = 0; q < 3; q++)
      set_free (p->empty[k][q]);
  g_free (p);
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
  b->partitions = g_ptr_array_new_with_free_func ((GDestroyNotify) partition_free);
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
  g_ptr_array_unref (b->partitions);
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
  if (idx->stage_data_free)
    idx->stage_data_free (idx->stage_data);
  g_hash_table_unref (idx->by_regime);
  g_hash_table_unref (idx->by_key);
  g_ptr_array_unref (idx->buckets);
  g_free (idx->kernel);
  g_free (idx->table_hash);
  g_free (idx->policy_hash);
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
index_build (msperf_index_row_func describe_row, gpointer user_data, const msperf_table *table,
             const char *mode, const char *policy_hash, int64_t tc_input_count)
{
  msperf_index *idx = g_new0 (msperf_index, 1);
  GHashTableIter it;
  gpointer key, value;

  idx->kernel = g_strdup (msperf_table_kernel_type (table));
  idx->table_hash = g_strdup (msperf_table_hash (table));
  idx->policy_hash = g_strdup (policy_hash ? policy_hash : "");
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
      if (!describe_row (user_data, table, row, &p))
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

gpointer
msperf_index_get_stage_data (const msperf_index *index)
{
  g_return_val_if_fail (index != NULL, NULL);
  return index->stage_data;
}

void
msperf_index_set_stage_data (msperf_index *index, gpointer data, GDestroyNotify destroy)
{
  g_return_if_fail (index != NULL);
  if (index->stage_data_free)
    index->stage_data_free (index->stage_data);
  index->stage_data = data;
  index->stage_data_free = destroy;
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
  g_free (c->tri_dir);
  g_free (c);
}

void
msperf_index_cache_set_tri_dir (msperf_index_cache *c, const char *dir)
{
  g_return_if_fail (c != NULL);
  g_free (c->tri_dir);
  c->tri_dir = g_strdup (dir);
}

void
msperf_index_cache_clear (msperf_index_cache *c)
{
  g_return_if_fail (c != NULL);
  c->last = NULL;
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
msperf_index_cache_get (msperf_index_cache *c, msperf_index_row_func describe_row,
                        gpointer user_data, const msperf_table *table, const char *mode, const char *policy_hash,
                        int64_t tc_input_count, gboolean *hit)
{
  g_autofree char *key = NULL;
  msperf_index *idx;
  stale_match m;

  g_return_val_if_fail (c != NULL && describe_row != NULL
                        && table != NULL && mode != NULL, NULL);
  /* The same key as the last request (the common case): no key string, no hashing. */
  idx = c->last;
  if (idx && idx->tc_input_count == tc_input_count && strcmp (idx->mode, mode) == 0
      && strcmp (idx->policy_hash, policy_hash ? policy_hash : "") == 0
      && strcmp (idx->kernel, msperf_table_kernel_type (table)) == 0
      && strcmp (idx->table_hash, msperf_table_hash (table)) == 0)
    {
      if (hit)
        *hit = TRUE;
      c->stats.index_hits++;
      return idx;
    }
  key = g_strdup_printf ("%s\x1f%s\x1f%s\x1f%s\x1f%" G_GINT64_FORMAT,
                         msperf_table_kernel_type (table), msperf_table_hash (table),
                         policy_hash ? policy_hash : "", mode, tc_input_count);
  idx = g_hash_table_lookup (c->indexes, key);
  if (hit)
    *hit = idx != NULL;
  if (idx)
    {
      c->stats.index_hits++;
      c->last = idx;
      return idx;
    }
  m.kernel = msperf_table_kernel_type (table);
  m.mode = mode;
  m.tc = tc_input_count;
  c->last = NULL;   /* it may be one of the stale indexes removed here */
  g_hash_table_foreach_remove (c->indexes, is_stale, &m);
  idx = index_build (describe_row, user_data, table, mode, policy_hash, tc_input_count);
  c->stats.index_builds++;
  g_hash_table_insert (c->indexes, g_steal_pointer (&key), idx);
  c->last = idx;
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

/* ------------------------------------------------------------------ partitions */

static guint64
mix64 (guint64 h)
{
  /* murmur3's finaliser: every input bit reaches the low bits the slots use. */
  h ^= h >> 33;
  h *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  h ^= h >> 33;
  h *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  h ^= h >> 33;
  return h;
}

/* Hash of the other axes' values; equal values (==, so −0.0 and 0.0 too) hash equally. */
static guint64
values_hash (const double *v, const gboolean *known, size_t n)
{
  guint64 h = G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);

  for (size_t k = 0; k < n; k++)
    {
      guint64 bits = G_GUINT64_CONSTANT (0x5bd1e9955bd1e995);

      if (known[k])
        {
          double x = v[k] == 0.0 ? 0.0 : v[k];
          memcpy (&bits, &x, sizeof bits);
        }
      h = mix64 (h ^ bits) + k;
    }
  return h;
}

/* The other axes of point i as (value, known); FALSE when it can pass no filter of p. */
static gboolean
point_other_values (const msperf_index_bucket *b, const partition *p, size_t i, double *v,
                    gboolean *known)
{
  const double *c = &g_array_index (b->coords, double, i * b->n_axes);
  const guint8 *k = &g_array_index (b->known, guint8, i * b->n_axes);

  for (int j = 0; j < p->dim; j++)
    if (!k[p->axes[j]])
      return FALSE;
  for (size_t o = 0; o < p->n_other; o++)
    {
      known[o] = k[p->other[o]] != 0;
      v[o] = c[p->other[o]];
      if (known[o] && isnan (v[o]))
        return FALSE;   /* NaN equals no target value */
    }
  return TRUE;
}

/* point_passes' axis test: unknown on both sides, or known on both and equal. */
static gboolean
same_other_values (const msperf_index_bucket *b, const partition *p, size_t i,
                   const double *v, const gboolean *known)
{
  const double *c = &g_array_index (b->coords, double, i * b->n_axes);
  const guint8 *k = &g_array_index (b->known, guint8, i * b->n_axes);

  for (size_t o = 0; o < p->n_other; o++)
    {
      if ((k[p->other[o]] != 0) != known[o])
        return FALSE;
      if (known[o] && c[p->other[o]] != v[o])
        return FALSE;
    }
  return TRUE;
}

static size_t
partition_probe (const msperf_index_bucket *b, const partition *p, guint64 h, const double *v,
                 const gboolean *known, size_t *slot)
{
  size_t at = (size_t) h & p->mask;

  while (p->slots[at] != 0)
    {
      size_t g = p->slots[at] - 1;

      if (p->hash[g] == h && same_other_values (b, p, p->rep[g], v, known))
        {
          *slot = at;
          return g;
        }
      at = (at + 1) & p->mask;
    }
  *slot = at;
  return G_MAXSIZE;
}

static void
partition_grow (partition *p)
{
  size_t cap = (p->mask + 1) * 2;

  g_free (p->slots);
  p->slots = g_new0 (size_t, cap);
  p->mask = cap - 1;
  for (size_t g = 0; g < p->n_groups; g++)
    {
      size_t at = (size_t) p->hash[g] & p->mask;

      while (p->slots[at] != 0)
        at = (at + 1) & p->mask;
      p->slots[at] = g + 1;
    }
}

static partition *
partition_build (const msperf_index_bucket *b, const size_t *axes, int dim)
{
  partition *p = g_new0 (partition, 1);
  g_autofree size_t *gid = g_new (size_t, b->n + 1);
  g_autofree size_t *fill = NULL;
  size_t cap_groups = 16;

  p->dim = dim;
  memcpy (p->axes, axes, sizeof (size_t) * (size_t) dim);
  for (size_t a = 0; a < b->n_axes; a++)
    if (!is_selected (axes, dim, a))
      p->other[p->n_other++] = a;
  p->sets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) set_free);
  p->mask = 63;
  p->slots = g_new0 (size_t, p->mask + 1);
  p->rep = g_new (size_t, cap_groups);
  p->hash = g_new (guint64, cap_groups);
  p->start = g_new0 (size_t, cap_groups + 1);
  for (size_t i = 0; i < b->n; i++)
    {
      double v[MSPERF_POINT_MAX_AXES];
      gboolean known[MSPERF_POINT_MAX_AXES];
      guint64 h;
      size_t slot, g;

      gid[i] = G_MAXSIZE;
      if (!point_other_values (b, p, i, v, known))
        continue;
      h = values_hash (v, known, p->n_other);
      g = partition_probe (b, p, h, v, known, &slot);
      if (g == G_MAXSIZE)
        {
          if (p->n_groups == cap_groups)
            {
              cap_groups *= 2;
              p->rep = g_renew (size_t, p->rep, cap_groups);
              p->hash = g_renew (guint64, p->hash, cap_groups);
              p->start = g_renew (size_t, p->start, cap_groups + 1);
            }
          g = p->n_groups++;
          p->rep[g] = i;
          p->hash[g] = h;
          p->start[g] = 0;
          p->slots[slot] = g + 1;
          if (p->n_groups * 2 > p->mask + 1)
            partition_grow (p);
        }
      gid[i] = g;
      p->start[g]++;
    }
  /* Counts → offsets, then the members in point order (ascending within each group). */
  {
    size_t sum = 0;

    for (size_t g = 0; g < p->n_groups; g++)
      {
        size_t n = p->start[g];
        p->start[g] = sum;
        sum += n;
      }
    p->start[p->n_groups] = sum;
    p->members = g_new (size_t, sum + 1);
  }
  fill = g_memdup2 (p->start, (p->n_groups + 1) * sizeof (size_t));
  for (size_t i = 0; i < b->n; i++)
    if (gid[i] != G_MAXSIZE)
      p->members[fill[gid[i]]++] = i;
  return p;
}

static partition *
bucket_partition (msperf_index_bucket *b, const size_t *axes, int dim)
{
  partition *p;

  for (guint k = 0; k < b->partitions->len; k++)
    {
      p = g_ptr_array_index (b->partitions, k);
      if (p->dim == dim && memcmp (p->axes, axes, sizeof (size_t) * (size_t) dim) == 0)
        return p;
    }
  p = partition_build (b, axes, dim);
  g_ptr_array_add (b->partitions, p);
  return p;
}

/* The group of the points whose other axes match the target's, G_MAXSIZE when none. */
static size_t
partition_find (const msperf_index_bucket *b, const partition *p, const msperf_point *t)
{
  double v[MSPERF_POINT_MAX_AXES];
  gboolean known[MSPERF_POINT_MAX_AXES];
  size_t slot;

  for (size_t o = 0; o < p->n_other; o++)
    {
      int ta = target_axis (t, b->axis_names[p->other[o]]);

      known[o] = ta >= 0 && t->axis_known[ta];
      v[o] = known[o] ? t->axes[ta] : 0.0;
      if (known[o] && isnan (v[o]))
        return G_MAXSIZE;
    }
  return partition_probe (b, p, values_hash (v, known, p->n_other), v, known, &slot);
}

/* ------------------------------------------------------------------ sets */

/* Everything a set of one group depends on besides the group: the target's exact fields,
 * the aggregation and the transform. */
static char *
set_key (size_t group, const msperf_point *t, msperf_interp_aggregate_kind kind,
         msperf_index_transform transform)
{
  GString *s = g_string_sized_new (64);

  /* "group:kind:transform|name=value/matcher…", by appends (once per group tried) */
  msperf_fmt_int (s, (int64_t) group);
  g_string_append_c (s, ':');
  msperf_fmt_int (s, (int64_t) kind);
  g_string_append_c (s, ':');
  msperf_fmt_int (s, (int64_t) transform);
  for (size_t f = 0; f < t->n_fields; f++)
    {
      g_string_append_c (s, '|');
      g_string_append (s, t->field_names[f]);
      g_string_append_c (s, '=');
      msperf_fmt_int (s, t->fields[f]);
      g_string_append_c (s, '/');
      msperf_fmt_int (s, (int64_t) t->matchers[f]);
    }
  return g_string_free (s, FALSE);
}

/* The exact-field part of the filter (the axis part is the group's). */
static gboolean
fields_pass (const msperf_index_bucket *b, size_t i, const msperf_point *t, const int *field_map)
{
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

static int
cmp_value_index (const void *a, const void *b)
{
  const double *x = a, *y = b;

  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Log space: the aggregated raw coordinates move to ucoords, coords become their log2 and the
 * aggregated latencies get their ln (latencies are > 0: invalid points were dropped). A
 * selected raw coordinate <= 0 has no logarithm: the set is marked and never interpolated. */
static void
log_space_finish (msperf_index_set *s)
{
  size_t n = s->n_unique * (size_t) s->dim;

  for (size_t i = 0; i < s->n_filtered * (size_t) s->dim; i++)
    if (!(s->raw[i] > 0.0))
      s->non_positive = TRUE;
  s->ucoords = s->coords;
  s->coords = g_new (double, n + 1);
  for (size_t i = 0; i < n; i++)
    s->coords[i] = s->ucoords[i] > 0.0 ? log2 (s->ucoords[i]) : NAN;
  s->log_values = g_new (double, s->n_unique + 1);
  for (size_t u = 0; u < s->n_unique; u++)
    s->log_values[u] = log (s->values[u]);
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Sorted distinct raw coordinates per axis, for the boundaries an answer shows in the
 * coordinates the user wrote (a scan of every filtered point per axis and query was a
 * twentieth of a warm log-space answer). Equal values (−0.0, 0.0) print alike, so which one
 * stays does not matter. */
static void
raw_values_finish (msperf_index_set *s)
{
  gboolean transformed = s->log_space;

  for (int j = 0; j < s->dim; j++)
    transformed |= s->transformed[j];
  if (!transformed)
    return;
  for (int j = 0; j < s->dim; j++)
    {
      double *v = g_new (double, s->n_filtered + 1);
      size_t n = 0, m = 0;

      for (size_t i = 0; i < s->n_filtered; i++)
        if (!isnan (s->raw[i * (size_t) s->dim + (size_t) j]))
          v[n++] = s->raw[i * (size_t) s->dim + (size_t) j];
      if (n > 1)
        qsort (v, n, sizeof (double), cmp_double);
      for (size_t k = 0; k < n; k++)
        if (m == 0 || v[k] != v[m - 1])
          v[m++] = v[k];
      s->raw_values[j] = v;
      s->n_raw_values[j] = m;
    }
}

/* TRUE when on every axis some coordinate compares unequal to the first point's (NaN compares
 * unequal to everything, as in the grid check this answers once per set instead of per query). */
static gboolean
axes_vary (const msperf_index_set *s)
{
  for (int j = 0; j < s->dim; j++)
    {
      gboolean two = FALSE;

      for (size_t u = 1; u < s->n_unique && !two; u++)
        two = s->coords[u * (size_t) s->dim + (size_t) j] != s->coords[(size_t) j];
      if (!two)
        return FALSE;
    }
  return TRUE;
}

/* Aggregation of the filtered points (transformed coordinates given), then per axis the
 * distinct coordinates in ascending order for msperf_index_set_boundary: of equal values (−0.0
 * and 0.0) the first in coords order is kept, the one msperf_interp_find_boundary returns. */
static void
set_finish (msperf_index_set *s, const double *transformed, msperf_interp_aggregate_kind kind)
{
  g_autofree double *pairs = NULL;

  msperf_interp_aggregate (transformed, s->raw_latency, s->n_filtered, s->dim, kind, &s->coords,
                           &s->values, &s->counts);
  s->n_unique = s->counts.aggregated;
  if (s->log_space)
    log_space_finish (s);
  pairs = g_new (double, 2 * s->n_unique + 2);
  for (int j = 0; j < s->dim; j++)
    {
      size_t n = 0, m = 0;

      for (size_t u = 0; u < s->n_unique; u++)
        {
          double v = s->coords[u * (size_t) s->dim + (size_t) j];

          if (isnan (v))
            continue;
          pairs[2 * n] = v;
          pairs[2 * n + 1] = (double) u;
          n++;
        }
      if (n > 1)
        qsort (pairs, n, 2 * sizeof (double), cmp_value_index);
      s->axis_values[j] = g_new (double, n + 1);
      for (size_t k = 0; k < n; k++)
        if (m == 0 || pairs[2 * k] != s->axis_values[j][m - 1])
          s->axis_values[j][m++] = pairs[2 * k];
      s->n_axis_values[j] = m;
    }
  raw_values_finish (s);
  s->axes_vary = axes_vary (s);
}

/* The set of the given points of b (members, ascending) passing the target's exact fields
 * (t NULL: all of them). */
static msperf_index_set *
set_build (const msperf_index_bucket *b, const size_t *axes, int dim, const size_t *members,
           size_t n_members, const msperf_point *t, msperf_interp_aggregate_kind kind,
           msperf_index_transform transform)
{
  msperf_index_set *s = g_new0 (msperf_index_set, 1);
  int field_map[MSPERF_POINT_MAX_FIELDS];
  g_autofree double *transformed = NULL;

  for (size_t f = 0; t && f < t->n_fields; f++)
    field_map[f] = bucket_field (b, t->field_names[f]);
  s->dim = dim;
  s->log_space = transform == MSPERF_INDEX_LOG;
  for (int j = 0; j < dim; j++)
    {
      s->axes[j] = axes[j];
      s->transformed[j] = transform == MSPERF_INDEX_SQRT_SEQ
                          && strcmp (b->axis_names[axes[j]], "seq") == 0;
    }
  s->raw = g_new (double, n_members * (size_t) dim + 1);
  s->raw_latency = g_new (double, n_members + 1);
  s->raw_lines = g_new (guint, n_members + 1);
  transformed = g_new (double, n_members * (size_t) dim + 1);
  for (size_t m = 0; m < n_members; m++)
    {
      size_t i = members[m], at = s->n_filtered;
      const double *pc = &g_array_index (b->coords, double, i * b->n_axes);

      if (t && !fields_pass (b, i, t, field_map))
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
  set_finish (s, transformed, kind);
  return s;
}

msperf_index_set *
msperf_index_bucket_set (msperf_index_cache *c, msperf_index_bucket *b, const size_t *axes,
                         int dim, const msperf_point *t, msperf_interp_aggregate_kind kind,
                         msperf_index_transform transform)
{
  g_autofree char *key = NULL;
  msperf_index_set *s, **empty;
  partition *p;
  size_t g;

  g_return_val_if_fail (c != NULL && b != NULL && axes != NULL && t != NULL, NULL);
  g_return_val_if_fail (dim >= 1 && dim <= MSPERF_DELAUNAY_MAX_DIM, NULL);
  g_return_val_if_fail (transform >= MSPERF_INDEX_LINEAR && transform <= MSPERF_INDEX_LOG, NULL);
  p = bucket_partition (b, axes, dim);
  g = partition_find (b, p, t);
  if (g == G_MAXSIZE)
    {
      /* No point has the target's other coordinates: whatever the fields, the set is empty,
       * and one empty set serves every such request (nothing cached per target). */
      empty = &p->empty[kind == MSPERF_INTERP_AGGREGATE_MEAN][transform];
      if (*empty == NULL)
        {
          c->stats.set_builds++;
          *empty = set_build (b, axes, dim, NULL, 0, NULL, kind, transform);
        }
      else
        c->stats.set_hits++;
      return *empty;
    }
  key = set_key (g, t, kind, transform);
  s = g_hash_table_lookup (p->sets, key);
  if (s)
    {
      c->stats.set_hits++;
      return s;
    }
  c->stats.set_builds++;
  s = set_build (b, axes, dim, p->members + p->start[g], p->start[g + 1] - p->start[g], t, kind,
                 transform);
  g_hash_table_insert (p->sets, g_steal_pointer (&key), s);
  return s;
}

/* The bracket of t in v (n ascending distinct values): the last value ≤ t and the first ≥ t. */
static gboolean
bracket (const double *v, size_t n, double t, double *lo, double *hi)
{
  size_t a, b;

  if (isnan (t) || n == 0 || t < v[0] || t > v[n - 1])
    return FALSE;
  /* The last value ≤ t: v[a] ≤ t < v[b] throughout (or t == v[n-1]). */
  a = 0;
  b = n;
  while (b - a > 1)
    {
      size_t mid = a + (b - a) / 2;

      if (v[mid] <= t)
        a = mid;
      else
        b = mid;
    }
  if (lo)
    *lo = v[a];
  if (hi)
    *hi = v[a] == t || a + 1 == n ? v[a] : v[a + 1];
  return TRUE;
}

gboolean
msperf_index_set_boundary (const msperf_index_set *s, int j, double t, double *lo, double *hi)
{
  g_return_val_if_fail (s != NULL && j >= 0 && j < s->dim, FALSE);
  return bracket (s->axis_values[j], s->n_axis_values[j], t, lo, hi);
}

gboolean
msperf_index_set_raw_boundary (const msperf_index_set *s, int j, double t, double *lo,
                               double *hi)
{
  g_return_val_if_fail (s != NULL && j >= 0 && j < s->dim, FALSE);
  return s->raw_values[j] != NULL && bracket (s->raw_values[j], s->n_raw_values[j], t, lo, hi);
}

const msperf_delaunay *
msperf_index_set_delaunay (msperf_index_cache *c, msperf_index_set *s,
                           msperf_interp_status *status, const char **message)
{
  g_return_val_if_fail (c != NULL && s != NULL && s->dim >= 2, NULL);
  if (!s->tri_done)
    {
      g_autoptr (GError) error = NULL;

      gboolean loaded = FALSE;

      s->tri_done = TRUE;
      c->stats.tri_builds++;
      /* Leave-one-out sets are asked once each: caching them would fill the disk. */
      s->tri = msperf_tri_cache_delaunay (s->transient ? NULL : c->tri_dir, s->coords,
                                          s->n_unique, s->dim, &loaded, &error);
      if (loaded)
        c->stats.tri_cache_loads++;
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
  o->transient = TRUE;
  o->dim = s->dim;
  memcpy (o->axes, s->axes, sizeof o->axes);
  memcpy (o->transformed, s->transformed, sizeof o->transformed);
  o->log_space = s->log_space;
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
  set_finish (o, transformed, kind);
  return o;
}

msperf_index_bucket *
msperf_index_bucket_copy_below (const msperf_index_bucket *b, size_t axis, double below)
{
  msperf_index_bucket *c;
  msperf_point p;

  g_return_val_if_fail (b != NULL && axis < b->n_axes, NULL);
  /* bucket_new takes the names from a point: describe b as one. */
  msperf_point_init (&p);
  p.n_axes = b->n_axes;
  for (size_t k = 0; k < b->n_axes; k++)
    p.axis_names[k] = b->axis_names[k];
  p.n_fields = b->n_fields;
  for (size_t k = 0; k < b->n_fields; k++)
    {
      p.field_names[k] = b->field_names[k];
      p.matchers[k] = b->field_matchers[k];
    }
  if (b->group[0])
    msperf_point_set_group (&p, b->group, b->group_rank);
  c = bucket_new (b->regime, &p, b->first_row);
  msperf_point_clear (&p);
  for (size_t i = 0; i < b->n; i++)
    {
      const double *x = &g_array_index (b->coords, double, i * b->n_axes);
      const guint8 *known = &g_array_index (b->known, guint8, i * b->n_axes);

      /* An unknown coordinate is not an outer value: it stays. */
      if (known[axis] && !(x[axis] < below))
        continue;
      g_array_append_vals (c->coords, x, b->n_axes);
      g_array_append_vals (c->known, known, b->n_axes);
      g_array_append_vals (c->fields, &g_array_index (b->fields, int64_t, i * b->n_fields),
                           b->n_fields);
      g_array_append_vals (c->latency, &g_array_index (b->latency, double, i), 1);
      g_array_append_vals (c->lines, &g_array_index (b->lines, guint, i), 1);
      c->n++;
    }
  return c;
}

void
msperf_index_bucket_free (msperf_index_bucket *b)
{
  bucket_free (b);
}
