/* msperf tests — the grid-accelerated brute-force simplex search against the plain scan. */
#ifndef MSPERF_TEST_BRUTEFORCE_CHECK_H
#define MSPERF_TEST_BRUTEFORCE_CHECK_H

#include <stddef.h>
#include "interp/interp.h"

/* The grid search against scipy's plain scan for one query x, with both sets of tolerances
 * scipy uses (griddata: eps_broad = sqrt(DBL_EPSILON); Delaunay.find_simplex: sqrt(eps)): the
 * same simplex and the same barycentric bits. Prints each mismatch; returns their number. */
size_t tu_bruteforce_mismatches (const msperf_delaunay *tri, const double *x);

#endif
