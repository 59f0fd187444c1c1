/* msperf — the engine: configuration, start-up (policy merge, modules, device profile) and
 * the services modules call. The stage order itself is in dispatch.c. */
/* PTHREAD_MUTEX_RECURSIVE is XSI. */
#define _XOPEN_SOURCE 700
#include <config.h>
#include <math.h>
#include <string.h>
#include "engine/engine_private.h"
#include "engine/confidence.h"
#include <msperf/paths.h>
#include "engine/roofline.h"
#include "io/database_private.h"

/* ------------------------------------------------------------------ life cycle */

static msperf_engine_model *
model_new (void)
{
  msperf_engine_model *m = g_new0 (msperf_engine_model, 1);
  pthread_mutexattr_t attr;

  m->refcount = 1;
  pthread_mutexattr_init (&attr);
  pthread_mutexattr_settype (&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init (&m->lock, &attr);
  pthread_mutexattr_destroy (&attr);
  m->plugin_dirs = g_ptr_array_new_with_free_func (g_free);
  m->use_default_dirs = TRUE;
  m->override_keys = g_ptr_array_new_with_free_func (g_free);
  m->override_values = g_ptr_array_new_with_free_func (g_free);
  m->warnings = g_ptr_array_new_with_free_func (g_free);
  m->parallel = (msperf_parallel){ .tp_size = 1, .ep_size = 0, .dp_size = 1, .world_size = 1 };
  return m;
}

static void
model_unref (msperf_engine_model *m)
{
  if (!g_atomic_int_dec_and_test (&m->refcount))
    return;
  msperf_index_cache_free (m->index_cache);
  if (m->option_defaults)
    g_hash_table_unref (m->option_defaults);
  msperf_registry_free (m->registry);
  msperf_database_free (m->db);
  msperf_policy_free (m->policy);
  msperf_device_free (m->device);
  g_free (m->policy_json);
  g_free (m->policy_hash);
  g_free (m->policy_path);
  g_free (m->device_request);
  g_free (m->cache_dir);
  g_ptr_array_unref (m->plugin_dirs);
  g_ptr_array_unref (m->override_keys);
  g_ptr_array_unref (m->override_values);
  g_ptr_array_unref (m->warnings);
  pthread_mutex_destroy (&m->lock);
  g_free (m);
}

static msperf_engine *
handle_new (msperf_engine_model *m)
{
  msperf_engine *e = g_new0 (msperf_engine, 1);

  e->m = m;
  e->answers = msperf_dispatch_answers_new ();
  return e;
}

msperf_engine *
msperf_engine_new (void)
{
  return handle_new (model_new ());
}

msperf_engine *
msperf_engine_new_session (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL && e->m->started, NULL);
  g_atomic_int_inc (&e->m->refcount);
  return handle_new (e->m);
}

/* The model lock is held for lookups of well under a microsecond, ~9 times an interpolated
 * answer: under `estimate --jobs 2` a waiter that slept at once cost two futex calls and a
 * context switch per collision (5 000 a 20 000-query trace, a third of the jobs' overhead).
 * It first retries for about as long as a lookup holds the lock; pthread_mutex_trylock on this
 * recursive mutex also succeeds at once for the thread that holds it. */
#define MODEL_LOCK_SPINS 200

static inline void
cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#elif defined(__aarch64__)
  __asm__ __volatile__ ("yield");
#endif
}

void
msperf_model_lock (msperf_engine *e)
{
  for (int k = 0; k < MODEL_LOCK_SPINS; k++)
    {
      if (pthread_mutex_trylock (&e->m->lock) == 0)
        return;
      cpu_relax ();
    }
  pthread_mutex_lock (&e->m->lock);
}

void
msperf_model_unlock (msperf_engine *e)
{
  pthread_mutex_unlock (&e->m->lock);
}

static void
option_memo_clear (msperf_option_memo *m)
{
  g_free (m->block);
  g_free (m->kernel);
  g_free (m->key);
  *m = (msperf_option_memo){ 0 };
}

