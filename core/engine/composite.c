/* msperf — composite ops (reference §2.8): an op that runs as several NPU kernels.
 *
 * Two sources of parts:
 *  - a decomposer module (plugin->decompose, chosen by op name through op_names) turns the
 *    invocation into sub-queries; each is answered through msperf_engine_subquery and the parts
 *    are aggregated by the §2.8 table (PARTIAL when some shape-matched parts miss);
 *  - the entry's static `sub_kernels`: answered by the module declaring
 *    MSPERF_PLUGIN_STATIC_COMPOSITE (plugins/composite), through its lookup slot.
 *
 * Decompose-slot convention (plugin.h has no result argument there): MSPERF_HIT with at least one
 * sub-query; MSPERF_MISS = the decomposition failed for this invocation (`decompose_failed`, e.g.
 * a mixed decode/prefill MLA batch, quirk Q24); MSPERF_ERROR = the module does not specify this
 * op or variant (`decomposer_unsupported`). */
#include <config.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine/shared.h"
#include "engine/composite.h"
#include "engine/parts.h"
#include "engine/query.h"
#include <msperf/format.h>

/* ------------------------------------------------------------------ value helpers */

/* LIST of shapes of n tensors. */
static msperf_value *
v_shapes (const msperf_tensor *t, size_t n)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (size_t i = 0; i < n; i++)
    msperf_value_list_append (list, msperf_value_new_shape (&t[i]));
  return list;
}

static const msperf_value *
entry_field (const msperf_mapping_entry *entry, const char *key)
{
  return entry->raw ? msperf_value_lookup (entry->raw, key) : NULL;
}

static gboolean
value_true (const msperf_value *v)
{
  return v && v->kind == MSPERF_VALUE_BOOL && v->b;
}

static gboolean
source_is_answer (msperf_source s)
{
  return s == MSPERF_SOURCE_MEASURED || s == MSPERF_SOURCE_INTERPOLATED;
}

/* ------------------------------------------------------------------ decomposer path */

static const char *
first_kernel (const msperf_subquery *sq)
{
  return sq->kernel_types && sq->kernel_types[0] ? sq->kernel_types[0] : "?";
}

/* "q_shape_3d=[8, 16, 512],avg_seq_len=1024,…" from an attention spec's params: the semantic
 * key the CSV rows were searched for, so a miss says what was asked. */
static char *
semantic_key (const msperf_subquery *sq)
{
  GString *s = g_string_new (NULL);
  const msperf_value *p = sq->params;

  for (guint k = 0; p && p->kind == MSPERF_VALUE_MAP && k < p->keys->len; k++)
    {
      if (k > 0)
        g_string_append_c (s, ',');
      g_string_append_printf (s, "%s=", (const char *) g_ptr_array_index (p->keys, k));
      msperf_fmt_py_str (s, g_ptr_array_index (p->items, k));
    }
  return g_string_free (s, FALSE);
}

static const char *
subquery_dtype (const msperf_subquery *sq)
{
  if (sq->inputs->len == 0)
    return "?";
  return msperf_dtype_profiling_name (g_array_index (sq->inputs, msperf_tensor, 0).dtype);
}

static char *
join_names (GPtrArray *names)
{
  GString *s = g_string_new (NULL);

  for (guint k = 0; k < names->len; k++)
    {
      if (k > 0)
        g_string_append_c (s, ',');
      g_string_append (s, g_ptr_array_index (names, k));
    }
  return g_string_free (s, FALSE);
}

/* Aggregation state over the decomposer's specs. */
typedef struct parts {
  double total_us;
  gboolean any_interpolated;
  gboolean any_wrapper;       /* a part came from the interpolation stage */
  GPtrArray *hit_kernels;     /* char*, owned */
  GPtrArray *missed_kernels;  /* char*, owned */
  msperf_value *durations;    /* LIST */
  msperf_value *shapes;       /* LIST of sub_kernel_shapes items */
} parts;

static void
parts_init (parts *p)
{
  p->total_us = 0.0;
  p->any_interpolated = FALSE;
  p->any_wrapper = FALSE;
  p->hit_kernels = g_ptr_array_new_with_free_func (g_free);
  p->missed_kernels = g_ptr_array_new_with_free_func (g_free);
  p->durations = msperf_value_new (MSPERF_VALUE_LIST);
  p->shapes = msperf_value_new (MSPERF_VALUE_LIST);
}

