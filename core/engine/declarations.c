/* msperf — module declarations applied to the engine (declarations.h). */
#include <config.h>
#include <string.h>
#include <msperf/error.h>
#include "engine/shared.h"
#include "engine/declarations.h"

/* The default interpolation.modes: the modules declaring MSPERF_PLUGIN_INTERPOLATE_BY_DEFAULT
 * (loaded or disabled by policy), the default mode first (it answers the entries that name
 * none), then in discovery order. With the shipped modules: [compute, attention_special], the
 * list the policy hash has always carried. */
static msperf_value *
default_modes (msperf_registry *reg)
{
  const GPtrArray *names = msperf_registry_interpolated_by_default (reg);
  const char *first = msperf_registry_default_mode (reg);
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (guint k = 0; first != NULL && k < names->len; k++)
    if (strcmp (g_ptr_array_index (names, k), first) == 0)
      msperf_value_list_append (list, msperf_value_new_string (first));
  for (guint k = 0; k < names->len; k++)
    if (first == NULL || strcmp (g_ptr_array_index (names, k), first) != 0)
      msperf_value_list_append (list, msperf_value_new_string (g_ptr_array_index (names, k)));
  return list;
}

static void
warn_all (msperf_engine *e, GPtrArray *warnings)
{
  for (guint k = 0; k < warnings->len; k++)
    {
      g_warning ("%s", (const char *) g_ptr_array_index (warnings, k));
      msperf_shared_lock (e);
      g_ptr_array_add (e->shared->warnings, g_strdup (g_ptr_array_index (warnings, k)));
      msperf_shared_unlock (e);
    }
}

gboolean
msperf_engine_apply_declarations (msperf_engine *e, GError **error)
{
  msperf_engine_shared *m;
  const GPtrArray *schemas;
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (e != NULL && e->shared->started, FALSE);
  m = e->shared;
  schemas = msperf_registry_policy_schemas (m->registry);
  for (guint k = 0; k + 1 < schemas->len; k += 2)
    {
      g_autoptr (GError) bad = NULL;

      /* A module's bad declaration is its bug: named, and its blocks left undeclared. */
      if (!msperf_policy_declare (m->policy, g_ptr_array_index (schemas, k),
                                  g_ptr_array_index (schemas, k + 1), &bad))
        g_warning ("%s", bad->message);
    }
  if (!msperf_policy_seal (m->policy, warnings, error))
    return FALSE;
  warn_all (e, warnings);
  msperf_policy_set_default (m->policy, "interpolation.modes", default_modes (m->registry));
  /* The effective policy is complete only now: its JSON and hash include the declarations. */
  g_free (m->policy_json);
  g_free (m->policy_hash);
  m->policy_json = msperf_policy_canonical_json (m->policy);
  m->policy_hash = msperf_policy_hash (m->policy);
  if (m->db != NULL)
    msperf_database_set_collective_prefixes (m->db,
                                             msperf_registry_collective_prefixes (m->registry));
  return TRUE;
}

const char *const *
msperf_engine_collective_prefixes (msperf_engine *e)
{
  static const char *const none[] = { NULL };

  g_return_val_if_fail (e != NULL && e->shared->started, none);
  return msperf_registry_collective_prefixes (e->shared->registry);
}

gboolean
msperf_engine_kernel_is_collective (msperf_engine *e, const char *kernel_type)
{
  const char *const *prefixes;

  g_return_val_if_fail (e != NULL && e->shared->started, FALSE);
  prefixes = msperf_registry_collective_prefixes (e->shared->registry);
  for (; kernel_type != NULL && *prefixes != NULL; prefixes++)
    if (g_str_has_prefix (kernel_type, *prefixes))
      return TRUE;
  return FALSE;
}
