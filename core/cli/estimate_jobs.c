/* msperf — estimate's answering loop over --jobs sessions.
 *
 * Why batches and not a queue per op: the records must come back in input order and the
 * answers must be the ones a single handle gives. A batch is read on the calling thread, each
 * op goes to the session chosen by the hash of its signature (so a repeated op always meets
 * the answer cache that already holds it, and the sessions' caches do not duplicate each
 * other), every session answers its share in input order, and the batch is handed back in
 * input order. Answers are a pure function of the op (doc/design.md § Answer cache), so which
 * session answered cannot change a byte. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <glib.h>
#include <msperf/msperf.h>
#include "cli/estimate_jobs.h"
#include "app/digest.h"

/* Large enough that thread start-up is noise (~20 µs against ms of work), small enough that
 * the first answers of a big trace appear quickly and memory stays flat. */
#define BATCH_PER_JOB 512

typedef struct {
  msperf_jobs *jobs;
  guint worker;
} worker_arg;

struct msperf_jobs {
  guint n_jobs;
  msperf_engine *engine;         /* the caller's (borrowed): the model the sessions share */
  msperf_engine **sessions;      /* owned, one per job */
  const char *source;
  msperf_trace_item *items;      /* the batch being answered */
  guint *owner;                  /* per item: the session answering it */
  char **sigs;                   /* per item: its signature (given to the record), or NULL */
  guint shard_index, shard_count; /* answer items with index % count == index (0-based) */
  msperf_record **records;
  GString **texts;               /* per item: its rendering */
  msperf_jobs_render render;
  gboolean slim;                 /* after rendering, keep only what the summary reads */
  guint n;
  guint cap;
};

guint
msperf_jobs_default (void)
{
  /* The cores this process may run on (affinity, cgroup limits), not all of the machine's. */
  return CLAMP (g_get_num_processors (), 1, 256);
}

msperf_jobs *
msperf_jobs_new (msperf_engine *engine, guint n_jobs, const char *source)
{
  msperf_jobs *j = g_new0 (msperf_jobs, 1);

  j->n_jobs = MAX (n_jobs, 1);
  j->source = source;
  j->engine = engine;
  j->sessions = g_new0 (msperf_engine *, j->n_jobs);
  /* Each session's answer cache is an LRU bounded by cache.answers (core/engine/dispatch.c). */
  for (guint k = 0; k < j->n_jobs; k++)
    j->sessions[k] = msperf_engine_new_session (engine);
  j->cap = BATCH_PER_JOB * j->n_jobs;
  j->items = g_new0 (msperf_trace_item, j->cap);
  j->owner = g_new0 (guint, j->cap);
  j->sigs = g_new0 (char *, j->cap);
  j->shard_count = 1;
  j->records = g_new0 (msperf_record *, j->cap);
  j->texts = g_new0 (GString *, j->cap);
  for (guint k = 0; k < j->cap; k++)
    j->texts[k] = g_string_new (NULL);
  return j;
}

void
msperf_jobs_free (msperf_jobs *j)
{
  if (j == NULL)
    return;
  for (guint k = 0; k < j->n_jobs; k++)
    msperf_engine_free (j->sessions[k]);
  for (guint k = 0; k < j->n; k++)
    msperf_trace_item_clear (&j->items[k]);
  g_free (j->sessions);
  g_free (j->sigs);
  g_free (j->items);
  g_free (j->owner);
  g_free (j->records);
  for (guint k = 0; k < j->cap; k++)
    g_string_free (j->texts[k], TRUE);
  g_free (j->texts);
  g_free (j);
}

static msperf_record *
answer_rejected (msperf_trace_item *item)
{
  msperf_record *rec = msperf_record_new ();

  rec->index = item->index;
  rec->line = item->line;
  rec->error = g_steal_pointer (&item->error);
  rec->op_name = g_strdup (item->op_name ? item->op_name : "");
  rec->count = 1;
  rec->result = msperf_result_new ();
  rec->result->source = MSPERF_SOURCE_REJECTED;
  rec->analytic_us = NAN;
  return rec;
}

