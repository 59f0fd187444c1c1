/* msperf tests — gzip members made in memory (test_gzip.h). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>
#include "common/test_gzip.h"

GByteArray *
tu_gzip_bytes (const char *data, size_t len)
{
  z_stream zs;
  GByteArray *out = g_byte_array_new ();
  guchar buf[65536];
  int rc;

  memset (&zs, 0, sizeof zs);
  assert_int_equal (deflateInit2 (&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY),
                    Z_OK);
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
  assert_int_equal (rc, Z_STREAM_END);
  deflateEnd (&zs);
  return out;
}
