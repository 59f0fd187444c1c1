/* msperf module "elementwise" — interpolation coordinates (seed 000 §2 extensions, reference
 * §4.5): one axis, the output element count, inside a regime of kernel, broadcast pattern,
 * input count and dtypes. One extractor serves the target and the CSV rows, so both sides land
 * in the same regime by construction. */
#ifndef MSPERF_PLUGINS_ELEMENTWISE_ELEMENTWISE_AXES_H
#define MSPERF_PLUGINS_ELEMENTWISE_ELEMENTWISE_AXES_H

#include <msperf/plugin.h>

G_BEGIN_DECLS

/* The broadcast signature of inputs against out into sig: "same-shape" when every input has
 * the output's elements (up to size-1 axes), else one token per input — "s" for a scalar, or
 * one letter per coalesced output axis, 'f' (full) or 'b' (broadcast) — joined by ';'. Size-1
 * output axes are dropped and adjacent axes with the same letters in every input merged, so a
 * [T,H] op and a flat [T·H] row of the same pattern agree. FALSE when an input does not
 * broadcast to out. Exposed for the unit tests. */
gboolean elementwise_broadcast_signature (const msperf_tensor *in, size_t n,
                                          const msperf_tensor *out, GString *sig);

gboolean elementwise_describe_target (msperf_engine *engine, void *state,
                                      const msperf_query *query, msperf_point *point);
gboolean elementwise_describe_row (msperf_engine *engine, void *state, const msperf_table *table,
                                   size_t row, msperf_point *point);

G_END_DECLS

#endif /* MSPERF_PLUGINS_ELEMENTWISE_ELEMENTWISE_AXES_H */
