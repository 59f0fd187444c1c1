/* msperf module "compute" — the row matcher of reference §2.4 (`_inputs_match`), with the
 * msperf fixes Q1 (slots come from the table already aligned), Q3 (fp16 retry flag) and Q4
 * (distance and rule name over every input). */
#include <config.h>
#include <string.h>
#include "compute_match.h"

/* More inputs than any kernel has; a row or op beyond it simply does not match. */
#define MAX_INPUTS 64

static const char *const matmul_kernels[] = {
  "MatMulV2", "MatMulV3", "MatMulCommon", "MatMul", "QuantBatchMatmulV3", "BatchMatMulV2",
  "TransposeBatchMatMul", "GroupedMatmul", "GroupedMatmulSwigluQuant", NULL
};
static const char *const flatten_batch_kernels[] = {
  "AscendQuantV2", "DynamicQuant", "RmsNorm", "AddRmsNormBias", "AddRmsNorm",
  "DispatchFFNCombine", NULL
};
static const char *const merge_last_dims_kernels[] = { "AscendQuantV2", "DynamicQuant", NULL };
static const char *const rope_kernels[] = {
  "ApplyRotaryPosEmb", "_triton_rope", "split_qkv_rmsnorm_rope_kernel", NULL
};
static const char *const dtype_relaxed_kernels[] = {
  "ApplyRotaryPosEmb", "_triton_rope", "split_qkv_rmsnorm_rope_kernel", "MatMulV2", "PadV3",
  "PadV3AiCore", "MoeGatingTopK", NULL
};
static const char *const reshape_and_cache_kernels[] = {
  "ReshapeAndCacheNdKernel", "reshape_and_cache_200000000", NULL
};

static gboolean
in_set (const char *const *set, const char *kernel)
{
  for (; *set; set++)
    if (strcmp (*set, kernel) == 0)
      return TRUE;
  return FALSE;
}

gboolean
compute_kernel_is_matmul (const char *kernel)
{
  return kernel && in_set (matmul_kernels, kernel);
}

gboolean
compute_kernel_is_dtype_relaxed (const char *kernel)
{
  return kernel && in_set (dtype_relaxed_kernels, kernel);
}

gboolean
compute_kernel_is_flatten_batch (const char *kernel)
{
  return kernel && in_set (flatten_batch_kernels, kernel);
}

gboolean
compute_kernel_rewrites_inputs (const char *kernel)
{
  return kernel
         && (in_set (rope_kernels, kernel) || strcmp (kernel, "SwiGlu") == 0
             || in_set (reshape_and_cache_kernels, kernel));
}

static void
shallow (msperf_tensor *dst, const msperf_tensor *src)
{
  *dst = *src;
  /* Copies are compared, never freed: drop the one owned pointer. */
  dst->values = NULL;
  dst->n_values = 0;
}

static void
swap_dims (msperf_tensor *t, int a, int b)
{
  int64_t d = t->dims[a];
  t->dims[a] = t->dims[b];
  t->dims[b] = d;
}

static void
insert_unit_dim (msperf_tensor *t, int at)
{
  if (t->rank >= MSPERF_MAX_RANK)
    return;
  memmove (&t->dims[at + 1], &t->dims[at], (size_t) (t->rank - at) * sizeof (int64_t));
  t->dims[at] = 1;
  t->rank++;
}

/* Equal except in the last dim (same rank >= 1). */
static gboolean
equal_but_last (const msperf_tensor *a, const msperf_tensor *b)
{
  if (a->rank != b->rank || a->rank < 1)
    return FALSE;
  for (int k = 0; k < a->rank - 1; k++)
    if (a->dims[k] != b->dims[k])
      return FALSE;
  return TRUE;
}

/* The kernel-specific rewrites of the TC inputs (reference §2.4 step 2). out has room for
 * MAX_INPUTS + 1 tensors. */
