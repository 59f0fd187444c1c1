/* msperf — inflating gzip-compressed kernel tables with zlib.
 *
 * A shipped database carries its CSVs gzip-compressed (a few megabytes instead of tens): the
 * table reader inflates them to the same bytes a plain CSV holds, so everything after reading —
 * parsing, the table hash, every answer — is the same for `K.csv` and `K.csv.gz`. */
#include <config.h>
#include <string.h>
#include <zlib.h>
#include <msperf/error.h>
#include "io/gzip_data.h"

gboolean
msperf_gzip_is_compressed (const char *data, size_t len)
{
  return data != NULL && len >= 2 && (guchar) data[0] == 0x1f && (guchar) data[1] == 0x8b;
}

char *
msperf_gzip_inflate (const char *data, size_t len, const char *name, size_t max_out,
                     size_t *out_len, GError **error)
{
  z_stream zs;
  GString *out = NULL;
  int rc = Z_OK;
  char *result = NULL;

  g_return_val_if_fail (data != NULL && name != NULL && out_len != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  memset (&zs, 0, sizeof zs);
  /* 16 + MAX_WBITS: a gzip wrapper (header and CRC-32 checked), not raw zlib. */
  if (inflateInit2 (&zs, 16 + MAX_WBITS) != Z_OK)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_FAILED,
                   "%s: cannot initialise zlib", name);
      return NULL;
    }
  if (len > (size_t) G_MAXUINT32)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                   "%s: compressed file larger than 4 GiB: refused", name);
      goto out;
    }
  out = g_string_sized_new (MIN (MAX (len * 4, (size_t) 4096), max_out) + 1);
  zs.next_in = (Bytef *) (void *) data;
  zs.avail_in = (uInt) len;
  for (;;)
    {
      guchar buf[65536];
      size_t produced;

      zs.next_out = buf;
      zs.avail_out = sizeof buf;
      rc = inflate (&zs, Z_NO_FLUSH);
      if (rc == Z_BUF_ERROR)
        {
          /* no progress with a whole output buffer free: the input ended mid-stream */
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                       "%s: truncated gzip data (the stream does not end)", name);
          goto out;
        }
      if (rc != Z_OK && rc != Z_STREAM_END)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                       "%s: damaged gzip data (%s)", name, zs.msg != NULL ? zs.msg : "zlib error");
          goto out;
        }
      produced = sizeof buf - zs.avail_out;
      if (out->len + produced > max_out)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                       "%s: inflates to more than %zu bytes: refused", name, max_out);
          goto out;
        }
      g_string_append_len (out, (const char *) buf, (gssize) produced);
      if (rc == Z_STREAM_END)
        {
          size_t pos = len - zs.avail_in;

          if (zs.avail_in == 0)
            break;
          /* another member follows (gzip -d reads them as one), or junk */
          if (!msperf_gzip_is_compressed (data + pos, len - pos))
            {
              g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                           "%s: trailing bytes after the gzip data (offset %zu)", name, pos);
              goto out;
            }
          inflateReset (&zs);
        }
    }
  *out_len = out->len;
  result = g_string_free (g_steal_pointer (&out), FALSE);

out:
  inflateEnd (&zs);
  if (out != NULL)
    g_string_free (out, TRUE);
  return result;
}
