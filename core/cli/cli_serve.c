/* msperf — `serve`: the serving simulation of one deployment (doc/serving.md). */
#include <config.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <msperf/msperf.h>
#include <msperf/paths.h>
#include "cli/cli.h"
#include "cli/cli_model.h"
#include "cli/cli_serve.h"
#include "cli/options.h"
#include "app/model/model.h"
#include "app/serve/serve.h"

#define UNSET MSPERF_CLI_UNSET

char *
msperf_cli_serving_dir (void)
{
  return msperf_paths_data_file ("policies/serving", "policies/serving");
}

/* ---------------------------------------------------------------- options */

typedef struct {
  char *config, *template_path, *templates_dir, *dtype, *quant, *gemm_quant, *moe_quant, *kv_dtype;
  int tp, ep, dp, pp, replicas;
  char *mode;
  int p_workers, p_tp, p_ep, p_dp, p_pp, d_workers, d_tp, d_ep, d_dp, d_pp, p_seqs, d_seqs;
  int nextn;
  double accept;
  char *backend, *scheduler;
  char **knob_values;         /* one per knob */
  int concurrency, isl, osl, num_requests, seed, warmup, cooldown, kv_capacity;
  int prompt_pool, prompt_warmup;
  double rate;
  char *rate_text;
  gint64 max_events;
  char *arrival, *requests, *isl_dist, *osl_dist;
  char *format, *timeline, *report;
  int jobs;
  gboolean stagger, prompt_shuffle;
} serve_opts;

gboolean
msperf_cli_serve_load_policy (const char *backend, const char *scheduler,
                              msperf_serve_policy *pol, GError **error)
{
  g_autofree char *dir = msperf_cli_serving_dir ();
  g_autofree char *file = NULL;
  const char *name = backend ? backend : "vllm";

  msperf_serve_policy_init (pol);
  if (scheduler)
    return msperf_serve_policy_load (pol, scheduler, error);
  if (strchr (name, '/') || strchr (name, '.'))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--backend is a preset name (vllm, sglang, trtllm, static); a file is "
                   "--scheduler FILE");
      return FALSE;
    }
  file = g_strdup_printf ("%s/%s.yaml", dir, name);
  if (!g_file_test (file, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--backend must be vllm, sglang, trtllm or static, not '%s'", name);
      return FALSE;
    }
  return msperf_serve_policy_load (pol, file, error);
}

static gboolean
layout_ok (const char *what, const msperf_model_layout *l, GError **error)
{
  if (l->tp >= 1 && l->ep >= 1 && l->dp >= 1 && l->pp >= 1)
    return TRUE;
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s sizes must be >= 1", what);
  return FALSE;
}

/* Whether the scheduler key was given on the command line. A budget given there is a rank's,
 * as recommend's launch commands write it (doc/serving.md §2), not the engine's the preset
 * holds. */
static gboolean
knob_given (const serve_opts *o, const char *key)
{
  guint n_knobs;
  const msperf_serve_knob *knobs = msperf_serve_knobs (&n_knobs);

  for (guint k = 0; k < n_knobs; k++)
    if (strcmp (knobs[k].key, key) == 0)
      return o->knob_values[k] != NULL;
  return FALSE;
}

/* One pool's step limits, as print_limits writes them: a rank's budget under attention DP,
 * where the runtime divides the preset's (dp_attention_budget_split), says so — how a default
 * of the preset became the figure the run used. */
static void
print_pool_limits (const msperf_model *m, const msperf_model_layout *l, int64_t seqs,
                   const msperf_serve_policy *pol)
{
  int64_t budget = msperf_serve_rank_budget (m, l, pol);
  int64_t mb = msperf_serve_microbatches (pol, l);

  printf ("%" G_GINT64_FORMAT " tokens", budget);
  if (budget != pol->max_num_batched_tokens)
    printf (" (%" G_GINT64_FORMAT " over %" G_GINT64_FORMAT " attention-DP ranks)",
            pol->max_num_batched_tokens, l->dp);
  seqs = seqs > 0 ? seqs : pol->max_num_seqs;
  printf (" and %" G_GINT64_FORMAT " sequences", seqs);
  if (mb > 1)
    printf (" (%" G_GINT64_FORMAT " micro-batches in flight, %" G_GINT64_FORMAT " sequences each)",
            mb, (seqs + mb - 1) / mb);
}

