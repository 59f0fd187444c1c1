/* msperf holdout — interpolation accuracy on the database itself (FORMATS §5, §5.2). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <msperf/msperf.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/cache_option.h"
#include "app/report/holdout_report.h"
#include "app/report/holdout_compare.h"

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

/* A started engine on database under the policy file (nullable) and a variant's overrides
 * (nullable); the extrapolation holdout (o->extrapolate_axis) turns extrapolation on. */
static msperf_engine *
start_engine (const msperf_cli_global *g, const char *policy, const char *database,
              const msperf_holdout_variant *v, const msperf_holdout_options *o,
              const msperf_cli_cache *cache, GError **error)
{
  g_autoptr (msperf_engine) e = msperf_engine_new ();

  if (!msperf_cli_cache_apply (cache, e, error))
    return NULL;
  for (char **d = g->plugin_dirs; d && *d; d++)
    msperf_engine_add_plugin_dir (e, *d);
  if (policy && !msperf_engine_load_policy (e, policy, error))
    return NULL;
  if (o->extrapolate_axis
      && !msperf_engine_set_override (e, "interpolation.allow_extrapolation", "true", error))
    return NULL;
  for (guint k = 0; v && k < v->keys->len; k++)
    if (!msperf_engine_set_override (e, g_ptr_array_index (v->keys, k),
                                     g_ptr_array_index (v->values, k), error))
      {
        g_prefix_error (error, "variant '%s': ", v->name);
        return NULL;
      }
  if (!msperf_engine_open_database (e, database, NULL, error) || !msperf_engine_start (e, error))
    return NULL;
  return g_steal_pointer (&e);
}

/* The variants of --compare then --variant, names unique; an empty array without either. */
static GPtrArray *
collect_variants (const char *compare, char **specs, GError **error)
{
  g_autoptr (GPtrArray) out =
    g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_holdout_variant_free);

  if (compare && !msperf_holdout_variants_from_compare (compare, out, error))
    return NULL;
  for (char **sp = specs; sp && *sp; sp++)
    {
      msperf_holdout_variant *v = msperf_holdout_variant_parse (*sp, error);

      if (v == NULL)
        return NULL;
      g_ptr_array_add (out, v);
    }
  for (guint a = 0; a < out->len; a++)
    for (guint b = a + 1; b < out->len; b++)
      if (strcmp (((msperf_holdout_variant *) g_ptr_array_index (out, a))->name,
                  ((msperf_holdout_variant *) g_ptr_array_index (out, b))->name) == 0)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "variant name '%s' given twice",
                       ((msperf_holdout_variant *) g_ptr_array_index (out, a))->name);
          return NULL;
        }
  return g_steal_pointer (&out);
}

/* One holdout per variant, then the comparison on stdout or in the report. */
static int
run_compare (const msperf_cli_global *g, const char *policy, const char *database,
             const GPtrArray *variants, msperf_holdout_options *o, const msperf_cli_cache *cache,
             const char *report)
{
  g_autoptr (GPtrArray) reports =
    g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_holdout_report_free);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  for (guint k = 0; k < variants->len; k++)
    {
      g_autoptr (msperf_engine) e = start_engine (g, policy, database,
                                                  g_ptr_array_index (variants, k), o, cache,
                                                  &error);
      msperf_holdout_report *rep = e ? msperf_holdout_run (e, o, &error) : NULL;

      if (rep == NULL)
        {
          fprintf (stderr, "msperf holdout: %s\n", error->message);
          return MSPERF_EXIT_USAGE;
        }
      g_ptr_array_add (reports, rep);
    }
  text = msperf_holdout_compare_text (variants, reports);
  if (report && !msperf_holdout_compare_write (variants, reports, report, &error))
    {
      fprintf (stderr, "msperf holdout: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  /* With a report the report is the output; the summary goes to stderr. */
  fputs (text, report ? stderr : g->out);
  return MSPERF_EXIT_OK;
}

int
msperf_cli_holdout (const msperf_cli_global *g, int argc, char **argv)
{
  g_autofree char *database = NULL;
  g_autofree char *report = NULL;
  g_autofree char *policy = NULL;
  g_autofree char *compare = NULL;
  g_auto (GStrv) kernels = NULL;
  g_auto (GStrv) variant_specs = NULL;
  gboolean loo = FALSE;
  double fraction = 0.0;
  gint64 seed = 0;
  g_autofree char *extrap_axis = NULL;
  gint hide_outer = 1;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (msperf_engine) e = NULL;
  g_autoptr (msperf_holdout_report) rep = NULL;
  g_autoptr (GPtrArray) variants = NULL;
  msperf_holdout_options o = { 0 };
  g_auto (msperf_cli_cache) cache = { 0 };
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
    { "policy", 0, 0, G_OPTION_ARG_FILENAME, &policy,
      "Policy YAML for the holdout (and under every variant; overrides the global --policy)",
      "FILE" },
    { "compare", 0, 0, G_OPTION_ARG_STRING, &compare,
      "Compare named variants, e.g. linear,log or dim1,dim3 (also default, median, mean)",
      "A,B,..." },
    { "variant", 0, 0, G_OPTION_ARG_STRING_ARRAY, &variant_specs,
      "Add a variant NAME with policy overrides (repeatable; a key without '.' is under "
      "interpolation.)", "NAME:KEY=VALUE[,KEY=VALUE]" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &report,
      "Write the report to FILE (.md, .json or .html); default: a summary on stdout", "FILE" },
    { "extrapolate-axis", 0, 0, G_OPTION_ARG_STRING, &extrap_axis,
      "Hide the largest values of AXIS (M, K, N, seq, ...) and predict them with extrapolation "
      "on", "AXIS" },
    { "hide-outer", 0, 0, G_OPTION_ARG_INT, &hide_outer,
      "With --extrapolate-axis: how many of its largest distinct values (default 1)", "K" },
    MSPERF_CLI_CACHE_ENTRIES (&cache),
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
  variants = collect_variants (compare, variant_specs, &error);
  if (variants == NULL)
    {
      fprintf (stderr, "msperf holdout: %s\n", error->message);
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
  if (variants->len > 0)
    return run_compare (g, policy ? policy : g->policy, database, variants, &o, &cache,
                        report);

  e = start_engine (g, policy ? policy : g->policy, database, NULL, &o, &cache, &error);
  if (e == NULL)
    {
      fprintf (stderr, "msperf: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
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
      fputs (summary, g->out);
    }
  return MSPERF_EXIT_OK;
}
