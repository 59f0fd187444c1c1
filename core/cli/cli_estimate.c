/* msperf — `estimate` (a whole trace) and `query` (one inline op). */
#include <config.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <msperf/msperf.h>
#include "cli/cli.h"
#include <msperf/paths.h>
#include "cli/options.h"
#include "cli/cli_model.h"
#include "app/report/report.h"
#include "app/run/digest.h"
#include "app/trace/trace.h"
#include "cli/estimate_jobs.h"
#include "cli/answers.h"
#include "cli/cache_option.h"

typedef struct {
  char *database, *database_root, *ops, *op_json, *device, *format, *report, *metrics, *chrome;
  char *shard;
  char **models;
  char **answers;            /* summarize: estimate --format jsonl outputs (shards) */
  gboolean summarize;
  gboolean no_interp, seq_parallel, dump_shapes, strict, list_all, chrome_aggregate;
  int tp, ep, dp, world;
  int jobs;                  /* INT_MIN: not given */
  guint shard_index, shard_count;
  msperf_cli_model_opts *model;  /* estimate --model CONFIG and its options */
  msperf_cli_cache cache;    /* --cache-dir, --no-cache */
  FILE *out;                 /* the run's standard output (msperf_cli_global.out) */
} estimate_opts;

static void
opts_clear (estimate_opts *o)
{
  msperf_cli_cache_clear (&o->cache);
  g_free (o->database);
  g_free (o->database_root);
  g_free (o->ops);
  g_free (o->op_json);
  g_free (o->device);
  g_free (o->format);
  g_free (o->report);
  g_free (o->metrics);
  g_free (o->chrome);
  g_free (o->shard);
  g_strfreev (o->models);
  g_strfreev (o->answers);
  msperf_cli_model_opts_free (o->model);
}

/* The upstream list form `--performance-model analytic profiling` gives several words to one
 * flag; GOption takes one value per flag, so spell the list out as repeated flags. */
static char **
expand_model_lists (int argc, char **argv, int *new_argc)
{
  GPtrArray *out = g_ptr_array_new ();

  for (int k = 0; k < argc; k++)
    {
      g_ptr_array_add (out, g_strdup (argv[k]));
      if (strcmp (argv[k], "--performance-model") != 0 || k + 1 >= argc)
        continue;
      g_ptr_array_add (out, g_strdup (argv[++k]));
      while (k + 1 < argc && (strcmp (argv[k + 1], "analytic") == 0
                              || strcmp (argv[k + 1], "profiling") == 0))
        {
          g_ptr_array_add (out, g_strdup ("--performance-model"));
          g_ptr_array_add (out, g_strdup (argv[++k]));
        }
    }
  *new_argc = (int) out->len;
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

/* Sizes are counts of devices: 0 or a negative number is a mistake, not "unset". */
static gboolean
check_sizes (const estimate_opts *o, GError **error)
{
  const struct { const char *flag; int value; } sizes[] = {
    { "--tp-size", o->tp }, { "--ep-size", o->ep }, { "--dp-size", o->dp },
    { "--world-size", o->world }
  };

  for (gsize k = 0; k < G_N_ELEMENTS (sizes); k++)
    if (sizes[k].value != INT_MIN && sizes[k].value < 1)
      {
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                     "%s must be an integer >= 1, not %d", sizes[k].flag, sizes[k].value);
        return FALSE;
      }
  return TRUE;
}

/* --jobs N (1..256) and --shard I/N (1 <= I <= N): a typo must not answer a different part. */
static gboolean
check_jobs (estimate_opts *o, GError **error)
{
  guint64 i = 0, n = 0;
  char *end = NULL;

  if (o->jobs != INT_MIN && (o->jobs < 1 || o->jobs > 256))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--jobs must be an integer from 1 to 256, not %d", o->jobs);
      return FALSE;
    }
  o->shard_index = 0;
  o->shard_count = 1;
  if (o->shard == NULL)
    return TRUE;
  if (g_ascii_isdigit (o->shard[0]))
    i = g_ascii_strtoull (o->shard, &end, 10);
  if (end && *end == '/' && g_ascii_isdigit (end[1]))
    n = g_ascii_strtoull (end + 1, &end, 10);
  if (end == NULL || *end != '\0' || n < 1 || n > G_MAXUINT || i < 1 || i > n)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--shard must be I/N with 1 <= I <= N, not '%s'", o->shard);
      return FALSE;
    }
  o->shard_index = (guint) (i - 1);
  o->shard_count = (guint) n;
  return TRUE;
}

