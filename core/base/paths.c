/* msperf — locating shipped data and modules, installed or in the build tree. */
#include <config.h>
#include <string.h>
#include <msperf/paths.h>

gboolean
msperf_paths_uninstalled (void)
{
  g_autofree char *exe = NULL;
  size_t n = strlen (MSPERF_BUILDDIR);
  const char *forced = g_getenv ("MSPERF_UNINSTALLED");

  /* A program that is not in the build tree but runs the build's library (python3 with
   * PYTHONPATH=_build/python) asks for the build-tree layout explicitly. */
  if (forced != NULL && *forced != '\0')
    return TRUE;
  exe = g_file_read_link ("/proc/self/exe", NULL);

  /* libtool runs uninstalled programs from builddir/.libs/lt-*; tests from builddir/tests. */
  return exe != NULL && strncmp (exe, MSPERF_BUILDDIR, n) == 0 && exe[n] == '/';
}

char *
msperf_paths_data_file (const char *installed_rel, const char *source_rel)
{
  if (msperf_paths_uninstalled ())
    return g_build_filename (MSPERF_SRCDIR, source_rel, NULL);
  return g_build_filename (MSPERF_DATADIR, installed_rel, NULL);
}

char *
msperf_paths_plugin_dir (void)
{
  if (msperf_paths_uninstalled ())
    return g_build_filename (MSPERF_BUILDDIR, "plugins", NULL);
  return g_strdup (MSPERF_PLUGINDIR);
}