void
msperf_engine_free (msperf_engine *e)
{
  if (e == NULL)
    return;
  /* Cached answers may hold strings from modules' static data: drop them before the model
   * (and so the modules) can go. */
  msperf_dispatch_answers_free (e->answers);
  msperf_dispatch_scratch_free (e);
  for (guint k = 0; k < e->option_memo_len; k++)
    option_memo_clear (&e->option_memo[k]);
  g_clear_pointer (&e->table_memo, g_hash_table_unref);
  model_unref (e->m);
  g_free (e);
}

void
msperf_engine_add_plugin_dir (msperf_engine *e, const char *dir)
{
  g_return_if_fail (e != NULL && dir != NULL && !e->m->started);
  g_ptr_array_add (e->m->plugin_dirs, g_strdup (dir));
}

void
msperf_engine_set_plugin_search_defaults (msperf_engine *e, gboolean use_defaults)
{
  g_return_if_fail (e != NULL && !e->m->started);
  e->m->use_default_dirs = use_defaults;
}

gboolean
msperf_engine_load_policy (msperf_engine *e, const char *path, GError **error)
{
  msperf_policy *trial;
  gboolean ok;

  g_return_val_if_fail (e != NULL && path != NULL && !e->m->started, FALSE);
  /* Validate now so a bad --policy is reported before any work; merged again at start in
   * its precedence slot (after the database). */
  trial = msperf_policy_new_defaults ();
  ok = msperf_policy_merge_file (trial, path, error);
  msperf_policy_free (trial);
  if (!ok)
    return FALSE;
  g_free (e->m->policy_path);
  e->m->policy_path = g_strdup (path);
  return TRUE;
}

gboolean
msperf_engine_set_override (msperf_engine *e, const char *key, const char *value, GError **error)
{
  msperf_policy *trial;
  gboolean ok;

  g_return_val_if_fail (e != NULL && key != NULL && value != NULL && !e->m->started, FALSE);
  trial = msperf_policy_new_defaults ();
  ok = msperf_policy_set (trial, key, value, error);
  msperf_policy_free (trial);
  if (!ok)
    return FALSE;
  g_ptr_array_add (e->m->override_keys, g_strdup (key));
  g_ptr_array_add (e->m->override_values, g_strdup (value));
  return TRUE;
}

gboolean
msperf_engine_open_database (msperf_engine *e, const char *dir, const char *root, GError **error)
{
  msperf_database *db;

  g_return_val_if_fail (e != NULL && dir != NULL && !e->m->started, FALSE);
  db = msperf_database_open (dir, root, error);
  if (db == NULL)
    return FALSE;
  msperf_database_free (e->m->db);
  e->m->db = db;
  return TRUE;
}

gboolean
msperf_engine_set_device_profile (msperf_engine *e, const char *name_or_path, GError **error)
{
  g_return_val_if_fail (e != NULL && name_or_path != NULL && !e->m->started, FALSE);
  (void) error;
  g_free (e->m->device_request);
  e->m->device_request = g_strdup (name_or_path);
  return TRUE;
}

void
msperf_engine_set_cache_dir (msperf_engine *e, const char *dir)
{
  g_return_if_fail (e != NULL && !e->m->started);
  g_free (e->m->cache_dir);
  e->m->cache_dir = g_strdup (dir);
}

static void
warn (msperf_engine *e, const char *message)
{
  g_warning ("%s", message);
  msperf_model_lock (e);
  g_ptr_array_add (e->m->warnings, g_strdup (message));
  msperf_model_unlock (e);
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

  e->m->policy = msperf_policy_new_defaults ();
  if (e->m->db && !msperf_policy_merge_database (e->m->policy, e->m->db, warnings, error))
    return FALSE;
  for (guint k = 0; k < warnings->len; k++)
    warn (e, g_ptr_array_index (warnings, k));
  if (e->m->policy_path && !msperf_policy_merge_file (e->m->policy, e->m->policy_path, error))
    return FALSE;
  for (guint k = 0; k < e->m->override_keys->len; k++)
    if (!msperf_policy_set (e->m->policy, g_ptr_array_index (e->m->override_keys, k),
                            g_ptr_array_index (e->m->override_values, k), error))
      return FALSE;
  e->m->modes_builtin = same_value (e->m->policy, "interpolation.modes");
  e->m->policy_json = msperf_policy_canonical_json (e->m->policy);
  e->m->policy_hash = msperf_policy_hash (e->m->policy);
  return TRUE;
}