static gboolean
same_file (const char *a, const char *b)
{
  GStatBuf sa, sb;

  if (strcmp (a, b) == 0)
    return TRUE;
  return g_stat (a, &sa) == 0 && g_stat (b, &sb) == 0 && sa.st_dev == sb.st_dev
         && sa.st_ino == sb.st_ino && S_ISREG (sa.st_mode);
}

/* Output problems found before the run, not after minutes of work: a report name without a
 * known suffix, one file named for two outputs. */
static gboolean
check_outputs (const estimate_opts *o, GError **error)
{
  const char *const outs[] = { o->report, o->metrics, o->chrome };
  const char *const flags[] = { "--report", "--export-empirical-metrics", "--chrome-trace" };

  if (o->report && !msperf_report_document_suffix_ok (o->report))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s: unknown report format (use a .md, .json or .html file name)", o->report);
      return FALSE;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (outs); i++)
    for (gsize j = i + 1; j < G_N_ELEMENTS (outs); j++)
      if (outs[i] && outs[j] && same_file (outs[i], outs[j]))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "%s and %s name the same file '%s'", flags[i], flags[j], outs[i]);
          return FALSE;
        }
  return TRUE;
}

static gboolean
parse_options (estimate_opts *o, char ***args, gboolean single, GError **error)
{
  const GOptionEntry entries[] = {
    { "profiling-database", 0, 0, G_OPTION_ARG_FILENAME, &o->database,
      "Profiling database directory (default: the shipped H200 sample)", "DIR" },
    { "profiling-database-path", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &o->database,
      "Alias of --profiling-database", "DIR" },
    { "database-root", 0, 0, G_OPTION_ARG_FILENAME, &o->database_root,
      "Refuse database files that resolve outside DIR", "DIR" },
    { "ops", 0, 0, G_OPTION_ARG_FILENAME, &o->ops,
      "Op trace: JSON Lines or op-summary JSON, '-' for stdin (default: the shipped sample)",
      "FILE" },
    { "op", 0, 0, G_OPTION_ARG_STRING, &o->op_json,
      "The op to answer, as one JSON object (FORMATS §2)", "JSON" },
    { "device-profile", 0, 0, G_OPTION_ARG_STRING, &o->device,
      "Device profile for the roofline: a name from policies/devices or a YAML path", "NAME|FILE" },
    { "performance-model", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->models,
      "analytic and/or profiling (repeatable, or a list; default profiling)", "MODEL" },
    { "disable-profiling-interpolation", 0, 0, G_OPTION_ARG_NONE, &o->no_interp,
      "Exact lookups only", NULL },
    { "tp-size", 0, 0, G_OPTION_ARG_INT, &o->tp, "Tensor-parallel size", "N" },
    { "ep-size", 0, 0, G_OPTION_ARG_INT, &o->ep, "Expert-parallel size", "N" },
    { "dp-size", 0, 0, G_OPTION_ARG_INT, &o->dp, "Data-parallel size", "N" },
    { "world-size", 0, 0, G_OPTION_ARG_INT, &o->world, "World size", "N" },
    { "sequence-parallel", 0, 0, G_OPTION_ARG_NONE, &o->seq_parallel,
      "Sequence-parallel communication variants", NULL },
    { "format", 0, 0, G_OPTION_ARG_STRING, &o->format,
      "Output on stdout: table (default), json, jsonl or csv", "FORMAT" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &o->report,
      "Write a report: FILE.md, FILE.json or FILE.html", "FILE" },
    { "export-empirical-metrics", 0, 0, G_OPTION_ARG_FILENAME, &o->metrics,
      "Write the M1–M5 metrics JSON (upstream schema)", "FILE" },
    { "export-empirical-metrics-file", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME,
      &o->metrics, "Alias", "FILE" },
    { "chrome-trace", 0, 0, G_OPTION_ARG_FILENAME, &o->chrome,
      "Write a Chrome trace (one event per invocation)", "FILE" },
    { "chrome-trace-file", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &o->chrome,
      "Alias", "FILE" },
    { "dump-input-shapes", 0, 0, G_OPTION_ARG_NONE, &o->dump_shapes,
      "Group the table by input shapes", NULL },
    { "strict", 0, 0, G_OPTION_ARG_NONE, &o->strict, "Stop at the first rejected input line",
      NULL },
    { "list-all", 0, 0, G_OPTION_ARG_NONE, &o->list_all,
      "List every interpolated op in the summary (default: the top 20; -v does too)", NULL },
    { "chrome-trace-aggregate", 0, 0, G_OPTION_ARG_NONE, &o->chrome_aggregate,
      "One Chrome trace event per distinct op and its count (for long traces)", NULL },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &o->jobs,
      "Answer on N threads (default: the number of cores; 1 for --ops -)", "N" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &o->shard,
      "Answer only the I-th of N interleaved parts of the trace (doc/scale-out.md)", "I/N" },
    { "answers", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->answers,
      "summarize: the answers, estimate --format jsonl outputs of the shards (repeatable)",
      "FILE" },
    MSPERF_CLI_CACHE_ENTRIES (&o->cache),
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (
    single ? "--op JSON — answer one op" : "— answer every op of a trace");
  /* estimate takes --ops, query --op: the other one is a mistake, not a hidden alias. */
  g_autoptr (GArray) own = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));
  g_autoptr (GArray) known = NULL;

  for (const GOptionEntry *e = entries; e->long_name; e++)
    if (strcmp (e->long_name, single ? "ops" : "op") != 0
        && (o->summarize || strcmp (e->long_name, "answers") != 0)
        && !(o->summarize && (strcmp (e->long_name, "jobs") == 0
                              || strcmp (e->long_name, "shard") == 0)))
      g_array_append_val (own, *e);
  /* The options checked: the command's own and, for estimate, the --model group's. */
  known = g_array_copy (own);
  if (!single)
    msperf_cli_model_estimate_entries (o->model, known);
  o->tp = o->ep = o->dp = o->world = o->jobs = INT_MIN;  /* "not given", so that 0 can be refused */
  if (!msperf_cli_check_options (single ? "msperf query"
                                 : o->summarize ? "msperf summarize" : "msperf estimate",
                                 (const GOptionEntry *) known->data, *args, error))
    return FALSE;
  g_option_context_add_main_entries (ctx, (const GOptionEntry *) own->data, NULL);
  if (!single)
    g_option_context_add_group (ctx, msperf_cli_model_estimate_group (o->model));
  if (!g_option_context_parse_strv (ctx, args, error))
    return FALSE;
  if (!check_sizes (o, error) || !check_outputs (o, error) || !check_jobs (o, error))
    return FALSE;
  if (g_strv_length (*args) > 1)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "unexpected argument '%s'",
                   (*args)[1]);
      return FALSE;
    }
  if (single && o->op_json == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "query needs --op JSON");
      return FALSE;
    }
  if (o->summarize && o->answers == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "summarize needs --answers FILE (estimate --format jsonl output)");
      return FALSE;
    }
  if (o->format == NULL)
    o->format = g_strdup (single ? "jsonl" : o->summarize ? "summary" : "table");
  /* summarize prints the headline and the summary estimate prints beside its records. */
  if (o->summarize && strcmp (o->format, "summary") == 0)
    return TRUE;
  if (!g_strv_contains ((const char *const[]){ "table", "json", "jsonl", "csv", NULL }, o->format))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--format must be table, json, jsonl or csv, not '%s'", o->format);
      return FALSE;
    }
  for (char **m = o->models; m && *m; m++)
    if (strcmp (*m, "analytic") != 0 && strcmp (*m, "profiling") != 0)
      {
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                     "--performance-model must be analytic or profiling, not '%s'", *m);
        return FALSE;
      }
  return TRUE;
}

