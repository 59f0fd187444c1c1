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
  "TransposeBatchMatMul", "GroupedMatmul", "GroupedMatmulSwigluQuant",
  /* the FP8 GEMMs of an imported aiconfigurator database (per-tensor and 128x128 block
   * scales; doc/formats.md §1.3) */
  "FP8MatMul", "FP8BlockMatMul", NULL
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
  /* the first byte first: most names differ there (this runs on every lookup) */
  for (; *set; set++)
    if ((*set)[0] == kernel[0] && strcmp (*set, kernel) == 0)
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
compute_kernel_folds (const char *kernel)
{
  return kernel
         && (in_set (flatten_batch_kernels, kernel) || in_set (merge_last_dims_kernels, kernel));
}

gboolean
compute_kernel_rewrites_inputs (const char *kernel)
{
  return kernel
         && (in_set (rope_kernels, kernel) || strcmp (kernel, "SwiGlu") == 0
             || in_set (reshape_and_cache_kernels, kernel));
}

void
compute_kernel_class_init (compute_kernel_class *k, const char *kernel)
{
  g_return_if_fail (k != NULL && kernel != NULL);
  k->rope = in_set (rope_kernels, kernel);
  k->swiglu = strcmp (kernel, "SwiGlu") == 0;
  k->reshape_and_cache = in_set (reshape_and_cache_kernels, kernel);
  k->index = strcmp (kernel, "Index") == 0;
  k->matmul = in_set (matmul_kernels, kernel);
  k->dtype_relaxed = in_set (dtype_relaxed_kernels, kernel);
  k->flatten_batch = in_set (flatten_batch_kernels, kernel);
  k->merge_last_dims = in_set (merge_last_dims_kernels, kernel);
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
normalise_inputs (const compute_kernel_class *kernel, const msperf_tensor *tc, size_t n_tc,
                  size_t n_csv, msperf_tensor *out)
{
  for (size_t i = 0; i < n_tc; i++)
    shallow (&out[i], &tc[i]);

  if (kernel->rope && n_tc >= 2 && n_csv >= 2)
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

  if (kernel->swiglu && n_tc == 2 && n_csv == 1)
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

  if (kernel->reshape_and_cache && n_tc == 4 && n_csv == 5)
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
dtype_ok (const compute_kernel_class *kernel, msperf_dtype tc, msperf_dtype csv)
{
  if (tc == MSPERF_DTYPE_UNKNOWN)
    return FALSE;
  if (tc == csv)
    return TRUE;
  /* _DTYPE_RELAXED_KERNELS: BF16 and FLOAT measurements stand in for each other. */
  return kernel->dtype_relaxed
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

/* The per-input rule names of match_shape, by id; rule ids >= FIRST_PADDED pad. */
typedef enum {
  RULE_IDENTITY = 0,
  RULE_BATCH_STRIP,
  RULE_SINGLETON_AXIS_TRANSPOSE,
  RULE_TRANSPOSE,
  RULE_BATCHED_TRANSPOSE,
  RULE_FLATTEN_3D,
  RULE_MERGE_LAST_DIMS,
  RULE_PADDING,
  RULE_BATCH_STRIP_PADDING,
  RULE_FLATTEN_3D_PADDING,
  RULE_MERGE_LAST_DIMS_PADDING,
  RULE_NONE
} rule_id;

#define FIRST_PADDED RULE_PADDING

static const char *const rule_names[] = {
  "identity", "batch_strip", "singleton_axis_transpose", "transpose", "batched_transpose",
  "flatten_3d", "merge_last_dims", "padding", "batch_strip+padding", "flatten_3d+padding",
  "merge_last_dims+padding",
};

/* The 3-D folds of rules g–h′ (flatten_3d, merge_last_dims and their padded forms). */
static rule_id
match_folds (const compute_kernel_class *kernel, const msperf_tensor *tc,
             const msperf_tensor *st, const msperf_tensor *c)
{
  const msperf_tensor *t3 = st->rank == 3 ? st : tc->rank == 3 ? tc : NULL;
  msperf_tensor f;

  if (c->rank != 2 || t3 == NULL)
    return RULE_NONE;
  if (kernel->flatten_batch && fold_3d (t3, FALSE, &f))
    {
      if (msperf_tensor_same_shape (&f, c))
        return RULE_FLATTEN_3D;
      if (msperf_shape_pad_match (&f, c))
        return RULE_FLATTEN_3D_PADDING;
    }
  if (kernel->merge_last_dims && fold_3d (t3, TRUE, &f))
    {
      if (msperf_tensor_same_shape (&f, c))
        return RULE_MERGE_LAST_DIMS;
      if (msperf_shape_pad_match (&f, c))
        return RULE_MERGE_LAST_DIMS_PADDING;
    }
  return RULE_NONE;
}

/* Shape rules a–h′ in order; returns the per-input rule (RULE_IDENTITY for rule a) or
 * RULE_NONE when nothing fits. */
static rule_id
match_shape (const compute_kernel_class *kernel, size_t i, const msperf_tensor *tc,
             const msperf_tensor *c)
{
  msperf_tensor st, sc;

  if (msperf_tensor_same_shape (tc, c))
    return RULE_IDENTITY;
  msperf_shape_strip (tc, &st);
  msperf_shape_strip (c, &sc);
  if (msperf_tensor_same_shape (&st, &sc) || msperf_tensor_same_shape (&st, c))
    return RULE_BATCH_STRIP;
  if (kernel->index && tc->rank == 2 && c->rank == 2 && tc->dims[0] == 1
      && c->dims[1] == 1 && tc->dims[1] == c->dims[0])
    return RULE_SINGLETON_AXIS_TRANSPOSE;
  if (kernel->matmul && i >= 1)
    {
      if (tc->rank == 2 && c->rank == 2 && st.rank == 2 && st.dims[0] == c->dims[1]
          && st.dims[1] == c->dims[0])
        return RULE_TRANSPOSE;
      if (tc->rank == 3 && c->rank == 3 && tc->dims[0] == c->dims[0]
          && tc->dims[1] == c->dims[2] && tc->dims[2] == c->dims[1])
        return RULE_BATCHED_TRANSPOSE;
    }
  if (msperf_shape_pad_match (&st, c))
    return RULE_PADDING;
  if (msperf_shape_pad_match (&st, &sc))
    return RULE_BATCH_STRIP_PADDING;
  return match_folds (kernel, tc, &st, c);
}


/* match->rule: the distinct non-identity rules in input order joined with '+', or
 * "identity". */
static void
set_rule (const rule_id *rules, size_t n, compute_row_match *match)
{
  size_t used = 0;

  match->rule[0] = '\0';
  for (size_t i = 0; i < n; i++)
    {
      gboolean seen = rules[i] == RULE_IDENTITY;

      for (size_t j = 0; j < i && !seen; j++)
        seen = rules[i] == rules[j];
      if (seen)
        continue;
      /* At most ten distinct static names: always fits in COMPUTE_RULE_MAX. */
      if (used)
        g_strlcat (match->rule, "+", sizeof match->rule);
      g_strlcat (match->rule, rule_names[rules[i]], sizeof match->rule);
      used++;
    }
  if (!used)
    g_strlcpy (match->rule, "identity", sizeof match->rule);
}

gboolean
compute_inputs_match_class (const compute_kernel_class *kernel, const msperf_tensor *tc,
                            size_t n_tc, const msperf_slots *csv, int64_t tc_input_count,
                            gboolean fp16_as_bf16, compute_row_match *match)
{
  msperf_tensor in[MAX_INPUTS + 1];
  rule_id rules[MAX_INPUTS + 1];
  size_t n_csv, n_in;
  gboolean padded = FALSE;

  g_return_val_if_fail (kernel != NULL && csv != NULL && match != NULL, FALSE);
  g_return_val_if_fail (tc != NULL || n_tc == 0, FALSE);

  n_csv = msperf_input_count_limit (csv->n, tc_input_count);
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
      rules[i] = match_shape (kernel, i, &in[i], &c);
      if (rules[i] == RULE_NONE)
        return FALSE;
      padded |= rules[i] >= FIRST_PADDED;
    }

  match->distance = padded ? 1.0 : 0.0;
  set_rule (rules, n_in, match);
  return TRUE;
}

gboolean
compute_inputs_match (const char *kernel, const msperf_tensor *tc, size_t n_tc,
                      const msperf_slots *csv, int64_t tc_input_count, gboolean fp16_as_bf16,
                      compute_row_match *match)
{
  compute_kernel_class k;

  g_return_val_if_fail (kernel != NULL, FALSE);
  compute_kernel_class_init (&k, kernel);
  return compute_inputs_match_class (&k, tc, n_tc, csv, tc_input_count, fp16_as_bf16, match);
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
  n_csv = msperf_input_count_limit (slots->n, tc_input_count);
  n_tc = msperf_input_count_limit (n_tc, tc_input_count);
  if (strcmp (kernel, "SwiGlu") == 0 && n_tc == 2 && n_csv == 1)
    return FALSE;
  if (in_set (reshape_and_cache_kernels, kernel) && n_tc == 4 && n_csv == 5)
    return FALSE;
  return n_tc != n_csv;
}
