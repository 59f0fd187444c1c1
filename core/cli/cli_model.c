/* msperf — `trace`, `e2e` and `sweep`: model-level estimates from a Hugging Face config.json
 * (doc/models.md). The trace comes from the architecture template; e2e and sweep answer it
 * through the engine's public API. */
#include <config.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <msperf/msperf.h>
#include "cli/cli.h"
#include "cli/cli_model.h"
#include "cli/options.h"
#include "cli/engine_options.h"
#include <msperf/paths.h>
#include "app/model/model.h"
#include "app/model/model_e2e.h"
#include "app/model/model_jobs.h"
#include "app/model/model_memory.h"
#include "cli/estimate_jobs.h"
#include "cli/cli_serve.h"
#include "app/serve/serve.h"

/* Options every model command shares. An int left at UNSET (a double at NAN) was not given:
 * the defaults apply, and 0 or a negative size given on purpose is refused. */
#define UNSET MSPERF_CLI_UNSET

struct msperf_cli_model_opts {
  char *config, *template_path, *templates_dir, *dtype, *quant, *phase;
  char *gemm_quant, *moe_quant, *kv_dtype;
  char *backend;        /* trace, e2e, sweep: the serving preset whose template parameters apply */
  int tp, ep, dp, pp, batch, seq, context, nextn;
  gboolean sp;
};
typedef struct msperf_cli_model_opts model_opts;

static void
model_opts_init (model_opts *o)
{
  memset (o, 0, sizeof *o);
  o->tp = o->ep = o->dp = o->pp = o->batch = o->seq = o->context = o->nextn = UNSET;
}

static void
model_opts_clear (model_opts *o)
{
  g_free (o->config);
  g_free (o->template_path);
  g_free (o->templates_dir);
  g_free (o->dtype);
  g_free (o->quant);
  g_free (o->phase);
  g_free (o->gemm_quant);
  g_free (o->moe_quant);
  g_free (o->kv_dtype);
  g_free (o->backend);
}

msperf_cli_model_opts *
msperf_cli_model_opts_new (void)
{
  model_opts *o = g_new (model_opts, 1);

  model_opts_init (o);
  return o;
}

void
msperf_cli_model_opts_free (msperf_cli_model_opts *o)
{
  if (o == NULL)
    return;
  model_opts_clear (o);
  g_free (o);
}

static gboolean
check_model_sizes (const model_opts *o, GError **error)
{
  return msperf_cli_check_min ("--tp", o->tp, 1, error) && msperf_cli_check_min ("--ep", o->ep, 1, error)
         && msperf_cli_check_min ("--dp", o->dp, 1, error) && msperf_cli_check_min ("--pp", o->pp, 1, error)
         && msperf_cli_check_min ("--batch", o->batch, 1, error) && msperf_cli_check_min ("--seq", o->seq, 1, error)
         && msperf_cli_check_min ("--context", o->context, 1, error)
         && msperf_cli_check_min ("--nextn", o->nextn, 0, error);
}

/* The first model option given, for estimate without --model (it would be ignored). */
static const char *
first_given (const model_opts *o)
{
  const struct { const char *flag; gboolean given; } opts[] = {
    { "--template", o->template_path != NULL }, { "--templates-dir", o->templates_dir != NULL },
    { "--dtype", o->dtype != NULL }, { "--quant", o->quant != NULL },
    { "--gemm-quant", o->gemm_quant != NULL }, { "--moe-quant", o->moe_quant != NULL },
    { "--kv-dtype", o->kv_dtype != NULL },
    { "--phase", o->phase != NULL }, { "--batch", o->batch != UNSET },
    { "--seq", o->seq != UNSET }, { "--context", o->context != UNSET },
    { "--nextn", o->nextn != UNSET }, { "--tp", o->tp != UNSET }, { "--ep", o->ep != UNSET },
    { "--dp", o->dp != UNSET }, { "--pp", o->pp != UNSET },
  };

  for (gsize k = 0; k < G_N_ELEMENTS (opts); k++)
    if (opts[k].given)
      return opts[k].flag;
  return NULL;
}

void
msperf_cli_model_quant_entries (GArray *out, char **quant, char **gemm_quant, char **moe_quant,
                                char **kv_dtype)
{
  const GOptionEntry entries[] = {
    { "quant", 0, 0, G_OPTION_ARG_STRING, quant,
      "bf16, fp8, fp8_block, w4a16_mxfp4 (experts), int4_wo or w8a8 (default: the config's "
      "quantization_config, else bf16)", "MODE" },
    { "gemm-quant", 0, 0, G_OPTION_ARG_STRING, gemm_quant,
      "Quant mode of the non-expert linear layers (default: --quant)", "MODE" },
    { "moe-quant", 0, 0, G_OPTION_ARG_STRING, moe_quant,
      "Quant mode of the routed experts (default: --quant)", "MODE" },
    { "kv-dtype", 0, 0, G_OPTION_ARG_STRING, kv_dtype,
      "KV cache dtype: bf16 (the model's, default) or fp8; it sizes the cache and picks the "
      "attention rows", "DTYPE" },
  };

  g_return_if_fail (out != NULL);
  g_array_append_vals (out, entries, G_N_ELEMENTS (entries));
}

