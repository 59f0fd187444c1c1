/* msperf module "attention_special" — interpolation coordinates (seed 000 §5.6, reference §4.5,
 * quirk Q26): the describe_target / describe_row slots.
 *
 * Axes, in priority order: seq (avg_seq_len, truncated as the exact lookup does; mandatory),
 * batch, heads (N of the normalised Q), head_dim (D). The batch of a row is `Runtime batch_size`,
 * else the length of `Runtime actual_seq_lengths_values` when `Runtime
 * actual_seq_lengths_shape` says it is a per-sequence list of that length, else B of a 4-D
 * query; the batch of a target is the number of seq_lens values (or B of a 4-D query; for a
 * decomposer's params: batch_size, else the length of its per-sequence list). An underivable
 * batch is an unknown axis, never a guess.
 *
 * Regime: "attention", kernel, the Q dtype (float16 as DT_BF16 when the kernel measured no
 * DT_FLOAT16 row, Q3), and, when the table has the column, the layout and the quant mode. A
 * target whose layout is unknown (2-D Q) is not interpolated against a table with a layout
 * column; a target without a quant mode is in the regime of the rows with a blank one.
 *
 * Exact fields: sparse_mode and kv_heads (MATCH_EXACT) when the table has the column, on the
 * target only when it knows the value — the exact lookup's rule (§2.5 step 6; a blank cell never
 * matches a known value, as there). And the query-length field (Q26, doc/decisions.md):
 *
 * - policy interpolation.attention.query_length_rule: per_sequence (default): "query_len" =
 *   T ÷ batch (T when the batch is unknown), block-padding tolerant. It is 0 ("implied by seq")
 *   on a row whose `Runtime attn_state` is prefill_no_cache (or, without an attn_state, whose
 *   query length equals its seq) and on a target whose query length equals its seq: prefill
 *   without cache then interpolates along seq over every such row, while decode and chunked
 *   prefill keep the filter.
 * - literal_tokens (upstream): "tokens" = T, block-padding tolerant, always compared.
 *
 * Sliding window: a row with a positive `Runtime window_size` has the exact field "window". With
 * a `window_kernel_type` in the op's mapping entry, a target is described against that table
 * only when its op has a window (the field "window"), and against another table only when it has
 * none or its sequence lies within the window (the exact lookup's rule).
 *
 * MHA regime (opt-in, policy interpolation.attention.mha_heads_axis: true): a row or
 * target whose kv_heads is known and equals its heads is described with the regime part "mha"
 * and without the kv_heads field, so `heads` interpolates across every MHA row (an off-grid MHA
 * head count, e.g. 24 between 16 and 32, is otherwise a miss: no row has kv_heads 24). It is a
 * regime part, not a field, because the index keeps one field layout per regime; GQA rows and
 * targets (kv_heads != heads, or unknown) keep the kv_heads exact field as before.
 *
 * KV-cache dtype (opt-in, policy interpolation.attention.kv_dtype_exact: true): the regime part
 * "kv=<dtype>" — a row's second `Input Data Types` item (its first when it has one), a target's
 * key input dtype (float16 as DT_BF16 under the Q dtype's rule) — so a bf16-KV op never
 * interpolates over FP8-KV rows, as in the exact lookup. Without it the KV dtype is not looked
 * at (the reference matches the Q dtype only). */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/latency.h>
#include "attention_private.h"

/* A blank strict-filter cell: never equal to a known target value. */
#define BLANK_FIELD INT64_MIN
/* The query-length value of prefill without cache: implied by seq. */
#define QUERY_LEN_IMPLIED 0

typedef struct axes_cols {
  int avg_seq;
  int shapes;
  int dtypes;
  int batch_size;
  int seq_lengths_shape;
  int seq_lengths_values;
  int num_heads;
  int kv_heads;
  int sparse_mode;
  int layout;
  int quant_mode;
  int attn_state;
  int window;
} axes_cols;

static void
find_cols (const msperf_table *t, axes_cols *c)
{
  c->avg_seq = msperf_table_column (t, ATTN_AVG_SEQ_COLUMN);
  if (c->avg_seq < 0)
    c->avg_seq = msperf_table_column (t, ATTN_LEGACY_AVG_SEQ_COLUMN);
  c->shapes = msperf_table_column (t, "Input Shapes");
  c->dtypes = msperf_table_column (t, "Input Data Types");
  c->batch_size = msperf_table_column (t, "Runtime batch_size");
  c->seq_lengths_shape = msperf_table_column (t, "Runtime actual_seq_lengths_shape");
  c->seq_lengths_values = msperf_table_column (t, "Runtime actual_seq_lengths_values");
  c->num_heads = msperf_table_column (t, "Runtime num_heads");
  c->kv_heads = msperf_table_column (t, "Runtime num_key_value_heads");
  c->sparse_mode = msperf_table_column (t, "Runtime sparse_mode");
  c->layout = msperf_table_column (t, "Runtime input_layout");
  c->quant_mode = msperf_table_column (t, "Runtime quant_mode");
  c->attn_state = msperf_table_column (t, "Runtime attn_state");
  c->window = msperf_table_column (t, "Runtime window_size");
}

