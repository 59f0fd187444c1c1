/* msperf — `recommend`: the best deployment of a model on N GPUs under an SLA, with the
 * command that launches it (doc/recommend.md). */
#include <config.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <msperf/msperf.h>
#include <msperf/paths.h>
#include "cli/cli.h"
#include "cli/cli_serve.h"
#include "cli/cli_recommend.h"
#include "cli/options.h"
#include "app/model/model.h"
#include "app/recommend/recommend.h"

typedef struct {
  char *config, *template_path, *templates_dir, *dtype, *quant, *kv_dtype;
  char *mode, *backend, *format, *report, *shard;
  int gpus, isl, osl, concurrency, top, jobs, nextn, seed;
  gint64 max_points, max_events;
  double ttft_max, tpot_max, latency_max, rate, accept;
} recommend_opts;

static gboolean
parse_mode (const char *mode, msperf_recommend_opts *ro, GError **error)
{
  const char *m = mode ? mode : "both";

  ro->agg = strcmp (m, "agg") == 0 || strcmp (m, "both") == 0;
  ro->disagg = strcmp (m, "disagg") == 0 || strcmp (m, "both") == 0;
  if (ro->agg || ro->disagg)
    return TRUE;
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
               "--mode must be agg, disagg or both, not '%s'", m);
  return FALSE;
}

static gboolean
parse_shard (const char *text, msperf_recommend_opts *ro, GError **error)
{
  unsigned i, n;
  char tail;

  ro->shard_index = 0, ro->shard_count = 1;
  if (text == NULL)
    return TRUE;
  if (sscanf (text, "%u/%u%c", &i, &n, &tail) != 2 || n < 1 || i < 1 || i > n)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--shard must be I/N with 1 <= I <= N, not '%s'", text);
      return FALSE;
    }
  ro->shard_index = i - 1, ro->shard_count = n;
  return TRUE;
}

static gboolean
check_limits (const recommend_opts *o, GError **error)
{
  const struct { const char *flag; double v; } lim[] = {
    { "--ttft-max", o->ttft_max }, { "--tpot-max", o->tpot_max },
    { "--request-latency-max", o->latency_max }, { "--rate", o->rate },
  };
  const struct { const char *flag; int v, min; } ints[] = {
    { "--gpus", o->gpus, 1 }, { "--isl", o->isl, 1 }, { "--osl", o->osl, 1 },
    { "--concurrency", o->concurrency, 0 }, { "--top", o->top, 1 }, { "--jobs", o->jobs, 1 },
    { "--nextn", o->nextn, 0 },
  };

  for (guint k = 0; k < G_N_ELEMENTS (lim); k++)
    if (!isnan (lim[k].v) && !(lim[k].v > 0))   /* NaN: not given; inf is refused earlier */
      {
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                     "%s must be a positive number, not %g", lim[k].flag, lim[k].v);
        return FALSE;
      }
  for (guint k = 0; k < G_N_ELEMENTS (ints); k++)
    if (ints[k].v < ints[k].min)
      {
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                     "%s must be an integer >= %d, not %d", ints[k].flag, ints[k].min,
                     ints[k].v);
        return FALSE;
      }
  if (!msperf_cli_check_fraction ("--nextn-accept", o->accept, error))
    return FALSE;
  if (o->max_points < 1 || o->max_events < 1)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s must be an integer >= 1, not %" G_GINT64_FORMAT,
                   o->max_points < 1 ? "--max-points" : "--max-events",
                   o->max_points < 1 ? o->max_points : o->max_events);
      return FALSE;
    }
  if (o->concurrency > 0 && !isnan (o->rate))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--concurrency and --rate are two kinds of traffic: give one");
      return FALSE;
    }
  return TRUE;
}

/* --quant's comma list, each mode once (a repeat would search the same points twice), or
 * NULL when it names none, has an empty item or more than the search holds. */
