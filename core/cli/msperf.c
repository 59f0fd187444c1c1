/* msperf — command-line entry: global options, then one subcommand (FORMATS §5.2). */
#include <config.h>
#ifdef HAVE_MIMALLOC
#include <mimalloc.h>
#endif
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <msperf/plugin.h>
#include "cli/cli.h"
#include "cli/logging.h"
#include "cli/cli_serve.h"
#include "app/report/output.h"
#include "cli/cli_recommend.h"

static const char commands_help[] =
  "Commands:\n"
  "  estimate   answer every op of a trace (default: the shipped Llama-3-8B sample)\n"
  "  query      answer one op given inline as JSON (--op)\n"
  "  merge      estimate --shard outputs (JSON Lines) into the single run's order\n"
  "  summarize  the headline and summary of a run from its (sharded) JSON Lines answers\n"
  "  validate   check a profiling database and list every problem\n"
  "  plugins    list the query-mode modules, or show one (plugins info NAME)\n"
  "  att        ATT vector-unit cost formulas: att cast | att broadcast | att duplicate\n"
  "  holdout    interpolation accuracy: leave coordinates out of the database, report the error\n"
  "  mapping    draft or check an op_mapping.yaml against traces (mapping draft|check --database DIR --ops T)\n"
  "  import     a profiling database from NVIDIA aiconfigurator's tables (import aiconfigurator DIR --out DB)\n"
  "  trace      the op trace of one forward pass of a model, from its Hugging Face config.json\n"
  "  e2e        TTFT, TPOT and throughput of a request on a model and layout\n"
  "  serve      serving simulation of a deployment (vLLM, SGLang, TensorRT-LLM schedulers)\n"
  "  accuracy   serving predictions against measured TTFT/TPOT (aiconfigurator's CSV)\n"
  "  sweep      layouts x batch sizes on N devices, with the Pareto front\n"
  "  recommend  the best deployment on N GPUs under an SLA, and how to launch it\n"
  "\n"
  "Run 'msperf COMMAND --help' for the options of a command.";

/* The allocator this program's process runs on (doc/dependencies.md): mimalloc when linked
 * (calling it also keeps the library on the link line under --as-needed). */
static char *
allocator_name (void)
{
#ifdef HAVE_MIMALLOC
  int v = mi_version ();

  return g_strdup_printf ("mimalloc %d.%d.%d", v / 100, v / 10 % 10, v % 10);
#else
  return g_strdup ("glibc");
#endif
}