static int64_t
policy_int (msperf_engine *e, const char *path, int64_t fallback)
{
  int64_t v;
  return msperf_value_get_int (msperf_policy_get (e->m->policy, path), &v) ? v : fallback;
}

static void
read_parallel (msperf_engine *e)
{
  const msperf_value *sp = msperf_policy_get (e->m->policy, "parallel.sequence_parallel");

  e->m->parallel.tp_size = policy_int (e, "parallel.tp_size", 1);
  e->m->parallel.ep_size = policy_int (e, "parallel.ep_size", 0);
  e->m->parallel.dp_size = policy_int (e, "parallel.dp_size", 1);
  e->m->parallel.world_size = policy_int (e, "parallel.world_size", 1);
  e->m->parallel.sequence_parallel = sp && sp->kind == MSPERF_VALUE_BOOL && sp->b;
}

/* --device-profile, else analytic.device_profile: resolved at start so a bad name is a
 * configuration error before any work. */
static gboolean
pick_requested_device (msperf_engine *e, GError **error)
{
  g_autofree char *dir = msperf_paths_data_file ("policies/devices", "policies/devices");
  const char *dirs[] = { dir, NULL };
  const char *request = e->m->device_request;

  if (request == NULL)
    request = msperf_value_get_string (msperf_policy_get (e->m->policy, "analytic.device_profile"));
  if (request == NULL)
    return TRUE;
  e->m->device = msperf_device_find (request, dirs, error);
  return e->m->device != NULL;
}

/* Otherwise the profile aliased to the database's device, else nvidia-h200 with a warning
 * (FORMATS §4) — decided on first use, so commands that never cost an op (plugins, validate)
 * do not warn about a roofline they do not run. */
static const msperf_device *engine_device_locked (msperf_engine *e);

static const msperf_device *
engine_device (msperf_engine *e)
{
  const msperf_device *d;

  if (e->device_known)
    return e->device;
  msperf_model_lock (e);
  d = engine_device_locked (e);
  /* Resolved after start (found, or failed for good; start may still pick a requested
   * one): this handle need not ask the model again. */
  e->device_known = e->m->started && (d != NULL || e->m->device_failed);
  e->device = d;
  msperf_model_unlock (e);
  return d;
}

static const msperf_device *
engine_device_locked (msperf_engine *e)
{
  g_autofree char *dir = NULL;
  const char *device_key;
  g_autoptr (GError) error = NULL;

  if (e->m->device || e->m->device_failed)
    return e->m->device;
  dir = msperf_paths_data_file ("policies/devices", "policies/devices");
  const char *dirs[] = { dir, NULL };
  device_key = e->m->db ? msperf_database_device (e->m->db) : NULL;
  if (device_key)
    e->m->device = msperf_device_find_alias (device_key, dirs);
  if (e->m->device == NULL)
    {
      g_autofree char *msg = g_strdup_printf (
        "no device profile given%s%s%s: the roofline uses nvidia-h200",
        device_key ? " and none is aliased to the database device '" : "",
        device_key ? device_key : "", device_key ? "'" : "");
      warn (e, msg);
      e->m->device = msperf_device_find ("nvidia-h200", dirs, &error);
      if (e->m->device == NULL)
        {
          g_autofree char *fail = g_strdup_printf ("no roofline: %s", error->message);
          warn (e, fail);
          e->m->device_failed = TRUE;
        }
    }
  return e->m->device;
}

