/* msperf — strict command lines: a foreign option is an error, not a no-op. */
#include <config.h>
#include <msperf/format.h>
#include <math.h>
#include <string.h>
#include <msperf/error.h>
#include "cli/options.h"
#include <msperf/engine.h>
#include <msperf/database.h>
#include "cli/cli.h"

const char *
msperf_cli_closest (const char *word, const char *const *candidates)
{
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  gsize len;

  g_return_val_if_fail (word != NULL, NULL);
  len = strlen (word);
  /* Long words, as long option names and op names are, allow more slips than short ones. */
  for (const char *const *c = candidates; c && *c; c++)
    {
      guint d = msperf_edit_distance (word, *c);
      if (d < best_d)
        {
          best_d = d;
          best = *c;
        }
    }
  if (best == NULL || best_d == 0 || best_d > (len >= 12 ? 3u : len >= 5 ? 2u : 1u))
    return NULL;
  return best;
}

static const GOptionEntry *
find_entry (const GOptionEntry *entries, const char *name)
{
  for (const GOptionEntry *e = entries; e->long_name; e++)
    if (strcmp (e->long_name, name) == 0)
      return e;
  return NULL;
}

static gboolean
takes_value (const GOptionEntry *e)
{
  return e->arg != G_OPTION_ARG_NONE && !(e->flags & G_OPTION_FLAG_OPTIONAL_ARG);
}

/* estimate spells layout sizes --tp-size, the model commands --tp: either one given to the
 * other command gets the right spelling suggested. Transfer none. */
static const char *
size_alias (const char *name, const GOptionEntry *entries)
{
  g_autofree char *other = g_str_has_suffix (name, "-size")
                             ? g_strndup (name, strlen (name) - strlen ("-size"))
                             : g_strconcat (name, "-size", NULL);
  const GOptionEntry *e = find_entry (entries, other);

  return e && !(e->flags & G_OPTION_FLAG_HIDDEN) ? e->long_name : NULL;
}

static void
unknown (const char *command, const char *name, const GOptionEntry *entries, GError **error)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  const char *near;

  for (const GOptionEntry *e = entries; e->long_name; e++)
    if (!(e->flags & G_OPTION_FLAG_HIDDEN))
      g_ptr_array_add (names, (gpointer) e->long_name);
  g_ptr_array_add (names, NULL);
  near = size_alias (name, entries);  /* before the edit distance: --tp is closer to --op */
  if (near == NULL)
    near = msperf_cli_closest (name, (const char *const *) names->pdata);
  if (g_str_has_prefix (command, "msperf "))
    command += strlen ("msperf ");
  if (near)
    g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                 "unknown option --%s for '%s' (did you mean --%s?)", name, command, near);
  else
    g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                 "unknown option --%s for '%s' (run 'msperf %s --help' for its options)", name,
                 command, command);
}

/* The options of msperf itself (core/cli/msperf.c). Given after the subcommand (`msperf
 * estimate --policy p.yaml`), one would be read by no one or mistaken for the command's own:
 * unless the command has an option of that name, it is refused with where it belongs. */
static const char *const global_options[] = {
  "plugins-dir", "policy", "log-format", "verbose", "version", NULL
};
#define GLOBAL_SHORT 'v'  /* -v, --verbose */

static const GOptionEntry *
find_short (const GOptionEntry *entries, char c)
{
  for (const GOptionEntry *e = entries; e->long_name; e++)
    if (e->short_name == c)
      return e;
  return NULL;
}

/* "--policy is a global option: put it before the subcommand (msperf --policy FILE estimate …)" */
static void
misplaced (const char *command, const char *option, GError **error)
{
  const char *value = strcmp (option, "--plugins-dir") == 0 ? " DIR"
                      : strcmp (option, "--policy") == 0    ? " FILE"
                      : strcmp (option, "--log-format") == 0 ? " FORMAT" : "";

  if (g_str_has_prefix (command, "msperf "))
    command += strlen ("msperf ");
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
               "%s is a global option: put it before the subcommand (msperf %s%s %s …)", option,
               option, value, command);
}

/* A cluster of short options ("-v", "-j4", "-vj", "-o FILE"): FALSE + error for a global one
 * the command does not take. *skip_next is set when the last one takes the next argument. */
static gboolean
check_short (const char *command, const GOptionEntry *entries, const char *a,
             gboolean *skip_next, GError **error)
{
  *skip_next = FALSE;
  for (const char *c = a + 1; *c; c++)
    {
      const GOptionEntry *e = find_short (entries, *c);

      if (e == NULL)
        {
          if (*c == GLOBAL_SHORT)
            {
              misplaced (command, "-v", error);
              return FALSE;
            }
          return TRUE;  /* GOption names it */
        }
      if (takes_value (e))
        {
          *skip_next = c[1] == '\0';  /* "-o FILE"; "-j4" holds its value */
          return TRUE;
        }
    }
  return TRUE;
}

