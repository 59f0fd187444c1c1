/* msperf — passes answered through the engine, and one request-level point (doc/models.md §3).
 * Decode is sampled every `stride` tokens of output as aiconfigurator does; each sample stands
 * for the steps up to the next one. */
#include <config.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <msperf/msperf.h>
#include "app/model/model_e2e.h"
#include "app/model/model_memory.h"
#include "app/trace/trace.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

typedef struct {
  double latency_us;   /* per call; 0 when the engine knows none */
  gboolean from_data;
} answer;

/* Answers by op body. Shared by the evaluators of one run (model_jobs.c), hence the lock:
 * an answer is a pure function of the op, so whichever worker asks first stores the one every
 * other worker would have got, and a sweep asks the engine about each distinct op about once
 * however many workers it has. A pthread mutex, not GMutex (a bare futex on Linux that
 * ThreadSanitizer cannot see). */
typedef struct {
  gint refs;
  pthread_mutex_t lock;
  GHashTable *answers;        /* op body -> answer* */
} answer_cache;

struct msperf_model_eval {
  msperf_engine *engine;
  answer_cache *cache;
  GPtrArray *bodies;          /* scratch per pass */
  GArray *counts;
  guint64 distinct, cached;
};

static answer_cache *
cache_new (void)
{
  answer_cache *c = g_new0 (answer_cache, 1);

  c->refs = 1;
  pthread_mutex_init (&c->lock, NULL);
  c->answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return c;
}

static void
cache_unref (answer_cache *c)
{
  if (!g_atomic_int_dec_and_test (&c->refs))
    return;
  g_hash_table_destroy (c->answers);
  pthread_mutex_destroy (&c->lock);
  g_free (c);
}

/* Copies the answer of body into *out; FALSE when there is none yet. */
static gboolean
cache_lookup (answer_cache *c, const char *body, answer *out)
{
  const answer *a;

  pthread_mutex_lock (&c->lock);
  a = g_hash_table_lookup (c->answers, body);
  if (a)
    *out = *a;
  pthread_mutex_unlock (&c->lock);
  return a != NULL;
}

static void
cache_store (answer_cache *c, const char *body, const answer *a)
{
  pthread_mutex_lock (&c->lock);
  /* Another worker may have stored the same (equal) answer meanwhile: keep the first. */
  if (!g_hash_table_contains (c->answers, body))
    g_hash_table_insert (c->answers, g_strdup (body), g_memdup2 (a, sizeof *a));
  pthread_mutex_unlock (&c->lock);
}

static msperf_model_eval *
eval_new (msperf_engine *engine, answer_cache *cache)
{
  msperf_model_eval *ev = g_new0 (msperf_model_eval, 1);

  ev->engine = engine;
  ev->cache = cache;
  ev->bodies = g_ptr_array_new_with_free_func (g_free);
  ev->counts = g_array_new (FALSE, FALSE, sizeof (gint64));
  return ev;
}

msperf_model_eval *
msperf_model_eval_new (msperf_engine *engine)
{
  return eval_new (engine, cache_new ());
}

msperf_model_eval *
msperf_model_eval_new_sharing (msperf_engine *engine, msperf_model_eval *other)
{
  g_atomic_int_inc (&other->cache->refs);
  return eval_new (engine, other->cache);
}

void
msperf_model_eval_free (msperf_model_eval *ev)
{
  if (ev == NULL)
    return;
  cache_unref (ev->cache);
  g_ptr_array_free (ev->bodies, TRUE);
  g_array_free (ev->counts, TRUE);
  g_free (ev);
}

void
msperf_model_eval_stats (const msperf_model_eval *ev, guint64 *distinct, guint64 *cached)
{
  *distinct = ev->distinct;
  *cached = ev->cached;
}

static gboolean
ask_engine (msperf_model_eval *ev, const char *body, answer *a, GError **error)
{
  g_autoptr (msperf_op) op = msperf_trace_parse_op (body, "<model trace>", 1, error);
  msperf_result *r;

  if (op == NULL)
    return FALSE;
  r = msperf_engine_query (ev->engine, op);
  a->latency_us = isfinite (r->latency_us) ? r->latency_us : 0;
  a->from_data = r->source == MSPERF_SOURCE_MEASURED || r->source == MSPERF_SOURCE_INTERPOLATED;
  msperf_result_free (r);
  ev->distinct++;
  cache_store (ev->cache, body, a);
  return TRUE;
}

