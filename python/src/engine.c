/* msperf Python module — msperf.Engine: configuration as `msperf estimate` does it
 * (core/cli/cli_estimate.c configure_engine), query, query_many on worker threads, estimate.
 *
 * Threads (include/msperf/engine.h): one handle serves one thread at a time. The handle of
 * query() is used only with the GIL held. query_many and estimate release the GIL and run on
 * session handles (msperf_engine_new_session) taken from a pool, so another Python thread may
 * call query() or query_many() on the same Engine meanwhile; the pool keeps the sessions (and
 * their answer caches) from one call to the next. */
#include <config.h>
#include "pymsperf.h"
#include <math.h>
#include <pthread.h>
#include <string.h>
#include "app/run/metrics.h"
#include "app/report/report.h"
#include "app/trace/trace.h"

/* Ops a worker claims at a time: small enough to balance, large enough to keep the shared
 * counter off the hot path. */
#define CLAIM_CHUNK 64
#define MAX_JOBS 64

typedef struct {
  PyObject_HEAD
  msperf_engine *engine;
  pthread_mutex_t pool_lock;  /* pthread's, not GMutex: visible to ThreadSanitizer */
  GPtrArray *pool;          /* idle msperf_engine* sessions */
  gboolean profiling, analytic;
} mpy_engine;

/* ------------------------------------------------------------------ configuration */

typedef struct {
  const char *database, *database_root, *policy, *device;
  PyObject *plugin_dirs, *overrides, *models;
} engine_args;

static gboolean
add_plugin_dirs (msperf_engine *e, PyObject *dirs)
{
  PyObject *seq = PySequence_Fast (dirs, "plugin_dirs must be a sequence of paths");

  if (seq == NULL)
    return FALSE;
  for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE (seq); k++)
    {
      PyObject *bytes = NULL;
      if (!PyUnicode_FSConverter (PySequence_Fast_GET_ITEM (seq, k), &bytes))
        {
          Py_DECREF (seq);
          return FALSE;
        }
      msperf_engine_add_plugin_dir (e, PyBytes_AS_STRING (bytes));
      Py_DECREF (bytes);
    }
  Py_DECREF (seq);
  return TRUE;
}

/* From the build tree msperf_paths_plugin_dir() names the installed directory (the running
 * executable is python3, not a build-tree program), so the uninstalled module searches like
 * an uninstalled msperf: the given dirs, MSPERF_PLUGIN_PATH, then builddir/plugins. */
static void
add_uninstalled_plugin_dirs (msperf_engine *e)
{
  const char *env = g_getenv ("MSPERF_PLUGIN_PATH");
  g_auto (GStrv) parts = env ? g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1) : NULL;
  g_autofree char *dir = g_build_filename (MSPERF_PY_BUILDDIR, "plugins", NULL);

  for (char **p = parts; p && *p; p++)
    if (**p)
      msperf_engine_add_plugin_dir (e, *p);
  msperf_engine_add_plugin_dir (e, dir);
  msperf_engine_set_plugin_search_defaults (e, FALSE);
}

/* An override value as the YAML scalar text the CLI flags give. */
static char *
override_text (PyObject *value)
{
  PyObject *str;
  char *text;

  if (value == Py_True || value == Py_False)
    return g_strdup (value == Py_True ? "true" : "false");
  if (value == Py_None)
    return g_strdup ("null");
  str = PyObject_Str (value);
  if (str == NULL)
    return NULL;
  text = g_strdup (PyUnicode_AsUTF8 (str));
  Py_DECREF (str);
  return text;
}

