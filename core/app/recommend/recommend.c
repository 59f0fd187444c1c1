/* msperf — the deployment search (recommend.h, doc/recommend.md).
 *
 * Candidates come in groups: one group is a deployment shape (aggregated layout and replica
 * count, or disaggregated prefill/decode layouts and worker counts) with one quantisation mode.
 * Within a group the clients are a ladder (1, 2, 4, … per engine) climbed until the SLA fails
 * or the KV cache cannot hold the batch: latency grows with the batch, so every rung after the
 * first failing one would fail too and is not simulated; the step where it first fails is then
 * halved twice (refine). With --concurrency the traffic is
 * given and each group is one point; with --rate the engines sharing it are searched
 * (run_scaled_group). Groups are independent and are simulated on
 * --jobs threads, each with its own engine session; every point keeps its candidate number,
 * so the ranking, the output and a merge of --shard runs do not depend on the threads. */
#include <config.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <msperf/error.h>
#include "app/recommend/recommend.h"

#define LADDER_MAX 1024     /* clients per engine at the top of the ladder */
#define REFINE_STEPS 2      /* halvings of the rung where the ladder first misses the SLA */
#define OPEN_REQUESTS 400   /* an open loop's default run, of which ... */
#define OPEN_WARMUP 40      /* ... the first are left out */
#define OPEN_MAX_REQUESTS 20000   /* the longest run sized_run asks for */

typedef struct {
  msperf_serve_deployment dep;
  guint quant;
  guint first_index;        /* candidate number of its first rung */
  int64_t engines;          /* schedulers the clients spread over (replicas × DP ranks) */
  int64_t max_scale;        /* --rate: most replicas (agg) or decode workers (disagg) */
  int64_t budget;           /* the engines' step token budget (max_num_tokens) */
} group;

typedef struct {
  msperf_engine *engine;
  const msperf_recommend_opts *o;
  GArray *groups;
  GPtrArray *points;        /* one slot per candidate number, filled by the workers */
  pthread_mutex_t lock;
  guint next;
  guint64 simulated;
  GError *error;
} search;

static int64_t
layout_devices (const msperf_model_layout *l)
{
  return l->tp * l->dp * l->pp;
}

gboolean
msperf_recommend_has_experts (const msperf_model *m)
{
  /* Dense templates refuse any expert parallelism (doc/models.md); MoE ones take ep 2. */
  msperf_model_layout probe = { .tp = 1, .dp = 2, .ep = 2, .pp = 1 };

  return msperf_model_check_layout (m, &probe, NULL);
}

/* Engine layouts on at most `gpus` devices: TP and PP in powers of two; MoE models also with
 * attention DP and with the experts either split over every rank (EP = TP × DP) or kept whole
 * on each (EP 1, moe_tp = TP × DP). */
static GArray *
engine_layouts (const msperf_model *m, int64_t gpus)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (msperf_model_layout));
  gboolean moe = msperf_recommend_has_experts (m);

  for (int64_t pp = 1; pp <= 4; pp *= 2)
    for (int64_t tp = 1; tp <= 16; tp *= 2)
      for (int64_t dp = 1; dp <= (moe ? 16 : 1); dp *= 2)
        for (int k = 0; k < (moe ? 2 : 1); k++)
          {
            msperf_model_layout l = { .tp = tp, .dp = dp, .pp = pp, .ep = k ? tp * dp : 1 };

            if (layout_devices (&l) > gpus || (k == 1 && tp * dp == 1))
              continue;
            if (pp > 1 && tp * dp < 8 && layout_devices (&l) < gpus)
              continue;   /* pipeline stages only once a node's worth of TP is used */
            g_array_append_val (out, l);
          }
  return out;
}

static void
add_group (GArray *groups, const msperf_serve_deployment *dep, guint quant, int64_t engines,
           int64_t max_scale, int64_t budget)
{
  group g = { *dep, quant, 0, engines, max_scale, budget };

  g_array_append_val (groups, g);
}

/* The step token budgets an aggregated engine is tried with: the preset's, half and twice it.
 * A smaller budget mixes less prompt into each decode step (TPOT) and prefills a burst more
 * slowly (TTFT); a larger one the reverse. A runtime that does not split prompts over steps
 * (chunked_prefill off: TensorRT-LLM's default) cannot run a prompt longer than its budget,
 * so such budgets are not tried. Returns how many of out[3] are set. */
