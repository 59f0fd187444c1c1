/* msperf holdout — interpolation accuracy on the database itself (FORMATS §5, §5.2). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <msperf/msperf.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "app/holdout_report.h"

#define BAR_WIDTH 30

/* A progress bar on a terminal only (stderr), a few updates a second. */
typedef struct {
  gboolean on;
  gint64 last;
} progress_bar;

static void
bar_draw (size_t done, size_t total)
{
  int filled = total ? (int) ((double) done / (double) total * BAR_WIDTH) : BAR_WIDTH;
  char bar[BAR_WIDTH + 1];

  for (int k = 0; k < BAR_WIDTH; k++)
    bar[k] = k < filled ? '#' : '.';
  bar[BAR_WIDTH] = '\0';
  fprintf (stderr, "\rmsperf holdout: [%s] %zu/%zu", bar, done, total);
  fflush (stderr);
}

static void
bar_tick (size_t done, size_t total, gpointer data)
{
  progress_bar *p = data;
  gint64 now = g_get_monotonic_time ();

  if (done < total && now - p->last < 100000)
    return;
  p->last = now;
  bar_draw (done, total);
  if (done == total)
    fputc ('\n', stderr);
}

int
msperf_cli_holdout (const msperf_cli_global *g, int argc, char **argv)
{
  g_autofree char *database = NULL;
  g_autofree char *report = NULL;
  g_auto (GStrv) kernels = NULL;
  gboolean loo = FALSE;
  double fraction = 0.0;
  gint64 seed = 0;
  g_autofree char *extrap_axis = NULL;
  gint hide_outer = 1;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (msperf_engine) e = NULL;
  g_autoptr (msperf_holdout_report) rep = NULL;
  msperf_holdout_options o = { 0 };
  progress_bar bar = { 0 };
  const GOptionEntry entries[] = {
    { "profiling-database", 0, 0, G_OPTION_ARG_FILENAME, &database,
      "Profiling database directory (op_mapping.yaml and kernel CSVs)", "DIR" },
    { "profiling-database-path", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &database,
      NULL, NULL },
    { "kernel", 0, 0, G_OPTION_ARG_STRING_ARRAY, &kernels,
      "Hold out this kernel only (repeatable; default: every interpolated kernel)", "NAME" },
    { "leave-one-out", 0, 0, G_OPTION_ARG_NONE, &loo,
      "Hold out every coordinate in turn (the default)", NULL },
    { "fraction", 0, 0, G_OPTION_ARG_DOUBLE, &fraction,
      "Hold out a random share F in (0, 1] of each kernel's coordinates", "F" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "Seed of the --fraction draw (default 0)", "N" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &report,
      "Write the report to FILE (.md, .json or .html); default: a summary on stdout", "FILE" },
    { "extrapolate-axis", 0, 0, G_OPTION_ARG_STRING, &extrap_axis,
      "Hide the largest values of AXIS (M, K, N, seq, ...) and predict them with extrapolation "
      "on", "AXIS" },
    { "hide-outer", 0, 0, G_OPTION_ARG_INT, &hide_outer,
      "With --extrapolate-axis: how many of its largest distinct values (default 1)", "K" },
    G_OPTION_ENTRY_NULL
  };

  ctx = g_option_context_new ("— interpolate at every held-out coordinate and report the error");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!msperf_cli_check_options ("msperf holdout", entries, argv, &error)
      || !g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "msperf holdout: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  if (argc > 1)
    {
      fprintf (stderr, "msperf holdout: unexpected argument '%s'\n", argv[1]);
      return MSPERF_EXIT_USAGE;
    }
  if (database == NULL)
    {
      fprintf (stderr, "msperf holdout: --profiling-database is required\n");
      return MSPERF_EXIT_USAGE;
    }
  if (loo && fraction != 0.0)
    {
      fprintf (stderr, "msperf holdout: --fraction and --leave-one-out exclude each other\n");
      return MSPERF_EXIT_USAGE;
    }
  if (!loo && fraction != 0.0 && !(fraction > 0.0 && fraction <= 1.0))
    {
      fprintf (stderr, "msperf holdout: --fraction must be in (0, 1], not %g\n", fraction);
      return MSPERF_EXIT_USAGE;
    }
  if (extrap_axis && (loo || fraction != 0.0 || hide_outer < 1))
    {
      fprintf (stderr, "msperf holdout: --extrapolate-axis excludes --fraction and "
               "--leave-one-out; --hide-outer must be >= 1\n");
      return MSPERF_EXIT_USAGE;
    }
  if (seed < 0 || seed > G_MAXUINT32)
    {
      fprintf (stderr, "msperf holdout: --seed must be in [0, %u]\n", G_MAXUINT32);
      return MSPERF_EXIT_USAGE;
    }

  e = msperf_engine_new ();
  for (char **d = g->plugin_dirs; d && *d; d++)
    msperf_engine_add_plugin_dir (e, *d);
  if ((g->policy && !msperf_engine_load_policy (e, g->policy, &error))
      || (extrap_axis && !msperf_engine_set_override (e, "interpolation.allow_extrapolation",
                                                      "true", &error))
      || !msperf_engine_open_database (e, database, NULL, &error)
      || !msperf_engine_start (e, &error))
    {
      fprintf (stderr, "msperf: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }

  o.kernels = (const char *const *) kernels;
  o.leave_one_out = fraction == 0.0;
  o.fraction = fraction;
  o.seed = (guint32) seed;
  o.extrapolate_axis = extrap_axis;
  o.hide_outer = (guint) hide_outer;
  bar.on = isatty (STDERR_FILENO);
  if (bar.on)
    {
      o.progress = bar_tick;
      o.progress_data = &bar;
    }
  rep = msperf_holdout_run (e, &o, &error);
  if (rep == NULL)
    {
      fprintf (stderr, "msperf holdout: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  if (report)
    {
      g_autofree char *summary = msperf_holdout_summary_text (rep);

      if (!msperf_holdout_write (rep, report, &error))
        {
          fprintf (stderr, "msperf holdout: %s\n", error->message);
          return MSPERF_EXIT_USAGE;
        }
      /* The report is the output; the summary goes to stderr as for estimate's reports. */
      fputs (summary, stderr);
    }
  else
    {
      g_autofree char *summary = msperf_holdout_summary_text (rep);
      fputs (summary, stdout);
    }
  return MSPERF_EXIT_OK;
}
