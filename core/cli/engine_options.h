/* msperf (internal) — the engine options of the model-level commands (e2e, sweep, serve,
 * accuracy, recommend): the database, the device profile and its memory, the triangulation
 * cache; and the engine they start. */
#ifndef MSPERF_CORE_CLI_ENGINE_OPTIONS_H
#define MSPERF_CORE_CLI_ENGINE_OPTIONS_H

#include <glib.h>
#include <msperf/msperf.h>
#include "cli/cli.h"
#include "cli/cache_option.h"

typedef struct {
  char *database, *device;
  double memory_gib;     /* NAN unless --memory-gib */
  msperf_cli_cache cache;
} msperf_cli_engine_opts;

/* --profiling-database, --device-profile, --memory-gib and the cache options, appended to
 * out (GOptionEntry, no terminator) and written into eo, which must outlive the parse. */
void msperf_cli_engine_opts_entries (GArray *out, msperf_cli_engine_opts *eo);
/* The started engine and the device memory in bytes (0 = unknown). Without
 * --profiling-database: the imported H200 database where the tree ships one, else the sample
 * database. NULL with *error on a bad option, database or profile. */
msperf_engine *msperf_cli_engine_opts_start (const msperf_cli_global *g,
                                             const msperf_cli_engine_opts *eo,
                                             double *device_bytes, GError **error);
void msperf_cli_engine_opts_clear (msperf_cli_engine_opts *eo);
/* The options of eo that decide answers (database, device profile, memory) as a command line
 * takes them, shell-quoted, "" when none; and "msperf" with the global options of g
 * (--plugins-dir, --policy). For a command that reruns part of this one. Transfer full. */
char *msperf_cli_engine_opts_args (const msperf_cli_engine_opts *eo);
char *msperf_cli_program_text (const msperf_cli_global *g);

#endif
