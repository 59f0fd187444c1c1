/* msperf benchmark harness: what bench.c (the engine through the library) and bench_e2e.c
 * (the msperf binary, end to end) share. */
#ifndef MSPERF_TESTS_BENCH_BENCH_H
#define MSPERF_TESTS_BENCH_BENCH_H
#include <stdint.h>
#include <glib.h>
#include <msperf/msperf.h>

typedef struct {
  const char *data, *sample_db, *aic_db, *plugins, *msperf, *scipy, *python, *gen_db;
  gboolean quick;
  const char *only;  /* NULL (everything), "lib" or "e2e" */
  int64_t seed;      /* of the generated traces (BENCH_SEED) */
  int64_t e2e_lines; /* N of the end-to-end traces; 0: 20 000 (--quick 5 000) */
  GPtrArray *rows;   /* row*: the printed table (parent only) */
  int *failures;     /* targets missed (parent only) */
} bench_opts;

typedef struct {
  double median, p90, mean;
  size_t n;
} stats;

typedef struct {
  char *out;           /* the child's stdout (when captured) */
  long maxrss_kb;
  double wall_us;
  double cpu_us;       /* user + system of the child (wait4) */
  int status;
} child_run;

double now_us (void);
stats summarise (double *samples, size_t n);
void run_to (char *const *argv, gboolean capture, const char *out_path, const char *err_path,
             child_run *cr);
msperf_engine *engine_for (const bench_opts *o, const char *db, gboolean interpolation);
const msperf_table *matmul_table (msperf_engine *e);
gboolean row_mkn (const msperf_table *t, size_t row, int64_t *m, int64_t *k, int64_t *n,
                  msperf_dtype *dtype);

/* bench_e2e.c: `--child traces DB DIR N SEED` (the traces of one database) and the end-to-end
 * section of the parent. */
int e2e_child_traces (const bench_opts *o, int argc, char **argv);
void e2e_main (const bench_opts *o, const char *tmp, gboolean scipy);

#endif /* MSPERF_TESTS_BENCH_BENCH_H */
