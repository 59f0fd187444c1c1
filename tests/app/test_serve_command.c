/* Tests of core/app/serve/serve_command.c: the `msperf serve` line of one simulation names the
 * model and its quantisation, the preset and only the knobs the run changed, the deployment
 * (aggregated or disaggregated pools) and the workload (closed loop with its prompt pool, or
 * open loop), quotes what a shell would split, and has no line for a requests file. */
#include <config.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include "app/serve/serve.h"

typedef struct {
  msperf_model_options mo;
  msperf_serve_policy preset, run;
  msperf_serve_deployment dep;
  msperf_serve_workload w;
  msperf_serve_command c;
} fixture;

static void
setup (fixture *f)
{
  memset (f, 0, sizeof *f);
  msperf_serve_policy_init (&f->preset);
  f->run = f->preset;
  f->dep = (msperf_serve_deployment) { .mode = MSPERF_SERVE_AGG, .layout = { 4, 1, 1, 1, FALSE },
                                        .replicas = 1, .accept = 0.7 };
  f->w = (msperf_serve_workload) { .arrival = MSPERF_SERVE_CLOSED, .concurrency = 16,
                                   .isl = 2000, .osl = 100, .num_requests = 320, .seed = 1 };
  f->c = (msperf_serve_command) { .config = "configs/llama.json", .model = &f->mo,
                                  .scheduler = "/p/vllm.yaml", .backend = "vllm",
                                  .preset = &f->preset, .policy = &f->run, .dep = &f->dep,
                                  .w = &f->w };
}

static void
test_agg_closed (void **state)
{
  fixture f;
  g_autofree char *line = NULL;

  (void) state;
  setup (&f);
  f.mo.quant = "fp8";
  f.run.max_num_batched_tokens = 3564;       /* changed: on the line */
  f.w.prompt_pool = 100;
  f.w.prompt_warmup = 32;
  line = msperf_serve_command_line (&f.c);
  assert_string_equal (line, "msperf serve --model configs/llama.json --quant fp8 --backend vllm "
                       "--max-num-batched-tokens 3564 --tp 4 --ep 1 --dp 1 --pp 1 "
                       "--concurrency 16 --isl 2000 --osl 100 --num-requests 320 --seed 1 "
                       "--prompt-pool 100 --prompt-warmup 32");
}

static void
test_knobs_and_quoting (void **state)
{
  fixture f;
  g_autofree char *line = NULL;

  (void) state;
  setup (&f);
  f.c.backend = NULL;                         /* a preset file outside the shipped ones */
  f.c.scheduler = "my presets/vllm.yaml";
  f.c.program = "msperf --policy p.yaml";
  f.c.engine_args = "--memory-gib 80";
  f.run.mixed_batch = FALSE;
  f.run.seq_overlap_us = 45;
  f.w.staggered = TRUE;
  f.w.warmup = f.w.cooldown = 16;
  line = msperf_serve_command_line (&f.c);
  assert_non_null (strstr (line, "msperf --policy p.yaml serve "));
  assert_non_null (strstr (line, " --scheduler 'my presets/vllm.yaml' "));
  assert_non_null (strstr (line, " --mixed-batch false --seq-overlap-us 45.0 "));
  assert_null (strstr (line, "--max-num-batched-tokens"));   /* unchanged: not repeated */
  assert_non_null (strstr (line, " --concurrency 16 --stagger "));
  assert_non_null (strstr (line, " --warmup 16 --cooldown 16"));
  assert_true (g_str_has_suffix (line, " --memory-gib 80"));
}

static void
test_disagg_open_loop (void **state)
{
  fixture f;
  g_autofree char *line = NULL;

  (void) state;
  setup (&f);
  f.dep.mode = MSPERF_SERVE_DISAGG;
  f.dep.prefill = (msperf_model_layout) { 8, 8, 1, 1, FALSE };
  f.dep.decode = (msperf_model_layout) { 1, 8, 8, 1, FALSE };
  f.dep.prefill_workers = 1;
  f.dep.decode_workers = 9;
  f.dep.decode_max_seqs = 16;
  f.dep.nextn = 1;
  f.w.arrival = MSPERF_SERVE_GAMMA;
  f.w.rate = 2.5;
  f.w.gamma_cv = 2;
  f.w.osl_dist.range_ratio = 0.5;
  line = msperf_serve_command_line (&f.c);
  assert_non_null (strstr (line, " --mode disagg --prefill-workers 1 --prefill-tp 8 "
                                 "--prefill-ep 8 --prefill-dp 1 --prefill-pp 1 "
                                 "--decode-workers 9 --decode-tp 1 --decode-ep 8 "
                                 "--decode-dp 8 --decode-pp 1 --decode-max-num-seqs 16 "
                                 "--nextn 1 --nextn-accept 0.7 "));
  assert_null (strstr (line, "--prefill-max-num-seqs"));
  assert_null (strstr (line, " --tp "));
  assert_non_null (strstr (line, " --arrival gamma:2.0 --rate 2.5 --isl 2000 --osl 100 "
                                 "--osl-dist uniform:0.5 --num-requests 320"));
}

static void
test_requests_file (void **state)
{
  fixture f;

  (void) state;
  setup (&f);
  f.w.arrival = MSPERF_SERVE_TRACE;
  assert_null (msperf_serve_command_line (&f.c));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_agg_closed),
    cmocka_unit_test (test_knobs_and_quoting),
    cmocka_unit_test (test_disagg_open_loop),
    cmocka_unit_test (test_requests_file),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
