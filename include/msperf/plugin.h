/* msperf — the module ABI: what a query-mode module exports and how the core calls it.
 *
 * A module is a libtool module named msperf_<mode>.la/.so that links against libmsperf
 * (pkg-config msperf-plugin) and exports exactly one data symbol, msperf_plugin_v1, of type
 * msperf_plugin. Fields are only ever appended; a NULL slot means "not supported". */
#ifndef MSPERF_PLUGIN_H
#define MSPERF_PLUGIN_H

#include <stdint.h>
#include <glib.h>
#include <msperf/error.h>
#include <msperf/dtype.h>
#include <msperf/op.h>
#include <msperf/shape.h>
#include <msperf/table.h>
#include <msperf/select.h>
#include <msperf/result.h>
#include <msperf/point.h>
#include <msperf/database.h>
#include <msperf/engine.h>

G_BEGIN_DECLS

/* Bumped on any incompatible change of msperf_plugin or msperf_query. */
#define MSPERF_PLUGIN_ABI 1u

/* One query handed to a module: an op (or a decomposer's sub-kernel spec) resolved to a
 * mapping entry. Everything here is owned by the core and valid only during the call. */
typedef struct msperf_query {
  msperf_engine *engine;
  const msperf_op *op;                 /* the invocation (for sub-queries: the parent op) */
  const msperf_mapping_entry *entry;   /* the mapping entry, or NULL for a bare sub-query */
  const char *mode;                    /* the module name the core resolved */
  const char *const *kernel_types;     /* kernels to try, in order, NULL-terminated */
  const msperf_tensor *inputs;         /* TC tensor inputs (msperf_op_tensor_inputs, or the
                                        * sub-query's own); tc_input_count is NOT applied:
                                        * the module owns that rule (moe_fused ignores it) */
  size_t n_inputs;
  int64_t tc_input_count;              /* entry's or sub-query's tc_input_count, -1 = none */
  const msperf_value *params;          /* MAP of sub-query parameters (attention params, ...), or NULL */
} msperf_query;

typedef struct msperf_plugin {
  uint32_t abi;                        /* MSPERF_PLUGIN_ABI */
  uint32_t size;                       /* sizeof (msperf_plugin) as compiled */
  const char *name;                    /* the query mode */
  const char *version;
  const char *description;
  const char *const *op_names;         /* ops this module decomposes (NULL-terminated), or NULL */

  /* Once per engine; *state is passed back to every other slot. */
  gboolean (*init) (msperf_engine *engine, void **state, GError **error);
  void (*fini) (void *state);
  /* Exact lookup: MSPERF_HIT, or MSPERF_MISS with result->miss_reason set. */
  msperf_status (*lookup) (void *state, const msperf_query *query, msperf_result *result);
  /* Interpolation coordinates of the target / of one CSV row; FALSE = not interpolable. */
  gboolean (*describe_target) (void *state, const msperf_query *query, msperf_point *point);
  gboolean (*describe_row) (void *state, const msperf_table *table, size_t row,
                            msperf_point *point);
  /* Analytic cost model (ATT). */
  msperf_status (*model) (void *state, const msperf_query *query, msperf_result *result);
  /* Composite: appends msperf_subquery* (see engine.h) to subqueries. */
  msperf_status (*decompose) (void *state, const msperf_query *query, GPtrArray *subqueries);

  gpointer reserved[8];                /* must be NULL */
} msperf_plugin;

/* Marks the descriptor for export (modules are also linked with
 * -export-symbols-regex '^msperf_plugin_v1$', so nothing else leaks). */
#if defined(__GNUC__)
#define MSPERF_PLUGIN_EXPORT __attribute__ ((visibility ("default")))
#else
#define MSPERF_PLUGIN_EXPORT
#endif

/* The symbol every module exports. */
#define MSPERF_PLUGIN_SYMBOL "msperf_plugin_v1"

G_END_DECLS

#endif /* MSPERF_PLUGIN_H */
