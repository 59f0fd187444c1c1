/* Compiles include/msperf/handle.h first and alone: a public header includes what it uses. */
#include <msperf/handle.h>
#include "headers.h"

int
msperf_test_header_handle (void)
{
  return 1;
}
