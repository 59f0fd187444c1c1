/* msperf (internal) — `serve` and `accuracy` (doc/serving.md): the serving simulation and its
 * check against measured deployments. */
#ifndef MSPERF_CLI_SERVE_H
#define MSPERF_CLI_SERVE_H

#include <msperf/msperf.h>
#include "cli/cli.h"
#include "cli/cache_option.h"
#include "app/serve/serve.h"

int msperf_cli_serve (const msperf_cli_global *g, int argc, char **argv);
int msperf_cli_accuracy (const msperf_cli_global *g, int argc, char **argv);

/* Engine options of the serving commands (the model commands' set). */
typedef struct {
  char *database, *device;
  double memory_gib;
  msperf_cli_cache cache;
} msperf_cli_serve_engine;

void msperf_cli_serve_engine_entries (GArray *out, msperf_cli_serve_engine *eo);
/* The started engine and the device memory in bytes (0 = unknown). The default database is
 * the model commands' default. */
msperf_engine *msperf_cli_serve_engine_start (const msperf_cli_global *g,
                                              const msperf_cli_serve_engine *eo,
                                              double *device_bytes, GError **error);
void msperf_cli_serve_engine_clear (msperf_cli_serve_engine *eo);
/* The scheduler preset of a backend (policies/serving/NAME.yaml), or the file scheduler
 * when given; NULL-free errors name the backend. */
gboolean msperf_cli_serve_load_policy (const char *backend, const char *scheduler,
                                       msperf_serve_policy *pol, GError **error);
/* policies/serving (installed or in the source tree). Transfer full. */
char *msperf_cli_serving_dir (void);

#endif
