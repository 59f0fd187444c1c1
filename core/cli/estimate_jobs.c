/* msperf — estimate's answering loop over --jobs sessions.
 *
 * Why batches and not a queue per op: the records must come back in input order and the
 * answers must be the ones a single handle gives. A batch of raw lines is read on the calling
 * thread (only the line splitting: parsing costs as much as an exact answer, so it runs on the
 * jobs), each line goes to the job chosen by the hash of its text (so a repeated line always
 * meets the parser cache and the answer cache that already hold it), every job parses and
 * answers its share in input order, then takes what is left of the others' shares (from
 * their end, so that one slow share does not hold the batch), and the batch is handed back
 * in input order. Answers are a pure function of the op (doc/design.md § Answer cache), so
 * which session answered cannot change a byte. */
#include <config.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <glib.h>
#include <msperf/msperf.h>
#include "base/str_hash.h"
#include "cli/estimate_jobs.h"
#include "app/run/digest.h"

/* Large enough that thread start-up is noise (~20 µs against ms of work), small enough that
 * the first answers of a big trace appear quickly and memory stays flat. */
#define BATCH_PER_JOB 512

/* The accepted lines a job has answered. A trace repeats its lines (every layer), and an
 * accepted line's record is, but for its index, a pure function of the line (its op, count
 * and answer): so its text after the index is the one rendered the last time, and when the
 * run folds repeats (msperf_jobs_set_render's slim) a line met again at a later index is a
 * repeat whose record only adds its count to the earlier one: it needs neither parse nor
 * answer. The rendering is kept from a line's second sighting on (a trace of distinct lines
 * keeps none), at most RENDER_MAX bytes each (an interpolated answer's details are several
 * KB; exact hits are ~0.5 KB); at most SEEN_LINES lines a job, then started afresh, so
 * memory stays bounded. A hash table, not direct-mapped slots, whose collisions made a third
 * of a model's lines miss. */
#define SEEN_LINES 4096
#define RENDER_MAX 4096

typedef struct {
  size_t index;     /* the earliest index the job answered the line at */
  gint64 count;     /* its record's count */
  char *signature;  /* its op's signature */
  char *rest;       /* its rendering after the index; NULL until its second sighting */
} seen_line;

static void
seen_line_free (gpointer p)
{
  seen_line *seen = p;

  g_free (seen->signature);
  g_free (seen->rest);
  g_free (seen);
}

typedef struct {
  msperf_jobs *jobs;
  guint worker;
} worker_arg;

/* Jobs 1..n-1 are threads that live as long as the jobs (job 0 is the calling thread): a
 * thread started for each batch grew a fresh malloc heap each time (one mprotect per page,
 * ~14 % of a job's time on a trace of distinct interpolations), and a job's session is
 * freed at the end on its own thread, beside the others, not one after another on the
 * caller's. */
typedef struct {
  /* pthread's, not GLib's: GMutex is a bare futex on Linux that ThreadSanitizer cannot see,
   * and scripts/ci-extra.sh runs estimate --jobs 2 under it */
  pthread_mutex_t lock;
  pthread_cond_t start;   /* a batch is handed out, or quit */
  pthread_cond_t done;    /* the last thread finished its part of the batch */
  guint generation;   /* batches handed out to the threads */
  guint running;      /* threads still answering the current batch */
  gboolean quit;
  GThread **threads;  /* [1..n_jobs-1], NULL until the first batch that uses them */
  worker_arg *args;   /* per job */
} jobs_pool;

/* One batch: its items and what each becomes. There are two, so that the caller writes out
 * one batch while the jobs answer the next (the writing, the run's fold and the reading of
 * lines are a sixth of a run of distinct interpolations; overlapped, --jobs 2 is not held up
 * by them). */
typedef struct {
  msperf_trace_item *items;      /* the batch */
  GString **lines;               /* per item: its raw line ("" when read parsed) */
  GPtrArray **keys;              /* per item: its unknown keys, for the reader's warnings */
  guint *owner;                  /* per item: the job meant to answer it */
  guint *line;                   /* per item: its line (for its warnings) */
  gint *claimed;                 /* per item: a job took it (atomic) */
  char **sigs;                   /* per item: its signature (given to the record), or NULL */
  msperf_record **records;
  GString **texts;               /* per item: its rendering */
  guint n;
} jobs_bank;

