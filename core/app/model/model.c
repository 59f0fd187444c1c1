/* msperf — evaluating a model template for one layout and pass: the variables (doc/models.md
 * §2.1), the layout checks, the ops as JSON objects, the memory per device. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/error.h>
#include "app/model/model_private.h"
#include <msperf/format.h>

/* Variables every template sees besides the config's fields. */
static const char *const builtin_names[] = {
  "tp", "ep", "dp", "pp", "sp", "moe_tp", "world", "batch", "seq", "context", "nextn", "q_len",
  "kv_len", "tokens", "prefill", "decode", "quant", "dtype_bytes", "gemm_quant", "moe_quant",
  "fused_moe", "kv_bytes", NULL
};
enum { V_TP, V_EP, V_DP, V_PP, V_SP, V_MOE_TP, V_WORLD, V_BATCH, V_SEQ, V_CONTEXT, V_NEXTN,
       V_QLEN, V_KVLEN, V_TOKENS, V_PREFILL, V_DECODE, V_QUANT, V_DTYPE_BYTES, V_GEMM_QUANT,
       V_MOE_QUANT, V_FUSED_MOE, V_KV_BYTES };

/* Index of float8_e4m3fn and the 4-bit types in msperf_model_dtype_names. */
enum { DTI_FP8 = 7, DTI_FP4 = 8, DTI_INT4 = 9, DTI_UINT8 = 10 };

static void
let_clear (let_spec *l)
{
  msperf_mexpr_free (l->expr);
}

static void
check_clear (check_spec *c)
{
  msperf_mexpr_free (c->cond);
  g_free (c->message);
}

void
msperf_model_free (msperf_model *m)
{
  if (m == NULL)
    return;
  g_free (m->config_path);
  g_free (m->template_path);
  g_free (m->name);
  g_free (m->family);
  g_free (m->arch);
  g_free (m->base);
  if (m->checks)
    g_array_free (m->checks, TRUE);
  if (m->lets)
    g_array_free (m->lets, TRUE);
  if (m->defaults)
    g_array_free (m->defaults, TRUE);
  if (m->ops)
    g_ptr_array_free (m->ops, TRUE);
  if (m->fields)
    g_ptr_array_free (m->fields, TRUE);
  if (m->config)
    g_hash_table_destroy (m->config);
  if (m->config_kinds)
    g_hash_table_destroy (m->config_kinds);
  msperf_mexpr_free (m->weights);
  msperf_mexpr_free (m->kv_per_token);
  msperf_mexpr_free (m->params_dense);
  msperf_mexpr_free (m->params_expert);
  msperf_mexpr_free (m->params_other);
  msperf_mexpr_free (m->params_mtp);
  msperf_mexpr_free (m->expert_share);
  msperf_mexpr_free (m->kv_window_per_token);
  msperf_mexpr_free (m->kv_window);
  msperf_mexpr_free (m->state_per_seq);
  msperf_mexpr_free (m->act_per_token);
  msperf_mexpr_free (m->params_embedding);
  msperf_msyms_free (m->syms);
  g_free (m);
}

static msperf_model *
model_new (const char *config_path, const msperf_model_options *opts)
{
  msperf_model *m = g_new0 (msperf_model, 1);
  g_autofree char *base = g_path_get_basename (config_path);
  char *dot = strrchr (base, '.');

  if (dot)
    *dot = '\0';
  m->name = g_strdup (base);
  m->config_path = g_strdup (config_path);
  m->syms = msperf_msyms_new ();
  for (int i = 0; builtin_names[i]; i++)
    msperf_msyms_slot (m->syms, builtin_names[i]);
  m->config = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  m->config_kinds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  m->checks = g_array_new (FALSE, TRUE, sizeof (check_spec));
  g_array_set_clear_func (m->checks, (GDestroyNotify) check_clear);
  m->lets = g_array_new (FALSE, TRUE, sizeof (let_spec));
  g_array_set_clear_func (m->lets, (GDestroyNotify) let_clear);
  m->defaults = g_array_new (FALSE, TRUE, sizeof (let_spec));
  g_array_set_clear_func (m->defaults, (GDestroyNotify) let_clear);
  m->fields = g_ptr_array_new_with_free_func (g_free);
  m->act_dtype = opts && opts->dtype ? msperf_model_dtype_index (opts->dtype) : -1;
  m->cfg_gemm_quant = m->cfg_moe_quant = -1;
  m->kv_fp8 = opts && opts->kv_dtype && strcmp (opts->kv_dtype, "fp8") == 0;
  return m;
}

/* The quant mode of each part: its own option, else --quant, else the config's declaration,
 * else none. --quant w4a16_mxfp4 quantises the experts only. */
