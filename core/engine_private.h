/* msperf (internal) — the engine object, shared by engine.c (configuration, services) and
 * dispatch.c (the stage order). */
#ifndef MSPERF_CORE_ENGINE_PRIVATE_H
#define MSPERF_CORE_ENGINE_PRIVATE_H

#include <msperf/plugin.h>
#include "device.h"
#include "index.h"
#include "policy.h"
#include "registry.h"

struct msperf_engine {
  /* configuration (before start) */
  GPtrArray *plugin_dirs;        /* char* */
  gboolean use_default_dirs;
  char *policy_path;
  GPtrArray *override_keys;      /* char*, parallel to override_values */
  GPtrArray *override_values;
  char *device_request;

  /* state after start */
  gboolean started;
  msperf_database *db;
  msperf_policy *policy;
  char *policy_json;
  char *policy_hash;
  msperf_device *device;
  gboolean device_failed;         /* the default profile could not be read: warned once */
  msperf_registry *registry;
  msperf_parallel parallel;
  GPtrArray *warnings;           /* char*: load-time warnings, already logged */
  GHashTable *answers;           /* signature → msperf_result* (upstream's result cache) */
  GHashTable *values_cache;      /* dotted policy path → const msperf_value* (borrowed) */
  msperf_index_cache *index_cache; /* interpolation candidate indexes (interpolate.c), lazy */
};

/* The device profile of the roofline (resolved on first use). */
const msperf_device *msperf_engine_device (msperf_engine *engine);

/* Drops every cached kernel table and what was built on them (candidate indexes, answers):
 * the next query reads the CSVs again. */
void msperf_engine_drop_tables (msperf_engine *engine);

/* dispatch.c */
msperf_result *msperf_dispatch_query (msperf_engine *engine, const msperf_op *op);
/* A copy of a result (the answer cache hands out copies). Transfer full. */
msperf_result *msperf_result_copy (const msperf_result *r);

#endif
