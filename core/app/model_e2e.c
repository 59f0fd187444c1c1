/* msperf — passes answered through the engine, and one request-level point (doc/models.md §3).
 * Decode is sampled every `stride` tokens of output as aiconfigurator does; each sample stands
 * for the steps up to the next one. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/msperf.h>
#include "app/model_e2e.h"
#include "app/trace.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

typedef struct {
  double latency_us;   /* per call; 0 when the engine knows none */
  gboolean from_data;
} answer;

struct msperf_model_eval {
  msperf_engine *engine;
  GHashTable *answers;        /* op body -> answer* */
  GPtrArray *bodies;          /* scratch per pass */
  GArray *counts;
  guint64 distinct, cached;
};

msperf_model_eval *
msperf_model_eval_new (msperf_engine *engine)
{
  msperf_model_eval *ev = g_new0 (msperf_model_eval, 1);

  ev->engine = engine;
  ev->answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ev->bodies = g_ptr_array_new_with_free_func (g_free);
  ev->counts = g_array_new (FALSE, FALSE, sizeof (gint64));
  return ev;
}

void
msperf_model_eval_free (msperf_model_eval *ev)
{
  if (ev == NULL)
    return;
  g_hash_table_destroy (ev->answers);
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

static answer *
ask_engine (msperf_model_eval *ev, const char *body, GError **error)
{
  g_autoptr (msperf_op) op = msperf_trace_parse_op (body, "<model trace>", 1, error);
  msperf_result *r;
  answer *a;

  if (op == NULL)
    return NULL;
  r = msperf_engine_query (ev->engine, op);
  a = g_new0 (answer, 1);
  a->latency_us = isfinite (r->latency_us) ? r->latency_us : 0;
  a->from_data = r->source == MSPERF_SOURCE_MEASURED || r->source == MSPERF_SOURCE_INTERPOLATED;
  msperf_result_free (r);
  ev->distinct++;
  g_hash_table_insert (ev->answers, g_strdup (body), a);
  return a;
}

gboolean
msperf_model_eval_pass (msperf_model_eval *ev, msperf_model *model,
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
      answer *a = g_hash_table_lookup (ev->answers, body);
      double t;

      if (a)
        ev->cached++;
      else if ((a = ask_engine (ev, body, error)) == NULL)
        return FALSE;
      t = a->latency_us * (double) g_array_index (ev->counts, gint64, i);
      *latency_us += t;
      if (a->from_data)
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

static gboolean
decode_time (msperf_model_eval *ev, msperf_model *model, const msperf_model_layout *layout,
             const msperf_e2e_request *req, double *total_us, double *data_us, GError **error)
{
  msperf_model_pass pass = { MSPERF_PHASE_DECODE, req->batch, 0, 0, req->nextn };
  double tau = tokens_per_step (req);
  int64_t n = req->osl - 1;   /* the first output token comes from the prefill */

  *total_us = *data_us = 0;
  for (int64_t k = 0; k < n; k += req->stride)
    {
      double lat, data, steps = (double) MIN (req->stride, n - k) / tau;

      pass.context = req->isl + k;
      if (!msperf_model_eval_pass (ev, model, layout, &pass, &lat, &data, error))
        return FALSE;
      *total_us += lat * steps;
      *data_us += data * steps;
    }
  return TRUE;
}

static gboolean
memory (msperf_model *model, const msperf_model_layout *layout, const msperf_e2e_request *req,
        msperf_e2e_point *out, GError **error)
{
  double w, kv;

  if (!msperf_model_memory (model, layout, &w, &kv, error))
    return FALSE;
  out->weight_gib = w / GIB;
  out->kv_gib = kv * (double) req->batch * (double) (req->isl + req->osl) / GIB;
  out->device_gib = req->device_bytes > 0 ? req->device_bytes / GIB : NAN;
  out->fits = req->device_bytes <= 0 || w + kv * (double) req->batch
                                                * (double) (req->isl + req->osl)
                                            <= req->device_bytes;
  return TRUE;
}

gboolean
msperf_e2e_point_compute (msperf_model_eval *ev, msperf_model *model,
                          const msperf_model_layout *layout, const msperf_e2e_request *req,
                          msperf_e2e_point *out, GError **error)
{
  msperf_model_pass prefill = { MSPERF_PHASE_PREFILL, req->batch, req->isl, 0, 0 };
  double pre_us, pre_data, dec_us, dec_data, world, lat_us;
  int64_t n = req->osl - 1;

  memset (out, 0, sizeof *out);
  out->layout = *layout;
  out->batch = req->batch;
  out->ttft_ms = out->tpot_ms = out->latency_ms = out->tps_device = out->tps_user = NAN;
  out->data_share = NAN;
  if (!msperf_model_check_layout (model, layout, error) || !memory (model, layout, req, out, error))
    return FALSE;
  if (!out->fits)
    return TRUE;
  /* No pipelining across stages: a pass costs every stage in turn (static batching). */
  if (!msperf_model_eval_pass (ev, model, layout, &prefill, &pre_us, &pre_data, error)
      || !decode_time (ev, model, layout, req, &dec_us, &dec_data, error))
    return FALSE;
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
  return TRUE;
}