static gboolean
resolve_quant (msperf_model *m, const msperf_model_options *opts, GError **error)
{
  int all = opts ? msperf_model_quant_index (opts->quant) : -1;
  int g = opts ? msperf_model_quant_index (opts->gemm_quant) : -1;
  int e = opts ? msperf_model_quant_index (opts->moe_quant) : -1;

  if (g < 0)
    g = all == QUANT_W4A16_MXFP4 ? QUANT_NONE : all >= 0 ? all
        : m->cfg_gemm_quant >= 0 ? m->cfg_gemm_quant : QUANT_NONE;
  if (e < 0)
    e = all >= 0 ? all : m->cfg_moe_quant >= 0 ? m->cfg_moe_quant : QUANT_NONE;
  if (g == QUANT_W4A16_MXFP4)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--gemm-quant w4a16_mxfp4: MXFP4 weights are for the routed experts "
                   "(--moe-quant); the other linear layers take bf16, fp8, fp8_block, int4_wo "
                   "or w8a8");
      return FALSE;
    }
  m->gemm_quant = (quant_mode) g;
  m->moe_quant = (quant_mode) e;
  m->w8a8 = g == QUANT_W8A8 && e == QUANT_W8A8;
  return TRUE;
}

static gboolean
check_options (const msperf_model_options *opts, GError **error)
{
  /* an activation dtype is one of the first seven names (not the fp8 / 4-bit weight types) */
  if (opts && opts->dtype && (msperf_model_dtype_index (opts->dtype) < 0
                              || msperf_model_dtype_index (opts->dtype) >= DTI_FP8))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--dtype must be bfloat16, float16 or float32, not '%s'", opts->dtype);
      return FALSE;
    }
  const struct { const char *flag, *value; } q[] = {
    { "--quant", opts ? opts->quant : NULL }, { "--gemm-quant", opts ? opts->gemm_quant : NULL },
    { "--moe-quant", opts ? opts->moe_quant : NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (q); i++)
    if (q[i].value && msperf_model_quant_index (q[i].value) < 0)
      {
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                     "%s must be bf16 (or none), fp8, fp8_block, w4a16_mxfp4, int4_wo or w8a8, "
                     "not '%s'", q[i].flag, q[i].value);
        return FALSE;
      }
  if (opts && opts->kv_dtype && strcmp (opts->kv_dtype, "bf16") != 0
      && strcmp (opts->kv_dtype, "fp8") != 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--kv-dtype must be bf16 (the model's dtype) or fp8, not '%s'", opts->kv_dtype);
      return FALSE;
    }
  return TRUE;
}

/* The first template of dir, in name order, that lists arch. */
static char *
find_template (const char *dir, const char *arch, const char *config, GError **error)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, error);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GString *known = g_string_new (NULL);
  const char *e;
  char *found = NULL;

  while (d && (e = g_dir_read_name (d)))
    if (g_str_has_suffix (e, ".yaml"))
      g_ptr_array_add (names, g_strdup (e));
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  for (guint i = 0; d && found == NULL && i < names->len; i++)
    {
      char *path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);

      if (msperf_model_template_matches (path, arch, error))
        found = path;
      else
        g_free (path);
      if (error && *error)
        break;
      g_string_append_printf (known, "%s%s", known->len ? ", " : "",
                              (char *) g_ptr_array_index (names, i));
    }
  if (found == NULL && d && !(error && *error))
    g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                 "%s: unknown architecture '%s': no template in %s lists it (%s)", config, arch,
                 dir, known->len ? known->str : "none");
  g_string_free (known, TRUE);
  return found;
}

/* opts->fields: "name=value" set as config fields, over the config's. */
static gboolean
set_fields (msperf_model *m, const msperf_model_options *opts, GError **error)
{
  for (const char *const *f = opts ? opts->fields : NULL; f && *f; f++)
    {
      const char *eq = strchr (*f, '=');
      char *end = NULL;
      double v = eq ? g_ascii_strtod (eq + 1, &end) : NAN;
      double *p;
      char *name;

      if (eq == NULL || eq == *f || end == eq + 1 || *end != '\0' || !isfinite (v))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "model field '%s': expected name=number", *f);
          return FALSE;
        }
      p = g_new (double, 1);
      *p = v;
      name = g_strndup (*f, (gsize) (eq - *f));
      g_hash_table_remove (m->config_kinds, name);
      g_hash_table_replace (m->config, name, p);
    }
  return TRUE;
}

