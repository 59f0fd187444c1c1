/* msperf module "attention_special": exact lookup of an attention op in an enriched attention
 * CSV (FusedInferAttentionScore, SparseFlashAttention; reference §1.4, §2.3, §2.5), with the
 * msperf fix Q23 (KV heads by layout, sparse_mode from the op or the policy) and Q3 (float16
 * measured as DT_FLOAT16 first, DT_BF16 retry). Q6, Q7, Q8, Q16 and Q22 are reproduced.
 *
 * Two query forms:
 *
 * 1. An op `tensor_cast.attention(query, key, value, attention_mask, block_table,
 *    query_start_loc, seq_lens, query_lens)` (query->params == NULL). The target is derived
 *    from the args as §2.5 "TC side" says; sparse_mode comes from kwargs.sparse_mode, else from
 *    the policy key interpolation.attention.sparse_mode_default (null = no sparse-mode filter).
 *
 * 2. A decomposer's attention spec (query->params != NULL, e.g. MLA). The op is not read; the
 *    params MAP gives the target. Keys:
 *      q_shape_3d               int list [T, N, D]                       (required)
 *      avg_seq_len              int (a float is truncated, Q6)            (required)
 *      dtype                    string, torch or profiling spelling; when absent the dtype of
 *                               the sub-query's first input tensor is used
 *      kv_dtype                 string, the KV cache's dtype (absent: the Q dtype)
 *      sparse_mode              int        -> Runtime sparse_mode        (absent/null: no filter)
 *      num_kv_heads             int        -> Runtime num_key_value_heads
 *      input_layout             string     -> Runtime input_layout ("TND", "BNSD_NBSD")
 *      topk, block_size         int        -> Runtime topk, Runtime block_size
 *      phase                    string     -> Runtime phase (compared lower-cased)
 *      actual_seq_lengths       int list   -> Runtime actual_seq_lengths_values
 *      actual_seq_lengths_kv    int list   -> Runtime actual_seq_lengths_kv_values
 *      block_table_valid_blocks int list   -> Runtime block_table_valid_blocks
 *      num_heads, sparse_block_size, sparse_indices_valid_count, batch_size   int
 *      cache_layout, kv_cache_mode, sparse_indices_pattern, attn_state          string
 *      required_context_fields  string list of the key names above (the column name without
 *                               "Runtime " is accepted too, e.g. num_key_value_heads)
 *    Runtime keys may also sit in a nested MAP "runtime_params" (a top-level key wins).
 *
 * Filters (reference §2.5 step 6), applied when the CSV has the column and the target value is
 * known: sparse_mode, num_kv_heads, topk, block_size are integer equality and a blank cell
 * rejects the row; input_layout and phase are string equality and a blank cell rejects the row
 * (Q16); the three list columns must equal the target list when the cell parses (a blank cell
 * passes); the remaining ints and strings are compared when the cell is not blank.
 *
 * required_context_fields: a listed field without a target value misses with
 * semantic_context_missing:target:<fields>. The legacy context (q_shape_3d, avg_seq_len, dtype)
 * is always present. Every other field is a Runtime column: a table without that column offers
 * no row (reason semantic_context_missing:csv:<columns> when nothing matched), and a blank cell
 * in a required column rejects the row whatever the filter kind.
 *
 * Sliding window (msperf): when the mapping entry names a `window_kernel_type`, an op with a
 * positive kwargs.window is looked up in that table only, the window
 * an exact filter on `Runtime window_size`; without a row there it reads the other kernels only
 * when avg_seq_len <= window (full attention computes the same), else it misses with
 * window_shape_mismatch:<kernel>:window=<W>. An op without a window never reads the window
 * table. Without the key the window is not looked at. Window hits add the details window and
 * window_full_attention.
 *
 * KV-cache dtype (msperf, opt-in: policy interpolation.attention.kv_dtype_exact: true): the
 * op's key dtype (the Q dtype when the key is not a tensor of a known dtype) must equal the
 * row's second Input Data Types item (its first when the cell has one), in every table; the
 * float16 retry (Q3) reads a float16 cache as DT_BF16 too. A miss where rows at the op's other
 * coordinates exist with another cache dtype says kv_dtype_not_measured:kv_dtype=<D>. Without
 * the key only the Q dtype is compared (the reference).
 *
 * Selection is nearest (§2.3) with distance gap + 0.5·legacy, plus a msperf tie-break that puts
 * an exact token count before a block-padded one (TOKEN_PADDING_TIE_BREAK). A hit is MEASURED,
 * confidence 0.9, rule "attention", details kernel_type, avg_seq_len, sparse_mode, num_kv_heads,
 * input_layout (null when unknown), csv_avg_seq_len, avg_seq_len_gap, token_padded; its
 * kernel_shapes hold the row's query slot as written. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/plugin.h>
#include <msperf/latency.h>
#include "attention_private.h"

/* ±16 inclusive (upstream _AVG_SEQ_LEN_TOLERANCE, quirk Q7). */
#define AVG_SEQ_LEN_TOLERANCE 16
/* A row without runtime metadata ranks behind an enriched row at the same gap (§2.3). */
#define LEGACY_PENALTY 0.5
/* msperf tie-break (not upstream): among rows at the same gap and metadata state, a row whose
 * token count T equals the query's ranks before a block-padded one. Upstream scores them equal
 * and keeps the earliest, so a batch-16 decode query was answered by the batch-1 row (T 16 is
 * 1 padded to 16). Any gap difference (>= 1) still dominates. */
#define TOKEN_PADDING_TIE_BREAK 1e-3
#define ATTENTION_CONFIDENCE 0.9
#define AVG_SEQ_COLUMN "Runtime avg_seq_len"
#define LEGACY_AVG_SEQ_COLUMN "avg_seq_len"

typedef enum {
  FILTER_INT_STRICT,   /* blank/NaN cell rejects */
  FILTER_STR_STRICT,   /* blank cell rejects (Q16) */
  FILTER_LIST,         /* must equal when the cell parses; blank passes */
  FILTER_INT_LENIENT,  /* compared when the cell is known */
  FILTER_STR_LENIENT
} filter_kind;

typedef struct field_def {
  const char *key;
  const char *alias;   /* the column name without "Runtime ", when it differs from key */
  const char *column;
  filter_kind kind;
  gboolean lower;      /* compared lower-cased */
} field_def;