/* Appends the shared entries to out (GOptionEntry, no terminator): the model, and the pass
 * (phase, sizes) and layout groups when asked. */
static void
add_model_entries (GArray *out, model_opts *o, gboolean pass, gboolean layout)
{
  const GOptionEntry model[] = {
    { "model", 0, 0, G_OPTION_ARG_FILENAME, &o->config, "Hugging Face config.json", "CONFIG" },
    { "template", 0, 0, G_OPTION_ARG_FILENAME, &o->template_path,
      "Architecture template (default: chosen by the config's architectures)", "FILE" },
    { "templates-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->templates_dir,
      "Directory of templates (default: the shipped policies/models)", "DIR" },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &o->dtype,
      "Activation and weight dtype (default: the config's torch_dtype)", "DTYPE" },
  };
  const GOptionEntry pass_entries[] = {
    { "phase", 0, 0, G_OPTION_ARG_STRING, &o->phase, "prefill (default) or decode", "PHASE" },
    { "batch", 0, 0, G_OPTION_ARG_INT, &o->batch, "Sequences in the pass (default 1)", "B" },
    { "seq", 0, 0, G_OPTION_ARG_INT, &o->seq, "Prefill: tokens per sequence (default 1024)",
      "S" },
    { "context", 0, 0, G_OPTION_ARG_INT, &o->context,
      "Decode: cached tokens per sequence (default 1024); prefill: tokens cached before this "
      "chunk of the prompt, none unless given", "L" },
    { "nextn", 0, 0, G_OPTION_ARG_INT, &o->nextn, "Decode: MTP draft tokens per step (default 0)",
      "K" },
  };
  const GOptionEntry layout_entries[] = {
    { "tp", 0, 0, G_OPTION_ARG_INT, &o->tp, "Tensor-parallel size (default 1)", "N" },
    { "ep", 0, 0, G_OPTION_ARG_INT, &o->ep, "Expert-parallel size (default 1)", "N" },
    { "dp", 0, 0, G_OPTION_ARG_INT, &o->dp, "Attention data-parallel size (default 1)", "N" },
    { "pp", 0, 0, G_OPTION_ARG_INT, &o->pp, "Pipeline-parallel size (default 1)", "N" },
  };

  g_array_append_vals (out, model, G_N_ELEMENTS (model));
  msperf_cli_model_quant_entries (out, &o->quant, &o->gemm_quant, &o->moe_quant, &o->kv_dtype);
  if (pass)
    g_array_append_vals (out, pass_entries, G_N_ELEMENTS (pass_entries));
  if (layout)
    g_array_append_vals (out, layout_entries, G_N_ELEMENTS (layout_entries));
}

void
msperf_cli_model_estimate_entries (msperf_cli_model_opts *o, GArray *out)
{
  g_return_if_fail (o != NULL && out != NULL);
  add_model_entries (out, o, TRUE, TRUE);
}

static msperf_model *
load_model (const model_opts *o, GError **error)
{
  msperf_model_options mo = { o->dtype, o->quant, o->gemm_quant, o->moe_quant, o->kv_dtype,
                              NULL };
  g_autofree char *dir = o->templates_dir ? g_strdup (o->templates_dir)
                                          : msperf_paths_data_file ("policies/models",
                                                                    "policies/models");
  g_auto (GStrv) fields = NULL;

  if (o->config == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "--model CONFIG is required");
      return NULL;
    }
  if (o->backend)
    {
      /* The graph `serve --backend` prices: the preset's template parameters (MoE padding
       * and collectives, fused quantisation), as serve and recommend pass them. */
      msperf_serve_policy pol;
      gboolean ok = msperf_cli_serve_load_policy (o->backend, NULL, &pol, error);

      if (ok)
        fields = msperf_serve_policy_model_fields (&pol);
      msperf_serve_policy_clear (&pol);
      if (!ok)
        return NULL;
      mo.fields = (const char *const *) fields;
    }
  return msperf_model_load (o->config, o->template_path, dir, &mo, error);
}

/* --backend NAME for trace, e2e and sweep: the graph serve --backend NAME prices (load_model). */
static void
add_backend_entry (GArray *out, model_opts *o)
{
  const GOptionEntry entries[] = {
    { "backend", 0, 0, G_OPTION_ARG_STRING, &o->backend,
      "Apply a serving preset's template parameters (vllm, sglang, trtllm): the pass as serve "
      "--backend NAME prices its steps (default: the templates' own graph)", "NAME" },
  };
  g_array_append_vals (out, entries, G_N_ELEMENTS (entries));
}

static msperf_model_layout
layout_of (const model_opts *o)
{
  msperf_model_layout l = { msperf_cli_or (o->tp, 1), msperf_cli_or (o->ep, 1), msperf_cli_or (o->dp, 1),
                            msperf_cli_or (o->pp, 1), o->sp };
  return l;
}