static gboolean
set_overrides (msperf_engine *e, PyObject *overrides, GError **error)
{
  PyObject *key, *value;
  Py_ssize_t pos = 0;

  if (overrides == NULL || overrides == Py_None)
    return TRUE;
  if (!PyDict_Check (overrides))
    {
      PyErr_SetString (PyExc_TypeError, "overrides must be a dict {\"parallel.tp_size\": 2, …}");
      return FALSE;
    }
  while (PyDict_Next (overrides, &pos, &key, &value))
    {
      g_autofree char *text = override_text (value);
      const char *name = PyUnicode_Check (key) ? PyUnicode_AsUTF8 (key) : NULL;
      if (name == NULL || text == NULL)
        {
          if (!PyErr_Occurred ())
            PyErr_SetString (PyExc_TypeError, "overrides keys must be strings");
          return FALSE;
        }
      if (!msperf_engine_set_override (e, name, text, error))
        return FALSE;
    }
  return TRUE;
}

/* The aliases line of one of msperf's own device profiles ("aliases: [A, B]  # …"). */
static gboolean
profile_has_alias (const char *path, const char *key)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_auto (GStrv) names = NULL;
      char *hash;
      if (!g_str_has_prefix (*l, "aliases:"))
        continue;
      if ((hash = strchr (*l, '#')) != NULL)
        *hash = '\0';
      g_strdelimit (*l + 8, "[]\"'", ' ');
      names = g_strsplit (*l + 8, ",", -1);
      for (char **n = names; *n; n++)
        if (strcmp (g_strstrip (*n), key) == 0)
          return TRUE;
    }
  return FALSE;
}

/* From the build tree device profile *names* resolve in the source tree, as they do for an
 * uninstalled msperf (the engine would look in the installed $(pkgdatadir)). With no name, the
 * engine's own choice is repeated: the profile aliased to the database's device, else
 * nvidia-h200. A policy naming a device profile is left to the engine (doc/python.md). */
static char *
uninstalled_device (msperf_engine *e, const engine_args *a)
{
  g_autofree char *dir = g_build_filename (MSPERF_PY_SRCDIR, "policies", "devices", NULL);
  const msperf_database *db = a->device ? NULL : msperf_engine_database (e);
  const char *key = db ? msperf_database_device (db) : NULL;
  g_autoptr (GDir) listing = NULL;
  const char *name;

  if (a->device)
    {
      g_autofree char *file = g_strconcat (a->device, ".yaml", NULL);
      char *path = g_build_filename (dir, file, NULL);
      if (strchr (a->device, '/') == NULL && g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return path;
      g_free (path);
      return g_strdup (a->device);
    }
  if (a->policy)
    return NULL;
  if (key && (listing = g_dir_open (dir, 0, NULL)) != NULL)
    while ((name = g_dir_read_name (listing)) != NULL)
      {
        char *path = g_build_filename (dir, name, NULL);
        if (g_str_has_suffix (name, ".yaml") && profile_has_alias (path, key))
          return path;
        g_free (path);
      }
  return g_build_filename (dir, "nvidia-h200.yaml", NULL);
}

static char *
sample_database (void)
{
  if (mpy_uninstalled ())
    return g_build_filename (MSPERF_PY_SRCDIR, "doc", "examples", "h200-db", NULL);
  return msperf_paths_data_file ("examples/h200-db", "doc/examples/h200-db");
}

/* configure_engine of the CLI. FALSE with a Python exception or *error set. */
static gboolean
configure (mpy_engine *self, const engine_args *a, GError **error)
{
  msperf_engine *e = self->engine;
  g_autofree char *sample = NULL, *device = NULL;
  gboolean ok;

  if (!add_plugin_dirs (e, a->plugin_dirs))
    return FALSE;
  if (mpy_uninstalled ())
    add_uninstalled_plugin_dirs (e);
  if (a->policy && !msperf_engine_load_policy (e, a->policy, error))
    return FALSE;
  if (!set_overrides (e, a->overrides, error))
    return FALSE;
  if (self->profiling)
    {
      const char *db = a->database ? a->database : (sample = sample_database ());
      if (!msperf_engine_open_database (e, db, a->database_root, error))
        return FALSE;
    }
  device = mpy_uninstalled () ? uninstalled_device (e, a) : g_strdup (a->device);
  if (device && !msperf_engine_set_device_profile (e, device, error))
    return FALSE;
  Py_BEGIN_ALLOW_THREADS
  ok = msperf_engine_start (e, error);
  Py_END_ALLOW_THREADS
  return ok;
}

static gboolean
parse_models (mpy_engine *self, PyObject *models)
{
  PyObject *seq;

  self->profiling = TRUE;
  self->analytic = FALSE;
  if (models == NULL || models == Py_None)
    return TRUE;
  if (PyUnicode_Check (models))
    seq = PyTuple_Pack (1, models);
  else
    seq = PySequence_Tuple (models);
  if (seq == NULL)
    return FALSE;
  self->profiling = self->analytic = FALSE;
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE (seq); k++)
    {
      const char *m = PyUnicode_Check (PyTuple_GET_ITEM (seq, k))
                        ? PyUnicode_AsUTF8 (PyTuple_GET_ITEM (seq, k)) : "";
      if (m && strcmp (m, "profiling") == 0)
        self->profiling = TRUE;
      else if (m && strcmp (m, "analytic") == 0)
        self->analytic = TRUE;
      else
        {
          Py_DECREF (seq);
          PyErr_SetString (PyExc_ValueError,
                           "performance_model must be 'analytic' and/or 'profiling'");
          return FALSE;
        }
    }
  Py_DECREF (seq);
  return TRUE;
}

