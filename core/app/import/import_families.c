/* msperf (app) — aiconfigurator table families -> msperf kernel tables (doc/formats.md §1.3).
 *
 * Every upstream latency is in milliseconds and becomes `Average Duration(us)` by an exact
 * decimal shift of its text. A row that cannot be represented is dropped with a reason that
 * SOURCE.md counts. */
#include <config.h>
#include <string.h>
#include "import_private.h"

#define COMPUTE_HEADER "OP State,Accelerator Core,Input Shapes,Input Data Types,Input Formats," \
  "Output Shapes,Output Data Types,Output Formats,Average Duration(us)"
#define ATTENTION_HEADER COMPUTE_HEADER ",Runtime actual_seq_lengths_shape," \
  "Runtime actual_seq_lengths_values,Runtime actual_seq_lengths_kv_shape," \
  "Runtime actual_seq_lengths_kv_values,Runtime avg_seq_len,Runtime batch_size," \
  "Runtime num_heads,Runtime num_key_value_heads,Runtime sparse_mode,Runtime input_layout," \
  "Runtime attn_state,Runtime metadata_completeness,Runtime window_size"
#define COMM_HEADER "message_bytes,num_devices,dtype,Average Duration(us)"
#define MOE_HEADER COMPUTE_HEADER ",num_experts,moe_tp,moe_ep,topk,distribution,quant"

/* The latency cell as microseconds, or NULL (dropped with its reason). */
static char *
latency_us (imp_input *in, const imp_row *row)
{
  char *us = msperf_import_ms_to_us (imp_cell (row, "latency"));

  if (us == NULL)
    imp_input_drop (in, "latency not a positive number");
  return us;
}

/* The torch-ish dtype names of the tables as profiling spellings. */
static const char *
dt_of (const char *name)
{
  if (strcmp (name, "bfloat16") == 0)
    return "DT_BF16";
  if (strcmp (name, "float16") == 0 || strcmp (name, "half") == 0)
    return "DT_FLOAT16";
  if (strcmp (name, "fp8") == 0 || strcmp (name, "fp8_block") == 0)
    return "DT_FLOAT8_E4M3FN";
  if (strcmp (name, "int8") == 0)
    return "DT_INT8";
  return NULL;
}

static void
compute_row (GString *t, const char *in_shapes, const char *in_dtypes, const char *in_formats,
             const char *out_shape, const char *out_dtype, const char *us)
{
  imp_csv_cell (t, "dynamic", TRUE);
  imp_csv_cell (t, "AI_CORE", FALSE);
  imp_csv_cell (t, in_shapes, FALSE);
  imp_csv_cell (t, in_dtypes, FALSE);
  imp_csv_cell (t, in_formats, FALSE);
  imp_csv_cell (t, out_shape, FALSE);
  imp_csv_cell (t, out_dtype, FALSE);
  imp_csv_cell (t, "ND", FALSE);
  imp_csv_cell (t, us, FALSE);
}

#define INT_OR_DROP(row, col, var) \
  G_STMT_START { \
    if (!imp_cell_int ((row), (col), &(var)) || (var) < 0) \
      { \
        imp_input_drop (in, "column " col " not a non-negative integer"); \
        return TRUE; \
      } \
  } G_STMT_END

/* ------------------------------------------------------------------ GEMM */

/* gemm_dtype bfloat16 / fp8 (per-tensor scales) / fp8_block (128x128 block scales) are three
 * kernels of TensorRT-LLM: one table each, so a quantisation mode never answers another's
 * op. Activation [m,k], weight [n,k] (F.linear), output [m,n] bf16. */
