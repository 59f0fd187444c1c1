/* msperf — reading op traces: JSON Lines (streamed, one op per line) and the upstream
 * op-summary JSON (one whole document). FORMATS.md §2. This file decides the format and hands
 * out the items; trace_source.c reads the lines, trace_line.c parses one, op_summary.c reads
 * the document. */
#define _XOPEN_SOURCE 700  /* fileno, fstat, S_ISSOCK: POSIX, hidden by -std=c11 */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <json-glib/json-glib.h>
#include <msperf/error.h>
#include "base/file_kind.h"
#include "app/trace/trace_private.h"
#include "app/trace/json_check.h"

/* ------------------------------------------------------------------ format detection */

/* Reads ahead into r->pending until n significant lines (or the end) were seen; returns the
 * n-th, or NULL. Transfer none (owned by the queue). */
static const char *
read_ahead_msperf_trace_significant (msperf_trace_reader *r, guint n)
{
  guint seen = 0;

  for (GList *l = r->pending.head; l; l = l->next)
    if (msperf_trace_significant (l->data) && ++seen == n)
      return msperf_trace_significant (l->data);
  while (msperf_trace_read_line (r))
    {
      g_queue_push_tail (&r->pending, g_strdup (r->buf->str));
      if (msperf_trace_significant (r->buf->str) && ++seen == n)
        return msperf_trace_significant (r->pending.tail->data);
    }
  return NULL;
}

/* Reads the whole remaining input after the read-ahead lines into one buffer. */
static char *
slurp (msperf_trace_reader *r, gsize *len)
{
  GString *all = g_string_new (NULL);

  for (GList *l = r->pending.head; l; l = l->next)
    {
      g_string_append (all, l->data);
      g_string_append_c (all, '\n');
    }
  g_queue_clear_full (&r->pending, g_free);
  while (msperf_trace_read_line (r))
    {
      g_string_append_len (all, r->buf->str, (gssize) r->buf->len);
      g_string_append_c (all, '\n');
    }
  *len = all->len;
  return g_string_free (all, FALSE);
}

/* Whether a first line opens a pretty-printed document ("{" alone, or '{ "ops": ...') rather
 * than holding an op. */
static gboolean
opens_document (const char *first)
{
  g_autofree char *t = g_strstrip (g_strdup (first));
  const char *p = t + 1;

  if (t[0] != '{')
    return FALSE;
  while (g_ascii_isspace (*p))
    p++;
  return *p == '\0' || g_str_has_prefix (p, "\"ops\"");
}

/* Decides between JSON Lines and the op-summary document (FORMATS §2). JSON Lines stays
 * streaming: only the first one or two significant lines are read ahead. */
static gboolean
detect (msperf_trace_reader *r, GError **error)
{
  const char *first = read_ahead_msperf_trace_significant (r, 1);
  gboolean summary_like = FALSE, parsed = FALSE, second_is_op = FALSE, brace;
  g_autofree char *text = NULL;
  g_autofree char *first_copy = NULL;
  gsize len = 0;

  if (first == NULL)
    return TRUE;  /* empty or comments only: JSON Lines with no item */
  brace = first[0] == '{';
  if (msperf_json_text_ok (first, strlen (first), NULL)
      && json_parser_load_from_data (r->parser, first, -1, NULL))
    {
      JsonNode *root = json_parser_get_root (r->parser);
      /* An op-summary written on one line is a complete object too: it has "ops", no "op". */
      if (root && JSON_NODE_HOLDS_OBJECT (root))
        {
          JsonObject *obj = json_node_get_object (root);
          summary_like = !json_object_has_member (obj, "op")
                         && json_object_has_member (obj, "ops");
        }
      /* Any other complete JSON value on the first line (an op object, or an array that will
       * be rejected as a line) means JSON Lines. */
      if (!summary_like)
        return TRUE;
    }
  else
    {
      /* A first line that is an incomplete object is either a pretty-printed document or a
       * malformed first op; a second line that is a complete object settles it as JSON Lines
       * without reading the (possibly huge) rest. */
      const char *second = read_ahead_msperf_trace_significant (r, 2);

      second_is_op = second != NULL && second[0] == '{'
                     && msperf_json_text_ok (second, strlen (second), NULL)
                     && json_parser_load_from_data (r->parser, second, -1, NULL);
      if (brace && second_is_op)
        return TRUE;
    }

  first_copy = g_strdup (first);
  text = slurp (r, &len);
  if (msperf_trace_summary_load (r, text, len, &parsed, error))
    return TRUE;
  /* Not a JSON document, but its first line is a malformed op ("{\"op\": ...", "42", "[1,",
   * junk) followed by a good one: report it line by line (the malformed lines rejected alone,
   * the others answered) rather than failing whole. Anything else (a truncated document, one
   * with trailing junk) is one document error, not a rejection per line. */
  if (!parsed && (second_is_op || (brace && !summary_like && !opens_document (first_copy))))
    {
      g_clear_error (error);
      if (r->file && r->close_file)
        fclose (r->file);
      r->file = NULL;
      g_free (r->data);
      r->data = g_steal_pointer (&text);
      r->len = len;
      r->pos = 0;
      return TRUE;
    }
  return FALSE;
}

/* ------------------------------------------------------------------ public API */

static msperf_trace_reader *
reader_new (const char *name)
{
  msperf_trace_reader *r = g_new0 (msperf_trace_reader, 1);

  r->name = g_strdup (name);
  g_queue_init (&r->pending);
  r->buf = g_string_sized_new (256);
  r->parser = json_parser_new_immutable ();
  r->unknown_keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r->warnings = g_ptr_array_new_with_free_func (g_free);
  return r;
}

