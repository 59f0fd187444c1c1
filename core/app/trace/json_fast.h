/* msperf (internal) — a strict reader for the common shape of a trace line: the same json-glib
 * tree json_parser_load_from_data builds, without its GScanner (most of the cost of a line).
 * It reads only a well-formed subset and says "not for me" for the rest, which the caller
 * then hands to json-glib, so its results and its messages stay json-glib's. */
#ifndef MSPERF_CORE_JSON_FAST_H
#define MSPERF_CORE_JSON_FAST_H

#include <glib.h>
#include <json-glib/json-glib.h>

/* The root (an object) of text[0..len), a new reference sealed as an immutable json-glib
 * parser's, or NULL when the text is outside the subset: any number but an integer of at most
 * 18 digits, a string with a backslash or a byte outside 0x20..0x7f, an empty key, a key twice
 * in one object, nesting deeper than 64, a top level that is not one object, or anything that
 * is not valid JSON. NULL is never an error: json-glib decides. */
JsonNode *msperf_json_fast_parse (const char *text, gsize len);

#endif
