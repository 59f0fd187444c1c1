/* Compiles include/msperf/result.h first and alone: a public header includes what it uses. */
#include <msperf/result.h>
#include "headers.h"

int
msperf_test_header_result (void)
{
  return 1;
}
