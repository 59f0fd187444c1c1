/* msperf — the physical lines of a trace: read(2) in chunks from a file or a pipe, or from
 * memory; LF, CR LF and a lone CR end a line; read-ahead lines come first. */
#define _XOPEN_SOURCE 700  /* fileno: POSIX, hidden by -std=c11 */
#include <config.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "app/trace/trace_private.h"

/* read(2), not stdio: one system call per 64 KB instead of a locked getc per byte, and a
 * pipe's line is handed out as soon as it arrives. */
#define READ_CHUNK 65536

/* ------------------------------------------------------------------ raw lines */

/* The first LF or CR in [p, p + n), or NULL. */
static const char *
line_end (const char *p, gsize n)
{
  for (gsize k = 0; k < n; k++)
    if (p[k] == '\n' || p[k] == '\r')
      return p + k;
  return NULL;
}

/* Refills r->chunk from the file. FALSE at the end of the file or on a read error (which
 * ends the input: retrying would report it for ever — a directory given as --ops once
 * printed "read error" until the disk was full). */
static gboolean
fill_chunk (msperf_trace_reader *r)
{
  gssize n;

  if (r->read_ended)
    return FALSE;
  if (r->chunk == NULL)
    r->chunk = g_malloc (READ_CHUNK);
  do
    n = read (fileno (r->file), r->chunk, READ_CHUNK);
  while (n < 0 && errno == EINTR);
  r->chunk_pos = 0;
  r->chunk_len = n > 0 ? (gsize) n : 0;
  if (n > 0)
    return TRUE;
  if (n < 0)
    {
      r->read_failed = TRUE;
      r->read_errno = errno;
    }
  r->read_ended = TRUE;
  return FALSE;
}

/* The file's next line into r->buf (appended, without its end of line). LF, CR LF and a lone
 * CR (old Mac files: else every line merges into one and one bad op takes the whole trace
 * with it) end a line. FALSE at the end of input, or on a read error (the partial line is
 * dropped). */
static gboolean
file_read_line (msperf_trace_reader *r)
{
  gboolean any = FALSE;

  for (;;)
    {
      const char *start, *end;

      if (r->chunk_pos >= r->chunk_len && !fill_chunk (r))
        return any && !r->read_failed;
      /* CR LF split between two reads: the LF belongs to the CR's line */
      if (r->skip_lf)
        {
          r->skip_lf = FALSE;
          if (r->chunk[r->chunk_pos] == '\n' && ++r->chunk_pos >= r->chunk_len)
            continue;
        }
      any = TRUE;
      start = r->chunk + r->chunk_pos;
      end = line_end (start, r->chunk_len - r->chunk_pos);
      if (end == NULL)
        {
          g_string_append_len (r->buf, start, (gssize) (r->chunk_len - r->chunk_pos));
          r->chunk_pos = r->chunk_len;
          continue;
        }
      g_string_append_len (r->buf, start, end - start);
      r->chunk_pos += (gsize) (end - start) + 1;
      if (*end == '\r')
        {
          if (r->chunk_pos < r->chunk_len)
            r->chunk_pos += r->chunk[r->chunk_pos] == '\n';
          else
            r->skip_lf = TRUE;
        }
      return TRUE;
    }
}

/* Next physical line of the source into r->buf, without its end of line. FALSE at the end. */
gboolean
msperf_trace_read_line (msperf_trace_reader *r)
{
  g_string_truncate (r->buf, 0);
  if (r->file == NULL)
    {
      const char *start, *nl;
      if (r->data == NULL || r->pos >= r->len)
        return FALSE;
      start = r->data + r->pos;
      nl = line_end (start, r->len - r->pos);
      if (nl)
        {
          g_string_append_len (r->buf, start, nl - start);
          r->pos += (gsize) (nl - start) + 1;
          /* CR LF is one line end */
          if (*nl == '\r' && r->pos < r->len && r->data[r->pos] == '\n')
            r->pos++;
        }
      else
        {
          g_string_append_len (r->buf, start, (gssize) (r->len - r->pos));
          r->pos = r->len;
        }
    }
  else if (!file_read_line (r))
    return FALSE;
  /* A UTF-8 byte-order mark is the stream's, not the first op's. */
  if (!r->bom_checked)
    {
      r->bom_checked = TRUE;
      if (g_str_has_prefix (r->buf->str, "\xef\xbb\xbf"))
        g_string_erase (r->buf, 0, 3);
    }
  /* A NUL would end the line early as a C string and hide binary junk (a line of it would
   * even look blank): make it a control byte that the JSON check rejects. */
  for (char *nul = memchr (r->buf->str, '\0', r->buf->len); nul != NULL;
       nul = memchr (nul, '\0', r->buf->len - (gsize) (nul - r->buf->str)))
    *nul = '\x1a';
  return TRUE;
}

/* Next physical line, read-ahead lines first. Transfer none (valid until the next call). */
const char *
msperf_trace_next_line (msperf_trace_reader *r)
{
  char *ahead = g_queue_pop_head (&r->pending);

  if (ahead)
    {
      g_string_assign (r->buf, ahead);
      g_free (ahead);
    }
  else if (!msperf_trace_read_line (r))
    return NULL;
  r->line++;
  return r->buf->str;
}

/* Blank and '#' lines carry no op. */
const char *
msperf_trace_significant (const char *line)
{
  while (*line == ' ' || *line == '\t')
    line++;
  return (*line == '\0' || *line == '#') ? NULL : line;
}