static gboolean
convert_gemm (imp_db *db, imp_input *in, const imp_row *row, GError **error)
{
  const char *dtype = imp_cell (row, "gemm_dtype");
  const char *kernel, *dt;
  gint64 m, n, k;
  g_autofree char *us = NULL;
  g_autofree char *shapes = NULL;
  g_autofree char *dtypes = NULL;
  g_autofree char *out = NULL;
  imp_kernel *K;

  (void) error;
  if (strcmp (dtype, "bfloat16") == 0)
    kernel = "MatMulV2";
  else if (strcmp (dtype, "fp8") == 0)
    kernel = "FP8MatMul";
  else if (strcmp (dtype, "fp8_block") == 0)
    kernel = "FP8BlockMatMul";
  else
    {
      imp_input_drop (in, "gemm_dtype not bfloat16, fp8 or fp8_block");
      return TRUE;
    }
  INT_OR_DROP (row, "m", m);
  INT_OR_DROP (row, "n", n);
  INT_OR_DROP (row, "k", k);
  if ((us = latency_us (in, row)) == NULL)
    return TRUE;
  dt = dt_of (dtype);
  shapes = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ";%" G_GINT64_FORMAT
                            ",%" G_GINT64_FORMAT, m, k, n, k);
  dtypes = g_strdup_printf ("%s;%s", dt, dt);
  out = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, m, n);
  K = imp_db_kernel (db, kernel, COMPUTE_HEADER);
  compute_row (K->text, shapes, dtypes, "ND;ND", out, "DT_BF16", us);
  g_string_append_c (K->text, '\n');
  imp_input_wrote (in, kernel);
  return TRUE;
}

/* ------------------------------------------------------------- attention */

/* Context (prefill, TND, causal sparse_mode 3) and generation (decode, BNSD, one query token
 * over isl + step cached tokens) attention, in the layout of the sample database's
 * FusedInferAttentionScore rows, so attention_special answers them as it answers the sample.
 * The KV-cache dtype is the dtype of the key and value slots (float8_e4m3fn for an FP8 cache),
 * an FP8 FMHA's the query's. Sliding-window rows (window_size > 0) go to their own table,
 * SlidingWindowAttention, with the window as the exact field `Runtime window_size`: in one
 * table they would answer full-attention ops of the same shapes. */