static gboolean
pass_of (const model_opts *o, msperf_model_pass *p, GError **error)
{
  gboolean decode = o->phase && strcmp (o->phase, "decode") == 0;

  if (o->phase && !decode && strcmp (o->phase, "prefill") != 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--phase must be prefill or decode, not '%s'", o->phase);
      return FALSE;
    }
  if (!check_model_sizes (o, error))
    return FALSE;
  if ((decode && o->seq != UNSET) || (!decode && o->nextn != UNSET))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   decode ? "--seq is for prefill; decode takes --context and --nextn"
                          : "--nextn is for decode; prefill takes --seq and --context");
      return FALSE;
    }
  p->phase = decode ? MSPERF_PHASE_DECODE : MSPERF_PHASE_PREFILL;
  p->batch = msperf_cli_or (o->batch, 1);
  p->seq = msperf_cli_or (o->seq, 1024);
  /* A prefill with context is a chunk of a longer prompt: its queries attend to the
   * context tokens cached by the earlier chunks too. */
  p->context = msperf_cli_or (o->context, decode ? 1024 : 0);
  p->nextn = msperf_cli_or (o->nextn, 0);
  return TRUE;
}

static int
fail (const char *cmd, GError *error)
{
  fprintf (stderr, "msperf %s: %s\n", cmd, error->message);
  return MSPERF_EXIT_USAGE;
}

/* ---------------------------------------------------------------- trace */

/* The trace on stdout is JSON Lines only (`msperf trace … | jq` works): its leading comment
 * lines, the header naming the model, pass and layout, go to stderr. A file (--output) keeps
 * them; the trace reader skips '#' lines. */
static gboolean
write_trace (FILE *out, const GString *trace)
{
  const char *body = trace->str;

  while (*body == '#')
    {
      const char *nl = strchr (body, '\n');

      body = nl ? nl + 1 : trace->str + trace->len;
    }
  fwrite (trace->str, 1, (size_t) (body - trace->str), stderr);
  return fwrite (body, 1, trace->len - (gsize) (body - trace->str), out)
         == trace->len - (gsize) (body - trace->str);
}

#define GIB_BYTES (1024.0 * 1024.0 * 1024.0)

/* trace --summary: parameters, memory per device and the KV capacity (doc/models.md §6). */
static gboolean
print_summary (const msperf_model *m, const msperf_model_layout *l, double memory_gib,
               double utilization, GString *out, GError **error)
{
  msperf_model_runtime rt;
  msperf_model_kv_capacity cap;
  double total, active, mtp, embedding;

  if (!msperf_model_params (m, &total, &active, &mtp, &embedding, error))
    return FALSE;
  msperf_model_runtime_init (&rt, memory_gib * GIB_BYTES);
  rt.gpu_memory_utilization = utilization;
  if (!msperf_model_kv_capacity_tokens (m, l, &rt, &cap, error))
    return FALSE;
  g_string_append_printf (out, "model              %s (%s, template %s)\n", msperf_model_name (m),
                          msperf_model_architecture (m), msperf_model_family (m));
  g_string_append_printf (out, "quant              gemm %s, moe %s, kv %s\n",
                          msperf_model_quant_name (m, FALSE), msperf_model_quant_name (m, TRUE),
                          msperf_model_kv_fp8 (m) ? "fp8" : "model dtype");
  g_string_append_printf (out, "parameters         total %.2f B, active %.2f B (input embedding "
                          "%.2f B)", total / 1e9, active / 1e9, embedding / 1e9);
  if (mtp > 0)
    g_string_append_printf (out, "; MTP layers %.2f B more", mtp / 1e9);
  g_string_append_printf (out, "\nlayout             tp %" G_GINT64_FORMAT " ep %" G_GINT64_FORMAT
                          " dp %" G_GINT64_FORMAT " pp %" G_GINT64_FORMAT "\n",
                          l->tp, l->ep, l->dp, l->pp);
  g_string_append_printf (out, "weights/device     %.2f GiB\n", cap.terms.weight_bytes / GIB_BYTES);
  g_string_append_printf (out, "KV bytes/token     %.0f per device", cap.terms.kv_bytes_per_token);
  if (cap.terms.kv_window > 0)
    g_string_append_printf (out, " + %.0f for the last %" G_GINT64_FORMAT " tokens (sliding window)",
                            cap.terms.kv_window_bytes_per_token, cap.terms.kv_window);
  if (cap.terms.state_bytes_per_seq > 0)
    g_string_append_printf (out, " + %.2f MiB state per sequence",
                            cap.terms.state_bytes_per_seq / (1024.0 * 1024.0));
  g_string_append_printf (out, "\nmemory/device      %.1f GiB x %.2f = %.2f GiB: weights %.2f, "
                          "activations %.2f, reserves %.2f, per-sequence %.2f, KV %.2f GiB\n",
                          memory_gib, utilization, cap.usable_bytes / GIB_BYTES,
                          cap.terms.weight_bytes / GIB_BYTES, cap.activation_bytes / GIB_BYTES,
                          cap.reserve_bytes / GIB_BYTES, cap.fixed_kv_bytes / GIB_BYTES,
                          cap.kv_budget_bytes / GIB_BYTES);
  if (cap.fits)
    g_string_append_printf (out, "KV capacity        %" G_GINT64_FORMAT " tokens per device\n",
                            cap.tokens);
  else
    g_string_append (out, "KV capacity        0 tokens: DOES NOT FIT\n");
  return TRUE;
}