/* TRUE when policy interpolation.attention.mha_heads_axis is true (absent: FALSE). */
static gboolean
mha_heads_axis (msperf_engine *e)
{
  const msperf_value *v = msperf_engine_policy_value (e, "interpolation.attention.mha_heads_axis");

  return v != NULL && v->kind == MSPERF_VALUE_BOOL && v->b;
}

/* The kv_heads exact field, or under the MHA regime (kv_heads == heads) the regime part "mha"
 * instead. Called after add_regime, before the other fields are final: the regime key is only
 * appended to. */
static void
add_kv_heads (msperf_engine *e, msperf_point *p, int64_t kv_heads, int64_t heads)
{
  if (kv_heads == heads && mha_heads_axis (e))
    {
      msperf_point_regime_add (p, "mha");
      return;
    }
  msperf_point_add_field (p, "kv_heads", kv_heads, MSPERF_MATCH_EXACT);
}

static gboolean
literal_tokens_rule (msperf_engine *e)
{
  const char *rule = msperf_value_get_string (
      msperf_engine_policy_value (e, "interpolation.attention.query_length_rule"));

  return g_strcmp0 (rule, "literal_tokens") == 0;
}

/* Q3: float16 compares as DT_BF16 when the kernel measured no DT_FLOAT16 row at all. */
static msperf_dtype
regime_dtype (const msperf_table *t, const axes_cols *c, msperf_dtype d)
{
  if (d != MSPERF_DTYPE_FLOAT16 || c->dtypes < 0)
    return d;
  for (size_t row = 0; row < msperf_table_n_rows (t); row++)
    if (attn_parse_dtype0 (msperf_table_cell (t, row, c->dtypes)) == MSPERF_DTYPE_FLOAT16)
      return d;
  return MSPERF_DTYPE_BF16;
}

/* TRUE when policy interpolation.attention.kv_dtype_exact is true (absent: FALSE). */
static gboolean
kv_dtype_exact (msperf_engine *e)
{
  const msperf_value *v = msperf_engine_policy_value (e, "interpolation.attention.kv_dtype_exact");

  return v != NULL && v->kind == MSPERF_VALUE_BOOL && v->b;
}

/* kv is MSPERF_DTYPE_UNKNOWN when the KV dtype is not part of the regime. */
static void
add_regime (msperf_point *p, const char *kernel, msperf_dtype dtype, msperf_dtype kv,
            const axes_cols *c, const char *layout, const char *quant)
{
  g_autofree char *d = g_strdup_printf ("dtype=%s", msperf_dtype_profiling_name (dtype));

  msperf_point_regime_add (p, "attention");
  msperf_point_regime_add (p, kernel);
  msperf_point_regime_add (p, d);
  if (kv != MSPERF_DTYPE_UNKNOWN)
    {
      g_autofree char *k = g_strdup_printf ("kv=%s", msperf_dtype_profiling_name (kv));
      msperf_point_regime_add (p, k);
    }
  if (c->layout >= 0)
    {
      g_autofree char *l = g_strdup_printf ("layout=%s", layout);
      msperf_point_regime_add (p, l);
    }
  if (c->quant_mode >= 0)
    {
      g_autofree char *q = g_strdup_printf ("quant=%s", quant);
      msperf_point_regime_add (p, q);
    }
}

static void
add_axes (msperf_point *p, int64_t seq, int64_t batch, int64_t heads, int64_t head_dim)
{
  msperf_point_add_axis (p, "seq", (double) seq, TRUE);
  msperf_point_add_axis (p, "batch", (double) batch, batch > 0);
  msperf_point_add_axis (p, "heads", (double) heads, TRUE);
  msperf_point_add_axis (p, "head_dim", (double) head_dim, TRUE);
}

/* T ÷ batch; T when the batch is unknown. */
static int64_t
query_len (int64_t tokens, int64_t batch)
{
  return batch > 0 ? tokens / batch : tokens;
}

/* ---- target ---- */

