/* msperf benchmark harness (`make bench`): one table of operation, dataset, median
 * and p90 time per operation, operations per second and peak RSS, then the targets with the
 * achieved numbers, then the side-by-side with scipy griddata when /usr/bin/python3 has scipy.
 *
 * Every measurement runs in a child process (this program re-executed with --child) so that
 * its peak RSS is its own; the parent collects the children's numbers and the wait4 rusage.
 *
 *   bench --data DIR --sample-db DIR --plugins DIR --msperf BIN --gen-db BIN [--aic-db DIR]
 *         [--seed N] [--scipy SCRIPT] [--python PY] [--only lib|e2e] [--e2e-lines N] [--quick]
 *
 * DIR holds db-1k, db-10k, db-100k (gen_db db) and trace-{10,20,40}k.jsonl (gen_db trace).
 * The end-to-end section (the msperf binary on trace files) is bench_e2e.c. */
/* wait4 (the child's own rusage) is a BSD/GNU extension. */
#define _DEFAULT_SOURCE 1
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <msperf/msperf.h>
#include "interp/interp.h"
#include "app/trace/trace.h"
#include "gen_grid.h"
#include "bench.h"


/* ------------------------------------------------------------------ timing and statistics */

double
now_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}


/* Nearest-rank percentiles of samples (sorted in place). */
stats
summarise (double *samples, size_t n)
{
  stats s = { NAN, NAN, NAN, n };
  double sum = 0;

  if (n == 0)
    return s;
  qsort (samples, n, sizeof *samples, cmp_double);
  for (size_t k = 0; k < n; k++)
    sum += samples[k];
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.p90 = samples[(size_t) ceil (0.9 * (double) n) - 1];
  s.mean = sum / (double) n;
  return s;
}

static void
child_report (const char *tag, double *samples, size_t n, const char *note)
{
  stats s = summarise (samples, n);

  printf ("R %s %.6f %.6f %.6f %zu %s\n", tag, s.median, s.p90, s.mean, s.n, note ? note : "-");
  fflush (stdout);
}

/* ------------------------------------------------------------------ engine helpers */

msperf_engine *
engine_for (const bench_opts *o, const char *db, gboolean interpolation)
{
  g_autoptr (msperf_engine) e = msperf_engine_new ();
  g_autoptr (GError) error = NULL;

  if (o->plugins == NULL)
    {
      /* a child run by hand (`bench --child traces ...`) without the parent's options */
      fprintf (stderr, "bench: --plugins DIR is required\n");
      exit (2);
    }
  msperf_engine_set_plugin_search_defaults (e, FALSE);
  msperf_engine_add_plugin_dir (e, o->plugins);
  if ((!interpolation
       && !msperf_engine_set_override (e, "interpolation.enabled", "false", &error))
      || !msperf_engine_open_database (e, db, NULL, &error)
      || !msperf_engine_start (e, &error))
    {
      fprintf (stderr, "bench: %s: %s\n", db, error->message);
      exit (1);
    }
  return g_steal_pointer (&e);
}

static msperf_op *
mm_op (int64_t m, int64_t k, int64_t n, const char *dtype)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *json = g_strdup_printf (
    "{\"op\": \"aten.mm.default\", \"args\": [{\"shape\": [%" PRId64 ", %" PRId64 "], "
    "\"dtype\": \"%s\"}, {\"shape\": [%" PRId64 ", %" PRId64 "], \"dtype\": \"%s\"}], "
    "\"out\": [{\"shape\": [%" PRId64 ", %" PRId64 "], \"dtype\": \"%s\"}]}",
    m, k, dtype, k, n, dtype, m, n, dtype);
  msperf_op *op = msperf_trace_parse_op (json, "bench", 0, &error);

  if (op == NULL)
    {
      fprintf (stderr, "bench: %s\n", error->message);
      exit (1);
    }
  return op;
}

/* (M, K, N) of a MatMulV2 row as the compute module reads it (plugins/compute/compute_axes.c):
 * M = lhs[0], K = lhs[1], N = rhs[1] when rhs[0] == K, else rhs[0] when rhs[1] == K — the
 * generated and aiconfigurator tables write [M,K];[N,K], the sample has both layouts. */
gboolean
row_mkn (const msperf_table *t, size_t row, int64_t *m, int64_t *k, int64_t *n,
         msperf_dtype *dtype)
{
  const msperf_slots *s = msperf_table_row_inputs (t, row);

  if (!msperf_table_row_valid (t, row) || s == NULL || s->n != 2 || s->t[0].rank != 2
      || s->t[1].rank != 2 || s->t[0].format != MSPERF_FORMAT_ND
      || s->t[1].format != MSPERF_FORMAT_ND)
    return FALSE;
  *m = s->t[0].dims[0];
  *k = s->t[0].dims[1];
  if (s->t[1].dims[0] == *k)
    *n = s->t[1].dims[1];
  else if (s->t[1].dims[1] == *k)
    *n = s->t[1].dims[0];
  else
    return FALSE;
  *dtype = s->t[0].dtype;
  return TRUE;
}

const msperf_table *
matmul_table (msperf_engine *e)
{
  g_autoptr (GError) error = NULL;
  const msperf_table *t = msperf_engine_table (e, "MatMulV2", &error);

  if (t == NULL)
    {
      fprintf (stderr, "bench: MatMulV2: %s\n", error->message);
      exit (1);
    }
  return t;
}

