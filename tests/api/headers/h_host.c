/* Compiles include/msperf/host.h first and alone: a public header includes what it uses. */
#include <msperf/host.h>
#include "headers.h"

int
msperf_test_header_host (void)
{
  return 1;
}
