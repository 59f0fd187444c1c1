/* msperf — one JSON Lines trace line into an op (FORMATS.md §2): the plain reader first, else
 * a tree (the fast reader's or json-glib's); the parser of lines with its cache of repeated
 * lines; the warnings for unknown keys. */
#include <config.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include <msperf/error.h>
#include <msperf/shape.h>
#include "base/str_hash.h"
#include "app/trace/trace_private.h"
#include "app/trace/json_tree.h"
#include "app/trace/json_check.h"
#include "app/trace/json_fast.h"
#include "app/trace/op_plain.h"
#include <msperf/format.h>

/* The keys of a trace line (FORMATS §2); any other key is most likely a typo ("arg") whose
 * value would be ignored without a word. */
static const char *const known_keys[] = { "op", "args", "kwargs", "out", "count", "att", NULL };

/* Traces repeat lines (a layer's ops, every layer): a line seen recently is copied from its
 * parsed op instead of going through json-glib again (a copy costs a fraction of a parse,
 * doc/performance.md). At most LINE_CACHE_MAX lines, then started afresh, so memory stays
 * bounded (a hash table: direct-mapped slots made colliding lines miss for ever). Only
 * accepted lines are kept; the op depends on nothing but the text (index and line are set
 * per item). */
#define LINE_CACHE_MAX 16384
/* A trace of distinct lines never hits, and copying every line into the cache was a twentieth
 * of such a run: after a window of LINE_CACHE_WINDOW lines with fewer than one hit in 16, the
 * cache is emptied and left alone for LINE_CACHE_REST lines, then tried again. */
#define LINE_CACHE_WINDOW 4096
#define LINE_CACHE_REST (4 * LINE_CACHE_WINDOW)

/* Parses JSON Lines texts into items; one per thread (json-glib parsers are not shared). */
struct msperf_trace_parser {
  char *name;              /* the trace's name in messages */
  JsonParser *parser;      /* reused for every line: one allocation per trace, not per line */
  GHashTable *cache;       /* recent line texts -> parsed op (LINE_CACHE_MAX) */
  guint window, hits;      /* lines and cache hits in the current window */
  guint rest;              /* lines left to parse without the cache */
};

/* The keys of a line object that are not trace keys, appended to keys (char*, owned). */
static void
collect_unknown_keys (JsonObject *obj, GPtrArray *keys)
{
  g_autoptr (GList) members = json_object_get_members (obj);

  for (GList *l = members; l; l = l->next)
    if (!g_strv_contains (known_keys, l->data))
      g_ptr_array_add (keys, g_strdup (l->data));
}

void
msperf_trace_reader_note_keys (msperf_trace_reader *r, guint line, const GPtrArray *keys)
{
  g_return_if_fail (r != NULL);

  for (guint k = 0; keys && k < keys->len; k++)
    {
      const char *key = g_ptr_array_index (keys, k), *near;
      GString *msg;

      if (g_hash_table_contains (r->unknown_keys, key))
        continue;
      g_hash_table_add (r->unknown_keys, g_strdup (key));
      near = msperf_closest_name (key, known_keys, 2);
      msg = g_string_new (NULL);
      g_string_append_printf (msg, "%s:%u: unknown key ", r->name, line);
      msperf_fmt_json_string (msg, key);
      g_string_append (msg, " ignored");
      if (near)
        g_string_append_printf (msg, " (did you mean \"%s\"?)", near);
      g_ptr_array_add (r->warnings, g_string_free (msg, FALSE));
    }
}

static gboolean
out_tensor (msperf_op *op, JsonNode *node, const msperf_jpath *p, GError **error)
{
  msperf_tensor *t;

  if (!JSON_NODE_HOLDS_OBJECT (node) || !json_object_has_member (json_node_get_object (node),
                                                                 "shape"))
    {
      msperf_jpath_error (error, p, "must be a tensor (an object with 'shape'), got %s",
                          msperf_json_kind_name (node));
      return FALSE;
    }
  t = g_new0 (msperf_tensor, 1);
  g_ptr_array_add (op->out, t);  /* op->out frees it, also on failure */
  return msperf_json_tensor (json_node_get_object (node), t, p, error);
}

/* ------------------------------------------------------------------ one op */

/* Builds an op from a parsed JSON Lines object. *op_name is set as soon as "op" is read, so a
 * rejected line can still name its op. */