struct msperf_jobs {
  guint n_jobs;
  msperf_engine *engine;         /* the caller's (borrowed): the model the sessions share */
  msperf_engine **sessions;      /* owned, one per job */
  const char *source;
  msperf_trace_parser **parsers; /* owned, one per job (made with the first batch) */
  GHashTable **seen;             /* per job: line -> seen_line */
  guint shard_index, shard_count; /* answer items with index % count == index (0-based) */
  msperf_jobs_render render;
  gboolean slim;                 /* after rendering, keep only what the summary reads */
  guint cap;
  jobs_bank banks[2];
  jobs_bank *b;                  /* the batch being answered */
  jobs_bank *out;                /* the batch last handed to the caller */
  gboolean ahead;                /* b is being answered by the threads, ahead of the caller */
  jobs_pool pool;
};

guint
msperf_jobs_default (void)
{
  /* The cores this process may run on (affinity, cgroup limits), not all of the machine's. */
  return CLAMP (g_get_num_processors (), 1, 256);
}

static void
bank_init (jobs_bank *b, guint cap)
{
  b->items = g_new0 (msperf_trace_item, cap);
  b->lines = g_new0 (GString *, cap);
  b->keys = g_new0 (GPtrArray *, cap);
  b->texts = g_new0 (GString *, cap);
  for (guint k = 0; k < cap; k++)
    {
      b->lines[k] = g_string_sized_new (256);
      b->keys[k] = g_ptr_array_new_with_free_func (g_free);
      b->texts[k] = g_string_new (NULL);
    }
  b->owner = g_new0 (guint, cap);
  b->line = g_new0 (guint, cap);
  b->claimed = g_new0 (gint, cap);
  b->sigs = g_new0 (char *, cap);
  b->records = g_new0 (msperf_record *, cap);
}

/* Records the caller has not taken (a batch answered ahead, or left after a stop) are freed. */
static void
bank_clear (jobs_bank *b, guint cap)
{
  for (guint k = 0; k < b->n; k++)
    {
      msperf_trace_item_clear (&b->items[k]);
      msperf_record_free (b->records[k]);
      g_free (b->sigs[k]);
    }
  for (guint k = 0; k < cap; k++)
    {
      g_string_free (b->texts[k], TRUE);
      g_string_free (b->lines[k], TRUE);
      g_ptr_array_unref (b->keys[k]);
    }
  g_free (b->items);
  g_free (b->lines);
  g_free (b->keys);
  g_free (b->texts);
  g_free (b->owner);
  g_free (b->line);
  g_free (b->claimed);
  g_free (b->sigs);
  g_free (b->records);
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
  j->parsers = g_new0 (msperf_trace_parser *, j->n_jobs);
  j->cap = BATCH_PER_JOB * j->n_jobs;
  for (guint b = 0; b < G_N_ELEMENTS (j->banks); b++)
    bank_init (&j->banks[b], j->cap);
  j->b = &j->banks[0];
  j->out = &j->banks[1];
  j->seen = g_new0 (GHashTable *, j->n_jobs);
  for (guint k = 0; k < j->n_jobs; k++)
    j->seen[k] = g_hash_table_new_full (msperf_str_hash, g_str_equal, g_free, seen_line_free);
  j->shard_count = 1;
  pthread_mutex_init (&j->pool.lock, NULL);
  pthread_cond_init (&j->pool.start, NULL);
  pthread_cond_init (&j->pool.done, NULL);
  j->pool.args = g_new0 (worker_arg, j->n_jobs);
  for (guint w = 0; w < j->n_jobs; w++)
    j->pool.args[w] = (worker_arg){ j, w };
  return j;
}

/* What job w owns: its session (with its answer cache), its parser, its seen lines. */
static void
job_clear (msperf_jobs *j, guint w)
{
  g_clear_pointer (&j->sessions[w], msperf_engine_free);
  g_clear_pointer (&j->parsers[w], msperf_trace_parser_free);
  g_clear_pointer (&j->seen[w], g_hash_table_unref);
}

static void pool_stop (msperf_jobs *j);

