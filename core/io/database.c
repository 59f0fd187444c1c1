/* msperf — a profiling database: op_mapping.yaml, the kernel CSVs it names and their cache
 * (reference profiling-semantics.md §1, FORMATS §1). */
#define _XOPEN_SOURCE 700  /* realpath */
#include <config.h>
#include <msperf/format.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include <msperf/database.h>
#include <msperf/error.h>
#include "io/yaml_doc.h"
#include "io/database_private.h"
#include "io/table_cache.h"
#include "io/split_spec.h"
#include "io/quant_spec.h"

struct msperf_database {
  char *dir;
  char *root;              /* nullable: --database-root */
  char *yaml_path;
  msperf_value *doc;       /* the whole op_mapping.yaml */
  const char *device;      /* into doc */
  const char *comm_ref;    /* into doc; NULL when unset */
  gboolean comm_ref_absolute;
  gboolean comm_ref_outside;  /* resolves outside the directory (or root): lookups refused */
  GPtrArray *entries;      /* msperf_mapping_entry*, file order */
  GHashTable *by_name;     /* op name → entry (transfer none) */
  GPtrArray *warnings;     /* char* */
  GHashTable *tables;      /* kernel type → cached (a table or the error of the attempt) */
  guint generation;        /* msperf_database_clear_cache calls (atomic) */
  char **collective_prefixes; /* kernel-type prefixes of collectives (declared by modules) */
  char *table_cache_dir;   /* nullable: the on-disk table cache (table_cache.h) */
};

typedef struct {
  msperf_table *table;
  GError *error;
} cached;

static void
cached_free (gpointer p)
{
  cached *c = p;
  if (c->table)
    msperf_table_free (c->table);
  if (c->error)
    g_error_free (c->error);
  g_free (c);
}

static void
entry_free (gpointer p)
{
  msperf_mapping_entry *e = p;
  g_free (e->op_name);
  g_free (e->kernel_type);
  g_strfreev (e->kernel_types);
  g_free (e->query_mode);
  g_free (e->category);
  g_free (e->accepted_miss);
  msperf_value_free (e->raw);
  g_free (e);
}

gboolean
msperf_kernel_type_is_plain (const char *name)
{
  if (name == NULL || *name == '\0' || *name == '.' || strstr (name, "..") != NULL)
    return FALSE;
  for (const guchar *c = (const guchar *) name; *c; c++)
    if (*c == '/' || *c == '\\' || *c < 0x20 || *c == 0x7f)
      return FALSE;
  return TRUE;
}

/* ------------------------------------------------------------------ entries */

static gboolean
is_kernel_scalar_key (const char *key)
{
  return strcmp (key, "kernel_type") == 0 || g_str_has_suffix (key, "_kernel_type");
}

static gboolean
is_kernel_list_key (const char *key)
{
  return strcmp (key, "alternate_kernel_types") == 0 || strcmp (key, "sub_kernels") == 0;
}

/* Checks one kernel name value (a string, or a list of strings when list_ok). Sets *problem. */
static gboolean
check_kernel_value (const msperf_value *v, const char *key, gboolean list_ok, char **problem,
                    guint *line)
{
  if (v->kind == MSPERF_VALUE_NONE)
    return TRUE;
  if (v->kind == MSPERF_VALUE_STRING)
    {
      if (msperf_kernel_type_is_plain (v->s))
        return TRUE;
      *problem = g_strdup_printf ("%s '%.80s' is not a plain file stem", key, v->s);
      *line = v->line;
      return FALSE;
    }
  if (v->kind == MSPERF_VALUE_LIST && list_ok)
    {
      for (guint k = 0; k < v->items->len; k++)
        if (!check_kernel_value (g_ptr_array_index (v->items, k), key, FALSE, problem, line))
          return FALSE;
      return TRUE;
    }
  {
    g_autofree char *got = msperf_yaml_describe (v);
    *problem = g_strdup_printf ("%s: expected %s, got %s", key,
                                list_ok ? "a list of kernel names" : "a kernel name", got);
    *line = v->line;
  }
  return FALSE;
}

/* Every kernel name an entry can reach, wherever it is nested (embedded_compute,
 * decomposer_options.opaque_kernel, runtime_comm_variants, ...), must be a plain stem. */
