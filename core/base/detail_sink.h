/* msperf — the sinks a deferred details record is emitted into (private to libmsperf). */
#ifndef MSPERF_DETAIL_SINK_H
#define MSPERF_DETAIL_SINK_H

#include <msperf/details.h>

/* Deeper than any details tree msperf writes (candidate_points → point → axes is 3). */
#define MSPERF_DETAIL_SINK_MAX_DEPTH 16

typedef enum {
  MSPERF_DETAIL_SINK_TREE, /* builds values under root */
  MSPERF_DETAIL_SINK_JSON, /* appends JSON text to out */
  MSPERF_DETAIL_SINK_PROBE /* writes nothing; found says whether the key `only` is there */
} msperf_detail_sink_mode;

struct msperf_detail_sink {
  msperf_detail_sink_mode mode;
  int depth;              /* open containers below the top-level map */
  int skip_from;          /* depth of the container being skipped, -1 when none */
  const char *only;       /* the one top-level key written, NULL = every key */
  const char *const *only_any; /* or: the top-level keys written (NULL-terminated) */
  gboolean found;         /* only was met */
  gboolean overflow;      /* a tree deeper than MSPERF_DETAIL_SINK_MAX_DEPTH was cut */
  /* TREE: stack[0] is the top-level map, stack[depth] the open container */
  msperf_value *stack[MSPERF_DETAIL_SINK_MAX_DEPTH + 1];
  /* JSON */
  GString *out;
  guint count[MSPERF_DETAIL_SINK_MAX_DEPTH + 1];   /* items written in each open container */
  gboolean is_map[MSPERF_DETAIL_SINK_MAX_DEPTH + 1];
  const char *const *span_keys;
  msperf_detail_span *spans;
  int span;               /* index into spans of the top-level value being written, or -1 */
};

/* Entries go into map (a MAP value, borrowed). only: write that top-level key alone. */
void msperf_detail_sink_init_tree (msperf_detail_sink *sink, msperf_value *map, const char *only);
/* Entries go into map, those of the top-level keys (NULL-terminated) alone. */
void msperf_detail_sink_init_subset (msperf_detail_sink *sink, msperf_value *map,
                                     const char *const *keys);
/* Writes nothing: after the emitter, found says whether key is one of its top-level keys. */
void msperf_detail_sink_init_probe (msperf_detail_sink *sink, const char *key);
/* Entries are appended to out after a '{' the caller wrote; count is the number of entries
 * already written there. The caller writes the closing '}'. */
void msperf_detail_sink_init_json (msperf_detail_sink *sink, GString *out, guint count,
                                   const char *const *span_keys, msperf_detail_span *spans);
/* FALSE when a top-level item named key would be written nowhere (filtered out by the probe's
 * or the subset's keys, or inside a skipped container): an emitter may then skip the calls of a
 * whole container (an interpolated answer's details are probed and subset for one to four keys
 * of ~40 per answer). TRUE below the top level. */
gboolean msperf_detail_sink_wants (const msperf_detail_sink *sink, const char *key);
/* Entries written so far at the top level (JSON). */
guint msperf_detail_sink_top_count (const msperf_detail_sink *sink);

#endif /* MSPERF_DETAIL_SINK_H */
