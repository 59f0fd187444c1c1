/* msperf — shortest round-trip digits by Google's double-conversion (libdouble-conversion).
 *
 * The one C++ file of msperf: double-conversion has no C API. Its SHORTEST mode (Grisu3 with
 * a bignum fallback when Grisu3 cannot prove its answer) gives the shortest digits that read
 * back, the closest to the value among them — the digits of printf's correctly rounded
 * shortest precision that round-trips, found without one or two snprintf/strtod pairs
 * at ~0.5 µs each (doc/performance.md). Compiled without exceptions or
 * RTTI: nothing here needs libstdc++ beyond what libdouble-conversion itself links. */
#include <config.h>
#include <cmath>
#include <double-conversion/double-to-string.h>
#include "shortest_digits.h"

void
msperf_shortest_digits (double value, char digits[32], int *exp10)
{
  bool sign = false;
  int length = 0, point = 0;

  double_conversion::DoubleToStringConverter::DoubleToAscii (
      std::fabs (value), double_conversion::DoubleToStringConverter::SHORTEST, 0, digits, 32,
      &sign, &length, &point);
  /* digits × 10^(point − length): the first digit's exponent is point − 1 */
  *exp10 = point - 1;
}