int
msperf_cli_trace (const msperf_cli_global *g, int argc, char **argv)
{
  model_opts o;
  char *output = NULL;
  gboolean summary = FALSE;
  double memory_gib = NAN, utilization = NAN;
  const GOptionEntry entries[] = {
    { "sequence-parallel", 0, 0, G_OPTION_ARG_NONE, &o.sp, "Sequence parallelism", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE (default stdout)", "FILE" },
    { "summary", 0, 0, G_OPTION_ARG_NONE, &summary,
      "Parameters, memory per device and KV capacity instead of the ops", NULL },
    { "memory-gib", 0, 0, G_OPTION_ARG_DOUBLE, &memory_gib,
      "--summary: device memory (default 141, an H200)", "GIB" },
    { "gpu-memory-utilization", 0, 0, G_OPTION_ARG_DOUBLE, &utilization,
      "--summary: share of the device the runtime may use (default 0.9)", "F" },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— the trace of one forward pass");
  g_autoptr (GArray) all = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_model) m = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  char **args = g_strdupv (argv);
  msperf_model_layout layout;
  msperf_model_pass pass;
  int status = MSPERF_EXIT_USAGE;

  (void) argc;
  model_opts_init (&o);
  add_model_entries (all, &o, TRUE, TRUE);
  add_backend_entry (all, &o);
  g_array_append_vals (all, entries, G_N_ELEMENTS (entries));
  if (!msperf_cli_parse_options ("msperf trace", ctx, all, &args, &error)
      || !pass_of (&o, &pass, &error)
      || (m = load_model (&o, &error)) == NULL)
    goto out;
  layout = layout_of (&o);
  if (!msperf_cli_check_positive ("--memory-gib", memory_gib, &error)
      || !msperf_cli_check_fraction ("--gpu-memory-utilization", utilization, &error))
    goto out;
  if (summary ? !print_summary (m, &layout, isnan (memory_gib) ? 141.0 : memory_gib,
                                isnan (utilization) ? 0.9 : utilization, out, &error)
              : !msperf_model_trace (m, &layout, &pass, out, &error))
    goto out;
  if (output ? !g_file_set_contents (output, out->str, (gssize) out->len, &error)
             : !write_trace (g->out, out))
    goto out;
  status = MSPERF_EXIT_OK;
out:
  if (error)
    fail ("trace", error);
  model_opts_clear (&o);
  g_free (output);
  g_strfreev (args);
  return status;
}

/* ---------------------------------------------------------------- estimate --model */

GOptionGroup *
msperf_cli_model_estimate_group (msperf_cli_model_opts *o)
{
  GOptionGroup *group = g_option_group_new ("model", "Estimate a model from its config.json "
                                            "(doc/models.md):", "Show the --model options",
                                            NULL, NULL);
  g_autoptr (GArray) all = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));

  g_return_val_if_fail (o != NULL, NULL);
  add_model_entries (all, o, TRUE, TRUE);
  g_option_group_add_entries (group, (const GOptionEntry *) (void *) all->data);
  return group;
}

char *
msperf_cli_model_estimate_trace (msperf_cli_model_opts *est, gboolean sequence_parallel,
                                 const char **name, GError **error)
{
  g_autoptr (msperf_model) m = NULL;
  GString *out;
  msperf_model_layout layout;
  msperf_model_pass pass;

  g_return_val_if_fail (est != NULL, NULL);
  if (est->config == NULL)
    {
      const char *flag = first_given (est);
      if (flag)
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                     "%s is an option of --model CONFIG, given without it (a trace's own "
                     "layout is --tp-size, --ep-size, --dp-size)", flag);
      return NULL;
    }
  *name = est->config;
  est->sp = sequence_parallel;
  if (!pass_of (est, &pass, error) || (m = load_model (est, error)) == NULL)
    return NULL;
  layout = layout_of (est);
  out = g_string_new (NULL);
  if (!msperf_model_trace (m, &layout, &pass, out, error))
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

/* ---------------------------------------------------------------- engine */

/* --jobs N for e2e and sweep: *jobs stays INT_MIN when not given. */
static void
add_jobs_entry (GArray *out, int *jobs)
{
  const GOptionEntry entries[] = {
    { "jobs", 'j', 0, G_OPTION_ARG_INT, jobs,
      "Worker threads (default: the number of cores); the output does not depend on it", "N" },
  };
  *jobs = INT_MIN;
  g_array_append_vals (out, entries, G_N_ELEMENTS (entries));
}

/* The jobs on engine e: --jobs (1..256, like estimate's), else one per core. */
static msperf_model_jobs *
start_jobs (msperf_engine *e, int jobs, GError **error)
{
  if (jobs != INT_MIN && (jobs < 1 || jobs > 256))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--jobs must be an integer from 1 to 256, not %d", jobs);
      return NULL;
    }
  return msperf_model_jobs_new (e, jobs != INT_MIN ? (guint) jobs : msperf_jobs_default ());
}

/* ---------------------------------------------------------------- e2e */

typedef struct {
  int isl, osl, stride, max_prefill;
  double accept, utilization;
  char *format;
} request_opts;

/* Tokens of one prefill pass unless --max-prefill-tokens says otherwise: the largest GEMM M the
 * shipped H200 database measures (doc/models.md §3.1), so a pass within its grid runs as before
 * and a longer prefill runs as passes the data answers. */
