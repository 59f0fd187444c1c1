/* msperf module "elementwise" — interpolation coordinates (see elementwise_axes.h).
 *
 * Axis: `output_numel`, the output element count (seed 000 §2: "default 1D: output elements").
 * Upstream's extension path uses Σ input numels + output numel; within one broadcast regime and
 * input count that sum is affine in the output count for same-shape and scalar patterns, and the
 * output count is what the exact lookup matches on, so it is the axis here.
 * Regime: kernel | broadcast signature | input count | input and output dtypes. Dtypes stay in
 * the regime (doc/decisions.md "Elementwise interpolation"): an off-grid target is interpolated
 * from rows of its own dtype only; the bytes scaling across dtypes stays an exact-shape rule.
 * Like the exact lookup only the primary kernel is used (Q17), and float16 reads as DT_BF16 when
 * the kernel has no DT_FLOAT16 output row (Q3). */
#include <config.h>
#include <string.h>
#include "elementwise_axes.h"
#include "elementwise_proxy.h"

/* More inputs than any elementwise kernel has. */
#define MAX_AXIS_INPUTS 8

/* 'f', 'b' per output axis for one input; FALSE when it does not broadcast to out. */
static gboolean
input_letters (const msperf_tensor *in, const msperf_tensor *out, char *letters)
{
  int shift = out->rank - in->rank;

  /* Extra leading input axes must be 1 (they broadcast away). */
  for (int d = 0; d < -shift; d++)
    if (in->dims[d] != 1)
      return FALSE;
  for (int a = 0; a < out->rank; a++)
    {
      int d = a - shift;
      int64_t dim = d >= 0 && d < in->rank ? in->dims[d] : 1;

      if (dim == out->dims[a])
        letters[a] = 'f';
      else if (dim == 1)
        letters[a] = 'b';
      else
        return FALSE;
    }
  return TRUE;
}

gboolean
elementwise_broadcast_signature (const msperf_tensor *in, size_t n, const msperf_tensor *out,
                                 GString *sig)
{
  char letters[MAX_AXIS_INPUTS][MSPERF_MAX_RANK];
  gboolean scalar[MAX_AXIS_INPUTS];
  int keep[MSPERF_MAX_RANK], n_keep = 0, n_cols = 0, cols[MSPERF_MAX_RANK];
  gboolean same = TRUE;

  g_return_val_if_fail (out != NULL && sig != NULL, FALSE);
  if (n > MAX_AXIS_INPUTS || out->rank < 1 || msperf_tensor_numel (out) <= 0)
    return FALSE;
  for (int a = 0; a < out->rank; a++)
    if (out->dims[a] != 1)
      keep[n_keep++] = a;
  for (size_t i = 0; i < n; i++)
    {
      scalar[i] = msperf_tensor_numel (&in[i]) == 1;
      if (!scalar[i] && !input_letters (&in[i], out, letters[i]))
        return FALSE;
    }
  /* Coalesce: a kept axis starts a new column when some input's letter changes there. */
  for (int k = 0; k < n_keep; k++)
    {
      gboolean differs = n_cols == 0;

      for (size_t i = 0; i < n && !differs; i++)
        differs = !scalar[i] && letters[i][keep[k]] != letters[i][cols[n_cols - 1]];
      if (differs)
        cols[n_cols++] = keep[k];
    }
  for (size_t i = 0; i < n && same; i++)
    {
      same = !scalar[i];
      for (int c = 0; c < n_cols && same; c++)
        same = letters[i][cols[c]] == 'f';
    }
  g_string_truncate (sig, 0);
  if (same && n > 0)
    {
      g_string_append (sig, "same-shape");
      return TRUE;
    }
  for (size_t i = 0; i < n; i++)
    {
      if (i)
        g_string_append_c (sig, ';');
      if (scalar[i])
        g_string_append_c (sig, 's');
      else
        for (int c = 0; c < n_cols; c++)
          g_string_append_c (sig, letters[i][cols[c]]);
    }
  return TRUE;
}

/* Q3: float16 compares as DT_BF16 when the kernel has no DT_FLOAT16 output row. */
static gboolean
table_has_fp16 (const msperf_table *t)
{
  for (size_t row = 0; t && row < msperf_table_n_rows (t); row++)
    {
      const msperf_slots *s = msperf_table_row_outputs (t, row);

      if (s && s->n > 0 && s->t[0].dtype == MSPERF_DTYPE_FLOAT16)
        return TRUE;
    }
  return FALSE;
}

