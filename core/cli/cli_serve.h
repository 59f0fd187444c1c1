/* msperf (internal) — `serve` and `accuracy` (doc/serving.md): the serving simulation and its
 * check against measured deployments. */
#ifndef MSPERF_CLI_SERVE_H
#define MSPERF_CLI_SERVE_H

#include <msperf/msperf.h>
#include "cli/cli.h"
#include "cli/engine_options.h"
#include "app/serve/serve.h"

int msperf_cli_serve (const msperf_cli_global *g, int argc, char **argv);
int msperf_cli_accuracy (const msperf_cli_global *g, int argc, char **argv);

/* The scheduler preset of a backend (policies/serving/NAME.yaml), or the file scheduler
 * when given; NULL-free errors name the backend. */
gboolean msperf_cli_serve_load_policy (const char *backend, const char *scheduler,
                                       msperf_serve_policy *pol, GError **error);
/* policies/serving (installed or in the source tree). Transfer full. */
char *msperf_cli_serving_dir (void);

#endif
