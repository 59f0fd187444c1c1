/* msperf — locating shipped data and modules, installed or in the build tree. */
#define _GNU_SOURCE  /* dladdr */
#include <config.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <msperf/paths.h>

/* An address inside libmsperf, for dladdr. */
static const char library_anchor = 0;

/* TRUE when path, resolved, lies inside the build tree (also resolved: a build directory
 * reached through a symlink is the same tree). */
static gboolean
in_build_tree (const char *path)
{
  char *real = path ? realpath (path, NULL) : NULL;
  char *top = realpath (MSPERF_BUILDDIR, NULL);
  size_t n = top ? strlen (top) : 0;
  gboolean inside = real != NULL && top != NULL && strncmp (real, top, n) == 0 && real[n] == '/';

  free (real);
  free (top);
  return inside;
}

gboolean
msperf_paths_uninstalled (void)
{
  g_autofree char *exe = NULL;
  const char *forced = g_getenv ("MSPERF_UNINSTALLED");
  Dl_info info;

  /* Asked for explicitly (a program outside the build tree that wants the build-tree
   * layout). */
  if (forced != NULL && *forced != '\0')
    return TRUE;
  /* libtool runs uninstalled programs from builddir/.libs; tests from builddir/tests. */
  exe = g_file_read_link ("/proc/self/exe", NULL);
  if (exe != NULL && in_build_tree (exe))
    return TRUE;
  /* A program outside the build tree running the build's library — python3 with
   * PYTHONPATH=builddir/python, a build-tree program under valgrind or started by the dynamic
   * loader — is uninstalled too: the library's own file says where it lies. */
  return dladdr (&library_anchor, &info) != 0 && info.dli_fname != NULL
         && in_build_tree (info.dli_fname);
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