enum {
  F_SPARSE_MODE = 0,
  F_NUM_KV_HEADS,
  F_TOPK,
  F_BLOCK_SIZE,
  F_INPUT_LAYOUT,
  F_PHASE,
  F_SEQ_LENGTHS,
  F_SEQ_LENGTHS_KV,
  F_VALID_BLOCKS,
  F_NUM_HEADS,
  F_SPARSE_BLOCK_SIZE,
  F_SPARSE_VALID_COUNT,
  F_BATCH_SIZE,
  F_CACHE_LAYOUT,
  F_KV_CACHE_MODE,
  F_SPARSE_PATTERN,
  F_ATTN_STATE,
  F_WINDOW,
  N_FIELDS
};

static const field_def fields[N_FIELDS] = {
  [F_SPARSE_MODE] = { "sparse_mode", NULL, "Runtime sparse_mode", FILTER_INT_STRICT, FALSE },
  [F_NUM_KV_HEADS] = { "num_kv_heads", "num_key_value_heads", "Runtime num_key_value_heads",
                       FILTER_INT_STRICT, FALSE },
  [F_TOPK] = { "topk", NULL, "Runtime topk", FILTER_INT_STRICT, FALSE },
  [F_BLOCK_SIZE] = { "block_size", NULL, "Runtime block_size", FILTER_INT_STRICT, FALSE },
  [F_INPUT_LAYOUT] = { "input_layout", NULL, "Runtime input_layout", FILTER_STR_STRICT, FALSE },
  [F_PHASE] = { "phase", NULL, "Runtime phase", FILTER_STR_STRICT, TRUE },
  [F_SEQ_LENGTHS] = { "actual_seq_lengths", "actual_seq_lengths_values",
                      "Runtime actual_seq_lengths_values", FILTER_LIST, FALSE },
  [F_SEQ_LENGTHS_KV] = { "actual_seq_lengths_kv", "actual_seq_lengths_kv_values",
                         "Runtime actual_seq_lengths_kv_values", FILTER_LIST, FALSE },
  [F_VALID_BLOCKS] = { "block_table_valid_blocks", NULL, "Runtime block_table_valid_blocks",
                       FILTER_LIST, FALSE },
  [F_NUM_HEADS] = { "num_heads", NULL, "Runtime num_heads", FILTER_INT_LENIENT, FALSE },
  [F_SPARSE_BLOCK_SIZE] = { "sparse_block_size", NULL, "Runtime sparse_block_size",
                            FILTER_INT_LENIENT, FALSE },
  [F_SPARSE_VALID_COUNT] = { "sparse_indices_valid_count", NULL,
                             "Runtime sparse_indices_valid_count", FILTER_INT_LENIENT, FALSE },
  [F_BATCH_SIZE] = { "batch_size", NULL, "Runtime batch_size", FILTER_INT_LENIENT, FALSE },
  [F_CACHE_LAYOUT] = { "cache_layout", NULL, "Runtime cache_layout", FILTER_STR_LENIENT, FALSE },
  [F_KV_CACHE_MODE] = { "kv_cache_mode", NULL, "Runtime kv_cache_mode", FILTER_STR_LENIENT,
                        FALSE },
  [F_SPARSE_PATTERN] = { "sparse_indices_pattern", NULL, "Runtime sparse_indices_pattern",
                         FILTER_STR_LENIENT, FALSE },
  [F_ATTN_STATE] = { "attn_state", NULL, "Runtime attn_state", FILTER_STR_LENIENT, FALSE },
  [F_WINDOW] = { "window", "window_size", "Runtime window_size", FILTER_INT_STRICT, FALSE },
};

typedef struct target_value {
  gboolean known;
  gboolean required;
  int64_t i;
  char *s;        /* owned */
  GArray *list;   /* int64_t, owned */
} target_value;

/* What the query asks for. */
typedef struct target {
  int64_t t, n, d;          /* Q shape normalised to (T, N, D) */
  int64_t avg_seq_len;
  msperf_dtype dtype;
  msperf_dtype kv_dtype;    /* the key input's dtype (the Q dtype when the op gives none) */
  gboolean kv_exact;        /* policy interpolation.attention.kv_dtype_exact */
  target_value v[N_FIELDS];
} target;

/* Column indices of one table (-1 = absent). */
typedef struct table_cols {
  int avg_seq;
  int shapes;
  int dtypes;
  int completeness;
  int field[N_FIELDS];
  /* Per-row numbers every scan reads, parsed once per table (msperf_table_column_parsed):
   * the avg-seq cells, the first input dtype, and the integer fields the target constrains
   * (NULL for the others). */
  const double *avgs;
  const double *dtype0;
  const double *dtype1;     /* the KV dtype of each row; NULL when not compared */
  const double *numbers[N_FIELDS];
} table_cols;

typedef enum {
  SCAN_HIT,
  SCAN_NO_CSV,          /* no table of the kernel list could be loaded */
  SCAN_NO_AVG_COLUMN,   /* tables loaded, none has an avg-seq column and Input Shapes */
  SCAN_NO_REQUIRED_COLUMN,
  SCAN_NO_MATCH,
  SCAN_AMBIGUOUS
} scan_status;

static void
target_clear (target *tg)
{
  for (int f = 0; f < N_FIELDS; f++)
    {
      g_free (tg->v[f].s);
      if (tg->v[f].list)
        g_array_unref (tg->v[f].list);
    }
  memset (tg, 0, sizeof *tg);
}

/* ---- cell parsing (no allocation on the row path) ---- */

/* Copies cell into buf with surrounding blanks and double quotes removed. */
static const char *
trimmed (const char *cell, char *buf, size_t size)
{
  const char *s = cell ? cell : "";
  size_t n;

  while (*s && (g_ascii_isspace (*s) || *s == '"'))
    s++;
  n = strlen (s);
  while (n > 0 && (g_ascii_isspace (s[n - 1]) || s[n - 1] == '"'))
    n--;
  if (n >= size)
    n = size - 1;
  memcpy (buf, s, n);
  buf[n] = '\0';
  return buf;
}

/* A numeric cell as pandas reads it; NAN when blank or not a number. */
static double
cell_number (const char *cell)
{
  char buf[64];
  const char *s = trimmed (cell, buf, sizeof buf);
  char *end;
  double v;

  if (*s == '\0' || g_ascii_strcasecmp (s, "nan") == 0)
    return NAN;
  v = g_ascii_strtod (s, &end);
  return end != s && *end == '\0' ? v : NAN;
}

/* int(v) (truncation toward zero, Q6); FALSE for NaN, ±inf or out of range. */
static gboolean
number_int (double v, int64_t *out)
{
  if (!isfinite (v) || fabs (v) >= 9223372036854775808.0)
    return FALSE;
  *out = (int64_t) trunc (v);
  return TRUE;
}

