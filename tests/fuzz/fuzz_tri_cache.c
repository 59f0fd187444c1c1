/* msperf fuzzing — the triangulation cache reader (msperf_tri_cache_load): any file must be
 * refused with a message or give a triangulation that answers queries safely. The input is
 * sealed first (the key and checksum of the harness's fixed point set written in), so the
 * mutations reach the structural checks behind the checksum; the corpus seed is a valid file
 * for these points (tests/fuzz/corpus/tri_cache). Unsealed damage is tests/interp/
 * test_tri_cache.c's. */
#include <config.h>
#include "interp/tri_cache.h"
#include "fuzz_common.h"

#define TC_N 40
#define TC_DIM 3

typedef struct {
  double points[TC_N * TC_DIM];
  char *path;      /* the file each input is written to */
} tc_state_t;

/* The fixed points: a linear congruential sequence in [0, 100)^3 (seed 99). */
G_GNUC_UNUSED static tc_state_t *
tc_state (void)
{
  static tc_state_t s;
  static gsize done;

  if (g_once_init_enter (&done))
    {
      guint32 seed = 99u;
      int fd;

      for (size_t i = 0; i < TC_N * TC_DIM; i++)
        {
          seed = seed * 1664525u + 1013904223u;
          s.points[i] = (double) (seed >> 8) / (double) (1u << 24) * 100.0;
        }
      s.path = g_build_filename (g_get_tmp_dir (), "msperf-fuzz-tri-XXXXXX", NULL);
      fd = g_mkstemp (s.path);
      if (fd < 0)
        abort ();
      close (fd);
      g_once_init_leave (&done, 1);
    }
  return &s;
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  fuzz_init_logging ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  tc_state_t *s = tc_state ();
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_delaunay) tri = NULL;
  g_autofree guint8 *img = g_memdup2 (data, size);
  volatile double sink = 0;

  msperf_tri_cache_seal (img, size, s->points, TC_N, TC_DIM);
  if (!g_file_set_contents (s->path, (const char *) img, (gssize) size, NULL))
    abort ();
  tri = msperf_tri_cache_load (s->path, s->points, TC_N, TC_DIM, &error);
  if (tri == NULL)
    {
      if (error == NULL || error->message == NULL)
        abort ();
      return 0;
    }
  /* Queries inside, on and outside the hull walk the neighbours, the grid and the plain
   * scan over whatever passed the checks. */
  for (int q = 0; q < 64; q++)
    {
      double x[TC_DIM], bary[TC_DIM + 1], out = 0;
      int simplex = -1, start = q;

      for (int k = 0; k < TC_DIM; k++)
        x[k] = s->points[(size_t) (q * 7 % TC_N) * TC_DIM + (size_t) k] * (q % 3 ? 1.0 : 1.3)
               + (double) (q % 5) - 2.0;
      (void) msperf_delaunay_locate (tri, x, &simplex, bary);
      (void) msperf_delaunay_find_simplex (tri, x, &start, MSPERF_DELAUNAY_EPS, 1e-7, bary);
      (void) msperf_delaunay_find_bruteforce (tri, x, MSPERF_DELAUNAY_EPS, 1e-7, TRUE, bary);
      if (msperf_interp_griddata (tri, s->points, x, &out, NULL))
        sink += out;
    }
  (void) sink;
  return 0;
}
