/* msperf — one kernel CSV of a profiling database, parsed once and shared read-only. */
#ifndef MSPERF_TABLE_H
#define MSPERF_TABLE_H

#include <msperf/api.h>
#include <stdint.h>
#include <glib.h>
#include <msperf/op.h>

G_BEGIN_DECLS

typedef struct msperf_table msperf_table;

/* The latency columns in priority order (reference §1.3). */
typedef enum {
  MSPERF_LATENCY_AVERAGE = 0,           /* "Average Duration(us)" */
  MSPERF_LATENCY_PROFILING_AVERAGE = 1, /* "Profiling Average Duration(us)" */
  MSPERF_LATENCY_DURATION = 2,          /* "Duration(us)" */
  MSPERF_LATENCY_NONE = 3               /* row has no valid latency: never a candidate */
} msperf_latency_column;

/* One CSV row's tensor slots after the Q1 fix: a slot whose shape cell is empty is dropped
 * together with its dtype and format, so shape i, dtype i and format i describe one tensor.
 * Shapes are as written (FRACTAL_NZ tiles kept); use msperf_shape_nz_to_nd to restore. */
typedef struct msperf_slots {
  size_t n;
  msperf_tensor *t; /* n entries, owned by the table */
} msperf_slots;

/* Parses the CSV at path (RFC 4180; triple-quoted raw shape cells accepted). kernel_type
 * names the table in messages. Rows without a valid latency are kept but marked
 * MSPERF_LATENCY_NONE and counted. Errors: "FILE:LINE: problem". Transfer full. */
MSPERF_API msperf_table *msperf_table_load (const char *path, const char *kernel_type, GError **error);
/* Same from memory (tests, fuzzers); 'name' stands for the file in messages. */
MSPERF_API msperf_table *msperf_table_load_data (const char *data, size_t len, const char *name,
                                      const char *kernel_type, GError **error);
MSPERF_API void msperf_table_free (msperf_table *table);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_table, msperf_table_free)

MSPERF_API const char *msperf_table_kernel_type (const msperf_table *table);
MSPERF_API const char *msperf_table_path (const msperf_table *table);
/* SHA-256 (hex) of the file's bytes: part of every cache key built on this table. */
MSPERF_API const char *msperf_table_hash (const msperf_table *table);
MSPERF_API size_t msperf_table_n_rows (const msperf_table *table);
/* Rows skipped for lack of a valid latency (NaN, <= 0, blank, unparsable) or because a shape
 * cell could not be parsed (see msperf_table_problems). */
MSPERF_API size_t msperf_table_n_skipped (const msperf_table *table);
MSPERF_API size_t msperf_table_n_columns (const msperf_table *table);
MSPERF_API const char *msperf_table_column_name (const msperf_table *table, size_t col);
/* Column index by exact header name, or -1. */
MSPERF_API int msperf_table_column (const msperf_table *table, const char *name);
/* Raw cell text ("" when the row is short). Transfer none. */
MSPERF_API const char *msperf_table_cell (const msperf_table *table, size_t row, int col);
/* Cell of a named column, or NULL when the table has no such column. */
MSPERF_API const char *msperf_table_cell_by_name (const msperf_table *table, size_t row, const char *name);
/* A cell's value as a module reads it (one number per cell). */
typedef double (*msperf_table_cell_parser) (const char *cell);
/* parse (cell) of every row of column col, computed once per table, column and parser and
 * kept with the table (safe from several threads): a module that reads one number per row
 * in every scan parses each cell once instead of once per query. NULL when col is not a
 * column. Transfer none (valid while the table is). */
MSPERF_API const double *msperf_table_column_parsed (const msperf_table *table, int col,
                                                     msperf_table_cell_parser parse);
/* Appends to rows (size_t) the rows whose parse (cell) of column col is in [lo, hi] (NaN never
 * is), in ascending row order; the memo of msperf_table_column_parsed, sorted once per table,
 * column and parser, so a query reads a window instead of every row. Returns how many. */
MSPERF_API size_t msperf_table_rows_in_range (const msperf_table *table, int col,
                                              msperf_table_cell_parser parse, double lo,
                                              double hi, GArray *rows);
/* 1-based line in the file where the row starts. */
MSPERF_API guint msperf_table_row_line (const msperf_table *table, size_t row);

