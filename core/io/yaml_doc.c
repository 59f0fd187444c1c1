/* msperf — YAML documents (libyaml document API) to msperf_value trees. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include <msperf/error.h>
#include "io/yaml_doc.h"
#include "base/readfile.h"

#define MERGE_KEY "<<"

void
msperf_yaml_set_error (GError **error, int code, const char *file, guint line,
                       const char *format, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, format);
  msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  if (line > 0)
    g_set_error (error, MSPERF_ERROR_DOMAIN, code, "%s:%u: %s", file, line, msg);
  else
    g_set_error (error, MSPERF_ERROR_DOMAIN, code, "%s: %s", file, msg);
}

char *
msperf_yaml_format_message (const char *file, guint line, const char *format, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, format);
  msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  if (line > 0)
    return g_strdup_printf ("%s:%u: %s", file, line, msg);
  return g_strdup_printf ("%s: %s", file, msg);
}

/* ------------------------------------------------------------------ scalars */

static gboolean
is_plain_int (const char *s)
{
  const char *p = s;

  if (*p == '+' || *p == '-')
    p++;
  if (*p == '\0')
    return FALSE;
  for (; *p; p++)
    if (!g_ascii_isdigit (*p))
      return FALSE;
  return TRUE;
}

/* A number g_ascii_strtod reads in full, restricted to decimal notation: strtod alone
 * would also take "nan", "infinity" and hex floats, which YAML writes differently. */
static gboolean
parse_plain_float (const char *s, double *out)
{
  char *end = NULL;
  gboolean digit = FALSE;

  if (*s != '+' && *s != '-' && *s != '.' && !g_ascii_isdigit (*s))
    return FALSE;
  for (const char *p = s; *p; p++)
    {
      if (g_ascii_isdigit (*p))
        digit = TRUE;
      else if (!strchr ("+-.eE", *p))
        return FALSE;
    }
  if (!digit)
    return FALSE;
  errno = 0;
  *out = g_ascii_strtod (s, &end);
  return end != s && *end == '\0';
}

static gboolean
parse_special_float (const char *s, double *out)
{
  const char *p = s;
  double sign = 1.0;

  if (*p == '+' || *p == '-')
    {
      sign = *p == '-' ? -1.0 : 1.0;
      p++;
    }
  if (strcmp (p, ".inf") == 0 || strcmp (p, ".Inf") == 0 || strcmp (p, ".INF") == 0)
    {
      *out = sign * INFINITY;
      return TRUE;
    }
  if (p == s && (strcmp (p, ".nan") == 0 || strcmp (p, ".NaN") == 0 || strcmp (p, ".NAN") == 0))
    {
      *out = NAN;
      return TRUE;
    }
  return FALSE;
}

msperf_value *
msperf_yaml_resolve_plain (const char *text)
{
  msperf_value *v;
  double d;

  if (*text == '\0' || strcmp (text, "~") == 0 || strcmp (text, "null") == 0
      || strcmp (text, "Null") == 0 || strcmp (text, "NULL") == 0)
    return msperf_value_new (MSPERF_VALUE_NONE);
  if (strcmp (text, "true") == 0 || strcmp (text, "True") == 0 || strcmp (text, "TRUE") == 0
      || strcmp (text, "false") == 0 || strcmp (text, "False") == 0
      || strcmp (text, "FALSE") == 0)
    {
      v = msperf_value_new (MSPERF_VALUE_BOOL);
      v->b = g_ascii_tolower (text[0]) == 't';
      return v;
    }
  if (is_plain_int (text))
    {
      char *end = NULL;
      gint64 i;

      errno = 0;
      i = g_ascii_strtoll (text, &end, 10);
      if (errno == 0 && end != NULL && *end == '\0')
        {
          v = msperf_value_new (MSPERF_VALUE_INT);
          v->i = i;
          return v;
        }
      /* Does not fit int64: falls through to a float, as the brief's scalar rules say. */
    }
  if (parse_special_float (text, &d) || parse_plain_float (text, &d))
    {
      v = msperf_value_new (MSPERF_VALUE_FLOAT);
      v->f = d;
      return v;
    }
  v = msperf_value_new (MSPERF_VALUE_STRING);
  v->s = g_strdup (text);
  return v;
}