static gboolean
set_int_override (msperf_engine *e, const char *key, int value, GError **error)
{
  g_autofree char *text = NULL;

  if (value == INT_MIN)
    return TRUE;
  text = g_strdup_printf ("%d", value);
  return msperf_engine_set_override (e, key, text, error);
}

static gboolean
configure_engine (msperf_engine *e, const msperf_cli_global *g, const estimate_opts *o,
                  gboolean profiling, GError **error)
{
  g_autofree char *sample = NULL;
  const char *db = o->database;

  for (char **d = g->plugin_dirs; d && *d; d++)
    msperf_engine_add_plugin_dir (e, *d);
  if (g->policy && !msperf_engine_load_policy (e, g->policy, error))
    return FALSE;
  if (!set_int_override (e, "parallel.tp_size", o->tp, error)
      || !set_int_override (e, "parallel.ep_size", o->ep, error)
      || !set_int_override (e, "parallel.dp_size", o->dp, error)
      || !set_int_override (e, "parallel.world_size", o->world, error))
    return FALSE;
  if (o->seq_parallel && !msperf_engine_set_override (e, "parallel.sequence_parallel", "true", error))
    return FALSE;
  if (o->no_interp && !msperf_engine_set_override (e, "interpolation.enabled", "false", error))
    return FALSE;
  if (profiling)
    {
      if (db == NULL)
        db = sample = msperf_paths_data_file ("examples/h200-db", "doc/examples/h200-db");
      if (!msperf_engine_open_database (e, db, o->database_root, error))
        return FALSE;
    }
  if (o->device && !msperf_engine_set_device_profile (e, o->device, error))
    return FALSE;
  if (!msperf_cli_cache_apply (&o->cache, e, error))
    return FALSE;
  return msperf_engine_start (e, error);
}

