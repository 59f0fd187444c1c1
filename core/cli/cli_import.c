/* msperf import — a profiling database from another tool's measured tables
 * (`msperf import aiconfigurator TABLES_DIR --out DB`, doc/formats.md §1.3). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <msperf/msperf.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "app/import/import_aic.h"

/* Every skipped row is told: per table and reason, how many and the line of the first. */
static void
report_drop (const char *file, const char *reason, guint64 rows, guint first_line,
             gpointer user_data)
{
  (void) user_data;
  fprintf (stderr, "msperf import: %s:%u: %" G_GUINT64_FORMAT " row%s dropped: %s%s\n", file,
           first_line, rows, rows == 1 ? "" : "s", reason,
           rows > 1 ? " (the first at this line)" : "");
}

int
msperf_cli_import (const msperf_cli_global *g, int argc, char **argv)
{
  g_autofree char *out = NULL;
  g_autofree char *elementwise = NULL;
  gboolean force = FALSE;
  gint64 max_rows = (gint64) MSPERF_IMPORT_MAX_ROWS;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  msperf_import_options o = { 0 };
  msperf_import_stats stats = { 0 };
  gint64 t0 = g_get_monotonic_time ();
  const GOptionEntry entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      "The database directory to write (written beside it, then renamed into place)", "DB" },
    { "elementwise-from", 0, 0, G_OPTION_ARG_FILENAME, &elementwise,
      "Merge the Add, Mul and Silu tables of this database (no NVIDIA table measures them)",
      "DIR" },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, "Replace DB when it exists", NULL },
    { "max-rows", 0, 0, G_OPTION_ARG_INT64, &max_rows,
      "Refuse tables of more than N data rows together (default 2000000)", "N" },
    G_OPTION_ENTRY_NULL
  };

  (void) g;
  ctx = g_option_context_new ("aiconfigurator TABLES_DIR --out DB — a profiling database "
                              "from NVIDIA aiconfigurator's kernel tables");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!msperf_cli_check_options ("msperf import", entries, argv, &error)
      || !g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "msperf import: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  if (argc < 2 || strcmp (argv[1], "aiconfigurator") != 0)
    {
      fprintf (stderr, "msperf import: the source must be 'aiconfigurator' (the only importer)%s%s\n",
               argc >= 2 ? ", not " : "", argc >= 2 ? argv[1] : "");
      return MSPERF_EXIT_USAGE;
    }
  if (argc != 3 || out == NULL)
    {
      fprintf (stderr, "msperf import: usage: msperf import aiconfigurator TABLES_DIR --out DB\n");
      return MSPERF_EXIT_USAGE;
    }
  if (max_rows < 1)
    {
      fprintf (stderr, "msperf import: --max-rows %" G_GINT64_FORMAT ": not a positive count\n",
               max_rows);
      return MSPERF_EXIT_USAGE;
    }
  o.max_rows = (guint64) max_rows;
  o.report_drop = report_drop;
  o.tables_dir = argv[2];
  o.out_dir = out;
  o.elementwise_dir = elementwise;
  o.force = force;
  if (!msperf_import_aiconfigurator (&o, &stats, &error))
    {
      fprintf (stderr, "msperf import: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  fprintf (stderr, "msperf import: %s: %u kernel tables, %" G_GUINT64_FORMAT " rows in, %"
           G_GUINT64_FORMAT " out, %" G_GUINT64_FORMAT " dropped (SOURCE.md says why), %.1f s\n",
           out, stats.n_kernels, stats.rows_in, stats.rows_out, stats.rows_dropped,
           (double) (g_get_monotonic_time () - t0) / 1e6);
  return MSPERF_EXIT_OK;
}
