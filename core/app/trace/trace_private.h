/* msperf (internal) — the trace reader's state and the functions its files share (trace.c,
 * trace_source.c, trace_line.c, op_summary.c). */
#ifndef MSPERF_CORE_TRACE_PRIVATE_H
#define MSPERF_CORE_TRACE_PRIVATE_H

#include <stdio.h>
#include <json-glib/json-glib.h>
#include "app/trace/trace.h"

struct msperf_trace_reader {
  char *name;          /* the path as given, "<stdin>" for "-": used in messages */
  FILE *file;          /* file source, or NULL for a memory source */
  gboolean close_file; /* FALSE for stdin */
  gboolean stream;     /* a pipe or terminal: the next line may not exist yet */
  char *data;          /* memory source (owned copy) */
  gsize len;
  gsize pos;
  char *chunk;         /* file source: bytes read but not yet consumed (READ_CHUNK) */
  gsize chunk_len, chunk_pos;
  gboolean skip_lf;      /* the last line ended with a CR at the end of a chunk */
  gboolean read_failed;  /* a read error not reported yet */
  gboolean read_ended;   /* a read error or the end of the file ended the input */
  int read_errno;
  gboolean bom_checked;  /* the first physical line was read (a BOM there is dropped) */
  GQueue pending;      /* raw lines read ahead while detecting the format (char*) */
  GString *buf;
  guint line;          /* physical lines consumed so far */
  size_t index;        /* index of the next item */
  JsonParser *parser;  /* format detection */
  msperf_trace_parser *own; /* msperf_trace_reader_next's parser (made on first use) */
  GString *text;            /* msperf_trace_reader_next's raw line */
  GPtrArray *items;    /* op-summary: every item, built at open (msperf_trace_item*) */
  guint next_item;
  GHashTable *unknown_keys; /* key already warned about -> itself */
  GPtrArray *warnings;      /* "FILE:LINE: unknown key ..." once per key (char*) */
};

/* trace_source.c: the next physical line of the source into r->buf, without its end of line;
 * FALSE at the end (or on a read error, then r->read_failed). */
gboolean msperf_trace_read_line (msperf_trace_reader *r);
/* The next physical line, read-ahead lines (r->pending) first; counts r->line. Transfer none
 * (valid until the next call); NULL at the end. */
const char *msperf_trace_next_line (msperf_trace_reader *r);
/* line without its leading blanks, or NULL when it is blank or a '#' comment. */
const char *msperf_trace_significant (const char *line);

/* op_summary.c: parses text as a whole document. TRUE with the summary's items in r->items
 * when it is an op-summary; FALSE with *error (a whole-document error) otherwise, *parsed
 * telling whether it was valid JSON at all. */
gboolean msperf_trace_summary_load (msperf_trace_reader *r, const char *text, gsize len,
                                    gboolean *parsed, GError **error);

#endif
