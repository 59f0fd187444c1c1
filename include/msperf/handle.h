/* msperf — the engine handle every module slot receives, and the parallel settings it
 * serves (msperf_engine_parallel). The life cycle of a handle is include/msperf/engine.h. */
#ifndef MSPERF_HANDLE_H
#define MSPERF_HANDLE_H

#include <stdint.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct msperf_engine msperf_engine;

/* Parallel settings that reach the modes needing them (flags > --policy > database > built-in). */
typedef struct msperf_parallel {
  int64_t tp_size;
  int64_t ep_size;        /* 0 = not configured */
  int64_t dp_size;
  int64_t world_size;
  gboolean sequence_parallel;
} msperf_parallel;

G_END_DECLS

#endif /* MSPERF_HANDLE_H */
