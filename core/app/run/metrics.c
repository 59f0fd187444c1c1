/* msperf — upstream metrics M1–M5 and the run summary.
 * Definitions: reference profiling-semantics §3.1–§3.3 (MetricsCollector,
 * compute_fused_op_stats, compute_per_shape_stats); quirk Q12: one metrics record per
 * distinct signature. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "base/str_hash.h"
#include "app/run/metrics.h"
#include "app/run/digest.h"
#include <msperf/format.h>

/* ------------------------------------------------------------------ classification */

static gboolean
source_is_hit (msperf_source s)
{
  return s == MSPERF_SOURCE_MEASURED || s == MSPERF_SOURCE_INTERPOLATED;
}

static gboolean
is_zero_cost_kind (const char *metric_kt)
{
  return g_strcmp0 (metric_kt, "zero_cost") == 0 || g_strcmp0 (metric_kt, "accepted_miss") == 0;
}

static msperf_metric_record *
metric_record_new (const msperf_digest *d)
{
  msperf_metric_record *m = g_new0 (msperf_metric_record, 1);

  m->record = d->record;
  m->digest = d;
  m->invocations = d->count;
  m->hit = source_is_hit (d->source);
  /* An unknown analytic estimate weighs nothing rather than poisoning the M5 sums. */
  m->analytic_s = isfinite (d->analytic_us) ? d->analytic_us / 1e6 : 0.0;
  if (m->hit)
    m->metric_kernel_type = d->label;
  else
    m->reason = d->label;
  return m;
}

/* ------------------------------------------------------------------ M2 / M3 */

/* DEFAULT_FUSED_GROUPS, in upstream order (the first matching prefix wins). */
static const struct { const char *group; const char *prefix; } fused_prefixes[] = {
  { "DispatchFFNCombine", "tensor_cast.init_routing_v2" },
  { "DispatchFFNCombine", "tensor_cast.grouped_matmul" },
  { "DispatchFFNCombine", "tensor_cast.unpermute_tokens" },
  { "DispatchFFNCombine", "tensor_cast.all_to_all" },
  { "MLAPO", "tensor_cast.mlapo" },
  { "MLAPO", "tensor_cast.mlapo_quant" },
  { "MLA", "tensor_cast.multihead_latent_attention" },
  { "MC2", "tensor_cast.matmul_all_reduce" },
  { "MC2", "tensor_cast.static_quant_linear_all_reduce" },
  { "MC2", "tensor_cast.fp8_linear_all_reduce" },
};

const char *
msperf_metrics_fused_group (const char *func_name)
{
  g_return_val_if_fail (func_name != NULL, NULL);
  for (gsize k = 0; k < G_N_ELEMENTS (fused_prefixes); k++)
    if (g_str_has_prefix (func_name, fused_prefixes[k].prefix))
      return fused_prefixes[k].group;
  return NULL;
}

static void
compute_fused (msperf_metrics *m)
{
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) missed = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) zc = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) hit_groups = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) miss_groups = g_hash_table_new (g_str_hash, g_str_equal);
  int64_t ungrouped_hits = 0, ungrouped_hits_no_zc = 0, ungrouped_misses = 0;
  int64_t grouped_hits = 0, all_groups, zc_hit_names = 0;
  GHashTableIter it;
  gpointer key;

  for (guint k = 0; k < m->records->len; k++)
    {
      const msperf_metric_record *mr = g_ptr_array_index (m->records, k);
      const char *name = mr->digest->name;

      g_hash_table_add (names, (gpointer) name);
      if (!mr->hit)
        g_hash_table_add (missed, (gpointer) name);
      else if (is_zero_cost_kind (mr->metric_kernel_type))
        g_hash_table_add (zc, (gpointer) name);
    }
  g_hash_table_iter_init (&it, names);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      const char *group = msperf_metrics_fused_group (key);

      if (g_hash_table_contains (missed, key))
        {
          /* Pessimistic: a name that missed once is a miss name. */
          if (group)
            g_hash_table_add (miss_groups, (gpointer) group);
          else
            ungrouped_misses++;
          continue;
        }
      if (g_hash_table_contains (zc, key))
        zc_hit_names++;
      if (group)
        g_hash_table_add (hit_groups, (gpointer) group);
      else
        {
          ungrouped_hits++;
          if (!g_hash_table_contains (zc, key))
            ungrouped_hits_no_zc++;
        }
    }
  all_groups = g_hash_table_size (miss_groups);
  g_hash_table_iter_init (&it, hit_groups);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (!g_hash_table_contains (miss_groups, key))
      {
        grouped_hits++;
        all_groups++;
      }
  m->m2_fused_hit = ungrouped_hits + grouped_hits;
  m->m2_fused_miss = ungrouped_misses + (all_groups - grouped_hits);
  m->m2_fused_total = m->m2_fused_hit + m->m2_fused_miss;
  m->m2_hr = m->m2_fused_total > 0 ? (double) m->m2_fused_hit / (double) m->m2_fused_total : 0;
  m->m3_hit = ungrouped_hits_no_zc + grouped_hits;
  m->m3_total = m->m2_fused_total - zc_hit_names;
  m->m3_hr = m->m3_total > 0 ? (double) m->m3_hit / (double) m->m3_total : 0;
}

