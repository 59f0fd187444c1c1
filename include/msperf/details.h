/* msperf — an answer's details kept as its producer's compact record, written out when read.
 *
 * An answer's details are an ordered MAP of JSON-like values (msperf_result.details). Building
 * that tree node by node, one allocation each, was a third of a warm interpolated answer and
 * most of its memory. A producer may instead hand the result a record of its own and
 * an emitter that writes the same keys, in the same order, into a sink; the sink is
 *   - a value tree, built once when somebody reads the map (msperf_result_details), or
 *   - JSON text, when a writer prints the answer (msperf_result_details_json), or
 *   - one key's value (msperf_result_detail_dup).
 * Every reader therefore sees the same details whichever way they were stored. */
#ifndef MSPERF_DETAILS_H
#define MSPERF_DETAILS_H

#include <msperf/api.h>
#include <glib.h>
#include <msperf/op.h>
#include <msperf/result.h>

G_BEGIN_DECLS

/* Where an emitter writes. Opaque; only the calls below touch it. key names a MAP entry and is
 * NULL for a LIST item; keys at the top level are the details' keys and must be unique. */
typedef struct msperf_detail_sink msperf_detail_sink;

MSPERF_API void msperf_detail_sink_null (msperf_detail_sink *sink, const char *key);
MSPERF_API void msperf_detail_sink_bool (msperf_detail_sink *sink, const char *key, gboolean v);
MSPERF_API void msperf_detail_sink_int (msperf_detail_sink *sink, const char *key, int64_t v);
MSPERF_API void msperf_detail_sink_double (msperf_detail_sink *sink, const char *key, double v);
/* NULL v writes null, as msperf_value_new_string (NULL) does. */
MSPERF_API void msperf_detail_sink_string (msperf_detail_sink *sink, const char *key,
                                           const char *v);
/* An existing tree, as it is (copied into a value tree, printed into JSON). */
MSPERF_API void msperf_detail_sink_value (msperf_detail_sink *sink, const char *key,
                                          const msperf_value *v);
MSPERF_API void msperf_detail_sink_begin_map (msperf_detail_sink *sink, const char *key);
MSPERF_API void msperf_detail_sink_begin_list (msperf_detail_sink *sink, const char *key);
MSPERF_API void msperf_detail_sink_end (msperf_detail_sink *sink);

/* Writes record's details into sink. Runs on any thread, any number of times, so it only
 * reads record. */
typedef void (*msperf_detail_emit_func) (gconstpointer record, msperf_detail_sink *sink);

/* The result's details become what emit writes from record (the result owns record and frees
 * it with free_record). Details set before are dropped; details set afterwards follow the
 * record's keys, and setting one of the record's own keys builds the map first. */
MSPERF_API void msperf_result_defer_details (msperf_result *result, msperf_detail_emit_func emit,
                                             gpointer record, GDestroyNotify free_record);
/* The whole details MAP (never NULL), built on first call for a deferred record (thread-safe;
 * the tree then stays in result->details). Read details through this, not the field: the field
 * of a deferred result holds only the keys set after the record until this has run. */
MSPERF_API const msperf_value *msperf_result_details (const msperf_result *result);
/* A copy of one detail, NULL when absent; a deferred record builds that value alone. */
MSPERF_API msperf_value *msperf_result_detail_dup (const msperf_result *result, const char *key);

/* Copies of those of keys (NULL-terminated) the details hold, as a MAP in the details' order:
 * several keys in one pass, a deferred record building only those values. Transfer full. */
MSPERF_API msperf_value *msperf_result_details_subset (const msperf_result *result,
                                                       const char *const *keys);

/* Byte range [start, end) of one top-level value in msperf_result_details_json's output;
 * end == 0 when the key is absent. */
typedef struct {
  gsize start;
  gsize end;
} msperf_detail_span;

/* Appends the details as msperf_fmt_json_value (msperf_result_details (result), -1, 0) writes
 * them, without building a deferred record's tree. keys (NULL-terminated, may be NULL) ask for
 * the spans of those top-level values, written into spans[k] (offsets into out). */
MSPERF_API void msperf_result_details_json (const msperf_result *result, GString *out,
                                            const char *const *keys, msperf_detail_span *spans);

G_END_DECLS

#endif /* MSPERF_DETAILS_H */