static gboolean
check_kernel_names (const msperf_value *v, char **problem, guint *line)
{
  if (v->kind == MSPERF_VALUE_LIST)
    {
      for (guint k = 0; k < v->items->len; k++)
        if (!check_kernel_names (g_ptr_array_index (v->items, k), problem, line))
          return FALSE;
      return TRUE;
    }
  if (v->kind != MSPERF_VALUE_MAP)
    return TRUE;
  for (guint k = 0; k < v->keys->len; k++)
    {
      const char *key = g_ptr_array_index (v->keys, k);
      const msperf_value *item = g_ptr_array_index (v->items, k);
      gboolean ok;

      if (is_kernel_scalar_key (key))
        ok = check_kernel_value (item, key, FALSE, problem, line);
      else if (is_kernel_list_key (key))
        ok = check_kernel_value (item, key, TRUE, problem, line);
      else if (strcmp (key, "kernel_types_by_input_rank") == 0 && item->kind == MSPERF_VALUE_MAP)
        {
          ok = TRUE;
          for (guint r = 0; ok && r < item->items->len; r++)
            ok = check_kernel_value (g_ptr_array_index (item->items, r), key, TRUE, problem, line);
        }
      else
        ok = check_kernel_names (item, problem, line);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static void
add_warning (msperf_database *db, guint line, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
add_warning (msperf_database *db, guint line, const char *format, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, format);
  msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_ptr_array_add (db->warnings, msperf_yaml_format_message (db->yaml_path, line, "%s", msg));
}

/* Reads an optional typed field; FALSE (with *problem) when present with the wrong type. */
static gboolean
opt_string (const msperf_value *raw, const char *key, char **out, char **problem, guint *line)
{
  const msperf_value *v = msperf_value_lookup (raw, key);
  g_autofree char *got = NULL;

  if (v == NULL || v->kind == MSPERF_VALUE_NONE)
    return TRUE;
  if (v->kind == MSPERF_VALUE_STRING)
    {
      *out = g_strdup (v->s);
      return TRUE;
    }
  got = msperf_yaml_describe (v);
  *problem = g_strdup_printf ("%s: expected a string, got %s", key, got);
  *line = v->line;
  return FALSE;
}

/* The boolean fields of an entry: the ones decoded here and the ones modules read from the
 * raw entry. A mistyped flag (zero_cost: !!str true, composite: 1) is reported at its line
 * and ignored, the entry otherwise kept: dropping it would also lose its kernel lookup. */
static const char *const entry_flags[] = {
  "composite", "zero_cost", "decomposer", "require_all_sub_kernels", "project_full_shape", NULL
};

/* A flag's value: TRUE only for a YAML boolean true (a mistyped one is warned about). */
static gboolean
opt_flag (const msperf_value *raw, const char *key)
{
  const msperf_value *v = msperf_value_lookup (raw, key);

  return v != NULL && v->kind == MSPERF_VALUE_BOOL && v->b;
}

static void add_warning (msperf_database *db, guint line, const char *format, ...)
  G_GNUC_PRINTF (3, 4);

static void
check_entry_flags (msperf_database *db, const char *name, const msperf_value *raw)
{
  if (raw == NULL || raw->kind != MSPERF_VALUE_MAP)
    return;
  for (const char *const *k = entry_flags; *k != NULL; k++)
    {
      const msperf_value *v = msperf_value_lookup (raw, *k);
      g_autofree char *got = NULL;

      if (v == NULL || v->kind == MSPERF_VALUE_NONE || v->kind == MSPERF_VALUE_BOOL)
        continue;
      got = msperf_yaml_describe (v);
      add_warning (db, v->line, "operator '%s': %s: expected true or false, got %s; the flag is "
                   "ignored", name, *k, got);
    }
}

/* A malformed transfer declaration (key: split_transfer, quant_transfer) is ignored (the op
 * falls to the roofline as before), with a warning naming the entry, the line and what is
 * wrong. */
static void
check_transfer (msperf_database *db, const char *name, const msperf_value *raw, const char *key,
                gboolean (*valid) (const msperf_value *spec, char **problem))
{
  const msperf_value *spec;
  g_autofree char *problem = NULL;

  if (raw == NULL || raw->kind != MSPERF_VALUE_MAP
      || (spec = msperf_value_lookup (raw, key)) == NULL)
    return;
  if (!valid (spec, &problem))
    add_warning (db, spec->line, "operator '%s': %s: %s; the transfer is off", name, key,
                 problem);
}

static void
add_kernel (GPtrArray *kinds, const char *name)
{
  for (guint k = 0; k < kinds->len; k++)
    if (strcmp (g_ptr_array_index (kinds, k), name) == 0)
      return;
  g_ptr_array_add (kinds, g_strdup (name));
}

/* Decodes one operator_mappings entry; NULL (with *problem) when it must be rejected. */
static msperf_mapping_entry *
decode_entry (const char *name, const msperf_value *raw, char **problem, guint *line)
{
  msperf_mapping_entry *e;
  const msperf_value *alt, *tc;
  GPtrArray *kinds;

  if (raw->kind != MSPERF_VALUE_MAP)
    {
      g_autofree char *got = msperf_yaml_describe (raw);
      *problem = g_strdup_printf ("expected a mapping, got %s", got);
      *line = raw->line;
      return NULL;
    }
  if (!check_kernel_names (raw, problem, line))
    return NULL;

  e = g_new0 (msperf_mapping_entry, 1);
  e->op_name = g_strdup (name);
  e->tc_input_count = -1;
  e->line = raw->line;
  e->raw = msperf_value_copy (raw);
  if (!opt_string (raw, "kernel_type", &e->kernel_type, problem, line)
      || !opt_string (raw, "query_mode", &e->query_mode, problem, line)
      || !opt_string (raw, "category", &e->category, problem, line)
      || !opt_string (raw, "accepted_miss", &e->accepted_miss, problem, line))
    goto reject;
  e->composite = opt_flag (raw, "composite");
  e->zero_cost = opt_flag (raw, "zero_cost");
  tc = msperf_value_lookup (raw, "tc_input_count");
  if (tc != NULL && tc->kind != MSPERF_VALUE_NONE)
    {
      if (tc->kind != MSPERF_VALUE_INT || tc->i < 1)
        {
          g_autofree char *got = msperf_yaml_describe (tc);
          *problem = g_strdup_printf ("tc_input_count: expected a positive integer, got %s", got);
          *line = tc->line;
          goto reject;
        }
      e->tc_input_count = tc->i;
    }

  kinds = g_ptr_array_new ();
  if (e->kernel_type != NULL)
    add_kernel (kinds, e->kernel_type);
  alt = msperf_value_lookup (raw, "alternate_kernel_types");
  if (alt != NULL && alt->kind == MSPERF_VALUE_STRING)
    add_kernel (kinds, alt->s);
  for (guint k = 0; alt != NULL && alt->kind == MSPERF_VALUE_LIST && k < alt->items->len; k++)
    {
      const msperf_value *item = g_ptr_array_index (alt->items, k);

      /* check_kernel_names lets null entries through: they name no kernel. */
      if (item->kind == MSPERF_VALUE_STRING)
        add_kernel (kinds, item->s);
    }
  /* attention_special's table of sliding-window attention: after the others, so that the
   * interpolation stage, holdout and the checks see it; the module picks by the op's window. */
  alt = msperf_value_lookup (raw, "window_kernel_type");
  if (alt != NULL && alt->kind == MSPERF_VALUE_STRING)
    add_kernel (kinds, alt->s);
  g_ptr_array_add (kinds, NULL);
  e->kernel_types = (char **) g_ptr_array_free (kinds, FALSE);
  return e;

reject:
  entry_free (e);
  return NULL;
}

/* Every per-op key of upstream's databases (0.13, 0.15, 0.18, the examples and fixtures; doc
 * profiling-semantics §1.2) and msperf's own: they stay accepted even where msperf ignores
 * them. Any other key is most likely a typo (kernel_typ) that would silently unmap the op. */
static const char *const entry_keys[] = {
  "kernel_type", "alternate_kernel_types", "notes", "tc_input_count", "query_mode", "category",
  "composite", "sub_kernels", "decomposer", "decomposer_options", "require_all_sub_kernels",
  "primary_kernel_type", "zero_cost", "compute_subcategory", "expected_input_formats",
  "project_full_shape", "embedded_compute", "embedded_communication", "runtime_comm_variants",
  "kernel_types_by_input_rank", "degenerate_bmm_kernel_type", "tp_linear_projection",
  "mtp_projection_kernel_type", "accepted_miss", "interpolation_method", "field_defaults",
  "proxy_bytes", "field_args", "batched_from", "window_kernel_type", "split_transfer",
  "quant_transfer", NULL
};

/* One warning per unknown key of an entry, with the closest known key (at most 3 edits). */
static void
check_entry_keys (msperf_database *db, const char *name, const msperf_value *raw)
{
  if (raw == NULL || raw->kind != MSPERF_VALUE_MAP)
    return;
  for (guint k = 0; k < raw->keys->len; k++)
    {
      const char *key = g_ptr_array_index (raw->keys, k);
      const msperf_value *v = g_ptr_array_index (raw->items, k);
      const char *best;

      if (g_strv_contains (entry_keys, key))
        continue;
      best = msperf_closest_name (key, entry_keys, 3);
      if (best != NULL)
        add_warning (db, v->line, "operator '%s': unknown key '%.80s' ignored (did you mean %s?)",
                     name, key, best);
      else
        add_warning (db, v->line, "operator '%s': unknown key '%.80s' ignored", name, key);
    }
}

static gboolean
load_entries (msperf_database *db, GError **error)
{
  const msperf_value *maps = msperf_value_lookup (db->doc, "operator_mappings");

  if (maps == NULL || maps->kind == MSPERF_VALUE_NONE)
    {
      add_warning (db, 0, "no operator_mappings: every op will be unmapped");
      return TRUE;
    }
  if (maps->kind != MSPERF_VALUE_MAP)
    {
      g_autofree char *got = msperf_yaml_describe (maps);
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, db->yaml_path, maps->line,
                             "key 'operator_mappings': expected a mapping, got %s", got);
      return FALSE;
    }
  for (guint k = 0; k < maps->keys->len; k++)
    {
      const char *name = g_ptr_array_index (maps->keys, k);
      const msperf_value *raw = g_ptr_array_index (maps->items, k);
      g_autofree char *problem = NULL;
      guint line = raw->line;
      msperf_mapping_entry *e = decode_entry (name, raw, &problem, &line);

      check_entry_keys (db, name, raw);
      check_entry_flags (db, name, raw);
      check_transfer (db, name, raw, "split_transfer", msperf_split_spec_valid);
      check_transfer (db, name, raw, "quant_transfer", msperf_quant_spec_valid);
      if (e == NULL)
        {
          add_warning (db, line, "operator '%s': %s", name, problem);
          continue;
        }
      /* Q15: zero_cost is checked after these in the dispatch order, so it never applies. */
      if (e->zero_cost && (e->composite || e->category != NULL || e->query_mode != NULL))
        add_warning (db, e->line,
                     "operator '%s': zero_cost is ignored because %s takes precedence", name,
                     e->composite ? "composite" : e->category != NULL ? "category" : "query_mode");
      g_ptr_array_add (db->entries, e);
      g_hash_table_insert (db->by_name, e->op_name, e);
    }
  return TRUE;
}

/* ------------------------------------------------------------------ paths */

static gboolean
path_is_under (const char *path, const char *base)
{
  size_t n = strlen (base);

  if (strcmp (base, "/") == 0)
    return path[0] == '/';
  return strncmp (path, base, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* realpath(3) into a g_malloc'd string, or NULL. */
static char *
real_path (const char *path)
{
  char *r = realpath (path, NULL);
  char *out = r ? g_strdup (r) : NULL;
  free (r);
  return out;
}

static void
load_comm_ref (msperf_database *db)
{
  const msperf_value *ref = msperf_value_lookup (db->doc, "communication_data_ref");
  g_autofree char *comm_dir = NULL;

  if (ref == NULL || ref->kind == MSPERF_VALUE_NONE)
    return;
  if (ref->kind != MSPERF_VALUE_STRING || *ref->s == '\0')
    {
      g_autofree char *got = msperf_yaml_describe (ref);
      add_warning (db, ref->line, "communication_data_ref: expected a relative path, got %s; ignored",
                   got);
      return;
    }
  db->comm_ref = ref->s;
  if (g_path_is_absolute (ref->s))
    {
      db->comm_ref_absolute = TRUE;
      add_warning (db, ref->line,
                   "communication_data_ref '%.80s' is an absolute path; it must be relative to "
                   "the database directory (communication lookups through it fail)", ref->s);
      return;
    }
  comm_dir = g_build_filename (db->dir, ref->s, NULL);
  if (!g_file_test (comm_dir, G_FILE_TEST_IS_DIR))
    {
      add_warning (db, ref->line,
                   "communication_data_ref '%.80s' names a missing directory (%s); communication "
                   "kernels fall back to the database directory", ref->s, comm_dir);
      return;
    }
  /* The reference is a file path like a kernel CSV's: it stays inside the database directory,
   * or inside --database-root when one is given (a shared hccl tree beside the databases). */
  {
    g_autofree char *real_comm = real_path (comm_dir);
    g_autofree char *real_base = real_path (db->root != NULL ? db->root : db->dir);

    if (real_comm == NULL || real_base == NULL || path_is_under (real_comm, real_base))
      return;
    db->comm_ref_outside = TRUE;
    if (db->root != NULL)
      add_warning (db, ref->line,
                   "communication_data_ref '%.80s' resolves outside the database root %s; "
                   "communication lookups through it are refused", ref->s, db->root);
    else
      add_warning (db, ref->line,
                   "communication_data_ref '%.80s' resolves outside the database directory; "
                   "communication lookups through it are refused (--database-root DIR allows "
                   "a directory under DIR)", ref->s);
  }
}

/* Without a --database-root, op_mapping.yaml must still be the database's own: a symlink out
 * of the directory would be read (and its parse errors would quote the foreign file). */
static gboolean
yaml_in_dir (msperf_database *db, GError **error)
{
  g_autofree char *real_dir = real_path (db->dir);
  g_autofree char *real_yaml = real_path (db->yaml_path);

  if (real_dir == NULL || real_yaml == NULL || path_is_under (real_yaml, real_dir))
    return TRUE;  /* a missing file is reported by the load, with its errno */
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH,
               "%s: a symlink that resolves outside the database directory: refused",
               db->yaml_path);
  return FALSE;
}

msperf_database *
msperf_database_open (const char *dir, const char *root, GError **error)
{
  g_autoptr (msperf_database) db = NULL;
  const msperf_value *device;

  g_return_val_if_fail (dir != NULL, NULL);
  db = g_new0 (msperf_database, 1);
  db->dir = g_strdup (dir);
  db->root = g_strdup (root);
  db->yaml_path = g_build_filename (dir, "op_mapping.yaml", NULL);
  db->entries = g_ptr_array_new_with_free_func (entry_free);
  db->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  db->warnings = g_ptr_array_new_with_free_func (g_free);
  db->tables = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, cached_free);

  if (root != NULL)
    {
      g_autofree char *real_root = real_path (root);
      g_autofree char *real_yaml = real_path (db->yaml_path);
      if (real_root == NULL)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH,
                       "%s: the database root does not exist", root);
          return NULL;
        }
      if (real_yaml != NULL && !path_is_under (real_yaml, real_root))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH,
                       "%s: resolves outside the database root %s", db->yaml_path, root);
          return NULL;
        }
    }
  else if (!yaml_in_dir (db, error))
    return NULL;
  db->doc = msperf_yaml_load_file (db->yaml_path, error);
  if (db->doc == NULL)
    return NULL;
  if (db->doc->kind != MSPERF_VALUE_MAP)
    {
      g_autofree char *got = msperf_yaml_describe (db->doc);
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, db->yaml_path, db->doc->line,
                             "expected a mapping at the top level, got %s", got);
      return NULL;
    }
  device = msperf_value_lookup (db->doc, "device");
  if (device != NULL && device->kind == MSPERF_VALUE_STRING)
    db->device = device->s;
  load_comm_ref (db);
  if (!load_entries (db, error))
    return NULL;
  return g_steal_pointer (&db);
}