#define DEFAULT_MAX_PREFILL_TOKENS 32768

static void
add_request_entries (GArray *out, request_opts *r, model_opts *o)
{
  const GOptionEntry entries[] = {
    { "isl", 0, 0, G_OPTION_ARG_INT, &r->isl, "Input tokens per request (default 1024)", "N" },
    { "osl", 0, 0, G_OPTION_ARG_INT, &r->osl, "Output tokens per request (default 128)", "N" },
    { "nextn", 0, 0, G_OPTION_ARG_INT, &o->nextn, "MTP draft tokens per decode step (default 0)",
      "K" },
    { "nextn-accept", 0, 0, G_OPTION_ARG_DOUBLE, &r->accept,
      "Acceptance probability of each draft token (default 0.7)", "P" },
    { "decode-stride", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &r->stride,
      "Decode sampled every N tokens (default 32)", "N" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &r->format, "Output format", "FORMAT" },
    { "gpu-memory-utilization", 0, 0, G_OPTION_ARG_DOUBLE, &r->utilization,
      "Fit against a serving runtime's KV capacity at this share of the device (e.g. 0.9; "
      "default: weights + KV cache within the device)", "F" },
    { "max-prefill-tokens", 0, 0, G_OPTION_ARG_INT, &r->max_prefill,
      "Tokens of one prefill pass; a longer prefill runs as several, whole sequences or chunks "
      "(0: the whole batch in one pass; default 32768)", "N" },
  };
  r->isl = r->osl = r->stride = r->max_prefill = UNSET;
  r->accept = r->utilization = NAN;
  g_array_append_vals (out, entries, G_N_ELEMENTS (entries));
}

static gboolean
request_of (const request_opts *r, const model_opts *o, int64_t batch, msperf_e2e_request *req,
            GError **error)
{
  if (!msperf_cli_check_min ("--isl", r->isl, 1, error) || !msperf_cli_check_min ("--osl", r->osl, 1, error)
      || !msperf_cli_check_min ("--nextn", o->nextn, 0, error)
      || !msperf_cli_check_min ("--decode-stride", r->stride, 1, error)
      || !msperf_cli_check_min ("--max-prefill-tokens", r->max_prefill, 0, error)
      || !msperf_cli_check_fraction ("--nextn-accept", r->accept, error)
      || !msperf_cli_check_fraction ("--gpu-memory-utilization", r->utilization, error))
    return FALSE;
  req->gpu_memory_utilization = isnan (r->utilization) ? 0 : r->utilization;
  req->isl = msperf_cli_or (r->isl, 1024);
  req->osl = msperf_cli_or (r->osl, 128);
  req->batch = batch;
  req->nextn = msperf_cli_or (o->nextn, 0);
  req->accept = isnan (r->accept) ? MSPERF_CLI_NEXTN_ACCEPT : r->accept;
  req->stride = msperf_cli_or (r->stride, 32);
  req->max_prefill_tokens = msperf_cli_or (r->max_prefill, DEFAULT_MAX_PREFILL_TOKENS);
  return TRUE;
}

/* The prefill budget: --max-prefill-tokens, else the policy's model.max_prefill_tokens, else
 * the built-in default request_of set. */
static void
apply_policy_budget (msperf_engine *e, const request_opts *r, msperf_e2e_request *req)
{
  int64_t v;

  if (r->max_prefill == UNSET
      && msperf_value_get_int (msperf_engine_policy_value (e, "model.max_prefill_tokens"), &v))
    req->max_prefill_tokens = v;
}

static void
print_e2e_table (FILE *out, const msperf_model *m, const msperf_e2e_point *p,
                 const msperf_e2e_request *r, const char *device, double seconds)
{
  const msperf_model_layout *l = &p->layout;

  fprintf (out, "model              %s (%s, template %s)\n", msperf_model_name (m),
           msperf_model_architecture (m), msperf_model_family (m));
  fprintf (out, "device profile     %s\n", device);
  fprintf (out, "layout             tp %" G_GINT64_FORMAT " pp %" G_GINT64_FORMAT " ep %"
           G_GINT64_FORMAT " dp %" G_GINT64_FORMAT " (%" G_GINT64_FORMAT " devices)\n", l->tp,
           l->pp, l->ep, l->dp, l->tp * l->dp * l->pp);
  fprintf (out, "request            isl %" G_GINT64_FORMAT " osl %" G_GINT64_FORMAT " batch %"
           G_GINT64_FORMAT " nextn %" G_GINT64_FORMAT "\n", r->isl, r->osl, r->batch, r->nextn);
  fprintf (out, "memory/device      weights %.2f GiB + KV cache %.2f GiB of %.1f GiB: %s\n",
           p->weight_gib, p->kv_gib, p->device_gib, p->fits ? "fits" : "DOES NOT FIT");
  if (p->kv_capacity_tokens >= 0)
    fprintf (out, "KV capacity        %" G_GINT64_FORMAT " tokens per device at %.2f of it (runtime "
             "reserves and activations out); the batch needs %" G_GINT64_FORMAT "\n",
             p->kv_capacity_tokens, r->gpu_memory_utilization, r->batch * (r->isl + r->osl));
  if (!p->estimated)
    return;
  fprintf (out, "TTFT               %.3f ms\n", p->ttft_ms);
  if (p->prefill_passes > 1)
    fprintf (out, "prefill passes     %" G_GINT64_FORMAT " of at most %" G_GINT64_FORMAT
             " tokens each\n", p->prefill_passes, r->max_prefill_tokens);
  fprintf (out, "TPOT               %.3f ms\n", p->tpot_ms);
  fprintf (out, "request latency    %.3f ms\n", p->latency_ms);
  fprintf (out, "tokens/s/device    %.2f\n", p->tps_device);
  fprintf (out, "tokens/s/user      %.2f\n", p->tps_user);
  fprintf (out, "answered from data %.1f %% of the time\n", 100 * p->data_share);
  fprintf (out, "computed in        %.1f ms\n", seconds * 1e3);
}

