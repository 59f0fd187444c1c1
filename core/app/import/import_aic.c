/* msperf (app) — `msperf import aiconfigurator`: reading the upstream tables, building the
 * database in memory and writing it atomically (a temporary directory renamed into place). */
#include <config.h>
#include <errno.h>
#include <string.h>
#include <csv.h>
#include <glib/gstdio.h>
#include <msperf/error.h>
#include "import_private.h"

/* ------------------------------------------------------------ the model */

static void
kernel_free (gpointer p)
{
  imp_kernel *k = p;

  g_free (k->name);
  g_string_free (k->text, TRUE);
  g_free (k);
}

static void
input_free (gpointer p)
{
  imp_input *in = p;

  g_free (in->path);
  g_ptr_array_unref (in->out_kernels);
  g_array_unref (in->out_counts);
  g_ptr_array_unref (in->drop_reasons);
  g_array_unref (in->drop_counts);
  g_array_unref (in->drop_lines);
  g_free (in);
}

static imp_db *
db_new (void)
{
  imp_db *db = g_new0 (imp_db, 1);

  db->kernels = g_ptr_array_new_with_free_func (kernel_free);
  db->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  db->inputs = g_ptr_array_new_with_free_func (input_free);
  return db;
}

static void
db_free (imp_db *db)
{
  if (db == NULL)
    return;
  g_hash_table_unref (db->by_name);
  g_ptr_array_unref (db->kernels);
  g_ptr_array_unref (db->inputs);
  g_free (db);
}

imp_kernel *
imp_db_kernel (imp_db *db, const char *name, const char *header)
{
  imp_kernel *k = g_hash_table_lookup (db->by_name, name);

  if (k != NULL)
    return k;
  k = g_new0 (imp_kernel, 1);
  k->name = g_strdup (name);
  k->text = g_string_sized_new (1 << 16);
  g_string_append (k->text, header);
  g_string_append_c (k->text, '\n');
  g_ptr_array_add (db->kernels, k);
  g_hash_table_insert (db->by_name, k->name, k);
  return k;
}

/* Counts one more under name; its index in names. */
static guint
count_in (GPtrArray *names, GArray *counts, const char *name)
{
  guint64 one = 1;

  for (guint i = 0; i < names->len; i++)
    if (strcmp (g_ptr_array_index (names, i), name) == 0)
      {
        g_array_index (counts, guint64, i)++;
        return i;
      }
  g_ptr_array_add (names, g_strdup (name));
  g_array_append_val (counts, one);
  return names->len - 1;
}

void
imp_input_wrote (imp_input *in, const char *kernel)
{
  in->rows_out++;
  count_in (in->out_kernels, in->out_counts, kernel);
}

void
imp_input_drop (imp_input *in, const char *reason)
{
  if (count_in (in->drop_reasons, in->drop_counts, reason) == in->drop_lines->len)
    g_array_append_val (in->drop_lines, in->line);
}

const char *
imp_cell (const imp_row *row, const char *column)
{
  gint idx = GPOINTER_TO_INT (g_hash_table_lookup (row->columns, column));

  if (idx <= 0 || (size_t) idx > row->n_fields)
    return "";
  return row->fields[idx - 1];
}

gboolean
imp_cell_int (const imp_row *row, const char *column, gint64 *out)
{
  const char *text = imp_cell (row, column);
  char *end = NULL;
  gint64 v;

  if (*text == '\0')
    return FALSE;
  errno = 0;
  v = g_ascii_strtoll (text, &end, 10);
  if (errno != 0 || end == text || *end != '\0')
    return FALSE;
  *out = v;
  return TRUE;
}

/* ---------------------------------------------------------- reading input */

typedef struct reader {
  imp_db *db;
  imp_input *in;
  const imp_family *family;
  const char *name;         /* the file as messages name it */
  GPtrArray *fields;        /* char*, the current record */
  GHashTable *columns;
  GHashTable *seen;         /* the rows read so far (cells joined by \x1f), for duplicates */
  guint record;             /* records seen, the header included */
  guint64 *rows_total;      /* data rows of all tables so far */
  guint64 max_rows;
  GError *error;
} reader;

