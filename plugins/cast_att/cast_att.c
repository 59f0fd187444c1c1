/* msperf module "cast_att": the ATT Cast V2 cost model (reference att-model.md §3) for ops whose
 * `att.kind` is "cast". The answer is ANALYTIC (method att): the cost in cycles, the upstream
 * expression with its named ternaries and the call ledger in details, and the latency in µs
 * when the device profile gives the vector-core clock. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/plugin.h>
#include <msperf/att.h>
#include "cast_model.h"

/* An analytic model of the kernel's instruction stream: better than the roofline, below data. */
#define CAST_ATT_CONFIDENCE 0.5

static gboolean
cast_init (msperf_engine *engine, void **state, GError **error)
{
  (void) engine;
  /* The perf table is loaded once per engine. */
  *state = msperf_att_table_load_default (error);
  return *state != NULL;
}

static void
cast_fini (void *state)
{
  msperf_att_table_free (state);
}

/* The static checks and the model's limits for att (msperf_att_bind_check's callback). */
static gboolean
cast_domain (const msperf_value *att, void *table, GError **error)
{
  g_autoptr (msperf_expr_ctx) ctx = msperf_expr_ctx_new ();
  cast_att_params p;
  cast_att_model m = { 0 };
  gboolean ok;

  cast_att_params_init (&p);
  ok = cast_att_params_from_value (ctx, att, &p, error) && cast_att_run (table, ctx, &p, &m, error);
  cast_att_model_clear (&m);
  cast_att_params_clear (&p);
  return ok;
}

static msperf_status
cast_model (msperf_engine *engine, void *state, const msperf_query *query, msperf_result *result)
{
  const msperf_att_table *table = state;
  g_autoptr (msperf_expr_ctx) ctx = msperf_expr_ctx_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_value) report = NULL;
  g_autoptr (GHashTable) bindings = NULL;
  const msperf_value *att = query->op->att;
  const char *kind = msperf_value_get_string (msperf_value_lookup (att, "kind"));
  cast_att_params p;
  cast_att_model m = { 0 };
  msperf_status status = MSPERF_ERROR;
  double cyc;

  if (att == NULL || kind == NULL || strcmp (kind, "cast") != 0)
    return msperf_result_set_miss (result, "no_att_cast_params");
  cast_att_params_init (&p);
  if (!msperf_att_bind_check (att, cast_domain, (void *) table, &error)
      || !cast_att_params_from_value (ctx, att, &p, &error)
      || !cast_att_run (table, ctx, &p, &m, &error)
      || (bindings = msperf_att_bindings (ctx, att, &error)) == NULL
      || (report = cast_att_report (ctx, &m, bindings, &error)) == NULL)
    {
      msperf_result_set_miss (result, "att cast: %s", error->message);
      goto out;
    }
  cyc = msperf_att_result_begin (result, "Cast", CAST_ATT_CONFIDENCE, m.cost, report);
  msperf_result_detail_string (result, "att_branch", m.branch);
  msperf_result_detail_string (result, "repeat_time", msperf_expr_str (m.repeat));
  msperf_result_detail_string (result, "call_count", msperf_expr_str (m.call_count));
  if (m.warning != NULL)
    msperf_result_detail_string (result, "warning", m.warning);
  msperf_att_result_finish (result, msperf_engine_vector_clock_ghz (engine), report, cyc);
  status = MSPERF_HIT;
out:
  cast_att_model_clear (&m);
  cast_att_params_clear (&p);
  return status;
}

static const char *const cast_kinds[] = { "cast", NULL };

MSPERF_PLUGIN_DEFINE (
  .name = "cast_att",
  .version = PACKAGE_VERSION,
  .description = "ATT Cast V2 vector-function cost model (cycles, expression, call ledger)",
  .att_kinds = cast_kinds,
  .init = cast_init,
  .fini = cast_fini,
  .model = cast_model,
);