static msperf_record *
answer_item (msperf_engine *e, msperf_trace_item *item, char *signature, const char *source)
{
  msperf_record *rec;

  if (item->error)
    return answer_rejected (item);
  rec = msperf_record_new ();
  rec->index = item->index;
  rec->line = item->line;
  rec->op = g_steal_pointer (&item->op);
  rec->op_name = g_strdup (rec->op->name);
  rec->count = rec->op->count;
  rec->signature = signature ? signature : msperf_op_signature (rec->op);
  rec->analytic_us = msperf_engine_analytic_latency (e, rec->op);
  rec->result = msperf_engine_query (e, rec->op);
  /* An ATT model that refused its parameters rejects the line like a malformed one. */
  if (rec->result->source == MSPERF_SOURCE_REJECTED)
    rec->error = g_strdup_printf ("%s:%u: %s", source, rec->line,
                                  rec->result->miss_reason ? rec->result->miss_reason : "rejected");
  return rec;
}

static gpointer
worker_run (gpointer data)
{
  const worker_arg *a = data;
  msperf_jobs *j = a->jobs;

  for (guint k = 0; k < j->n; k++)
    if (j->owner[k] == a->worker)
      {
        j->records[k] = answer_item (j->sessions[a->worker], &j->items[k],
                                     g_steal_pointer (&j->sigs[k]), j->source);
        msperf_trace_item_clear (&j->items[k]);
        g_string_truncate (j->texts[k], 0);
        if (j->render == MSPERF_JOBS_RENDER_JSONL)
          {
            msperf_report_jsonl_write (j->texts[k], j->records[k]);
            g_string_append_c (j->texts[k], '\n');
          }
        else if (j->render == MSPERF_JOBS_RENDER_CSV)
          msperf_report_csv_write (j->texts[k], j->records[k]);
        /* Off the reading thread: the record becomes the digest the run folds. */
        if (j->slim)
          msperf_record_digest (j->records[k]);
      }
  return NULL;
}

/* The session of item k: by its signature (what the answer cache keys on), so that repeats
 * of one op stay on one session. */
static guint
owner_of (msperf_jobs *j, guint k)
{
  if (j->items[k].op == NULL)
    return 0;
  j->sigs[k] = msperf_op_signature (j->items[k].op);
  if (j->n_jobs == 1)
    return 0;
  return g_str_hash (j->sigs[k]) % j->n_jobs;
}

void
msperf_jobs_set_render (msperf_jobs *j, msperf_jobs_render render, gboolean slim)
{
  j->render = render;
  j->slim = slim;
}

const GString *
msperf_jobs_text (msperf_jobs *j, guint k)
{
  g_return_val_if_fail (k < j->cap, NULL);
  return j->texts[k];
}

void
msperf_jobs_set_shard (msperf_jobs *j, guint index, guint count)
{
  g_return_if_fail (count >= 1 && index < count);
  j->shard_index = index;
  j->shard_count = count;
}

static void
answer_batch (msperf_jobs *j)
{
  g_autofree GThread **threads = g_new0 (GThread *, j->n_jobs);
  g_autofree worker_arg *args = g_new0 (worker_arg, j->n_jobs);

  for (guint w = 0; w < j->n_jobs; w++)
    args[w] = (worker_arg){ j, w };
  /* One job, or a batch too small to be worth threads: answer here. */
  if (j->n_jobs == 1 || j->n < 2)
    {
      for (guint w = 0; w < j->n_jobs; w++)
        worker_run (&args[w]);
      return;
    }
  for (guint w = 1; w < j->n_jobs; w++)
    threads[w] = g_thread_new ("msperf-job", worker_run, &args[w]);
  worker_run (&args[0]);
  for (guint w = 1; w < j->n_jobs; w++)
    g_thread_join (threads[w]);
}

guint
msperf_jobs_next_batch (msperf_jobs *j, msperf_trace_reader *reader, msperf_record ***records)
{
  /* One job reads one item at a time: a sweep piping ops through `--ops -` gets each answer
   * before it writes the next op. */
  guint limit = j->n_jobs == 1 ? 1 : j->cap;

  j->n = 0;
  while (j->n < limit && msperf_trace_reader_next (reader, &j->items[j->n]))
    {
      /* Another shard's item: read (its line number and index stay those of the whole trace)
       * but not answered. */
      if (j->items[j->n].index % j->shard_count != j->shard_index)
        {
          msperf_trace_item_clear (&j->items[j->n]);
          continue;
        }
      j->owner[j->n] = owner_of (j, j->n);
      j->n++;
    }
  answer_batch (j);
  *records = j->records;
  return j->n;
}
