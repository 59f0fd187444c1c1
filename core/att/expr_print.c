/* msperf — printing expressions in the upstream Str() form (reference att-model.md §2.3).
 * The rules matter: golden strings of the upstream tests compare byte for byte, and the
 * printed form doubles as the canonical key of a node (expr.c). */
#include <config.h>
#include <math.h>
#include <string.h>
#include "att/expr_private.h"

void
msperf_num_print (GString *out, msperf_num v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  switch (v.k)
    {
    case NUM_INT:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, v.n);
      break;
    case NUM_RAT:
      g_string_append_printf (out, "Rational(%" G_GINT64_FORMAT " , %" G_GINT64_FORMAT ")",
                              v.n, v.d);
      break;
    case NUM_DBL:
      /* SymEngine prints doubles with 15 significant digits and marks them as doubles. */
      g_ascii_formatd (buf, sizeof buf, "%.15g", v.f);
      g_string_append (out, buf);
      if (isfinite (v.f) && strchr (buf, '.') == NULL && strchr (buf, 'e') == NULL)
        g_string_append (out, strlen (buf) == 15 ? "." : ".0");
      break;
    default:
      break;
    }
}

static int
cmp_strings (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* Byte-wise sorted strings joined by delim (upstream PrintArgs). Frees the strings. */
static void
append_sorted (GString *out, GPtrArray *strs, const char *delim)
{
  if (strs->len > 1) /* pdata may be NULL when empty */
    qsort (strs->pdata, strs->len, sizeof (char *), cmp_strings);
  for (guint i = 0; i < strs->len; i++)
    {
      if (i > 0)
        g_string_append (out, delim);
      g_string_append (out, g_ptr_array_index (strs, i));
    }
}

static char *
num_str (msperf_num v)
{
  GString *s = g_string_new (NULL);

  msperf_num_print (s, v);
  return g_string_free (s, FALSE);
}

/* base^exp for a numeric exponent, as the upstream Pow printer writes it. */
static char *
pow_str (const msperf_expr *base, msperf_num exp)
{
  const char *b = msperf_expr_str (base);
  GString *s;

  if (msperf_num_is_one (exp))
    return g_strdup_printf ("(%s)", b);
  if (exp.k == NUM_RAT && exp.n == 1 && exp.d == 2)
    return g_strdup_printf ("Sqrt(%s)", b);
  if (exp.k == NUM_INT && exp.n > 0)
    {
      s = g_string_new ("(");
      for (int64_t i = 0; i < exp.n; i++)
        g_string_append_printf (s, i > 0 ? " * %s" : "%s", b);
      g_string_append_c (s, ')');
      return g_string_free (s, FALSE);
    }
  s = g_string_new ("Pow(");
  g_string_append_printf (s, "%s, ", b);
  msperf_num_print (s, exp);
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

static void
print_mul (GString *out, const msperf_expr *e)
{
  g_autoptr (GPtrArray) num = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) den = g_ptr_array_new_with_free_func (g_free);

  if (!msperf_num_is_one (e->v))
    g_ptr_array_add (num, num_str (e->v));
  for (size_t i = 0; i < e->n; i++)
    {
      msperf_num x = e->nums[i];
      if (msperf_num_is_one (x))
        g_ptr_array_add (num, g_strdup (msperf_expr_str (e->args[i])));
      else if (msperf_num_is_negative (x))
        {
          /* A factor with a negative exponent goes below the line as 1/factor. */
          msperf_num inv = msperf_num_mul (x, msperf_num_int (-1));
          g_ptr_array_add (den, msperf_num_is_one (inv) ? g_strdup (msperf_expr_str (e->args[i]))
                                                        : pow_str (e->args[i], inv));
        }
      else
        g_ptr_array_add (num, pow_str (e->args[i], x));
    }
  g_string_append_c (out, '(');
  if (num->len > 0)
    append_sorted (out, num, " * ");
  else
    g_string_append_c (out, '1');
  if (den->len > 0)
    {
      g_string_append (out, " / (");
      append_sorted (out, den, " * ");
      g_string_append_c (out, ')');
    }
  g_string_append_c (out, ')');
}

static void
print_add (GString *out, const msperf_expr *e)
{
  g_autoptr (GPtrArray) pos = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) neg = g_ptr_array_new_with_free_func (g_free);

  if (!(e->v.k != NUM_DBL ? e->v.n == 0 : e->v.f == 0.0))
    g_ptr_array_add (pos, num_str (e->v));
  for (size_t i = 0; i < e->n; i++)
    {
      msperf_num c = e->nums[i];
      /* Only a term with a negative coefficient counts as negative; a negative constant
       * stays among the positive ones and prints as "+ -256". */
      gboolean negative = msperf_num_is_negative (c);
      msperf_num shown = negative ? msperf_num_mul (c, msperf_num_int (-1)) : c;
      const msperf_expr *t = msperf_num_is_one (shown)
        ? e->args[i]
        : msperf_expr_mul (msperf_expr_from_num (e->ctx, shown), e->args[i]);
      g_ptr_array_add (negative ? neg : pos, g_strdup (msperf_expr_str (t)));
    }
  g_string_append_c (out, '(');
  if (pos->len > 0)
    append_sorted (out, pos, " + ");
  if (neg->len > 0)
    {
      g_string_append (out, " - ");
      append_sorted (out, neg, " - ");
    }
  g_string_append_c (out, ')');
}

