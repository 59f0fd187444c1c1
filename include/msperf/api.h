/* msperf — MSPERF_API marks what libmsperf exports. The library is compiled with
 * -fvisibility=hidden, so a function is part of the installed ABI exactly when its public
 * declaration carries this macro (tests/api/test_exports.sh holds the two together). */
#ifndef MSPERF_API_H
#define MSPERF_API_H

#if defined(__GNUC__) || defined(__clang__)
#define MSPERF_API __attribute__ ((visibility ("default")))
#else
#define MSPERF_API
#endif

#endif /* MSPERF_API_H */