/* ------------------------------------------------------------------ M4 */

static char *
shape_key (const msperf_metric_record *mr)
{
  GString *s = g_string_new (mr->digest->name);

  g_string_append_c (s, '\x01');
  for (guint k = 0; k < mr->digest->n_shapes; k++)
    {
      msperf_tensor t;

      msperf_digest_shape (mr->digest, k, &t);
      msperf_fmt_py_shape (s, &t);
    }
  return g_string_free (s, FALSE);
}

/* Python tuple ordering: (func_name, ((d, …), …)) element by element, shorter prefix first. */
static int
shape_pair_cmp (gconstpointer pa, gconstpointer pb)
{
  const msperf_metric_record *a = *(msperf_metric_record *const *) pa;
  const msperf_metric_record *b = *(msperf_metric_record *const *) pb;
  guint na = a->digest->n_shapes, nb = b->digest->n_shapes;
  int c = strcmp (a->digest->name, b->digest->name);

  if (c != 0)
    return c;
  for (guint k = 0; k < na && k < nb; k++)
    {
      msperf_tensor ta, tb;

      msperf_digest_shape (a->digest, k, &ta);
      msperf_digest_shape (b->digest, k, &tb);
      for (int d = 0; d < ta.rank && d < tb.rank; d++)
        if (ta.dims[d] != tb.dims[d])
          return ta.dims[d] < tb.dims[d] ? -1 : 1;
      if (ta.rank != tb.rank)
        return ta.rank < tb.rank ? -1 : 1;
    }
  if (na != nb)
    return na < nb ? -1 : 1;
  return 0;
}

static void
compute_per_shape (msperf_metrics *m)
{
  /* shape keys are long: hashed eight bytes at a time (base/str_hash.h); never iterated */
  g_autoptr (GHashTable) hits = g_hash_table_new_full (msperf_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) misses = g_hash_table_new_full (msperf_str_hash, g_str_equal, g_free, NULL);

  for (guint k = 0; k < m->records->len; k++)
    {
      msperf_metric_record *mr = g_ptr_array_index (m->records, k);
      if (mr->hit && !is_zero_cost_kind (mr->metric_kernel_type))
        g_hash_table_add (hits, shape_key (mr));
    }
  for (guint k = 0; k < m->records->len; k++)
    {
      msperf_metric_record *mr = g_ptr_array_index (m->records, k);
      char *key;

      if (mr->hit)
        continue;
      key = shape_key (mr);
      /* A pair that both hit and missed counts as hit. */
      if (g_hash_table_contains (hits, key) || g_hash_table_contains (misses, key))
        {
          g_free (key);
          continue;
        }
      g_hash_table_add (misses, key);
      g_ptr_array_add (m->m4_miss_shapes, mr);
    }
  g_ptr_array_sort (m->m4_miss_shapes, shape_pair_cmp);
  m->m4_hit_shapes = g_hash_table_size (hits);
  m->m4_total_shapes = m->m4_hit_shapes + (int64_t) m->m4_miss_shapes->len;
  m->m4_hr = m->m4_total_shapes > 0
    ? (double) m->m4_hit_shapes / (double) m->m4_total_shapes : 0.0;
}

/* ------------------------------------------------------------------ compute */

