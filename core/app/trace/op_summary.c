/* msperf — the op-summary document (FORMATS.md §2): one whole JSON document whose "ops"
 * entries become items, one per shape variant, each with the line it is on. */
#include <config.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include <msperf/error.h>
#include <msperf/shape.h>
#include "app/trace/trace_private.h"
#include "app/trace/json_tree.h"
#include "app/trace/json_check.h"

/* ------------------------------------------------------------------ the op-summary document */

/* "(16, 5120)", "(5120)", "(5120,)", "()" (Python tuple reprs as the summary writes them), or a
 * JSON list of integers. */
static gboolean
summary_tensor (JsonNode *node, msperf_tensor *t, const msperf_jpath *p, GError **error)
{
  int64_t dims[MSPERF_MAX_RANK + 1];
  guint n = 0;
  g_autofree char *inner = NULL;
  g_auto (GStrv) parts = NULL;
  const char *s;
  gsize len;

  memset (t, 0, sizeof *t);
  t->format = MSPERF_FORMAT_ND;
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      g_autofree int64_t *list = NULL;
      if (!msperf_json_int_list (node, &list, &n, p, error))
        return FALSE;
      return msperf_json_dims_set (t, list, n, p, error);
    }
  if (!msperf_json_is_string (node))
    {
      msperf_jpath_error (error, p, "a shape must be a string such as \"(16, 5120)\", got %s",
                          msperf_json_kind_name (node));
      return FALSE;
    }
  s = json_node_get_string (node);
  len = strlen (s);
  if (len < 2 || s[0] != '(' || s[len - 1] != ')')
    {
      msperf_jpath_error (error, p, "shape \"%s\" is not a tuple such as \"(16, 5120)\"", s);
      return FALSE;
    }
  inner = g_strndup (s + 1, len - 2);
  g_strstrip (inner);
  if (*inner == '\0')
    return msperf_json_dims_set (t, dims, 0, p, error);
  parts = g_strsplit (inner, ",", -1);
  for (guint k = 0; parts[k]; k++)
    {
      char *part = g_strstrip (parts[k]);
      gint64 d;
      g_autoptr (GError) num_error = NULL;

      /* "(5120,)": Python's one-element tuple ends with a comma. */
      if (*part == '\0' && parts[k + 1] == NULL && k > 0)
        break;
      if (n > MSPERF_MAX_RANK)
        {
          msperf_jpath_error (error, p, "shape \"%s\": rank exceeds the maximum %d", s, MSPERF_MAX_RANK);
          return FALSE;
        }
      if (*part == '-')
        {
          msperf_jpath_error (error, p, "shape \"%s\": dimension %s is negative", s, part);
          return FALSE;
        }
      if (!g_ascii_string_to_signed (part, 10, 0, G_MAXINT64, &d, &num_error))
        {
          msperf_jpath_error (error, p, "shape \"%s\": dimension \"%s\" is not an integer in int64", s,
                              part);
          return FALSE;
        }
      dims[n++] = d;
    }
  return msperf_json_dims_set (t, dims, n, p, error);
}

/* Tensors of one side (input or output) of a variant. The summary drops dtypes it does not
 * know (DeepSeek-V3's fp32 router tensors have shapes but no dtype), so when the two lists
 * differ in length the dtypes cannot be paired with slots: every tensor of that side then gets
 * MSPERF_DTYPE_UNKNOWN, which matches no kernel row, rather than a guessed dtype. */
