/* msperf — the one number and string formatter every output goes through, so a
 * value prints the same way in the table, JSON, CSV, the metrics file and the Chrome trace. */
#ifndef MSPERF_FORMAT_H
#define MSPERF_FORMAT_H

#include <stdint.h>
#include <glib.h>
#include <msperf/api.h>
#include <msperf/op.h>

G_BEGIN_DECLS

/* Python repr(float): shortest round-trip digits, scientific notation when the decimal
 * exponent is < -4 or >= 16 ("1e-05", "1e+16"), ".0" on integral values ("2.0"),
 * "inf", "-inf", "nan". */
MSPERF_API void msperf_fmt_py_float (GString *out, double value);
/* JSON number as Python's json module writes a float (same text as msperf_fmt_py_float);
 * NaN and infinities become null (msperf writes strict JSON). */
MSPERF_API void msperf_fmt_json_double (GString *out, double value);
/* An integer in decimal, as printf's %lld writes it (without printf: g_string_append_printf
 * allocates a buffer per call, and the JSONL writer prints a dozen integers a record). */
MSPERF_API void msperf_fmt_int (GString *out, int64_t value);
/* Fixed decimals for tables ("%.3f"); "-" for NaN. */
MSPERF_API void msperf_fmt_fixed (GString *out, double value, int decimals);
/* Python round() to an integer: ties to even (Chrome trace ts/dur, reference Q13).
 * Non-finite values give 0; values beyond int64 saturate. */
MSPERF_API int64_t msperf_round_half_even (double value);

/* JSON string literal with quotes, escaped as json.dumps(ensure_ascii=False) does. */
MSPERF_API void msperf_fmt_json_string (GString *out, const char *s);
/* s with control characters (ESC sequences, newlines, C1 controls) and invalid UTF-8 bytes
 * written as \xNN: safe to print on a terminal and valid UTF-8 in every output (module names,
 * non-UTF-8 file names). NULL gives "". Transfer full. */
MSPERF_API char *msperf_fmt_printable (const char *s);
/* One CSV field (RFC 4180): as it is, or quoted with its quotes doubled when it holds a
 * comma, a quote, CR or LF, or begins or ends with a space. NULL gives "". */
MSPERF_API void msperf_fmt_csv_field (GString *out, const char *text);
/* text as one POSIX shell word: as it is when every byte is one a shell leaves alone
 * (letters, digits, _./:=@%+,-), else single-quoted (g_shell_quote). */
MSPERF_API void msperf_fmt_shell_word (GString *out, const char *text);
/* Python repr(str): single quotes unless the text holds ' and no ". */
MSPERF_API void msperf_fmt_py_string (GString *out, const char *s);

/* msperf_value as JSON. indent < 0: one line with Python's default ", " and ": "
 * separators; indent >= 0: json.dumps(indent=N) layout starting at nesting level. */
MSPERF_API void msperf_fmt_json_value (GString *out, const msperf_value *value, int indent, int level);
/* str(value) as Python prints it: a top-level string is bare, nested strings are quoted,
 * True/False/None, lists "[1, 2]", maps "{'k': v}", tensors as shape lists. */
MSPERF_API void msperf_fmt_py_str (GString *out, const msperf_value *value);
/* repr(value): like msperf_fmt_py_str but strings quoted at the top level too. */
MSPERF_API void msperf_fmt_py_repr (GString *out, const msperf_value *value);
/* "[136, 5120]": Python list repr of the dims of t. */
MSPERF_API void msperf_fmt_py_shape (GString *out, const msperf_tensor *t);

/* Levenshtein distance of two strings (bytes). */
MSPERF_API guint msperf_edit_distance (const char *a, const char *b);
/* The first of candidates (NULL-terminated) nearest to word within max_edits edits, or NULL:
 * the "did you mean" of every warning. Transfer none. */
MSPERF_API const char *msperf_closest_name (const char *word, const char *const *candidates,
                                            guint max_edits);

G_END_DECLS

#endif
