/* msperf — one kernel CSV of a profiling database (reference §1.3–§1.5), parsed once at load:
 * cells, per-row latency by the column priority, and the decoded tensor slots (quirk Q1 fixed).
 * The parse is stored in the table cache (table_cache.c): a change to what it produces needs
 * a new MSPERF_TABLE_CACHE_FORMAT. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/shape.h>
#include <msperf/table.h>
#include "io/csv_reader.h"
#include "base/readfile.h"
#include "io/gzip_data.h"
#include "io/table_private.h"
#include "io/table_cache.h"

/* Reference §1.3 _LATENCY_COLS, in priority order (index = msperf_latency_column). */
static const char *const latency_names[] = {
  "Average Duration(us)",
  "Profiling Average Duration(us)",
  "Duration(us)",
};

enum { SLOT_INPUT = 0, SLOT_OUTPUT = 1 };
enum { SLOT_SHAPES = 0, SLOT_DTYPES = 1, SLOT_FORMATS = 2 };

static const char *const slot_names[2][3] = {
  { "Input Shapes", "Input Data Types", "Input Formats" },
  { "Output Shapes", "Output Data Types", "Output Formats" },
};

/* Cell text quoted in messages is cut to this many bytes (FORMATS.md §1). */
#define MAX_QUOTED_CELL 80

/* One row of the exact-key index: the keys of its first two input slots (key1 is 0 when the
 * row has one slot; a real key is never 0 for the lookups that use it: their dims are > 0),
 * and the smallest and largest dim of those slots' ND shapes (msperf_slot_bounds: the
 * padding path filters on them without reading the row). */
typedef struct {
  uint64_t key;
  uint64_t key1;
  size_t row;
  guint32 min_dim[2];
  guint32 max_dim[2];
} numel_entry;

static void
add_problem (msperf_table *table, guint line, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
add_problem (msperf_table *table, guint line, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (table->problems, g_strdup_printf ("%s:%u: %s", table->path, line, message));
}

/* Cell text for a message: at most MAX_QUOTED_CELL bytes, cut on a character boundary. */
static char *
quote_cell (const char *text)
{
  size_t len = strlen (text);

  if (len <= MAX_QUOTED_CELL)
    return g_strdup (text);
  len = MAX_QUOTED_CELL;
  while (len > 0 && ((guchar) text[len] & 0xC0) == 0x80)
    len--;
  return g_strdup_printf ("%.*s...", (int) len, text);
}

static gboolean
is_latency_name (const char *name)
{
  for (size_t k = 0; k < G_N_ELEMENTS (latency_names); k++)
    if (strcmp (name, latency_names[k]) == 0)
      return TRUE;
  return FALSE;
}

G_STATIC_ASSERT (G_N_ELEMENTS (latency_names) == MSPERF_TABLE_N_LATENCY_COLUMNS);

void
msperf_table_index_columns (msperf_table *table)
{
  for (guint k = 0; k < table->columns->len; k++)
    {
      const char *name = g_ptr_array_index (table->columns, k);

      if (!g_hash_table_contains (table->column_index, name))
        g_hash_table_insert (table->column_index, g_strdup (name), GINT_TO_POINTER ((int) k + 1));
    }
  for (size_t k = 0; k < G_N_ELEMENTS (latency_names); k++)
    table->latency_cols[k] = msperf_table_column (table, latency_names[k]);
  for (int dir = 0; dir < 2; dir++)
    for (int k = 0; k < 3; k++)
      table->slot_cols[dir][k] = msperf_table_column (table, slot_names[dir][k]);
}

static gboolean
header_record (msperf_table *table, guint line, const char *const *fields, size_t n_fields,
               GError **error)
{
  gboolean any_latency = FALSE;

  for (size_t k = 0; k < n_fields; k++)
    if (!g_utf8_validate (fields[k], -1, NULL))
      {
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                     "%s:%u: header is not valid UTF-8 (column %zu)", table->path, line, k + 1);
        return FALSE;
      }
  for (size_t k = 0; k < n_fields; k++)
    {
      gpointer first = g_hash_table_lookup (table->column_index, fields[k]);

      /* Two latency columns of one name: which one is meant cannot be guessed. */
      if (first && is_latency_name (fields[k]))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "%s:%u: duplicate latency column '%s' (columns %d and %zu)", table->path,
                       line, fields[k], GPOINTER_TO_INT (first), k + 1);
          return FALSE;
        }
      g_ptr_array_add (table->columns, g_strdup (fields[k]));
      if (!g_hash_table_contains (table->column_index, fields[k]))
        g_hash_table_insert (table->column_index, g_strdup (fields[k]),
                             GINT_TO_POINTER ((int) k + 1));
    }
  msperf_table_index_columns (table);
  for (size_t k = 0; k < G_N_ELEMENTS (latency_names); k++)
    any_latency |= table->latency_cols[k] >= 0;
  if (!any_latency)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s:%u: no latency column (expected one of %s, %s, %s)", table->path, line,
                   latency_names[0], latency_names[1], latency_names[2]);
      return FALSE;
    }
  table->last_cells = g_new0 (guint32, n_fields ? n_fields : 1);
  table->have_header = TRUE;
  return TRUE;
}