static guint
agg_budgets (const msperf_recommend_opts *o, int64_t out[3])
{
  const int64_t base = o->policy->max_num_batched_tokens;
  const int64_t cand[3] = { base, base / 2, base * 2 };
  guint n = 0;

  for (guint k = 0; k < 3; k++)
    if (cand[k] >= 256 && (o->policy->chunked_prefill || cand[k] >= o->isl))
      out[n++] = cand[k];
  if (n == 0)
    out[n++] = base;   /* the preset's, whatever it holds: the simulation says why it fails */
  return n;
}

static void
agg_groups (const msperf_recommend_opts *o, const GArray *layouts, guint q, GArray *groups)
{
  int64_t budgets[3];
  guint nb = agg_budgets (o, budgets);

  for (guint i = 0; i < layouts->len; i++)
    for (guint b = 0; b < nb; b++)
      {
        const msperf_model_layout *l = &g_array_index (layouts, msperf_model_layout, i);
        int64_t d = layout_devices (l);
        msperf_serve_deployment dep = { 0 };

        dep.mode = MSPERF_SERVE_AGG;
        dep.layout = *l;
        if (o->rate > 0)
          {
            /* the traffic is fixed: the replicas are searched (run_scaled_group) */
            dep.replicas = 1;
            add_group (groups, &dep, q, l->dp, o->gpus / d, budgets[b]);
            continue;
          }
        if (o->gpus % d != 0)
          continue;
        dep.replicas = o->gpus / d;
        add_group (groups, &dep, q, dep.replicas * l->dp, dep.replicas, budgets[b]);
      }
}

/* The pools' step budget: the preset's, or the prompt for a runtime that runs a prompt in one
 * step (chunked_prefill off) and would refuse it past the budget. */
static int64_t
disagg_budget (const msperf_recommend_opts *o)
{
  const int64_t base = o->policy->max_num_batched_tokens;

  return o->policy->chunked_prefill ? base : MAX (base, o->isl);
}

/* Prefill and decode pools filling exactly the GPUs, PP 1 (the runtimes' disaggregated
 * workers), at most 8 workers a pool. With --rate the decode workers are searched instead
 * (run_scaled_group): a group is a prefill pool and a decode layout with room for at least
 * one decode worker beside it. */
static void
disagg_groups (const msperf_recommend_opts *o, const GArray *layouts, guint q, GArray *groups)
{
  for (guint i = 0; i < layouts->len; i++)
    for (guint j = 0; j < layouts->len; j++)
      {
        const msperf_model_layout *p = &g_array_index (layouts, msperf_model_layout, i);
        const msperf_model_layout *d = &g_array_index (layouts, msperf_model_layout, j);
        int64_t dp_dev = layout_devices (p), dd_dev = layout_devices (d);

        if (p->pp != 1 || d->pp != 1)
          continue;
        for (int64_t x = 1; x <= 8 && x * dp_dev < o->gpus; x++)
          {
            int64_t rest = o->gpus - x * dp_dev, y = rest / dd_dev;
            msperf_serve_deployment dep = { 0 };

            if (y < 1 || (o->rate <= 0 && (rest % dd_dev != 0 || y > 8)))
              continue;
            dep.mode = MSPERF_SERVE_DISAGG;
            dep.prefill = *p, dep.decode = *d;
            dep.prefill_workers = x;
            dep.decode_workers = o->rate > 0 ? 1 : y;
            add_group (groups, &dep, q, dep.decode_workers * d->dp, MIN (y, 8),
                       disagg_budget (o));
          }
      }
}

static guint
ladder_rungs (void)
{
  guint n = 0;

  for (int64_t c = 1; c <= LADDER_MAX; c *= 2)
    n++;
  return n;
}

static guint
rungs (const msperf_recommend_opts *o)
{
  guint n = 0;

  if (o->rate > 0)
    {
      /* doubling up to the largest scale, then halving the gap (run_scaled_group) */
      for (int64_t v = 1; v < o->gpus; v *= 2)
        n++;
      return 2 * n + 3;
    }
  if (o->concurrency > 0)
    return 1;
  return ladder_rungs () + REFINE_STEPS;
}