void
msperf_database_free (msperf_database *db)
{
  if (db == NULL)
    return;
  g_hash_table_unref (db->tables);
  g_hash_table_unref (db->by_name);
  g_ptr_array_unref (db->entries);
  g_ptr_array_unref (db->warnings);
  msperf_value_free (db->doc);
  g_free (db->yaml_path);
  g_free (db->root);
  g_free (db->dir);
  g_strfreev (db->collective_prefixes);
  g_free (db->table_cache_dir);
  g_free (db);
}

const char *
msperf_database_dir (const msperf_database *db)
{
  g_return_val_if_fail (db != NULL, NULL);
  return db->dir;
}

const char *
msperf_database_device (const msperf_database *db)
{
  g_return_val_if_fail (db != NULL, NULL);
  return db->device;
}

const msperf_mapping_entry *
msperf_database_entry (const msperf_database *db, const char *op_name)
{
  g_return_val_if_fail (db != NULL && op_name != NULL, NULL);
  return g_hash_table_lookup (db->by_name, op_name);
}

const GPtrArray *
msperf_database_entries (const msperf_database *db)
{
  g_return_val_if_fail (db != NULL, NULL);
  return db->entries;
}

const GPtrArray *
msperf_database_warnings (const msperf_database *db)
{
  g_return_val_if_fail (db != NULL, NULL);
  return db->warnings;
}

