/* msperf — the shape rules several query modes share (reference §0 and §1.3). */
#ifndef MSPERF_SHAPE_H
#define MSPERF_SHAPE_H

#include <msperf/api.h>
#include <msperf/op.h>

G_BEGIN_DECLS

/* Checked int64 multiply: FALSE on overflow (then *out is unchanged). */
MSPERF_API gboolean msperf_int64_checked_mul (int64_t a, int64_t b, int64_t *out);

/* strip(s): drop dim 0 when it is 1 and rank > 1 (one dim only). */
MSPERF_API void msperf_shape_strip (const msperf_tensor *in, msperf_tensor *out);
/* is_block_padded(t, c): t > c and t == ceil(c/bs)*bs for bs in {16,32,64}, or bs 8 when c >= 64. */
MSPERF_API gboolean msperf_is_block_padded (int64_t t, int64_t c);
/* pad_match(t, c): same rank, every dim equal or block-padded, at least one padded. */
MSPERF_API gboolean msperf_shape_pad_match (const msperf_tensor *t, const msperf_tensor *c);
/* FRACTAL_NZ restore: [..batch, H, W, bh, bw] -> (..batch, H*bw, W*bh); rank < 4 unchanged.
 * FALSE when a product overflows. */
MSPERF_API gboolean msperf_shape_nz_to_nd (const msperf_tensor *in, msperf_tensor *out);

/* Parses one dim list "136,5120" (or "()" / "" for a scalar) into t (dims only).
 * Errors name the offending text. */
MSPERF_API gboolean msperf_shape_parse_dims (const char *text, msperf_tensor *t, GError **error);

G_END_DECLS

#endif /* MSPERF_SHAPE_H */
