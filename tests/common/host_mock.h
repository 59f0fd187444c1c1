/* msperf tests — a host mock (after collectd's plugin_mock.c): the services of
 * include/msperf/host.h implemented over a fake msperf_engine the test configures directly, so
 * that a module unit test calls the module's slots with a hand-built msperf_query and does not
 * depend on dispatch, the registry or the policy merge.
 *
 * Link: the module's sources + tests/common/host_mock.c + core/libmsperf-lower.la (base, io,
 * interp, att) — never core/engine, whose engine this file replaces. Public headers only.
 *
 * Everything the test hands over (tables, values) is owned by the engine afterwards; every
 * string is copied. msperf_engine_free frees the fake engine (so g_autoptr (msperf_engine)
 * works). */
#ifndef MSPERF_TESTS_HOST_MOCK_H
#define MSPERF_TESTS_HOST_MOCK_H

#include <msperf/plugin.h>

G_BEGIN_DECLS

/* Answers msperf_engine_subquery in place of the engine. Called after the sub-query has been
 * recorded (hm_subqueries). */
typedef msperf_status (*hm_subquery_fn) (msperf_engine *engine, const msperf_op *parent,
                                         const msperf_subquery *sq, msperf_result *result,
                                         gpointer user_data);

/* A fake engine: no tables, no options, parallel sizes 1, no comm grid, no vector clock
 * (NAN), device "mock", policy JSON "{}". */
msperf_engine *hm_engine_new (void);

/* Kernel tables (msperf_engine_table). From CSV text, a file, or a loaded table (taken). An
 * absent kernel answers NULL + MSPERF_ERROR_NOT_FOUND, as the engine does for a missing CSV.
 * The loaders fail the test on a parse error. */
void hm_table_from_csv (msperf_engine *e, const char *kernel_type, const char *csv);
void hm_table_from_file (msperf_engine *e, const char *kernel_type, const char *path);
void hm_table_take (msperf_engine *e, const char *kernel_type, msperf_table *table);
/* The kernels asked through msperf_engine_table, in order (char*, repeats kept). */
const GPtrArray *hm_table_requests (msperf_engine *e);

/* msperf_engine_kernel_option / _flag: block.kernel.key = value (taken; NULL removes). */
void hm_kernel_option (msperf_engine *e, const char *block, const char *kernel, const char *key,
                       msperf_value *value);
/* msperf_engine_policy_value: path ("interpolation.attention.x") = value (taken). */
void hm_policy_value (msperf_engine *e, const char *path, msperf_value *value);
/* msperf_engine_module_option: modules.<module>.<key> = value (taken). The mock knows no
 * declared defaults: set every key the module reads. */
void hm_module_option (msperf_engine *e, const char *module, const char *key, msperf_value *value);

/* msperf_engine_parallel; starts as all sizes 1 (ep_size 0), no sequence parallel. */
msperf_parallel *hm_parallel (msperf_engine *e);
/* msperf_engine_comm_grid: dims (copied, outermost first); n = 0 removes the grid. */
void hm_comm_grid (msperf_engine *e, const int64_t *dims, size_t n);
/* msperf_engine_vector_clock_ghz (NAN = none) and msperf_engine_device_name. */
void hm_vector_clock_ghz (msperf_engine *e, double ghz);
void hm_device_name (msperf_engine *e, const char *name);
/* msperf_engine_database (taken; NULL by default). */
void hm_database (msperf_engine *e, msperf_database *db);

/* msperf_engine_subquery: answered by fn (NULL: every sub-query misses with
 * "mock_no_subquery_handler"). Each sub-query is recorded first, deep-copied. */
void hm_subquery_handler (msperf_engine *e, hm_subquery_fn fn, gpointer user_data);
/* The recorded sub-queries (msperf_subquery*, owned by the engine) and their parents' names. */
const GPtrArray *hm_subqueries (msperf_engine *e);
const char *hm_subquery_parent (msperf_engine *e, guint index);

/* A query as the engine builds one for op (the op's tensor inputs by value, flattened from
 * lists as dispatch does; tc_input_count -1; kernels NULL-terminated, copied). Free with
 * hm_query_free. Borrowed: op, entry, params. */
msperf_query *hm_query_new (msperf_engine *e, const msperf_op *op, const char *mode,
                            const char *const *kernels);
void hm_query_free (msperf_query *q);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_query, hm_query_free)

/* A value tree from JSON text (objects → MAP in key order, arrays → LIST, integers → INT,
 * other numbers → DOUBLE, null → NONE): att objects and sub-query params written as a user
 * writes them. Fails the test on bad JSON. Transfer full. */
msperf_value *hm_value_from_json (const char *json);

/* A decompose slot's plan without the engine: the parts (msperf_subquery*, owned by the plan)
 * and the miss reason (or NULL). */
msperf_plan *hm_plan_new (void);
const GPtrArray *hm_plan_parts (const msperf_plan *plan);
const char *hm_plan_miss (const msperf_plan *plan);
void hm_plan_free (msperf_plan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_plan, hm_plan_free)

G_END_DECLS

#endif /* MSPERF_TESTS_HOST_MOCK_H */
