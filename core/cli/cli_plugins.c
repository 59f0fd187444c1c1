/* msperf — `msperf plugins [list | info NAME]`: what the loader found and why. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <msperf/format.h>
#include <msperf/engine.h>

#include "cli/cli.h"
#include "cli/options.h"

typedef int (*subcommand_fn) (const msperf_cli_global *g, char **args);

static const struct {
  const char *name;
  const char *meaning;
} capability_meanings[] = {
  { "lookup", "exact lookup of measured kernel latencies in the profiling database" },
  { "interpolate", "interpolation between database rows (describe_target and describe_row)" },
  { "model", "analytic cost model (latency from the device profile)" },
  { "decompose", "splits composite ops into sub-queries answered by other modules" },
};

static const char *
or_dash (const char *s)
{
  return s != NULL && *s != '\0' ? s : "-";
}

static char *printable (const char *s);

/* "loaded", or "rejected: ABI 42, expected 1" when there is a reason (escaped: a reason names
 * files). */
static char *
status_text (const msperf_plugin_info *info)
{
  const char *status = msperf_plugin_status_name (info->status);
  g_autofree char *text = NULL;

  if (info->reason != NULL && *info->reason != '\0')
    text = g_strdup_printf ("%s: %s", status, info->reason);
  return printable (text ? text : status);
}

/* A module's name or file name cannot drive the terminal (format.h). Transfer full. */
static char *
printable (const char *s)
{
  return msperf_fmt_printable (s);
}

/* Prints s padded to width characters (not bytes: module names and paths may be UTF-8). */
static void
print_cell (FILE *out, const char *s, size_t width)
{
  size_t len = (size_t) g_utf8_strlen (s, -1);

  fputs (s, out);
  for (; len < width; len++)
    fputc (' ', out);
}

static void
widen (size_t *width, const char *s)
{
  size_t len = (size_t) g_utf8_strlen (s, -1);

  if (len > *width)
    *width = len;
}

/* Loads the modules as any other command would (same dirs, same policy). NULL after printing
 * the configuration error. */
static msperf_engine *
start_engine (const msperf_cli_global *g)
{
  g_autoptr (msperf_engine) engine = msperf_engine_new ();
  g_autoptr (GError) error = NULL;

  for (char **d = g->plugin_dirs; d != NULL && *d != NULL; d++)
    msperf_engine_add_plugin_dir (engine, *d);
  if (g->policy != NULL && !msperf_engine_load_policy (engine, g->policy, &error))
    {
      g_printerr ("msperf plugins: %s\n", error->message);
      return NULL;
    }
  if (!msperf_engine_start (engine, &error))
    {
      g_printerr ("msperf plugins: %s\n", error->message);
      return NULL;
    }
  return g_steal_pointer (&engine);
}

static int
plugins_list (const msperf_cli_global *g, char **args)
{
  static const char *const headers[] = { "NAME", "VERSION", "CAPABILITIES", "STATUS", "FILE" };
  g_autoptr (msperf_engine) engine = NULL;
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  const GPtrArray *infos;
  size_t width[G_N_ELEMENTS (headers)] = { 0 };

  if (args[0] != NULL)
    {
      g_printerr ("msperf plugins list: unexpected argument '%s'\n", args[0]);
      return MSPERF_EXIT_USAGE;
    }
  engine = start_engine (g);
  if (engine == NULL)
    return MSPERF_EXIT_USAGE;
  infos = msperf_engine_plugins (engine);

  for (size_t c = 0; c < G_N_ELEMENTS (headers); c++)
    widen (&width[c], headers[c]);
  for (guint i = 0; infos != NULL && i < infos->len; i++)
    {
      const msperf_plugin_info *info = g_ptr_array_index (infos, i);
      char **row = g_new0 (char *, G_N_ELEMENTS (headers) + 1);

      row[0] = printable (or_dash (info->name));
      row[1] = printable (or_dash (info->version));
      row[2] = printable (or_dash (info->capabilities));
      row[3] = status_text (info);
      row[4] = printable (or_dash (info->file));
      for (size_t c = 0; c < G_N_ELEMENTS (headers); c++)
        widen (&width[c], row[c]);
      g_ptr_array_add (rows, row);
    }

  for (size_t c = 0; c < G_N_ELEMENTS (headers); c++)
    {
      /* No trailing blanks after the last column. */
      print_cell (g->out, headers[c], c + 1 < G_N_ELEMENTS (headers) ? width[c] + 2 : 0);
    }
  fputc ('\n', g->out);
  for (guint i = 0; i < rows->len; i++)
    {
      char **row = g_ptr_array_index (rows, i);

      for (size_t c = 0; c < G_N_ELEMENTS (headers); c++)
        print_cell (g->out, row[c], c + 1 < G_N_ELEMENTS (headers) ? width[c] + 2 : 0);
      fputc ('\n', g->out);
    }
  if (rows->len == 0)
    g_printerr ("msperf plugins: no module file found (see --plugins-dir and "
                "MSPERF_PLUGIN_PATH)\n");
  return MSPERF_EXIT_OK;
}