msperf_metrics *
msperf_metrics_compute (const msperf_run *run)
{
  msperf_metrics *m;

  g_return_val_if_fail (run != NULL, NULL);
  m = g_new0 (msperf_metrics, 1);
  m->records = g_ptr_array_new_with_free_func (g_free);
  m->m4_miss_shapes = g_ptr_array_new ();
  m->digests = msperf_run_digests (run);
  for (guint k = 0; k < m->digests->len; k++)
    {
      const msperf_digest *d = g_ptr_array_index (m->digests, k);
      msperf_metric_record *mr;
      double weight;

      /* A metrics record: an answered op, not REJECTED (d->label is set exactly then). */
      if (d->label == NULL)
        continue;
      mr = metric_record_new (d);
      g_ptr_array_add (m->records, mr);
      weight = mr->analytic_s * (double) mr->invocations;
      /* Summed in record order, as upstream, so the floats match bit for bit. */
      m->m5_total_s += mr->analytic_s;
      m->inv_m5_total_s += weight;
      if (mr->hit)
        {
          m->m1_hit++;
          m->inv_hit = m->inv_hit > G_MAXINT64 - mr->invocations ? G_MAXINT64
                                                                  : m->inv_hit + mr->invocations;
          m->m5_hit_s += mr->analytic_s;
          m->inv_m5_hit_s += weight;
        }
      else
        {
          m->m1_miss++;
          m->inv_miss = m->inv_miss > G_MAXINT64 - mr->invocations ? G_MAXINT64
                                                                    : m->inv_miss + mr->invocations;
        }
    }
  m->m1_total = m->m1_hit + m->m1_miss;
  m->m1_hr = m->m1_total > 0 ? (double) m->m1_hit / (double) m->m1_total : 0;
  m->m5_coverage = m->m5_total_s > 0 ? m->m5_hit_s / m->m5_total_s : 0.0;
  m->inv_m1_hr = (m->inv_hit + m->inv_miss) > 0
    ? (double) m->inv_hit / (double) (m->inv_hit + m->inv_miss) : 0.0;
  m->inv_m5_coverage = m->inv_m5_total_s > 0 ? m->inv_m5_hit_s / m->inv_m5_total_s : 0.0;
  compute_fused (m);
  compute_per_shape (m);
  return m;
}

void
msperf_metrics_free (msperf_metrics *m)
{
  if (m == NULL)
    return;
  g_ptr_array_unref (m->records);
  g_ptr_array_unref (m->m4_miss_shapes);
  g_ptr_array_unref (m->digests);
  g_free (m);
}

/* ------------------------------------------------------------------ metrics JSON */

/* Upstream writes `x / total if total > 0 else 0`: an int 0 for M1–M3 on an empty run. */
static msperf_value *
ratio_value (double ratio, int64_t denominator, gboolean int_zero)
{
  return (denominator == 0 && int_zero) ? msperf_value_new_int (0) : msperf_value_new_double (ratio);
}

static msperf_value *
shapes_value (const msperf_digest *d)
{
  msperf_value *l = msperf_value_new (MSPERF_VALUE_LIST);

  for (guint k = 0; k < d->n_shapes; k++)
    {
      msperf_tensor t;

      msperf_digest_shape (d, k, &t);
      msperf_value_list_append (l, msperf_value_new_shape (&t));
    }
  return l;
}

