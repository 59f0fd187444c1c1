/* msperf cast_att — the Cast V2 VF cost model: repeat time and call count (static or as the
 * named ternaries cast_repeat_time / cast_call_count), the data-copy calls and the per-dtype
 * branches of reference att-model.md §3.2–§3.3, every lookup recorded in the ledger. */
#include <config.h>
#include <string.h>
#include <msperf/dtype.h>
#include "cast_model.h"

#define CALL_SITE "CastExtend"

void
cast_att_params_init (cast_att_params *p)
{
  memset (p, 0, sizeof *p);
  p->shape = g_ptr_array_new ();
  p->output_dims = g_ptr_array_new ();
  p->output_strides = g_ptr_array_new ();
  p->input_strides = g_ptr_array_new ();
}

void
cast_att_params_clear (cast_att_params *p)
{
  g_clear_pointer (&p->in_dtype, g_free);
  g_clear_pointer (&p->out_dtype, g_free);
  g_clear_pointer (&p->shape, g_ptr_array_unref);
  g_clear_pointer (&p->output_dims, g_ptr_array_unref);
  g_clear_pointer (&p->output_strides, g_ptr_array_unref);
  g_clear_pointer (&p->input_strides, g_ptr_array_unref);
}

msperf_expr *
cast_att_entry (msperf_expr_ctx *ctx, const msperf_value *v, const char *what, GError **error)
{
  int64_t i;
  const char *s = msperf_value_get_string (v);

  if (msperf_value_get_int (v, &i) && i >= 0)
    return msperf_expr_int (ctx, i);
  if (s != NULL && msperf_expr_is_identifier (s))
    return msperf_expr_symbol (ctx, s);
  if (s != NULL && *s != '\0' && strspn (s, "0123456789") == strlen (s)
      && g_ascii_string_to_signed (s, 10, 0, G_MAXINT64, &i, NULL))
    return msperf_expr_int (ctx, i);
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
               "%s: expected a non-negative integer or a symbol name, got %s", what,
               s != NULL ? s : v->kind == MSPERF_VALUE_INT ? "a negative integer"
                             : "a value of another type");
  return NULL;
}

static gboolean
entry_list (msperf_expr_ctx *ctx, const msperf_value *att, const char *key, GPtrArray *into,
            gboolean *present, GError **error)
{
  const msperf_value *v = msperf_value_lookup (att, key);

  *present = v != NULL && v->kind != MSPERF_VALUE_NONE;
  if (!*present)
    return TRUE;
  if (v->kind != MSPERF_VALUE_LIST)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "att.%s: expected a list of integers or symbol names", key);
      return FALSE;
    }
  for (guint i = 0; i < v->items->len; i++)
    {
      g_autofree char *what = g_strdup_printf ("att.%s[%u]", key, i);
      msperf_expr *e = cast_att_entry (ctx, g_ptr_array_index (v->items, i), what, error);
      if (e == NULL)
        return FALSE;
      g_ptr_array_add (into, e);
    }
  return TRUE;
}

/* The table spelling of a dtype (torch names: "float16", "bfloat16", "int4", "bool"). */
static char *
table_dtype (const msperf_value *att, const char *key, GError **error)
{
  const char *s = msperf_value_get_string (msperf_value_lookup (att, key));
  msperf_dtype d = msperf_dtype_from_string (s);

  if (s == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "att.%s is missing", key);
      return NULL;
    }
  if (d == MSPERF_DTYPE_UNKNOWN || d == MSPERF_DTYPE_UNDEFINED)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "att.%s: unknown dtype '%s'", key, s);
      return NULL;
    }
  return g_strdup (msperf_dtype_torch_name (d));
}

#define CAST_ATT_MAX_RANK 9

gboolean
cast_att_params_from_value (msperf_expr_ctx *ctx, const msperf_value *att, cast_att_params *p,
                            GError **error)
{
  gboolean has_shape, has_dims, has_os, has_is;
  const msperf_value *valid;

  if (att == NULL || att->kind != MSPERF_VALUE_MAP)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "the op has no 'att' object");
      return FALSE;
    }
  if ((p->in_dtype = table_dtype (att, "in_dtype", error)) == NULL
      || (p->out_dtype = table_dtype (att, "out_dtype", error)) == NULL)
    return FALSE;
  if (!entry_list (ctx, att, "shape", p->shape, &has_shape, error)
      || !entry_list (ctx, att, "output_dims", p->output_dims, &has_dims, error)
      || !entry_list (ctx, att, "output_strides", p->output_strides, &has_os, error)
      || !entry_list (ctx, att, "input_strides", p->input_strides, &has_is, error))
    return FALSE;
  /* ATT kernels are generated for ranks 1..9 (the same domain as Broadcast's params). */
  for (size_t k = 0; k < 4; k++)
    {
      static const char *const names[] = { "shape", "output_dims", "output_strides",
                                           "input_strides" };
      const GPtrArray *list = k == 0 ? p->shape : k == 1 ? p->output_dims
                              : k == 2 ? p->output_strides : p->input_strides;
      if (list->len > CAST_ATT_MAX_RANK)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "'%s' has rank %u, outside 1..%d", names[k], list->len, CAST_ATT_MAX_RANK);
          return FALSE;
        }
    }
  /* Absent codegen parameters mean upstream's fallback to the shape product (FORMATS §2). */
  p->valid = has_dims;
  valid = msperf_value_lookup (att, "valid");
  if (valid != NULL && valid->kind == MSPERF_VALUE_BOOL)
    p->valid = valid->b && has_dims;
  return TRUE;
}