static GStrv
quant_list (const char *text, GError **error)
{
  g_auto (GStrv) items = g_strsplit (text, ",", -1);
  g_autoptr (GPtrArray) modes = g_ptr_array_new_with_free_func (g_free);

  for (guint k = 0; items[k] != NULL; k++)
    {
      const char *q = g_strstrip (items[k]);

      if (*q == '\0')
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "--quant must be a comma list of modes, not '%s'", text);
          return NULL;
        }
      if (!g_ptr_array_find_with_equal_func (modes, q, g_str_equal, NULL))
        g_ptr_array_add (modes, g_strdup (q));
    }
  if (modes->len == 0 || modes->len > MSPERF_RECOMMEND_MAX_QUANTS)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   modes->len ? "--quant lists more than %d modes"
                              : "--quant must be a comma list of modes, not ''",
                   MSPERF_RECOMMEND_MAX_QUANTS);
      return NULL;
    }
  g_ptr_array_add (modes, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&modes), FALSE);
}

/* One model per quantisation mode of --quant (a comma list; default: the config's own), with
 * the template parameters of the backend's preset and the KV dtype, as `serve` loads it. */
static gboolean
load_models (const recommend_opts *o, const msperf_serve_policy *pol,
             msperf_recommend_opts *ro, GPtrArray *models, GStrv *quants, GError **error)
{
  g_auto (GStrv) fields = msperf_serve_policy_model_fields (pol);
  g_autofree char *dir = o->templates_dir ? g_strdup (o->templates_dir)
                                          : msperf_paths_data_file ("policies/models",
                                                                    "policies/models");

  if (o->quant != NULL)
    {
      if ((*quants = quant_list (o->quant, error)) == NULL)
        return FALSE;
    }
  else
    {
      *quants = g_new0 (char *, 2);
      (*quants)[0] = g_strdup ("");   /* the config's own mode */
    }
  for (guint q = 0; (*quants)[q] != NULL; q++)
    {
      msperf_model_options mo;
      msperf_model *m;

      memset (&mo, 0, sizeof mo);
      mo.dtype = o->dtype;
      mo.quant = *(*quants)[q] ? (*quants)[q] : NULL;
      mo.kv_dtype = o->kv_dtype;
      mo.fields = (const char *const *) fields;
      if ((m = msperf_model_load (o->config, o->template_path, dir, &mo, error)) == NULL)
        return FALSE;
      g_ptr_array_add (models, m);
      /* The launch commands run MTP on the model's own draft layers. */
      if (o->nextn > 0 && !msperf_model_has_mtp (m))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "--nextn %d: %s has no MTP layers (num_nextn_predict_layers) to draft "
                       "with", o->nextn, o->config);
          return FALSE;
        }
      ro->models[q] = m;
      /* Without --quant, the mode the checkpoint's linears are in (fp8_block for an FP8
       * checkpoint with block scales), not "bf16". */
      ro->quants[q] = *(*quants)[q] ? (*quants)[q] : msperf_model_quant_name (m, FALSE);
      ro->quants_asked[q] = mo.quant;
      ro->n_quants = q + 1;
    }
  return TRUE;
}