/* int(float(cell)) (Q6). */
static gboolean
cell_int (const char *cell, int64_t *out)
{
  return number_int (cell_number (cell), out);
}

/* A list cell ("1,2,3" or "1;2;3") equal to want? *parsed is FALSE when the cell is blank or
 * does not parse as a list of integers. */
static gboolean
cell_list_equals (const char *cell, const GArray *want, gboolean *parsed)
{
  const char *p = cell ? cell : "";
  guint n = 0;
  gboolean equal = TRUE;

  *parsed = FALSE;
  while (*p)
    {
      char *end;
      double v;

      while (*p && (g_ascii_isspace (*p) || *p == '"' || *p == '[' || *p == ']' || *p == ','
                    || *p == ';'))
        p++;
      if (*p == '\0')
        break;
      v = g_ascii_strtod (p, &end);
      if (end == p || !isfinite (v) || v != trunc (v))
        return FALSE;
      if (n >= want->len || (int64_t) v != g_array_index (want, int64_t, n))
        equal = FALSE;
      n++;
      p = end;
      if (*p && !(g_ascii_isspace (*p) || *p == '"' || *p == ']' || *p == ',' || *p == ';'))
        return FALSE;
    }
  if (n == 0)
    return FALSE;
  *parsed = TRUE;
  return equal && n == want->len;
}

static gboolean
str_equal (const char *a, const char *b, gboolean lower)
{
  return lower ? g_ascii_strcasecmp (a, b) == 0 : strcmp (a, b) == 0;
}

/* Slot 0 of an Input Shapes cell; FALSE when the slot is empty or does not parse. */
static gboolean
parse_slot0 (const char *cell, msperf_tensor *q)
{
  char buf[256];
  const char *s = trimmed (cell, buf, sizeof buf);
  char *semi = strchr (buf, ';');

  if (semi)
    *semi = '\0';
  memset (q, 0, sizeof *q);
  if (*s == '\0' || !msperf_shape_parse_dims (s, q, NULL))
    return FALSE;
  return q->rank > 0;
}

/* Item IDX (0-based) of an Input Data Types cell, empty items kept (as upstream
 * split(";")[IDX]); the last item when the cell has fewer (a KV cache in the activations'
 * dtype may be written once). */
static msperf_dtype
parse_dtype_item (const char *cell, int idx)
{
  char buf[64];
  char *item, *semi;

  trimmed (cell, buf, sizeof buf);
  item = buf;
  for (int k = 0; k < idx && (semi = strchr (item, ';')) != NULL; k++)
    item = semi + 1;
  semi = strchr (item, ';');
  if (semi)
    *semi = '\0';
  g_strstrip (item);
  return *item ? msperf_dtype_from_string (item) : MSPERF_DTYPE_UNKNOWN;
}

/* First item: the query's dtype. */
static msperf_dtype
parse_dtype0 (const char *cell)
{
  return parse_dtype_item (cell, 0);
}

/* parse_dtype0 as a number, for the per-table memo of the dtype column. */
static double
dtype0_number (const char *cell)
{
  return (double) parse_dtype0 (cell);
}

/* Second item of an Input Data Types cell (the key input: the KV-cache dtype). */
static msperf_dtype
parse_dtype1 (const char *cell)
{
  return parse_dtype_item (cell, 1);
}

/* parse_dtype1 as a number, for the per-table memo of the KV dtype. */
static double
dtype1_number (const char *cell)
{
  return (double) parse_dtype1 (cell);
}

/* Q shape to (T, N, D): 3-D as is; 4-D (B, N, 1, D) squeezed; 2-D (T, H) split by head_dim. */
static gboolean
normalize_q (const msperf_tensor *q, int64_t head_dim, int64_t out[3])
{
  switch (q->rank)
    {
    case 3:
      out[0] = q->dims[0];
      out[1] = q->dims[1];
      out[2] = q->dims[2];
      return TRUE;
    case 4:
      if (q->dims[2] != 1)
        return FALSE;
      out[0] = q->dims[0];
      out[1] = q->dims[1];
      out[2] = q->dims[3];
      return TRUE;
    case 2:
      if (head_dim <= 0 || q->dims[1] % head_dim != 0)
        return FALSE;
      out[0] = q->dims[0];
      out[1] = q->dims[1] / head_dim;
      out[2] = head_dim;
      return TRUE;
    default:
      return FALSE;
    }
}

/* ---- the row checker (§2.5 "CSV side, per row") ---- */

/* An integer field's test on the cell's number (cell_number of the cell). */
static gboolean
int_field_passes (double v, const field_def *def, const target_value *tv)
{
  int64_t iv;

  if (def->kind == FILTER_INT_STRICT)
    return number_int (v, &iv) && iv == tv->i;
  if (!number_int (v, &iv))
    return !tv->required;
  return iv == tv->i;
}

static gboolean
is_int_field (const field_def *def)
{
  return def->kind == FILTER_INT_STRICT || def->kind == FILTER_INT_LENIENT;
}

static gboolean
field_passes (const msperf_table *t, size_t row, int col, const field_def *def,
              const target_value *tv)
{
  const char *cell = msperf_table_cell (t, row, col);
  char buf[256];
  gboolean parsed;

  switch (def->kind)
    {
    case FILTER_INT_STRICT:
    case FILTER_INT_LENIENT:
      return int_field_passes (cell_number (cell), def, tv);
    case FILTER_STR_STRICT:
      /* A blank cell reads as "nan" upstream and so equals no target (Q16). */
      trimmed (cell, buf, sizeof buf);
      return *buf != '\0' && str_equal (buf, tv->s, def->lower);
    case FILTER_STR_LENIENT:
      trimmed (cell, buf, sizeof buf);
      if (*buf == '\0')
        return !tv->required;
      return str_equal (buf, tv->s, def->lower);
    case FILTER_LIST:
    default:
      if (cell_list_equals (cell, tv->list, &parsed))
        return TRUE;
      return !parsed && !tv->required;
    }
}

/* Checks one row; on a match *distance is the §2.3 attention distance. Every test is pure,
 * so their order does not change which rows match: the tests on the memoised numbers, which
 * reject most rows, come first, and the cell parsing only for the rows they keep. */