gboolean
msperf_model_eval_pass (msperf_model_eval *ev, const msperf_model *model,
                        const msperf_model_layout *layout, const msperf_model_pass *pass,
                        double *latency_us, double *data_us, GError **error)
{
  g_ptr_array_set_size (ev->bodies, 0);
  g_array_set_size (ev->counts, 0);
  *latency_us = *data_us = 0;
  if (!msperf_model_pass_ops (model, layout, pass, ev->bodies, ev->counts, error))
    return FALSE;
  for (guint i = 0; i < ev->bodies->len; i++)
    {
      const char *body = g_ptr_array_index (ev->bodies, i);
      answer a;
      double t;

      if (cache_lookup (ev->cache, body, &a))
        ev->cached++;
      else if (!ask_engine (ev, body, &a, error))
        return FALSE;
      t = a.latency_us * (double) g_array_index (ev->counts, gint64, i);
      *latency_us += t;
      if (a.from_data)
        *data_us += t;
    }
  return TRUE;
}

/* Expected tokens a decode step yields with nextn drafts, each accepted with probability
 * accept after the previous one was: 1 + a + a² + … + a^nextn. */
static double
tokens_per_step (const msperf_e2e_request *req)
{
  double tau = 1, p = 1;

  for (int64_t k = 0; k < req->nextn; k++)
    tau += (p *= req->accept);
  return tau;
}

/* Distinct prefill pass k of the request (k < its count, the return value when pass is NULL)
 * and how many times the prefill runs it. A serving runtime caps the tokens of one forward
 * pass the same way (TensorRT-LLM max_num_tokens, vLLM max_num_batched_tokens, SGLang
 * chunked_prefill_size) and chunks a longer prompt over its own cached KV. */
static guint
prefill_plan (const msperf_e2e_request *req, guint k, msperf_model_pass *pass, int64_t *times)
{
  int64_t b = req->batch, s = req->isl, budget = req->max_prefill_tokens;
  msperf_model_pass p = { MSPERF_PHASE_PREFILL, b, s, 0, 0 };
  int64_t t = 1;
  guint n = 1;

  if (budget > 0 && s <= budget && b * s > budget)
    {
      int64_t per = budget / s, full = b / per, rest = b % per;

      /* Passes of `per` whole sequences, then one of the rest. */
      n = rest > 0 ? 2 : 1;
      p.batch = k == 0 ? per : rest;
      t = k == 0 ? full : 1;
    }
  else if (budget > 0 && s > budget)
    {
      /* Every sequence alone, in chunks of the budget over the KV of the earlier ones. */
      n = (guint) ((s + budget - 1) / budget);
      p.batch = 1;
      p.context = (int64_t) k * budget;
      p.seq = MIN (budget, s - p.context);
      t = b;
    }
  if (pass)
    *pass = p;
  if (times)
    *times = t;
  return n;
}

guint
msperf_e2e_prefill_distinct (const msperf_e2e_request *req)
{
  return prefill_plan (req, 0, NULL, NULL);
}

int64_t
msperf_e2e_prefill_times (const msperf_e2e_request *req, guint k)
{
  int64_t t;

  prefill_plan (req, k, NULL, &t);
  return t;
}

int64_t
msperf_e2e_prefill_passes (const msperf_e2e_request *req)
{
  guint n = msperf_e2e_prefill_distinct (req);
  int64_t total = 0;

  for (guint k = 0; k < n; k++)
    total += msperf_e2e_prefill_times (req, k);
  return total;
}

guint
msperf_e2e_n_passes (const msperf_e2e_request *req)
{
  int64_t n = req->osl - 1;   /* the first output token comes from the prefill */

  return msperf_e2e_prefill_distinct (req) + (guint) ((n + req->stride - 1) / req->stride);
}

void
msperf_e2e_pass (const msperf_e2e_request *req, guint k, msperf_model_pass *pass)
{
  guint pre = msperf_e2e_prefill_distinct (req);
  msperf_model_pass decode = { MSPERF_PHASE_DECODE, req->batch, 0,
                               req->isl + (int64_t) (k - pre) * req->stride, req->nextn };

  if (k < pre)
    prefill_plan (req, k, pass, NULL);
  else
    *pass = decode;
}

/* Weights and the KV cache of the batch's requests (isl + osl tokens each; a sliding-window
 * layer keeps at most its window, a linear-attention layer its state) against the device.
 * With a GPU memory utilization, as a serving runtime sees it (model_memory.h): the requests'
 * tokens within the KV capacity. */
