/* msperf — the on-disk triangulation cache (see tri_cache.h; layout in doc/formats.md
 * § Triangulation cache files).
 *
 * A file is native-endian: a fixed header, a table of sections (id, element size, count,
 * offset), then the sections, each at an 8-byte-aligned offset. Nothing in a file is trusted:
 * every size is checked against the file's length and the header's counts, every index
 * against its range, and the points against the caller's, before a single array is used. */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <glib/gstdio.h>
#include <libqhull_r/libqhull_r.h>

#include "io/cache_file.h"
#include "interp/tri_cache.h"

#define MAGIC "MSPTRIC"           /* 8 bytes with the NUL */
#define MAX_SECTIONS 32u
/* Below this many points Qhull is faster than a file (and the directory stays small). */
#define MIN_POINTS 256

typedef struct {
  char magic[8];
  guint32 format;
  guint32 endian;
  guint32 word_size;          /* sizeof (size_t): the grid offsets are stored as size_t */
  guint32 nsections;
  guint64 file_size;
  guint64 checksum;           /* of the whole file with this field zero */
  guint8 key[32];             /* SHA-256, as in the file name */
  gint32 ndim;
  gint32 nsimplex;
  guint64 npoints;
  double min_bound[MSPERF_DELAUNAY_MAX_DIM];
  double max_bound[MSPERF_DELAUNAY_MAX_DIM];
  double paraboloid_scale;
  double paraboloid_shift;
} file_header;

G_STATIC_ASSERT (sizeof (file_header) == 168);
MSPERF_CACHE_FILE_ASSERT_PREFIX (file_header);

enum {
  SEC_POINTS = 1, SEC_SIMPLICES, SEC_NEIGHBORS, SEC_EQUATIONS, SEC_TRANSFORM,
  /* The location grid: msperf_delaunay_grid_view, one section per field (grid_sections). */
  SEC_GRID_N = 16, SEC_GRID_CUTS = 19, SEC_GRID_START, SEC_GRID_ITEMS
};

static const msperf_cache_file_kind kind = {
  .magic = MAGIC, .format = MSPERF_TRI_CACHE_FORMAT, .header_size = sizeof (file_header),
  .name = "triangulation", .key_owner = "point set",
  .word_size_at = G_STRUCT_OFFSET (file_header, word_size)
};

/* ------------------------------------------------------------------ key */

static void
key_digest (const double *points, size_t n, int dim, guint8 out[32])
{
  g_autoptr (GChecksum) c = g_checksum_new (G_CHECKSUM_SHA256);
  guint64 n64 = n;
  guint32 d32 = (guint32) dim, format = MSPERF_TRI_CACHE_FORMAT;
  guint32 sizes[2] = { (guint32) sizeof (msperf_delaunay_view),
                       (guint32) sizeof (msperf_delaunay_grid_view) };
  gsize len = 32;

  /* Strings with their NUL, so that no two fields can run into each other. The build
   * (version and view sizes) is in too: the stored arrays are this code's output. */
  g_checksum_update (c, (const guchar *) "msperf-tri-cache", sizeof "msperf-tri-cache");
  g_checksum_update (c, (const guchar *) &format, sizeof format);
  g_checksum_update (c, (const guchar *) PACKAGE_VERSION, sizeof PACKAGE_VERSION);
  g_checksum_update (c, (const guchar *) sizes, sizeof sizes);
  g_checksum_update (c, (const guchar *) MSPERF_DELAUNAY_QHULL_OPTIONS,
                     sizeof MSPERF_DELAUNAY_QHULL_OPTIONS);
  g_checksum_update (c, (const guchar *) qh_version, strlen (qh_version) + 1);
  g_checksum_update (c, (const guchar *) &n64, sizeof n64);
  g_checksum_update (c, (const guchar *) &d32, sizeof d32);
  g_checksum_update (c, (const guchar *) points, n * (size_t) dim * sizeof (double));
  g_checksum_get_digest (c, out, &len);
}