/* Up to max distinct hit ops drawn evenly over the table's rows (distinct signatures, so the
 * engine's answer cache never serves them). Transfer full. */
static GPtrArray *
hit_ops (msperf_engine *e, size_t max)
{
  const msperf_table *t = matmul_table (e);
  size_t rows = msperf_table_n_rows (t);
  size_t step = rows > max ? rows / max : 1;
  GPtrArray *ops = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_op_free);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (size_t r = 0; r < rows && ops->len < max; r += step)
    {
      int64_t m, k, n;
      msperf_dtype dt;
      msperf_op *op;
      char *sig;

      if (!row_mkn (t, r, &m, &k, &n, &dt) || msperf_dtype_torch_name (dt) == NULL)
        continue;
      op = mm_op (m, k, n, msperf_dtype_torch_name (dt));
      sig = msperf_op_signature (op);
      if (!g_hash_table_add (seen, sig))
        {
          msperf_op_free (op);
          continue;
        }
      g_ptr_array_add (ops, op);
    }
  return ops;
}

/* ------------------------------------------------------------------ child measurements */

/* Engine start, table load and the exact-key index (built by the first compute query). */
static int
child_load (const bench_opts *o, const char *db, gboolean load)
{
  double t0 = now_us (), dt;
  g_autoptr (msperf_engine) e = engine_for (o, db, FALSE);

  if (load)
    {
      g_autoptr (GPtrArray) ops = hit_ops (e, 1);
      g_autoptr (msperf_result) r = ops->len ? msperf_engine_query (e, ops->pdata[0]) : NULL;

      if (r == NULL || r->source != MSPERF_SOURCE_MEASURED)
        {
          fprintf (stderr, "bench: load: the first row is not an exact hit\n");
          return 1;
        }
    }
  dt = now_us () - t0;
  child_report (load ? "load" : "empty", &dt, 1, NULL);
  return 0;
}

static int
child_exact (const bench_opts *o, const char *db, size_t max)
{
  g_autoptr (msperf_engine) e = engine_for (o, db, FALSE);
  g_autoptr (GPtrArray) ops = hit_ops (e, max + 1);
  g_autofree double *dt = g_new (double, ops->len);
  size_t n = 0, wrong = 0;

  /* The first query builds the exact-key index: warm-up, not timed. */
  msperf_result_free (msperf_engine_query (e, ops->pdata[0]));
  for (guint k = 1; k < ops->len; k++)
    {
      double t0 = now_us ();
      msperf_result *r = msperf_engine_query (e, ops->pdata[k]);

      dt[n++] = now_us () - t0;
      wrong += r->source != MSPERF_SOURCE_MEASURED;
      msperf_result_free (r);
    }
  {
    g_autofree char *note = g_strdup_printf ("not_hit=%zu", wrong);
    child_report ("exact", dt, n, note);
  }
  return wrong ? 1 : 0;
}

/* Exact misses with interpolation off: the exact stage, then the roofline. Shapes are the
 * table's with M replaced by 3M+1 (never a grid value, never block-padded). */
static int
child_miss (const bench_opts *o, const char *db, size_t max)
{
  g_autoptr (msperf_engine) e = engine_for (o, db, FALSE);
  const msperf_table *t = matmul_table (e);
  size_t rows = msperf_table_n_rows (t), step = rows > max ? rows / max : 1;
  g_autoptr (GPtrArray) ops = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_op_free);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree double *dt = NULL;
  size_t n = 0, hits = 0;

  for (size_t r = 0; r < rows && ops->len < max + 1; r += step)
    {
      int64_t m, k, nn;
      msperf_dtype d;
      msperf_op *op;

      if (!row_mkn (t, r, &m, &k, &nn, &d) || msperf_dtype_torch_name (d) == NULL)
        continue;
      op = mm_op (3 * m + 1, k, nn, msperf_dtype_torch_name (d));
      if (!g_hash_table_add (seen, msperf_op_signature (op)))
        {
          msperf_op_free (op);
          continue;
        }
      g_ptr_array_add (ops, op);
    }
  dt = g_new (double, ops->len);
  msperf_result_free (msperf_engine_query (e, ops->pdata[0]));
  for (guint k = 1; k < ops->len; k++)
    {
      double t0 = now_us ();
      msperf_result *r = msperf_engine_query (e, ops->pdata[k]);

      dt[n++] = now_us () - t0;
      hits += r->source == MSPERF_SOURCE_MEASURED;
      msperf_result_free (r);
    }
  {
    g_autofree char *note = g_strdup_printf ("hit=%zu", hits);
    child_report ("miss", dt, n, note);
  }
  return 0;
}

/* A query point for dim 1 (M between grid values), 2 (M, K) or 3 (M, K, N). */
static void
interior_point (const bench_grid *g, int dim, uint64_t *seed, int64_t *m, int64_t *k,
                int64_t *n)
{
  bench_grid_interior (g, seed, m, k, n);
  if (dim < 3)
    *n = bench_grid_n (g, (int) (bench_rand (seed) % (uint64_t) g->nn));
  if (dim < 2)
    *k = bench_grid_k (g, (int) (bench_rand (seed) % (uint64_t) g->nk));
}