/* PyUnicode_FSConverter that takes None for "not given" (leaves *out NULL). */
static int
fs_path_or_none (PyObject *obj, void *out)
{
  if (obj == Py_None)
    {
      *(PyObject **) out = NULL;
      return 1;
    }
  return PyUnicode_FSConverter (obj, out);
}

static int
engine_init (mpy_engine *self, PyObject *args, PyObject *kwargs)
{
  static char *keywords[] = { "database", "policy", "device", "plugin_dirs", "overrides",
                              "database_root", "performance_model", NULL };
  engine_args a = { 0 };
  PyObject *db = NULL, *policy = NULL, *root = NULL;
  g_autoptr (GError) error = NULL;
  int status = -1;

  a.plugin_dirs = a.overrides = a.models = NULL;
  if (self->engine)
    {
      PyErr_SetString (PyExc_RuntimeError, "msperf.Engine is already initialised");
      return -1;
    }
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "|O&O&zOOO&O", keywords,
                                    fs_path_or_none, &db, fs_path_or_none, &policy,
                                    &a.device, &a.plugin_dirs, &a.overrides,
                                    fs_path_or_none, &root, &a.models))
    goto out;
  a.database = db ? PyBytes_AS_STRING (db) : NULL;
  a.policy = policy ? PyBytes_AS_STRING (policy) : NULL;
  a.database_root = root ? PyBytes_AS_STRING (root) : NULL;
  if (a.plugin_dirs == NULL || a.plugin_dirs == Py_None)
    a.plugin_dirs = PyTuple_New (0);
  else
    Py_INCREF (a.plugin_dirs);
  if (a.plugin_dirs == NULL || !parse_models (self, a.models))
    goto out;
  self->engine = msperf_engine_new ();
  if (!configure (self, &a, &error))
    {
      if (error)
        mpy_raise_gerror (error);
      g_clear_pointer (&self->engine, msperf_engine_free);
      goto out;
    }
  status = 0;
out:
  Py_XDECREF (a.plugin_dirs);
  Py_XDECREF (db);
  Py_XDECREF (policy);
  Py_XDECREF (root);
  return status;
}

static PyObject *
engine_new (PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  mpy_engine *self = (mpy_engine *) type->tp_alloc (type, 0);

  (void) args;
  (void) kwargs;
  if (self == NULL)
    return NULL;
  pthread_mutex_init (&self->pool_lock, NULL);
  self->pool = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_engine_free);
  return (PyObject *) self;
}