static gboolean
convert_attention (imp_db *db, imp_input *in, const imp_row *row, gboolean decode)
{
  gint64 b, s, n, kv, d, w, beam, step, skv, t;
  const char *q_dt = dt_of (imp_cell (row, "attn_dtype"));
  const char *kv_dt = dt_of (imp_cell (row, "kv_cache_dtype"));
  const char *kernel;
  g_autofree char *us = NULL;
  g_autofree char *shapes = NULL;
  g_autofree char *dtypes = NULL;
  g_autofree char *out = NULL;
  g_autofree char *cell = NULL;
  imp_kernel *K;
  GString *r;

  INT_OR_DROP (row, "batch_size", b);
  INT_OR_DROP (row, "isl", s);
  INT_OR_DROP (row, "num_heads", n);
  INT_OR_DROP (row, "num_key_value_heads", kv);
  INT_OR_DROP (row, "head_dim", d);
  INT_OR_DROP (row, "window_size", w);
  INT_OR_DROP (row, "beam_width", beam);
  INT_OR_DROP (row, "step", step);
  if (beam != 1)
    {
      imp_input_drop (in, "beam_width != 1 (beam search is not modelled)");
      return TRUE;
    }
  if (q_dt == NULL || kv_dt == NULL)
    {
      imp_input_drop (in, "attn_dtype or kv_cache_dtype not bfloat16, float16 or fp8");
      return TRUE;
    }
  if (b < 1 || s < 1 || n < 1 || kv < 1 || d < 1 || b > 4096)
    {
      imp_input_drop (in, "batch, isl, heads or head_dim out of range");
      return TRUE;
    }
  if ((us = latency_us (in, row)) == NULL)
    return TRUE;
  kernel = w > 0 ? "SlidingWindowAttention" : "FusedInferAttentionScore";
  if (decode)
    {
      skv = s + step;
      shapes = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                                ",%" G_GINT64_FORMAT ";%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                                ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ";%" G_GINT64_FORMAT
                                ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT,
                                b, n, s, d, b, kv, skv, d, b, kv, skv, d);
      out = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                             ",%" G_GINT64_FORMAT, b, n, s, d);
    }
  else
    {
      if (step != 0)
        {
          imp_input_drop (in, "context attention with step != 0 (a cached prefix)");
          return TRUE;
        }
      t = b * s;
      skv = s;
      shapes = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                                ";%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                                ";%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT,
                                t, n, d, t, kv, d, t, kv, d);
      out = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT,
                             t, n, d);
    }
  dtypes = g_strdup_printf ("%s;%s;%s", q_dt, kv_dt, kv_dt);
  K = imp_db_kernel (db, kernel, ATTENTION_HEADER);
  r = K->text;
  imp_csv_cell (r, "dynamic", TRUE);
  imp_csv_cell (r, "MIX_AIC", FALSE);
  imp_csv_cell (r, shapes, FALSE);
  imp_csv_cell (r, dtypes, FALSE);
  imp_csv_cell (r, "ND;ND;ND", FALSE);
  imp_csv_cell (r, out, FALSE);
  imp_csv_cell (r, "DT_BF16", FALSE);
  imp_csv_cell (r, "ND", FALSE);
  imp_csv_cell (r, us, FALSE);
  /* The per-sequence length lists stay blank (a blank list cell passes attention_special's
   * filter): every sequence of an upstream row has the same length, which avg_seq_len and
   * batch_size say, and batches up to 2048 would write lists of 2048 numbers into 96 k rows
   * (78 MB of text to read on every load instead of 12 MB). */
  g_string_append_printf (r, ",%" G_GINT64_FORMAT ",,%" G_GINT64_FORMAT ",", b, b);
  g_string_append_printf (r, ",%" G_GINT64_FORMAT ".000000,%" G_GINT64_FORMAT ",%"
                          G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%d,%s,%s,runtime_values,%"
                          G_GINT64_FORMAT "\n", skv, b, n, kv, decode ? 0 : 3,
                          decode ? "BNSD_NBSD" : "TND",
                          decode ? "paged_runtime" : "prefill_no_cache", w);
  imp_input_wrote (in, kernel);
  return TRUE;
}

static gboolean
convert_context_attention (imp_db *db, imp_input *in, const imp_row *row, GError **error)
{
  (void) error;
  return convert_attention (db, in, row, FALSE);
}

static gboolean
convert_generation_attention (imp_db *db, imp_input *in, const imp_row *row, GError **error)
{
  (void) error;
  return convert_attention (db, in, row, TRUE);
}

/* ------------------------------------------------------------ collectives */

/* nccl-tests sizes: aiconfigurator's message_size is the element count of the nccl-tests
 * buffer (its collector divides the byte size by the element size: 2 for half, 1 for int8).
 * The communication module's message_bytes is per rank and per op as the trace gives it: the
 * whole buffer for all_reduce and all_to_all, the per-rank input (total / n) for all_gather,
 * the per-rank output (total / n) for reduce_scatter. */
