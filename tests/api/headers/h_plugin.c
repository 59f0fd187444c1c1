/* Compiles include/msperf/plugin.h first and alone: a public header includes what it uses. */
#include <msperf/plugin.h>
#include "headers.h"

int
msperf_test_header_plugin (void)
{
  return 1;
}
