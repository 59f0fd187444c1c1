/* Compiles include/msperf/error.h first and alone: a public header includes what it uses. */
#include <msperf/error.h>
#include "headers.h"

int
msperf_test_header_error (void)
{
  return 1;
}
