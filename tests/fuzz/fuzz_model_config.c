/* msperf fuzzing — a model config.json (a Hugging Face config: the reader of core/app/model)
 * through msperf_model_load with the shipped templates (the one its `architectures` selects,
 * the field checks), then, on whatever loaded, the layout check, one prefill and one decode
 * pass traced, and the memory. The reader takes a path: the input goes to a scratch file. */
#include <config.h>
#include <glib.h>
#include "app/model/model.h"
#include "fuzz_common.h"

#define MODEL_TEMPLATES MSPERF_SRCDIR "/policies/models"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  fuzz_init_logging ();
  return 0;
}

/* Fails the run when a refusal comes without its reason. */
static void
expect_reason (gboolean ok, GError **error)
{
  if (!ok && (error == NULL || *error == NULL))
    abort ();
  if (error != NULL)
    g_clear_error (error);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = fuzz_write_file ("config.json", data, size);
  g_autoptr (msperf_model) m = msperf_model_load (path, NULL, MODEL_TEMPLATES, NULL, &error);
  const msperf_model_layout layout = { .tp = 1, .ep = 1, .dp = 1, .pp = 1, .sp = FALSE };
  const msperf_model_pass prefill = { .phase = MSPERF_PHASE_PREFILL, .batch = 2, .seq = 128 };
  const msperf_model_pass decode = { .phase = MSPERF_PHASE_DECODE, .batch = 4, .context = 256,
                                     .nextn = 1 };
  double weights = 0, kv = 0;

  if (m == NULL)
    {
      if (error == NULL)
        abort ();
      return 0;
    }
  if (!msperf_model_check_layout (m, &layout, &error))
    {
      expect_reason (FALSE, &error);
      return 0;
    }
  {
    g_autoptr (GString) out = g_string_new (NULL);
    expect_reason (msperf_model_trace (m, &layout, &prefill, out, &error), &error);
    g_string_truncate (out, 0);
    expect_reason (msperf_model_trace (m, &layout, &decode, out, &error), &error);
  }
  expect_reason (msperf_model_memory (m, &layout, &weights, &kv, &error), &error);
  return 0;
}
