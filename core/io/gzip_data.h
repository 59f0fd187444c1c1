/* msperf (internal) — gzip-compressed kernel tables (`KERNEL.csv.gz`), read transparently. */
#ifndef MSPERF_CORE_GZIP_DATA_H
#define MSPERF_CORE_GZIP_DATA_H

#include <stddef.h>
#include <glib.h>

/* Whether data starts with the gzip magic (1f 8b). */
gboolean msperf_gzip_is_compressed (const char *data, size_t len);

/* Inflates a whole gzip stream (several concatenated members are read as one, as gzip -d does)
 * into a NUL-terminated buffer (transfer full; *out_len excludes the NUL). name stands for the
 * file in messages. Errors (MSPERF_ERROR_PARSE): a damaged or truncated stream, trailing bytes
 * that are not a gzip member, output larger than max_out bytes (a decompression bomb). */
char *msperf_gzip_inflate (const char *data, size_t len, const char *name, size_t max_out,
                           size_t *out_len, GError **error);

#endif