int
msperf_cli_e2e (const msperf_cli_global *g, int argc, char **argv)
{
  model_opts o;
  msperf_cli_engine_opts eo = { 0 };
  request_opts ro = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— TTFT, TPOT and throughput of a request");
  g_autoptr (GArray) all = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_model) m = NULL;
  g_autoptr (msperf_engine) e = NULL;
  g_autoptr (msperf_model_jobs) jobs = NULL;
  int n_jobs;
  msperf_e2e_request req = { 0 };
  msperf_e2e_point pt;
  msperf_model_layout layout;
  char **args = g_strdupv (argv);
  int status = MSPERF_EXIT_USAGE;
  gint64 t0;
  const GOptionEntry batch_entry[] = {
    { "batch", 0, 0, G_OPTION_ARG_INT, &o.batch, "Requests per DP rank (default 1)", "B" },
    { "sequence-parallel", 0, 0, G_OPTION_ARG_NONE, &o.sp, "Sequence parallelism", NULL },
  };

  (void) argc;
  model_opts_init (&o);
  add_model_entries (all, &o, FALSE, TRUE);
  add_backend_entry (all, &o);
  msperf_cli_engine_opts_entries (all, &eo);
  add_request_entries (all, &ro, &o);
  add_jobs_entry (all, &n_jobs);
  g_array_append_vals (all, batch_entry, G_N_ELEMENTS (batch_entry));
  if (!msperf_cli_parse_options ("msperf e2e", ctx, all, &args, &error)
      || !check_model_sizes (&o, &error)
      || !msperf_cli_check_positive ("--memory-gib", eo.memory_gib, &error)
      || !request_of (&ro, &o, msperf_cli_or (o.batch, 1), &req, &error)
      || (m = load_model (&o, &error)) == NULL)
    goto out;
  if (ro.format && strcmp (ro.format, "table") != 0 && strcmp (ro.format, "jsonl") != 0)
    {
      g_set_error (&error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--format must be table or jsonl, not '%s'", ro.format);
      goto out;
    }
  if ((e = msperf_cli_engine_opts_start (g, &eo, &req.device_bytes, &error)) == NULL
      || (jobs = start_jobs (e, n_jobs, &error)) == NULL)
    goto out;
  apply_policy_budget (e, &ro, &req);
  layout = layout_of (&o);
  t0 = g_get_monotonic_time ();
  if (!msperf_model_jobs_point (jobs, m, &layout, &req, &pt, &error))
    goto out;
  if (ro.format && strcmp (ro.format, "jsonl") == 0)
    msperf_e2e_jsonl_row (&pt, g->out);
  else
    print_e2e_table (g->out, m, &pt, &req, msperf_engine_device_name (e),
                     (double) (g_get_monotonic_time () - t0) / 1e6);
  status = pt.fits ? MSPERF_EXIT_OK : MSPERF_EXIT_PROBLEMS;
out:
  if (error)
    fail ("e2e", error);
  model_opts_clear (&o);
  msperf_cli_engine_opts_clear (&eo);
  g_free (ro.format);
  g_strfreev (args);
  return status;
}

/* ---------------------------------------------------------------- sweep */

/* aiconfigurator-like batch sizes; "A..B" keeps those within [A, B]. */
static const int default_batches[] = { 1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 64, 80, 96, 112, 128,
                                       144, 160, 192, 224, 256 };

static gboolean
parse_int (const char *s, int64_t *out)
{
  char *end;
  long long v = strtoll (s, &end, 10);

  if (end == s || *end != '\0' || v < 1 || v > 1 << 20)
    return FALSE;
  *out = v;
  return TRUE;
}

/* "1,2,4" or "A..B" (with batch defaults) into a list of positive integers. */
static GArray *
parse_list (const char *opt, const char *text, const char *fallback, gboolean batches,
            GError **error)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (int64_t));
  g_auto (GStrv) items = g_strsplit (text ? text : fallback, ",", -1);

  for (char **it = items; *it; it++)
    {
      char *dots = strstr (*it, "..");
      int64_t a, b;

      if (dots && batches)
        {
          *dots = '\0';
          if (!parse_int (*it, &a) || !parse_int (dots + 2, &b) || a > b)
            goto bad;
          for (guint i = 0; i < G_N_ELEMENTS (default_batches); i++)
            if (default_batches[i] >= a && default_batches[i] <= b)
              {
                int64_t v = default_batches[i];
                g_array_append_val (out, v);
              }
          continue;
        }
      if (!parse_int (g_strstrip (*it), &a))
        goto bad;
      g_array_append_val (out, a);
    }
  if (out->len > 0)
    return out;