static size_t
normalise_inputs (const char *kernel, const msperf_tensor *tc, size_t n_tc, size_t n_csv,
                  msperf_tensor *out)
{
  for (size_t i = 0; i < n_tc; i++)
    shallow (&out[i], &tc[i]);

  if (in_set (rope_kernels, kernel) && n_tc >= 2 && n_csv >= 2)
    {
      /* TensorCast passes (q, k); the kernels take (k, q) in BSND layout. */
      msperf_tensor q = out[0];
      out[0] = out[1];
      out[1] = q;
      for (size_t i = 0; i < n_tc; i++)
        if (out[i].rank == 4)
          swap_dims (&out[i], 1, 2);
      if (n_tc >= 4)
        for (size_t i = 2; i < 4; i++)
          if (out[i].rank == 3)
            insert_unit_dim (&out[i], 2);
      return n_tc;
    }

  if (strcmp (kernel, "SwiGlu") == 0 && n_tc == 2 && n_csv == 1)
    {
      msperf_tensor a, b;

      msperf_shape_strip (&out[0], &a);
      msperf_shape_strip (&out[1], &b);
      out[0] = a;
      out[1] = b;
      /* The gate and up halves are one concatenated input of the fused kernel. */
      if (equal_but_last (&a, &b) && a.dtype == b.dtype && a.dims[a.rank - 1] >= 0
          && b.dims[b.rank - 1] >= 0 && a.dims[a.rank - 1] <= INT64_MAX - b.dims[b.rank - 1])
        {
          out[0].dims[a.rank - 1] = a.dims[a.rank - 1] + b.dims[b.rank - 1];
          return 1;
        }
      return 2;
    }

  if (in_set (reshape_and_cache_kernels, kernel) && n_tc == 4 && n_csv == 5)
    {
      msperf_tensor kv = out[2], slot = out[3];

      for (size_t i = 0; i < 2; i++)
        if (out[i].rank == 2)
          insert_unit_dim (&out[i], 1);
      if (kv.rank >= 2 && kv.dims[0] == 2)
        {
          /* kv_cache (2, ...) is the key cache and the value cache of the kernel. */
          msperf_tensor half = kv;
          memmove (&half.dims[0], &half.dims[1], (size_t) (half.rank - 1) * sizeof (int64_t));
          half.rank--;
          out[2] = half;
          out[3] = half;
          out[4] = slot;
          return 5;
        }
      return 4;
    }

  return n_tc;
}

/* The TC dtype as the upstream DTYPE_MAP sees it; UNKNOWN when unmapped. */
static msperf_dtype
mapped_dtype (msperf_dtype d, gboolean fp16_as_bf16)
{
  if (!msperf_dtype_is_mapped (d))
    return MSPERF_DTYPE_UNKNOWN;
  if (fp16_as_bf16 && d == MSPERF_DTYPE_FLOAT16)
    return MSPERF_DTYPE_BF16;
  return d;
}

static gboolean
dtype_ok (const char *kernel, msperf_dtype tc, msperf_dtype csv)
{
  if (tc == MSPERF_DTYPE_UNKNOWN)
    return FALSE;
  if (tc == csv)
    return TRUE;
  /* _DTYPE_RELAXED_KERNELS: BF16 and FLOAT measurements stand in for each other. */
  return compute_kernel_is_dtype_relaxed (kernel)
         && (tc == MSPERF_DTYPE_BF16 || tc == MSPERF_DTYPE_FLOAT32)
         && (csv == MSPERF_DTYPE_BF16 || csv == MSPERF_DTYPE_FLOAT32);
}

/* (a*b, c) of a 3-D tensor, or (a, b*c) when merge_last; FALSE on overflow. */
static gboolean
fold_3d (const msperf_tensor *t, gboolean merge_last, msperf_tensor *out)
{
  int64_t p;

  shallow (out, t);
  out->rank = 2;
  if (merge_last)
    {
      if (!msperf_int64_checked_mul (t->dims[1], t->dims[2], &p))
        return FALSE;
      out->dims[0] = t->dims[0];
      out->dims[1] = p;
    }
  else
    {
      if (!msperf_int64_checked_mul (t->dims[0], t->dims[1], &p))
        return FALSE;
      out->dims[0] = p;
      out->dims[1] = t->dims[2];
    }
  return TRUE;
}

/* Shape rules a–h′ in order; returns the per-input rule name ("identity" for rule a) or NULL
 * when nothing fits. */
