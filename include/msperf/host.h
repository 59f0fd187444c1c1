/* msperf — the services the engine offers a module (doc/plugin-guide.md § Services). Every
 * slot receives the engine handle of the query's thread (include/msperf/engine.h § Threads):
 * a module calls these with that handle, never with one kept from init. The engine's life
 * cycle (new, start, query, free) is not here: no slot may call it. */
#ifndef MSPERF_HOST_H
#define MSPERF_HOST_H

#include <msperf/api.h>
#include <stdint.h>
#include <glib.h>
#include <msperf/op.h>
#include <msperf/table.h>
#include <msperf/result.h>
#include <msperf/database.h>
#include <msperf/handle.h>
#include <msperf/subquery.h>

G_BEGIN_DECLS

/* Answers one sub-query (a composite's part, a moe_fused embedded term) through the module
 * of sq->mode, as the engine answers ops: the module's exact lookup (and, once interpolation
 * exists, its fallback). parent is the invocation the part belongs to. result is filled;
 * returns the module's status. Modules may call this; it never recurses into decomposition. */
MSPERF_API msperf_status msperf_engine_subquery (msperf_engine *engine, const msperf_op *parent,
                                      const msperf_subquery *sq, msperf_result *result);

/* TRUE when kernel_type starts with a collective prefix a module declares
 * (msperf_plugin.collective_prefixes; the communication module: HCCL's hcom_). */
MSPERF_API gboolean msperf_engine_kernel_is_collective (msperf_engine *engine,
                                                        const char *kernel_type);

/* Services for modules. */
MSPERF_API msperf_database *msperf_engine_database (msperf_engine *engine);
/* Kernel table through the database cache; NULL + MSPERF_ERROR_NOT_FOUND when absent. */
MSPERF_API const msperf_table *msperf_engine_table (msperf_engine *engine, const char *kernel_type,
                                         GError **error);
/* Effective per-kernel option: --policy kernel_overrides, then the database's
 * <block>.kernel_overrides. block: latency_policy, query_selection_policy, interpolation_policy. */
MSPERF_API const msperf_value *msperf_engine_kernel_option (msperf_engine *engine, const char *block,
                                                 const char *kernel, const char *key);
MSPERF_API gboolean msperf_engine_kernel_flag (msperf_engine *engine, const char *block, const char *kernel,
                                    const char *key);
MSPERF_API const msperf_parallel *msperf_engine_parallel (msperf_engine *engine);
/* A value of the effective policy by dotted path ("interpolation.attention.sparse_mode_default"). */
MSPERF_API const msperf_value *msperf_engine_policy_value (msperf_engine *engine, const char *path);
/* SHA-256 of the canonical JSON of the effective policy. */
MSPERF_API const char *msperf_engine_policy_hash (msperf_engine *engine);
/* The device profile's communication rank grid (outermost dimension first, upstream comm_grid):
 * TRUE with *dims (owned by the engine) and *n when the profile configures one; FALSE (and
 * *dims NULL, *n 0) when it does not, which means "no topology-tier filter". */
MSPERF_API gboolean msperf_engine_comm_grid (msperf_engine *engine, const int64_t **dims, size_t *n);
/* Name of the device profile the roofline uses (after start). Transfer none. */
MSPERF_API const char *msperf_engine_device_name (msperf_engine *engine);
/* TRUE when name is the device profile's name or one of its aliases, without regard to case
 * (a measurement's system label against the profile the predictions use); FALSE without a
 * profile. */
MSPERF_API gboolean msperf_engine_device_is (msperf_engine *engine, const char *name);
/* The device profile's Ascend vector-core clock in GHz (ATT cycles → µs), NAN when none. */
MSPERF_API double msperf_engine_vector_clock_ghz (msperf_engine *engine);
/* The roofline of op on the engine's device profile and parallel settings, in µs (the
 * engine's analytic answer; NAN when it cannot be computed): for a module that derives an answer
 * from a measurement of other work (a batched matmul from a single GEMM). */
MSPERF_API double msperf_engine_roofline_us (msperf_engine *engine, const msperf_op *op);
/* The device profile's memory per device in GiB (its optional memory_gib), NAN when none. */
MSPERF_API double msperf_engine_device_memory_gib (msperf_engine *engine);
/* Devices in one node of the device profile (its optional comm.nodes.devices), 0 when it does
 * not say. */
MSPERF_API int64_t msperf_engine_node_devices (msperf_engine *engine);
/* Canonical JSON of the effective policy. Transfer none. */
MSPERF_API const char *msperf_engine_policy_json (msperf_engine *engine);

/* The effective value of option key of module module_name (modules.<name>.<key> of the policy,
 * else the default the module declared); NULL for an undeclared key. Transfer none. */
MSPERF_API const msperf_value *msperf_engine_module_option (msperf_engine *engine,
                                                            const char *module_name,
                                                            const char *key);

G_END_DECLS

#endif /* MSPERF_HOST_H */
