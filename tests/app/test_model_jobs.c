/* Tests of core/app/model/model_jobs.c: sweep and e2e points on several workers give, in order, the
 * bytes one evaluator gives; the error of a failing sweep is the first failing point's. On the
 * shipped H200 sample database with the build-tree modules. */
#include <config.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "app/model/model.h"
#include "app/model/model_e2e.h"
#include "app/model/model_jobs.h"
#include "common/test_util.h"

#define DATA MSPERF_SRCDIR "/tests/data/models/"
#define TEMPLATES MSPERF_SRCDIR "/policies/models"
#define SAMPLE_DB MSPERF_SRCDIR "/doc/examples/h200-db"

static gboolean
same_double (double a, double b)
{
  return memcmp (&a, &b, sizeof a) == 0;
}

/* Bit for bit, every field a row prints. */
static void
assert_same_point (const msperf_e2e_point *a, const msperf_e2e_point *b)
{
  assert_true (a->layout.tp == b->layout.tp && a->layout.ep == b->layout.ep
               && a->layout.dp == b->layout.dp && a->layout.pp == b->layout.pp
               && a->layout.sp == b->layout.sp);
  assert_true (a->batch == b->batch && a->prefill_passes == b->prefill_passes);
  assert_true (a->fits == b->fits && a->estimated == b->estimated && a->pareto == b->pareto);
  assert_true (same_double (a->ttft_ms, b->ttft_ms) && same_double (a->tpot_ms, b->tpot_ms)
               && same_double (a->latency_ms, b->latency_ms)
               && same_double (a->tps_device, b->tps_device)
               && same_double (a->tps_user, b->tps_user)
               && same_double (a->weight_gib, b->weight_gib)
               && same_double (a->kv_gib, b->kv_gib)
               && same_double (a->device_gib, b->device_gib)
               && same_double (a->data_share, b->data_share));
}

static msperf_model *
load (const char *config, const char *template_path)
{
  g_autoptr (GError) error = NULL;
  msperf_model *m = msperf_model_load (config, template_path, TEMPLATES, NULL, &error);

  if (m == NULL)
    fail_msg ("%s", error->message);
  return m;
}

static GArray *
int64_list (const int64_t *v, guint n)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (int64_t));

  g_array_append_vals (a, v, n);
  return a;
}

static GArray *
layouts_of (const msperf_model_layout *v, guint n)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (msperf_model_layout));

  g_array_append_vals (a, v, n);
  return a;
}

/* Llama-3.1-8B: 5 layouts (tp 3 refused) × 4 batch sizes; every job count gives the points
 * of one plain evaluator, in the same order, with the same counts. */
static void
test_sweep_jobs_identical (void **state)
{
  static const msperf_model_layout ls[] = { { 1, 1, 2, 1, FALSE }, { 2, 1, 1, 1, FALSE },
                                            { 3, 1, 1, 1, FALSE }, { 1, 1, 1, 2, FALSE },
                                            { 4, 1, 1, 1, FALSE } };
  static const int64_t bs[] = { 1, 8, 48, 256 };
  msperf_engine *e = *state;
  g_autoptr (msperf_model) m = load (DATA "configs/meta-llama--Meta-Llama-3.1-8B.json", NULL);
  g_autoptr (GArray) layouts = layouts_of (ls, G_N_ELEMENTS (ls));
  g_autoptr (GArray) batches = int64_list (bs, G_N_ELEMENTS (bs));
  msperf_e2e_request req = { 512, 97, 1, 0, 0.7, 32, 0, 0, 0 };
  g_autoptr (GArray) ref = g_array_new (FALSE, FALSE, sizeof (msperf_e2e_point));
  msperf_model_eval *ev = msperf_model_eval_new (e);

  for (guint a = 0; a < layouts->len; a++)
    for (guint b = 0; a != 2 && b < batches->len; b++)
      {
        msperf_e2e_point p;
        req.batch = bs[b];
        assert_true (msperf_e2e_point_compute (ev, m, &ls[a], &req, &p, NULL));
        g_array_append_val (ref, p);
      }
  msperf_model_eval_free (ev);
  for (guint jobs = 1; jobs <= 4; jobs++)
    {
      g_autoptr (msperf_model_jobs) j = msperf_model_jobs_new (e, jobs);
      g_autoptr (GArray) pts = g_array_new (FALSE, FALSE, sizeof (msperf_e2e_point));
      g_autoptr (GError) error = NULL;
      msperf_sweep_counts n = { 0 };

      assert_true (msperf_model_jobs_sweep (j, m, layouts, batches, &req, 1, 1, pts, &n, &error));
      assert_int_equal (n.refused, 1);
      assert_int_equal (n.estimated, 16);
      assert_int_equal (pts->len, ref->len);
      for (guint k = 0; k < pts->len; k++)
        assert_same_point (&g_array_index (pts, msperf_e2e_point, k),
                           &g_array_index (ref, msperf_e2e_point, k));
    }
}

