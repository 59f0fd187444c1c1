/* One function per public header, each defined in a translation unit that includes that
 * header first (tests/headers/h_*.c). */
#ifndef MSPERF_TEST_HEADERS_H
#define MSPERF_TEST_HEADERS_H
int msperf_test_header_msperf (void);
int msperf_test_header_error (void);
int msperf_test_header_dtype (void);
int msperf_test_header_op (void);
int msperf_test_header_shape (void);
int msperf_test_header_table (void);
int msperf_test_header_select (void);
int msperf_test_header_result (void);
int msperf_test_header_point (void);
int msperf_test_header_database (void);
int msperf_test_header_engine (void);
int msperf_test_header_plugin (void);
int msperf_test_header_latency (void);
int msperf_test_header_handle (void);
int msperf_test_header_subquery (void);
int msperf_test_header_host (void);
#endif
