/* msperf (internal) — reading values out of a json-glib tree, shared by the JSON Lines reader
 * and the op-summary reader. Errors are MSPERF_ERROR_INVALID, prefixed with the value's path. */
#ifndef MSPERF_CORE_JSON_TREE_H
#define MSPERF_CORE_JSON_TREE_H

#include <json-glib/json-glib.h>
#include <msperf/op.h>

/* A path to the value being read ("args[1].shape[0]"), kept on the stack and formatted only
 * when an error needs it, so valid lines cost no string building. */
typedef struct msperf_jpath {
  const struct msperf_jpath *up;
  const char *key;  /* member name, or NULL for an index */
  guint idx;
} msperf_jpath;

/* Sets error to "PATH: MESSAGE" (MESSAGE alone when p is NULL). */
G_GNUC_PRINTF (3, 4) void msperf_jpath_error (GError **error, const msperf_jpath *p,
                                              const char *fmt, ...);
/* "object", "list", "null", "integer", "number", "boolean", "string" (messages). */
const char *msperf_json_kind_name (JsonNode *node);
gboolean msperf_json_is_int (JsonNode *node);
gboolean msperf_json_is_string (JsonNode *node);

/* Sets the dims of t and checks them: integers >= 0, rank <= MSPERF_MAX_RANK, an element count
 * that fits int64. */
gboolean msperf_json_dims_set (msperf_tensor *t, const int64_t *dims, guint n,
                               const msperf_jpath *p, GError **error);
/* A JSON list of integers into *out (transfer full) and *n. */
gboolean msperf_json_int_list (JsonNode *node, int64_t **out, guint *n, const msperf_jpath *p,
                               GError **error);
/* A tensor object ({"shape": …, "dtype": …, …}) into t. */
gboolean msperf_json_tensor (JsonObject *obj, msperf_tensor *t, const msperf_jpath *p,
                             GError **error);
/* An object as a MAP value, and any node as a value; with tensors, an object with "shape" is a
 * tensor. Transfer full; NULL + error when a member is invalid. */
msperf_value *msperf_json_map (JsonObject *obj, gboolean tensors, const msperf_jpath *p,
                               GError **error);
msperf_value *msperf_json_value (JsonNode *node, gboolean tensors, const msperf_jpath *p,
                                 GError **error);

#endif
