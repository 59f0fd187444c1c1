/* Compiles include/msperf/op.h first and alone: a public header includes what it uses. */
#include <msperf/op.h>
#include "headers.h"

int
msperf_test_header_op (void)
{
  return 1;
}
