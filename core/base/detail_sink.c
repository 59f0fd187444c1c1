/* msperf — the sinks of deferred details: a value tree or JSON text, from one emitter.
 *
 * Both sinks follow msperf_fmt_json_value byte for byte (", " between items, ": " after a
 * key, "{}" / "[]" when empty), so that printing a record straight to JSON equals building
 * its tree and printing that (tests/base/test_details.c compares the two). */
#include <config.h>
#include <string.h>
#include <msperf/format.h>
#include "detail_sink.h"
#include "str_append.h"

void
msperf_detail_sink_init_tree (msperf_detail_sink *s, msperf_value *map, const char *only)
{
  memset (s, 0, sizeof *s);
  s->mode = MSPERF_DETAIL_SINK_TREE;
  s->skip_from = -1;
  s->only = only;
  s->stack[0] = map;
  s->span = -1;
}

void
msperf_detail_sink_init_subset (msperf_detail_sink *s, msperf_value *map,
                                const char *const *keys)
{
  msperf_detail_sink_init_tree (s, map, NULL);
  s->only_any = keys;
}

static gboolean
key_in (const char *const *keys, const char *key)
{
  /* the first byte first: most keys differ there, and this runs for every top-level item */
  for (int k = 0; keys[k]; k++)
    if (keys[k][0] == key[0] && strcmp (keys[k], key) == 0)
      return TRUE;
  return FALSE;
}

void
msperf_detail_sink_init_probe (msperf_detail_sink *s, const char *key)
{
  memset (s, 0, sizeof *s);
  s->mode = MSPERF_DETAIL_SINK_PROBE;
  s->skip_from = -1;
  s->only = key;
  s->span = -1;
}

void
msperf_detail_sink_init_json (msperf_detail_sink *s, GString *out, guint count,
                              const char *const *span_keys, msperf_detail_span *spans)
{
  memset (s, 0, sizeof *s);
  s->mode = MSPERF_DETAIL_SINK_JSON;
  s->skip_from = -1;
  s->out = out;
  s->count[0] = count;
  s->is_map[0] = TRUE;
  s->span_keys = span_keys;
  s->spans = spans;
  s->span = -1;
}

guint
msperf_detail_sink_top_count (const msperf_detail_sink *s)
{
  return s->count[0];
}

/* The index of key among the wanted spans, or -1. */
static int
span_index (const msperf_detail_sink *s, const char *key)
{
  for (int k = 0; s->span_keys && s->span_keys[k]; k++)
    if (s->span_keys[k][0] == key[0] && strcmp (s->span_keys[k], key) == 0)
      return k;
  return -1;
}

gboolean
msperf_detail_sink_wants (const msperf_detail_sink *s, const char *key)
{
  g_return_val_if_fail (s != NULL, FALSE);
  if (s->skip_from >= 0)
    return FALSE;
  if (s->depth > 0 || key == NULL)
    return TRUE;
  if (s->only)
    return strcmp (key, s->only) == 0;
  return s->only_any == NULL || key_in (s->only_any, key);
}

/* Starts an item: TRUE when it is written (not filtered out, not inside a skipped container).
 * JSON: the separator and the key are written, and a top-level span opened. */
static gboolean
item_begin (msperf_detail_sink *s, const char *key)
{
  if (s->skip_from >= 0)
    return FALSE;
  if (s->depth == 0)
    {
      g_return_val_if_fail (key != NULL, FALSE);
      if (s->only)
        {
          if (strcmp (key, s->only) != 0)
            return FALSE;
          s->found = TRUE;
          if (s->mode == MSPERF_DETAIL_SINK_PROBE)
            return FALSE;
        }
      else if (s->only_any && !key_in (s->only_any, key))
        return FALSE;
    }
  if (s->mode != MSPERF_DETAIL_SINK_JSON)
    return TRUE;
  if (s->count[s->depth]++ > 0)
    msperf_str_append (s->out, ", ");
  if (s->is_map[s->depth])
    {
      msperf_fmt_json_string (s->out, key ? key : "");
      msperf_str_append (s->out, ": ");
    }
  if (s->depth == 0 && (s->span = span_index (s, key)) >= 0)
    s->spans[s->span].start = s->out->len;
  return TRUE;
}

/* Closes the top-level span when a top-level value has just been written. */
static void
item_end (msperf_detail_sink *s)
{
  if (s->depth == 0 && s->span >= 0)
    {
      s->spans[s->span].end = s->out->len;
      s->span = -1;
    }
}

/* TREE: adds v to the open container (taking it). */
static void
tree_add (msperf_detail_sink *s, const char *key, msperf_value *v)
{
  msperf_value *c = s->stack[s->depth];

  if (c->kind == MSPERF_VALUE_MAP)
    msperf_value_map_set (c, key ? key : "", v);
  else
    msperf_value_list_append (c, v);
}

