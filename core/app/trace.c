/* msperf — reading op traces: JSON Lines (streamed, one op per line) and the upstream
 * op-summary JSON (one whole document). FORMATS.md §2. */
#define _XOPEN_SOURCE 700  /* fileno, fstat, S_ISSOCK: POSIX, hidden by -std=c11 */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-glib/json-glib.h>
#include <msperf/error.h>
#include <msperf/shape.h>
#include "base/str_hash.h"
#include "base/file_kind.h"
#include "app/trace.h"
#include "app/json_fast.h"
#include "app/op_plain.h"
#include <msperf/format.h>

struct msperf_trace_reader {
  char *name;          /* the path as given, "<stdin>" for "-": used in messages */
  FILE *file;          /* file source, or NULL for a memory source */
  gboolean close_file; /* FALSE for stdin */
  gboolean stream;     /* a pipe or terminal: the next line may not exist yet */
  char *data;          /* memory source (owned copy) */
  gsize len;
  gsize pos;
  char *chunk;         /* file source: bytes read but not yet consumed (READ_CHUNK) */
  gsize chunk_len, chunk_pos;
  gboolean skip_lf;      /* the last line ended with a CR at the end of a chunk */
  gboolean read_failed;  /* a read error not reported yet */
  gboolean read_ended;   /* a read error or the end of the file ended the input */
  int read_errno;
  gboolean bom_checked;  /* the first physical line was read (a BOM there is dropped) */
  GQueue pending;      /* raw lines read ahead while detecting the format (char*) */
  GString *buf;
  guint line;          /* physical lines consumed so far */
  size_t index;        /* index of the next item */
  JsonParser *parser;  /* format detection */
  msperf_trace_parser *own; /* msperf_trace_reader_next's parser (made on first use) */
  GString *text;            /* msperf_trace_reader_next's raw line */
  GPtrArray *items;    /* op-summary: every item, built at open (msperf_trace_item*) */
  guint next_item;
  GHashTable *unknown_keys; /* key already warned about -> itself */
  GPtrArray *warnings;      /* "FILE:LINE: unknown key ..." once per key (char*) */
};

/* Parses JSON Lines texts into items; one per thread (json-glib parsers are not shared). */
struct msperf_trace_parser {
  char *name;              /* the trace's name in messages */
  JsonParser *parser;      /* reused for every line: one allocation per trace, not per line */
  GHashTable *cache;       /* recent line texts -> parsed op (LINE_CACHE_MAX) */
  guint window, hits;      /* lines and cache hits in the current window */
  guint rest;              /* lines left to parse without the cache */
};

/* read(2), not stdio: one system call per 64 KB instead of a locked getc per byte, and a
 * pipe's line is handed out as soon as it arrives. */
#define READ_CHUNK 65536

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

/* ------------------------------------------------------------------ error paths */

/* A path to the value being read ("args[1].shape[0]"), kept on the stack and formatted only
 * when an error needs it, so valid lines cost no string building. */
typedef struct jpath {
  const struct jpath *up;
  const char *key;  /* member name, or NULL for an index */
  guint idx;
} jpath;

static void
path_append (GString *s, const jpath *p)
{
  if (p == NULL)
    return;
  path_append (s, p->up);
  if (p->key)
    g_string_append_printf (s, "%s%s", s->len ? "." : "", p->key);
  else
    g_string_append_printf (s, "[%u]", p->idx);
}

G_GNUC_PRINTF (3, 4) static void
path_error (GError **error, const jpath *p, const char *fmt, ...)
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

static const char *
node_kind_name (JsonNode *node)
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

static gboolean
node_is_int (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64;
}

