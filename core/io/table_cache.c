/* msperf — the on-disk kernel table cache (see table_cache.h; layout in doc/formats.md
 * § Table cache files).
 *
 * A file is native-endian: a fixed header, a table of sections (id, element size, count,
 * offset), then the sections, each at an 8-byte-aligned offset, so the file can be mapped and
 * its arrays read in place. Nothing in a file is trusted: every size is checked against the
 * file's length and the header's counts, every cell offset against the text, every slot
 * reference against the slots, before the table is built from it. */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include <msperf/error.h>
#include "io/cache_file.h"
#include "io/table_cache.h"
#include "io/table_private.h"

#define MAGIC "MSPTBLC"           /* 8 bytes with the NUL */
#define MAX_SECTIONS 16u

typedef struct {
  char magic[8];
  guint32 format;
  guint32 endian;
  guint32 nsections;
  guint32 first_skipped_line;
  guint64 file_size;
  guint64 checksum;           /* of the whole file with this field zero */
  guint8 key[32];             /* SHA-256, as in the file name */
  guint64 n_rows;
  guint64 n_columns;
  guint64 n_skipped;
} file_header;

/* One row: its line, latency column and latency, and its slot lists as (offset, count) into
 * the slots section. */
typedef struct {
  guint32 line;
  gint32 latency_column;
  double latency;
  guint32 in_offset;
  guint32 in_n;
  guint32 out_offset;
  guint32 out_n;
} file_row;

/* One decoded tensor slot (CSV slots never carry values). */
typedef struct {
  gint32 rank;
  gint32 dtype;
  gint32 format;
  gint32 pad;
  gint64 dims[MSPERF_MAX_RANK];
} file_slot;

G_STATIC_ASSERT (sizeof (file_header) == 96);
MSPERF_CACHE_FILE_ASSERT_PREFIX (file_header);
G_STATIC_ASSERT (sizeof (file_row) == 32);
G_STATIC_ASSERT (sizeof (file_slot) == 16 + 8 * MSPERF_MAX_RANK);

enum {
  SEC_COLUMNS = 1,   /* the header names, each NUL-terminated, in file order */
  SEC_TEXT,          /* the cell text: "" at offset 0, every cell NUL-terminated */
  SEC_CELLS,         /* guint32 offsets into the text, n_rows × n_columns */
  SEC_ROWS,          /* file_row */
  SEC_SLOTS,         /* file_slot */
  SEC_PROBLEMS,      /* the row problems, each NUL-terminated */
  SEC_HASH           /* the plain CSV's SHA-256 (hex), NUL-terminated */
};

static const msperf_cache_file_kind kind = {
  .magic = MAGIC, .format = MSPERF_TABLE_CACHE_FORMAT, .header_size = sizeof (file_header),
  .name = "table", .key_owner = "table"
};

/* ------------------------------------------------------------------ key */

static void
key_digest (const char *path, const char *kernel_type, const void *data, size_t len,
            guint8 out[32])
{
  g_autoptr (GChecksum) c = g_checksum_new (G_CHECKSUM_SHA256);
  guint32 format = MSPERF_TABLE_CACHE_FORMAT;
  guint32 sizes[4] = { (guint32) sizeof (file_header), (guint32) sizeof (file_row),
                       (guint32) sizeof (file_slot), (guint32) MSPERF_DTYPE_N_TYPES };
  guint64 len64 = len;
  gsize n = 32;

  /* Strings with their NUL, so that no two fields can run into each other; kernel_type's
   * absence is a lone NUL after a 0 byte. The build is in: the image is this code's parse. */
  g_checksum_update (c, (const guchar *) "msperf-table-cache", sizeof "msperf-table-cache");
  g_checksum_update (c, (const guchar *) &format, sizeof format);
  g_checksum_update (c, (const guchar *) PACKAGE_VERSION, sizeof PACKAGE_VERSION);
  g_checksum_update (c, (const guchar *) sizes, sizeof sizes);
  g_checksum_update (c, (const guchar *) path, strlen (path) + 1);
  g_checksum_update (c, (const guchar *) (kernel_type ? "k" : ""), kernel_type ? 2 : 1);
  if (kernel_type)
    g_checksum_update (c, (const guchar *) kernel_type, strlen (kernel_type) + 1);
  g_checksum_update (c, (const guchar *) &len64, sizeof len64);
  g_checksum_update (c, (const guchar *) (data ? data : ""), len);
  g_checksum_get_digest (c, out, &n);
}

char *
msperf_table_cache_key (const char *path, const char *kernel_type, const void *data,
                        size_t len)
{
  guint8 key[32];

  g_return_val_if_fail (path != NULL && (data != NULL || len == 0), NULL);
  key_digest (path, kernel_type, data, len, key);
  return msperf_cache_file_hex (key);
}

