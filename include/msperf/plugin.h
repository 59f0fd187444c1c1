/* msperf — the module ABI, version 2 (doc/plugin-guide.md): what a query-mode module exports
 * and how the core calls it.
 *
 * A module is a libtool module named msperf_<mode>.la/.so that links against libmsperf
 * (pkg-config msperf-plugin) and exports exactly one data symbol, msperf_plugin_v1, of type
 * msperf_plugin, best written with MSPERF_PLUGIN_DEFINE. The descriptor declares everything
 * the core routes by — the ATT kinds it models, mapping categories and query-mode aliases it
 * answers, the mode its misses fall back to, its policy options, its interpolation flags — so
 * the core names no mode and no kernel. A NULL slot or list means "not supported".
 *
 * Versioning: `abi` is the major version (MSPERF_PLUGIN_ABI_MAJOR); the loader refuses any
 * other. `abi_minor` is the minor version the module was built against; the loader refuses one
 * above its own. A minor version only appends fields at the end of a public struct a module
 * reads or fills (msperf_plugin and msperf_query, which carry reserved space; msperf_subquery
 * through its constructor) or adds functions. msperf_option_spec is an array element whose
 * size the core must know, so it is never extended within a major. Anything else — a slot
 * signature, a field moved or retyped, a changed meaning — bumps the major.
 *
 * This header is everything a module may use: the descriptor, the headers of the values it
 * reads and fills, and the engine's services (include/msperf/host.h). The engine's life cycle
 * (include/msperf/engine.h: msperf_engine_new, _start, _query, _free) is not reachable from
 * here, since no slot may start, query or free an engine. */
#ifndef MSPERF_PLUGIN_H
#define MSPERF_PLUGIN_H

#include <msperf/api.h>
#include <stdint.h>
#include <glib.h>
#include <msperf/version.h>
#include <msperf/error.h>
#include <msperf/dtype.h>
#include <msperf/op.h>
#include <msperf/shape.h>
#include <msperf/table.h>
#include <msperf/select.h>
#include <msperf/result.h>
#include <msperf/details.h>
#include <msperf/point.h>
#include <msperf/database.h>
#include <msperf/handle.h>
#include <msperf/subquery.h>
#include <msperf/host.h>
#include <msperf/latency.h>
#include <msperf/expr.h>
#include <msperf/att.h>
#include <msperf/format.h>

G_BEGIN_DECLS

#define MSPERF_PLUGIN_ABI_MAJOR 2u
#define MSPERF_PLUGIN_ABI_MINOR 2u
/* The major version, kept under its version-1 name. */
#define MSPERF_PLUGIN_ABI MSPERF_PLUGIN_ABI_MAJOR

/* One query handed to a module: an op (or a decomposer's sub-kernel spec) resolved to a
 * mapping entry. Everything here is owned by the core and valid only during the call. */
typedef struct msperf_query {
  msperf_engine *engine;               /* the handle of this query's thread (also a slot argument) */
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
  gpointer reserved[4];                /* zero; room for minor versions */
} msperf_query;

/* The type of a module option (modules.<name>.<key> in a policy). */
typedef enum {
  MSPERF_OPTION_BOOL = 0,
  MSPERF_OPTION_INT,
  MSPERF_OPTION_DOUBLE,
  MSPERF_OPTION_STRING,     /* a string, or null when the default is null */
  MSPERF_OPTION_ANY         /* any YAML value (a map of settings, a list) */
} msperf_option_type;

/* One option a module declares; the list ends with a { NULL } entry. The core validates a
 * policy's modules.<name> block against it (unknown keys and wrong types are errors with the
 * file and line) and the module reads the effective value with msperf_engine_module_option. */
typedef struct msperf_option_spec {
  const char *key;
  msperf_option_type type;
  const char *default_yaml;            /* YAML text of the default ("true", "128", "null") */
  const char *help;
} msperf_option_spec;

typedef enum {
  /* Answers mapping entries that name neither a query_mode nor a category (upstream: compute). */
  MSPERF_PLUGIN_DEFAULT_MODE = 1u << 0,
  /* Its lookup interpolates by itself: the engine's interpolation stage never runs for it. */
  MSPERF_PLUGIN_OWN_INTERPOLATION = 1u << 1,
  /* Interpolated when the policy does not set interpolation.modes itself. */
  MSPERF_PLUGIN_INTERPOLATE_BY_DEFAULT = 1u << 2,
  /* Answers composite entries that no decomposer claims (static sub_kernels). */
  MSPERF_PLUGIN_STATIC_COMPOSITE = 1u << 3
} msperf_plugin_flags;

/* The confidences of composite answers (reference §2.12), one definition for the engine's
 * decomposer aggregation and the static sub_kernels module: every part measured (decomposed),
 * some parts interpolated, a part answered by the interpolation wrapper (a sub-kernel that
 * missed exactly: the upstream wrapper's composite confidence), and the static sub_kernels
 * sums with and without a communication part. */