/* Writes the table as "M K N latency" lines (row order = the candidate order) to path. */
static void
dump_table (const msperf_table *t, const char *path)
{
  FILE *f = fopen (path, "w");

  if (f == NULL)
    {
      fprintf (stderr, "bench: %s: %s\n", path, g_strerror (errno));
      exit (1);
    }
  for (size_t r = 0; r < msperf_table_n_rows (t); r++)
    {
      int64_t m, k, n;
      msperf_dtype d;

      if (row_mkn (t, r, &m, &k, &n, &d))
        fprintf (f, "%" PRId64 " %" PRId64 " %" PRId64 " %a\n", m, k, n,
                 msperf_table_row_latency (t, r));
    }
  fclose (f);
}

/* Interpolated queries through the engine (every query a distinct shape). The first query is
 * the cold one (candidate index and triangulation built); then one query per filter value
 * warms the per-filter triangulations; then the timed ones. With dump, the answers go to
 * dump as "dim M K N answer" for the scipy side-by-side. */
static int
child_interp (const bench_opts *o, const char *db, int64_t rows, int dim, size_t max,
              const char *dump)
{
  g_autoptr (msperf_engine) e = engine_for (o, db, TRUE);
  bench_grid g;
  uint64_t seed = 1000 + (uint64_t) dim;
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree double *dt = g_new (double, max);
  size_t n = 0, wrong = 0;
  double cold;
  FILE *f = NULL;
  int64_t m, k, nn;

  bench_grid_for_rows (rows, &g);
  if (dump && (f = fopen (dump, "w")) == NULL)
    {
      fprintf (stderr, "bench: %s: %s\n", dump, g_strerror (errno));
      return 1;
    }
  /* Cold: table load, exact miss, candidate index build, first triangulation. */
  {
    msperf_op *op;
    msperf_result *r;
    double t0;

    interior_point (&g, dim, &seed, &m, &k, &nn);
    op = mm_op (m, k, nn, "bfloat16");
    g_hash_table_add (seen, msperf_op_signature (op));
    t0 = now_us ();
    r = msperf_engine_query (e, op);
    cold = now_us () - t0;
    if (r->source != MSPERF_SOURCE_INTERPOLATED)
      {
        printf ("R interp%d_cold %.6f %.6f %.6f 1 unavailable:%s\n", dim, cold, cold, cold,
                r->miss_reason ? r->miss_reason : "none");
        msperf_result_free (r);
        msperf_op_free (op);
        if (f)
          fclose (f);
        return 0;
      }
    msperf_result_free (r);
    msperf_op_free (op);
    printf ("R interp%d_cold %.6f %.6f %.6f 1 -\n", dim, cold, cold, cold);
  }
  /* Warm every filter value the timed queries can use (2-D: each N; 1-D: no triangulation). */
  if (dim == 2)
    for (int kn = 0; kn < g.nn; kn++)
      {
        msperf_op *op;

        interior_point (&g, 3, &seed, &m, &k, &nn);
        op = mm_op (m, k, bench_grid_n (&g, kn), "bfloat16");
        g_hash_table_add (seen, msperf_op_signature (op));
        msperf_result_free (msperf_engine_query (e, op));
        msperf_op_free (op);
      }
  while (n < max)
    {
      msperf_op *op;
      msperf_result *r;
      double t0;

      interior_point (&g, dim, &seed, &m, &k, &nn);
      op = mm_op (m, k, nn, "bfloat16");
      if (!g_hash_table_add (seen, msperf_op_signature (op)))
        {
          msperf_op_free (op);
          continue;
        }
      t0 = now_us ();
      r = msperf_engine_query (e, op);
      dt[n++] = now_us () - t0;
      if (r->source != MSPERF_SOURCE_INTERPOLATED || r->interpolation_dim != dim)
        wrong++;
      else if (f)
        fprintf (f, "%d %" PRId64 " %" PRId64 " %" PRId64 " %a\n", dim, m, k, nn, r->latency_us);
      msperf_result_free (r);
      msperf_op_free (op);
    }
  if (f)
    {
      g_autofree char *points = g_strconcat (dump, ".points", NULL);

      fclose (f);
      dump_table (matmul_table (e), points);
    }
  {
    g_autofree char *note = g_strdup_printf ("wrong_dim=%zu", wrong);
    char tag[32];

    g_snprintf (tag, sizeof tag, "interp%d", dim);
    child_report (tag, dt, n, note);
  }
  return 0;
}

/* The 3-D math alone (core/interp.h): the whole grid as one candidate set, the triangulation
 * built once (the cold cost) and reused by every query — what the index does, without the
 * engine around it. Answers go to dump for the side-by-side. */
