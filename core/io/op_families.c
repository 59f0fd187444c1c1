/* msperf — the roofline's op families (doc/formats.md §4.1). */
#include <config.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/paths.h>
#include "io/op_families.h"
#include "io/yaml_doc.h"

struct msperf_op_families {
  char *path;
  GPtrArray *rules;   /* msperf_op_family*, in file order */
};

static const char *const model_names[] = { "metadata", "matmul_collective", "collective",
                                           "attention", "gather", "matmul", "fused_moe", NULL };
static const char *const pattern_names[] = { "none", "all_reduce", "all_gather",
                                             "reduce_scatter", "all_to_all", NULL };

static void
family_free (gpointer p)
{
  msperf_op_family *f = p;

  g_free (f->name);
  g_free (f->namespace_prefix);
  g_strfreev (f->bases);
  g_strfreev (f->names);
  g_strfreev (f->contains);
  g_strfreev (f->and_contains);
  g_free (f);
}

void
msperf_op_families_free (msperf_op_families *f)
{
  if (f == NULL)
    return;
  g_free (f->path);
  g_ptr_array_unref (f->rules);
  g_free (f);
}

const char *
msperf_op_families_path (const msperf_op_families *f)
{
  g_return_val_if_fail (f != NULL, NULL);
  return f->path;
}

/* The index of v's string in names, or -1 with an error naming the choices. */
static int
choice (const msperf_value *v, const char *const *names, const char *file, const char *key,
        GError **error)
{
  const char *s = NULL;

  if (!msperf_yaml_value_string (v, file, key, &s, error))
    return -1;
  for (int k = 0; names[k] != NULL; k++)
    if (strcmp (names[k], s) == 0)
      return k;
  {
    g_autofree char *joined = g_strjoinv (", ", (char **) names);
    msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line,
                           "key '%s': unknown value '%s' (one of: %s)", key, s, joined);
  }
  return -1;
}

/* A non-empty list of non-empty strings. */
static gboolean
string_list (const msperf_value *v, const char *file, const char *key, char ***out,
             GError **error)
{
  GPtrArray *items;

  if (v->kind != MSPERF_VALUE_LIST || v->items->len == 0)
    {
      g_autofree char *got = msperf_yaml_describe (v);
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line,
                             "key '%s': expected a non-empty list of strings, got %s", key, got);
      return FALSE;
    }
  items = g_ptr_array_new_with_free_func (g_free);
  for (guint k = 0; k < v->items->len; k++)
    {
      const msperf_value *item = g_ptr_array_index (v->items, k);

      if (item->kind != MSPERF_VALUE_STRING || item->s == NULL || item->s[0] == '\0')
        {
          g_autofree char *got = msperf_yaml_describe (item);
          msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, item->line,
                                 "key '%s': expected a non-empty string, got %s", key, got);
          g_ptr_array_unref (items);
          return FALSE;
        }
      g_ptr_array_add (items, g_strdup (item->s));
    }
  g_ptr_array_add (items, NULL);
  *out = (char **) g_ptr_array_free (items, FALSE);
  return TRUE;
}

static msperf_op_family *
load_rule (const msperf_value *v, const char *file, GError **error)
{
  static const char *const keys[] = { "family", "model", "pattern", "namespace", "base",
                                      "names", "contains", "and_contains", NULL };
  g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func (family_free);
  msperf_op_family *f;
  const msperf_value *x;
  const char *s = NULL;
  int k;

  if (v->kind != MSPERF_VALUE_MAP)
    {
      g_autofree char *got = msperf_yaml_describe (v);
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line,
                             "key 'families': expected a list of mappings, got an item %s", got);
      return NULL;
    }
  for (guint i = 0; i < v->keys->len; i++)
    if (!g_strv_contains (keys, g_ptr_array_index (v->keys, i)))
      {
        const msperf_value *item = g_ptr_array_index (v->items, i);
        msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, item->line,
                               "unknown key '%s' in a family",
                               (const char *) g_ptr_array_index (v->keys, i));
        return NULL;
      }
  f = g_new0 (msperf_op_family, 1);
  g_ptr_array_add (keep, f);   /* freed on every early return */
  if ((x = msperf_value_lookup (v, "family")) == NULL || (x = msperf_value_lookup (v, "model")) == NULL)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line,
                             "a family needs 'family' and 'model'");
      return NULL;
    }
  if (!msperf_yaml_value_string (msperf_value_lookup (v, "family"), file, "family", &s, error))
    return NULL;
  f->name = g_strdup (s);
  if ((k = choice (msperf_value_lookup (v, "model"), model_names, file, "model", error)) < 0)
    return NULL;
  f->model = (msperf_cost_model) k;
  if ((x = msperf_value_lookup (v, "pattern")) != NULL)
    {
      if ((k = choice (x, pattern_names, file, "pattern", error)) < 0)
        return NULL;
      f->pattern = (msperf_collective_pattern) k;
    }
  if ((x = msperf_value_lookup (v, "namespace")) != NULL)
    {
      if (!msperf_yaml_value_string (x, file, "namespace", &s, error))
        return NULL;
      f->namespace_prefix = g_strconcat (s, ".", NULL);
    }
  if (((x = msperf_value_lookup (v, "base")) != NULL && !string_list (x, file, "base", &f->bases, error))
      || ((x = msperf_value_lookup (v, "names")) != NULL
          && !string_list (x, file, "names", &f->names, error))
      || ((x = msperf_value_lookup (v, "contains")) != NULL
          && !string_list (x, file, "contains", &f->contains, error))
      || ((x = msperf_value_lookup (v, "and_contains")) != NULL
          && !string_list (x, file, "and_contains", &f->and_contains, error)))
    return NULL;
  if ((f->bases != NULL) != (f->namespace_prefix != NULL))
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line,
                             "family '%s': 'base' and 'namespace' go together", f->name);
      return NULL;
    }
  if (f->bases == NULL && f->names == NULL && f->contains == NULL)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line,
                             "family '%s' matches no name (give names, contains or "
                             "namespace and base)", f->name);
      return NULL;
    }
  return g_ptr_array_steal_index (keep, 0);
}