bad:
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
               "%s must be a comma-separated list of positive integers%s, not '%s'", opt,
               batches ? " or A..B" : "", text);
  g_array_free (out, TRUE);
  return NULL;
}

static gboolean
parse_shard (const char *text, int64_t *index, int64_t *count, GError **error)
{
  g_auto (GStrv) parts = text ? g_strsplit (text, "/", 2) : NULL;

  *index = 1;
  *count = 1;
  if (text == NULL)
    return TRUE;
  if (g_strv_length (parts) == 2 && parse_int (parts[0], index) && parse_int (parts[1], count)
      && *index <= *count)
    return TRUE;
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
               "--shard must be I/N with 1 <= I <= N, not '%s'", text);
  return FALSE;
}

typedef struct {
  char *tps, *eps, *pps, *batches, *shard, *report;
  int devices;
  double ttft_max, tpot_max;
} sweep_opts;

/* Layouts that use exactly `devices`: tp·dp·pp = devices, dp derived. */
static GArray *
sweep_layouts (const sweep_opts *so, const GArray *tps, const GArray *eps, const GArray *pps,
               gboolean sp)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (msperf_model_layout));

  for (guint a = 0; a < tps->len; a++)
    for (guint c = 0; c < pps->len; c++)
      for (guint b = 0; b < eps->len; b++)
        {
          int64_t tp = g_array_index (tps, int64_t, a), pp = g_array_index (pps, int64_t, c);
          msperf_model_layout l = { tp, g_array_index (eps, int64_t, b), 0, pp, sp };

          if (so->devices % (tp * pp) != 0)
            continue;
          l.dp = so->devices / (tp * pp);
          g_array_append_val (out, l);
        }
  return out;
}

static gboolean
meets (const sweep_opts *so, const msperf_e2e_point *p)
{
  return p->estimated && (isnan (so->ttft_max) || p->ttft_ms <= so->ttft_max)
         && (isnan (so->tpot_max) || p->tpot_ms <= so->tpot_max);
}

static gboolean
write_report (const sweep_opts *so, const msperf_model *m, const GArray *pts, GError **error)
{
  g_autofree char *csv = NULL, *front = NULL, *svg = NULL, *title = NULL;
  FILE *f[2] = { NULL, NULL };
  gboolean ok = TRUE;

  if (g_mkdir_with_parents (so->report, 0755) != 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot create the directory",
                   so->report);
      return FALSE;
    }
  csv = g_build_filename (so->report, "sweep.csv", NULL);
  front = g_build_filename (so->report, "pareto.csv", NULL);
  svg = g_build_filename (so->report, "pareto.svg", NULL);
  f[0] = fopen (csv, "w");
  f[1] = fopen (front, "w");
  if (f[0] == NULL || f[1] == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot write", so->report);
      ok = FALSE;
      goto out;
    }
  msperf_e2e_csv_header (f[0]);
  msperf_e2e_csv_header (f[1]);
  for (guint i = 0; i < pts->len; i++)
    {
      const msperf_e2e_point *p = &g_array_index (pts, msperf_e2e_point, i);
      msperf_e2e_csv_row (p, f[0]);
      if (p->pareto)
        msperf_e2e_csv_row (p, f[1]);
    }
  title = g_strdup_printf ("%s on %d devices: Pareto front", msperf_model_name (m), so->devices);
  ok = msperf_e2e_pareto_svg ((const msperf_e2e_point *) (void *) pts->data, pts->len, title,
                              so->ttft_max, so->tpot_max, svg, error);
out:
  for (int i = 0; i < 2; i++)
    if (f[i])
      fclose (f[i]);
  return ok;
}