static GPtrArray *
summary_tensors (JsonObject *variant, const char *shapes_key, const char *dtypes_key,
                 const msperf_jpath *p, GError **error)
{
  g_autoptr (GPtrArray) tensors = g_ptr_array_new_with_free_func (g_free);
  JsonNode *shapes_node = json_object_get_member (variant, shapes_key);
  JsonNode *dtypes_node = json_object_get_member (variant, dtypes_key);
  JsonArray *shapes, *dtypes = NULL;
  guint n_shapes, n_dtypes = 0;
  msperf_jpath field = { p, shapes_key, 0 };

  if (shapes_node == NULL || JSON_NODE_HOLDS_NULL (shapes_node))
    return g_steal_pointer (&tensors);
  if (!JSON_NODE_HOLDS_ARRAY (shapes_node))
    {
      msperf_jpath_error (error, &field, "must be a list, got %s", msperf_json_kind_name (shapes_node));
      return NULL;
    }
  shapes = json_node_get_array (shapes_node);
  n_shapes = json_array_get_length (shapes);
  if (dtypes_node != NULL && !JSON_NODE_HOLDS_NULL (dtypes_node))
    {
      msperf_jpath dfield = { p, dtypes_key, 0 };
      if (!JSON_NODE_HOLDS_ARRAY (dtypes_node))
        {
          msperf_jpath_error (error, &dfield, "must be a list, got %s", msperf_json_kind_name (dtypes_node));
          return NULL;
        }
      dtypes = json_node_get_array (dtypes_node);
      n_dtypes = json_array_get_length (dtypes);
    }

  for (guint k = 0; k < n_shapes; k++)
    {
      msperf_jpath child = { &field, NULL, k };
      msperf_tensor *t = g_new0 (msperf_tensor, 1);

      g_ptr_array_add (tensors, t);
      if (!summary_tensor (json_array_get_element (shapes, k), t, &child, error))
        return NULL;
      t->dtype = MSPERF_DTYPE_UNKNOWN;
      if (n_dtypes == n_shapes)
        {
          JsonNode *d = json_array_get_element (dtypes, k);
          msperf_jpath dfield = { p, dtypes_key, 0 };
          msperf_jpath dchild = { &dfield, NULL, k };
          if (!msperf_json_is_string (d))
            {
              msperf_jpath_error (error, &dchild, "dtype must be a string, got %s", msperf_json_kind_name (d));
              return NULL;
            }
          t->dtype = msperf_dtype_from_string (json_node_get_string (d));
          if (t->dtype == MSPERF_DTYPE_UNKNOWN)
            {
              msperf_jpath_error (error, &dchild, "unknown dtype '%s'", json_node_get_string (d));
              return NULL;
            }
        }
    }
  return g_steal_pointer (&tensors);
}

/* Line numbers of the summary's objects, recorded while json-glib parses (its nodes keep no
 * position afterwards). */
typedef struct {
  GArray *starts;      /* guint: start line of each open object */
  GHashTable *lines;   /* JsonObject* -> start line */
} object_lines;

static void
on_object_start (JsonParser *parser, gpointer user_data)
{
  object_lines *ol = user_data;
  guint line = json_parser_get_current_line (parser);

  g_array_append_val (ol->starts, line);
}

static void
on_object_end (JsonParser *parser, JsonObject *object, gpointer user_data)
{
  object_lines *ol = user_data;
  guint line;

  (void) parser;
  if (ol->starts->len == 0)
    return;
  line = g_array_index (ol->starts, guint, ol->starts->len - 1);
  g_array_set_size (ol->starts, ol->starts->len - 1);
  g_hash_table_insert (ol->lines, object, GUINT_TO_POINTER (line));
}

static guint
object_line (const object_lines *ol, JsonObject *obj)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (ol->lines, obj));
}

/* json-glib keeps no position of a scalar: the lines of the "ops" list's elements are found by
 * a scan of the text, which json-glib has parsed (so it is nearly JSON: the scan stops where
 * it cannot move on). */