static GArray *
make_groups (const msperf_recommend_opts *o)
{
  GArray *groups = g_array_new (FALSE, FALSE, sizeof (group));
  guint per = rungs (o), next = 0;

  for (guint q = 0; q < o->n_quants; q++)
    {
      g_autoptr (GArray) layouts = engine_layouts (o->models[q], o->gpus);

      if (o->agg)
        agg_groups (o, layouts, q, groups);
      if (o->disagg)
        disagg_groups (o, layouts, q, groups);
    }
  for (guint i = 0; i < groups->len; i++, next += per)
    g_array_index (groups, group, i).first_index = next;
  return groups;
}

static void
point_free (gpointer data)
{
  msperf_recommend_point *p = data;

  if (p != NULL)
    g_free (p->reason);
  g_free (p);
}

static msperf_recommend_point *
point_new (const group *g, guint rung, int64_t clients)
{
  msperf_recommend_point *p = g_new0 (msperf_recommend_point, 1);

  p->index = g->first_index + rung;
  p->dep = g->dep;
  p->quant = g->quant;
  p->concurrency = clients;
  p->max_num_tokens = g->budget;
  return p;
}

static gboolean
meets_sla (const msperf_recommend_opts *o, const msperf_serve_result *r, char **why)
{
  if (!isnan (o->ttft_max_ms) && !(r->ttft_ms.mean <= o->ttft_max_ms))
    *why = g_strdup_printf ("SLA: TTFT %.1f ms > %g ms", r->ttft_ms.mean, o->ttft_max_ms);
  else if (!isnan (o->tpot_max_ms) && !(r->tpot_ms.mean <= o->tpot_max_ms))
    *why = g_strdup_printf ("SLA: TPOT %.2f ms > %g ms", r->tpot_ms.mean, o->tpot_max_ms);
  else if (!isnan (o->latency_max_ms) && !(r->e2e_ms.mean <= o->latency_max_ms))
    *why = g_strdup_printf ("SLA: request latency %.1f ms > %g ms", r->e2e_ms.mean,
                            o->latency_max_ms);
  else
    return TRUE;
  return FALSE;
}

/* The layout and memory checks of a group, before any simulation: NULL when it can run. */
static char *
group_refusal (const msperf_recommend_opts *o, const group *g, msperf_recommend_status *st)
{
  const msperf_model *m = o->models[g->quant];
  const msperf_model_layout *ls[2] = { g->dep.mode == MSPERF_SERVE_AGG ? &g->dep.layout
                                                                        : &g->dep.prefill,
                                       g->dep.mode == MSPERF_SERVE_AGG ? NULL : &g->dep.decode };

  for (guint k = 0; k < 2; k++)
    {
      g_autoptr (GError) err = NULL;
      int64_t cap;

      if (ls[k] == NULL)
        continue;
      if (!msperf_model_check_layout (m, ls[k], &err))
        {
          *st = MSPERF_RECOMMEND_LAYOUT;
          return g_strdup_printf ("layout: %s", err->message);
        }
      cap = msperf_serve_kv_capacity (m, ls[k], o->device_bytes, o->policy, &err);
      if (err != NULL || (cap >= 0 && cap < o->isl + o->osl))
        {
          *st = MSPERF_RECOMMEND_MEMORY;
          return err != NULL ? g_strdup_printf ("memory: %s", err->message)
                             : g_strdup_printf ("memory: room for %" G_GINT64_FORMAT
                                                " KV tokens, one request needs %" G_GINT64_FORMAT,
                                                cap, o->isl + o->osl);
        }
    }
  return NULL;
}

static void
workload (const msperf_recommend_opts *o, int64_t clients, msperf_serve_workload *w)
{
  memset (w, 0, sizeof *w);
  w->isl = o->isl, w->osl = o->osl, w->seed = o->seed;
  w->max_events = o->max_events;
  if (o->rate > 0)
    {
      w->arrival = MSPERF_SERVE_POISSON;
      w->rate = o->rate;
      w->num_requests = OPEN_REQUESTS;
      w->warmup = OPEN_WARMUP;
      return;
    }
  /* Closed loop: three rounds of the clients after one round of warm-up, as a benchmark
   * that sends 4 × C requests and drops the first C would. */
  w->arrival = MSPERF_SERVE_CLOSED;
  w->concurrency = clients;
  w->num_requests = MAX (4 * clients, 16);
  w->warmup = MIN (clients, w->num_requests / 4);
}

