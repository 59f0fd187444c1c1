/* msperf tests — gzip members made in memory, for the tests of gzip-compressed tables. */
#ifndef MSPERF_TEST_GZIP_H
#define MSPERF_TEST_GZIP_H

#include <stddef.h>
#include <glib.h>

/* data[0..len) as one gzip member (zlib level 9, the bytes `gzip -n` writes up to the
 * header); fails the running test on a zlib error. Transfer full. */
GByteArray *tu_gzip_bytes (const char *data, size_t len);

#endif
