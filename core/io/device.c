/* msperf — device profiles (FORMATS §4). */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/error.h>
#include "io/device.h"
#include "io/yaml_doc.h"

static void
tier_free (gpointer p)
{
  msperf_comm_tier *t = p;
  g_free (t->name);
  g_free (t);
}

void
msperf_device_free (msperf_device *d)
{
  if (d == NULL)
    return;
  g_free (d->name);
  g_free (d->path);
  g_strfreev (d->aliases);
  if (d->comm_grid)
    g_array_unref (d->comm_grid);
  if (d->tiers)
    g_ptr_array_unref (d->tiers);
  if (d->node_tier)
    tier_free (d->node_tier);
  msperf_op_families_free (d->families);
  g_free (d);
}

double
msperf_device_peak_tflops (const msperf_device *d, msperf_dtype dtype)
{
  g_return_val_if_fail (d != NULL, NAN);
  if ((int) dtype < 0 || dtype >= MSPERF_DTYPE_N_TYPES)
    return NAN;
  return d->peak_tflops[dtype];
}

static gboolean
check_keys (const msperf_value *map, const char *const *allowed, const char *file,
            const char *where, GError **error)
{
  for (guint k = 0; k < map->keys->len; k++)
    {
      const char *key = g_ptr_array_index (map->keys, k);
      if (!g_strv_contains (allowed, key))
        {
          const msperf_value *v = g_ptr_array_index (map->items, k);
          if (where)
            msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line,
                                   "unknown key '%s' in '%s'", key, where);
          else
            msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line,
                                   "unknown key '%s'", key);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
expect_map (const msperf_value *v, const char *file, const char *key, GError **error)
{
  g_autofree char *got = NULL;

  if (v->kind == MSPERF_VALUE_MAP)
    return TRUE;
  got = msperf_yaml_describe (v);
  msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line,
                         "key '%s': expected a mapping, got %s", key, got);
  return FALSE;
}

/* A number > 0 (>= 0 when zero_ok); NULL/absent keys are handled by the caller. */
static gboolean
positive (const msperf_value *v, const char *file, const char *key, gboolean zero_ok,
          double *out, GError **error)
{
  if (!msperf_yaml_value_double (v, file, key, out, error))
    return FALSE;
  if (!isfinite (*out) || *out < 0 || (*out == 0 && !zero_ok))
    {
      g_autofree char *got = msperf_yaml_describe (v);
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line,
                             "key '%s': expected a number %s 0, got %s", key,
                             zero_ok ? ">=" : ">", got);
      return FALSE;
    }
  return TRUE;
}

static gboolean
load_peaks (msperf_device *d, const msperf_value *peaks, const char *file, GError **error)
{
  static const char *const keys[] = { "bf16", "fp16", "fp32", "fp8", "int8", NULL };

  if (!expect_map (peaks, file, "peak_tflops", error)
      || !check_keys (peaks, keys, file, "peak_tflops", error))
    return FALSE;
  for (guint k = 0; k < peaks->keys->len; k++)
    {
      const char *key = g_ptr_array_index (peaks->keys, k);
      const msperf_value *v = g_ptr_array_index (peaks->items, k);
      g_autofree char *path = g_strdup_printf ("peak_tflops.%s", key);
      double tf = NAN;

      if (v->kind != MSPERF_VALUE_NONE && !positive (v, file, path, FALSE, &tf, error))
        return FALSE;
      if (strcmp (key, "bf16") == 0)
        d->peak_tflops[MSPERF_DTYPE_BF16] = tf;
      else if (strcmp (key, "fp16") == 0)
        d->peak_tflops[MSPERF_DTYPE_FLOAT16] = tf;
      else if (strcmp (key, "fp32") == 0)
        d->peak_tflops[MSPERF_DTYPE_FLOAT32] = tf;
      else if (strcmp (key, "fp8") == 0)
        d->peak_tflops[MSPERF_DTYPE_FP8_E4M3] = d->peak_tflops[MSPERF_DTYPE_FP8_E5M2] = tf;
      else
        d->peak_tflops[MSPERF_DTYPE_INT8] = d->peak_tflops[MSPERF_DTYPE_INT4] = tf;
    }
  return TRUE;
}