static gboolean
node_is_string (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

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

/* ------------------------------------------------------------------ tensors and values */

/* Sets the dims of t and checks them: integers >= 0, rank <= MSPERF_MAX_RANK, and an element
 * count that fits int64 (the consumers multiply dims without further checks). */
static gboolean
dims_set (msperf_tensor *t, const int64_t *dims, guint n, const jpath *p, GError **error)
{
  int64_t numel = 1;

  if (n > MSPERF_MAX_RANK)
    {
      path_error (error, p, "rank %u exceeds the maximum %d", n, MSPERF_MAX_RANK);
      return FALSE;
    }
  for (guint k = 0; k < n; k++)
    {
      if (dims[k] < 0)
        {
          path_error (error, p, "dimension %" G_GINT64_FORMAT " is negative", dims[k]);
          return FALSE;
        }
      if (!msperf_int64_checked_mul (numel, dims[k], &numel))
        {
          path_error (error, p, "element count overflows int64");
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
static gboolean
int_list (JsonNode *node, int64_t **out, guint *n, const jpath *p, GError **error)
{
  JsonArray *a;
  guint len;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      path_error (error, p, "must be a list of integers, got %s", node_kind_name (node));
      return FALSE;
    }
  a = json_node_get_array (node);
  len = json_array_get_length (a);
  *out = len ? g_new (int64_t, len) : NULL;
  *n = len;
  for (guint k = 0; k < len; k++)
    {
      JsonNode *e = json_array_get_element (a, k);
      if (!node_is_int (e))
        {
          jpath child = { p, NULL, k };
          path_error (error, &child, "must be an integer, got %s", node_kind_name (e));
          g_clear_pointer (out, g_free);
          *n = 0;
          return FALSE;
        }
      (*out)[k] = json_node_get_int (e);
    }
  return TRUE;
}

/* An object with "shape": {shape, dtype (required), format, stride, values}. */
static gboolean
tensor_from_object (JsonObject *obj, msperf_tensor *t, const jpath *p, GError **error)
{
  g_autofree int64_t *dims = NULL;
  g_autofree int64_t *stride = NULL;
  g_autofree int64_t *values = NULL;
  guint rank = 0, n_stride = 0, n_values = 0;
  JsonNode *dtype_node, *node;
  const char *dtype_name;

  jpath shape_p = { p, "shape", 0 };
  jpath stride_p = { p, "stride", 0 };
  jpath values_p = { p, "values", 0 };

  memset (t, 0, sizeof *t);
  if (!int_list (json_object_get_member (obj, "shape"), &dims, &rank, &shape_p, error))
    return FALSE;
  if (!dims_set (t, dims, rank, &shape_p, error))
    return FALSE;

  dtype_node = json_object_get_member (obj, "dtype");
  if (dtype_node == NULL)
    {
      path_error (error, p, "tensor has no 'dtype'");
      return FALSE;
    }
  if (!node_is_string (dtype_node))
    {
      path_error (error, p, "'dtype' must be a string, got %s", node_kind_name (dtype_node));
      return FALSE;
    }
  dtype_name = json_node_get_string (dtype_node);
  t->dtype = msperf_dtype_from_string (dtype_name);
  if (t->dtype == MSPERF_DTYPE_UNKNOWN)
    {
      path_error (error, p, "unknown dtype '%s'", dtype_name);
      return FALSE;
    }

  t->format = MSPERF_FORMAT_ND;
  if ((node = json_object_get_member (obj, "format")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!node_is_string (node))
        {
          path_error (error, p, "'format' must be a string, got %s", node_kind_name (node));
          return FALSE;
        }
      t->format = msperf_format_from_string (json_node_get_string (node));
    }

  /* The stride is not used by any lookup; it is checked so that a malformed one is caught. */
  if ((node = json_object_get_member (obj, "stride")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!int_list (node, &stride, &n_stride, &stride_p, error))
        return FALSE;
      if (n_stride != rank)
        {
          path_error (error, &stride_p, "has %u entries for a rank-%u shape", n_stride, rank);
          return FALSE;
        }
    }

  if ((node = json_object_get_member (obj, "values")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      int64_t numel = msperf_tensor_numel (t);
      if (!int_list (node, &values, &n_values, &values_p, error))
        return FALSE;
      if ((int64_t) n_values != numel)
        {
          path_error (error, &values_p, "has %u entries but the shape holds %" G_GINT64_FORMAT,
                      n_values, numel);
          return FALSE;
        }
      t->values = g_steal_pointer (&values);
      t->n_values = n_values;
    }
  return TRUE;
}

static msperf_value *value_from_node (JsonNode *node, gboolean tensors, const jpath *p,
                                      GError **error);

/* Every member of obj, in the order of the text, through the value rules. */
static msperf_value *
map_from_object (JsonObject *obj, gboolean tensors, const jpath *p, GError **error)
{
  g_autoptr (msperf_value) v = msperf_value_new (MSPERF_VALUE_MAP);
  GList *members = json_object_get_members (obj);  /* insertion order */
  gboolean ok = TRUE;

  for (GList *l = members; l && ok; l = l->next)
    {
      jpath child = { p, l->data, 0 };
      msperf_value *item = value_from_node (json_object_get_member (obj, l->data), tensors,
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
static msperf_value *
value_from_node (JsonNode *node, gboolean tensors, const jpath *p, GError **error)
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
            jpath child = { p, NULL, k };
            msperf_value *item = value_from_node (json_array_get_element (a, k), tensors,
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
            if (!tensor_from_object (obj, &v->tensor, p, error))
              return NULL;
            return g_steal_pointer (&v);
          }
        return map_from_object (obj, tensors, p, error);
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
      path_error (error, p, "unsupported JSON value");
      return NULL;
    }
  return g_steal_pointer (&v);
}

static gboolean
out_tensor (msperf_op *op, JsonNode *node, const jpath *p, GError **error)
{
  msperf_tensor *t;

  if (!JSON_NODE_HOLDS_OBJECT (node) || !json_object_has_member (json_node_get_object (node),
                                                                 "shape"))
    {
      path_error (error, p, "must be a tensor (an object with 'shape'), got %s",
                  node_kind_name (node));
      return FALSE;
    }
  t = g_new0 (msperf_tensor, 1);
  g_ptr_array_add (op->out, t);  /* op->out frees it, also on failure */
  return tensor_from_object (json_node_get_object (node), t, p, error);
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
      path_error (error, NULL, "a trace line must be a JSON object, got %s",
                  node_kind_name (root));
      return NULL;
    }
  obj = json_node_get_object (root);

  node = json_object_get_member (obj, "op");
  if (node == NULL)
    {
      path_error (error, NULL, "missing required key 'op'");
      return NULL;
    }
  if (!node_is_string (node))
    {
      path_error (error, NULL, "'op' must be a string, got %s", node_kind_name (node));
      return NULL;
    }
  *op_name = g_strdup (json_node_get_string (node));
  op = msperf_op_new (*op_name);
  if (op->name[0] == '\0')
    {
      path_error (error, NULL, "'op' is empty");
      return NULL;
    }

  if ((node = json_object_get_member (obj, "args")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      JsonArray *a;
      jpath args = { NULL, "args", 0 };

      if (!JSON_NODE_HOLDS_ARRAY (node))
        {
          path_error (error, NULL, "'args' must be a list, got %s", node_kind_name (node));
          return NULL;
        }
      a = json_node_get_array (node);
      for (guint k = 0; k < json_array_get_length (a); k++)
        {
          jpath child = { &args, NULL, k };
          msperf_value *v = value_from_node (json_array_get_element (a, k), TRUE, &child, error);
          if (v == NULL)
            return NULL;
          g_ptr_array_add (op->args, v);
        }
    }

  if ((node = json_object_get_member (obj, "kwargs")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      jpath kw = { NULL, "kwargs", 0 };
      msperf_value *v;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          path_error (error, NULL, "'kwargs' must be an object, got %s", node_kind_name (node));
          return NULL;
        }
      /* kwargs is a map even when it has a "shape" key: its members are the values. */
      v = map_from_object (json_node_get_object (node), TRUE, &kw, error);
      if (v == NULL)
        return NULL;
      msperf_value_free (op->kwargs);
      op->kwargs = v;
    }

  if ((node = json_object_get_member (obj, "out")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      jpath out = { NULL, "out", 0 };

      if (JSON_NODE_HOLDS_ARRAY (node))
        {
          JsonArray *a = json_node_get_array (node);
          for (guint k = 0; k < json_array_get_length (a); k++)
            {
              jpath child = { &out, NULL, k };
              if (!out_tensor (op, json_array_get_element (a, k), &child, error))
                return NULL;
            }
        }
      else if (!out_tensor (op, node, &out, error))
        return NULL;
    }

  if ((node = json_object_get_member (obj, "count")) != NULL)
    {
      if (!node_is_int (node))
        {
          path_error (error, NULL, "'count' must be an integer >= 1, got %s",
                      node_kind_name (node));
          return NULL;
        }
      op->count = json_node_get_int (node);
      if (op->count < 1)
        {
          path_error (error, NULL, "'count' must be an integer >= 1, got %" G_GINT64_FORMAT,
                      op->count);
          return NULL;
        }
    }

  if ((node = json_object_get_member (obj, "att")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      jpath att = { NULL, "att", 0 };

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          path_error (error, NULL, "'att' must be an object, got %s", node_kind_name (node));
          return NULL;
        }
      op->att = value_from_node (node, FALSE, &att, error);
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

/* json-glib parses recursively without a depth limit: a line of a million '[' overflows the
 * stack. Containers are counted (outside strings) before parsing; FALSE + error past max.
 * Control bytes are refused too (JSON has none outside whitespace): binary junk. */
#define MAX_JSON_DEPTH 64

/* The value of the \uXXXX escape at text[k] (the backslash), or -1 when it is not one. */
static long
unicode_escape_at (const char *text, gsize len, gsize k)
{
  char hex[5];

  if (k + 6 > len || text[k] != '\\' || text[k + 1] != 'u')
    return -1;
  memcpy (hex, text + k + 2, 4);
  hex[4] = '\0';
  for (int i = 0; i < 4; i++)
    if (!g_ascii_isxdigit (hex[i]))
      return -1;
  return (long) g_ascii_strtoll (hex, NULL, 16);
}

/* json-glib turns \u0000 into a NUL that ends the C string ("aten.mm.default\u0000junk"
 * would be answered as aten.mm.default) and a lone surrogate into bytes that are not UTF-8
 * (every output would carry them): such a line is refused. k is the backslash. */
static gboolean
unicode_escape_ok (const char *text, gsize len, gsize k, GError **error)
{
  long u = unicode_escape_at (text, len, k), low;

  if (u == 0)
    {
      path_error (error, NULL, "escaped NUL (\\u0000) in a string at byte %" G_GSIZE_FORMAT,
                  k + 1);
      return FALSE;
    }
  if (u >= 0xD800 && u <= 0xDBFF)
    {
      low = unicode_escape_at (text, len, k + 6);
      if (low >= 0xDC00 && low <= 0xDFFF)
        return TRUE;
    }
  /* the second half of a pair checked at its first */
  if (u >= 0xDC00 && u <= 0xDFFF && k >= 6)
    {
      long high = unicode_escape_at (text, len, k - 6);

      if (high >= 0xD800 && high <= 0xDBFF)
        return TRUE;
    }
  if (u >= 0xD800 && u <= 0xDFFF)
    {
      path_error (error, NULL, "lone UTF-16 surrogate (\\u%04lx) in a string at byte %"
                  G_GSIZE_FORMAT, (unsigned long) u, k + 1);
      return FALSE;
    }
  return TRUE;
}

static gboolean
json_text_ok (const char *text, gsize len, GError **error)
{
  guint depth = 0;
  gboolean in_string = FALSE, closed = FALSE, started = FALSE;

  for (gsize k = 0; k < len; k++)
    {
      guchar c = (guchar) text[k];

      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
        {
          path_error (error, NULL, "binary content (control byte 0x%02x at byte %" G_GSIZE_FORMAT
                      ")", c, k + 1);
          return FALSE;
        }
      /* An op line or summary is an object (or a list): a bare scalar first would let
       * json-glib read several values, and it leaks the extra nodes. */
      if (!started && !g_ascii_isspace (c))
        {
          started = TRUE;
          if (c >= 0x80)
            {
              /* a UTF-16 BOM, Latin-1 or any non-JSON first byte */
              path_error (error, NULL, "binary content (byte 0x%02x at byte %" G_GSIZE_FORMAT
                          ": not UTF-8 JSON)", c, k + 1);
              return FALSE;
            }
          if (c != '{' && c != '[')
            {
              path_error (error, NULL, "expected a JSON object, got '%c' at byte %"
                          G_GSIZE_FORMAT, c, k + 1);
              return FALSE;
            }
        }
      /* json-glib accepts several values in one text (and leaks the extra nodes): an op
       * line holds exactly one. */
      if (closed && !g_ascii_isspace (c))
        {
          path_error (error, NULL, "unexpected content after the JSON value at byte %"
                      G_GSIZE_FORMAT, k + 1);
          return FALSE;
        }
      if (in_string)
        {
          if (c == '\\' && k + 1 < len && text[k + 1] == 'u'
              && !unicode_escape_ok (text, len, k, error))
            return FALSE;
          if (c == '\\' && k + 1 < len)
            k++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++depth > MAX_JSON_DEPTH)
            {
              path_error (error, NULL, "JSON nesting deeper than %d levels", MAX_JSON_DEPTH);
              return FALSE;
            }
        }
      else if ((c == ']' || c == '}') && depth > 0)
        closed = --depth == 0;
    }
  return TRUE;
}

/* The root of a line's text (a new reference), or NULL + error. The fast reader takes the plain
 * lines (app/json_fast.h); whatever it declines goes to json-glib exactly as before, so every
 * message stays json-glib's. */
static JsonNode *
root_from_text (JsonParser *parser, const char *text, GError **error)
{
  g_autoptr (GError) json_error = NULL;
  gsize len = strlen (text);
  JsonNode *root;

  if (!json_text_ok (text, len, error))
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
      path_error (error, NULL, "empty JSON");
      return NULL;
    }
  return json_node_ref (json_parser_get_root (parser));
}

/* An op from a line's text: a plain line straight from its text (app/op_plain.h, *root left
 * NULL: such a line has no unknown key), any other through a tree. When root is not NULL and
 * the op is made from a tree, *root is the line's tree (a new reference): the parser's own root
 * is not it when the fast reader took the line. */
static msperf_op *
op_from_text (JsonParser *parser, const char *text, gboolean plain, char **op_name,
              JsonNode **root, GError **error)
{
  g_autoptr (JsonNode) node = NULL;
  msperf_op *op;

  /* Whatever json_text_ok refuses, the plain reader declines: it goes first. */
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

/* ------------------------------------------------------------------ the op-summary document */

/* "(16, 5120)", "(5120)", "(5120,)", "()" (Python tuple reprs as the summary writes them), or a
 * JSON list of integers. */
static gboolean
summary_tensor (JsonNode *node, msperf_tensor *t, const jpath *p, GError **error)
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
      if (!int_list (node, &list, &n, p, error))
        return FALSE;
      return dims_set (t, list, n, p, error);
    }
  if (!node_is_string (node))
    {
      path_error (error, p, "a shape must be a string such as \"(16, 5120)\", got %s",
                  node_kind_name (node));
      return FALSE;
    }
  s = json_node_get_string (node);
  len = strlen (s);
  if (len < 2 || s[0] != '(' || s[len - 1] != ')')
    {
      path_error (error, p, "shape \"%s\" is not a tuple such as \"(16, 5120)\"", s);
      return FALSE;
    }
  inner = g_strndup (s + 1, len - 2);
  g_strstrip (inner);
  if (*inner == '\0')
    return dims_set (t, dims, 0, p, error);
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
          path_error (error, p, "shape \"%s\": rank exceeds the maximum %d", s, MSPERF_MAX_RANK);
          return FALSE;
        }
      if (*part == '-')
        {
          path_error (error, p, "shape \"%s\": dimension %s is negative", s, part);
          return FALSE;
        }
      if (!g_ascii_string_to_signed (part, 10, 0, G_MAXINT64, &d, &num_error))
        {
          path_error (error, p, "shape \"%s\": dimension \"%s\" is not an integer in int64", s,
                      part);
          return FALSE;
        }
      dims[n++] = d;
    }
  return dims_set (t, dims, n, p, error);
}

/* Tensors of one side (input or output) of a variant. The summary drops dtypes it does not
 * know (DeepSeek-V3's fp32 router tensors have shapes but no dtype), so when the two lists
 * differ in length the dtypes cannot be paired with slots: every tensor of that side then gets
 * MSPERF_DTYPE_UNKNOWN, which matches no kernel row, rather than a guessed dtype. */
static GPtrArray *
summary_tensors (JsonObject *variant, const char *shapes_key, const char *dtypes_key,
                 const jpath *p, GError **error)
{
  g_autoptr (GPtrArray) tensors = g_ptr_array_new_with_free_func (g_free);
  JsonNode *shapes_node = json_object_get_member (variant, shapes_key);
  JsonNode *dtypes_node = json_object_get_member (variant, dtypes_key);
  JsonArray *shapes, *dtypes = NULL;
  guint n_shapes, n_dtypes = 0;
  jpath field = { p, shapes_key, 0 };

  if (shapes_node == NULL || JSON_NODE_HOLDS_NULL (shapes_node))
    return g_steal_pointer (&tensors);
  if (!JSON_NODE_HOLDS_ARRAY (shapes_node))
    {
      path_error (error, &field, "must be a list, got %s", node_kind_name (shapes_node));
      return NULL;
    }
  shapes = json_node_get_array (shapes_node);
  n_shapes = json_array_get_length (shapes);
  if (dtypes_node != NULL && !JSON_NODE_HOLDS_NULL (dtypes_node))
    {
      jpath dfield = { p, dtypes_key, 0 };
      if (!JSON_NODE_HOLDS_ARRAY (dtypes_node))
        {
          path_error (error, &dfield, "must be a list, got %s", node_kind_name (dtypes_node));
          return NULL;
        }
      dtypes = json_node_get_array (dtypes_node);
      n_dtypes = json_array_get_length (dtypes);
    }

  for (guint k = 0; k < n_shapes; k++)
    {
      jpath child = { &field, NULL, k };
      msperf_tensor *t = g_new0 (msperf_tensor, 1);

      g_ptr_array_add (tensors, t);
      if (!summary_tensor (json_array_get_element (shapes, k), t, &child, error))
        return NULL;
      t->dtype = MSPERF_DTYPE_UNKNOWN;
      if (n_dtypes == n_shapes)
        {
          JsonNode *d = json_array_get_element (dtypes, k);
          jpath dfield = { p, dtypes_key, 0 };
          jpath dchild = { &dfield, NULL, k };
          if (!node_is_string (d))
            {
              path_error (error, &dchild, "dtype must be a string, got %s", node_kind_name (d));
              return NULL;
            }
          t->dtype = msperf_dtype_from_string (json_node_get_string (d));
          if (t->dtype == MSPERF_DTYPE_UNKNOWN)
            {
              path_error (error, &dchild, "unknown dtype '%s'", json_node_get_string (d));
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

static void
summary_add_error (msperf_trace_reader *r, GError *err, const char *op_name, guint line)
{
  msperf_trace_item *item = g_new0 (msperf_trace_item, 1);

  /* json-glib gives no position for a non-object entry: its JSON path (in the message) says
   * where it is, a "line 0" would not. */
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
summary_op (msperf_trace_reader *r, JsonNode *node, guint k, const object_lines *ol)
{
  jpath ops = { NULL, "ops", 0 };
  jpath entry = { &ops, NULL, k };
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
      path_error (&err, &entry, "must be an object, got %s", node_kind_name (node));
      summary_add_error (r, err, NULL, 0);
      return;
    }
  obj = json_node_get_object (node);
  line = object_line (ol, obj);
  name_node = json_object_get_member (obj, "op_name");
  if (name_node == NULL || !node_is_string (name_node)
      || *json_node_get_string (name_node) == '\0')
    {
      path_error (&err, &entry, "'op_name' must be a non-empty string");
      summary_add_error (r, err, NULL, line);
      return;
    }
  op_name = json_node_get_string (name_node);
  zero_cost = summary_zero_cost (obj);
  if ((count_node = json_object_get_member (obj, "count")) != NULL)
    {
      if (!node_is_int (count_node) || json_node_get_int (count_node) < 1)
        {
          path_error (&err, &entry, "'count' must be an integer >= 1");
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
          path_error (&err, &entry, "'shape_variants' must be a list");
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
      jpath vfield = { &entry, "shape_variants", 0 };
      jpath vpath = { &vfield, NULL, j };
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
          path_error (&err, &vpath, "must be an object, got %s", node_kind_name (vnode));
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
load_summary (msperf_trace_reader *r, const char *text, gsize len, gboolean *parsed,
              GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  g_autoptr (GError) json_error = NULL;
  object_lines ol;
  JsonNode *root, *ops_node;
  JsonArray *ops;
  gboolean ok;

  ol.starts = g_array_new (FALSE, FALSE, sizeof (guint));
  ol.lines = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_signal_connect (parser, "object-start", G_CALLBACK (on_object_start), &ol);
  g_signal_connect (parser, "object-end", G_CALLBACK (on_object_end), &ol);
  {
    g_autoptr (GError) text_error = NULL;

    if (!json_text_ok (text, len, &text_error))
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
  r->items = g_ptr_array_new_with_free_func (item_free);
  for (guint k = 0; k < json_array_get_length (ops); k++)
    summary_op (r, json_array_get_element (ops, k), k, &ol);

out:
  g_array_unref (ol.starts);
  g_hash_table_unref (ol.lines);
  return ok;
}

/* ------------------------------------------------------------------ raw lines */

/* The first LF or CR in [p, p + n), or NULL. */
static const char *
line_end (const char *p, gsize n)
{
  for (gsize k = 0; k < n; k++)
    if (p[k] == '\n' || p[k] == '\r')
      return p + k;
  return NULL;
}

/* Refills r->chunk from the file. FALSE at the end of the file or on a read error (which
 * ends the input: retrying would report it for ever — a directory given as --ops once
 * printed "read error" until the disk was full). */
static gboolean
fill_chunk (msperf_trace_reader *r)
{
  gssize n;

  if (r->read_ended)
    return FALSE;
  if (r->chunk == NULL)
    r->chunk = g_malloc (READ_CHUNK);
  do
    n = read (fileno (r->file), r->chunk, READ_CHUNK);
  while (n < 0 && errno == EINTR);
  r->chunk_pos = 0;
  r->chunk_len = n > 0 ? (gsize) n : 0;
  if (n > 0)
    return TRUE;
  if (n < 0)
    {
      r->read_failed = TRUE;
      r->read_errno = errno;
    }
  r->read_ended = TRUE;
  return FALSE;
}

/* The file's next line into r->buf (appended, without its end of line). LF, CR LF and a lone
 * CR (old Mac files: else every line merges into one and one bad op takes the whole trace
 * with it) end a line. FALSE at the end of input, or on a read error (the partial line is
 * dropped). */
static gboolean
file_read_line (msperf_trace_reader *r)
{
  gboolean any = FALSE;

  for (;;)
    {
      const char *start, *end;

      if (r->chunk_pos >= r->chunk_len && !fill_chunk (r))
        return any && !r->read_failed;
      /* CR LF split between two reads: the LF belongs to the CR's line */
      if (r->skip_lf)
        {
          r->skip_lf = FALSE;
          if (r->chunk[r->chunk_pos] == '\n' && ++r->chunk_pos >= r->chunk_len)
            continue;
        }
      any = TRUE;
      start = r->chunk + r->chunk_pos;
      end = line_end (start, r->chunk_len - r->chunk_pos);
      if (end == NULL)
        {
          g_string_append_len (r->buf, start, (gssize) (r->chunk_len - r->chunk_pos));
          r->chunk_pos = r->chunk_len;
          continue;
        }
      g_string_append_len (r->buf, start, end - start);
      r->chunk_pos += (gsize) (end - start) + 1;
      if (*end == '\r')
        {
          if (r->chunk_pos < r->chunk_len)
            r->chunk_pos += r->chunk[r->chunk_pos] == '\n';
          else
            r->skip_lf = TRUE;
        }
      return TRUE;
    }
}

/* Next physical line of the source into r->buf, without its end of line. FALSE at the end. */
static gboolean
source_read_line (msperf_trace_reader *r)
{
  g_string_truncate (r->buf, 0);
  if (r->file == NULL)
    {
      const char *start, *nl;
      if (r->data == NULL || r->pos >= r->len)
        return FALSE;
      start = r->data + r->pos;
      nl = line_end (start, r->len - r->pos);
      if (nl)
        {
          g_string_append_len (r->buf, start, nl - start);
          r->pos += (gsize) (nl - start) + 1;
          /* CR LF is one line end */
          if (*nl == '\r' && r->pos < r->len && r->data[r->pos] == '\n')
            r->pos++;
        }
      else
        {
          g_string_append_len (r->buf, start, (gssize) (r->len - r->pos));
          r->pos = r->len;
        }
    }
  else if (!file_read_line (r))
    return FALSE;
  /* A UTF-8 byte-order mark is the stream's, not the first op's. */
  if (!r->bom_checked)
    {
      r->bom_checked = TRUE;
      if (g_str_has_prefix (r->buf->str, "\xef\xbb\xbf"))
        g_string_erase (r->buf, 0, 3);
    }
  /* A NUL would end the line early as a C string and hide binary junk (a line of it would
   * even look blank): make it a control byte that the JSON check rejects. */
  for (char *nul = memchr (r->buf->str, '\0', r->buf->len); nul != NULL;
       nul = memchr (nul, '\0', r->buf->len - (gsize) (nul - r->buf->str)))
    *nul = '\x1a';
  return TRUE;
}

/* Next physical line, read-ahead lines first. Transfer none (valid until the next call). */
static const char *
next_raw_line (msperf_trace_reader *r)
{
  char *ahead = g_queue_pop_head (&r->pending);

  if (ahead)
    {
      g_string_assign (r->buf, ahead);
      g_free (ahead);
    }
  else if (!source_read_line (r))
    return NULL;
  r->line++;
  return r->buf->str;
}

/* Blank and '#' lines carry no op. */
static const char *
significant (const char *line)
{
  while (*line == ' ' || *line == '\t')
    line++;
  return (*line == '\0' || *line == '#') ? NULL : line;
}

/* ------------------------------------------------------------------ format detection */

/* Reads ahead into r->pending until n significant lines (or the end) were seen; returns the
 * n-th, or NULL. Transfer none (owned by the queue). */
static const char *
read_ahead_significant (msperf_trace_reader *r, guint n)
{
  guint seen = 0;

  for (GList *l = r->pending.head; l; l = l->next)
    if (significant (l->data) && ++seen == n)
      return significant (l->data);
  while (source_read_line (r))
    {
      g_queue_push_tail (&r->pending, g_strdup (r->buf->str));
      if (significant (r->buf->str) && ++seen == n)
        return significant (r->pending.tail->data);
    }
  return NULL;
}

/* Reads the whole remaining input after the read-ahead lines into one buffer. */
static char *
slurp (msperf_trace_reader *r, gsize *len)
{
  GString *all = g_string_new (NULL);

  for (GList *l = r->pending.head; l; l = l->next)
    {
      g_string_append (all, l->data);
      g_string_append_c (all, '\n');
    }
  g_queue_clear_full (&r->pending, g_free);
  while (source_read_line (r))
    {
      g_string_append_len (all, r->buf->str, (gssize) r->buf->len);
      g_string_append_c (all, '\n');
    }
  *len = all->len;
  return g_string_free (all, FALSE);
}

/* Whether a first line opens a pretty-printed document ("{" alone, or '{ "ops": ...') rather
 * than holding an op. */
static gboolean
opens_document (const char *first)
{
  g_autofree char *t = g_strstrip (g_strdup (first));
  const char *p = t + 1;

  if (t[0] != '{')
    return FALSE;
  while (g_ascii_isspace (*p))
    p++;
  return *p == '\0' || g_str_has_prefix (p, "\"ops\"");
}

/* Decides between JSON Lines and the op-summary document (FORMATS §2). JSON Lines stays
 * streaming: only the first one or two significant lines are read ahead. */
static gboolean
detect (msperf_trace_reader *r, GError **error)
{
  const char *first = read_ahead_significant (r, 1);
  gboolean summary_like = FALSE, parsed = FALSE, second_is_op = FALSE, brace;
  g_autofree char *text = NULL;
  g_autofree char *first_copy = NULL;
  gsize len = 0;

  if (first == NULL)
    return TRUE;  /* empty or comments only: JSON Lines with no item */
  brace = first[0] == '{';
  if (json_text_ok (first, strlen (first), NULL)
      && json_parser_load_from_data (r->parser, first, -1, NULL))
    {
      JsonNode *root = json_parser_get_root (r->parser);
      /* An op-summary written on one line is a complete object too: it has "ops", no "op". */
      if (root && JSON_NODE_HOLDS_OBJECT (root))
        {
          JsonObject *obj = json_node_get_object (root);
          summary_like = !json_object_has_member (obj, "op")
                         && json_object_has_member (obj, "ops");
        }
      /* Any other complete JSON value on the first line (an op object, or an array that will
       * be rejected as a line) means JSON Lines. */
      if (!summary_like)
        return TRUE;
    }
  else
    {
      /* A first line that is an incomplete object is either a pretty-printed document or a
       * malformed first op; a second line that is a complete object settles it as JSON Lines
       * without reading the (possibly huge) rest. */
      const char *second = read_ahead_significant (r, 2);

      second_is_op = second != NULL && second[0] == '{'
                     && json_text_ok (second, strlen (second), NULL)
                     && json_parser_load_from_data (r->parser, second, -1, NULL);
      if (brace && second_is_op)
        return TRUE;
    }

  first_copy = g_strdup (first);
  text = slurp (r, &len);
  if (load_summary (r, text, len, &parsed, error))
    return TRUE;
  /* Not a JSON document, but its first line is a malformed op ("{\"op\": ...", "42", "[1,",
   * junk) followed by a good one: report it line by line (the malformed lines rejected alone,
   * the others answered) rather than failing whole. Anything else (a truncated document, one
   * with trailing junk) is one document error, not a rejection per line. */
  if (!parsed && (second_is_op || (brace && !summary_like && !opens_document (first_copy))))
    {
      g_clear_error (error);
      if (r->file && r->close_file)
        fclose (r->file);
      r->file = NULL;
      g_free (r->data);
      r->data = g_steal_pointer (&text);
      r->len = len;
      r->pos = 0;
      return TRUE;
    }
  return FALSE;
}

/* ------------------------------------------------------------------ public API */

static msperf_trace_reader *
reader_new (const char *name)
{
  msperf_trace_reader *r = g_new0 (msperf_trace_reader, 1);

  r->name = g_strdup (name);
  g_queue_init (&r->pending);
  r->buf = g_string_sized_new (256);
  r->parser = json_parser_new_immutable ();
  r->unknown_keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r->warnings = g_ptr_array_new_with_free_func (g_free);
  return r;
}

static gboolean
is_regular (FILE *f)
{
  struct stat st;

  return fstat (fileno (f), &st) == 0 && S_ISREG (st.st_mode);
}

/* Opens a trace file: a regular file or a FIFO (a pipe from another program); a directory,
 * socket or device is refused before a byte is read. */
static FILE *
open_input (const char *path, GError **error)
{
  struct stat st;
  FILE *f = fopen (path, "rb");

  if (f == NULL)
    {
      int saved = errno;
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot open: %s",
                   path, g_strerror (saved));
      return NULL;
    }
  if (fstat (fileno (f), &st) == 0 && !S_ISREG (st.st_mode) && !S_ISFIFO (st.st_mode))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO,
                   "%s: cannot read: not a regular file (%s)", path,
                   msperf_file_kind_name (st.st_mode));
      fclose (f);
      return NULL;
    }
  return f;
}

msperf_trace_reader *
msperf_trace_reader_open (const char *path, GError **error)
{
  msperf_trace_reader *r;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (strcmp (path, "-") == 0)
    {
      r = reader_new ("<stdin>");
      r->file = stdin;
      r->stream = !is_regular (stdin);
    }
  else
    {
      FILE *f = open_input (path, error);
      if (f == NULL)
        return NULL;
      r = reader_new (path);
      r->file = f;
      r->close_file = TRUE;
      r->stream = !is_regular (f);
    }
  if (!detect (r, error))
    {
      msperf_trace_reader_free (r);
      return NULL;
    }
  return r;
}

msperf_trace_reader *
msperf_trace_reader_open_data (const char *data, gssize len, const char *name, GError **error)
{
  msperf_trace_reader *r;

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  r = reader_new (name ? name : "<data>");
  r->len = len < 0 ? strlen (data) : (gsize) len;
  /* data need not be NUL-terminated: copy len bytes, then terminate the copy. */
  r->data = g_malloc (r->len + 1);
  if (r->len > 0)
    memcpy (r->data, data, r->len);
  r->data[r->len] = '\0';
  if (!detect (r, error))
    {
      msperf_trace_reader_free (r);
      return NULL;
    }
  return r;
}

static void
op_tensor_free (gpointer p)
{
  msperf_tensor_clear (p);
  g_free (p);
}

/* A deep copy: nothing is shared with src. */
static msperf_op *
op_copy (const msperf_op *src)
{
  msperf_op *op = g_new0 (msperf_op, 1);

  op->name = g_strdup (src->name);
  op->args = g_ptr_array_new_full (src->args->len, (GDestroyNotify) msperf_value_free);
  for (guint k = 0; k < src->args->len; k++)
    g_ptr_array_add (op->args, msperf_value_copy (g_ptr_array_index (src->args, k)));
  op->kwargs = msperf_value_copy (src->kwargs);
  op->out = g_ptr_array_new_full (src->out->len, op_tensor_free);
  for (guint k = 0; k < src->out->len; k++)
    {
      msperf_tensor *t = g_new0 (msperf_tensor, 1);

      msperf_tensor_copy (t, g_ptr_array_index (src->out, k));
      g_ptr_array_add (op->out, t);
    }
  op->att = msperf_value_copy (src->att);
  op->count = src->count;
  op->index = src->index;
  op->line = src->line;
  return op;
}

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
      item->op = op_copy (cached);
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
            g_hash_table_insert (p->cache, g_strdup (text), op_copy (item->op));
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

gboolean
msperf_trace_reader_next_raw (msperf_trace_reader *reader, msperf_trace_item *item,
                              GString *text)
{
  const char *line;

  g_return_val_if_fail (reader != NULL && item != NULL && text != NULL, FALSE);

  g_string_truncate (text, 0);
  if (reader->items)
    {
      msperf_trace_item *next;
      if (reader->next_item >= reader->items->len)
        return FALSE;
      next = g_ptr_array_index (reader->items, reader->next_item);
      *item = *next;
      memset (next, 0, sizeof *next);
      reader->next_item++;
      return TRUE;
    }

  while ((line = next_raw_line (reader)) != NULL)
    if ((line = significant (line)) != NULL)
      break;
  memset (item, 0, sizeof *item);
  if (line == NULL)
    {
      if (!reader->read_failed)
        return FALSE;
      /* Report a read error once, as a rejected item, so the caller's exit status shows it. */
      reader->read_failed = FALSE;
      item->error = g_strdup_printf ("%s:%u: read error: %s", reader->name, reader->line + 1,
                                     g_strerror (reader->read_errno));
      item->index = reader->index++;
      item->line = reader->line + 1;
      return TRUE;
    }
  item->index = reader->index++;
  item->line = reader->line;
  g_string_append_len (text, line, (gssize) (reader->buf->len - (gsize) (line - reader->buf->str)));
  return TRUE;
}

gboolean
msperf_trace_reader_next (msperf_trace_reader *reader, msperf_trace_item *item)
{
  g_autoptr (GPtrArray) keys = NULL;

  g_return_val_if_fail (reader != NULL && item != NULL, FALSE);

  if (reader->text == NULL)
    reader->text = g_string_sized_new (256);
  if (!msperf_trace_reader_next_raw (reader, item, reader->text))
    return FALSE;
  if (item->op || item->error)
    return TRUE;
  if (reader->own == NULL)
    reader->own = msperf_trace_parser_new (reader);
  keys = g_ptr_array_new_with_free_func (g_free);
  msperf_trace_parser_parse (reader->own, reader->text->str, item, keys);
  msperf_trace_reader_note_keys (reader, item->line, keys);
  return TRUE;
}

gboolean
msperf_trace_reader_is_stream (const msperf_trace_reader *reader)
{
  g_return_val_if_fail (reader != NULL, FALSE);
  return reader->stream;
}

void
msperf_trace_reader_free (msperf_trace_reader *reader)
{
  if (reader == NULL)
    return;
  if (reader->file && reader->close_file)
    fclose (reader->file);
  g_free (reader->data);
  g_queue_clear_full (&reader->pending, g_free);
  g_string_free (reader->buf, TRUE);
  g_clear_object (&reader->parser);
  msperf_trace_parser_free (reader->own);
  if (reader->text)
    g_string_free (reader->text, TRUE);
  g_free (reader->chunk);
  if (reader->items)
    g_ptr_array_unref (reader->items);
  g_hash_table_unref (reader->unknown_keys);
  g_ptr_array_unref (reader->warnings);
  g_free (reader->name);
  g_free (reader);
}

const GPtrArray *
msperf_trace_reader_warnings (const msperf_trace_reader *reader)
{
  g_return_val_if_fail (reader != NULL, NULL);
  return reader->warnings;
}

void
msperf_trace_item_clear (msperf_trace_item *item)
{
  if (item == NULL)
    return;
  g_clear_pointer (&item->op, msperf_op_free);
  g_clear_pointer (&item->error, g_free);
  g_clear_pointer (&item->op_name, g_free);
  item->index = 0;
  item->line = 0;
}
