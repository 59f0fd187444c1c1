/* Compiles include/msperf/msperf.h first and alone: a public header includes what it uses. */
#include <msperf/msperf.h>
#include "headers.h"

int
msperf_test_header_msperf (void)
{
  return 1;
}