/* A cell is text: valid UTF-8 without NUL bytes (a NUL would silently cut it short). */
static void
on_field (void *field, size_t len, void *data)
{
  reader *r = data;
  const char *text = field != NULL ? field : "";
  const char *bad = NULL;

  if (r->error == NULL && len > 0)
    {
      if (memchr (text, '\0', len) != NULL)
        g_set_error (&r->error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                     "%s:%u: column %u holds a NUL byte (a binary file, or UTF-16 text?)",
                     r->name, r->record + 1, r->fields->len + 1);
      else if (!g_utf8_validate (text, (gssize) len, &bad))
        g_set_error (&r->error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                     "%s:%u: column %u is not UTF-8 (byte \\x%02X; re-save the table as UTF-8)",
                     r->name, r->record + 1, r->fields->len + 1, (guint) (guchar) *bad);
    }
  g_ptr_array_add (r->fields, g_strndup (text, len));
}

static void
on_header (reader *r)
{
  for (guint c = 0; c < r->fields->len; c++)
    {
      const char *name = g_ptr_array_index (r->fields, c);
      gpointer prev = g_hash_table_lookup (r->columns, name);

      if (prev != NULL)
        {
          g_set_error (&r->error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                       "%s:1: column '%s' twice (columns %d and %u): which one is meant "
                       "cannot be guessed", r->name, name, GPOINTER_TO_INT (prev), c + 1);
          return;
        }
      g_hash_table_insert (r->columns, g_strdup (name), GINT_TO_POINTER ((gint) c + 1));
    }
  for (const char *const *col = r->family->required; *col != NULL; col++)
    if (!g_hash_table_contains (r->columns, *col))
      {
        g_set_error (&r->error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                     "%s:1: no column '%s' (an aiconfigurator table of another layout?)",
                     r->name, *col);
        return;
      }
}

static void
on_record (int terminator, void *data)
{
  reader *r = data;
  imp_row row;
  GString *key;

  (void) terminator;
  r->record++;
  if (r->error != NULL)
    goto out;
  if (r->record == 1)
    {
      on_header (r);
      goto out;
    }
  if (++*r->rows_total > r->max_rows)
    {
      g_set_error (&r->error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                   "%s:%u: more than %" G_GUINT64_FORMAT " data rows in the input tables "
                   "(the bound --max-rows; raise it for a larger import)", r->name, r->record,
                   r->max_rows);
      goto out;
    }
  r->in->rows_in++;
  r->in->line = r->record;
  if (r->fields->len != g_hash_table_size (r->columns))
    {
      imp_input_drop (r->in, "ragged row (cell count differs from the header's)");
      goto out;
    }
  /* an exact repeat of a row measures nothing new and would count twice */
  key = g_string_new (NULL);
  for (guint c = 0; c < r->fields->len; c++)
    {
      g_string_append (key, g_ptr_array_index (r->fields, c));
      g_string_append_c (key, '\x1f');
    }
  if (g_hash_table_contains (r->seen, key->str))
    {
      g_string_free (key, TRUE);
      imp_input_drop (r->in, "duplicate of an earlier row");
      goto out;
    }
  g_hash_table_add (r->seen, g_string_free (key, FALSE));
  row.file = r->name;
  row.line = r->record;
  row.fields = (const char *const *) r->fields->pdata;
  row.n_fields = r->fields->len;
  row.columns = r->columns;
  r->family->convert (r->db, r->in, &row, &r->error);

out:
  g_ptr_array_set_size (r->fields, 0);
}

/* Checks one block of raw bytes before it is parsed: no line longer than the bound. line and
 * line_len carry the position over from the previous block. */
static gboolean
check_lines (const char *name, const char *buf, size_t len, guint *line, size_t *line_len,
             GError **error)
{
  for (size_t i = 0; i < len; i++)
    {
      if (buf[i] == '\n')
        {
          ++*line;
          *line_len = 0;
        }
      else if (++*line_len > MSPERF_IMPORT_MAX_LINE_BYTES)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                       "%s:%u: line longer than %d bytes (no upstream table has such lines; "
                       "a table of another kind?)", name, *line, MSPERF_IMPORT_MAX_LINE_BYTES);
          return FALSE;
        }
    }
  return TRUE;
}

/* Reads one upstream table, block by block (a bound reached stops the reading there). Its
 * records are numbered as lines: upstream tables hold no quoted line breaks, so record N is
 * line N. Every upstream table ends with a line end: a last row without one was cut short
 * (its last cell may read as another number), so it is refused. */