/* Progress on a terminal only, at most a few updates a second: never on the hot path of a
 * pipe. */
typedef struct {
  gboolean on;
  gint64 last;
} progress;

static void
progress_tick (progress *p, size_t done)
{
  gint64 now;

  if (!p->on)
    return;
  now = g_get_monotonic_time ();
  if (now - p->last < 250000)
    return;
  p->last = now;
  fprintf (stderr, "\rmsperf: %zu ops answered", done);
  fflush (stderr);
}

static void
progress_end (progress *p, size_t done)
{
  if (p->on && p->last)
    fprintf (stderr, "\rmsperf: %zu ops answered\n", done);
}

/* The number of sessions: --jobs, else every core for a file; one for stdin, where a sweep
 * may wait for each answer before it writes the next op. */
static guint
jobs_wanted (const estimate_opts *o, const char *source)
{
  if (o->jobs != INT_MIN)
    return (guint) o->jobs;
  return source && strcmp (source, "-") != 0 && strcmp (source, "<stdin>") != 0
         ? msperf_jobs_default () : 1;
}

/* summarize: the record of item, its answer read back from the answers files. */
static msperf_record *
record_from_answer (msperf_answers *answers, msperf_trace_item *item, GError **error)
{
  msperf_record *rec = msperf_record_new ();
  char *error_text = NULL;

  rec->index = item->index;
  rec->line = item->line;
  if (!msperf_answers_get (answers, item->index, &rec->result, &rec->analytic_us, &error_text,
                           error))
    {
      msperf_record_free (rec);
      return NULL;
    }
  if (item->error)
    {
      rec->error = g_steal_pointer (&item->error);
      rec->op_name = g_strdup (item->op_name ? item->op_name : "");
      rec->count = 1;
      g_free (error_text);
      return rec;
    }
  rec->op = g_steal_pointer (&item->op);
  rec->op_name = g_strdup (rec->op->name);
  rec->count = rec->op->count;
  rec->signature = msperf_op_signature (rec->op);
  rec->error = error_text;
  return rec;
}

