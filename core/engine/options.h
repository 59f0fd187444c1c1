/* msperf (internal) — module policy options (options.c): modules.<name> blocks checked against
 * the loaded modules' declarations (msperf_engine_module_option is public). */
#ifndef MSPERF_CORE_ENGINE_OPTIONS_H
#define MSPERF_CORE_ENGINE_OPTIONS_H

#include "engine/shared.h"

/* Checks modules.<name> blocks against the loaded modules' declarations and parses their
 * defaults (once, at start), then applies the modules' other declarations (declarations.h). */
gboolean msperf_engine_check_module_options (msperf_engine *engine, GError **error);

#endif