static void
engine_dealloc (mpy_engine *self)
{
  g_clear_pointer (&self->pool, g_ptr_array_unref);
  g_clear_pointer (&self->engine, msperf_engine_free);
  pthread_mutex_destroy (&self->pool_lock);
  Py_TYPE (self)->tp_free ((PyObject *) self);
}

static gboolean
engine_ready (mpy_engine *self)
{
  if (self->engine == NULL)
    PyErr_SetString (PyExc_RuntimeError, "msperf.Engine is not initialised");
  return self->engine != NULL;
}

/* ------------------------------------------------------------------ sessions */

/* n session handles; created with the GIL held (never concurrently with query()). */
static GPtrArray *
take_sessions (mpy_engine *self, guint n)
{
  GPtrArray *out = g_ptr_array_new ();

  pthread_mutex_lock (&self->pool_lock);
  while (out->len < n && self->pool->len > 0)
    g_ptr_array_add (out, g_ptr_array_steal_index_fast (self->pool, self->pool->len - 1));
  pthread_mutex_unlock (&self->pool_lock);
  while (out->len < n)
    g_ptr_array_add (out, msperf_engine_new_session (self->engine));
  return out;
}

static void
give_sessions (mpy_engine *self, GPtrArray *sessions)
{
  pthread_mutex_lock (&self->pool_lock);
  for (guint k = 0; k < sessions->len; k++)
    g_ptr_array_add (self->pool, g_ptr_array_index (sessions, k));
  pthread_mutex_unlock (&self->pool_lock);
  g_ptr_array_unref (sessions);
}

/* ------------------------------------------------------------------ query */

static msperf_op *
parse_op (PyObject *op, GError **error)
{
  g_autoptr (GString) text = g_string_sized_new (256);

  if (!mpy_op_to_json (op, text))
    return NULL;
  return msperf_trace_parse_op (text->str, "op", 1, error);
}

/* The parser's "NAME:LINE: " prefix names no file here: the message starts at the field. */
static void
raise_op_error (const char *prefix, const GError *error)
{
  const char *msg = error->message;
  const char *rest = strstr (msg, ":1: ");

  if (rest != NULL && g_str_has_prefix (msg, "op:1: "))
    msg = rest + 4;
  PyErr_Format (PyExc_ValueError, "%s%s", prefix, msg);
}

static PyObject *
engine_query (mpy_engine *self, PyObject *op)
{
  g_autoptr (GError) error = NULL;
  msperf_op *parsed;
  msperf_result *result;
  double analytic;

  if (!engine_ready (self))
    return NULL;
  if ((parsed = parse_op (op, &error)) == NULL)
    {
      if (error)
        raise_op_error ("", error);
      return NULL;
    }
  analytic = msperf_engine_analytic_latency (self->engine, parsed);
  result = msperf_engine_query (self->engine, parsed);
  return mpy_result_new (parsed, result, analytic);
}

/* ------------------------------------------------------------------ query_many */

typedef struct {
  GString *texts;         /* every op's JSON, NUL-separated */
  gsize *offsets;         /* start of op k in texts */
  guint n;
  gint next;              /* first unclaimed op (atomic) */
  msperf_op **ops;
  msperf_result **results;
  double *analytic;
  GError **errors;
} batch;

typedef struct {
  batch *b;
  msperf_engine *session;
} worker;

static void
answer_one (batch *b, msperf_engine *session, guint k)
{
  msperf_op *op = msperf_trace_parse_op (b->texts->str + b->offsets[k], "op", 1, &b->errors[k]);

  if (op == NULL)
    return;
  op->index = k;
  b->ops[k] = op;
  b->analytic[k] = msperf_engine_analytic_latency (session, op);
  b->results[k] = msperf_engine_query (session, op);
}

