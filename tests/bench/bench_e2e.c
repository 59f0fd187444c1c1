/* msperf benchmark, end to end (`make bench`): what a user runs. Every measurement
 * is one `msperf estimate … --format jsonl` process on a trace file (wall time, CPU time and
 * peak RSS from wait4), on the sample database, the aiconfigurator H200 GEMM table and the
 * generated 100 k-row table:
 *
 *   start-up            1 exact-hit line (engine start, database and table load, index)
 *   exact hits          N lines of the table's own shapes (distinct up to the table's rows)
 *   exact misses        N distinct shapes off the grid with --disable-profiling-interpolation
 *   3-D queries         N distinct shapes strictly inside a grid cell (in the hull), --jobs 1
 *                       and --jobs 2; the first line alone gives the cold first query
 *   disk cache          the first 3-D query again with an empty, then a filled --cache-dir
 *   1 M lines           gen_db's trace on the 10k grid, default --jobs: peak RSS
 *
 * A per-line cost is the difference of two runs (N lines minus 1 line) over N − 1, so that
 * start-up, the table load and the cold triangulation cancel; start-up is printed as well.
 * Times are judged on CPU time (user + system) for --jobs 1: the machine is shared, and for a
 * single answering thread the CPU time is what an idle machine's wall time would be (or
 * more). The --jobs speed-up can only be a wall-time ratio; the load average is printed
 * beside it. Answers are compared byte for byte (jobs 1 vs 2, cache cold vs warm vs none) and
 * with scipy griddata on the same candidate set (tests/bench/scipy_side.py --jsonl). */
#define _DEFAULT_SOURCE 1
#include <config.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include "bench.h"
#include "gen_grid.h"

/* ------------------------------------------------------------------ traces (child) */

static int
cmp_i64 (gconstpointer a, gconstpointer b)
{
  int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

  return x < y ? -1 : x > y;
}

/* The distinct values of one axis, ascending. */
static void
sort_unique (GArray *a)
{
  guint w = 0;

  g_array_sort (a, cmp_i64);
  for (guint r = 0; r < a->len; r++)
    if (w == 0 || g_array_index (a, int64_t, r) != g_array_index (a, int64_t, w - 1))
      g_array_index (a, int64_t, w++) = g_array_index (a, int64_t, r);
  g_array_set_size (a, w);
}

typedef struct {
  GArray *axis[3];   /* int64_t: the distinct M, K, N of the bf16 rows */
} e2e_grid;

static void
grid_clear (e2e_grid *g)
{
  for (int a = 0; a < 3; a++)
    g_array_unref (g->axis[a]);
}

static void
grid_of_table (const msperf_table *t, e2e_grid *g)
{
  for (int a = 0; a < 3; a++)
    g->axis[a] = g_array_new (FALSE, FALSE, sizeof (int64_t));
  for (size_t r = 0; r < msperf_table_n_rows (t); r++)
    {
      int64_t v[3];
      msperf_dtype d;

      if (!row_mkn (t, r, &v[0], &v[1], &v[2], &d) || d != MSPERF_DTYPE_BF16)
        continue;
      for (int a = 0; a < 3; a++)
        g_array_append_val (g->axis[a], v[a]);
    }
  for (int a = 0; a < 3; a++)
    sort_unique (g->axis[a]);
}

/* TRUE when the exact stage would serve a query dim t by a table value padded up to it
 * (msperf_is_block_padded, core/base/shape.c): a shape using it is not a miss. */
static gboolean
pads_to_grid (const e2e_grid *g, int a, int64_t t)
{
  const GArray *x = g->axis[a];

  for (guint i = 0; i < x->len; i++)
    if (msperf_is_block_padded (t, g_array_index (x, int64_t, i)))
      return TRUE;
  return FALSE;
}

/* A value strictly inside a random cell of axis a — never the last cell, which on the
 * aiconfigurator table is where the 116 absent (m, n, k) lie, so every cell's 8 corners are
 * rows. Sets *hi to the cell's upper value; FALSE when the drawn cell has no interior. */
static gboolean
draw_between (const e2e_grid *g, int a, uint64_t *seed, int64_t *v, int64_t *hi)
{
  const GArray *x = g->axis[a];
  guint cells = x->len > 2 ? x->len - 2 : x->len - 1;
  guint i = (guint) (bench_rand (seed) % cells);
  int64_t lo = g_array_index (x, int64_t, i);

  *hi = g_array_index (x, int64_t, i + 1);
  if (*hi - lo < 2)
    return FALSE;
  *v = lo + 1 + (int64_t) (bench_rand (seed) % (uint64_t) (*hi - lo - 1));
  return TRUE;
}

static int64_t
draw_on (const e2e_grid *g, int a, uint64_t *seed)
{
  return g_array_index (g->axis[a], int64_t, bench_rand (seed) % g->axis[a]->len);
}

