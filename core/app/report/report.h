/* msperf (internal) — every output written from the records of a run (app/run/run.h). */
#ifndef MSPERF_CORE_REPORT_H
#define MSPERF_CORE_REPORT_H

#include <stdio.h>
#include <msperf/op.h>
#include <msperf/result.h>
#include <msperf/database.h>
#include "app/run/run.h"


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
