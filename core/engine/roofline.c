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

/* Without a grid, a profile that numbers its ranks node by node (comm.nodes) puts a group
 * whose ranks are not all in one node on the link between nodes. */
static gboolean
spans_nodes (const msperf_device *device, const msperf_value *group)
{
  int64_t first;

  if (device->node_tier == NULL || !msperf_value_is_int_list (group) || group->items->len < 2)
    return FALSE;
  first = ((msperf_value *) g_ptr_array_index (group->items, 0))->i;
  for (guint r = 1; r < group->items->len; r++)
    if (((msperf_value *) g_ptr_array_index (group->items, r))->i / device->node_devices
        != first / device->node_devices)
      return TRUE;
  return FALSE;
}

static const msperf_comm_tier *
tier_for_group (const msperf_device *device, const msperf_value *group)
{
  if (spans_nodes (device, group))
    return device->node_tier;
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
collective_us (const msperf_device *device, const msperf_op *op,
               msperf_collective_pattern pattern, msperf_roofline *out)
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
  factor = pattern == MSPERF_PATTERN_ALL_REDUCE ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
  out->memory_us = factor * out->bytes / (tier->bandwidth_gbps * 1e3);
  out->latency_us = out->memory_us + tier->latency_us;
  return TRUE;
}

/* ------------------------------------------------------------------ fallbacks that respect physics */

static const msperf_tensor *
tensor_arg (const msperf_op *op, int i)
{
  const msperf_value *v = msperf_op_arg (op, i);
  return (v && v->kind == MSPERF_VALUE_TENSOR) ? &v->tensor : NULL;
}

static gboolean
dtype_is_integer (msperf_dtype d)
{
  return d == MSPERF_DTYPE_INT32 || d == MSPERF_DTYPE_INT64 || d == MSPERF_DTYPE_UINT32
         || d == MSPERF_DTYPE_UINT64 || d == MSPERF_DTYPE_INT16 || d == MSPERF_DTYPE_UINT16;
}

/* The paged-KV block table: an integer rank-2 tensor arg after q and k (TensorCast's
 * attention(q, k_cache, v_cache, block_table) and MLA(q, kv_cache, block_table, …)). */
static const msperf_tensor *
block_table (const msperf_op *op)
{
  for (guint k = 2; k < op->args->len && k < 4; k++)
    {
      const msperf_tensor *t = tensor_arg (op, (int) k);
      if (t && t->rank == 2 && dtype_is_integer (t->dtype))
        return t;
    }
  return NULL;
}

/* Heads, head dim and tokens of the query: (T, Hq·D) with D from the key, TND (T, Hq, D), or
 * BNSD (B, Hq, S, D). */
static gboolean
query_geometry (const msperf_tensor *q, const msperf_tensor *k, double *hq, double *d,
                double *tokens)
{
  if (q->rank == 2)
    {
      int64_t dk = k->dims[k->rank - 1];
      if (dk <= 0 || q->dims[1] % dk != 0)
        return FALSE;
      *d = (double) dk;
      *hq = (double) (q->dims[1] / dk);
      *tokens = (double) q->dims[0];
      return TRUE;
    }
  *d = (double) q->dims[q->rank - 1];
  if (q->rank == 3)
    {
      *hq = (double) q->dims[1];
      *tokens = (double) q->dims[0];
    }
  else if (q->rank == 4)
    {
      *hq = (double) q->dims[1];
      *tokens = (double) q->dims[0] * (double) q->dims[2];
    }
  else
    return FALSE;
  return TRUE;
}

/* Attention without seq_lens: the lengths come from the Q/K/V shapes. A paged cache
 * (blocks, block_size, [Hkv,] D) with a block table (B, max_blocks): decode (T/B = 1) reads
 * up to the table's capacity; prefill (T/B > 1) is assumed to attend its own tokens, causal.
 * A dense key (Tkv, Hkv, D) is one sequence; BNSD (B, Hkv, Skv, D) gives B and Skv.
 * flops 4·B·Hq·Sq·Skv·D (½ causal), bytes Q + the K/V read + O. */
