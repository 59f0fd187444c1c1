/* msperf — roofline estimate: max(FLOPs / peak, bytes / bandwidth) + launch overhead
 * (FORMATS §4). It weights M5 and stands in for every op the data cannot answer. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "engine/roofline.h"

static double
tensor_bytes (const msperf_tensor *t)
{
  int64_t n = msperf_tensor_numel (t);
  return n < 0 ? 0.0 : (double) n * (double) msperf_dtype_size (t->dtype);
}

static double
io_bytes (const msperf_op *op)
{
  g_autoptr (GPtrArray) in = msperf_op_tensor_inputs (op);
  double bytes = 0.0;

  for (guint k = 0; k < in->len; k++)
    bytes += tensor_bytes (g_ptr_array_index (in, k));
  for (guint k = 0; k < op->out->len; k++)
    bytes += tensor_bytes (g_ptr_array_index (op->out, k));
  return bytes;
}

static gboolean
name_has (const char *name, const char *const *parts)
{
  for (; *parts; parts++)
    if (strstr (name, *parts))
      return TRUE;
  return FALSE;
}

/* 2·M·K·N per batch: K = lhs[-1]; N from whichever rhs dim is not K (weights may be [K,N]
 * or [N,K]); every leading dim of lhs multiplies M (batch and flattened tokens alike). */
static gboolean
matmul_flops (const msperf_op *op, double *flops)
{
  g_autoptr (GPtrArray) in = msperf_op_tensor_inputs (op);
  const msperf_tensor *a, *b;
  double mk = 1.0, n;

  if (in->len < 2)
    return FALSE;
  a = g_ptr_array_index (in, 0);
  b = g_ptr_array_index (in, 1);
  if (a->rank < 2 || b->rank < 2)
    return FALSE;
  if (b->dims[b->rank - 2] == a->dims[a->rank - 1])
    n = (double) b->dims[b->rank - 1];
  else if (b->dims[b->rank - 1] == a->dims[a->rank - 1])
    n = (double) b->dims[b->rank - 2];
  else
    return FALSE;
  for (int d = 0; d < a->rank; d++)
    mk *= (double) a->dims[d];
  *flops = 2.0 * mk * n; /* mk = M·K·batch: 2·(batch·M)·K·N */
  return TRUE;
}

static const msperf_value *
find_int_values (const msperf_op *op, int arg)
{
  const msperf_value *v = msperf_op_arg (op, arg);
  return (v && v->kind == MSPERF_VALUE_TENSOR && v->tensor.values) ? v : NULL;
}

/* 4·H·Sq·Skv·D per sequence, halved for causal prefill (Sq == Skv > 1). Query (T,N,D) TND
 * or (B,N,S,D) BNSD; Skv from seq_lens values (arg 6), Sq from query_lens (arg 7) or T/B. */
static gboolean
attention_flops (const msperf_op *op, double *flops)
{
  const msperf_value *q = msperf_op_arg (op, 0);
  const msperf_value *seq = find_int_values (op, 6), *ql = find_int_values (op, 7);
  double heads, dim, tokens, total = 0.0;
  size_t nseq;

  if (!q || q->kind != MSPERF_VALUE_TENSOR || q->tensor.rank < 3)
    return FALSE;
  const msperf_tensor *t = &q->tensor;
  if (t->rank == 4)
    {
      heads = (double) t->dims[1];
      tokens = (double) t->dims[0] * (double) t->dims[2];
    }
  else
    {
      heads = (double) t->dims[t->rank - 2];
      tokens = (double) t->dims[0];
    }
  dim = (double) t->dims[t->rank - 1];
  if (!seq)
    {
      /* No lengths: a self-attention over the tokens seen, causal. */
      *flops = 4.0 * heads * tokens * tokens * dim * 0.5;
      return TRUE;
    }
  nseq = seq->tensor.n_values;
  for (size_t i = 0; i < nseq; i++)
    {
      double kv = (double) seq->tensor.values[i];
      double sq = (ql && i < ql->tensor.n_values) ? (double) ql->tensor.values[i]
                                                  : tokens / (double) nseq;
      total += 4.0 * heads * sq * kv * dim * (sq > 1.0 && sq >= kv ? 0.5 : 1.0);
    }
  *flops = total;
  return TRUE;
}