/* Shards interleave the points of the whole sweep, refused layouts included. */
static void
test_sweep_jobs_shard (void **state)
{
  static const msperf_model_layout ls[] = { { 3, 1, 1, 1, FALSE }, { 2, 1, 1, 1, FALSE } };
  static const int64_t bs[] = { 1, 2, 4 };
  msperf_engine *e = *state;
  g_autoptr (msperf_model) m = load (DATA "configs/meta-llama--Meta-Llama-3.1-8B.json", NULL);
  g_autoptr (GArray) layouts = layouts_of (ls, G_N_ELEMENTS (ls));
  g_autoptr (GArray) batches = int64_list (bs, G_N_ELEMENTS (bs));
  msperf_e2e_request req = { 128, 33, 1, 0, 0.7, 32, 0, 0, 0 };
  g_autoptr (msperf_model_jobs) j = msperf_model_jobs_new (e, 2);
  g_autoptr (GArray) pts = g_array_new (FALSE, FALSE, sizeof (msperf_e2e_point));
  msperf_sweep_counts n = { 0 };

  /* Points 0..5; shard 2/2 holds 1, 3, 5: the refused layout's 1, then batches 1 and 4. */
  assert_true (msperf_model_jobs_sweep (j, m, layouts, batches, &req, 2, 2, pts, &n, NULL));
  assert_int_equal (pts->len, 2);
  assert_int_equal (g_array_index (pts, msperf_e2e_point, 0).batch, 1);
  assert_int_equal (g_array_index (pts, msperf_e2e_point, 1).batch, 4);
}

/* Decode at batch 24, 32 and 64 fails with dims -8, -16, -48: on any number of jobs the error
 * is the first failing point's (batch 24 of the first layout). */
static void
test_sweep_jobs_first_error (void **state)
{
  static const msperf_model_layout ls[] = { { 1, 1, 1, 1, FALSE }, { 2, 1, 1, 1, FALSE } };
  static const int64_t bs[] = { 1, 24, 32, 2, 64, 4 };
  msperf_engine *e = *state;
  g_autoptr (msperf_model) m = load (DATA "toy-config.json", DATA "jobs/toy_mlp_negdim.yaml");
  g_autoptr (GArray) layouts = layouts_of (ls, G_N_ELEMENTS (ls));
  g_autoptr (GArray) batches = int64_list (bs, G_N_ELEMENTS (bs));
  msperf_e2e_request req = { 64, 65, 1, 0, 0.7, 32, 0, 0, 0 };

  for (guint jobs = 1; jobs <= 6; jobs++)
    {
      g_autoptr (msperf_model_jobs) j = msperf_model_jobs_new (e, jobs);
      g_autoptr (GArray) pts = g_array_new (FALSE, FALSE, sizeof (msperf_e2e_point));
      g_autoptr (GError) error = NULL;
      msperf_sweep_counts n = { 0 };

      assert_false (msperf_model_jobs_sweep (j, m, layouts, batches, &req, 1, 1, pts, &n,
                                             &error));
      assert_non_null (error);
      if (!g_str_has_suffix (error->message, "gives a negative dim -8"))
        fail_msg ("jobs %u: %s", jobs, error->message);
    }
}

/* e2e: the passes of one point spread over 1..5 jobs sum to the serial point, bit for bit;
 * with nextn and an osl that leaves a short last sample. */
static void
test_point_jobs_identical (void **state)
{
  static const msperf_model_layout tp2 = { 2, 1, 1, 1, FALSE };
  msperf_engine *e = *state;
  g_autoptr (msperf_model) m = load (DATA "configs/Qwen--Qwen3-32B.json", NULL);
  msperf_e2e_request req = { 1024, 200, 8, 1, 0.7, 32, 0, 0, 0 };
  msperf_model_eval *ev = msperf_model_eval_new (e);
  msperf_e2e_point ref;

  assert_int_equal (msperf_e2e_n_passes (&req), 1 + 7);
  assert_true (msperf_e2e_point_compute (ev, m, &tp2, &req, &ref, NULL));
  assert_true (ref.estimated && ref.ttft_ms > 0 && ref.tpot_ms > 0);
  msperf_model_eval_free (ev);
  for (guint jobs = 1; jobs <= 5; jobs++)
    {
      g_autoptr (msperf_model_jobs) j = msperf_model_jobs_new (e, jobs);
      g_autoptr (GError) error = NULL;
      msperf_e2e_point p;

      assert_true (msperf_model_jobs_point (j, m, &tp2, &req, &p, &error));
      assert_same_point (&p, &ref);
    }
}

/* The prefill within a token budget: one pass when the batch fits or there is no budget;
 * passes of whole sequences and one of the rest; a long sequence as chunks over the KV of the
 * earlier ones, each sequence alone. */
