/* msperf fuzzing — a --policy file merged over the built-in defaults
 * (msperf_policy_merge_data), then everything computed from the effective policy. */
#include <config.h>
#include "engine/policy.h"
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
  g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
  g_autofree char *text = fuzz_strndup (data, size);
  g_autofree char *json = NULL;
  g_autofree char *hash = NULL;
  g_autoptr (GHashTable) disabled = NULL;

  if (!msperf_policy_merge_data (p, text, "fuzz.yaml", &error))
    {
      if (error == NULL)
        abort ();
      return 0;
    }
  json = msperf_policy_canonical_json (p);
  hash = msperf_policy_hash (p);
  disabled = msperf_policy_disabled_modules (p);
  (void) msperf_policy_get (p, "interpolation.max_interpolation_dim");
  return 0;
}
