/* Tests of core/app/serve: the memo grid, percentiles, workloads, scheduler presets, and the
 * event loop with each scheduler (admission, chunking, preemption on a tiny KV cache,
 * disaggregated transfer, static = e2e), on the shipped H200 sample database. */
#include <config.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "app/model/model.h"
#include "app/model/model_e2e.h"
#include "app/serve/serve.h"
#include "common/test_util.h"

#define CONFIGS MSPERF_SRCDIR "/tests/data/models/configs/"
#define TEMPLATES MSPERF_SRCDIR "/policies/models"
#define SERVING MSPERF_SRCDIR "/policies/serving/"
#define SAMPLE_DB MSPERF_SRCDIR "/doc/examples/h200-db"

static void
test_grid (void **state)
{
  (void) state;
  for (int64_t i = 1; i < 200; i++)
    {
      assert_true (msperf_serve_grid_value (i + 1) > msperf_serve_grid_value (i));
      assert_int_equal (msperf_serve_grid_index (msperf_serve_grid_value (i)), i);
    }
  for (int64_t x = 1; x < 100000; x += 37)
    {
      int64_t i = msperf_serve_grid_index (x);
      assert_true (msperf_serve_grid_value (i) <= x && x < msperf_serve_grid_value (i + 1));
    }
  /* 8 points per octave above 16: neighbours within 10 %. */
  assert_true ((double) msperf_serve_grid_value (101) / (double) msperf_serve_grid_value (100)
               < 1.1);
}

static void
test_percentiles (void **state)
{
  double v[100];
  msperf_serve_dist d;

  (void) state;
  for (int i = 0; i < 100; i++)
    v[i] = 100 - i;     /* unsorted on purpose */
  msperf_serve_dist_of (v, 100, &d);
  assert_float_equal (d.mean, 50.5, 1e-12);
  assert_float_equal (d.p50, 50, 0);
  assert_float_equal (d.p90, 90, 0);
  assert_float_equal (d.p99, 99, 0);
  msperf_serve_dist_of (v, 0, &d);
  assert_true (isnan (d.mean) && isnan (d.p99));
  v[0] = 7;
  assert_float_equal (msperf_serve_percentile (v, 1, 99), 7, 0);
}

