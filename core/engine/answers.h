/* msperf (internal) — the answer cache of one engine handle (answers.c): binary op key →
 * shared msperf_result*, the least recently used answers evicted beyond cache.answers (policy,
 * optional; absent = 4096) per handle. Above the shared state, below dispatch. */
#ifndef MSPERF_CORE_ENGINE_ANSWERS_H
#define MSPERF_CORE_ENGINE_ANSWERS_H

#include "engine/shared.h"

/* An op's cache key: stored ones own their bytes in the same block (an LRU node); the key
 * msperf_answers_lookup fills points into the handle's scratch buffer until the next lookup. */
typedef struct msperf_answer_key {
  guint hash;
  size_t len;
  const guint8 *bytes;
} msperf_answer_key;

/* Transfer full. */
msperf_answer_cache *msperf_answers_new (void);
void msperf_answers_free (msperf_answer_cache *cache);
void msperf_answers_clear (msperf_answer_cache *cache);
/* Answers held now. */
guint msperf_answers_size (const msperf_answer_cache *cache);
/* The capacity of engine's cache (read from its policy on first use). */
guint msperf_answers_capacity (msperf_engine *engine);
/* TRUE when op's answer is cached (its recency untouched): for tests. */
gboolean msperf_answers_has (msperf_engine *engine, const msperf_op *op);
/* Encodes op's key into *key and returns its cached answer (now the most recently used; a new
 * reference), or NULL. */
msperf_result *msperf_answers_lookup (msperf_engine *engine, const msperf_op *op,
                                      msperf_answer_key *key);
/* Stores a reference to r under a copy of key (from msperf_answers_lookup), evicting the least
 * recently used answers beyond the capacity. */
void msperf_answers_insert (msperf_engine *engine, const msperf_answer_key *key,
                            msperf_result *r);
/* Frees the handle's key scratch buffer. */
void msperf_answers_scratch_free (msperf_engine *engine);

#endif