static gpointer
worker_run (gpointer data)
{
  worker *w = data;
  batch *b = w->b;

  for (;;)
    {
      guint start = (guint) g_atomic_int_add (&b->next, CLAIM_CHUNK);
      if (start >= b->n)
        break;
      for (guint k = start; k < b->n && k < start + CLAIM_CHUNK; k++)
        answer_one (b, w->session, k);
    }
  return NULL;
}

static void
batch_free (batch *b)
{
  for (guint k = 0; k < b->n; k++)
    {
      msperf_op_free (b->ops[k]);
      msperf_result_free (b->results[k]);
      g_clear_error (&b->errors[k]);
    }
  g_free (b->ops);
  g_free (b->results);
  g_free (b->analytic);
  g_free (b->errors);
  g_free (b->offsets);
  g_string_free (b->texts, TRUE);
}

/* Encodes every op with the GIL held (Python objects are read only here). */
static gboolean
batch_fill (batch *b, PyObject *seq)
{
  b->n = (guint) PySequence_Fast_GET_SIZE (seq);
  b->texts = g_string_sized_new (256 * (gsize) b->n + 1);
  b->offsets = g_new (gsize, b->n + 1);
  b->ops = g_new0 (msperf_op *, b->n + 1);
  b->results = g_new0 (msperf_result *, b->n + 1);
  b->analytic = g_new0 (double, b->n + 1);
  b->errors = g_new0 (GError *, b->n + 1);
  for (guint k = 0; k < b->n; k++)
    {
      b->offsets[k] = b->texts->len;
      if (!mpy_op_to_json (PySequence_Fast_GET_ITEM (seq, k), b->texts))
        {
          PyObject *type, *value, *tb;
          PyErr_Fetch (&type, &value, &tb);
          PyErr_Format (PyExc_ValueError, "ops[%u]: %S", k, value ? value : Py_None);
          Py_XDECREF (type);
          Py_XDECREF (value);
          Py_XDECREF (tb);
          return FALSE;
        }
      g_string_append_c (b->texts, '\0');
    }
  return TRUE;
}

static guint
pick_jobs (int jobs, guint n)
{
  guint want = jobs > 0 ? (guint) jobs : g_get_num_processors ();
  guint useful = n / CLAIM_CHUNK + 1;

  return MAX (1, MIN (MIN (want, useful), MAX_JOBS));
}

static void
run_workers (batch *b, GPtrArray *sessions)
{
  worker w[MAX_JOBS];
  GThread *threads[MAX_JOBS] = { 0 };

  for (guint k = 0; k < sessions->len; k++)
    {
      w[k] = (worker) { b, g_ptr_array_index (sessions, k) };
      if (k > 0)
        threads[k] = g_thread_new ("msperf-query", worker_run, &w[k]);
    }
  worker_run (&w[0]);      /* the calling thread is worker 0 */
  for (guint k = 1; k < sessions->len; k++)
    g_thread_join (threads[k]);
}

static PyObject *
batch_results (batch *b)
{
  PyObject *list;

  for (guint k = 0; k < b->n; k++)
    if (b->errors[k])
      {
        g_autofree char *prefix = g_strdup_printf ("ops[%u]: ", k);
        raise_op_error (prefix, b->errors[k]);
        return NULL;
      }
  if ((list = PyList_New (b->n)) == NULL)
    return NULL;
  for (guint k = 0; k < b->n; k++)
    {
      PyObject *r = mpy_result_new (b->ops[k], b->results[k], b->analytic[k]);
      b->ops[k] = NULL;
      b->results[k] = NULL;
      if (r == NULL)
        {
          Py_DECREF (list);
          return NULL;
        }
      PyList_SET_ITEM (list, k, r);
    }
  return list;
}