static gboolean
memory (const msperf_model *model, const msperf_model_layout *layout,
        const msperf_e2e_request *req, msperf_e2e_point *out, GError **error)
{
  msperf_model_memory_terms t;
  double w, kv, len = (double) (req->isl + req->osl);

  if (!msperf_model_memory_of (model, layout, &t, error))
    return FALSE;
  w = t.weight_bytes;
  kv = t.kv_bytes_per_token * (double) req->batch * len;
  if (t.kv_window > 0 || t.state_bytes_per_seq > 0)
    kv += (double) req->batch * (t.kv_window_bytes_per_token * MIN ((double) t.kv_window, len)
                                 + t.state_bytes_per_seq);
  out->weight_gib = w / GIB;
  out->kv_gib = kv / GIB;
  out->device_gib = req->device_bytes > 0 ? req->device_bytes / GIB : NAN;
  out->fits = req->device_bytes <= 0 || w + kv <= req->device_bytes;
  out->kv_capacity_tokens = -1;
  if (req->gpu_memory_utilization > 0 && req->device_bytes > 0)
    {
      msperf_model_runtime rt;
      msperf_model_kv_capacity cap;

      msperf_model_runtime_init (&rt, req->device_bytes);
      rt.gpu_memory_utilization = req->gpu_memory_utilization;
      rt.max_num_seqs = req->batch;
      if (!msperf_model_kv_capacity_tokens (model, layout, &rt, &cap, error))
        return FALSE;
      out->kv_capacity_tokens = cap.tokens;
      out->fits = cap.fits && (double) cap.tokens >= (double) req->batch * len;
    }
  return TRUE;
}

gboolean
msperf_e2e_point_begin (const msperf_model *model, const msperf_model_layout *layout,
                        const msperf_e2e_request *req, msperf_e2e_point *out, GError **error)
{
  memset (out, 0, sizeof *out);
  out->layout = *layout;
  out->batch = req->batch;
  out->ttft_ms = out->tpot_ms = out->latency_ms = out->tps_device = out->tps_user = NAN;
  out->data_share = NAN;
  out->prefill_passes = msperf_e2e_prefill_passes (req);
  return msperf_model_check_layout (model, layout, error) && memory (model, layout, req, out, error);
}

void
msperf_e2e_point_finish (const msperf_e2e_request *req, const double *lat, const double *data,
                         msperf_e2e_point *out)
{
  const msperf_model_layout *layout = &out->layout;
  double tau = tokens_per_step (req), pre_us = 0, pre_data = 0, dec_us = 0, dec_data = 0,
         world, lat_us;
  int64_t n = req->osl - 1;
  guint k = 0, pre = msperf_e2e_prefill_distinct (req);

  /* TTFT: every prefill pass in turn. */
  for (; k < pre; k++)
    {
      double times = (double) msperf_e2e_prefill_times (req, k);

      pre_us += lat[k] * times;
      pre_data += data[k] * times;
    }
  out->prefill_passes = msperf_e2e_prefill_passes (req);

  /* Each decode sample stands for the steps up to the next one. */
  for (int64_t t = 0; t < n; t += req->stride, k++)
    {
      double steps = (double) MIN (req->stride, n - t) / tau;

      dec_us += lat[k] * steps;
      dec_data += data[k] * steps;
    }
  /* No pipelining across stages: a pass costs every stage in turn (static batching). */
  pre_us *= (double) layout->pp;
  pre_data *= (double) layout->pp;
  dec_us *= (double) layout->pp;
  dec_data *= (double) layout->pp;
  world = (double) (layout->tp * layout->dp * layout->pp);
  lat_us = pre_us + dec_us;
  out->estimated = TRUE;
  out->ttft_ms = pre_us / 1e3;
  out->tpot_ms = n > 0 ? dec_us / (double) n / 1e3 : 0;
  out->latency_ms = lat_us / 1e3;
  out->tps_user = out->tpot_ms > 0 ? 1e3 / out->tpot_ms : NAN;
  out->tps_device = (double) layout->dp * (double) req->batch * (double) req->osl
                    / (lat_us / 1e6) / world;
  out->data_share = lat_us > 0 ? (pre_data + dec_data) / lat_us : NAN;
}

gboolean
msperf_e2e_point_compute (msperf_model_eval *ev, const msperf_model *model,
                          const msperf_model_layout *layout, const msperf_e2e_request *req,
                          msperf_e2e_point *out, GError **error)
{
  guint n = msperf_e2e_n_passes (req);
  g_autofree double *lat = g_new0 (double, n), *data = g_new0 (double, n);

  if (!msperf_e2e_point_begin (model, layout, req, out, error))
    return FALSE;
  if (!out->fits)
    return TRUE;
  for (guint k = 0; k < n; k++)
    {
      msperf_model_pass pass;

      msperf_e2e_pass (req, k, &pass);
      if (!msperf_model_eval_pass (ev, model, layout, &pass, &lat[k], &data[k], error))
        return FALSE;
    }
  msperf_e2e_point_finish (req, lat, data, out);
  return TRUE;
}
