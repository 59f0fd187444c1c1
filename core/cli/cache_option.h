/* msperf (internal) — --cache-dir and --no-cache, the on-disk triangulation cache's options
 * of every command that opens a database (estimate, query, holdout, e2e, sweep). */
#ifndef MSPERF_CORE_CLI_CACHE_OPTION_H
#define MSPERF_CORE_CLI_CACHE_OPTION_H

#include <glib.h>
#include <msperf/engine.h>

typedef struct {
  char *dir;        /* --cache-dir DIR */
  gboolean off;     /* --no-cache */
} msperf_cli_cache;

/* The two GOptionEntry initialisers on c (a msperf_cli_cache *), for an entries array. */
#define MSPERF_CLI_CACHE_ENTRIES(c) \
  { "cache-dir", 0, 0, G_OPTION_ARG_FILENAME, &(c)->dir, \
    "Triangulation cache directory (default: $XDG_CACHE_HOME/msperf)", "DIR" }, \
  { "no-cache", 0, 0, G_OPTION_ARG_NONE, &(c)->off, \
    "Neither read nor write the triangulation cache", NULL }

/* Sets engine's cache directory from c: --no-cache none, else --cache-dir, else
 * g_get_user_cache_dir()/msperf. FALSE with error when both options are given. */
gboolean msperf_cli_cache_apply (const msperf_cli_cache *c, msperf_engine *engine,
                                 GError **error);
void msperf_cli_cache_clear (msperf_cli_cache *c);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (msperf_cli_cache, msperf_cli_cache_clear)

#endif