/* ------------------------------------------------------------------ loader */

typedef struct {
  yaml_document_t *doc;
  const char *name;
  int n_nodes;
  gint64 *sizes;   /* memoised expanded size per node; -1 = being computed (cycle guard) */
  const char *data; /* the text parsed, to tell "!!str true" from a plain "true" */
  size_t len;
} loader;

static guint node_line (const yaml_node_t *node);

/* libyaml gives an explicit !!str and no tag the same tag: the source tells them apart (a
 * node's start mark is at its properties, "&anchor" and the tag). */
static gboolean
explicit_tag (const loader *ld, const yaml_node_t *node)
{
  size_t k = node->start_mark.index;

  if (k < ld->len && ld->data[k] == '&')
    while (k < ld->len && ld->data[k] != ' ' && ld->data[k] != '\t' && ld->data[k] != '\n')
      k++;
  while (k < ld->len && (ld->data[k] == ' ' || ld->data[k] == '\t'))
    k++;
  return k < ld->len && ld->data[k] == '!';
}

/* Tags msperf does not resolve are refused, not ignored: "!!int x" must not become a string
 * or "!!bool yes" a word without a word. !!str, !!seq and !!map are what msperf reads anyway. */
static gboolean
check_tag (const loader *ld, const yaml_node_t *node, GError **error)
{
  const char *tag = (const char *) node->tag;
  const char *want = node->type == YAML_SCALAR_NODE ? YAML_STR_TAG
                     : node->type == YAML_SEQUENCE_NODE ? YAML_SEQ_TAG : YAML_MAP_TAG;

  if (tag == NULL || node->type == YAML_NO_NODE || strcmp (tag, want) == 0)
    return TRUE;
  msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, ld->name, node_line (node),
                         "unsupported YAML tag '%.64s' (only !!str is honoured)", tag);
  return FALSE;
}

static guint
node_line (const yaml_node_t *node)
{
  return (guint) node->start_mark.line + 1;
}

/* Expanded size of the subtree, with aliases counted every time they are used, saturating
 * just above the budget so an alias bomb is refused before anything is allocated. */
static gboolean
expanded_size (loader *ld, int index, int depth, gint64 *out, GError **error)
{
  yaml_node_t *node = yaml_document_get_node (ld->doc, index);
  gint64 total = 1;

  if (node == NULL)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, ld->name, 0, "dangling node reference");
      return FALSE;
    }
  if (depth > MSPERF_YAML_MAX_DEPTH)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, ld->name, node_line (node),
                             "nesting deeper than %d levels", MSPERF_YAML_MAX_DEPTH);
      return FALSE;
    }
  if (ld->sizes[index - 1] > 0)
    {
      *out = ld->sizes[index - 1];
      return TRUE;
    }
  if (ld->sizes[index - 1] < 0)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, ld->name, node_line (node),
                             "an alias refers to a node that contains it");
      return FALSE;
    }
  ld->sizes[index - 1] = -1;
  if (node->type == YAML_SEQUENCE_NODE)
    {
      for (yaml_node_item_t *it = node->data.sequence.items.start;
           it < node->data.sequence.items.top; it++)
        {
          gint64 sub;
          if (!expanded_size (ld, *it, depth + 1, &sub, error))
            return FALSE;
          total = MIN (total + sub, (gint64) MSPERF_YAML_MAX_NODES + 1);
        }
    }
  else if (node->type == YAML_MAPPING_NODE)
    {
      for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
           pair < node->data.mapping.pairs.top; pair++)
        {
          gint64 sub;
          if (!expanded_size (ld, pair->value, depth + 1, &sub, error))
            return FALSE;
          total = MIN (total + sub, (gint64) MSPERF_YAML_MAX_NODES + 1);
        }
    }
  ld->sizes[index - 1] = total;
  *out = total;
  return TRUE;
}

