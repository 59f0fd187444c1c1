/* msperf (internal) — what libmsperf itself asks a database beyond the public API. */
#ifndef MSPERF_IO_DATABASE_PRIVATE_H
#define MSPERF_IO_DATABASE_PRIVATE_H

#include <msperf/database.h>

/* Counts msperf_database_clear_cache calls: a table pointer kept from generation g is valid
 * while this is still g (the engine handles' table memos, core/engine/engine.c). */
guint msperf_database_generation (const msperf_database *db);

/* Where the parsed kernel tables are cached between processes (core/io/table_cache.h); NULL
 * (the default) reads every CSV. Set before the first table is loaded. */
void msperf_database_set_table_cache_dir (msperf_database *db, const char *dir);

#endif