char *
msperf_table_cache_file (const char *dir, const char *key)
{
  g_autofree char *name = NULL;

  g_return_val_if_fail (dir != NULL && key != NULL, NULL);
  name = g_strconcat (key, ".table", NULL);
  return g_build_filename (dir, name, NULL);
}

/* ------------------------------------------------------------------ payload checksum */

void
msperf_table_cache_seal (guint8 *data, size_t size)
{
  g_return_if_fail (data != NULL || size == 0);
  msperf_cache_file_seal (data, size, sizeof (file_header));
}

/* ------------------------------------------------------------------ writing */

/* A short name for the shared helper (cache_file.h): the section lists read best with it. */
#define add_section msperf_cache_file_add_section

/* NUL-terminated strings one after the other. */
static GByteArray *
strings_blob (const GPtrArray *strings)
{
  GByteArray *b = g_byte_array_new ();

  for (guint k = 0; k < strings->len; k++)
    {
      const char *s = g_ptr_array_index (strings, k);

      g_byte_array_append (b, (const guint8 *) s, (guint) strlen (s) + 1);
    }
  return b;
}

static GByteArray *
serialize (const msperf_table *t, const guint8 key[32])
{
  g_autoptr (GByteArray) columns = strings_blob (t->columns);
  g_autoptr (GByteArray) problems = strings_blob (t->problems);
  g_autoptr (GArray) rows = g_array_sized_new (FALSE, TRUE, sizeof (file_row), t->rows->len);
  g_autoptr (GArray) slots = g_array_sized_new (FALSE, TRUE, sizeof (file_slot), t->slots->len);
  const msperf_tensor *base = (const msperf_tensor *) (const void *) t->slots->data;
  msperf_cache_out_section sec[MAX_SECTIONS];
  size_t nsec = 0;
  file_header h = { .magic = MAGIC, .format = MSPERF_TABLE_CACHE_FORMAT,
                    .endian = MSPERF_CACHE_FILE_ENDIAN, .first_skipped_line = t->first_skipped_line,
                    .n_rows = t->rows->len, .n_columns = t->columns->len,
                    .n_skipped = t->n_skipped };

  for (guint k = 0; k < t->slots->len; k++)
    {
      file_slot s = { .rank = base[k].rank, .dtype = (gint32) base[k].dtype,
                      .format = (gint32) base[k].format };

      memcpy (s.dims, base[k].dims, sizeof s.dims);
      g_array_append_val (slots, s);
    }
  for (guint r = 0; r < t->rows->len; r++)
    {
      const table_row *row = &g_array_index (t->rows, table_row, r);
      file_row f = { .line = row->line, .latency_column = (gint32) row->latency_column,
                     .latency = row->latency, .in_n = (guint32) row->inputs.n,
                     .out_n = (guint32) row->outputs.n };

      f.in_offset = row->inputs.n ? (guint32) (row->inputs.t - base) : 0;
      f.out_offset = row->outputs.n ? (guint32) (row->outputs.t - base) : 0;
      g_array_append_val (rows, f);
    }
  nsec = add_section (sec, nsec, SEC_COLUMNS, 1, columns->len, columns->data);
  nsec = add_section (sec, nsec, SEC_TEXT, 1, t->text->len, t->text->str);
  nsec = add_section (sec, nsec, SEC_CELLS, sizeof (guint32), t->cells->len, t->cells->data);
  nsec = add_section (sec, nsec, SEC_ROWS, sizeof (file_row), rows->len, rows->data);
  nsec = add_section (sec, nsec, SEC_SLOTS, sizeof (file_slot), slots->len, slots->data);
  nsec = add_section (sec, nsec, SEC_PROBLEMS, 1, problems->len, problems->data);
  nsec = add_section (sec, nsec, SEC_HASH, 1, strlen (t->hash) + 1, t->hash);
  h.nsections = (guint32) nsec;
  memcpy (h.key, key, 32);
  return msperf_cache_file_build (&h, sizeof h, sec, nsec);
}

gboolean
msperf_table_cache_write (const char *file, const msperf_table *table, const char *key,
                          GError **error)
{
  guint8 k[32];
  g_autoptr (GByteArray) bytes = NULL;

  g_return_val_if_fail (file != NULL && table != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (!msperf_cache_file_key_of_hex (key, k))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s: the key is not 64 hex digits", file);
      return FALSE;
    }
  /* Offsets are 32-bit in the file as in memory; a table past that is not cached. */
  if (table->slots->len > G_MAXUINT32 || table->text->len > G_MAXUINT32)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s: table too large to cache", table->path);
      return FALSE;
    }
  bytes = serialize (table, k);
  return msperf_cache_file_write (file, bytes->data, bytes->len, error);
}

