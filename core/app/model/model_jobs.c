/* msperf — model-level points on threads (model_jobs.h).
 *
 * Why a shared counter and not fixed shares: points differ in cost by orders of magnitude (a
 * batch-256 prefill at tp 1 against a batch-1 decode at tp 8), so workers claim the next item
 * as they become free. Items are claimed in increasing order, so when one fails every item
 * before it has been claimed and will finish: the first failing item in order, the one a
 * single job stops at, is always known, and its error is the one reported. */
#include <config.h>
#include <string.h>
#include "app/model/model_jobs.h"

struct msperf_model_jobs {
  guint n_jobs;
  msperf_engine **sessions;      /* owned, one per worker, on the caller's engine's model */
  msperf_model_eval **evals;     /* one per worker, on its session; one answer cache */
};

msperf_model_jobs *
msperf_model_jobs_new (msperf_engine *engine, guint n_jobs)
{
  msperf_model_jobs *j;

  g_return_val_if_fail (engine != NULL, NULL);
  j = g_new0 (msperf_model_jobs, 1);
  j->n_jobs = MAX (n_jobs, 1);
  j->sessions = g_new0 (msperf_engine *, j->n_jobs);
  j->evals = g_new0 (msperf_model_eval *, j->n_jobs);
  for (guint w = 0; w < j->n_jobs; w++)
    {
      j->sessions[w] = msperf_engine_new_session (engine);
      j->evals[w] = w == 0 ? msperf_model_eval_new (j->sessions[w])
                           : msperf_model_eval_new_sharing (j->sessions[w], j->evals[0]);
    }
  return j;
}

void
msperf_model_jobs_free (msperf_model_jobs *j)
{
  if (j == NULL)
    return;
  for (guint w = 0; w < j->n_jobs; w++)
    {
      msperf_model_eval_free (j->evals[w]);
      msperf_engine_free (j->sessions[w]);
    }
  g_free (j->evals);
  g_free (j->sessions);
  g_free (j);
}

guint
msperf_model_jobs_count (const msperf_model_jobs *j)
{
  return j->n_jobs;
}

void
msperf_model_jobs_stats (const msperf_model_jobs *j, guint64 *distinct, guint64 *cached)
{
  *distinct = *cached = 0;
  for (guint w = 0; w < j->n_jobs; w++)
    {
      guint64 d, c;

      msperf_model_eval_stats (j->evals[w], &d, &c);
      *distinct += d;
      *cached += c;
    }
}

/* ---------------------------------------------------------------- items on the workers */

/* Answers item k with a worker's evaluator; writes only what belongs to item k. */
typedef gboolean (*item_fn) (msperf_model_eval *ev, guint k, gpointer user, GError **error);

typedef struct {
  msperf_model_jobs *jobs;
  guint n;
  item_fn fn;
  gpointer user;
  gint next;                     /* atomic: the next item to claim */
  gint failed;                   /* atomic: an item failed; claim no more */
  GError **errors;               /* per item */
} run;

typedef struct {
  run *r;
  guint worker;
} worker_arg;

static gpointer
worker_run (gpointer data)
{
  const worker_arg *a = data;
  run *r = a->r;

  while (!g_atomic_int_get (&r->failed))
    {
      guint k = (guint) g_atomic_int_add (&r->next, 1);

      if (k >= r->n)
        break;
      if (!r->fn (r->jobs->evals[a->worker], k, r->user, &r->errors[k]))
        g_atomic_int_set (&r->failed, 1);
    }
  return NULL;
}

/* Items 0 .. n-1 on min(jobs, n) workers, the calling thread being worker 0. */
static gboolean
run_items (msperf_model_jobs *j, guint n, item_fn fn, gpointer user, GError **error)
{
  run r = { j, n, fn, user, 0, 0, g_new0 (GError *, MAX (n, 1)) };
  guint workers = CLAMP (n, 1, j->n_jobs);
  g_autofree GThread **threads = g_new0 (GThread *, workers);
  g_autofree worker_arg *args = g_new0 (worker_arg, workers);
  gboolean ok = TRUE;

  for (guint w = 0; w < workers; w++)
    args[w] = (worker_arg){ &r, w };
  for (guint w = 1; w < workers; w++)
    threads[w] = g_thread_new ("msperf-model", worker_run, &args[w]);
  worker_run (&args[0]);
  for (guint w = 1; w < workers; w++)
    g_thread_join (threads[w]);
  for (guint k = 0; k < n; k++)
    if (r.errors[k])
      {
        if (ok)
          g_propagate_error (error, g_steal_pointer (&r.errors[k]));
        else
          g_clear_error (&r.errors[k]);
        ok = FALSE;
      }
  g_free (r.errors);
  return ok;
}