const msperf_value *
msperf_database_top (const msperf_database *db, const char *key)
{
  g_return_val_if_fail (db != NULL && key != NULL, NULL);
  return msperf_value_lookup (db->doc, key);
}

const msperf_value *
msperf_database_kernel_option (const msperf_database *db, const char *block, const char *kernel,
                               const char *key)
{
  const msperf_value *v;

  g_return_val_if_fail (db != NULL && block != NULL && kernel != NULL && key != NULL, NULL);
  v = msperf_value_lookup (db->doc, block);
  v = msperf_value_lookup (v, "kernel_overrides");
  v = msperf_value_lookup (v, kernel);
  return msperf_value_lookup (v, key);
}

/* ------------------------------------------------------------------ tables */

/* Loads path unless it resolves outside where it may live: under the database root when one
 * is set, else under the directory it was looked up in (so a symlinked CSV cannot reach out). */
static msperf_table *
load_confined (msperf_database *db, const char *path, const char *lookup_dir,
               const char *kernel_type, GError **error)
{
  g_autofree char *real = real_path (path);
  int real_errno = errno;
  g_autofree char *base = real_path (db->root != NULL ? db->root : lookup_dir);
  int base_errno = errno;

  if (real == NULL || base == NULL)
    {
      /* a symlink loop or a dangling link is named with its reason */
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot resolve the path: %s",
                   real == NULL ? path : db->root != NULL ? db->root : lookup_dir,
                   g_strerror (real == NULL ? real_errno : base_errno));
      return NULL;
    }
  if (!path_is_under (real, base))
    {
      if (db->root != NULL)
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH,
                     "%s: resolves outside the database root %s", path, db->root);
      else
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH,
                     "%s: a symlink that resolves outside the database directory", path);
      return NULL;
    }
  return msperf_table_load_cached (path, kernel_type, db->table_cache_dir, error);
}

