/* msperf module "mla": the decomposers of the MLA family (reference §2.8, upstream
 * COMPOSITE_DECOMPOSERS). It fills only the decompose slot; the core answers every part through
 * the compute and attention_special modules and aggregates them (core/composite.c).
 *
 * MLA args: [0] q (T,N,qk_head), [1] kv_cache (blocks,bs,kv_lora+rope), [4] seq_lens (values),
 * [5] query_lens, [6] W_UK_T (N,nope,kv_lora), [7] W_UV (N,kv_lora,v), [8] kv_b_proj; >= 10 args.
 *
 *   decode  = BatchMatMulV2|BatchMatMulNd (quant: QuantBatchMatmulV3)
 *               on [(N,T,nope),(N,nope,kv_lora)]
 *             + attention {q_shape_3d (B,N,kv_lora), avg_seq_len, sparse_mode 0, num_kv_heads 1}
 *             + TransposeBatchMatMul on [(N,T,kv_lora),(N,kv_lora,v)]
 *   prefill = MatMulV2 on [(T,kv_lora), kv_b_proj] + attention
 *             {q_shape_3d (T,N,qk_head-rope), avg_seq_len, sparse_mode 3, num_kv_heads N}
 *
 * The attention kernel is FusedInferAttentionScore; the sparse ops use SparseFlashAttention with
 * the runtime parameters the reference lists (sparse_mode 3, num_kv_heads 1, input_layout TND,
 * cache_layout PA_BSND, kv_cache_mode paged, block_size = kv_cache.shape[1], topk from the
 * `topk`/`index_topk` kwarg when given, actual_seq_lengths_kv = seq_lens) and the latent
 * query (T,N,kv_lora) in both phases, as the SparseFlashAttention rows record it.
 *
 * Not specified by the reference, hence MSPERF_ERROR (the core reports decomposer_unsupported):
 * MLAPO and its quant variant (their cache_postprocess / mlapo_preprocess query modes), the DSA
 * indexer, and the sparse ops under sequence parallelism (the "sequence-parallel projection").
 *
 * Every compute spec sets tc_input_count to its input count (upstream auto_truncate); attention
 * specs carry the query as input 0 so the attention module sees the dtype. */
#include <config.h>
#include <string.h>
#include <msperf/plugin.h>

#define MLA_MIN_ARGS 10

typedef enum { PHASE_DECODE, PHASE_PREFILL, PHASE_MIXED, PHASE_INVALID } mla_phase;

static const char *const mla_ops[] = {
  "tensor_cast.multihead_latent_attention.default",
  "tensor_cast.multihead_latent_attention_quant.default",
  "tensor_cast.mla_sparse_attention.default",
  "tensor_cast.mla_sparse_attention_quant.default",
  "tensor_cast.mlapo.default",
  "tensor_cast.mlapo_quant.default",
  "tensor_cast.dsa_indexer.default",
  NULL
};

static const msperf_tensor *
arg_tensor (const msperf_op *op, int i, int rank)
{
  const msperf_value *v = msperf_op_arg (op, i);

  if (v == NULL || v->kind != MSPERF_VALUE_TENSOR)
    return NULL;
  if (rank > 0 ? v->tensor.rank != rank : v->tensor.rank < 1)
    return NULL;
  return &v->tensor;
}

static msperf_value *
v_int_list (const int64_t *items, size_t n)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (size_t k = 0; k < n; k++)
    msperf_value_list_append (list, msperf_value_new_int (items[k]));
  return list;
}

static void
add_input (msperf_subquery *sq, msperf_dtype dtype, int rank, int64_t d0, int64_t d1, int64_t d2)
{
  msperf_tensor t = { 0 };

  t.rank = rank;
  t.dims[0] = d0;
  t.dims[1] = d1;
  t.dims[2] = d2;
  t.dtype = dtype;
  t.format = MSPERF_FORMAT_ND;
  msperf_subquery_add_input (sq, &t);
}