static PyObject *
engine_query_many (mpy_engine *self, PyObject *args, PyObject *kwargs)
{
  static char *keywords[] = { "ops", "jobs", NULL };
  PyObject *ops, *seq = NULL, *out = NULL;
  GPtrArray *sessions;
  batch b = { 0 };
  int jobs = 0;

  if (!engine_ready (self)
      || !PyArg_ParseTupleAndKeywords (args, kwargs, "O|i", keywords, &ops, &jobs))
    return NULL;
  if (jobs < 0)
    {
      PyErr_SetString (PyExc_ValueError, "jobs must be >= 0 (0 = one per processor)");
      return NULL;
    }
  if ((seq = PySequence_Fast (ops, "query_many: ops must be an iterable of ops")) == NULL)
    return NULL;
  if (PySequence_Fast_GET_SIZE (seq) >= G_MAXINT - CLAIM_CHUNK * MAX_JOBS)
    {
      PyErr_SetString (PyExc_OverflowError, "query_many: too many ops for one call");
      goto out;
    }
  if (!batch_fill (&b, seq))
    goto out;
  sessions = take_sessions (self, pick_jobs (jobs, b.n));
  Py_BEGIN_ALLOW_THREADS
  run_workers (&b, sessions);
  Py_END_ALLOW_THREADS
  give_sessions (self, sessions);
  out = batch_results (&b);
out:
  if (b.texts)
    batch_free (&b);
  Py_XDECREF (seq);
  return out;
}

/* ------------------------------------------------------------------ estimate */

/* answer_item of core/cli/cli_estimate.c. */
static msperf_record *
answer_item (msperf_engine *e, msperf_trace_item *item, const char *source)
{
  msperf_record *rec = msperf_record_new ();

  rec->index = item->index;
  rec->line = item->line;
  if (item->error)
    {
      rec->error = g_steal_pointer (&item->error);
      rec->op_name = g_strdup (item->op_name ? item->op_name : "");
      rec->count = 1;
      rec->result = msperf_result_new ();
      rec->result->source = MSPERF_SOURCE_REJECTED;
      rec->analytic_us = NAN;
      return rec;
    }
  rec->op = g_steal_pointer (&item->op);
  rec->op_name = g_strdup (rec->op->name);
  rec->count = rec->op->count;
  rec->signature = msperf_op_signature (rec->op);
  rec->analytic_us = msperf_engine_analytic_latency (e, rec->op);
  rec->result = msperf_engine_query (e, rec->op);
  if (rec->result->source == MSPERF_SOURCE_REJECTED)
    rec->error = g_strdup_printf ("%s:%u: %s", source, rec->line,
                                  rec->result->miss_reason ? rec->result->miss_reason : "rejected");
  return rec;
}

static void
run_reader (msperf_engine *e, msperf_run *run, msperf_trace_reader *reader, const char *source,
            gboolean strict)
{
  msperf_trace_item item = { 0 };

  while (msperf_trace_reader_next (reader, &item))
    {
      msperf_record *rec = answer_item (e, &item, source);
      gboolean stop = rec->error && strict;
      msperf_trace_item_clear (&item);
      msperf_run_add (run, rec);
      if (stop)
        break;
    }
}

/* An iterable of ops as one JSON Lines text (each item a dict or a JSON line). */
static gboolean
ops_as_jsonl (PyObject *ops, GString *out)
{
  PyObject *it = PyObject_GetIter (ops), *item;
  guint k = 0;

  if (it == NULL)
    return FALSE;
  while ((item = PyIter_Next (it)) != NULL)
    {
      gsize mark = out->len;
      gboolean ok = mpy_op_to_json (item, out);
      Py_DECREF (item);
      if (!ok)
        {
          Py_DECREF (it);
          return FALSE;
        }
      /* One line per op: a JSON text given as a str must not span lines. */
      for (gsize j = mark; j < out->len; j++)
        if (out->str[j] == '\n' || out->str[j] == '\r')
          out->str[j] = ' ';
      g_string_append_c (out, '\n');
      k++;
    }
  Py_DECREF (it);
  return !PyErr_Occurred ();
}

