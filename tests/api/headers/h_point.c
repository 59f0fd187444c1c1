/* Compiles include/msperf/point.h first and alone: a public header includes what it uses. */
#include <msperf/point.h>
#include "headers.h"

int
msperf_test_header_point (void)
{
  return 1;
}
