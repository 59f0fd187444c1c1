/* msperf — the interpolation stage (see interpolation_stage.h), between dispatch and the
 * interpolation core: after an exact miss the module describes the target, the candidate index
 * of each kernel table is built with the module's describe_row (core/interp), the groups of the
 * target's buckets are tried (interpolate.c), and guarded extrapolation (extrapolate.c) answers
 * when every group failed and the policy allows it. */
#define G_LOG_DOMAIN "msperf"
#include <config.h>
#include <string.h>
#include "engine/shared.h"
#include "engine/interpolation_stage.h"
#include "engine/interpolate.h"
#include "engine/extrapolate.h"
#include "engine/query.h"

/* The module whose describe_row the candidate index calls, with its handle and state. */
typedef struct {
  msperf_engine *e;
  const msperf_plugin *plugin;
  void *state;
} row_describer;

static gboolean
describe_row (gpointer user_data, const msperf_table *table, size_t row, msperf_point *point)
{
  const row_describer *d = user_data;

  return d->plugin->describe_row (d->e, d->state, table, row, point);
}

msperf_index *
msperf_interpolation_index (msperf_engine *e, const msperf_plugin *plugin, void *state,
                            const msperf_table *table, const char *mode, int64_t tc_input_count,
                            gboolean *hit)
{
  row_describer d = { e, plugin, state };

  g_return_val_if_fail (e != NULL && plugin != NULL && plugin->describe_row != NULL, NULL);
  return msperf_index_cache_get (e->shared->index_cache, describe_row, &d, table, mode,
                                 e->shared->policy_hash, tc_input_count, hit);
}

/* Runs the stage for query q of module plugin. TRUE with r INTERPOLATED; FALSE with
 * *wrapper_reason (static) and reasons filled, r untouched. Candidate indexes, their point
 * sets and triangulations are built on first use and shared by every session (doc/design.md
 * § Threads): only their lookups and builds take the shared lock; the module's describe_target,
 * the point location and the result run on every session at once (estimate --jobs). */
static gboolean
run_stage (msperf_engine *e, const msperf_plugin *plugin, void *state, const msperf_query *q,
           const char *base_reason, const char *fallback_from, GPtrArray *reasons,
           const char **wrapper_reason, msperf_result *r)
{
  gboolean any_table = FALSE, any_target = FALSE, any_regime = FALSE;

  /* made once, then only read: the lock only for the first (every answer took it) */
  if (g_atomic_pointer_get (&e->shared->index_cache) == NULL)
    {
      msperf_shared_lock (e);
      if (e->shared->index_cache == NULL)
        g_atomic_pointer_set (&e->shared->index_cache, msperf_index_cache_new ());
      msperf_shared_unlock (e);
    }
  for (const char *const *k = q->kernel_types; k && *k; k++)
    {
      const char *one[] = { *k, NULL };
      msperf_query qk = *q;
      msperf_point t;
      const msperf_table *table;
      const GPtrArray *buckets;
      msperf_index *idx;
      const msperf_kernel_policy *kp;
      g_autoptr (GError) error = NULL;

      table = msperf_engine_table (e, *k, &error);
      if (table == NULL)
        continue;
      any_table = TRUE;
      /* One kernel at a time: the regime (dtype grouping, …) depends on the kernel. */
      qk.kernel_types = one;
      msperf_point_init (&t);
      t.input_limit = q->tc_input_count;
      if (!plugin->describe_target (e, state, &qk, &t))
        {
          msperf_point_clear (&t);
          continue;
        }
      any_target = TRUE;
      /* The index, its buckets and the kernel's policy: built on first use, shared. */
      msperf_shared_lock (e);
      idx = msperf_interpolation_index (e, plugin, state, table, q->mode, q->tc_input_count,
                                        NULL);
      buckets = msperf_index_buckets (idx, t.regime->str);
      kp = buckets ? msperf_interpolation_kernel_policy (e, idx, *k) : NULL;
      msperf_shared_unlock (e);
      if (buckets == NULL)
        {
          msperf_point_clear (&t);
          continue;
        }
      any_regime = TRUE;
      if (msperf_interpolate_buckets (e, kp, *k, q, buckets, &t, base_reason, fallback_from,
                                      reasons, r))
        {
          msperf_point_clear (&t);
          return TRUE;
        }
      /* Every group failed: guarded extrapolation, when the policy allows it (extrapolate.h). */
      if (msperf_extrapolate (e, idx, *k, q, &t, buckets, base_reason, fallback_from, reasons, r))
        {
          msperf_point_clear (&t);
          return TRUE;
        }
      msperf_point_clear (&t);
    }
  if (!any_table)
    *wrapper_reason = plugin->no_table_reason ? plugin->no_table_reason
                                              : "wrapper_not_applicable";
  else if (!any_target)
    *wrapper_reason = plugin->no_target_reason ? plugin->no_target_reason
                                               : "wrapper_not_applicable";
  else if (!any_regime)
    *wrapper_reason = "regime_key_unmatched";
  else
    *wrapper_reason = "wrapper_interpolation_failed";
  return FALSE;
}