/* The base environment: config fields, then defaults for the names the config lacks. */
static gboolean
build_base (msperf_model *m, GError **error)
{
  GHashTableIter it;
  gpointer k, v;
  int fused;

  m->n_env = msperf_msyms_count (m->syms);
  m->base = g_new (double, m->n_env);
  for (guint i = 0; i < m->n_env; i++)
    m->base[i] = NAN;
  g_hash_table_iter_init (&it, m->config);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      int slot = msperf_msyms_find (m->syms, k);
      if (slot >= 0)
        m->base[slot] = *(double *) v;
    }
  m->base[V_QUANT] = m->w8a8;
  m->base[V_DTYPE_BYTES] = msperf_model_dtype_bytes (m->act_dtype);
  m->base[V_GEMM_QUANT] = m->gemm_quant;
  m->base[V_MOE_QUANT] = m->moe_quant;
  m->base[V_FUSED_MOE] = m->moe_quant == QUANT_FP8 || m->moe_quant == QUANT_FP8_BLOCK
                         || m->moe_quant == QUANT_W4A16_MXFP4;
  m->base[V_KV_BYTES] = m->kv_fp8 ? 1 : msperf_model_dtype_bytes (m->act_dtype);
  for (guint i = 0; i < m->defaults->len; i++)
    {
      let_spec *l = &g_array_index (m->defaults, let_spec, i);
      if (isnan (m->base[l->slot]) && !msperf_mexpr_eval (l->expr, m->base, &m->base[l->slot], NULL))
        continue;   /* a default that needs a missing field: reported with that field below */
    }
  /* moe_bf16_fused, moe_int4_fused (template parameters the serving presets set): bf16 or
   * int4 weight-only experts run as one fused MoE kernel as the CUDA runtimes run them, not
   * TensorCast's per-expert GEMMs. */
  fused = msperf_msyms_find (m->syms, m->moe_quant == QUANT_INT4_WO ? "moe_int4_fused"
                                      : "moe_bf16_fused");
  if ((m->moe_quant == QUANT_NONE || m->moe_quant == QUANT_INT4_WO) && fused >= 0
      && !isnan (m->base[fused]) && m->base[fused] != 0)
    m->base[V_FUSED_MOE] = 1;
  if (!msperf_model_check_fields (m, error))
    return FALSE;
  for (guint i = 0; i < m->fields->len; i++)
    {
      const char *f = g_ptr_array_index (m->fields, i);
      int slot = msperf_msyms_find (m->syms, f);
      if (slot < 0 || isnan (m->base[slot]))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "%s: missing field '%s' (a number; template %s needs it)", m->config_path,
                       f, m->template_path);
          return FALSE;
        }
    }
  return TRUE;
}

msperf_model *
msperf_model_load (const char *config_path, const char *template_path, const char *templates_dir,
                   const msperf_model_options *opts, GError **error)
{
  msperf_model *m;

  if (!check_options (opts, error))
    return NULL;
  m = model_new (config_path, opts);
  if (!msperf_model_read_config (m, config_path, error) || !set_fields (m, opts, error)
      || !resolve_quant (m, opts, error))
    goto fail;
  m->template_path = template_path ? g_strdup (template_path)
                                   : find_template (templates_dir, m->arch, config_path, error);
  if (m->template_path == NULL || !msperf_model_compile_template (m, m->template_path, error)
      || !build_base (m, error))
    goto fail;
  return m;
fail:
  msperf_model_free (m);
  return NULL;
}

const char *
msperf_model_family (const msperf_model *m)
{
  return m->family;
}

const char *
msperf_model_template_path (const msperf_model *m)
{
  return m->template_path;
}

const char *
msperf_model_architecture (const msperf_model *m)
{
  return m->arch;
}

const char *
msperf_model_name (const msperf_model *m)
{
  return m->name;
}

/* ---------------------------------------------------------------- evaluation */

/* "{name}" in a check's message becomes the variable's value. */
static char *
expand_message (const msperf_model *m, const double *env, const char *msg)
{
  GString *out = g_string_new (NULL);

  for (const char *p = msg; *p; p++)
    {
      const char *end = *p == '{' ? strchr (p, '}') : NULL;
      g_autofree char *name = end ? g_strndup (p + 1, (gsize) (end - p - 1)) : NULL;
      int slot = name ? msperf_msyms_find (m->syms, name) : -1;

      if (slot < 0)
        {
          g_string_append_c (out, *p);
          continue;
        }
      g_string_append_printf (out, "%.15g", env[slot]);
      p = end;
    }
  return g_string_free (out, FALSE);
}

static gboolean
layout_error (GError **error, const msperf_model *m, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
layout_error (GError **error, const msperf_model *m, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s: layout refused: %s",
               m->name, msg);
  return FALSE;
}

