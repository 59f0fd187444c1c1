/* msperf — module-owned options (doc/plugin-guide.md § Options): a module declares the keys of
 * its modules.<name> policy block (type, default); the engine checks the effective policy
 * against the declarations once the modules are loaded, as PulseAudio checks modargs, and
 * answers msperf_engine_module_option with the policy's value or the declared default. The
 * same step applies the modules' other declarations (declarations.c). */
#include <config.h>
#include <string.h>
#include <msperf/error.h>
#include "engine/shared.h"
#include "engine/options.h"
#include "engine/declarations.h"
#include "io/yaml_doc.h"

static const char *
type_name (msperf_option_type t)
{
  switch (t)
    {
    case MSPERF_OPTION_BOOL:
      return "true or false";
    case MSPERF_OPTION_INT:
      return "an integer";
    case MSPERF_OPTION_DOUBLE:
      return "a number";
    case MSPERF_OPTION_STRING:
      return "a string";
    case MSPERF_OPTION_ANY:
    default:
      return "any value";
    }
}

static gboolean
type_matches (msperf_option_type t, const msperf_value *v)
{
  switch (t)
    {
    case MSPERF_OPTION_BOOL:
      return v->kind == MSPERF_VALUE_BOOL;
    case MSPERF_OPTION_INT:
      return v->kind == MSPERF_VALUE_INT;
    case MSPERF_OPTION_DOUBLE:
      return v->kind == MSPERF_VALUE_INT || v->kind == MSPERF_VALUE_FLOAT;
    case MSPERF_OPTION_STRING:
      return v->kind == MSPERF_VALUE_STRING || v->kind == MSPERF_VALUE_NONE;
    case MSPERF_OPTION_ANY:
    default:
      return TRUE;
    }
}

static const msperf_option_spec *
find_spec (const msperf_plugin *p, const char *key)
{
  for (const msperf_option_spec *o = p->options; o != NULL && o->key != NULL; o++)
    if (strcmp (o->key, key) == 0)
      return o;
  return NULL;
}

static char *
known_keys (const msperf_plugin *p)
{
  GString *s = g_string_new (NULL);

  for (const msperf_option_spec *o = p->options; o != NULL && o->key != NULL; o++)
    g_string_append_printf (s, "%s%s", s->len ? ", " : "", o->key);
  if (s->len == 0)
    g_string_append (s, "none");
  return g_string_free (s, FALSE);
}

static char *
option_id (const char *module, const char *key)
{
  return g_strconcat (module, "\x1f", key, NULL);
}

/* The declared defaults of one module, parsed once (a bad default is the module's bug: the
 * module is named and the option left without default). */
static void
add_defaults (msperf_engine_shared *m, const msperf_plugin *p)
{
  for (const msperf_option_spec *o = p->options; o != NULL && o->key != NULL; o++)
    {
      msperf_value *v = msperf_yaml_resolve_plain (o->default_yaml ? o->default_yaml : "null");

      if (!type_matches (o->type, v))
        {
          g_warning ("module '%s': default '%s' of option '%s' is not %s", p->name,
                     o->default_yaml ? o->default_yaml : "null", o->key, type_name (o->type));
          msperf_value_free (v);
          continue;
        }
      g_hash_table_insert (m->option_defaults, option_id (p->name, o->key), v);
    }
}

/* The file a bad option came from, for the message: the --policy file when it sets that key
 * (the highest file layer), else the database. */
static const char *
option_file (msperf_engine_shared *m, const msperf_value *policy_doc, const char *module, const char *key)
{
  const msperf_value *block = msperf_value_lookup (msperf_value_lookup (msperf_value_lookup (
                                policy_doc, "modules"), module), key);

  if (block != NULL)
    return m->policy_path;
  return m->db ? msperf_database_dir (m->db) : "policy";
}

static gboolean
check_block (msperf_engine_shared *m, const msperf_value *policy_doc, const msperf_plugin *p,
             const msperf_value *block, GError **error)
{
  for (guint k = 0; block->kind == MSPERF_VALUE_MAP && k < block->keys->len; k++)
    {
      const char *key = g_ptr_array_index (block->keys, k);
      const msperf_value *v = g_ptr_array_index (block->items, k);
      const msperf_option_spec *spec;

      if (strcmp (key, "enabled") == 0)
        continue;
      spec = find_spec (p, key);
      if (spec == NULL)
        {
          g_autofree char *known = known_keys (p);
          msperf_yaml_set_error (error, MSPERF_ERROR_INVALID,
                                 option_file (m, policy_doc, p->name, key), v->line,
                                 "module '%s' has no option '%s' (its options: %s)", p->name,
                                 key, known);
          return FALSE;
        }
      if (!type_matches (spec->type, v))
        {
          msperf_yaml_set_error (error, MSPERF_ERROR_INVALID,
                                 option_file (m, policy_doc, p->name, key), v->line,
                                 "key 'modules.%s.%s': expected %s", p->name, key,
                                 type_name (spec->type));
          return FALSE;
        }
      if (v->kind == MSPERF_VALUE_STRING && strlen (v->s) > MSPERF_YAML_MAX_STRING)
        {
          g_autofree char *path = g_strdup_printf ("modules.%s.%s", p->name, key);
          return msperf_yaml_check_length (v, option_file (m, policy_doc, p->name, key), path,
                                           error);
        }
    }
  return TRUE;
}

gboolean
msperf_engine_check_module_options (msperf_engine *e, GError **error)
{
  msperf_engine_shared *m = e->shared;
  const msperf_value *modules = msperf_policy_get (m->policy, "modules");
  g_autoptr (msperf_value) policy_doc = NULL;

  m->option_defaults = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                              (GDestroyNotify) msperf_value_free);
  if (m->policy_path)
    policy_doc = msperf_yaml_load_file (m->policy_path, NULL);
  for (guint i = 0; i < msperf_registry_loaded (m->registry)->len; i++)
    {
      const msperf_plugin *p = msperf_registry_plugin_at (m->registry, i, NULL);
      const msperf_value *block = msperf_value_lookup (modules, p->name);

      add_defaults (m, p);
      if (block != NULL && !check_block (m, policy_doc, p, block, error))
        return FALSE;
    }
  return msperf_engine_apply_declarations (e, error);
}

const msperf_value *
msperf_engine_module_option (msperf_engine *e, const char *module, const char *key)
{
  g_autofree char *id = NULL;
  const msperf_value *v;
  const msperf_plugin *p;

  g_return_val_if_fail (e != NULL && e->shared->started && module != NULL && key != NULL, NULL);
  p = msperf_registry_lookup (e->shared->registry, module, NULL);
  if (p == NULL || find_spec (p, key) == NULL)
    return NULL;
  v = msperf_value_lookup (msperf_value_lookup (msperf_policy_get (e->shared->policy, "modules"),
                                                module), key);
  if (v != NULL)
    return v;
  /* Defaults are parsed once every module is loaded: an init that asks gets NULL. */
  if (e->shared->option_defaults == NULL)
    return NULL;
  id = option_id (module, key);
  return g_hash_table_lookup (e->shared->option_defaults, id);
}