/* An mm line as a trace writes it: activation [M,K], weight [K,N] (the transpose rule finds
 * the CSV's [N,K] rows). */
static void
write_mm (FILE *f, int64_t m, int64_t k, int64_t n, const char *dtype)
{
  fprintf (f, "{\"op\": \"aten.mm.default\", \"args\": [{\"shape\": [%" PRId64 ", %" PRId64 "], "
              "\"dtype\": \"%s\"}, {\"shape\": [%" PRId64 ", %" PRId64 "], \"dtype\": \"%s\"}], "
              "\"out\": [{\"shape\": [%" PRId64 ", %" PRId64 "], \"dtype\": \"%s\"}]}\n",
           m, k, dtype, k, n, dtype, m, n, dtype);
}

static FILE *
open_trace (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  FILE *f = fopen (path, "w");

  if (f == NULL)
    {
      fprintf (stderr, "bench: %s: %s\n", path, g_strerror (errno));
      exit (1);
    }
  return f;
}

/* Lines of shapes (M, K, N, dtype) as "m k n dtype" keys: the whole trace and its first line. */
static void
write_pair (const char *dir, const char *name, GPtrArray *keys, size_t lines)
{
  g_autofree char *one = g_strdup_printf ("%s1.jsonl", name);
  g_autofree char *all = g_strdup_printf ("%s.jsonl", name);
  FILE *f1 = open_trace (dir, one), *fn = open_trace (dir, all);

  for (size_t l = 0; l < lines && keys->len; l++)
    {
      int64_t m, k, n;
      char dtype[32];

      if (sscanf (keys->pdata[l % keys->len], "%" SCNd64 " %" SCNd64 " %" SCNd64 " %31s", &m, &k,
                  &n, dtype) != 4)
        abort ();
      write_mm (fn, m, k, n, dtype);
      if (l == 0)
        write_mm (f1, m, k, n, dtype);
    }
  fclose (f1);
  fclose (fn);
}

/* Adds the key of (m, k, n, dtype) to keys unless seen; TRUE when added. */
static gboolean
add_key (GHashTable *seen, GPtrArray *keys, int64_t m, int64_t k, int64_t n, const char *dtype)
{
  char *key = g_strdup_printf ("%" PRId64 " %" PRId64 " %" PRId64 " %s", m, k, n, dtype);

  /* seen borrows the keys that keys owns. */
  if (g_hash_table_contains (seen, key))
    {
      g_free (key);
      return FALSE;
    }
  g_hash_table_add (seen, key);
  g_ptr_array_add (keys, key);
  return TRUE;
}

/* The table's own shapes, drawn evenly over its rows; cycled when the table has fewer. */
static size_t
hit_keys (const msperf_table *t, size_t want, GPtrArray *keys)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  size_t rows = msperf_table_n_rows (t), step = rows > want ? rows / want : 1;

  for (size_t r = 0; r < rows && keys->len < want; r += step)
    {
      int64_t m, k, n;
      msperf_dtype d;

      if (row_mkn (t, r, &m, &k, &n, &d) && msperf_dtype_torch_name (d) != NULL)
        add_key (seen, keys, m, k, n, msperf_dtype_torch_name (d));
    }
  return keys->len;
}

/* Distinct exact misses: K and N on the grid, M strictly inside a cell and not padded to a
 * grid value; when the grid leaves no such M (the generated grids step M by 64, so every
 * interior M pads up), M above the largest (no table value to pad from). */
static void
miss_keys (const e2e_grid *g, size_t want, uint64_t seed, GPtrArray *keys)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  int64_t top = g_array_index (g->axis[0], int64_t, g->axis[0]->len - 1);

  for (size_t tries = 0; keys->len < want && tries < 1000 * want; tries++)
    {
      int64_t m, hi;

      if (!draw_between (g, 0, &seed, &m, &hi) || pads_to_grid (g, 0, m))
        m = top + 1 + (int64_t) (bench_rand (&seed) % (uint64_t) top);
      add_key (seen, keys, m, draw_on (g, 1, &seed), draw_on (g, 2, &seed), "bfloat16");
    }
}

/* Distinct shapes strictly inside a grid cell on all three axes (3-D interpolation), not all
 * three padded to a grid value (which the exact stage would serve). */
static void
interior_keys (const e2e_grid *g, size_t want, uint64_t seed, GPtrArray *keys)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (size_t tries = 0; keys->len < want && tries < 1000 * want; tries++)
    {
      int64_t v[3], hi[3];

      if (!draw_between (g, 0, &seed, &v[0], &hi[0]) || !draw_between (g, 1, &seed, &v[1], &hi[1])
          || !draw_between (g, 2, &seed, &v[2], &hi[2]))
        continue;
      if (pads_to_grid (g, 0, v[0]) && pads_to_grid (g, 1, v[1]) && pads_to_grid (g, 2, v[2]))
        continue;
      add_key (seen, keys, v[0], v[1], v[2], "bfloat16");
    }
}