static gboolean
attention_from_shapes (const msperf_op *op, msperf_roofline *out)
{
  const msperf_tensor *q = tensor_arg (op, 0), *k = tensor_arg (op, 1), *v = tensor_arg (op, 2);
  const msperf_tensor *table = block_table (op), *o = msperf_op_output (op);
  double hq, d, tokens, b, sq, skv, hkv, dk, kv_bytes, elem;
  gboolean causal;

  if (!q || !k || q->rank < 2 || k->rank < 3 || !query_geometry (q, k, &hq, &d, &tokens)
      || !(d > 0.0 && hq > 0.0))
    return FALSE;
  if (v && (v->rank != k->rank || dtype_is_integer (v->dtype)))
    v = NULL;
  elem = (double) msperf_dtype_size (k->dtype);
  dk = (double) k->dims[k->rank - 1];
  if (table)
    {
      double block = (double) k->dims[1];
      b = MAX ((double) table->dims[0], 1.0);
      hkv = k->rank == 4 ? (double) k->dims[2] : 1.0;
      sq = MAX (tokens / b, 1.0);
      if (sq <= 1.0)
        {
          skv = (double) table->dims[1] * block;
          g_snprintf (out->degraded, sizeof out->degraded,
                      "seq_lens absent: decode over the block table's capacity (Skv = %.0f "
                      "blocks x %.0f)", (double) table->dims[1], block);
        }
      else
        {
          skv = sq;
          g_snprintf (out->degraded, sizeof out->degraded,
                      "seq_lens absent: prefill without cache assumed (B = %.0f, Sq = Skv = "
                      "%.0f), causal", b, sq);
        }
      kv_bytes = b * skv * hkv * dk * elem;
    }
  else if (k->rank == 4)
    {
      b = MAX ((double) k->dims[0], 1.0);
      skv = (double) k->dims[2];
      sq = tokens / b;
      kv_bytes = tensor_bytes (k);
      g_snprintf (out->degraded, sizeof out->degraded,
                  "seq_lens absent: B = %.0f sequences of Skv = %.0f (key shape)", b, skv);
    }
  else
    {
      b = 1.0;
      skv = (double) k->dims[0];
      sq = tokens;
      kv_bytes = tensor_bytes (k);
      g_snprintf (out->degraded, sizeof out->degraded,
                  "seq_lens absent: one sequence, Sq = %.0f, Skv = %.0f (key shape)", sq, skv);
    }
  causal = sq > 1.0 && sq >= skv;
  out->flops = 4.0 * b * hq * sq * skv * d * (causal ? 0.5 : 1.0);
  out->bytes = tensor_bytes (q) + kv_bytes * (v ? 2.0 : 1.0) + (o ? tensor_bytes (o) : tensor_bytes (q));
  return TRUE;
}

/* aten.embedding(weight [V, H], indices): a row gather — the rows the indices select, the
 * indices and the output; never the whole table. */
static gboolean
embedding_bytes (const msperf_op *op, msperf_roofline *out)
{
  const msperf_tensor *w = tensor_arg (op, 0), *idx = tensor_arg (op, 1);
  const msperf_tensor *o = msperf_op_output (op);
  int64_t n;
  double rows;

  if (!w || !idx || w->rank != 2 || (n = msperf_tensor_numel (idx)) < 0)
    return FALSE;
  rows = (double) n * (double) w->dims[1] * (double) msperf_dtype_size (w->dtype);
  out->flops = 0.0;
  out->bytes = rows + tensor_bytes (idx) + (o ? tensor_bytes (o) : rows);
  g_snprintf (out->degraded, sizeof out->degraded,
              "row_gather: %" G_GINT64_FORMAT " rows of %" G_GINT64_FORMAT " read", n,
              w->dims[0]);
  return TRUE;
}

double
msperf_collective_ring_us (msperf_collective_pattern pattern, double bytes, int64_t p,
                           double bandwidth_gbps, double latency_us)
{
  double n = (double) p, steps;

  if (p <= 1)
    return 0.0;
  if (!(bandwidth_gbps > 0.0))
    return NAN;
  steps = pattern == MSPERF_PATTERN_ALL_REDUCE ? 2.0 * (n - 1.0) : n - 1.0;
  return steps / n * bytes / (bandwidth_gbps * 1e3) + steps * latency_us;
}

/* The tier a group of p consecutive ranks (0 … p−1) spans: the outermost grid dim whose
 * stride p exceeds; inside one rank's coordinates, the innermost tier; no grid, the link
 * between nodes past a node's devices (comm.nodes), else tier 0. */