gboolean
msperf_engine_start (msperf_engine *e, GError **error)
{
  g_autoptr (GPtrArray) dirs = NULL;
  g_autoptr (GHashTable) disabled = NULL;

  g_return_val_if_fail (e != NULL && !e->m->started, FALSE);
  if (!merge_policy (e, error))
    return FALSE;
  msperf_confidence_prepare (e);
  read_parallel (e);
  if (!pick_requested_device (e, error))
    return FALSE;
  /* The registry wants a NULL-terminated list: terminate pdata for the call only. */
  g_ptr_array_add (e->m->plugin_dirs, NULL);
  dirs = msperf_registry_search_path ((const char *const *) e->m->plugin_dirs->pdata,
                                      e->m->use_default_dirs);
  g_ptr_array_remove_index (e->m->plugin_dirs, e->m->plugin_dirs->len - 1);
  /* pdata of an empty GPtrArray may be NULL; the registry accepts NULL-terminated lists. */
  g_ptr_array_add (dirs, NULL);
  disabled = msperf_policy_disabled_modules (e->m->policy);
  e->m->registry = msperf_registry_new ();
  if (e->m->cache_dir)
    {
      /* The interpolation stage would make it lazily; it needs the cache directory first. */
      e->m->index_cache = msperf_index_cache_new ();
      msperf_index_cache_set_tri_dir (e->m->index_cache, e->m->cache_dir);
    }
  e->m->started = TRUE;
  msperf_registry_load (e->m->registry, (const char *const *) dirs->pdata, disabled, e);
  return msperf_engine_check_module_options (e, error);
}

/* ------------------------------------------------------------------ queries and services */

void
msperf_engine_drop_tables (msperf_engine *e)
{
  g_return_if_fail (e != NULL);
  msperf_model_lock (e);
  if (e->m->db)
    msperf_database_clear_cache (e->m->db);
  if (e->m->index_cache)
    msperf_index_cache_clear (e->m->index_cache);
  msperf_model_unlock (e);
  msperf_dispatch_answers_clear (e->answers);
}

const GPtrArray *
msperf_engine_plugins (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL && e->m->started, NULL);
  return msperf_registry_infos (e->m->registry);
}

gboolean
msperf_engine_has_module (msperf_engine *e, const char *name)
{
  void *state;

  g_return_val_if_fail (e != NULL && e->m->started, FALSE);
  return msperf_registry_lookup (e->m->registry, name, &state) != NULL;
}

const msperf_device *
msperf_engine_device (msperf_engine *e)
{
  return engine_device (e);
}

gboolean
msperf_engine_comm_grid (msperf_engine *e, const int64_t **dims, size_t *n)
{
  const msperf_device *d;

  g_return_val_if_fail (e != NULL && dims != NULL && n != NULL, FALSE);
  d = engine_device (e);
  *dims = NULL;
  *n = 0;
  if (d == NULL || d->comm_grid == NULL || d->comm_grid->len == 0)
    return FALSE;
  *dims = (const int64_t *) (void *) d->comm_grid->data;
  *n = d->comm_grid->len;
  return TRUE;
}

msperf_result *
msperf_engine_query (msperf_engine *e, const msperf_op *op)
{
  g_return_val_if_fail (e != NULL && e->m->started && op != NULL, NULL);
  return msperf_dispatch_query (e, op);
}

double
msperf_engine_analytic_latency (msperf_engine *e, const msperf_op *op)
{
  msperf_roofline r;

  g_return_val_if_fail (e != NULL && op != NULL, NAN);
  msperf_roofline_estimate_parallel (engine_device (e), &e->m->parallel, op, &r);
  return r.latency_us;
}

msperf_database *
msperf_engine_database (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  return e->m->db;
}

