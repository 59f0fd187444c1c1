/* msperf — GString appends with the common case inlined.
 *
 * GLib 2.76 inlines g_string_append/g_string_append_len in gstring.h; Debian 12's 2.74 calls
 * g_string_insert_len for each one (~60 instructions of checks), and the JSONL writer makes
 * ~300 appends a line (7 % of a warm interpolated query). These are the same appends:
 * into the room already allocated, else through GLib. p must not point into s. */
#ifndef MSPERF_STR_APPEND_H
#define MSPERF_STR_APPEND_H

#include <string.h>
#include <glib.h>

static inline void
msperf_str_append_len (GString *s, const char *p, gsize n)
{
  if (G_LIKELY (s->len + n < s->allocated_len))
    {
      memcpy (s->str + s->len, p, n);
      s->len += n;
      s->str[s->len] = '\0';
    }
  else
    g_string_append_len (s, p, (gssize) n);
}

/* Makes room for n more bytes at the end of s and returns where they go (s->len already counts
 * them; the caller writes all n). */
static inline char *
msperf_str_extend (GString *s, gsize n)
{
  gsize at = s->len;

  if (G_LIKELY (at + n < s->allocated_len))
    {
      s->len += n;
      s->str[s->len] = '\0';
    }
  else
    g_string_set_size (s, at + n);
  return s->str + at;
}

/* strlen of a literal folds to a constant. */
static inline void
msperf_str_append (GString *s, const char *p)
{
  msperf_str_append_len (s, p, strlen (p));
}

#endif /* MSPERF_STR_APPEND_H */