static void
parts_clear (parts *p)
{
  g_ptr_array_unref (p->hit_kernels);
  g_ptr_array_unref (p->missed_kernels);
  msperf_value_free (p->durations);
  msperf_value_free (p->shapes);
}

/* The shape-match rule the module answering sq declares for semantic-key parts, or NULL
 * (msperf_plugin.semantic_key_rule). */
static const char *
semantic_rule (msperf_engine *e, const msperf_subquery *sq)
{
  const char *mode = msperf_registry_canonical_mode (e->shared->registry, sq->mode);
  const msperf_plugin *plugin = msperf_registry_lookup (e->shared->registry, mode, NULL);

  return plugin != NULL ? plugin->semantic_key_rule : NULL;
}

static void
parts_add_hit (parts *p, const msperf_subquery *sq, const msperf_result *sub, const char *rule)
{
  const char *k = sub->kernel_type ? sub->kernel_type : first_kernel (sq);

  p->total_us += sub->latency_us;
  p->any_interpolated |= sub->source == MSPERF_SOURCE_INTERPOLATED;
  p->any_wrapper |= sub->interpolation_dim > 0;
  g_ptr_array_add (p->hit_kernels, g_strdup (k));
  msperf_value_list_append (p->durations, msperf_sub_kernel_duration_new (k, sub->latency_us));
  /* Parts matched by semantic key (their module declares the rule) record no shapes, as
   * upstream records none. */
  msperf_value_list_append (
    p->shapes,
    rule ? msperf_sub_kernel_shape_new (k, msperf_value_new (MSPERF_VALUE_LIST),
                             msperf_value_new (MSPERF_VALUE_LIST), rule)
              : msperf_sub_kernel_shape_new (k, v_shapes ((const msperf_tensor *) (void *) sq->inputs->data,
                                          sq->inputs->len),
                             msperf_result_kernel_shapes_value (sub),
                             sub->shape_match_rule ? sub->shape_match_rule : "unknown"));
}

/* ------------------------------------------------------------------ decomposer plans */

void
msperf_plan_add_part (msperf_plan *plan, msperf_subquery *part)
{
  g_return_if_fail (plan != NULL && part != NULL);
  g_ptr_array_add (plan->parts, part);
}

void
msperf_plan_set_miss (msperf_plan *plan, const char *fmt, ...)
{
  va_list ap;

  g_return_if_fail (plan != NULL && fmt != NULL);
  g_free (plan->miss);
  va_start (ap, fmt);
  plan->miss = g_strdup_vprintf (fmt, ap);
  va_end (ap);
}