/* A latency cell counts when the whole trimmed cell is a finite number > 0. */
static gboolean
parse_latency (const char *cell, double *out)
{
  char *end;
  double v;

  while (g_ascii_isspace (*cell))
    cell++;
  /* g_ascii_strtod reads C99 hex floats; Python's float(), which upstream uses, does not. */
  if (*cell == '\0' || strpbrk (cell, "xX") != NULL)
    return FALSE;
  v = g_ascii_strtod (cell, &end);
  if (end == cell)
    return FALSE;
  while (g_ascii_isspace (*end))
    end++;
  if (*end != '\0' || !isfinite (v) || v <= 0.0)
    return FALSE;
  *out = v;
  return TRUE;
}

/* Raw profiler exports wrap list cells in literal quotes ("""128,4;...""" in the file); the
 * runtime strips surrounding '"' characters. Returns a trimmed copy. */
static char *
unquote_list (const char *cell)
{
  const char *start = cell;
  const char *end = cell + strlen (cell);

  while (start < end && (g_ascii_isspace (*start) || *start == '"'))
    start++;
  while (end > start && (g_ascii_isspace (end[-1]) || end[-1] == '"'))
    end--;
  return g_strndup (start, (size_t) (end - start));
}

static char **
split_list (const char *const *fields, int col)
{
  g_autofree char *text = NULL;

  if (col < 0)
    return g_new0 (char *, 1);
  text = unquote_list (fields[col]);
  return g_strsplit (text, ";", -1);
}

/* Decodes one direction's slots (quirk Q1 fix): the shape, dtype and format lists are aligned by
 * position first, then each slot whose shape is empty is dropped with its dtype and format. On a
 * bad shape cell the row problem is recorded and the direction gets no slots. */
static gboolean
decode_slots (msperf_table *table, guint line, const char *const *fields, int dir,
              size_t *offset, size_t *n)
{
  const int *cols = table->slot_cols[dir];
  g_auto (GStrv) shapes = NULL;
  g_auto (GStrv) dtypes = NULL;
  g_auto (GStrv) formats = NULL;
  guint n_dtypes, n_formats;

  *offset = table->slots->len;
  *n = 0;
  if (cols[SLOT_SHAPES] < 0)
    return TRUE;
  shapes = split_list (fields, cols[SLOT_SHAPES]);
  dtypes = split_list (fields, cols[SLOT_DTYPES]);
  formats = split_list (fields, cols[SLOT_FORMATS]);
  n_dtypes = g_strv_length (dtypes);
  n_formats = g_strv_length (formats);

  for (guint i = 0; shapes[i] != NULL; i++)
    {
      msperf_tensor t = { 0 };
      g_autoptr (GError) local = NULL;

      g_strstrip (shapes[i]);
      if (shapes[i][0] == '\0')
        continue;
      if (!msperf_shape_parse_dims (shapes[i], &t, &local))
        {
          g_autofree char *quoted = quote_cell (fields[cols[SLOT_SHAPES]]);

          add_problem (table, line, "%s \"%s\": %s", slot_names[dir][SLOT_SHAPES], quoted,
                       local->message);
          g_array_set_size (table->slots, (guint) *offset);
          return FALSE;
        }
      t.dtype = i < n_dtypes ? msperf_dtype_from_string (g_strstrip (dtypes[i]))
                             : MSPERF_DTYPE_UNKNOWN;
      /* A missing format entry counts as ND (reference §1.3). */
      t.format = i < n_formats ? msperf_format_from_string (g_strstrip (formats[i]))
                               : MSPERF_FORMAT_ND;
      g_array_append_val (table->slots, t);
    }
  *n = table->slots->len - *offset;
  return TRUE;
}

static guint
slot_list_hash (const msperf_tensor *t, size_t n)
{
  guint h = 2166136261u;

  /* FNV-1a over the fields msperf_tensor equality looks at (CSV slots never carry values). */
  for (size_t i = 0; i < n; i++)
    {
      h = (h ^ (guint) t[i].rank) * 16777619u;
      for (int k = 0; k < t[i].rank; k++)
        h = (h ^ (guint) (t[i].dims[k] ^ (t[i].dims[k] >> 32))) * 16777619u;
      h = (h ^ (guint) t[i].dtype) * 16777619u;
      h = (h ^ (guint) t[i].format) * 16777619u;
    }
  /* Word-wise FNV leaves the low bits (the bucket) blind to high bits, and dims are often
   * multiples of 64: finish with murmur3's avalanche. */
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

static gboolean
slot_lists_equal (const msperf_tensor *a, const msperf_tensor *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      if (a[i].rank != b[i].rank || a[i].dtype != b[i].dtype || a[i].format != b[i].format)
        return FALSE;
      for (int k = 0; k < a[i].rank; k++)
        if (a[i].dims[k] != b[i].dims[k])
          return FALSE;
    }
  return TRUE;
}

static void
dedup_insert (slot_dedup *d, const msperf_tensor *base, slot_key key)
{
  gsize mask = d->size - 1;
  gsize i = slot_list_hash (base + key.offset, key.n) & mask;

  while (d->buckets[i].n != 0)
    i = (i + 1) & mask;
  d->buckets[i] = key;
  d->used++;
}

/* The list just decoded at *offset (n slots): when an equal list was seen before, drops the
 * copy and points *offset at the earlier one. */
