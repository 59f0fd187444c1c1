/* msperf (internal) — `recommend` (doc/recommend.md). */
#ifndef MSPERF_CLI_RECOMMEND_H
#define MSPERF_CLI_RECOMMEND_H

#include "cli/cli.h"

int msperf_cli_recommend (const msperf_cli_global *g, int argc, char **argv);

#endif
