/* msperf module "compute" — the exact-key candidates of a lookup: instead of offering every
 * row of a kernel table to the matcher, offer only the rows whose element-count keys can
 * match (the table's index, msperf_table_rows_by_input_numel). The matcher still decides;
 * the keys only skip rows that cannot match, so the selection is the scan's (doc/performance.md,
 * tests/plugins/test_compute_keys.c). */
#ifndef MSPERF_PLUGINS_COMPUTE_COMPUTE_KEYS_H
#define MSPERF_PLUGINS_COMPUTE_COMPUTE_KEYS_H

#include <msperf/plugin.h>

G_BEGIN_DECLS

typedef enum {
  COMPUTE_KEYS_UNPADDED = 0, /* every row that can match without a padding rule */
  COMPUTE_KEYS_ANY           /* every row that can match at all (padding included) */
} compute_keys_scope;

/* Appends to rows (GArray of size_t) the candidate rows of table t (kernel) for the TC inputs
 * tc[0..n_tc) (already truncated to tc_input_count), each once, in no particular order (the
 * selector's choice does not depend on it; nothing is sorted per query), and returns TRUE; FALSE (rows
 * untouched) when the inputs cannot be keyed — a kernel that rewrites its inputs, no input, a
 * dim <= 0 — and every row must be scanned. */
gboolean compute_keys_candidates (const char *kernel, const msperf_table *t,
                                  const msperf_tensor *tc, size_t n_tc, int64_t tc_input_count,
                                  compute_keys_scope scope, GArray *rows);

G_END_DECLS

#endif /* MSPERF_PLUGINS_COMPUTE_COMPUTE_KEYS_H */
