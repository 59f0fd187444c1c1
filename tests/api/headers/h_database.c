/* Compiles include/msperf/database.h first and alone: a public header includes what it uses. */
#include <msperf/database.h>
#include "headers.h"

int
msperf_test_header_database (void)
{
  return 1;
}
