/* msperf (internal) — the on-disk kernel table cache (warm starts, doc/formats.md § Table
 * cache files): a kernel CSV parsed and indexed once, written as a binary image that later
 * processes map and check instead of inflating and parsing the CSV again. A file is named by
 * its key, a SHA-256 of the table file's bytes as read (compressed or not), its path and kernel
 * type (both appear in the loaded table), the format version and the build: content, never
 * mtime, so a changed CSV is never served stale. A file that fails any check is ignored with
 * one warning and rewritten. */
#ifndef MSPERF_IO_TABLE_CACHE_H
#define MSPERF_IO_TABLE_CACHE_H

#include <glib.h>
#include <msperf/table.h>

G_BEGIN_DECLS

/* Bump whenever the layout or the meaning of any stored field changes — a change to how
 * table.c parses a CSV (cells, slots, latency columns, problems) included: the key holds the
 * msperf version, not the code, so an image written by the old parse would be served. */
#define MSPERF_TABLE_CACHE_FORMAT 1u

/* The key's lowercase hex (64 characters). kernel_type may be NULL (the file's stem).
 * Transfer full. */
char *msperf_table_cache_key (const char *path, const char *kernel_type, const void *data,
                              size_t len);

/* dir/KEY.table. Transfer full. */
char *msperf_table_cache_file (const char *dir, const char *key);

/* Writes table to file atomically (a temporary file beside it, then rename). FALSE with error
 * on failure (the temporary file is removed). */
gboolean msperf_table_cache_write (const char *file, const msperf_table *table,
                                   const char *key, GError **error);

/* Maps file read-only and checks it: magic, format, build, key, size against the file length,
 * the payload checksum, every section's bounds, every cell offset, slot reference, dtype and
 * format in range. The table gets path and kernel_type (NULL: the stem of path). NULL with
 * error (G_FILE_ERROR_NOENT when there is no file; MSPERF_ERROR_DOMAIN/MSPERF_ERROR_PARSE
 * naming the failed check otherwise). */
msperf_table *msperf_table_cache_load (const char *file, const char *key, const char *path,
                                       const char *kernel_type, GError **error);

/* Tests: recomputes the checksum of a file image (size bytes), so that a deliberately damaged
 * structure reaches the checks behind it. */
void msperf_table_cache_seal (guint8 *data, size_t size);

/* msperf_table_load through the cache in cache_dir (NULL: no cache): the file is read, its key
 * computed, the cached image used when it passes every check, else the CSV is parsed and the
 * image written. A damaged image is ignored with one g_warning naming it, then rewritten; an
 * unwritable cache warns once per process and the load goes on. Errors are msperf_table_load's. */
msperf_table *msperf_table_load_cached (const char *path, const char *kernel_type,
                                        const char *cache_dir, GError **error);

G_END_DECLS

#endif /* MSPERF_IO_TABLE_CACHE_H */