#define MSPERF_COMPOSITE_CONFIDENCE_DECOMPOSED 0.8
#define MSPERF_COMPOSITE_CONFIDENCE_DECOMPOSED_INTERPOLATED 0.75
#define MSPERF_COMPOSITE_CONFIDENCE_WRAPPER 0.5
#define MSPERF_COMPOSITE_CONFIDENCE_STATIC_COMM 0.9
#define MSPERF_COMPOSITE_CONFIDENCE_STATIC_COMPUTE 0.8

/* What a decompose slot returns: the parts the engine answers and aggregates. */
typedef struct msperf_plan msperf_plan;
/* Appends a part (ownership passes to the plan). */
MSPERF_API void msperf_plan_add_part (msperf_plan *plan, msperf_subquery *part);
/* Why this invocation cannot be decomposed (printf-style); the default is decompose_failed. */
MSPERF_API void msperf_plan_set_miss (msperf_plan *plan, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

typedef struct msperf_plugin {
  uint32_t abi;                        /* MSPERF_PLUGIN_ABI_MAJOR */
  uint32_t size;                       /* sizeof (msperf_plugin) as compiled */
  uint32_t abi_minor;                  /* MSPERF_PLUGIN_ABI_MINOR as compiled */
  uint32_t flags;                      /* msperf_plugin_flags */
  const char *name;                    /* the query mode */
  const char *version;
  const char *description;

  /* Routing (all NULL-terminated, nullable). */
  const char *const *op_names;         /* ops this module decomposes */
  const char *const *aliases;          /* further query_mode names it answers (mtp_projection) */
  const char *const *categories;       /* mapping `category:` values it answers (before query_mode) */
  const char *const *att_kinds;        /* `att.kind` values its model slot answers */
  const char *fallback_mode;           /* where an MSPERF_FALLBACK lookup goes, or NULL */
  const char *no_table_reason;         /* interpolation: no kernel table (NULL: wrapper_not_applicable) */
  const char *no_target_reason;        /* interpolation: describe_target refused (same default) */
  const msperf_option_spec *options;   /* modules.<name>.<key>, { NULL }-terminated, or NULL */

  /* Once per shared state (the root handle); *state is passed back to every other slot and is
   * shared by every thread: read-only after init, or guarded by the module. Either may be
   * NULL: a stateless module declares neither (its state is NULL). */
  gboolean (*init) (msperf_engine *engine, void **state, GError **error);
  void (*fini) (void *state);
  /* Exact lookup: MSPERF_HIT, MSPERF_MISS with result->miss_reason set, or MSPERF_FALLBACK
   * (not this module's op: ask fallback_mode). */
  msperf_status (*lookup) (msperf_engine *engine, void *state, const msperf_query *query,
                           msperf_result *result);
  /* Interpolation coordinates of the target / of one CSV row; FALSE = not interpolable. */
  gboolean (*describe_target) (msperf_engine *engine, void *state, const msperf_query *query,
                               msperf_point *point);
  gboolean (*describe_row) (msperf_engine *engine, void *state, const msperf_table *table,
                            size_t row, msperf_point *point);
  /* Analytic cost model (ATT). */
  msperf_status (*model) (msperf_engine *engine, void *state, const msperf_query *query,
                          msperf_result *result);
  /* Composite: fills plan with parts (MSPERF_HIT), MSPERF_MISS with msperf_plan_set_miss when
   * this invocation cannot be decomposed, MSPERF_ERROR when the op or variant is unsupported. */
  msperf_status (*decompose) (msperf_engine *engine, void *state, const msperf_query *query,
                              msperf_plan *plan);

  /* 2.2: the parts this module answers are matched by a semantic key (the sub-query's
   * params), not by shapes. A composite records such a part with no shapes under this
   * shape-match rule, and a miss of one fails the whole op ("<rule>_sub_kernel_miss:…")
   * instead of a PARTIAL sum without the part. NULL: parts matched by shapes. */
  const char *semantic_key_rule;
  /* 2.2: kernel types starting with one of these are collectives (NULL-terminated, nullable):
   * the database looks their tables up in its communication_data_ref first, and
   * msperf_engine_kernel_is_collective says so. */
  const char *const *collective_prefixes;
  /* 2.2: the interpolation.<name> policy blocks this module owns, as YAML (or NULL):
   *   "interpolation.NAME:\n  KEY: {type: choice, choices: [a, b], default: a}\n…"
   * types bool, integer (min, max), number (min, max), choice (choices), string, strings;
   * nullable; default (absent: the key stays absent until a policy sets it). The core
   * validates every policy layer's block against it and puts the defaults in the effective
   * policy (doc/plugin-guide.md § Policy blocks). */
  const char *policy_schema;

  gpointer reserved[5];                /* must be NULL */
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

/* Defines the exported descriptor with abi, size and abi_minor filled in:
 *   MSPERF_PLUGIN_DEFINE (.name = "example", .version = "1.0", .lookup = example_lookup);  */
#define MSPERF_PLUGIN_DEFINE(...)                                                         \
  MSPERF_PLUGIN_EXPORT const msperf_plugin msperf_plugin_v1 = {                           \
    .abi = MSPERF_PLUGIN_ABI_MAJOR, .size = sizeof (msperf_plugin),                       \
    .abi_minor = MSPERF_PLUGIN_ABI_MINOR, __VA_ARGS__ }

G_END_DECLS

#endif /* MSPERF_PLUGIN_H */
