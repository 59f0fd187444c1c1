/* msperf (internal) — model-level commands (trace, e2e, sweep) and the --model options of
 * estimate (doc/models.md). */
#ifndef MSPERF_CLI_MODEL_H
#define MSPERF_CLI_MODEL_H

#include <glib.h>

/* The options `estimate --model CONFIG` adds (phase, sizes, layout). Transfer full. */
GOptionGroup *msperf_cli_model_estimate_group (void);
/* The same options appended to out (GOptionEntry, no terminator), for the option check. */
void msperf_cli_model_estimate_entries (GArray *out);
/* The trace estimate should read: NULL (and no error) without --model; else the JSON Lines
 * text, or NULL with *error. *name is the config path for messages. */
char *msperf_cli_model_estimate_trace (gboolean sequence_parallel, const char **name,
                                       GError **error);

#endif
