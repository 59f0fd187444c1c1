/* msperf (internal) — the subcommands of the msperf CLI. Each returns the exit status. */
#ifndef MSPERF_CORE_CLI_H
#define MSPERF_CORE_CLI_H

#include <stdio.h>
#include <glib.h>
#include "app/report/output.h"

/* One run of the msperf command, passed to its subcommand: the options shared by every
 * command (parsed in core/cli/msperf.c) and the run's standard output. Nothing of a run is
 * kept in process-wide state. */
typedef struct msperf_cli_global {
  char **plugin_dirs;   /* --plugins-dir, repeatable */
  char *policy;         /* --policy */
  char *log_format;     /* text | json */
  gboolean verbose;
  msperf_stdout *std;   /* the checked standard output (app/report/output.h) */
  FILE *out;            /* its stream: everything a command prints on stdout goes here */
} msperf_cli_global;

/* Exit statuses of FORMATS §5.2. */
enum { MSPERF_EXIT_OK = 0, MSPERF_EXIT_PROBLEMS = 1, MSPERF_EXIT_USAGE = 2 };

int msperf_cli_estimate (const msperf_cli_global *g, int argc, char **argv, gboolean single_query);
/* summarize: estimate's outputs from the answers of its shards (doc/scale-out.md). */
int msperf_cli_summarize (const msperf_cli_global *g, int argc, char **argv);
/* merge: the JSON Lines of estimate --shard outputs, in the single run's order. */
int msperf_cli_merge (const msperf_cli_global *g, int argc, char **argv);
int msperf_cli_validate (const msperf_cli_global *g, int argc, char **argv);
int msperf_cli_plugins (const msperf_cli_global *g, int argc, char **argv);
int msperf_cli_att (const msperf_cli_global *g, int argc, char **argv);
int msperf_cli_holdout (const msperf_cli_global *g, int argc, char **argv);
/* import: a profiling database from another tool's measured tables. */
int msperf_cli_import (const msperf_cli_global *g, int argc, char **argv);
/* mapping draft|check: authoring an op_mapping.yaml. */
int msperf_cli_mapping (const msperf_cli_global *g, int argc, char **argv);
/* Model-level commands (cli_model.c, doc/models.md). */
int msperf_cli_trace (const msperf_cli_global *g, int argc, char **argv);
int msperf_cli_e2e (const msperf_cli_global *g, int argc, char **argv);
int msperf_cli_sweep (const msperf_cli_global *g, int argc, char **argv);

#endif