static void
dedup_slots (msperf_table *table, size_t *offset, size_t n)
{
  slot_dedup *d = &table->dedup;
  const msperf_tensor *base = (const msperf_tensor *) (const void *) table->slots->data;
  gsize i, mask;

  if (n == 0 || *offset + n > G_MAXUINT32)
    return;
  if (2 * (d->used + 1) > d->size)
    {
      slot_dedup grown = { NULL, d->size ? 2 * d->size : 1024, 0 };

      grown.buckets = g_new0 (slot_key, grown.size);
      for (gsize k = 0; k < d->size; k++)
        if (d->buckets[k].n != 0)
          dedup_insert (&grown, base, d->buckets[k]);
      g_free (d->buckets);
      *d = grown;
    }
  mask = d->size - 1;
  for (i = slot_list_hash (base + *offset, n) & mask; d->buckets[i].n != 0; i = (i + 1) & mask)
    if (d->buckets[i].n == n && slot_lists_equal (base + d->buckets[i].offset, base + *offset, n))
      {
        g_array_set_size (table->slots, (guint) *offset);
        *offset = d->buckets[i].offset;
        return;
      }
  d->buckets[i] = (slot_key){ (guint32) *offset, (guint32) n };
  d->used++;
}

/* Appends a cell: the previous row's cell of the column when equal (op state, core, dtypes and
 * formats repeat row after row), else a copy in text. Offsets are 32-bit (half of a pointer). */
static gboolean
add_cell (msperf_table *table, guint line, size_t col, const char *field, GError **error)
{
  guint32 offset = table->last_cells[col];
  size_t len;

  if (strcmp (table->text->str + offset, field) != 0)
    {
      len = strlen (field);
      if (len == 0)
        offset = 0;
      else if (table->text->len + len + 1 > G_MAXUINT32)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "%s:%u: table too large (more than 4 GiB of cell text)", table->path,
                       line);
          return FALSE;
        }
      else
        {
          offset = (guint32) table->text->len;
          g_string_append_len (table->text, field, (gssize) len + 1);
        }
      table->last_cells[col] = offset;
    }
  g_array_append_val (table->cells, offset);
  return TRUE;
}

static gboolean
data_record (msperf_table *table, guint line, const char *const *fields, size_t n_fields,
             GError **error)
{
  table_row row = { 0 };
  size_t n_columns = table->columns->len;
  size_t in_offset, out_offset;
  gboolean shapes_ok;

  if (n_fields != n_columns)
    {
      add_problem (table, line, "row has %zu fields, header has %zu", n_fields, n_columns);
      return TRUE;
    }
  for (size_t k = 0; k < n_fields; k++)
    if (!g_utf8_validate (fields[k], -1, NULL))
      {
        add_problem (table, line, "row is not valid UTF-8 (column \"%s\")",
                     (const char *) g_ptr_array_index (table->columns, k));
        return TRUE;
      }

  row.line = line;
  row.latency_column = MSPERF_LATENCY_NONE;
  /* A file's preferred column is the first present one; a blank or bad cell falls through to
   * the next present column in priority order. */
  for (size_t k = 0; k < G_N_ELEMENTS (latency_names); k++)
    if (table->latency_cols[k] >= 0
        && parse_latency (fields[table->latency_cols[k]], &row.latency))
      {
        row.latency_column = (msperf_latency_column) k;
        break;
      }

  shapes_ok = decode_slots (table, line, fields, SLOT_INPUT, &in_offset, &row.inputs.n);
  dedup_slots (table, &in_offset, row.inputs.n);
  shapes_ok &= decode_slots (table, line, fields, SLOT_OUTPUT, &out_offset, &row.outputs.n);
  dedup_slots (table, &out_offset, row.outputs.n);
  row.inputs.t = GSIZE_TO_POINTER (in_offset);
  row.outputs.t = GSIZE_TO_POINTER (out_offset);
  if (!shapes_ok)
    row.latency_column = MSPERF_LATENCY_NONE;
  if (row.latency_column == MSPERF_LATENCY_NONE)
    {
      row.latency = 0.0;
      if (table->n_skipped++ == 0)
        table->first_skipped_line = line;
    }

  for (size_t k = 0; k < n_fields; k++)
    if (!add_cell (table, line, k, fields[k], error))
      return FALSE;
  g_array_append_val (table->rows, row);
  return TRUE;
}

static gboolean
on_record (guint line, const char *const *fields, size_t n_fields, gpointer user_data,
           GError **error)
{
  msperf_table *table = user_data;

  if (!table->have_header)
    return header_record (table, line, fields, n_fields, error);
  return data_record (table, line, fields, n_fields, error);
}

char *
msperf_table_stem (const char *name)
{
  g_autofree char *base = g_path_get_basename (name);

  if (g_str_has_suffix (base, ".gz"))
    base[strlen (base) - strlen (".gz")] = '\0';
  if (g_str_has_suffix (base, ".csv"))
    base[strlen (base) - strlen (".csv")] = '\0';
  return g_steal_pointer (&base);
}

