/* msperf validate — check a profiling database and list every problem (FORMATS §5.2). */
#include <config.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <msperf/database.h>
#include <msperf/engine.h>
#include <msperf/error.h>
#include <msperf/table.h>
#include "cli/cli.h"
#include "cli/options.h"

/* The latency columns of reference §1.3 in priority order. */
typedef struct {
  GPtrArray *errors;    /* char* */
  GPtrArray *warnings;  /* char* */
} report;

/* One kernel CSV the mapping refers to, with the first entry that names it. */
typedef struct {
  char *kernel;
  const msperf_mapping_entry *entry;
  gboolean communication;
} kernel_ref;

static void
kernel_ref_free (gpointer p)
{
  kernel_ref *r = p;
  g_free (r->kernel);
  g_free (r);
}

static gboolean
is_kernel_key (const char *key)
{
  return strcmp (key, "kernel_type") == 0 || g_str_has_suffix (key, "_kernel_type")
         || strcmp (key, "alternate_kernel_types") == 0 || strcmp (key, "sub_kernels") == 0
         || strcmp (key, "kernel_types_by_input_rank") == 0;
}

static void
add_ref (GPtrArray *refs, GHashTable *seen, const char *kernel, const msperf_mapping_entry *e,
         const msperf_database *db)
{
  kernel_ref *r;

  if (g_hash_table_contains (seen, kernel))
    return;
  r = g_new0 (kernel_ref, 1);
  r->kernel = g_strdup (kernel);
  r->entry = e;
  r->communication = msperf_database_kernel_is_collective (db, kernel)
                     || g_strcmp0 (e->category, "communication") == 0;
  g_hash_table_add (seen, r->kernel);
  g_ptr_array_add (refs, r);
}

/* Every string under a kernel key (strings, lists, the rank → list map). */
static void
collect_names (GPtrArray *refs, GHashTable *seen, const msperf_value *v,
               const msperf_mapping_entry *e, const msperf_database *db)
{
  if (v->kind == MSPERF_VALUE_STRING)
    add_ref (refs, seen, v->s, e, db);
  for (guint k = 0; (v->kind == MSPERF_VALUE_LIST || v->kind == MSPERF_VALUE_MAP)
                    && k < v->items->len; k++)
    collect_names (refs, seen, g_ptr_array_index (v->items, k), e, db);
}

static void
collect_refs (GPtrArray *refs, GHashTable *seen, const msperf_value *v,
              const msperf_mapping_entry *e, const msperf_database *db)
{
  if (v->kind == MSPERF_VALUE_LIST)
    for (guint k = 0; k < v->items->len; k++)
      collect_refs (refs, seen, g_ptr_array_index (v->items, k), e, db);
  if (v->kind != MSPERF_VALUE_MAP)
    return;
  for (guint k = 0; k < v->keys->len; k++)
    {
      const char *key = g_ptr_array_index (v->keys, k);
      const msperf_value *item = g_ptr_array_index (v->items, k);
      if (is_kernel_key (key))
        collect_names (refs, seen, item, e, db);
      else
        collect_refs (refs, seen, item, e, db);
    }
}


/* Columns that hold measurements rather than the identity of a row. */
static gboolean
is_measurement_column (const char *name)
{
  return strstr (name, "Duration") != NULL || g_str_has_prefix (name, "Profiling ")
         || strcmp (name, "bandwidth_gbps") == 0;
}

static void
check_duplicates (const msperf_table *t, report *r)
{
  g_autoptr (GHashTable) first = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  size_t n_cols = msperf_table_n_columns (t);

  for (size_t row = 0; row < msperf_table_n_rows (t); row++)
    {
      GString *key;
      gpointer prev;

      if (!msperf_table_row_valid (t, row))
        continue;
      key = g_string_new (NULL);
      for (size_t col = 0; col < n_cols; col++)
        if (!is_measurement_column (msperf_table_column_name (t, col)))
          {
            g_string_append (key, msperf_table_cell (t, row, (int) col));
            g_string_append_c (key, '\x1f');
          }
      if (g_hash_table_lookup_extended (first, key->str, NULL, &prev))
        {
          size_t other = GPOINTER_TO_SIZE (prev) - 1;
          double a = msperf_table_row_latency (t, other), b = msperf_table_row_latency (t, row);
          if (a != b)
            g_ptr_array_add (r->warnings,
                             g_strdup_printf ("%s:%u: row equals the row at line %u in every "
                                              "column but the latency (%g vs %g us)",
                                              msperf_table_path (t), msperf_table_row_line (t, row),
                                              msperf_table_row_line (t, other), b, a));
          g_string_free (key, TRUE);
        }
      else
        g_hash_table_insert (first, g_string_free (key, FALSE), GSIZE_TO_POINTER (row + 1));
    }
}

