/* msperf — an operator mapping's `quant_transfer` declaration (quant_spec.h). Read where the
 * database loads, to warn about a malformed one, and where the engine's quant-transfer stage
 * answers, so that both read it alike. */
#include <config.h>
#include "io/quant_spec.h"

/* One {quant: V, dtypes: [D, …]} into ref; FALSE with *problem. */
static gboolean
parse_ref (const msperf_value *v, const char *from, guint k, msperf_quant_ref *ref,
           char **problem)
{
  const msperf_value *dtypes;

  ref->value = v && v->kind == MSPERF_VALUE_MAP
               ? msperf_value_get_string (msperf_value_lookup (v, "quant")) : NULL;
  dtypes = v && v->kind == MSPERF_VALUE_MAP ? msperf_value_lookup (v, "dtypes") : NULL;
  if (ref->value == NULL || *ref->value == '\0' || dtypes == NULL
      || dtypes->kind != MSPERF_VALUE_LIST || dtypes->items->len == 0
      || dtypes->items->len > MSPERF_QUANT_MAX_ARGS)
    {
      *problem = g_strdup_printf ("from.%s[%u]: expected {quant: VALUE, dtypes: [1 to %d "
                                  "dtypes of the positional args]}", from, k,
                                  MSPERF_QUANT_MAX_ARGS);
      return FALSE;
    }
  ref->n_dtypes = 0;
  for (guint i = 0; i < dtypes->items->len; i++)
    {
      const char *name = msperf_value_get_string (g_ptr_array_index (dtypes->items, i));
      msperf_dtype d = name ? msperf_dtype_from_string (name) : MSPERF_DTYPE_UNKNOWN;

      if (d == MSPERF_DTYPE_UNKNOWN)
        {
          *problem = g_strdup_printf ("from.%s[%u].dtypes[%u]: unknown dtype '%s'", from, k, i,
                                      name ? name : "");
          return FALSE;
        }
      ref->dtypes[ref->n_dtypes++] = d;
    }
  return TRUE;
}

gboolean
msperf_quant_spec_parse (const msperf_value *spec, const char *value, msperf_quant_spec *out,
                         char **problem)
{
  const msperf_value *from;

  g_return_val_if_fail (out != NULL && problem != NULL, FALSE);
  *problem = NULL;
  out->n_refs = 0;
  if (spec == NULL || spec->kind != MSPERF_VALUE_MAP)
    {
      *problem = g_strdup ("expected a mapping {field: KWARG, from: {VALUE: [{quant: VALUE, "
                           "dtypes: [DTYPE, …]}, …]}}");
      return FALSE;
    }
  out->field = msperf_value_get_string (msperf_value_lookup (spec, "field"));
  if (out->field == NULL || *out->field == '\0')
    {
      *problem = g_strdup ("field: expected a kwarg name");
      return FALSE;
    }
  from = msperf_value_lookup (spec, "from");
  if (from == NULL || from->kind != MSPERF_VALUE_MAP || from->keys == NULL
      || from->keys->len == 0)
    {
      *problem = g_strdup ("from: expected a mapping of each value to its stand-ins");
      return FALSE;
    }
  for (guint i = 0; i < from->keys->len; i++)
    {
      const char *key = g_ptr_array_index (from->keys, i);
      const msperf_value *list = g_ptr_array_index (from->items, i);
      gboolean want = value != NULL && g_strcmp0 (key, value) == 0;

      if (list->kind != MSPERF_VALUE_LIST || list->items->len == 0
          || list->items->len > MSPERF_QUANT_MAX_REFS)
        {
          *problem = g_strdup_printf ("from.%s: expected a list of 1 to %d stand-ins", key,
                                      MSPERF_QUANT_MAX_REFS);
          return FALSE;
        }
      for (guint k = 0; k < list->items->len; k++)
        {
          msperf_quant_ref ref;

          if (!parse_ref (g_ptr_array_index (list->items, k), key, k, &ref, problem))
            return FALSE;
          if (g_strcmp0 (ref.value, key) == 0)
            {
              *problem = g_strdup_printf ("from.%s[%u]: a value cannot stand in for itself",
                                          key, k);
              return FALSE;
            }
          if (want)
            out->refs[out->n_refs++] = ref;
        }
    }
  return TRUE;
}

gboolean
msperf_quant_spec_valid (const msperf_value *spec, char **problem)
{
  msperf_quant_spec parsed;

  return msperf_quant_spec_parse (spec, NULL, &parsed, problem);
}
