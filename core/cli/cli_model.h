/* msperf (internal) — model-level commands (trace, e2e, sweep) and the --model options of
 * estimate (doc/models.md). */
#ifndef MSPERF_CLI_MODEL_H
#define MSPERF_CLI_MODEL_H

#include <glib.h>

/* The values of estimate's --model options: owned by the estimate run (no global state). */
typedef struct msperf_cli_model_opts msperf_cli_model_opts;
msperf_cli_model_opts *msperf_cli_model_opts_new (void);
void msperf_cli_model_opts_free (msperf_cli_model_opts *o);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_cli_model_opts, msperf_cli_model_opts_free)

/* The options `estimate --model CONFIG` adds (phase, sizes, layout), writing into o (which
 * must outlive the parse). Transfer full. */
GOptionGroup *msperf_cli_model_estimate_group (msperf_cli_model_opts *o);
/* The same options appended to out (GOptionEntry, no terminator), for the option check. */
void msperf_cli_model_estimate_entries (msperf_cli_model_opts *o, GArray *out);
/* The quantisation options every model command takes (--quant, --gemm-quant, --moe-quant,
 * --kv-dtype), appended to out (GOptionEntry, no terminator) and written into the given
 * strings, which must outlive the parse. */
void msperf_cli_model_quant_entries (GArray *out, char **quant, char **gemm_quant,
                                     char **moe_quant, char **kv_dtype);
/* The trace estimate should read: NULL (and no error) without --model; else the JSON Lines
 * text, or NULL with *error (0 or negative sizes refused). *name is the config path for
 * messages (transfer none, owned by o). */
char *msperf_cli_model_estimate_trace (msperf_cli_model_opts *o, gboolean sequence_parallel,
                                       const char **name, GError **error);

#endif
