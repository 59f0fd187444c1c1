/* msperf fuzzing — a serving request file (JSON Lines: arrival_s or arrival_ms, input_tokens,
 * output_tokens per line; the reader of `serve --requests`) through
 * msperf_serve_parse_requests, then the checks its answer must pass: at least one request,
 * arrivals finite, >= 0 and not decreasing, token counts in 1..MSPERF_SERVE_MAX_TOKENS. A
 * refusal must come with its reason. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <glib.h>
#include "app/serve/serve.h"
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
  GArray *reqs = msperf_serve_parse_requests ((const char *) data, size, "fuzz.jsonl", &error);
  double last = 0;

  if (reqs == NULL)
    {
      if (error == NULL)
        abort ();
      return 0;
    }
  if (reqs->len == 0)
    abort ();
  for (guint i = 0; i < reqs->len; i++)
    {
      const msperf_serve_req_spec *r = &g_array_index (reqs, msperf_serve_req_spec, i);

      if (!isfinite (r->arrival_s) || r->arrival_s < last || r->isl < 1 || r->osl < 1
          || r->isl > MSPERF_SERVE_MAX_TOKENS || r->osl > MSPERF_SERVE_MAX_TOKENS)
        abort ();
      last = r->arrival_s;
    }
  g_array_free (reqs, TRUE);
  return 0;
}