/* The offset after the value at text[k] (a string, a scalar or a container). */
static gsize
skip_value (const char *text, gsize len, gsize k)
{
  guint depth = 0;
  gboolean in_string = FALSE;

  for (; k < len; k++)
    {
      char c = text[k];

      if (in_string)
        {
          if (c == '\\')
            k++;
          else if (c == '"')
            {
              in_string = FALSE;
              if (depth == 0)
                return k + 1;
            }
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        depth++;
      else if (c == ']' || c == '}')
        {
          if (depth == 0)
            return k;
          if (--depth == 0)
            return k + 1;
        }
      else if (depth == 0 && (c == ',' || g_ascii_isspace (c)))
        return k;
    }
  return len;
}

static gsize
skip_space (const char *text, gsize len, gsize k)
{
  while (k < len && g_ascii_isspace (text[k]))
    k++;
  return k;
}

/* The 1-based line of each element of the root object's "ops" list (of its last "ops" member,
 * the one json-glib keeps), in order. Transfer full (guint). */
static GArray *
ops_element_lines (const char *text, gsize len)
{
  GArray *lines = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) offsets = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize k = skip_space (text, len, 0), at = 0;
  guint line = 1;

  if (k >= len || text[k] != '{')
    return lines;
  for (k = skip_space (text, len, k + 1); k < len && text[k] == '"';)
    {
      gsize key = k + 1, key_end = skip_value (text, len, k) - 1;
      gboolean is_ops = key_end - key == 3 && memcmp (text + key, "ops", 3) == 0;

      k = skip_space (text, len, key_end + 1);
      if (k >= len || text[k] != ':')
        break;
      k = skip_space (text, len, k + 1);
      if (is_ops && k < len && text[k] == '[')
        {
          g_array_set_size (offsets, 0);
          for (k = skip_space (text, len, k + 1); k < len && text[k] != ']';)
            {
              gsize from = k;

              g_array_append_val (offsets, k);
              k = skip_space (text, len, skip_value (text, len, k));
              if (k < len && text[k] == ',')
                k = skip_space (text, len, k + 1);
              /* json-glib reads more than strict JSON (a stray '}' in the list): without
               * progress the scan would append this element for ever. */
              if (k == from)
                break;
            }
          k++;
        }
      else
        k = skip_value (text, len, k);
      k = skip_space (text, len, k);
      if (k >= len || text[k] != ',')
        break;
      k = skip_space (text, len, k + 1);
    }
  for (guint e = 0; e < offsets->len; e++)
    {
      gsize off = g_array_index (offsets, gsize, e);

      for (; at < off; at++)
        line += text[at] == '\n';
      g_array_append_val (lines, line);
    }
  return lines;
}

static void
summary_add_error (msperf_trace_reader *r, GError *err, const char *op_name, guint line)
{
  msperf_trace_item *item = g_new0 (msperf_trace_item, 1);

  /* Without a position (an entry whose line the scan could not find), the JSON path in the
   * message says where it is; a "line 0" would not. */
  if (line > 0)
    item->error = g_strdup_printf ("%s:%u: %s", r->name, line, err->message);
  else
    item->error = g_strdup_printf ("%s: %s", r->name, err->message);
  item->op_name = g_strdup (op_name);
  item->index = r->index++;
  item->line = line;
  g_ptr_array_add (r->items, item);
}

/* TensorCast's `zero_cost: true` on an entry (its metadata ops): only a JSON true counts. */
static gboolean
summary_zero_cost (JsonObject *obj)
{
  JsonNode *n = json_object_get_member (obj, "zero_cost");

  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_BOOLEAN
         && json_node_get_boolean (n);
}

/* One op entry of the summary: one item per shape variant, the op's count split across them as
 * integers with the remainder going to the first variants (10 over 3 → 4, 3, 3). */
