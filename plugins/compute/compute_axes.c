/* msperf module "compute" — interpolation coordinates (see compute_axes.h).
 *
 * Matmul kernels: M = lhs[-2], K = lhs[-1], N = rhs[-1] if rhs[-2] == K else rhs[-2] if
 * rhs[-1] == K; [M,K]×[K,N] and [M,K]×[N,K] share one regime (the weight layout is row metadata,
 * never stricter than the exact lookup); CSV FRACTAL_NZ shapes are restored first; a leading
 * batch of 1 is stripped for non-batched kernels; batch dims are part of the regime. Other
 * kernels: one axis, dim 0 of input 0 (`axis_0`, regime = the shape signature of the rest) or the
 * output element count (`generic_compute.axis: output_numel`, regime = the output tail shape).
 * The kernels whose exact match rewrites the inputs (RoPE, SwiGlu, ReshapeAndCache) have no
 * axis extractor and are excluded. `Accelerator Core` is never in the regime (the exact lookup
 * does not compare it); the CSV input formats are the regime's group, ND groups first.
 *
 * BMM H axis (opt-in): when the kernel's interpolation policy `axes` (kernel_overrides
 * K.axes, else interpolation.axes) lists "H", a batched matmul whose operands have equal batch
 * dims gets the axis H = their product in front of M, K, N, and the regime holds only the
 * number of batch dims ("batch=rank1"), not their values. H comes first because a BMM is H
 * independent GEMMs: latency is closest to linear in H, so the 1-D group (H) and the 2-D groups
 * (H,x) — tried first in combination order — are the most accurate ones. Operands with unequal
 * (broadcast) batch dims keep the batch in the regime, as without the key.
 *
 * FP8 scale sub-cases (opt-in, kernel_overrides K.scale_subcase: compute_scale | scale_matrix;
 * seed 000 §2 extensions and §5.5): without the key a matmul's inputs beyond the two operands add
 * only their count and dtypes to the regime (their shapes are ignored), and other kernels
 * interpolate along dim 0 of input 0 with every other shape exact. With it, the scale inputs'
 * shapes join the regime written in terms of the axes — each dim as "1", "K", "N", "M", a block
 * count "K/128" (ceil, also /32 for MX formats) or its literal value, in that order — so that
 * per-tensor, per-channel, per-token and block scales are separate regimes while the same
 * granularity interpolates across sizes. Matmul kernels keep the axes M, K, N; other kernels
 * (compute_scale: the dynamic quantisation that computes the scale, e.g. DynamicQuant;
 * scale_matrix: a static quantisation applying a given scale, e.g. AscendQuantV2) get M = the
 * product of the leading dims of input 0 and K = its last dim, the 2-D M/K of the seed. A dim
 * equal to two axes takes the first name in that order (a square case reads as K). */
#include <config.h>
#include <string.h>
#include <msperf/latency.h>
#include "compute_match.h"
#include "compute_axes.h"

/* More inputs than any compute kernel has. */
#define MAX_AXIS_INPUTS 16

static const char *const batched_matmul_kernels[] = {
  "BatchMatMulV2", "BatchMatMulNd", "TransposeBatchMatMul", "QuantBatchMatmulV3", NULL
};

