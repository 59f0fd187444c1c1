/* msperf — warnings about a run's inputs that a user can act on: an op-name typo,
 * a mapped kernel whose CSV is missing or a Git LFS pointer, rows skipped as invalid. Without
 * them such runs were answered analytically, or with fewer rows, without a word. */
#include <config.h>
#include <math.h>
#include <msperf/format.h>
#include <stdio.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/table.h>
#include "app/run/run.h"
#include "app/run/digest.h"

void
msperf_run_warn (msperf_run *run, const char *text)
{
  g_return_if_fail (run != NULL && text != NULL);
  for (guint k = 0; k < run->warnings->len; k++)
    if (strcmp (g_ptr_array_index (run->warnings, k), text) == 0)
      return;
  g_ptr_array_add (run->warnings, g_strdup (text));
  fprintf (stderr, "msperf: warning: %s\n", text);
}

/* The mapped op name closest to name (at most 3 edits), or NULL. Transfer none. */
static const char *
closest_op (msperf_database *db, const char *name)
{
  const GPtrArray *entries = msperf_database_entries (db);
  const char *best = NULL;
  guint best_d = 4;
  gsize len = strlen (name);

  for (guint k = 0; k < entries->len; k++)
    {
      const msperf_mapping_entry *e = g_ptr_array_index (entries, k);
      gsize el = strlen (e->op_name);
      guint d;

      if ((el > len ? el - len : len - el) >= best_d)
        continue;
      d = msperf_edit_distance (name, e->op_name);
      if (d < best_d)
        {
          best_d = d;
          best = e->op_name;
        }
    }
  return best;
}

/* A near miss of a mapped name is most likely a typo: warned alone, with the suggestion.
 * Other unmapped ops are common (upstream mappings leave many out) and go in one line. */
static void
check_op_name (msperf_run *run, msperf_database *db, const msperf_digest *d, GString *others)
{
  g_autofree char *text = NULL;
  const char *near = closest_op (db, d->name);

  if (near == NULL)
    {
      g_string_append_printf (others, "%s%s", others->len ? ", " : "", d->name);
      return;
    }
  text = g_strdup_printf ("%s:%u: op '%s' is not in op_mapping.yaml (did you mean '%s'?); "
                          "answered by the roofline", run->trace ? run->trace : "trace",
                          d->line, d->name, near);
  msperf_run_warn (run, text);
}

static void
check_kernel (msperf_run *run, msperf_database *db, const char *kernel, const char *op_name)
{
  g_autoptr (GError) err = NULL;
  g_autofree char *text = NULL;
  const msperf_table *t = msperf_database_table (db, kernel, &err);
  const GPtrArray *problems;

  if (t == NULL)
    {
      if (g_error_matches (err, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND))
        text = g_strdup_printf ("kernel %s (mapped by %s): no %s.csv in the database; its ops "
                                "are answered analytically", kernel, op_name, kernel);
      else
        text = g_strdup_printf ("kernel %s (mapped by %s): CSV unusable, its ops are answered "
                                "analytically: %s", kernel, op_name, err->message);
      msperf_run_warn (run, text);
      return;
    }
  if (msperf_table_n_skipped (t) == 0)
    return;
  problems = msperf_table_problems (t);
  text = g_strdup_printf ("%s: %zu row%s skipped as invalid (no valid latency or shape), first "
                          "at line %u%s%s", msperf_table_path (t), msperf_table_n_skipped (t),
                          msperf_table_n_skipped (t) == 1 ? "" : "s",
                          msperf_table_first_skipped_line (t),
                          problems && problems->len ? "; first problem: " : "",
                          problems && problems->len ? (char *) g_ptr_array_index (problems, 0)
                                                    : "");
  msperf_run_warn (run, text);
}

void
msperf_run_check_inputs (msperf_run *run, msperf_database *db)
{
  g_autoptr (GHashTable) seen = NULL;
  g_autoptr (GHashTable) kernels = NULL;
  g_autoptr (GString) others = g_string_new (NULL);
  g_autoptr (GPtrArray) digests = NULL;

  g_return_if_fail (run != NULL);
  if (db == NULL)
    return;
  /* a mapping key typo (kernel_typ) unmaps its op without a word otherwise */
  for (guint k = 0; k < msperf_database_warnings (db)->len; k++)
    {
      const char *w = g_ptr_array_index (msperf_database_warnings (db), k);

      if (strstr (w, ": unknown key '") != NULL)
        msperf_run_warn (run, w);
    }
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  kernels = g_hash_table_new (g_str_hash, g_str_equal);
  /* Names in the order of their first line: the order of the distinct ops' first lines. */
  digests = msperf_run_digests (run);
  for (guint k = 0; k < digests->len; k++)
    {
      const msperf_digest *d = g_ptr_array_index (digests, k);
      const msperf_mapping_entry *e;

      if (d->rejected || d->has_att || !g_hash_table_add (seen, (gpointer) d->name))
        continue;
      e = msperf_database_entry (db, d->name);
      if (e == NULL)
        {
          check_op_name (run, db, d, others);
          continue;
        }
      if (e->zero_cost || e->accepted_miss || e->composite)
        continue;
      for (char **kt = e->kernel_types; kt && *kt; kt++)
        if (g_hash_table_add (kernels, *kt))
          check_kernel (run, db, *kt, e->op_name);
    }
  if (others->len)
    {
      g_autofree char *text = g_strdup_printf ("not in op_mapping.yaml, answered by the "
                                               "roofline: %s", others->str);
      msperf_run_warn (run, text);
    }
}

void
msperf_run_check_latencies (msperf_run *run)
{
  g_autoptr (GHashTable) names = NULL;
  g_autoptr (GString) list = NULL;
  int64_t invocations = 0;
  g_autofree char *text = NULL;
  g_autoptr (GPtrArray) digests = NULL;

  g_return_if_fail (run != NULL);
  names = g_hash_table_new (g_str_hash, g_str_equal);
  list = g_string_new (NULL);
  digests = msperf_run_digests (run);
  for (guint k = 0; k < digests->len; k++)
    {
      const msperf_digest *d = g_ptr_array_index (digests, k);

      if (d->rejected || !d->answered || isfinite (d->latency_us))
        continue;
      invocations += d->count;
      if (g_hash_table_add (names, (gpointer) d->name) && g_hash_table_size (names) <= 5)
        g_string_append_printf (list, "%s%s", list->len ? ", " : "", d->name);
    }
  if (invocations == 0)
    return;
  text = g_strdup_printf ("%" G_GINT64_FORMAT " invocations of %u op name(s) have no latency and are "
                          "not in the total (%s%s); the headline says what they remove",
                          invocations, g_hash_table_size (names), list->str,
                          g_hash_table_size (names) > 5 ? ", ..." : "");
  msperf_run_warn (run, text);
}
