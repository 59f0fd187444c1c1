/* msperf fuzzing — the kernel CSV reader (msperf_table_load_data) and everything a query reads
 * from a loaded table: cells, latencies, decoded slots, problems. */
#include <config.h>
#include <msperf/shape.h>
#include <msperf/table.h>
#include "fuzz_common.h"

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
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_table) table = NULL;
  volatile double sink = 0;

  table = msperf_table_load_data ((const char *) data, size, "fuzz.csv", "MatMulV2", &error);
  if (table == NULL)
    {
      /* Every failure must come with a message. */
      if (error == NULL || error->message == NULL)
        abort ();
      return 0;
    }
  for (size_t r = 0; r < msperf_table_n_rows (table); r++)
    {
      const msperf_slots *in = msperf_table_row_inputs (table, r);
      const msperf_slots *out = msperf_table_row_outputs (table, r);

      sink += msperf_table_row_latency (table, r);
      sink += msperf_table_row_line (table, r);
      for (size_t c = 0; c < msperf_table_n_columns (table); c++)
        sink += strlen (msperf_table_cell (table, r, (int) c));
      for (size_t k = 0; in != NULL && k < in->n; k++)
        {
          msperf_tensor nd;
          sink += (double) msperf_tensor_numel (&in->t[k]);
          if (msperf_shape_nz_to_nd (&in->t[k], &nd))
            sink += (double) msperf_tensor_numel (&nd);
        }
      for (size_t k = 0; out != NULL && k < out->n; k++)
        sink += (double) msperf_tensor_numel (&out->t[k]);
    }
  sink += msperf_table_problems (table)->len;
  (void) sink;
  return 0;
}