/* The row latency by the column priority (a blank preferred cell falls through to the next). */
MSPERF_API double msperf_table_row_latency (const msperf_table *table, size_t row);
MSPERF_API msperf_latency_column msperf_table_row_latency_column (const msperf_table *table, size_t row);
/* TRUE when the table has any of the latency columns (the one list, msperf_latency_column). */
MSPERF_API gboolean msperf_table_has_latency_column (const msperf_table *table);
MSPERF_API gboolean msperf_table_row_valid (const msperf_table *table, size_t row);

/* Decoded slots of "Input …" and "Output …" columns. Transfer none. */
MSPERF_API const msperf_slots *msperf_table_row_inputs (const msperf_table *table, size_t row);
MSPERF_API const msperf_slots *msperf_table_row_outputs (const msperf_table *table, size_t row);
/* The row's first inputs as interpolation coordinates see them: at most limit (negative: all)
 * and at most max, FRACTAL_NZ shapes restored to ND, values dropped, into out. FALSE (out
 * undefined) when the row has no inputs, more than max after the limit, an unknown dtype or an
 * NZ shape that does not restore. *n (nullable) receives the count. */
MSPERF_API gboolean msperf_table_row_inputs_nd (const msperf_table *table, size_t row, int64_t limit,
                                               msperf_tensor *out, size_t max, size_t *n);
/* TRUE when the table has Input Shapes (compute/attention schema). */
MSPERF_API gboolean msperf_table_has_shapes (const msperf_table *table);
/* Row problems found while loading ("FILE:LINE: problem", char*): ragged rows (skipped, not in
 * n_rows), rows with invalid UTF-8 (skipped), unparsable shape cells (row kept, not valid).
 * For `msperf validate` and stats. Transfer none. */
MSPERF_API const GPtrArray *msperf_table_problems (const msperf_table *table);

/* The exact-key index (built at load): the element count of a tensor as the index keys it —
 * the product of the dims' magnitudes saturated at UINT64_MAX, 0 when a dim is 0, 1 for a
 * scalar. The input rewrites that keep an element count (batch strip, transposes, flatten,
 * merge, FRACTAL_NZ restore) keep this key, so a row matching without padding has the key of
 * the query's input; block padding only shrinks the row's key. */
MSPERF_API uint64_t msperf_tensor_numel_key (const msperf_tensor *t);
/* Appends to rows (GArray of size_t) the valid rows whose first input slot has a key in
 * [lo, hi], in ascending row order; returns how many. Rows without input slots are never
 * returned. */
MSPERF_API size_t msperf_table_rows_by_input_numel (const msperf_table *table, uint64_t lo, uint64_t hi,
                                         GArray *rows);
/* Appends the valid rows with at least two input slots whose first two slots have the keys
 * key0 and key1 (key1 > 0: 0 also stands for "no second slot"), in ascending row order;
 * returns how many (binary searches, no filtering). */
MSPERF_API size_t msperf_table_rows_by_input_numels (const msperf_table *table, uint64_t key0,
                                          uint64_t key1, GArray *rows);

/* What a row's input slot may be for the ranges form of the index (the exact-miss
 * path): its msperf_tensor_numel_key in [numel_lo, numel_hi], the largest dim of its ND shape
 * (FRACTAL_NZ restored) in [max_dim_lo, max_dim_hi], the smallest at most min_dim_hi. A slot
 * that is absent, a scalar or an NZ shape that does not restore passes every dim bound; a
 * row with one slot has key 0 for the second. msperf_slot_bounds_init: no bound at all. */
typedef struct msperf_slot_bounds {
  uint64_t numel_lo, numel_hi;
  int64_t max_dim_lo, max_dim_hi;
  int64_t min_dim_hi;
} msperf_slot_bounds;

MSPERF_API void msperf_slot_bounds_init (msperf_slot_bounds *b);
/* Appends the valid rows with input slots whose first slot is within b0 and second within b1
 * (NULL: any second slot or none; numel_lo >= 1 asks for a second slot), in the index's order —
 * by (key, key1, row), NOT by row: nothing is sorted per call (the consumer must not depend on
 * the order; msperf_selector_offer does not). Two binary searches per distinct first key in
 * range, the dim bounds tested on the index entries; returns how many rows were appended. */
MSPERF_API size_t msperf_table_rows_by_input_bounds (const msperf_table *table,
                                                    const msperf_slot_bounds *b0,
                                                    const msperf_slot_bounds *b1, GArray *rows);

/* Line of the first row counted by msperf_table_n_skipped, 0 when none (the
 * warning names it). */
MSPERF_API guint msperf_table_first_skipped_line (const msperf_table *table);

G_END_DECLS

#endif /* MSPERF_TABLE_H */