/* A compute spec on two inputs (added by the caller); alt may be NULL. */
static msperf_subquery *
compute_spec (const char *kernel, const char *alt)
{
  msperf_subquery *sq = msperf_subquery_new ("compute", kernel);

  if (alt)
    msperf_subquery_add_kernel (sq, alt);
  sq->tc_input_count = 2;
  return sq;
}

static msperf_subquery *
attention_spec (const char *kernel, msperf_dtype dtype, int64_t t, int64_t n, int64_t d,
                int64_t avg_seq_len, int64_t sparse_mode, int64_t kv_heads)
{
  msperf_subquery *sq = msperf_subquery_new ("attention_special", kernel);
  int64_t q3[3] = { t, n, d };

  add_input (sq, dtype, 3, t, n, d);
  sq->params = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value_map_set (sq->params, "q_shape_3d", v_int_list (q3, 3));
  msperf_value_map_set (sq->params, "avg_seq_len", msperf_value_new_int (avg_seq_len));
  msperf_value_map_set (sq->params, "sparse_mode", msperf_value_new_int (sparse_mode));
  msperf_value_map_set (sq->params, "num_kv_heads", msperf_value_new_int (kv_heads));
  return sq;
}

/* Runtime parameters of the SparseFlashAttention rows (reference §2.8, §1.4). */
static void
add_sparse_params (msperf_subquery *sq, const msperf_op *op, const msperf_tensor *kv_cache,
                   const msperf_tensor *seq_lens)
{
  const msperf_value *topk = msperf_value_lookup (op->kwargs, "topk");
  int64_t k;

  if (topk == NULL)
    topk = msperf_value_lookup (op->kwargs, "index_topk");
  msperf_value_map_set (sq->params, "input_layout", msperf_value_new_string ("TND"));
  msperf_value_map_set (sq->params, "cache_layout", msperf_value_new_string ("PA_BSND"));
  msperf_value_map_set (sq->params, "kv_cache_mode", msperf_value_new_string ("paged"));
  if (kv_cache->rank >= 3)
    msperf_value_map_set (sq->params, "block_size", msperf_value_new_int (kv_cache->dims[1]));
  if (topk && msperf_value_get_int (topk, &k))
    msperf_value_map_set (sq->params, "topk", msperf_value_new_int (k));
  msperf_value_map_set (sq->params, "actual_seq_lengths_kv",
                        v_int_list (seq_lens->values, seq_lens->n_values));
}

static void
note_flag (gboolean decode, gboolean *any_decode, gboolean *any_prefill)
{
  if (decode)
    *any_decode = TRUE;
  else
    *any_prefill = TRUE;
}

/* All-true / all-false / mixed over a list of flags (bools or ints) or a tensor's values. */
static mla_phase
phase_of_flags (const msperf_value *v)
{
  gboolean any_decode = FALSE, any_prefill = FALSE;

  if (v->kind == MSPERF_VALUE_TENSOR)
    {
      for (size_t k = 0; k < v->tensor.n_values; k++)
        note_flag (v->tensor.values[k] != 0, &any_decode, &any_prefill);
    }
  else if (v->kind == MSPERF_VALUE_LIST)
    {
      for (guint k = 0; k < v->items->len; k++)
        {
          const msperf_value *item = g_ptr_array_index (v->items, k);
          int64_t i;

          if (item->kind == MSPERF_VALUE_BOOL)
            note_flag (item->b, &any_decode, &any_prefill);
          else if (msperf_value_get_int (item, &i))
            note_flag (i != 0, &any_decode, &any_prefill);
          else
            return PHASE_INVALID;
        }
    }
  else if (v->kind == MSPERF_VALUE_BOOL)
    return v->b ? PHASE_DECODE : PHASE_PREFILL;
  else
    return PHASE_INVALID;
  if (any_decode && any_prefill)
    return PHASE_MIXED;
  if (any_decode)
    return PHASE_DECODE;
  return any_prefill ? PHASE_PREFILL : PHASE_INVALID;
}