int
msperf_cli_sweep (const msperf_cli_global *g, int argc, char **argv)
{
  model_opts o;
  msperf_cli_engine_opts eo = { 0 };
  request_opts ro = { 0 };
  sweep_opts so = { NULL, NULL, NULL, NULL, NULL, NULL, UNSET, NAN, NAN };
  const GOptionEntry entries[] = {
    { "devices", 0, 0, G_OPTION_ARG_INT, &so.devices, "Devices per replica group (default 8)", "N" },
    { "tp", 0, 0, G_OPTION_ARG_STRING, &so.tps, "Tensor-parallel sizes (default 1,2,4,8)", "LIST" },
    { "ep", 0, 0, G_OPTION_ARG_STRING, &so.eps, "Expert-parallel sizes (default 1)", "LIST" },
    { "pp", 0, 0, G_OPTION_ARG_STRING, &so.pps, "Pipeline-parallel sizes (default 1)", "LIST" },
    { "batch", 0, 0, G_OPTION_ARG_STRING, &so.batches,
      "Batch sizes per DP rank: a list or A..B (default 1..256, 20 sizes)", "LIST" },
    { "ttft-max", 0, 0, G_OPTION_ARG_DOUBLE, &so.ttft_max, "Pareto front: TTFT limit", "MS" },
    { "tpot-max", 0, 0, G_OPTION_ARG_DOUBLE, &so.tpot_max, "Pareto front: TPOT limit", "MS" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &so.shard, "Only points k with k mod N = I-1", "I/N" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &so.report,
      "Write DIR/sweep.csv, DIR/pareto.csv and DIR/pareto.svg", "DIR" },
    { "sequence-parallel", 0, 0, G_OPTION_ARG_NONE, &o.sp, "Sequence parallelism", NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— layouts × batch sizes, Pareto front");
  g_autoptr (GArray) all = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_model) m = NULL;
  g_autoptr (msperf_engine) e = NULL;
  g_autoptr (GArray) tps = NULL, eps = NULL, pps = NULL, batches = NULL, layouts = NULL;
  g_autoptr (GArray) pts = g_array_new (FALSE, FALSE, sizeof (msperf_e2e_point));
  g_autofree gboolean *keep = NULL;
  g_autoptr (msperf_model_jobs) jobs = NULL;
  int n_jobs;
  msperf_e2e_request req = { 0 };
  msperf_sweep_counts counts = { 0 };
  char **args = g_strdupv (argv);
  int64_t shard = 1, shards = 1;
  int status = MSPERF_EXIT_USAGE;
  gboolean jsonl;
  guint64 distinct, cached;
  gint64 t0 = g_get_monotonic_time ();

  (void) argc;
  model_opts_init (&o);
  add_model_entries (all, &o, FALSE, FALSE);
  add_backend_entry (all, &o);
  msperf_cli_engine_opts_entries (all, &eo);
  add_request_entries (all, &ro, &o);
  add_jobs_entry (all, &n_jobs);
  g_array_append_vals (all, entries, G_N_ELEMENTS (entries));
  if (!msperf_cli_parse_options ("msperf sweep", ctx, all, &args, &error)
      || !request_of (&ro, &o, 1, &req, &error)
      || !msperf_cli_check_min ("--devices", so.devices, 1, &error)
      || !msperf_cli_check_positive ("--ttft-max", so.ttft_max, &error)
      || !msperf_cli_check_positive ("--tpot-max", so.tpot_max, &error)
      || !msperf_cli_check_positive ("--memory-gib", eo.memory_gib, &error)
      || !parse_shard (so.shard, &shard, &shards, &error)
      || (tps = parse_list ("--tp", so.tps, "1,2,4,8", FALSE, &error)) == NULL
      || (eps = parse_list ("--ep", so.eps, "1", FALSE, &error)) == NULL
      || (pps = parse_list ("--pp", so.pps, "1", FALSE, &error)) == NULL
      || (batches = parse_list ("--batch", so.batches, "1..256", TRUE, &error)) == NULL
      || (m = load_model (&o, &error)) == NULL)
    goto out;
  jsonl = ro.format && strcmp (ro.format, "jsonl") == 0;
  if (ro.format && !jsonl && strcmp (ro.format, "csv") != 0)
    {
      g_set_error (&error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--format must be csv or jsonl, not '%s'", ro.format);
      goto out;
    }
  so.devices = msperf_cli_or (so.devices, 8);
  if ((e = msperf_cli_engine_opts_start (g, &eo, &req.device_bytes, &error)) == NULL
      || (jobs = start_jobs (e, n_jobs, &error)) == NULL)
    goto out;
  apply_policy_budget (e, &ro, &req);
  layouts = sweep_layouts (&so, tps, eps, pps, o.sp);
  if (!msperf_model_jobs_sweep (jobs, m, layouts, batches, &req, shard, shards, pts, &counts,
                                &error))
    goto out;
  keep = g_new0 (gboolean, pts->len + 1);
  for (guint i = 0; i < pts->len; i++)
    keep[i] = meets (&so, &g_array_index (pts, msperf_e2e_point, i));
  msperf_e2e_pareto ((msperf_e2e_point *) (void *) pts->data, keep, pts->len);
  if (!jsonl)
    msperf_e2e_csv_header (g->out);
  for (guint i = 0; i < pts->len; i++)
    (jsonl ? msperf_e2e_jsonl_row : msperf_e2e_csv_row) (&g_array_index (pts, msperf_e2e_point, i),
                                                         g->out);
  fflush (g->out);
  if (so.report && !write_report (&so, m, pts, &error))
    goto out;
  msperf_model_jobs_stats (jobs, &distinct, &cached);
  fprintf (stderr, "msperf sweep: %u points (%u estimated, %u do not fit), %u of %u layouts "
           "refused by the model; %" G_GUINT64_FORMAT " distinct ops asked, %" G_GUINT64_FORMAT
           " answered from the cache; %u jobs; %.3f s\n", pts->len, counts.estimated,
           counts.no_fit, counts.refused, layouts->len, distinct, cached,
           msperf_model_jobs_count (jobs),
           (double) (g_get_monotonic_time () - t0) / 1e6);
  status = MSPERF_EXIT_OK;
out:
  if (error)
    fail ("sweep", error);
  model_opts_clear (&o);
  msperf_cli_engine_opts_clear (&eo);
  g_free (ro.format);
  g_free (so.tps);
  g_free (so.eps);
  g_free (so.pps);
  g_free (so.batches);
  g_free (so.shard);
  g_free (so.report);
  g_strfreev (args);
  return status;
}