static gboolean
set_layout (const msperf_model *m, double *env, const msperf_model_layout *l, GError **error)
{

  if (l->tp < 1 || l->ep < 1 || l->dp < 1 || l->pp < 1)
    return layout_error (error, m, "--tp, --ep, --dp and --pp must be >= 1");
  if ((l->tp * l->dp) % l->ep != 0)
    return layout_error (error, m, "tp·dp = %" G_GINT64_FORMAT " is not a multiple of ep = %"
                         G_GINT64_FORMAT " (tp·dp = moe_tp·ep)", l->tp * l->dp, l->ep);
  env[V_TP] = (double) l->tp;
  env[V_EP] = (double) l->ep;
  env[V_DP] = (double) l->dp;
  env[V_PP] = (double) l->pp;
  env[V_SP] = l->sp ? 1 : 0;
  env[V_MOE_TP] = (double) (l->tp * l->dp / l->ep);
  env[V_WORLD] = (double) (l->tp * l->dp * l->pp);
  return TRUE;
}

static void
set_pass (double *env, const msperf_model_pass *p)
{
  gboolean pre = p->phase == MSPERF_PHASE_PREFILL;
  double q_len = pre ? (double) p->seq : (double) (1 + p->nextn);

  env[V_BATCH] = (double) p->batch;
  env[V_SEQ] = pre ? (double) p->seq : q_len;
  env[V_CONTEXT] = (double) p->context;
  env[V_NEXTN] = pre ? 0 : (double) p->nextn;
  env[V_QLEN] = q_len;
  env[V_KVLEN] = (double) p->context + q_len;
  env[V_TOKENS] = (double) p->batch * q_len;
  env[V_PREFILL] = pre;
  env[V_DECODE] = !pre;
}

/* Checks, then the derived names in order. */
static gboolean
run_lets (const msperf_model *m, double *env, GError **error)
{
  for (guint i = 0; i < m->checks->len; i++)
    {
      check_spec *c = &g_array_index (m->checks, check_spec, i);
      double ok;

      if (!msperf_mexpr_eval (c->cond, env, &ok, error))
        return FALSE;
      if (ok == 0)
        {
          g_autofree char *msg = expand_message (m, env, c->message);
          return layout_error (error, m, "%s", msg);
        }
    }
  for (guint i = 0; i < m->lets->len; i++)
    {
      let_spec *l = &g_array_index (m->lets, let_spec, i);
      if (!msperf_mexpr_eval (l->expr, env, &env[l->slot], error))
        return FALSE;
    }
  return TRUE;
}

/* A pass that only sets the layout: checks and lets see batch 1, seq 1. */
static gboolean
prepare (const msperf_model *m, double *env, const msperf_model_layout *layout,
         const msperf_model_pass *pass, GError **error)
{
  static const msperf_model_pass unit = { MSPERF_PHASE_PREFILL, 1, 1, 0, 0 };

  memcpy (env, m->base, m->n_env * sizeof (double));
  if (!set_layout (m, env, layout, error))
    return FALSE;
  set_pass (env, pass ? pass : &unit);
  return run_lets (m, env, error);
}

gboolean
msperf_model_check_layout (const msperf_model *m, const msperf_model_layout *layout,
                           GError **error)
{
  g_autofree double *env = g_new (double, m->n_env);

  return prepare (m, env, layout, NULL, error);
}

/* The weight dtype of a quant mode. */
static int
weight_dtype (const msperf_model *m, quant_mode q)
{
  static const int by_mode[QUANT_N_MODES] = { -1, DTI_FP8, DTI_FP8, DTI_FP4, DTI_INT4, 3 };

  return by_mode[q] < 0 ? m->act_dtype : by_mode[q];
}

static const char *
dtype_name (const msperf_model *m, int code)
{
  switch (code)
    {
    case DT_LINEAR:
      return m->w8a8 ? "int8" : msperf_model_dtype_names[m->act_dtype];
    case DT_ACT:
      return msperf_model_dtype_names[m->act_dtype];
    case DT_KV:
      return m->kv_fp8 ? "float8_e4m3fn" : msperf_model_dtype_names[m->act_dtype];
    case DT_GEMM_W:
      return msperf_model_dtype_names[weight_dtype (m, m->gemm_quant)];
    case DT_MOE_W:
      return msperf_model_dtype_names[weight_dtype (m, m->moe_quant)];
    default:
      return msperf_model_dtype_names[code];
    }
}

static gboolean
eval_dims (const double *env, const arg_spec *a, gint64 *dims, GError **error)
{
  for (guint i = 0; i < a->exprs->len; i++)
    {
      if (!msperf_mexpr_eval_int (g_ptr_array_index (a->exprs, i), env, &dims[i], error))
        return FALSE;
      if (dims[i] < 0)
        {
          const msperf_mexpr *e = g_ptr_array_index (a->exprs, i);
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "%s: '%s' gives a negative dim %" G_GINT64_FORMAT, msperf_mexpr_where (e),
                       msperf_mexpr_text (e), dims[i]);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
write_tensor (const msperf_model *m, const double *env, const arg_spec *a, GString *out,
              GError **error)
{
  gint64 dims[8], fill = 0;

  if (!eval_dims (env, a, dims, error)
      || (a->fill && !msperf_mexpr_eval_int (a->fill, env, &fill, error)))
    return FALSE;
  g_string_append (out, "{\"shape\": [");
  for (guint i = 0; i < a->exprs->len; i++)
    g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i ? ", " : "", dims[i]);
  g_string_append_printf (out, "], \"dtype\": \"%s\"", dtype_name (m, a->dtype));
  if (a->fill)
    {
      g_string_append (out, ", \"values\": [");
      for (gint64 i = 0; i < dims[0]; i++)
        g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i ? ", " : "", fill);
      g_string_append_c (out, ']');
    }
  g_string_append_c (out, '}');
  return TRUE;
}