static gboolean
convert_comm (imp_db *db, imp_input *in, const imp_row *row, const char *dtype_col,
              gboolean custom)
{
  const char *op = imp_cell (row, "op_name");
  const char *dtype = imp_cell (row, dtype_col);
  const char *kernel;
  gint64 n, size, bytes, elem;
  gboolean per_rank = FALSE;
  g_autofree char *us = NULL;
  imp_kernel *K;

  if (strcmp (dtype, "half") == 0 || strcmp (dtype, "bfloat16") == 0
      || strcmp (dtype, "float16") == 0)
    elem = 2;
  else
    {
      imp_input_drop (in, "collective dtype not 16-bit (the communication table has no dtype "
                          "field; 8-bit rows of the same bytes would compete with them)");
      return TRUE;
    }
  if (custom)
    kernel = strcmp (op, "all_reduce") == 0 ? "hcom_allReduce_" : NULL;
  else if (strcmp (op, "all_reduce") == 0)
    kernel = "hcom_allReduceNccl_";
  else if (strcmp (op, "all_gather") == 0)
    kernel = "hcom_allGather_", per_rank = TRUE;
  else if (strcmp (op, "reduce_scatter") == 0)
    kernel = "hcom_reduceScatter_", per_rank = TRUE;
  else if (strcmp (op, "alltoall") == 0)
    kernel = "hcom_alltoall_";
  else
    kernel = NULL;
  if (kernel == NULL)
    {
      imp_input_drop (in, "unknown collective op_name");
      return TRUE;
    }
  INT_OR_DROP (row, "num_gpus", n);
  INT_OR_DROP (row, "message_size", size);
  if (n < 1 || size > G_MAXINT64 / elem)
    {
      imp_input_drop (in, "num_gpus < 1 or message_size overflows");
      return TRUE;
    }
  bytes = size * elem;
  if (per_rank)
    {
      if (bytes % n != 0)
        {
          imp_input_drop (in, "buffer bytes not divisible by num_gpus");
          return TRUE;
        }
      bytes /= n;
    }
  if ((us = latency_us (in, row)) == NULL)
    return TRUE;
  K = imp_db_kernel (db, kernel, COMM_HEADER);
  g_string_append_printf (K->text, "%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",DT_BF16,%s\n",
                          bytes, n, us);
  imp_input_wrote (in, kernel);
  return TRUE;
}

static gboolean
convert_nccl (imp_db *db, imp_input *in, const imp_row *row, GError **error)
{
  (void) error;
  return convert_comm (db, in, row, "nccl_dtype", FALSE);
}

static gboolean
convert_custom_allreduce (imp_db *db, imp_input *in, const imp_row *row, GError **error)
{
  (void) error;
  return convert_comm (db, in, row, "allreduce_dtype", TRUE);
}

/* ------------------------------------------------------------------- MoE */

/* The routed-expert FFN of one rank as tensor_cast.fused_moe.default carries it: x [T,H],
 * w13 [E/ep, 2*I/tp, H] (gated; [E/ep, I/tp, H] for the non-gated kernel), w2 [E/ep, H, I/tp],
 * topk ids [T, topk]; exact fields num_experts, moe_tp, moe_ep, topk, distribution (the
 * routing distribution the tokens were drawn from) and quant. */
