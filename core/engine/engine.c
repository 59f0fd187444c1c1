/* msperf — the top of core/engine: the engine's life cycle (new, configure, start, free) and
 * msperf_engine_query, the entry to the stage order of dispatch.c. Nothing in core/engine
 * calls back up here. */
#include <config.h>
#include <string.h>
#include "engine/shared.h"
#include "engine/engine.h"
#include "io/database_private.h"
#include "engine/answers.h"
#include "engine/confidence.h"
#include "engine/dispatch.h"
#include "engine/options.h"
#include <msperf/paths.h>

/* ------------------------------------------------------------------ life cycle */

static msperf_engine *
handle_new (msperf_engine_shared *shared)
{
  msperf_engine *e = g_new0 (msperf_engine, 1);

  e->shared = shared;
  e->answers = msperf_answers_new ();
  return e;
}

msperf_engine *
msperf_engine_new (void)
{
  return handle_new (msperf_shared_new ());
}

msperf_engine *
msperf_engine_new_session (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL && e->shared->started, NULL);
  g_atomic_int_inc (&e->shared->refcount);
  return handle_new (e->shared);
}

void
msperf_engine_free (msperf_engine *e)
{
  if (e == NULL)
    return;
  /* Cached answers may hold strings from modules' static data: drop them before the shared
   * state (and so the modules) can go. */
  msperf_answers_free (e->answers);
  msperf_answers_scratch_free (e);
  msperf_shared_release_handle (e);
  g_free (e);
}

void
msperf_engine_add_plugin_dir (msperf_engine *e, const char *dir)
{
  g_return_if_fail (e != NULL && dir != NULL && !e->shared->started);
  g_ptr_array_add (e->shared->plugin_dirs, g_strdup (dir));
}

void
msperf_engine_set_plugin_search_defaults (msperf_engine *e, gboolean use_defaults)
{
  g_return_if_fail (e != NULL && !e->shared->started);
  e->shared->use_default_dirs = use_defaults;
}

gboolean
msperf_engine_load_policy (msperf_engine *e, const char *path, GError **error)
{
  msperf_policy *trial;
  gboolean ok;

  g_return_val_if_fail (e != NULL && path != NULL && !e->shared->started, FALSE);
  /* Validate now so a bad --policy is reported before any work; merged again at start in
   * its precedence slot (after the database). */
  trial = msperf_policy_new_defaults ();
  ok = msperf_policy_merge_file (trial, path, error);
  msperf_policy_free (trial);
  if (!ok)
    return FALSE;
  g_free (e->shared->policy_path);
  e->shared->policy_path = g_strdup (path);
  return TRUE;
}

gboolean
msperf_engine_set_override (msperf_engine *e, const char *key, const char *value, GError **error)
{
  msperf_policy *trial;
  gboolean ok;

  g_return_val_if_fail (e != NULL && key != NULL && value != NULL && !e->shared->started, FALSE);
  trial = msperf_policy_new_defaults ();
  ok = msperf_policy_set (trial, key, value, error);
  msperf_policy_free (trial);
  if (!ok)
    return FALSE;
  g_ptr_array_add (e->shared->override_keys, g_strdup (key));
  g_ptr_array_add (e->shared->override_values, g_strdup (value));
  return TRUE;
}

gboolean
msperf_engine_open_database (msperf_engine *e, const char *dir, const char *root, GError **error)
{
  msperf_database *db;

  g_return_val_if_fail (e != NULL && dir != NULL && !e->shared->started, FALSE);
  db = msperf_database_open (dir, root, error);
  if (db == NULL)
    return FALSE;
  msperf_database_free (e->shared->db);
  e->shared->db = db;
  return TRUE;
}

gboolean
msperf_engine_set_device_profile (msperf_engine *e, const char *name_or_path, GError **error)
{
  g_return_val_if_fail (e != NULL && name_or_path != NULL && !e->shared->started, FALSE);
  (void) error;
  g_free (e->shared->device_request);
  e->shared->device_request = g_strdup (name_or_path);
  return TRUE;
}

void
msperf_engine_set_cache_dir (msperf_engine *e, const char *dir)
{
  g_return_if_fail (e != NULL && !e->shared->started);
  g_free (e->shared->cache_dir);
  e->shared->cache_dir = g_strdup (dir);
}

/* TRUE when the effective policy's value at path is the built-in one. */
static gboolean
same_value (const msperf_policy *policy, const char *path)
{
  g_autoptr (msperf_policy) builtin = msperf_policy_new_defaults ();
  g_autofree char *a = msperf_value_canonical_json (msperf_policy_get (policy, path));
  g_autofree char *b = msperf_value_canonical_json (msperf_policy_get (builtin, path));

  return g_strcmp0 (a, b) == 0;
}