msperf_value *
msperf_metrics_to_value (const msperf_metrics *m, gboolean with_misses)
{
  msperf_value *root, *sec, *list;

  g_return_val_if_fail (m != NULL, NULL);
  root = msperf_value_new (MSPERF_VALUE_MAP);

  sec = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value_map_set (sec, "m1_hit", msperf_value_new_int (m->m1_hit));
  msperf_value_map_set (sec, "m1_miss", msperf_value_new_int (m->m1_miss));
  msperf_value_map_set (sec, "m1_total", msperf_value_new_int (m->m1_total));
  msperf_value_map_set (sec, "m1_raw_op_count_hr", ratio_value (m->m1_hr, m->m1_total, TRUE));
  msperf_value_map_set (root, "m1", sec);

  /* m2_fused_miss is computed but not exported (Q21). */
  sec = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value_map_set (sec, "m2_fused_hit", msperf_value_new_int (m->m2_fused_hit));
  msperf_value_map_set (sec, "m2_fused_total", msperf_value_new_int (m->m2_fused_total));
  msperf_value_map_set (sec, "m2_fused_op_hr", ratio_value (m->m2_hr, m->m2_fused_total, TRUE));
  msperf_value_map_set (root, "m2", sec);

  sec = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value_map_set (sec, "m3_fused_hit_no_zc", msperf_value_new_int (m->m3_hit));
  msperf_value_map_set (sec, "m3_fused_total_no_zc", msperf_value_new_int (m->m3_total));
  msperf_value_map_set (sec, "m3_fused_op_hr_no_zc", ratio_value (m->m3_hr, m->m3_total, TRUE));
  msperf_value_map_set (root, "m3", sec);

  sec = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value_map_set (sec, "m4_hit_shapes", msperf_value_new_int (m->m4_hit_shapes));
  msperf_value_map_set (sec, "m4_total_shapes", msperf_value_new_int (m->m4_total_shapes));
  msperf_value_map_set (sec, "m4_per_shape_hr", msperf_value_new_double (m->m4_hr));
  list = msperf_value_new (MSPERF_VALUE_LIST);
  for (guint k = 0; k < m->m4_miss_shapes->len; k++)
    {
      const msperf_metric_record *mr = g_ptr_array_index (m->m4_miss_shapes, k);
      msperf_value *item = msperf_value_new (MSPERF_VALUE_MAP);
      msperf_value_map_set (item, "func_name", msperf_value_new_string (mr->digest->name));
      msperf_value_map_set (item, "shape", shapes_value (mr->digest));
      msperf_value_list_append (list, item);
    }
  msperf_value_map_set (sec, "m4_miss_shape_list", list);
  msperf_value_map_set (root, "m4", sec);

  sec = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value_map_set (sec, "m5_hit_latency_sum_s", msperf_value_new_double (m->m5_hit_s));
  msperf_value_map_set (sec, "m5_total_latency_sum_s", msperf_value_new_double (m->m5_total_s));
  msperf_value_map_set (sec, "m5_simulated_latency_coverage", msperf_value_new_double (m->m5_coverage));
  msperf_value_map_set (root, "m5", sec);

  if (!with_misses)
    return root;
  list = msperf_value_new (MSPERF_VALUE_LIST);
  for (guint k = 0; k < m->records->len; k++)
    {
      const msperf_metric_record *mr = g_ptr_array_index (m->records, k);
      msperf_value *item;

      if (mr->hit)
        continue;
      item = msperf_value_new (MSPERF_VALUE_MAP);
      msperf_value_map_set (item, "func_name", msperf_value_new_string (mr->digest->name));
      msperf_value_map_set (item, "reason", msperf_value_new_string (mr->reason));
      msperf_value_map_set (item, "tc_shapes", shapes_value (mr->digest));
      msperf_value_map_set (item, "analytic_latency_s", msperf_value_new_double (mr->analytic_s));
      msperf_value_list_append (list, item);
    }
  msperf_value_map_set (root, "misses", list);
  return root;
}