static int
summarize_items (msperf_run *run, msperf_trace_reader *reader, const estimate_opts *o)
{
  g_autoptr (GError) error = NULL;
  msperf_answers *answers = msperf_answers_load ((const char *const *) o->answers, &error);
  msperf_trace_item item = { 0 };
  int status = MSPERF_EXIT_OK;

  while (answers && msperf_trace_reader_next (reader, &item))
    {
      msperf_record *rec = record_from_answer (answers, &item, &error);

      msperf_trace_item_clear (&item);
      if (rec == NULL)
        break;
      if (rec->error)
        status = MSPERF_EXIT_PROBLEMS;
      msperf_run_add (run, rec);
    }
  msperf_answers_free (answers);
  if (error)
    {
      fprintf (stderr, "msperf summarize: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  return status;
}

/* Folding records into per-op digests (app/run/digest.h) is exact for the summary, the metrics
 * and the headline; the table, JSON, reports and the Chrome trace (every detail in its args)
 * read every line, so they keep every record whole. */
static gboolean
can_fold (const estimate_opts *o)
{
  return (strcmp (o->format, "jsonl") == 0 || strcmp (o->format, "csv") == 0)
         && o->report == NULL && o->chrome == NULL && !o->dump_shapes;
}

static int
run_items (msperf_engine *e, msperf_run *run, msperf_trace_reader *reader, const char *source,
           const estimate_opts *o)
{
  gboolean jsonl = strcmp (o->format, "jsonl") == 0, csv = strcmp (o->format, "csv") == 0;
  progress prog = { .on = isatty (STDERR_FILENO) };
  int status = MSPERF_EXIT_OK;
  msperf_jobs *jobs = NULL;
  msperf_record **recs = NULL;
  gboolean fold = can_fold (o);
  gboolean stop = FALSE;
  size_t done = 0;
  guint n;

  if (o->summarize)
    return summarize_items (run, reader, o);
  if (fold)
    msperf_run_set_folding (run);
  jobs = msperf_jobs_new (e, jobs_wanted (o, o->ops), source);
  msperf_jobs_set_shard (jobs, o->shard_index, o->shard_count);
  msperf_jobs_set_render (jobs, jsonl ? MSPERF_JOBS_RENDER_JSONL
                                : csv ? MSPERF_JOBS_RENDER_CSV : MSPERF_JOBS_RENDER_NONE,
                          fold);
  if (csv)
    {
      g_autoptr (GString) header = g_string_new (NULL);
      msperf_report_csv_header (header);
      fwrite (header->str, 1, header->len, o->out);
    }
  while (!stop && (n = msperf_jobs_next_batch (jobs, reader, &recs)) > 0)
    {
      for (guint k = 0; k < n; k++)
        {
          msperf_record *rec = recs[k];
          const GString *text = msperf_jobs_text (jobs, k);

          recs[k] = NULL;
          /* After a stop, the rest of the batch was answered ahead: drop it unseen. */
          if (stop)
            {
              msperf_record_free (rec);
              continue;
            }
          if (rec->error)
            {
              fprintf (stderr, "msperf: %s\n", rec->error);
              status = MSPERF_EXIT_PROBLEMS;
            }
          fwrite (text->str, 1, text->len, o->out);
          msperf_jobs_note_keys (jobs, k, reader);
          stop = (rec->error && o->strict)
                 /* A full disk: answering the rest would only be lost too. */
                 || ((jsonl || csv) && ferror (o->out));
          msperf_run_fold (run, rec);
          progress_tick (&prog, ++done);
        }
      /* Streaming contract: a consumer piping records sees them as soon as they exist (one
       * job answers one item per batch, so a sweep on stdin gets every answer at once). */
      if (jsonl || csv)
        fflush (o->out);
    }
  progress_end (&prog, done);
  msperf_jobs_free (jobs);
  return status;
}

static void
describe_database (msperf_run *run, msperf_database *db)
{
  const msperf_value *v = msperf_database_top (db, "version");

  if (v && v->kind == MSPERF_VALUE_STRING)
    run->database_version = g_strdup (v->s);
  if (msperf_database_device (db))
    run->database_device = g_strdup (msperf_database_device (db));
}

static gboolean
write_outputs (msperf_run *run, const estimate_opts *o, gboolean single, GError **error)
{
  gboolean table = strcmp (o->format, "table") == 0;

  if (table)
    {
      msperf_report_headline (run, o->out);
      msperf_report_table (run, o->out);
    }
  else if (strcmp (o->format, "summary") == 0)
    {
      msperf_report_headline (run, o->out);
      msperf_report_summary (run, o->out);
    }
  else if (strcmp (o->format, "json") == 0)
    msperf_report_json (run, o->out);
  else if (strcmp (o->format, "csv") == 0 && o->summarize)
    msperf_report_csv (run, o->out);
  fflush (o->out);
  /* Only the chosen format goes to stdout: the table ends with the summary itself; other
   * formats get it on stderr (a single `query` answer needs none). */
  if (!single && !table && strcmp (o->format, "summary") != 0)
    {
      msperf_report_headline (run, stderr);
      msperf_report_summary (run, stderr);
    }
  if (o->metrics && !msperf_report_metrics_file (run, o->metrics, error))
    return FALSE;
  if (o->chrome && !msperf_report_chrome_trace (run, o->chrome, error))
    return FALSE;
  run->report_all = TRUE;  /* a report lists everything */
  if (o->report && !msperf_report_document (run, o->report, error))
    return FALSE;
  return TRUE;
}

static int estimate_main (const msperf_cli_global *g, int argc, char **argv, gboolean single,
                          gboolean summarize);

int
msperf_cli_estimate (const msperf_cli_global *g, int argc, char **argv, gboolean single)
{
  return estimate_main (g, argc, argv, single, FALSE);
}

/* `msperf summarize`: estimate's run with the answers read back from JSON Lines (the shards of
 * estimate --shard, merged or concatenated) instead of computed: the same trace, database and
 * flags give the single run's headline, summary and reports. */
int
msperf_cli_summarize (const msperf_cli_global *g, int argc, char **argv)
{
  return estimate_main (g, argc, argv, FALSE, TRUE);
}

static int
estimate_main (const msperf_cli_global *g, int argc, char **argv, gboolean single,
               gboolean summarize)
{
  estimate_opts o = { .summarize = summarize, .model = msperf_cli_model_opts_new (),
                      .out = g->out };
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_engine) e = NULL;
  msperf_trace_reader *reader = NULL;
  msperf_run *run = NULL;
  g_autofree char *sample = NULL, *model_trace = NULL;
  const char *source = NULL;
  int n_args = 0, status = MSPERF_EXIT_USAGE;
  char **args = expand_model_lists (argc, argv, &n_args);
  gboolean profiling = TRUE, analytic = FALSE;

  if (!parse_options (&o, &args, single, &error))
    {
      fprintf (stderr, "msperf %s: %s\n", single ? "query" : summarize ? "summarize" : "estimate",
               error->message);
      goto out;
    }
  if (o.models)
    {
      profiling = g_strv_contains ((const char *const *) o.models, "profiling");
      analytic = g_strv_contains ((const char *const *) o.models, "analytic");
    }
  e = msperf_engine_new ();
  if (!configure_engine (e, g, &o, profiling, &error))
    {
      fprintf (stderr, "msperf: %s\n", error->message);
      goto out;
    }
  if (single)
    reader = msperf_trace_reader_open_data (o.op_json, -1, source = "--op", &error);
  else if ((model_trace = msperf_cli_model_estimate_trace (o.model, o.seq_parallel, &source,
                                                           &error)))
    reader = msperf_trace_reader_open_data (model_trace, -1, source, &error);
  else if (error == NULL)
    {
      source = o.ops;
      if (source == NULL)
        source = sample = msperf_paths_data_file ("examples/traces/llama3-8b-prefill.jsonl",
                                                  "doc/examples/traces/llama3-8b-prefill.jsonl");
      reader = msperf_trace_reader_open (source, &error);
    }
  if (reader == NULL)
    {
      fprintf (stderr, "msperf: %s\n", error->message);
      goto out;
    }
  run = msperf_run_new ();
  run->use_profiling = profiling;
  run->use_analytic = analytic;
  run->dump_input_shapes = o.dump_shapes;
  run->database = profiling ? g_strdup (msperf_database_dir (msperf_engine_database (e))) : NULL;
  run->policy_hash = g_strdup (msperf_engine_policy_hash (e));
  run->device_profile = g_strdup (msperf_engine_device_name (e));
  run->trace = g_strdup (strcmp (source, "-") == 0 ? "<stdin>" : source);
  run->list_all = o.list_all || g->verbose;
  run->chrome_aggregate = o.chrome_aggregate;
  if (profiling)
    describe_database (run, msperf_engine_database (e));
  status = run_items (e, run, reader, run->trace, &o);
  {
    const GPtrArray *w = msperf_trace_reader_warnings (reader);
    for (guint k = 0; k < w->len; k++)
      msperf_run_warn (run, g_ptr_array_index (w, k));
  }
  if (profiling)
    msperf_run_check_inputs (run, msperf_engine_database (e));
  msperf_run_check_latencies (run);
  if (!write_outputs (run, &o, single, &error))
    {
      fprintf (stderr, "msperf: %s\n", error->message);
      status = MSPERF_EXIT_USAGE;
    }
out:
  msperf_trace_reader_free (reader);
  msperf_run_free (run);
  opts_clear (&o);
  g_strfreev (args);
  return status;
}
