/* msperf — RFC 4180 record reader (libcsv) that knows the line each record starts on. */
/* (Not named csv.h: -I core would then hide libcsv's <csv.h>.) */
#ifndef MSPERF_CORE_CSV_READER_H
#define MSPERF_CORE_CSV_READER_H

#include <stddef.h>
#include <glib.h>

G_BEGIN_DECLS

/* Called once per record, the header included. fields[0..n_fields-1] are NUL-terminated and
 * valid only during the call; line is the 1-based line the record starts on. Return FALSE
 * (with error set) to stop reading; the error is then passed through unchanged. */
typedef gboolean (*msperf_csv_record_func) (guint line, const char *const *fields,
                                            size_t n_fields, gpointer user_data,
                                            GError **error);

/* Reads data[0..len) (a leading UTF-8 BOM is skipped; LF, CRLF and CR line ends; blank lines
 * ignored). name stands for the file in messages. Errors (MSPERF_ERROR_PARSE,
 * "NAME:LINE: problem"): NUL or other control bytes (binary content), a quote inside an unquoted
 * field or after a closing quote, a quoted field still open at the end of the data. */
gboolean msperf_csv_read (const char *data, size_t len, const char *name,
                          msperf_csv_record_func func, gpointer user_data, GError **error);

G_END_DECLS

#endif /* MSPERF_CORE_CSV_READER_H */