char *
msperf_metrics_to_json (const msperf_metrics *m)
{
  g_autoptr (msperf_value) v = NULL;
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (m != NULL, g_string_free (s, FALSE));
  v = msperf_metrics_to_value (m, TRUE);
  msperf_fmt_json_value (s, v, 2, 0);
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------ summary */

/* Counts come from the trace (each up to INT64_MAX): their sums saturate instead of
 * overflowing (two ops of count INT64_MAX once gave "invocations: -2"), and say so. */
static void
sat_add (int64_t *acc, int64_t v, gboolean *saturated)
{
  if (v > 0 && *acc > G_MAXINT64 - v)
    {
      *acc = G_MAXINT64;
      *saturated = TRUE;
    }
  else
    *acc += v;
}

static void
summary_add (msperf_summary *s, const msperf_digest *d)
{
  msperf_source src = d->source;
  double lat = d->latency_us;
  int64_t count = d->count;
  msperf_source_total *t;

  if (d->rejected)
    src = MSPERF_SOURCE_REJECTED;
  if ((int) src < 0 || src > MSPERF_SOURCE_REJECTED)
    src = MSPERF_SOURCE_NONE;
  t = &s->by_source[src];
  sat_add (&t->invocations, count, &s->counts_saturated);
  t->distinct++;
  if (src == MSPERF_SOURCE_REJECTED)
    return;
  sat_add (&s->invocations, count, &s->counts_saturated);
  s->distinct++;
  if (isfinite (lat))
    {
      t->time_us += lat * (double) count;
      s->total_us += lat * (double) count;
    }
  else
    {
      sat_add (&s->unknown_latency_invocations, count, &s->counts_saturated);
      s->unknown_latency_distinct++;
    }
  if (isfinite (d->analytic_us))
    s->analytic_total_us += d->analytic_us * (double) count;
  if (src == MSPERF_SOURCE_INTERPOLATED)
    {
      int dim = d->interpolation_dim;
      const char *method = d->method ? d->method : "?";
      gpointer old = g_hash_table_lookup (s->interpolated_by_method, method);

      s->interpolated_by_dim[(dim >= 1 && dim <= 3) ? dim : 0]++;
      g_hash_table_insert (s->interpolated_by_method, g_strdup (method),
                           GINT_TO_POINTER (GPOINTER_TO_INT (old) + 1));
    }
}

msperf_summary *
msperf_summary_compute (const msperf_run *run)
{
  msperf_summary *s;
  g_autoptr (GPtrArray) digests = NULL;

  g_return_val_if_fail (run != NULL, NULL);
  s = g_new0 (msperf_summary, 1);
  s->interpolated_by_method = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  s->lines = run->records->len + (run->digests ? run->digests->len : 0) + run->folded_lines;
  digests = msperf_run_digests (run);
  for (guint k = 0; k < digests->len; k++)
    summary_add (s, g_ptr_array_index (digests, k));
  s->rejected = s->by_source[MSPERF_SOURCE_REJECTED].invocations;
  return s;
}

void
msperf_summary_free (msperf_summary *s)
{
  if (s == NULL)
    return;
  g_hash_table_unref (s->interpolated_by_method);
  g_free (s);
}

static const msperf_source summary_sources[] = {
  MSPERF_SOURCE_MEASURED, MSPERF_SOURCE_INTERPOLATED, MSPERF_SOURCE_EXTRAPOLATED,
  MSPERF_SOURCE_PARTIAL,
  MSPERF_SOURCE_ANALYTIC, MSPERF_SOURCE_NONE, MSPERF_SOURCE_REJECTED
};

msperf_value *
msperf_summary_to_value (const msperf_summary *s, const msperf_metrics *m)
{
  msperf_value *root = msperf_value_new (MSPERF_VALUE_MAP), *by = msperf_value_new (MSPERF_VALUE_MAP), *v;

  g_return_val_if_fail (s != NULL, root);
  msperf_value_map_set (root, "total_us", msperf_value_new_double (s->total_us));
  msperf_value_map_set (root, "analytic_total_us", msperf_value_new_double (s->analytic_total_us));
  msperf_value_map_set (root, "lines", msperf_value_new_int (s->lines));
  msperf_value_map_set (root, "invocations", msperf_value_new_int (s->invocations));
  msperf_value_map_set (root, "distinct_ops", msperf_value_new_int (s->distinct));
  msperf_value_map_set (root, "rejected", msperf_value_new_int (s->rejected));
  msperf_value_map_set (root, "unknown_latency_invocations",
                        msperf_value_new_int (s->unknown_latency_invocations));
  for (gsize k = 0; k < G_N_ELEMENTS (summary_sources); k++)
    {
      const msperf_source_total *t = &s->by_source[summary_sources[k]];
      /* NONE and EXTRAPOLATED (opt-in) only when a run has some. */
      if (t->distinct == 0 && (summary_sources[k] == MSPERF_SOURCE_NONE
                               || summary_sources[k] == MSPERF_SOURCE_EXTRAPOLATED))
        continue;
      v = msperf_value_new (MSPERF_VALUE_MAP);
      msperf_value_map_set (v, "invocations", msperf_value_new_int (t->invocations));
      msperf_value_map_set (v, "distinct", msperf_value_new_int (t->distinct));
      msperf_value_map_set (v, "time_us", msperf_value_new_double (t->time_us));
      msperf_value_map_set (by, msperf_source_name (summary_sources[k]), v);
    }
  msperf_value_map_set (root, "by_source", by);
  v = msperf_value_new (MSPERF_VALUE_MAP);
  for (int d = 1; d <= 3; d++)
    {
      char key[8];
      g_snprintf (key, sizeof key, "%dd", d);
      msperf_value_map_set (v, key, msperf_value_new_int (s->interpolated_by_dim[d]));
    }
  msperf_value_map_set (root, "interpolated_by_dim", v);
  if (m != NULL)
    {
      v = msperf_value_new (MSPERF_VALUE_MAP);
      msperf_value_map_set (v, "hit", msperf_value_new_int (m->inv_hit));
      msperf_value_map_set (v, "miss", msperf_value_new_int (m->inv_miss));
      msperf_value_map_set (v, "m1_invocation_hr", msperf_value_new_double (m->inv_m1_hr));
      msperf_value_map_set (v, "m5_hit_latency_sum_s", msperf_value_new_double (m->inv_m5_hit_s));
      msperf_value_map_set (v, "m5_total_latency_sum_s", msperf_value_new_double (m->inv_m5_total_s));
      msperf_value_map_set (v, "m5_invocation_coverage", msperf_value_new_double (m->inv_m5_coverage));
      msperf_value_map_set (root, "metrics_by_invocation", v);
    }
  return root;
}
