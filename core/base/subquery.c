/* msperf — sub-query constructors (include/msperf/subquery.h): plain data a decomposer or a
 * module builds and the engine answers, so they live beside the other values, below the
 * engine. */
#include <config.h>
#include <msperf/subquery.h>

msperf_subquery *
msperf_subquery_new (const char *mode, const char *kernel_type)
{
  msperf_subquery *sq = g_new0 (msperf_subquery, 1);

  sq->mode = g_strdup (mode);
  sq->kernel_types = g_new0 (char *, 1);
  sq->inputs = g_array_new (FALSE, TRUE, sizeof (msperf_tensor));
  sq->tc_input_count = -1;
  if (kernel_type)
    msperf_subquery_add_kernel (sq, kernel_type);
  return sq;
}

void
msperf_subquery_free (msperf_subquery *sq)
{
  if (sq == NULL)
    return;
  g_free (sq->mode);
  g_strfreev (sq->kernel_types);
  for (guint k = 0; k < sq->inputs->len; k++)
    msperf_tensor_clear (&g_array_index (sq->inputs, msperf_tensor, k));
  g_array_unref (sq->inputs);
  msperf_value_free (sq->params);
  g_free (sq);
}

void
msperf_subquery_add_input (msperf_subquery *sq, const msperf_tensor *t)
{
  msperf_tensor copy;

  g_return_if_fail (sq != NULL && t != NULL);
  msperf_tensor_copy (&copy, t);
  g_array_append_val (sq->inputs, copy);
}

void
msperf_subquery_add_kernel (msperf_subquery *sq, const char *kernel_type)
{
  guint n;

  g_return_if_fail (sq != NULL && kernel_type != NULL);
  if (g_strv_contains ((const char *const *) sq->kernel_types, kernel_type))
    return;
  n = g_strv_length (sq->kernel_types);
  sq->kernel_types = g_renew (char *, sq->kernel_types, n + 2);
  sq->kernel_types[n] = g_strdup (kernel_type);
  sq->kernel_types[n + 1] = NULL;
}

size_t
msperf_input_count_limit (size_t n, int64_t tc_input_count)
{
  if (tc_input_count >= 0 && (uint64_t) tc_input_count < (uint64_t) n)
    return (size_t) tc_input_count;
  return n;
}
