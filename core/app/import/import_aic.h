/* msperf (app) — `msperf import aiconfigurator`: a profiling database (op_mapping.yaml, one
 * gzip-compressed KERNEL.csv.gz per kernel, SOURCE.md, the upstream LICENSE) from NVIDIA
 * aiconfigurator's collected kernel tables (converted 1:1 from Parquet to CSV, upstream column
 * names). doc/formats.md §1.3 says which upstream table becomes which kernel and why. */
#ifndef MSPERF_APP_IMPORT_AIC_H
#define MSPERF_APP_IMPORT_AIC_H

#include <stddef.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct msperf_import_options {
  const char *tables_dir;      /* TABLES_DIR: <family>/<framework>-<version>/<table>.csv */
  const char *out_dir;         /* the database directory to create */
  const char *elementwise_dir; /* nullable: a database whose Add/Mul/Silu tables are merged */
  gboolean force;              /* replace an existing out_dir */
  /* nullable: told once per input table and reason of the rows dropped (and counted in
   * SOURCE.md), with the line of the first such row */
  void (*report_drop) (const char *file, const char *reason, guint64 rows, guint first_line,
                       gpointer user_data);
  gpointer user_data;
  guint64 max_rows;            /* bound on the data rows of all tables together; 0: the
                                * default, MSPERF_IMPORT_MAX_ROWS */
} msperf_import_options;

/* The default bound on the rows one import reads (five times the full H200 tables): past it
 * the import is refused, naming the bound (`--max-rows` raises it). */
#define MSPERF_IMPORT_MAX_ROWS G_GUINT64_CONSTANT (2000000)
/* No line of an upstream table comes near this; a longer one is refused at its line. */
#define MSPERF_IMPORT_MAX_LINE_BYTES 16384

typedef struct msperf_import_stats {
  guint64 rows_in;
  guint64 rows_out;
  guint64 rows_dropped;
  guint n_kernels;
} msperf_import_stats;

/* Runs the whole import: every table is read and converted in memory, the database is written
 * into a temporary directory beside out_dir and renamed into place, so a failure never leaves
 * a half-written database. Same input, same output bytes. Errors "FILE:LINE: problem". */
gboolean msperf_import_aiconfigurator (const msperf_import_options *opts,
                                       msperf_import_stats *stats, GError **error);

/* Exposed for tests. */

/* A latency in milliseconds as written (decimal or exponent form, as JavaScript prints it) to
 * microseconds, as an exact decimal shift by three places: no rounding, no binary double in
 * between. NULL when text is not a finite positive decimal number. Transfer full. */
char *msperf_import_ms_to_us (const char *text);

/* gzip (level 9, no file name, mtime 0) of data: the same input gives the same bytes. */
GBytes *msperf_import_gzip (const char *data, size_t len);

G_END_DECLS

#endif
