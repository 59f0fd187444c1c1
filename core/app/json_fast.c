/* msperf — a strict recursive-descent reader of trace lines into json-glib trees
 * (app/json_fast.h).
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
#include "app/json_fast.h"

/* As json_text_ok (trace.c): a deeper line is refused before it gets here; the limit also bounds
 * this reader's recursion. */
#define MSPERF_JSON_FAST_MAX_DEPTH 64

/* At most 18 digits: every such integer fits int64 without an overflow check, and json-glib
 * reads it exactly (it accumulates in 64 bits). */
#define MSPERF_JSON_FAST_MAX_DIGITS 18

typedef struct {
  const char *p;    /* next byte */
  const char *end;  /* one past the last byte */
  guint depth;      /* open containers */
  char scratch[256]; /* a key or string made a C string; json-glib copies what it keeps */
} msperf_json_cursor;

static JsonNode *msperf_json_fast_value (msperf_json_cursor *c);

/* JSON's whitespace, which is also json-glib's (its scanner skips " \t\r\n"). */
static void
msperf_json_fast_skip_ws (msperf_json_cursor *c)
{
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    c->p++;
}

/* TRUE when the byte after a number or a literal ends it. End of text never does: a value is
 * always inside the top-level object. */
static gboolean
msperf_json_fast_delimited (const msperf_json_cursor *c)
{
  if (c->p >= c->end)
    return FALSE;
  switch (*c->p)
    {
    case ' ': case '\t': case '\n': case '\r': case ',': case ']': case '}':
      return TRUE;
    default:
      return FALSE;
    }
}

/* The string at c->p (its opening quote): *start and *len are its bytes, c->p moves past the
 * closing quote. FALSE for a backslash (escapes are json-glib's), a control byte or a byte
 * >= 0x80 (UTF-8 validation is json-glib's), or a missing closing quote. */
static gboolean
msperf_json_fast_string (msperf_json_cursor *c, const char **start, gsize *len)
{
  const char *s = ++c->p;

  for (; c->p < c->end; c->p++)
    {
      guchar b = (guchar) *c->p;

      if (b == '"')
        {
          *start = s;
          *len = (gsize) (c->p - s);
          c->p++;
          return TRUE;
        }
      if (b < 0x20 || b >= 0x80 || b == '\\')
        return FALSE;
    }
  return FALSE;
}

/* s[0..len) as a C string: in the cursor's scratch when it fits, else in *heap (the caller
 * frees it). The scratch is reused: the result lives until the next call. */
static const char *
msperf_json_fast_cstr (msperf_json_cursor *c, const char *s, gsize len, char **heap)
{
  char *d = len < sizeof c->scratch ? c->scratch : (*heap = g_malloc (len + 1));

  memcpy (d, s, len);
  d[len] = '\0';
  return d;
}

static JsonNode *
msperf_json_fast_string_node (msperf_json_cursor *c)
{
  g_autofree char *heap = NULL;
  const char *s;
  gsize len;

  if (!msperf_json_fast_string (c, &s, &len))
    return NULL;
  return json_node_init_string (json_node_alloc (), msperf_json_fast_cstr (c, s, len, &heap));
}

/* -?(0|[1-9][0-9]{0,17}) followed by a delimiter, as G_TYPE_INT64 like json-glib's integers.
 * A fraction or an exponent fails the delimiter test: floats are json-glib's. */
static JsonNode *
msperf_json_fast_int (msperf_json_cursor *c)
{
  gboolean negative = FALSE;
  gint64 v = 0;
  guint digits = 0;

  if (*c->p == '-')
    {
      negative = TRUE;
      c->p++;
    }
  if (c->p >= c->end || !g_ascii_isdigit (*c->p))
    return NULL;
  if (*c->p == '0')
    c->p++;  /* a leading zero is the whole number: "01" fails the delimiter test */
  else
    for (; c->p < c->end && g_ascii_isdigit (*c->p); c->p++)
      {
        if (++digits > MSPERF_JSON_FAST_MAX_DIGITS)
          return NULL;
        v = v * 10 + (*c->p - '0');
      }
  if (!msperf_json_fast_delimited (c))
    return NULL;
  return json_node_init_int (json_node_alloc (), negative ? -v : v);
}

