/* msperf module "elementwise" — memory-bound proxies (the mapping key `proxy_bytes`, doc/formats.md
 * § elementwise): an op no table measures (a gather, a reduction, RoPE, a top-k) is answered as
 * the unary same-shape op that moves the same bytes — one read and one write of N bf16 elements,
 * N = bytes / 4 — from the primary kernel's unary rows. The exact lookup and the interpolation
 * target both take the op through this rewrite, so they agree on what is looked up. */
#ifndef MSPERF_PLUGINS_ELEMENTWISE_ELEMENTWISE_PROXY_H
#define MSPERF_PLUGINS_ELEMENTWISE_ELEMENTWISE_PROXY_H

#include <msperf/plugin.h>

G_BEGIN_DECLS

typedef enum {
  ELEMENTWISE_PROXY_OFF,    /* the entry has no proxy_bytes: the op is looked up as it is */
  ELEMENTWISE_PROXY_READY,  /* *in and *out hold the unary op of the same bytes */
  ELEMENTWISE_PROXY_FAILED  /* proxy_bytes asked for but unusable: *reason says why */
} elementwise_proxy_status;

/* The bytes an op moves under rule ("all": every tensor input plus every output; "gather": the outputs twice — each element read once from the source and written
 * once — plus the inputs after the first, the indices; the source table is not read whole).
 * FALSE for an unknown rule, a tensor of unknown element size or an overflow. Exposed for the
 * unit tests. */
gboolean elementwise_proxy_bytes (const char *rule, const msperf_tensor *inputs, size_t n_inputs,
                                  const msperf_tensor *const *outputs, size_t n_outputs,
                                  int64_t *bytes);

/* The rewrite of query q (see above). FAILED for an unknown rule, an op without outputs or of
 * unknown bytes, and an entry that also sets tc_input_count (it would cut the kernel's rows as
 * well as the op's inputs). *reason (static) is set when FAILED; *bytes (nullable) receives the
 * op's bytes when READY. */
elementwise_proxy_status elementwise_proxy_tensors (const msperf_query *q, msperf_tensor *in,
                                                    msperf_tensor *out, int64_t *bytes,
                                                    const char **reason);

G_END_DECLS

#endif /* MSPERF_PLUGINS_ELEMENTWISE_ELEMENTWISE_PROXY_H */
