/* msperf (app) — the importer's internal interfaces: the output database being built in memory
 * and the per-family row converters. */
#ifndef MSPERF_APP_IMPORT_PRIVATE_H
#define MSPERF_APP_IMPORT_PRIVATE_H

#include <glib.h>
#include "import_aic.h"

/* One output kernel table, built in memory (plain CSV text; compressed when written). */
typedef struct imp_kernel {
  char *name;          /* kernel type = file stem */
  GString *text;       /* header + rows */
  guint64 rows;
} imp_kernel;

/* What happened to the rows of one input table. */
typedef struct imp_input {
  char *path;          /* relative to TABLES_DIR */
  guint64 rows_in;
  guint64 rows_out;
  GPtrArray *out_kernels;   /* char*: kernels it wrote to, first-use order */
  GArray *out_counts;       /* guint64 per out_kernels entry */
  GPtrArray *drop_reasons;  /* char*: why rows were dropped, first-seen order */
  GArray *drop_counts;      /* guint64 per drop_reasons entry */
  GArray *drop_lines;       /* guint per drop_reasons entry: the line of its first row */
  guint line;               /* the line of the row being converted */
} imp_input;

typedef struct imp_db {
  GPtrArray *kernels;       /* imp_kernel*, creation order */
  GHashTable *by_name;      /* name -> imp_kernel* */
  GPtrArray *inputs;        /* imp_input* */
} imp_db;

/* A row of an input table with its header; cells by column name. */
typedef struct imp_row {
  const char *file;
  guint line;
  const char *const *fields;
  size_t n_fields;
  GHashTable *columns;      /* name -> GINT_TO_POINTER (index + 1) */
} imp_row;

const char *imp_cell (const imp_row *row, const char *column);
gboolean imp_cell_int (const imp_row *row, const char *column, gint64 *out);

imp_kernel *imp_db_kernel (imp_db *db, const char *name, const char *header);
void imp_input_wrote (imp_input *in, const char *kernel);
void imp_input_drop (imp_input *in, const char *reason);
/* Appends one CSV cell (quoted when it holds a comma, quote or line end), comma first unless
 * first. */
void imp_csv_cell (GString *out, const char *cell, gboolean first);

/* A converter: turns one input row into zero or more output rows (recording where each went
 * with imp_input_wrote, or why it was dropped with imp_input_drop). FALSE with error only for
 * a problem that stops the import (a missing column). */
typedef gboolean (*imp_convert_func) (imp_db *db, imp_input *in, const imp_row *row,
                                      GError **error);

typedef struct imp_family {
  const char *path;              /* TABLES_DIR-relative input file */
  const char *const *required;   /* NULL-terminated column names */
  imp_convert_func convert;
  const char *what;              /* SOURCE.md: what the rows become */
} imp_family;

/* The families, in the order they are imported (and listed in SOURCE.md). */
const imp_family *imp_families (size_t *n);

/* The op_mapping.yaml the importer writes (elementwise: whether Add/Mul/Silu were merged). */
char *imp_op_mapping_yaml (gboolean elementwise);

#endif
