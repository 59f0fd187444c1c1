/* msperf (internal) — the confidence table (FORMATS §3, policy key `confidence`): the display
 * confidence an answer of each method carries. Built-in defaults are the numbers the engine
 * always used; a policy may override any entry. Display only: a confidence never chooses an
 * answer. */
#ifndef MSPERF_CORE_CONFIDENCE_H
#define MSPERF_CORE_CONFIDENCE_H

#include <glib.h>
#include <msperf/engine.h>

G_BEGIN_DECLS

/* One entry of the table: its key under `confidence`, the built-in value, what it labels. */
typedef struct msperf_confidence_entry {
  const char *key;
  double value;
  const char *labels;
} msperf_confidence_entry;

/* The built-in table, in documentation order; *n_out its length. Transfer none. */
const msperf_confidence_entry *msperf_confidence_defaults (size_t *n_out);

/* The key of an answer kind: "interpolated" with dim 1 is "linear_1d", with dim d >= 2
 * "griddata_<d>d"; any other kind is its own key ("analytic", "extrapolated_marginal").
 * Transfer full. */
char *msperf_confidence_key (const char *kind, int dim);

/* The value of key: `confidence.<key>` of the effective policy, else the built-in value; a key
 * in neither falls back to its prefix before the last '_' ("extrapolated_hold_analytic" →
 * "extrapolated_hold" → "extrapolated"). NAN when nothing matches. *from_policy (nullable) says
 * whether the policy set the value used. */
double msperf_confidence_value (msperf_engine *engine, const char *key, gboolean *from_policy);

/* The confidence of an answer: the value of msperf_confidence_key (kind, dim), lowered by
 * `transform_penalty` when an axis transform was applied, never below 0. With the built-in
 * table this is exactly the number of the old constants (0.70 − 0.05 and so on). */
double msperf_confidence_for (msperf_engine *engine, const char *kind, int dim,
                              gboolean transformed);

/* Fills the engine's table of interpolated confidences (at start, once the policy is merged). */
void msperf_confidence_prepare (msperf_engine *engine);
/* msperf_confidence_for (engine, "interpolated", dim, transformed) from that table. */
double msperf_confidence_interpolated (const msperf_engine *engine, int dim, gboolean transformed);

G_END_DECLS

#endif /* MSPERF_CORE_CONFIDENCE_H */