static gboolean
row_matches (const msperf_table *t, size_t row, const table_cols *c, const target *tg,
             msperf_dtype want_dtype, msperf_dtype want_kv, double *distance)
{
  double avg = c->avgs[row];
  msperf_tensor q;
  int64_t q3[3], gap, row_avg;
  gboolean legacy = TRUE, padded;

  if (isnan (avg) || avg < 0 || !isfinite (avg) || avg >= 9223372036854775808.0)
    return FALSE;
  row_avg = (int64_t) trunc (avg);
  gap = tg->avg_seq_len > row_avg ? tg->avg_seq_len - row_avg : row_avg - tg->avg_seq_len;
  if (gap > AVG_SEQ_LEN_TOLERANCE)
    return FALSE;
  if (c->dtype0 == NULL || (msperf_dtype) c->dtype0[row] != want_dtype)
    return FALSE;
  /* want_kv is UNKNOWN when the KV dtype is not compared (the reference matches Q only). */
  if (want_kv != MSPERF_DTYPE_UNKNOWN
      && (c->dtype1 == NULL || (msperf_dtype) c->dtype1[row] != want_kv))
    return FALSE;
  for (int f = 0; f < N_FIELDS; f++)
    if (c->numbers[f] != NULL && !int_field_passes (c->numbers[f][row], &fields[f], &tg->v[f]))
      return FALSE;
  if (!parse_slot0 (msperf_table_cell (t, row, c->shapes), &q)
      || !normalize_q (&q, tg->d, q3))
    return FALSE;
  if (q3[1] != tg->n || q3[2] != tg->d)
    return FALSE;
  for (int f = 0; f < N_FIELDS; f++)
    if (c->field[f] >= 0 && tg->v[f].known && c->numbers[f] == NULL
        && !field_passes (t, row, c->field[f], &fields[f], &tg->v[f]))
      return FALSE;
  /* Attention token counts pad in either direction (Q8). */
  padded = q3[0] != tg->t;
  if (padded && !msperf_is_block_padded (tg->t, q3[0]) && !msperf_is_block_padded (q3[0], tg->t))
    return FALSE;
  if (c->completeness >= 0)
    {
      char buf[64];

      trimmed (msperf_table_cell (t, row, c->completeness), buf, sizeof buf);
      legacy = *buf == '\0' || strcmp (buf, "legacy") == 0;
    }
  *distance = (double) gap + (legacy ? LEGACY_PENALTY : 0.0)
              + (padded ? TOKEN_PADDING_TIE_BREAK : 0.0);
  return TRUE;
}

/* The memoised numbers of the row check (table_cols), once the columns are found. */
static void
memo_columns (const msperf_table *t, const target *tg, table_cols *c)
{
  c->avgs = msperf_table_column_parsed (t, c->avg_seq, cell_number);
  c->dtype0 = c->dtypes >= 0 ? msperf_table_column_parsed (t, c->dtypes, dtype0_number) : NULL;
  c->dtype1 = c->dtypes >= 0 && tg->kv_exact
                ? msperf_table_column_parsed (t, c->dtypes, dtype1_number)
                : NULL;
  for (int f = 0; f < N_FIELDS; f++)
    c->numbers[f] = c->field[f] >= 0 && tg->v[f].known && is_int_field (&fields[f])
                      ? msperf_table_column_parsed (t, c->field[f], cell_number)
                      : NULL;
}

/* ---- the scan (§2.3) ---- */

/* TRUE when item is one of the comma-separated items of list. */
static gboolean
list_has (const char *list, const char *item)
{
  size_t n = strlen (item);

  for (const char *p = list; p && *p; p = strchr (p, ','), p = p ? p + 1 : NULL)
    if (strncmp (p, item, n) == 0 && (p[n] == ',' || p[n] == '\0'))
      return TRUE;
  return FALSE;
}

/* Appends the missing required columns of table t to missing; TRUE when none is missing. */
static gboolean
required_columns_present (const table_cols *c, const target *tg, GString *missing)
{
  gboolean ok = TRUE;

  for (int f = 0; f < N_FIELDS; f++)
    if (tg->v[f].required && c->field[f] < 0)
      {
        ok = FALSE;
        if (!list_has (missing->str, fields[f].column))
          {
            if (missing->len)
              g_string_append_c (missing, ',');
            g_string_append (missing, fields[f].column);
          }
      }
  return ok;
}

static void
find_columns (const msperf_table *t, table_cols *c)
{
  memset (c, 0, sizeof *c);
  c->avg_seq = msperf_table_column (t, AVG_SEQ_COLUMN);
  if (c->avg_seq < 0)
    c->avg_seq = msperf_table_column (t, LEGACY_AVG_SEQ_COLUMN);
  c->shapes = msperf_table_column (t, "Input Shapes");
  c->dtypes = msperf_table_column (t, "Input Data Types");
  c->completeness = msperf_table_column (t, "Runtime metadata_completeness");
  for (int f = 0; f < N_FIELDS; f++)
    c->field[f] = msperf_table_column (t, fields[f].column);
}

/* The rows that can pass the avg-seq test, in row order: those whose avg-seq number lies
 * within the tolerance of the target's (a window of the sorted column, widened by one so that
 * truncation and rounding cannot leave a row out; row_matches decides exactly); every row when
 * the target is too large for a double to hold exactly. */
static void
window_rows (const msperf_table *t, const table_cols *c, const target *tg, GArray *rows)
{
  const int64_t exact = (int64_t) 1 << 52;

  g_array_set_size (rows, 0);
  if (tg->avg_seq_len > -exact && tg->avg_seq_len < exact)
    {
      double want = (double) tg->avg_seq_len;

      msperf_table_rows_in_range (t, c->avg_seq, cell_number, want - AVG_SEQ_LEN_TOLERANCE - 1,
                                  want + AVG_SEQ_LEN_TOLERANCE + 2, rows);
      return;
    }
  g_array_set_size (rows, (guint) msperf_table_n_rows (t));
  for (guint r = 0; r < rows->len; r++)
    g_array_index (rows, size_t, r) = r;
}

