/* msperf module "attention_special" (internal) — what the exact lookup (attention_special.c)
 * shares with the interpolation coordinates (attention_axes.c), so that both read the CSV cells
 * and the op the same way. */
#ifndef MSPERF_PLUGINS_ATTENTION_PRIVATE_H
#define MSPERF_PLUGINS_ATTENTION_PRIVATE_H

#include <msperf/plugin.h>

G_BEGIN_DECLS

#define ATTN_AVG_SEQ_COLUMN "Runtime avg_seq_len"
#define ATTN_LEGACY_AVG_SEQ_COLUMN "avg_seq_len"

/* The target of a query as the exact lookup derives it (§2.5 TC side, or the decomposer's
 * params), plus the number of sequences. */
typedef struct attn_target_info {
  int64_t tokens;            /* T of the normalised Q (T, N, D) */
  int64_t heads;             /* N */
  int64_t head_dim;          /* D */
  int64_t avg_seq_len;       /* int(mean(seq_lens)) */
  msperf_dtype dtype;
  msperf_dtype kv_dtype;     /* the key input's dtype (the Q dtype when the op gives none) */
  int64_t batch;             /* number of sequences; -1 when unknown */
  gboolean sparse_known;
  int64_t sparse_mode;
  gboolean kv_known;
  int64_t kv_heads;
  int64_t window;            /* sliding window in tokens; 0 for full attention */
  char layout[32];           /* "" when unknown */
  char quant_mode[32];       /* "" when none */
} attn_target_info;

/* FALSE when the query has no target (the exact lookup's miss reasons). */
gboolean attn_target_info_get (const msperf_query *query, attn_target_info *out);

/* The mapping entry's window_kernel_type (sliding-window attention's table), or NULL. */
const char *attn_window_kernel (const msperf_query *query);

/* Cell readers of the exact lookup: blanks and quotes trimmed; a number as pandas reads it
 * (NAN when blank); int(float(cell)) (Q6); slot 0 of Input Shapes; the first input dtype. */
const char *attn_trimmed (const char *cell, char *buf, size_t size);
double attn_cell_number (const char *cell);
gboolean attn_cell_int (const char *cell, int64_t *out);
msperf_dtype attn_parse_dtype0 (const char *cell);
/* The second input dtype (the key: the KV cache's); the first when the cell has one item. */
msperf_dtype attn_parse_dtype1 (const char *cell);
/* Q shape to (T, N, D): 3-D as is; 4-D (B, N, 1, D) squeezed; 2-D (T, H) split by head_dim. */
gboolean attn_normalize_q (const msperf_tensor *q, int64_t head_dim, int64_t out[3]);

/* attention_axes.c: the describe slots (state is the engine). */
gboolean attention_describe_target (msperf_engine *engine, void *state, const msperf_query *query, msperf_point *point);
gboolean attention_describe_row (msperf_engine *engine, void *state, const msperf_table *table, size_t row,
                                 msperf_point *point);

G_END_DECLS

#endif /* MSPERF_PLUGINS_ATTENTION_PRIVATE_H */