/* `--child traces DB DIR N SEED`: DIR/{hit,miss,q3}{,1}.jsonl (N lines and the first line). */
int
e2e_child_traces (const bench_opts *o, int argc, char **argv)
{
  g_autoptr (msperf_engine) e = NULL;
  g_autoptr (GPtrArray) hits = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) misses = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) inside = g_ptr_array_new_with_free_func (g_free);
  e2e_grid g;
  size_t n;
  uint64_t seed;

  if (argc != 5)
    return 2;
  e = engine_for (o, argv[1], FALSE);
  n = (size_t) atol (argv[3]);
  seed = (uint64_t) atoll (argv[4]);
  grid_of_table (matmul_table (e), &g);
  hit_keys (matmul_table (e), n, hits);
  miss_keys (&g, n, seed + 1, misses);
  interior_keys (&g, n, seed + 2, inside);
  write_pair (argv[2], "hit", hits, n);
  write_pair (argv[2], "miss", misses, n);
  write_pair (argv[2], "q3", inside, n);
  printf ("T rows=%zu grid=%ux%ux%u hits_distinct=%u misses=%u inside=%u\n",
          msperf_table_n_rows (matmul_table (e)), g.axis[0]->len, g.axis[1]->len, g.axis[2]->len,
          hits->len, misses->len, inside->len);
  grid_clear (&g);
  return misses->len == n && inside->len == n ? 0 : 1;
}

/* ------------------------------------------------------------------ runs (parent) */

typedef struct {
  double wall, cpu;   /* µs: medians over the repetitions */
  long rss_kb;        /* the largest */
  int status;         /* the last non-zero exit status */
} e2e_m;

typedef struct {
  const bench_opts *o;
  char *dir;          /* traces and outputs of this run */
  gboolean cache;     /* `msperf estimate --help` lists --no-cache and --cache-dir */
  size_t n;           /* lines of the N-line traces */
  int reps;
  int differ;         /* answer comparisons that found a difference */
  int invalid;        /* runs that failed or did not answer as the trace intends */
} e2e_ctx;

/* The results of one database, for the targets. */
typedef struct {
  const char *label;
  double start_cpu, hit_line_cpu, q_cpu, q_wall, speedup, first_warm_cpu, scipy_ratio;
} e2e_set;

static double
load_average (void)
{
  double l[1] = { NAN };

  return getloadavg (l, 1) == 1 ? l[0] : NAN;
}

/* `msperf estimate` of trace on db, reps times: stdout to out (and stderr to out.err), or both
 * to /dev/null. cache_dir NULL: --no-cache when the binary has a disk cache. */
static e2e_m
estimate (e2e_ctx *c, const char *db, const char *trace, const char *jobs,
          const char *cache_dir, gboolean interp_off, const char *out, int reps)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autofree double *wall = g_new (double, reps), *cpu = g_new (double, reps);
  g_autofree char *err = out ? g_strconcat (out, ".err", NULL) : NULL;
  e2e_m m = { NAN, NAN, 0, 0 };
  const char *fixed[] = { c->o->msperf, "--plugins-dir", c->o->plugins, "estimate",
                          "--profiling-database", db, "--ops", trace, "--format", "jsonl" };

  for (size_t k = 0; k < G_N_ELEMENTS (fixed); k++)
    g_ptr_array_add (argv, (gpointer) fixed[k]);
  if (jobs)
    {
      g_ptr_array_add (argv, (gpointer) "--jobs");
      g_ptr_array_add (argv, (gpointer) jobs);
    }
  if (c->cache && cache_dir)
    {
      g_ptr_array_add (argv, (gpointer) "--cache-dir");
      g_ptr_array_add (argv, (gpointer) cache_dir);
    }
  else if (c->cache)
    g_ptr_array_add (argv, (gpointer) "--no-cache");
  if (interp_off)
    g_ptr_array_add (argv, (gpointer) "--disable-profiling-interpolation");
  g_ptr_array_add (argv, NULL);
  for (int r = 0; r < reps; r++)
    {
      child_run cr;

      run_to ((char *const *) argv->pdata, FALSE, out, err, &cr);
      wall[r] = cr.wall_us;
      cpu[r] = cr.cpu_us;
      m.rss_kb = MAX (m.rss_kb, cr.maxrss_kb);
      if (cr.status)
        m.status = cr.status;
      g_free (cr.out);
    }
  c->invalid += m.status != 0;
  m.wall = summarise (wall, (size_t) reps).median;
  m.cpu = summarise (cpu, (size_t) reps).median;
  return m;
}

static void
fmt_us (char *buf, size_t size, double us)
{
  if (isnan (us))
    g_snprintf (buf, size, "n/a");
  else if (fabs (us) >= 1e6)
    g_snprintf (buf, size, "%.2f s", us / 1e6);
  else if (fabs (us) >= 1e3)
    g_snprintf (buf, size, "%.1f ms", us / 1e3);
  else
    g_snprintf (buf, size, "%.2f us", us);
}