static gboolean
write_arg (const msperf_model *m, const double *env, const arg_spec *a, GString *out,
           GError **error)
{
  gint64 dims[8];
  double v;

  switch (a->kind)
    {
    case ARG_NULL:
      g_string_append (out, "null");
      return TRUE;
    case ARG_SCALAR:
      if (!msperf_mexpr_eval (g_ptr_array_index (a->exprs, 0), env, &v, error))
        return FALSE;
      if (v == floor (v) && fabs (v) < 1e15)
        g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) v);
      else
        msperf_fmt_json_double (out, v);
      return TRUE;
    case ARG_LIST:
      if (!eval_dims (env, a, dims, error))
        return FALSE;
      g_string_append_c (out, '[');
      for (guint i = 0; i < a->exprs->len; i++)
        g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i ? ", " : "", dims[i]);
      g_string_append_c (out, ']');
      return TRUE;
    case ARG_STRING:
      msperf_fmt_json_string (out, a->text);
      return TRUE;
    case ARG_QUANT:
      msperf_fmt_json_string (out, msperf_model_quant_names[a->part == PART_GEMM ? m->gemm_quant
                                                                              : m->moe_quant]);
      return TRUE;
    case ARG_RANKS:
      if (!msperf_mexpr_eval_int (g_ptr_array_index (a->exprs, 0), env, &dims[0], error))
        return FALSE;
      g_string_append_c (out, '[');
      for (gint64 i = 0; i < dims[0] && i < 65536; i++)
        g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i ? ", " : "", i);
      g_string_append_c (out, ']');
      return TRUE;
    default:
      return write_tensor (m, env, a, out, error);
    }
}

static gboolean
write_list (const msperf_model *m, const double *env, const GArray *list, GString *out,
            GError **error)
{
  g_string_append_c (out, '[');
  for (guint i = 0; i < list->len; i++)
    {
      if (i)
        g_string_append (out, ", ");
      if (!write_arg (m, env, &g_array_index (list, arg_spec, i), out, error))
        return FALSE;
    }
  g_string_append_c (out, ']');
  return TRUE;
}

static void
kwargs_open (GString *body, gboolean *first)
{
  g_string_append (body, *first ? ", \"kwargs\": {" : ", ");
  *first = FALSE;
}

/* The op's kwargs, if any, closing the object. */
static gboolean
write_kwargs (const msperf_model *m, const double *env, const op_spec *op, GString *body,
              GError **error)
{
  gboolean first = TRUE;

  for (guint i = 0; op->kwargs && i < op->kwargs->len; i++)
    {
      kwargs_open (body, &first);
      msperf_fmt_json_string (body, g_ptr_array_index (op->kw_names, i));
      g_string_append (body, ": ");
      if (!write_arg (m, env, &g_array_index (op->kwargs, arg_spec, i), body, error))
        return FALSE;
    }
  if (!first)
    g_string_append_c (body, '}');
  g_string_append_c (body, '}');
  return TRUE;
}

static void
emit (GPtrArray *bodies, GArray *counts, const GString *body, gint64 count)
{
  g_ptr_array_add (bodies, g_strdup (body->str));
  g_array_append_val (counts, count);
}

static void
tensor2 (GString *out, gint64 a, gint64 b, const char *dtype)
{
  g_string_append_printf (out, "{\"shape\": [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                          "], \"dtype\": \"%s\"}", a, b, dtype);
}

/* A linear layer under its part's quant mode (doc/models.md §5): w8a8 is TensorCast's static
 * quant linear (fused all-reduce kept); fp8 and fp8_block quantise the input (unless an
 * earlier linear did) and multiply with their scales; int4_wo multiplies bf16 activations by
 * int4 weights with a bf16 scale per 128 rows of K. A fused all-reduce becomes a separate
 * all_reduce after the GEMM. */
