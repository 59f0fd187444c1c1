/* msperf — the quant-transfer stage (quant_transfer.h), after the split-transfer stage and
 * before the roofline.
 *
 * A table measures a kernel in some quantisations and not others: NVIDIA's H200 fused-MoE
 * rows have no int4 weight-only experts (Kimi-K2.5's compressed-tensors checkpoint), while the
 * same expert shapes and splits are measured with fp8 block-scaled weights. The roofline alone
 * is a poor stand-in for a measured kernel (4–6× under the fused-MoE rows at prefill sizes,
 * doc/h200-database.md), so an op whose value of the declared field the table lacks is
 * answered from the same op in a declared stand-in quantisation — the field set to the
 * stand-in's value and the positional tensors to its dtypes — scaled by the ratio of the two
 * ops' rooflines: the stand-in's achieved share of its roofline carries over, as
 * aiconfigurator's transfer ladder carries a measured quantisation's utilisation to an
 * unmeasured one of the same shape (xquant / xprofile, `aic-core/.../operators/moe.rs`).
 *
 * The mapping entry declares it (doc/formats.md §1.1): `quant_transfer: {field: F, from:
 * {VALUE: [{quant: V, dtypes: [D, …]}, …]}}`, the stand-ins tried in order. The answer is
 * EXTRAPOLATED (not data: another kernel stands in), method quant_transfer. */
#define G_LOG_DOMAIN "msperf"
#include <config.h>
#include "engine/quant_transfer.h"
#include "io/quant_spec.h"

/* op with its field set to ref's value and its leading tensor args to ref's dtypes. */
static msperf_op *
reference_op (const msperf_op *op, const char *field, const msperf_quant_ref *ref)
{
  msperf_op *c = msperf_op_copy (op);

  msperf_value_map_set (c->kwargs, field, msperf_value_new_string (ref->value));
  for (int k = 0; k < ref->n_dtypes && (guint) k < c->args->len; k++)
    {
      msperf_value *v = g_ptr_array_index (c->args, (guint) k);

      if (v->kind == MSPERF_VALUE_TENSOR)
        v->tensor.dtype = ref->dtypes[k];
    }
  return c;
}

/* TRUE with r filled when stand-in ref is answered from data. */
static gboolean
try_reference (msperf_engine *e, const msperf_op *op, const char *field,
               const msperf_quant_ref *ref, msperf_data_answer_fn data_answer, msperf_result *r)
{
  g_autoptr (msperf_op) alt = reference_op (op, field, ref);
  g_autofree char *from = g_strdup_printf ("%s=%s", field, ref->value);

  return msperf_transfer_answer (e, op, alt, data_answer, "quant_transfer", "quant_from", from,
                                 r);
}

gboolean
msperf_quant_transfer_answer (msperf_engine *e, const msperf_op *op,
                              const msperf_mapping_entry *entry,
                              msperf_data_answer_fn data_answer, msperf_result *r)
{
  const msperf_value *raw;
  msperf_quant_spec spec;
  g_autofree char *problem = NULL;
  const char *value, *field;

  g_return_val_if_fail (e != NULL && op != NULL && entry != NULL && data_answer != NULL
                        && r != NULL, FALSE);
  raw = entry->raw ? msperf_value_lookup (entry->raw, "quant_transfer") : NULL;
  field = raw && raw->kind == MSPERF_VALUE_MAP
          ? msperf_value_get_string (msperf_value_lookup (raw, "field")) : NULL;
  value = field ? msperf_value_get_string (msperf_value_lookup (op->kwargs, field)) : NULL;
  if (value == NULL || !msperf_quant_spec_parse (raw, value, &spec, &problem))
    return FALSE;
  for (int k = 0; k < spec.n_refs; k++)
    if (try_reference (e, op, spec.field, &spec.refs[k], data_answer, r))
      return TRUE;
  return FALSE;
}
