/* msperf fuzzing — ATT parameters: one trace line (JSON object) parsed as an op, its `att`
 * MAP decoded by the Cast model (cast_att_params_from_value), the model run over the shipped
 * VF perf table and its report (expressions, ternaries, ledger) built. */
#include <config.h>
#include <string.h>
#include <msperf/att.h>
#include <msperf/expr.h>
#include "app/trace/trace.h"
#include "cast_model.h"
#include "fuzz_common.h"

/* Loaded once: the table is input-independent, reloading it per input would only slow down. */
static msperf_att_table *fuzz_att_table;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  fuzz_init_logging ();
  return 0;
}

static const msperf_att_table *
att_table (void)
{
  if (fuzz_att_table == NULL)
    {
      fuzz_att_table = msperf_att_table_load_default (NULL);
      if (fuzz_att_table == NULL)
        abort ();
    }
  return fuzz_att_table;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *text = fuzz_strndup (data, size);
  g_autoptr (msperf_op) op = NULL;
  g_autoptr (msperf_expr_ctx) ctx = NULL;
  g_autoptr (msperf_value) report = NULL;
  const char *kind;
  cast_att_params p;
  cast_att_model m = { 0 };

  op = msperf_trace_parse_op (text, "fuzz-att", 1, &error);
  if (op == NULL)
    {
      if (error == NULL)
        abort ();
      return 0;
    }
  kind = msperf_value_get_string (msperf_value_lookup (op->att, "kind"));
  if (op->att == NULL || kind == NULL || strcmp (kind, "cast") != 0)
    return 0;
  ctx = msperf_expr_ctx_new ();
  cast_att_params_init (&p);
  if (cast_att_params_from_value (ctx, op->att, &p, &error)
      && cast_att_run (att_table (), ctx, &p, &m, &error))
    {
      report = cast_att_report (ctx, &m, NULL, &error);
      if (report == NULL && error == NULL)
        abort ();
    }
  else if (error == NULL)
    abort ();
  cast_att_model_clear (&m);
  cast_att_params_clear (&p);
  return 0;
}