static gboolean
same_bit (const char *in, const char *out)
{
  static const char *const pairs[][2] = {
    { "int8", "uint8" }, { "int16", "uint16" }, { "int32", "uint32" }, { "int64", "uint64" },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (pairs); i++)
    if ((strcmp (in, pairs[i][0]) == 0 && strcmp (out, pairs[i][1]) == 0)
        || (strcmp (in, pairs[i][1]) == 0 && strcmp (out, pairs[i][0]) == 0))
      return TRUE;
  return FALSE;
}

static gboolean
is (const char *a, const char *b)
{
  return strcmp (a, b) == 0;
}

static gboolean
pair (const cast_att_params *p, const char *in, const char *out)
{
  return is (p->in_dtype, in) && is (p->out_dtype, out);
}

/* Elements per repeat: 128 for uint8 → int4, else min(RPT[in] (64 when absent), RPT[out]). */
static int64_t
one_repeat (const msperf_att_table *t, const cast_att_params *p)
{
  int64_t in_rep = 64, out_rep;

  if (pair (p, "uint8", "int4"))
    return 128;
  if (!msperf_att_table_repeat_elems (t, p->in_dtype, &in_rep))
    in_rep = (int64_t) msperf_att_table_constant (t, "default_repeat_elems", 64);
  if (msperf_att_table_repeat_elems (t, p->out_dtype, &out_rep) && out_rep < in_rep)
    return out_rep;
  return in_rep;
}

static msperf_expr *
product (msperf_expr_ctx *ctx, GPtrArray *dims)
{
  msperf_expr *r = msperf_expr_int (ctx, 1);

  for (guint i = 0; i < dims->len; i++)
    r = msperf_expr_mul (r, g_ptr_array_index (dims, i));
  return r;
}

/* R and C of §3.2, with the named ternaries where upstream builds them. */
static gboolean
repeat_and_calls (const msperf_att_table *t, msperf_expr_ctx *ctx, const cast_att_params *p,
                  gboolean samebit, cast_att_model *m, GError **error)
{
  int64_t rep = one_repeat (t, p);
  msperf_expr *one_rep = msperf_expr_int (ctx, rep);
  guint n = p->valid ? p->output_dims->len : 0;
  gboolean strides = p->output_strides->len > 0 && p->input_strides->len > 0;
  msperf_expr *count, *outer, *os0, *is0, *one_row, *all_rows;

  /* upstream asserts a non-zero divisor before every symbolic division */
  if (rep <= 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s -> %s: elements per repeat is %" G_GINT64_FORMAT ", not positive",
                   p->in_dtype, p->out_dtype, rep);
      return FALSE;
    }
  if ((samebit && n == 0) || (!samebit && (n == 0 || !strides)))
    {
      /* The fallback: one VF call over the product of the input dims. */
      if (p->shape->len == 0)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "Cast %s -> %s needs 'shape' when output_dims/strides are absent",
                       p->in_dtype, p->out_dtype);
          return FALSE;
        }
      m->repeat = msperf_expr_ceil_div (product (ctx, p->shape), one_rep);
      m->call_count = msperf_expr_int (ctx, 1);
      return TRUE;
    }
  count = g_ptr_array_index (p->output_dims, n - 1);
  outer = g_ptr_array_index (p->output_dims, 0);
  one_row = msperf_expr_ceil_div (count, one_rep);
  if (samebit)
    {
      /* The same-bit kernel always loops over rows: C = outer without a ternary. */
      m->repeat = one_row;
      m->call_count = n > 1 ? outer : msperf_expr_int (ctx, 1);
      return TRUE;
    }
  if (n == 1)
    {
      m->repeat = one_row;
      m->call_count = msperf_expr_int (ctx, 1);
      return TRUE;
    }
  os0 = g_ptr_array_index (p->output_strides, 0);
  is0 = g_ptr_array_index (p->input_strides, 0);
  all_rows = msperf_expr_ceil_div (msperf_expr_mul (outer, count), one_rep);
  /* Built even when the conditions are numbers, as upstream does (§3.5). */
  m->repeat = msperf_expr_ctx_define (ctx, "cast_repeat_time",
      msperf_expr_ternary (MSPERF_COND_EQ, os0, is0,
                           msperf_expr_ternary (MSPERF_COND_EQ, os0, count, all_rows, one_row),
                           one_row),
      "Cast repeat time: one VF call over all rows when both strides equal the row length");
  m->call_count = msperf_expr_ctx_define (ctx, "cast_call_count",
      msperf_expr_ternary (MSPERF_COND_EQ, os0, is0,
                           msperf_expr_ternary (MSPERF_COND_EQ, os0, count,
                                                msperf_expr_int (ctx, 1), outer),
                           outer),
      "Cast call count: VF launches (1 when contiguous, else one per row)");
  return TRUE;
}