/* The step limits each scheduler ran with, per pool when disaggregated. */
static void
print_limits (const msperf_model *m, const msperf_serve_deployment *dep,
              const msperf_serve_policy *pol)
{
  printf ("step limits        ");
  if (dep->mode == MSPERF_SERVE_AGG)
    print_pool_limits (m, &dep->layout, 0, pol);
  else
    {
      printf ("prefill ");
      print_pool_limits (m, &dep->prefill, dep->prefill_max_seqs, pol);
      printf ("; decode ");
      print_pool_limits (m, &dep->decode, dep->decode_max_seqs, pol);
    }
  printf (" a step per scheduler\n");
}

static gboolean
build (serve_opts *o, msperf_serve_deployment *dep, msperf_serve_policy *pol,
       msperf_serve_workload *w, GError **error)
{
  guint n_knobs;
  const msperf_serve_knob *knobs = msperf_serve_knobs (&n_knobs);
  const struct { const char *f; int v, min; } ints[] = {
    { "--tp", o->tp, 1 }, { "--ep", o->ep, 1 }, { "--dp", o->dp, 1 }, { "--pp", o->pp, 1 },
    { "--replicas", o->replicas, 1 }, { "--prefill-workers", o->p_workers, 1 },
    { "--prefill-tp", o->p_tp, 1 }, { "--prefill-ep", o->p_ep, 1 },
    { "--prefill-dp", o->p_dp, 1 }, { "--prefill-pp", o->p_pp, 1 },
    { "--decode-workers", o->d_workers, 1 }, { "--decode-tp", o->d_tp, 1 },
    { "--decode-ep", o->d_ep, 1 }, { "--decode-dp", o->d_dp, 1 }, { "--decode-pp", o->d_pp, 1 },
    { "--prefill-max-num-seqs", o->p_seqs, 1 }, { "--decode-max-num-seqs", o->d_seqs, 1 },
    { "--nextn", o->nextn, 0 }, { "--concurrency", o->concurrency, 1 }, { "--isl", o->isl, 1 },
    { "--osl", o->osl, 1 }, { "--num-requests", o->num_requests, 1 }, { "--seed", o->seed, 0 },
    { "--warmup", o->warmup, 0 }, { "--cooldown", o->cooldown, 0 },
    { "--kv-capacity-tokens", o->kv_capacity, 1 }, { "--prompt-pool", o->prompt_pool, 0 },
    { "--prompt-warmup", o->prompt_warmup, 0 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (ints); i++)
    if (!msperf_cli_check_min (ints[i].f, ints[i].v, ints[i].min, error))
      return FALSE;
  if (!msperf_cli_check_fraction ("--nextn-accept", o->accept, error))
    return FALSE;
  if (!msperf_cli_serve_load_policy (o->backend, o->scheduler, pol, error))
    return FALSE;
  for (guint k = 0; k < n_knobs; k++)
    if (o->knob_values[k] && !msperf_serve_policy_set (pol, knobs[k].key, o->knob_values[k], error))
      return FALSE;
  if (knob_given (o, "max_num_batched_tokens") && !knob_given (o, "dp_attention_budget_split"))
    pol->dp_attention_budget_split = FALSE;
  memset (dep, 0, sizeof *dep);
  dep->layout = (msperf_model_layout){ msperf_cli_or (o->tp, 1), msperf_cli_or (o->ep, 1), msperf_cli_or (o->dp, 1),
                                       msperf_cli_or (o->pp, 1), FALSE };
  dep->replicas = msperf_cli_or (o->replicas, 1);
  dep->prefill = (msperf_model_layout){ msperf_cli_or (o->p_tp, dep->layout.tp), msperf_cli_or (o->p_ep, dep->layout.ep),
                                        msperf_cli_or (o->p_dp, 1), msperf_cli_or (o->p_pp, 1), FALSE };
  dep->decode = (msperf_model_layout){ msperf_cli_or (o->d_tp, dep->layout.tp), msperf_cli_or (o->d_ep, dep->layout.ep),
                                       msperf_cli_or (o->d_dp, dep->layout.dp), msperf_cli_or (o->d_pp, 1), FALSE };
  dep->prefill_workers = msperf_cli_or (o->p_workers, 1);
  dep->decode_workers = msperf_cli_or (o->d_workers, 1);
  dep->prefill_max_seqs = msperf_cli_or (o->p_seqs, 0);
  dep->decode_max_seqs = msperf_cli_or (o->d_seqs, 0);
  dep->nextn = msperf_cli_or (o->nextn, 0);
  dep->accept = isnan (o->accept) ? MSPERF_CLI_NEXTN_ACCEPT : o->accept;
  dep->kv_capacity_tokens = o->kv_capacity == UNSET ? 0 : o->kv_capacity;
  if (o->mode == NULL || strcmp (o->mode, "agg") == 0)
    dep->mode = MSPERF_SERVE_AGG;
  else if (strcmp (o->mode, "disagg") == 0)
    dep->mode = MSPERF_SERVE_DISAGG;
  else
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--mode must be agg or disagg, not '%s'", o->mode);
      return FALSE;
    }
  if (!layout_ok ("--tp/--ep/--dp/--pp", &dep->layout, error))
    return FALSE;
  memset (w, 0, sizeof *w);
  w->isl = msperf_cli_or (o->isl, 1024);
  w->osl = msperf_cli_or (o->osl, 128);
  w->seed = (guint32) msperf_cli_or (o->seed, 1);
  w->warmup = msperf_cli_or (o->warmup, 0);
  w->cooldown = msperf_cli_or (o->cooldown, 0);
  w->prompt_pool = msperf_cli_or (o->prompt_pool, 0);
  w->prompt_warmup = msperf_cli_or (o->prompt_warmup, 0);
  w->prompt_shuffle = o->prompt_shuffle;
  if ((w->prompt_warmup > 0 || w->prompt_shuffle) && w->prompt_pool == 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--prompt-warmup and --prompt-shuffle need --prompt-pool");
      return FALSE;
    }
  if (w->prompt_pool > 0 && o->requests)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--prompt-pool is not for --requests (each line is its own prompt)");
      return FALSE;
    }
  if ((o->isl_dist && !msperf_serve_parse_len_dist (o->isl_dist, &w->isl_dist, error))
      || (o->osl_dist && !msperf_serve_parse_len_dist (o->osl_dist, &w->osl_dist, error)))
    return FALSE;
  if ((o->rate > 0) + (o->concurrency != UNSET) + (o->requests != NULL) > 1)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "give one of --concurrency, --rate and --requests");
      return FALSE;
    }
  if (o->max_events < 1)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--max-events must be an integer >= 1, not %" G_GINT64_FORMAT, o->max_events);
      return FALSE;
    }
  w->max_events = o->max_events;
  if ((o->isl != UNSET && o->isl > MSPERF_SERVE_MAX_TOKENS)
      || (o->osl != UNSET && o->osl > MSPERF_SERVE_MAX_TOKENS))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s must be at most %" G_GINT64_FORMAT, o->isl > MSPERF_SERVE_MAX_TOKENS
                   ? "--isl" : "--osl", (gint64) MSPERF_SERVE_MAX_TOKENS);
      return FALSE;
    }
  if (o->requests)
    {
      if ((w->trace = msperf_serve_read_requests (o->requests, error)) == NULL)
        return FALSE;
      w->arrival = MSPERF_SERVE_TRACE;
      w->num_requests = w->trace->len;
    }
  else if (o->rate > 0)
    {
      w->rate = o->rate;
      w->arrival = MSPERF_SERVE_POISSON;
      if (o->arrival && !msperf_serve_parse_arrival (o->arrival, w, error))
        return FALSE;
      w->num_requests = msperf_cli_or (o->num_requests, 1000);
    }
  else
    {
      if (o->arrival)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "--arrival is for the open loop (--rate R)");
          return FALSE;
        }
      w->arrival = MSPERF_SERVE_CLOSED;
      w->staggered = o->stagger;
      w->concurrency = msperf_cli_or (o->concurrency, 1);
      w->num_requests = o->num_requests != UNSET ? o->num_requests
                                                 : MAX (100, 10 * w->concurrency);
    }
  if (w->num_requests > w->max_events)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%" G_GINT64_FORMAT " requests exceed the bound of %" G_GINT64_FORMAT
                   " events of one simulation (--max-events N raises it)", w->num_requests,
                   w->max_events);
      return FALSE;
    }
  if (w->prompt_pool > w->max_events || w->num_requests + w->prompt_warmup > w->max_events)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "a prompt pool of %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT " requests "
                   "after %" G_GINT64_FORMAT " warm-up ones exceed the bound of %"
                   G_GINT64_FORMAT " events of one simulation (--max-events N raises it)",
                   w->prompt_pool, w->num_requests, w->prompt_warmup, w->max_events);
      return FALSE;
    }
  if (w->warmup + w->cooldown >= w->num_requests)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--warmup + --cooldown (%" G_GINT64_FORMAT ") leave no request of %"
                   G_GINT64_FORMAT, w->warmup + w->cooldown, w->num_requests);
      return FALSE;
    }
  return TRUE;
}

