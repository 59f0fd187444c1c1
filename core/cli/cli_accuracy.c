/* msperf — `accuracy --silicon FILE`: the serving simulation against measured TTFT/TPOT
 * (doc/serving.md §6). */
#include <config.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <msperf/msperf.h>
#include <msperf/paths.h>
#include "cli/cli.h"
#include "cli/cli_serve.h"
#include "cli/options.h"
#include "cli/estimate_jobs.h"
#include "app/serve/serve.h"
#include "app/recommend/recommend_check.h"

int
msperf_cli_accuracy (const msperf_cli_global *g, int argc, char **argv)
{
  msperf_cli_engine_opts eo = { 0 };
  char *silicon = NULL, *models = NULL, *templates = NULL, *policies = NULL, *format = NULL,
       *report = NULL, *program = NULL, *engine_args = NULL, *deployments = NULL;
  int jobs = INT_MIN, per_client = INT_MIN, prompt_pool = 100, decode_batch = 0, nextn = 0;
  double nextn_accept = NAN;
  gint64 max_rows = MSPERF_SERVE_ACCURACY_MAX_ROWS, max_events = MSPERF_SERVE_MAX_EVENTS;
  gboolean burst = FALSE, steady = FALSE, rank = FALSE, prompt_shuffle = FALSE;
  g_autoptr (msperf_recommend_rank) ranked = NULL;
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— serving predictions against "
                                                         "measurements");
  g_autoptr (GArray) all = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_engine) e = NULL;
  g_autofree char *models_default = NULL, *templates_default = NULL, *policies_default = NULL;
  g_autoptr (GPtrArray) recipes = NULL;
  msperf_serve_accuracy_opts o = { 0 };
  char **args = g_strdupv (argv);
  int status = MSPERF_EXIT_USAGE;
  double device_bytes = 0;
  const GOptionEntry entries[] = {
    { "silicon", 0, 0, G_OPTION_ARG_FILENAME, &silicon,
      "Measured rows, aiconfigurator's silicon_sample.csv schema", "FILE" },
    { "models-dir", 0, 0, G_OPTION_ARG_FILENAME, &models,
      "Hugging Face configs, ORG--NAME.json (default: FILE's ../models)", "DIR" },
    { "templates-dir", 0, 0, G_OPTION_ARG_FILENAME, &templates,
      "Directory of templates (default: the shipped policies/models)", "DIR" },
    { "schedulers-dir", 0, 0, G_OPTION_ARG_FILENAME, &policies,
      "Scheduler presets NAME.yaml (default: the shipped policies/serving)", "DIR" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      "table (summary, default) or csv (one line per row); with --rank also json", "F" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &report,
      "DIR/rows.csv, DIR/summary.txt, DIR/scatter.svg, DIR/commands.sh (each row's serve run); "
      "with --rank also DIR/rank.*", "DIR" },
    { "rank", 0, 0, G_OPTION_ARG_NONE, &rank,
      "Does msperf pick the best measured configuration of each group under the group's "
      "median SLA? (doc/recommend.md §7)", NULL },
    { "requests-per-client", 0, 0, G_OPTION_ARG_INT, &per_client,
      "Requests simulated per concurrent client (default 20, the benchmark's rounds; "
      "3 with --steady-state)", "N" },
    { "burst", 0, 0, G_OPTION_ARG_NONE, &burst,
      "Every client starts at once and every request is measured, as aiperf's profiling phase "
      "runs (the default)", NULL },
    { "steady-state", 0, 0, G_OPTION_ARG_NONE, &steady,
      "Clients staggered, ramp-up and ramp-down requests left out, instead of the benchmark's "
      "burst", NULL },
    { "prompt-pool", 0, 0, G_OPTION_ARG_INT, &prompt_pool,
      "Distinct prompts the benchmark draws from (aiperf's --num-dataset-entries, default "
      "100); 0 = every request its own prompt", "N" },
    { "prompt-shuffle", 0, 0, G_OPTION_ARG_NONE, &prompt_shuffle,
      "Serve the pool's prompts in shuffled passes (aiperf's shuffle sampling), not drawn "
      "with replacement (its random sampling, the default)", NULL },
    { "unstated-decode-batch", 0, 0, G_OPTION_ARG_INT, &decode_batch,
      "A disaggregated row without worker counts: decode workers of N sequences per rank, as "
      "many as its clients fill (aiconfigurator's generator: clients = decode workers x batch); "
      "default 0: one prefill and one decode worker", "N" },
    { "deployments", 0, 0, G_OPTION_ARG_FILENAME, &deployments,
      "The deployments benchmarks published for the rows they measured (worker counts, "
      "attention DP, batch limits, MTP): a CSV file, a directory of them, or 'none' (default: "
      "the shipped policies/deployments)", "PATH" },
    { "nextn", 0, 0, G_OPTION_ARG_INT, &nextn,
      "The measured deployments ran MTP speculative decoding with K draft tokens per step "
      "(the rows do not record it): applied to the models with MTP layers; default 0", "K" },
    { "nextn-accept", 0, 0, G_OPTION_ARG_DOUBLE, &nextn_accept,
      "With --nextn: acceptance probability of each draft token (default 0.7)", "P" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
      "Worker threads (default: the cores); the output does not depend on it", "N" },
    { "max-rows", 0, 0, G_OPTION_ARG_INT64, &max_rows,
      "Refuse a --silicon file of more than N rows (default 100000)", "N" },
    { "max-events", 0, 0, G_OPTION_ARG_INT64, &max_events,
      "Bound on the events of each row's simulation; a row past it is unmapped with the "
      "reason (default 100000000)", "N" },
  };

  (void) argc;
  g_array_append_vals (all, entries, G_N_ELEMENTS (entries));
  msperf_cli_engine_opts_entries (all, &eo);
  if (!msperf_cli_parse_options ("msperf accuracy", ctx, all, &args, &error))
    goto out;
  if (silicon == NULL)
    {
      g_set_error (&error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "--silicon FILE is required");
      goto out;
    }
  if (format && strcmp (format, "table") && strcmp (format, "csv")
      && (!rank || strcmp (format, "json")))
    {
      g_set_error (&error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--format must be table or csv%s, not '%s'", rank ? " or json" : "", format);
      goto out;
    }
  if ((jobs != INT_MIN && (jobs < 1 || jobs > 256)) || (per_client != INT_MIN && per_client < 1)
      || prompt_pool < 0 || decode_batch < 0)
    {
      g_set_error (&error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--jobs must be 1..256, --requests-per-client >= 1, --prompt-pool >= 0 "
                   "and --unstated-decode-batch >= 0");
      goto out;
    }
  if (!msperf_cli_check_min ("--nextn", nextn, 0, &error)
      || !msperf_cli_check_fraction ("--nextn-accept", nextn_accept, &error))
    goto out;
  if (!isnan (nextn_accept) && nextn == 0)
    {
      g_set_error (&error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--nextn-accept needs --nextn K (K >= 1)");
      goto out;
    }
  if (burst && steady)
    {
      g_set_error (&error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--burst and --steady-state exclude each other");
      goto out;
    }
  if (max_rows < 1 || max_events < 1)
    {
      g_set_error (&error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--max-rows and --max-events must be integers >= 1");
      goto out;
    }
  if (models == NULL)
    {
      g_autofree char *dir = g_path_get_dirname (silicon);
      models_default = g_build_filename (dir, "..", "models", NULL);
    }
  templates_default = msperf_paths_data_file ("policies/models", "policies/models");
  policies_default = msperf_cli_serving_dir ();
  if ((e = msperf_cli_engine_opts_start (g, &eo, &device_bytes, &error)) == NULL)
    {
      status = MSPERF_EXIT_USAGE;
      goto out;
    }
  if (g_strcmp0 (deployments, "none") != 0)
    {
      g_autofree char *shipped = msperf_paths_data_file ("policies/deployments",
                                                         "policies/deployments");

      if ((recipes = msperf_serve_recipes_load (deployments ? deployments : shipped,
                                                &error)) == NULL)
        goto out;         /* a configuration error, as a bad preset is (exit 2) */
    }
  o.recipes = recipes;
  o.silicon = silicon;
  o.models_dir = models ? models : models_default;
  o.templates_dir = templates ? templates : templates_default;
  o.policies_dir = policies ? policies : policies_default;
  o.shipped_templates = templates == NULL;
  o.shipped_presets = policies == NULL;
  o.format = format;
  o.report_dir = report;
  o.burst = !steady;
  o.requests_per_client = per_client != INT_MIN ? per_client : o.burst ? 20 : 3;
  o.jobs = jobs == INT_MIN ? msperf_jobs_default () : (guint) jobs;
  o.device_bytes = device_bytes;
  o.max_rows = max_rows;
  o.max_events = max_events;
  o.prompt_pool = prompt_pool;
  o.prompt_shuffle = prompt_shuffle;
  o.unstated_decode_batch = decode_batch;
  o.nextn = nextn;
  o.nextn_accept = isnan (nextn_accept) ? MSPERF_CLI_NEXTN_ACCEPT : nextn_accept;
  o.program = program = msperf_cli_program_text (g);
  o.engine_args = engine_args = msperf_cli_engine_opts_args (&eo);
  if (rank)
    {
      /* The rank check reuses the run's per-row predictions: each row is simulated once. */
      ranked = msperf_recommend_rank_new ();
      o.rows_done = msperf_recommend_rank_add_rows;
      o.rows_data = ranked;
    }
  if (!msperf_serve_accuracy (e, &o, rank ? NULL : stdout, &error))
    {
      status = MSPERF_EXIT_PROBLEMS;
      goto out;
    }
  status = MSPERF_EXIT_OK;
  if (rank)
    {
      msperf_recommend_rank_print (ranked, format, stdout);
      if (report && !msperf_recommend_rank_write_report (ranked, report, &error))
        status = MSPERF_EXIT_PROBLEMS;
    }
out:
  if (error)
    fprintf (stderr, "msperf accuracy: %s\n", error->message);
  g_free (silicon);
  g_free (models);
  g_free (templates);
  g_free (policies);
  g_free (format);
  g_free (report);
  g_free (deployments);
  msperf_cli_engine_opts_clear (&eo);
  g_free (program);
  g_free (engine_args);
  g_strfreev (args);
  return status;
}
