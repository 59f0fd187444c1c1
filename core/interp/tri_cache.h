/* msperf (internal) — the on-disk triangulation cache (warm starts, doc/formats.md
 * § Triangulation cache files): a triangulation written once, mapped read-only by later
 * processes so they skip Qhull. A file is named by its key, a SHA-256 of everything the
 * triangulation depends on (the coordinates in order, n, dim, the Qhull options, the Qhull
 * version, the format version, the build): content, never path or mtime, so stale data
 * cannot be served. A file that fails any check is ignored with one warning and rewritten. */
#ifndef MSPERF_CORE_TRI_CACHE_H
#define MSPERF_CORE_TRI_CACHE_H

#include <glib.h>
#include "interp/interp.h"

G_BEGIN_DECLS

/* Bump whenever the layout or the meaning of any stored field changes (the location grid's
 * included: a new msperf_delaunay_grid_view field needs a new grid section). */
#define MSPERF_TRI_CACHE_FORMAT 2u

/* The key's lowercase hex (64 characters, the file name). Transfer full. */
char *msperf_tri_cache_key (const double *points, size_t n, int dim);

/* The path of the file of points in dir. Transfer full. */
char *msperf_tri_cache_path (const char *dir, const double *points, size_t n, int dim);

/* Writes tri to path atomically (a temporary file in path's directory, then rename), so a
 * concurrent reader sees the old file, the new one or none. FALSE with error on failure (the
 * temporary file is removed). */
gboolean msperf_tri_cache_write (const char *path, const msperf_delaunay *tri, GError **error);

/* Maps path read-only and checks it against the caller's points (n × dim): magic, format,
 * build, key, sizes against the file length, the payload checksum, every index in range,
 * the grid's offsets, and the points themselves. The triangulation's arrays point into the
 * mapping (msperf_delaunay_free unmaps). NULL with error (G_FILE_ERROR_NOENT or _NOTDIR when there is
 * no file; MSPERF_ERROR_DOMAIN/MSPERF_ERROR_PARSE naming the failed check otherwise). */
msperf_delaunay *msperf_tri_cache_load (const char *path, const double *points, size_t n,
                                        int dim, GError **error);

/* Tests and the fuzzer: writes points' key and the checksum into a file image (size bytes),
 * so that a deliberately damaged structure reaches the checks behind the checksum. */
void msperf_tri_cache_seal (guint8 *data, size_t size, const double *points, size_t n, int dim);

/* msperf_delaunay_new through the cache in dir (NULL: no cache): load, else build with Qhull
 * and write. A file that exists but fails a check is ignored with one g_warning naming it and
 * the problem, then rewritten; a cache that cannot be written warns once per process and the
 * build goes on. *from_cache (nullable) says whether the file served. Build errors are
 * msperf_delaunay_new's (failed builds are not cached). */
msperf_delaunay *msperf_tri_cache_delaunay (const char *dir, const double *points, size_t n,
                                            int dim, gboolean *from_cache, GError **error);

G_END_DECLS

#endif /* MSPERF_CORE_TRI_CACHE_H */
