/* msperf — an operator mapping's `split_transfer` declaration (split_spec.h). Read where the
 * database loads, to warn about a malformed one, and where the engine's split-transfer stage
 * answers, so that both read it alike. */
#include <config.h>
#include "io/split_spec.h"

/* The [arg, dim] pairs of one field into dims; FALSE with *problem. */
static gboolean
parse_dims (const msperf_value *list, const char *field, msperf_split_dim *dims, int *n,
            char **problem)
{
  *n = 0;
  if (list == NULL || list->kind != MSPERF_VALUE_LIST || list->items->len == 0
      || list->items->len > MSPERF_SPLIT_MAX_DIMS)
    {
      *problem = g_strdup_printf ("dims.%s: expected a list of 1 to %d [arg, dim] pairs", field,
                                  MSPERF_SPLIT_MAX_DIMS);
      return FALSE;
    }
  for (guint k = 0; k < list->items->len; k++)
    {
      const msperf_value *pair = g_ptr_array_index (list->items, k);
      int64_t arg, dim;

      if (pair->kind != MSPERF_VALUE_LIST || pair->items->len != 2
          || !msperf_value_get_int (g_ptr_array_index (pair->items, 0), &arg)
          || !msperf_value_get_int (g_ptr_array_index (pair->items, 1), &dim)
          || arg < 0 || arg > 64 || dim < 0 || dim >= MSPERF_MAX_RANK)
        {
          *problem = g_strdup_printf ("dims.%s[%u]: expected [arg, dim], arg 0..64 and dim "
                                      "0..%d", field, k, MSPERF_MAX_RANK - 1);
          return FALSE;
        }
      dims[*n].arg = (int) arg;
      dims[*n].dim = (int) dim;
      (*n)++;
    }
  return TRUE;
}

gboolean
msperf_split_spec_parse (const msperf_value *spec, msperf_split_spec *out, char **problem)
{
  const msperf_value *fields, *dims;

  g_return_val_if_fail (out != NULL && problem != NULL, FALSE);
  *problem = NULL;
  if (spec == NULL || spec->kind != MSPERF_VALUE_MAP)
    {
      *problem = g_strdup ("expected a mapping {fields: [A, B], dims: {A: [[arg, dim], …], "
                           "B: […]}}");
      return FALSE;
    }
  fields = msperf_value_lookup (spec, "fields");
  if (fields == NULL || fields->kind != MSPERF_VALUE_LIST || fields->items->len != 2)
    {
      *problem = g_strdup ("fields: expected a list of two kwarg names");
      return FALSE;
    }
  for (int f = 0; f < 2; f++)
    {
      out->field[f] = msperf_value_get_string (g_ptr_array_index (fields->items, (guint) f));
      if (out->field[f] == NULL || *out->field[f] == '\0')
        {
          *problem = g_strdup_printf ("fields[%d]: expected a kwarg name", f);
          return FALSE;
        }
    }
  if (g_strcmp0 (out->field[0], out->field[1]) == 0)
    {
      *problem = g_strdup ("fields: the two kwargs must differ");
      return FALSE;
    }
  dims = msperf_value_lookup (spec, "dims");
  if (dims == NULL || dims->kind != MSPERF_VALUE_MAP)
    {
      *problem = g_strdup ("dims: expected a mapping of each field to its [arg, dim] pairs");
      return FALSE;
    }
  for (int f = 0; f < 2; f++)
    if (!parse_dims (msperf_value_lookup (dims, out->field[f]), out->field[f], out->dims[f],
                     &out->n_dims[f], problem))
      return FALSE;
  return TRUE;
}

gboolean
msperf_split_spec_valid (const msperf_value *spec, char **problem)
{
  msperf_split_spec parsed;

  return msperf_split_spec_parse (spec, &parsed, problem);
}
