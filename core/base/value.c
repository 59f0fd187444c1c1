/* msperf — JSON-like value trees (op args, kwargs, ATT parameters, result details). */
#include <config.h>
#include <string.h>
#include <math.h>
#include <msperf/op.h>

msperf_value *
msperf_value_new (msperf_value_kind kind)
{
  msperf_value *v = g_new0 (msperf_value, 1);
  v->kind = kind;
  if (kind == MSPERF_VALUE_LIST || kind == MSPERF_VALUE_MAP)
    v->items = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_value_free);
  if (kind == MSPERF_VALUE_MAP)
    v->keys = g_ptr_array_new_with_free_func (g_free);
  return v;
}

/* msperf_value_new_string keeps the text in the value's own block, right after the struct
 * (one allocation instead of two: result details are mostly strings, doc/performance.md). */
static gboolean
string_is_inline (const msperf_value *v)
{
  return v->s == (const char *) (const void *) (v + 1);
}

void
msperf_value_free (msperf_value *v)
{
  if (v == NULL)
    return;
  if (!string_is_inline (v))
    g_free (v->s);
  msperf_tensor_clear (&v->tensor);
  if (v->items)
    g_ptr_array_unref (v->items);
  if (v->keys)
    g_ptr_array_unref (v->keys);
  g_free (v);
}

msperf_value *
msperf_value_copy (const msperf_value *v)
{
  msperf_value *c;

  if (v == NULL)
    return NULL;
  c = msperf_value_new (v->kind);
  c->b = v->b;
  c->i = v->i;
  c->f = v->f;
  c->s = g_strdup (v->s);
  c->line = v->line;
  msperf_tensor_copy (&c->tensor, &v->tensor);
  for (guint k = 0; v->items && k < v->items->len; k++)
    g_ptr_array_add (c->items, msperf_value_copy (g_ptr_array_index (v->items, k)));
  for (guint k = 0; v->keys && k < v->keys->len; k++)
    g_ptr_array_add (c->keys, g_strdup (g_ptr_array_index (v->keys, k)));
  return c;
}

msperf_value *
msperf_value_new_int (int64_t i)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_INT);
  v->i = i;
  return v;
}

msperf_value *
msperf_value_new_double (double f)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_FLOAT);
  v->f = f;
  return v;
}

msperf_value *
msperf_value_new_bool (gboolean b)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_BOOL);
  v->b = b;
  return v;
}

msperf_value *
msperf_value_new_string (const char *s)
{
  msperf_value *v;
  size_t n;

  if (s == NULL)
    return msperf_value_new (MSPERF_VALUE_NONE);
  n = strlen (s) + 1;
  v = g_malloc (sizeof *v + n);
  memset (v, 0, sizeof *v);
  v->kind = MSPERF_VALUE_STRING;
  v->s = memcpy (v + 1, s, n);
  return v;
}

static int
map_index (const msperf_value *v, const char *key)
{
  if (v == NULL || v->kind != MSPERF_VALUE_MAP || key == NULL)
    return -1;
  for (guint k = 0; k < v->keys->len; k++)
    if (strcmp (g_ptr_array_index (v->keys, k), key) == 0)
      return (int) k;
  return -1;
}

const msperf_value *
msperf_value_lookup (const msperf_value *v, const char *key)
{
  int k = map_index (v, key);
  return k < 0 ? NULL : g_ptr_array_index (v->items, k);
}

void
msperf_value_list_append (msperf_value *list, msperf_value *item)
{
  g_return_if_fail (list != NULL && list->kind == MSPERF_VALUE_LIST);
  g_ptr_array_add (list->items, item);
}

msperf_value *
msperf_value_new_string_list (const GPtrArray *strings)
{
  msperf_value *l = msperf_value_new (MSPERF_VALUE_LIST);

  for (guint k = 0; strings != NULL && k < strings->len; k++)
    msperf_value_list_append (l, msperf_value_new_string (g_ptr_array_index (strings, k)));
  return l;
}

void
msperf_value_map_set (msperf_value *map, const char *key, msperf_value *item)
{
  int k;

  g_return_if_fail (map != NULL && map->kind == MSPERF_VALUE_MAP && key != NULL);
  k = map_index (map, key);
  if (k >= 0)
    {
      msperf_value_free (g_ptr_array_index (map->items, k));
      g_ptr_array_index (map->items, k) = item;
      return;
    }
  g_ptr_array_add (map->keys, g_strdup (key));
  g_ptr_array_add (map->items, item);
}

gboolean
msperf_value_get_int (const msperf_value *v, int64_t *out)
{
  if (v == NULL)
    return FALSE;
  if (v->kind == MSPERF_VALUE_INT)
    {
      *out = v->i;
      return TRUE;
    }
  /* 2^63 is the first double outside int64; integral floats below it convert exactly. */
  if (v->kind == MSPERF_VALUE_FLOAT && isfinite (v->f) && v->f == floor (v->f)
      && fabs (v->f) < 9223372036854775808.0)
    {
      *out = (int64_t) v->f;
      return TRUE;
    }
  return FALSE;
}

gboolean
msperf_value_get_double (const msperf_value *v, double *out)
{
  if (v == NULL)
    return FALSE;
  if (v->kind == MSPERF_VALUE_INT)
    *out = (double) v->i;
  else if (v->kind == MSPERF_VALUE_FLOAT)
    *out = v->f;
  else
    return FALSE;
  return TRUE;
}

const char *
msperf_value_get_string (const msperf_value *v)
{
  return (v != NULL && v->kind == MSPERF_VALUE_STRING) ? v->s : NULL;
}

gboolean
msperf_value_is_int_list (const msperf_value *v)
{
  if (v == NULL || v->kind != MSPERF_VALUE_LIST)
    return FALSE;
  for (guint k = 0; k < v->items->len; k++)
    if (((msperf_value *) g_ptr_array_index (v->items, k))->kind != MSPERF_VALUE_INT)
      return FALSE;
  return TRUE;
}

msperf_value *
msperf_value_new_shape (const msperf_tensor *t)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (int d = 0; t != NULL && d < t->rank; d++)
    msperf_value_list_append (list, msperf_value_new_int (t->dims[d]));
  return list;
}