/* ------------------------------------------------------------------ loading */

/* A mapped file being checked: the shared part and this kind's header. */
typedef struct {
  msperf_cache_reader c;
  file_header h;
} reader;

/* The parse error of a refused file (cache_file.h). */
#define bad msperf_cache_file_bad

/* The array of section id (elements of elem_size) and its count; NULL with error when it is
 * missing, of another element size or past the end of the file. An empty section is a
 * pointer to its (in-file) offset. */
static const void *
section (const reader *r, guint32 id, guint32 elem_size, guint64 *count, GError **error)
{
  msperf_cache_section s;
  const void *p;

  if (!msperf_cache_file_find (&r->c, id, &s))
    {
      bad (error, "section %u is missing", id);
      return NULL;
    }
  if (s.elem_size != elem_size)
    {
      bad (error, "section %u has %u-byte elements, expected %u", id, s.elem_size, elem_size);
      return NULL;
    }
  if ((p = msperf_cache_file_section_data (&r->c, &s, error)) != NULL)
    *count = s.count;
  return p;
}

static gboolean
read_header (reader *r, const guint8 key[32], GError **error)
{
  if (!msperf_cache_file_check_prefix (r->c.data, r->c.size, &kind, key, error))
    return FALSE;
  memcpy (&r->h, r->c.data, sizeof r->h);
  if (!msperf_cache_file_sections_fit (r->c.size, sizeof r->h, r->h.nsections, MAX_SECTIONS))
    return bad (error, "bad section count %u", r->h.nsections);
  if (r->h.n_rows > G_MAXUINT32 || r->h.n_columns > G_MAXUINT32
      || (r->h.n_columns > 0 && r->h.n_rows > G_MAXUINT64 / r->h.n_columns))
    return bad (error, "bad counts (%" G_GUINT64_FORMAT " rows, %" G_GUINT64_FORMAT
                " columns)", r->h.n_rows, r->h.n_columns);
  r->c.nsections = r->h.nsections;
  r->c.table = (const msperf_cache_section *) (const void *) (r->c.data + sizeof r->h);
  return TRUE;
}

/* Splits a section of NUL-terminated strings into out (copies); FALSE when the section does
 * not end with a NUL or holds another number of strings than want (-1: any). */
static gboolean
read_strings (const char *p, guint64 len, gint64 want, GPtrArray *out)
{
  const char *end = p + len;

  if (len > 0 && end[-1] != '\0')
    return FALSE;
  while (p < end)
    {
      size_t n = strlen (p);

      g_ptr_array_add (out, g_strndup (p, n));
      p += n + 1;
    }
  return want < 0 || out->len == (guint64) want;
}

static gboolean
read_text (const reader *r, msperf_table *t, GError **error)
{
  guint64 n_text, n_cells;
  const char *text = section (r, SEC_TEXT, 1, &n_text, error);
  const guint32 *cells;

  if (text == NULL)
    return FALSE;
  if (n_text == 0 || n_text > G_MAXUINT32 || text[0] != '\0' || text[n_text - 1] != '\0')
    return bad (error, "the cell text is not NUL-framed");
  if ((cells = section (r, SEC_CELLS, sizeof (guint32), &n_cells, error)) == NULL)
    return FALSE;
  if (n_cells != r->h.n_rows * r->h.n_columns)
    return bad (error, "%" G_GUINT64_FORMAT " cells for %" G_GUINT64_FORMAT " rows of %"
                G_GUINT64_FORMAT " columns", n_cells, r->h.n_rows, r->h.n_columns);
  for (guint64 k = 0; k < n_cells; k++)
    if (cells[k] >= n_text)
      return bad (error, "cell %" G_GUINT64_FORMAT " points past the text", k);
  g_string_truncate (t->text, 0);
  g_string_append_len (t->text, text, (gssize) n_text);
  g_array_set_size (t->cells, (guint) n_cells);
  if (n_cells > 0)
    memcpy (t->cells->data, cells, n_cells * sizeof (guint32));
  return TRUE;
}

