/* msperf — the stage order of one query (ARCHITECTURE § The query pipeline): the answer
 * cache (answers.c), resolution in the upstream precedence, the module's exact lookup, then
 * the fallbacks down to the roofline. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "engine/shared.h"
#include "engine/answers.h"
#include "engine/dispatch.h"
#include "engine/parts.h"
#include "engine/query.h"
#include <msperf/details.h>
#include "engine/composite.h"
#include "engine/interpolation_stage.h"
#include "engine/confidence.h"
#include "engine/roofline.h"
#include "engine/split_transfer.h"
#include "engine/quant_transfer.h"


static msperf_status
zero_cost (msperf_result *r, const msperf_mapping_entry *entry)
{
  gboolean accepted = !entry->zero_cost;

  msperf_result_set_method (r, accepted ? "accepted_miss" : "zero_cost");
  msperf_result_set_hit (r, MSPERF_SOURCE_MEASURED, 0.0, 1.0,
                         accepted ? "accepted_miss" : (entry->kernel_type ? entry->kernel_type : ""),
                         accepted ? "accepted_miss" : "zero_cost");
  msperf_result_detail_bool (r, "zero_cost", TRUE);
  if (accepted)
    msperf_result_detail_string (r, "note", entry->accepted_miss);
  return MSPERF_HIT;
}

const char *
msperf_engine_resolve_mode (msperf_engine *e, const msperf_mapping_entry *entry,
                            gboolean *by_default)
{
  msperf_registry *reg;
  const char *mode;

  g_return_val_if_fail (e != NULL && entry != NULL, NULL);
  reg = e->shared->registry;
  if (by_default)
    *by_default = FALSE;
  if (entry->category && (mode = msperf_registry_category_module (reg, entry->category)))
    return mode;
  if (entry->query_mode)
    return msperf_registry_canonical_mode (reg, entry->query_mode);
  if (entry->zero_cost || entry->accepted_miss)
    return NULL;
  if (by_default)
    *by_default = TRUE;
  return msperf_registry_default_mode (reg);
}

/* *entry_out and *mode_out receive the entry and the module that answered (NULL when the
 * core answered: unmapped, composite, zero_cost) for the interpolation stage. */
static msperf_status
exact_stage (msperf_engine *e, const msperf_op *op, msperf_result *r,
             const msperf_mapping_entry **entry_out, const char **mode_out)
{
  const msperf_mapping_entry *entry = msperf_database_entry (e->shared->db, op->name);
  const char *mode;
  gboolean by_default;
  msperf_status status;

  *entry_out = entry;
  *mode_out = NULL;

  if (entry == NULL)
    {
      msperf_result_set_rule (r, "unmapped");
      return msperf_result_set_miss (r, "unmapped");
    }
  if (entry->composite)
    return msperf_composite_answer (e, op, entry, r);
  mode = msperf_engine_resolve_mode (e, entry, &by_default);
  if (mode == NULL && !by_default)
    return zero_cost (r, entry);
  if (by_default && entry->kernel_type == NULL)
    return msperf_result_set_miss (r, "no_kernel_type");
  if (mode == NULL)
    return msperf_result_set_miss (r, "no_default_module");
  *mode_out = mode;
  status = msperf_engine_lookup_as (e, mode, op, entry, r);
  /* "Not mine": the module's declared fallback answers (elementwise without an output tensor
   * answers through compute, reference §2.6 step 1). */
  while (status == MSPERF_FALLBACK)
    {
      const msperf_plugin *p = msperf_registry_lookup (e->shared->registry, mode, NULL);

      msperf_result_reset (r);
      if (p == NULL || p->fallback_mode == NULL || strcmp (p->fallback_mode, mode) == 0)
        return msperf_result_set_miss (r, "fallback_unavailable:%s", mode);
      mode = *mode_out = p->fallback_mode;
      status = msperf_engine_lookup_as (e, mode, op, entry, r);
    }
  return status;
}

static void
roofline_stage (msperf_engine *e, const msperf_op *op, msperf_result *r)
{
  msperf_roofline rf;
  g_autofree char *reason = g_strdup (r->miss_reason);

  msperf_roofline_estimate_parallel (msperf_engine_device (e), &e->shared->parallel, op, &rf);
  /* After a failed interpolation stage base_reason already holds the exact reason. */
  if (reason && msperf_value_lookup (msperf_result_details (r), "base_reason") == NULL)
    msperf_result_detail_string (r, "base_reason", reason);
  /* A roofline answer is a model, not data: the weakest source (confidence table "analytic"). */
  msperf_result_set_answer (r, MSPERF_SOURCE_ANALYTIC, rf.latency_us,
                            msperf_confidence_for (e, "analytic", 0, FALSE));
  msperf_result_set_method (r, "roofline");
  msperf_result_set_rule (r, "analytic");
  /* set_miss cleared nothing else; keep the reason for the record (a miss is still a miss). */
  if (reason)
    msperf_result_set_reason (r, "%s", reason);
  else
    msperf_result_set_reason (r, NULL);
  msperf_result_detail_string (r, "roofline_kind", rf.kind);
  msperf_result_detail_double (r, "roofline_flops", rf.flops);
  msperf_result_detail_double (r, "roofline_bytes", rf.bytes);
  /* Only the physical fallbacks (roofline.c) add keys: every other roofline answer stays as it was. */
  if (rf.degraded[0] != '\0')
    msperf_result_detail_string (r, "degraded", rf.degraded);
  if (rf.group_source != NULL)
    {
      msperf_result_detail_int (r, "group_size", rf.group_size);
      msperf_result_detail_string (r, "group_source", rf.group_source);
    }
  if (rf.collective_us > 0.0)
    msperf_result_detail_double (r, "collective_us", rf.collective_us);
}