static msperf_trace_reader *
open_reader (PyObject *source, char **name, GError **error)
{
  g_autoptr (GString) text = NULL;
  PyObject *bytes = NULL;
  msperf_trace_reader *reader;

  if (PyUnicode_Check (source) || PyBytes_Check (source) || PyObject_HasAttrString (source, "__fspath__"))
    {
      if (!PyUnicode_FSConverter (source, &bytes))
        return NULL;
      *name = g_strdup (PyBytes_AS_STRING (bytes));
      Py_DECREF (bytes);
      reader = msperf_trace_reader_open (*name, error);
      return reader;
    }
  text = g_string_sized_new (4096);
  if (!ops_as_jsonl (source, text))
    return NULL;
  *name = g_strdup ("<ops>");
  return msperf_trace_reader_open_data (text->str, (gssize) text->len, *name, error);
}

static msperf_run *
new_run (mpy_engine *self, msperf_engine *e)
{
  msperf_run *run = msperf_run_new ();

  run->use_profiling = self->profiling;
  run->use_analytic = self->analytic;
  run->database = self->profiling ? g_strdup (msperf_database_dir (msperf_engine_database (e))) : NULL;
  run->policy_hash = g_strdup (msperf_engine_policy_hash (e));
  run->device_profile = g_strdup (msperf_engine_device_name (e));
  return run;
}

/* (document, errors): the `msperf estimate --format json` document and the rejected lines'
 * messages. The Python Summary class (msperf/__init__.py) wraps them. */
static PyObject *
run_document (const msperf_run *run)
{
  g_autoptr (msperf_value) doc = msperf_report_run_value (run);
  PyObject *errors = PyList_New (0), *value, *out = NULL;

  if (errors == NULL)
    return NULL;
  for (guint k = 0; k < run->records->len; k++)
    {
      const msperf_record *rec = g_ptr_array_index (run->records, k);
      PyObject *msg;
      if (rec->error == NULL)
        continue;
      msg = PyUnicode_FromString (rec->error);
      if (msg == NULL || PyList_Append (errors, msg) < 0)
        {
          Py_XDECREF (msg);
          Py_DECREF (errors);
          return NULL;
        }
      Py_DECREF (msg);
    }
  if ((value = mpy_value_to_py (doc)) != NULL)
    out = PyTuple_Pack (2, value, errors);
  Py_XDECREF (value);
  Py_DECREF (errors);
  return out;
}