void
msperf_detail_sink_null (msperf_detail_sink *s, const char *key)
{
  g_return_if_fail (s != NULL);
  if (item_begin (s, key))
    {
      if (s->mode == MSPERF_DETAIL_SINK_TREE)
        tree_add (s, key, msperf_value_new (MSPERF_VALUE_NONE));
      else
        msperf_str_append (s->out, "null");
      item_end (s);
    }
}

void
msperf_detail_sink_bool (msperf_detail_sink *s, const char *key, gboolean v)
{
  g_return_if_fail (s != NULL);
  if (item_begin (s, key))
    {
      if (s->mode == MSPERF_DETAIL_SINK_TREE)
        tree_add (s, key, msperf_value_new_bool (v));
      else
        msperf_str_append (s->out, v ? "true" : "false");
      item_end (s);
    }
}

void
msperf_detail_sink_int (msperf_detail_sink *s, const char *key, int64_t v)
{
  g_return_if_fail (s != NULL);
  if (item_begin (s, key))
    {
      if (s->mode == MSPERF_DETAIL_SINK_TREE)
        tree_add (s, key, msperf_value_new_int (v));
      else
        msperf_fmt_int (s->out, v);
      item_end (s);
    }
}

void
msperf_detail_sink_double (msperf_detail_sink *s, const char *key, double v)
{
  g_return_if_fail (s != NULL);
  if (item_begin (s, key))
    {
      if (s->mode == MSPERF_DETAIL_SINK_TREE)
        tree_add (s, key, msperf_value_new_double (v));
      else
        msperf_fmt_json_double (s->out, v);
      item_end (s);
    }
}

void
msperf_detail_sink_string (msperf_detail_sink *s, const char *key, const char *v)
{
  g_return_if_fail (s != NULL);
  if (item_begin (s, key))
    {
      if (s->mode == MSPERF_DETAIL_SINK_TREE)
        tree_add (s, key, msperf_value_new_string (v));
      else if (v == NULL)
        msperf_str_append (s->out, "null");
      else
        msperf_fmt_json_string (s->out, v);
      item_end (s);
    }
}

void
msperf_detail_sink_value (msperf_detail_sink *s, const char *key, const msperf_value *v)
{
  g_return_if_fail (s != NULL);
  if (v == NULL)
    {
      msperf_detail_sink_null (s, key);
      return;
    }
  if (s->mode == MSPERF_DETAIL_SINK_TREE)
    {
      if (item_begin (s, key))
        {
          tree_add (s, key, msperf_value_copy (v));
          item_end (s);
        }
      return;
    }
  if (item_begin (s, key))
    {
      msperf_fmt_json_value (s->out, v, -1, 0);
      item_end (s);
    }
}

static void
begin (msperf_detail_sink *s, const char *key, msperf_value_kind kind)
{
  g_return_if_fail (s != NULL);
  if (s->depth == MSPERF_DETAIL_SINK_MAX_DEPTH)
    {
      /* Too deep to follow: the subtree is dropped (and said so), never written half. */
      s->overflow = TRUE;
      if (s->skip_from < 0)
        s->skip_from = s->depth;
      s->depth++;
      return;
    }
  if (!item_begin (s, key))
    {
      if (s->skip_from < 0)
        s->skip_from = s->depth;
      s->depth++;
      return;
    }
  if (s->mode == MSPERF_DETAIL_SINK_TREE)
    {
      msperf_value *c = msperf_value_new (kind);

      tree_add (s, key, c);
      s->stack[++s->depth] = c;
      return;
    }
  g_string_append_c (s->out, kind == MSPERF_VALUE_MAP ? '{' : '[');
  s->depth++;
  s->count[s->depth] = 0;
  s->is_map[s->depth] = kind == MSPERF_VALUE_MAP;
}

void
msperf_detail_sink_begin_map (msperf_detail_sink *s, const char *key)
{
  begin (s, key, MSPERF_VALUE_MAP);
}

void
msperf_detail_sink_begin_list (msperf_detail_sink *s, const char *key)
{
  begin (s, key, MSPERF_VALUE_LIST);
}

void
msperf_detail_sink_end (msperf_detail_sink *s)
{
  g_return_if_fail (s != NULL && s->depth > 0);
  s->depth--;
  if (s->skip_from >= 0)
    {
      if (s->skip_from == s->depth)
        s->skip_from = -1;
      return;
    }
  if (s->mode == MSPERF_DETAIL_SINK_JSON)
    g_string_append_c (s->out, s->is_map[s->depth + 1] ? '}' : ']');
  item_end (s);
}