static const char *
match_shape (const char *kernel, size_t i, const msperf_tensor *tc, const msperf_tensor *c)
{
  msperf_tensor st, sc;

  if (msperf_tensor_same_shape (tc, c))
    return "identity";
  msperf_shape_strip (tc, &st);
  msperf_shape_strip (c, &sc);
  if (msperf_tensor_same_shape (&st, &sc) || msperf_tensor_same_shape (&st, c))
    return "batch_strip";
  if (strcmp (kernel, "Index") == 0 && tc->rank == 2 && c->rank == 2 && tc->dims[0] == 1
      && c->dims[1] == 1 && tc->dims[1] == c->dims[0])
    return "singleton_axis_transpose";
  if (compute_kernel_is_matmul (kernel) && i >= 1)
    {
      if (tc->rank == 2 && c->rank == 2 && st.rank == 2 && st.dims[0] == c->dims[1]
          && st.dims[1] == c->dims[0])
        return "transpose";
      if (tc->rank == 3 && c->rank == 3 && tc->dims[0] == c->dims[0]
          && tc->dims[1] == c->dims[2] && tc->dims[2] == c->dims[1])
        return "batched_transpose";
    }
  if (msperf_shape_pad_match (&st, c))
    return "padding";
  if (msperf_shape_pad_match (&st, &sc))
    return "batch_strip+padding";

  {
    gboolean flatten = in_set (flatten_batch_kernels, kernel);
    gboolean merge = in_set (merge_last_dims_kernels, kernel);
    const msperf_tensor *t3 = st.rank == 3 ? &st : tc->rank == 3 ? tc : NULL;
    msperf_tensor f;

    if (c->rank != 2 || t3 == NULL)
      return NULL;
    if (flatten && fold_3d (t3, FALSE, &f))
      {
        if (msperf_tensor_same_shape (&f, c))
          return "flatten_3d";
        if (msperf_shape_pad_match (&f, c))
          return "flatten_3d+padding";
      }
    if (merge && fold_3d (t3, TRUE, &f))
      {
        if (msperf_tensor_same_shape (&f, c))
          return "merge_last_dims";
        if (msperf_shape_pad_match (&f, c))
          return "merge_last_dims+padding";
      }
  }
  return NULL;
}

static size_t
csv_count (const msperf_slots *csv, int64_t tc_input_count)
{
  if (tc_input_count >= 0 && (size_t) tc_input_count < csv->n)
    return (size_t) tc_input_count;
  return csv->n;
}

gboolean
compute_inputs_match (const char *kernel, const msperf_tensor *tc, size_t n_tc,
                      const msperf_slots *csv, int64_t tc_input_count, gboolean fp16_as_bf16,
                      compute_row_match *match)
{
  msperf_tensor in[MAX_INPUTS + 1];
  const char *names[MAX_INPUTS + 1];
  size_t n_csv, n_in, used = 0;
  gboolean padded = FALSE;

  g_return_val_if_fail (kernel != NULL && csv != NULL && match != NULL, FALSE);
  g_return_val_if_fail (tc != NULL || n_tc == 0, FALSE);

  n_csv = csv_count (csv, tc_input_count);
  if (n_tc > MAX_INPUTS || n_csv > MAX_INPUTS)
    return FALSE;
  n_in = normalise_inputs (kernel, tc, n_tc, n_csv, in);
  if (n_in != n_csv)
    return FALSE;

  for (size_t i = 0; i < n_in; i++)
    {
      const msperf_tensor *slot = &csv->t[i];
      msperf_tensor c;

      if (!dtype_ok (kernel, mapped_dtype (in[i].dtype, fp16_as_bf16), slot->dtype))
        return FALSE;
      if (slot->format == MSPERF_FORMAT_FRACTAL_NZ)
        {
          if (!msperf_shape_nz_to_nd (slot, &c))
            return FALSE;
        }
      else
        shallow (&c, slot);
      names[i] = match_shape (kernel, i, &in[i], &c);
      if (names[i] == NULL)
        return FALSE;
      if (strstr (names[i], "padding"))
        padded = TRUE;
    }

  match->distance = padded ? 1.0 : 0.0;
  match->rule[0] = '\0';
  for (size_t i = 0; i < n_in; i++)
    {
      gboolean seen = strcmp (names[i], "identity") == 0;

      for (size_t j = 0; j < i && !seen; j++)
        seen = strcmp (names[i], names[j]) == 0;
      if (seen)
        continue;
      /* At most ten distinct static names: always fits in COMPUTE_RULE_MAX. */
      if (used)
        g_strlcat (match->rule, "+", sizeof match->rule);
      g_strlcat (match->rule, names[i], sizeof match->rule);
      used++;
    }
  if (!used)
    g_strlcpy (match->rule, "identity", sizeof match->rule);
  return TRUE;
}

gboolean
compute_input_count_mismatch (const char *kernel, const msperf_table *primary, size_t n_tc,
                              int64_t tc_input_count)
{
  const msperf_slots *slots;
  size_t n_csv;

  g_return_val_if_fail (kernel != NULL && primary != NULL, FALSE);
  if (msperf_table_n_rows (primary) == 0)
    return FALSE;
  slots = msperf_table_row_inputs (primary, 0);
  if (slots == NULL)
    return FALSE;
  n_csv = csv_count (slots, tc_input_count);
  if (tc_input_count >= 0 && (size_t) tc_input_count < n_tc)
    n_tc = (size_t) tc_input_count;
  if (strcmp (kernel, "SwiGlu") == 0 && n_tc == 2 && n_csv == 1)
    return FALSE;
  if (in_set (reshape_and_cache_kernels, kernel) && n_tc == 4 && n_csv == 5)
    return FALSE;
  return n_tc != n_csv;
}