/* One row of the end-to-end table: the run's wall and CPU time, the cost per line (NAN: not
 * a per-line row) and peak RSS. */
static void
print_row (const char *set, const char *what, size_t lines, e2e_m m, double per_wall,
           double per_cpu, const char *note)
{
  char w[32], u[32], pw[32], pu[32];

  fmt_us (w, sizeof w, m.wall);
  fmt_us (u, sizeof u, m.cpu);
  fmt_us (pw, sizeof pw, per_wall);
  fmt_us (pu, sizeof pu, per_cpu);
  printf ("%-12s %-30s %8zu %10s %10s %11s %11s %8.1fMB  %s%s\n", set, what, lines, w, u, pw, pu,
          (double) m.rss_kb / 1024.0, m.status ? "EXIT STATUS != 0; " : "", note ? note : "");
  fflush (stdout);
}

/* Lines of path holding needle. */
static size_t
count_lines (const char *path, const char *needle)
{
  g_autofree char *text = NULL;
  size_t n = 0;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  for (char *line = text, *end; *line; line = end + 1)
    {
      end = strchr (line, '\n');
      if (end)
        *end = '\0';
      n += strstr (line, needle) != NULL;
      if (!end)
        break;
    }
  return n;
}

static gboolean
same_bytes (const char *a, const char *b)
{
  g_autofree char *x = NULL, *y = NULL;
  gsize nx = 0, ny = 0;

  return g_file_get_contents (a, &x, &nx, NULL) && g_file_get_contents (b, &y, &ny, NULL)
         && nx == ny && memcmp (x, y, nx) == 0;
}

/* cmp of two runs' answers (stdout): "identical" or "DIFFERENT" (counted). stderr (the summary,
 * and any warning GLib stamps with the time) is compared too, but only reported. */
static const char *
same_answers (e2e_ctx *c, const char *a, const char *b)
{
  g_autofree char *ea = g_strconcat (a, ".err", NULL), *eb = g_strconcat (b, ".err", NULL);
  gboolean out = same_bytes (a, b), err = same_bytes (ea, eb);

  c->differ += !out;
  if (out)
    return err ? "identical" : "identical (stderr differs)";
  return err ? "DIFFERENT" : "DIFFERENT (stderr too)";
}

static char *
path_in (const e2e_ctx *c, const char *tag, const char *name)
{
  return g_build_filename (c->dir, tag, name, NULL);
}

static void
remove_file (const char *path)
{
  g_autofree char *err = g_strconcat (path, ".err", NULL);

  g_unlink (path);
  g_unlink (err);
}

/* ------------------------------------------------------------------ one database */

/* scipy griddata on the same candidates as the first answers of out (scipy_side.py --jsonl):
 * prints the row and returns scipy's median µs per query (NAN when it failed). */
static double
scipy_anchor (e2e_ctx *c, const char *set, const char *db, const char *out, int limit,
              double msperf_cpu)
{
  g_autofree char *csv = g_build_filename (db, "MatMulV2.csv", NULL);
  g_autofree char *lim = g_strdup_printf ("%d", limit);
  char *argv[] = { (char *) c->o->python, (char *) c->o->scipy, (char *) "--jsonl", csv,
                   (char *) out, lim, NULL };
  g_autofree char *sout = NULL, *serr = NULL;
  int status = 0;
  double per_query = NAN, max_rel = NAN;
  size_t n = 0;
  char note[200], t[32], ratio[48];

  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &sout, &serr, &status, NULL)
      || !g_spawn_check_wait_status (status, NULL)
      || sscanf (sout, "S %lf %lf %zu", &per_query, &max_rel, &n) != 3)
    {
      printf ("%-12s scipy griddata run failed: %s\n", set, serr ? serr : "");
      c->differ++;
      return NAN;
    }
  fmt_us (t, sizeof t, per_query);
  c->differ += !(max_rel <= 1e-12);
  if (isnan (msperf_cpu))
    g_snprintf (ratio, sizeof ratio, "msperf's per query unreliable");
  else
    g_snprintf (ratio, sizeof ratio, "%.0fx msperf's", per_query / msperf_cpu);
  g_snprintf (note, sizeof note, "%zu queries, median %s cpu a query = %s; max rel diff %.3g %s",
              n, t, ratio, max_rel, max_rel <= 1e-12 ? "(identical)" : "(DIFFERENT)");
  printf ("%-12s %-30s %s\n", set, "scipy griddata, same cands", note);
  return per_query;
}

