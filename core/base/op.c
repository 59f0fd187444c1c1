/* msperf — operator invocations and tensors. */
#include <config.h>
#include <string.h>
#include <msperf/op.h>
#include <msperf/shape.h>

int64_t
msperf_tensor_numel (const msperf_tensor *t)
{
  int64_t n = 1;

  g_return_val_if_fail (t != NULL, -1);
  for (int k = 0; k < t->rank; k++)
    if (!msperf_int64_checked_mul (n, t->dims[k], &n))
      return -1;
  return n;
}

gboolean
msperf_tensor_same_shape (const msperf_tensor *a, const msperf_tensor *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);
  if (a->rank != b->rank)
    return FALSE;
  for (int k = 0; k < a->rank; k++)
    if (a->dims[k] != b->dims[k])
      return FALSE;
  return TRUE;
}

void
msperf_tensor_copy (msperf_tensor *dst, const msperf_tensor *src)
{
  g_return_if_fail (dst != NULL && src != NULL);
  *dst = *src;
  dst->values = src->values ? g_memdup2 (src->values, src->n_values * sizeof (int64_t)) : NULL;
}

void
msperf_tensor_clear (msperf_tensor *t)
{
  if (t == NULL)
    return;
  g_clear_pointer (&t->values, g_free);
  t->n_values = 0;
}