/* GOption reads "nan" and "inf" as numbers, and a NaN is how the commands say "not given": a
 * limit of --ttft-max nan would silently be no limit. Every number a flag takes is finite;
 * text that is no number at all is left to GOption's own message. */
static gboolean
finite_double (const GOptionEntry *e, const char *value, GError **error)
{
  char *end;
  double v;

  if (e->arg != G_OPTION_ARG_DOUBLE || value == NULL)
    return TRUE;
  v = g_ascii_strtod (value, &end);
  if (end == value || isfinite (v))
    return TRUE;
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
               "--%s must be a finite number, not '%s'", e->long_name, value);
  return FALSE;
}

gboolean
msperf_cli_check_options (const char *command, const GOptionEntry *entries, char *const *args,
                          GError **error)
{
  g_return_val_if_fail (command != NULL && entries != NULL, FALSE);
  for (gsize k = 1; args && args[k]; k++)
    {
      const char *a = args[k];
      g_autofree char *name = NULL;
      const GOptionEntry *e;
      const char *eq;
      gboolean skip_next;

      if (strcmp (a, "--") == 0)
        break;
      if (a[0] == '-' && a[1] != '-' && a[1] != '\0')
        {
          if (!check_short (command, entries, a, &skip_next, error))
            return FALSE;
          if (skip_next && args[k + 1])
            k++;
          continue;
        }
      if (a[0] != '-' || a[1] != '-')
        continue;
      eq = strchr (a, '=');
      name = eq ? g_strndup (a + 2, (gsize) (eq - a - 2)) : g_strdup (a + 2);
      if (g_str_has_prefix (name, "help"))
        continue;  /* --help, --help-all: GOption's own */
      e = find_entry (entries, name);
      if (e == NULL && g_strv_contains (global_options, name))
        {
          g_autofree char *option = g_strconcat ("--", name, NULL);

          misplaced (command, option, error);
          return FALSE;
        }
      if (e == NULL)
        {
          unknown (command, name, entries, error);
          return FALSE;
        }
      if (!finite_double (e, eq ? eq + 1 : args[k + 1], error))
        return FALSE;
      if (eq == NULL && takes_value (e) && args[k + 1])
        k++;  /* the value, even one starting with "--" */
    }
  return TRUE;
}

/* Which kernels are collectives is what the modules declare (the communication module: HCCL's
 * hcom_*): an engine without database loads them to say, and the database looks those
 * kernels' tables up in its communication_data_ref first. Without modules, none is. */
void
msperf_cli_declare_collectives (const msperf_cli_global *g, msperf_database *db)
{
  g_autoptr (msperf_engine) engine = msperf_engine_new ();

  for (char **d = g->plugin_dirs; d != NULL && *d != NULL; d++)
    msperf_engine_add_plugin_dir (engine, *d);
  if (msperf_engine_start (engine, NULL))
    msperf_database_set_collective_prefixes (db, msperf_engine_collective_prefixes (engine));
}

gboolean
msperf_cli_check_min (const char *flag, int value, int min, GError **error)
{
  if (value == MSPERF_CLI_UNSET || value >= min)
    return TRUE;
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
               "%s must be an integer >= %d, not %d", flag, min, value);
  return FALSE;
}

gboolean
msperf_cli_check_positive (const char *flag, double value, GError **error)
{
  if (isnan (value) || value > 0.0)
    return TRUE;
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s must be > 0, not %g", flag,
               value);
  return FALSE;
}

gboolean
msperf_cli_check_fraction (const char *flag, double value, GError **error)
{
  if (isnan (value) || (value >= 0.0 && value <= 1.0))
    return TRUE;
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s must be in 0..1, not %g",
               flag, value);
  return FALSE;
}

int
msperf_cli_or (int value, int fallback)
{
  return value == MSPERF_CLI_UNSET ? fallback : value;
}

gboolean
msperf_cli_parse_options (const char *command, GOptionContext *ctx, GArray *entries,
                          char ***args, GError **error)
{
  const GOptionEntry *e;

  g_return_val_if_fail (ctx != NULL && entries != NULL && args != NULL, FALSE);
  e = (const GOptionEntry *) (void *) entries->data;
  if (!msperf_cli_check_options (command, e, *args, error))
    return FALSE;
  g_option_context_add_main_entries (ctx, e, NULL);
  if (!g_option_context_parse_strv (ctx, args, error))
    return FALSE;
  if (g_strv_length (*args) > 1)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "unexpected argument '%s'",
                   (*args)[1]);
      return FALSE;
    }
  return TRUE;
}
