/* msperf — RFC 4180 record reader on top of libcsv.
 *
 * libcsv reports fields and record ends but no positions, so the data is fed one physical line
 * at a time: a record starts on the first line fed while no record was open, which gives every
 * row (and every error) the line number a user sees in an editor. */
#include <config.h>
#include <string.h>
#include <csv.h>
#include <msperf/error.h>
#include "io/csv_reader.h"

typedef enum {
  EVENT_NONE = 0,
  EVENT_FIELD,
  EVENT_END
} reader_event;

typedef struct {
  const char *name;
  msperf_csv_record_func func;
  gpointer user_data;
  GString *buf;       /* the current record's fields, each followed by a NUL */
  GArray *offsets;    /* size_t: where each field starts in buf */
  GPtrArray *fields;  /* const char* into buf, rebuilt per record */
  guint start_line;   /* line the current record started on */
  reader_event last;  /* last callback seen while feeding the current line */
  GError *error;      /* first error of a record callback; later records are ignored */
} reader;

static void
on_field (void *field, size_t len, void *data)
{
  reader *r = data;
  size_t offset = r->buf->len;

  r->last = EVENT_FIELD;
  if (r->error != NULL)
    return;
  g_string_append_len (r->buf, field != NULL ? field : "", (gssize) len);
  g_string_append_c (r->buf, '\0');
  g_array_append_val (r->offsets, offset);
}

static void
on_record (int terminator, void *data)
{
  reader *r = data;

  (void) terminator;
  r->last = EVENT_END;
  if (r->error == NULL)
    {
      g_ptr_array_set_size (r->fields, 0);
      for (guint k = 0; k < r->offsets->len; k++)
        g_ptr_array_add (r->fields, r->buf->str + g_array_index (r->offsets, size_t, k));
      if (!r->func (r->start_line, (const char *const *) r->fields->pdata, r->fields->len,
                    r->user_data, &r->error)
          && r->error == NULL)
        g_set_error (&r->error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_FAILED,
                     "%s:%u: record rejected", r->name, r->start_line);
    }
  g_string_truncate (r->buf, 0);
  g_array_set_size (r->offsets, 0);
}

/* Length of the physical line at data[0..len): up to and including LF, CRLF or a lone CR. */
static size_t
line_length (const char *data, size_t len)
{
  for (size_t k = 0; k < len; k++)
    {
      if (data[k] == '\n')
        return k + 1;
      if (data[k] == '\r')
        return k + 1 < len && data[k + 1] == '\n' ? k + 2 : k + 1;
    }
  return len;
}

/* Text files hold no control bytes besides tab and line ends: anything else means binary
 * content, which must not reach the parser (a NUL would truncate a cell silently). The whole
 * data is checked first so that binary junk is reported as such, not as a bad header. */
static gboolean
check_text (const char *data, size_t len, const char *name, GError **error)
{
  guint lineno = 1;

  for (size_t k = 0; k < len; k++)
    {
      guchar c = (guchar) data[k];

      if (c == '\n' || (c == '\r' && (k + 1 == len || data[k + 1] != '\n')))
        lineno++;
      else if (c < 0x20 && c != '\t' && c != '\r')
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                       "%s:%u: binary content (byte 0x%02x)", name, lineno, c);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
has_content (const char *line, size_t len)
{
  for (size_t k = 0; k < len; k++)
    if (line[k] != ' ' && line[k] != '\t' && line[k] != '\n' && line[k] != '\r')
      return TRUE;
  return FALSE;
}

gboolean
msperf_csv_read (const char *data, size_t len, const char *name, msperf_csv_record_func func,
                 gpointer user_data, GError **error)
{
  struct csv_parser parser;
  reader r = { 0 };
  gboolean ok = FALSE;
  gboolean open = FALSE; /* a record has started but not ended */
  guint lineno = 1;
  size_t pos = 0;

  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (name != NULL && func != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (csv_init (&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_FAILED,
                   "%s: cannot initialise the CSV parser", name);
      return FALSE;
    }
  r.name = name;
  r.func = func;
  r.user_data = user_data;
  r.buf = g_string_new (NULL);
  r.offsets = g_array_new (FALSE, FALSE, sizeof (size_t));
  r.fields = g_ptr_array_new ();
  r.start_line = 1;

  if (len >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0)
    pos = 3;
  if (!check_text (data + pos, len - pos, name, error))
    goto out;

  for (; pos < len; lineno++)
    {
      size_t n = line_length (data + pos, len - pos);
      if (!open)
        r.start_line = lineno;
      r.last = EVENT_NONE;
      /* libcsv grows its field buffer blk_size bytes at a time (128 by default): a huge cell
       * would cost one realloc per 128 bytes. A block of the line's length makes it one. */
      csv_set_blk_size (&parser, MAX (n, (size_t) 4096));
      if (csv_parse (&parser, data + pos, n, on_field, on_record, &r) != n)
        {
          if (r.error != NULL)
            break;
          if (csv_error (&parser) == CSV_EPARSE)
            g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                         "%s:%u: malformed quoting (a quote inside an unquoted field "
                         "or text after a closing quote)", name, lineno);
          else
            g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s:%u: %s", name,
                         lineno, csv_strerror (csv_error (&parser)));
          goto out;
        }
      if (r.error != NULL)
        break;
      if (r.last == EVENT_END)
        open = FALSE;
      else if (r.last == EVENT_FIELD || has_content (data + pos, n))
        open = TRUE;
      pos += n;
    }

  if (r.error == NULL && csv_fini (&parser, on_field, on_record, &r) != 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                   "%s:%u: unterminated quoted field (the closing quote is missing)", name,
                   r.start_line);
      goto out;
    }
  if (r.error != NULL)
    {
      g_propagate_error (error, r.error);
      r.error = NULL;
      goto out;
    }
  ok = TRUE;

out:
  csv_free (&parser);
  g_clear_error (&r.error);
  g_string_free (r.buf, TRUE);
  g_array_unref (r.offsets);
  g_ptr_array_unref (r.fields);
  return ok;
}