uint64_t
msperf_tensor_numel_key (const msperf_tensor *t)
{
  uint64_t n = 1;

  g_return_val_if_fail (t != NULL, 0);
  for (int k = 0; k < t->rank; k++)
    {
      /* Magnitudes, so that the key does not depend on the order of the dims. */
      uint64_t d = t->dims[k] < 0 ? 0 - (uint64_t) t->dims[k] : (uint64_t) t->dims[k];

      if (d == 0)
        return 0;
      n = n > UINT64_MAX / d ? UINT64_MAX : n * d;
    }
  return n;
}

/* A dim as the index stores it: saturated to 0..G_MAXUINT32 (monotone, so bounds clamped the
 * same way keep every row they held). */
static guint32
clamp_dim (int64_t d)
{
  return d <= 0 ? 0 : d >= G_MAXUINT32 ? G_MAXUINT32 : (guint32) d;
}

/* Smallest and largest dim of the slot's ND shape (FRACTAL_NZ restored); [0, G_MAXUINT32] for
 * no slot, a scalar or an NZ shape that does not restore: no bound can exclude it. */
static void
slot_dim_range (const msperf_tensor *slot, guint32 *min_dim, guint32 *max_dim)
{
  msperf_tensor nd;

  *min_dim = 0;
  *max_dim = G_MAXUINT32;
  if (slot == NULL || slot->rank == 0)
    return;
  if (slot->format == MSPERF_FORMAT_FRACTAL_NZ)
    {
      if (!msperf_shape_nz_to_nd (slot, &nd))
        return;
    }
  else
    nd = *slot;
  *min_dim = G_MAXUINT32;
  *max_dim = 0;
  for (int k = 0; k < nd.rank; k++)
    {
      *min_dim = MIN (*min_dim, clamp_dim (nd.dims[k]));
      *max_dim = MAX (*max_dim, clamp_dim (nd.dims[k]));
    }
}

static int
cmp_numel_entry (const void *a, const void *b)
{
  const numel_entry *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->key1 != y->key1)
    return x->key1 < y->key1 ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

/* Sorting by (key, row) makes a key's rows one ascending run: the exact lookup of the compute
 * module reads a run instead of scanning every row (doc/performance.md). */
void
msperf_table_build_index (msperf_table *table)
{
  table->numel_index = g_array_sized_new (FALSE, FALSE, sizeof (numel_entry), table->rows->len);
  for (guint r = 0; r < table->rows->len; r++)
    {
      const table_row *row = &g_array_index (table->rows, table_row, r);
      numel_entry e;

      if (row->latency_column == MSPERF_LATENCY_NONE || row->inputs.n == 0)
        continue;
      e.key = msperf_tensor_numel_key (&row->inputs.t[0]);
      e.key1 = row->inputs.n > 1 ? msperf_tensor_numel_key (&row->inputs.t[1]) : 0;
      e.row = r;
      for (guint i = 0; i < 2; i++)
        slot_dim_range (i < row->inputs.n ? &row->inputs.t[i] : NULL, &e.min_dim[i],
                        &e.max_dim[i]);
      g_array_append_val (table->numel_index, e);
    }
  if (table->numel_index->len > 1) /* qsort (NULL, 0, …) is undefined behaviour */
    qsort (table->numel_index->data, table->numel_index->len, sizeof (numel_entry),
           cmp_numel_entry);
}

/* First index at or after 'from' whose (key, key1) is >= (key, key1): entries before 'from' are
 * known to be smaller. */
