/* msperf tests — shared helpers: build ops and tensors as a user would (test_ops.c, no engine
 * needed), and an engine on a fixture database with the build-tree modules (test_util.c). */
#ifndef MSPERF_TESTS_TEST_UTIL_H
#define MSPERF_TESTS_TEST_UTIL_H

#include <msperf/msperf.h>

G_BEGIN_DECLS

/* A path under MSPERF_TEST_DATADIR (tests/data). Transfer full. */
char *tu_data_path (const char *relative);
/* A path under MSPERF_TOP_SRCDIR. Transfer full. */
char *tu_srcdir_path (const char *relative);

/* An engine on the database 'db_dir' (absolute, or relative to tests/data), loading modules
 * only from MSPERF_TEST_PLUGINDIR. overrides: NULL or NULL-terminated key, value pairs for
 * msperf_engine_set_override ("parallel.tp_size", "2", NULL). Fails the test on error. */
msperf_engine *tu_engine_new (const char *db_dir, const char *const *overrides);
/* cmocka teardown of a group whose state is an engine (frees it). */
int tu_teardown_engine (void **state);
/* Queries op through e, frees op and returns the result (never NULL). Transfer full. */
msperf_result *tu_run (msperf_engine *e, msperf_op *op);
/* Fails the test unless r->source is source (the message names the miss reason). */
void tu_assert_source (const msperf_result *r, msperf_source source);

/* Removes path and, for a directory, everything below it (links are removed, not followed). */
void tu_rm_tree (const char *path);

/* Parses "136,5120" ("" or "()" = scalar) into t with dtype; format ND. Aborts on bad text. */
void tu_tensor (msperf_tensor *t, msperf_dtype dtype, const char *dims);
/* A new op named name. Transfer full. */
msperf_op *tu_op (const char *name);
/* Appends a positional tensor arg / an int arg / a None arg. */
void tu_op_add_tensor (msperf_op *op, msperf_dtype dtype, const char *dims);
void tu_op_add_int (msperf_op *op, int64_t value);
void tu_op_add_none (msperf_op *op);
/* The int list [first, first + step, ...] of n items (a rank group). Transfer full. */
msperf_value *tu_int_list (int n, int64_t first, int64_t step);
/* Appends that list as a positional arg. */
void tu_op_add_int_list (msperf_op *op, int n, int64_t first, int64_t step);
/* Appends a list arg of n tensors of dtype/dims (a TensorList such as per-expert weights). */
void tu_op_add_tensor_list (msperf_op *op, int n, msperf_dtype dtype, const char *dims);
/* Appends an output tensor. */
void tu_op_add_out (msperf_op *op, msperf_dtype dtype, const char *dims);

/* Details helpers: NULL / NAN when absent or of another kind. */
const char *tu_detail_string (const msperf_result *r, const char *key);
double tu_detail_double (const msperf_result *r, const char *key);
gboolean tu_detail_bool (const msperf_result *r, const char *key);

/* Fails the test unless r is a transfer stage's answer: EXTRAPOLATED by method on the FusedMoE
 * table, details from_key = from, the reference's source and latency ref_us, and latency
 * ref_us × ratio, with a confidence below the data's. */
void tu_assert_transfer (const msperf_result *r, const char *method, const char *from_key,
                         const char *from, const char *ref_source, double ref_us, double ratio);

G_END_DECLS

#endif /* MSPERF_TESTS_TEST_UTIL_H */