void
msperf_jobs_free (msperf_jobs *j)
{
  if (j == NULL)
    return;
  /* The threads clear their own jobs while this one clears job 0 (and those of threads never
   * started). */
  pool_stop (j);
  g_free (j->parsers);
  g_free (j->seen);
  g_free (j->sessions);
  for (guint b = 0; b < G_N_ELEMENTS (j->banks); b++)
    bank_clear (&j->banks[b], j->cap);
  g_free (j->pool.threads);
  g_free (j->pool.args);
  pthread_mutex_destroy (&j->pool.lock);
  pthread_cond_destroy (&j->pool.start);
  pthread_cond_destroy (&j->pool.done);
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

static void
render_fresh (msperf_jobs *j, guint k)
{
  if (j->render == MSPERF_JOBS_RENDER_JSONL)
    {
      msperf_report_jsonl_write (j->b->texts[k], j->b->records[k]);
      g_string_append_c (j->b->texts[k], '\n');
    }
  else if (j->render == MSPERF_JOBS_RENDER_CSV)
    msperf_report_csv_write (j->b->texts[k], j->b->records[k]);
}

/* The text of record k that comes before the rest of its rendering. */
static char *
index_text (const msperf_jobs *j, size_t index)
{
  return g_strdup_printf ("%s%" G_GINT64_FORMAT,
                          j->render == MSPERF_JOBS_RENDER_JSONL ? "{\"index\": " : "",
                          (gint64) index);
}

/* Record k's text: its line's rendering when job w kept it, else fresh (and kept from the
 * second sighting on). seen: the line's entry, or NULL. */
static void
render_record (msperf_jobs *j, guint k, seen_line *seen)
{
  GString *text = j->b->texts[k];
  g_autofree char *head = NULL;

  g_string_truncate (text, 0);
  if (j->render == MSPERF_JOBS_RENDER_NONE)
    return;
  if (seen == NULL)
    {
      render_fresh (j, k);
      return;
    }
  head = index_text (j, j->b->records[k]->index);
  if (seen->rest)
    {
      g_string_append (text, head);
      g_string_append (text, seen->rest);
      return;
    }
  render_fresh (j, k);
  /* Kept only when the rendering starts with the index text, as it always does. */
  if (text->len <= RENDER_MAX && g_str_has_prefix (text->str, head))
    seen->rest = g_strdup (text->str + strlen (head));
}

/* Notes that job w answered record k's line (accepted, so its record is a function of it);
 * *seen: the line's entry, made when NULL. */
static void
note_seen (msperf_jobs *j, guint w, guint k, seen_line **seen)
{
  const msperf_record *rec = j->b->records[k];

  if (*seen)
    {
      (*seen)->index = MIN ((*seen)->index, rec->index);
      return;
    }
  if (g_hash_table_size (j->seen[w]) >= SEEN_LINES)
    g_hash_table_remove_all (j->seen[w]);
  *seen = g_new0 (seen_line, 1);
  (*seen)->index = rec->index;
  (*seen)->count = rec->count;
  (*seen)->signature = g_strdup (rec->signature);
  g_hash_table_insert (j->seen[w], g_strdup (j->b->lines[k]->str), *seen);
}

/* A repeat of a line job w answered at an earlier index, when the run folds repeats: the
 * record the run folds into the earlier one (its count, under its signature), and its text.
 * The earlier record reaches the run first (input order), so it is always there to fold
 * into. */
static void
answer_repeat (msperf_jobs *j, guint k, const seen_line *seen)
{
  msperf_record *rec = msperf_record_new ();

  rec->index = j->b->items[k].index;
  rec->line = j->b->items[k].line;
  rec->count = seen->count;
  rec->signature = g_strdup (seen->signature);
  rec->analytic_us = NAN;
  j->b->records[k] = rec;
  msperf_trace_item_clear (&j->b->items[k]);
  g_string_truncate (j->b->texts[k], 0);
  {
    g_autofree char *head = index_text (j, rec->index);

    g_string_append (j->b->texts[k], head);
    g_string_append (j->b->texts[k], seen->rest);
  }
}

/* Item k on job w: parsed (JSON Lines), answered, rendered, slimmed. */
static void
answer_on_job (msperf_jobs *j, guint w, guint k)
{
  msperf_trace_item *item = &j->b->items[k];
  gboolean raw = j->b->lines[k]->len > 0;
  seen_line *seen = raw ? g_hash_table_lookup (j->seen[w], j->b->lines[k]->str) : NULL;

  if (seen && seen->rest && j->slim && seen->index < item->index)
    {
      answer_repeat (j, k, seen);
      return;
    }
  if (raw)
    msperf_trace_parser_parse (j->parsers[w], j->b->lines[k]->str, item, j->b->keys[k]);
  if (item->op && j->b->sigs[k] == NULL)
    j->b->sigs[k] = msperf_op_signature (item->op);
  j->b->records[k] = answer_item (j->sessions[w], item, g_steal_pointer (&j->b->sigs[k]),
                                  j->source);
  msperf_trace_item_clear (item);
  /* Rejected records name their line in the error: never the same text twice. */
  if (raw && j->b->records[k]->error == NULL)
    {
      gboolean first = seen == NULL;

      note_seen (j, w, k, &seen);
      if (first)
        seen = NULL;  /* rendered, not kept: most lines of a trace of distinct ops come once */
    }
  else
    seen = NULL;
  render_record (j, k, seen);
  /* Off the reading thread: the record becomes the digest the run folds. */
  if (j->slim)
    msperf_record_digest (j->b->records[k]);
}

/* Whether job w takes item k (no other job has). */
static gboolean
claim (msperf_jobs *j, guint k)
{
  return g_atomic_int_compare_and_exchange (&j->b->claimed[k], 0, 1);
}

static gpointer
worker_run (gpointer data)
{
  const worker_arg *a = data;
  msperf_jobs *j = a->jobs;

  for (guint k = 0; k < j->b->n; k++)
    if (j->b->owner[k] == a->worker && claim (j, k))
      answer_on_job (j, a->worker, k);
  /* Done with its share: help with the others' from their end. */
  for (guint k = j->b->n; k-- > 0;)
    if (j->b->owner[k] != a->worker && claim (j, k))
      answer_on_job (j, a->worker, k);
  return NULL;
}

/* The job of a hash: its high bits by Fibonacci hashing, not `% n_jobs` (g_str_hash, used here
 * before, gave every GEMM line of a trace the same parity: `% 2` sent them all to one job). */
static guint
job_of_hash (guint hash, guint n_jobs)
{
  return (guint) (((guint64) (guint32) (hash * 2654435769u) * n_jobs) >> 32);
}

/* The job meant for item k: by the hash of its line (the parser cache and the answer cache
 * both key on what the line says), or of its signature when it was read parsed. */
static guint
owner_of (msperf_jobs *j, guint k)
{
  if (j->n_jobs == 1)
    return 0;
  if (j->b->lines[k]->len > 0)
    return job_of_hash (msperf_str_hash (j->b->lines[k]->str), j->n_jobs);
  if (j->b->items[k].op == NULL)
    return 0;
  j->b->sigs[k] = msperf_op_signature (j->b->items[k].op);
  return job_of_hash (msperf_str_hash (j->b->sigs[k]), j->n_jobs);
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
  return j->out->texts[k];
}

void
msperf_jobs_set_shard (msperf_jobs *j, guint index, guint count)
{
  g_return_if_fail (count >= 1 && index < count);
  j->shard_index = index;
  j->shard_count = count;
}

/* Thread w (1 <= w < n_jobs): its part of each batch handed out, then, at quit, its job
 * cleared here. */
static gpointer
pool_thread (gpointer data)
{
  worker_arg *a = data;
  jobs_pool *pool = &a->jobs->pool;
  guint generation = 0;

  for (;;)
    {
      gboolean quit;

      pthread_mutex_lock (&pool->lock);
      while (!pool->quit && pool->generation == generation)
        pthread_cond_wait (&pool->start, &pool->lock);
      quit = pool->quit;
      generation = pool->generation;
      pthread_mutex_unlock (&pool->lock);
      if (quit)
        break;
      worker_run (a);
      pthread_mutex_lock (&pool->lock);
      if (--pool->running == 0)
        pthread_cond_signal (&pool->done);
      pthread_mutex_unlock (&pool->lock);
    }
  job_clear (a->jobs, a->worker);
  return NULL;
}

static void
pool_start (msperf_jobs *j)
{
  jobs_pool *pool = &j->pool;

  pool->threads = g_new0 (GThread *, j->n_jobs);
  for (guint w = 1; w < j->n_jobs; w++)
    pool->threads[w] = g_thread_new ("msperf-job", pool_thread, &pool->args[w]);
}

/* Ends the threads (each clears its job) and clears the other jobs here, at the same time. */
static void
pool_stop (msperf_jobs *j)
{
  jobs_pool *pool = &j->pool;

  if (pool->threads)
    {
      pthread_mutex_lock (&pool->lock);
      pool->quit = TRUE;
      pthread_cond_broadcast (&pool->start);
      pthread_mutex_unlock (&pool->lock);
    }
  for (guint w = 0; w < j->n_jobs; w++)
    if (w == 0 || pool->threads == NULL)
      job_clear (j, w);
  for (guint w = 1; pool->threads && w < j->n_jobs; w++)
    g_thread_join (pool->threads[w]);
}

/* Hands batch j->b to the threads, which start on it at once. */
static void
batch_start (msperf_jobs *j)
{
  jobs_pool *pool = &j->pool;

  if (pool->threads == NULL)
    pool_start (j);
  pthread_mutex_lock (&pool->lock);
  pool->generation++;
  pool->running = j->n_jobs - 1;
  pthread_cond_broadcast (&pool->start);
  pthread_mutex_unlock (&pool->lock);
}

/* This thread's part of batch j->b (job 0's share, then what the others have not taken),
 * then the wait for the threads. */
static void
batch_finish (msperf_jobs *j)
{
  jobs_pool *pool = &j->pool;

  worker_run (&pool->args[0]);
  pthread_mutex_lock (&pool->lock);
  while (pool->running > 0)
    pthread_cond_wait (&pool->done, &pool->lock);
  pthread_mutex_unlock (&pool->lock);
}

/* Answers batch j->b before returning. */
static void
answer_batch (msperf_jobs *j)
{
  /* One job, or a batch too small to be worth waking threads: answer here. */
  if (j->n_jobs == 1 || j->b->n < 2)
    {
      for (guint w = 0; w < j->n_jobs; w++)
        worker_run (&j->pool.args[w]);
      return;
    }
  batch_start (j);
  batch_finish (j);
}

void
msperf_jobs_note_keys (msperf_jobs *j, guint k, msperf_trace_reader *reader)
{
  g_return_if_fail (j != NULL && k < j->out->n && reader != NULL);

  if (j->out->keys[k]->len > 0)
    msperf_trace_reader_note_keys (reader, j->out->line[k], j->out->keys[k]);
}

/* Reads up to limit items into batch j->b. */
static void
batch_read (msperf_jobs *j, msperf_trace_reader *reader, guint limit)
{
  jobs_bank *b = j->b;

  b->n = 0;
  while (b->n < limit && msperf_trace_reader_next_raw (reader, &b->items[b->n], b->lines[b->n]))
    {
      /* Another shard's item: read (its line number and index stay those of the whole trace)
       * but neither parsed nor answered. */
      if (b->items[b->n].index % j->shard_count != j->shard_index)
        {
          msperf_trace_item_clear (&b->items[b->n]);
          continue;
        }
      g_ptr_array_set_size (b->keys[b->n], 0);
      b->claimed[b->n] = 0;
      b->line[b->n] = b->items[b->n].line;
      b->owner[b->n] = owner_of (j, b->n);
      b->n++;
    }
}

guint
msperf_jobs_next_batch (msperf_jobs *j, msperf_trace_reader *reader, msperf_record ***records)
{
  gboolean stream = msperf_trace_reader_is_stream (reader);
  /* One job on a pipe reads one item at a time: a sweep piping ops through `--ops -` gets
   * each answer before it writes the next op. */
  guint limit = j->n_jobs == 1 && stream ? 1 : j->cap;
  jobs_bank *done;

  for (guint w = 0; w < j->n_jobs; w++)
    if (j->parsers[w] == NULL)
      j->parsers[w] = msperf_trace_parser_new (reader);
  if (j->ahead)
    batch_finish (j);  /* the batch the threads began while the caller wrote the last one */
  else
    {
      if (j->b->n == 0)
        batch_read (j, reader, limit);
      answer_batch (j);
    }
  j->ahead = FALSE;
  done = j->b;
  j->b = j->out;
  j->out = done;
  j->b->n = 0;
  /* Several jobs on a file: the next batch is read now and begun on the threads while the
   * caller writes this one (on a pipe the next lines may not exist yet: this batch's answers
   * must not wait for them). The caller's thread joins it on the next call. */
  if (j->n_jobs > 1 && !stream && done->n > 0)
    {
      batch_read (j, reader, limit);
      if (j->b->n >= 2)
        {
          batch_start (j);
          j->ahead = TRUE;
        }
    }
  *records = done->records;
  return done->n;
}