static gboolean
emit_quant_linear (const msperf_model *m, const double *env, const op_spec *op, quant_mode q,
                   gint64 count, GPtrArray *bodies, GArray *counts, GString *body, GError **error)
{
  const char *act = msperf_model_dtype_names[m->act_dtype];
  gboolean ar = strstr (op->name, "all_reduce") != NULL;
  gint64 mk[2], kn[2], M, K, N, KB, NB;
  int fused;

  if (!eval_dims (env, &g_array_index (op->args, arg_spec, 0), mk, error)
      || !eval_dims (env, &g_array_index (op->args, arg_spec, 1), kn, error))
    return FALSE;
  M = mk[0], K = mk[1], N = kn[1];
  KB = (K + 127) / 128, NB = (N + 127) / 128;
  if (q == QUANT_W4A16_MXFP4)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s: w4a16_mxfp4 is for routed experts run as one fused MoE; this "
                   "template's %s has no such form", m->template_path, op->name);
      return FALSE;
    }
  /* gemm_quant_fused (a template parameter the serving presets set): the linear's answer
   * already includes quantising its input, as the database's fp8 GEMM rows time the whole
   * runtime linear (doc/serving.md §2) */
  fused = msperf_msyms_find (m->syms, "gemm_quant_fused");
  if ((q == QUANT_FP8 || q == QUANT_FP8_BLOCK) && !op->input_quantised
      && !(fused >= 0 && env[fused] != 0))
    {
      g_string_assign (body, "{\"op\": \"tensor_cast.fp8_quantize.default\", \"args\": [");
      tensor2 (body, M, K, act);
      g_string_append (body, "], \"out\": [");
      tensor2 (body, M, K, "float8_e4m3fn");
      g_string_append (body, "]}");
      emit (bodies, counts, body, count);
    }
  g_string_assign (body, "{\"op\": ");
  if (q == QUANT_W8A8)
    g_string_append (body, ar ? "\"tensor_cast.static_quant_linear_all_reduce.default\""
                              : "\"tensor_cast.static_quant_linear.default\"");
  else
    g_string_append (body, q == QUANT_FP8 ? "\"tensor_cast.fp8_matmul.default\""
                           : q == QUANT_FP8_BLOCK ? "\"tensor_cast.fp8_block_matmul.default\""
                           : "\"tensor_cast.int4_wo_matmul.default\"");
  g_string_append (body, ", \"args\": [");
  switch (q)
    {
    case QUANT_W8A8:
      tensor2 (body, M, K, "int8");
      g_string_append (body, ", ");
      tensor2 (body, K, N, "int8");
      break;
    case QUANT_FP8:
      tensor2 (body, M, K, "float8_e4m3fn");
      g_string_append (body, ", ");
      tensor2 (body, K, N, "float8_e4m3fn");
      g_string_append (body, ", {\"shape\": [1], \"dtype\": \"float32\"}, "
                       "{\"shape\": [1], \"dtype\": \"float32\"}");
      break;
    case QUANT_FP8_BLOCK:
      tensor2 (body, M, K, "float8_e4m3fn");
      g_string_append (body, ", ");
      tensor2 (body, K, N, "float8_e4m3fn");
      g_string_append (body, ", ");
      tensor2 (body, M, KB, "float32");
      g_string_append (body, ", ");
      tensor2 (body, KB, NB, "float32");
      break;
    default:
      tensor2 (body, M, K, act);
      g_string_append (body, ", ");
      tensor2 (body, K, N, "int4");
      g_string_append (body, ", ");
      tensor2 (body, KB, N, act);
      break;
    }
  /* static quant keeps the fused all-reduce's own arguments (group) */
  for (guint i = 2; q == QUANT_W8A8 && i < op->args->len; i++)
    {
      g_string_append (body, ", ");
      if (!write_arg (m, env, &g_array_index (op->args, arg_spec, i), body, error))
        return FALSE;
    }
  g_string_append (body, "], \"out\": [");
  tensor2 (body, M, N, act);
  g_string_append (body, "]}");
  emit (bodies, counts, body, count);
  if (!ar || q == QUANT_W8A8)
    return TRUE;
  g_string_assign (body, "{\"op\": \"tensor_cast.all_reduce.default\", \"args\": [");
  tensor2 (body, M, N, act);
  for (guint i = 2; i < op->args->len; i++)
    {
      g_string_append (body, ", ");
      if (!write_arg (m, env, &g_array_index (op->args, arg_spec, i), body, error))
        return FALSE;
    }
  g_string_append (body, "], \"out\": [");
  tensor2 (body, M, N, act);
  g_string_append (body, "]}");
  emit (bodies, counts, body, count);
  return TRUE;
}

/* One op of the template: its body (or the bodies of its quantised form) and per-pass count
 * appended to bodies/counts; nothing when it does not occur in this pass. */