/* TRUE when the kernel's interpolation axes name a column of t: a field table whose
 * coordinates are numeric columns (doc/formats.md §1.6), which needs no tensors. */
static gboolean
has_column_axes (msperf_database *db, const msperf_table *t, const char *kernel)
{
  const msperf_value *axes = msperf_database_kernel_option (db, "interpolation_policy", kernel,
                                                            "axes");

  if (axes == NULL || axes->kind != MSPERF_VALUE_LIST)
    return FALSE;
  for (guint i = 0; i < axes->items->len; i++)
    {
      const char *name = msperf_value_get_string (g_ptr_array_index (axes->items, i));

      if (name != NULL && msperf_table_column (t, name) >= 0)
        return TRUE;
    }
  return FALSE;
}

static void
check_table (const msperf_table *t, gboolean communication, gboolean column_axes, report *r)
{
  const char *path = msperf_table_path (t);
  const GPtrArray *problems = msperf_table_problems (t);
  g_autoptr (GString) lines = g_string_new (NULL);
  g_autoptr (GHashTable) problem_lines = g_hash_table_new (NULL, NULL);
  size_t bad_latency = 0;

  if (communication)
    {
      if (msperf_table_column (t, "message_bytes") < 0 || msperf_table_column (t, "num_devices") < 0)
        g_ptr_array_add (r->errors, g_strdup_printf ("%s:1: communication table without the "
                                                     "message_bytes and num_devices columns",
                                                     path));
    }
  else if (!column_axes && !msperf_table_has_shapes (t))
    g_ptr_array_add (r->errors, g_strdup_printf ("%s:1: compute table without an 'Input Shapes' "
                                                 "column", path));
  if (!msperf_table_has_latency_column (t))
    g_ptr_array_add (r->errors, g_strdup_printf ("%s:1: no latency column (Average Duration(us), "
                                                 "Profiling Average Duration(us) or Duration(us))",
                                                 path));
  /* Rows the loader set aside (ragged, not UTF-8, bad shape cells), each with its line. */
  for (guint k = 0; k < problems->len; k++)
    {
      const char *problem = g_ptr_array_index (problems, k);

      g_ptr_array_add (r->warnings, g_strdup (problem));
      /* Problems read "PATH:LINE: ..."; a row with a bad shape is not also a latency case. */
      if (g_str_has_prefix (problem, path) && problem[strlen (path)] == ':')
        g_hash_table_add (problem_lines,
                          GUINT_TO_POINTER (strtoul (problem + strlen (path) + 1, NULL, 10)));
    }
  for (size_t row = 0; row < msperf_table_n_rows (t); row++)
    if (msperf_table_row_latency_column (t, row) == MSPERF_LATENCY_NONE
        && !g_hash_table_contains (problem_lines,
                                   GUINT_TO_POINTER (msperf_table_row_line (t, row))))
      {
        /* The first few lines are enough to find the pattern. */
        if (bad_latency++ < 5)
          g_string_append_printf (lines, "%s%u", lines->len ? ", " : "",
                                  msperf_table_row_line (t, row));
      }
  if (bad_latency > 0)
    g_ptr_array_add (r->warnings, g_strdup_printf ("%s: %zu row%s skipped for an invalid latency "
                                                   "(line%s %s%s)", path, bad_latency,
                                                   bad_latency == 1 ? "" : "s",
                                                   bad_latency == 1 ? "" : "s", lines->str,
                                                   bad_latency > 5 ? ", ..." : ""));
  check_duplicates (t, r);
}

static void
check_kernel (msperf_database *db, const kernel_ref *ref, report *r)
{
  g_autoptr (GError) error = NULL;
  const msperf_table *t = msperf_database_table (db, ref->kernel, &error);
  g_autofree char *yaml = g_build_filename (msperf_database_dir (db), "op_mapping.yaml", NULL);

  if (t != NULL)
    {
      check_table (t, ref->communication, has_column_axes (db, t, ref->kernel), r);
      return;
    }
  if (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND))
    g_ptr_array_add (ref->communication ? r->warnings : r->errors,
                     g_strdup_printf ("%s:%u: operator '%s': %s kernel '%s': %s", yaml,
                                      ref->entry->line, ref->entry->op_name,
                                      ref->communication ? "communication" : "compute",
                                      ref->kernel, error->message));
  else
    g_ptr_array_add (r->errors, g_strdup_printf ("%s (kernel '%s', operator '%s')",
                                                 error->message, ref->kernel,
                                                 ref->entry->op_name));
}