static gboolean
convert_moe (imp_db *db, imp_input *in, const imp_row *row, GError **error)
{
  const char *quant = imp_cell (row, "moe_dtype");
  const char *src = imp_cell (row, "kernel_source");
  const char *dist = imp_cell (row, "distribution");
  const char *act_dt, *w_dt;
  gint64 t, h, inter, topk, e, tp, ep, el, il, up;
  g_autofree char *us = NULL;
  g_autofree char *shapes = NULL;
  g_autofree char *dtypes = NULL;
  g_autofree char *out = NULL;
  imp_kernel *K;
  GString *r;

  (void) error;
  INT_OR_DROP (row, "num_tokens", t);
  INT_OR_DROP (row, "hidden_size", h);
  INT_OR_DROP (row, "inter_size", inter);
  INT_OR_DROP (row, "topk", topk);
  INT_OR_DROP (row, "num_experts", e);
  INT_OR_DROP (row, "moe_tp_size", tp);
  INT_OR_DROP (row, "moe_ep_size", ep);
  if (t < 1 || tp < 1 || ep < 1 || e % ep != 0 || inter % tp != 0)
    {
      imp_input_drop (in, "experts not divisible by moe_ep or inter_size by moe_tp");
      return TRUE;
    }
  if (strcmp (quant, "bfloat16") == 0)
    act_dt = "DT_BF16", w_dt = "DT_BF16";
  else if (strcmp (quant, "fp8") == 0 || strcmp (quant, "fp8_block") == 0)
    act_dt = "DT_FLOAT8_E4M3FN", w_dt = "DT_FLOAT8_E4M3FN";
  else if (strcmp (quant, "w4a16_mxfp4") == 0)
    act_dt = "DT_BF16", w_dt = "DT_INT4";
  else
    {
      imp_input_drop (in, "moe_dtype not bfloat16, fp8, fp8_block or w4a16_mxfp4");
      return TRUE;
    }
  if ((us = latency_us (in, row)) == NULL)
    return TRUE;
  el = e / ep;
  il = inter / tp;
  up = strcmp (src, "moe_torch_flow_nongated") == 0 ? il : 2 * il;
  shapes = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ";%" G_GINT64_FORMAT ",%"
                            G_GINT64_FORMAT ",%" G_GINT64_FORMAT ";%" G_GINT64_FORMAT ",%"
                            G_GINT64_FORMAT ",%" G_GINT64_FORMAT ";%" G_GINT64_FORMAT ",%"
                            G_GINT64_FORMAT, t, h, el, up, h, el, h, il, t, topk);
  dtypes = g_strdup_printf ("%s;%s;%s;INT32", act_dt, w_dt, w_dt);
  out = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, t, h);
  K = imp_db_kernel (db, "FusedMoE", MOE_HEADER);
  r = K->text;
  compute_row (r, shapes, dtypes, "ND;ND;ND;ND", out, "DT_BF16", us);
  g_string_append_printf (r, ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                          ",%" G_GINT64_FORMAT, e, tp, ep, topk);
  imp_csv_cell (r, dist, FALSE);
  /* The quant field holds msperf's mode names (the templates' {quant: moe} kwarg, --quant):
   * upstream's bfloat16 is bf16, the others are spelt alike. */
  imp_csv_cell (r, strcmp (quant, "bfloat16") == 0 ? "bf16" : quant, FALSE);
  g_string_append_c (r, '\n');
  imp_input_wrote (in, "FusedMoE");
  return TRUE;
}

/* -------------------------------------------------------------- quantise */

/* FP8 quantisation of an [m,k] bf16 activation: compute_scale (dynamic: the scale is computed,
 * tensor_cast.fp8_quantize) and scale_matrix (a given scale applied), one kernel each. */
static gboolean
convert_quant (imp_db *db, imp_input *in, const imp_row *row, const char *kernel)
{
  gint64 m, k;
  g_autofree char *us = NULL;
  g_autofree char *shape = NULL;
  imp_kernel *K;

  if (strcmp (imp_cell (row, "quant_dtype"), "fp8") != 0)
    {
      imp_input_drop (in, "quant_dtype not fp8");
      return TRUE;
    }
  INT_OR_DROP (row, "m", m);
  INT_OR_DROP (row, "k", k);
  if ((us = latency_us (in, row)) == NULL)
    return TRUE;
  shape = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, m, k);
  K = imp_db_kernel (db, kernel, COMPUTE_HEADER);
  compute_row (K->text, shape, "DT_BF16", "ND", shape, "DT_FLOAT8_E4M3FN", us);
  g_string_append_c (K->text, '\n');
  imp_input_wrote (in, kernel);
  return TRUE;
}

static gboolean
convert_compute_scale (imp_db *db, imp_input *in, const imp_row *row, GError **error)
{
  (void) error;
  return convert_quant (db, in, row, "Fp8Quantize");
}

static gboolean
convert_scale_matrix (imp_db *db, imp_input *in, const imp_row *row, GError **error)
{
  (void) error;
  return convert_quant (db, in, row, "Fp8ScaleMatrix");
}

/* ------------------------------------------------- tables kept as fields */

/* Families whose coordinates are not tensors of one op the templates emit today (MLA kernels
 * and modules, MLA BMM, DeepSeek sparse attention, linear attention, mHC, encoder attention):
 * kept whole, one table each, every upstream column but the constant provenance ones
 * (framework, version, device) as an exact field, latency in us. A query mode that reads
 * them by field can answer from them; until then no op is mapped to them. */