static scan_status
scan (msperf_engine *engine, const char *const *kernels, const target *tg,
      msperf_dtype want_dtype, msperf_dtype want_kv, msperf_selector *sel,
      GString *missing_columns)
{
  gboolean any_table = FALSE, any_usable = FALSE, any_complete = FALSE;
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (size_t));

  for (int ki = 0; kernels && kernels[ki]; ki++)
    {
      const char *k = kernels[ki];
      g_autoptr (GError) error = NULL;
      const msperf_table *t = msperf_engine_table (engine, k, &error);
      msperf_latency_policy policy;
      table_cols c;

      /* An absent (or unusable) CSV only removes this kernel from the list. */
      if (t == NULL)
        continue;
      any_table = TRUE;
      find_columns (t, &c);
      if (c.avg_seq < 0 || c.shapes < 0)
        continue;
      any_usable = TRUE;
      if (!required_columns_present (&c, tg, missing_columns))
        continue;
      any_complete = TRUE;
      msperf_latency_policy_init (&policy, engine, k);
      memo_columns (t, tg, &c);
      window_rows (t, &c, tg, rows);
      for (guint i = 0; i < rows->len; i++)
        {
          size_t row = g_array_index (rows, size_t, i);
          double distance, lat;
          int priority;

          if (!row_matches (t, row, &c, tg, want_dtype, want_kv, &distance)
              || !msperf_table_row_valid (t, row))
            continue;
          lat = msperf_latency_policy_row (&policy, t, row, &priority, NULL);
          msperf_selector_offer (sel, distance, ki, priority, t, row, lat, "attention");
        }
    }
  if (!any_table)
    return SCAN_NO_CSV;
  if (!sel->have)
    {
      if (!any_usable)
        return SCAN_NO_AVG_COLUMN;
      if (!any_complete)
        return SCAN_NO_REQUIRED_COLUMN;
      return SCAN_NO_MATCH;
    }
  if (sel->ambiguous
      && msperf_engine_kernel_flag (engine, "query_selection_policy",
                                    msperf_table_kernel_type (sel->table),
                                    "require_semantic_unique"))
    return SCAN_AMBIGUOUS;
  return SCAN_HIT;
}

/* ---- the target ---- */

static gboolean
value_int (const msperf_value *v, int64_t *out)
{
  double d;

  if (msperf_value_get_int (v, out))
    return TRUE;
  /* A float seq-len (mean of a list) truncates like int() (Q6). */
  if (v && v->kind == MSPERF_VALUE_FLOAT && msperf_value_get_double (v, &d) && isfinite (d)
      && fabs (d) < 9223372036854775808.0)
    {
      *out = (int64_t) trunc (d);
      return TRUE;
    }
  return FALSE;
}

/* Fills tv from v according to the field kind; unknown (FALSE) for null or a wrong kind. */
static gboolean
set_field (target_value *tv, const field_def *def, const msperf_value *v)
{
  if (v == NULL || v->kind == MSPERF_VALUE_NONE)
    return FALSE;
  switch (def->kind)
    {
    case FILTER_INT_STRICT:
    case FILTER_INT_LENIENT:
      tv->known = value_int (v, &tv->i);
      return tv->known;
    case FILTER_STR_STRICT:
    case FILTER_STR_LENIENT:
      if (msperf_value_get_string (v) == NULL)
        return FALSE;
      g_free (tv->s);
      tv->s = g_strstrip (g_strdup (msperf_value_get_string (v)));
      tv->known = TRUE;
      return TRUE;
    case FILTER_LIST:
    default:
      if (v->kind == MSPERF_VALUE_TENSOR && v->tensor.values)
        {
          tv->list = g_array_sized_new (FALSE, FALSE, sizeof (int64_t), (guint) v->tensor.n_values);
          g_array_append_vals (tv->list, v->tensor.values, (guint) v->tensor.n_values);
        }
      else if (v->kind == MSPERF_VALUE_LIST)
        {
          tv->list = g_array_new (FALSE, FALSE, sizeof (int64_t));
          for (guint i = 0; i < v->items->len; i++)
            {
              int64_t x;

              if (!value_int (g_ptr_array_index (v->items, i), &x))
                {
                  g_clear_pointer (&tv->list, g_array_unref);
                  return FALSE;
                }
              g_array_append_val (tv->list, x);
            }
        }
      tv->known = tv->list != NULL;
      return tv->known;
    }
}

static int
field_by_name (const char *name)
{
  for (int f = 0; f < N_FIELDS; f++)
    if (strcmp (name, fields[f].key) == 0
        || (fields[f].alias && strcmp (name, fields[f].alias) == 0)
        || strcmp (name, fields[f].column) == 0)
      return f;
  return -1;
}

static gboolean
is_legacy_context (const char *name)
{
  return strcmp (name, "q_shape_3d") == 0 || strcmp (name, "avg_seq_len") == 0
         || strcmp (name, "dtype") == 0;
}

/* Marks the required fields; returns FALSE with the target-side miss set when one is unknown. */
static gboolean
apply_required (target *tg, const msperf_value *list, msperf_result *r)
{
  g_autoptr (GString) missing = g_string_new (NULL);

  if (list == NULL || list->kind != MSPERF_VALUE_LIST)
    return TRUE;
  for (guint i = 0; i < list->items->len; i++)
    {
      const char *name = msperf_value_get_string (g_ptr_array_index (list->items, i));
      int f;

      if (name == NULL || is_legacy_context (name))
        continue;
      f = field_by_name (name);
      if (f >= 0 && tg->v[f].known)
        {
          tg->v[f].required = TRUE;
          continue;
        }
      if (missing->len)
        g_string_append_c (missing, ',');
      g_string_append (missing, name);
    }
  if (missing->len == 0)
    return TRUE;
  msperf_result_set_miss (r, "semantic_context_missing:target:%s", missing->str);
  return FALSE;
}

/* Sub-query form: the target from a decomposer's params (keys in the header comment). */
static gboolean
target_from_params (const msperf_query *q, target *tg, msperf_result *r)
{
  const msperf_value *p = q->params;
  const msperf_value *shape = msperf_value_lookup (p, "q_shape_3d");
  const msperf_value *runtime = msperf_value_lookup (p, "runtime_params");
  const char *dtype = msperf_value_get_string (msperf_value_lookup (p, "dtype"));
  int64_t dims[3];

  if (shape == NULL || !msperf_value_is_int_list (shape) || shape->items->len != 3)
    {
      msperf_result_set_miss (r, "semantic_context_missing:target:q_shape_3d");
      return FALSE;
    }
  for (guint i = 0; i < 3; i++)
    dims[i] = ((const msperf_value *) g_ptr_array_index (shape->items, i))->i;
  tg->t = dims[0];
  tg->n = dims[1];
  tg->d = dims[2];
  if (!value_int (msperf_value_lookup (p, "avg_seq_len"), &tg->avg_seq_len))
    {
      msperf_result_set_miss (r, "semantic_context_missing:target:avg_seq_len");
      return FALSE;
    }
  if (dtype)
    tg->dtype = msperf_dtype_from_string (dtype);
  else
    tg->dtype = q->n_inputs > 0 ? q->inputs[0].dtype : MSPERF_DTYPE_UNKNOWN;
  if (!msperf_dtype_is_mapped (tg->dtype))
    {
      msperf_result_set_miss (r, "dtype_unmapped");
      return FALSE;
    }
  /* kv_dtype: the KV cache's dtype when the decomposer knows it, else the Q dtype. */
  dtype = msperf_value_get_string (msperf_value_lookup (p, "kv_dtype"));
  tg->kv_dtype = dtype && msperf_dtype_is_mapped (msperf_dtype_from_string (dtype))
                  ? msperf_dtype_from_string (dtype)
                  : tg->dtype;
  for (int f = 0; f < N_FIELDS; f++)
    {
      const msperf_value *v = msperf_value_lookup (p, fields[f].key);

      if (v == NULL && runtime)
        v = msperf_value_lookup (runtime, fields[f].key);
      set_field (&tg->v[f], &fields[f], v);
    }
  return apply_required (tg, msperf_value_lookup (p, "required_context_fields"), r);
}

