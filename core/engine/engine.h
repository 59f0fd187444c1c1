/* msperf (internal) — what the top of core/engine (engine.c) offers beyond the public life
 * cycle of include/msperf/engine.h. */
#ifndef MSPERF_CORE_ENGINE_ENGINE_H
#define MSPERF_CORE_ENGINE_ENGINE_H

#include "engine/shared.h"

/* Drops every cached kernel table and what was built on them (candidate indexes, answers):
 * the next query reads the CSVs again. */
void msperf_engine_drop_tables (msperf_engine *engine);

#endif
