/* msperf — the latency policy of one kernel (reference §1.3 "Latency quality fallback",
 * §2.3 step 5): which latency a matched CSV row answers with, and how that latency's column
 * ranks when rows tie. One implementation for every module that scans kernel CSVs. */
#ifndef MSPERF_LATENCY_H
#define MSPERF_LATENCY_H

#include <msperf/api.h>
#include <stddef.h>
#include <glib.h>
#include <msperf/table.h>
#include <msperf/host.h>

G_BEGIN_DECLS

/* The `latency_selection` detail of a hit whose latency is the core envelope. */
#define MSPERF_LATENCY_SELECTION_CORE_ENVELOPE "profiling_core_envelope_fallback"

/* The latency_policy options of one kernel, resolved once per table scan (a plain value:
 * stack-allocate, nothing to free). */
typedef struct msperf_latency_policy {
  /* prefer_profiling_rows: a "Profiling Average Duration(us)" latency ranks first. */
  gboolean prefer_profiling_rows;
  /* profiling_core_envelope_fallback.max_duration_to_core_ratio, or NAN when off. */
  double envelope_ratio;
} msperf_latency_policy;

/* Resolves the policy of kernel_type through msperf_engine_kernel_option (--policy overrides
 * first, then the database's latency_policy.kernel_overrides). */
MSPERF_API void msperf_latency_policy_init (msperf_latency_policy *policy, msperf_engine *engine,
                                 const char *kernel_type);

/* The latency of a valid row under policy: the row latency by the column priority
 * (msperf_table_row_latency), replaced by max(aicore_time, aiv_time) when the row was read
 * from "Profiling Average Duration(us)", its Accelerator Core is MIX_AIC and the duration
 * exceeds that envelope by more than envelope_ratio (it then measured launch gaps).
 * *priority (may be NULL) receives the latency priority for msperf_selector_offer: the
 * msperf_latency_column, or 0 for a profiling latency and 1 otherwise under
 * prefer_profiling_rows. *selection (may be NULL) receives
 * MSPERF_LATENCY_SELECTION_CORE_ENVELOPE when the fallback applied, else NULL (a static
 * string, transfer none). */
MSPERF_API double msperf_latency_policy_row (const msperf_latency_policy *policy,
                                  const msperf_table *table, size_t row, int *priority,
                                  const char **selection);

/* One-shot form for a single row: the policy of the table's own kernel type, then
 * msperf_latency_policy_row (a scan over many rows resolves the policy once instead). */
MSPERF_API double msperf_latency_policy_apply (msperf_engine *engine, const msperf_table *table,
                                    size_t row, int *priority, const char **selection);

G_END_DECLS

#endif /* MSPERF_LATENCY_H */