char *
msperf_tri_cache_key (const double *points, size_t n, int dim)
{
  guint8 key[32];

  g_return_val_if_fail (points != NULL || n == 0, NULL);
  key_digest (points, n, dim, key);
  return msperf_cache_file_hex (key);
}

char *
msperf_tri_cache_path (const char *dir, const double *points, size_t n, int dim)
{
  g_autofree char *key = NULL, *name = NULL;

  g_return_val_if_fail (dir != NULL, NULL);
  key = msperf_tri_cache_key (points, n, dim);
  name = g_strconcat (key, ".tri", NULL);
  return g_build_filename (dir, name, NULL);
}

/* ------------------------------------------------------------------ payload checksum */

/* The checksum is not cryptographic (the key is): SHA-256 would cost more than the Qhull
 * run it saves on large files. */
void
msperf_tri_cache_seal (guint8 *data, size_t size, const double *points, size_t n, int dim)
{
  g_return_if_fail (data != NULL || size == 0);
  if (size < sizeof (file_header))
    return;
  key_digest (points, n, dim, data + G_STRUCT_OFFSET (file_header, key));
  msperf_cache_file_seal (data, size, sizeof (file_header));
}

/* ------------------------------------------------------------------ writing */

typedef msperf_cache_out_section out_section;
/* A short name for the shared helper (cache_file.h): the section lists read best with it. */
#define add_section msperf_cache_file_add_section

/* The grid's sections: every field of msperf_delaunay_grid_view (a new field goes here and
 * in read_grid). None when the triangulation has no grid. */
static size_t
grid_sections (out_section *out, size_t k, const msperf_delaunay_grid_view *g)
{
  if (g->start == NULL)
    return k;
  k = add_section (out, k, SEC_GRID_N, sizeof (int), MSPERF_DELAUNAY_MAX_DIM, g->n);
  k = add_section (out, k, SEC_GRID_CUTS, sizeof (double), g->ncuts, g->cuts);
  k = add_section (out, k, SEC_GRID_START, sizeof (size_t), g->ncells + 1, g->start);
  return add_section (out, k, SEC_GRID_ITEMS, sizeof (int), g->nitems, g->items);
}

static size_t
all_sections (out_section *out, const msperf_delaunay_view *v)
{
  size_t fd = (size_t) v->ndim + 1, ns = (size_t) v->nsimplex, k = 0;

  k = add_section (out, k, SEC_POINTS, sizeof (double), v->npoints * (size_t) v->ndim,
                   v->points);
  k = add_section (out, k, SEC_SIMPLICES, sizeof (int), ns * fd, v->simplices);
  k = add_section (out, k, SEC_NEIGHBORS, sizeof (int), ns * fd, v->neighbors);
  k = add_section (out, k, SEC_EQUATIONS, sizeof (double), ns * (fd + 1), v->equations);
  k = add_section (out, k, SEC_TRANSFORM, sizeof (double), ns * fd * (size_t) v->ndim,
                   v->transform);
  return grid_sections (out, k, &v->grid);
}

/* The whole file in memory: header, table, 8-aligned sections. */
static GByteArray *
serialize (const msperf_delaunay_view *v, const guint8 key[32])
{
  out_section sec[MAX_SECTIONS];
  size_t nsec = all_sections (sec, v);
  file_header h = { .magic = MAGIC, .format = MSPERF_TRI_CACHE_FORMAT,
                    .endian = MSPERF_CACHE_FILE_ENDIAN,
                    .word_size = sizeof (size_t), .nsections = (guint32) nsec,
                    .ndim = v->ndim, .nsimplex = v->nsimplex, .npoints = v->npoints,
                    .paraboloid_scale = v->paraboloid_scale,
                    .paraboloid_shift = v->paraboloid_shift };

  memcpy (h.key, key, 32);
  memcpy (h.min_bound, v->min_bound, sizeof h.min_bound);
  memcpy (h.max_bound, v->max_bound, sizeof h.max_bound);
  return msperf_cache_file_build (&h, sizeof h, sec, nsec);
}

