/* msperf (internal) — the bottom of core/engine: the state every handle of a started engine
 * shares, the handle itself, and the services on them (shared.c) that every stage calls. Every
 * other file of core/engine builds on this one; it calls none of them. */
#ifndef MSPERF_CORE_ENGINE_SHARED_H
#define MSPERF_CORE_ENGINE_SHARED_H

#include <pthread.h>
#include <msperf/engine.h>
#include <msperf/plugin.h>
#include "io/device.h"
#include "interp/index.h"
#include "engine/policy.h"
#include "engine/registry.h"

/* A remembered msperf_engine_kernel_option answer (shared.c). */
typedef struct msperf_option_memo {
  char *block;
  char *kernel;
  char *key;
  const msperf_value *value;     /* borrowed from the policy or the database document */
} msperf_option_memo;

#define MSPERF_OPTION_MEMO_SIZE 16

/* answers.c: the LRU answer cache of one engine handle. */
typedef struct msperf_answer_cache msperf_answer_cache;

/* What every session of a started engine shares (doc/design.md § Threads): configuration,
 * database, policy, modules, device profile, tables and candidate indexes. Immutable once
 * started except for what is built on first use, which `lock` guards. */
typedef struct msperf_engine_shared {
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
} msperf_engine_shared;

/* An engine is a handle on the shared state plus what one thread may change without a lock:
 * the answer cache, scratch buffers and the option memo. msperf_engine_new gives the root
 * handle; msperf_engine_new_session more handles on the same started state. */
struct msperf_engine {
  msperf_engine_shared *shared;
  msperf_answer_cache *answers;  /* op key → msperf_result*, LRU (upstream's result cache) */
  guint8 *key_scratch;           /* answers.c: the answer-cache key being built, reused */
  size_t key_scratch_cap;
  /* kernel options asked after start (the policy and database no longer change) */
  msperf_option_memo option_memo[MSPERF_OPTION_MEMO_SIZE];
  guint option_memo_len;
  guint option_memo_next;        /* the entry replaced next once the memo is full */
  /* The shared device profile once resolved (it never changes after): every answer costs a
   * roofline, and the shared lock each time was contended between --jobs sessions. */
  const msperf_device *device;
  gboolean device_known;
  /* The tables this handle has looked up (kernel type → const msperf_table*), while the
   * database's generation is table_memo_gen: a loaded table never changes until the
   * database's cache is cleared, and the shared lock on every lookup (three an interpolated
   * answer) was contended between --jobs sessions. */
  GHashTable *table_memo;
  guint table_memo_gen;
};

/* A new shared state (refcount 1, not started), and the release of one reference: the last
 * frees it and, with its registry, closes the modules. */
msperf_engine_shared *msperf_shared_new (void);
void msperf_shared_unref (msperf_engine_shared *shared);

/* Frees what a handle remembers for itself (option memo, table memo) and releases its
 * reference on the shared state; the handle's answer cache is its owner's to free first. */
void msperf_shared_release_handle (msperf_engine *engine);

/* The lock of the shared state (recursive). */
void msperf_shared_lock (msperf_engine *engine);
void msperf_shared_unlock (msperf_engine *engine);

/* Logs message as a warning and keeps it in the shared warning list. */
void msperf_shared_warn (msperf_engine *engine, const char *message);

/* The device profile of the roofline (resolved on first use). */
const msperf_device *msperf_engine_device (msperf_engine *engine);

#endif
