/* msperf (internal) — the lexical layer of the two fast trace-line readers: json_fast.c (a
 * json-glib tree) and op_plain.c (an msperf_op straight from the text). Both read only a strict,
 * well-formed subset of JSON and decline everything else, so these primitives say FALSE for
 * anything outside it rather than diagnose: the full json-glib path decides and reports.
 *
 * The subset: ASCII strings without escapes or control bytes, integers of at most 18 digits
 * (no fraction, no exponent), true/false/null, objects and arrays nested at most 64 deep. */
#ifndef MSPERF_CORE_JSON_LEX_H
#define MSPERF_CORE_JSON_LEX_H

#include <string.h>
#include <glib.h>

/* As json_text_ok (trace.c): a deeper line is refused before it gets here; the limit also bounds
 * the readers' recursion. */
#define MSPERF_JSON_LEX_MAX_DEPTH 64

/* At most 18 digits: every such integer fits int64 without an overflow check, and json-glib
 * reads it exactly (it accumulates in 64 bits). */
#define MSPERF_JSON_LEX_MAX_DIGITS 18

typedef struct {
  const char *p;     /* next byte */
  const char *end;   /* one past the last byte */
  guint depth;       /* open containers */
  char scratch[256]; /* a key or string made a C string (reused by the next one) */
} msperf_json_cursor;

static inline void
msperf_json_cursor_init (msperf_json_cursor *c, const char *text, gsize len)
{
  c->p = text;
  c->end = text + len;
  c->depth = 0;  /* the scratch is left uninitialized: written before it is read */
}

/* JSON's whitespace, which is also json-glib's (its scanner skips " \t\r\n"). */
static inline void
msperf_json_skip_ws (msperf_json_cursor *c)
{
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    c->p++;
}

/* TRUE when c->p is at byte b (not moved). */
static inline gboolean
msperf_json_at (const msperf_json_cursor *c, char b)
{
  return c->p < c->end && *c->p == b;
}

/* TRUE when the byte after a number or a literal ends it. End of text never does: a value is
 * always inside the top-level object. */
static inline gboolean
msperf_json_delimited (const msperf_json_cursor *c)
{
  if (c->p >= c->end)
    return FALSE;
  switch (*c->p)
    {
    case ' ': case '\t': case '\n': case '\r': case ',': case ']': case '}':
      return TRUE;
    default:
      return FALSE;
    }
}

/* The string at c->p (its opening quote): *start and *len are its bytes, c->p moves past the
 * closing quote. FALSE for a backslash (escapes are json-glib's), a control byte or a byte
 * >= 0x80 (UTF-8 validation is json-glib's), or a missing closing quote. */
static inline gboolean
msperf_json_string (msperf_json_cursor *c, const char **start, gsize *len)
{
  const char *s = ++c->p;

  for (; c->p < c->end; c->p++)
    {
      guchar b = (guchar) *c->p;

      if (b == '"')
        {
          *start = s;
          *len = (gsize) (c->p - s);
          c->p++;
          return TRUE;
        }
      if (b < 0x20 || b >= 0x80 || b == '\\')
        return FALSE;
    }
  return FALSE;
}

/* s[0..len) as a C string: in the cursor's scratch when it fits, else in *heap (the caller
 * frees it). The scratch is reused: the result lives until the next call. */
static inline const char *
msperf_json_cstr (msperf_json_cursor *c, const char *s, gsize len, char **heap)
{
  char *d = len < sizeof c->scratch ? c->scratch : (*heap = g_malloc (len + 1));

  memcpy (d, s, len);
  d[len] = '\0';
  return d;
}

/* -?(0|[1-9][0-9]{0,17}) followed by a delimiter into *v, as json-glib's integers. A fraction
 * or an exponent fails the delimiter test: floats are json-glib's. */
static inline gboolean
msperf_json_int (msperf_json_cursor *c, gint64 *v)
{
  gboolean negative = FALSE;
  gint64 n = 0;
  guint digits = 0;

  if (msperf_json_at (c, '-'))
    {
      negative = TRUE;
      c->p++;
    }
  if (c->p >= c->end || !g_ascii_isdigit (*c->p))
    return FALSE;
  if (*c->p == '0')
    c->p++;  /* a leading zero is the whole number: "01" fails the delimiter test */
  else
    for (; c->p < c->end && g_ascii_isdigit (*c->p); c->p++)
      {
        if (++digits > MSPERF_JSON_LEX_MAX_DIGITS)
          return FALSE;
        n = n * 10 + (*c->p - '0');
      }
  if (!msperf_json_delimited (c))
    return FALSE;
  *v = negative ? -n : n;
  return TRUE;
}

/* TRUE (and c->p past it) when word is at c->p followed by a delimiter. */
static inline gboolean
msperf_json_word (msperf_json_cursor *c, const char *word)
{
  gsize n = strlen (word);

  if ((gsize) (c->end - c->p) < n || memcmp (c->p, word, n) != 0)
    return FALSE;
  c->p += n;
  return msperf_json_delimited (c);
}

/* After an item of a container: TRUE with *more set at a ',' (moved past it and the space
 * after), TRUE with *more unset at the closing byte (moved past it), FALSE for anything else. */
static inline gboolean
msperf_json_next (msperf_json_cursor *c, char close, gboolean *more)
{
  msperf_json_skip_ws (c);
  if (msperf_json_at (c, ','))
    {
      c->p++;
      msperf_json_skip_ws (c);
      *more = TRUE;
      return TRUE;
    }
  if (msperf_json_at (c, close))
    {
      c->p++;
      *more = FALSE;
      return TRUE;
    }
  return FALSE;
}

/* At a container's opening byte: moves past it and the space after; *more unset when it is
 * empty (and c->p past the close). FALSE past the nesting limit. The caller decrements depth
 * when the container is done. */
static inline gboolean
msperf_json_open (msperf_json_cursor *c, char close, gboolean *more)
{
  if (++c->depth > MSPERF_JSON_LEX_MAX_DEPTH)
    return FALSE;
  c->p++;
  msperf_json_skip_ws (c);
  *more = TRUE;
  if (msperf_json_at (c, close))
    {
      c->p++;
      *more = FALSE;
    }
  return TRUE;
}

/* One "key": at c->p (the key's quote): *key and *len its bytes, c->p at the value. FALSE for an
 * empty key (json-glib's to judge) or a missing ':'. */
static inline gboolean
msperf_json_key (msperf_json_cursor *c, const char **key, gsize *len)
{
  if (!msperf_json_at (c, '"') || !msperf_json_string (c, key, len) || *len == 0)
    return FALSE;
  msperf_json_skip_ws (c);
  if (!msperf_json_at (c, ':'))
    return FALSE;
  c->p++;
  msperf_json_skip_ws (c);
  return TRUE;
}

/* TRUE when key[0..len) is the C string s. */
static inline gboolean
msperf_json_key_is (const char *key, gsize len, const char *s)
{
  return strlen (s) == len && memcmp (key, s, len) == 0;
}

#endif /* MSPERF_CORE_JSON_LEX_H */