/* One link of a comm section, {name, bandwidth_gbps, latency_us}, as `what` (its key path);
 * the keys in `keys` only. NULL with the error. */
static msperf_comm_tier *
load_tier (const msperf_value *t, const char *const *keys, const char *file, const char *what,
           GError **error)
{
  g_autofree char *bw_key = g_strdup_printf ("%s.bandwidth_gbps", what);
  g_autofree char *lat_key = g_strdup_printf ("%s.latency_us", what);
  msperf_comm_tier *tier;
  const msperf_value *v;
  const char *name = NULL;

  if (!expect_map (t, file, what, error) || !check_keys (t, keys, file, what, error)
      || !msperf_yaml_get_string (t, "name", file, &name, error))
    return NULL;
  tier = g_new0 (msperf_comm_tier, 1);
  tier->name = g_strdup (name ? name : "");
  v = msperf_value_lookup (t, "bandwidth_gbps");
  if (v == NULL)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, t->line,
                             "%s: missing key 'bandwidth_gbps'", what);
      goto fail;
    }
  if (!positive (v, file, bw_key, FALSE, &tier->bandwidth_gbps, error))
    goto fail;
  v = msperf_value_lookup (t, "latency_us");
  if (v != NULL && !positive (v, file, lat_key, TRUE, &tier->latency_us, error))
    goto fail;
  return tier;
fail:
  tier_free (tier);
  return NULL;
}

/* comm.nodes (FORMATS §4): without a grid, ranks numbered node by node, `devices` to a node,
 * and the link between nodes. */
static gboolean
load_nodes (msperf_device *d, const msperf_value *nodes, const char *file, GError **error)
{
  static const char *const keys[] = { "devices", "name", "bandwidth_gbps", "latency_us", NULL };
  const msperf_value *v;
  int64_t n = 0;

  if (d->comm_grid != NULL)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, nodes->line,
                             "comm: 'nodes' beside a grid (the grid already places the ranks "
                             "in nodes: give one or the other)");
      return FALSE;
    }
  if ((d->node_tier = load_tier (nodes, keys, file, "comm.nodes", error)) == NULL)
    return FALSE;
  v = msperf_value_lookup (nodes, "devices");
  if (v == NULL)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, nodes->line,
                             "comm.nodes: missing key 'devices'");
      return FALSE;
    }
  if (!msperf_yaml_value_int (v, file, "comm.nodes.devices", &n, error))
    return FALSE;
  if (n < 1)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line,
                             "key 'comm.nodes.devices': %" G_GINT64_FORMAT " < 1", (gint64) n);
      return FALSE;
    }
  d->node_devices = n;
  return TRUE;
}

static gboolean
load_comm (msperf_device *d, const msperf_value *comm, const char *file, GError **error)
{
  static const char *const keys[] = { "grid", "tiers", "nodes", NULL };
  static const char *const tier_keys[] = { "name", "bandwidth_gbps", "latency_us", NULL };
  const msperf_value *grid, *tiers, *nodes;

  if (!expect_map (comm, file, "comm", error) || !check_keys (comm, keys, file, "comm", error))
    return FALSE;
  grid = msperf_value_lookup (comm, "grid");
  if (grid != NULL && grid->kind != MSPERF_VALUE_NONE)
    {
      if (grid->kind != MSPERF_VALUE_LIST || grid->items->len == 0)
        {
          g_autofree char *got = msperf_yaml_describe (grid);
          msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, grid->line,
                                 "key 'comm.grid': expected a list of integers or null, got %s",
                                 got);
          return FALSE;
        }
      d->comm_grid = g_array_new (FALSE, FALSE, sizeof (int64_t));
      for (guint k = 0; k < grid->items->len; k++)
        {
          const msperf_value *dim = g_ptr_array_index (grid->items, k);
          int64_t n = 0;
          if (!msperf_yaml_value_int (dim, file, "comm.grid", &n, error))
            return FALSE;
          if (n < 1)
            {
              msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, dim->line,
                                     "key 'comm.grid': dimension %" G_GINT64_FORMAT " < 1",
                                     (gint64) n);
              return FALSE;
            }
          g_array_append_val (d->comm_grid, n);
        }
    }
  nodes = msperf_value_lookup (comm, "nodes");
  if (nodes != NULL && nodes->kind != MSPERF_VALUE_NONE && !load_nodes (d, nodes, file, error))
    return FALSE;
  tiers = msperf_value_lookup (comm, "tiers");
  if (tiers == NULL || tiers->kind == MSPERF_VALUE_NONE)
    return TRUE;
  if (tiers->kind != MSPERF_VALUE_LIST)
    {
      g_autofree char *got = msperf_yaml_describe (tiers);
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, tiers->line,
                             "key 'comm.tiers': expected a list, got %s", got);
      return FALSE;
    }
  for (guint k = 0; k < tiers->items->len; k++)
    {
      msperf_comm_tier *tier = load_tier (g_ptr_array_index (tiers->items, k), tier_keys, file,
                                          "comm.tiers", error);
      if (tier == NULL)
        return FALSE;
      g_ptr_array_add (d->tiers, tier);
    }
  if (d->comm_grid != NULL && d->tiers->len != d->comm_grid->len)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, tiers->line,
                             "comm: %u tiers for a grid of %u dimensions (one tier per dimension)",
                             d->tiers->len, d->comm_grid->len);
      return FALSE;
    }
  return TRUE;
}