/* Start-up, exact hits and exact misses; returns the start-up run (1 exact-hit line). */
static e2e_m
set_exact (e2e_ctx *c, e2e_set *r, const char *tag, const char *db)
{
  g_autofree char *hit1 = path_in (c, tag, "hit1.jsonl"), *hit = path_in (c, tag, "hit.jsonl");
  g_autofree char *miss1 = path_in (c, tag, "miss1.jsonl"), *miss = path_in (c, tag, "miss.jsonl");
  g_autofree char *out = path_in (c, tag, "out-exact.jsonl");
  g_autofree char *note = NULL;
  double d = (double) (c->n - 1);
  e2e_m s, m, s2;
  size_t got;

  s = estimate (c, db, hit1, "1", NULL, FALSE, NULL, c->reps);
  r->start_cpu = s.cpu;
  print_row (r->label, "start-up (1 exact-hit line)", 1, s, NAN, NAN, "engine, database, table, index");
  m = estimate (c, db, hit, "1", NULL, FALSE, out, 1);
  r->hit_line_cpu = (m.cpu - s.cpu) / d;
  got = count_lines (out, "\"source\": \"MEASURED\"");
  c->invalid += got != c->n;
  note = g_strdup_printf ("MEASURED %zu/%zu", got, c->n);
  print_row (r->label, "exact hits, --jobs 1", c->n, m, (m.wall - s.wall) / d, r->hit_line_cpu, note);
  g_clear_pointer (&note, g_free);
  s2 = estimate (c, db, miss1, "1", NULL, TRUE, NULL, c->reps);
  m = estimate (c, db, miss, "1", NULL, TRUE, out, 1);
  got = count_lines (out, "\"source\": \"MEASURED\"");
  c->invalid += got != 0;
  note = g_strdup_printf ("interpolation off; MEASURED %zu (want 0)", got);
  print_row (r->label, "exact misses, --jobs 1", c->n, m, (m.wall - s2.wall) / d,
             (m.cpu - s2.cpu) / d, note);
  remove_file (out);
  return s;
}

/* The N-line 3-D run with jobs; q1 the 1-line run of the same settings. Sets *per_wall and
 * returns the CPU µs a query; both NAN when the difference is below the 1-line run's noise. */
static double
set_3d_pair (e2e_ctx *c, e2e_set *r, const char *tag, const char *db, const char *jobs,
             const char *cache_dir, const char *label, e2e_m q1, const char *outn,
             double *per_wall, int reps)
{
  /* A few per cent of run-to-run noise on a cold start of seconds can exceed N queries. */
  gboolean noisy_cpu, noisy_wall;
  g_autofree char *q3 = path_in (c, tag, "q3.jsonl");
  g_autofree char *note = NULL;
  double d = (double) (c->n - 1), per_cpu;
  e2e_m m = estimate (c, db, q3, jobs, cache_dir, FALSE, outn, reps);
  size_t got = count_lines (outn, "\"interpolation_dim\": 3,");

  *per_wall = (m.wall - q1.wall) / d;
  per_cpu = (m.cpu - q1.cpu) / d;
  c->invalid += got != c->n;
  noisy_cpu = m.cpu - q1.cpu < 0.2 * q1.cpu;
  noisy_wall = m.wall - q1.wall < 0.2 * q1.wall;
  note = g_strdup_printf ("3-D INTERPOLATED %zu/%zu; load %.2f%s%s", got, c->n, load_average (),
                          noisy_cpu ? "; UNRELIABLE cpu/line: the queries cost less than the "
                                      "1-line run's noise (not used)" : "",
                          noisy_wall ? "; UNRELIABLE wall/line (not used)" : "");
  print_row (r->label, label, c->n, m, *per_wall, per_cpu, note);
  if (noisy_cpu)
    per_cpu = NAN;
  if (noisy_wall)
    *per_wall = NAN;
  return per_cpu;
}

/* Cold and warm starts with the disk cache: the first 3-D query with an empty --cache-dir,
 * again with the filled one, then the N-line run on the warm cache. */
