/* msperf tests — the trace-line corpus the fast readers' tests share (test_json_fast.c,
 * test_op_plain.c): every *.jsonl under tests/data (and doc/examples), and the line classes
 * they assert on. */
#ifndef MSPERF_TESTS_TRACE_CORPUS_H
#define MSPERF_TESTS_TRACE_CORPUS_H

#include <glib.h>

/* MSPERF_TEST_DATADIR, else the source tree's tests/data. */
const char *tc_data_dir (void);
/* Every *.jsonl under dir, recursively, appended to out (char*, owned). */
void tc_find_jsonl (const char *dir, GPtrArray *out);
/* A trace line of GEMM (as tests/data and the benchmark write them). */
gboolean tc_is_gemm_line (const char *line);
/* A number with a fraction or an exponent (a digit then '.', 'e' or 'E': names such as
 * "aten.mm.default" or "bfloat16" have none), an escape or a byte outside ASCII: the lines the
 * fast readers decline by design. */
gboolean tc_outside_subset (const char *line);

#endif
