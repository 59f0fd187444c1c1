/* msperf (internal) — the layout of a loaded kernel table, shared by the CSV reader
 * (table.c) and the on-disk table cache (table_cache.c), which writes and restores it. */
#ifndef MSPERF_IO_TABLE_PRIVATE_H
#define MSPERF_IO_TABLE_PRIVATE_H

#include <pthread.h>
#include <glib.h>
#include <msperf/table.h>

G_BEGIN_DECLS

/* The number of latency columns (reference §1.3 _LATENCY_COLS). */
#define MSPERF_TABLE_N_LATENCY_COLUMNS 3

typedef struct {
  guint line;
  msperf_latency_column latency_column;
  double latency;
  /* While loading, inputs.t and outputs.t hold offsets into table->slots (which may still
   * move), not pointers; they become pointers once the array is final. */
  msperf_slots inputs;
  msperf_slots outputs;
} table_row;

/* Open-addressing set of the distinct slot lists (offset, count) seen while loading: rows with
 * equal lists share one copy. 96-byte tensors were half the memory of a large table
 * (doc/performance.md). */
typedef struct {
  guint32 offset;
  guint32 n;       /* 0 = empty bucket (empty lists are never stored) */
} slot_key;

typedef struct {
  slot_key *buckets;
  gsize size;      /* power of two, or 0 */
  gsize used;
} slot_dedup;

struct msperf_table {
  char *kernel_type;
  char *path;
  char *hash;
  GPtrArray *columns;        /* char*: header names in file order */
  GHashTable *column_index;  /* name -> GINT_TO_POINTER (index + 1); first occurrence wins */
  GString *text;             /* every cell's text, NUL-terminated, "" at offset 0 */
  GArray *cells;             /* guint32 offsets into text, n_rows × n_columns */
  guint32 *last_cells;       /* while loading: each column's previous cell (offset) */
  slot_dedup dedup;          /* while loading: the distinct slot lists */
  GArray *rows;              /* table_row */
  GArray *slots;             /* msperf_tensor, every row's slots in one array */
  GPtrArray *problems;       /* char* */
  GArray *numel_index;       /* numel_entry of the valid rows with inputs, by (key, row) */
  size_t n_skipped;
  guint first_skipped_line;  /* 0 when no row was skipped */
  int latency_cols[MSPERF_TABLE_N_LATENCY_COLUMNS];
  int slot_cols[2][3];
  gboolean have_header;
  pthread_mutex_t memo_lock; /* guards memos; not GMutex, a bare futex ThreadSanitizer
                                cannot see */
  GPtrArray *memos;          /* column_memo* (msperf_table_column_parsed), owned */
};

/* A table with its containers made and nothing in them: path, kernel type (NULL: the stem
 * of path), no columns, the text holding only "" at offset 0. */
msperf_table *msperf_table_new_empty (const char *path, const char *kernel_type);

/* Builds the exact-key index of the valid rows (numel_index); the rows' slot pointers must be
 * final. */
void msperf_table_build_index (msperf_table *table);

/* Sets the per-column lookups of a table whose columns are set: column_index (first
 * occurrence wins), latency_cols and slot_cols. */
void msperf_table_index_columns (msperf_table *table);

/* The kernel type of a table file: its name without directory, ".gz" and ".csv". Transfer
 * full. */
char *msperf_table_stem (const char *name);

G_END_DECLS

#endif /* MSPERF_IO_TABLE_PRIVATE_H */
