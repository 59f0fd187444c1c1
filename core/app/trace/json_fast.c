/* msperf — a strict recursive-descent reader of trace lines into json-glib trees
 * (app/trace/json_fast.h).
 *
 * Why: json_parser_load_from_data tokenizes through GScanner, ~11 µs a GEMM line and the largest
 * single cost of parsing a trace. Trace lines are machine-written and nearly always plain:
 * ASCII keys and strings without escapes, small integers. For those this builds the very tree
 * the immutable parser builds (same node and value types, same member and element order,
 * parents set, sealed), so the code that reads it cannot tell the two apart. Everything else
 * (floats, escapes, UTF-8, errors of any kind) is left to json-glib: its number conversion, its
 * escape handling and its error messages are not redone here. */
#include <config.h>
#include <string.h>
#include "app/trace/json_fast.h"
#include "app/trace/json_lex.h"

static JsonNode *msperf_json_fast_value (msperf_json_cursor *c);

static JsonNode *
msperf_json_fast_string_node (msperf_json_cursor *c)
{
  g_autofree char *heap = NULL;
  const char *s;
  gsize len;

  if (!msperf_json_string (c, &s, &len))
    return NULL;
  return json_node_init_string (json_node_alloc (), msperf_json_cstr (c, s, len, &heap));
}

/* An integer of the subset, as G_TYPE_INT64 like json-glib's integers. */
static JsonNode *
msperf_json_fast_int (msperf_json_cursor *c)
{
  gint64 v;

  return msperf_json_int (c, &v) ? json_node_init_int (json_node_alloc (), v) : NULL;
}

static JsonNode *
msperf_json_fast_literal (msperf_json_cursor *c)
{
  if (msperf_json_word (c, "true"))
    return json_node_init_boolean (json_node_alloc (), TRUE);
  if (msperf_json_word (c, "false"))
    return json_node_init_boolean (json_node_alloc (), FALSE);
  if (msperf_json_word (c, "null"))
    return json_node_init_null (json_node_alloc ());
  return NULL;
}

/* Adds member as key[0..len) of the object of node, as json-glib's parser does (parent set,
 * appended to the member order). FALSE (member dropped) when the key is already there: json-glib
 * would replace the value and keep the first position, a case not worth copying. */
static gboolean
msperf_json_fast_add_member (msperf_json_cursor *c, JsonNode *node, const char *key, gsize len,
                             JsonNode *member)
{
  g_autofree char *heap = NULL;
  JsonObject *obj = json_node_get_object (node);
  const char *name = msperf_json_cstr (c, key, len, &heap);

  if (json_object_has_member (obj, name))
    {
      json_node_unref (member);
      return FALSE;
    }
  json_node_set_parent (member, node);
  json_object_set_member (obj, name, member);
  return TRUE;
}

/* One "key": value of an object; c->p is at the key's quote, and moves past the value. The key
 * is kept as a span of the text, made a C string only once the value is read (the scratch is
 * reused by the value's own strings). */
static gboolean
msperf_json_fast_member (msperf_json_cursor *c, JsonNode *node)
{
  const char *key;
  gsize len;
  JsonNode *member;

  if (!msperf_json_key (c, &key, &len) || (member = msperf_json_fast_value (c)) == NULL)
    return FALSE;
  return msperf_json_fast_add_member (c, node, key, len, member);
}

/* The container at c->p ('{' or '['), its items read by item; NULL (all of it freed) on any
 * failure. The node exists before its items, which point to it as their parent. */
static JsonNode *
msperf_json_fast_container (msperf_json_cursor *c, JsonNode *node, char close,
                            gboolean (*item) (msperf_json_cursor *, JsonNode *))
{
  gboolean more;

  if (!msperf_json_open (c, close, &more))
    {
      json_node_unref (node);
      return NULL;
    }
  while (more)
    if (!item (c, node) || !msperf_json_next (c, close, &more))
      {
        json_node_unref (node);
        return NULL;
      }
  c->depth--;
  return node;
}

/* One element of an array; c->p is at it. */
static gboolean
msperf_json_fast_element (msperf_json_cursor *c, JsonNode *node)
{
  JsonNode *element = msperf_json_fast_value (c);

  if (element == NULL)
    return FALSE;
  json_node_set_parent (element, node);
  json_array_add_element (json_node_get_array (node), element);
  return TRUE;
}

static JsonNode *
msperf_json_fast_object (msperf_json_cursor *c)
{
  JsonNode *node = json_node_alloc ();

  json_node_take_object (json_node_init_object (node, NULL), json_object_new ());
  return msperf_json_fast_container (c, node, '}', msperf_json_fast_member);
}

static JsonNode *
msperf_json_fast_array (msperf_json_cursor *c)
{
  JsonNode *node = json_node_alloc ();

  json_node_take_array (json_node_init_array (node, NULL), json_array_new ());
  return msperf_json_fast_container (c, node, ']', msperf_json_fast_element);
}

/* The value at c->p (not whitespace), or NULL. */
static JsonNode *
msperf_json_fast_value (msperf_json_cursor *c)
{
  if (c->p >= c->end)
    return NULL;
  switch (*c->p)
    {
    case '{':
      return msperf_json_fast_object (c);
    case '[':
      return msperf_json_fast_array (c);
    case '"':
      return msperf_json_fast_string_node (c);
    case 't': case 'f': case 'n':
      return msperf_json_fast_literal (c);
    default:
      if (*c->p == '-' || g_ascii_isdigit (*c->p))
        return msperf_json_fast_int (c);
      return NULL;
    }
}

JsonNode *
msperf_json_fast_parse (const char *text, gsize len)
{
  msperf_json_cursor c;
  JsonNode *root;

  g_return_val_if_fail (text != NULL || len == 0, NULL);

  if (len == 0)
    return NULL;
  msperf_json_cursor_init (&c, text, len);
  msperf_json_skip_ws (&c);
  if (c.p >= c.end || *c.p != '{' || (root = msperf_json_fast_object (&c)) == NULL)
    return NULL;
  msperf_json_skip_ws (&c);
  if (c.p != c.end)
    {
      json_node_unref (root);
      return NULL;
    }
  /* json_parser_new_immutable's trees are sealed (the readers do not care, but a copy of the
   * tree should not differ in anything observable). */
  json_node_seal (root);
  return root;
}