static gboolean
load_aliases (msperf_device *d, const msperf_value *v, const char *file, GError **error)
{
  GPtrArray *out;

  if (v->kind == MSPERF_VALUE_NONE)
    return TRUE;
  if (v->kind != MSPERF_VALUE_LIST)
    {
      g_autofree char *got = msperf_yaml_describe (v);
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line,
                             "key 'aliases': expected a list of strings, got %s", got);
      return FALSE;
    }
  /* Owns the strings until they move into d->aliases: a bad item frees those before it. */
  out = g_ptr_array_new_with_free_func (g_free);
  for (guint k = 0; k < v->items->len; k++)
    {
      const char *s = NULL;
      if (!msperf_yaml_value_string (g_ptr_array_index (v->items, k), file, "aliases", &s, error))
        {
          g_ptr_array_free (out, TRUE);
          return FALSE;
        }
      g_ptr_array_add (out, g_strdup (s));
    }
  g_ptr_array_add (out, NULL);
  g_strfreev (d->aliases);
  d->aliases = (char **) g_ptr_array_free (out, FALSE);
  return TRUE;
}

static const msperf_value *
required (const msperf_value *map, const char *key, const char *file, GError **error)
{
  const msperf_value *v = msperf_value_lookup (map, key);
  if (v == NULL)
    msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, map->line,
                           "missing key '%s'", key);
  return v;
}

msperf_device *
msperf_device_load (const char *path, GError **error)
{
  static const char *const keys[] = { "name", "description", "peak_tflops",
                                      "memory_bandwidth_gbps", "launch_overhead_us",
                                      "vector_clock_ghz", "aliases", "comm", "memory_gib",
                                      NULL };
  g_autoptr (msperf_value) doc = NULL;
  g_autoptr (msperf_device) d = NULL;
  const msperf_value *v;
  const char *name = NULL, *description = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  doc = msperf_yaml_load_file (path, error);
  if (doc == NULL)
    return NULL;
  if (!expect_map (doc, path, "(top level)", error) || !check_keys (doc, keys, path, NULL, error))
    return NULL;

  d = g_new0 (msperf_device, 1);
  d->path = g_strdup (path);
  for (int k = 0; k < MSPERF_DTYPE_N_TYPES; k++)
    d->peak_tflops[k] = NAN;
  d->vector_clock_ghz = NAN;
  d->memory_gib = NAN;
  d->aliases = g_new0 (char *, 1);
  d->tiers = g_ptr_array_new_with_free_func (tier_free);

  if ((v = required (doc, "name", path, error)) == NULL
      || !msperf_yaml_value_string (v, path, "name", &name, error)
      || !msperf_yaml_get_string (doc, "description", path, &description, error))
    return NULL;
  d->name = g_strdup (name);
  if ((v = required (doc, "peak_tflops", path, error)) == NULL
      || !load_peaks (d, v, path, error))
    return NULL;
  if ((v = required (doc, "memory_bandwidth_gbps", path, error)) == NULL
      || !positive (v, path, "memory_bandwidth_gbps", FALSE, &d->memory_bandwidth_gbps, error))
    return NULL;
  v = msperf_value_lookup (doc, "launch_overhead_us");
  if (v != NULL && !positive (v, path, "launch_overhead_us", TRUE, &d->launch_overhead_us, error))
    return NULL;
  v = msperf_value_lookup (doc, "vector_clock_ghz");
  if (v != NULL && v->kind != MSPERF_VALUE_NONE
      && !positive (v, path, "vector_clock_ghz", FALSE, &d->vector_clock_ghz, error))
    return NULL;
  /* Optional, for the model-level memory check (doc/models.md §3); no answer reads it. */
  v = msperf_value_lookup (doc, "memory_gib");
  if (v != NULL && v->kind != MSPERF_VALUE_NONE
      && !positive (v, path, "memory_gib", FALSE, &d->memory_gib, error))
    return NULL;
  v = msperf_value_lookup (doc, "aliases");
  if (v != NULL && !load_aliases (d, v, path, error))
    return NULL;
  v = msperf_value_lookup (doc, "comm");
  if (v != NULL && v->kind != MSPERF_VALUE_NONE && !load_comm (d, v, path, error))
    return NULL;
  d->families = msperf_op_families_load_default (error);
  if (d->families == NULL)
    return NULL;
  return g_steal_pointer (&d);
}