static msperf_value *convert (loader *ld, int index, int depth, GError **error);

static msperf_value *
convert_mapping (loader *ld, yaml_node_t *node, int depth, GError **error)
{
  g_autoptr (msperf_value) map = msperf_value_new (MSPERF_VALUE_MAP);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
       pair < node->data.mapping.pairs.top; pair++)
    {
      yaml_node_t *key = yaml_document_get_node (ld->doc, pair->key);
      const char *text;
      msperf_value *item;

      if (key == NULL || key->type != YAML_SCALAR_NODE)
        {
          msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, ld->name,
                                 key ? node_line (key) : node_line (node),
                                 "mapping keys must be scalars");
          return NULL;
        }
      text = (const char *) key->data.scalar.value;
      if (key->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && strcmp (text, MERGE_KEY) == 0)
        {
          msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, ld->name, node_line (key),
                                 "merge keys are not supported");
          return NULL;
        }
      if (strlen (text) != key->data.scalar.length)
        {
          msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, ld->name, node_line (key),
                                 "NUL character in a key");
          return NULL;
        }
      if (g_hash_table_contains (seen, text))
        {
          msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, ld->name, node_line (key),
                                 "duplicate key '%.80s'", text);
          return NULL;
        }
      g_hash_table_add (seen, (gpointer) text);
      item = convert (ld, pair->value, depth + 1, error);
      if (item == NULL)
        return NULL;
      g_ptr_array_add (map->keys, g_strdup (text));
      g_ptr_array_add (map->items, item);
    }
  return g_steal_pointer (&map);
}

static msperf_value *
convert (loader *ld, int index, int depth, GError **error)
{
  yaml_node_t *node = yaml_document_get_node (ld->doc, index);
  msperf_value *v = NULL;

  if (node == NULL)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, ld->name, 0, "dangling node reference");
      return NULL;
    }
  /* Aliases can place a shallow subtree deep inside another: check the expanded depth. */
  if (depth > MSPERF_YAML_MAX_DEPTH)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, ld->name, node_line (node),
                             "nesting deeper than %d levels", MSPERF_YAML_MAX_DEPTH);
      return NULL;
    }
  if (!check_tag (ld, node, error))
    return NULL;
  switch (node->type)
    {
    case YAML_SCALAR_NODE:
      {
        const char *text = (const char *) node->data.scalar.value;
        if (strlen (text) != node->data.scalar.length)
          {
            msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, ld->name, node_line (node),
                                   "NUL character in a scalar");
            return NULL;
          }
        if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !explicit_tag (ld, node))
          v = msperf_yaml_resolve_plain (text);
        else
          {
            v = msperf_value_new (MSPERF_VALUE_STRING);
            v->s = g_strdup (text);
          }
        break;
      }
    case YAML_SEQUENCE_NODE:
      v = msperf_value_new (MSPERF_VALUE_LIST);
      for (yaml_node_item_t *it = node->data.sequence.items.start;
           it < node->data.sequence.items.top; it++)
        {
          msperf_value *item = convert (ld, *it, depth + 1, error);
          if (item == NULL)
            {
              msperf_value_free (v);
              return NULL;
            }
          g_ptr_array_add (v->items, item);
        }
      break;
    case YAML_MAPPING_NODE:
      v = convert_mapping (ld, node, depth, error);
      if (v == NULL)
        return NULL;
      break;
    case YAML_NO_NODE:
    default:
      v = msperf_value_new (MSPERF_VALUE_NONE);
      break;
    }
  v->line = node_line (node);
  return v;
}

static guint
line_of_offset (const char *data, size_t len, size_t offset)
{
  guint line = 1;

  for (size_t i = 0; i < offset && i < len; i++)
    if (data[i] == '\n')
      line++;
  return line;
}

static void
set_parser_error (GError **error, const yaml_parser_t *parser, const char *name,
                  const char *data, size_t len)
{
  guint line;

  if (parser->error == YAML_READER_ERROR)
    line = line_of_offset (data, len, parser->problem_offset);
  else
    line = (guint) parser->problem_mark.line + 1;
  if (parser->context != NULL)
    msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, name, line, "%s (%s)",
                           parser->problem ? parser->problem : "syntax error", parser->context);
  else
    msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, name, line, "%s",
                           parser->problem ? parser->problem : "syntax error");
}

