/* msperf (app) — rendering a holdout report computed by msperf_holdout_run (FORMATS §5). */
#ifndef MSPERF_APP_HOLDOUT_REPORT_H
#define MSPERF_APP_HOLDOUT_REPORT_H

#include <msperf/holdout.h>
#include <msperf/op.h>

G_BEGIN_DECLS

/* The report as a value tree (the JSON document): {schema_version, database, policy_hash,
 * selection, seed, fraction, kernels: [stats…], samples: [sample…]}. Transfer full. */
msperf_value *msperf_holdout_report_value (const msperf_holdout_report *report);
/* The plain-text summary (one line per kernel and dimension). Transfer full. */
char *msperf_holdout_summary_text (const msperf_holdout_report *report);
/* Markdown, JSON or single-file HTML (predicted-vs-measured scatter and error histogram as
 * inline SVG) by the extension of path; MSPERF_ERROR_INVALID for another extension. */
gboolean msperf_holdout_write (const msperf_holdout_report *report, const char *path,
                               GError **error);

G_END_DECLS

#endif /* MSPERF_APP_HOLDOUT_REPORT_H */
