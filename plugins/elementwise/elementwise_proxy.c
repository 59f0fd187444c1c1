/* msperf module "elementwise" — memory-bound proxies (see elementwise_proxy.h). */
#include <config.h>
#include <string.h>
#include "elementwise_proxy.h"

/* The proxy's element: bf16, the dtype the sample database's unary rows are measured in. */
#define PROXY_DTYPE MSPERF_DTYPE_BF16
#define PROXY_ELEMENT_BYTES 2

/* numel × element size added to *sum; FALSE on an unknown size or an overflow. */
static gboolean
add_tensor_bytes (const msperf_tensor *t, int64_t times, int64_t *sum)
{
  int64_t numel = msperf_tensor_numel (t), b;
  guint size = msperf_dtype_size (t->dtype);

  if (numel < 0 || size == 0)
    return FALSE;
  if (!msperf_int64_checked_mul (numel, (int64_t) size * times, &b) || b > G_MAXINT64 - *sum)
    return FALSE;
  *sum += b;
  return TRUE;
}

gboolean
elementwise_proxy_bytes (const char *rule, const msperf_tensor *inputs, size_t n_inputs,
                         const msperf_tensor *const *outputs, size_t n_outputs, int64_t *bytes)
{
  gboolean gather;
  int64_t sum = 0;

  g_return_val_if_fail (bytes != NULL, FALSE);
  g_return_val_if_fail (inputs != NULL || n_inputs == 0, FALSE);
  g_return_val_if_fail (outputs != NULL || n_outputs == 0, FALSE);
  if (g_strcmp0 (rule, "all") == 0)
    gather = FALSE;
  else if (g_strcmp0 (rule, "gather") == 0)
    gather = TRUE;
  else
    return FALSE;
  for (size_t i = gather ? 1 : 0; i < n_inputs; i++)
    if (!add_tensor_bytes (&inputs[i], 1, &sum))
      return FALSE;
  for (size_t i = 0; i < n_outputs; i++)
    if (!add_tensor_bytes (outputs[i], gather ? 2 : 1, &sum))
      return FALSE;
  *bytes = sum;
  return TRUE;
}

elementwise_proxy_status
elementwise_proxy_tensors (const msperf_query *q, msperf_tensor *in, msperf_tensor *out,
                           int64_t *bytes, const char **reason)
{
  const msperf_value *key;
  const char *rule;
  const msperf_tensor *const *outs;
  size_t n_outs, n_in;
  int64_t b, numel;

  g_return_val_if_fail (q != NULL && in != NULL && out != NULL && reason != NULL,
                        ELEMENTWISE_PROXY_FAILED);
  key = q->entry ? msperf_value_lookup (q->entry->raw, "proxy_bytes") : NULL;
  if (key == NULL)
    return ELEMENTWISE_PROXY_OFF;
  rule = msperf_value_get_string (key);
  if (rule == NULL || (strcmp (rule, "all") != 0 && strcmp (rule, "gather") != 0))
    {
      *reason = "elementwise_proxy_bytes_invalid";
      return ELEMENTWISE_PROXY_FAILED;
    }
  if (q->op == NULL || q->op->out == NULL || q->op->out->len == 0)
    {
      *reason = "elementwise_proxy_no_output";
      return ELEMENTWISE_PROXY_FAILED;
    }
  /* tc_input_count would cut the kernel's rows too (the candidate index applies it to every
   * row): a proxy counts every tensor input of the op, and an entry that sets both is refused. */
  if (q->tc_input_count >= 0)
    {
      *reason = "elementwise_proxy_with_tc_input_count";
      return ELEMENTWISE_PROXY_FAILED;
    }
  outs = (const msperf_tensor *const *) q->op->out->pdata;
  n_outs = q->op->out->len;
  n_in = q->n_inputs;
  if (!elementwise_proxy_bytes (rule, q->inputs, n_in, outs, n_outs, &b) || b <= 0)
    {
      *reason = "elementwise_proxy_bytes_unknown";
      return ELEMENTWISE_PROXY_FAILED;
    }
  /* One read and one write of N elements: N = bytes / (2 × element), rounded up. */
  numel = (b + 2 * PROXY_ELEMENT_BYTES - 1) / (2 * PROXY_ELEMENT_BYTES);
  memset (out, 0, sizeof *out);
  out->rank = 1;
  out->dims[0] = numel;
  out->dtype = PROXY_DTYPE;
  out->format = MSPERF_FORMAT_ND;
  *in = *out;
  if (bytes)
    *bytes = b;
  return ELEMENTWISE_PROXY_READY;
}