/* ---------------------------------------------------------------- one point */

typedef struct {
  const msperf_model *model;
  const msperf_model_layout *layout;
  const msperf_e2e_request *req;
  double *lat, *data;
} point_passes;

static gboolean
pass_item (msperf_model_eval *ev, guint k, gpointer user, GError **error)
{
  point_passes *p = user;
  msperf_model_pass pass;

  msperf_e2e_pass (p->req, k, &pass);
  return msperf_model_eval_pass (ev, p->model, p->layout, &pass, &p->lat[k], &p->data[k], error);
}

gboolean
msperf_model_jobs_point (msperf_model_jobs *j, const msperf_model *model,
                         const msperf_model_layout *layout, const msperf_e2e_request *req,
                         msperf_e2e_point *out, GError **error)
{
  guint n = msperf_e2e_n_passes (req);
  g_autofree double *lat = g_new0 (double, n), *data = g_new0 (double, n);
  point_passes p = { model, layout, req, lat, data };

  g_return_val_if_fail (j != NULL && model != NULL && layout != NULL && req != NULL, FALSE);
  if (!msperf_e2e_point_begin (model, layout, req, out, error))
    return FALSE;
  if (!out->fits)
    return TRUE;
  if (!run_items (j, n, pass_item, &p, error))
    return FALSE;
  msperf_e2e_point_finish (req, lat, data, out);
  return TRUE;
}

/* ---------------------------------------------------------------- the sweep */

typedef struct {
  guint layout;                  /* index in the layouts */
  int64_t batch;
} sweep_task;

typedef struct {
  const msperf_model *model;
  const GArray *layouts;
  const msperf_e2e_request *req;
  const sweep_task *tasks;
  msperf_e2e_point *points;
} sweep_run;

static gboolean
point_item (msperf_model_eval *ev, guint k, gpointer user, GError **error)
{
  sweep_run *s = user;
  msperf_e2e_request req = *s->req;

  req.batch = s->tasks[k].batch;
  return msperf_e2e_point_compute (ev, s->model,
                                   &g_array_index (s->layouts, msperf_model_layout,
                                                   s->tasks[k].layout),
                                   &req, &s->points[k], error);
}

/* The points of this shard in order; refused layouts counted (their points keep their place
 * in the shard numbering, so the shards of one sweep do not depend on the model). */
static GArray *
sweep_tasks (const msperf_model *model, const GArray *layouts, const GArray *batches,
             int64_t shard, int64_t shards, msperf_sweep_counts *counts)
{
  GArray *tasks = g_array_new (FALSE, FALSE, sizeof (sweep_task));
  guint64 k = 0;

  for (guint a = 0; a < layouts->len; a++)
    {
      if (!msperf_model_check_layout (model, &g_array_index (layouts, msperf_model_layout, a),
                                      NULL))
        {
          counts->refused++;
          k += batches->len;
          continue;
        }
      for (guint b = 0; b < batches->len; b++, k++)
        if ((int64_t) (k % (guint64) shards) == shard - 1)
          {
            sweep_task t = { a, g_array_index (batches, int64_t, b) };
            g_array_append_val (tasks, t);
          }
    }
  return tasks;
}

gboolean
msperf_model_jobs_sweep (msperf_model_jobs *j, const msperf_model *model, const GArray *layouts,
                         const GArray *batches, const msperf_e2e_request *req, int64_t shard,
                         int64_t shards, GArray *points, msperf_sweep_counts *counts,
                         GError **error)
{
  g_autoptr (GArray) tasks = NULL;
  g_autofree msperf_e2e_point *pts = NULL;
  sweep_run s;

  g_return_val_if_fail (j != NULL && model != NULL && layouts != NULL && batches != NULL, FALSE);
  g_return_val_if_fail (shards >= 1 && shard >= 1 && shard <= shards, FALSE);
  tasks = sweep_tasks (model, layouts, batches, shard, shards, counts);
  pts = g_new0 (msperf_e2e_point, MAX (tasks->len, 1));
  s = (sweep_run){ model, layouts, req, (const sweep_task *) (void *) tasks->data, pts };
  if (!run_items (j, tasks->len, point_item, &s, error))
    return FALSE;
  for (guint k = 0; k < tasks->len; k++)
    {
      counts->no_fit += !pts[k].fits;
      counts->estimated += pts[k].estimated;
      g_array_append_val (points, pts[k]);
    }
  return TRUE;
}