static int
cmp_ref (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* A long run's arrays (past 65 536 values) take another sort than the short ones: the same
 * ascending order, so the mean, summed in that order, and the percentiles are the bits a
 * plain qsort gives — negatives, zeros, repeats and magnitudes from 1e-300 to 1e300 included. */
static void
test_percentiles_long (void **state)
{
  const gsize n = 200003;
  g_autofree double *v = g_new (double, n), *ref = g_new (double, n);
  GRand *rand = g_rand_new_with_seed (7);
  msperf_serve_dist d;
  double sum = 0;

  (void) state;
  for (gsize i = 0; i < n; i++)
    {
      double x = g_rand_double_range (rand, -1.0, 1.0) * pow (10.0, g_rand_int_range (rand, -300, 300));

      v[i] = i % 7 == 0 ? 0.0 : i % 11 == 0 ? 42.5 : x;
    }
  g_rand_free (rand);
  memcpy (ref, v, n * sizeof *v);
  qsort (ref, n, sizeof *ref, cmp_ref);
  for (gsize i = 0; i < n; i++)
    sum += ref[i];
  msperf_serve_dist_of (v, n, &d);
  for (gsize i = 0; i < n; i++)
    if (memcmp (&v[i], &ref[i], sizeof v[i]) != 0)
      fail_msg ("value %zu: %g, qsort %g", i, v[i], ref[i]);
  assert_memory_equal (&d.mean, &(double) { sum / (double) n }, sizeof d.mean);
  assert_memory_equal (&d.p50, &ref[(gsize) ceil (0.5 * (double) n) - 1], sizeof d.p50);
  assert_memory_equal (&d.p99, &ref[(gsize) ceil (0.99 * (double) n) - 1], sizeof d.p99);
}

static void
test_workloads (void **state)
{
  msperf_serve_workload w = { 0 };
  g_autoptr (GError) e = NULL;
  GArray *a, *b;
  double gaps = 0;

  (void) state;
  w.arrival = MSPERF_SERVE_CLOSED;
  w.isl = 1000;
  w.osl = 100;
  w.num_requests = 50;
  w.seed = 3;
  a = msperf_serve_make_requests (&w);
  assert_int_equal (a->len, 50);
  for (guint i = 0; i < a->len; i++)
    {
      const msperf_serve_req_spec *r = &g_array_index (a, msperf_serve_req_spec, i);
      assert_true (r->arrival_s == 0 && r->isl == 1000 && r->osl == 100);
    }
  g_array_free (a, TRUE);

  /* Poisson at 10/s: mean gap 0.1 s; uniform:0.5 lengths within ±50 %; same seed, same run. */
  assert_true (msperf_serve_parse_arrival ("poisson", &w, &e));
  assert_true (msperf_serve_parse_len_dist ("uniform:0.5", &w.isl_dist, &e));
  w.rate = 10;
  w.num_requests = 4000;
  a = msperf_serve_make_requests (&w);
  b = msperf_serve_make_requests (&w);
  assert_memory_equal (a->data, b->data, a->len * sizeof (msperf_serve_req_spec));
  for (guint i = 0; i < a->len; i++)
    {
      const msperf_serve_req_spec *r = &g_array_index (a, msperf_serve_req_spec, i);
      assert_true (r->isl >= 500 && r->isl <= 1500 && r->osl == 100);
    }
  gaps = g_array_index (a, msperf_serve_req_spec, a->len - 1).arrival_s / a->len;
  assert_true (fabs (gaps - 0.1) < 0.01);
  g_array_free (a, TRUE);
  g_array_free (b, TRUE);

  /* Gamma with CV 2: the same mean rate, burstier. */
  assert_true (msperf_serve_parse_arrival ("gamma:2", &w, &e));
  assert_int_equal (w.arrival, MSPERF_SERVE_GAMMA);
  a = msperf_serve_make_requests (&w);
  gaps = g_array_index (a, msperf_serve_req_spec, a->len - 1).arrival_s / a->len;
  assert_true (fabs (gaps - 0.1) < 0.02);
  g_array_free (a, TRUE);

  assert_false (msperf_serve_parse_arrival ("gamma:-1", &w, &e));
  g_clear_error (&e);
  assert_false (msperf_serve_parse_arrival ("uniform", &w, &e));
  g_clear_error (&e);
  assert_false (msperf_serve_parse_len_dist ("uniform:1.5", &w.isl_dist, &e));
  g_clear_error (&e);
}

/* A prompt pool: every request names one of its prompts and takes its length; shuffled passes
 * serve each prompt once per pass; a pool leaves the lengths of a run without one alone. */
static void
test_prompt_pool (void **state)
{
  msperf_serve_workload w = { 0 };
  GArray *a, *b;
  int seen[10] = { 0 };

  (void) state;
  w.arrival = MSPERF_SERVE_CLOSED;
  w.isl = 1000;
  w.osl = 100;
  w.num_requests = 40;
  w.seed = 5;
  w.isl_dist.range_ratio = 0.5;
  a = msperf_serve_make_requests (&w);
  for (guint i = 0; i < a->len; i++)
    assert_int_equal (g_array_index (a, msperf_serve_req_spec, i).prompt, -1);
  w.prompt_pool = 10;
  w.prompt_warmup = 5;
  b = msperf_serve_make_requests (&w);
  assert_int_equal (b->len, 45);
  for (guint i = 0; i < b->len; i++)
    {
      const msperf_serve_req_spec *r = &g_array_index (b, msperf_serve_req_spec, i);

      assert_true (r->prompt >= 0 && r->prompt < 10);
      for (guint j = 0; j < i; j++)
        if (g_array_index (b, msperf_serve_req_spec, j).prompt == r->prompt)
          assert_int_equal (g_array_index (b, msperf_serve_req_spec, j).isl, r->isl);
      /* The requests' output lengths are the run's without a pool. */
      if (i >= 5)
        assert_int_equal (r->osl, g_array_index (a, msperf_serve_req_spec, i - 5).osl);
    }
  g_array_free (b, TRUE);
  w.prompt_shuffle = TRUE;
  w.prompt_warmup = 0;
  b = msperf_serve_make_requests (&w);
  for (guint i = 0; i < b->len; i++)
    {
      int64_t id = g_array_index (b, msperf_serve_req_spec, i).prompt;

      assert_int_equal (seen[id], (int) (i / 10));
      seen[id]++;
    }
  g_array_free (a, TRUE);
  g_array_free (b, TRUE);
}

static void
test_requests_file (void **state)
{
  g_autofree char *path = NULL;
  g_autoptr (GError) e = NULL;
  GArray *a;
  int fd = g_file_open_tmp ("serve-XXXXXX.jsonl", &path, NULL);

  (void) state;
  close (fd);
  g_file_set_contents (path, "{\"arrival_ms\": 0, \"input_tokens\": 10, \"output_tokens\": 5}\n"
                             "# a comment\n"
                             "{\"arrival_s\": 0.5, \"input_tokens\": 20, \"output_tokens\": 1}\n",
                       -1, NULL);
  a = msperf_serve_read_requests (path, &e);
  assert_non_null (a);
  assert_int_equal (a->len, 2);
  assert_float_equal (g_array_index (a, msperf_serve_req_spec, 1).arrival_s, 0.5, 0);
  g_array_free (a, TRUE);
  g_file_set_contents (path, "{\"arrival_s\": 1, \"input_tokens\": 10, \"output_tokens\": 5}\n"
                             "{\"arrival_s\": 0, \"input_tokens\": 0, \"output_tokens\": 5}\n",
                       -1, NULL);
  assert_null (msperf_serve_read_requests (path, &e));
  assert_non_null (strstr (e->message, ":2: "));
  g_unlink (path);
}

static void
test_policies (void **state)
{
  msperf_serve_policy p;
  g_autoptr (GError) e = NULL;

  (void) state;
  msperf_serve_policy_init (&p);
  assert_true (msperf_serve_policy_load (&p, SERVING "vllm.yaml", &e));
  assert_string_equal (p.name, "vllm");
  assert_int_equal (p.block_size, 16);
  assert_int_equal (p.max_num_batched_tokens, 8192);
  assert_true (p.chunked_prefill && p.mixed_batch && p.preempt);
  assert_false (p.memory_share_of_free);
  assert_true (msperf_serve_policy_load (&p, SERVING "trtllm.yaml", &e));
  assert_int_equal (p.block_size, 32);
  assert_true (p.memory_share_of_free);     /* free_gpu_memory_fraction */
  assert_true (p.prompt_within_budget);
  assert_false (p.chunked_prefill || p.preempt);
  assert_float_equal (p.reserve_ratio_init, 1, 0);
  assert_true (p.kv_fp8_with_fp8_weights);
  /* The CUDA runtimes' fp8 linears quantise their input inside (the database times them
   * whole): handed to the model as a field after the MoE ones; they fuse bf16 experts too and
   * and int4 experts and gather no expert's rows: moe_bf16_fused=1, moe_int4_fused=1,
   * expert_gather=0 last. */
  assert_int_equal (p.gemm_quant_fused, 1);
  assert_int_equal (p.moe_bf16_fused, 1);
  assert_int_equal (p.moe_int4_fused, 1);
  {
    g_auto (GStrv) f = msperf_serve_policy_model_fields (&p);
    assert_int_equal (g_strv_length (f), 6);
    assert_string_equal (f[2], "gemm_quant_fused=1");
    assert_string_equal (f[3], "moe_bf16_fused=1");
    assert_string_equal (f[4], "moe_int4_fused=1");
    assert_string_equal (f[5], "expert_gather=0");
  }
  msperf_serve_policy_clear (&p);
  msperf_serve_policy_init (&p);
  assert_true (msperf_serve_policy_load (&p, SERVING "sglang.yaml", &e));
  assert_int_equal (p.gemm_quant_fused, 1);
  assert_false (p.mixed_batch || p.kv_fp8_with_fp8_weights);
  assert_float_equal (p.reserve_ratio_init, 0.7, 0);
  assert_true (msperf_serve_policy_set (&p, "max_num_seqs", "12", &e));
  assert_int_equal (p.max_num_seqs, 12);
  assert_false (msperf_serve_policy_set (&p, "max_num_seqs", "0", &e));
  g_clear_error (&e);
  assert_false (msperf_serve_policy_set (&p, "preempt", "maybe", &e));
  g_clear_error (&e);
  assert_false (msperf_serve_policy_set (&p, "no_such_knob", "1", &e));
  assert_non_null (strstr (e->message, "no_such_knob"));
  g_clear_error (&e);
  /* moe_pad_tokens: 0 in the NVIDIA presets, a count >= 0, handed to the model as a field;
   * unset (-1) hands nothing. */
  assert_int_equal (p.moe_pad_tokens, 0);
  assert_int_equal (p.moe_allreduce, 1);
  {
    g_auto (GStrv) f = msperf_serve_policy_model_fields (&p);
    assert_int_equal (g_strv_length (f), 6);
    assert_string_equal (f[0], "moe_pad_tokens=0");
    assert_string_equal (f[1], "moe_allreduce=1");
    assert_string_equal (f[2], "gemm_quant_fused=1");
    assert_string_equal (f[3], "moe_bf16_fused=1");
    assert_string_equal (f[4], "moe_int4_fused=1");
    assert_string_equal (f[5], "expert_gather=0");
  }
  assert_true (msperf_serve_policy_set (&p, "moe_pad_tokens", "256", &e));
  assert_int_equal (p.moe_pad_tokens, 256);
  assert_false (msperf_serve_policy_set (&p, "moe_pad_tokens", "-1", &e));
  assert_non_null (strstr (e->message, "an integer >= 0"));
  g_clear_error (&e);
  msperf_serve_policy_clear (&p);
  msperf_serve_policy_init (&p);
  {
    g_auto (GStrv) f = msperf_serve_policy_model_fields (&p);
    assert_int_equal (g_strv_length (f), 0);
  }
  msperf_serve_policy_clear (&p);
}

/* ---------------------------------------------------------------- the event loop */

typedef struct {
  msperf_engine *engine;
  msperf_model *model;
  msperf_serve_answers *answers;
} fixture;

static int
setup (void **state)
{
  fixture *f = g_new0 (fixture, 1);
  msperf_model_options mo;

  memset (&mo, 0, sizeof mo);

  f->engine = tu_engine_new (SAMPLE_DB, NULL);
  f->model = msperf_model_load (CONFIGS "meta-llama--Meta-Llama-3.1-8B.json", NULL, TEMPLATES,
                                &mo, NULL);
  assert_non_null (f->model);
  f->answers = msperf_serve_answers_new (f->engine);
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  fixture *f = *state;

  msperf_serve_answers_free (f->answers);
  msperf_model_free (f->model);
  msperf_engine_free (f->engine);
  g_free (f);
  return 0;
}

static void
deployment (msperf_serve_deployment *d)
{
  memset (d, 0, sizeof *d);
  d->mode = MSPERF_SERVE_AGG;
  d->layout = (msperf_model_layout){ 1, 1, 1, 1, FALSE };
  d->replicas = 1;
  d->prefill = d->decode = d->layout;
  d->prefill_workers = d->decode_workers = 1;
  d->accept = 0.7;
  d->device_bytes = 131.3 * 1024.0 * 1024.0 * 1024.0;
}

static void
closed (msperf_serve_workload *w, int64_t c, int64_t isl, int64_t osl, int64_t n)
{
  memset (w, 0, sizeof *w);
  w->arrival = MSPERF_SERVE_CLOSED;
  w->concurrency = c;
  w->isl = isl;
  w->osl = osl;
  w->num_requests = n;
  w->seed = 1;
}

static void
preset (msperf_serve_policy *p, const char *name)
{
  g_autofree char *path = g_strdup_printf (SERVING "%s.yaml", name);

  msperf_serve_policy_init (p);
  assert_true (msperf_serve_policy_load (p, path, NULL));
}

static void
run_ok (fixture *f, const msperf_serve_deployment *d, const msperf_serve_policy *p,
        const msperf_serve_workload *w, msperf_serve_result *r)
{
  g_autoptr (GError) e = NULL;
  gboolean ok = msperf_serve_run (f->answers, f->model, d, p, w, NULL, r, &e);

  if (!ok)
    fail_msg ("%s", e->message);
}

static void
test_deterministic (void **state)
{
  fixture *f = *state;
  msperf_serve_deployment d;
  msperf_serve_policy p;
  msperf_serve_workload w;
  msperf_serve_result a, b;

  deployment (&d);
  preset (&p, "vllm");
  closed (&w, 16, 512, 64, 100);
  w.isl_dist.range_ratio = 0.3;
  run_ok (f, &d, &p, &w, &a);
  run_ok (f, &d, &p, &w, &b);
  assert_memory_equal (&a, &b, sizeof a);
  assert_int_equal (a.measured, 100);
  assert_true (a.ttft_ms.mean > 0 && a.tpot_ms.mean > 0 && a.e2e_ms.mean > a.ttft_ms.mean);
  assert_true (a.ttft_ms.p50 <= a.ttft_ms.p90 && a.ttft_ms.p90 <= a.ttft_ms.p99);
  /* Every step shape answered once: far fewer questions than steps. */
  assert_true (a.step_points < (guint64) a.steps);
  /* Warm-up and cool-down leave requests out of the figures. */
  w.warmup = 10;
  w.cooldown = 5;
  run_ok (f, &d, &p, &w, &b);
  assert_int_equal (b.measured, 85);
  /* Staggered clients: no burst of C prompts at once, so a shorter TTFT tail. */
  w.warmup = w.cooldown = 0;
  w.isl_dist.range_ratio = 0;
  run_ok (f, &d, &p, &w, &a);
  w.staggered = TRUE;
  run_ok (f, &d, &p, &w, &b);
  assert_true (b.ttft_ms.p99 < a.ttft_ms.p99);
  msperf_serve_policy_clear (&p);
}

static void
test_static_is_e2e (void **state)
{
  fixture *f = *state;
  msperf_serve_deployment d;
  msperf_serve_policy p;
  msperf_serve_workload w;
  msperf_serve_result r;
  msperf_e2e_request req;
  msperf_e2e_point pt;
  msperf_model_eval *ev = msperf_model_eval_new (f->engine);

  memset (&req, 0, sizeof req);
  req.isl = 1024;
  req.osl = 128;
  req.batch = 8;
  req.accept = 0.7;
  req.stride = 32;

  deployment (&d);
  preset (&p, "static");
  closed (&w, 8, 1024, 128, 8);
  req.device_bytes = d.device_bytes;
  run_ok (f, &d, &p, &w, &r);
  assert_true (msperf_e2e_point_compute (ev, f->model, &d.layout, &req, &pt, NULL));
  assert_memory_equal (&r.ttft_ms.mean, &pt.ttft_ms, sizeof (double));
  assert_memory_equal (&r.tpot_ms.mean, &pt.tpot_ms, sizeof (double));
  assert_memory_equal (&r.e2e_ms.mean, &pt.latency_ms, sizeof (double));
  assert_memory_equal (&r.tok_per_s_gpu, &pt.tps_device, sizeof (double));
  msperf_model_eval_free (ev);
  msperf_serve_policy_clear (&p);
}

/* Chunked prefill splits a 1024-token prompt in a 256-token budget over 4 steps; without
 * chunking (and a budget that holds it) it is one step. */
static void
test_chunking (void **state)
{
  fixture *f = *state;
  msperf_serve_deployment d;
  msperf_serve_policy p;
  msperf_serve_workload w;
  msperf_serve_result r;

  deployment (&d);
  preset (&p, "vllm");
  closed (&w, 1, 1024, 2, 1);
  p.max_num_batched_tokens = 256;
  run_ok (f, &d, &p, &w, &r);
  assert_int_equal (r.steps, 5);
  p.chunked_prefill = FALSE;
  p.max_num_batched_tokens = 2048;
  run_ok (f, &d, &p, &w, &r);
  assert_int_equal (r.steps, 2);
  /* A prompt longer than the budget without chunking still runs, alone. */
  p.max_num_batched_tokens = 512;
  run_ok (f, &d, &p, &w, &r);
  assert_int_equal (r.steps, 2);
  msperf_serve_policy_clear (&p);
}

/* A tiny KV cache: vLLM admits on the prompt and preempts (recompute) when decode runs out of
 * blocks; TRT-LLM's GUARANTEED_NO_EVICT reserves the whole output and never preempts. Both
 * finish every request. */
static void
test_tiny_kv (void **state)
{
  fixture *f = *state;
  msperf_serve_deployment d;
  msperf_serve_policy p;
  msperf_serve_workload w;
  msperf_serve_result r;

  deployment (&d);
  d.kv_capacity_tokens = 4096;
  closed (&w, 16, 512, 256, 48);
  preset (&p, "vllm");
  run_ok (f, &d, &p, &w, &r);
  assert_int_equal (r.measured, 48);
  assert_true (r.preemptions > 0);
  assert_true (r.kv_use_mean > 0.5 && r.kv_use_mean <= 1.0);
  msperf_serve_policy_clear (&p);
  preset (&p, "trtllm");
  run_ok (f, &d, &p, &w, &r);
  assert_int_equal (r.measured, 48);
  assert_int_equal (r.preemptions, 0);
  /* 4096 / (512 + 256) = 5 requests at most at once. */
  assert_true (r.mean_batch <= 5.0 + 1e-9);
  msperf_serve_policy_clear (&p);
  /* SGLang: prefill batches apart from decode, admission with new_token_ratio. */
  preset (&p, "sglang");
  run_ok (f, &d, &p, &w, &r);
  assert_int_equal (r.measured, 48);
  msperf_serve_policy_clear (&p);
  /* TensorRT-LLM refuses a prompt past its budget without chunked prefill; with chunking (or
   * a runtime that runs it alone) it is served. */
  {
    g_autoptr (GError) e = NULL;
    preset (&p, "trtllm");
    closed (&w, 2, 600, 8, 4);
    p.max_num_batched_tokens = 512;
    assert_false (msperf_serve_run (f->answers, f->model, &d, &p, &w, NULL, &r, &e));
    assert_non_null (strstr (e->message, "prompt of 600 tokens, past the step budget of 512"));
    p.chunked_prefill = TRUE;
    run_ok (f, &d, &p, &w, &r);
    p.chunked_prefill = FALSE;
    p.prompt_within_budget = FALSE;
    run_ok (f, &d, &p, &w, &r);
    assert_int_equal (r.measured, 4);
    msperf_serve_policy_clear (&p);
  }
  /* A prompt that can never fit is an error naming the capacity. */
  {
    g_autoptr (GError) e = NULL;
    preset (&p, "trtllm");
    closed (&w, 1, 8000, 10, 1);
    assert_false (msperf_serve_run (f->answers, f->model, &d, &p, &w, NULL, &r, &e));
    assert_non_null (strstr (e->message, "4096 tokens"));
    msperf_serve_policy_clear (&p);
  }
}

static void
test_max_num_seqs (void **state)
{
  fixture *f = *state;
  msperf_serve_deployment d;
  msperf_serve_policy p;
  msperf_serve_workload w;
  msperf_serve_result r;

  deployment (&d);
  preset (&p, "vllm");
  p.max_num_seqs = 2;
  closed (&w, 8, 256, 32, 24);
  run_ok (f, &d, &p, &w, &r);
  assert_true (r.mean_batch <= 2.0 + 1e-9);
  assert_int_equal (r.measured, 24);
  msperf_serve_policy_clear (&p);
}

/* Disaggregated: TTFT includes the KV transfer. */
static void
test_disagg (void **state)
{
  fixture *f = *state;
  msperf_serve_deployment d;
  msperf_serve_policy p;
  msperf_serve_workload w;
  msperf_serve_result a, b;

  deployment (&d);
  d.mode = MSPERF_SERVE_DISAGG;
  d.decode_workers = 2;
  preset (&p, "vllm");
  closed (&w, 1, 1024, 64, 4);
  run_ok (f, &d, &p, &w, &a);
  assert_int_equal (a.devices, 3);
  p.kv_transfer_latency_us += 1e6;
  run_ok (f, &d, &p, &w, &b);
  assert_float_equal (b.ttft_ms.mean - a.ttft_ms.mean, 1000, 1e-6);
  assert_float_equal (b.tpot_ms.mean, a.tpot_ms.mean, 1e-9);
  /* Under load the pools run concurrently. */
  closed (&w, 8, 1024, 64, 32);
  run_ok (f, &d, &p, &w, &a);
  assert_int_equal (a.measured, 32);
  msperf_serve_policy_clear (&p);
}

static void
test_open_loop (void **state)
{
  fixture *f = *state;
  msperf_serve_deployment d;
  msperf_serve_policy p;
  msperf_serve_workload w;
  msperf_serve_result lo, hi;

  deployment (&d);
  preset (&p, "vllm");
  closed (&w, 1, 512, 32, 200);
  w.arrival = MSPERF_SERVE_POISSON;
  w.rate = 1;
  run_ok (f, &d, &p, &w, &lo);
  w.rate = 200;
  run_ok (f, &d, &p, &w, &hi);
  /* Higher load: bigger batches and longer queues. */
  assert_true (hi.mean_batch > lo.mean_batch);
  assert_true (hi.ttft_ms.mean > lo.ttft_ms.mean);
  /* At 1 request/s each request is done long before the next arrives: what arrives in the
   * measured span leaves in it (all but the last). At a million a second they all arrive
   * within a microsecond and none can leave in it: the deployment does not keep up. */
  assert_true (lo.keep_up >= 0.99 && lo.keep_up <= 1.0);
  w.rate = 1e6;
  run_ok (f, &d, &p, &w, &hi);
  assert_true (hi.keep_up < 0.01);
  /* A closed loop waits for its completions: the share means nothing there. */
  closed (&w, 4, 512, 32, 16);
  run_ok (f, &d, &p, &w, &lo);
  assert_true (isnan (lo.keep_up));
  msperf_serve_policy_clear (&p);
}

/* The memo's interpolation against the exact pass: a decode-only step of n sequences at
 * context k is the template's decode pass, a one-chunk prompt its prefill pass. */
static void
test_bucketing_error (void **state)
{
  fixture *f = *state;
  msperf_model_layout l = { 1, 1, 1, 1, FALSE };
  msperf_serve_steps *st = msperf_serve_steps_new (f->answers, f->model, &l, 0);
  msperf_model_eval *ev = msperf_model_eval_new (f->engine);
  g_autoptr (GRand) rng = g_rand_new_with_seed (11);
  double worst = 0, errs[200];

  for (int i = 0; i < 200; i++)
    {
      gboolean decode = i % 2;
      int64_t n = g_rand_int_range (rng, 1, 512), k = g_rand_int_range (rng, 16, 8192);
      int64_t c = g_rand_int_range (rng, 1, 8192), ctx = 0;
      msperf_model_pass pass = { decode ? MSPERF_PHASE_DECODE : MSPERF_PHASE_PREFILL,
                                 decode ? n : 1, decode ? 0 : c, decode ? k : 0, 0 };
      double us, data, exact, edata;

      assert_true (decode ? msperf_serve_step_latency (st, 0, NULL, NULL, n, (double) (n * k),
                                                       &us, &data, NULL)
                          : msperf_serve_step_latency (st, 1, &c, &ctx, 0, 0, &us, &data,
                                                       NULL));
      assert_true (msperf_model_eval_pass (ev, f->model, &l, &pass, &exact, &edata, NULL));
      errs[i] = fabs (us - exact) / exact;
      if (errs[i] > 0.02)
        print_message ("# %s n %ld k %ld c %ld: %.1f vs %.1f\n", decode ? "decode" : "prefill",
                       (long) n, (long) k, (long) c, us, exact);
      worst = MAX (worst, errs[i]);
    }
  print_message ("# bucketing: worst %.2f %%, p95 %.3f %%, median %.3f %% over 200 shapes\n",
                 100 * worst, 100 * msperf_serve_percentile (errs, 200, 95),
                 100 * msperf_serve_percentile (errs, 200, 50));
  /* The worst case straddles a step in the engine's answers (a database edge), which no
   * interpolation follows; the bulk must be tight. */
  assert_true (msperf_serve_percentile (errs, 200, 50) < 0.005);
  assert_true (msperf_serve_percentile (errs, 200, 95) < 0.02);
  msperf_model_eval_free (ev);
  msperf_serve_steps_free (st);
}

/* Pipeline stages (pp_microbatches): a PP engine keeps pp micro-batches in flight, one a
 * stage, so it serves more than one batch passing every stage in turn, and at most pp times
 * as much; its TPOT is lower (a micro-batch holds 1/pp of the clients, and a prompt stalls
 * only its own); at pp 1 the knob changes no bit. */
static void
test_pp_microbatches (void **state)
{
  fixture *f = *state;
  msperf_serve_deployment d;
  msperf_serve_policy p;
  msperf_serve_workload w;
  msperf_serve_result one, in_flight, flat, flat_on;

  deployment (&d);
  preset (&p, "vllm");
  assert_true (p.pp_microbatches);
  closed (&w, 32, 1024, 64, 256);
  run_ok (f, &d, &p, &w, &flat_on);
  p.pp_microbatches = FALSE;
  run_ok (f, &d, &p, &w, &flat);
  assert_true (flat.ttft_ms.mean == flat_on.ttft_ms.mean
               && flat.tpot_ms.mean == flat_on.tpot_ms.mean && flat.steps == flat_on.steps);
  d.layout.pp = 2;
  run_ok (f, &d, &p, &w, &one);
  p.pp_microbatches = TRUE;
  run_ok (f, &d, &p, &w, &in_flight);
  print_message ("# pp 2: %.2f req/s with 2 micro-batches in flight, %.2f with one batch; "
                 "TPOT %.2f / %.2f ms\n", in_flight.req_per_s, one.req_per_s,
                 in_flight.tpot_ms.mean, one.tpot_ms.mean);
  assert_int_equal (in_flight.measured, 256);
  assert_int_equal (in_flight.devices, 2);
  assert_true (in_flight.req_per_s > 1.3 * one.req_per_s && in_flight.req_per_s < 2 * one.req_per_s);
  assert_true (in_flight.tpot_ms.mean < one.tpot_ms.mean);
  msperf_serve_policy_clear (&p);
}

/* Prefix caching: a pool of repeated prompts warmed before the run is prefilled from its
 * cached blocks (TTFT falls, the prompt tokens computed fall); without repeats or with the
 * cache off nothing changes; a cache too small for the pool evicts and still runs. */
static void
test_prefix_caching (void **state)
{
  fixture *f = *state;
  msperf_serve_deployment d;
  msperf_serve_policy p;
  msperf_serve_workload w;
  msperf_serve_result off, on, plain, plain_on, tiny;

  deployment (&d);
  preset (&p, "vllm");
  assert_true (p.prefix_caching);
  closed (&w, 8, 4096, 16, 64);
  run_ok (f, &d, &p, &w, &plain_on);
  p.prefix_caching = FALSE;
  run_ok (f, &d, &p, &w, &plain);
  assert_true (plain.ttft_ms.mean == plain_on.ttft_ms.mean
               && plain.tpot_ms.mean == plain_on.tpot_ms.mean
               && plain.kv_use_mean == plain_on.kv_use_mean && plain.steps == plain_on.steps);
  w.prompt_pool = 16;
  w.prompt_warmup = 64;
  run_ok (f, &d, &p, &w, &off);
  p.prefix_caching = TRUE;
  run_ok (f, &d, &p, &w, &on);
  assert_int_equal (on.measured, 64);
  /* Every prompt is cached: each request prefills its last block only. */
  print_message ("# prefix caching: TTFT %.1f ms cached, %.1f ms not\n", on.ttft_ms.mean,
                 off.ttft_ms.mean);
  assert_true (on.ttft_ms.mean < 0.25 * off.ttft_ms.mean);
  assert_true (on.in_tok_per_s > off.in_tok_per_s);
  /* The cache holds a few prompts beside the running requests: evictions, no deadlock. */
  d.kv_capacity_tokens = 8 * (4096 + 32) + 2 * 4096;
  run_ok (f, &d, &p, &w, &tiny);
  assert_int_equal (tiny.measured, 64);
  print_message ("# prefix caching, small cache: TTFT %.1f ms\n", tiny.ttft_ms.mean);
  assert_true (tiny.ttft_ms.mean > on.ttft_ms.mean);
  msperf_serve_policy_clear (&p);
}

/* A MoE model (Qwen3-30B-A3B, the sample configs) with its own answer cache, for the runs of
 * an attention-DP engine. */
typedef struct {
  msperf_model *model;
  msperf_serve_answers *answers;
} moe_case;

static void
moe_open (fixture *f, moe_case *mc)
{
  msperf_model_options mo;
  g_autoptr (GError) e = NULL;

  memset (&mo, 0, sizeof mo);
  mc->model = msperf_model_load (CONFIGS "Qwen--Qwen3-30B-A3B.json", NULL, TEMPLATES, &mo, &e);
  assert_non_null (mc->model);
  mc->answers = msperf_serve_answers_new (f->engine);
}

static void
moe_run (moe_case *mc, const msperf_serve_deployment *d, const msperf_serve_policy *p,
         const msperf_serve_workload *w, msperf_serve_result *r)
{
  g_autoptr (GError) e = NULL;

  if (!msperf_serve_run (mc->answers, mc->model, d, p, w, NULL, r, &e))
    fail_msg ("%s", e->message);
}

static void
moe_close (moe_case *mc)
{
  msperf_serve_answers_free (mc->answers);
  msperf_model_free (mc->model);
}

/* The dense sample model runs the same, bit for bit, under policies a and b: its DP ranks are
 * replicas, which no attention-DP key concerns. */
static void
dense_same (fixture *f, const msperf_serve_deployment *d, const msperf_serve_policy *a,
            const msperf_serve_policy *b, const msperf_serve_workload *w)
{
  msperf_serve_result ra, rb;

  run_ok (f, d, a, w, &ra);
  run_ok (f, d, b, w, &rb);
  assert_memory_equal (&ra, &rb, sizeof ra);
}

/* SGLang under attention DP admits against its reserve ratios times 0.3
 * (dp_attention_reserve_scale): where the reservation binds (a small cache), more requests run
 * at once than at scale 1. A dense model's DP ranks are replicas, not attention DP: the scale
 * changes nothing there, bit for bit. */
static void
test_dp_attention_reserve (void **state)
{
  fixture *f = *state;
  moe_case mc;
  msperf_serve_deployment d;
  msperf_serve_policy p, q;
  msperf_serve_workload w;
  msperf_serve_result scaled, unscaled;

  moe_open (f, &mc);
  deployment (&d);
  d.layout.dp = 2;
  d.kv_capacity_tokens = 4096;
  closed (&w, 32, 256, 256, 96);
  preset (&p, "sglang");
  assert_float_equal (p.dp_attention_reserve_scale, 0.3, 0);
  moe_run (&mc, &d, &p, &w, &scaled);
  p.dp_attention_reserve_scale = 1.0;
  moe_run (&mc, &d, &p, &w, &unscaled);
  assert_int_equal (scaled.measured, 96);
  assert_int_equal (unscaled.measured, 96);
  assert_true (scaled.mean_batch > unscaled.mean_batch);
  q = p;
  q.dp_attention_reserve_scale = 0.3;
  dense_same (f, &d, &p, &q, &w);
  msperf_serve_policy_clear (&p);
  moe_close (&mc);
}

/* SGLang divides its chunked-prefill size among the ranks of an attention-DP engine
 * (dp_attention_budget_split): a MoE engine of DP 2 under the preset's budget B runs exactly as
 * it does under B / 2 a rank without the split, bit for bit, and its long prompts take more
 * steps than under B a rank. A dense model's DP ranks are replicas, each its own scheduler:
 * the split changes nothing there, bit for bit. */
static void
test_dp_attention_budget (void **state)
{
  fixture *f = *state;
  moe_case mc;
  msperf_serve_deployment d;
  msperf_serve_policy p, q;
  msperf_serve_workload w;
  msperf_serve_result split, halved, whole;

  moe_open (f, &mc);
  deployment (&d);
  d.layout.dp = 2;
  closed (&w, 8, 3000, 32, 48);
  preset (&p, "sglang");
  assert_true (p.dp_attention_budget_split);
  p.max_num_batched_tokens = 2048;
  assert_true (msperf_serve_attention_dp (mc.model, &d.layout));
  assert_false (msperf_serve_attention_dp (f->model, &d.layout));
  assert_int_equal (msperf_serve_rank_budget (mc.model, &d.layout, &p), 1024);
  assert_int_equal (msperf_serve_rank_budget (f->model, &d.layout, &p), 2048);
  moe_run (&mc, &d, &p, &w, &split);
  p.dp_attention_budget_split = FALSE;
  p.max_num_batched_tokens = 1024;
  moe_run (&mc, &d, &p, &w, &halved);
  assert_memory_equal (&split, &halved, sizeof split);
  p.max_num_batched_tokens = 2048;
  moe_run (&mc, &d, &p, &w, &whole);
  assert_int_equal (whole.measured, 48);
  assert_true (split.steps > whole.steps);
  assert_true (split.ttft_ms.mean > whole.ttft_ms.mean);
  q = p;
  q.dp_attention_budget_split = TRUE;
  dense_same (f, &d, &p, &q, &w);
  msperf_serve_policy_clear (&p);
  moe_close (&mc);
}

/* With one token a step, the decode passes that finish no request are counted, not applied
 * to every request; asking for the inter-token gaps turns the counting off. Every figure
 * (but the ITL, which the gaps make) is the same either way, bit for bit: each preset, a cache
 * small enough to preempt, a prompt pool, several replicas, disaggregated pools. */
static void
test_counted_passes (void **state)
{
  fixture *f = *state;
  const char *presets[] = { "vllm", "sglang", "trtllm" };

  for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
    for (int shape = 0; shape < 4; shape++)
      {
        msperf_serve_deployment d;
        msperf_serve_policy p;
        msperf_serve_workload w;
        msperf_serve_result counted, applied;
        msperf_serve_record rec;
        g_autoptr (GError) e = NULL;

        deployment (&d);
        preset (&p, presets[i]);
        closed (&w, 24, 300, 90, 120);
        w.isl_dist.range_ratio = w.osl_dist.range_ratio = 0.5;
        if (shape == 1)
          d.kv_capacity_tokens = 4096;
        else if (shape == 2)
          {
            d.replicas = 3;
            w.prompt_pool = 10;
            w.prompt_warmup = 20;
          }
        else if (shape == 3)
          {
            d.mode = MSPERF_SERVE_DISAGG;
            d.decode_workers = 2;
          }
        run_ok (f, &d, &p, &w, &counted);
        memset (&rec, 0, sizeof rec);
        rec.want_itl = TRUE;
        if (!msperf_serve_run (f->answers, f->model, &d, &p, &w, &rec, &applied, &e))
          fail_msg ("%s", e->message);
        assert_int_equal (counted.measured, 120);
        if (shape == 1 && strcmp (presets[i], "trtllm") != 0)
          assert_true (counted.preemptions > 0);
        applied.itl_ms = counted.itl_ms;
        assert_memory_equal (&counted, &applied, sizeof counted);
        msperf_serve_policy_clear (&p);
      }
}

#define SIM(t) cmocka_unit_test_setup_teardown (t, setup, teardown)

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_grid),
    cmocka_unit_test (test_percentiles),
    cmocka_unit_test (test_percentiles_long),
    cmocka_unit_test (test_workloads),
    cmocka_unit_test (test_prompt_pool),
    cmocka_unit_test (test_requests_file),
    cmocka_unit_test (test_policies),
    SIM (test_deterministic),
    SIM (test_static_is_e2e),
    SIM (test_chunking),
    SIM (test_tiny_kv),
    SIM (test_prefix_caching),
    SIM (test_pp_microbatches),
    SIM (test_max_num_seqs),
    SIM (test_disagg),
    SIM (test_open_loop),
    SIM (test_bucketing_error),
    SIM (test_counted_passes),
    SIM (test_dp_attention_reserve),
    SIM (test_dp_attention_budget),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
