/* Compiles include/msperf/latency.h first and alone: a public header includes what it uses. */
#include <msperf/latency.h>
#include "headers.h"

int
msperf_test_header_latency (void)
{
  return 1;
}