/* Shorthands over the accumulator: single-dtype (X) and mapping (XMap) lookups. */
typedef struct {
  msperf_att_vf *vf;
  const char *mode;
} acc;

static const char *
real_api (const char *perf_type)
{
  if (is (perf_type, "Load"))
    return "LoadAlign";
  if (is (perf_type, "Store"))
    return "StoreAlign";
  if (is (perf_type, "Vshrs"))
    return "ShiftRights";
  return perf_type;
}

static void
x (acc *a, const char *type, const char *dtype, const msperf_expr *count)
{
  msperf_att_vf_call (a->vf, CALL_SITE, real_api (type), a->mode, type, dtype, NULL, count);
}

static void
xmap (acc *a, const char *type, const char *in, const char *out, const msperf_expr *count)
{
  msperf_att_vf_call (a->vf, CALL_SITE, real_api (type), a->mode, type, in, out, count);
}

static gboolean
in_set (const char *d, const char *const *set)
{
  return g_strv_contains (set, d);
}

/* The compute calls of §3.3 (after Load and Store); returns the branch name. */
static const char *
branch_calls (acc *a, const cast_att_params *p, msperf_expr *r, msperf_expr *one,
              msperf_expr *two_r)
{
  const char *in = p->in_dtype, *out = p->out_dtype;
  static const char *const b8_u8_out[] = { "float32", "int32", "int16", "int4", NULL };

  if (pair (p, "float32", "bool"))
    {
      a->mode = "f32_to_bool";
      x (a, "Duplicate", "uint32", one);
      x (a, "And", "uint32", r);
      x (a, "Adds", "uint32", r);
      x (a, "Or", "uint32", r);
      x (a, "Not", "uint32", r);
      x (a, "Vshrs", "uint32", r);
    }
  else if (pair (p, "float16", "int4") || pair (p, "int4", "float16"))
    {
      a->mode = "b4";
      x (a, "MaskPack", "float16", is (in, "float16") ? two_r : r);
      xmap (a, "Cast", in, out, r);
    }
  else if (pair (p, "int64", "float16") || pair (p, "float16", "int64"))
    {
      a->mode = "b64_transfer";
      x (a, "Duplicate", "uint32", one);
      x (a, "MaskPack", "uint32", r);
      x (a, is (in, "float16") ? "Interleave" : "DeInterleave", "uint32", r);
      xmap (a, "Cast", in, "float32", r);
      xmap (a, "Cast", "float32", out, r);
    }
  else if ((is (in, "uint8") && in_set (out, b8_u8_out)) || pair (p, "int8", "float32")
           || pair (p, "float32", "int8") || pair (p, "int16", "int8")
           || pair (p, "int16", "uint8"))
    {
      a->mode = "b8";
      xmap (a, "Cast", in, "float16", r);
      if (pair (p, "uint8", "float32") || pair (p, "uint8", "int32"))
        x (a, "UnPack", "uint16", r);
      if (pair (p, "uint8", "int4"))
        {
          xmap (a, "Cast", "uint8", "int4", r);
          x (a, "Pack", "uint32", r);
          x (a, "Pack", "uint16", r);
        }
      if (!pair (p, "int16", "uint8"))
        xmap (a, "Cast", "float16", out, r);
    }
  else if (pair (p, "int64", "float32") || pair (p, "float32", "int64")
           || pair (p, "int64", "int32") || pair (p, "int32", "int64"))
    {
      a->mode = "b64";
      xmap (a, "Cast", in, out, r);
      if (is (in, "int64"))
        {
          x (a, "Duplicate", "uint32", r);
          x (a, "DeInterleave", "uint32", r);
        }
    }
  else if (pair (p, "int64", "uint8"))
    {
      /* Pack<u32,i64> is modelled as Duplicate + DeInterleave upstream (§3.4). */
      a->mode = "s64_u8";
      x (a, "Duplicate", "uint32", r);
      x (a, "DeInterleave", "uint32", r);
      x (a, "Pack", "uint32", r);
      x (a, "Pack", "uint16", r);
    }
  else if (pair (p, "uint8", "int64"))
    {
      /* UnPack<u64,u32> is modelled as Duplicate + Interleave upstream (§3.4). */
      a->mode = "u8_s64";
      x (a, "Duplicate", "uint32", r);
      x (a, "Interleave", "uint32", r);
    }
  else if (pair (p, "int32", "float16"))
    {
      a->mode = "i32_to_f16";
      xmap (a, "Cast", "int32", "float32", r);
      xmap (a, "Cast", "float32", "float16", r);
    }
  else
    {
      a->mode = "common";
      xmap (a, "Cast", in, out, r);
    }
  return a->mode;
}

