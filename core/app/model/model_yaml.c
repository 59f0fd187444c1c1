/* msperf — the YAML tree of the model templates, built from libyaml events. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>
#include <msperf/error.h>
#include "app/model/model_yaml.h"

/* Templates are small; a depth limit keeps a hostile file from exhausting the stack. */
#define MAX_DEPTH 64

static msperf_ynode *
node_new (msperf_ynode_kind kind, guint line)
{
  msperf_ynode *n = g_new0 (msperf_ynode, 1);

  n->kind = kind;
  n->line = line;
  if (kind != MSPERF_YNODE_SCALAR)
    n->items = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_ynode_free);
  return n;
}

void
msperf_ynode_free (msperf_ynode *node)
{
  if (node == NULL)
    return;
  g_free (node->text);
  if (node->items)
    g_ptr_array_free (node->items, TRUE);
  g_free (node);
}

static gboolean
fail (GError **error, const char *path, guint line, const char *what)
{
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s:%u: %s", path, line, what);
  return FALSE;
}

/* Reads the node whose first event is ev (consumed by the caller). */
static msperf_ynode *parse_node (yaml_parser_t *p, yaml_event_t *ev, const char *path, int depth,
                                 GError **error);

static gboolean
parse_children (yaml_parser_t *p, msperf_ynode *parent, yaml_event_type_t end, const char *path,
                int depth, GError **error)
{
  for (;;)
    {
      yaml_event_t ev;
      msperf_ynode *child;

      if (!yaml_parser_parse (p, &ev))
        return fail (error, path, (guint) p->problem_mark.line + 1,
                     p->problem ? p->problem : "YAML syntax error");
      if (ev.type == end)
        {
          yaml_event_delete (&ev);
          return TRUE;
        }
      child = parse_node (p, &ev, path, depth + 1, error);
      yaml_event_delete (&ev);
      if (child == NULL)
        return FALSE;
      g_ptr_array_add (parent->items, child);
    }
}

static msperf_ynode *
parse_node (yaml_parser_t *p, yaml_event_t *ev, const char *path, int depth, GError **error)
{
  guint line = (guint) ev->start_mark.line + 1;
  msperf_ynode *n = NULL;

  if (depth > MAX_DEPTH)
    {
      fail (error, path, line, "nesting too deep");
      return NULL;
    }
  switch (ev->type)
    {
    case YAML_SCALAR_EVENT:
      n = node_new (MSPERF_YNODE_SCALAR, line);
      n->text = g_strndup ((const char *) ev->data.scalar.value, ev->data.scalar.length);
      n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
      return n;
    case YAML_SEQUENCE_START_EVENT:
      n = node_new (MSPERF_YNODE_SEQ, line);
      if (!parse_children (p, n, YAML_SEQUENCE_END_EVENT, path, depth, error))
        break;
      return n;
    case YAML_MAPPING_START_EVENT:
      n = node_new (MSPERF_YNODE_MAP, line);
      if (!parse_children (p, n, YAML_MAPPING_END_EVENT, path, depth, error))
        break;
      return n;
    case YAML_ALIAS_EVENT:
      fail (error, path, line, "aliases are not supported in templates");
      return NULL;
    default:
      fail (error, path, line, "unexpected YAML event");
      return NULL;
    }
  msperf_ynode_free (n);
  return NULL;
}

/* Skips the stream and document starts, then reads the root node. */
static msperf_ynode *
parse_document (yaml_parser_t *p, const char *path, GError **error)
{
  for (;;)
    {
      yaml_event_t ev;
      msperf_ynode *root;

      if (!yaml_parser_parse (p, &ev))
        {
          fail (error, path, (guint) p->problem_mark.line + 1,
                p->problem ? p->problem : "YAML syntax error");
          return NULL;
        }
      if (ev.type == YAML_STREAM_START_EVENT || ev.type == YAML_DOCUMENT_START_EVENT)
        {
          yaml_event_delete (&ev);
          continue;
        }
      if (ev.type == YAML_STREAM_END_EVENT)
        {
          yaml_event_delete (&ev);
          fail (error, path, 1, "empty document");
          return NULL;
        }
      root = parse_node (p, &ev, path, 0, error);
      yaml_event_delete (&ev);
      return root;
    }
}

msperf_ynode *
msperf_ynode_load (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  gsize skip;
  yaml_parser_t parser;
  msperf_ynode *root;

  if (!g_file_get_contents (path, &data, &len, error))
    return NULL;
  if (!yaml_parser_initialize (&parser))
    {
      fail (error, path, 1, "cannot initialise the YAML parser");
      return NULL;
    }
  /* A UTF-8 byte-order mark would become part of the first key (libyaml keeps it). */
  skip = len >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
  yaml_parser_set_input_string (&parser, (const unsigned char *) data + skip, len - skip);
  root = parse_document (&parser, path, error);
  yaml_parser_delete (&parser);
  return root;
}

guint
msperf_ynode_len (const msperf_ynode *node)
{
  if (node == NULL || node->items == NULL)
    return 0;
  return node->kind == MSPERF_YNODE_MAP ? node->items->len / 2 : node->items->len;
}

const msperf_ynode *
msperf_ynode_item (const msperf_ynode *seq, guint i)
{
  return g_ptr_array_index (seq->items, i);
}

const msperf_ynode *
msperf_ynode_key (const msperf_ynode *map, guint i)
{
  return g_ptr_array_index (map->items, 2 * i);
}

const msperf_ynode *
msperf_ynode_value (const msperf_ynode *map, guint i)
{
  return g_ptr_array_index (map->items, 2 * i + 1);
}

const msperf_ynode *
msperf_ynode_get (const msperf_ynode *map, const char *key)
{
  if (map == NULL || map->kind != MSPERF_YNODE_MAP)
    return NULL;
  for (guint i = 0; i < msperf_ynode_len (map); i++)
    {
      const msperf_ynode *k = msperf_ynode_key (map, i);

      if (k->kind == MSPERF_YNODE_SCALAR && strcmp (k->text, key) == 0)
        return msperf_ynode_value (map, i);
    }
  return NULL;
}

gboolean
msperf_ynode_is_null (const msperf_ynode *node)
{
  return node == NULL
         || (node->kind == MSPERF_YNODE_SCALAR && node->plain
             && (node->text[0] == '\0' || strcmp (node->text, "null") == 0
                 || strcmp (node->text, "~") == 0));
}
