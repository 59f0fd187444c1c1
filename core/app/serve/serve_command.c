/* msperf — the `msperf serve` command line of one simulation (serve.h): accuracy's report
 * writes it per row and recommend per ranked point, so that one prediction can be re-run
 * alone, traced (--timeline) and plotted (--report). */
#include <config.h>
#include <string.h>
#include <msperf/format.h>
#include "app/serve/serve.h"

static void
arg (GString *s, const char *flag, const char *value)
{
  g_string_append_printf (s, " %s ", flag);
  msperf_fmt_shell_word (s, value);
}

static void
arg_int (GString *s, const char *flag, int64_t v)
{
  g_string_append_printf (s, " %s %" G_GINT64_FORMAT, flag, v);
}

/* An optional count: left out when 0 (the flag's default). */
static void
arg_positive (GString *s, const char *flag, int64_t v)
{
  if (v > 0)
    arg_int (s, flag, v);
}

/* A number as the shortest text that reads back as it. */
static void
arg_double (GString *s, const char *flag, double v)
{
  g_string_append_printf (s, " %s ", flag);
  msperf_fmt_py_float (s, v);
}

/* A knob's value as its flag takes it. Transfer full. */
static char *
knob_text (const msperf_serve_policy *p, const msperf_serve_knob *k)
{
  const void *slot = (const char *) p + k->offset;
  GString *s;

  switch (k->kind)
    {
    case MSPERF_SERVE_KNOB_INT:
    case MSPERF_SERVE_KNOB_COUNT:
      return g_strdup_printf ("%" G_GINT64_FORMAT, *(const int64_t *) slot);
    case MSPERF_SERVE_KNOB_BOOL:
      return g_strdup (*(const gboolean *) slot ? "true" : "false");
    case MSPERF_SERVE_KNOB_DOUBLE:
      s = g_string_new (NULL);
      msperf_fmt_py_float (s, *(const double *) slot);
      return g_string_free (s, FALSE);
    }
  g_return_val_if_reached (NULL);
}

/* Every knob whose value the run changed from the preset file's, as --key-with-dashes V. */
static void
knob_args (GString *s, const msperf_serve_policy *preset, const msperf_serve_policy *run)
{
  guint n;
  const msperf_serve_knob *knobs = msperf_serve_knobs (&n);

  for (guint k = 0; k < n; k++)
    {
      g_autofree char *was = knob_text (preset, &knobs[k]);
      g_autofree char *is = knob_text (run, &knobs[k]);
      g_autofree char *flag = NULL;

      if (strcmp (was, is) == 0)
        continue;
      flag = g_strdup_printf ("--%s", knobs[k].key);
      g_strdelimit (flag + 2, "_", '-');
      g_string_append_printf (s, " %s %s", flag, is);
    }
}

static void
model_args (GString *s, const msperf_model_options *mo)
{
  const struct { const char *flag, *value; } opt[] = {
    { "--dtype", mo->dtype }, { "--quant", mo->quant }, { "--gemm-quant", mo->gemm_quant },
    { "--moe-quant", mo->moe_quant }, { "--kv-dtype", mo->kv_dtype },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (opt); i++)
    if (opt[i].value != NULL)
      arg (s, opt[i].flag, opt[i].value);
}

static void
layout_args (GString *s, const char *prefix, const msperf_model_layout *l)
{
  const struct { const char *name; int64_t v; } size[] = {
    { "tp", l->tp }, { "ep", l->ep }, { "dp", l->dp }, { "pp", l->pp },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (size); i++)
    {
      g_autofree char *flag = g_strdup_printf ("--%s%s", prefix, size[i].name);

      arg_int (s, flag, size[i].v);
    }
}

