/* Compiles include/msperf/subquery.h first and alone: a public header includes what it uses. */
#include <msperf/subquery.h>
#include "headers.h"

int
msperf_test_header_subquery (void)
{
  return 1;
}