/* Whether anything is at path, also a dangling symlink or a symlink loop: those are a broken
 * table to report, not a silent csv_not_found. */
static gboolean
present (const char *path)
{
  GStatBuf st;

  return g_lstat (path, &st) == 0;
}

static cached *
resolve_table (msperf_database *db, const char *kernel_type)
{
  cached *c = g_new0 (cached, 1);
  g_autofree char *file = g_strconcat (kernel_type, ".csv", NULL);
  g_autofree char *comm_dir = NULL;

  /* reference §1.1: collective kernels (the prefixes the communication module declares) look
   * in communication_data_ref first, then in the database directory. */
  if (msperf_database_kernel_is_collective (db, kernel_type) && db->comm_ref != NULL)
    {
      if (db->comm_ref_absolute)
        {
          g_set_error (&c->error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH,
                       "%s: communication_data_ref '%s' must be a relative path", db->yaml_path,
                       db->comm_ref);
          return c;
        }
      if (db->comm_ref_outside)
        {
          g_set_error (&c->error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH,
                       "%s: communication_data_ref '%.80s' resolves outside the database %s%s",
                       db->yaml_path, db->comm_ref, db->root != NULL ? "root " : "directory",
                       db->root != NULL ? db->root : "");
          return c;
        }
      comm_dir = g_build_filename (db->dir, db->comm_ref, NULL);
      {
        g_autofree char *path = g_build_filename (comm_dir, file, NULL);
        g_autofree char *gz = g_strconcat (path, ".gz", NULL);
        if (present (path) || present (gz))
          {
            /* confined to the database directory, not to comm_dir: a file of comm_dir that
             * links out is refused as a kernel CSV would be */
            c->table = load_confined (db, present (path) ? path : gz, db->dir, kernel_type,
                                      &c->error);
            return c;
          }
      }
    }
  {
    g_autofree char *path = g_build_filename (db->dir, file, NULL);
    g_autofree char *gz = g_strconcat (path, ".gz", NULL);
    if (present (path))
      {
        c->table = load_confined (db, path, db->dir, kernel_type, &c->error);
        return c;
      }
    /* a shipped database keeps its tables gzip-compressed (KERNEL.csv.gz) */
    if (present (gz))
      {
        c->table = load_confined (db, gz, db->dir, kernel_type, &c->error);
        return c;
      }
  }
  g_set_error (&c->error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND,
               "%s not found in %s%s%s (csv_not_found)", file, comm_dir ? comm_dir : "",
               comm_dir ? " or " : "", db->dir);
  return c;
}