static void
summary_op (msperf_trace_reader *r, JsonNode *node, guint k, guint node_line,
            const object_lines *ol)
{
  msperf_jpath ops = { NULL, "ops", 0 };
  msperf_jpath entry = { &ops, NULL, k };
  g_autoptr (GError) err = NULL;
  JsonObject *obj;
  JsonNode *name_node, *count_node, *variants_node;
  const char *op_name;
  int64_t count = 1;
  JsonArray *variants = NULL;
  guint n_variants = 0, line;
  gboolean zero_cost;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      msperf_jpath_error (&err, &entry, "must be an object, got %s", msperf_json_kind_name (node));
      summary_add_error (r, err, NULL, node_line);
      return;
    }
  obj = json_node_get_object (node);
  line = object_line (ol, obj);
  name_node = json_object_get_member (obj, "op_name");
  if (name_node == NULL || !msperf_json_is_string (name_node)
      || *json_node_get_string (name_node) == '\0')
    {
      msperf_jpath_error (&err, &entry, "'op_name' must be a non-empty string");
      summary_add_error (r, err, NULL, line);
      return;
    }
  op_name = json_node_get_string (name_node);
  zero_cost = summary_zero_cost (obj);
  if ((count_node = json_object_get_member (obj, "count")) != NULL)
    {
      if (!msperf_json_is_int (count_node) || json_node_get_int (count_node) < 1)
        {
          msperf_jpath_error (&err, &entry, "'count' must be an integer >= 1");
          summary_add_error (r, err, op_name, line);
          return;
        }
      count = json_node_get_int (count_node);
    }
  variants_node = json_object_get_member (obj, "shape_variants");
  if (variants_node != NULL && !JSON_NODE_HOLDS_NULL (variants_node))
    {
      if (!JSON_NODE_HOLDS_ARRAY (variants_node))
        {
          msperf_jpath_error (&err, &entry, "'shape_variants' must be a list");
          summary_add_error (r, err, op_name, line);
          return;
        }
      variants = json_node_get_array (variants_node);
      n_variants = json_array_get_length (variants);
    }

  if (n_variants == 0)
    {
      /* No shapes recorded: the op still occurs, with no tensors to match. */
      msperf_trace_item *item = g_new0 (msperf_trace_item, 1);
      item->op = msperf_op_new (op_name);
      item->op->zero_cost = zero_cost;
      item->op->count = count;
      item->op->index = item->index = r->index++;
      item->op->line = item->line = line;
      g_ptr_array_add (r->items, item);
      return;
    }

  for (guint j = 0; j < n_variants; j++)
    {
      msperf_jpath vfield = { &entry, "shape_variants", 0 };
      msperf_jpath vpath = { &vfield, NULL, j };
      int64_t share = count / n_variants + ((int64_t) j < count % n_variants ? 1 : 0);
      JsonNode *vnode = json_array_get_element (variants, j);
      g_autoptr (GPtrArray) inputs = NULL;
      g_autoptr (GPtrArray) outputs = NULL;
      msperf_trace_item *item;
      guint vline = line;

      /* Fewer occurrences than variants: a variant with no occurrence is no invocation. */
      if (share == 0)
        continue;
      if (!JSON_NODE_HOLDS_OBJECT (vnode))
        {
          msperf_jpath_error (&err, &vpath, "must be an object, got %s", msperf_json_kind_name (vnode));
          summary_add_error (r, err, op_name, line);
          g_clear_error (&err);
          continue;
        }
      vline = object_line (ol, json_node_get_object (vnode));
      inputs = summary_tensors (json_node_get_object (vnode), "input_shapes", "input_dtypes",
                                &vpath, &err);
      if (inputs != NULL)
        outputs = summary_tensors (json_node_get_object (vnode), "output_shapes",
                                   "output_dtypes", &vpath, &err);
      if (outputs == NULL)
        {
          summary_add_error (r, err, op_name, vline);
          g_clear_error (&err);
          continue;
        }

      item = g_new0 (msperf_trace_item, 1);
      item->op = msperf_op_new (op_name);
      item->op->zero_cost = zero_cost;
      item->op->count = share;
      item->op->index = item->index = r->index++;
      item->op->line = item->line = vline;
      for (guint t = 0; t < inputs->len; t++)
        {
          msperf_value *v = msperf_value_new (MSPERF_VALUE_TENSOR);
          v->tensor = *(msperf_tensor *) g_ptr_array_index (inputs, t);
          g_ptr_array_add (item->op->args, v);
        }
      /* The tensors move into the op: steal the array's elements instead of freeing them. */
      for (guint t = 0; t < outputs->len; t++)
        g_ptr_array_add (item->op->out, g_ptr_array_index (outputs, t));
      g_ptr_array_set_free_func (outputs, NULL);
      g_ptr_array_add (r->items, item);
    }
}

static void
item_free (gpointer p)
{
  msperf_trace_item_clear (p);
  g_free (p);
}