static void
set_cache (e2e_ctx *c, e2e_set *r, const char *tag, const char *db, e2e_m start, gboolean jobs2)
{
  g_autofree char *dir = path_in (c, tag, "cache");
  g_autofree char *q31 = path_in (c, tag, "q31.jsonl");
  g_autofree char *o1 = path_in (c, tag, "out-q1-j1.jsonl"), *on = path_in (c, tag, "out-qn-j1.jsonl");
  g_autofree char *oc = path_in (c, tag, "out-q1-cold.jsonl"), *ow = path_in (c, tag, "out-q1-warm.jsonl");
  g_autofree char *onw = path_in (c, tag, "out-qn-warm.jsonl");
  g_autofree char *ow2 = path_in (c, tag, "out-q1-warm-j2.jsonl");
  g_autofree char *onw2 = path_in (c, tag, "out-qn-warm-j2.jsonl");
  g_autofree char *note = NULL;
  e2e_m cold, warm;
  double pw, per;

  if (!c->cache)
    {
      printf ("%-12s %-30s %s\n", r->label, "disk cache: cold / warm start", "n/a (no disk cache)");
      return;
    }
  g_mkdir_with_parents (dir, 0700);
  cold = estimate (c, db, q31, "1", dir, FALSE, oc, 1);
  note = g_strdup_printf ("empty --cache-dir; first 3-D query %.3f s cpu; answers vs --no-cache: %s",
                          (cold.cpu - start.cpu) / 1e6, same_answers (c, o1, oc));
  print_row (r->label, "cold start (1 3-D query)", 1, cold, NAN, NAN, note);
  g_clear_pointer (&note, g_free);
  /* The warm runs are short: medians of c->reps, so that the per-query differences below are
   * not one run's noise. */
  warm = estimate (c, db, q31, "1", dir, FALSE, ow, c->reps);
  r->first_warm_cpu = warm.cpu - start.cpu;
  note = g_strdup_printf ("filled --cache-dir; first 3-D query %.3f s cpu; answers: %s",
                          r->first_warm_cpu / 1e6, same_answers (c, o1, ow));
  print_row (r->label, "warm start (1 3-D query)", 1, warm, NAN, NAN, note);
  /* Without the cold triangulation in both runs, the difference is the queries' own cost. */
  per = set_3d_pair (c, r, tag, db, "1", dir, "3-D queries, warm cache, -j1", warm, onw, &pw,
                     c->reps);
  if (!isnan (per))
    r->q_cpu = per;
  printf ("%-12s %-30s vs --no-cache: %s\n", r->label, "", same_answers (c, on, onw));
  if (jobs2)
    {
      /* The same pair at --jobs 2: on a large table the cold runs' triangulation (seconds, a few
       * per cent of noise) hides the queries, and a user's second run starts warm anyway. */
      e2e_m warm2 = estimate (c, db, q31, "2", dir, FALSE, ow2, c->reps);
      char ratio[32] = "unreliable";
      double pw2, speedup;

      set_3d_pair (c, r, tag, db, "2", dir, "3-D queries, warm cache, -j2", warm2, onw2, &pw2,
                   c->reps);
      speedup = pw / pw2;
      if (!isnan (speedup))
        {
          g_snprintf (ratio, sizeof ratio, "%.2fx", speedup);
          r->speedup = speedup;  /* the warm pair's, when it is reliable */
        }
      printf ("%-12s %-30s warm --jobs 2 / --jobs 1 per-query wall: %s; answers: %s, %s\n",
              r->label, "", ratio, same_answers (c, onw, onw2), same_answers (c, ow, ow2));
      remove_file (ow2);
      remove_file (onw2);
    }
  remove_file (oc);
  remove_file (ow);
  remove_file (onw);
}

/* Distinct 3-D queries (--jobs 1 and 2, the scipy anchor) and the disk cache. */
static void
set_3d (e2e_ctx *c, e2e_set *r, const char *tag, const char *db, e2e_m start, gboolean heavy,
        gboolean jobs2, int scipy_limit)
{
  g_autofree char *q31 = path_in (c, tag, "q31.jsonl");
  g_autofree char *o1 = path_in (c, tag, "out-q1-j1.jsonl"), *on = path_in (c, tag, "out-qn-j1.jsonl");
  g_autofree char *o12 = path_in (c, tag, "out-q1-j2.jsonl"), *on2 = path_in (c, tag, "out-qn-j2.jsonl");
  g_autofree char *note = NULL;
  e2e_m q1 = estimate (c, db, q31, "1", NULL, FALSE, o1, heavy ? 1 : c->reps);
  double w1, w2;

  note = g_strdup_printf ("first 3-D query %.3f s cpu (table + candidate index + triangulation "
                          "+ answer, minus start-up)", (q1.cpu - start.cpu) / 1e6);
  print_row (r->label, "cold first 3-D query", 1, q1, NAN, NAN, note);
  r->q_cpu = set_3d_pair (c, r, tag, db, "1", NULL, "3-D queries, --jobs 1", q1, on, &w1, 1);
  r->q_wall = w1;
  if (jobs2)
    {
      e2e_m q12 = estimate (c, db, q31, "2", NULL, FALSE, o12, heavy ? 1 : c->reps);
      char ratio[32] = "unreliable";

      set_3d_pair (c, r, tag, db, "2", NULL, "3-D queries, --jobs 2", q12, on2, &w2, 1);
      r->speedup = w1 / w2;
      if (!isnan (r->speedup))
        g_snprintf (ratio, sizeof ratio, "%.2fx", r->speedup);
      printf ("%-12s %-30s --jobs 2 / --jobs 1 per-query wall: %s; answers: %s, %s\n",
              r->label, "", ratio, same_answers (c, on, on2), same_answers (c, o1, o12));
      remove_file (o12);
      remove_file (on2);
    }
  /* After the warm runs: their per-query cost stands in when the cold pair's is unreliable. */
  set_cache (c, r, tag, db, start, jobs2);
  if (scipy_limit > 0 && c->o->scipy)
    {
      double s = scipy_anchor (c, r->label, db, on, scipy_limit, r->q_cpu);

      r->scipy_ratio = s / r->q_cpu;
    }
  remove_file (o1);
  remove_file (on);
}