/* TRUE (and c->p past it) when word is at c->p followed by a delimiter. */
static gboolean
msperf_json_fast_word (msperf_json_cursor *c, const char *word)
{
  gsize n = strlen (word);

  if ((gsize) (c->end - c->p) < n || memcmp (c->p, word, n) != 0)
    return FALSE;
  c->p += n;
  return msperf_json_fast_delimited (c);
}

static JsonNode *
msperf_json_fast_literal (msperf_json_cursor *c)
{
  if (msperf_json_fast_word (c, "true"))
    return json_node_init_boolean (json_node_alloc (), TRUE);
  if (msperf_json_fast_word (c, "false"))
    return json_node_init_boolean (json_node_alloc (), FALSE);
  if (msperf_json_fast_word (c, "null"))
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
  const char *name = msperf_json_fast_cstr (c, key, len, &heap);

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
 * reused by the value's own strings). An empty key is json-glib's to judge. */
static gboolean
msperf_json_fast_member (msperf_json_cursor *c, JsonNode *node)
{
  const char *key;
  gsize len;
  JsonNode *member;

  if (c->p >= c->end || *c->p != '"' || !msperf_json_fast_string (c, &key, &len) || len == 0)
    return FALSE;
  msperf_json_fast_skip_ws (c);
  if (c->p >= c->end || *c->p != ':')
    return FALSE;
  c->p++;
  msperf_json_fast_skip_ws (c);
  if ((member = msperf_json_fast_value (c)) == NULL)
    return FALSE;
  return msperf_json_fast_add_member (c, node, key, len, member);
}

/* After an item of a container: TRUE with *more set at a ',' (moved past it and the space
 * after), TRUE with *more unset at the closing byte (moved past it), FALSE for anything else. */
static gboolean
msperf_json_fast_next (msperf_json_cursor *c, char close, gboolean *more)
{
  msperf_json_fast_skip_ws (c);
  if (c->p < c->end && *c->p == ',')
    {
      c->p++;
      msperf_json_fast_skip_ws (c);
      *more = TRUE;
      return TRUE;
    }
  if (c->p < c->end && *c->p == close)
    {
      c->p++;
      *more = FALSE;
      return TRUE;
    }
  return FALSE;
}

/* The container at c->p ('{' or '['), its items read by item; NULL (all of it freed) on any
 * failure. The node exists before its items, which point to it as their parent. */
static JsonNode *
msperf_json_fast_container (msperf_json_cursor *c, JsonNode *node, char close,
                            gboolean (*item) (msperf_json_cursor *, JsonNode *))
{
  gboolean more = TRUE;

  if (++c->depth > MSPERF_JSON_FAST_MAX_DEPTH)
    {
      json_node_unref (node);
      return NULL;
    }
  c->p++;
  msperf_json_fast_skip_ws (c);
  if (c->p < c->end && *c->p == close)
    {
      c->p++;
      more = FALSE;
    }
  while (more)
    if (!item (c, node) || !msperf_json_fast_next (c, close, &more))
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
  msperf_json_cursor c;  /* the scratch is left uninitialized: written before it is read */
  JsonNode *root;

  g_return_val_if_fail (text != NULL || len == 0, NULL);

  if (len == 0)
    return NULL;
  c.p = text;
  c.end = text + len;
  c.depth = 0;
  msperf_json_fast_skip_ws (&c);
  if (c.p >= c.end || *c.p != '{' || (root = msperf_json_fast_object (&c)) == NULL)
    return NULL;
  msperf_json_fast_skip_ws (&c);
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
