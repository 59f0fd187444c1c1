/* Compiles include/msperf/shape.h first and alone: a public header includes what it uses. */
#include <msperf/shape.h>
#include "headers.h"

int
msperf_test_header_shape (void)
{
  return 1;
}
