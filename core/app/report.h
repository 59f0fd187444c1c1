/* msperf (internal) — the records of one run and every output written from them. */
#ifndef MSPERF_CORE_REPORT_H
#define MSPERF_CORE_REPORT_H

#include <stdio.h>
#include <msperf/op.h>
#include <msperf/result.h>
#include <msperf/database.h>

typedef struct msperf_digest msperf_digest; /* app/digest.h */

/* One input item and its answer. */
typedef struct msperf_record {
  size_t index;
  guint line;
  char *op_name;             /* owned; the rejected line's name when known, else "" */
  int64_t count;             /* invocations (1 for rejected lines) */
  msperf_op *op;             /* owned; NULL when rejected */
  char *error;               /* owned rejection message; NULL otherwise */
  msperf_result *result;     /* owned final answer; source REJECTED when rejected */
  double analytic_us;        /* roofline estimate per call (NAN when unknown) */
  char *signature;           /* owned msperf_op_signature, NULL when rejected */
  msperf_digest *digest;     /* owned; set by msperf_record_digest, which drops op, result
                              * and signature (a streamed run's record, app/digest.h) */
} msperf_record;

typedef struct msperf_run {
  GPtrArray *records;        /* msperf_record*, input order */
  char *database;            /* path of the profiling database, or NULL (analytic only) */
  char *policy_hash;
  char *device_profile;      /* name of the device profile used by the roofline */
  gboolean use_profiling;    /* --performance-model includes profiling */
  gboolean use_analytic;     /* --performance-model includes analytic */
  gboolean dump_input_shapes;
  /* The headline and the warnings. */
  char *trace;               /* the trace as named in messages ("<stdin>", "--op") or NULL */
  char *database_version;    /* op_mapping.yaml `version:`, or NULL */
  char *database_device;     /* op_mapping.yaml `device:`, or NULL */
  GPtrArray *warnings;       /* char*, once each, in the order found */
  gboolean list_all;         /* the interpolation listing shows every op, not the top N */
  gboolean chrome_aggregate; /* Chrome trace: one event per distinct op and its count */
  gboolean report_all;       /* set while a report is written: listings are complete */
  /* Bounded memory: input lines folded into the record of the same op
   * (its count) because only the per-distinct-op aggregates were still needed. */
  size_t folded_lines;
  /* A streamed run (msperf_run_set_folding): one digest per distinct op in first-occurrence
   * order instead of records (records stays empty), and the fold index (signature → digest,
   * none owned). NULL otherwise. */
  GPtrArray *digests;
  GHashTable *fold;
} msperf_run;

msperf_run *msperf_run_new (void);
void msperf_run_free (msperf_run *run);
/* Takes ownership of record. */
void msperf_run_add (msperf_run *run, msperf_record *record);
msperf_record *msperf_record_new (void);
/* Adds a warning once (a repeated text is dropped) and prints it on stderr as
 * "msperf: warning: TEXT". */
void msperf_run_warn (msperf_run *run, const char *text);
/* Warnings about the run's inputs a user can act on: op names the mapping does not know
 * (closest known name suggested), mapped kernels whose CSV is missing, unusable or a Git LFS
 * pointer, CSV rows skipped as invalid. db may be NULL (analytic only). */
void msperf_run_check_inputs (msperf_run *run, msperf_database *db);
/* Warns (stderr and the run's warnings) when some op was left without a latency. */
void msperf_run_check_latencies (msperf_run *run);
void msperf_record_free (msperf_record *record);

/* The top-level input shapes of an op, "[2048, 4096] [4096, 4096]"; "" without an op (the
 * table, the headline and the HTML report print the same text). Transfer full. */
char *msperf_report_input_shapes_text (const msperf_op *op);

/* Per-op outputs (stdout). */
void msperf_report_table (const msperf_run *run, FILE *out);
void msperf_report_jsonl_record (const msperf_record *record, FILE *out);
/* Appends record's JSONL object (no newline) to s: the same bytes as formatting
 * msperf_report_record_value compactly, without building the tree. */
void msperf_report_jsonl_write (GString *s, const msperf_record *record);
void msperf_report_json (const msperf_run *run, FILE *out);
void msperf_report_csv (const msperf_run *run, FILE *out);
/* The CSV header line and one record's row (CRLF-terminated), appended to s: what
 * msperf_report_csv writes, for outputs streamed record by record. */
void msperf_report_csv_header (GString *s);
void msperf_report_csv_write (GString *s, const msperf_record *record);
/* The headline: trace, database with its version and device, device profile,
 * policy hash, total in ms, the share of each source, the largest contributors with their
 * shapes. Printed before the table, on stderr for other formats, first in every report. */
char *msperf_report_headline_text (const msperf_run *run);
void msperf_report_headline (const msperf_run *run, FILE *out);
/* Summary: total time, time and op count by source, M1–M5 (table format: on stdout after the
 * table; other formats: on stderr). */
void msperf_report_summary (const msperf_run *run, FILE *out);

/* File outputs. */
gboolean msperf_report_metrics_file (const msperf_run *run, const char *path, GError **error);
gboolean msperf_report_chrome_trace (const msperf_run *run, const char *path, GError **error);
/* Markdown, JSON or single-file HTML with inline SVG charts, by the extension of path. */
gboolean msperf_report_document (const msperf_run *run, const char *path, GError **error);
/* TRUE when path ends in a suffix msperf_report_document knows (checked before a run). */
gboolean msperf_report_document_suffix_ok (const char *path);

/* Shared by the report_*.c files. */
/* details.axes {M: 6055, K: 3840} → "M=6055,K=3840"; "-" when absent. Transfer full. */
char *msperf_report_axes_text (const msperf_result *res);
/* The same text of a details.axes value (nullable). */
char *msperf_report_axes_text_of (const msperf_value *axes);
/* The text msperf_report_summary prints. Transfer full. */
char *msperf_report_summary_text (const msperf_run *run);
/* The FORMATS §5.1 object of one record, keys in the documented order. Transfer full. */
msperf_value *msperf_report_record_value (const msperf_record *record);
/* The --format json document {schema_version, database, …, ops, summary, metrics}. */
msperf_value *msperf_report_run_value (const msperf_run *run);
/* report_doc.c's building blocks, shared with the holdout report (core/holdout.c): a
 * Markdown table cell, HTML escaping, the stylesheet, a horizontal bar chart in inline SVG. */
void msperf_doc_md_cell (GString *s, const char *text);
void msperf_doc_html_escape (GString *s, const char *text);
const char *msperf_doc_html_css (void);
void msperf_doc_svg_hbars (GString *s, const char *title, guint n, const char *const *labels,
                           const double *values, const char *const *colors, const char *unit);
/* Writes text to path atomically; errors in MSPERF_ERROR_DOMAIN (MSPERF_ERROR_IO). */
gboolean msperf_report_write_file (const char *path, const char *text, gssize len,
                                   GError **error);

#endif