/* An open loop's figures are its steady state's only when the run reached one. Fewer requests
 * left out than are in service at once (msperf_serve_in_service) put the deployment's
 * filling up in the figures, when that is more than a twentieth of those measured; once it
 * is filled, arrivals that outrun the completions mean a queue, and latencies, that grow with
 * the run. Said on stderr, as such runs are meant: the figures stay what was asked. */
static void
warn_open_loop (const msperf_serve_workload *w, const msperf_serve_result *res)
{
  double rate = w->arrival == MSPERF_SERVE_TRACE ? res->req_per_s : w->rate;
  double in_service;
  msperf_serve_steady_run steady;

  if (w->arrival == MSPERF_SERVE_CLOSED || isnan (res->keep_up))
    return;
  in_service = msperf_serve_in_service (res, rate);
  steady = msperf_serve_steady_sizes (in_service, res->measured);
  if (in_service - (double) w->warmup > 0.05 * (double) res->measured)
    g_message ("about %.0f requests are in service at once (%.3g requests/s x %.0f ms from "
               "first token to last), more than the %" G_GINT64_FORMAT " left out by --warmup: "
               "the figures include the deployment filling up; its steady state wants "
               "--warmup %" G_GINT64_FORMAT " --cooldown %" G_GINT64_FORMAT " and %"
               G_GINT64_FORMAT " requests measured", in_service, rate,
               res->e2e_ms.mean - res->ttft_ms.mean, w->warmup, steady.warmup,
               steady.cooldown, steady.measured);
  else if (res->keep_up < MSPERF_SERVE_KEEP_UP_MIN)
    g_message ("%.0f %% of the requests arriving complete meanwhile: the deployment does "
               "not keep up, and its queue and latencies grow with --num-requests",
               100 * res->keep_up);
}

