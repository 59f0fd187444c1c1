/* msperf module "broadcast_att": the ATT Broadcast V2 cost model (reference att-model.md §4,
 * seed 002) for ops whose `att.kind` is "broadcast_extend" or "duplicate". The answer is
 * ANALYTIC (method att): the cost in cycles, the expression with its named ternary, the
 * conditional call ledger and vf_launches in details, and the latency in µs when the device
 * profile gives the vector-core clock. `att.bind` gives symbol values for `value`/`cycles`;
 * the expression stays symbolic. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/plugin.h>
#include <msperf/att.h>
#include "brc_model.h"

/* An analytic model of the kernel's instruction stream: better than the roofline, below data. */
#define BROADCAST_ATT_CONFIDENCE 0.5

static gboolean
broadcast_init (msperf_engine *engine, void **state, GError **error)
{
  (void) engine;
  *state = msperf_att_table_load_default (error);
  return *state != NULL;
}

static void
broadcast_fini (void *state)
{
  msperf_att_table_free (state);
}

/* The static checks and the model's limits for att (msperf_att_bind_check's callback). */
static gboolean
broadcast_domain (const msperf_value *att, void *table, GError **error)
{
  g_autoptr (msperf_expr_ctx) ctx = msperf_expr_ctx_new ();
  brc_params p;
  brc_model m = { 0 };
  gboolean ok;

  brc_params_init (&p);
  ok = brc_params_from_value (ctx, att, &p, error) && brc_model_build (table, ctx, &p, &m, error);
  brc_model_clear (&m);
  brc_params_clear (&p);
  return ok;
}

static msperf_status
broadcast_model (msperf_engine *engine, void *state, const msperf_query *query, msperf_result *result)
{
  const msperf_att_table *table = state;
  g_autoptr (msperf_expr_ctx) ctx = msperf_expr_ctx_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_value) report = NULL;
  const msperf_value *att = query->op->att;
  const char *kind = msperf_value_get_string (msperf_value_lookup (att, "kind"));
  brc_params p;
  brc_model m = { 0 };
  msperf_status status = MSPERF_ERROR;
  double cyc;

  if (att == NULL || kind == NULL
      || (strcmp (kind, "broadcast_extend") != 0 && strcmp (kind, "duplicate") != 0))
    return msperf_result_set_miss (result, "no_att_broadcast_params");
  brc_params_init (&p);
  if (!msperf_att_bind_check (att, broadcast_domain, (void *) table, &error)
      || !brc_params_from_value (ctx, att, &p, &error)
      || !brc_model_build (table, ctx, &p, &m, &error)
      || (report = brc_model_report (ctx, &m, p.bindings, &error)) == NULL)
    {
      msperf_result_set_miss (result, "att %s: %s", kind, error->message);
      goto out;
    }
  cyc = msperf_att_result_begin (result, "Broadcast", BROADCAST_ATT_CONFIDENCE, m.expression,
                                 report);
  msperf_result_detail_string (result, "att_kind", m.kind);
  msperf_result_detail_string (result, "att_branch", m.branches->len == 1
                               ? ((brc_branch *) g_ptr_array_index (m.branches, 0))->name
                               : "symbolic");
  msperf_att_result_finish (result, msperf_engine_vector_clock_ghz (engine), report, cyc);
  status = MSPERF_HIT;
out:
  brc_model_clear (&m);
  brc_params_clear (&p);
  return status;
}

static const char *const broadcast_kinds[] = { "broadcast_extend", "duplicate", NULL };

MSPERF_PLUGIN_DEFINE (
  .name = "broadcast_att",
  .version = PACKAGE_VERSION,
  .description = "ATT Broadcast V2 model: BroadcastExtend and Duplicate (cycles, expression, "
                 "call ledger)",
  .att_kinds = broadcast_kinds,
  .init = broadcast_init,
  .fini = broadcast_fini,
  .model = broadcast_model,
);