const msperf_table *
msperf_database_table (msperf_database *db, const char *kernel_type, GError **error)
{
  cached *c;

  g_return_val_if_fail (db != NULL && kernel_type != NULL, NULL);
  if (!msperf_kernel_type_is_plain (kernel_type))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PATH,
                   "kernel_type '%.80s' is not a plain file stem", kernel_type);
      return NULL;
    }
  c = g_hash_table_lookup (db->tables, kernel_type);
  if (c == NULL)
    {
      c = resolve_table (db, kernel_type);
      g_hash_table_insert (db->tables, g_strdup (kernel_type), c);
      /* A CSV that exists but cannot be used is an input problem the user must see (the
       * query modes only report csv_not_found); said once, as the failure is cached. */
      if (c->table == NULL && !g_error_matches (c->error, MSPERF_ERROR_DOMAIN,
                                                MSPERF_ERROR_NOT_FOUND))
        g_warning ("%s", c->error->message);
    }
  if (c->table == NULL)
    {
      g_propagate_error (error, g_error_copy (c->error));
      return NULL;
    }
  return c->table;
}

void
msperf_database_set_table_cache_dir (msperf_database *db, const char *dir)
{
  g_return_if_fail (db != NULL);
  g_free (db->table_cache_dir);
  db->table_cache_dir = g_strdup (dir);
}