static gboolean
is_regular (FILE *f)
{
  struct stat st;

  return fstat (fileno (f), &st) == 0 && S_ISREG (st.st_mode);
}

/* Opens a trace file: a regular file or a FIFO (a pipe from another program); a directory,
 * socket or device is refused before a byte is read. */
static FILE *
open_input (const char *path, GError **error)
{
  struct stat st;
  FILE *f = fopen (path, "rb");

  if (f == NULL)
    {
      int saved = errno;
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot open: %s",
                   path, g_strerror (saved));
      return NULL;
    }
  if (fstat (fileno (f), &st) == 0 && !S_ISREG (st.st_mode) && !S_ISFIFO (st.st_mode))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO,
                   "%s: cannot read: not a regular file (%s)", path,
                   msperf_file_kind_name (st.st_mode));
      fclose (f);
      return NULL;
    }
  return f;
}

msperf_trace_reader *
msperf_trace_reader_open (const char *path, GError **error)
{
  msperf_trace_reader *r;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (strcmp (path, "-") == 0)
    {
      r = reader_new ("<stdin>");
      r->file = stdin;
      r->stream = !is_regular (stdin);
    }
  else
    {
      FILE *f = open_input (path, error);
      if (f == NULL)
        return NULL;
      r = reader_new (path);
      r->file = f;
      r->close_file = TRUE;
      r->stream = !is_regular (f);
    }
  if (!detect (r, error))
    {
      msperf_trace_reader_free (r);
      return NULL;
    }
  return r;
}

msperf_trace_reader *
msperf_trace_reader_open_data (const char *data, gssize len, const char *name, GError **error)
{
  msperf_trace_reader *r;

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  r = reader_new (name ? name : "<data>");
  r->len = len < 0 ? strlen (data) : (gsize) len;
  /* data need not be NUL-terminated: copy len bytes, then terminate the copy. */
  r->data = g_malloc (r->len + 1);
  if (r->len > 0)
    memcpy (r->data, data, r->len);
  r->data[r->len] = '\0';
  if (!detect (r, error))
    {
      msperf_trace_reader_free (r);
      return NULL;
    }
  return r;
}

gboolean
msperf_trace_reader_next_raw (msperf_trace_reader *reader, msperf_trace_item *item,
                              GString *text)
{
  const char *line;

  g_return_val_if_fail (reader != NULL && item != NULL && text != NULL, FALSE);

  g_string_truncate (text, 0);
  if (reader->items)
    {
      msperf_trace_item *next;
      if (reader->next_item >= reader->items->len)
        return FALSE;
      next = g_ptr_array_index (reader->items, reader->next_item);
      *item = *next;
      memset (next, 0, sizeof *next);
      reader->next_item++;
      return TRUE;
    }

  while ((line = msperf_trace_next_line (reader)) != NULL)
    if ((line = msperf_trace_significant (line)) != NULL)
      break;
  memset (item, 0, sizeof *item);
  if (line == NULL)
    {
      if (!reader->read_failed)
        return FALSE;
      /* Report a read error once, as a rejected item, so the caller's exit status shows it. */
      reader->read_failed = FALSE;
      item->error = g_strdup_printf ("%s:%u: read error: %s", reader->name, reader->line + 1,
                                     g_strerror (reader->read_errno));
      item->index = reader->index++;
      item->line = reader->line + 1;
      return TRUE;
    }
  item->index = reader->index++;
  item->line = reader->line;
  g_string_append_len (text, line, (gssize) (reader->buf->len - (gsize) (line - reader->buf->str)));
  return TRUE;
}

gboolean
msperf_trace_reader_next (msperf_trace_reader *reader, msperf_trace_item *item)
{
  g_autoptr (GPtrArray) keys = NULL;

  g_return_val_if_fail (reader != NULL && item != NULL, FALSE);

  if (reader->text == NULL)
    reader->text = g_string_sized_new (256);
  if (!msperf_trace_reader_next_raw (reader, item, reader->text))
    return FALSE;
  if (item->op || item->error)
    return TRUE;
  if (reader->own == NULL)
    reader->own = msperf_trace_parser_new (reader);
  keys = g_ptr_array_new_with_free_func (g_free);
  msperf_trace_parser_parse (reader->own, reader->text->str, item, keys);
  msperf_trace_reader_note_keys (reader, item->line, keys);
  return TRUE;
}

gboolean
msperf_trace_reader_is_stream (const msperf_trace_reader *reader)
{
  g_return_val_if_fail (reader != NULL, FALSE);
  return reader->stream;
}

void
msperf_trace_reader_free (msperf_trace_reader *reader)
{
  if (reader == NULL)
    return;
  if (reader->file && reader->close_file)
    fclose (reader->file);
  g_free (reader->data);
  g_queue_clear_full (&reader->pending, g_free);
  g_string_free (reader->buf, TRUE);
  g_clear_object (&reader->parser);
  msperf_trace_parser_free (reader->own);
  if (reader->text)
    g_string_free (reader->text, TRUE);
  g_free (reader->chunk);
  if (reader->items)
    g_ptr_array_unref (reader->items);
  g_hash_table_unref (reader->unknown_keys);
  g_ptr_array_unref (reader->warnings);
  g_free (reader->name);
  g_free (reader);
}

const GPtrArray *
msperf_trace_reader_warnings (const msperf_trace_reader *reader)
{
  g_return_val_if_fail (reader != NULL, NULL);
  return reader->warnings;
}

void
msperf_trace_item_clear (msperf_trace_item *item)
{
  if (item == NULL)
    return;
  g_clear_pointer (&item->op, msperf_op_free);
  g_clear_pointer (&item->error, g_free);
  g_clear_pointer (&item->op_name, g_free);
  item->index = 0;
  item->line = 0;
}