char *
msperf_tensor_shape_repr (const msperf_tensor *t)
{
  GString *s = g_string_new ("[");

  for (int k = 0; k < t->rank; k++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, k ? ", " : "", t->dims[k]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static void
tensor_free (gpointer p)
{
  msperf_tensor_clear (p);
  g_free (p);
}

void
msperf_op_set_name (msperf_op *op, const char *name)
{
  g_return_if_fail (op != NULL);
  if (name && g_str_has_prefix (name, "torch.ops."))
    name += strlen ("torch.ops.");
  g_free (op->name);
  op->name = g_strdup (name ? name : "");
}

msperf_op *
msperf_op_new (const char *name)
{
  msperf_op *op = g_new0 (msperf_op, 1);

  msperf_op_set_name (op, name);
  op->args = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_value_free);
  op->kwargs = msperf_value_new (MSPERF_VALUE_MAP);
  op->out = g_ptr_array_new_with_free_func (tensor_free);
  op->count = 1;
  return op;
}

void
msperf_op_free (msperf_op *op)
{
  if (op == NULL)
    return;
  g_free (op->name);
  g_ptr_array_unref (op->args);
  msperf_value_free (op->kwargs);
  g_ptr_array_unref (op->out);
  msperf_value_free (op->att);
  g_free (op);
}

msperf_op *
msperf_op_copy (const msperf_op *src)
{
  msperf_op *op;

  g_return_val_if_fail (src != NULL, NULL);
  op = msperf_op_new (NULL);
  g_free (op->name);
  op->name = g_strdup (src->name);
  for (guint k = 0; k < src->args->len; k++)
    g_ptr_array_add (op->args, msperf_value_copy (g_ptr_array_index (src->args, k)));
  msperf_value_free (op->kwargs);
  op->kwargs = msperf_value_copy (src->kwargs);
  for (guint k = 0; k < src->out->len; k++)
    {
      msperf_tensor *t = g_new0 (msperf_tensor, 1);

      msperf_tensor_copy (t, g_ptr_array_index (src->out, k));
      g_ptr_array_add (op->out, t);
    }
  op->att = msperf_value_copy (src->att);
  op->count = src->count;
  op->index = src->index;
  op->line = src->line;
  op->zero_cost = src->zero_cost;
  return op;
}

GPtrArray *
msperf_op_tensor_inputs (const msperf_op *op)
{
  GPtrArray *in = g_ptr_array_new ();

  g_return_val_if_fail (op != NULL, in);
  for (guint k = 0; k < op->args->len; k++)
    {
      msperf_value *v = g_ptr_array_index (op->args, k);
      if (v->kind == MSPERF_VALUE_TENSOR && v->tensor.rank > 0)
        g_ptr_array_add (in, &v->tensor);
      else if (v->kind == MSPERF_VALUE_LIST)
        for (guint j = 0; j < v->items->len; j++)
          {
            msperf_value *item = g_ptr_array_index (v->items, j);
            if (item->kind == MSPERF_VALUE_TENSOR && item->tensor.rank > 0)
              g_ptr_array_add (in, &item->tensor);
          }
    }
  return in;
}

GPtrArray *
msperf_op_top_level_tensors (const msperf_op *op)
{
  GPtrArray *in = g_ptr_array_new ();

  g_return_val_if_fail (op != NULL, in);
  for (guint k = 0; k < op->args->len; k++)
    {
      msperf_value *v = g_ptr_array_index (op->args, k);
      if (v->kind == MSPERF_VALUE_TENSOR)
        g_ptr_array_add (in, &v->tensor);
    }
  return in;
}

const msperf_value *
msperf_op_arg (const msperf_op *op, int i)
{
  g_return_val_if_fail (op != NULL, NULL);
  if (i < 0)
    i += (int) op->args->len;
  if (i < 0 || (guint) i >= op->args->len)
    return NULL;
  return g_ptr_array_index (op->args, i);
}

const msperf_tensor *
msperf_op_output (const msperf_op *op)
{
  g_return_val_if_fail (op != NULL, NULL);
  return op->out->len ? g_ptr_array_index (op->out, 0) : NULL;
}

/* The decimal text of v, as printf writes it. Signatures are built for
 * every query (the answer cache key): printf was a third of an exact hit (doc/performance.md). */
static void
append_int (GString *s, int64_t v)
{
  char buf[24];
  char *p = buf + sizeof buf;
  /* Magnitude in unsigned arithmetic: -INT64_MIN does not fit in int64_t. */
  uint64_t u = v < 0 ? 0 - (uint64_t) v : (uint64_t) v;

  do
    *--p = (char) ('0' + u % 10);
  while ((u /= 10) != 0);
  if (v < 0)
    *--p = '-';
  g_string_append_len (s, p, buf + sizeof buf - p);
}

static void
tensor_signature (GString *s, const msperf_tensor *t)
{
  g_string_append_c (s, 'T');
  for (int k = 0; k < t->rank; k++)
    {
      g_string_append_c (s, k ? ',' : '(');
      append_int (s, t->dims[k]);
    }
  g_string_append (s, t->rank ? "):" : "():");
  append_int (s, (int) t->dtype);
  g_string_append_c (s, ':');
  append_int (s, (int) t->format);
  for (size_t k = 0; k < t->n_values; k++)
    {
      g_string_append_c (s, k ? ',' : '=');
      append_int (s, t->values[k]);
    }
}

static void
value_signature (GString *s, const msperf_value *v)
{
  if (v == NULL)
    {
      g_string_append (s, "N");
      return;
    }
  switch (v->kind)
    {
    case MSPERF_VALUE_NONE: g_string_append (s, "N"); break;
    case MSPERF_VALUE_BOOL: g_string_append (s, v->b ? "B1" : "B0"); break;
    case MSPERF_VALUE_INT:
      g_string_append_c (s, 'I');
      append_int (s, v->i);
      break;
    case MSPERF_VALUE_FLOAT: g_string_append_printf (s, "F%.17g", v->f); break;
    case MSPERF_VALUE_STRING:
      g_string_append_printf (s, "S%zu:%s", strlen (v->s), v->s);
      break;
    case MSPERF_VALUE_TENSOR: tensor_signature (s, &v->tensor); break;
    case MSPERF_VALUE_LIST:
    case MSPERF_VALUE_MAP:
      g_string_append_c (s, v->kind == MSPERF_VALUE_LIST ? '[' : '{');
      for (guint k = 0; k < v->items->len; k++)
        {
          if (v->keys)
            g_string_append_printf (s, "%s=", (char *) g_ptr_array_index (v->keys, k));
          value_signature (s, g_ptr_array_index (v->items, k));
          g_string_append_c (s, ';');
        }
      g_string_append_c (s, v->kind == MSPERF_VALUE_LIST ? ']' : '}');
      break;
    default:
      g_assert_not_reached ();
    }
}

char *
msperf_op_signature (const msperf_op *op)
{
  /* Sized for a typical op, so the string is not regrown several times per query. */
  GString *s = g_string_sized_new (256);

  g_string_append (s, op->name);
  g_string_append_c (s, '(');
  for (guint k = 0; k < op->args->len; k++)
    {
      value_signature (s, g_ptr_array_index (op->args, k));
      g_string_append_c (s, ';');
    }
  g_string_append (s, ")k");
  value_signature (s, op->kwargs);
  g_string_append (s, "o");
  for (guint k = 0; k < op->out->len; k++)
    tensor_signature (s, g_ptr_array_index (op->out, k));
  g_string_append (s, "a");
  value_signature (s, op->att);
  if (op->zero_cost)
    g_string_append (s, "z");
  return g_string_free (s, FALSE);
}