static mla_phase
phase_of_string (const char *s)
{
  if (g_ascii_strcasecmp (s, "decode") == 0)
    return PHASE_DECODE;
  if (g_ascii_strcasecmp (s, "prefill") == 0)
    return PHASE_PREFILL;
  if (g_ascii_strcasecmp (s, "mixed") == 0)
    return PHASE_MIXED;
  return PHASE_INVALID;
}

/* The phase from the `phase` or `is_decode_values` kwarg, else from query_lens (args[5]):
 * decode when it is None or max(query_lens) <= 1. */
static mla_phase
mla_phase_of (const msperf_op *op)
{
  const msperf_value *phase = msperf_value_lookup (op->kwargs, "phase");
  const msperf_value *flags = msperf_value_lookup (op->kwargs, "is_decode_values");
  const msperf_value *query_lens = msperf_op_arg (op, 5);

  if (phase && phase->kind == MSPERF_VALUE_STRING)
    return phase_of_string (phase->s);
  if (phase && phase->kind == MSPERF_VALUE_LIST)
    {
      mla_phase seen = PHASE_INVALID;
      for (guint k = 0; k < phase->items->len; k++)
        {
          const char *s = msperf_value_get_string (g_ptr_array_index (phase->items, k));
          mla_phase p = s ? phase_of_string (s) : PHASE_INVALID;
          if (p == PHASE_INVALID || p == PHASE_MIXED || (seen != PHASE_INVALID && p != seen))
            return p == PHASE_INVALID ? PHASE_INVALID : PHASE_MIXED;
          seen = p;
        }
      return seen;
    }
  if (flags && flags->kind != MSPERF_VALUE_NONE)
    return phase_of_flags (flags);
  if (query_lens && query_lens->kind == MSPERF_VALUE_TENSOR && query_lens->tensor.n_values > 0)
    {
      for (size_t k = 0; k < query_lens->tensor.n_values; k++)
        if (query_lens->tensor.values[k] > 1)
          return PHASE_PREFILL;
    }
  /* Upstream also reads decode when query_lens cannot be inspected. */
  return PHASE_DECODE;
}

/* int(mean(values)), truncating (quirk Q6). */
static gboolean
mean_seq_len (const msperf_tensor *t, int64_t *avg)
{
  double sum = 0.0;

  if (t->n_values == 0)
    return FALSE;
  for (size_t k = 0; k < t->n_values; k++)
    {
      if (t->values[k] < 0)
        return FALSE;
      sum += (double) t->values[k];
    }
  *avg = (int64_t) (sum / (double) t->n_values);
  return TRUE;
}