static void
print_capabilities (FILE *out, const char *capabilities)
{
  g_auto (GStrv) caps = NULL;

  if (capabilities == NULL || *capabilities == '\0')
    {
      fprintf (out, "capabilities: none\n");
      return;
    }
  fprintf (out, "capabilities:\n");
  caps = g_strsplit (capabilities, ",", -1);
  for (char **cap = caps; *cap != NULL; cap++)
    {
      const char *meaning = "";

      for (size_t i = 0; i < G_N_ELEMENTS (capability_meanings); i++)
        if (strcmp (*cap, capability_meanings[i].name) == 0)
          meaning = capability_meanings[i].meaning;
      fprintf (out, "  %-12s %s\n", *cap, meaning);
    }
}

static int
plugins_info (const msperf_cli_global *g, char **args)
{
  g_autoptr (msperf_engine) engine = NULL;
  const msperf_plugin_info *found = NULL;
  const GPtrArray *infos;
  g_autofree char *status = NULL;
  const char *name = args[0];

  if (name == NULL || args[1] != NULL)
    {
      g_printerr ("msperf plugins info: expected exactly one module NAME\n");
      return MSPERF_EXIT_USAGE;
    }
  engine = start_engine (g);
  if (engine == NULL)
    return MSPERF_EXIT_USAGE;
  infos = msperf_engine_plugins (engine);

  for (guint i = 0; infos != NULL && i < infos->len && found == NULL; i++)
    {
      const msperf_plugin_info *info = g_ptr_array_index (infos, i);

      if (info->name != NULL && strcmp (info->name, name) == 0)
        found = info;
    }
  if (found == NULL)
    {
      g_autofree char *shown = printable (name);
      g_printerr ("msperf plugins info: no module named '%s' (try `msperf plugins list`)\n",
                  shown);
      return MSPERF_EXIT_USAGE;
    }

  status = status_text (found);
  {
    const char *const fields[] = { "name:         ", found->name, "version:      ", found->version,
                                   "description:  ", found->description,
                                   "file:         ", found->file };
    for (gsize k = 0; k + 1 < G_N_ELEMENTS (fields); k += 2)
      {
        g_autofree char *text = printable (or_dash (fields[k + 1]));
        fprintf (g->out, "%s%s\n", fields[k], text);
      }
  }
  print_capabilities (g->out, found->capabilities);
  fprintf (g->out, "status:       %s\n", status);
  /* Later files of the same name (shadowed, duplicates) explain why they did not load. */
  for (guint i = 0; i < infos->len; i++)
    {
      const msperf_plugin_info *info = g_ptr_array_index (infos, i);
      g_autofree char *other = NULL;

      if (info == found || info->name == NULL || strcmp (info->name, name) != 0)
        continue;
      other = status_text (info);
      {
        g_autofree char *file = printable (or_dash (info->file));
        fprintf (g->out, "also found:   %s (%s)\n", file, other);
      }
    }
  return MSPERF_EXIT_OK;
}

int
msperf_cli_plugins (const msperf_cli_global *g, int argc, char **argv)
{
  static const GOptionEntry no_options[] = { G_OPTION_ENTRY_NULL };
  static const struct {
    const char *name;
    const char *params;
    const char *summary;
    subcommand_fn run;
  } subcommands[] = {
    { "list", "list",
      "Lists every module file found: name, version, capabilities, status (with the reason\n"
      "for rejected, skipped and disabled files) and file. This is also what `msperf plugins`\n"
      "does; `msperf plugins info NAME` describes one module.", plugins_list },
    { "info", "info NAME",
      "Describes one module: version, description, file, what each capability means, and\n"
      "its status.", plugins_info },
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = NULL;
  size_t which = 0;
  int first = 1;

  g_return_val_if_fail (g != NULL, MSPERF_EXIT_USAGE);

  /* The subcommand is optional (list); anything else not starting with '-' is a typo. */
  if (argc > 1 && argv[1][0] != '-')
    {
      for (which = 0; which < G_N_ELEMENTS (subcommands); which++)
        if (strcmp (argv[1], subcommands[which].name) == 0)
          break;
      if (which == G_N_ELEMENTS (subcommands))
        {
          g_printerr ("msperf plugins: unknown subcommand '%s' (expected list or info)\n",
                      argv[1]);
          return MSPERF_EXIT_USAGE;
        }
      first = 2;
    }

  /* GOption wants a program name in front; it also removes what it parsed, so give it a copy. */
  args = g_new0 (char *, (size_t) (argc - first) + 2);
  args[0] = g_strdup (g_get_prgname () != NULL ? g_get_prgname () : "msperf");
  for (int i = first; i < argc; i++)
    args[i - first + 1] = g_strdup (argv[i]);
  context = g_option_context_new (subcommands[which].params);
  g_option_context_set_summary (context, subcommands[which].summary);
  if (!msperf_cli_check_options (g_get_prgname () ? g_get_prgname () : "msperf plugins",
                                 no_options, args, &error)
      || !g_option_context_parse_strv (context, &args, &error))
    {
      g_printerr ("msperf plugins %s: %s\n", subcommands[which].name, error->message);
      return MSPERF_EXIT_USAGE;
    }
  return subcommands[which].run (g, args + 1);
}
