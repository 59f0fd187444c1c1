/* msperf (internal) — reading op traces: JSON Lines and the upstream op-summary JSON. */
#ifndef MSPERF_CORE_TRACE_H
#define MSPERF_CORE_TRACE_H

#include <stdio.h>
#include <msperf/op.h>

typedef struct msperf_trace_reader msperf_trace_reader;

/* One input item: a parsed op, or a rejected line (op NULL, error set). */
typedef struct msperf_trace_item {
  msperf_op *op;        /* transfer full to the caller, NULL when rejected */
  char *error;          /* "FILE:LINE: reason", NULL when accepted; owned by the caller */
  char *op_name;        /* best-effort op name of a rejected line (may be NULL); owned */
  size_t index;         /* 0-based position (line or op-summary variant) */
  guint line;           /* 1-based line */
} msperf_trace_item;

/* Opens path ("-" for stdin). The format (JSON Lines or op-summary JSON) is detected from the
 * content. Transfer full. */
msperf_trace_reader *msperf_trace_reader_open (const char *path, GError **error);
/* From memory; name stands for the file in messages. */
msperf_trace_reader *msperf_trace_reader_open_data (const char *data, gssize len,
                                                   const char *name, GError **error);
/* Next item. Returns FALSE at the end of input (item untouched). Blank lines and '#' lines are
 * skipped. A malformed line yields TRUE with item->error set. */
gboolean msperf_trace_reader_next (msperf_trace_reader *reader, msperf_trace_item *item);
void msperf_trace_reader_free (msperf_trace_reader *reader);
/* Warnings found so far ("FILE:LINE: unknown key \"arg\" ignored (did you mean \"args\"?)"),
 * once per key; the lines are still answered. Transfer none. */
const GPtrArray *msperf_trace_reader_warnings (const msperf_trace_reader *reader);
void msperf_trace_item_clear (msperf_trace_item *item);

/* Whether the input is a pipe or a terminal (not a file or memory): its next line may be
 * written only after the answer to the last one was read (a sweep on stdin). */
gboolean msperf_trace_reader_is_stream (const msperf_trace_reader *reader);

/* ---- reading on one thread, parsing on others (estimate --jobs)
 *
 * msperf_trace_reader_next is msperf_trace_reader_next_raw, then msperf_trace_parser_parse of
 * the text, then msperf_trace_reader_note_keys: the same items, messages and warnings,
 * whichever thread parses. */

/* Next item, unparsed. JSON Lines: TRUE with item's index and line set (op and error NULL)
 * and the line's text in text. An op-summary item or a read error: TRUE with item complete
 * and text empty. FALSE at the end of input. */
gboolean msperf_trace_reader_next_raw (msperf_trace_reader *reader, msperf_trace_item *item,
                                       GString *text);
/* A parser of reader's lines (its name in messages); one per thread. Transfer full. */
typedef struct msperf_trace_parser msperf_trace_parser;
msperf_trace_parser *msperf_trace_parser_new (const msperf_trace_reader *reader);
void msperf_trace_parser_free (msperf_trace_parser *parser);
/* Parses text (from msperf_trace_reader_next_raw) into item: its op, or its error and op
 * name. The unknown keys of an accepted line are appended to keys (char*, freed by keys), if
 * keys is not NULL. */
void msperf_trace_parser_parse (msperf_trace_parser *parser, const char *text,
                                msperf_trace_item *item, GPtrArray *keys);
/* The warnings for keys found on line (once per key over the trace). Call in input order. */
void msperf_trace_reader_note_keys (msperf_trace_reader *reader, guint line,
                                    const GPtrArray *keys);

/* Parses one op from a JSON object text (the `query --op JSON` form). */
msperf_op *msperf_trace_parse_op (const char *json, const char *name, guint line, GError **error);
/* The same through a json-glib tree always, never the plain reader (tests/app/test_op_plain.c
 * holds the two to the same op). Errors are prefixed "<op>:0: ". */
msperf_op *msperf_trace_parse_op_tree (const char *json, GError **error);

#endif