static void
print_call_sorted (GString *out, const char *name, const msperf_expr *e)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

  for (size_t i = 0; i < e->n; i++)
    g_ptr_array_add (args, g_strdup (msperf_expr_str (e->args[i])));
  g_string_append_printf (out, "%s(", name);
  append_sorted (out, args, ", ");
  g_string_append_c (out, ')');
}

static void
print_call_ordered (GString *out, const char *name, const msperf_expr *e)
{
  g_string_append_printf (out, "%s(%s, %s)", name, msperf_expr_str (e->args[0]),
                          msperf_expr_str (e->args[1]));
}

/* Max(Max(a, b), c): more than two arguments nest to the left. */
static void
print_minmax (GString *out, const char *name, const msperf_expr *e)
{
  GString *acc = g_string_new (NULL);

  g_string_printf (acc, "%s(%s, %s)", name, msperf_expr_str (e->args[0]),
                   msperf_expr_str (e->args[1]));
  for (size_t i = 2; i < e->n; i++)
    {
      char *prev = g_strdup (acc->str);
      g_string_printf (acc, "%s(%s, %s)", name, prev, msperf_expr_str (e->args[i]));
      g_free (prev);
    }
  g_string_append (out, acc->str);
  g_string_free (acc, TRUE);
}

static void
print_ternary (GString *out, const msperf_expr *e)
{
  const char *l = msperf_expr_str (e->args[0]), *r = msperf_expr_str (e->args[1]);
  static const char *const ops[] = {
    [MSPERF_COND_LT] = "<", [MSPERF_COND_GT] = ">", [MSPERF_COND_LE] = "<=",
    [MSPERF_COND_GE] = ">=",
  };

  g_string_append (out, "TernaryOp(");
  if (e->cond == MSPERF_COND_EQ)
    g_string_append_printf (out, "IsEqual(%s, %s)", l, r);
  else
    g_string_append_printf (out, "%s %s %s", l, ops[e->cond], r);
  g_string_append_printf (out, ", %s, %s)", msperf_expr_str (e->args[2]),
                          msperf_expr_str (e->args[3]));
}

const char *
msperf_expr_str (const msperf_expr *e)
{
  GString *out;
  char *s;

  if (e == NULL)
    return "";  /* upstream prints an invalid expression as "" */
  if (e->str != NULL)
    return e->str;
  out = g_string_new (NULL);
  switch (e->kind)
    {
    case MSPERF_EXPR_INTEGER:
    case MSPERF_EXPR_RATIONAL:
    case MSPERF_EXPR_DOUBLE:
      msperf_num_print (out, e->v);
      break;
    case MSPERF_EXPR_SYMBOL:
      g_string_append (out, e->name);
      break;
    case MSPERF_EXPR_ADD:
      print_add (out, e);
      break;
    case MSPERF_EXPR_MUL:
      print_mul (out, e);
      break;
    case MSPERF_EXPR_POW:
      if (msperf_expr_is_number (e->args[1]))
        {
          s = pow_str (e->args[0], e->args[1]->v);
          g_string_append (out, s);
          g_free (s);
        }
      else
        print_call_ordered (out, "Pow", e);
      break;
    case MSPERF_EXPR_CEIL: print_call_sorted (out, "Ceiling", e); break;
    case MSPERF_EXPR_FLOOR: print_call_sorted (out, "Floor", e); break;
    case MSPERF_EXPR_ABS: print_call_sorted (out, "Abs", e); break;
    case MSPERF_EXPR_MOD: print_call_ordered (out, "Mod", e); break;
    case MSPERF_EXPR_MAX: print_minmax (out, "Max", e); break;
    case MSPERF_EXPR_MIN: print_minmax (out, "Min", e); break;
    case MSPERF_EXPR_EQ: print_call_sorted (out, "ExpectEq", e); break;
    case MSPERF_EXPR_NE: print_call_sorted (out, "ExpectNe", e); break;
    case MSPERF_EXPR_LT: print_call_ordered (out, "ExpectLt", e); break;
    case MSPERF_EXPR_LE: print_call_ordered (out, "ExpectLe", e); break;
    case MSPERF_EXPR_TERNARY: print_ternary (out, e); break;
    default: break;
    }
  /* The cache is the one mutation of a node: it never changes what the node means. */
  ((msperf_expr *) e)->str = g_string_free (out, FALSE);
  return e->str;
}

char *
msperf_expr_str_inlined (const msperf_expr *e, GError **error)
{
  msperf_expr *r;

  g_return_val_if_fail (e != NULL, NULL);
  r = msperf_expr_inline (e, error);
  return r != NULL ? g_strdup (msperf_expr_str (r)) : NULL;
}