static int64_t
pow2_ceil (int64_t v)
{
  int64_t p = 1;

  while (p < v)
    p *= 2;
  return p;
}

/* The scheduler limits and the workload point p runs with (its batch limit already set). */
static void
point_setup (const msperf_recommend_opts *o, const msperf_recommend_point *p,
             msperf_serve_policy *pol, msperf_serve_workload *w)
{
  const msperf_model_layout *pools[3] = { &p->dep.layout, &p->dep.prefill, &p->dep.decode };

  *pol = *o->policy;
  pol->max_num_seqs = p->max_num_seqs;
  pol->max_num_batched_tokens = p->max_num_tokens;
  /* A point's budget is a rank's, which the launch command multiplies out (launch.c). */
  for (guint k = 0; k < 3; k++)
    if (msperf_serve_attention_dp (o->models[p->quant], pools[k]))
      pol->dp_attention_budget_split = FALSE;
  workload (o, p->concurrency, w);
  if (p->requests > 0)
    w->num_requests = p->requests, w->warmup = p->warmup, w->cooldown = p->cooldown;
}

/* An open loop reaches its steady state once the requests in service at once, L
 * (msperf_serve_in_service), have been replaced about twice; the last L finish in an emptying
 * deployment. The default run (OPEN_WARMUP of OPEN_REQUESTS left out) holds that for L up to
 * OPEN_WARMUP / 2. Past it the run is sized from the L the default run found
 * (msperf_serve_steady_sizes, at least the default's measured requests), at most
 * OPEN_MAX_REQUESTS in all. FALSE when the default run suffices. */
static gboolean
sized_run (const msperf_recommend_opts *o, const msperf_serve_result *pilot,
           msperf_recommend_point *p)
{
  double in_service = msperf_serve_in_service (pilot, o->rate);
  msperf_serve_steady_run r;
  double scale;

  if (!(in_service > OPEN_WARMUP / 2))
    return FALSE;
  r = msperf_serve_steady_sizes (in_service, OPEN_REQUESTS - OPEN_WARMUP);
  scale = (double) OPEN_MAX_REQUESTS / (double) (r.warmup + r.measured + r.cooldown);
  if (scale < 1)
    {
      r.warmup = (int64_t) (r.warmup * scale);
      r.measured = (int64_t) (r.measured * scale);
      r.cooldown = (int64_t) (r.cooldown * scale);
    }
  p->requests = r.warmup + r.measured + r.cooldown;
  p->warmup = r.warmup;
  p->cooldown = r.cooldown;
  return TRUE;
}

/* An open loop's verdict before the SLA's: a deployment whose queue grows is left out (FALSE,
 * status and reason set); one that keeps up serves what arrives, so its throughput is the
 * rate's, not the run's window (which ends with the last requests' latency and so reads a
 * little lower). */
static gboolean
serves_rate (const msperf_recommend_opts *o, msperf_recommend_point *p)
{
  msperf_serve_result *r = &p->res;

  if (!(r->keep_up >= MSPERF_SERVE_KEEP_UP_MIN))
    {
      p->status = MSPERF_RECOMMEND_SLA;
      p->reason = g_strdup_printf ("rate: %.0f %% of the %g requests/s arriving complete "
                                   "meanwhile (the queue grows)", 100 * r->keep_up, o->rate);
      return FALSE;
    }
  r->req_per_s = o->rate;
  r->in_tok_per_s = o->rate * (double) o->isl;
  r->out_tok_per_s = o->rate * (double) o->osl;
  r->tok_per_s_gpu = r->out_tok_per_s / (double) r->devices;
  return TRUE;
}

char *
msperf_recommend_serve_command (const msperf_recommend_point *p, const msperf_recommend_opts *o)
{
  msperf_serve_policy pol;
  msperf_serve_workload w;
  const msperf_model_options mo = { .dtype = o->dtype, .quant = o->quants_asked[p->quant],
                                    .kv_dtype = o->kv_dtype_given };
  const msperf_serve_command c = { o->program, o->config, o->template_path, o->templates_dir, &mo,
                             NULL, o->backend, o->policy, &pol, &p->dep, &w, o->engine_args };

  g_return_val_if_fail (p != NULL && o != NULL && o->config != NULL, NULL);
  point_setup (o, p, &pol, &w);
  return msperf_serve_command_line (&c);
}

