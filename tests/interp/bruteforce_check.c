/* msperf tests — the grid-accelerated brute-force simplex search against the plain scan
 * (bruteforce_check.h). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <string.h>
#include "interp/bruteforce_check.h"

size_t
tu_bruteforce_mismatches (const msperf_delaunay *tri, const double *x)
{
  size_t bad = 0;
  int nd = msperf_delaunay_dim (tri);

  for (int t = 0; t < 2; t++)
    {
      double cg[4] = { 0 }, cp[4] = { 0 };
      double eb = t == 0 ? sqrt (DBL_EPSILON) : sqrt (MSPERF_DELAUNAY_EPS);
      int sg = msperf_delaunay_find_bruteforce (tri, x, MSPERF_DELAUNAY_EPS, eb, TRUE, cg);
      int sp = msperf_delaunay_find_bruteforce (tri, x, MSPERF_DELAUNAY_EPS, eb, FALSE, cp);

      if (sg != sp || (sp >= 0 && memcmp (cg, cp, sizeof (double) * (size_t) (nd + 1)) != 0))
        {
          bad++;
          print_message ("x = (%a, %a, %a): grid %d, plain scan %d\n", x[0], x[1],
                         nd > 2 ? x[2] : 0.0, sg, sp);
        }
    }
  return bad;
}
