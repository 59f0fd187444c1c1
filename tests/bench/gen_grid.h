/* msperf benchmark data: the M×K×N grid of the generated MatMulV2 table and the seeded
 * generator, shared by gen_db.c (which writes the files) and bench.c (which draws hits and
 * interior points from the same grid without reading the CSV). Header-only, static inline. */
#ifndef MSPERF_TESTS_BENCH_GEN_GRID_H
#define MSPERF_TESTS_BENCH_GEN_GRID_H

#include <math.h>
#include <stdint.h>

typedef struct bench_grid {
  int nm, nk, nn;   /* axis sizes: rows = nm·nk·nn */
} bench_grid;

/* Knuth's MMIX LCG; the high bits are the usable ones. */
static inline uint64_t
bench_rand (uint64_t *state)
{
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return *state >> 33;
}

/* Uniform in [0, 1). */
static inline double
bench_rand_unit (uint64_t *state)
{
  return (double) bench_rand (state) / 2147483648.0;
}

static inline void
bench_grid_for_rows (int64_t rows, bench_grid *g)
{
  if (rows == 1000)
    *g = (bench_grid){ 10, 10, 10 };
  else if (rows == 10000)
    *g = (bench_grid){ 25, 20, 20 };
  else if (rows == 100000)
    *g = (bench_grid){ 50, 40, 50 };
  else
    {
      int side = (int) ceil (cbrt ((double) (rows > 8 ? rows : 8)));

      *g = (bench_grid){ side, side, side };
    }
}

static inline int64_t
bench_grid_m (const bench_grid *g, int i)
{
  (void) g;
  return 64 * (int64_t) (i + 1);
}

static inline int64_t
bench_grid_k (const bench_grid *g, int j)
{
  (void) g;
  return 256 * (int64_t) (j + 1);
}

static inline int64_t
bench_grid_n (const bench_grid *g, int k)
{
  (void) g;
  return 128 * (int64_t) (k + 1);
}

/* A compute-bound matmul at ~500 TFLOP/s plus a 2 µs launch floor, ±1 % seeded jitter. */
static inline double
bench_grid_latency (int64_t m, int64_t k, int64_t n, uint64_t *seed)
{
  double base = 2.0 + 2.0 * (double) m * (double) k * (double) n / 5.0e8;

  return base * (1.0 + 0.02 * (bench_rand_unit (seed) - 0.5));
}

/* A value strictly between two neighbouring grid values of one axis (never on the grid), so
 * every 1-D and 2-D group misses and the query needs the 3-D triangulation. */
static inline int64_t
bench_grid_between (int64_t lo_value, int64_t step, uint64_t *seed)
{
  return lo_value + 1 + (int64_t) (bench_rand (seed) % (uint64_t) (step - 1));
}

static inline void
bench_grid_interior (const bench_grid *g, uint64_t *seed, int64_t *m, int64_t *k, int64_t *n)
{
  *m = bench_grid_between (bench_grid_m (g, (int) (bench_rand (seed) % (uint64_t) (g->nm - 1))),
                           64, seed);
  *k = bench_grid_between (bench_grid_k (g, (int) (bench_rand (seed) % (uint64_t) (g->nk - 1))),
                           256, seed);
  *n = bench_grid_between (bench_grid_n (g, (int) (bench_rand (seed) % (uint64_t) (g->nn - 1))),
                           128, seed);
}

#endif /* MSPERF_TESTS_BENCH_GEN_GRID_H */
