/* msperf — umbrella header: the whole public API of libmsperf. */
#ifndef MSPERF_MSPERF_H
#define MSPERF_MSPERF_H

#include <msperf/api.h>
#include <msperf/version.h>
#include <msperf/error.h>
#include <msperf/paths.h>
#include <msperf/format.h>
#include <msperf/number.h>
#include <msperf/dtype.h>
#include <msperf/op.h>
#include <msperf/shape.h>
#include <msperf/table.h>
#include <msperf/select.h>
#include <msperf/result.h>
#include <msperf/details.h>
#include <msperf/point.h>
#include <msperf/database.h>
#include <msperf/expr.h>
#include <msperf/att.h>
#include <msperf/handle.h>
#include <msperf/subquery.h>
#include <msperf/engine.h>
#include <msperf/host.h>
#include <msperf/plugin.h>
#include <msperf/latency.h>
#include <msperf/holdout.h>

#endif /* MSPERF_MSPERF_H */