static gboolean
eval_op (const msperf_model *m, const double *env, const op_spec *op, GString *body,
         GPtrArray *bodies, GArray *counts, GError **error)
{
  double when = 1;
  gint64 count = 1;
  quant_mode q = op->part == PART_GEMM ? m->gemm_quant
                 : op->part == PART_MOE ? m->moe_quant : QUANT_NONE;

  if (op->when && !msperf_mexpr_eval (op->when, env, &when, error))
    return FALSE;
  if (when == 0)
    return TRUE;
  if (op->count && !msperf_mexpr_eval_int (op->count, env, &count, error))
    return FALSE;
  if (count <= 0)
    return TRUE;
  if (q != QUANT_NONE)
    return emit_quant_linear (m, env, op, q, count, bodies, counts, body, error);
  g_string_truncate (body, 0);
  g_string_append (body, "{\"op\": ");
  msperf_fmt_json_string (body, op->name);
  g_string_append (body, ", \"args\": ");
  if (!write_list (m, env, op->args, body, error))
    return FALSE;
  if (op->outs->len)
    {
      g_string_append (body, ", \"out\": ");
      if (!write_list (m, env, op->outs, body, error))
        return FALSE;
    }
  if (!write_kwargs (m, env, op, body, error))
    return FALSE;
  emit (bodies, counts, body, count);
  return TRUE;
}

static gboolean
check_pass (const msperf_model *m, const msperf_model_pass *p, GError **error)
{
  gboolean pre = p->phase == MSPERF_PHASE_PREFILL;

  if (p->batch >= 1 && (!pre || p->seq >= 1) && p->context >= 0 && p->nextn >= 0)
    return TRUE;
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
               "%s: --batch and --seq must be >= 1, --context and --nextn >= 0", m->name);
  return FALSE;
}

gboolean
msperf_model_pass_ops (const msperf_model *m, const msperf_model_layout *layout,
                       const msperf_model_pass *pass, GPtrArray *bodies, GArray *counts,
                       GError **error)
{
  g_autofree double *env = g_new (double, m->n_env);
  GString *body;
  gboolean ok = TRUE;

  if (!check_pass (m, pass, error) || !prepare (m, env, layout, pass, error))
    return FALSE;
  body = g_string_new (NULL);
  for (guint i = 0; ok && i < m->ops->len; i++)
    ok = eval_op (m, env, g_ptr_array_index (m->ops, i), body, bodies, counts, error);
  g_string_free (body, TRUE);
  return ok;
}

gboolean
msperf_model_trace (const msperf_model *m, const msperf_model_layout *l, const msperf_model_pass *p,
                    GString *out, GError **error)
{
  g_autoptr (GPtrArray) bodies = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) counts = g_array_new (FALSE, FALSE, sizeof (gint64));

  if (!msperf_model_pass_ops (m, l, p, bodies, counts, error))
    return FALSE;
  g_string_append_printf (out, "# msperf trace: %s (%s, template %s)\n", m->name, m->arch,
                          m->family);
  if (p->phase == MSPERF_PHASE_PREFILL)
    {
      g_string_append_printf (out, "# prefill batch %" G_GINT64_FORMAT " seq %" G_GINT64_FORMAT,
                              p->batch, p->seq);
      if (p->context > 0)
        g_string_append_printf (out, " context %" G_GINT64_FORMAT, p->context);
    }
  else
    g_string_append_printf (out, "# decode batch %" G_GINT64_FORMAT " context %" G_GINT64_FORMAT
                            " nextn %" G_GINT64_FORMAT, p->batch, p->context, p->nextn);
  g_string_append_printf (out, "; layout tp %" G_GINT64_FORMAT " ep %" G_GINT64_FORMAT " dp %"
                          G_GINT64_FORMAT " pp %" G_GINT64_FORMAT "%s; %s%s",
                          l->tp, l->ep, l->dp, l->pp, l->sp ? " sp" : "",
                          msperf_model_dtype_names[m->act_dtype], m->w8a8 ? " w8a8" : "");
  if (!m->w8a8 && (m->gemm_quant != QUANT_NONE || m->moe_quant != QUANT_NONE))
    g_string_append_printf (out, " gemm %s moe %s", msperf_model_quant_names[m->gemm_quant],
                            msperf_model_quant_names[m->moe_quant]);
  g_string_append_printf (out, "%s; one rank, one pass\n", m->kv_fp8 ? " kv fp8" : "");
  for (guint i = 0; i < bodies->len; i++)
    {
      const char *b = g_ptr_array_index (bodies, i);
      /* The body ends with '}': the count goes before it. */
      g_string_append_len (out, b, (gssize) strlen (b) - 1);
      g_string_append_printf (out, ", \"count\": %" G_GINT64_FORMAT "}\n",
                              g_array_index (counts, gint64, i));
    }
  return TRUE;
}

/* Bytes per parameter of a part under its quant mode, scales included: fp8_block one float32
 * scale per 128×128 block, int4_wo one bf16 scale per 128 weights, MXFP4 one e8m0 scale per 32;
 * per-tensor and per-channel scales are negligible. */