static gboolean
describe (const char *kernel, const msperf_tensor *in, size_t n, const msperf_tensor *out,
          msperf_point *p)
{
  g_autoptr (GString) sig = g_string_new (NULL);
  g_autoptr (GString) dtypes = g_string_new ("dtypes=");
  char count[32];
  int64_t numel;

  if (!elementwise_broadcast_signature (in, n, out, sig))
    return FALSE;
  numel = msperf_tensor_numel (out);
  for (size_t i = 0; i < n; i++)
    g_string_append_printf (dtypes, "%s%s", i ? "," : "", msperf_dtype_profiling_name (in[i].dtype));
  g_string_append_printf (dtypes, "->%s", msperf_dtype_profiling_name (out->dtype));
  g_snprintf (count, sizeof count, "inputs=%zu", n);
  msperf_point_regime_add (p, kernel);
  msperf_point_regime_add (p, "elementwise");
  msperf_point_regime_add (p, sig->str);
  msperf_point_regime_add (p, count);
  msperf_point_regime_add (p, dtypes->str);
  msperf_point_add_axis (p, "output_numel", (double) numel, TRUE);
  return TRUE;
}

static msperf_dtype
target_dtype (msperf_dtype d, int *fp16, const msperf_table *t)
{
  if (d != MSPERF_DTYPE_FLOAT16)
    return d;
  if (*fp16 < 0)
    *fp16 = table_has_fp16 (t) ? 1 : 0;
  return *fp16 ? d : MSPERF_DTYPE_BF16;
}

gboolean
elementwise_describe_target (msperf_engine *engine, void *state, const msperf_query *q,
                             msperf_point *p)
{
  const msperf_tensor *src;
  msperf_tensor in[MAX_AXIS_INPUTS], out;
  const msperf_table *t;
  const char *kernel, *reason = NULL;
  size_t n;
  int fp16 = -1;  /* unknown until needed */
  elementwise_proxy_status proxy;

  (void) state;
  g_return_val_if_fail (engine != NULL && q != NULL && p != NULL, FALSE);
  if (q->kernel_types == NULL || q->kernel_types[0] == NULL || q->op == NULL)
    return FALSE;
  kernel = q->kernel_types[0];
  /* Q17: the exact lookup scans the primary kernel only; its alternates answer nothing. */
  if (q->entry && q->entry->kernel_types && q->entry->kernel_types[0]
      && strcmp (kernel, q->entry->kernel_types[0]) != 0)
    return FALSE;
  /* A proxy is described as the unary op of the same bytes, as the exact lookup reads it. */
  proxy = elementwise_proxy_tensors (q, &in[0], &out, NULL, &reason);
  if (proxy == ELEMENTWISE_PROXY_FAILED)
    return FALSE;
  if (proxy == ELEMENTWISE_PROXY_READY)
    return describe (kernel, in, 1, &out, p);
  src = msperf_op_output (q->op);
  if (src == NULL || src->rank == 0 || !msperf_dtype_is_mapped (src->dtype))
    return FALSE;
  t = msperf_engine_table (engine, kernel, NULL);
  n = msperf_input_count_limit (q->n_inputs, p->input_limit);
  if (n > MAX_AXIS_INPUTS)
    return FALSE;
  for (size_t i = 0; i < n; i++)
    {
      in[i] = q->inputs[i];
      in[i].values = NULL;
      in[i].n_values = 0;
      if (!msperf_dtype_is_mapped (in[i].dtype))
        return FALSE;
      in[i].dtype = target_dtype (in[i].dtype, &fp16, t);
    }
  out = *src;
  out.values = NULL;
  out.n_values = 0;
  out.dtype = target_dtype (out.dtype, &fp16, t);
  return describe (kernel, in, n, &out, p);
}

gboolean
elementwise_describe_row (msperf_engine *engine, void *state, const msperf_table *t, size_t row,
                          msperf_point *p)
{
  const msperf_slots *slots = msperf_table_row_inputs (t, row);
  const msperf_slots *outs = msperf_table_row_outputs (t, row);
  size_t n;

  (void) engine;
  (void) state;
  g_return_val_if_fail (t != NULL && p != NULL, FALSE);
  if (slots == NULL || outs == NULL || outs->n == 0 || outs->t[0].dtype == MSPERF_DTYPE_UNKNOWN)
    return FALSE;
  n = msperf_input_count_limit (slots->n, p->input_limit);
  if (n > MAX_AXIS_INPUTS)
    return FALSE;
  for (size_t i = 0; i < n; i++)
    if (slots->t[i].dtype == MSPERF_DTYPE_UNKNOWN)
      return FALSE;
  return describe (msperf_table_kernel_type (t), slots->t, n, &outs->t[0], p);
}
