/* msperf — the checks of a JSON text before json-glib parses it: nesting depth, control
 * bytes, escaped NULs and lone surrogates, content after the value. */
#include <config.h>
#include <string.h>
#include "app/trace/json_check.h"
#include "app/trace/json_tree.h"

/* json-glib parses recursively without a depth limit: a line of a million '[' overflows the
 * stack. Containers are counted (outside strings) before parsing; FALSE + error past max.
 * Control bytes are refused too (JSON has none outside whitespace): binary junk. */
#define MAX_JSON_DEPTH 64

/* The value of the \uXXXX escape at text[k] (the backslash), or -1 when it is not one. */
static long
unicode_escape_at (const char *text, gsize len, gsize k)
{
  char hex[5];

  if (k + 6 > len || text[k] != '\\' || text[k + 1] != 'u')
    return -1;
  memcpy (hex, text + k + 2, 4);
  hex[4] = '\0';
  for (int i = 0; i < 4; i++)
    if (!g_ascii_isxdigit (hex[i]))
      return -1;
  return (long) g_ascii_strtoll (hex, NULL, 16);
}

/* json-glib turns \u0000 into a NUL that ends the C string ("aten.mm.default\u0000junk"
 * would be answered as aten.mm.default) and a lone surrogate into bytes that are not UTF-8
 * (every output would carry them): such a line is refused. k is the backslash. */
static gboolean
unicode_escape_ok (const char *text, gsize len, gsize k, GError **error)
{
  long u = unicode_escape_at (text, len, k), low;

  if (u == 0)
    {
      msperf_jpath_error (error, NULL, "escaped NUL (\\u0000) in a string at byte %" G_GSIZE_FORMAT,
                          k + 1);
      return FALSE;
    }
  if (u >= 0xD800 && u <= 0xDBFF)
    {
      low = unicode_escape_at (text, len, k + 6);
      if (low >= 0xDC00 && low <= 0xDFFF)
        return TRUE;
    }
  /* the second half of a pair checked at its first */
  if (u >= 0xDC00 && u <= 0xDFFF && k >= 6)
    {
      long high = unicode_escape_at (text, len, k - 6);

      if (high >= 0xD800 && high <= 0xDBFF)
        return TRUE;
    }
  if (u >= 0xD800 && u <= 0xDFFF)
    {
      msperf_jpath_error (error, NULL, "lone UTF-16 surrogate (\\u%04lx) in a string at byte %"
                          G_GSIZE_FORMAT, (unsigned long) u, k + 1);
      return FALSE;
    }
  return TRUE;
}

gboolean
msperf_json_text_ok (const char *text, gsize len, GError **error)
{
  guint depth = 0;
  gboolean in_string = FALSE, closed = FALSE, started = FALSE;

  for (gsize k = 0; k < len; k++)
    {
      guchar c = (guchar) text[k];

      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
        {
          msperf_jpath_error (error, NULL, "binary content (control byte 0x%02x at byte %" G_GSIZE_FORMAT
                              ")", c, k + 1);
          return FALSE;
        }
      /* An op line or summary is an object (or a list): a bare scalar first would let
       * json-glib read several values, and it leaks the extra nodes. */
      if (!started && !g_ascii_isspace (c))
        {
          started = TRUE;
          if (c >= 0x80)
            {
              /* a UTF-16 BOM, Latin-1 or any non-JSON first byte */
              msperf_jpath_error (error, NULL, "binary content (byte 0x%02x at byte %" G_GSIZE_FORMAT
                                  ": not UTF-8 JSON)", c, k + 1);
              return FALSE;
            }
          if (c != '{' && c != '[')
            {
              msperf_jpath_error (error, NULL, "expected a JSON object, got '%c' at byte %"
                                  G_GSIZE_FORMAT, c, k + 1);
              return FALSE;
            }
        }
      /* json-glib accepts several values in one text (and leaks the extra nodes): an op
       * line holds exactly one. */
      if (closed && !g_ascii_isspace (c))
        {
          msperf_jpath_error (error, NULL, "unexpected content after the JSON value at byte %"
                              G_GSIZE_FORMAT, k + 1);
          return FALSE;
        }
      if (in_string)
        {
          if (c == '\\' && k + 1 < len && text[k + 1] == 'u'
              && !unicode_escape_ok (text, len, k, error))
            return FALSE;
          if (c == '\\' && k + 1 < len)
            k++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++depth > MAX_JSON_DEPTH)
            {
              msperf_jpath_error (error, NULL, "JSON nesting deeper than %d levels", MAX_JSON_DEPTH);
              return FALSE;
            }
        }
      else if ((c == ']' || c == '}') && depth > 0)
        closed = --depth == 0;
    }
  return TRUE;
}

gsize
msperf_json_value_end (const char *text, gsize len)
{
  guint depth = 0;
  gboolean in_string = FALSE;

  g_return_val_if_fail (text != NULL || len == 0, 0);

  for (gsize k = 0; k < len; k++)
    {
      char c = text[k];

      if (in_string)
        {
          if (c == '\\')
            k++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        depth++;
      else if ((c == ']' || c == '}') && depth > 0 && --depth == 0)
        return k + 1;
    }
  return len;
}