int
main (int argc, char **argv)
{
  msperf_cli_global g = { 0 };
  gboolean version = FALSE;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  const GOptionEntry entries[] = {
    { "plugins-dir", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &g.plugin_dirs,
      "Load query-mode modules from DIR first (repeatable, in order)", "DIR" },
    { "policy", 0, 0, G_OPTION_ARG_FILENAME, &g.policy,
      "Policy YAML (overrides the database's policy; flags override it)", "FILE" },
    { "log-format", 0, 0, G_OPTION_ARG_STRING, &g.log_format,
      "Log lines on stderr as 'text' (default) or 'json'", "FORMAT" },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &g.verbose, "Show debug messages", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    G_OPTION_ENTRY_NULL
  };
  int status = MSPERF_EXIT_USAGE;
  const char *cmd;

  setlocale (LC_ALL, "");
  g.std = msperf_stdout_open ();
  g.out = msperf_stdout_stream (g.std);
  ctx = g_option_context_new ("COMMAND [OPTION…] — predict operator latency on AI accelerators");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx, commands_help);
  /* Stop at the command name: everything after it belongs to the command. */
  g_option_context_set_strict_posix (ctx, TRUE);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "msperf: %s\nRun 'msperf --help' for usage.\n", error->message);
      goto out;
    }
  if (version)
    {
      g_autofree char *allocator = allocator_name ();

      fprintf (g.out, "msperf %s (module ABI %u.%u; allocator %s)\n", PACKAGE_VERSION,
               MSPERF_PLUGIN_ABI_MAJOR, MSPERF_PLUGIN_ABI_MINOR, allocator);
      status = MSPERF_EXIT_OK;
      goto out;
    }
  if (g.log_format && strcmp (g.log_format, "text") != 0 && strcmp (g.log_format, "json") != 0)
    {
      fprintf (stderr, "msperf: --log-format must be 'text' or 'json', not '%s'\n", g.log_format);
      goto out;
    }
  msperf_logging_setup (g.log_format && strcmp (g.log_format, "json") == 0 ? MSPERF_LOG_JSON
                                                                         : MSPERF_LOG_TEXT,
                        g.verbose);
  if (argc < 2)
    {
      g_autofree char *help = g_option_context_get_help (ctx, TRUE, NULL);
      fprintf (stderr, "%s", help);
      goto out;
    }
  cmd = argv[1];
  {
    /* Each command's --help then reads "Usage: msperf estimate [OPTION…]". */
    g_autofree char *prgname = g_strdup_printf ("msperf %s", cmd);
    g_set_prgname (prgname);
  }
  if (strcmp (cmd, "estimate") == 0)
    status = msperf_cli_estimate (&g, argc - 1, argv + 1, FALSE);
  else if (strcmp (cmd, "query") == 0)
    status = msperf_cli_estimate (&g, argc - 1, argv + 1, TRUE);
  else if (strcmp (cmd, "summarize") == 0)
    status = msperf_cli_summarize (&g, argc - 1, argv + 1);
  else if (strcmp (cmd, "merge") == 0)
    status = msperf_cli_merge (&g, argc - 1, argv + 1);
  else if (strcmp (cmd, "validate") == 0)
    status = msperf_cli_validate (&g, argc - 1, argv + 1);
  else if (strcmp (cmd, "plugins") == 0)
    status = msperf_cli_plugins (&g, argc - 1, argv + 1);
  else if (strcmp (cmd, "att") == 0)
    status = msperf_cli_att (&g, argc - 1, argv + 1);
  else if (strcmp (cmd, "holdout") == 0)
    status = msperf_cli_holdout (&g, argc - 1, argv + 1);
  else if (strcmp (cmd, "mapping") == 0)
    status = msperf_cli_mapping (&g, argc - 1, argv + 1);
  else if (strcmp (cmd, "import") == 0)
    status = msperf_cli_import (&g, argc - 1, argv + 1);
  else if (strcmp (cmd, "trace") == 0)
    status = msperf_cli_trace (&g, argc - 1, argv + 1);
  else if (strcmp (cmd, "serve") == 0)
    status = msperf_cli_serve (&g, argc - 1, argv + 1);
  else if (strcmp (cmd, "accuracy") == 0)
    status = msperf_cli_accuracy (&g, argc - 1, argv + 1);
  else if (strcmp (cmd, "e2e") == 0)
    status = msperf_cli_e2e (&g, argc - 1, argv + 1);
  else if (strcmp (cmd, "sweep") == 0)
    status = msperf_cli_sweep (&g, argc - 1, argv + 1);
  else if (strcmp (cmd, "recommend") == 0)
    status = msperf_cli_recommend (&g, argc - 1, argv + 1);
  else
    fprintf (stderr, "msperf: unknown command '%s'\nRun 'msperf --help' for usage.\n", cmd);
out:
  /* Every command's stdout is checked once here: a full disk or a closed descriptor must not
   * leave a truncated output behind an exit status 0. */
  {
    g_autoptr (GError) write_error = NULL;
    if (!msperf_stdout_ok (g.std, &write_error))
      {
        fprintf (stderr, "msperf: %s\n", write_error->message);
        status = MSPERF_EXIT_USAGE;
      }
  }
  msperf_stdout_free (g.std);
  g_strfreev (g.plugin_dirs);
  g_free (g.policy);
  g_free (g.log_format);
  return status;
}