static const msperf_comm_tier *
tier_for_size (const msperf_device *device, int64_t p)
{
  guint ndim;

  if (device->node_tier != NULL && p > device->node_devices)
    return device->node_tier;
  if (device->tiers == NULL || device->tiers->len == 0)
    return NULL;
  if (device->comm_grid == NULL || device->comm_grid->len == 0)
    return g_ptr_array_index (device->tiers, 0);
  ndim = device->comm_grid->len;
  for (guint d = 0; d < ndim && d < device->tiers->len; d++)
    {
      int64_t stride = 1;
      for (guint e = d + 1; e < ndim; e++)
        stride *= g_array_index (device->comm_grid, int64_t, e);
      if (g_array_index (device->comm_grid, int64_t, d) > 1 && p > stride)
        return g_ptr_array_index (device->tiers, d);
    }
  return g_ptr_array_index (device->tiers, MIN (ndim, device->tiers->len) - 1);
}

/* Group size of a collective without a rank group: the gather ratio when the shapes give one
 * (all_gather out/in, reduce_scatter in/out), else the upstream comm group: all_to_all over
 * ep_size (world_size when ep is not configured), the rest over tp_size. */
static int64_t
group_size (const msperf_op *op, msperf_collective_pattern pattern, const msperf_parallel *par,
            const char **source)
{
  const msperf_tensor *x = tensor_arg (op, 0), *o = msperf_op_output (op);
  int64_t in = x ? msperf_tensor_numel (x) : -1, on = o ? msperf_tensor_numel (o) : -1;
  gboolean gather = pattern == MSPERF_PATTERN_ALL_GATHER;
  gboolean scatter = pattern == MSPERF_PATTERN_REDUCE_SCATTER;

  if (gather && in > 0 && on > in && on % in == 0)
    {
      *source = "shapes";
      return on / in;
    }
  if (scatter && in > 0 && on > 0 && in > on && in % on == 0)
    {
      *source = "shapes";
      return in / on;
    }
  if (pattern == MSPERF_PATTERN_ALL_TO_ALL)
    {
      if (par && par->ep_size > 0)
        {
          *source = "ep_size";
          return par->ep_size;
        }
      *source = "world_size";
      return par ? MAX (par->world_size, (int64_t) 1) : 1;
    }
  *source = "tp_size";
  return par ? MAX (par->tp_size, (int64_t) 1) : 1;
}

/* The collective of an op summary (no rank group): sized from its message bytes (all_gather:
 * the gathered output) and the group size; one tier from the consecutive-rank group. */
