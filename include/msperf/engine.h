/* msperf — the engine's life cycle, for programs (not modules: include/msperf/plugin.h does
 * not reach this header): new, configure, start, query, free. The engine holds the modules,
 * policy, database, device profile and caches of one run; two engines in one process do not
 * interfere; every cache lives here. */
#ifndef MSPERF_ENGINE_H
#define MSPERF_ENGINE_H

#include <msperf/api.h>
#include <stdint.h>
#include <glib.h>
#include <msperf/op.h>
#include <msperf/result.h>
#include <msperf/table.h>
#include <msperf/database.h>
#include <msperf/handle.h>

G_BEGIN_DECLS

/* Status of one discovered module file, as `msperf plugins list` prints it. */
typedef enum {
  MSPERF_PLUGIN_LOADED = 0,
  MSPERF_PLUGIN_DISABLED,   /* disabled by policy */
  MSPERF_PLUGIN_SKIPPED,    /* a module of that name was already loaded from an earlier dir */
  MSPERF_PLUGIN_REJECTED    /* see reason */
} msperf_plugin_status;

typedef struct msperf_plugin_info {
  char *name;               /* mode name (file stem when the module could not be read) */
  char *version;
  char *description;
  char *file;
  char *capabilities;       /* "lookup,interpolate,model,decompose" from the filled slots */
  msperf_plugin_status status;
  char *reason;             /* why rejected/skipped/disabled, or NULL */
} msperf_plugin_info;

MSPERF_API const char *msperf_plugin_status_name (msperf_plugin_status status);

/* Threads. An engine is a handle on a shared state: the configuration, database, policy,
 * modules, device profile, kernel tables and candidate indexes, built by msperf_engine_start
 * and shared, never copied. A handle also owns what a query changes without a lock (its answer
 * cache, scratch buffers, option memo), so ONE HANDLE SERVES ONE THREAD AT A TIME. For more
 * threads, give each its own handle from msperf_engine_new_session: queries on different
 * handles of one shared state may run concurrently and give the same answers as one handle (tables,
 * indexes and triangulations are built once, under the shared state's lock, on first use).
 * Configuration (before start), msperf_engine_drop_tables and freeing a handle that another
 * thread is using are not thread-safe. Handles may be freed in any order; the shared state goes
 * with the last one. Modules see the handle of the query's thread in every slot. */
MSPERF_API msperf_engine *msperf_engine_new (void);
/* A further handle on the shared state of a started engine. Transfer full (msperf_engine_free). */
MSPERF_API msperf_engine *msperf_engine_new_session (msperf_engine *engine);
MSPERF_API void msperf_engine_free (msperf_engine *engine);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_engine, msperf_engine_free)

/* Configuration, before msperf_engine_start. */
MSPERF_API void msperf_engine_add_plugin_dir (msperf_engine *engine, const char *dir);
/* Skip MSPERF_PLUGIN_PATH and the installed directory (tests). */
MSPERF_API void msperf_engine_set_plugin_search_defaults (msperf_engine *engine, gboolean use_defaults);
MSPERF_API gboolean msperf_engine_load_policy (msperf_engine *engine, const char *path, GError **error);
/* Command-line overrides, the highest precedence: a dotted key and a YAML scalar text,
 * e.g. ("parallel.tp_size", "2"), ("interpolation.enabled", "false"). */
MSPERF_API gboolean msperf_engine_set_override (msperf_engine *engine, const char *key, const char *value,
                                     GError **error);
MSPERF_API gboolean msperf_engine_open_database (msperf_engine *engine, const char *dir, const char *root,
                                      GError **error);
MSPERF_API gboolean msperf_engine_set_device_profile (msperf_engine *engine, const char *name_or_path,
                                           GError **error);
/* The directory of the on-disk triangulation cache (doc/formats.md § Triangulation cache
 * files): triangulations are loaded from it when a valid file exists and written to it when
 * built, so a later process skips Qhull. Answers are the same with or without it. NULL (the
 * default) turns it off. Copied. */
MSPERF_API void msperf_engine_set_cache_dir (msperf_engine *engine, const char *dir);
/* Merges the policy, discovers and initialises modules, picks the device profile.
 * FALSE only for configuration errors (bad policy, unreadable device profile). */
MSPERF_API gboolean msperf_engine_start (msperf_engine *engine, GError **error);

/* Every module file seen, in discovery order (msperf_plugin_info*). Transfer none. */
MSPERF_API const GPtrArray *msperf_engine_plugins (msperf_engine *engine);
/* TRUE when a module of that name is loaded and enabled. */
MSPERF_API gboolean msperf_engine_has_module (msperf_engine *engine, const char *name);
/* The kernel-type prefixes of collectives the modules declare (loaded or disabled by policy;
 * msperf_plugin.collective_prefixes), NULL-terminated; after start. Transfer none. */
MSPERF_API const char *const *msperf_engine_collective_prefixes (msperf_engine *engine);

/* Answers one op with every stage (exact, interpolation, model, roofline). Transfer full. */
MSPERF_API msperf_result *msperf_engine_query (msperf_engine *engine, const msperf_op *op);
/* The roofline estimate of an op in µs (NAN when it cannot be computed). */
MSPERF_API double msperf_engine_analytic_latency (msperf_engine *engine, const msperf_op *op);

G_END_DECLS

#endif /* MSPERF_ENGINE_H */