static const msperf_tensor *
arg_tensor (const msperf_op *op, int i)
{
  const msperf_value *v = msperf_op_arg (op, i);

  return v && v->kind == MSPERF_VALUE_TENSOR ? &v->tensor : NULL;
}

/* Op form: the TC side of §2.5 with the Q23 fix. */
static gboolean
target_from_op (const msperf_query *q, target *tg, msperf_result *r)
{
  const msperf_op *op = q->op;
  const msperf_tensor *query, *key, *seq_lens;
  const msperf_value *sparse;
  int64_t q3[3], head_dim = 0, sum = 0;

  if (op == NULL || op->args->len < 7)
    {
      msperf_result_set_miss (r, "insufficient_args");
      return FALSE;
    }
  query = arg_tensor (op, 0);
  key = arg_tensor (op, 1);
  if (query == NULL)
    {
      msperf_result_set_miss (r, "query_not_tensor");
      return FALSE;
    }
  if (!msperf_dtype_is_mapped (query->dtype))
    {
      msperf_result_set_miss (r, "dtype_unmapped");
      return FALSE;
    }
  if (key && key->rank >= 1)
    head_dim = key->dims[key->rank - 1];
  if (!normalize_q (query, head_dim, q3))
    {
      msperf_result_set_miss (r, "q_shape_normalize_failed");
      return FALSE;
    }
  tg->t = q3[0];
  tg->n = q3[1];
  tg->d = q3[2];
  tg->dtype = query->dtype;
  /* The KV cache's dtype is the key input's; without a key tensor, the Q dtype. */
  tg->kv_dtype = key && msperf_dtype_is_mapped (key->dtype) ? key->dtype : query->dtype;

  seq_lens = arg_tensor (op, 6);
  if (seq_lens == NULL || seq_lens->values == NULL)
    {
      msperf_result_set_miss (r, "missing_seq_lens");
      return FALSE;
    }
  /* int(mean(seq_lens)) truncates (Q6); exact integer arithmetic for non-negative lengths. */
  for (size_t i = 0; i < seq_lens->n_values && sum >= 0; i++)
    {
      int64_t len = seq_lens->values[i];

      sum = len < 0 || len > INT64_MAX - sum ? -1 : sum + len;
    }
  if (seq_lens->n_values == 0 || sum < 0)
    {
      msperf_result_set_miss (r, "invalid_seq_lens");
      return FALSE;
    }
  tg->avg_seq_len = sum / (int64_t) seq_lens->n_values;

  /* Q23: the op's sparse_mode when given, else the policy default (null = no filter). */
  sparse = msperf_value_lookup (op->kwargs, "sparse_mode");
  if (!set_field (&tg->v[F_SPARSE_MODE], &fields[F_SPARSE_MODE], sparse))
    set_field (&tg->v[F_SPARSE_MODE], &fields[F_SPARSE_MODE],
               msperf_engine_policy_value (q->engine,
                                           "interpolation.attention.sparse_mode_default"));
  /* A sliding-window layer: kwargs.window, a positive number of tokens (0: full attention). */
  if (set_field (&tg->v[F_WINDOW], &fields[F_WINDOW], msperf_value_lookup (op->kwargs, "window"))
      && tg->v[F_WINDOW].i <= 0)
    tg->v[F_WINDOW].known = FALSE;
  /* Q23: a TND key is (T, KVH, D), a BNSD key (B, KVH, S, D). */
  if (key && (key->rank == 3 || key->rank == 4))
    {
      tg->v[F_NUM_KV_HEADS].known = TRUE;
      tg->v[F_NUM_KV_HEADS].i = key->dims[1];
    }
  if (query->rank == 3 || query->rank == 4)
    {
      tg->v[F_INPUT_LAYOUT].known = TRUE;
      tg->v[F_INPUT_LAYOUT].s = g_strdup (query->rank == 3 ? "TND" : "BNSD_NBSD");
    }
  return TRUE;
}

/* ---- result ---- */

static void
detail_int_or_null (msperf_result *r, const char *key, const target_value *tv)
{
  if (tv->known)
    msperf_result_detail_int (r, key, tv->i);
  else
    msperf_result_detail_value (r, key, msperf_value_new (MSPERF_VALUE_NONE));
}

static void
set_hit (msperf_engine *engine, const msperf_selector *sel, const target *tg, gboolean aliased,
         msperf_result *r)
{
  const char *k = msperf_table_kernel_type (sel->table);
  const char *selection = NULL;
  table_cols c;
  msperf_tensor q;
  int64_t csv_avg;

  msperf_result_set_hit (r, MSPERF_SOURCE_MEASURED, sel->latency, ATTENTION_CONFIDENCE, k,
                         "attention");
  msperf_result_set_method (r, "exact");
  /* reference §1.3: a hit whose latency came from the core envelope says so */
  msperf_latency_policy_apply (engine, sel->table, sel->row, NULL, &selection);
  if (selection)
    msperf_result_detail_string (r, "latency_selection", selection);
  msperf_result_detail_int (r, "avg_seq_len", tg->avg_seq_len);
  detail_int_or_null (r, "sparse_mode", &tg->v[F_SPARSE_MODE]);
  detail_int_or_null (r, "num_kv_heads", &tg->v[F_NUM_KV_HEADS]);
  if (tg->v[F_INPUT_LAYOUT].known)
    msperf_result_detail_string (r, "input_layout", tg->v[F_INPUT_LAYOUT].s);
  else
    msperf_result_detail_value (r, "input_layout", msperf_value_new (MSPERF_VALUE_NONE));
  /* The matched row's own coordinates, for users checking how far the answer is. */
  find_columns (sel->table, &c);
  if (cell_int (msperf_table_cell (sel->table, sel->row, c.avg_seq), &csv_avg))
    msperf_result_detail_int (r, "csv_avg_seq_len", csv_avg);
  msperf_result_detail_int (r, "avg_seq_len_gap", (int64_t) floor (sel->distance));
  if (parse_slot0 (msperf_table_cell (sel->table, sel->row, c.shapes), &q))
    {
      int64_t q3[3];

      /* kernel_shapes: the CSV query slot as written (the other slots do not take part). */
      msperf_result_add_kernel_shape (r, &q);
      if (normalize_q (&q, tg->d, q3))
        msperf_result_detail_bool (r, "token_padded", q3[0] != tg->t);
    }
  if (aliased)
    msperf_result_detail_string (r, "dtype_alias", "DT_FLOAT16->DT_BF16");
}

