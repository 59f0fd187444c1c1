/* msperf — the GError domain. */
#include <config.h>
#include <msperf/error.h>

G_DEFINE_QUARK (msperf-error-quark, msperf_error)