msperf_value *
msperf_yaml_load_data (const char *data, size_t len, const char *name, GError **error)
{
  yaml_parser_t parser;
  yaml_document_t doc, extra;
  yaml_node_t *root, *extra_root;
  msperf_value *result = NULL;
  const char *bad = NULL;
  loader ld = { 0 };

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  /* An editor's UTF-8 byte-order mark: libyaml keeps it as part of the first key, so the
   * file's first key goes unrecognised. It sits on line 1: line numbers do not move. */
  if (len >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    {
      data += 3;
      len -= 3;
    }

  /* libyaml would also accept UTF-16 (by BOM); msperf files are UTF-8 only. NULs are
   * rejected by g_utf8_validate_len as well. */
  if ((len >= 2 && (((guchar) data[0] == 0xFF && (guchar) data[1] == 0xFE)
                    || ((guchar) data[0] == 0xFE && (guchar) data[1] == 0xFF)))
      || !g_utf8_validate_len (data, len, &bad))
    {
      guint line = bad ? line_of_offset (data, len, (size_t) (bad - data)) : 1;
      msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, name, line, "the file is not UTF-8 text");
      return NULL;
    }

  if (!yaml_parser_initialize (&parser))
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_FAILED, name, 0, "cannot initialise the YAML parser");
      return NULL;
    }
  yaml_parser_set_input_string (&parser, (const unsigned char *) data, len);
  yaml_parser_set_encoding (&parser, YAML_UTF8_ENCODING);
  if (!yaml_parser_load (&parser, &doc))
    {
      set_parser_error (error, &parser, name, data, len);
      yaml_parser_delete (&parser);
      return NULL;
    }
  root = yaml_document_get_root_node (&doc);
  if (root != NULL)
    {
      /* A second document (even an empty "---") is an error: policies are one mapping. */
      if (!yaml_parser_load (&parser, &extra))
        {
          set_parser_error (error, &parser, name, data, len);
          goto out;
        }
      extra_root = yaml_document_get_root_node (&extra);
      if (extra_root != NULL)
        {
          msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, name, node_line (extra_root),
                                 "more than one YAML document");
          yaml_document_delete (&extra);
          goto out;
        }
      yaml_document_delete (&extra);
    }
  else
    {
      result = msperf_value_new (MSPERF_VALUE_NONE);
      result->line = 1;
      goto out;
    }

  ld.doc = &doc;
  ld.name = name;
  ld.data = data;
  ld.len = len;
  ld.n_nodes = (int) (doc.nodes.top - doc.nodes.start);
  ld.sizes = g_new0 (gint64, ld.n_nodes);
  {
    gint64 total = 0;
    if (!expanded_size (&ld, 1, 0, &total, error))
      goto out;
    if (total > MSPERF_YAML_MAX_NODES)
      {
        msperf_yaml_set_error (error, MSPERF_ERROR_PARSE, name, node_line (root),
                               "alias expansion exceeds %d nodes", MSPERF_YAML_MAX_NODES);
        goto out;
      }
  }
  result = convert (&ld, 1, 0, error);

out:
  g_free (ld.sizes);
  yaml_document_delete (&doc);
  yaml_parser_delete (&parser);
  return result;
}

msperf_value *
msperf_yaml_load_file (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  GError *local = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  if (!msperf_file_get_regular_contents (path, &data, &len, &local))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN,
                   g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT)
                     ? MSPERF_ERROR_NOT_FOUND : MSPERF_ERROR_IO,
                   "%s: cannot read: %s", path, local->message);
      g_error_free (local);
      return NULL;
    }
  return msperf_yaml_load_data (data, len, path, error);
}

/* ------------------------------------------------------------------ strict helpers */

