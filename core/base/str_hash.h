/* msperf (internal) — a string hash for the tables keyed by whole trace lines and op signatures.
 *
 * Those keys are ~200 bytes, and a line is hashed three or four times on its way (the job that
 * takes it, the parser's line cache, the job's repeat table, the run's fold): g_str_hash reads
 * a byte at a time, ~1 500 instructions such a key. This reads eight at a time and
 * mixes as murmur3's finaliser does. Only for in-memory tables: the values are not stable
 * across versions or byte orders, and nothing may depend on them but bucket choice. */
#ifndef MSPERF_STR_HASH_H
#define MSPERF_STR_HASH_H

#include <stdint.h>
#include <string.h>
#include <glib.h>

static inline guint
msperf_str_hash (gconstpointer key)
{
  const char *s = key;
  size_t n = strlen (s);
  uint64_t h = UINT64_C (0x9e3779b97f4a7c15) ^ (uint64_t) n, w;

  for (; n >= 8; s += 8, n -= 8)
    {
      memcpy (&w, s, 8);
      h = (h ^ w) * UINT64_C (0xff51afd7ed558ccd);
      h ^= h >> 32;
    }
  if (n > 0)
    {
      w = 0;
      memcpy (&w, s, n);
      h = (h ^ w) * UINT64_C (0xc4ceb9fe1a85ec53);
    }
  h ^= h >> 33;
  h *= UINT64_C (0xff51afd7ed558ccd);
  h ^= h >> 33;
  return (guint) h;
}

#endif /* MSPERF_STR_HASH_H */