/* Copies of a deployment in a closed loop evolve alike: the clients start split evenly, each
 * client's next request goes back to the engine its last one left (the least-loaded routing),
 * and every copy sees the same arrivals and lengths. So one copy with its share of the clients
 * and requests gives the per-request figures and the per-GPU throughput of them all, that many
 * times faster: what makes the high rungs of a small model's ladder affordable. A copy is one
 * replica of an aggregated engine, or of a disaggregated pair of pools the greatest common
 * divisor g of the worker counts (4 prefill + 2 decode workers: 2 copies of 2 + 1).
 * `serve`, the command a point prints, runs them all and gives the same figures
 * (tests/cli/test_recommend.sh reruns them). Returns the copies the run stands for: 1 when the
 * whole deployment must run (an open loop, or clients that do not split). */
static int64_t
one_replica (msperf_serve_deployment *dep, msperf_serve_workload *w)
{
  int64_t x = dep->replicas;

  if (dep->mode == MSPERF_SERVE_DISAGG)
    for (x = MIN (dep->prefill_workers, dep->decode_workers); x > 1; x--)
      if (dep->prefill_workers % x == 0 && dep->decode_workers % x == 0)
        break;
  if (w->arrival != MSPERF_SERVE_CLOSED || x <= 1 || w->concurrency % x != 0
      || w->num_requests % x != 0 || w->warmup % x != 0)
    return 1;
  if (dep->mode == MSPERF_SERVE_DISAGG)
    dep->prefill_workers /= x, dep->decode_workers /= x;
  else
    dep->replicas = 1;
  w->concurrency /= x, w->num_requests /= x, w->warmup /= x;
  return x;
}

/* The result of one copy's run scaled to the x copies it stands for. */
static void
all_replicas (msperf_serve_result *r, int64_t x)
{
  r->devices *= x, r->requests *= x, r->measured *= x;
  r->preemptions *= x, r->steps *= x;
  r->req_per_s *= x, r->in_tok_per_s *= x, r->out_tok_per_s *= x;
}

/* One point of a group: FALSE when the ladder stops after it. */
static gboolean
simulate (search *s, msperf_serve_answers *answers, const group *g, msperf_recommend_point *p)
{
  const msperf_recommend_opts *o = s->o;
  msperf_serve_policy pol;
  msperf_serve_workload w;
  msperf_serve_record rec = { 0 };
  msperf_serve_deployment run;
  g_autoptr (GError) err = NULL;
  gboolean ok;
  int64_t x, per_engine = (p->concurrency + g->engines - 1) / g->engines;

  /* The batch limit a deployment for this traffic would be launched with. */
  p->max_num_seqs = o->concurrency > 0 || o->rate > 0 ? o->policy->max_num_seqs
                                                      : MIN (o->policy->max_num_seqs,
                                                             pow2_ceil (per_engine));
  p->dep.nextn = o->nextn, p->dep.accept = o->accept, p->dep.device_bytes = o->device_bytes;
  do
    {
      point_setup (o, p, &pol, &w);
      run = p->dep;
      x = one_replica (&run, &w);
      /* the step samples give the peak KV use, the headroom the table shows */
      rec.samples = g_array_new (FALSE, FALSE, sizeof (msperf_serve_sample));
      ok = msperf_serve_run (answers, o->models[g->quant], &run, &pol, &w, &rec, &p->res,
                             &err);
      g_array_free (rec.samples, TRUE);
      rec.samples = NULL;
    }
  while (ok && o->rate > 0 && p->requests == 0 && sized_run (o, &p->res, p));
  if (ok)
    all_replicas (&p->res, x);
  if (!ok)
    {
      p->status = MSPERF_RECOMMEND_FAILED;
      p->reason = g_strdup (err->message);
      return FALSE;
    }
  p->kv_headroom = 1.0 - p->res.kv_use_max;
  if (o->rate > 0 && !serves_rate (o, p))
    return FALSE;
  if (!meets_sla (o, &p->res, &p->reason))
    {
      p->status = MSPERF_RECOMMEND_SLA;
      return FALSE;
    }
  p->status = MSPERF_RECOMMEND_OK;
  /* more clients than the cache holds only queue: the next rung adds nothing */
  return p->res.preemptions == 0 && per_engine <= p->max_num_seqs;
}

