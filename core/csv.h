#ifndef MSPERF_CORE_CSV_H
#define MSPERF_CORE_CSV_H
#endif