static msperf_op *
op_from_node (JsonNode *root, char **op_name, GError **error)
{
  g_autoptr (msperf_op) op = NULL;
  JsonObject *obj;
  JsonNode *node;

  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      msperf_jpath_error (error, NULL, "a trace line must be a JSON object, got %s",
                          msperf_json_kind_name (root));
      return NULL;
    }
  obj = json_node_get_object (root);

  node = json_object_get_member (obj, "op");
  if (node == NULL)
    {
      msperf_jpath_error (error, NULL, "missing required key 'op'");
      return NULL;
    }
  if (!msperf_json_is_string (node))
    {
      msperf_jpath_error (error, NULL, "'op' must be a string, got %s", msperf_json_kind_name (node));
      return NULL;
    }
  *op_name = g_strdup (json_node_get_string (node));
  op = msperf_op_new (*op_name);
  if (op->name[0] == '\0')
    {
      msperf_jpath_error (error, NULL, "'op' is empty");
      return NULL;
    }

  if ((node = json_object_get_member (obj, "args")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      JsonArray *a;
      msperf_jpath args = { NULL, "args", 0 };

      if (!JSON_NODE_HOLDS_ARRAY (node))
        {
          msperf_jpath_error (error, NULL, "'args' must be a list, got %s", msperf_json_kind_name (node));
          return NULL;
        }
      a = json_node_get_array (node);
      for (guint k = 0; k < json_array_get_length (a); k++)
        {
          msperf_jpath child = { &args, NULL, k };
          msperf_value *v = msperf_json_value (json_array_get_element (a, k), TRUE, &child, error);
          if (v == NULL)
            return NULL;
          g_ptr_array_add (op->args, v);
        }
    }

  if ((node = json_object_get_member (obj, "kwargs")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      msperf_jpath kw = { NULL, "kwargs", 0 };
      msperf_value *v;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          msperf_jpath_error (error, NULL, "'kwargs' must be an object, got %s", msperf_json_kind_name (node));
          return NULL;
        }
      /* kwargs is a map even when it has a "shape" key: its members are the values. */
      v = msperf_json_map (json_node_get_object (node), TRUE, &kw, error);
      if (v == NULL)
        return NULL;
      msperf_value_free (op->kwargs);
      op->kwargs = v;
    }

  if ((node = json_object_get_member (obj, "out")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      msperf_jpath out = { NULL, "out", 0 };

      if (JSON_NODE_HOLDS_ARRAY (node))
        {
          JsonArray *a = json_node_get_array (node);
          for (guint k = 0; k < json_array_get_length (a); k++)
            {
              msperf_jpath child = { &out, NULL, k };
              if (!out_tensor (op, json_array_get_element (a, k), &child, error))
                return NULL;
            }
        }
      else if (!out_tensor (op, node, &out, error))
        return NULL;
    }

  if ((node = json_object_get_member (obj, "count")) != NULL)
    {
      if (!msperf_json_is_int (node))
        {
          msperf_jpath_error (error, NULL, "'count' must be an integer >= 1, got %s",
                              msperf_json_kind_name (node));
          return NULL;
        }
      op->count = json_node_get_int (node);
      if (op->count < 1)
        {
          msperf_jpath_error (error, NULL, "'count' must be an integer >= 1, got %" G_GINT64_FORMAT,
                              op->count);
          return NULL;
        }
    }

  if ((node = json_object_get_member (obj, "att")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      msperf_jpath att = { NULL, "att", 0 };

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          msperf_jpath_error (error, NULL, "'att' must be an object, got %s", msperf_json_kind_name (node));
          return NULL;
        }
      op->att = msperf_json_value (node, FALSE, &att, error);
      if (op->att == NULL)
        return NULL;
    }
  return g_steal_pointer (&op);
}

/* json-glib reports "<data>:LINE:COL: Parse error: ..."; the line is always 1 here (one trace
 * line at a time), so only the column and the problem are kept. */
static void
set_json_error (GError **error, const GError *json_error)
{
  const char *msg = json_error->message;
  const char *rest = msg;
  guint col = 0;

  if (g_str_has_prefix (msg, "<data>:"))
    {
      const char *p = msg + strlen ("<data>:");
      char *end = NULL;
      (void) g_ascii_strtoull (p, &end, 10);
      if (end && *end == ':')
        {
          col = (guint) g_ascii_strtoull (end + 1, &end, 10);
          if (end && *end == ':')
            rest = end + 1;
        }
      while (*rest == ' ')
        rest++;
    }
  if (col)
    g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                 "invalid JSON at column %u: %s", col, rest);
  else
    g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "invalid JSON: %s", rest);
}

/* The root of a line's text (a new reference), or NULL + error. The fast reader takes the plain
 * lines (app/trace/json_fast.h); whatever it declines goes to json-glib exactly as before, so every
 * message stays json-glib's. */
static JsonNode *
root_from_text (JsonParser *parser, const char *text, GError **error)
{
  g_autoptr (GError) json_error = NULL;
  gsize len = strlen (text);
  JsonNode *root;

  if (!msperf_json_text_ok (text, len, error))
    return NULL;
  if ((root = msperf_json_fast_parse (text, len)) != NULL)
    return root;
  if (!json_parser_load_from_data (parser, text, -1, &json_error))
    {
      set_json_error (error, json_error);
      return NULL;
    }
  if (json_parser_get_root (parser) == NULL)
    {
      msperf_jpath_error (error, NULL, "empty JSON");
      return NULL;
    }
  return json_node_ref (json_parser_get_root (parser));
}