static gboolean
read_slots (const reader *r, msperf_table *t, GError **error)
{
  guint64 n_slots;
  const file_slot *slots = section (r, SEC_SLOTS, sizeof (file_slot), &n_slots, error);

  if (slots == NULL)
    return FALSE;
  if (n_slots > G_MAXUINT32)
    return bad (error, "%" G_GUINT64_FORMAT " slots", n_slots);
  g_array_set_size (t->slots, (guint) n_slots);
  for (guint64 k = 0; k < n_slots; k++)
    {
      msperf_tensor *d = &g_array_index (t->slots, msperf_tensor, k);

      if (slots[k].rank < 0 || slots[k].rank > MSPERF_MAX_RANK || slots[k].dtype < 0
          || slots[k].dtype >= MSPERF_DTYPE_N_TYPES || slots[k].format < MSPERF_FORMAT_ND
          || slots[k].format > MSPERF_FORMAT_OTHER)
        return bad (error, "slot %" G_GUINT64_FORMAT " has a bad rank, dtype or format", k);
      memset (d, 0, sizeof *d);
      d->rank = slots[k].rank;
      memcpy (d->dims, slots[k].dims, sizeof d->dims);
      d->dtype = (msperf_dtype) slots[k].dtype;
      d->format = (msperf_format) slots[k].format;
    }
  return TRUE;
}

static gboolean
slot_ref_ok (guint32 offset, guint32 n, guint n_slots)
{
  return n == 0 || ((guint64) offset + n <= n_slots);
}

static gboolean
read_rows (const reader *r, msperf_table *t, GError **error)
{
  guint64 n_rows;
  const file_row *rows = section (r, SEC_ROWS, sizeof (file_row), &n_rows, error);
  msperf_tensor *base;

  if (rows == NULL)
    return FALSE;
  if (n_rows != r->h.n_rows)
    return bad (error, "%" G_GUINT64_FORMAT " rows, the header says %" G_GUINT64_FORMAT,
                n_rows, r->h.n_rows);
  base = (msperf_tensor *) (void *) t->slots->data;
  g_array_set_size (t->rows, (guint) n_rows);
  for (guint64 k = 0; k < n_rows; k++)
    {
      const file_row *f = &rows[k];
      table_row *row = &g_array_index (t->rows, table_row, k);

      if (f->latency_column < 0 || f->latency_column > MSPERF_LATENCY_NONE
          || !slot_ref_ok (f->in_offset, f->in_n, t->slots->len)
          || !slot_ref_ok (f->out_offset, f->out_n, t->slots->len))
        return bad (error, "row %" G_GUINT64_FORMAT " has a bad latency column or slot list", k);
      memset (row, 0, sizeof *row);
      row->line = f->line;
      row->latency_column = (msperf_latency_column) f->latency_column;
      row->latency = f->latency;
      row->inputs.n = f->in_n;
      row->inputs.t = f->in_n ? base + f->in_offset : NULL;
      row->outputs.n = f->out_n;
      row->outputs.t = f->out_n ? base + f->out_offset : NULL;
    }
  return TRUE;
}

static gboolean
read_tables (const reader *r, msperf_table *t, GError **error)
{
  guint64 n;
  const char *p;

  if ((p = section (r, SEC_COLUMNS, 1, &n, error)) == NULL)
    return FALSE;
  if (!read_strings (p, n, (gint64) r->h.n_columns, t->columns))
    return bad (error, "the column names do not match the header's %" G_GUINT64_FORMAT,
                r->h.n_columns);
  if ((p = section (r, SEC_PROBLEMS, 1, &n, error)) == NULL)
    return FALSE;
  if (!read_strings (p, n, -1, t->problems))
    return bad (error, "the problems section is not NUL-terminated");
  if ((p = section (r, SEC_HASH, 1, &n, error)) == NULL)
    return FALSE;
  if (n != 65 || p[64] != '\0' || strlen (p) != 64)
    return bad (error, "the table hash is not 64 characters");
  t->hash = g_strdup (p);
  return read_text (r, t, error) && read_slots (r, t, error) && read_rows (r, t, error);
}

msperf_table *
msperf_table_cache_load (const char *file, const char *key, const char *path,
                         const char *kernel_type, GError **error)
{
  g_autoptr (GMappedFile) map = NULL;
  g_autoptr (msperf_table) t = NULL;
  reader r = { 0 };
  guint8 k[32];

  g_return_val_if_fail (file != NULL && path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!msperf_cache_file_key_of_hex (key, k))
    {
      bad (error, "the key is not 64 hex digits");
      return NULL;
    }
  map = msperf_cache_file_map (file, &r.c.data, &r.c.size, error);
  if (map == NULL)
    return NULL;
  if (!read_header (&r, k, error))
    return NULL;
  t = msperf_table_new_empty (path, kernel_type);
  t->n_skipped = r.h.n_skipped;
  t->first_skipped_line = r.h.first_skipped_line;
  t->have_header = TRUE;
  if (!read_tables (&r, t, error))
    return NULL;
  msperf_table_index_columns (t);
  msperf_table_build_index (t);
  return g_steal_pointer (&t);
}