static const msperf_comm_tier *
tier_for_group (const msperf_device *device, const msperf_value *group)
{
  if (device->tiers == NULL || device->tiers->len == 0)
    return NULL;
  if (device->comm_grid && device->comm_grid->len > 0 && msperf_value_is_int_list (group)
      && group->items->len > 1)
    {
      /* The outermost grid dim in which the group's ranks differ (reference §2.9). */
      guint ndim = device->comm_grid->len;
      for (guint d = 0; d < ndim && d < device->tiers->len; d++)
        {
          int64_t stride = 1;
          for (guint e = d + 1; e < ndim; e++)
            stride *= g_array_index (device->comm_grid, int64_t, e);
          int64_t size = g_array_index (device->comm_grid, int64_t, d);
          int64_t first = ((msperf_value *) g_ptr_array_index (group->items, 0))->i;
          for (guint r = 1; r < group->items->len; r++)
            {
              int64_t rank = ((msperf_value *) g_ptr_array_index (group->items, r))->i;
              if (size > 0 && (rank / stride) % size != (first / stride) % size)
                return g_ptr_array_index (device->tiers, d);
            }
        }
      return g_ptr_array_index (device->tiers, device->tiers->len - 1);
    }
  return g_ptr_array_index (device->tiers, 0);
}

static gboolean
collective_us (const msperf_device *device, const msperf_op *op, msperf_roofline *out)
{
  const msperf_value *x = msperf_op_arg (op, 0), *group = msperf_op_arg (op, -1);
  const msperf_comm_tier *tier;
  double n, factor;

  if (!x || x->kind != MSPERF_VALUE_TENSOR || !group || group->kind != MSPERF_VALUE_LIST)
    return FALSE;
  tier = tier_for_group (device, group);
  n = (double) group->items->len;
  if (!tier || n < 1.0 || !(tier->bandwidth_gbps > 0.0))
    return FALSE;
  out->bytes = tensor_bytes (&x->tensor);
  factor = strstr (op->name, "all_reduce") ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
  out->memory_us = factor * out->bytes / (tier->bandwidth_gbps * 1e3);
  out->latency_us = out->memory_us + tier->latency_us;
  return TRUE;
}

static double
peak_flops (const msperf_device *device, const msperf_op *op)
{
  g_autoptr (GPtrArray) in = msperf_op_tensor_inputs (op);
  msperf_dtype dtype = in->len ? ((msperf_tensor *) g_ptr_array_index (in, 0))->dtype
                               : MSPERF_DTYPE_BF16;
  double tf = device->peak_tflops[dtype];

  if (!(tf > 0.0))
    tf = device->peak_tflops[MSPERF_DTYPE_BF16];
  return tf * 1e12;
}

void
msperf_roofline_estimate (const msperf_device *device, const msperf_op *op, msperf_roofline *out)
{
  static const char *const collectives[] = { "all_reduce", "all_gather", "reduce_scatter",
                                             "all_to_all", "alltoall", NULL };
  static const char *const matmuls[] = { "mm", "matmul", "linear", NULL };
  double peak;

  *out = (msperf_roofline){ .kind = "elementwise", .latency_us = NAN };
  if (device == NULL || op == NULL)
    return;
  if (name_has (op->name, collectives))
    {
      out->kind = "collective";
      if (!collective_us (device, op, out))
        out->latency_us = NAN;
      return;
    }
  if (strstr (op->name, "attention") && attention_flops (op, &out->flops))
    out->kind = "attention";
  else if (name_has (op->name, matmuls) && matmul_flops (op, &out->flops))
    out->kind = "matmul";
  else
    {
      const msperf_tensor *o = msperf_op_output (op);
      int64_t n = o ? msperf_tensor_numel (o) : 0;
      out->flops = n > 0 ? (double) n : 0.0;
    }
  out->bytes = io_bytes (op);
  peak = peak_flops (device, op);
  out->compute_us = peak > 0.0 ? out->flops / peak * 1e6 : 0.0;
  out->memory_us = device->memory_bandwidth_gbps > 0.0
                     ? out->bytes / (device->memory_bandwidth_gbps * 1e3) : 0.0;
  out->latency_us = MAX (out->compute_us, out->memory_us) + device->launch_overhead_us;
}