/* An op from a line's text: a plain line straight from its text (app/trace/op_plain.h, *root left
 * NULL: such a line has no unknown key), any other through a tree. When root is not NULL and
 * the op is made from a tree, *root is the line's tree (a new reference): the parser's own root
 * is not it when the fast reader took the line. */
static msperf_op *
op_from_text (JsonParser *parser, const char *text, gboolean plain, char **op_name,
              JsonNode **root, GError **error)
{
  g_autoptr (JsonNode) node = NULL;
  msperf_op *op;

  /* Whatever msperf_json_text_ok refuses, the plain reader declines: it goes first. */
  if (plain && (op = msperf_op_plain_parse (text, strlen (text))) != NULL)
    return op;
  if ((node = root_from_text (parser, text, error)) == NULL)
    return NULL;
  op = op_from_node (node, op_name, error);
  if (op != NULL && root != NULL)
    *root = g_steal_pointer (&node);
  return op;
}

static msperf_op *
parse_op (const char *json, const char *name, guint line, gboolean plain, GError **error)
{
  g_autoptr (JsonParser) parser = NULL;
  g_autofree char *op_name = NULL;
  GError *local = NULL;
  msperf_op *op;

  g_return_val_if_fail (json != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  parser = json_parser_new_immutable ();
  op = op_from_text (parser, json, plain, &op_name, NULL, &local);
  if (op == NULL)
    {
      g_prefix_error (&local, "%s:%u: ", name ? name : "<op>", line);
      g_propagate_error (error, local);
      return NULL;
    }
  op->line = line;
  return op;
}

msperf_op *
msperf_trace_parse_op (const char *json, const char *name, guint line, GError **error)
{
  return parse_op (json, name, line, TRUE, error);
}

msperf_op *
msperf_trace_parse_op_tree (const char *json, GError **error)
{
  return parse_op (json, NULL, 0, FALSE, error);
}

/* ------------------------------------------------------------------ the parser of lines */

msperf_trace_parser *
msperf_trace_parser_new (const msperf_trace_reader *reader)
{
  msperf_trace_parser *p;

  g_return_val_if_fail (reader != NULL, NULL);
  p = g_new0 (msperf_trace_parser, 1);
  p->name = g_strdup (reader->name);
  p->parser = json_parser_new_immutable ();
  p->cache = g_hash_table_new_full (msperf_str_hash, g_str_equal, g_free,
                                    (GDestroyNotify) msperf_op_free);
  return p;
}

void
msperf_trace_parser_free (msperf_trace_parser *p)
{
  if (p == NULL)
    return;
  g_hash_table_unref (p->cache);
  g_clear_object (&p->parser);
  g_free (p->name);
  g_free (p);
}

/* Counts a line against the cache's window (LINE_CACHE_WINDOW). */
static void
cache_window (msperf_trace_parser *p)
{
  if (p->rest > 0)
    {
      p->rest--;
      return;
    }
  if (++p->window < LINE_CACHE_WINDOW)
    return;
  if (p->hits < LINE_CACHE_WINDOW / 16)
    {
      g_hash_table_remove_all (p->cache);
      p->rest = LINE_CACHE_REST;
    }
  p->window = p->hits = 0;
}

void
msperf_trace_parser_parse (msperf_trace_parser *p, const char *text, msperf_trace_item *item,
                           GPtrArray *keys)
{
  g_autoptr (GError) err = NULL;
  const msperf_op *cached;
  char *op_name = NULL;

  g_return_if_fail (p != NULL && text != NULL && item != NULL && item->op == NULL);

  if (p->rest == 0 && (cached = g_hash_table_lookup (p->cache, text)) != NULL)
    {
      item->op = msperf_op_copy (cached);
      p->hits++;
    }
  else
    {
      g_autoptr (JsonNode) root = NULL;

      item->op = op_from_text (p->parser, text, TRUE, &op_name, keys ? &root : NULL, &err);
      if (item->op)
        {
          /* A cached line's keys were collected when it was first parsed (in input order,
           * before any repeat), and warnings are once per key. */
          if (keys && root)
            collect_unknown_keys (json_node_get_object (root), keys);
          if (p->rest == 0 && g_hash_table_size (p->cache) >= LINE_CACHE_MAX)
            g_hash_table_remove_all (p->cache);
          if (p->rest == 0)
            g_hash_table_insert (p->cache, g_strdup (text), msperf_op_copy (item->op));
        }
    }
  cache_window (p);
  if (item->op == NULL)
    {
      item->error = g_strdup_printf ("%s:%u: %s", p->name, item->line, err->message);
      item->op_name = op_name;
      return;
    }
  item->op->index = item->index;
  item->op->line = item->line;
  g_free (op_name);
}