static gboolean
convert_fields (imp_db *db, imp_input *in, const imp_row *row, const char *kernel)
{
  static const char *const skip[] = { "framework", "version", "device", "latency", NULL };
  g_autofree char *us = NULL;
  imp_kernel *K;
  GString *header = g_string_new (NULL);
  GString *r;
  gboolean first = TRUE;
  g_autofree char **names = NULL;
  guint n_names = 0;

  if ((us = latency_us (in, row)) == NULL)
    {
      g_string_free (header, TRUE);
      return TRUE;
    }
  /* header in the input's column order */
  names = (char **) g_new0 (char *, row->n_fields + 1);
  {
    GHashTableIter it;
    gpointer key, val;

    g_hash_table_iter_init (&it, row->columns);
    while (g_hash_table_iter_next (&it, &key, &val))
      names[GPOINTER_TO_INT (val) - 1] = key;
  }
  for (size_t c = 0; c < row->n_fields; c++)
    if (names[c] != NULL && !g_strv_contains (skip, names[c]))
      {
        imp_csv_cell (header, names[c], first);
        first = FALSE;
        n_names++;
      }
  imp_csv_cell (header, "Average Duration(us)", first);
  K = imp_db_kernel (db, kernel, header->str);
  g_string_free (header, TRUE);
  r = K->text;
  first = TRUE;
  for (size_t c = 0; c < row->n_fields; c++)
    if (names[c] != NULL && !g_strv_contains (skip, names[c]))
      {
        imp_csv_cell (r, row->fields[c], first);
        first = FALSE;
      }
  imp_csv_cell (r, us, first);
  g_string_append_c (r, '\n');
  imp_input_wrote (in, kernel);
  return TRUE;
}

#define FIELDS_CONVERTER(fn, kernel) \
  static gboolean fn (imp_db *db, imp_input *in, const imp_row *row, GError **error) \
  { (void) error; return convert_fields (db, in, row, kernel); }

FIELDS_CONVERTER (convert_context_mla, "AicContextMla")
FIELDS_CONVERTER (convert_generation_mla, "AicGenerationMla")
FIELDS_CONVERTER (convert_mla_context_module, "AicMlaContextModule")
FIELDS_CONVERTER (convert_mla_generation_module, "AicMlaGenerationModule")
FIELDS_CONVERTER (convert_mla_bmm, "AicMlaBmm")
FIELDS_CONVERTER (convert_dsa_context, "AicDsaContextModule")
FIELDS_CONVERTER (convert_dsa_generation, "AicDsaGenerationModule")
FIELDS_CONVERTER (convert_gdn, "AicGatedDeltaNet")
FIELDS_CONVERTER (convert_mamba2, "AicMamba2")
FIELDS_CONVERTER (convert_mhc, "AicMhcModule")
FIELDS_CONVERTER (convert_encoder_attention, "AicEncoderAttention")

/* ---------------------------------------------------------------- families */

static const char *const gemm_cols[] = { "gemm_dtype", "m", "n", "k", "latency", NULL };
static const char *const attn_cols[] = { "batch_size", "isl", "num_heads", "num_key_value_heads",
                                         "head_dim", "window_size", "beam_width", "attn_dtype",
                                         "kv_cache_dtype", "step", "latency", NULL };
static const char *const nccl_cols[] = { "op_name", "nccl_dtype", "num_gpus", "message_size",
                                         "latency", NULL };
static const char *const car_cols[] = { "op_name", "allreduce_dtype", "num_gpus",
                                        "message_size", "latency", NULL };
static const char *const moe_cols[] = { "kernel_source", "moe_dtype", "num_tokens", "hidden_size",
                                        "inter_size", "topk", "num_experts", "moe_tp_size",
                                        "moe_ep_size", "distribution", "latency", NULL };
static const char *const quant_cols[] = { "m", "k", "quant_dtype", "latency", NULL };
static const char *const latency_col[] = { "latency", NULL };