static gboolean
import_table (imp_db *db, const msperf_import_options *opts, guint64 max_rows,
              guint64 *rows_total, const imp_family *family, GError **error)
{
  g_autofree char *path = g_build_filename (opts->tables_dir, family->path, NULL);
  g_autofree char *buf = NULL;
  FILE *fp = NULL;
  struct csv_parser parser;
  gboolean parser_ready = FALSE;
  reader r = { 0 };
  imp_input *in;
  gboolean ok = FALSE;
  guint line = 1;
  size_t line_len = 0, n;
  char last = '\n';
  gboolean first_block = TRUE;

  in = g_new0 (imp_input, 1);
  in->path = g_strdup (family->path);
  in->out_kernels = g_ptr_array_new_with_free_func (g_free);
  in->out_counts = g_array_new (FALSE, FALSE, sizeof (guint64));
  in->drop_reasons = g_ptr_array_new_with_free_func (g_free);
  in->drop_counts = g_array_new (FALSE, FALSE, sizeof (guint64));
  in->drop_lines = g_array_new (FALSE, FALSE, sizeof (guint));
  g_ptr_array_add (db->inputs, in);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *gz = g_strconcat (path, ".gz", NULL);

      /* the upstream tables are plain CSV: a compressed one would be skipped unseen */
      if (g_file_test (gz, G_FILE_TEST_EXISTS))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                       "%s: compressed tables are not read (gunzip it to %s)", gz, family->path);
          return FALSE;
        }
      imp_input_drop (in, "table absent from TABLES_DIR");
      return TRUE;
    }
  fp = fopen (path, "rb");
  if (fp == NULL || g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot read: %s", path,
                   fp == NULL ? g_strerror (errno) : "a directory");
      goto out;
    }
  if (csv_init (&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_FAILED, "%s: csv_init failed", path);
      goto out;
    }
  parser_ready = TRUE;
  csv_set_blk_size (&parser, 1 << 16);
  r.db = db;
  r.in = in;
  r.family = family;
  r.name = path;
  r.fields = g_ptr_array_new_with_free_func (g_free);
  r.columns = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r.seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r.rows_total = rows_total;
  r.max_rows = max_rows;
  buf = g_malloc (1 << 16);
  while ((n = fread (buf, 1, 1 << 16, fp)) > 0)
    {
      const char *p = buf;

      /* a UTF-8 byte order mark (as spreadsheets write) is not part of the first column */
      if (first_block && n >= 3 && memcmp (buf, "\xEF\xBB\xBF", 3) == 0)
        {
          p += 3;
          n -= 3;
        }
      first_block = FALSE;
      if (n == 0)
        continue;
      if (!check_lines (path, p, n, &line, &line_len, error))
        goto out;
      last = p[n - 1];
      if (csv_parse (&parser, p, n, on_field, on_record, &r) != n)
        {
          if (r.error == NULL)
            g_set_error (&r.error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s:%u: %s", path,
                         r.record + 1, csv_strerror (csv_error (&parser)));
          goto out;
        }
      if (r.error != NULL)
        goto out;
    }
  if (ferror (fp))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s:%u: read error: %s", path,
                   line, g_strerror (errno));
      goto out;
    }
  if (last != '\n')
    {
      g_set_error (&r.error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                   "%s:%u: the last row has no line end: the file was cut short (every upstream "
                   "table ends with one)", path, line);
      goto out;
    }
  if (csv_fini (&parser, on_field, on_record, &r) != 0)
    {
      if (r.error == NULL)
        g_set_error (&r.error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                     "%s:%u: unterminated quoted field", path, r.record + 1);
      goto out;
    }
  if (r.error == NULL && r.record == 0)
    g_set_error (&r.error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                 "%s:1: empty file (no header row)", path);
  ok = r.error == NULL;

out:
  if (r.error != NULL)
    g_propagate_error (error, g_steal_pointer (&r.error));
  if (parser_ready)
    csv_free (&parser);
  if (fp != NULL)
    fclose (fp);
  if (r.fields != NULL)
    g_ptr_array_unref (r.fields);
  if (r.columns != NULL)
    g_hash_table_unref (r.columns);
  if (r.seen != NULL)
    g_hash_table_unref (r.seen);
  return ok;
}

/* ----------------------------------------------------------- writing out */

