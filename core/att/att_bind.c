/* msperf — att.bind, the symbol values of an ATT op, and the domain check every path that
 * binds symbols goes through (a trace line, `msperf att --bind`, a library or Python caller):
 * a bound value must pass the checks the same value gets when written in place of its symbol,
 * so no path answers a count the static parameters would refuse. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/att.h>

/* Keys whose string values are names (kind, dtypes), never a symbol standing for a size. */
static gboolean
names_a_name (const char *key)
{
  return key != NULL
         && (strcmp (key, "bind") == 0 || strstr (key, "kind") != NULL
             || strstr (key, "dtype") != NULL);
}

/* A copy of v with every bare symbol that bind gives a value replaced by that value; only
 * (when not NULL) restricts the replacement to that one symbol. Transfer full. */
static msperf_value *
substitute (const msperf_value *v, const msperf_value *bind, const char *only)
{
  msperf_value *copy;

  if (v->kind == MSPERF_VALUE_STRING && msperf_expr_is_identifier (v->s)
      && msperf_value_lookup (bind, v->s) != NULL && (only == NULL || strcmp (only, v->s) == 0))
    return msperf_value_copy (msperf_value_lookup (bind, v->s));
  copy = msperf_value_copy (v);
  if (v->kind != MSPERF_VALUE_LIST && v->kind != MSPERF_VALUE_MAP)
    return copy;
  for (guint i = 0; i < v->items->len; i++)
    {
      if (v->kind == MSPERF_VALUE_MAP && names_a_name (g_ptr_array_index (v->keys, i)))
        continue;
      msperf_value_free (g_ptr_array_index (copy->items, i));
      copy->items->pdata[i] = substitute (g_ptr_array_index (v->items, i), bind, only);
    }
  return copy;
}

/* The att MAP with the bound symbols in place and without its bind (so a check that itself
 * calls msperf_att_bind_check does not recurse). Transfer full. */
static msperf_value *
bound_att (const msperf_value *att, const msperf_value *bind, const char *only)
{
  msperf_value *out = msperf_value_new (MSPERF_VALUE_MAP);

  for (guint i = 0; i < att->keys->len; i++)
    {
      const char *key = g_ptr_array_index (att->keys, i);
      const msperf_value *item = g_ptr_array_index (att->items, i);

      if (strcmp (key, "bind") == 0)
        continue;
      msperf_value_map_set (out, key, names_a_name (key) ? msperf_value_copy (item)
                                                          : substitute (item, bind, only));
    }
  return out;
}

/* A bound value as the message shows it: integers exactly, other numbers shortest. */
static char *
value_text (const msperf_value *v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (v->kind == MSPERF_VALUE_INT)
    return g_strdup_printf ("%" G_GINT64_FORMAT, v->i);
  if (v->kind == MSPERF_VALUE_FLOAT)
    return g_strdup (g_ascii_dtostr (buf, sizeof buf, v->f));
  return msperf_value_get_string (v) != NULL ? g_strdup (v->s) : g_strdup ("?");
}

GHashTable *
msperf_att_bindings (msperf_expr_ctx *ctx, const msperf_value *att, GError **error)
{
  g_autoptr (GHashTable) b = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const msperf_value *map = msperf_value_lookup (att, "bind");

  g_return_val_if_fail (ctx != NULL, NULL);
  if (map == NULL || map->kind == MSPERF_VALUE_NONE)
    return g_steal_pointer (&b);
  if (map->kind != MSPERF_VALUE_MAP)
    {
      g_set_error_literal (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                           "att.bind: expected an object {symbol: number}");
      return NULL;
    }
  for (guint i = 0; i < map->keys->len; i++)
    {
      const char *name = g_ptr_array_index (map->keys, i);
      const msperf_value *v = g_ptr_array_index (map->items, i);
      int64_t n;
      double d;

      if (!msperf_expr_is_identifier (name))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "att.bind: '%.80s' is not a symbol name", name);
          return NULL;
        }
      if (msperf_value_get_int (v, &n))
        g_hash_table_replace (b, g_strdup (name), msperf_expr_int (ctx, n));
      else if (msperf_value_get_double (v, &d) && isfinite (d))
        g_hash_table_replace (b, g_strdup (name), msperf_expr_double (ctx, d));
      else
        {
          g_autofree char *got = msperf_value_get_double (v, &d) ? value_text (v) : NULL;
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "att.bind.%s: expected a finite number, got %s", name,
                       got != NULL ? got : "a value of another type");
          return NULL;
        }
    }
  return g_steal_pointer (&b);
}

gboolean
msperf_att_bind_check (const msperf_value *att, msperf_att_check_func check, void *user_data,
                       GError **error)
{
  const msperf_value *bind = msperf_value_lookup (att, "bind");
  g_autoptr (msperf_value) all = NULL;
  g_autoptr (GError) all_error = NULL;
  g_autoptr (GString) names = NULL;

  g_return_val_if_fail (check != NULL, FALSE);
  if (att == NULL || att->kind != MSPERF_VALUE_MAP || bind == NULL
      || bind->kind != MSPERF_VALUE_MAP || bind->keys->len == 0)
    return TRUE;
  {
    g_autoptr (GHashTable) parsed = NULL;
    g_autoptr (msperf_expr_ctx) ctx = msperf_expr_ctx_new ();

    if ((parsed = msperf_att_bindings (ctx, att, error)) == NULL)
      return FALSE;
  }
  all = bound_att (att, bind, NULL);
  if (check (all, user_data, &all_error))
    return TRUE;
  /* Blame the bound values only when the parameters as written (symbols unbound) pass: a
   * missing dtype is not a bind problem. */
  {
    g_autoptr (msperf_value) none = msperf_value_new (MSPERF_VALUE_MAP);
    g_autoptr (msperf_value) as_written = bound_att (att, none, NULL);
    g_autoptr (GError) written_error = NULL;

    if (!check (as_written, user_data, &written_error))
      {
        g_propagate_error (error, g_steal_pointer (&all_error));
        return FALSE;
      }
  }
  /* Name the symbol whose value alone is refused; a refusal that needs several bound values
   * (src equal to dst) names them all. */
  for (guint i = 0; i < bind->keys->len; i++)
    {
      const char *name = g_ptr_array_index (bind->keys, i);
      g_autoptr (msperf_value) one = bound_att (att, bind, name);
      g_autoptr (GError) one_error = NULL;
      g_autofree char *v = value_text (g_ptr_array_index (bind->items, i));

      if (check (one, user_data, &one_error))
        continue;
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "att.bind.%s = %s is out of the parameter's domain: %s", name, v,
                   one_error->message);
      return FALSE;
    }
  names = g_string_new (NULL);
  for (guint i = 0; i < bind->keys->len; i++)
    {
      g_autofree char *v = value_text (g_ptr_array_index (bind->items, i));
      g_string_append_printf (names, "%s%s = %s", i > 0 ? ", " : "",
                              (const char *) g_ptr_array_index (bind->keys, i), v);
    }
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
               "att.bind {%s} is out of the parameters' domain: %s", names->str,
               all_error->message);
  return FALSE;
}
