/* msperf fuzzing — the ATT VF perf table (msperf_att_table_load, from a scratch file) and its
 * two lookups. */
#include <config.h>
#include <msperf/att.h>
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
  static const char *const dtypes[] = { "float16", "float32", "int8", "uint8", "default",
                                        "bfloat16", "int4", "bool" };
  g_autoptr (GError) error = NULL;
  g_autofree char *path = fuzz_write_file ("vf_perf_table.yaml", data, size);
  g_autoptr (msperf_att_table) t = msperf_att_table_load (path, &error);
  int64_t lat, thr, n;

  if (t == NULL)
    {
      if (error == NULL)
        abort ();
      return 0;
    }
  (void) msperf_att_table_constant (t, "vf_head_cost", 20.0);
  for (size_t i = 0; i < G_N_ELEMENTS (dtypes); i++)
    {
      (void) msperf_att_table_repeat_elems (t, dtypes[i], &n);
      (void) msperf_att_table_block_elems (t, dtypes[i], &n);
      (void) msperf_att_table_dtype_size (t, dtypes[i], &n);
      (void) msperf_att_table_lookup (t, "Store", dtypes[i], &lat, &thr);
      (void) msperf_att_table_lookup (t, "Load", dtypes[i], &lat, &thr);
      for (size_t j = 0; j < G_N_ELEMENTS (dtypes); j++)
        (void) msperf_att_table_lookup_mapping (t, "Cast", dtypes[i], dtypes[j], &lat, &thr,
                                                NULL, NULL);
    }
  return 0;
}