int
msperf_cli_validate (const msperf_cli_global *g, int argc, char **argv)
{
  g_autofree char *dir = NULL;
  g_autofree char *dir_alias = NULL;
  g_autofree char *root = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_database) db = NULL;
  g_autoptr (GPtrArray) refs = NULL;
  g_autoptr (GHashTable) seen = NULL;
  const GPtrArray *entries, *db_warnings;
  report r;
  int status;
  const GOptionEntry options[] = {
    { "profiling-database", 0, 0, G_OPTION_ARG_FILENAME, &dir,
      "The database directory (with op_mapping.yaml)", "DIR" },
    { "profiling-database-path", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &dir_alias,
      "Upstream spelling of --profiling-database", "DIR" },
    { "database-root", 0, 0, G_OPTION_ARG_FILENAME, &root,
      "Every resolved file must lie under DIR", "DIR" },
    G_OPTION_ENTRY_NULL
  };

  ctx = g_option_context_new ("— check a profiling database and list every problem");
  g_option_context_add_main_entries (ctx, options, NULL);
  if (!msperf_cli_check_options ("msperf validate", options, argv, &error)
      || !g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "msperf validate: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  if (dir == NULL)
    dir = g_steal_pointer (&dir_alias);
  if (dir == NULL || argc > 1)
    {
      fprintf (stderr, "msperf validate: %s\n",
               dir == NULL ? "--profiling-database DIR is required" : "unexpected argument");
      return MSPERF_EXIT_USAGE;
    }
  db = msperf_database_open (dir, root, &error);
  if (db == NULL)
    {
      fprintf (g->out, "error: %s\n", error->message);
      fprintf (g->out, "%s: unreadable database\n", dir);
      return MSPERF_EXIT_USAGE;
    }
  msperf_cli_declare_collectives (g, db);

  r.errors = g_ptr_array_new_with_free_func (g_free);
  r.warnings = g_ptr_array_new_with_free_func (g_free);
  /* The loader reports rejected entries (path rules) and unknown entry keys (typos) among its
   * warnings; for validate they are errors: the entry is unusable or not what was meant. */
  db_warnings = msperf_database_warnings (db);
  for (guint k = 0; k < db_warnings->len; k++)
    {
      const char *w = g_ptr_array_index (db_warnings, k);
      gboolean rejected = strstr (w, "is not a plain file stem") != NULL
                          || strstr (w, ": expected ") != NULL
                          || strstr (w, ": unknown key '") != NULL;
      g_ptr_array_add (rejected ? r.errors : r.warnings, g_strdup (w));
    }

  refs = g_ptr_array_new_with_free_func (kernel_ref_free);
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  entries = msperf_database_entries (db);
  for (guint k = 0; k < entries->len; k++)
    {
      const msperf_mapping_entry *e = g_ptr_array_index (entries, k);
      collect_refs (refs, seen, e->raw, e, db);
    }
  for (guint k = 0; k < refs->len; k++)
    check_kernel (db, g_ptr_array_index (refs, k), &r);

  for (guint k = 0; k < r.errors->len; k++)
    fprintf (g->out, "error: %s\n", (char *) g_ptr_array_index (r.errors, k));
  for (guint k = 0; k < r.warnings->len; k++)
    fprintf (g->out, "warning: %s\n", (char *) g_ptr_array_index (r.warnings, k));
  fprintf (g->out, "%s: %u entries, %u kernel file%s checked: %u error%s, %u warning%s\n", dir,
           entries->len, refs->len, refs->len == 1 ? "" : "s",
           r.errors->len, r.errors->len == 1 ? "" : "s",
           r.warnings->len, r.warnings->len == 1 ? "" : "s");
  fflush (g->out);
  status = r.errors->len > 0 ? MSPERF_EXIT_PROBLEMS : MSPERF_EXIT_OK;
  g_ptr_array_unref (r.errors);
  g_ptr_array_unref (r.warnings);
  return status;
}