/* The scan of kernels, with the Q3 retry: float16 first matches DT_FLOAT16 rows, then
 * DT_BF16 ones as upstream does (*aliased says so). */
static scan_status
scan_aliased (msperf_engine *engine, const char *const *kernels, const target *tg,
              msperf_selector *sel, GString *missing, gboolean *aliased)
{
  msperf_dtype kv = tg->kv_exact ? tg->kv_dtype : MSPERF_DTYPE_UNKNOWN;
  scan_status st;

  msperf_selector_init (sel);
  g_string_truncate (missing, 0);
  *aliased = FALSE;
  st = scan (engine, kernels, tg, tg->dtype, kv, sel, missing);
  if (st == SCAN_NO_MATCH
      && (tg->dtype == MSPERF_DTYPE_FLOAT16 || kv == MSPERF_DTYPE_FLOAT16))
    {
      msperf_selector_clear (sel);
      msperf_selector_init (sel);
      g_string_truncate (missing, 0);
      st = scan (engine, kernels, tg,
                 tg->dtype == MSPERF_DTYPE_FLOAT16 ? MSPERF_DTYPE_BF16 : tg->dtype,
                 kv == MSPERF_DTYPE_FLOAT16 ? MSPERF_DTYPE_BF16 : kv, sel, missing);
      *aliased = TRUE;
    }
  return st;
}

/* TRUE when policy interpolation.attention.kv_dtype_exact is true (absent: FALSE). */
static gboolean
kv_dtype_exact (msperf_engine *engine)
{
  const msperf_value *v = msperf_engine_policy_value (engine,
                                                      "interpolation.attention.kv_dtype_exact");

  return v != NULL && v->kind == MSPERF_VALUE_BOOL && v->b;
}

/* TRUE when the kernels hold a row the target would match with the KV dtype not compared: the
 * miss is then the KV dtype's alone. */
static gboolean
kv_dtype_alone (msperf_engine *engine, const char *const *kernels, target *tg)
{
  g_autoptr (GString) missing = g_string_new (NULL);
  msperf_selector sel;
  gboolean aliased;
  scan_status st;

  tg->kv_exact = FALSE;
  st = scan_aliased (engine, kernels, tg, &sel, missing, &aliased);
  tg->kv_exact = TRUE;
  msperf_selector_clear (&sel);
  return st == SCAN_HIT || st == SCAN_AMBIGUOUS;
}

/* The mapping entry's window_kernel_type (the table of sliding-window attention), or NULL. */
static const char *
window_kernel (const msperf_query *q)
{
  return q->entry ? msperf_value_get_string (msperf_value_lookup (q->entry->raw,
                                                                  "window_kernel_type"))
                  : NULL;
}

/* The kernels of the query without the window kernel (full attention), NULL-terminated; the
 * strings stay the query's. */
static const char **
full_kernels (const msperf_query *q, const char *wk)
{
  GPtrArray *out = g_ptr_array_new ();

  for (const char *const *k = q->kernel_types; k && *k; k++)
    if (wk == NULL || strcmp (*k, wk) != 0)
      g_ptr_array_add (out, (gpointer) *k);
  g_ptr_array_add (out, NULL);
  return (const char **) g_ptr_array_free (out, FALSE);
}

static msperf_status
attention_lookup (msperf_engine *engine, void *state, const msperf_query *q, msperf_result *r)
{
  target tg = { 0 };
  g_autoptr (GString) missing = NULL;
  g_autofree const char **full = NULL;
  msperf_selector sel;
  scan_status st;
  gboolean aliased = FALSE, windowed, within = FALSE;
  const char *wk;
  const char *one[] = { NULL, NULL };
  int64_t window;
  msperf_status status;

  (void) state;
  g_return_val_if_fail (q != NULL && r != NULL, MSPERF_ERROR);
  if (q->kernel_types == NULL || q->kernel_types[0] == NULL)
    return msperf_result_set_miss (r, "unmapped");
  if (!(q->params ? target_from_params (q, &tg, r) : target_from_op (q, &tg, r)))
    {
      target_clear (&tg);
      return MSPERF_MISS;
    }

  tg.kv_exact = kv_dtype_exact (engine);
  missing = g_string_new (NULL);
  /* With a window kernel in the mapping, full attention never reads its rows, and a
   * sliding-window op reads them first (the window an exact field). Its own miss falls back to
   * full attention only when every query sees the whole sequence (avg_seq_len <= window), where
   * the two compute the same. Without the key the window is not looked at. */
  wk = window_kernel (q);
  full = full_kernels (q, wk);
  windowed = wk != NULL && tg.v[F_WINDOW].known;
  window = tg.v[F_WINDOW].i;
  if (windowed)
    {
      one[0] = wk;
      tg.v[F_WINDOW].required = TRUE;
      st = scan_aliased (engine, one, &tg, &sel, missing, &aliased);
      if (st != SCAN_HIT && st != SCAN_AMBIGUOUS && tg.avg_seq_len <= window)
        within = TRUE;
    }
  /* Full attention (a full-attention table may hold a window column of zeros: not compared). */
  if (!windowed || within)
    {
      if (windowed)
        msperf_selector_clear (&sel);
      tg.v[F_WINDOW].known = tg.v[F_WINDOW].required = FALSE;
      st = scan_aliased (engine, full, &tg, &sel, missing, &aliased);
    }
  switch (st)
    {
    case SCAN_HIT:
      set_hit (engine, &sel, &tg, aliased, r);
      if (windowed)
        {
          msperf_result_detail_int (r, "window", window);
          msperf_result_detail_bool (r, "window_full_attention", within);
        }
      status = MSPERF_HIT;
      break;
    case SCAN_NO_CSV:
      status = msperf_result_set_miss (r, "csv_not_found");
      break;
    case SCAN_NO_AVG_COLUMN:
      status = msperf_result_set_miss (r, "semantic_context_missing:csv:" AVG_SEQ_COLUMN);
      break;
    case SCAN_NO_REQUIRED_COLUMN:
      status = msperf_result_set_miss (r, "semantic_context_missing:csv:%s", missing->str);
      break;
    case SCAN_AMBIGUOUS:
      status = msperf_result_set_miss (r, "ambiguous_semantic_match:%s",
                                       msperf_table_kernel_type (sel.table));
      break;
    case SCAN_NO_MATCH:
    default:
      /* Rows at the op's coordinates exist, but none with its KV-cache dtype. */
      if (tg.kv_exact && kv_dtype_alone (engine, windowed && !within ? one : full, &tg))
        status = msperf_result_set_miss (r, "kv_dtype_not_measured:kv_dtype=%s",
                                         msperf_dtype_profiling_name (tg.kv_dtype));
      /* A sliding-window op longer than its window: full attention would over-state it. */
      else if (windowed && !within)
        status = msperf_result_set_miss (r, "window_shape_mismatch:%s:window=%" G_GINT64_FORMAT,
                                         wk, window);
      else
        status = msperf_result_set_miss (r, "shape_mismatch");
      break;
    }
  msperf_selector_clear (&sel);
  target_clear (&tg);
  return status;
}