static void
test_prefill_plan (void **state)
{
  msperf_e2e_request req = { 1000, 65, 5, 0, 0.7, 32, 0, 0, 0 };
  msperf_model_pass p;

  (void) state;
  assert_int_equal (msperf_e2e_prefill_distinct (&req), 1);
  assert_int_equal (msperf_e2e_prefill_passes (&req), 1);
  assert_int_equal (msperf_e2e_n_passes (&req), 1 + 2);
  req.max_prefill_tokens = 5000;      /* the batch fits: as without a budget */
  assert_int_equal (msperf_e2e_prefill_passes (&req), 1);
  msperf_e2e_pass (&req, 0, &p);
  assert_true (p.phase == MSPERF_PHASE_PREFILL && p.batch == 5 && p.seq == 1000 && p.context == 0);
  req.max_prefill_tokens = 2048;      /* 2 + 2 + 1 sequences */
  assert_int_equal (msperf_e2e_prefill_distinct (&req), 2);
  assert_int_equal (msperf_e2e_prefill_times (&req, 0), 2);
  assert_int_equal (msperf_e2e_prefill_times (&req, 1), 1);
  assert_int_equal (msperf_e2e_prefill_passes (&req), 3);
  assert_int_equal (msperf_e2e_n_passes (&req), 2 + 2);
  msperf_e2e_pass (&req, 1, &p);
  assert_true (p.phase == MSPERF_PHASE_PREFILL && p.batch == 1 && p.seq == 1000);
  msperf_e2e_pass (&req, 2, &p);      /* the first decode sample follows the prefill passes */
  assert_true (p.phase == MSPERF_PHASE_DECODE && p.batch == 5 && p.context == 1000);
  req.max_prefill_tokens = 4000;      /* 4 + 1: no pass of the rest when it divides */
  req.batch = 8;
  assert_int_equal (msperf_e2e_prefill_distinct (&req), 1);
  assert_int_equal (msperf_e2e_prefill_passes (&req), 2);
  req.max_prefill_tokens = 384;       /* chunks 384, 384, 232 over 0, 384, 768 cached */
  req.batch = 3;
  assert_int_equal (msperf_e2e_prefill_distinct (&req), 3);
  assert_int_equal (msperf_e2e_prefill_passes (&req), 9);
  msperf_e2e_pass (&req, 2, &p);
  assert_true (p.batch == 1 && p.seq == 232 && p.context == 768);
  assert_int_equal (msperf_e2e_prefill_times (&req, 2), 3);
}

/* A chunked prefill: the TTFT is the sum of its passes, each pass answered as alone, and the
 * jobs give the serial point bit for bit. */
static void
test_point_chunked (void **state)
{
  static const msperf_model_layout tp2 = { 2, 1, 1, 1, FALSE };
  msperf_engine *e = *state;
  g_autoptr (msperf_model) m = load (DATA "configs/Qwen--Qwen3-32B.json", NULL);
  msperf_e2e_request req = { 1000, 1, 5, 0, 0.7, 32, 0, 0, 2048 };
  msperf_model_pass two = { MSPERF_PHASE_PREFILL, 2, 1000, 0, 0 };
  msperf_model_pass one = { MSPERF_PHASE_PREFILL, 1, 1000, 0, 0 };
  msperf_model_eval *ev = msperf_model_eval_new (e);
  double l2, d2, l1, d1;
  msperf_e2e_point ref;

  assert_true (msperf_e2e_point_compute (ev, m, &tp2, &req, &ref, NULL));
  assert_int_equal (ref.prefill_passes, 3);
  assert_true (msperf_model_eval_pass (ev, m, &tp2, &two, &l2, &d2, NULL));
  assert_true (msperf_model_eval_pass (ev, m, &tp2, &one, &l1, &d1, NULL));
  assert_true (fabs (ref.ttft_ms * 1e3 - (2 * l2 + l1)) <= 1e-9 * ref.ttft_ms * 1e3);
  msperf_model_eval_free (ev);
  for (guint jobs = 1; jobs <= 3; jobs++)
    {
      g_autoptr (msperf_model_jobs) j = msperf_model_jobs_new (e, jobs);
      msperf_e2e_point p;

      assert_true (msperf_model_jobs_point (j, m, &tp2, &req, &p, NULL));
      assert_same_point (&p, &ref);
    }
}

static int
setup (void **state)
{
  *state = tu_engine_new (SAMPLE_DB, NULL);
  return 0;
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_sweep_jobs_identical),
    cmocka_unit_test (test_sweep_jobs_shard),
    cmocka_unit_test (test_sweep_jobs_first_error),
    cmocka_unit_test (test_point_jobs_identical),
    cmocka_unit_test (test_prefill_plan),
    cmocka_unit_test (test_point_chunked),
  };
  return cmocka_run_group_tests (tests, setup, tu_teardown_engine);
}