/* built-in < database < --policy < flags (ARCHITECTURE § Policies). */
static gboolean
merge_policy (msperf_engine *e, GError **error)
{
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);

  e->shared->policy = msperf_policy_new_defaults ();
  if (e->shared->db && !msperf_policy_merge_database (e->shared->policy, e->shared->db, warnings, error))
    return FALSE;
  for (guint k = 0; k < warnings->len; k++)
    msperf_shared_warn (e, g_ptr_array_index (warnings, k));
  if (e->shared->policy_path && !msperf_policy_merge_file (e->shared->policy, e->shared->policy_path, error))
    return FALSE;
  for (guint k = 0; k < e->shared->override_keys->len; k++)
    if (!msperf_policy_set (e->shared->policy, g_ptr_array_index (e->shared->override_keys, k),
                            g_ptr_array_index (e->shared->override_values, k), error))
      return FALSE;
  e->shared->modes_builtin = same_value (e->shared->policy, "interpolation.modes");
  e->shared->policy_json = msperf_policy_canonical_json (e->shared->policy);
  e->shared->policy_hash = msperf_policy_hash (e->shared->policy);
  return TRUE;
}

static int64_t
policy_int (msperf_engine *e, const char *path, int64_t fallback)
{
  int64_t v;
  return msperf_value_get_int (msperf_policy_get (e->shared->policy, path), &v) ? v : fallback;
}

static void
read_parallel (msperf_engine *e)
{
  const msperf_value *sp = msperf_policy_get (e->shared->policy, "parallel.sequence_parallel");

  e->shared->parallel.tp_size = policy_int (e, "parallel.tp_size", 1);
  e->shared->parallel.ep_size = policy_int (e, "parallel.ep_size", 0);
  e->shared->parallel.dp_size = policy_int (e, "parallel.dp_size", 1);
  e->shared->parallel.world_size = policy_int (e, "parallel.world_size", 1);
  e->shared->parallel.sequence_parallel = sp && sp->kind == MSPERF_VALUE_BOOL && sp->b;
}

/* --device-profile, else analytic.device_profile: resolved at start so a bad name is a
 * configuration error before any work. */
static gboolean
pick_requested_device (msperf_engine *e, GError **error)
{
  g_autofree char *dir = msperf_paths_data_file ("policies/devices", "policies/devices");
  const char *dirs[] = { dir, NULL };
  const char *request = e->shared->device_request;

  if (request == NULL)
    request = msperf_value_get_string (msperf_policy_get (e->shared->policy, "analytic.device_profile"));
  if (request == NULL)
    return TRUE;
  e->shared->device = msperf_device_find (request, dirs, error);
  return e->shared->device != NULL;
}

gboolean
msperf_engine_start (msperf_engine *e, GError **error)
{
  g_autoptr (GPtrArray) dirs = NULL;
  g_autoptr (GHashTable) disabled = NULL;

  g_return_val_if_fail (e != NULL && !e->shared->started, FALSE);
  if (!merge_policy (e, error))
    return FALSE;
  msperf_confidence_prepare (e);
  read_parallel (e);
  if (!pick_requested_device (e, error))
    return FALSE;
  /* The registry wants a NULL-terminated list: terminate pdata for the call only. */
  g_ptr_array_add (e->shared->plugin_dirs, NULL);
  dirs = msperf_registry_search_path ((const char *const *) e->shared->plugin_dirs->pdata,
                                      e->shared->use_default_dirs);
  g_ptr_array_remove_index (e->shared->plugin_dirs, e->shared->plugin_dirs->len - 1);
  /* pdata of an empty GPtrArray may be NULL; the registry accepts NULL-terminated lists. */
  g_ptr_array_add (dirs, NULL);
  disabled = msperf_policy_disabled_modules (e->shared->policy);
  e->shared->registry = msperf_registry_new ();
  if (e->shared->cache_dir)
    {
      /* The interpolation stage would make it lazily; it needs the cache directory first. */
      e->shared->index_cache = msperf_index_cache_new ();
      msperf_index_cache_set_tri_dir (e->shared->index_cache, e->shared->cache_dir);
      /* The parsed tables go beside the triangulations (same options, same directory). */
      if (e->shared->db)
        msperf_database_set_table_cache_dir (e->shared->db, e->shared->cache_dir);
    }
  e->shared->started = TRUE;
  msperf_registry_load (e->shared->registry, (const char *const *) dirs->pdata, disabled, e);
  return msperf_engine_check_module_options (e, error);
}

/* ------------------------------------------------------------------ queries and services */

void
msperf_engine_drop_tables (msperf_engine *e)
{
  g_return_if_fail (e != NULL);
  msperf_shared_lock (e);
  if (e->shared->db)
    msperf_database_clear_cache (e->shared->db);
  if (e->shared->index_cache)
    msperf_index_cache_clear (e->shared->index_cache);
  msperf_shared_unlock (e);
  msperf_answers_clear (e->answers);
}

const GPtrArray *
msperf_engine_plugins (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL && e->shared->started, NULL);
  return msperf_registry_infos (e->shared->registry);
}

gboolean
msperf_engine_has_module (msperf_engine *e, const char *name)
{
  void *state;

  g_return_val_if_fail (e != NULL && e->shared->started, FALSE);
  return msperf_registry_lookup (e->shared->registry, name, &state) != NULL;
}
msperf_result *
msperf_engine_query (msperf_engine *e, const msperf_op *op)
{
  g_return_val_if_fail (e != NULL && e->shared->started && op != NULL, NULL);
  return msperf_dispatch_query (e, op);
}
