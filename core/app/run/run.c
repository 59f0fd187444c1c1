/* msperf — the records of a run: their lifecycle and the distinct signatures among them. */
#include <config.h>
#include <math.h>
#include "base/str_hash.h"
#include "app/run/run.h"

/* ------------------------------------------------------------------ run and records */

msperf_record *
msperf_record_new (void)
{
  msperf_record *r = g_new0 (msperf_record, 1);

  r->count = 1;
  r->analytic_us = NAN;
  return r;
}

void
msperf_record_free (msperf_record *r)
{
  if (r == NULL)
    return;
  g_free (r->op_name);
  msperf_op_free (r->op);
  g_free (r->error);
  msperf_result_free (r->result);
  g_free (r->signature);
  g_free (r->digest); /* one block (app/run/digest.h) */
  g_free (r);
}

msperf_run *
msperf_run_new (void)
{
  msperf_run *run = g_new0 (msperf_run, 1);

  run->records = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_record_free);
  run->use_profiling = TRUE;
  run->warnings = g_ptr_array_new_with_free_func (g_free);
  return run;
}

void
msperf_run_free (msperf_run *run)
{
  if (run == NULL)
    return;
  g_ptr_array_unref (run->records);
  g_free (run->database);
  g_free (run->policy_hash);
  g_free (run->device_profile);
  g_free (run->trace);
  g_free (run->database_version);
  g_free (run->database_device);
  g_ptr_array_unref (run->warnings);
  if (run->fold)
    g_hash_table_unref (run->fold);
  if (run->digests)
    g_ptr_array_unref (run->digests);
  g_free (run);
}

void
msperf_run_add (msperf_run *run, msperf_record *record)
{
  g_return_if_fail (run != NULL && record != NULL);
  g_ptr_array_add (run->records, record);
}

/* ------------------------------------------------------------------ distinct signatures */

GPtrArray *
msperf_run_distinct (const msperf_run *run, GArray **counts)
{
  GPtrArray *firsts = g_ptr_array_new ();
  GArray *sums = g_array_new (FALSE, TRUE, sizeof (int64_t));
  g_autoptr (GHashTable) seen = g_hash_table_new_full (msperf_str_hash, g_str_equal, g_free, NULL);

  g_return_val_if_fail (run != NULL, firsts);
  for (guint k = 0; k < run->records->len; k++)
    {
      const msperf_record *r = g_ptr_array_index (run->records, k);
      char *sig;
      gpointer slot;

      if (r->op == NULL)
        {
          g_ptr_array_add (firsts, (gpointer) r);
          g_array_append_val (sums, r->count);
          continue;
        }
      sig = r->signature ? g_strdup (r->signature) : msperf_op_signature (r->op);
      if (g_hash_table_lookup_extended (seen, sig, NULL, &slot))
        {
          int64_t *sum = &g_array_index (sums, int64_t, GPOINTER_TO_UINT (slot));
          /* Counts are >= 1 and bounded by the input; saturate instead of wrapping. */
          *sum = (*sum > G_MAXINT64 - r->count) ? G_MAXINT64 : *sum + r->count;
          g_free (sig);
          continue;
        }
      g_hash_table_insert (seen, sig, GUINT_TO_POINTER (firsts->len));
      g_ptr_array_add (firsts, (gpointer) r);
      g_array_append_val (sums, r->count);
    }
  if (counts)
    *counts = sums;
  else
    g_array_unref (sums);
  return firsts;
}