int
msperf_cli_serve (const msperf_cli_global *g, int argc, char **argv)
{
  serve_opts o;
  msperf_cli_engine_opts eo = { 0 };
  guint n_knobs;
  const msperf_serve_knob *knobs = msperf_serve_knobs (&n_knobs);
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— serving simulation of a deployment");
  g_autoptr (GArray) all = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_model) m = NULL;
  g_autoptr (msperf_engine) e = NULL;
  msperf_serve_answers *answers = NULL;
  msperf_serve_policy pol = { 0 };
  msperf_serve_deployment dep;
  msperf_serve_workload w = { 0 };
  msperf_serve_result res;
  msperf_serve_record rec = { 0 };
  char **args = g_strdupv (argv);
  int status = MSPERF_EXIT_USAGE;
  double device_bytes = 0;

  memset (&o, 0, sizeof o);
  o.tp = o.ep = o.dp = o.pp = o.replicas = UNSET;
  o.p_workers = o.p_tp = o.p_ep = o.p_dp = o.p_pp = o.p_seqs = o.d_seqs = UNSET;
  o.d_workers = o.d_tp = o.d_ep = o.d_dp = o.d_pp = UNSET;
  o.nextn = o.concurrency = o.isl = o.osl = o.num_requests = o.seed = UNSET;
  o.warmup = o.cooldown = o.kv_capacity = o.jobs = UNSET;
  o.prompt_pool = o.prompt_warmup = UNSET;
  o.accept = o.rate = NAN;
  o.max_events = MSPERF_SERVE_MAX_EVENTS;
  o.knob_values = g_new0 (char *, n_knobs + 1);
  {
    const GOptionEntry model[] = {
      { "model", 0, 0, G_OPTION_ARG_FILENAME, &o.config, "Hugging Face config.json", "CONFIG" },
      { "template", 0, 0, G_OPTION_ARG_FILENAME, &o.template_path, "Architecture template", "FILE" },
      { "templates-dir", 0, 0, G_OPTION_ARG_FILENAME, &o.templates_dir,
        "Directory of templates (default: the shipped policies/models)", "DIR" },
      { "dtype", 0, 0, G_OPTION_ARG_STRING, &o.dtype, "Activation and weight dtype", "DTYPE" },
    };
    g_array_append_vals (all, model, G_N_ELEMENTS (model));
    msperf_cli_model_quant_entries (all, &o.quant, &o.gemm_quant, &o.moe_quant, &o.kv_dtype);
  }
  {
    const GOptionEntry entries[] = {
      { "tp", 0, 0, G_OPTION_ARG_INT, &o.tp, "Tensor-parallel size (default 1)", "N" },
      { "ep", 0, 0, G_OPTION_ARG_INT, &o.ep, "Expert-parallel size (default 1)", "N" },
      { "dp", 0, 0, G_OPTION_ARG_INT, &o.dp, "Attention data-parallel size (default 1)", "N" },
      { "pp", 0, 0, G_OPTION_ARG_INT, &o.pp, "Pipeline-parallel size (default 1)", "N" },
      { "replicas", 0, 0, G_OPTION_ARG_INT, &o.replicas, "Aggregated replicas (default 1)", "N" },
      { "mode", 0, 0, G_OPTION_ARG_STRING, &o.mode, "agg (default) or disagg", "MODE" },
      { "prefill-workers", 0, 0, G_OPTION_ARG_INT, &o.p_workers, "Disagg: prefill workers", "N" },
      { "prefill-tp", 0, 0, G_OPTION_ARG_INT, &o.p_tp, "Disagg: prefill TP (default --tp)", "N" },
      { "prefill-ep", 0, 0, G_OPTION_ARG_INT, &o.p_ep, "Disagg: prefill EP (default --ep)", "N" },
      { "prefill-dp", 0, 0, G_OPTION_ARG_INT, &o.p_dp, "Disagg: prefill attention DP", "N" },
      { "prefill-pp", 0, 0, G_OPTION_ARG_INT, &o.p_pp, "Disagg: prefill PP", "N" },
      { "decode-workers", 0, 0, G_OPTION_ARG_INT, &o.d_workers, "Disagg: decode workers", "N" },
      { "decode-tp", 0, 0, G_OPTION_ARG_INT, &o.d_tp, "Disagg: decode TP (default --tp)", "N" },
      { "decode-ep", 0, 0, G_OPTION_ARG_INT, &o.d_ep, "Disagg: decode EP (default --ep)", "N" },
      { "decode-dp", 0, 0, G_OPTION_ARG_INT, &o.d_dp, "Disagg: decode attention DP", "N" },
      { "decode-pp", 0, 0, G_OPTION_ARG_INT, &o.d_pp, "Disagg: decode PP", "N" },
      { "prefill-max-num-seqs", 0, 0, G_OPTION_ARG_INT, &o.p_seqs,
        "Disagg: sequences a prefill rank runs at once (default: the preset's max_num_seqs)", "N" },
      { "decode-max-num-seqs", 0, 0, G_OPTION_ARG_INT, &o.d_seqs,
        "Disagg: sequences a decode rank runs at once (default: the preset's max_num_seqs)", "N" },
      { "nextn", 0, 0, G_OPTION_ARG_INT, &o.nextn, "MTP draft tokens per decode step", "K" },
      { "nextn-accept", 0, 0, G_OPTION_ARG_DOUBLE, &o.accept,
        "Acceptance probability of each draft token (default 0.7)", "P" },
      { "backend", 0, 0, G_OPTION_ARG_STRING, &o.backend,
        "Scheduler preset: vllm (default), sglang, trtllm, static", "NAME" },
      { "scheduler", 0, 0, G_OPTION_ARG_FILENAME, &o.scheduler, "Scheduler preset file", "FILE" },
      { "concurrency", 0, 0, G_OPTION_ARG_INT, &o.concurrency,
        "Closed loop: concurrent clients (default 1)", "C" },
      { "rate", 0, 0, G_OPTION_ARG_STRING, &o.rate_text, "Open loop: requests per second", "R" },
      { "arrival", 0, 0, G_OPTION_ARG_STRING, &o.arrival, "poisson (default) or gamma:CV",
        "DIST" },
      { "requests", 0, 0, G_OPTION_ARG_FILENAME, &o.requests,
        "JSON Lines: arrival_s, input_tokens, output_tokens per request", "FILE" },
      { "isl", 0, 0, G_OPTION_ARG_INT, &o.isl, "Input tokens per request (default 1024)", "N" },
      { "osl", 0, 0, G_OPTION_ARG_INT, &o.osl, "Output tokens per request (default 128)", "N" },
      { "isl-dist", 0, 0, G_OPTION_ARG_STRING, &o.isl_dist, "fixed (default) or uniform:R", "D" },
      { "osl-dist", 0, 0, G_OPTION_ARG_STRING, &o.osl_dist, "fixed (default) or uniform:R", "D" },
      { "num-requests", 0, 0, G_OPTION_ARG_INT, &o.num_requests,
        "Requests (default max(100, 10 x concurrency); 1000 open loop)", "N" },
      { "stagger", 0, 0, G_OPTION_ARG_NONE, &o.stagger,
        "Closed loop: clients start spread over one request's estimated latency", NULL },
      { "seed", 0, 0, G_OPTION_ARG_INT, &o.seed, "Seed of the run's RNG (default 1)", "N" },
      { "warmup", 0, 0, G_OPTION_ARG_INT, &o.warmup, "First requests left out (default 0)", "N" },
      { "cooldown", 0, 0, G_OPTION_ARG_INT, &o.cooldown, "Last requests left out (default 0)", "N" },
      { "prompt-pool", 0, 0, G_OPTION_ARG_INT, &o.prompt_pool,
        "Distinct prompts the requests draw from at random (default 0: each its own)", "N" },
      { "prompt-warmup", 0, 0, G_OPTION_ARG_INT, &o.prompt_warmup,
        "With --prompt-pool: warm-up requests whose prompts start in the cache (default 0)", "N" },
      { "prompt-shuffle", 0, 0, G_OPTION_ARG_NONE, &o.prompt_shuffle,
        "With --prompt-pool: shuffled passes over the pool, not independent draws", NULL },
      { "max-events", 0, 0, G_OPTION_ARG_INT64, &o.max_events,
        "Bound on the simulation's events (default 100000000)", "N" },
      { "kv-capacity-tokens", 0, 0, G_OPTION_ARG_INT, &o.kv_capacity,
        "KV cache per rank in tokens (default: from the memory model)", "N" },
      { "format", 0, 0, G_OPTION_ARG_STRING, &o.format, "table (default), json or csv", "F" },
      { "timeline", 0, 0, G_OPTION_ARG_FILENAME, &o.timeline, "Chrome trace of steps and requests",
        "FILE" },
      { "report", 0, 0, G_OPTION_ARG_FILENAME, &o.report, "SVG plots into DIR", "DIR" },
      { "jobs", 'j', 0, G_OPTION_ARG_INT, &o.jobs,
        "Worker threads; the output does not depend on it", "N" },
    };
    g_array_append_vals (all, entries, G_N_ELEMENTS (entries));
  }
  msperf_cli_engine_opts_entries (all, &eo);
  for (guint k = 0; k < n_knobs; k++)
    {
      char *name = g_strdup (knobs[k].key);
      GOptionEntry en = { name, 0, 0, G_OPTION_ARG_STRING, &o.knob_values[k], knobs[k].help,
                          "V" };

      g_strdelimit (name, "_", '-');
      g_ptr_array_add (names, name);
      g_array_append_val (all, en);
    }
  (void) argc;
  if (!msperf_cli_parse_options ("msperf serve", ctx, all, &args, &error))
    goto out;
  if (o.format && strcmp (o.format, "table") && strcmp (o.format, "json")
      && strcmp (o.format, "csv"))
    {
      g_set_error (&error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--format must be table, json or csv, not '%s'", o.format);
      goto out;
    }
  if (o.rate_text)
    {
      char *end = NULL;

      o.rate = g_ascii_strtod (o.rate_text, &end);
      if (end == o.rate_text || *end != '\0' || !isfinite (o.rate) || !(o.rate > 0))
        {
          g_set_error (&error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "--rate must be a finite number > 0 (requests per second), not '%s'",
                       o.rate_text);
          goto out;
        }
    }
  if (!msperf_cli_check_min ("--jobs", o.jobs, 1, &error) || !build (&o, &dep, &pol, &w, &error))
    goto out;
  if (o.config == NULL)
    {
      g_set_error (&error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "--model CONFIG is required");
      goto out;
    }
  {
    msperf_model_options mo;
    g_auto (GStrv) fields = msperf_serve_policy_model_fields (&pol);

    memset (&mo, 0, sizeof mo);
    mo.dtype = o.dtype;
    mo.quant = o.quant;
    mo.gemm_quant = o.gemm_quant;
    mo.moe_quant = o.moe_quant;
    mo.kv_dtype = o.kv_dtype;
    mo.fields = (const char *const *) fields;
    g_autofree char *dir = o.templates_dir ? g_strdup (o.templates_dir)
                                           : msperf_paths_data_file ("policies/models",
                                                                     "policies/models");
    if ((m = msperf_model_load (o.config, o.template_path, dir, &mo, &error)) == NULL)
      goto out;
  }
  /* A what-if the simulation allows, but no runtime launches: say what was costed. */
  if (dep.nextn > 0 && !msperf_model_has_mtp (m))
    g_message ("%s has no MTP layers (num_nextn_predict_layers): --nextn %" G_GINT64_FORMAT
               " is costed as %" G_GINT64_FORMAT " more decode token%s a step of the model "
               "itself, which no runtime launches", o.config, dep.nextn, dep.nextn,
               dep.nextn > 1 ? "s" : "");
  if ((e = msperf_cli_engine_opts_start (g, &eo, &device_bytes, &error)) == NULL)
    goto out;
  dep.device_bytes = device_bytes;
  answers = msperf_serve_answers_new (e);
  rec.want_itl = TRUE;
  if (o.timeline)
    rec.timeline = g_string_new ("{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\","
                                 "\"pid\":1,\"args\":{\"name\":\"steps\"}},\n{\"name\":"
                                 "\"process_name\",\"ph\":\"M\",\"pid\":2,\"args\":{\"name\":"
                                 "\"requests\"}}");
  if (o.report)
    {
      rec.samples = g_array_new (FALSE, FALSE, sizeof (msperf_serve_sample));
      rec.ttfts = g_array_new (FALSE, FALSE, sizeof (double));
      rec.tpots = g_array_new (FALSE, FALSE, sizeof (double));
      rec.e2es = g_array_new (FALSE, FALSE, sizeof (double));
    }
  if (!msperf_serve_run (answers, m, &dep, &pol, &w, &rec, &res, &error))
    {
      status = MSPERF_EXIT_PROBLEMS;
      goto out;
    }
  warn_open_loop (&w, &res);
  if (o.format && strcmp (o.format, "json") == 0)
    msperf_serve_print_json (&res, stdout);
  else if (o.format && strcmp (o.format, "csv") == 0)
    msperf_serve_print_csv (&res, TRUE, stdout);
  else
    {
      printf ("model              %s (%s, template %s)\n", msperf_model_name (m),
              msperf_model_architecture (m), msperf_model_family (m));
      printf ("scheduler          %s, %s\n", pol.name ? pol.name : "custom",
              dep.mode == MSPERF_SERVE_AGG ? "aggregated" : "disaggregated");
      print_limits (m, &dep, &pol);
      msperf_serve_print_table (&res, stdout);
    }
  if (rec.timeline)
    {
      g_string_append (rec.timeline, "\n]}\n");
      if (!g_file_set_contents (o.timeline, rec.timeline->str, (gssize) rec.timeline->len,
                                &error))
        {
          status = MSPERF_EXIT_PROBLEMS;
          goto out;
        }
    }
  if (o.report && !msperf_serve_write_report (&rec, o.report, msperf_model_name (m), &error))
    {
      status = MSPERF_EXIT_PROBLEMS;
      goto out;
    }
  status = MSPERF_EXIT_OK;
out:
  if (error)
    fprintf (stderr, "msperf serve: %s\n", error->message);
  msperf_serve_answers_free (answers);
  msperf_serve_policy_clear (&pol);
  if (w.trace)
    g_array_free (w.trace, TRUE);
  if (rec.timeline)
    g_string_free (rec.timeline, TRUE);
  if (rec.samples)
    {
      g_array_free (rec.samples, TRUE);
      g_array_free (rec.ttfts, TRUE);
      g_array_free (rec.tpots, TRUE);
      g_array_free (rec.e2es, TRUE);
    }
  g_free (o.config); g_free (o.template_path); g_free (o.templates_dir); g_free (o.dtype);
  g_free (o.quant); g_free (o.gemm_quant); g_free (o.moe_quant); g_free (o.kv_dtype);
  g_free (o.mode); g_free (o.backend); g_free (o.scheduler);
  g_free (o.arrival); g_free (o.requests); g_free (o.isl_dist); g_free (o.osl_dist);
  g_free (o.format); g_free (o.timeline); g_free (o.report); g_free (o.rate_text);
  /* Unset knobs are NULL among set ones: each is freed, not up to the first NULL. */
  for (guint k = 0; k < n_knobs; k++)
    g_free (o.knob_values[k]);
  g_free (o.knob_values);
  msperf_cli_engine_opts_clear (&eo);
  g_strfreev (args);
  return status;
}