static msperf_status
mla_decompose (msperf_engine *engine, void *state, const msperf_query *query, msperf_plan *plan)
{
  const msperf_op *op = query->op;
  const char *name = op->name;
  gboolean quant = g_str_has_suffix (name, "_quant.default");
  gboolean sparse = g_str_has_prefix (name, "tensor_cast.mla_sparse_attention");
  const char *attn_kernel = sparse ? "SparseFlashAttention" : "FusedInferAttentionScore";
  const msperf_tensor *q, *kv_cache, *seq_lens;
  msperf_subquery *attn;
  int64_t t, n, head_dim, batch, avg;
  msperf_dtype dtype;
  mla_phase phase;

  (void) state;
  if (!g_str_has_prefix (name, "tensor_cast.multihead_latent_attention") && !sparse)
    return MSPERF_ERROR;
  if (sparse && msperf_engine_parallel (engine)->sequence_parallel)
    return MSPERF_ERROR;
  if (op->args->len < MLA_MIN_ARGS)
    return MSPERF_MISS;
  q = arg_tensor (op, 0, 3);
  kv_cache = arg_tensor (op, 1, 0);
  seq_lens = arg_tensor (op, 4, 0);
  if (q == NULL || kv_cache == NULL || seq_lens == NULL || !msperf_dtype_is_mapped (q->dtype)
      || !mean_seq_len (seq_lens, &avg))
    return MSPERF_MISS;
  dtype = q->dtype;
  t = q->dims[0];
  n = q->dims[1];
  head_dim = kv_cache->dims[kv_cache->rank - 1];
  batch = seq_lens->dims[0];
  phase = mla_phase_of (op);

  if (phase == PHASE_DECODE)
    {
      const msperf_tensor *w_uk_t = arg_tensor (op, 6, 3), *w_uv = arg_tensor (op, 7, 3);
      msperf_subquery *bmm, *tbmm;
      int64_t nope, kv_lora, v;

      if (w_uk_t == NULL || w_uv == NULL)
        return MSPERF_MISS;
      nope = w_uk_t->dims[1];
      kv_lora = w_uk_t->dims[2];
      v = w_uv->dims[2];
      bmm = quant ? compute_spec ("QuantBatchMatmulV3", NULL)
                  : compute_spec ("BatchMatMulV2", "BatchMatMulNd");
      /* NPU batch matmuls run heads-first (N,T,D). */
      add_input (bmm, dtype, 3, n, t, nope);
      add_input (bmm, dtype, 3, n, nope, kv_lora);
      /* Decode FIA sees the latent query only (kv_lora, not kv_lora + rope). */
      attn = sparse ? attention_spec (attn_kernel, dtype, t, n, kv_lora, avg, 3, 1)
                    : attention_spec (attn_kernel, dtype, batch, n, kv_lora, avg, 0, 1);
      tbmm = compute_spec ("TransposeBatchMatMul", NULL);
      add_input (tbmm, dtype, 3, n, t, kv_lora);
      add_input (tbmm, dtype, 3, n, kv_lora, v);
      if (sparse)
        add_sparse_params (attn, op, kv_cache, seq_lens);
      msperf_plan_add_part (plan, bmm);
      msperf_plan_add_part (plan, attn);
      msperf_plan_add_part (plan, tbmm);
      return MSPERF_HIT;
    }
  if (phase == PHASE_PREFILL)
    {
      const msperf_tensor *kv_b = arg_tensor (op, 8, 2);
      msperf_subquery *mm;
      int64_t kv_lora, rope, nope;

      if (kv_b == NULL)
        return MSPERF_MISS;
      kv_lora = kv_b->dims[0];
      rope = head_dim - kv_lora;
      nope = q->dims[2] - rope;
      if (rope < 0 || nope <= 0)
        return MSPERF_MISS;
      mm = compute_spec ("MatMulV2", NULL);
      add_input (mm, dtype, 2, t, kv_lora, 0);
      add_input (mm, dtype, 2, kv_b->dims[0], kv_b->dims[1], 0);
      /* Prefill decompresses K/V through kv_b_proj: one KV head per query head (TND). */
      attn = sparse ? attention_spec (attn_kernel, dtype, t, n, kv_lora, avg, 3, 1)
                    : attention_spec (attn_kernel, dtype, t, n, nope, avg, 3, n);
      if (sparse)
        add_sparse_params (attn, op, kv_cache, seq_lens);
      msperf_plan_add_part (plan, mm);
      msperf_plan_add_part (plan, attn);
      return MSPERF_HIT;
    }
  /* A mixed decode/prefill batch has no single kernel sequence (quirk Q24, reproduced). */
  return MSPERF_MISS;
}

MSPERF_PLUGIN_DEFINE (
  .name = "mla",
  .version = PACKAGE_VERSION,
  .description = "MLA family decomposers: decode/prefill, quant and sparse variants",
  .op_names = mla_ops,
  .decompose = mla_decompose,
);