static void
bench_set (e2e_ctx *c, e2e_set *r, const char *tag, const char *db, gboolean heavy,
           gboolean with_3d, gboolean jobs2, int scipy_limit)
{
  g_autofree char *sub = g_build_filename (c->dir, tag, NULL);
  g_autofree char *n = g_strdup_printf ("%zu", c->n);
  g_autofree char *seed = g_strdup_printf ("%" PRId64, c->o->seed);
  char *argv[] = { (char *) "/proc/self/exe", (char *) "--plugins", (char *) c->o->plugins,
                   (char *) "--child", (char *) "traces", (char *) db, sub, n, seed, NULL };
  child_run cr;
  e2e_m start;

  g_mkdir_with_parents (sub, 0700);
  run_to (argv, TRUE, NULL, NULL, &cr);
  g_strchomp (cr.out);
  printf ("%-12s %s (%s)%s\n", r->label, db, cr.out + (cr.out[0] == 'T' ? 2 : 0),
          cr.status ? ": TRACE GENERATION FAILED" : "");
  c->invalid += cr.status != 0;
  g_free (cr.out);
  start = set_exact (c, r, tag, db);
  if (with_3d)
    set_3d (c, r, tag, db, start, heavy, jobs2, scipy_limit);
  else
    printf ("%-12s %-30s %s\n", r->label, "3-D queries, disk cache",
            "skipped (--quick: a cold triangulation of 100 k points takes ~30 s a run)");
}

/* ------------------------------------------------------------------ the section */

static gboolean
has_disk_cache (const bench_opts *o)
{
  char *argv[] = { (char *) o->msperf, (char *) "estimate", (char *) "--help", NULL };
  child_run cr;
  gboolean yes;

  run_to (argv, TRUE, NULL, NULL, &cr);
  yes = strstr (cr.out, "--no-cache") != NULL && strstr (cr.out, "--cache-dir") != NULL;
  g_free (cr.out);
  return yes;
}

/* gen_db's mixed trace (60 % hits, 20 % 3-D, 10 % adds, 10 % views) on the 10k grid — the
 * grid of the earlier 1 M-line measurements — generated once into the data directory. */
static void
big_trace (e2e_ctx *c, size_t lines, double *rss_mb)
{
  g_autofree char *db = g_build_filename (c->o->data, "db-10k", NULL);
  g_autofree char *name = g_strdup_printf ("trace-%zuk-lines.jsonl", lines / 1000);
  g_autofree char *trace = g_build_filename (c->o->data, name, NULL);
  g_autofree char *nl = g_strdup_printf ("%zu", lines);
  g_autofree char *seed = g_strdup_printf ("%" PRId64, c->o->seed);
  g_autofree char *note = NULL;
  e2e_m m;

  if (!g_file_test (trace, G_FILE_TEST_EXISTS))
    {
      char *argv[] = { (char *) c->o->gen_db, (char *) "trace", trace, (char *) "10000", nl,
                       seed, NULL };
      child_run cr;

      run_to (argv, FALSE, NULL, NULL, &cr);
      g_free (cr.out);
      if (cr.status != 0)
        {
          printf ("%-12s gen_db trace failed\n", "gen 10k");
          return;
        }
    }
  m = estimate (c, db, trace, NULL, NULL, FALSE, NULL, 1);
  *rss_mb = (double) m.rss_kb / 1024.0;
  note = g_strdup_printf ("gen_db trace, default --jobs; load %.2f", load_average ());
  print_row ("gen 10k", "mixed trace, peak RSS", lines, m, m.wall / (double) lines,
             m.cpu / (double) lines, note);
}

static void
verdict (const char *what, double got, double limit, gboolean at_most, const char *unit,
         const char *na)
{
  gboolean ok = at_most ? got <= limit : got >= limit;

  if (isnan (got))
    printf ("  %-9s %-62s %s\n", "[n/a]", what, na ? na : "not measured");
  else
    printf ("  %-9s %-62s %10.2f %s (target %s %g)\n", ok ? "[met]" : "[not met]", what, got,
            unit, at_most ? "<=" : ">=", limit);
}