static int
child_core3d (const bench_opts *o, const char *db, int64_t rows, size_t max, const char *dump)
{
  g_autoptr (msperf_engine) e = engine_for (o, db, FALSE);
  const msperf_table *t = matmul_table (e);
  size_t nr = msperf_table_n_rows (t), np = 0;
  g_autofree double *coords = g_new (double, 3 * nr);
  g_autofree double *lat = g_new (double, nr);
  g_autofree double *ucoords = NULL, *uvalues = NULL;
  g_autofree double *dt = g_new (double, max);
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_delaunay) tri = NULL;
  msperf_interp_counts counts;
  bench_grid g;
  uint64_t seed = 2000;
  double t0, cold;
  size_t n = 0, outside = 0;
  FILE *f = dump ? fopen (dump, "w") : NULL;

  bench_grid_for_rows (rows, &g);
  for (size_t r = 0; r < nr; r++)
    {
      int64_t m, k, nn;
      msperf_dtype d;

      if (!row_mkn (t, r, &m, &k, &nn, &d))
        continue;
      coords[3 * np] = (double) m;
      coords[3 * np + 1] = (double) k;
      coords[3 * np + 2] = (double) nn;
      lat[np++] = msperf_table_row_latency (t, r);
    }
  t0 = now_us ();
  msperf_interp_aggregate (coords, lat, np, 3, MSPERF_INTERP_AGGREGATE_MEDIAN, &ucoords,
                           &uvalues, &counts);
  tri = msperf_delaunay_new (ucoords, counts.aggregated, 3, &error);
  cold = now_us () - t0;
  if (tri == NULL)
    {
      fprintf (stderr, "bench: delaunay: %s\n", error->message);
      return 1;
    }
  printf ("R core3d_cold %.6f %.6f %.6f 1 points=%zu\n", cold, cold, cold, counts.aggregated);
  while (n < max)
    {
      int64_t m, k, nn;
      double x[3], out = NAN;
      gboolean ok;

      interior_point (&g, 3, &seed, &m, &k, &nn);
      x[0] = (double) m;
      x[1] = (double) k;
      x[2] = (double) nn;
      t0 = now_us ();
      ok = msperf_interp_griddata (tri, uvalues, x, &out, NULL);
      dt[n++] = now_us () - t0;
      outside += !ok;
      if (f)
        fprintf (f, "3 %" PRId64 " %" PRId64 " %" PRId64 " %a\n", m, k, nn, ok ? out : NAN);
    }
  if (f)
    {
      g_autofree char *points = g_strconcat (dump, ".points", NULL);

      fclose (f);
      dump_table (t, points);
    }
  {
    g_autofree char *note = g_strdup_printf ("outside=%zu", outside);
    child_report ("core3d", dt, n, note);
  }
  return 0;
}

static int
child_main (const bench_opts *o, int argc, char **argv)
{
  const char *mode = argv[0];

  if (strcmp (mode, "empty") == 0 && argc == 2)
    return child_load (o, argv[1], FALSE);
  if (strcmp (mode, "load") == 0 && argc == 2)
    return child_load (o, argv[1], TRUE);
  if (strcmp (mode, "exact") == 0 && argc == 3)
    return child_exact (o, argv[1], (size_t) atol (argv[2]));
  if (strcmp (mode, "miss") == 0 && argc == 3)
    return child_miss (o, argv[1], (size_t) atol (argv[2]));
  if (strcmp (mode, "interp") == 0 && argc == 6)
    return child_interp (o, argv[1], atol (argv[2]), atoi (argv[3]), (size_t) atol (argv[4]),
                         strcmp (argv[5], "-") ? argv[5] : NULL);
  if (strcmp (mode, "traces") == 0)
    return e2e_child_traces (o, argc, argv);
  if (strcmp (mode, "core3d") == 0 && argc == 5)
    return child_core3d (o, argv[1], atol (argv[2]), (size_t) atol (argv[3]),
                         strcmp (argv[4], "-") ? argv[4] : NULL);
  fprintf (stderr, "bench: bad child arguments\n");
  return 2;
}

/* ------------------------------------------------------------------ parent */


/* Runs argv (NULL-terminated) with stdout captured (capture), written to out_path, or
 * discarded, and stderr written to err_path (or discarded when stdout is not captured); fills
 * cr with the child's wall time, CPU time (user + system, from wait4) and peak RSS. */
