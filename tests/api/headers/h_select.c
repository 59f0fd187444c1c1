/* Compiles include/msperf/select.h first and alone: a public header includes what it uses. */
#include <msperf/select.h>
#include "headers.h"

int
msperf_test_header_select (void)
{
  return 1;
}