static void
store (search *s, msperf_recommend_point *p)
{
  pthread_mutex_lock (&s->lock);
  g_ptr_array_index (s->points, p->index) = p;
  pthread_mutex_unlock (&s->lock);
}

static void
count_simulated (search *s)
{
  pthread_mutex_lock (&s->lock);
  s->simulated++;
  pthread_mutex_unlock (&s->lock);
}

static void
set_scale (msperf_serve_deployment *dep, int64_t scale)
{
  if (dep->mode == MSPERF_SERVE_AGG)
    dep->replicas = scale;
  else
    dep->decode_workers = scale;
}

/* --rate: the traffic is fixed, so what a group can change is how many engines share it —
 * replicas of an aggregated layout, decode workers beside a prefill pool — and the fewest
 * that meet the SLA give the most tokens/s/GPU. At a fixed rate latency falls as engines are
 * added, so the scale doubles from 1 until a rung meets the SLA (or the GPUs run out), then
 * the gap between the last rung that missed and the first that met is halved until they
 * are neighbours: the fewest engines in O(log N) simulations. */
static void
run_scaled_group (search *s, msperf_serve_answers *answers, const group *g)
{
  int64_t lo = 0, hi = 0, scale = 1;

  for (guint k = 0; k < rungs (s->o); k++)
    {
      msperf_recommend_point *p = point_new (g, k, 0);

      set_scale (&p->dep, scale);
      simulate (s, answers, g, p);
      store (s, p);
      count_simulated (s);
      if (p->status == MSPERF_RECOMMEND_FAILED)
        return;
      if (p->status == MSPERF_RECOMMEND_OK)
        hi = scale;
      else
        lo = scale;
      if (hi == 0 && scale == g->max_scale)
        return;
      scale = hi == 0 ? MIN (2 * scale, g->max_scale) : lo + (hi - lo) / 2;
      if (hi > 0 && hi - lo <= 1)
        return;
    }
}

/* The ladder met the SLA at lo clients per engine and missed it at hi = 2 lo: the most
 * clients that meet it lie between, up to twice the tokens/s/GPU of lo. The gap is halved
 * REFINE_STEPS times (latency grows with the clients), each midpoint a point of its own
 * numbered after the ladder's rungs, so the search ends within lo/4 of the knee. */
static void
refine (search *s, msperf_serve_answers *answers, const group *g, int64_t lo, int64_t hi)
{
  for (guint j = 0; j < REFINE_STEPS && hi - lo > 1; j++)
    {
      int64_t mid = lo + (hi - lo) / 2;
      msperf_recommend_point *p = point_new (g, ladder_rungs () + j, g->engines * mid);

      simulate (s, answers, g, p);
      store (s, p);
      count_simulated (s);
      if (p->status == MSPERF_RECOMMEND_OK)
        lo = mid;
      else if (p->status == MSPERF_RECOMMEND_SLA)
        hi = mid;
      else
        return;
    }
}

static void
run_group (search *s, msperf_serve_answers *answers, const group *g)
{
  const msperf_recommend_opts *o = s->o;
  msperf_recommend_status st;
  char *refusal = group_refusal (o, g, &st);
  guint n = o->concurrency > 0 ? 1 : ladder_rungs ();
  int64_t met = 0, missed = 0;   /* clients per engine of the last rung that met the SLA */

  if (refusal != NULL)
    {
      /* one line, the group's first rung, says why the whole group was left out */
      msperf_recommend_point *p = point_new (g, 0, o->rate > 0            ? 0
                                                   : o->concurrency > 0 ? o->concurrency
                                                                        : g->engines);
      if (o->rate > 0)
        set_scale (&p->dep, 1);
      p->status = st;
      p->reason = refusal;
      store (s, p);
      return;
    }
  if (o->rate > 0)
    {
      run_scaled_group (s, answers, g);
      return;
    }
  for (guint k = 0; k < n; k++)
    {
      int64_t clients = o->concurrency > 0 ? o->concurrency : g->engines << k;
      msperf_recommend_point *p = point_new (g, k, clients);
      gboolean more = simulate (s, answers, g, p);
      store (s, p);
      count_simulated (s);
      if (p->status == MSPERF_RECOMMEND_OK)
        met = (int64_t) 1 << k;
      else if (p->status == MSPERF_RECOMMEND_SLA)
        missed = (int64_t) 1 << k;
      if (!more)
        break;
    }
  if (o->concurrency == 0 && met > 0 && missed == 2 * met)
    refine (s, answers, g, met, missed);
}

