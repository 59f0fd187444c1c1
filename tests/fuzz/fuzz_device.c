/* msperf fuzzing — a device profile (msperf_device_load; it only reads files, so the input is
 * written to a scratch file first). */
#include <config.h>
#include "io/device.h"
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
  g_autofree char *path = fuzz_write_file ("device.yaml", data, size);
  g_autoptr (msperf_device) d = msperf_device_load (path, &error);
  volatile double sink = 0;

  if (d == NULL)
    {
      if (error == NULL)
        abort ();
      return 0;
    }
  for (int k = 0; k < MSPERF_DTYPE_N_TYPES; k++)
    sink += msperf_device_peak_tflops (d, (msperf_dtype) k);
  for (guint k = 0; k < d->tiers->len; k++)
    {
      const msperf_comm_tier *t = g_ptr_array_index (d->tiers, k);
      sink += t->bandwidth_gbps + t->latency_us + (double) strlen (t->name);
    }
  for (char **a = d->aliases; *a != NULL; a++)
    sink += (double) strlen (*a);
  (void) sink;
  return 0;
}
