/* msperf — reading values out of a json-glib tree: the path of the value being read for error
 * messages, the kind of a node, and the tensors and values of a trace (FORMATS.md §2). */
#include <config.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/shape.h>
#include "app/trace/json_tree.h"
#include <msperf/format.h>

/* ------------------------------------------------------------------ error paths */

static void
path_append (GString *s, const msperf_jpath *p)
{
  if (p == NULL)
    return;
  path_append (s, p->up);
  if (p->key)
    g_string_append_printf (s, "%s%s", s->len ? "." : "", p->key);
  else
    g_string_append_printf (s, "[%u]", p->idx);
}

void
msperf_jpath_error (GError **error, const msperf_jpath *p, const char *fmt, ...)
{
  g_autoptr (GString) s = g_string_new (NULL);
  g_autofree char *msg = NULL;
  va_list ap;

  path_append (s, p);
  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (s->len)
    g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s: %s", s->str, msg);
  else
    g_set_error_literal (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, msg);
}

const char *
msperf_json_kind_name (JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      return "object";
    case JSON_NODE_ARRAY:
      return "list";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
    default:
      break;
    }
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return "integer";
    case G_TYPE_DOUBLE:
      return "number";
    case G_TYPE_BOOLEAN:
      return "boolean";
    case G_TYPE_STRING:
      return "string";
    default:
      return "value";
    }
}

gboolean
msperf_json_is_int (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64;
}

gboolean
msperf_json_is_string (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

/* ------------------------------------------------------------------ tensors and values */

/* Sets the dims of t and checks them: integers >= 0, rank <= MSPERF_MAX_RANK, and an element
 * count that fits int64 (the consumers multiply dims without further checks). */
gboolean
msperf_json_dims_set (msperf_tensor *t, const int64_t *dims, guint n, const msperf_jpath *p, GError **error)
{
  int64_t numel = 1;

  if (n > MSPERF_MAX_RANK)
    {
      msperf_jpath_error (error, p, "rank %u exceeds the maximum %d", n, MSPERF_MAX_RANK);
      return FALSE;
    }
  for (guint k = 0; k < n; k++)
    {
      if (dims[k] < 0)
        {
          msperf_jpath_error (error, p, "dimension %" G_GINT64_FORMAT " is negative", dims[k]);
          return FALSE;
        }
      if (!msperf_int64_checked_mul (numel, dims[k], &numel))
        {
          msperf_jpath_error (error, p, "element count overflows int64");
          return FALSE;
        }
    }
  t->rank = (int) n;
  if (n > 0)  /* dims is NULL for [] and memcpy's arguments must not be NULL even for 0 bytes */
    memcpy (t->dims, dims, n * sizeof (int64_t));
  return TRUE;
}

/* A JSON list of integers into a newly allocated array (NULL, with *n 0, for []); p is the
 * path of the list itself. */
gboolean
msperf_json_int_list (JsonNode *node, int64_t **out, guint *n, const msperf_jpath *p, GError **error)
{
  JsonArray *a;
  guint len;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      msperf_jpath_error (error, p, "must be a list of integers, got %s", msperf_json_kind_name (node));
      return FALSE;
    }
  a = json_node_get_array (node);
  len = json_array_get_length (a);
  *out = len ? g_new (int64_t, len) : NULL;
  *n = len;
  for (guint k = 0; k < len; k++)
    {
      JsonNode *e = json_array_get_element (a, k);
      if (!msperf_json_is_int (e))
        {
          msperf_jpath child = { p, NULL, k };
          msperf_jpath_error (error, &child, "must be an integer, got %s", msperf_json_kind_name (e));
          g_clear_pointer (out, g_free);
          *n = 0;
          return FALSE;
        }
      (*out)[k] = json_node_get_int (e);
    }
  return TRUE;
}

