/* Compiles include/msperf/dtype.h first and alone: a public header includes what it uses. */
#include <msperf/dtype.h>
#include "headers.h"

int
msperf_test_header_dtype (void)
{
  return 1;
}