static gboolean
write_bytes (const char *dir, const char *name, const void *data, gsize len, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) local = NULL;

  if (!g_file_set_contents (path, data, (gssize) len, &local))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot write: %s", path,
                   local->message);
      return FALSE;
    }
  return TRUE;
}

static const char *const elementwise_kernels[] = { "Add", "Mul", "Silu", NULL };

static char *
source_md (const imp_db *db, const msperf_import_options *opts, const char *elementwise_source,
           msperf_import_stats *stats)
{
  GString *s = g_string_new (NULL);
  guint64 in_total = 0, out_total = 0, dropped_total = 0;

  g_string_append (s,
    "# Source of this profiling database\n\n"
    "Written by `msperf import aiconfigurator` from NVIDIA aiconfigurator's collected kernel\n"
    "tables (converted 1:1 from the upstream Parquet files to CSV, upstream column names; see\n"
    "the SOURCE.md beside the tables for the upstream commit, the collection setup and the\n"
    "conversion). Latencies: upstream milliseconds, written in microseconds by an exact decimal\n"
    "shift of the source text (no rounding). Which table becomes which kernel, and why, is in\n"
    "msperf's doc/formats.md (§1.3).\n\n"
    "Copyright (c) 2025-2026 NVIDIA CORPORATION & AFFILIATES. Licensed under the Apache\n"
    "License, Version 2.0 (`LICENSE` here is the upstream file, unchanged). The tables here are\n"
    "a modified (re-formatted) version of the upstream ones: only the conversion described in\n"
    "doc/formats.md §1.3 was applied. Keep this note and the licence with any copy.\n\n"
    "## Input tables\n\n"
    "| input | rows in | rows out | kernels (rows) | dropped (reason: rows) |\n"
    "|---|---|---|---|---|\n");
  for (guint i = 0; i < db->inputs->len; i++)
    {
      const imp_input *in = g_ptr_array_index (db->inputs, i);
      guint64 dropped = 0;

      g_string_append_printf (s, "| `%s` | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | ",
                              in->path, in->rows_in, in->rows_out);
      for (guint k = 0; k < in->out_kernels->len; k++)
        g_string_append_printf (s, "%s`%s` (%" G_GUINT64_FORMAT ")", k ? ", " : "",
                                (const char *) g_ptr_array_index (in->out_kernels, k),
                                g_array_index (in->out_counts, guint64, k));
      if (in->out_kernels->len == 0)
        g_string_append (s, "-");
      g_string_append (s, " | ");
      for (guint k = 0; k < in->drop_reasons->len; k++)
        {
          guint64 c = g_array_index (in->drop_counts, guint64, k);

          g_string_append_printf (s, "%s%s: %" G_GUINT64_FORMAT, k ? "; " : "",
                                  (const char *) g_ptr_array_index (in->drop_reasons, k), c);
          if (strcmp (g_ptr_array_index (in->drop_reasons, k), "table absent from TABLES_DIR") != 0)
            dropped += c;
        }
      if (in->drop_reasons->len == 0)
        g_string_append (s, "-");
      g_string_append (s, " |\n");
      in_total += in->rows_in;
      out_total += in->rows_out;
      dropped_total += dropped;
    }
  g_string_append_printf (s, "| total | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | | %"
                          G_GUINT64_FORMAT " |\n\n", in_total, out_total, dropped_total);
  g_string_append (s, "Every input row is either written (rows out) or dropped with its reason; "
                      "rows in = rows out + dropped.\n\n## Kernel tables\n\n"
                      "| kernel | rows | input |\n|---|---|---|\n");
  for (guint k = 0; k < db->kernels->len; k++)
    {
      const imp_kernel *K = g_ptr_array_index (db->kernels, k);
      g_string_append_printf (s, "| `%s.csv.gz` | %" G_GUINT64_FORMAT " | ", K->name, K->rows);
      for (guint i = 0, first = 1; i < db->inputs->len; i++)
        {
          const imp_input *in = g_ptr_array_index (db->inputs, i);
          for (guint j = 0; j < in->out_kernels->len; j++)
            if (strcmp (g_ptr_array_index (in->out_kernels, j), K->name) == 0)
              {
                g_string_append_printf (s, "%s`%s`", first ? "" : ", ", in->path);
                first = 0;
              }
        }
      g_string_append (s, " |\n");
    }
  if (elementwise_source != NULL)
    {
      g_string_append (s, "\n## Merged elementwise tables\n\n"
                          "No aiconfigurator table measures norms, RoPE, activations or\n"
                          "embeddings (aiconfigurator prices them by memory bandwidth). `Add`,\n"
                          "`Mul` and `Silu` are copied unchanged from msperf's sample H200\n"
                          "database (same GPU; measured by the msperf authors, PyTorch 2.11 +\n"
                          "CUDA 13.0, free to use); their provenance:\n\n");
      g_string_append (s, elementwise_source);
      g_string_append_c (s, '\n');
    }
  (void) opts;
  stats->rows_in = in_total;
  stats->rows_out = out_total;
  stats->rows_dropped = dropped_total;
  stats->n_kernels = db->kernels->len;
  return g_string_free (s, FALSE);
}