static void
print_targets (const e2e_ctx *c, const e2e_set *sets, size_t n_sets, double rss_mb,
               size_t big_lines)
{
  const e2e_set *aic = &sets[1];
  char what[128];

  printf ("\nTargets end to end (per-line costs from CPU time of --jobs 1 runs, differences of "
          "N and 1 lines; load average now %.2f)\n", load_average ());
  for (size_t k = 0; k < 2; k++)
    {
      g_snprintf (what, sizeof what, "%zu distinct 3-D queries vs scipy griddata, %s", c->n,
                  sets[k].label);
      verdict (what, sets[k].scipy_ratio, 1000, FALSE, "x",
               "scipy not run, or msperf's per query unreliable");
    }
  for (size_t k = 0; k < n_sets; k++)
    {
      g_snprintf (what, sizeof what, "%zu exact-hit lines, a line, %s", c->n, sets[k].label);
      verdict (what, sets[k].hit_line_cpu, 10, TRUE, "us", NULL);
    }
  verdict ("warm 3-D query, aiconfigurator", aic->q_cpu, 20, TRUE, "us", NULL);
  verdict ("second run's first 3-D query, aiconfigurator (disk cache)",
           aic->first_warm_cpu / 1e6, 0.3, TRUE, "s", "n/a (no disk cache)");
  g_snprintf (what, sizeof what, "1 M-line trace, peak RSS%s",
              big_lines < 1000000 ? " (--quick: not measured)" : "");
  verdict (what, big_lines < 1000000 ? NAN : rss_mb, 300, TRUE, "MB", NULL);
  if (big_lines < 1000000)
    printf ("  %-9s %-62s %10.2f MB\n", "", "(the --quick run's 100 k-line trace)", rss_mb);
  for (size_t k = 0; k < n_sets; k++)
    {
      g_snprintf (what, sizeof what, "--jobs 2 / --jobs 1, 3-D queries (wall), %s", sets[k].label);
      verdict (what, sets[k].speedup, 1.6, FALSE, "x",
               c->o->quick && k > 0 ? "not run (--quick)" : "unreliable here (see the table)");
    }
  printf ("  %-9s %-62s %s\n", c->differ ? "[not met]" : "[met]",
          "every answer unchanged (cmp jobs/cache variants, scipy)",
          c->differ ? "some comparison DIFFERED (see above)" : "all identical");
  printf ("  %-9s %-62s %s\n", c->invalid ? "[FAILED]" : "[ok]",
          "every run exited 0 and answered as its trace intends",
          c->invalid ? "NO (see the notes above)" : "yes");
}

static void
remove_tree (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *p = g_build_filename (path, name, NULL);

      if (g_file_test (p, G_FILE_TEST_IS_DIR))
        remove_tree (p);
      else
        g_unlink (p);
    }
  g_rmdir (path);
}

void
e2e_main (const bench_opts *o, const char *tmp, gboolean scipy)
{
  g_autofree char *xdg = g_build_filename (tmp, "xdg-cache", NULL);
  g_autofree char *gen = g_build_filename (o->data, "db-100k", NULL);
  e2e_ctx c = { .o = o, .dir = g_build_filename (tmp, "e2e", NULL),
                .n = o->e2e_lines ? (size_t) o->e2e_lines : o->quick ? 5000 : 20000,
                .reps = o->quick ? 1 : 3 };
  e2e_set sets[3] = { { .label = "sample" }, { .label = "aic" }, { .label = "gen 100k" } };
  size_t big = o->quick ? 100000 : 1000000;
  double rss_mb = NAN;

  for (size_t k = 0; k < G_N_ELEMENTS (sets); k++)
    sets[k].start_cpu = sets[k].hit_line_cpu = sets[k].q_cpu = sets[k].q_wall = sets[k].speedup
      = sets[k].first_warm_cpu = sets[k].scipy_ratio = NAN;
  /* Never the user's own cache, whatever the binary does by default. */
  g_setenv ("XDG_CACHE_HOME", xdg, TRUE);
  c.cache = has_disk_cache (o);
  printf ("\nEnd to end: %s estimate --format jsonl, one process per run (N = %zu lines; "
          "load average %.2f; disk cache: %s)\n", o->msperf, c.n, load_average (),
          c.cache ? "yes" : "n/a (no disk cache)");
  printf ("%-12s %-30s %8s %10s %10s %11s %11s %10s  %s\n", "dataset", "run", "lines", "wall",
          "cpu", "wall/line", "cpu/line", "peak RSS", "notes");
  bench_set (&c, &sets[0], "sample", o->sample_db, FALSE, TRUE, TRUE,
             scipy ? (o->quick ? 20 : 100) : 0);
  if (o->aic_db)
    bench_set (&c, &sets[1], "aic", o->aic_db, TRUE, TRUE, !o->quick, scipy ? (o->quick ? 1 : 3) : 0);
  bench_set (&c, &sets[2], "gen-100k", gen, TRUE, !o->quick, !o->quick, scipy ? 1 : 0);
  big_trace (&c, big, &rss_mb);
  print_targets (&c, sets, G_N_ELEMENTS (sets), rss_mb, big);
  remove_tree (c.dir);
  remove_tree (xdg);
  g_free (c.dir);
}
