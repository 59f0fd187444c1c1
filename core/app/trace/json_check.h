/* msperf (internal) — what a JSON text must be before json-glib parses it (a trace line or an
 * op-summary document). */
#ifndef MSPERF_CORE_JSON_CHECK_H
#define MSPERF_CORE_JSON_CHECK_H

#include <glib.h>

/* TRUE when text[0..len) is one JSON object or list, nested at most 64 deep, with no control
 * byte, escaped NUL or lone surrogate and nothing but whitespace after it; FALSE + error
 * (MSPERF_ERROR_INVALID, naming the byte) otherwise. */
gboolean msperf_json_text_ok (const char *text, gsize len, GError **error);
/* The offset just after the first object or list of text[0..len) closes (strings skipped,
 * brackets counted), or len when none closes: where a document ends and anything after it
 * begins. */
gsize msperf_json_value_end (const char *text, gsize len);

#endif