static gpointer
worker (gpointer data)
{
  search *s = data;
  msperf_engine *session = msperf_engine_new_session (s->engine);
  msperf_serve_answers *answers = msperf_serve_answers_new (session);

  for (;;)
    {
      guint i;

      pthread_mutex_lock (&s->lock);
      i = s->next++;
      pthread_mutex_unlock (&s->lock);
      if (i >= s->groups->len)
        break;
      if (i % s->o->shard_count == s->o->shard_index)
        run_group (s, answers, &g_array_index (s->groups, group, i));
    }
  msperf_serve_answers_free (answers);
  msperf_engine_free (session);
  return NULL;
}

static gboolean
check_opts (const msperf_recommend_opts *o, guint64 bound, GError **error)
{
  if (o->gpus < 1 || o->isl < 1 || o->osl < 1 || o->n_quants < 1)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "recommend needs --gpus, --isl and --osl of at least 1");
      return FALSE;
    }
  if (o->max_points > 0 && bound > (guint64) o->max_points)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "the search%s has up to %" G_GUINT64_FORMAT " points, more than "
                   "--max-points %" G_GINT64_FORMAT ": narrow it (--mode, --quant), split it "
                   "over more shards (--shard I/N, each bounded alone) or raise the bound",
                   o->shard_count > 1 ? "'s shard" : "", bound, o->max_points);
      return FALSE;
    }
  return TRUE;
}

msperf_recommend *
msperf_recommend_run (msperf_engine *engine, const msperf_recommend_opts *o, GError **error)
{
  search s = { .engine = engine, .o = o };
  msperf_recommend *r = NULL;
  gint64 t0 = g_get_monotonic_time ();
  guint jobs;
  pthread_t *threads;

  g_return_val_if_fail (engine != NULL && o != NULL && o->policy != NULL, NULL);
  g_return_val_if_fail (o->shard_count >= 1 && o->shard_index < o->shard_count, NULL);
  s.groups = make_groups (o);
  /* A shard simulates the groups g with g mod N = I - 1: the bound is on its own points. */
  if (!check_opts (o, (guint64) ((s.groups->len + o->shard_count - 1 - o->shard_index)
                                 / o->shard_count) * rungs (o), error))
    goto out;
  s.points = g_ptr_array_new_with_free_func (point_free);
  g_ptr_array_set_size (s.points, s.groups->len * rungs (o));
  pthread_mutex_init (&s.lock, NULL);
  jobs = CLAMP (o->jobs, 1, MAX (1u, s.groups->len));
  threads = g_new (pthread_t, jobs);
  for (guint t = 0; t < jobs; t++)
    pthread_create (&threads[t], NULL, worker, &s);
  for (guint t = 0; t < jobs; t++)
    pthread_join (threads[t], NULL);
  g_free (threads);
  pthread_mutex_destroy (&s.lock);
  for (guint i = s.points->len; i-- > 0;)   /* rungs above a group's last one stay empty */
    if (g_ptr_array_index (s.points, i) == NULL)
      g_ptr_array_remove_index (s.points, i);
  msperf_recommend_rank (s.points);
  r = g_new0 (msperf_recommend, 1);
  r->points = g_steal_pointer (&s.points);
  r->simulated = s.simulated;
  r->seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
out:
  g_array_free (s.groups, TRUE);
  return r;
}

void
msperf_recommend_free (msperf_recommend *r)
{
  if (r == NULL)
    return;
  g_ptr_array_unref (r->points);
  g_free (r);
}