msperf_op_families *
msperf_op_families_load (const char *path, GError **error)
{
  g_autoptr (msperf_value) doc = NULL;
  g_autoptr (msperf_op_families) out = NULL;
  const msperf_value *list;

  g_return_val_if_fail (path != NULL, NULL);
  doc = msperf_yaml_load_file (path, error);
  if (doc == NULL)
    return NULL;
  list = msperf_value_lookup (doc, "families");
  if (doc->kind != MSPERF_VALUE_MAP || doc->keys->len != 1 || list == NULL)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, path, doc->line,
                             "expected a mapping with the one key 'families'");
      return NULL;
    }
  if (list->kind != MSPERF_VALUE_LIST)
    {
      g_autofree char *got = msperf_yaml_describe (list);
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, path, list->line,
                             "key 'families': expected a list, got %s", got);
      return NULL;
    }
  out = g_new0 (msperf_op_families, 1);
  out->path = g_strdup (path);
  out->rules = g_ptr_array_new_with_free_func (family_free);
  for (guint k = 0; k < list->items->len; k++)
    {
      msperf_op_family *f = load_rule (g_ptr_array_index (list->items, k), path, error);

      if (f == NULL)
        return NULL;
      g_ptr_array_add (out->rules, f);
    }
  return g_steal_pointer (&out);
}

msperf_op_families *
msperf_op_families_load_default (GError **error)
{
  g_autofree char *path = msperf_paths_data_file ("policies/roofline-families.yaml",
                                                  "policies/roofline-families.yaml");

  return msperf_op_families_load (path, error);
}

static gboolean
has_any (const char *name, char *const *parts)
{
  for (; *parts; parts++)
    if (strstr (name, *parts))
      return TRUE;
  return FALSE;
}

/* The segment after prefix ("aten.view.default" after "aten." is "view") is one of bases. */
static gboolean
base_in (const char *name, const char *prefix, char *const *bases)
{
  const char *p, *end;
  size_t len;

  if (!g_str_has_prefix (name, prefix))
    return FALSE;
  p = name + strlen (prefix);
  end = strchr (p, '.');
  len = end ? (size_t) (end - p) : strlen (p);
  for (; *bases; bases++)
    if (strlen (*bases) == len && strncmp (*bases, p, len) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
matches (const msperf_op_family *f, const char *name)
{
  if (f->names != NULL && !g_strv_contains ((const char *const *) f->names, name))
    return FALSE;
  if (f->bases != NULL && !base_in (name, f->namespace_prefix, f->bases))
    return FALSE;
  if (f->contains != NULL && !has_any (name, f->contains))
    return FALSE;
  if (f->and_contains != NULL && !has_any (name, f->and_contains))
    return FALSE;
  return TRUE;
}

const msperf_op_family *
msperf_op_families_match (const msperf_op_families *f, const char *op_name, guint *cursor)
{
  g_return_val_if_fail (f != NULL && op_name != NULL && cursor != NULL, NULL);
  while (*cursor < f->rules->len)
    {
      const msperf_op_family *rule = g_ptr_array_index (f->rules, *cursor);

      (*cursor)++;
      if (matches (rule, op_name))
        return rule;
    }
  return NULL;
}