/* Exact misses that are refusals, not missing data: the policy refused an ambiguous tie
 * (require_semantic_unique) or the mapping's TP rule is unusable. Interpolating would answer
 * exactly what the refusal was meant to prevent. */
static gboolean
is_refusal (const char *reason)
{
  return reason
         && (g_str_has_prefix (reason, "ambiguous_semantic_match")
             || g_str_has_prefix (reason, "invalid_tp_linear_projection_rule")
             || g_str_has_prefix (reason, "tp_projection_invalid"));
}

static const msperf_plugin *
describing_module (msperf_engine *e, const char *mode, void **state)
{
  const msperf_plugin *plugin = msperf_registry_lookup (e->shared->registry, mode, state);

  if (plugin == NULL || plugin->describe_target == NULL || plugin->describe_row == NULL)
    return NULL;
  return plugin;
}


gboolean
msperf_interpolate_op (msperf_engine *e, const msperf_op *op, const msperf_mapping_entry *entry,
                       const char *mode, msperf_result *r)
{
  void *state = NULL;
  const msperf_plugin *plugin;
  g_autoptr (GArray) inputs = NULL;
  g_autoptr (GPtrArray) reasons = NULL;
  g_autofree char *base = NULL;
  const char *wrapper_reason = NULL;
  gboolean partial;
  msperf_query q;

  g_return_val_if_fail (e != NULL && op != NULL && r != NULL, FALSE);
  if (entry == NULL || !msperf_interpolation_allows (e, mode) || is_refusal (r->miss_reason))
    return FALSE;
  plugin = describing_module (e, mode, &state);
  if (plugin == NULL)
    return FALSE;
  partial = r->source == MSPERF_SOURCE_PARTIAL;
  inputs = msperf_query_inputs (op);
  msperf_query_for_op (&q, e, op, entry, mode, inputs);

  base = g_strdup (r->miss_reason);
  reasons = g_ptr_array_new_with_free_func (g_free);
  if (run_stage (e, plugin, state, &q, base, partial ? "partial" : "exact_miss", reasons,
                 &wrapper_reason, r))
    return TRUE;
  /* The wrapper ran and failed: its reason replaces the base reason (reference §4.2 step 4,
   * quirk Q5), which stays readable as base_reason. A PARTIAL keeps its answer. */
  msperf_result_detail_value (r, "fallback_reasons", msperf_value_new_string_list (reasons));
  msperf_result_detail_string (r, "interpolation_reason", wrapper_reason);
  if (!partial)
    {
      if (base)
        msperf_result_detail_string (r, "base_reason", base);
      msperf_result_set_reason (r, "%s", wrapper_reason);
    }
  return FALSE;
}

msperf_status
msperf_interpolate_subquery (msperf_engine *e, const msperf_op *parent,
                             const msperf_subquery *sq, msperf_result *r)
{
  void *state = NULL;
  const msperf_plugin *plugin;
  g_autoptr (GPtrArray) reasons = NULL;
  g_autofree char *base = NULL;
  const char *wrapper_reason = NULL;
  msperf_query q = { 0 };

  g_return_val_if_fail (e != NULL && parent != NULL && sq != NULL && r != NULL, MSPERF_ERROR);
  if (!msperf_interpolation_allows (e, sq->mode) || is_refusal (r->miss_reason))
    return MSPERF_MISS;
  plugin = describing_module (e, sq->mode, &state);
  if (plugin == NULL)
    return MSPERF_MISS;
  msperf_subquery_query (e, parent, sq, &q);
  base = g_strdup (r->miss_reason);
  reasons = g_ptr_array_new_with_free_func (g_free);
  if (run_stage (e, plugin, state, &q, base, "exact_miss", reasons, &wrapper_reason, r))
    return MSPERF_HIT;
  /* The composite formats its own message from the part's exact reason: keep it. */
  msperf_result_detail_value (r, "fallback_reasons", msperf_value_new_string_list (reasons));
  msperf_result_detail_string (r, "interpolation_reason", wrapper_reason);
  return MSPERF_MISS;
}

