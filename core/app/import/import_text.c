/* msperf (app) — the importer's text helpers: exact ms -> us decimal shifts, CSV cells and
 * deterministic gzip. */
#include <config.h>
#include <string.h>
#include <zlib.h>
#include "import_private.h"

char *
msperf_import_ms_to_us (const char *text)
{
  GString *digits;
  const char *p = text;
  long point;          /* digits before the decimal point, after the shift */
  long exp10 = 0;
  gboolean any_nonzero = FALSE, seen_point = FALSE;
  GString *out;
  size_t first, len;

  g_return_val_if_fail (text != NULL, NULL);
  if (*p == '+')
    p++;
  digits = g_string_new (NULL);
  point = 0;
  for (; *p != '\0' && *p != 'e' && *p != 'E'; p++)
    {
      if (*p == '.' && !seen_point)
        seen_point = TRUE;
      else if (g_ascii_isdigit (*p))
        {
          g_string_append_c (digits, *p);
          if (!seen_point)
            point++;
          if (*p != '0')
            any_nonzero = TRUE;
        }
      else
        {
          g_string_free (digits, TRUE);
          return NULL;
        }
    }
  if (*p == 'e' || *p == 'E')
    {
      char *end = NULL;
      gint64 e;

      p++;
      if (*p == '\0')
        {
          g_string_free (digits, TRUE);
          return NULL;
        }
      e = g_ascii_strtoll (p, &end, 10);
      if (end == p || *end != '\0' || e < -400 || e > 400)
        {
          g_string_free (digits, TRUE);
          return NULL;
        }
      exp10 = (long) e;
    }
  if (digits->len == 0 || !any_nonzero)
    {
      g_string_free (digits, TRUE);
      return NULL;
    }
  point += exp10 + 3;
  /* pad so that the point lies within [0, len] of the digits */
  while (point < 0)
    {
      g_string_prepend_c (digits, '0');
      point++;
    }
  while ((size_t) point > digits->len)
    g_string_append_c (digits, '0');
  out = g_string_new (NULL);
  /* integer part without leading zeros (at least one digit) */
  first = 0;
  while (first + 1 < (size_t) point && digits->str[first] == '0')
    first++;
  if (point == 0)
    g_string_append_c (out, '0');
  else
    g_string_append_len (out, digits->str + first, (gssize) ((size_t) point - first));
  /* fraction without trailing zeros */
  len = digits->len;
  while (len > (size_t) point && digits->str[len - 1] == '0')
    len--;
  if (len > (size_t) point)
    {
      g_string_append_c (out, '.');
      g_string_append_len (out, digits->str + point, (gssize) (len - (size_t) point));
    }
  g_string_free (digits, TRUE);
  return g_string_free (out, FALSE);
}

void
imp_csv_cell (GString *out, const char *cell, gboolean first)
{
  if (!first)
    g_string_append_c (out, ',');
  if (strpbrk (cell, ",\"\r\n") == NULL)
    {
      g_string_append (out, cell);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *c = cell; *c != '\0'; c++)
    {
      if (*c == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *c);
    }
  g_string_append_c (out, '"');
}

GBytes *
msperf_import_gzip (const char *data, size_t len)
{
  z_stream zs;
  GByteArray *out = g_byte_array_new ();
  guchar buf[65536];
  int rc;

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  memset (&zs, 0, sizeof zs);
  /* gzip wrapper without a header record: no name, mtime 0, so equal input gives equal bytes */
  if (deflateInit2 (&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY) != Z_OK)
    g_error ("zlib: deflateInit2 failed");
  zs.next_in = (Bytef *) (void *) data;
  zs.avail_in = (uInt) len;
  do
    {
      zs.next_out = buf;
      zs.avail_out = sizeof buf;
      rc = deflate (&zs, Z_FINISH);
      g_byte_array_append (out, buf, (guint) (sizeof buf - zs.avail_out));
    }
  while (rc == Z_OK);
  if (rc != Z_STREAM_END)
    g_error ("zlib: deflate failed (%d)", rc);
  deflateEnd (&zs);
  return g_byte_array_free_to_bytes (out);
}