/* ---- shared with attention_axes.c (attention_private.h) ---- */

const char *
attn_window_kernel (const msperf_query *q)
{
  g_return_val_if_fail (q != NULL, NULL);
  return window_kernel (q);
}

const char *
attn_trimmed (const char *cell, char *buf, size_t size)
{
  return trimmed (cell, buf, size);
}

double
attn_cell_number (const char *cell)
{
  return cell_number (cell);
}

gboolean
attn_cell_int (const char *cell, int64_t *out)
{
  return cell_int (cell, out);
}

msperf_dtype
attn_parse_dtype0 (const char *cell)
{
  return parse_dtype0 (cell);
}

msperf_dtype
attn_parse_dtype1 (const char *cell)
{
  return parse_dtype1 (cell);
}

gboolean
attn_normalize_q (const msperf_tensor *q, int64_t head_dim, int64_t out[3])
{
  return normalize_q (q, head_dim, out);
}

static int64_t
list_length (const target_value *tv)
{
  return tv->known && tv->list && tv->list->len > 0 ? (int64_t) tv->list->len : -1;
}

gboolean
attn_target_info_get (const msperf_query *q, attn_target_info *out)
{
  target tg = { 0 };
  g_autoptr (msperf_result) scratch = msperf_result_new ();
  const char *quant = NULL;
  gboolean ok;

  g_return_val_if_fail (q != NULL && out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  ok = q->params ? target_from_params (q, &tg, scratch) : target_from_op (q, &tg, scratch);
  if (!ok)
    {
      target_clear (&tg);
      return FALSE;
    }
  out->tokens = tg.t;
  out->heads = tg.n;
  out->head_dim = tg.d;
  out->avg_seq_len = tg.avg_seq_len;
  out->dtype = tg.dtype;
  out->kv_dtype = tg.kv_dtype;
  out->sparse_known = tg.v[F_SPARSE_MODE].known;
  out->sparse_mode = tg.v[F_SPARSE_MODE].i;
  out->kv_known = tg.v[F_NUM_KV_HEADS].known;
  out->kv_heads = tg.v[F_NUM_KV_HEADS].i;
  out->window = tg.v[F_WINDOW].known && tg.v[F_WINDOW].i > 0 ? tg.v[F_WINDOW].i : 0;
  if (tg.v[F_INPUT_LAYOUT].known)
    g_strlcpy (out->layout, tg.v[F_INPUT_LAYOUT].s, sizeof out->layout);
  out->batch = -1;
  if (q->params)
    {
      /* The decomposer's batch, else the length of a per-sequence list it passed. */
      if (tg.v[F_BATCH_SIZE].known && tg.v[F_BATCH_SIZE].i > 0)
        out->batch = tg.v[F_BATCH_SIZE].i;
      else if (list_length (&tg.v[F_SEQ_LENGTHS]) > 0)
        out->batch = list_length (&tg.v[F_SEQ_LENGTHS]);
      else
        out->batch = list_length (&tg.v[F_SEQ_LENGTHS_KV]);
      quant = msperf_value_get_string (msperf_value_lookup (q->params, "quant_mode"));
    }
  else
    {
      const msperf_tensor *seq_lens = arg_tensor (q->op, 6);
      const msperf_tensor *query = arg_tensor (q->op, 0);

      /* One seq_lens value per sequence; a 4-D query's B says the same. */
      if (seq_lens && seq_lens->n_values > 0)
        out->batch = (int64_t) seq_lens->n_values;
      else if (query && query->rank == 4)
        out->batch = query->dims[0];
      quant = msperf_value_get_string (msperf_value_lookup (q->op->kwargs, "quant_mode"));
    }
  if (quant)
    g_strlcpy (out->quant_mode, quant, sizeof out->quant_mode);
  target_clear (&tg);
  return TRUE;
}

/* Stateless: every slot reads the policy and the tables through its engine argument. */
MSPERF_PLUGIN_DEFINE (
  .name = "attention_special",
  .version = PACKAGE_VERSION,
  .description = "enriched attention CSVs: exact lookup by Q shape, avg_seq_len and runtime "
                 "metadata",
  .flags = MSPERF_PLUGIN_INTERPOLATE_BY_DEFAULT,
  .no_table_reason = "attention_index_unavailable",
  /* Its rows are found by semantic key (Q shape, avg_seq_len, runtime metadata): a composite
   * op's attention part records no shapes, and its miss fails the op. */
  .semantic_key_rule = "attention",
  /* interpolation.attention: how an attention op's rows are filtered and interpolated. */
  .policy_schema =
    "interpolation.attention:\n"
    "  query_length_rule: {type: choice, choices: [per_sequence, literal_tokens],\n"
    "                      default: per_sequence}\n"
    "  sparse_mode_default: {type: integer, min: 0, nullable: true, default: null}\n"
    "  mha_heads_axis: {type: bool}\n"
    "  kv_dtype_exact: {type: bool}\n",
  .lookup = attention_lookup,
  .describe_target = attention_describe_target,
  .describe_row = attention_describe_row,
);