static guint
numel_lower_bound_from (const GArray *index, guint from, uint64_t key, uint64_t key1)
{
  guint lo = from, hi = index->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const numel_entry *e = &g_array_index (index, numel_entry, mid);

      if (e->key < key || (e->key == key && e->key1 < key1))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* First index of the sorted entries whose (key, key1) is >= (key, key1). */
static guint
numel_lower_bound2 (const GArray *index, uint64_t key, uint64_t key1)
{
  return numel_lower_bound_from (index, 0, key, key1);
}

/* First index of the sorted entries whose key is >= key. */
static guint
numel_lower_bound (const GArray *index, uint64_t key)
{
  return numel_lower_bound2 (index, key, 0);
}

static int
cmp_size (const void *a, const void *b)
{
  size_t x = *(const size_t *) a, y = *(const size_t *) b;

  return x < y ? -1 : x > y;
}

/* Appends the rows of index entries first..end-1 (first < end) to rows, in index order; the
 * address of the first appended. */
static size_t *
append_index_rows (const msperf_table *table, guint first, guint end, GArray *rows)
{
  const numel_entry *entries = (const numel_entry *) (const void *) table->numel_index->data;
  guint start = rows->len;
  size_t *out;

  g_array_set_size (rows, start + (end - first));
  out = &g_array_index (rows, size_t, start);
  for (guint k = first; k < end; k++)
    out[k - first] = entries[k].row;
  return out;
}

size_t
msperf_table_rows_by_input_numel (const msperf_table *table, uint64_t lo, uint64_t hi,
                                  GArray *rows)
{
  const numel_entry *entries;
  guint first, end;
  size_t *out;

  g_return_val_if_fail (table != NULL && rows != NULL, 0);
  g_return_val_if_fail (g_array_get_element_size (rows) == sizeof (size_t), 0);
  if (lo > hi)
    return 0;
  first = numel_lower_bound (table->numel_index, lo);
  end = hi == UINT64_MAX ? table->numel_index->len : numel_lower_bound (table->numel_index, hi + 1);
  if (end <= first)
    return 0;
  out = append_index_rows (table, first, end, rows);
  entries = (const numel_entry *) (const void *) table->numel_index->data;
  /* One (key, key1) run is already in row order; anything wider is not. */
  if (entries[first].key != entries[end - 1].key || entries[first].key1 != entries[end - 1].key1)
    qsort (out, end - first, sizeof (size_t), cmp_size);
  return end - first;
}

size_t
msperf_table_rows_by_input_numels (const msperf_table *table, uint64_t key0, uint64_t key1,
                                   GArray *rows)
{
  guint first, end;

  g_return_val_if_fail (table != NULL && rows != NULL, 0);
  g_return_val_if_fail (g_array_get_element_size (rows) == sizeof (size_t), 0);
  first = numel_lower_bound2 (table->numel_index, key0, key1);
  end = key1 == UINT64_MAX ? numel_lower_bound (table->numel_index, key0 + 1)
    : numel_lower_bound2 (table->numel_index, key0, key1 + 1);
  if (key0 == UINT64_MAX && key1 == UINT64_MAX)
    end = table->numel_index->len;
  if (end <= first)
    return 0;
  append_index_rows (table, first, end, rows);
  return end - first;
}

void
msperf_slot_bounds_init (msperf_slot_bounds *b)
{
  g_return_if_fail (b != NULL);
  b->numel_lo = 0;
  b->numel_hi = UINT64_MAX;
  b->max_dim_lo = 0;
  b->max_dim_hi = INT64_MAX;
  b->min_dim_hi = INT64_MAX;
}

static gboolean
entry_in_dims (const numel_entry *e, guint i, const msperf_slot_bounds *b)
{
  return e->max_dim[i] >= clamp_dim (b->max_dim_lo) && e->max_dim[i] <= clamp_dim (b->max_dim_hi)
         && e->min_dim[i] <= clamp_dim (b->min_dim_hi);
}

/* Per key of the first range, the entries whose second key is in the second range: two
 * binary searches per distinct first key, a test of the dim bounds per entry of those runs
 * (the index itself, no row read), and no sort. */
size_t
msperf_table_rows_by_input_bounds (const msperf_table *table, const msperf_slot_bounds *b0,
                                   const msperf_slot_bounds *b1, GArray *rows)
{
  msperf_slot_bounds any;
  const GArray *index;
  const numel_entry *entries;
  size_t before;
  guint k;

  g_return_val_if_fail (table != NULL && b0 != NULL && rows != NULL, 0);
  g_return_val_if_fail (g_array_get_element_size (rows) == sizeof (size_t), 0);
  if (b1 == NULL)
    {
      msperf_slot_bounds_init (&any);
      b1 = &any;
    }
  index = table->numel_index;
  entries = (const numel_entry *) (const void *) index->data;
  before = rows->len;
  if (b0->numel_lo > b0->numel_hi || b1->numel_lo > b1->numel_hi)
    return 0;
  k = numel_lower_bound_from (index, 0, b0->numel_lo, b1->numel_lo);
  while (k < index->len && entries[k].key <= b0->numel_hi)
    {
      uint64_t key = entries[k].key;

      if (entries[k].key1 < b1->numel_lo)
        k = numel_lower_bound_from (index, k, key, b1->numel_lo);
      for (; k < index->len && entries[k].key == key && entries[k].key1 <= b1->numel_hi; k++)
        if (entry_in_dims (&entries[k], 0, b0) && entry_in_dims (&entries[k], 1, b1))
          g_array_append_val (rows, entries[k].row);
      if (key == UINT64_MAX)
        break;
      /* Past the rest of this key's run (second keys above the range) to the next key. */
      k = numel_lower_bound_from (index, k, key + 1, b1->numel_lo);
    }
  return rows->len - before;
}

typedef struct {
  int col;
  msperf_table_cell_parser parse;
  double *values;
  guint32 *order;     /* the rows of non-NaN values by (value, row); NULL until asked */
  size_t n_order;
} column_memo;

static void
column_memo_free (gpointer p)
{
  column_memo *m = p;

  g_free (m->values);
  g_free (m->order);
  g_free (m);
}

msperf_table *
msperf_table_new_empty (const char *path, const char *kernel_type)
{
  msperf_table *table = g_new0 (msperf_table, 1);

  table->path = g_strdup (path);
  table->kernel_type = kernel_type != NULL ? g_strdup (kernel_type) : msperf_table_stem (path);
  table->columns = g_ptr_array_new_with_free_func (g_free);
  table->column_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  table->text = g_string_sized_new (4096);
  g_string_append_len (table->text, "", 1);
  table->cells = g_array_new (FALSE, FALSE, sizeof (guint32));
  table->rows = g_array_new (FALSE, FALSE, sizeof (table_row));
  table->slots = g_array_new (FALSE, FALSE, sizeof (msperf_tensor));
  table->problems = g_ptr_array_new_with_free_func (g_free);
  pthread_mutex_init (&table->memo_lock, NULL);
  table->memos = g_ptr_array_new_with_free_func (column_memo_free);
  return table;
}

/* The memo of (col, parse), made when missing; the caller holds memo_lock. */
static column_memo *
memo_of (msperf_table *t, int col, msperf_table_cell_parser parse)
{
  column_memo *m = NULL;

  for (guint k = 0; k < t->memos->len && m == NULL; k++)
    {
      column_memo *c = g_ptr_array_index (t->memos, k);

      if (c->col == col && c->parse == parse)
        m = c;
    }
  if (m == NULL)
    {
      size_t n_rows = t->rows->len;

      m = g_new0 (column_memo, 1);
      m->col = col;
      m->parse = parse;
      m->values = g_new (double, n_rows ? n_rows : 1);
      for (size_t r = 0; r < n_rows; r++)
        m->values[r] = parse (msperf_table_cell (t, r, col));
      g_ptr_array_add (t->memos, m);
    }
  return m;
}

const double *
msperf_table_column_parsed (const msperf_table *table, int col, msperf_table_cell_parser parse)
{
  /* The memo is a cache of a pure function of the (immutable) cells: logically const. */
  msperf_table *t = (msperf_table *) table;
  const double *values;

  g_return_val_if_fail (table != NULL && parse != NULL, NULL);
  if (col < 0 || (guint) col >= table->columns->len)
    return NULL;
  pthread_mutex_lock (&t->memo_lock);
  values = memo_of (t, col, parse)->values;
  pthread_mutex_unlock (&t->memo_lock);
  return values;
}

/* qsort_r is not C11: the values travel in the sort keys. */
typedef struct {
  double v;
  guint32 row;
} value_row;

static int
cmp_value_row (const void *a, const void *b)
{
  const value_row *x = a, *y = b;

  if (x->v != y->v)
    return x->v < y->v ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

static void
memo_sort (column_memo *m, size_t n_rows)
{
  value_row *vr = g_new (value_row, n_rows ? n_rows : 1);
  size_t n = 0;

  for (size_t r = 0; r < n_rows; r++)
    if (!isnan (m->values[r]))
      vr[n++] = (value_row){ m->values[r], (guint32) r };
  if (n > 1)
    qsort (vr, n, sizeof *vr, cmp_value_row);
  m->order = g_new (guint32, n ? n : 1);
  for (size_t k = 0; k < n; k++)
    m->order[k] = vr[k].row;
  m->n_order = n;
  g_free (vr);
}

/* First index of order whose value is >= v (NaN-free values, ascending). */
static size_t
order_lower_bound (const column_memo *m, double v)
{
  size_t lo = 0, hi = m->n_order;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;

      if (m->values[m->order[mid]] < v)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

size_t
msperf_table_rows_in_range (const msperf_table *table, int col, msperf_table_cell_parser parse,
                            double lo, double hi, GArray *rows)
{
  msperf_table *t = (msperf_table *) table;
  column_memo *m;
  size_t first, start;

  g_return_val_if_fail (table != NULL && parse != NULL && rows != NULL, 0);
  g_return_val_if_fail (g_array_get_element_size (rows) == sizeof (size_t), 0);
  if (col < 0 || (guint) col >= table->columns->len || !(lo <= hi))
    return 0;
  pthread_mutex_lock (&t->memo_lock);
  m = memo_of (t, col, parse);
  if (m->order == NULL)
    memo_sort (m, t->rows->len);
  pthread_mutex_unlock (&t->memo_lock);
  /* The order, once made, is never changed: read without the lock. */
  start = rows->len;
  for (first = order_lower_bound (m, lo); first < m->n_order; first++)
    {
      size_t r = m->order[first];

      if (m->values[r] > hi)
        break;
      g_array_append_val (rows, r);
    }
  if (rows->len - start > 1)
    qsort (&g_array_index (rows, size_t, start), rows->len - start, sizeof (size_t), cmp_size);
  return rows->len - start;
}

/* Parses the CSV; the exact-key index is built by the caller (after it freed the file bytes,
 * which keeps them out of the peak memory of a load). */
static msperf_table *
parse_table (const char *data, size_t len, const char *name, const char *kernel_type,
             GError **error)
{
  g_autoptr (msperf_table) table = NULL;

  table = msperf_table_new_empty (name, kernel_type);
  table->hash = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) (data ? data : ""),
                                             len);
  if (!msperf_csv_read (data ? data : "", len, name, on_record, table, error))
    return NULL;
  g_clear_pointer (&table->last_cells, g_free);
  g_clear_pointer (&table->dedup.buckets, g_free);
  if (!table->have_header)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                   "%s:1: empty file (no header row)", name);
      return NULL;
    }

  for (guint r = 0; r < table->rows->len; r++)
    {
      table_row *row = &g_array_index (table->rows, table_row, r);
      msperf_tensor *base = (msperf_tensor *) (void *) table->slots->data;

      row->inputs.t = row->inputs.n > 0 ? base + GPOINTER_TO_SIZE (row->inputs.t) : NULL;
      row->outputs.t = row->outputs.n > 0 ? base + GPOINTER_TO_SIZE (row->outputs.t) : NULL;
    }
  return g_steal_pointer (&table);
}