static char *
find_license (const char *tables_dir)
{
  g_autofree char *parent = g_path_get_dirname (tables_dir);
  char *a = g_build_filename (tables_dir, "LICENSE", NULL);

  if (g_file_test (a, G_FILE_TEST_IS_REGULAR))
    return a;
  g_free (a);
  a = g_build_filename (parent, "LICENSE", NULL);
  if (g_file_test (a, G_FILE_TEST_IS_REGULAR))
    return a;
  g_free (a);
  return NULL;
}

static void
remove_flat_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
}

/* The elementwise tables of another database, copied byte for byte (compressed). */
static gboolean
merge_elementwise (const char *src_dir, const char *tmp, GString *provenance, GError **error)
{
  for (const char *const *k = elementwise_kernels; *k != NULL; k++)
    {
      g_autofree char *file = g_strconcat (*k, ".csv", NULL);
      g_autofree char *gz_name = g_strconcat (*k, ".csv.gz", NULL);
      g_autofree char *path = g_build_filename (src_dir, file, NULL);
      g_autofree char *data = NULL;
      g_autoptr (GBytes) gz = NULL;
      g_autoptr (GError) local = NULL;
      gsize len = 0;
      guint rows = 0;

      if (!g_file_get_contents (path, &data, &len, &local))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot read: %s", path,
                       local->message);
          return FALSE;
        }
      for (gsize i = 0; i < len; i++)
        rows += data[i] == '\n';
      gz = msperf_import_gzip (data, len);
      if (!write_bytes (tmp, gz_name, g_bytes_get_data (gz, NULL), g_bytes_get_size (gz), error))
        return FALSE;
      {
        g_autofree char *sha = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
                                                            (const guchar *) data, len);
        g_string_append_printf (provenance, "- `%s.csv.gz`: %u rows, `%s.csv` of the sample "
                                "database (doc/examples/h200-db), SHA-256 %s\n", *k,
                                rows > 0 ? rows - 1 : 0, *k, sha);
      }
    }
  return TRUE;
}