static PyObject *
engine_estimate_raw (mpy_engine *self, PyObject *args, PyObject *kwargs)
{
  static char *keywords[] = { "source", "strict", NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;
  msperf_trace_reader *reader;
  msperf_run *run;
  PyObject *source, *out;
  GPtrArray *sessions;
  msperf_engine *e;
  int strict = 0;

  if (!engine_ready (self)
      || !PyArg_ParseTupleAndKeywords (args, kwargs, "O|p", keywords, &source, &strict))
    return NULL;
  if ((reader = open_reader (source, &name, &error)) == NULL)
    {
      if (error)
        mpy_raise_gerror (error);
      return NULL;
    }
  sessions = take_sessions (self, 1);
  e = g_ptr_array_index (sessions, 0);
  run = new_run (self, e);
  Py_BEGIN_ALLOW_THREADS
  run_reader (e, run, reader, strcmp (name, "-") == 0 ? "<stdin>" : name, strict);
  Py_END_ALLOW_THREADS
  give_sessions (self, sessions);
  msperf_trace_reader_free (reader);
  out = run_document (run);
  msperf_run_free (run);
  return out;
}

/* ------------------------------------------------------------------ attributes */

static PyObject *
engine_plugins (mpy_engine *self, PyObject *unused)
{
  const GPtrArray *infos;
  PyObject *list;

  (void) unused;
  if (!engine_ready (self))
    return NULL;
  infos = msperf_engine_plugins (self->engine);
  if ((list = PyList_New (0)) == NULL)
    return NULL;
  for (guint k = 0; infos && k < infos->len; k++)
    {
      const msperf_plugin_info *p = g_ptr_array_index (infos, k);
      PyObject *d = Py_BuildValue ("{s:s,s:z,s:z,s:z,s:z,s:s,s:z}", "name", p->name, "version",
                                   p->version, "description", p->description, "file", p->file,
                                   "capabilities", p->capabilities, "status",
                                   msperf_plugin_status_name (p->status), "reason", p->reason);
      if (d == NULL || PyList_Append (list, d) < 0)
        {
          Py_XDECREF (d);
          Py_DECREF (list);
          return NULL;
        }
      Py_DECREF (d);
    }
  return list;
}

static PyObject *
get_device (mpy_engine *self, void *closure)
{
  (void) closure;
  if (!engine_ready (self))
    return NULL;
  return PyUnicode_FromString (msperf_engine_device_name (self->engine));
}

static PyObject *
get_policy_hash (mpy_engine *self, void *closure)
{
  (void) closure;
  if (!engine_ready (self))
    return NULL;
  return PyUnicode_FromString (msperf_engine_policy_hash (self->engine));
}

static PyObject *
get_database (mpy_engine *self, void *closure)
{
  (void) closure;
  if (!engine_ready (self))
    return NULL;
  if (!self->profiling)
    Py_RETURN_NONE;
  return PyUnicode_DecodeFSDefault (msperf_database_dir (msperf_engine_database (self->engine)));
}

static PyObject *
get_policy_json (mpy_engine *self, void *closure)
{
  const char *text;

  (void) closure;
  if (!engine_ready (self))
    return NULL;
  text = msperf_engine_policy_json (self->engine);
  return mpy_json_loads (text, strlen (text));
}

static PyGetSetDef engine_getset[] = {
  { "device_name", (getter) get_device, NULL, "The device profile of the roofline", NULL },
  { "policy_hash", (getter) get_policy_hash, NULL, "SHA-256 of the effective policy", NULL },
  { "policy", (getter) get_policy_json, NULL, "The effective policy (a dict)", NULL },
  { "database", (getter) get_database, NULL, "The profiling database directory, or None", NULL },
  { NULL, NULL, NULL, NULL, NULL }
};

static PyMethodDef engine_methods[] = {
  { "query", (PyCFunction) engine_query, METH_O,
    "query(op) -> Result: answer one op, a trace-line dict of doc/formats.md §2." },
  { "query_many", (PyCFunction) (void (*) (void)) engine_query_many, METH_VARARGS | METH_KEYWORDS,
    "query_many(ops, jobs=0) -> list[Result]: answer many ops on `jobs` threads (0: one per "
    "processor) without the GIL; the answers equal jobs=1." },
  { "_estimate", (PyCFunction) (void (*) (void)) engine_estimate_raw, METH_VARARGS | METH_KEYWORDS,
    "_estimate(path_or_iterable, strict=False) -> (document, errors); see Engine.estimate." },
  { "plugins", (PyCFunction) engine_plugins, METH_NOARGS,
    "plugins() -> list[dict]: every module file seen, as `msperf plugins list`." },
  { NULL, NULL, 0, NULL }
};

PyTypeObject mpy_engine_type = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "msperf._msperf.Engine",
  .tp_basicsize = sizeof (mpy_engine),
  .tp_dealloc = (destructor) engine_dealloc,
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
  .tp_doc = "Engine(database=None, policy=None, device=None, plugin_dirs=(), overrides={}, "
            "database_root=None, performance_model=None): a started msperf engine.",
  .tp_getset = engine_getset,
  .tp_methods = engine_methods,
  .tp_init = (initproc) engine_init,
  .tp_new = engine_new,
};