static gboolean
collective_from_config (const msperf_device *device, const msperf_parallel *par,
                        const msperf_op *op, msperf_collective_pattern pattern,
                        double message_bytes, msperf_roofline *out)
{
  const msperf_comm_tier *tier;
  int64_t p = group_size (op, pattern, par, &out->group_source);

  out->group_size = p;
  if (p <= 1)
    {
      g_snprintf (out->degraded, sizeof out->degraded, "group_size_1: one rank (%s)",
                  out->group_source);
      out->bytes = message_bytes;
      out->memory_us = out->latency_us = 0.0;
      return TRUE;
    }
  tier = tier_for_size (device, p);
  if (!tier || !(tier->bandwidth_gbps > 0.0))
    return FALSE;
  if (pattern == MSPERF_PATTERN_ALL_GATHER)
    {
      const msperf_tensor *o = msperf_op_output (op);
      message_bytes = o ? tensor_bytes (o) : message_bytes * (double) p;
    }
  out->bytes = message_bytes;
  out->latency_us = msperf_collective_ring_us (pattern, message_bytes, p, tier->bandwidth_gbps,
                                               tier->latency_us);
  out->memory_us = out->latency_us;
  g_snprintf (out->degraded, sizeof out->degraded,
              "no rank group: %" G_GINT64_FORMAT " ranks from %s, tier %s, ring alpha-beta", p,
              out->group_source, tier->name ? tier->name : "?");
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

/* The roofline of out's FLOPs at peak FLOP/s and its bytes at the device's bandwidth. */
static void
finish_at (const msperf_device *device, double peak, msperf_roofline *out)
{
  out->compute_us = peak > 0.0 ? out->flops / peak * 1e6 : 0.0;
  out->memory_us = device->memory_bandwidth_gbps > 0.0
                     ? out->bytes / (device->memory_bandwidth_gbps * 1e3) : 0.0;
  out->latency_us = MAX (out->compute_us, out->memory_us) + device->launch_overhead_us;
}

static void
finish_compute (const msperf_device *device, const msperf_op *op, msperf_roofline *out)
{
  finish_at (device, peak_flops (device, op), out);
}

/* tensor_cast.fused_moe (x [T,H], w13 [E_l,N13,H], w2 [E_l,H,I], topk ids [T,k]; kwargs
 * num_experts E, topk k): one rank's routed experts as one kernel. Routing spread evenly over
 * the E experts, the rank's E_l experts get T·k·E_l/E of the (token, expert) pairs, 2·(N13·H +
 * H·I) FLOPs each, at the weights' tensor-core rate when they are 8-bit floats (the kernel
 * quantises its input), else the input's. Bytes: every tensor once, every local expert's
 * weights included. The experts the tokens reach, E_l·(1 − (1 − 1/E)^(T·k)), are fewer at a
 * few tokens, but the measured fused kernels take 2–9 times that bound there (doc/formats.md
 * §4.1), so reading them all is the closer of the two; the degraded note says how many. 4-bit
 * weights stay at the dtype table's byte an element although their shapes are logical (two a
 * byte): the weight-only kernels dequantise on the fly, and H200's MXFP4 rows (gpt-oss, EP 8,
 * 32 tokens: 115 us measured) sit above even the one-byte bound (95 us), twice the 48 us of
 * two a byte. */
static gboolean
fused_moe_cost (const msperf_device *device, const msperf_op *op, msperf_roofline *out)
{
  const msperf_tensor *x = tensor_arg (op, 0), *w13 = tensor_arg (op, 1), *w2 = tensor_arg (op, 2);
  const msperf_tensor *ids = tensor_arg (op, 3);
  int64_t e = 0, k = 0;
  double t, el, reached, tf;

  if (!x || !w13 || !w2 || x->rank != 2 || w13->rank != 3 || w2->rank != 3)
    return FALSE;
  if (!msperf_value_get_int (msperf_value_lookup (op->kwargs, "topk"), &k) && ids && ids->rank == 2)
    k = ids->dims[1];
  if (!msperf_value_get_int (msperf_value_lookup (op->kwargs, "num_experts"), &e))
    e = w13->dims[0];
  t = (double) x->dims[0];
  el = (double) w13->dims[0];
  if (k < 1 || e < 1 || el < 1 || el > (double) e || w2->dims[0] != w13->dims[0]
      || w2->dims[1] != w13->dims[2] || t < 0)
    return FALSE;
  reached = el * (1.0 - pow (1.0 - 1.0 / (double) e, t * (double) k));
  out->flops = 2.0 * t * (double) k * el / (double) e
               * ((double) w13->dims[1] * (double) w13->dims[2]
                  + (double) w2->dims[1] * (double) w2->dims[2]);
  out->bytes = io_bytes (op);
  tf = device->peak_tflops[w13->dtype == MSPERF_DTYPE_FP8_E4M3 || w13->dtype == MSPERF_DTYPE_FP8_E5M2
                           ? w13->dtype : x->dtype];
  if (!(tf > 0.0))
    tf = device->peak_tflops[MSPERF_DTYPE_BF16];
  finish_at (device, tf * 1e12, out);
  g_snprintf (out->degraded, sizeof out->degraded,
              "fused_moe: routing spread evenly (%.1f of %.0f local experts reached), every "
              "local expert's weights read", reached, el);
  return TRUE;
}

/* matmul_all_reduce(mat1, mat2, …[, rank_group]) and the quantised linears: the matmul's
 * roofline plus an all_reduce of the [M, N] output (BF16 when the inputs are 8-bit,
 * reference §2.8), over the rank group's size when given, else tp_size. */
static gboolean
fused_matmul_collective (const msperf_device *device, const msperf_parallel *par,
                         const msperf_op *op, msperf_roofline *out)
{
  const msperf_tensor *a = tensor_arg (op, 0), *b = tensor_arg (op, 1), *o = msperf_op_output (op);
  const msperf_value *group = msperf_op_arg (op, -1);
  const msperf_comm_tier *tier;
  double message, elem, comm;
  int64_t p;

  if (!a || !b || !matmul_flops (op, &out->flops))
    return FALSE;
  out->bytes = tensor_bytes (a) + tensor_bytes (b) + (o ? tensor_bytes (o) : 0.0);
  finish_compute (device, op, out);
  elem = msperf_dtype_size (a->dtype) == 1 ? 2.0 : (double) msperf_dtype_size (a->dtype);
  message = o ? tensor_bytes (o)
              : out->flops / (2.0 * (double) a->dims[a->rank - 1]) * elem;
  if (group && group->kind == MSPERF_VALUE_LIST)
    {
      p = group->items->len;
      out->group_source = "rank_group";
      tier = tier_for_group (device, group);
    }
  else
    {
      p = par ? MAX (par->tp_size, (int64_t) 1) : 1;
      out->group_source = "tp_size";
      tier = tier_for_size (device, p);
    }
  out->group_size = p;
  if (p > 1 && (!tier || !(tier->bandwidth_gbps > 0.0)))
    return FALSE;
  comm = p > 1 ? msperf_collective_ring_us (MSPERF_PATTERN_ALL_REDUCE, message, p,
                                            tier->bandwidth_gbps, tier->latency_us)
               : 0.0;
  out->collective_us = comm;
  out->latency_us += comm;
  g_snprintf (out->degraded, sizeof out->degraded,
              "fused: matmul roofline + all_reduce of %.0f B over %" G_GINT64_FORMAT
              " ranks (%s)%s", message, p, out->group_source, p > 1 ? "" : ", group_size_1");
  return TRUE;
}

void
msperf_roofline_estimate (const msperf_device *device, const msperf_op *op, msperf_roofline *out)
{
  msperf_roofline_estimate_parallel (device, NULL, op, out);
}

/* A collective: FORMATS §4's formula with a rank group, else sized from the configuration. */
static void
collective (const msperf_device *device, const msperf_parallel *parallel, const msperf_op *op,
            msperf_collective_pattern pattern, msperf_roofline *out)
{
  const msperf_value *group = msperf_op_arg (op, -1);
  const msperf_tensor *x = tensor_arg (op, 0);

  out->kind = "collective";
  if (group && group->kind == MSPERF_VALUE_LIST)
    {
      if (!collective_us (device, op, pattern, out))
        out->latency_us = NAN;
    }
  else if (!x || !collective_from_config (device, parallel, op, pattern, tensor_bytes (x), out))
    out->latency_us = NAN;
}

/* Costs op with the model of family f. FALSE when the model cannot cost this op (the next
 * family is tried); the collective models always answer, NAN when the device lacks a tier. */
static gboolean
cost_family (const msperf_device *device, const msperf_parallel *parallel, const msperf_op *op,
             const msperf_op_family *f, msperf_roofline *out)
{
  switch (f->model)
    {
    case MSPERF_COST_METADATA:
      out->kind = "metadata";
      out->latency_us = 0.0;
      g_strlcpy (out->degraded, "metadata_only: a view, no kernel and no bytes moved",
                 sizeof out->degraded);
      return TRUE;
    case MSPERF_COST_MATMUL_COLLECTIVE:
      out->kind = "matmul_collective";
      if (!fused_matmul_collective (device, parallel, op, out))
        out->latency_us = NAN;
      return TRUE;
    case MSPERF_COST_COLLECTIVE:
      collective (device, parallel, op, f->pattern, out);
      return TRUE;
    case MSPERF_COST_ATTENTION:
      if (find_int_values (op, 6) == NULL && attention_from_shapes (op, out))
        {
          out->kind = "attention";
          finish_compute (device, op, out);
          return TRUE;
        }
      if (!attention_flops (op, &out->flops))
        return FALSE;
      out->kind = "attention";
      break;
    case MSPERF_COST_GATHER:
      if (!embedding_bytes (op, out))
        return FALSE;
      out->kind = "gather";
      finish_compute (device, op, out);
      return TRUE;
    case MSPERF_COST_MATMUL:
      if (!matmul_flops (op, &out->flops))
        return FALSE;
      out->kind = "matmul";
      break;
    case MSPERF_COST_FUSED_MOE:
      if (!fused_moe_cost (device, op, out))
        return FALSE;
      out->kind = "fused_moe";
      return TRUE;
    default:
      return FALSE;
    }
  out->bytes = io_bytes (op);
  finish_compute (device, op, out);
  return TRUE;
}

void
msperf_roofline_estimate_parallel (const msperf_device *device, const msperf_parallel *parallel,
                                   const msperf_op *op, msperf_roofline *out)
{
  const msperf_op_family *f;
  const msperf_tensor *o;
  int64_t n;
  guint cursor = 0;

  *out = (msperf_roofline){ .kind = "elementwise", .latency_us = NAN };
  if (device == NULL || op == NULL)
    return;
  /* The op families (policies/roofline-families.yaml) name the model, in file order. */
  while ((f = msperf_op_families_match (device->families, op->name, &cursor)) != NULL)
    if (cost_family (device, parallel, op, f, out))
      return;
  /* Elementwise: one FLOP per output element, every tensor read or written once. */
  o = msperf_op_output (op);
  n = o ? msperf_tensor_numel (o) : 0;
  out->flops = n > 0 ? (double) n : 0.0;
  out->bytes = io_bytes (op);
  finish_compute (device, op, out);
}