/* An object with "shape": {shape, dtype (required), format, stride, values}. */
gboolean
msperf_json_tensor (JsonObject *obj, msperf_tensor *t, const msperf_jpath *p, GError **error)
{
  g_autofree int64_t *dims = NULL;
  g_autofree int64_t *stride = NULL;
  g_autofree int64_t *values = NULL;
  guint rank = 0, n_stride = 0, n_values = 0;
  JsonNode *dtype_node, *node;
  const char *dtype_name;

  msperf_jpath shape_p = { p, "shape", 0 };
  msperf_jpath stride_p = { p, "stride", 0 };
  msperf_jpath values_p = { p, "values", 0 };

  memset (t, 0, sizeof *t);
  if (!msperf_json_int_list (json_object_get_member (obj, "shape"), &dims, &rank, &shape_p, error))
    return FALSE;
  if (!msperf_json_dims_set (t, dims, rank, &shape_p, error))
    return FALSE;

  dtype_node = json_object_get_member (obj, "dtype");
  if (dtype_node == NULL)
    {
      msperf_jpath_error (error, p, "tensor has no 'dtype'");
      return FALSE;
    }
  if (!msperf_json_is_string (dtype_node))
    {
      msperf_jpath_error (error, p, "'dtype' must be a string, got %s", msperf_json_kind_name (dtype_node));
      return FALSE;
    }
  dtype_name = json_node_get_string (dtype_node);
  t->dtype = msperf_dtype_from_string (dtype_name);
  if (t->dtype == MSPERF_DTYPE_UNKNOWN)
    {
      msperf_jpath_error (error, p, "unknown dtype '%s'", dtype_name);
      return FALSE;
    }

  t->format = MSPERF_FORMAT_ND;
  if ((node = json_object_get_member (obj, "format")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!msperf_json_is_string (node))
        {
          msperf_jpath_error (error, p, "'format' must be a string, got %s", msperf_json_kind_name (node));
          return FALSE;
        }
      t->format = msperf_format_from_string (json_node_get_string (node));
    }

  /* The stride is not used by any lookup; it is checked so that a malformed one is caught. */
  if ((node = json_object_get_member (obj, "stride")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!msperf_json_int_list (node, &stride, &n_stride, &stride_p, error))
        return FALSE;
      if (n_stride != rank)
        {
          msperf_jpath_error (error, &stride_p, "has %u entries for a rank-%u shape", n_stride, rank);
          return FALSE;
        }
    }

  if ((node = json_object_get_member (obj, "values")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      int64_t numel = msperf_tensor_numel (t);
      if (!msperf_json_int_list (node, &values, &n_values, &values_p, error))
        return FALSE;
      if ((int64_t) n_values != numel)
        {
          msperf_jpath_error (error, &values_p, "has %u entries but the shape holds %" G_GINT64_FORMAT,
                              n_values, numel);
          return FALSE;
        }
      t->values = g_steal_pointer (&values);
      t->n_values = n_values;
    }
  return TRUE;
}


/* Every member of obj, in the order of the text, through the value rules. */
msperf_value *
msperf_json_map (JsonObject *obj, gboolean tensors, const msperf_jpath *p, GError **error)
{
  g_autoptr (msperf_value) v = msperf_value_new (MSPERF_VALUE_MAP);
  GList *members = json_object_get_members (obj);  /* insertion order */
  gboolean ok = TRUE;

  for (GList *l = members; l && ok; l = l->next)
    {
      msperf_jpath child = { p, l->data, 0 };
      msperf_value *item = msperf_json_value (json_object_get_member (obj, l->data), tensors,
                                              &child, error);
      if (item == NULL)
        ok = FALSE;
      else
        msperf_value_map_set (v, l->data, item);
    }
  g_list_free (members);
  return ok ? g_steal_pointer (&v) : NULL;
}

/* The value rules of FORMATS §2. In args and kwargs an object with "shape" is a tensor; in att
 * (tensors == FALSE) every object is a map, because ATT parameters use "shape" as a plain key. */
msperf_value *
msperf_json_value (JsonNode *node, gboolean tensors, const msperf_jpath *p, GError **error)
{
  g_autoptr (msperf_value) v = NULL;

  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_NULL:
      return msperf_value_new (MSPERF_VALUE_NONE);

    case JSON_NODE_ARRAY:
      {
        JsonArray *a = json_node_get_array (node);
        guint len = json_array_get_length (a);

        v = msperf_value_new (MSPERF_VALUE_LIST);
        for (guint k = 0; k < len; k++)
          {
            msperf_jpath child = { p, NULL, k };
            msperf_value *item = msperf_json_value (json_array_get_element (a, k), tensors,
                                                    &child, error);
            if (item == NULL)
              return NULL;
            msperf_value_list_append (v, item);
          }
        return g_steal_pointer (&v);
      }

    case JSON_NODE_OBJECT:
      {
        JsonObject *obj = json_node_get_object (node);

        if (tensors && json_object_has_member (obj, "shape"))
          {
            v = msperf_value_new (MSPERF_VALUE_TENSOR);
            if (!msperf_json_tensor (obj, &v->tensor, p, error))
              return NULL;
            return g_steal_pointer (&v);
          }
        return msperf_json_map (obj, tensors, p, error);
      }

    case JSON_NODE_VALUE:
    default:
      break;
    }

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      v = msperf_value_new (MSPERF_VALUE_INT);
      v->i = json_node_get_int (node);
      break;
    case G_TYPE_DOUBLE:
      v = msperf_value_new (MSPERF_VALUE_FLOAT);
      v->f = json_node_get_double (node);
      break;
    case G_TYPE_BOOLEAN:
      v = msperf_value_new (MSPERF_VALUE_BOOL);
      v->b = json_node_get_boolean (node);
      break;
    case G_TYPE_STRING:
      v = msperf_value_new (MSPERF_VALUE_STRING);
      v->s = g_strdup (json_node_get_string (node));
      break;
    default:
      msperf_jpath_error (error, p, "unsupported JSON value");
      return NULL;
    }
  return g_steal_pointer (&v);
}