msperf_table *
msperf_table_load_data (const char *data, size_t len, const char *name,
                        const char *kernel_type, GError **error)
{
  msperf_table *table;

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  table = parse_table (data, len, name, kernel_type, error);
  if (table != NULL)
    msperf_table_build_index (table);
  return table;
}

/* A kernel table is tens of megabytes at most; a gzip file inflating past this is refused
 * rather than allowed to exhaust memory. */
#define MAX_INFLATED_BYTES ((size_t) 1 << 31)

msperf_table *
msperf_table_load (const char *path, const char *kernel_type, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  return msperf_table_load_cached (path, kernel_type, NULL, error);
}

/* An image that cannot be written is no error: the answers are the same without it. Said
 * once per process. */
static void
store_cached (const char *cache_dir, const char *file, const char *key,
              const msperf_table *table)
{
  static gint warned;
  g_autoptr (GError) error = NULL;

  if (g_mkdir_with_parents (cache_dir, 0700) != 0)
    g_set_error (&error, G_FILE_ERROR, g_file_error_from_errno (errno), "cannot create %s: %s",
                 cache_dir, g_strerror (errno));
  else if (msperf_table_cache_write (file, table, key, &error))
    {
      g_debug ("table cache: wrote %s (%s)", file, table->path);
      return;
    }
  if (g_atomic_int_compare_and_exchange (&warned, 0, 1))
    g_warning ("table cache: %s; going on without writing it", error->message);
  else
    g_debug ("table cache: %s", error->message);
}

