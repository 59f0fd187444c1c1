/* msperf — where installed data and modules live, and whether we run uninstalled. */
#ifndef MSPERF_PATHS_H
#define MSPERF_PATHS_H

#include <glib.h>
#include <msperf/api.h>

G_BEGIN_DECLS

/* TRUE when the running executable lives in the build tree (tests, ./msperf before
 * `make install`), when libmsperf itself is the build tree's (another program running the
 * build's library: python3 with PYTHONPATH=_build/python, ./msperf under valgrind), or when
 * MSPERF_UNINSTALLED is set and non-empty: data then comes from the source tree and modules
 * from builddir/plugins. Paths are compared resolved (a symlinked build directory counts). */
MSPERF_API gboolean msperf_paths_uninstalled (void);
/* Directory of shipped data: $(pkgdatadir), or the source tree when uninstalled.
 * Layout below it: policies/, policies/devices/, policies/att/ and examples/ (installed) or
 * doc/examples/ (source tree). Transfer full. */
MSPERF_API char *msperf_paths_data_file (const char *installed_rel, const char *source_rel);
/* The default module directory: $(pkglibdir), or builddir/plugins when uninstalled. */
MSPERF_API char *msperf_paths_plugin_dir (void);

G_END_DECLS

#endif