static int
by_rank (gconstpointer a, gconstpointer b)
{
  const msperf_recommend_point *p = *(msperf_recommend_point *const *) a;
  const msperf_recommend_point *q = *(msperf_recommend_point *const *) b;
  double dp = p->res.tok_per_s_gpu, dq = q->res.tok_per_s_gpu;

  /* Under an open loop (--rate, no clients) every point that keeps up serves the same
   * tokens/s, so its tokens/s/GPU differ by the GPUs and by the noise of the measured window:
   * the GPUs decide, then tokens/s/user. */
  if (p->concurrency == 0 && q->concurrency == 0 && p->res.devices != q->res.devices)
    return (p->res.devices > q->res.devices) - (p->res.devices < q->res.devices);
  if (p->concurrency == 0 && q->concurrency == 0)
    dp = dq = 0.0;
  if (dp != dq)
    return dp > dq ? -1 : 1;
  if (p->res.tok_per_s_user != q->res.tok_per_s_user)
    return p->res.tok_per_s_user > q->res.tok_per_s_user ? -1 : 1;
  return (p->index > q->index) - (p->index < q->index);
}

static gboolean
simulated (const msperf_recommend_point *p)
{
  return p->status == MSPERF_RECOMMEND_OK || p->status == MSPERF_RECOMMEND_SLA;
}

void
msperf_recommend_rank (GPtrArray *points)
{
  g_autoptr (GPtrArray) ok = g_ptr_array_new ();

  for (guint i = 0; i < points->len; i++)
    {
      msperf_recommend_point *p = g_ptr_array_index (points, i);

      p->rank = 0;
      p->pareto = simulated (p);
      if (p->status == MSPERF_RECOMMEND_OK)
        g_ptr_array_add (ok, p);
    }
  g_ptr_array_sort (ok, by_rank);
  for (guint i = 0; i < ok->len; i++)
    ((msperf_recommend_point *) g_ptr_array_index (ok, i))->rank = i + 1;
  /* the front of the simulated points: none better in both throughputs */
  for (guint i = 0; i < points->len; i++)
    {
      msperf_recommend_point *p = g_ptr_array_index (points, i);

      for (guint j = 0; p->pareto && j < points->len; j++)
        {
          const msperf_recommend_point *q = g_ptr_array_index (points, j);

          if (q != p && simulated (q) && q->res.tok_per_s_gpu >= p->res.tok_per_s_gpu
              && q->res.tok_per_s_user >= p->res.tok_per_s_user
              && (q->res.tok_per_s_gpu > p->res.tok_per_s_gpu
                  || q->res.tok_per_s_user > p->res.tok_per_s_user))
            p->pareto = FALSE;
        }
    }
}

const msperf_recommend_point *
msperf_recommend_best (const msperf_recommend *r)
{
  for (guint i = 0; i < r->points->len; i++)
    {
      const msperf_recommend_point *p = g_ptr_array_index (r->points, i);

      if (p->rank == 1)
        return p;
    }
  return NULL;
}

static void
layout_text (GString *s, const msperf_model_layout *l)
{
  g_string_append_printf (s, "tp%" G_GINT64_FORMAT, l->tp);
  if (l->pp > 1)
    g_string_append_printf (s, " pp%" G_GINT64_FORMAT, l->pp);
  if (l->dp > 1)
    g_string_append_printf (s, " dp%" G_GINT64_FORMAT, l->dp);
  if (l->ep > 1)
    g_string_append_printf (s, " ep%" G_GINT64_FORMAT, l->ep);
}

char *
msperf_recommend_layout_text (const msperf_recommend_point *p)
{
  GString *s = g_string_new (NULL);

  if (p->dep.mode == MSPERF_SERVE_AGG)
    {
      g_string_append (s, "agg ");
      layout_text (s, &p->dep.layout);
      if (p->dep.replicas > 1)
        g_string_append_printf (s, " x%" G_GINT64_FORMAT, p->dep.replicas);
    }
  else
    {
      g_string_append_printf (s, "disagg %" G_GINT64_FORMAT "P(", p->dep.prefill_workers);
      layout_text (s, &p->dep.prefill);
      g_string_append_printf (s, ") + %" G_GINT64_FORMAT "D(", p->dep.decode_workers);
      layout_text (s, &p->dep.decode);
      g_string_append_c (s, ')');
    }
  return g_string_free (s, FALSE);
}
