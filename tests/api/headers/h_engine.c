/* Compiles include/msperf/engine.h first and alone: a public header includes what it uses. */
#include <msperf/engine.h>
#include "headers.h"

int
msperf_test_header_engine (void)
{
  return 1;
}
