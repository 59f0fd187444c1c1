/* msperf — the answer of an ATT model module: the FORMATS §5 report object and the result
 * built from it, shared by cast_att and broadcast_att so both answer alike. */
#include <config.h>
#include <math.h>
#include <msperf/att.h>

msperf_value *
msperf_att_report_new (msperf_expr_ctx *ctx, const msperf_expr *cost, GHashTable *bindings,
                       const msperf_att_vf *vf, const msperf_expr *launches, GError **error)
{
  g_autoptr (msperf_value) obj = NULL;
  g_autofree char *inlined = NULL;
  g_autoptr (GError) eval_error = NULL;
  msperf_value *ternaries;
  msperf_expr *value;

  g_return_val_if_fail (ctx != NULL && cost != NULL && vf != NULL && launches != NULL, NULL);
  inlined = msperf_expr_str_inlined (cost, error);
  if (inlined == NULL)
    return NULL;
  /* Unbound symbols leave the value null: the expression is the answer then. Any other
   * evaluation error (a zero divisor) is the model's input error. */
  value = msperf_expr_evaluate (cost, bindings, &eval_error);
  if (value == NULL && !g_error_matches (eval_error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_UNBOUND))
    {
      g_propagate_error (error, g_steal_pointer (&eval_error));
      return NULL;
    }
  obj = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value_map_set (obj, "expression", msperf_value_new_string (msperf_expr_str (cost)));
  msperf_value_map_set (obj, "expression_inlined", msperf_value_new_string (inlined));
  msperf_value_map_set (obj, "value", value != NULL ? msperf_att_expr_value (value)
                                                    : msperf_value_new (MSPERF_VALUE_NONE));
  ternaries = msperf_value_new (MSPERF_VALUE_MAP);
  for (size_t i = 0; i < msperf_expr_ctx_n_variables (ctx); i++)
    {
      const char *name;
      const msperf_expr *def;

      msperf_expr_ctx_variable (ctx, i, &name, &def, NULL);
      msperf_value_map_set (ternaries, name, msperf_value_new_string (msperf_expr_str (def)));
    }
  msperf_value_map_set (obj, "ternaries", ternaries);
  msperf_value_map_set (obj, "ledger", msperf_att_ledger_to_value (msperf_att_vf_ledger (vf)));
  msperf_value_map_set (obj, "vf_launches", msperf_att_expr_value (launches));
  return g_steal_pointer (&obj);
}

double
msperf_att_result_begin (msperf_result *result, const char *kernel_type, double confidence,
                         const msperf_expr *cost, const msperf_value *report)
{
  const msperf_value *value;
  double cycles = NAN;

  g_return_val_if_fail (result != NULL && cost != NULL && report != NULL, NAN);
  value = msperf_value_lookup (report, "value");
  msperf_result_set_method (result, "att");
  msperf_result_set_hit (result, MSPERF_SOURCE_ANALYTIC, NAN, confidence, kernel_type, "att");
  if (msperf_value_get_double (value, &cycles))
    msperf_result_detail_value (result, "cycles", msperf_value_copy (value));
  else
    msperf_result_detail_string (result, "cycles", msperf_expr_str (cost));
  return cycles;
}

void
msperf_att_result_finish (msperf_result *result, double clock, const msperf_value *report,
                          double cycles)
{
  g_return_if_fail (result != NULL && report != NULL && report->kind == MSPERF_VALUE_MAP);
  for (guint i = 0; i < report->keys->len; i++)
    msperf_result_detail_value (result, g_ptr_array_index (report->keys, i),
                                msperf_value_copy (g_ptr_array_index (report->items, i)));
  if (isnan (cycles))
    msperf_result_set_miss (result, "symbolic_cost");
  else if (!(clock > 0.0))
    msperf_result_set_miss (result, "no_vector_clock");
  else
    msperf_result_set_answer (result, result->source, cycles / clock / 1e3, result->confidence);
  if (result->miss_reason != NULL)   /* still the model's answer, without a latency */
    msperf_result_set_answer (result, MSPERF_SOURCE_ANALYTIC, result->latency_us,
                              result->confidence);
}
