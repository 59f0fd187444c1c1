#ifndef MSPERF_ATT_H
#define MSPERF_ATT_H
#endif
