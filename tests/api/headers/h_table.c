/* Compiles include/msperf/table.h first and alone: a public header includes what it uses. */
#include <msperf/table.h>
#include "headers.h"

int
msperf_test_header_table (void)
{
  return 1;
}