void
run_to (char *const *argv, gboolean capture, const char *out_path, const char *err_path,
        child_run *cr)
{
  int pipefd[2] = { -1, -1 };
  struct rusage ru;
  pid_t pid;
  GString *buf = g_string_new (NULL);
  double t0 = now_us ();
  int status = 0;

  if (pipe (pipefd) != 0)
    {
      perror ("bench: pipe");
      exit (1);
    }
  fflush (stdout);
  pid = fork ();
  if (pid < 0)
    {
      perror ("bench: fork");
      exit (1);
    }
  if (pid == 0)
    {
      int null = open ("/dev/null", O_WRONLY);
      int out = out_path ? open (out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : null;
      int err = err_path ? open (err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : null;

      if (out < 0 || err < 0)
        _exit (126);
      dup2 (capture ? pipefd[1] : out, STDOUT_FILENO);
      /* msperf estimate prints its summary on stderr; the harness prints the table. */
      if (!capture || err_path)
        dup2 (err, STDERR_FILENO);
      close (pipefd[0]);
      close (pipefd[1]);
      execv (argv[0], argv);
      perror ("bench: exec");
      _exit (127);
    }
  close (pipefd[1]);
  for (;;)
    {
      char chunk[4096];
      ssize_t got = read (pipefd[0], chunk, sizeof chunk);

      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        break;
      g_string_append_len (buf, chunk, got);
    }
  close (pipefd[0]);
  while (wait4 (pid, &status, 0, &ru) < 0)
    if (errno != EINTR)
      {
        perror ("bench: wait4");
        exit (1);
      }
  cr->wall_us = now_us () - t0;
  cr->cpu_us = (double) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6
               + (double) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  cr->maxrss_kb = ru.ru_maxrss;
  cr->status = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
  cr->out = g_string_free (buf, FALSE);
}

static void
run (char *const *argv, gboolean capture, child_run *cr)
{
  run_to (argv, capture, NULL, NULL, cr);
}

typedef struct {
  char *op, *dataset, *note;
  stats s;
  long rss_kb;
} row;

static void
row_free (row *r)
{
  g_free (r->op);
  g_free (r->dataset);
  g_free (r->note);
  g_free (r);
}

static row *
add_row (const bench_opts *o, const char *op, const char *dataset, stats s, long rss_kb, const char *note)
{
  row *r = g_new0 (row, 1);

  r->op = g_strdup (op);
  r->dataset = g_strdup (dataset);
  r->note = g_strdup (note && strcmp (note, "-") ? note : "");
  r->s = s;
  r->rss_kb = rss_kb;
  g_ptr_array_add (o->rows, r);
  return r;
}

static const row *
find_row (const bench_opts *o, const char *op, const char *dataset)
{
  for (guint k = 0; k < o->rows->len; k++)
    {
      const row *r = o->rows->pdata[k];

      if (strcmp (r->op, op) == 0 && strcmp (r->dataset, dataset) == 0)
        return r;
    }
  return NULL;
}

/* Runs `self --child ARGS…` and adds one table row per "R tag …" line, named by labels
 * (tag=label pairs, in order). */
static long
child (const bench_opts *o, const char *dataset, const char *const *labels, ...)
{
  GPtrArray *argv = g_ptr_array_new ();
  child_run cr;
  va_list ap;
  const char *a;
  g_auto (GStrv) lines = NULL;

  g_ptr_array_add (argv, (gpointer) "/proc/self/exe");
  g_ptr_array_add (argv, (gpointer) "--plugins");
  g_ptr_array_add (argv, (gpointer) o->plugins);
  g_ptr_array_add (argv, (gpointer) "--child");
  va_start (ap, labels);
  while ((a = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  run ((char *const *) argv->pdata, TRUE, &cr);
  g_ptr_array_free (argv, TRUE);
  if (cr.status != 0)
    fprintf (stderr, "bench: child for %s exited with %d\n", dataset, cr.status);
  lines = g_strsplit (cr.out, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      char tag[64], note[256];
      stats s;

      if (sscanf (*l, "R %63s %lf %lf %lf %zu %255s", tag, &s.median, &s.p90, &s.mean, &s.n,
                  note) != 6)
        continue;
      for (const char *const *lab = labels; lab[0]; lab += 2)
        if (strcmp (lab[0], tag) == 0)
          add_row (o, lab[1], dataset, s, cr.maxrss_kb, note);
    }
  g_free (cr.out);
  return cr.maxrss_kb;
}

/* Repeated whole-process measurements (load, estimate): one sample per run. */
static void
repeat_load (const bench_opts *o, const char *db, const char *dataset, int reps,
             off_t csv_bytes)
{
  g_autofree double *t = g_new (double, reps);
  long rss_load = 0, rss_empty = 0;
  stats s;
  g_autofree char *note = NULL;

  for (int k = 0; k < reps; k++)
    {
      char *argv[] = { (char *) "/proc/self/exe", (char *) "--plugins", (char *) o->plugins,
                       (char *) "--child", (char *) "load", (char *) db, NULL };
      char *argv_empty[] = { (char *) "/proc/self/exe", (char *) "--plugins",
                             (char *) o->plugins, (char *) "--child", (char *) "empty",
                             (char *) db, NULL };
      child_run cr, ce;
      double median, p90, mean;
      size_t n;

      run (argv, TRUE, &cr);
      run (argv_empty, TRUE, &ce);
      if (cr.status != 0 || sscanf (cr.out, "R load %lf %lf %lf %zu", &median, &p90, &mean, &n) != 4)
        {
          fprintf (stderr, "bench: load child failed on %s\n", db);
          exit (1);
        }
      t[k] = median;
      rss_load = MAX (rss_load, cr.maxrss_kb);
      rss_empty = MAX (rss_empty, ce.maxrss_kb);
      g_free (cr.out);
      g_free (ce.out);
    }
  s = summarise (t, (size_t) reps);
  note = g_strdup_printf ("added_rss=%.1fMB csv=%.1fMB ratio=%.2f",
                          (double) (rss_load - rss_empty) / 1024.0, (double) csv_bytes / 1048576.0,
                          (double) (rss_load - rss_empty) * 1024.0 / (double) csv_bytes);
  add_row (o, "load + index build", dataset, s, rss_load, note);
}

static void
repeat_estimate (const bench_opts *o, const char *db, const char *trace, const char *dataset,
                 int reps)
{
  g_autofree double *t = g_new (double, reps);
  long rss = 0;
  int status = 0;

  for (int k = 0; k < reps; k++)
    {
      char *argv[] = { (char *) o->msperf, (char *) "--plugins-dir", (char *) o->plugins,
                       (char *) "estimate", (char *) "--profiling-database", (char *) db,
                       (char *) "--ops", (char *) trace, (char *) "--format", (char *) "jsonl",
                       NULL };
      child_run cr;

      run (argv, FALSE, &cr);
      t[k] = cr.wall_us;
      rss = MAX (rss, cr.maxrss_kb);
      status |= cr.status;
      g_free (cr.out);
    }
  add_row (o, "estimate (end to end)", dataset, summarise (t, (size_t) reps), rss,
           status ? "msperf exited non-zero" : NULL);
}

static void
fmt_time (char *buf, size_t size, double us)
{
  if (isnan (us))
    g_snprintf (buf, size, "n/a");
  else if (us >= 1e5)
    g_snprintf (buf, size, "%.1f ms", us / 1e3);
  else if (us >= 1e3)
    g_snprintf (buf, size, "%.2f ms", us / 1e3);
  else
    g_snprintf (buf, size, "%.2f us", us);
}

static void
print_table (const bench_opts *o)
{
  printf ("\n%-28s %-16s %7s %11s %11s %12s %9s  %s\n", "operation", "dataset", "n", "median",
          "p90", "ops/s", "peak RSS", "notes");
  for (guint k = 0; k < o->rows->len; k++)
    {
      const row *r = o->rows->pdata[k];
      char med[32], p90[32];

      fmt_time (med, sizeof med, r->s.median);
      fmt_time (p90, sizeof p90, r->s.p90);
      printf ("%-28s %-16s %7zu %11s %11s %12.0f %7.1fMB  %s\n", r->op, r->dataset, r->s.n, med,
              p90, 1e6 / r->s.mean, (double) r->rss_kb / 1024.0, r->note);
    }
}

static off_t
file_size (const char *path)
{
  GStatBuf st;

  return g_stat (path, &st) == 0 ? st.st_size : 0;
}

static void
target (const bench_opts *o, const char *what, double achieved, double limit, const char *unit, gboolean at_most)
{
  gboolean ok = !isnan (achieved) && (at_most ? achieved <= limit : achieved >= limit);

  if (isnan (achieved))
    printf ("  [ -- ] %-58s not measured\n", what);
  else
    printf ("  [%s] %-58s %10.3f %s (target %s %g)\n", ok ? " OK " : "FAIL", what, achieved,
            unit, at_most ? "<=" : ">=", limit);
  *o->failures += !ok;
}

static double
median_of (const bench_opts *o, const char *op, const char *dataset)
{
  const row *r = find_row (o, op, dataset);

  return r ? r->s.median : NAN;
}

/* scipy side-by-side: SCRIPT points answers → "S per_query_us max_rel n" lines. */
static void
scipy_side (const bench_opts *o, const char *label, const char *answers, double msperf_us,
            int max_queries)
{
  g_autofree char *points = g_strconcat (answers, ".points", NULL);
  g_autofree char *limit = g_strdup_printf ("%d", max_queries);
  char *argv[] = { (char *) o->python, (char *) o->scipy, points, (char *) answers, limit, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;
  double per_query, max_rel;
  size_t n;

  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                     &error)
      || !g_spawn_check_wait_status (status, NULL)
      || sscanf (out, "S %lf %lf %zu", &per_query, &max_rel, &n) != 3)
    {
      printf ("  %-34s scipy run failed: %s%s\n", label, error ? error->message : "",
              err ? err : "");
      (*o->failures)++;
      return;
    }
  printf ("  %-34s %5zu queries  scipy %10.1f us/query  msperf %8.2f us  ratio %9.0fx  "
          "max rel diff %.3g %s\n", label, n, per_query, msperf_us, per_query / msperf_us,
          max_rel, max_rel <= 1e-12 ? "(identical)" : "(DIFFERENT)");
  *o->failures += max_rel > 1e-12;
  if (g_str_has_prefix (label, "3-D engine"))
    target (o, "3-D query >= 1000x faster than scipy griddata per query", per_query / msperf_us,
            1000, "x", FALSE);
}

static gboolean
have_scipy (const bench_opts *o)
{
  char *argv[] = { (char *) o->python, (char *) "-c", (char *) "import scipy, numpy", NULL };
  int status = 0;

  if (o->scipy == NULL)
    return FALSE;
  return g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                       NULL, NULL, NULL, NULL, &status, NULL)
         && g_spawn_check_wait_status (status, NULL);
}

/* The engine through the library: per-query medians inside one process. */
static void
lib_section (const bench_opts *o, const char *tmp, gboolean scipy)
{
  static const char *const sizes[] = { "1k", "10k", "100k" };
  static const int64_t size_rows[] = { 1000, 10000, 100000 };
  size_t nq = o->quick ? 500 : 2000;
  char nbuf[32], rbuf[32];
  g_autofree char *sample_csv = g_build_filename (o->sample_db, "MatMulV2.csv", NULL);
  g_autofree char *sample_label = g_strdup_printf ("sample (%zu rows)", (size_t) 1092);

  printf ("\nThe engine through the library (single thread, per-query medians)\n");
  g_snprintf (nbuf, sizeof nbuf, "%zu", nq);

  /* The sample database (MatMulV2.csv, 1 092 rows). */
  repeat_load (o, o->sample_db, "sample 1.1k", o->quick ? 3 : 5, file_size (sample_csv));
  child (o, "sample 1.1k", (const char *const[]){ "exact", "exact hit", NULL }, "exact",
         o->sample_db, nbuf, NULL);
  child (o, "sample 1.1k", (const char *const[]){ "miss", "exact miss (+roofline)", NULL },
         "miss", o->sample_db, nbuf, NULL);
  (void) sample_label;

  /* --quick leaves out the 100k grid here (its cold triangulations and scipy's take minutes);
   * the end-to-end section still measures that table's start-up, hits and misses. */
  int n_sizes = o->quick ? 2 : 3;

  for (int s = 0; s < n_sizes; s++)
    {
      g_autofree char *db = g_strdup_printf ("%s/db-%s", o->data, sizes[s]);
      g_autofree char *csv = g_build_filename (db, "MatMulV2.csv", NULL);
      g_autofree char *dataset = g_strdup_printf ("gen %s rows", sizes[s]);
      g_autofree char *dump3 = g_strdup_printf ("%s/interp3-%s", tmp, sizes[s]);
      g_autofree char *dump2 = g_strdup_printf ("%s/interp2-%s", tmp, sizes[s]);
      g_autofree char *dumpc = g_strdup_printf ("%s/core3-%s", tmp, sizes[s]);
      size_t ni = o->quick ? 200 : (s == 2 ? 500 : 1000);
      char nibuf[32];

      g_snprintf (rbuf, sizeof rbuf, "%" PRId64, size_rows[s]);
      g_snprintf (nibuf, sizeof nibuf, "%zu", ni);
      repeat_load (o, db, dataset, o->quick ? 3 : 5, file_size (csv));
      child (o, dataset, (const char *const[]){ "exact", "exact hit", NULL }, "exact", db, nbuf,
             NULL);
      child (o, dataset, (const char *const[]){ "miss", "exact miss (+roofline)", NULL },
             "miss", db, nbuf, NULL);
      child (o, dataset, (const char *const[]){ "interp1_cold", "1-D interp, cold first",
                                                "interp1", "1-D interp, warm", NULL },
             "interp", db, rbuf, "1", nibuf, "-", NULL);
      child (o, dataset, (const char *const[]){ "interp2_cold", "2-D interp, cold first",
                                                "interp2", "2-D interp, warm", NULL },
             "interp", db, rbuf, "2", nibuf, scipy ? dump2 : "-", NULL);
      child (o, dataset, (const char *const[]){ "interp3_cold", "3-D interp, cold first",
                                                "interp3", "3-D interp, warm", NULL },
             "interp", db, rbuf, "3", nibuf, scipy ? dump3 : "-", NULL);
      child (o, dataset, (const char *const[]){ "core3d_cold", "3-D core: triangulate",
                                                "core3d", "3-D core: griddata", NULL },
             "core3d", db, rbuf, nibuf, scipy ? dumpc : "-", NULL);
    }

  {
    static const char *const tr[] = { "10k", "20k", "40k" };

    for (int k = 0; k < 3; k++)
      {
        g_autofree char *db = g_strdup_printf ("%s/db-10k", o->data);
        g_autofree char *trace = g_strdup_printf ("%s/trace-%s.jsonl", o->data, tr[k]);
        g_autofree char *dataset = g_strdup_printf ("%s-op trace", tr[k]);

        repeat_estimate (o, db, trace, dataset, o->quick ? 1 : 5);
      }
  }

  print_table (o);

  printf ("\nTargets of the library\n");
  target (o, "exact hit median, sample 1.1k rows (us)", median_of (o, "exact hit", "sample 1.1k"), 2,
          "us", TRUE);
  target (o, "exact hit median, generated 1k rows (us)", median_of (o, "exact hit", "gen 1k rows"), 2,
          "us", TRUE);
  target (o, "exact hit median, generated 100k rows (us)", median_of (o, "exact hit", "gen 100k rows"),
          5, "us", TRUE);
  target (o, "3-D interpolated query median, warm, gen 1k (us)",
          median_of (o, "3-D interp, warm", "gen 1k rows"), 20, "us", TRUE);
  target (o, "3-D interpolated query median, warm, gen 100k (us)",
          median_of (o, "3-D interp, warm", "gen 100k rows"), 20, "us", TRUE);
  target (o, "load + index build, 100k rows (s)",
          median_of (o, "load + index build", "gen 100k rows") / 1e6, 0.5, "s", TRUE);
  {
    const row *r = find_row (o, "load + index build", "gen 100k rows");
    double ratio = NAN;

    if (r && strstr (r->note, "ratio="))
      ratio = g_ascii_strtod (strstr (r->note, "ratio=") + 6, NULL);
    target (o, "added memory / CSV bytes, 100k rows", ratio, 5, "x", TRUE);
  }
  target (o, "20 000-op trace end to end (s)", median_of (o, "estimate (end to end)", "20k-op trace")
                                            / 1e6, 0.5, "s", TRUE);
  {
    double t10 = median_of (o, "estimate (end to end)", "10k-op trace");
    double t20 = median_of (o, "estimate (end to end)", "20k-op trace");
    double t40 = median_of (o, "estimate (end to end)", "40k-op trace");

    printf ("  linearity: 10k %.3f s, 20k %.3f s (x%.2f), 40k %.3f s (x%.2f)\n", t10 / 1e6,
            t20 / 1e6, t20 / t10, t40 / 1e6, t40 / t20);
    target (o, "40k/20k trace time ratio (linear: ~2)", t40 / t20, 2.5, "x", TRUE);
  }

  printf ("\nSide-by-side with scipy griddata (same candidate sets and queries)\n");
  if (!scipy)
    printf ("  skipped: %s has no scipy (or no script given)\n", o->python);
  else
    for (int s = 0; s < n_sizes; s++)
      {
        g_autofree char *dataset = g_strdup_printf ("gen %s rows", sizes[s]);
        g_autofree char *dump3 = g_strdup_printf ("%s/interp3-%s", tmp, sizes[s]);
        g_autofree char *dump2 = g_strdup_printf ("%s/interp2-%s", tmp, sizes[s]);
        g_autofree char *dumpc = g_strdup_printf ("%s/core3-%s", tmp, sizes[s]);
        g_autofree char *l3 = g_strdup_printf ("3-D engine, %s", dataset);
        g_autofree char *l2 = g_strdup_printf ("2-D engine, %s", dataset);
        g_autofree char *lc = g_strdup_printf ("3-D core, %s", dataset);
        /* scipy re-triangulates per query: ~60 ms at 1k points, ~1.3 s at 10k, ~20 s at 100k. */
        int lim = s == 0 ? (o->quick ? 40 : 200) : s == 1 ? (o->quick ? 5 : 20) : 1;

        if (g_file_test (dump3, G_FILE_TEST_EXISTS) && file_size (dump3) > 0)
          scipy_side (o, l3, dump3, median_of (o, "3-D interp, warm", dataset), lim);
        else
          printf ("  %-34s no engine answers (interpolation stage unavailable)\n", l3);
        if (g_file_test (dump2, G_FILE_TEST_EXISTS) && file_size (dump2) > 0)
          scipy_side (o, l2, dump2, median_of (o, "2-D interp, warm", dataset), lim);
        scipy_side (o, lc, dumpc, median_of (o, "3-D core: griddata", dataset), lim);
      }

  printf ("\n%s\n", *o->failures ? "Some targets of the library were NOT met (see above)."
                                   : "All targets of the library met.");
}

static int
parent_main (const bench_opts *o)
{
  g_autofree char *tmp = g_dir_make_tmp ("msperf-bench-XXXXXX", NULL);
  gboolean scipy = have_scipy (o);

  printf ("msperf bench: library CFLAGS \"%s\", harness -O2; every measurement in its own "
          "process; scipy: %s\n", BENCH_CFLAGS,
          scipy ? o->python : "skipped (no scipy in the python given, or no script)");
  if (o->only == NULL || strcmp (o->only, "lib") == 0)
    lib_section (o, tmp, scipy);
  if (o->only == NULL || strcmp (o->only, "e2e") == 0)
    e2e_main (o, tmp, scipy);
  {
    g_autoptr (GDir) dir = g_dir_open (tmp, 0, NULL);
    const char *name;

    while (dir && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *p = g_build_filename (tmp, name, NULL);
        g_unlink (p);
      }
    g_rmdir (tmp);
  }
  /* A report, not a gate: the tables and the targets above are the result. */
  return 0;
}

int
main (int argc, char **argv)
{
  int failures = 0;
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) row_free);
  bench_opts o = { .python = "/usr/bin/python3", .rows = rows, .failures = &failures };
  int k;

  for (k = 1; k < argc; k++)
    {
      const char *a = argv[k];

      if (strcmp (a, "--child") == 0 && k + 1 < argc)
        return child_main (&o, argc - k - 1, argv + k + 1);
      if (strcmp (a, "--quick") == 0)
        o.quick = TRUE;
      else if (k + 1 >= argc)
        break;
      else if (strcmp (a, "--data") == 0)
        o.data = argv[++k];
      else if (strcmp (a, "--sample-db") == 0)
        o.sample_db = argv[++k];
      else if (strcmp (a, "--plugins") == 0)
        o.plugins = argv[++k];
      else if (strcmp (a, "--msperf") == 0)
        o.msperf = argv[++k];
      else if (strcmp (a, "--scipy") == 0)
        o.scipy = argv[++k];
      else if (strcmp (a, "--python") == 0)
        o.python = argv[++k];
      else if (strcmp (a, "--aic-db") == 0)
        o.aic_db = argv[++k];
      else if (strcmp (a, "--gen-db") == 0)
        o.gen_db = argv[++k];
      else if (strcmp (a, "--seed") == 0)
        o.seed = g_ascii_strtoll (argv[++k], NULL, 10);
      else if (strcmp (a, "--only") == 0)
        o.only = argv[++k];
      else if (strcmp (a, "--e2e-lines") == 0)
        o.e2e_lines = g_ascii_strtoll (argv[++k], NULL, 10);
      else
        break;
    }
  if (k < argc || !o.data || !o.sample_db || !o.plugins || !o.msperf || !o.gen_db
      || (o.only && strcmp (o.only, "lib") && strcmp (o.only, "e2e")) || o.e2e_lines < 0
      || o.e2e_lines == 1)
    {
      fprintf (stderr, "usage: bench --data DIR --sample-db DIR --plugins DIR --msperf BIN "
                       "--gen-db BIN [--aic-db DIR] [--seed N] [--scipy SCRIPT] [--python PY] "
                       "[--only lib|e2e] [--e2e-lines N] [--quick]\n");
      return 2;
    }
  return parent_main (&o);
}