/* Why the codegen parameters cannot be used with this shape (a text to warn with), or NULL:
 * list lengths that disagree, or output_dims whose product is not the shape's element count
 * (both static). */
static char *
parameters_disagree (msperf_expr_ctx *ctx, const cast_att_params *p)
{
  int64_t dims_n, shape_n;

  if (!p->valid || p->output_dims->len == 0)
    return NULL;
  if ((p->output_strides->len > 0 && p->output_strides->len != p->output_dims->len)
      || (p->input_strides->len > 0 && p->input_strides->len != p->output_dims->len))
    return g_strdup_printf ("Cast parameters disagree: %u output_dims, %u output_strides, "
                            "%u input_strides; using the shape product", p->output_dims->len,
                            p->output_strides->len, p->input_strides->len);
  if (p->shape->len > 0 && msperf_expr_get_int (product (ctx, p->output_dims), &dims_n)
      && msperf_expr_get_int (product (ctx, p->shape), &shape_n) && dims_n != shape_n)
    return g_strdup_printf ("Cast parameters disagree with the shape: output_dims hold %"
                            G_GINT64_FORMAT " elements, the shape %" G_GINT64_FORMAT
                            "; using the shape product", dims_n, shape_n);
  return NULL;
}

gboolean
cast_att_run (const msperf_att_table *table, msperf_expr_ctx *ctx, const cast_att_params *p,
              cast_att_model *m, GError **error)
{
  gboolean samebit;
  msperf_expr *one, *head_sum;
  cast_att_params fallback;
  acc a;

  g_return_val_if_fail (table != NULL && ctx != NULL && p != NULL && m != NULL, FALSE);
  memset (m, 0, sizeof *m);
  /* Seed 004 FR1: 「缺失或无效时 CastPerf 回退到 shape 乘积和默认 repeat 计算路径」 — invalid codegen
   * parameters take the shape-product path, with a warning in the result. */
  if ((m->warning = parameters_disagree (ctx, p)) != NULL)
    {
      if (p->shape->len == 0)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "%s, and there is no 'shape' to fall back to", m->warning);
          g_clear_pointer (&m->warning, g_free);
          return FALSE;
        }
      fallback = *p;
      fallback.valid = FALSE;
      p = &fallback;
    }
  samebit = same_bit (p->in_dtype, p->out_dtype);
  if (!repeat_and_calls (table, ctx, p, samebit, m, error))
    return FALSE;
  one = msperf_expr_int (ctx, 1);
  m->vf = msperf_att_vf_new (table, ctx);
  a.vf = m->vf;
  if (samebit)
    {
      /* DataCopy only: two UpdateMask once (a constant 2, not ×R), then Load + Store pairs. */
      a.mode = m->branch = "same_bit";
      x (&a, "UpdateMask", p->in_dtype, msperf_expr_int (ctx, 2));
      x (&a, "Load", p->in_dtype, m->repeat);
      xmap (&a, "Store", p->in_dtype, p->out_dtype, m->repeat);
    }
  else
    {
      a.mode = "data_copy";
      x (&a, "Load", p->in_dtype, m->repeat);
      xmap (&a, "Store", p->in_dtype, p->out_dtype, m->repeat);
      m->branch = branch_calls (&a, p, m->repeat, one,
                                msperf_expr_mul (msperf_expr_int (ctx, 2), m->repeat));
    }
  head_sum = msperf_att_vf_cost (m->vf);
  m->cost = msperf_expr_mul (head_sum, m->call_count);
  return TRUE;
}

void
cast_att_model_clear (cast_att_model *m)
{
  g_clear_pointer (&m->vf, msperf_att_vf_free);
  g_clear_pointer (&m->warning, g_free);
}

msperf_value *
cast_att_report (msperf_expr_ctx *ctx, const cast_att_model *m, GHashTable *bindings,
                 GError **error)
{
  return msperf_att_report_new (ctx, m->cost, bindings, m->vf, m->call_count, error);
}
