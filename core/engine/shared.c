/* msperf — the state every handle of a started engine shares, its lock, and the services on
 * it that every stage and every module calls (include/msperf/host.h): tables, kernel options,
 * the policy, the device profile. The bottom of core/engine: it calls no other file of it. */
/* PTHREAD_MUTEX_RECURSIVE is XSI. */
#define _XOPEN_SOURCE 700
#include <config.h>
#include <math.h>
#include <string.h>
#include "engine/shared.h"
#include <msperf/host.h>
#include <msperf/paths.h>
#include "engine/roofline.h"
#include "io/database_private.h"

/* ------------------------------------------------------------------ the shared state */

msperf_engine_shared *
msperf_shared_new (void)
{
  msperf_engine_shared *s = g_new0 (msperf_engine_shared, 1);
  pthread_mutexattr_t attr;

  s->refcount = 1;
  pthread_mutexattr_init (&attr);
  pthread_mutexattr_settype (&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init (&s->lock, &attr);
  pthread_mutexattr_destroy (&attr);
  s->plugin_dirs = g_ptr_array_new_with_free_func (g_free);
  s->use_default_dirs = TRUE;
  s->override_keys = g_ptr_array_new_with_free_func (g_free);
  s->override_values = g_ptr_array_new_with_free_func (g_free);
  s->warnings = g_ptr_array_new_with_free_func (g_free);
  s->parallel = (msperf_parallel){ .tp_size = 1, .ep_size = 0, .dp_size = 1, .world_size = 1 };
  return s;
}

void
msperf_shared_unref (msperf_engine_shared *s)
{
  if (!g_atomic_int_dec_and_test (&s->refcount))
    return;
  msperf_index_cache_free (s->index_cache);
  if (s->option_defaults)
    g_hash_table_unref (s->option_defaults);
  msperf_registry_free (s->registry);
  msperf_database_free (s->db);
  msperf_policy_free (s->policy);
  msperf_device_free (s->device);
  g_free (s->policy_json);
  g_free (s->policy_hash);
  g_free (s->policy_path);
  g_free (s->device_request);
  g_free (s->cache_dir);
  g_ptr_array_unref (s->plugin_dirs);
  g_ptr_array_unref (s->override_keys);
  g_ptr_array_unref (s->override_values);
  g_ptr_array_unref (s->warnings);
  pthread_mutex_destroy (&s->lock);
  g_free (s);
}

/* The shared lock is held for lookups of well under a microsecond, ~9 times an interpolated
 * answer: under `estimate --jobs 2` a waiter that slept at once cost two futex calls and a
 * context switch per collision (5 000 a 20 000-query trace, a third of the jobs' overhead).
 * It first retries for about as long as a lookup holds the lock; pthread_mutex_trylock on this
 * recursive mutex also succeeds at once for the thread that holds it. */
#define SHARED_LOCK_SPINS 200

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
msperf_shared_lock (msperf_engine *e)
{
  for (int k = 0; k < SHARED_LOCK_SPINS; k++)
    {
      if (pthread_mutex_trylock (&e->shared->lock) == 0)
        return;
      cpu_relax ();
    }
  pthread_mutex_lock (&e->shared->lock);
}

void
msperf_shared_unlock (msperf_engine *e)
{
  pthread_mutex_unlock (&e->shared->lock);
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
msperf_shared_release_handle (msperf_engine *e)
{
  for (guint k = 0; k < e->option_memo_len; k++)
    option_memo_clear (&e->option_memo[k]);
  g_clear_pointer (&e->table_memo, g_hash_table_unref);
  msperf_shared_unref (e->shared);
}

void
msperf_shared_warn (msperf_engine *e, const char *message)
{
  g_warning ("%s", message);
  msperf_shared_lock (e);
  g_ptr_array_add (e->shared->warnings, g_strdup (message));
  msperf_shared_unlock (e);
}

/* ------------------------------------------------------------------ services */


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
  msperf_shared_lock (e);
  d = engine_device_locked (e);
  /* Resolved after start (found, or failed for good; start may still pick a requested
   * one): this handle need not ask the shared state again. */
  e->device_known = e->shared->started && (d != NULL || e->shared->device_failed);
  e->device = d;
  msperf_shared_unlock (e);
  return d;
}

static const msperf_device *
engine_device_locked (msperf_engine *e)
{
  g_autofree char *dir = NULL;
  const char *device_key;
  g_autoptr (GError) error = NULL;

  if (e->shared->device || e->shared->device_failed)
    return e->shared->device;
  dir = msperf_paths_data_file ("policies/devices", "policies/devices");
  const char *dirs[] = { dir, NULL };
  device_key = e->shared->db ? msperf_database_device (e->shared->db) : NULL;
  if (device_key)
    e->shared->device = msperf_device_find_alias (device_key, dirs);
  if (e->shared->device == NULL)
    {
      g_autofree char *msg = g_strdup_printf (
        "no device profile given%s%s%s: the roofline uses nvidia-h200",
        device_key ? " and none is aliased to the database device '" : "",
        device_key ? device_key : "", device_key ? "'" : "");
      msperf_shared_warn (e, msg);
      e->shared->device = msperf_device_find ("nvidia-h200", dirs, &error);
      if (e->shared->device == NULL)
        {
          g_autofree char *fail = g_strdup_printf ("no roofline: %s", error->message);
          msperf_shared_warn (e, fail);
          e->shared->device_failed = TRUE;
        }
    }
  return e->shared->device;
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

double
msperf_engine_analytic_latency (msperf_engine *e, const msperf_op *op)
{
  msperf_roofline r;

  g_return_val_if_fail (e != NULL && op != NULL, NAN);
  msperf_roofline_estimate_parallel (engine_device (e), &e->shared->parallel, op, &r);
  return r.latency_us;
}

double
msperf_engine_roofline_us (msperf_engine *e, const msperf_op *op)
{
  return msperf_engine_analytic_latency (e, op);
}

msperf_database *
msperf_engine_database (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  return e->shared->db;
}

const msperf_table *
msperf_engine_table (msperf_engine *e, const char *kernel_type, GError **error)
{
  const msperf_table *t;
  guint gen;

  g_return_val_if_fail (e != NULL && kernel_type != NULL, NULL);
  if (e->shared->db == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND,
                   "no profiling database is open");
      return NULL;
    }
  /* the database's generation: msperf_database_clear_cache is public, not only drop_tables */
  gen = msperf_database_generation (e->shared->db);
  if (e->table_memo && e->table_memo_gen == gen
      && (t = g_hash_table_lookup (e->table_memo, kernel_type)) != NULL)
    return t;
  msperf_shared_lock (e);
  t = msperf_database_table (e->shared->db, kernel_type, error);
  msperf_shared_unlock (e);
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
  for (guint k = 0; e->shared->started && k < e->option_memo_len; k++)
    {
      m = &e->option_memo[k];
      if (strcmp (m->key, key) == 0 && strcmp (m->kernel, kernel) == 0
          && strcmp (m->block, block) == 0)
        return m->value;
    }
  /* The effective policy already holds the database's interpolation_policy beneath the
   * --policy file; the other blocks exist only in the database. */
  if (strcmp (block, "interpolation_policy") == 0 && e->shared->policy)
    {
      g_autofree char *path = g_strdup_printf ("interpolation.kernel_overrides.%s.%s", kernel, key);
      v = msperf_policy_get (e->shared->policy, path);
    }
  else
    v = e->shared->db ? msperf_database_kernel_option (e->shared->db, block, kernel, key) : NULL;
  if (!e->shared->started)
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
  return &e->shared->parallel;
}

const msperf_value *
msperf_engine_policy_value (msperf_engine *e, const char *path)
{
  g_return_val_if_fail (e != NULL && path != NULL, NULL);
  return e->shared->policy ? msperf_policy_get (e->shared->policy, path) : NULL;
}

const char *
msperf_engine_policy_hash (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  return e->shared->policy_hash;
}

const char *
msperf_engine_policy_json (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  return e->shared->policy_json;
}

const char *
msperf_engine_device_name (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  return engine_device (e) ? e->shared->device->name : NULL;
}

gboolean
msperf_engine_device_is (msperf_engine *e, const char *name)
{
  const msperf_device *d;

  g_return_val_if_fail (e != NULL && name != NULL, FALSE);
  if ((d = engine_device (e)) == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (d->name, name) == 0)
    return TRUE;
  for (char *const *a = d->aliases; *a != NULL; a++)
    if (g_ascii_strcasecmp (*a, name) == 0)
      return TRUE;
  return FALSE;
}

double
msperf_engine_device_memory_gib (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NAN);
  return engine_device (e) ? e->shared->device->memory_gib : NAN;
}

int64_t
msperf_engine_node_devices (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, 0);
  return engine_device (e) ? e->shared->device->node_devices : 0;
}

double
msperf_engine_vector_clock_ghz (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NAN);
  return engine_device (e) ? e->shared->device->vector_clock_ghz : NAN;
}