gboolean
attention_describe_target (msperf_engine *engine, void *state, const msperf_query *q, msperf_point *p)
{
  msperf_engine *e = engine;

  (void) state;
  const msperf_table *t;
  attn_target_info info;
  axes_cols c;
  int64_t qlen;
  msperf_dtype kv;
  const char *wk;
  gboolean in_window_table;

  g_return_val_if_fail (e != NULL && q != NULL && p != NULL, FALSE);
  if (q->kernel_types == NULL || q->kernel_types[0] == NULL)
    return FALSE;
  t = msperf_engine_table (e, q->kernel_types[0], NULL);
  if (t == NULL)
    return FALSE;
  find_cols (t, &c);
  if (c.avg_seq < 0 || c.shapes < 0 || !attn_target_info_get (q, &info))
    return FALSE;
  /* With a window kernel in the mapping (the exact lookup's rule): full attention is not
   * described against its table, and a sliding-window op against a full-attention table only
   * when every query sees the whole sequence (avg_seq_len <= window). */
  wk = attn_window_kernel (q);
  in_window_table = wk != NULL && strcmp (q->kernel_types[0], wk) == 0;
  if (in_window_table ? info.window <= 0
      : wk != NULL && info.window > 0 && info.avg_seq_len > info.window)
    return FALSE;
  /* The exact lookup compares the layout when it is known; unknown, no regime holds it. */
  if (c.layout >= 0 && info.layout[0] == '\0')
    return FALSE;
  kv = MSPERF_DTYPE_UNKNOWN;
  if (kv_dtype_exact (e))
    {
      kv = info.kv_dtype;
      if (kv == MSPERF_DTYPE_FLOAT16 && regime_dtype (t, &c, kv) == MSPERF_DTYPE_BF16)
        kv = MSPERF_DTYPE_BF16;
      if (kv == MSPERF_DTYPE_UNKNOWN)
        return FALSE;
    }
  add_regime (p, q->kernel_types[0], regime_dtype (t, &c, info.dtype), kv, &c, info.layout,
              info.quant_mode);
  add_axes (p, info.avg_seq_len, info.batch, info.heads, info.head_dim);
  if (literal_tokens_rule (e))
    msperf_point_add_field (p, "tokens", info.tokens, MSPERF_MATCH_BLOCK_PADDED);
  else
    {
      qlen = query_len (info.tokens, info.batch);
      msperf_point_add_field (p, "query_len", qlen == info.avg_seq_len ? QUERY_LEN_IMPLIED : qlen,
                              MSPERF_MATCH_BLOCK_PADDED);
    }
  if (c.sparse_mode >= 0 && info.sparse_known)
    msperf_point_add_field (p, "sparse_mode", info.sparse_mode, MSPERF_MATCH_EXACT);
  if (c.kv_heads >= 0 && info.kv_known)
    add_kv_heads (e, p, info.kv_heads, info.heads);
  if (in_window_table && c.window >= 0)
    msperf_point_add_field (p, "window", info.window, MSPERF_MATCH_EXACT);
  return TRUE;
}

/* ---- rows ---- */

/* Slot k of an Input Shapes cell; FALSE when empty or unparsable. */
static gboolean
parse_slot (const char *cell, int k, msperf_tensor *out)
{
  g_auto (GStrv) slots = NULL;
  char buf[512];

  attn_trimmed (cell, buf, sizeof buf);
  slots = g_strsplit (buf, ";", -1);
  memset (out, 0, sizeof *out);
  if ((int) g_strv_length (slots) <= k)
    return FALSE;
  g_strstrip (slots[k]);
  if (slots[k][0] == '\0' || !msperf_shape_parse_dims (slots[k], out, NULL))
    return FALSE;
  return out->rank > 0;
}

/* Number of integers in a list cell ("1,2,3" or "1;2;3"); -1 when it does not parse. */
static int64_t
list_count (const char *cell)
{
  char buf[4096];
  const char *p = attn_trimmed (cell, buf, sizeof buf);
  int64_t n = 0;

  while (*p)
    {
      char *end;
      double v;

      while (*p && (g_ascii_isspace (*p) || *p == '[' || *p == ']' || *p == ',' || *p == ';'))
        p++;
      if (*p == '\0')
        break;
      v = g_ascii_strtod (p, &end);
      if (end == p || !isfinite (v) || v != trunc (v))
        return -1;
      n++;
      p = end;
    }
  return n > 0 ? n : -1;
}

/* Runtime batch_size, else a per-sequence actual_seq_lengths list (its shape cell a single dim
 * equal to the number of values: a scalar, an ndim or one seq_len is not a batch), else B of a
 * 4-D query; -1 when none says. */