msperf_device *
msperf_device_find (const char *name_or_path, const char *const *search_dirs, GError **error)
{
  g_autoptr (GString) tried = g_string_new (NULL);

  g_return_val_if_fail (name_or_path != NULL, NULL);
  /* A name no file system takes (or a runaway argument) is quoted cut, not echoed whole. */
  if (strlen (name_or_path) > (strchr (name_or_path, '/') ? 4096u : 255u))
    {
      g_autofree char *head = g_utf8_make_valid (name_or_path, 64);
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "device profile '%s…' is too long (%zu bytes; at most %u)", head,
                   strlen (name_or_path), strchr (name_or_path, '/') ? 4096u : 255u);
      return NULL;
    }
  if (strchr (name_or_path, '/') != NULL || g_str_has_suffix (name_or_path, ".yaml"))
    return msperf_device_load (name_or_path, error);
  /* A bare name becomes a file name: it must not walk out of the profile directories. */
  if (*name_or_path == '\0' || *name_or_path == '.' || strchr (name_or_path, '\\') != NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "device profile name '%.80s' is not a plain name", name_or_path);
      return NULL;
    }
  for (guint k = 0; search_dirs != NULL && search_dirs[k] != NULL; k++)
    {
      g_autofree char *file = g_strconcat (name_or_path, ".yaml", NULL);
      g_autofree char *path = g_build_filename (search_dirs[k], file, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return msperf_device_load (path, error);
      g_string_append_printf (tried, "%s%s", tried->len ? ", " : "", search_dirs[k]);
    }
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND,
               "device profile '%s' not found (searched: %s)", name_or_path,
               tried->len ? tried->str : "no directories");
  return NULL;
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

msperf_device *
msperf_device_find_alias (const char *alias, const char *const *search_dirs)
{
  g_return_val_if_fail (alias != NULL, NULL);
  for (guint k = 0; search_dirs != NULL && search_dirs[k] != NULL; k++)
    {
      g_autoptr (GDir) dir = g_dir_open (search_dirs[k], 0, NULL);
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      if (dir == NULL)
        continue;
      while ((name = g_dir_read_name (dir)) != NULL)
        if (g_str_has_suffix (name, ".yaml"))
          g_ptr_array_add (names, g_strdup (name));
      g_ptr_array_sort (names, compare_names);
      for (guint n = 0; n < names->len; n++)
        {
          g_autofree char *path = g_build_filename (search_dirs[k],
                                                    g_ptr_array_index (names, n), NULL);
          msperf_device *d = msperf_device_load (path, NULL);
          if (d != NULL && g_strv_contains ((const char *const *) d->aliases, alias))
            return d;
          msperf_device_free (d);
        }
    }
  return NULL;
}