static void
deployment_args (GString *s, const msperf_serve_deployment *d)
{
  if (d->mode == MSPERF_SERVE_AGG)
    {
      layout_args (s, "", &d->layout);
      if (d->replicas > 1)
        arg_int (s, "--replicas", d->replicas);
    }
  else
    {
      g_string_append (s, " --mode disagg");
      arg_int (s, "--prefill-workers", d->prefill_workers);
      layout_args (s, "prefill-", &d->prefill);
      arg_int (s, "--decode-workers", d->decode_workers);
      layout_args (s, "decode-", &d->decode);
      arg_positive (s, "--prefill-max-num-seqs", d->prefill_max_seqs);
      arg_positive (s, "--decode-max-num-seqs", d->decode_max_seqs);
    }
  if (d->nextn > 0)
    {
      arg_int (s, "--nextn", d->nextn);
      arg_double (s, "--nextn-accept", d->accept);
    }
  arg_positive (s, "--kv-capacity-tokens", d->kv_capacity_tokens);
}

static void
dist_arg (GString *s, const char *flag, const msperf_serve_len_dist *d)
{
  if (d->range_ratio > 0)
    {
      g_string_append_printf (s, " %s uniform:", flag);
      msperf_fmt_py_float (s, d->range_ratio);
    }
}

static gboolean
workload_args (GString *s, const msperf_serve_workload *w)
{
  switch (w->arrival)
    {
    case MSPERF_SERVE_CLOSED:
      arg_int (s, "--concurrency", w->concurrency);
      if (w->staggered)
        g_string_append (s, " --stagger");
      break;
    case MSPERF_SERVE_GAMMA:
      g_string_append (s, " --arrival gamma:");
      msperf_fmt_py_float (s, w->gamma_cv);
      arg_double (s, "--rate", w->rate);
      break;
    case MSPERF_SERVE_POISSON:
      arg_double (s, "--rate", w->rate);
      break;
    case MSPERF_SERVE_TRACE:
      return FALSE;        /* the requests file is not part of the workload */
    }
  arg_int (s, "--isl", w->isl);
  arg_int (s, "--osl", w->osl);
  dist_arg (s, "--isl-dist", &w->isl_dist);
  dist_arg (s, "--osl-dist", &w->osl_dist);
  arg_int (s, "--num-requests", w->num_requests);
  arg_int (s, "--seed", w->seed);
  arg_positive (s, "--warmup", w->warmup);
  arg_positive (s, "--cooldown", w->cooldown);
  if (w->prompt_pool > 0)
    {
      arg_int (s, "--prompt-pool", w->prompt_pool);
      arg_positive (s, "--prompt-warmup", w->prompt_warmup);
      if (w->prompt_shuffle)
        g_string_append (s, " --prompt-shuffle");
    }
  if (w->max_events > 0 && w->max_events != MSPERF_SERVE_MAX_EVENTS)
    arg_int (s, "--max-events", w->max_events);
  return TRUE;
}

char *
msperf_serve_command_line (const msperf_serve_command *c)
{
  g_autoptr (GString) s = NULL;

  g_return_val_if_fail (c != NULL && c->config != NULL
                        && (c->scheduler != NULL || c->backend != NULL) && c->model != NULL && c->preset != NULL && c->policy != NULL
                        && c->dep != NULL && c->w != NULL, NULL);
  s = g_string_new (c->program ? c->program : "msperf");
  g_string_append (s, " serve");
  arg (s, "--model", c->config);
  if (c->template_path)
    arg (s, "--template", c->template_path);
  if (c->templates_dir)
    arg (s, "--templates-dir", c->templates_dir);
  model_args (s, c->model);
  if (c->backend)
    arg (s, "--backend", c->backend);
  else
    arg (s, "--scheduler", c->scheduler);
  knob_args (s, c->preset, c->policy);
  deployment_args (s, c->dep);
  if (!workload_args (s, c->w))
    return NULL;
  if (c->engine_args && *c->engine_args)
    g_string_append_printf (s, " %s", c->engine_args);
  return g_string_free (g_steal_pointer (&s), FALSE);
}