static double
param_bytes (const msperf_model *m, quant_mode q)
{
  switch (q)
    {
    case QUANT_FP8:
    case QUANT_W8A8:
      return 1;
    case QUANT_FP8_BLOCK:
      return 1 + 4.0 / (128 * 128);
    case QUANT_W4A16_MXFP4:
      return 0.5 + 1.0 / 32;
    case QUANT_INT4_WO:
      return 0.5 + 2.0 / 128;
    default:
      return msperf_model_dtype_bytes (m->act_dtype);
    }
}

static gboolean
eval_opt (const msperf_mexpr *e, const double *env, double *out, GError **error)
{
  *out = 0;
  return e == NULL || msperf_mexpr_eval (e, env, out, error);
}

gboolean
msperf_model_memory_of (const msperf_model *m, const msperf_model_layout *layout,
                           msperf_model_memory_terms *t, GError **error)
{
  g_autofree double *env = g_new (double, m->n_env);
  double dense, expert, other, window;

  g_return_val_if_fail (m != NULL && layout != NULL && t != NULL, FALSE);
  memset (t, 0, sizeof *t);
  if (!prepare (m, env, layout, NULL, error)
      || !msperf_mexpr_eval (m->kv_per_token, env, &t->kv_bytes_per_token, error)
      || !eval_opt (m->kv_window_per_token, env, &t->kv_window_bytes_per_token, error)
      || !eval_opt (m->kv_window, env, &window, error)
      || !eval_opt (m->state_per_seq, env, &t->state_bytes_per_seq, error)
      || !eval_opt (m->act_per_token, env, &t->act_bytes_per_token, error))
    return FALSE;
  t->kv_window = (int64_t) window;
  if (m->params_dense == NULL)   /* a template with its own weight formula */
    return msperf_mexpr_eval (m->weights, env, &t->weight_bytes, error);
  if (!msperf_mexpr_eval (m->params_dense, env, &dense, error)
      || !msperf_mexpr_eval (m->params_expert, env, &expert, error)
      || !msperf_mexpr_eval (m->params_other, env, &other, error))
    return FALSE;
  t->weight_bytes = dense * param_bytes (m, m->gemm_quant)
                    + expert * param_bytes (m, m->moe_quant)
                    + other * msperf_model_dtype_bytes (m->act_dtype);
  return TRUE;
}

gboolean
msperf_model_params (const msperf_model *m, double *total, double *active, double *mtp,
                     double *embedding, GError **error)
{
  static const msperf_model_layout one = { 1, 1, 1, 1, FALSE };
  g_autofree double *env = g_new (double, m->n_env);
  double dense, expert, other, share = 1;

  g_return_val_if_fail (m != NULL && total != NULL && active != NULL && mtp != NULL
                        && embedding != NULL, FALSE);
  if (m->params_dense == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s: the template gives no parameter counts (memory: params_dense, "
                   "params_expert, params_other)", m->template_path);
      return FALSE;
    }
  if (!prepare (m, env, &one, NULL, error)
      || !msperf_mexpr_eval (m->params_dense, env, &dense, error)
      || !msperf_mexpr_eval (m->params_expert, env, &expert, error)
      || !msperf_mexpr_eval (m->params_other, env, &other, error)
      || !eval_opt (m->params_mtp, env, mtp, error)
      || !eval_opt (m->params_embedding, env, embedding, error)
      || (m->expert_share && !msperf_mexpr_eval (m->expert_share, env, &share, error)))
    return FALSE;
  *total = dense + expert + other;
  *active = dense + other + expert * share;
  return TRUE;
}

gboolean
msperf_model_has_mtp (const msperf_model *m)
{
  double total, active, mtp = 0, embedding;

  g_return_val_if_fail (m != NULL, FALSE);
  return msperf_model_params (m, &total, &active, &mtp, &embedding, NULL) && mtp > 0;
}

const char *
msperf_model_quant_name (const msperf_model *m, gboolean experts)
{
  return msperf_model_quant_names[experts ? m->moe_quant : m->gemm_quant];
}

gboolean
msperf_model_kv_fp8 (const msperf_model *m)
{
  return m->kv_fp8;
}

double
msperf_model_dtype_size (const msperf_model *m)
{
  return msperf_model_dtype_bytes (m->act_dtype);
}

gboolean
msperf_model_memory (const msperf_model *m, const msperf_model_layout *layout,
                     double *weight_bytes, double *kv_bytes_per_token, GError **error)
{
  msperf_model_memory_terms t;

  if (!msperf_model_memory_of (m, layout, &t, error))
    return FALSE;
  *weight_bytes = t.weight_bytes;
  *kv_bytes_per_token = t.kv_bytes_per_token;
  return TRUE;
}