static const imp_family families[] = {
  { "gemm/trtllm-1.3.0rc20/gemm_perf.csv", gemm_cols, convert_gemm,
    "GEMM: bfloat16 -> MatMulV2, fp8 -> FP8MatMul, fp8_block -> FP8BlockMatMul" },
  { "attention/trtllm-1.3.0rc20/context_attention_perf.csv", attn_cols, convert_context_attention,
    "prefill attention (TND) -> FusedInferAttentionScore; window_size > 0 -> SlidingWindowAttention" },
  { "attention/trtllm-1.3.0rc20/generation_attention_perf.csv", attn_cols,
    convert_generation_attention,
    "decode attention (BNSD, KV length isl + step) -> FusedInferAttentionScore; window_size > 0 -> SlidingWindowAttention" },
  { "moe/trtllm-1.3.0rc20/moe_perf.csv", moe_cols, convert_moe,
    "routed-expert FFN of one rank -> FusedMoE (exact fields num_experts, moe_tp, moe_ep, topk, distribution, quant)" },
  { "comm/nccl-2.29.2/nccl_perf.csv", nccl_cols, convert_nccl,
    "NCCL collectives (16-bit) -> hcom_allGather_, hcom_reduceScatter_, hcom_alltoall_, hcom_allReduceNccl_" },
  { "comm/trtllm-1.3.0rc20/custom_allreduce_perf.csv", car_cols, convert_custom_allreduce,
    "TensorRT-LLM custom all-reduce (what TensorRT-LLM runs for TP all-reduce) -> hcom_allReduce_" },
  { "quantize/trtllm-1.3.0rc20/computescale_perf.csv", quant_cols, convert_compute_scale,
    "dynamic FP8 quantisation [m,k] bf16 -> fp8 -> Fp8Quantize" },
  { "quantize/trtllm-1.3.0rc20/scale_matrix_perf.csv", quant_cols, convert_scale_matrix,
    "FP8 scale application [m,k] -> Fp8ScaleMatrix" },
  { "mla/trtllm-1.3.0rc20/context_mla_perf.csv", latency_col, convert_context_mla,
    "MLA context kernel -> AicContextMla (fields)" },
  { "mla/trtllm-1.3.0rc20/generation_mla_perf.csv", latency_col, convert_generation_mla,
    "MLA generation kernel -> AicGenerationMla (fields)" },
  { "mla/trtllm-1.3.0rc20/mla_context_module_perf.csv", latency_col, convert_mla_context_module,
    "MLA context module -> AicMlaContextModule (fields)" },
  { "mla/trtllm-1.3.0rc20/mla_generation_module_perf.csv", latency_col,
    convert_mla_generation_module, "MLA generation module -> AicMlaGenerationModule (fields)" },
  { "mla_bmm/trtllm-1.3.0rc20/mla_bmm_perf.csv", latency_col, convert_mla_bmm,
    "MLA BMM -> AicMlaBmm (fields)" },
  { "sparse_attention/trtllm-1.3.0rc20/dsa_context_module_perf.csv", latency_col,
    convert_dsa_context, "DSA context module -> AicDsaContextModule (fields)" },
  { "sparse_attention/trtllm-1.3.0rc20/dsa_generation_module_perf.csv", latency_col,
    convert_dsa_generation, "DSA generation module -> AicDsaGenerationModule (fields)" },
  { "linear_attention/trtllm-1.3.0rc20/gdn_perf.csv", latency_col, convert_gdn,
    "gated delta net -> AicGatedDeltaNet (fields)" },
  { "linear_attention/trtllm-1.3.0rc20/mamba2_perf.csv", latency_col, convert_mamba2,
    "Mamba2 -> AicMamba2 (fields)" },
  { "mhc/trtllm-1.3.0rc20/mhc_module_perf.csv", latency_col, convert_mhc,
    "mHC module -> AicMhcModule (fields)" },
  { "encoder_attention/trtllm-1.3.0rc20/encoder_attention_perf.csv", latency_col,
    convert_encoder_attention, "encoder attention -> AicEncoderAttention (fields)" },
};

const imp_family *
imp_families (size_t *n)
{
  *n = G_N_ELEMENTS (families);
  return families;
}
