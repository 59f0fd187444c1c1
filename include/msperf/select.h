/* msperf — nearest-row selection shared by the query modes (reference §2.3). */
#ifndef MSPERF_SELECT_H
#define MSPERF_SELECT_H

#include <msperf/api.h>
#include <glib.h>
#include <msperf/table.h>

G_BEGIN_DECLS

/* Keeps the candidate with the smallest (distance, kernel_index, latency_priority), on equal
 * scores the smallest row of the same table (the earliest row offered when tied rows come
 * from different tables), so the rows of one table may be offered in any order; and remembers
 * the latencies tied at the best score so that require_semantic_unique can refuse ambiguous
 * matches. Stack-allocate and msperf_selector_init / msperf_selector_clear. */
typedef struct msperf_selector {
  gboolean have;
  double distance;
  int kernel_index;
  int latency_priority;
  const msperf_table *table;
  size_t row;
  double latency;
  char *rule;             /* owned */
  gboolean ambiguous;     /* a tied candidate had a different latency (12 decimals) */
  size_t n_offered;
} msperf_selector;

MSPERF_API void msperf_selector_init (msperf_selector *sel);
MSPERF_API void msperf_selector_clear (msperf_selector *sel);
/* Offers one matching row. rule is copied if this row becomes the best. */
MSPERF_API void msperf_selector_offer (msperf_selector *sel, double distance, int kernel_index,
                            int latency_priority, const msperf_table *table, size_t row,
                            double latency, const char *rule);

G_END_DECLS

#endif /* MSPERF_SELECT_H */