void
msperf_database_clear_cache (msperf_database *db)
{
  g_return_if_fail (db != NULL);
  g_atomic_int_inc ((gint *) &db->generation);
  g_hash_table_remove_all (db->tables);
}

guint
msperf_database_generation (const msperf_database *db)
{
  g_return_val_if_fail (db != NULL, 0);
  return (guint) g_atomic_int_get ((const gint *) &db->generation);
}

void
msperf_database_set_collective_prefixes (msperf_database *db, const char *const *prefixes)
{
  g_return_if_fail (db != NULL);
  g_strfreev (db->collective_prefixes);
  db->collective_prefixes = prefixes ? g_strdupv ((char **) prefixes) : NULL;
  /* A table resolved before may have been looked up in the wrong directory. */
  g_hash_table_remove_all (db->tables);
}

gboolean
msperf_database_kernel_is_collective (const msperf_database *db, const char *kernel_type)
{
  g_return_val_if_fail (db != NULL, FALSE);
  for (char **p = db->collective_prefixes; kernel_type != NULL && p && *p; p++)
    if (g_str_has_prefix (kernel_type, *p))
      return TRUE;
  return FALSE;
}

/* The ABI 2.0/2.1 entry point: the shipped communication module's declaration, frozen. */
gboolean
msperf_kernel_is_collective (const char *kernel_type)
{
  return kernel_type != NULL && g_str_has_prefix (kernel_type, "hcom_");
}