msperf_table *
msperf_table_load_cached (const char *path, const char *kernel_type, const char *cache_dir,
                          GError **error)
{
  g_autofree char *contents = NULL;
  g_autofree char *key = NULL, *file = NULL;
  msperf_table *table;
  g_autoptr (GError) local = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!msperf_file_get_regular_contents (path, &contents, &len, &local))
    {
      gboolean missing = g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT);

      g_set_error (error, MSPERF_ERROR_DOMAIN,
                   missing ? MSPERF_ERROR_NOT_FOUND : MSPERF_ERROR_IO, "%s: cannot read: %s",
                   path, local->message);
      return NULL;
    }
  /* A clone without `git lfs pull` has the pointer, not the table: say so rather than a
   * confusing header error or, worse, an analytic answer for every op of the kernel. */
  if (g_str_has_prefix (contents, "version https://git-lfs"))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO,
                   "%s: is a Git LFS pointer file, not the table (run 'git lfs pull')", path);
      return NULL;
    }
  if (cache_dir != NULL)
    {
      gint64 t0 = g_get_monotonic_time ();

      /* Keyed by the bytes as read: a warm start neither inflates nor parses. */
      key = msperf_table_cache_key (path, kernel_type, contents, len);
      file = msperf_table_cache_file (cache_dir, key);
      table = msperf_table_cache_load (file, key, path, kernel_type, &local);
      if (table != NULL)
        {
          g_debug ("table cache: loaded %s (%s, %zu rows) in %.1f ms", file, path,
                   msperf_table_n_rows (table), (double) (g_get_monotonic_time () - t0) / 1e3);
          return table;
        }
      /* No file (or no directory) is the cold start, not a problem. */
      if (!g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT)
          && !g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOTDIR))
        g_warning ("table cache: ignoring %s: %s; rebuilding it", file, local->message);
      g_clear_error (&local);
    }
  /* KERNEL.csv.gz: inflated here, so the table (and its hash) is that of the plain CSV. */
  if (msperf_gzip_is_compressed (contents, len))
    {
      size_t plain_len = 0;
      char *plain = msperf_gzip_inflate (contents, len, path, MAX_INFLATED_BYTES, &plain_len,
                                         error);

      g_clear_pointer (&contents, g_free);
      if (plain == NULL)
        return NULL;
      contents = plain;
      len = plain_len;
    }
  table = parse_table (contents, len, path, kernel_type, error);
  g_clear_pointer (&contents, g_free);
  if (table == NULL)
    return NULL;
  msperf_table_build_index (table);
  if (file != NULL)
    store_cached (cache_dir, file, key, table);
  return table;
}

void
msperf_table_free (msperf_table *table)
{
  if (table == NULL)
    return;
  g_free (table->kernel_type);
  g_free (table->path);
  g_free (table->hash);
  g_clear_pointer (&table->columns, g_ptr_array_unref);
  g_clear_pointer (&table->column_index, g_hash_table_unref);
  if (table->text != NULL)
    g_string_free (table->text, TRUE);
  g_free (table->last_cells);
  g_free (table->dedup.buckets);
  g_clear_pointer (&table->cells, g_array_unref);
  g_clear_pointer (&table->rows, g_array_unref);
  g_clear_pointer (&table->slots, g_array_unref); /* CSV slots never own 'values' */
  g_clear_pointer (&table->problems, g_ptr_array_unref);
  g_clear_pointer (&table->numel_index, g_array_unref);
  g_clear_pointer (&table->memos, g_ptr_array_unref);
  pthread_mutex_destroy (&table->memo_lock);
  g_free (table);
}

const char *
msperf_table_kernel_type (const msperf_table *table)
{
  g_return_val_if_fail (table != NULL, NULL);
  return table->kernel_type;
}

const char *
msperf_table_path (const msperf_table *table)
{
  g_return_val_if_fail (table != NULL, NULL);
  return table->path;
}

const char *
msperf_table_hash (const msperf_table *table)
{
  g_return_val_if_fail (table != NULL, NULL);
  return table->hash;
}

size_t
msperf_table_n_rows (const msperf_table *table)
{
  g_return_val_if_fail (table != NULL, 0);
  return table->rows->len;
}