static int64_t
row_batch (const msperf_table *t, size_t row, const axes_cols *c, const msperf_tensor *q)
{
  int64_t b;

  if (c->batch_size >= 0 && attn_cell_int (msperf_table_cell (t, row, c->batch_size), &b)
      && b > 0)
    return b;
  if (c->seq_lengths_shape >= 0 && c->seq_lengths_values >= 0)
    {
      msperf_tensor shape;
      char buf[128];

      attn_trimmed (msperf_table_cell (t, row, c->seq_lengths_shape), buf, sizeof buf);
      memset (&shape, 0, sizeof shape);
      if (buf[0] && msperf_shape_parse_dims (buf, &shape, NULL) && shape.rank == 1
          && shape.dims[0] > 0
          && list_count (msperf_table_cell (t, row, c->seq_lengths_values)) == shape.dims[0])
        return shape.dims[0];
    }
  return q->rank == 4 ? q->dims[0] : -1;
}

static gboolean
row_strict_int (const msperf_table *t, size_t row, int col, int64_t *out)
{
  if (!attn_cell_int (msperf_table_cell (t, row, col), out))
    *out = BLANK_FIELD;
  return TRUE;
}

gboolean
attention_describe_row (msperf_engine *engine, void *state, const msperf_table *t, size_t row, msperf_point *p)
{
  msperf_engine *e = engine;

  (void) state;
  axes_cols c;
  msperf_tensor q, key;
  int64_t q3[3], seq, batch, head_dim = 0, qlen, v;
  double avg;
  msperf_dtype dtype, kv = MSPERF_DTYPE_UNKNOWN;
  char layout[64] = "", quant[64] = "", st[64] = "";

  g_return_val_if_fail (e != NULL && t != NULL && p != NULL, FALSE);
  find_cols (t, &c);
  if (c.avg_seq < 0 || c.shapes < 0 || c.dtypes < 0)
    return FALSE;
  /* The exact lookup skips a NaN or negative avg_seq_len and truncates the rest (Q6). */
  avg = attn_cell_number (msperf_table_cell (t, row, c.avg_seq));
  if (!isfinite (avg) || avg < 0 || avg >= 9223372036854775808.0)
    return FALSE;
  seq = (int64_t) trunc (avg);
  if (!parse_slot (msperf_table_cell (t, row, c.shapes), 0, &q))
    return FALSE;
  /* A 2-D (T, H) query splits by the key's head_dim, as the TC side does. */
  if (parse_slot (msperf_table_cell (t, row, c.shapes), 1, &key))
    head_dim = key.dims[key.rank - 1];
  if (!attn_normalize_q (&q, head_dim, q3))
    return FALSE;
  dtype = attn_parse_dtype0 (msperf_table_cell (t, row, c.dtypes));
  if (dtype == MSPERF_DTYPE_UNKNOWN)
    return FALSE;
  if (kv_dtype_exact (e))
    {
      kv = attn_parse_dtype1 (msperf_table_cell (t, row, c.dtypes));
      if (kv == MSPERF_DTYPE_UNKNOWN)
        return FALSE;
    }
  batch = row_batch (t, row, &c, &q);
  if (c.layout >= 0)
    attn_trimmed (msperf_table_cell (t, row, c.layout), layout, sizeof layout);
  if (c.quant_mode >= 0)
    attn_trimmed (msperf_table_cell (t, row, c.quant_mode), quant, sizeof quant);

  add_regime (p, msperf_table_kernel_type (t), dtype, kv, &c, layout, quant);
  add_axes (p, seq, batch, q3[1], q3[2]);
  if (literal_tokens_rule (e))
    msperf_point_add_field (p, "tokens", q3[0], MSPERF_MATCH_BLOCK_PADDED);
  else
    {
      qlen = query_len (q3[0], batch);
      if (c.attn_state >= 0)
        attn_trimmed (msperf_table_cell (t, row, c.attn_state), st, sizeof st);
      if (strcmp (st, "prefill_no_cache") == 0 || (st[0] == '\0' && qlen == seq))
        qlen = QUERY_LEN_IMPLIED;
      msperf_point_add_field (p, "query_len", qlen, MSPERF_MATCH_BLOCK_PADDED);
    }
  if (c.sparse_mode >= 0 && row_strict_int (t, row, c.sparse_mode, &v))
    msperf_point_add_field (p, "sparse_mode", v, MSPERF_MATCH_EXACT);
  if (c.kv_heads >= 0 && row_strict_int (t, row, c.kv_heads, &v))
    add_kv_heads (e, p, v, q3[1]);
  /* The window of a sliding-window row; a full-attention row (window 0 or blank) has none. */
  if (c.window >= 0 && attn_cell_int (msperf_table_cell (t, row, c.window), &v) && v > 0)
    msperf_point_add_field (p, "window", v, MSPERF_MATCH_EXACT);
  p->latency_us = msperf_latency_policy_apply (e, t, row, NULL, NULL);
  return TRUE;
}
