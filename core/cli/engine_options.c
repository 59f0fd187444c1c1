/* msperf — the engine options of the model-level commands (engine_options.h). */
#include <config.h>
#include <math.h>
#include <msperf/paths.h>
#include "cli/engine_options.h"
#include "cli/options.h"

void
msperf_cli_engine_opts_entries (GArray *out, msperf_cli_engine_opts *eo)
{
  const GOptionEntry entries[] = {
    { "profiling-database", 0, 0, G_OPTION_ARG_FILENAME, &eo->database,
      "Profiling database directory (default: the shipped NVIDIA H200 database, imported "
      "from aiconfigurator)", "DIR" },
    { "device-profile", 0, 0, G_OPTION_ARG_STRING, &eo->device,
      "Device profile: a name from policies/devices or a YAML path", "NAME|FILE" },
    { "memory-gib", 0, 0, G_OPTION_ARG_DOUBLE, &eo->memory_gib,
      "Device memory (default: the device profile's memory_gib)", "GIB" },
    MSPERF_CLI_CACHE_ENTRIES (&eo->cache),
  };
  eo->memory_gib = NAN;
  g_array_append_vals (out, entries, G_N_ELEMENTS (entries));
}

/* Model-level answers need every op family: the database imported from NVIDIA's H200
 * tables, not estimate's small sample, unless the tree ships none. Transfer full. */
static char *
default_database (void)
{
  g_autofree char *h200 = msperf_paths_data_file ("databases/nvidia-h200", "data/nvidia-h200");
  g_autofree char *mapping = g_build_filename (h200, "op_mapping.yaml", NULL);

  if (g_file_test (mapping, G_FILE_TEST_IS_REGULAR))
    return g_steal_pointer (&h200);
  return msperf_paths_data_file ("examples/h200-db", "doc/examples/h200-db");
}

msperf_engine *
msperf_cli_engine_opts_start (const msperf_cli_global *g, const msperf_cli_engine_opts *eo,
                              double *device_bytes, GError **error)
{
  g_autoptr (msperf_engine) e = msperf_engine_new ();
  g_autofree char *fallback = NULL;
  double gib;

  g_return_val_if_fail (g != NULL && eo != NULL && device_bytes != NULL, NULL);
  for (char **d = g->plugin_dirs; d && *d; d++)
    msperf_engine_add_plugin_dir (e, *d);
  if (g->policy && !msperf_engine_load_policy (e, g->policy, error))
    return NULL;
  if (!msperf_cli_check_positive ("--memory-gib", eo->memory_gib, error))
    return NULL;
  if (eo->database == NULL)
    fallback = default_database ();
  if (!msperf_cli_cache_apply (&eo->cache, e, error)
      || !msperf_engine_open_database (e, eo->database ? eo->database : fallback, NULL, error)
      || (eo->device && !msperf_engine_set_device_profile (e, eo->device, error))
      || !msperf_engine_start (e, error))
    return NULL;
  gib = !isnan (eo->memory_gib) ? eo->memory_gib : msperf_engine_device_memory_gib (e);
  *device_bytes = isfinite (gib) ? gib * 1024.0 * 1024.0 * 1024.0 : 0;
  return g_steal_pointer (&e);
}

void
msperf_cli_engine_opts_clear (msperf_cli_engine_opts *eo)
{
  g_free (eo->database);
  g_free (eo->device);
  msperf_cli_cache_clear (&eo->cache);
}

static void
quoted (GString *s, const char *flag, const char *value)
{
  g_string_append_printf (s, "%s%s ", s->len ? " " : "", flag);
  msperf_fmt_shell_word (s, value);
}

char *
msperf_cli_engine_opts_args (const msperf_cli_engine_opts *eo)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (eo != NULL, NULL);
  if (eo->database)
    quoted (s, "--profiling-database", eo->database);
  if (eo->device)
    quoted (s, "--device-profile", eo->device);
  if (!isnan (eo->memory_gib))
    {
      g_string_append_printf (s, "%s--memory-gib ", s->len ? " " : "");
      msperf_fmt_py_float (s, eo->memory_gib);
    }
  return g_string_free (s, FALSE);
}

char *
msperf_cli_program_text (const msperf_cli_global *g)
{
  GString *s = g_string_new ("msperf");

  g_return_val_if_fail (g != NULL, NULL);
  for (char **d = g->plugin_dirs; d && *d; d++)
    quoted (s, "--plugins-dir", *d);
  if (g->policy)
    quoted (s, "--policy", g->policy);
  return g_string_free (s, FALSE);
}