const msperf_table *
msperf_engine_table (msperf_engine *e, const char *kernel_type, GError **error)
{
  const msperf_table *t;
  guint gen;

  g_return_val_if_fail (e != NULL && kernel_type != NULL, NULL);
  if (e->m->db == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND,
                   "no profiling database is open");
      return NULL;
    }
  /* the database's generation: msperf_database_clear_cache is public, not only drop_tables */
  gen = msperf_database_generation (e->m->db);
  if (e->table_memo && e->table_memo_gen == gen
      && (t = g_hash_table_lookup (e->table_memo, kernel_type)) != NULL)
    return t;
  msperf_model_lock (e);
  t = msperf_database_table (e->m->db, kernel_type, error);
  msperf_model_unlock (e);
  /* Only loaded tables are kept: a failure is asked again (its error is the database's). */
  if (t != NULL)
    {
      if (e->table_memo == NULL || e->table_memo_gen != gen)
        {
          g_clear_pointer (&e->table_memo, g_hash_table_unref);
          e->table_memo = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
          e->table_memo_gen = gen;
        }
      g_hash_table_insert (e->table_memo, g_strdup (kernel_type), (gpointer) t);
    }
  return t;
}

const msperf_value *
msperf_engine_kernel_option (msperf_engine *e, const char *block, const char *kernel,
                             const char *key)
{
  msperf_option_memo *m;
  const msperf_value *v;

  g_return_val_if_fail (e != NULL && block != NULL && kernel != NULL && key != NULL, NULL);
  /* Every exact hit asks a few of these (the latency policy); each walked the database
   * document or printed a policy path. A run asks few distinct ones: remember them. */
  for (guint k = 0; e->m->started && k < e->option_memo_len; k++)
    {
      m = &e->option_memo[k];
      if (strcmp (m->key, key) == 0 && strcmp (m->kernel, kernel) == 0
          && strcmp (m->block, block) == 0)
        return m->value;
    }
  /* The effective policy already holds the database's interpolation_policy beneath the
   * --policy file; the other blocks exist only in the database. */
  if (strcmp (block, "interpolation_policy") == 0 && e->m->policy)
    {
      g_autofree char *path = g_strdup_printf ("interpolation.kernel_overrides.%s.%s", kernel, key);
      v = msperf_policy_get (e->m->policy, path);
    }
  else
    v = e->m->db ? msperf_database_kernel_option (e->m->db, block, kernel, key) : NULL;
  if (!e->m->started)
    return v;
  if (e->option_memo_len < MSPERF_OPTION_MEMO_SIZE)
    m = &e->option_memo[e->option_memo_len++];
  else
    {
      m = &e->option_memo[e->option_memo_next];
      e->option_memo_next = (e->option_memo_next + 1) % MSPERF_OPTION_MEMO_SIZE;
      option_memo_clear (m);
    }
  m->block = g_strdup (block);
  m->kernel = g_strdup (kernel);
  m->key = g_strdup (key);
  m->value = v;
  return v;
}

gboolean
msperf_engine_kernel_flag (msperf_engine *e, const char *block, const char *kernel,
                           const char *key)
{
  const msperf_value *v = msperf_engine_kernel_option (e, block, kernel, key);
  return v != NULL && v->kind == MSPERF_VALUE_BOOL && v->b;
}

const msperf_parallel *
msperf_engine_parallel (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  return &e->m->parallel;
}

const msperf_value *
msperf_engine_policy_value (msperf_engine *e, const char *path)
{
  g_return_val_if_fail (e != NULL && path != NULL, NULL);
  return e->m->policy ? msperf_policy_get (e->m->policy, path) : NULL;
}

const char *
msperf_engine_policy_hash (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  return e->m->policy_hash;
}

const char *
msperf_engine_policy_json (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  return e->m->policy_json;
}

const char *
msperf_engine_device_name (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  return engine_device (e) ? e->m->device->name : NULL;
}

double
msperf_engine_device_memory_gib (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NAN);
  return engine_device (e) ? e->m->device->memory_gib : NAN;
}

double
msperf_engine_vector_clock_ghz (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NAN);
  return engine_device (e) ? e->m->device->vector_clock_ghz : NAN;
}