static gboolean
in_set (const char *const *set, const char *kernel)
{
  for (; *set; set++)
    if (strcmp (*set, kernel) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
is_matmul (const char *kernel)
{
  return compute_kernel_is_matmul (kernel) || strcmp (kernel, "BatchMatMulNd") == 0;
}

/* BF16 and FLOAT rows stand in for each other on dtype-relaxed kernels (reference §2.4), so
 * they are one regime there. */
static const char *
regime_dtype (const char *kernel, msperf_dtype d)
{
  if (compute_kernel_is_dtype_relaxed (kernel)
      && (d == MSPERF_DTYPE_BF16 || d == MSPERF_DTYPE_FLOAT32))
    return "BF16|FLOAT";
  return msperf_dtype_profiling_name (d);
}

static void
append_dims (GString *s, const msperf_tensor *t, int from, int to)
{
  g_string_append_c (s, '[');
  for (int d = from; d < to; d++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, d > from ? "," : "", t->dims[d]);
  g_string_append_c (s, ']');
}

static void
add_dtypes (msperf_point *p, const char *kernel, const msperf_tensor *in, size_t n)
{
  g_autoptr (GString) s = g_string_new ("dtypes=");

  for (size_t i = 0; i < n; i++)
    {
      if (i)
        g_string_append_c (s, ',');
      g_string_append (s, regime_dtype (kernel, in[i].dtype));  /* never NULL */
    }
  msperf_point_regime_add (p, s->str);
}

/* TRUE when the kernel's interpolation axes list "H" (kernel_overrides first, then global). */
static gboolean
h_axis_enabled (msperf_engine *e, const char *kernel)
{
  const msperf_value *axes = msperf_engine_kernel_option (e, "interpolation_policy", kernel, "axes");

  if (axes == NULL || axes->kind == MSPERF_VALUE_NONE)
    axes = msperf_engine_policy_value (e, "interpolation.axes");
  for (guint k = 0; axes && axes->kind == MSPERF_VALUE_LIST && k < axes->items->len; k++)
    if (g_strcmp0 (msperf_value_get_string (g_ptr_array_index (axes->items, k)), "H") == 0)
      return TRUE;
  return FALSE;
}

/* H = the product of the batch dims when both operands have the same ones (at least one);
 * -1 otherwise (broadcast, unbatched, or an overflowing product). */
static int64_t
equal_batch_product (const msperf_tensor *lhs, const msperf_tensor *rhs)
{
  int64_t h = 1;

  if (lhs->rank != rhs->rank || lhs->rank < 3)
    return -1;
  for (int d = 0; d < lhs->rank - 2; d++)
    if (lhs->dims[d] != rhs->dims[d] || !msperf_int64_checked_mul (h, lhs->dims[d], &h))
      return -1;
  return h;
}

/* The kernel's scale sub-case (compute_scale or scale_matrix), NULL without the key. */
static const char *
scale_subcase (msperf_engine *e, const char *kernel)
{
  return msperf_value_get_string (
      msperf_engine_kernel_option (e, "interpolation_policy", kernel, "scale_subcase"));
}

typedef struct scale_symbols {
  const char *names[3];
  int64_t values[3];
  size_t n;
} scale_symbols;

/* One dim written in terms of the axes (see the head comment). */
static void
append_symbol (GString *s, int64_t d, const scale_symbols *sym)
{
  static const int64_t blocks[] = { 128, 32 };

  if (d == 1)
    {
      g_string_append_c (s, '1');
      return;
    }
  for (size_t k = 0; k < sym->n; k++)
    if (d == sym->values[k])
      {
        g_string_append (s, sym->names[k]);
        return;
      }
  for (size_t b = 0; b < G_N_ELEMENTS (blocks); b++)
    for (size_t k = 0; k < sym->n; k++)
      if (sym->values[k] > blocks[b] && d == (sym->values[k] + blocks[b] - 1) / blocks[b])
        {
          g_string_append_printf (s, "%s/%" G_GINT64_FORMAT, sym->names[k], blocks[b]);
          return;
        }
  g_string_append_printf (s, "%" G_GINT64_FORMAT, d);
}

/* "scales=" and the shapes of inputs from..n-1 in terms of the axes, into the regime. */
static void
add_scale_shapes (msperf_point *p, const msperf_tensor *in, size_t from, size_t n,
                  const scale_symbols *sym)
{
  g_autoptr (GString) s = g_string_new ("scales=");

  for (size_t i = from; i < n; i++)
    {
      if (i > from)
        g_string_append_c (s, ';');
      g_string_append_c (s, '[');
      for (int d = 0; d < in[i].rank; d++)
        {
          if (d)
            g_string_append_c (s, ',');
          append_symbol (s, in[i].dims[d], sym);
        }
      g_string_append_c (s, ']');
    }
  msperf_point_regime_add (p, s->str);
}

static gboolean
describe_matmul (msperf_engine *e, const char *kernel, const msperf_tensor *in, size_t n,
                 msperf_point *p)
{
  int64_t h = -1;
  gboolean batched = in_set (batched_matmul_kernels, kernel);
  msperf_tensor lhs, rhs;
  int64_t m, k, nn;
  g_autoptr (GString) batch = g_string_new ("batch=");
  char count[32];

  if (n < 2)
    return FALSE;
  lhs = in[0];
  rhs = in[1];
  /* A leading batch of 1 only: a 2-D (1, K) activation is M = 1, not a batch. */
  if (!batched && in[0].rank > 2)
    msperf_shape_strip (&in[0], &lhs);
  if (!batched && in[1].rank > 2)
    msperf_shape_strip (&in[1], &rhs);
  if (lhs.rank < 2 || rhs.rank < 2)
    return FALSE;
  m = lhs.dims[lhs.rank - 2];
  k = lhs.dims[lhs.rank - 1];
  if (rhs.dims[rhs.rank - 2] == k)
    nn = rhs.dims[rhs.rank - 1];
  else if (rhs.dims[rhs.rank - 1] == k)
    nn = rhs.dims[rhs.rank - 2];
  else
    return FALSE;  /* the weight layout cannot be told: no M/K/N (seed 000 §5.5) */

  msperf_point_regime_add (p, kernel);
  msperf_point_regime_add (p, "matmul");
  g_snprintf (count, sizeof count, "inputs=%zu", n);
  msperf_point_regime_add (p, count);
  add_dtypes (p, kernel, in, n);
  if (batched && h_axis_enabled (e, kernel))
    h = equal_batch_product (&lhs, &rhs);
  if (h > 0)
    {
      g_string_append_printf (batch, "rank%d", lhs.rank - 2);
      msperf_point_regime_add (p, batch->str);
      msperf_point_add_axis (p, "H", (double) h, TRUE);
    }
  else
    {
      append_dims (batch, &lhs, 0, lhs.rank - 2);
      g_string_append_c (batch, 'x');
      append_dims (batch, &rhs, 0, rhs.rank - 2);
      msperf_point_regime_add (p, batch->str);
    }
  if (scale_subcase (e, kernel))
    {
      scale_symbols sym = { { "K", "N", "M" }, { k, nn, m }, 3 };

      msperf_point_regime_add (p, scale_subcase (e, kernel));
      add_scale_shapes (p, in, 2, n, &sym);
    }
  msperf_point_add_axis (p, "M", (double) m, TRUE);
  msperf_point_add_axis (p, "K", (double) k, TRUE);
  msperf_point_add_axis (p, "N", (double) nn, TRUE);
  return TRUE;
}

/* A quantisation kernel under scale_subcase: M = product of the leading dims of input 0, K =
 * its last dim, the other inputs' shapes in terms of M and K in the regime. in is normalised. */
static gboolean
describe_scale (const char *kernel, const char *subcase, const msperf_tensor *in, size_t n,
                msperf_point *p)
{
  scale_symbols sym = { { "K", "M" }, { 0, 1 }, 2 };
  char buf[32];

  if (n < 1 || in[0].rank < 1)
    return FALSE;
  sym.values[0] = in[0].dims[in[0].rank - 1];
  for (int d = 0; d < in[0].rank - 1; d++)
    if (!msperf_int64_checked_mul (sym.values[1], in[0].dims[d], &sym.values[1]))
      return FALSE;
  msperf_point_regime_add (p, kernel);
  msperf_point_regime_add (p, subcase);
  g_snprintf (buf, sizeof buf, "inputs=%zu", n);
  msperf_point_regime_add (p, buf);
  add_dtypes (p, kernel, in, n);
  g_snprintf (buf, sizeof buf, "x=rank%d", in[0].rank);
  msperf_point_regime_add (p, buf);
  add_scale_shapes (p, in, 1, n, &sym);
  msperf_point_add_axis (p, "M", (double) sym.values[1], TRUE);
  msperf_point_add_axis (p, "K", (double) sym.values[0], TRUE);
  return TRUE;
}

static gboolean
output_numel_axis (msperf_engine *e, const char *kernel)
{
  const msperf_value *gc = msperf_engine_kernel_option (e, "interpolation_policy", kernel,
                                                        "generic_compute");
  const char *axis = msperf_value_get_string (msperf_value_lookup (gc, "axis"));

  return g_strcmp0 (axis, "output_numel") == 0;
}

/* The exact lookup strips a leading batch of 1 and folds 3-D inputs of flatten-batch kernels
 * into (a·b, c) (reference §2.4 rules b and h); the coordinates follow the same shapes. Only
 * rank >= 3 is stripped: a 2-D (1, H) row is one token, not a batch. */
static gboolean
normalise_generic (const char *kernel, const msperf_tensor *src, msperf_tensor *dst)
{
  int64_t p;

  *dst = *src;
  if (dst->rank >= 3 && dst->dims[0] == 1)
    msperf_shape_strip (src, dst);
  if (dst->rank == 3 && compute_kernel_is_flatten_batch (kernel))
    {
      if (!msperf_int64_checked_mul (dst->dims[0], dst->dims[1], &p))
        return FALSE;
      dst->dims[0] = p;
      dst->dims[1] = dst->dims[2];
      dst->rank = 2;
    }
  return TRUE;
}

static gboolean
describe_generic (msperf_engine *e, const char *kernel, const msperf_tensor *src, size_t n,
                  const msperf_tensor *out, msperf_point *p)
{
  msperf_tensor in[MAX_AXIS_INPUTS];
  g_autoptr (GString) sig = g_string_new ("shape=");
  char count[32];

  if (n < 1)
    return FALSE;
  for (size_t i = 0; i < n; i++)
    if (!normalise_generic (kernel, &src[i], &in[i]))
      return FALSE;
  if (scale_subcase (e, kernel))
    return describe_scale (kernel, scale_subcase (e, kernel), in, n, p);
  msperf_point_regime_add (p, kernel);
  g_snprintf (count, sizeof count, "inputs=%zu", n);
  if (output_numel_axis (e, kernel))
    {
      int64_t numel;

      if (out == NULL || out->rank < 1 || (numel = msperf_tensor_numel (out)) < 0)
        return FALSE;
      msperf_point_regime_add (p, "output_numel");
      msperf_point_regime_add (p, count);
      add_dtypes (p, kernel, in, n);
      append_dims (sig, out, 1, out->rank);
      g_string_append_printf (sig, ":%s", msperf_dtype_profiling_name (out->dtype));
      msperf_point_regime_add (p, sig->str);
      msperf_point_add_axis (p, "output_numel", (double) numel, TRUE);
      return TRUE;
    }
  if (in[0].rank < 1)
    return FALSE;
  msperf_point_regime_add (p, "axis_0");
  msperf_point_regime_add (p, count);
  add_dtypes (p, kernel, in, n);
  append_dims (sig, &in[0], 1, in[0].rank);
  for (size_t i = 1; i < n; i++)
    {
      g_string_append_c (sig, ';');
      append_dims (sig, &in[i], 0, in[i].rank);
    }
  msperf_point_regime_add (p, sig->str);
  msperf_point_add_axis (p, "axis_0", (double) in[0].dims[0], TRUE);
  return TRUE;
}

static gboolean
describe (msperf_engine *e, const char *kernel, const msperf_tensor *in, size_t n,
          const msperf_tensor *out, msperf_point *p)
{
  if (compute_kernel_rewrites_inputs (kernel) || n > MAX_AXIS_INPUTS)
    return FALSE;
  if (is_matmul (kernel))
    return describe_matmul (e, kernel, in, n, p);
  return describe_generic (e, kernel, in, n, out, p);
}

/* Q3: a float16 input compares as DT_BF16 when the kernel has no DT_FLOAT16 row at all. */
static gboolean
table_has_fp16 (msperf_engine *e, const char *kernel)
{
  const msperf_table *t = msperf_engine_table (e, kernel, NULL);

  for (size_t row = 0; t && row < msperf_table_n_rows (t); row++)
    {
      const msperf_slots *s = msperf_table_row_inputs (t, row);

      for (size_t i = 0; s && i < s->n; i++)
        if (s->t[i].dtype == MSPERF_DTYPE_FLOAT16)
          return TRUE;
    }
  return FALSE;
}

gboolean
compute_describe_target (msperf_engine *engine, void *state, const msperf_query *q, msperf_point *p)
{
  msperf_engine *e = engine;

  (void) state;
  const char *kernel;
  msperf_tensor in[MAX_AXIS_INPUTS];
  const msperf_value *tp_rule;
  const msperf_tensor *out;
  size_t n;
  int fp16 = -1;  /* unknown until needed */

  g_return_val_if_fail (e != NULL && q != NULL && p != NULL, FALSE);
  if (q->kernel_types == NULL || q->kernel_types[0] == NULL)
    return FALSE;
  kernel = q->kernel_types[0];
  /* tp_linear_projection rewrites dims before the exact match; the coordinates would be the
   * unprojected ones, so such ops are not interpolated when it applies. */
  tp_rule = q->entry && q->entry->raw ? msperf_value_lookup (q->entry->raw, "tp_linear_projection")
                                      : NULL;
  if (tp_rule && msperf_engine_parallel (e)->tp_size > 1)
    return FALSE;
  n = msperf_input_count_limit (q->n_inputs, q->tc_input_count);
  if (n > MAX_AXIS_INPUTS)
    return FALSE;
  for (size_t i = 0; i < n; i++)
    {
      in[i] = q->inputs[i];
      in[i].values = NULL;
      in[i].n_values = 0;
      /* Unmapped torch dtypes never match a row (reference §2.4). */
      if (!msperf_dtype_is_mapped (in[i].dtype))
        return FALSE;
      if (in[i].dtype == MSPERF_DTYPE_FLOAT16)
        {
          if (fp16 < 0)
            fp16 = table_has_fp16 (e, kernel) ? 1 : 0;
          if (!fp16)
            in[i].dtype = MSPERF_DTYPE_BF16;
        }
    }
  out = q->entry && q->op ? msperf_op_output (q->op) : NULL;
  return describe (e, kernel, in, n, out, p);
}

gboolean
compute_describe_row (msperf_engine *engine, void *state, const msperf_table *t, size_t row, msperf_point *p)
{
  msperf_engine *e = engine;

  (void) state;
  const char *kernel = msperf_table_kernel_type (t);
  const msperf_slots *slots = msperf_table_row_inputs (t, row);
  const msperf_slots *outs = msperf_table_row_outputs (t, row);
  msperf_tensor in[MAX_AXIS_INPUTS];
  g_autoptr (GString) group = g_string_new (NULL);
  gboolean all_nd = TRUE;
  size_t n;

  g_return_val_if_fail (e != NULL && t != NULL && p != NULL, FALSE);
  if (slots == NULL || slots->n == 0)
    return FALSE;
  if (!msperf_table_row_inputs_nd (t, row, p->input_limit, in, MAX_AXIS_INPUTS, &n))
    return FALSE;
  /* The CSV formats (before the NZ restore) are the regime's group, ND groups first. */
  for (size_t i = 0; i < n; i++)
    {
      const msperf_tensor *s = &slots->t[i];

      all_nd &= s->format == MSPERF_FORMAT_ND;
      g_string_append_printf (group, "%s%s", i ? ";" : "", msperf_format_name (s->format));
    }
  if (!describe (e, kernel, in, n, outs && outs->n ? &outs->t[0] : NULL, p))
    return FALSE;
  msperf_point_set_group (p, group->str, all_nd ? 0 : 1);
  p->latency_us = msperf_latency_policy_apply (e, t, row, NULL, NULL);
  return TRUE;
}
