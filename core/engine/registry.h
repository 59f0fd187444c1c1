/* msperf (internal) — module discovery and loading (libltdl). The only global-ish state of
 * msperf lives here, and it is per engine. */
#ifndef MSPERF_CORE_REGISTRY_H
#define MSPERF_CORE_REGISTRY_H

#include <msperf/engine.h>
#include <msperf/plugin.h>

typedef struct msperf_registry msperf_registry;

msperf_registry *msperf_registry_new (void);
/* Calls every fini, closes every module, then lt_dlexit. */
void msperf_registry_free (msperf_registry *reg);

/* The directories to scan, in order: cli_dirs, then MSPERF_PLUGIN_PATH (':'-separated), then
 * the installed $(pkglibdir) — or the build tree's plugins/ when the running binary or test is
 * uninstalled. use_defaults FALSE keeps only cli_dirs. Transfer full (char*). */
GPtrArray *msperf_registry_search_path (const char *const *cli_dirs, gboolean use_defaults);

/* Scans dirs in order and loads every msperf_<stem>.la/.so; disabled maps module names the
 * policy turned off to a reason (nullable). init is called with engine. Problems are recorded
 * in the infos (and logged as one warning line each); nothing here fails the run. */
void msperf_registry_load (msperf_registry *reg, const char *const *dirs, GHashTable *disabled,
                           msperf_engine *engine);

/* Loaded, enabled module of that mode name, or NULL; *state receives its state. */
const msperf_plugin *msperf_registry_lookup (msperf_registry *reg, const char *name, void **state);
/* The module whose op_names lists op_name (a decomposer), or NULL. */
const msperf_plugin *msperf_registry_decomposer (msperf_registry *reg, const char *op_name,
                                                 void **state);
/* One msperf_plugin_info per candidate file, in discovery order. Transfer none. */
const GPtrArray *msperf_registry_infos (msperf_registry *reg);
/* "lookup,interpolate,model,decompose" from the non-NULL slots ("" when none). Transfer full. */
char *msperf_plugin_capabilities (const msperf_plugin *plugin);

/* Routing and defaults declared by module descriptors (loaded or disabled by policy); module
 * names, or NULL when no module declares it. Transfer none. */
const char *msperf_registry_att_module (msperf_registry *reg, const char *kind);
const char *msperf_registry_category_module (msperf_registry *reg, const char *category);
/* The module a query_mode names: itself, or the module declaring it as an alias. */
const char *msperf_registry_canonical_mode (msperf_registry *reg, const char *mode);
/* Names of the modules declaring MSPERF_PLUGIN_INTERPOLATE_BY_DEFAULT (char*). */
const GPtrArray *msperf_registry_interpolated_by_default (msperf_registry *reg);
/* The declared policy_schema texts: module name, then its schema, pairwise (char*). */
const GPtrArray *msperf_registry_policy_schemas (msperf_registry *reg);
/* The declared collective kernel prefixes, NULL-terminated. */
const char *const *msperf_registry_collective_prefixes (msperf_registry *reg);
/* The module of entries naming no query mode (MSPERF_PLUGIN_DEFAULT_MODE). */
const char *msperf_registry_default_mode (msperf_registry *reg);
/* The module answering composite entries no decomposer claims (MSPERF_PLUGIN_STATIC_COMPOSITE). */
const char *msperf_registry_static_composite (msperf_registry *reg);
/* Loaded modules in load order; each element starts with its const msperf_plugin*
 * (see msperf_registry_plugin_at). */
const GPtrArray *msperf_registry_loaded (msperf_registry *reg);
const msperf_plugin *msperf_registry_plugin_at (msperf_registry *reg, guint i, void **state);

#endif
