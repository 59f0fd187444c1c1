/* msperf (internal) — the engine object, shared by engine.c (configuration, services) and
 * dispatch.c (the stage order). */
#ifndef MSPERF_CORE_ENGINE_PRIVATE_H
#define MSPERF_CORE_ENGINE_PRIVATE_H

#include <pthread.h>
#include <msperf/plugin.h>
#include "io/device.h"
#include "interp/index.h"
#include "engine/policy.h"
#include "engine/registry.h"

/* A remembered msperf_engine_kernel_option answer (engine.c). */
typedef struct msperf_option_memo {
  char *block;
  char *kernel;
  char *key;
  const msperf_value *value;     /* borrowed from the policy or the database document */
} msperf_option_memo;

#define MSPERF_OPTION_MEMO_SIZE 16

/* dispatch.c: the LRU answer cache of one engine handle. */
typedef struct msperf_answer_cache msperf_answer_cache;

/* What every session of a started engine shares (doc/design.md § Threads): configuration,
 * database, policy, modules, device profile, tables and candidate indexes. Immutable once
 * started except for what is built on first use, which `lock` guards. */
typedef struct msperf_engine_model {
  gint refcount;                 /* the root engine and each session hold one */
  /* Recursive: the interpolation stage holds it while it reads tables through services
   * that take it too. Taken for lazy tables, candidate indexes and triangulations, the
   * device profile chosen on first use and the warning list. A pthread mutex (not GMutex,
   * a bare futex on Linux) so that TSan and helgrind see it. */
  pthread_mutex_t lock;

  /* configuration (before start) */
  GPtrArray *plugin_dirs;        /* char* */
  gboolean use_default_dirs;
  char *policy_path;
  GPtrArray *override_keys;      /* char*, parallel to override_values */
  GPtrArray *override_values;
  char *device_request;
  char *cache_dir;               /* on-disk triangulation cache (msperf_engine_set_cache_dir) */

  /* state after start */
  gboolean started;
  /* The interpolated answers' confidences by dimension and axis transform, read from the
   * policy once at start (msperf_confidence_prepare): the policy lookups were a tenth of a
   * warm 3-D answer. */
  double interp_confidence[MSPERF_DELAUNAY_MAX_DIM + 1][2];
  msperf_database *db;
  msperf_policy *policy;
  char *policy_json;
  char *policy_hash;
  msperf_device *device;
  gboolean device_failed;         /* the default profile could not be read: warned once */
  msperf_registry *registry;
  msperf_parallel parallel;
  GPtrArray *warnings;           /* char*: load-time warnings, already logged */
  msperf_index_cache *index_cache; /* interpolation candidate indexes (interpolate.c), lazy */
  gboolean modes_builtin;        /* interpolation.modes is the built-in list (no policy set one) */
  GHashTable *option_defaults;   /* "module\x1fkey" -> msperf_value*: declared defaults (options.c) */
} msperf_engine_model;

/* An engine is a handle on a model plus what one thread may change without a lock: the
 * answer cache, scratch buffers and the option memo. msperf_engine_new gives the root
 * handle; msperf_engine_new_session more handles on the same started model. */
struct msperf_engine {
  msperf_engine_model *m;
  msperf_answer_cache *answers;  /* op key → msperf_result*, LRU (upstream's result cache) */
  guint8 *key_scratch;           /* dispatch.c: the answer-cache key being built, reused */
  size_t key_scratch_cap;
  /* kernel options asked after start (the policy and database no longer change) */
  msperf_option_memo option_memo[MSPERF_OPTION_MEMO_SIZE];
  guint option_memo_len;
  guint option_memo_next;        /* the entry replaced next once the memo is full */
  /* The model's device profile once resolved (it never changes after): every answer costs a
   * roofline, and the model lock each time was contended between --jobs sessions. */
  const msperf_device *device;
  gboolean device_known;
  /* The tables this handle has looked up (kernel type → const msperf_table*), while the
   * database's generation is table_memo_gen: a loaded table never changes until the
   * database's cache is cleared, and the model lock on every lookup (three an interpolated
   * answer) was contended between --jobs sessions. */
  GHashTable *table_memo;
  guint table_memo_gen;
};

/* The model lock (recursive). */
void msperf_model_lock (msperf_engine *engine);
void msperf_model_unlock (msperf_engine *engine);

/* The device profile of the roofline (resolved on first use). */
const msperf_device *msperf_engine_device (msperf_engine *engine);

/* Drops every cached kernel table and what was built on them (candidate indexes, answers):
 * the next query reads the CSVs again. */
void msperf_engine_drop_tables (msperf_engine *engine);

/* options.c: checks modules.<name> blocks against the loaded modules' declarations and parses
 * their defaults (once, at start), then applies the modules' other declarations
 * (declarations.h). */
gboolean msperf_engine_check_module_options (msperf_engine *engine, GError **error);

/* query.c: the one module-query builder and the one "module missing/disabled" path. */
/* The op's TC tensor inputs by value (a query points into it). Transfer full. */
GArray *msperf_query_inputs (const msperf_op *op);
/* The module query of op under entry (nullable) for mode; inputs as from msperf_query_inputs
 * (nullable). Borrows everything. */
void msperf_query_for_op (msperf_query *q, msperf_engine *engine, const msperf_op *op,
                          const msperf_mapping_entry *entry, const char *mode,
                          const GArray *inputs);
/* The module query a sub-query stands for (borrows everything from parent and sq). */
void msperf_subquery_query (msperf_engine *engine, const msperf_op *parent,
                            const msperf_subquery *sq, msperf_query *q);
/* The loaded module of mode, or NULL with r's miss set (module_disabled:<mode>,
 * module_missing:<mode>, no_module_declared when mode is NULL). */
const msperf_plugin *msperf_engine_module_or_miss (msperf_engine *engine, const char *mode,
                                                   void **state, msperf_result *r);

/* parts.c: one module's exact lookup for op under entry (msperf_engine_subquery is public). */
msperf_status msperf_engine_lookup_as (msperf_engine *engine, const char *mode,
                                       const msperf_op *op, const msperf_mapping_entry *entry,
                                       msperf_result *r);

/* dispatch.c */
/* The module a mapped entry resolves to, in the upstream precedence (reference §2.2): the
 * module declaring its category, its query_mode (aliases resolved), NULL for zero_cost /
 * accepted_miss, else the default module (*by_default TRUE). Dispatch and holdout share it. */
const char *msperf_engine_resolve_mode (msperf_engine *engine, const msperf_mapping_entry *entry,
                                        gboolean *by_default);
msperf_result *msperf_dispatch_query (msperf_engine *engine, const msperf_op *op);
/* The answer cache: binary op key → shared msperf_result*, least recently used answers evicted
 * beyond cache.answers (policy, optional; absent = 4096) per engine handle. Transfer full. */
msperf_answer_cache *msperf_dispatch_answers_new (void);
void msperf_dispatch_answers_free (msperf_answer_cache *cache);
void msperf_dispatch_answers_clear (msperf_answer_cache *cache);
/* Answers held now. */
guint msperf_dispatch_answers_size (const msperf_answer_cache *cache);
/* The capacity of engine's cache (read from its policy on first use). */
guint msperf_dispatch_answers_capacity (msperf_engine *engine);
/* TRUE when op's answer is cached (its recency untouched): for tests. */
gboolean msperf_dispatch_answers_has (msperf_engine *engine, const msperf_op *op);
/* Frees the key scratch buffer of msperf_dispatch_query. */
void msperf_dispatch_scratch_free (msperf_engine *engine);

#endif