gboolean
msperf_import_aiconfigurator (const msperf_import_options *opts, msperf_import_stats *stats,
                              GError **error)
{
  imp_db *db = NULL;
  const imp_family *fam;
  size_t n_fam;
  g_autofree char *parent = NULL;
  g_autofree char *base = NULL;
  g_autofree char *tmpl = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *old = NULL;
  g_autofree char *license = NULL;
  g_autofree char *license_text = NULL;
  g_autofree char *source = NULL;
  g_autofree char *mapping = NULL;
  GString *provenance = NULL;
  gsize license_len = 0;
  gboolean ok = FALSE;
  msperf_import_stats local_stats = { 0 };
  guint64 max_rows = opts != NULL && opts->max_rows > 0 ? opts->max_rows : MSPERF_IMPORT_MAX_ROWS;
  guint64 rows_total = 0;

  g_return_val_if_fail (opts != NULL && opts->tables_dir != NULL && opts->out_dir != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (stats == NULL)
    stats = &local_stats;

  if (!g_file_test (opts->tables_dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND,
                   "%s: not a directory (TABLES_DIR holds <family>/<framework>-<version>/*.csv)",
                   opts->tables_dir);
      return FALSE;
    }
  license = find_license (opts->tables_dir);
  if (license == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND,
                   "%s: no upstream LICENSE in it or its parent (the Apache-2.0 licence must "
                   "travel with the data)", opts->tables_dir);
      return FALSE;
    }
  if (!g_file_get_contents (license, &license_text, &license_len, NULL))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot read", license);
      return FALSE;
    }
  if (g_file_test (opts->out_dir, G_FILE_TEST_EXISTS) && !opts->force)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_FAILED,
                   "%s: exists (--force replaces it)", opts->out_dir);
      return FALSE;
    }

  db = db_new ();
  fam = imp_families (&n_fam);
  for (size_t f = 0; f < n_fam; f++)
    if (!import_table (db, opts, max_rows, &rows_total, &fam[f], error))
      goto out;
  if (rows_total == 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND,
                   "%s: no data row in any upstream table (TABLES_DIR holds "
                   "<family>/<framework>-<version>/<table>.csv, e.g. %s)", opts->tables_dir,
                   fam[0].path);
      goto out;
    }
  if (opts->report_drop != NULL)
    for (guint i = 0; i < db->inputs->len; i++)
      {
        const imp_input *in = g_ptr_array_index (db->inputs, i);
        g_autofree char *file = g_build_filename (opts->tables_dir, in->path, NULL);

        for (guint k = 0; k < in->drop_reasons->len; k++)
          if (strcmp (g_ptr_array_index (in->drop_reasons, k), "table absent from TABLES_DIR")
              != 0)
            opts->report_drop (file, g_ptr_array_index (in->drop_reasons, k),
                               g_array_index (in->drop_counts, guint64, k),
                               g_array_index (in->drop_lines, guint, k), opts->user_data);
      }
  for (guint k = 0; k < db->kernels->len; k++)
    {
      imp_kernel *K = g_ptr_array_index (db->kernels, k);
      for (gsize i = 0; i < K->text->len; i++)
        K->rows += K->text->str[i] == '\n';
      K->rows--; /* the header */
    }

  parent = g_path_get_dirname (opts->out_dir);
  base = g_path_get_basename (opts->out_dir);
  tmpl = g_strdup_printf (".%s.tmp-XXXXXX", base);
  {
    /* g_mkdtemp gives NULL on failure, not the template: keep it to free it */
    g_autofree char *t = g_build_filename (parent, tmpl, NULL);
    if (g_mkdtemp (t) != NULL)
      tmp = g_steal_pointer (&t);
  }
  if (tmp == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO,
                   "%s: cannot make a temporary directory: %s", parent, g_strerror (errno));
      goto out;
    }
  g_chmod (tmp, 0755);
  for (guint k = 0; k < db->kernels->len; k++)
    {
      imp_kernel *K = g_ptr_array_index (db->kernels, k);
      g_autoptr (GBytes) gz = msperf_import_gzip (K->text->str, K->text->len);
      g_autofree char *name = g_strconcat (K->name, ".csv.gz", NULL);

      if (!write_bytes (tmp, name, g_bytes_get_data (gz, NULL), g_bytes_get_size (gz), error))
        goto out;
    }
  if (opts->elementwise_dir != NULL)
    {
      provenance = g_string_new (NULL);
      if (!merge_elementwise (opts->elementwise_dir, tmp, provenance, error))
        goto out;
    }
  source = source_md (db, opts, provenance ? provenance->str : NULL, stats);
  mapping = imp_op_mapping_yaml (opts->elementwise_dir != NULL);
  if (!write_bytes (tmp, "SOURCE.md", source, strlen (source), error)
      || !write_bytes (tmp, "op_mapping.yaml", mapping, strlen (mapping), error)
      || !write_bytes (tmp, "LICENSE", license_text, license_len, error))
    goto out;

  if (g_file_test (opts->out_dir, G_FILE_TEST_EXISTS))
    {
      g_autofree char *t = g_build_filename (parent, ".old-XXXXXX", NULL);
      if (g_mkdtemp (t) != NULL)
        old = g_steal_pointer (&t);
      if (old == NULL || g_rename (opts->out_dir, old) != 0)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot move aside: %s",
                       opts->out_dir, g_strerror (errno));
          goto out;
        }
    }
  if (g_rename (tmp, opts->out_dir) != 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot rename into place: %s",
                   opts->out_dir, g_strerror (errno));
      if (old != NULL)
        g_rename (old, opts->out_dir);
      goto out;
    }
  g_clear_pointer (&tmp, g_free);
  if (old != NULL)
    remove_flat_dir (old);
  ok = TRUE;

out:
  if (tmp != NULL)
    remove_flat_dir (tmp);
  if (provenance != NULL)
    g_string_free (provenance, TRUE);
  db_free (db);
  return ok;
}