char *
msperf_yaml_describe (const msperf_value *v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (v == NULL)
    return g_strdup ("nothing");
  switch (v->kind)
    {
    case MSPERF_VALUE_NONE:
      return g_strdup ("null");
    case MSPERF_VALUE_BOOL:
      return g_strdup (v->b ? "'true'" : "'false'");
    case MSPERF_VALUE_INT:
      return g_strdup_printf ("'%" G_GINT64_FORMAT "'", (gint64) v->i);
    case MSPERF_VALUE_FLOAT:
      return g_strdup_printf ("'%s'", g_ascii_dtostr (buf, sizeof buf, v->f));
    case MSPERF_VALUE_STRING:
      return g_strdup_printf ("'%.80s'", v->s);
    case MSPERF_VALUE_LIST:
      return g_strdup ("a list");
    case MSPERF_VALUE_MAP:
      return g_strdup ("a mapping");
    case MSPERF_VALUE_TENSOR:
    default:
      return g_strdup ("a tensor");
    }
}

static gboolean
type_error (const msperf_value *v, const char *file, const char *key, const char *expected,
            GError **error)
{
  g_autofree char *got = msperf_yaml_describe (v);
  msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v ? v->line : 0,
                         "key '%s': expected %s, got %s", key, expected, got);
  return FALSE;
}

gboolean
msperf_yaml_value_int (const msperf_value *v, const char *file, const char *key,
                       int64_t *out, GError **error)
{
  if (v == NULL || v->kind != MSPERF_VALUE_INT)
    return type_error (v, file, key, "an integer", error);
  *out = v->i;
  return TRUE;
}

gboolean
msperf_yaml_value_double (const msperf_value *v, const char *file, const char *key,
                          double *out, GError **error)
{
  if (!msperf_value_get_double (v, out))
    return type_error (v, file, key, "a number", error);
  return TRUE;
}

gboolean
msperf_yaml_value_bool (const msperf_value *v, const char *file, const char *key,
                        gboolean *out, GError **error)
{
  if (v == NULL || v->kind != MSPERF_VALUE_BOOL)
    return type_error (v, file, key, "true or false", error);
  *out = v->b;
  return TRUE;
}

gboolean
msperf_yaml_check_length (const msperf_value *v, const char *file, const char *key,
                          GError **error)
{
  size_t n;

  if (v == NULL || v->kind != MSPERF_VALUE_STRING || (n = strlen (v->s)) <= MSPERF_YAML_MAX_STRING)
    return TRUE;
  msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line,
                         "key '%s': a string of %zu bytes is too long (at most %d)", key, n,
                         MSPERF_YAML_MAX_STRING);
  return FALSE;
}

gboolean
msperf_yaml_value_string (const msperf_value *v, const char *file, const char *key,
                          const char **out, GError **error)
{
  if (v == NULL || v->kind != MSPERF_VALUE_STRING)
    return type_error (v, file, key, "a string", error);
  if (!msperf_yaml_check_length (v, file, key, error))
    return FALSE;
  *out = v->s;
  return TRUE;
}

gboolean
msperf_yaml_get_int (const msperf_value *map, const char *key, const char *file,
                     int64_t *out, GError **error)
{
  const msperf_value *v = msperf_value_lookup (map, key);
  return v == NULL || msperf_yaml_value_int (v, file, key, out, error);
}

gboolean
msperf_yaml_get_double (const msperf_value *map, const char *key, const char *file,
                        double *out, GError **error)
{
  const msperf_value *v = msperf_value_lookup (map, key);
  return v == NULL || msperf_yaml_value_double (v, file, key, out, error);
}

gboolean
msperf_yaml_get_bool (const msperf_value *map, const char *key, const char *file,
                      gboolean *out, GError **error)
{
  const msperf_value *v = msperf_value_lookup (map, key);
  return v == NULL || msperf_yaml_value_bool (v, file, key, out, error);
}

gboolean
msperf_yaml_get_string (const msperf_value *map, const char *key, const char *file,
                        const char **out, GError **error)
{
  const msperf_value *v = msperf_value_lookup (map, key);
  return v == NULL || msperf_yaml_value_string (v, file, key, out, error);
}
