/* msperf — what the on-disk caches (parsed tables, triangulations) share: the hex form of
 * their content keys, the payload checksum and the atomic write. Internal to libmsperf. */
#ifndef MSPERF_IO_CACHE_FILE_H
#define MSPERF_IO_CACHE_FILE_H

#include <stddef.h>
#include <glib.h>

G_BEGIN_DECLS

/* The 64 lower-case hex digits of a 32-byte key, newly allocated. */
char *msperf_cache_file_hex (const guint8 key[32]);

/* The key of 64 hex digits; FALSE when hex is not that. */
gboolean msperf_cache_file_key_of_hex (const char *hex, guint8 out[32]);

/* Not cryptographic (the key is): catches corruption at memory speed. FNV-style mix over
 * 8-byte words, the tail zero-padded, the 8-byte checksum field at checksum_at (a multiple
 * of 8) counted as zero, the size mixed in last. */
guint64 msperf_cache_file_checksum (const guint8 *data, size_t size, size_t checksum_at);

/* Writes data to path through a temporary file in the same directory and a rename, so a
 * reader never sees a partial file; nothing is left behind on failure. */
gboolean msperf_cache_file_write (const char *path, const guint8 *data, size_t len,
                                  GError **error);

G_END_DECLS

#endif
