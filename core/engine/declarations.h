/* msperf (internal) — what the loaded modules declare, applied to the engine at start: the
 * interpolation.<name> policy blocks they own, the default interpolation.modes, the kernel
 * prefixes of collectives. The core names no mode and no kernel; these come from the
 * descriptors (include/msperf/plugin.h). */
#ifndef MSPERF_CORE_DECLARATIONS_H
#define MSPERF_CORE_DECLARATIONS_H

#include <msperf/engine.h>

G_BEGIN_DECLS

/* Once the modules are loaded: declares their policy blocks and seals the policy (a problem in
 * a --policy or command-line block is the error; in the database's, a warning), sets
 * interpolation.modes when no layer did, recomputes the policy's JSON and hash, and hands the
 * collective prefixes to the database. */
gboolean msperf_engine_apply_declarations (msperf_engine *engine, GError **error);

G_END_DECLS

#endif /* MSPERF_CORE_DECLARATIONS_H */
