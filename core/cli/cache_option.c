/* msperf — --cache-dir and --no-cache (see cache_option.h). */
#include <config.h>
#include <msperf/error.h>
#include "cli/cache_option.h"

gboolean
msperf_cli_cache_apply (const msperf_cli_cache *c, msperf_engine *engine, GError **error)
{
  g_autofree char *dflt = NULL;

  g_return_val_if_fail (c != NULL && engine != NULL, FALSE);
  if (c->off && c->dir)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--cache-dir and --no-cache exclude each other");
      return FALSE;
    }
  if (c->off)
    return TRUE;
  /* On by default in the CLI (the library's default is off): answers do not change. */
  if (c->dir == NULL)
    dflt = g_build_filename (g_get_user_cache_dir (), "msperf", NULL);
  msperf_engine_set_cache_dir (engine, c->dir ? c->dir : dflt);
  return TRUE;
}

void
msperf_cli_cache_clear (msperf_cli_cache *c)
{
  g_return_if_fail (c != NULL);
  g_clear_pointer (&c->dir, g_free);
}
