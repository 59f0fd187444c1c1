/* msperf module "compute" — matching one CSV row against the TC inputs (reference §2.4
 * `_inputs_match`). Internal to the module; also meant for its later interpolation slots and
 * for the composite compute parts. */
#ifndef MSPERF_PLUGINS_COMPUTE_COMPUTE_MATCH_H
#define MSPERF_PLUGINS_COMPUTE_COMPUTE_MATCH_H

#include <msperf/plugin.h>

G_BEGIN_DECLS

/* Long enough for every distinct per-input rule name joined with '+' (ten names at most). */
#define COMPUTE_RULE_MAX 256

/* How a row matched: distance 1.0 when any input needed a padding rule (Q4 fix), else 0.0;
 * rule = the distinct non-identity per-input names joined with '+' in input order, or
 * "identity". */
typedef struct compute_row_match {
  double distance;
  char rule[COMPUTE_RULE_MAX];
} compute_row_match;

/* Which of the kernel sets of reference §2.4 a kernel name is in: decided once per kernel of a
 * lookup, so that the per-row matcher compares no names. */
typedef struct compute_kernel_class {
  gboolean rope, swiglu, reshape_and_cache, index;
  gboolean matmul, dtype_relaxed, flatten_batch, merge_last_dims;
} compute_kernel_class;

void compute_kernel_class_init (compute_kernel_class *k, const char *kernel);

/* TRUE when the CSV input slots 'csv' of a row of 'kernel' match the TC inputs tc[0..n_tc)
 * (already truncated to tc_input_count by the caller). tc_input_count (-1 = none) truncates the
 * CSV slots. fp16_as_bf16 compares a float16 TC input as DT_BF16 (the Q3 retry). */
gboolean compute_inputs_match (const char *kernel, const msperf_tensor *tc, size_t n_tc,
                               const msperf_slots *csv, int64_t tc_input_count,
                               gboolean fp16_as_bf16, compute_row_match *match);

/* compute_inputs_match for a kernel already classified (the per-row form of a scan). */
gboolean compute_inputs_match_class (const compute_kernel_class *kernel, const msperf_tensor *tc,
                                     size_t n_tc, const msperf_slots *csv,
                                     int64_t tc_input_count, gboolean fp16_as_bf16,
                                     compute_row_match *match);

/* `_find_compute_match` diagnostic after a miss (quirk Q18): TRUE when the first row of the
 * primary table has a slot count (limited by tc_input_count) different from the TC input count
 * (idem); SwiGlu 2→1 and ReshapeAndCache 4→5 count as equal. FALSE for an empty table. */
gboolean compute_input_count_mismatch (const char *kernel, const msperf_table *primary,
                                       size_t n_tc, int64_t tc_input_count);

/* The kernel sets of reference §2.4. */
gboolean compute_kernel_is_matmul (const char *kernel);
gboolean compute_kernel_is_dtype_relaxed (const char *kernel);
gboolean compute_kernel_is_flatten_batch (const char *kernel);
/* The kernels whose rows may hold a 3-D input folded to 2-D (flatten_3d, merge_last_dims). */
gboolean compute_kernel_folds (const char *kernel);
/* RoPE, SwiGlu and ReshapeAndCache: inputs rewritten before matching (reference §2.4 step 2). */
gboolean compute_kernel_rewrites_inputs (const char *kernel);

G_END_DECLS

#endif /* MSPERF_PLUGINS_COMPUTE_COMPUTE_MATCH_H */