static void
entries (GArray *all, recommend_opts *o)
{
  const GOptionEntry e[] = {
    { "model", 0, 0, G_OPTION_ARG_FILENAME, &o->config, "Hugging Face config.json", "CONFIG" },
    { "template", 0, 0, G_OPTION_ARG_FILENAME, &o->template_path, "Architecture template", "FILE" },
    { "templates-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->templates_dir,
      "Directory of templates (default: the shipped policies/models)", "DIR" },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &o->dtype, "Activation and weight dtype", "DTYPE" },
    { "quant", 0, 0, G_OPTION_ARG_STRING, &o->quant,
      "Quantisation modes to search, a comma list (default: the config's)", "LIST" },
    { "kv-dtype", 0, 0, G_OPTION_ARG_STRING, &o->kv_dtype, "KV cache dtype of the launch (bf16)",
      "DTYPE" },
    { "gpus", 0, 0, G_OPTION_ARG_INT, &o->gpus, "GPUs to deploy on (default 8)", "N" },
    { "isl", 0, 0, G_OPTION_ARG_INT, &o->isl, "Input tokens per request (default 1024)", "N" },
    { "osl", 0, 0, G_OPTION_ARG_INT, &o->osl, "Output tokens per request (default 1024)", "N" },
    { "ttft-max", 0, 0, G_OPTION_ARG_DOUBLE, &o->ttft_max, "SLA: mean TTFT limit", "MS" },
    { "tpot-max", 0, 0, G_OPTION_ARG_DOUBLE, &o->tpot_max, "SLA: mean TPOT limit", "MS" },
    { "request-latency-max", 0, 0, G_OPTION_ARG_DOUBLE, &o->latency_max,
      "SLA: mean request latency limit", "MS" },
    { "mode", 0, 0, G_OPTION_ARG_STRING, &o->mode, "agg, disagg or both (default)", "MODE" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &o->backend,
      "Runtime whose scheduler is simulated and launched: vllm (default), sglang, trtllm", "NAME" },
    { "concurrency", 0, 0, G_OPTION_ARG_INT, &o->concurrency,
      "Fixed traffic: C concurrent clients (default: searched per layout)", "C" },
    { "rate", 0, 0, G_OPTION_ARG_DOUBLE, &o->rate, "Fixed traffic: Poisson requests/s", "R" },
    { "nextn", 0, 0, G_OPTION_ARG_INT, &o->nextn, "MTP draft tokens per decode step", "K" },
    { "nextn-accept", 0, 0, G_OPTION_ARG_DOUBLE, &o->accept, "Draft acceptance (0.7)", "P" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &o->seed, "Seed of the workload (default 1)", "N" },
    { "top", 0, 0, G_OPTION_ARG_INT, &o->top, "Rows of the ranked table (default 10)", "K" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &o->format, "table (default), jsonl or csv", "FORMAT" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &o->report,
      "Write DIR/pareto.svg and DIR/points.csv", "DIR" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &o->jobs, "Worker threads (default: the cores)", "N" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &o->shard,
      "Simulate only the I-th of N interleaved parts (jsonl; doc/scale-out.md)", "I/N" },
    { "max-points", 0, 0, G_OPTION_ARG_INT64, &o->max_points,
      "Refuse a search of more points (default 20000)", "N" },
    { "max-events", 0, 0, G_OPTION_ARG_INT64, &o->max_events,
      "Bound on the events of one point's simulation (default 10^8)", "N" },
  };
  g_array_append_vals (all, e, G_N_ELEMENTS (e));
}

static void
opts_clear (recommend_opts *o)
{
  g_free (o->config), g_free (o->template_path), g_free (o->templates_dir), g_free (o->dtype);
  g_free (o->quant), g_free (o->kv_dtype), g_free (o->mode), g_free (o->backend);
  g_free (o->format), g_free (o->report), g_free (o->shard);
}

static gboolean
prepare (recommend_opts *o, msperf_recommend_opts *ro, GError **error)
{
  if (!check_limits (o, error) || !parse_mode (o->mode, ro, error)
      || !parse_shard (o->shard, ro, error))
    return FALSE;
  if (o->config == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "--model CONFIG is required");
      return FALSE;
    }
  if (o->format && strcmp (o->format, "table") && strcmp (o->format, "jsonl")
      && strcmp (o->format, "csv"))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--format must be table, jsonl or csv, not '%s'", o->format);
      return FALSE;
    }
  if (o->shard != NULL && (o->format == NULL || strcmp (o->format, "jsonl") != 0))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--shard writes points for `msperf merge`: it needs --format jsonl");
      return FALSE;
    }
  ro->backend = o->backend ? o->backend : "vllm";
  if (strcmp (ro->backend, "vllm") && strcmp (ro->backend, "sglang")
      && strcmp (ro->backend, "trtllm"))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--backend must be vllm, sglang or trtllm, not '%s'", ro->backend);
      return FALSE;
    }
  ro->gpus = o->gpus, ro->isl = o->isl, ro->osl = o->osl;
  ro->ttft_max_ms = o->ttft_max, ro->tpot_max_ms = o->tpot_max;
  ro->latency_max_ms = o->latency_max;
  ro->concurrency = o->concurrency, ro->rate = isnan (o->rate) ? 0 : o->rate;
  ro->nextn = o->nextn, ro->seed = (guint32) o->seed;
  ro->accept = isnan (o->accept) ? MSPERF_CLI_NEXTN_ACCEPT : o->accept;
  ro->max_points = o->max_points, ro->max_events = o->max_events, ro->jobs = (guint) o->jobs;
  ro->kv_dtype = o->kv_dtype ? o->kv_dtype : "bf16";
  return TRUE;
}

