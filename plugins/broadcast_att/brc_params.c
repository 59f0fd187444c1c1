/* msperf broadcast_att — parameters from an op's `att` MAP (FORMATS §2; seed FR1:
 * BroadcastExtendParams{dst_shapes, src_shapes}, BroadcastDuplicateParams{count,
 * dst_view_size, source_kind}) and their form checks. The numeric domain limits belong to the
 * consumers and are checked where the model meets them. */
#include <config.h>
#include <string.h>
#include <msperf/dtype.h>
#include "brc_model.h"

static const char *const source_kinds[] = { "kConstant", "kUbScalar", "kTensorVecIn",
                                            "kTensorVecCalc", "kTensorOther" };

const char *
brc_source_kind_name (brc_source_kind k)
{
  return (guint) k < G_N_ELEMENTS (source_kinds) ? source_kinds[k] : "?";
}

void
brc_params_init (brc_params *p)
{
  memset (p, 0, sizeof *p);
  p->dst_shapes = g_ptr_array_new ();
  p->src_shapes = g_ptr_array_new ();
  p->source_kind = BRC_SRC_TENSOR_OTHER;
  p->bindings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

void
brc_params_clear (brc_params *p)
{
  g_clear_pointer (&p->dtype, g_free);
  g_clear_pointer (&p->dst_shapes, g_ptr_array_unref);
  g_clear_pointer (&p->src_shapes, g_ptr_array_unref);
  g_clear_pointer (&p->bindings, g_hash_table_unref);
}

static gboolean
fail (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (GError **error, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, msg);
  return FALSE;
}

/* One size: an integer >= 1 (or its decimal text), or a symbol name. */
static msperf_expr *
entry (msperf_expr_ctx *ctx, const msperf_value *v, const char *what, GError **error)
{
  int64_t i;
  const char *s = msperf_value_get_string (v);

  if (msperf_value_get_int (v, &i)
      || (s != NULL && *s != '\0' && strspn (s, "0123456789") == strlen (s)
          && g_ascii_string_to_signed (s, 10, 0, G_MAXINT64, &i, NULL)))
    {
      if (i < 1)
        {
          fail (error, "%s is %" G_GINT64_FORMAT ": sizes must be at least 1", what, i);
          return NULL;
        }
      return msperf_expr_int (ctx, i);
    }
  if (s != NULL && msperf_expr_is_identifier (s))
    return msperf_expr_symbol (ctx, s);
  fail (error, "%s: expected an integer >= 1 or a symbol name, got %s", what,
        s != NULL ? s : "a value of another type");
  return NULL;
}

static gboolean
shape_list (msperf_expr_ctx *ctx, const msperf_value *att, const char *key, GPtrArray *into,
            GError **error)
{
  const msperf_value *v = msperf_value_lookup (att, key);

  if (v == NULL || v->kind == MSPERF_VALUE_NONE)
    return fail (error, "att.%s is missing", key);
  if (v->kind != MSPERF_VALUE_LIST)
    return fail (error, "att.%s: expected a list of integers or symbol names", key);
  for (guint i = 0; i < v->items->len; i++)
    {
      g_autofree char *what = g_strdup_printf ("att.%s[%u]", key, i);
      msperf_expr *e = entry (ctx, g_ptr_array_index (v->items, i), what, error);
      if (e == NULL)
        return FALSE;
      g_ptr_array_add (into, e);
    }
  return TRUE;
}

/* att.bind folds into the shapes before the model enumerates its branches: a bound
 * size is a number like any written one, so binding symbols shrinks the branch space. Only
 * integer values fold (a size is an integer); the others stay for `value`. */
static gboolean
fold_bindings (const brc_params *p, GPtrArray *shape, const char *key, GError **error)
{
  for (guint i = 0; i < shape->len; i++)
    {
      const char *name = msperf_expr_symbol_name (g_ptr_array_index (shape, i));
      const msperf_expr *v = name != NULL ? g_hash_table_lookup (p->bindings, name) : NULL;
      int64_t n;

      if (v == NULL || !msperf_expr_get_int (v, &n))
        continue;
      if (n < 1)
        return fail (error, "att.%s[%u] = %s is bound to %" G_GINT64_FORMAT ": sizes must be "
                     "at least 1", key, i, name, n);
      g_ptr_array_index (shape, i) = (gpointer) v;
    }
  return TRUE;
}

static gboolean
extend_params (msperf_expr_ctx *ctx, const msperf_value *att, brc_params *p, GError **error)
{
  if (!shape_list (ctx, att, "dst_shapes", p->dst_shapes, error)
      || !shape_list (ctx, att, "src_shapes", p->src_shapes, error)
      || !fold_bindings (p, p->dst_shapes, "dst_shapes", error)
      || !fold_bindings (p, p->src_shapes, "src_shapes", error))
    return FALSE;
  if (p->dst_shapes->len < 1 || p->dst_shapes->len > BRC_MAX_RANK)
    return fail (error, "BroadcastExtend rank %u is outside 1..%d", p->dst_shapes->len,
                 BRC_MAX_RANK);
  if (p->src_shapes->len != p->dst_shapes->len)
    return fail (error, "dst_shapes has %u entries but src_shapes has %u", p->dst_shapes->len,
                 p->src_shapes->len);
  for (guint i = 0; i < p->dst_shapes->len; i++)
    {
      int64_t d, s;
      const msperf_expr *de = g_ptr_array_index (p->dst_shapes, i);
      const msperf_expr *se = g_ptr_array_index (p->src_shapes, i);

      /* An axis is broadcast (src 1) or kept (src == dst); symbolic pairs are assumed so. */
      if (msperf_expr_get_int (de, &d) && msperf_expr_get_int (se, &s) && s != 1 && s != d)
        return fail (error, "src_shapes[%u] = %" G_GINT64_FORMAT " must be 1 or equal "
                     "dst_shapes[%u] = %" G_GINT64_FORMAT, i, s, i, d);
      if (msperf_expr_get_int (se, &s) && s != 1 && !msperf_expr_is_number (de))
        return fail (error, "src_shapes[%u] = %" G_GINT64_FORMAT " must be 1 or the same "
                     "symbol as dst_shapes[%u] = %s", i, s, i, msperf_expr_str (de));
    }
  return TRUE;
}

static gboolean
duplicate_params (msperf_expr_ctx *ctx, const msperf_value *att, brc_params *p, GError **error)
{
  const msperf_value *c = msperf_value_lookup (att, "count");
  const msperf_value *v = msperf_value_lookup (att, "dst_view_size");
  const msperf_value *k = msperf_value_lookup (att, "source_kind");
  const char *ks = msperf_value_get_string (k);

  if (c == NULL || c->kind == MSPERF_VALUE_NONE)
    return fail (error, "att.count is missing");
  if ((p->count = entry (ctx, c, "att.count", error)) == NULL)
    return FALSE;
  if (v != NULL && v->kind != MSPERF_VALUE_NONE
      && (p->dst_view_size = entry (ctx, v, "att.dst_view_size", error)) == NULL)
    return FALSE;
  if (k != NULL && k->kind != MSPERF_VALUE_NONE)
    {
      guint i;
      for (i = 0; i < G_N_ELEMENTS (source_kinds); i++)
        if (g_strcmp0 (ks, source_kinds[i]) == 0)
          break;
      if (i == G_N_ELEMENTS (source_kinds))
        return fail (error, "att.source_kind: '%s' is not one of kConstant, kUbScalar, "
                     "kTensorVecIn, kTensorVecCalc, kTensorOther", ks != NULL ? ks : "?");
      p->source_kind = (brc_source_kind) i;
    }
  /* The uint8 overload reads dst.GetSize(), not count (seed FR5): it needs the view size. */
  if (strcmp (p->dtype, "uint8") == 0 && p->dst_view_size == NULL)
    return fail (error, "a uint8 Duplicate needs att.dst_view_size (the uint8 overload "
                 "duplicates dst.GetSize() elements)");
  return TRUE;
}

gboolean
brc_params_from_value (msperf_expr_ctx *ctx, const msperf_value *att, brc_params *p,
                       GError **error)
{
  const char *kind, *ds;
  msperf_dtype d;

  if (att == NULL || att->kind != MSPERF_VALUE_MAP)
    return fail (error, "the op has no 'att' object");
  kind = msperf_value_get_string (msperf_value_lookup (att, "kind"));
  if (g_strcmp0 (kind, "broadcast_extend") == 0)
    p->kind = BRC_EXTEND;
  else if (g_strcmp0 (kind, "duplicate") == 0)
    p->kind = BRC_DUPLICATE;
  else
    return fail (error, "att.kind '%s' is not broadcast_extend or duplicate",
                 kind != NULL ? kind : "(missing)");
  ds = msperf_value_get_string (msperf_value_lookup (att, "dtype"));
  if (ds == NULL)
    return fail (error, "att.dtype is missing");
  d = msperf_dtype_from_string (ds);
  if (d == MSPERF_DTYPE_UNKNOWN || d == MSPERF_DTYPE_UNDEFINED)
    return fail (error, "att.dtype: unknown dtype '%s'", ds);
  p->dtype = g_strdup (msperf_dtype_torch_name (d));
  g_clear_pointer (&p->bindings, g_hash_table_unref);
  if ((p->bindings = msperf_att_bindings (ctx, att, error)) == NULL)
    return FALSE;
  return p->kind == BRC_EXTEND ? extend_params (ctx, att, p, error)
                               : duplicate_params (ctx, att, p, error);
}