gboolean
msperf_tri_cache_write (const char *path, const msperf_delaunay *tri, GError **error)
{
  msperf_delaunay_view v;
  guint8 key[32];
  g_autoptr (GByteArray) bytes = NULL;

  g_return_val_if_fail (path != NULL && tri != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  msperf_delaunay_view_of (tri, &v);
  key_digest (v.points, v.npoints, v.ndim, key);
  bytes = serialize (&v, key);
  return msperf_cache_file_write (path, bytes->data, bytes->len, error);
}

/* ------------------------------------------------------------------ loading */

/* A mapped file being checked: the shared part and this kind's header. */
typedef struct {
  msperf_cache_reader c;
  file_header h;
} reader;

/* The parse error of a refused file (cache_file.h). */
#define bad msperf_cache_file_bad

/* The array of section id with exactly count elements of elem_size, in the file; NULL with
 * error when it is missing or does not fit (optional: missing is no error). */
static const void *
section (const reader *r, guint32 id, guint32 elem_size, guint64 count, gboolean optional,
         GError **error)
{
  msperf_cache_section s;

  if (!msperf_cache_file_find (&r->c, id, &s))
    {
      if (!optional)
        bad (error, "section %u is missing", id);
      return NULL;
    }
  if (s.elem_size != elem_size || s.count != count)
    {
      bad (error, "section %u holds %" G_GUINT64_FORMAT " × %u bytes, expected %"
           G_GUINT64_FORMAT " × %u", id, s.count, s.elem_size, count, elem_size);
      return NULL;
    }
  return msperf_cache_file_section_data (&r->c, &s, error);
}

static gboolean
read_header (reader *r, const double *points, size_t n, int dim, GError **error)
{
  guint8 key[32];

  key_digest (points, n, dim, key);
  if (!msperf_cache_file_check_prefix (r->c.data, r->c.size, &kind, key, error))
    return FALSE;
  memcpy (&r->h, r->c.data, sizeof r->h);
  if (r->h.ndim != dim || r->h.npoints != n)
    return bad (error, "holds %" G_GUINT64_FORMAT " points of %d dimensions, expected %zu of %d",
                r->h.npoints, r->h.ndim, n, dim);
  if (r->h.nsimplex < 1
      || !msperf_cache_file_sections_fit (r->c.size, sizeof r->h, r->h.nsections, MAX_SECTIONS))
    return bad (error, "bad counts (%d simplices, %u sections)", r->h.nsimplex,
                r->h.nsections);
  r->c.nsections = r->h.nsections;
  r->c.table = (const msperf_cache_section *) (const void *) (r->c.data + sizeof r->h);
  return TRUE;
}

static gboolean
ints_in_range (const int *v, size_t count, int lo, int hi)
{
  for (size_t i = 0; i < count; i++)
    if (v[i] < lo || v[i] >= hi)
      return FALSE;
  return TRUE;
}

/* Each axis's cuts non-decreasing and not NaN: grid_cell's binary search needs both. */
static gboolean
cuts_ordered (const double *cuts, const int *gn, int ndim)
{
  for (int k = 0; k < ndim; cuts += gn[k] - 1, k++)
    for (int i = 0; i < gn[k] - 1; i++)
      if (isnan (cuts[i]) || (i > 0 && !(cuts[i - 1] <= cuts[i])))
        return FALSE;
  return TRUE;
}

/* The location grid (grid_sections): all of it or none; offsets from 0, ascending, ending at
 * the item count; items valid simplices; the cell count the product of the axes'. */
static gboolean
read_grid (const reader *r, msperf_delaunay_view *v, GError **error)
{
  msperf_delaunay_grid_view *g = &v->grid;
  g_autoptr (GError) gn_error = NULL;
  const int *gn = section (r, SEC_GRID_N, sizeof (int), MSPERF_DELAUNAY_MAX_DIM, TRUE,
                           &gn_error);
  size_t ncells = 1, ncuts = 0;
  const msperf_cache_section *s = NULL;

  if (gn_error)
    {
      g_propagate_error (error, g_steal_pointer (&gn_error));
      return FALSE;
    }
  if (gn == NULL)
    return TRUE;  /* no grid: the plain scan */
  for (int k = 0; k < v->ndim; k++)
    {
      if (gn[k] < 1 || (size_t) gn[k] > G_MAXSIZE / 2 / ncells)
        return bad (error, "grid axis %d has %d cells", k, gn[k]);
      ncells *= (size_t) gn[k];
      ncuts += (size_t) gn[k] - 1;
    }
  /* The last entry's count (a repeated id fails the exact-count lookup below). */
  for (guint32 k = 0; k < r->c.nsections; k++)
    if (r->c.table[k].id == SEC_GRID_ITEMS)
      s = r->c.table + k;
  if (s == NULL)
    return bad (error, "section %u is missing", (guint) SEC_GRID_ITEMS);
  if ((g->cuts = section (r, SEC_GRID_CUTS, sizeof (double), ncuts, FALSE, error)) == NULL
      || (g->start = section (r, SEC_GRID_START, sizeof (size_t), ncells + 1, FALSE,
                              error)) == NULL)
    return FALSE;
  g->nitems = s->count;
  if ((g->items = section (r, SEC_GRID_ITEMS, sizeof (int), g->nitems, FALSE, error)) == NULL)
    return FALSE;
  if (g->start[0] != 0 || g->start[ncells] != g->nitems)
    return bad (error, "grid offsets do not span the items");
  for (size_t c = 0; c < ncells; c++)
    if (g->start[c] > g->start[c + 1])
      return bad (error, "grid offsets decrease at cell %zu", c);
  if (!ints_in_range (g->items, g->nitems, 0, v->nsimplex))
    return bad (error, "a grid item is not a simplex");
  if (!cuts_ordered (g->cuts, gn, v->ndim))
    return bad (error, "grid cuts are not ordered");
  memcpy (g->n, gn, sizeof g->n);
  g->ncuts = ncuts;
  g->ncells = ncells;
  return TRUE;
}

static gboolean
read_arrays (const reader *r, const double *points, msperf_delaunay_view *v, GError **error)
{
  size_t fd = (size_t) v->ndim + 1, ns = (size_t) v->nsimplex;
  size_t ncoord = v->npoints * (size_t) v->ndim;

  if ((v->points = section (r, SEC_POINTS, sizeof (double), ncoord, FALSE, error)) == NULL
      || (v->simplices = section (r, SEC_SIMPLICES, sizeof (int), ns * fd, FALSE, error)) == NULL
      || (v->neighbors = section (r, SEC_NEIGHBORS, sizeof (int), ns * fd, FALSE, error)) == NULL
      || (v->equations = section (r, SEC_EQUATIONS, sizeof (double), ns * (fd + 1), FALSE,
                                  error)) == NULL
      || (v->transform = section (r, SEC_TRANSFORM, sizeof (double), ns * fd * (size_t) v->ndim,
                                  FALSE, error)) == NULL)
    return FALSE;
  if (memcmp (v->points, points, ncoord * sizeof (double)) != 0)
    return bad (error, "its points differ from the candidates'");
  if (!ints_in_range (v->simplices, ns * fd, 0, (int) MIN (v->npoints, (size_t) INT_MAX)))
    return bad (error, "a simplex vertex is not a point");
  if (!ints_in_range (v->neighbors, ns * fd, -1, v->nsimplex))
    return bad (error, "a neighbour is not a simplex");
  for (int k = 0; k < v->ndim; k++)
    {
      double lo = points[k], hi = points[k];

      for (size_t i = 1; i < v->npoints; i++)
        {
          lo = MIN (lo, points[i * (size_t) v->ndim + (size_t) k]);
          hi = MAX (hi, points[i * (size_t) v->ndim + (size_t) k]);
        }
      if (lo != v->min_bound[k] || hi != v->max_bound[k])
        return bad (error, "its bounds differ from the points'");
    }
  return read_grid (r, v, error);
}

msperf_delaunay *
msperf_tri_cache_load (const char *path, const double *points, size_t n, int dim,
                       GError **error)
{
  g_autoptr (GMappedFile) map = NULL;
  reader r = { 0 };
  msperf_delaunay_view v = { 0 };
  GMappedFile *owned;

  g_return_val_if_fail (path != NULL && (points != NULL || n == 0), NULL);
  g_return_val_if_fail (dim >= 2 && dim <= MSPERF_DELAUNAY_MAX_DIM, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  /* Read-only mapping: the arrays point into it. */
  map = msperf_cache_file_map (path, &r.c.data, &r.c.size, error);
  if (map == NULL)
    return NULL;
  if (!read_header (&r, points, n, dim, error))
    return NULL;
  v.ndim = dim;
  v.nsimplex = r.h.nsimplex;
  v.npoints = n;
  memcpy (v.min_bound, r.h.min_bound, sizeof v.min_bound);
  memcpy (v.max_bound, r.h.max_bound, sizeof v.max_bound);
  v.paraboloid_scale = r.h.paraboloid_scale;
  v.paraboloid_shift = r.h.paraboloid_shift;
  if (!read_arrays (&r, points, &v, error))
    return NULL;
  owned = g_steal_pointer (&map);
  return msperf_delaunay_new_from_view (&v, (GDestroyNotify) g_mapped_file_unref, owned);
}

/* ------------------------------------------------------------------ the cached build */

static void
store (const char *dir, const char *path, const msperf_delaunay *tri)
{
  static gint warned;
  g_autoptr (GError) error = NULL;
  msperf_delaunay_view v;

  msperf_delaunay_view_of (tri, &v);
  if (v.nsimplex < 1)
    return;
  if (g_mkdir_with_parents (dir, 0700) != 0)
    g_set_error (&error, G_FILE_ERROR, g_file_error_from_errno (errno),
                 "cannot create %s: %s", dir, g_strerror (errno));
  else if (msperf_tri_cache_write (path, tri, &error))
    {
      g_debug ("triangulation cache: wrote %s", path);
      return;
    }
  /* An unwritable cache is no error: the answers are the same without it. Said once. */
  if (g_atomic_int_compare_and_exchange (&warned, 0, 1))
    g_warning ("triangulation cache: %s; going on without writing it", error->message);
  else
    g_debug ("triangulation cache: %s", error->message);
}

msperf_delaunay *
msperf_tri_cache_delaunay (const char *dir, const double *points, size_t n, int dim,
                           gboolean *from_cache, GError **error)
{
  g_autofree char *path = NULL;
  g_autoptr (GError) load_error = NULL;
  msperf_delaunay *tri;
  gint64 t0;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (from_cache)
    *from_cache = FALSE;
  if (dir == NULL || n < MIN_POINTS || dim < 2 || dim > MSPERF_DELAUNAY_MAX_DIM)
    return msperf_delaunay_new (points, n, dim, error);
  path = msperf_tri_cache_path (dir, points, n, dim);
  t0 = g_get_monotonic_time ();
  tri = msperf_tri_cache_load (path, points, n, dim, &load_error);
  if (tri)
    {
      g_debug ("triangulation cache: loaded %s (%zu points, %d simplices) in %.1f ms", path, n,
               msperf_delaunay_n_simplices (tri), (double) (g_get_monotonic_time () - t0) / 1e3);
      if (from_cache)
        *from_cache = TRUE;
      return tri;
    }
  /* No file (or no directory) is the cold start, not a problem. */
  if (!g_error_matches (load_error, G_FILE_ERROR, G_FILE_ERROR_NOENT)
      && !g_error_matches (load_error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR))
    g_warning ("triangulation cache: ignoring %s: %s; rebuilding it", path,
               load_error->message);
  tri = msperf_delaunay_new (points, n, dim, error);
  if (tri)
    store (dir, path, tri);
  return tri;
}