int
msperf_cli_recommend (const msperf_cli_global *g, int argc, char **argv)
{
  recommend_opts o = { .gpus = 8, .isl = 1024, .osl = 1024, .top = 10, .seed = 1,
                       .max_points = 20000, .max_events = MSPERF_SERVE_MAX_EVENTS,
                       .ttft_max = NAN, .tpot_max = NAN,
                       .latency_max = NAN, .rate = NAN, .accept = NAN,
                       .jobs = (int) g_get_num_processors () };
  msperf_cli_engine_opts eo = { 0 };
  msperf_recommend_opts ro = { 0 };
  msperf_serve_policy pol = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— the best deployment under an SLA");
  g_autoptr (GArray) all = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));
  g_autoptr (GPtrArray) models = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_model_free);
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_engine) e = NULL;
  g_autoptr (msperf_recommend) r = NULL;
  g_auto (GStrv) quants = NULL;
  g_autofree char *model_id = NULL, *title = NULL, *program = NULL, *engine_args = NULL;
  char **args = g_strdupv (argv);
  int status = MSPERF_EXIT_USAGE;

  (void) argc;   /* argv is NULL-terminated */
  entries (all, &o);
  msperf_cli_engine_opts_entries (all, &eo);
  if (!msperf_cli_check_options ("msperf recommend", (const GOptionEntry *) (void *) all->data,
                                 args, &error))
    goto out;
  g_option_context_add_main_entries (ctx, (const GOptionEntry *) (void *) all->data, NULL);
  if (!g_option_context_parse_strv (ctx, &args, &error) || !prepare (&o, &ro, &error))
    goto out;
  if (g_strv_length (args) > 1)
    {
      g_set_error (&error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "unexpected argument '%s'",
                   args[1]);
      goto out;
    }
  if (!msperf_cli_serve_load_policy (ro.backend, NULL, &pol, &error)
      || !load_models (&o, &pol, &ro, models, &quants, &error))
    goto out;
  ro.policy = &pol;
  ro.model_name = msperf_model_name (ro.models[0]);
  model_id = msperf_launch_model_id (o.config, NULL);
  ro.model_id = model_id;
  ro.checkpoint_quant = msperf_model_quant_name (ro.models[0], FALSE);
  ro.config = o.config, ro.template_path = o.template_path;
  ro.templates_dir = o.templates_dir, ro.dtype = o.dtype, ro.kv_dtype_given = o.kv_dtype;
  if ((e = msperf_cli_engine_opts_start (g, &eo, &ro.device_bytes, &error)) == NULL)
    goto out;
  ro.node_devices = msperf_engine_node_devices (e);
  ro.program = program = msperf_cli_program_text (g);
  ro.engine_args = engine_args = msperf_cli_engine_opts_args (&eo);
  status = MSPERF_EXIT_PROBLEMS;
  if ((r = msperf_recommend_run (e, &ro, &error)) == NULL)
    goto out;
  if (o.format && strcmp (o.format, "jsonl") == 0)
    msperf_recommend_print_jsonl (r, &ro, g->out);
  else if (o.format && strcmp (o.format, "csv") == 0)
    msperf_recommend_print_csv (r, &ro, g->out);
  else
    msperf_recommend_print_table (r, &ro, (guint) o.top, g->out);
  title = g_strdup_printf ("%s on %d GPUs, isl %d osl %d (%s)", ro.model_name, o.gpus, o.isl,
                           o.osl, ro.backend);
  if (o.report && !msperf_recommend_report (r, &ro, title, o.report, &error))
    goto out;
  /* exit 1 when no deployment meets the SLA: scripts can tell "none" from an answer */
  status = msperf_recommend_best (r) != NULL || ro.shard_count > 1 ? MSPERF_EXIT_OK
                                                                    : MSPERF_EXIT_PROBLEMS;
out:
  if (error)
    fprintf (stderr, "msperf recommend: %s\n", error->message);
  msperf_serve_policy_clear (&pol);
  msperf_cli_engine_opts_clear (&eo);
  opts_clear (&o);
  g_strfreev (args);
  return status;
}