guint
msperf_table_first_skipped_line (const msperf_table *table)
{
  g_return_val_if_fail (table != NULL, 0);
  return table->first_skipped_line;
}

size_t
msperf_table_n_skipped (const msperf_table *table)
{
  g_return_val_if_fail (table != NULL, 0);
  return table->n_skipped;
}

size_t
msperf_table_n_columns (const msperf_table *table)
{
  g_return_val_if_fail (table != NULL, 0);
  return table->columns->len;
}

const char *
msperf_table_column_name (const msperf_table *table, size_t col)
{
  g_return_val_if_fail (table != NULL, NULL);
  g_return_val_if_fail (col < table->columns->len, NULL);
  return g_ptr_array_index (table->columns, col);
}

int
msperf_table_column (const msperf_table *table, const char *name)
{
  g_return_val_if_fail (table != NULL, -1);
  g_return_val_if_fail (name != NULL, -1);
  return GPOINTER_TO_INT (g_hash_table_lookup (table->column_index, name)) - 1;
}

const char *
msperf_table_cell (const msperf_table *table, size_t row, int col)
{
  g_return_val_if_fail (table != NULL, "");
  g_return_val_if_fail (row < table->rows->len, "");
  /* Kept rows always have every column; a -1 from msperf_table_column reads as blank. */
  if (col < 0 || (guint) col >= table->columns->len)
    return "";
  return table->text->str
         + g_array_index (table->cells, guint32, row * table->columns->len + (size_t) col);
}

const char *
msperf_table_cell_by_name (const msperf_table *table, size_t row, const char *name)
{
  int col;

  g_return_val_if_fail (table != NULL, NULL);
  g_return_val_if_fail (row < table->rows->len, NULL);
  col = msperf_table_column (table, name);
  return col < 0 ? NULL : msperf_table_cell (table, row, col);
}

static const table_row *
get_row (const msperf_table *table, size_t row)
{
  return &g_array_index (table->rows, table_row, row);
}

guint
msperf_table_row_line (const msperf_table *table, size_t row)
{
  g_return_val_if_fail (table != NULL, 0);
  g_return_val_if_fail (row < table->rows->len, 0);
  return get_row (table, row)->line;
}

double
msperf_table_row_latency (const msperf_table *table, size_t row)
{
  g_return_val_if_fail (table != NULL, 0.0);
  g_return_val_if_fail (row < table->rows->len, 0.0);
  return get_row (table, row)->latency;
}

msperf_latency_column
msperf_table_row_latency_column (const msperf_table *table, size_t row)
{
  g_return_val_if_fail (table != NULL, MSPERF_LATENCY_NONE);
  g_return_val_if_fail (row < table->rows->len, MSPERF_LATENCY_NONE);
  return get_row (table, row)->latency_column;
}

gboolean
msperf_table_row_valid (const msperf_table *table, size_t row)
{
  return msperf_table_row_latency_column (table, row) != MSPERF_LATENCY_NONE;
}

const msperf_slots *
msperf_table_row_inputs (const msperf_table *table, size_t row)
{
  g_return_val_if_fail (table != NULL, NULL);
  g_return_val_if_fail (row < table->rows->len, NULL);
  return &get_row (table, row)->inputs;
}

gboolean
msperf_table_row_inputs_nd (const msperf_table *table, size_t row, int64_t limit,
                            msperf_tensor *out, size_t max, size_t *n)
{
  const msperf_slots *slots;
  size_t count;

  g_return_val_if_fail (table != NULL && out != NULL, FALSE);
  g_return_val_if_fail (row < table->rows->len, FALSE);
  slots = &get_row (table, row)->inputs;
  if (slots->n == 0)
    return FALSE;
  count = limit >= 0 && (size_t) limit < slots->n ? (size_t) limit : slots->n;
  if (count > max)
    return FALSE;
  for (size_t i = 0; i < count; i++)
    {
      const msperf_tensor *s = &slots->t[i];

      if (s->dtype == MSPERF_DTYPE_UNKNOWN)
        return FALSE;
      if (s->format == MSPERF_FORMAT_FRACTAL_NZ)
        {
          if (!msperf_shape_nz_to_nd (s, &out[i]))
            return FALSE;
        }
      else
        out[i] = *s;
      out[i].values = NULL;
      out[i].n_values = 0;
    }
  if (n)
    *n = count;
  return TRUE;
}

const msperf_slots *
msperf_table_row_outputs (const msperf_table *table, size_t row)
{
  g_return_val_if_fail (table != NULL, NULL);
  g_return_val_if_fail (row < table->rows->len, NULL);
  return &get_row (table, row)->outputs;
}

gboolean
msperf_table_has_shapes (const msperf_table *table)
{
  g_return_val_if_fail (table != NULL, FALSE);
  return table->slot_cols[SLOT_INPUT][SLOT_SHAPES] >= 0;
}

const GPtrArray *
msperf_table_problems (const msperf_table *table)
{
  g_return_val_if_fail (table != NULL, NULL);
  return table->problems;
}

gboolean
msperf_table_has_latency_column (const msperf_table *table)
{
  g_return_val_if_fail (table != NULL, FALSE);
  for (size_t k = 0; k < G_N_ELEMENTS (latency_names); k++)
    if (table->latency_cols[k] >= 0)
      return TRUE;
  return FALSE;
}
