/* msperf module "compute" — a batched matmul [b, M, K] x [b, K, N] answered from a single-GEMM
 * table (the entry key `batched_from: KERNEL`, doc/formats.md §1.1): the GEMM of the same
 * FLOPs with one shared right-hand matrix, GEMM(b*M, N, K), plus the time the device needs to
 * read the b - 1 other right-hand matrices (the roofline of the batched op minus the roofline
 * of that GEMM). The evidence for the method is in doc/h200-database.md. */
#ifndef MSPERF_PLUGINS_COMPUTE_COMPUTE_BATCHED_H
#define MSPERF_PLUGINS_COMPUTE_COMPUTE_BATCHED_H

#include <msperf/plugin.h>

G_BEGIN_DECLS

/* The method name the answers carry. */
#define COMPUTE_BATCHED_METHOD "batched_from_gemm"

/* The single-GEMM kernel named by the entry's batched_from key, or NULL when the entry has
 * none (then the lookup is the plain exact one). */
const char *compute_batched_kernel (const msperf_query *q);

/* Answers q from the single-GEMM kernel: INTERPOLATED (EXTRAPOLATED when the GEMM's answer is)
 * with method batched_from_gemm, or a miss naming why (inputs that are not [b, M, K] and
 * [b, K, N] of positive dims, or the GEMM's own miss). */
msperf_status compute_batched_lookup (msperf_engine *engine, const msperf_query *q,
                                      const char *kernel, msperf_result *r);

G_END_DECLS

#endif /* MSPERF_PLUGINS_COMPUTE_COMPUTE_BATCHED_H */