/* An op the op summary itself flags `zero_cost: true` (TensorCast's metadata ops): answered as
 * a mapping's zero_cost entry is, whatever the database says. */
static void
flagged_zero_cost (msperf_result *r)
{
  msperf_result_set_method (r, "zero_cost");
  msperf_result_set_hit (r, MSPERF_SOURCE_MEASURED, 0.0, 1.0, "", "zero_cost");
  msperf_result_detail_bool (r, "zero_cost", TRUE);
  msperf_result_detail_string (r, "zero_cost_source", "op_summary");
}

/* The ATT module an op's `att.kind` selects (FORMATS §2; declared by the modules), or NULL. */
static const char *
att_mode (msperf_engine *e, const msperf_op *op)
{
  const char *kind = msperf_value_get_string (msperf_value_lookup (op->att, "kind"));

  return kind != NULL ? msperf_registry_att_module (e->shared->registry, kind) : NULL;
}

/* Analytic model of an ATT module: its answer, even without a latency (no vector clock:
 * latency null, cycles in details, counted apart). Refused parameters make the answer
 * REJECTED with the module's message, as an invalid input line is. */
static gboolean
model_stage (msperf_engine *e, const char *mode, const msperf_op *op, msperf_result *r)
{
  void *state;
  const msperf_plugin *plugin = msperf_engine_module_or_miss (e, mode, &state, r);
  msperf_query q;
  msperf_status status;

  if (plugin == NULL)
    return FALSE;
  if (plugin->model == NULL)
    {
      msperf_result_set_miss (r, "module_no_model:%s", mode);
      return FALSE;
    }
  msperf_query_for_op (&q, e, op, NULL, mode, NULL);
  status = plugin->model (e, state, &q, r);
  if (status == MSPERF_ERROR)
    {
      msperf_result_set_rejected (r, "att_parameters_refused");
      return TRUE;
    }
  return status == MSPERF_HIT;
}

/* The answer of op from the database alone: the exact lookup, then the interpolation stage (no
 * roofline, no answer cache). *entry_out receives op's mapping entry (NULL: unmapped). */
static msperf_status
data_answer (msperf_engine *e, const msperf_op *op, msperf_result *r,
             const msperf_mapping_entry **entry_out)
{
  const char *mode;
  msperf_status status = exact_stage (e, op, r, entry_out, &mode);

  /* Interpolation only after an exact miss or a PARTIAL answer (seed 000 §5.2). */
  if ((status == MSPERF_MISS || (status == MSPERF_HIT && r->source == MSPERF_SOURCE_PARTIAL))
      && msperf_interpolate_op (e, op, *entry_out, mode, r))
    status = MSPERF_HIT;
  return status;
}

/* A database entry that answers the op zero_cost itself (resolution as exact_stage's): its
 * answer is kept as it was, the summary's flag adds nothing. */
static gboolean
mapped_zero_cost (msperf_engine *e, const msperf_op *op)
{
  const msperf_mapping_entry *entry = e->shared->db ? msperf_database_entry (e->shared->db, op->name) : NULL;
  gboolean by_default;

  return entry != NULL && !entry->composite && entry->zero_cost
         && msperf_engine_resolve_mode (e, entry, &by_default) == NULL && !by_default;
}

static msperf_result *
answer (msperf_engine *e, const msperf_op *op)
{
  msperf_result *r = msperf_result_new ();
  msperf_status status = MSPERF_MISS;
  const char *att = att_mode (e, op);

  if (op->zero_cost && !mapped_zero_cost (e, op))
    flagged_zero_cost (r);
  else if (att != NULL)
    {
      if (!model_stage (e, att, op, r))
        roofline_stage (e, op, r);
    }
  else if (e->shared->db == NULL)
    {
      /* analytic-only run: the roofline is the requested model, not a fallback. */
      roofline_stage (e, op, r);
      g_clear_pointer (&r->miss_reason, g_free);
    }
  else
    {
      const msperf_mapping_entry *entry;

      status = data_answer (e, op, r, &entry);
      if (status != MSPERF_HIT && entry != NULL
          && (msperf_split_transfer_answer (e, op, entry, data_answer, r)
              || msperf_quant_transfer_answer (e, op, entry, data_answer, r)))
        status = MSPERF_HIT;
      if (status != MSPERF_HIT)
        {
          if (r->miss_reason == NULL)
            msperf_result_set_miss (r, "unknown");
          roofline_stage (e, op, r);
        }
    }
  if (e->shared->policy_hash)
    msperf_result_detail_string (r, "policy_hash", e->shared->policy_hash);
  return r;
}

msperf_result *
msperf_dispatch_query (msperf_engine *e, const msperf_op *op)
{
  msperf_answer_key key;
  msperf_result *r = msperf_answers_lookup (e, op, &key);

  if (r)
    return r;
  r = answer (e, op);
  msperf_answers_insert (e, &key, r);
  return r;
}