static msperf_status
decomposed (msperf_engine *e, const msperf_op *op, const msperf_mapping_entry *entry,
            const msperf_plugin *plugin, void *state, msperf_result *r)
{
  g_autoptr (GPtrArray) specs
    = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_subquery_free);
  msperf_plan plan = { specs, NULL };
  g_autoptr (GArray) inputs = msperf_query_inputs (op);
  msperf_query q;
  msperf_status st;
  parts p;
  g_autofree char *missed = NULL;

  msperf_query_for_op (&q, e, op, entry, plugin->name, inputs);
  st = plugin->decompose (e, state, &q, &plan);
  if (st == MSPERF_ERROR)
    {
      g_free (plan.miss);
      return msperf_result_set_miss (r, "decomposer_unsupported");
    }
  if (st != MSPERF_HIT || specs->len == 0)
    {
      g_autofree char *why = plan.miss;

      return msperf_result_set_miss (r, "%s", why ? why : "decompose_failed");
    }
  g_free (plan.miss);

  parts_init (&p);
  for (guint k = 0; k < specs->len; k++)
    {
      const msperf_subquery *sq = g_ptr_array_index (specs, k);
      const char *rule = semantic_rule (e, sq);
      g_autoptr (msperf_result) sub = msperf_result_new ();

      if (msperf_engine_subquery (e, op, sq, sub) == MSPERF_HIT && source_is_answer (sub->source))
        {
          parts_add_hit (&p, sq, sub, rule);
          continue;
        }
      if (rule != NULL)
        {
          /* A semantic-key part (attention) dominates the op: a PARTIAL sum without it would
           * look like data while dropping most of the time, so the whole op goes to the
           * fallback. */
          g_autofree char *key = semantic_key (sq);
          msperf_result_set_miss (r, "%s_sub_kernel_miss:%s:%s;semantic_key=%s;dtype=%s",
                                  rule, first_kernel (sq),
                                  sub->miss_reason ? sub->miss_reason : "unknown", key,
                                  subquery_dtype (sq));
          parts_clear (&p);
          return MSPERF_MISS;
        }
      g_ptr_array_add (p.missed_kernels, g_strdup (first_kernel (sq)));
    }

  if (p.missed_kernels->len == 0)
    {
      g_autofree char *kernels = join_names (p.hit_kernels);

      msperf_result_set_method (r, "composite");
      msperf_result_set_hit (r, p.any_interpolated ? MSPERF_SOURCE_INTERPOLATED
                                                   : MSPERF_SOURCE_MEASURED,
                             p.total_us,
                             p.any_wrapper ? MSPERF_COMPOSITE_CONFIDENCE_WRAPPER
                             : p.any_interpolated
                               ? MSPERF_COMPOSITE_CONFIDENCE_DECOMPOSED_INTERPOLATED
                               : MSPERF_COMPOSITE_CONFIDENCE_DECOMPOSED,
                             NULL, "composite");
      msperf_result_detail_string (r, "kernel_type", kernels);
      msperf_result_detail_value (r, "sub_kernel_durations", g_steal_pointer (&p.durations));
      msperf_result_detail_bool (r, "composite", TRUE);
      msperf_result_detail_string (r, "note", "decomposed sub-kernels");
      msperf_result_detail_value (r, "sub_kernel_shapes", g_steal_pointer (&p.shapes));
      parts_clear (&p);
      return MSPERF_HIT;
    }

  missed = join_names (p.missed_kernels);
  if (p.hit_kernels->len == 0
      || value_true (entry_field (entry, "require_all_sub_kernels")))
    {
      msperf_result_set_miss (r, "sub_kernel_miss:%s", missed);
      parts_clear (&p);
      return MSPERF_MISS;
    }

  /* PARTIAL is an answer (its latency is the op's latency) that metrics count as a miss. */
  msperf_result_set_method (r, "composite");
  msperf_result_set_hit (r, MSPERF_SOURCE_PARTIAL, p.total_us,
                         (double) p.hit_kernels->len / (double) specs->len, NULL, "composite");
  msperf_result_detail_value (r, "hit_kernels", msperf_value_new_string_list (p.hit_kernels));
  msperf_result_detail_value (r, "missed_kernels", msperf_value_new_string_list (p.missed_kernels));
  msperf_result_detail_value (r, "sub_kernel_durations", g_steal_pointer (&p.durations));
  msperf_result_detail_bool (r, "composite", TRUE);
  msperf_result_detail_bool (r, "partial", TRUE);
  msperf_result_detail_value (r, "sub_kernel_shapes", g_steal_pointer (&p.shapes));
  msperf_result_set_reason (r, "sub_kernel_miss:%s", missed);
  parts_clear (&p);
  return MSPERF_HIT;
}

/* ------------------------------------------------------------------ entry point */

msperf_status
msperf_composite_answer (msperf_engine *engine, const msperf_op *op,
                         const msperf_mapping_entry *entry, msperf_result *r)
{
  const msperf_plugin *plugin;
  const msperf_value *sub_kernels;
  void *state = NULL;

  g_return_val_if_fail (engine != NULL && op != NULL && entry != NULL && r != NULL,
                        MSPERF_ERROR);
  plugin = msperf_registry_decomposer (engine->shared->registry, op->name, &state);
  if (plugin != NULL && plugin->decompose != NULL)
    return decomposed (engine, op, entry, plugin, state, r);
  /* Static sub_kernels are answered by the module that declares STATIC_COMPOSITE. */
  sub_kernels = entry_field (entry, "sub_kernels");
  if (sub_kernels && sub_kernels->kind == MSPERF_VALUE_LIST && sub_kernels->items->len > 0)
    return msperf_engine_lookup_as (engine, msperf_registry_static_composite (engine->shared->registry),
                                    op, entry, r);
  /* `decomposer: true` promises a decomposition no loaded module provides (not written, or
   * disabled by policy): say so rather than blame the mapping. */
  if (value_true (entry_field (entry, "decomposer")))
    return msperf_result_set_miss (r, "decomposer_unsupported");
  return msperf_result_set_miss (r, "no_sub_kernels");
}