/* Parses text as a whole document. Returns TRUE with the summary's items when it is an
 * op-summary; FALSE with *error (a whole-document error) otherwise, *parsed telling whether it
 * was valid JSON at all. */
static gboolean
load_document (msperf_trace_reader *r, const char *text, gsize len, gboolean *parsed,
               GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  g_autoptr (GError) json_error = NULL;
  object_lines ol;
  JsonNode *root, *ops_node;
  JsonArray *ops;
  g_autoptr (GArray) element_lines = NULL;
  gboolean ok;

  ol.starts = g_array_new (FALSE, FALSE, sizeof (guint));
  ol.lines = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_signal_connect (parser, "object-start", G_CALLBACK (on_object_start), &ol);
  g_signal_connect (parser, "object-end", G_CALLBACK (on_object_end), &ol);
  {
    g_autoptr (GError) text_error = NULL;

    if (!msperf_json_text_ok (text, len, &text_error))
      {
        *parsed = FALSE;
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s:1: %s", r->name,
                     text_error->message);
        ok = FALSE;
        goto out;
      }
  }
  ok = json_parser_load_from_data (parser, text, (gssize) len, &json_error);
  *parsed = ok;
  if (!ok)
    {
      /* json-glib's message carries "<data>:LINE:COL:"; name the file instead. */
      const char *msg = json_error->message;
      if (g_str_has_prefix (msg, "<data>:"))
        msg += strlen ("<data>:");
      /* Some json-glib messages carry no position ("JSON data must be UTF-8 encoded"). */
      if (g_ascii_isdigit (*msg))
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s:%s", r->name, msg);
      else
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s:1: %s", r->name, msg);
      goto out;
    }
  root = json_parser_get_root (parser);
  ops_node = (root && JSON_NODE_HOLDS_OBJECT (root))
             ? json_object_get_member (json_node_get_object (root), "ops") : NULL;
  if (ops_node == NULL || !JSON_NODE_HOLDS_ARRAY (ops_node))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                   "%s:1: neither JSON Lines (one op object per line) nor an op-summary "
                   "document (an object with an \"ops\" list)", r->name);
      ok = FALSE;
      goto out;
    }
  ops = json_node_get_array (ops_node);
  element_lines = ops_element_lines (text, len);
  r->items = g_ptr_array_new_with_free_func (item_free);
  for (guint k = 0; k < json_array_get_length (ops); k++)
    summary_op (r, json_array_get_element (ops, k), k,
                k < element_lines->len ? g_array_index (element_lines, guint, k) : 0, &ol);

out:
  g_array_unref (ol.starts);
  g_hash_table_unref (ol.lines);
  return ok;
}

/* A document followed by something else (a stray line, a second document) is answered, and
 * what follows is one rejected item at its line: refusing the whole input, or reading it as
 * JSON Lines, would bury that one line under a rejection of every other. */
gboolean
msperf_trace_summary_load (msperf_trace_reader *r, const char *text, gsize len, gboolean *parsed,
                           GError **error)
{
  gsize end = msperf_json_value_end (text, len), rest = end;
  gboolean doc_parsed = FALSE;
  msperf_trace_item *item;
  guint end_line = 1, rest_line;

  g_return_val_if_fail (r != NULL && parsed != NULL, FALSE);

  while (rest < len && g_ascii_isspace (text[rest]))
    rest++;
  if (rest == len || !load_document (r, text, end, &doc_parsed, NULL))
    return load_document (r, text, len, parsed, error);
  for (gsize k = 0; k < end; k++)
    end_line += text[k] == '\n';
  rest_line = end_line;
  for (gsize k = end; k < rest; k++)
    rest_line += text[k] == '\n';
  item = g_new0 (msperf_trace_item, 1);
  item->error = g_strdup_printf ("%s:%u: unexpected content after the op-summary document, "
                                 "which ends on line %u", r->name, rest_line, end_line);
  item->index = r->index++;
  item->line = rest_line;
  g_ptr_array_add (r->items, item);
  *parsed = TRUE;
  return TRUE;
}
