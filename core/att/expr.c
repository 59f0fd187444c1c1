/* msperf — symbolic expressions: exact numbers, canonical construction, named variables,
 * substitution and evaluation (reference att-model.md §2.1, §2.4, §2.5). Printing is in
 * expr_print.c. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "att/expr_private.h"

struct msperf_expr_ctx {
  GPtrArray *nodes;      /* msperf_expr*, owned: the arena */
  GPtrArray *var_names;  /* char*, owned, in definition order */
  GPtrArray *var_defs;   /* const msperf_expr*, borrowed from nodes */
  GPtrArray *var_descs;  /* char* or NULL, owned */
};

/* ------------------------------------------------------------------ exact numbers */

msperf_num
msperf_num_int (int64_t n)
{
  msperf_num v = { NUM_INT, n, 1, 0.0 };
  return v;
}

static msperf_num
num_dbl (double f)
{
  msperf_num v = { NUM_DBL, 0, 1, f };
  return v;
}

double
msperf_num_to_double (msperf_num a)
{
  if (a.k == NUM_DBL)
    return a.f;
  if (a.k == NUM_RAT)
    return (double) a.n / (double) a.d;
  return (double) a.n;
}

static int64_t
gcd64 (int64_t a, int64_t b)
{
  if (a < 0)
    a = -a;
  if (b < 0)
    b = -b;
  while (b != 0)
    {
      int64_t t = a % b;
      a = b;
      b = t;
    }
  return a;
}

/* n/d reduced with d > 0; a double when the sign flip would overflow. */
static msperf_num
num_rat (int64_t n, int64_t d)
{
  msperf_num v = { NUM_RAT, 0, 1, 0.0 };
  int64_t g;

  if (n == INT64_MIN || d == INT64_MIN)
    return num_dbl ((double) n / (double) d);
  if (d < 0)
    {
      n = -n;
      d = -d;
    }
  g = gcd64 (n, d);
  if (g > 1)
    {
      n /= g;
      d /= g;
    }
  if (d == 1)
    return msperf_num_int (n);
  v.n = n;
  v.d = d;
  return v;
}

static gboolean
num_is_zero (msperf_num a)
{
  return a.k == NUM_DBL ? a.f == 0.0 : a.n == 0;
}

gboolean
msperf_num_is_one (msperf_num a)
{
  return a.k == NUM_INT && a.n == 1;
}

gboolean
msperf_num_is_negative (msperf_num a)
{
  return a.k == NUM_DBL ? a.f < 0.0 : a.n < 0;
}

static gboolean
num_is_integer (msperf_num a)
{
  return a.k == NUM_INT;
}

static msperf_num
num_add (msperf_num a, msperf_num b)
{
  int64_t x, y, n, d;

  if (a.k == NUM_DBL || b.k == NUM_DBL)
    return num_dbl (msperf_num_to_double (a) + msperf_num_to_double (b));
  if (__builtin_mul_overflow (a.n, b.d, &x) || __builtin_mul_overflow (b.n, a.d, &y)
      || __builtin_add_overflow (x, y, &n) || __builtin_mul_overflow (a.d, b.d, &d))
    return num_dbl (msperf_num_to_double (a) + msperf_num_to_double (b));
  return num_rat (n, d);
}

msperf_num
msperf_num_mul (msperf_num a, msperf_num b)
{
  int64_t n, d;

  if (a.k == NUM_DBL || b.k == NUM_DBL)
    return num_dbl (msperf_num_to_double (a) * msperf_num_to_double (b));
  if (__builtin_mul_overflow (a.n, b.n, &n) || __builtin_mul_overflow (a.d, b.d, &d))
    return num_dbl (msperf_num_to_double (a) * msperf_num_to_double (b));
  return num_rat (n, d);
}

static msperf_num
num_neg (msperf_num a)
{
  return msperf_num_mul (a, msperf_num_int (-1));
}

/* 1/a; FALSE for zero. */
static gboolean
num_inv (msperf_num a, msperf_num *out)
{
  if (num_is_zero (a))
    return FALSE;
  if (a.k == NUM_DBL)
    *out = num_dbl (1.0 / a.f);
  else
    *out = num_rat (a.d, a.n);
  return TRUE;
}

/* <0, 0, >0 as a compares to b. */
static int
num_cmp (msperf_num a, msperf_num b)
{
  msperf_num diff = num_add (a, num_neg (b));

  if (diff.k == NUM_DBL)
    return diff.f < 0.0 ? -1 : diff.f > 0.0 ? 1 : 0;
  return diff.n < 0 ? -1 : diff.n > 0 ? 1 : 0;
}

/* a^k for an integer k; FALSE for 0 to a negative power. */
static gboolean
num_pow_int (msperf_num a, int64_t k, msperf_num *out)
{
  msperf_num result = msperf_num_int (1);
  msperf_num base = a;

  if (k < 0)
    {
      if (!num_inv (a, &base))
        return FALSE;
      k = k == INT64_MIN ? INT64_MAX : -k;
    }
  if (base.k == NUM_DBL)
    {
      *out = num_dbl (pow (base.f, (double) k));
      return TRUE;
    }
  while (k > 0)
    {
      if (k & 1)
        result = msperf_num_mul (result, base);
      k >>= 1;
      if (k > 0)
        base = msperf_num_mul (base, base);
    }
  *out = result;
  return TRUE;
}

static msperf_num
num_from_double_integral (double f)
{
  if (f >= -9.2e18 && f <= 9.2e18)
    return msperf_num_int ((int64_t) f);
  return num_dbl (f);
}

static msperf_num
num_floor (msperf_num a)
{
  if (a.k == NUM_DBL)
    return num_from_double_integral (floor (a.f));
  if (a.k == NUM_RAT)
    return msperf_num_int (a.n / a.d - (a.n % a.d != 0 && a.n < 0 ? 1 : 0));
  return a;
}

static msperf_num
num_ceil (msperf_num a)
{
  if (a.k == NUM_DBL)
    return num_from_double_integral (ceil (a.f));
  if (a.k == NUM_RAT)
    return msperf_num_int (a.n / a.d + (a.n % a.d != 0 && a.n > 0 ? 1 : 0));
  return a;
}

/* Floored remainder a − b·⌊a/b⌋ (b != 0). */
static msperf_num
num_mod (msperf_num a, msperf_num b)
{
  msperf_num inv, q;

  if (a.k == NUM_DBL || b.k == NUM_DBL)
    {
      double x = msperf_num_to_double (a), y = msperf_num_to_double (b);
      return num_dbl (x - y * floor (x / y));
    }
  if (!num_inv (b, &inv))
    return num_dbl (NAN);
  q = num_floor (msperf_num_mul (a, inv));
  return num_add (a, num_neg (msperf_num_mul (b, q)));
}

/* ------------------------------------------------------------------ context and nodes */

static void
node_free (gpointer p)
{
  msperf_expr *e = p;

  g_free (e->name);
  g_free (e->args);
  g_free (e->nums);
  g_free (e->str);
  g_free (e);
}

msperf_expr_ctx *
msperf_expr_ctx_new (void)
{
  msperf_expr_ctx *ctx = g_new0 (msperf_expr_ctx, 1);

  ctx->nodes = g_ptr_array_new_with_free_func (node_free);
  ctx->var_names = g_ptr_array_new_with_free_func (g_free);
  ctx->var_defs = g_ptr_array_new ();
  ctx->var_descs = g_ptr_array_new_with_free_func (g_free);
  return ctx;
}

void
msperf_expr_ctx_free (msperf_expr_ctx *ctx)
{
  if (ctx == NULL)
    return;
  g_ptr_array_unref (ctx->nodes);
  g_ptr_array_unref (ctx->var_names);
  g_ptr_array_unref (ctx->var_defs);
  g_ptr_array_unref (ctx->var_descs);
  g_free (ctx);
}

static msperf_expr *
node_new (msperf_expr_ctx *ctx, msperf_expr_kind kind, size_t n)
{
  msperf_expr *e = g_new0 (msperf_expr, 1);

  e->kind = kind;
  e->ctx = ctx;
  e->n = n;
  if (n > 0)
    e->args = g_new0 (msperf_expr *, n);
  g_ptr_array_add (ctx->nodes, e);
  return e;
}

static msperf_expr *
node_op (msperf_expr_kind kind, const msperf_expr *a, const msperf_expr *b)
{
  msperf_expr *e = node_new (a->ctx, kind, b != NULL ? 2 : 1);

  e->args[0] = (msperf_expr *) a;
  if (b != NULL)
    e->args[1] = (msperf_expr *) b;
  return e;
}

msperf_expr *
msperf_expr_from_num (msperf_expr_ctx *ctx, msperf_num v)
{
  msperf_expr *e = node_new (ctx, v.k == NUM_INT ? MSPERF_EXPR_INTEGER
                                  : v.k == NUM_RAT ? MSPERF_EXPR_RATIONAL
                                                   : MSPERF_EXPR_DOUBLE, 0);
  e->v = v;
  return e;
}

msperf_expr *
msperf_expr_int (msperf_expr_ctx *ctx, int64_t value)
{
  g_return_val_if_fail (ctx != NULL, NULL);
  return msperf_expr_from_num (ctx, msperf_num_int (value));
}

msperf_expr *
msperf_expr_rational (msperf_expr_ctx *ctx, int64_t n, int64_t d)
{
  g_return_val_if_fail (ctx != NULL && d != 0, NULL);
  return msperf_expr_from_num (ctx, num_rat (n, d));
}

msperf_expr *
msperf_expr_double (msperf_expr_ctx *ctx, double value)
{
  g_return_val_if_fail (ctx != NULL, NULL);
  return msperf_expr_from_num (ctx, num_dbl (value));
}

gboolean
msperf_expr_is_identifier (const char *name)
{
  if (name == NULL || !(g_ascii_isalpha (*name) || *name == '_'))
    return FALSE;
  for (const char *p = name + 1; *p != '\0'; p++)
    if (!(g_ascii_isalnum (*p) || *p == '_'))
      return FALSE;
  return TRUE;
}

msperf_expr *
msperf_expr_symbol (msperf_expr_ctx *ctx, const char *name)
{
  msperf_expr *e;

  g_return_val_if_fail (ctx != NULL, NULL);
  if (!msperf_expr_is_identifier (name))
    return NULL;
  e = node_new (ctx, MSPERF_EXPR_SYMBOL, 0);
  e->name = g_strdup (name);
  return e;
}

msperf_expr_kind
msperf_expr_get_kind (const msperf_expr *e)
{
  return e->kind;
}

msperf_expr_ctx *
msperf_expr_get_ctx (const msperf_expr *e)
{
  return e->ctx;
}

gboolean
msperf_expr_is_number (const msperf_expr *e)
{
  return e != NULL && (e->kind == MSPERF_EXPR_INTEGER || e->kind == MSPERF_EXPR_RATIONAL
                       || e->kind == MSPERF_EXPR_DOUBLE);
}

gboolean
msperf_expr_get_int (const msperf_expr *e, int64_t *out)
{
  if (e == NULL || e->kind != MSPERF_EXPR_INTEGER)
    return FALSE;
  *out = e->v.n;
  return TRUE;
}

gboolean
msperf_expr_get_double (const msperf_expr *e, double *out)
{
  if (!msperf_expr_is_number (e))
    return FALSE;
  *out = msperf_num_to_double (e->v);
  return TRUE;
}

gboolean
msperf_expr_equal (const msperf_expr *a, const msperf_expr *b)
{
  /* The printed form is a canonical key: equal canonical forms print alike and printing
   * sorts every commutative argument list. */
  return strcmp (msperf_expr_str (a), msperf_expr_str (b)) == 0;
}

const char *
msperf_expr_symbol_name (const msperf_expr *e)
{
  return e != NULL && e->kind == MSPERF_EXPR_SYMBOL ? e->name : NULL;
}

/* ------------------------------------------------------------------ products */

typedef struct {
  msperf_num coef;
  GPtrArray *bases;   /* msperf_expr* */
  GArray *exps;       /* msperf_num */
} mul_acc;

static void
mul_acc_init (mul_acc *m)
{
  m->coef = msperf_num_int (1);
  m->bases = g_ptr_array_new ();
  m->exps = g_array_new (FALSE, FALSE, sizeof (msperf_num));
}

static void
mul_acc_clear (mul_acc *m)
{
  g_ptr_array_unref (m->bases);
  g_array_unref (m->exps);
}

static void
mul_acc_factor (mul_acc *m, msperf_expr *base, msperf_num exp)
{
  const char *key = msperf_expr_str (base);

  for (guint i = 0; i < m->bases->len; i++)
    if (strcmp (msperf_expr_str (g_ptr_array_index (m->bases, i)), key) == 0)
      {
        msperf_num *e = &g_array_index (m->exps, msperf_num, i);
        *e = num_add (*e, exp);
        return;
      }
  g_ptr_array_add (m->bases, base);
  g_array_append_val (m->exps, exp);
}

static void
mul_acc_item (mul_acc *m, const msperf_expr *item)
{
  if (msperf_expr_is_number (item))
    m->coef = msperf_num_mul (m->coef, item->v);
  else if (item->kind == MSPERF_EXPR_MUL)
    {
      m->coef = msperf_num_mul (m->coef, item->v);
      for (size_t i = 0; i < item->n; i++)
        mul_acc_factor (m, item->args[i], item->nums[i]);
    }
  else if (item->kind == MSPERF_EXPR_POW && msperf_expr_is_number (item->args[1]))
    mul_acc_factor (m, item->args[0], item->args[1]->v);
  else
    mul_acc_factor (m, (msperf_expr *) item, msperf_num_int (1));
}

static int
cmp_by_str (const void *a, const void *b)
{
  const msperf_expr *x = *(msperf_expr *const *) a, *y = *(msperf_expr *const *) b;
  return strcmp (msperf_expr_str (x), msperf_expr_str (y));
}

msperf_expr *
msperf_expr_mul_factors (msperf_expr_ctx *ctx, msperf_num coef, msperf_expr *const *bases,
                         const msperf_num *exps, size_t n)
{
  size_t kept = 0;
  msperf_expr *e;

  for (size_t i = 0; i < n; i++)
    if (!num_is_zero (exps[i]))
      kept++;
  if (num_is_zero (coef))
    return msperf_expr_from_num (ctx, coef);
  if (kept == 0)
    return msperf_expr_from_num (ctx, coef);
  if (kept == 1 && msperf_num_is_one (coef))
    for (size_t i = 0; i < n; i++)
      if (!num_is_zero (exps[i]))
        {
          if (msperf_num_is_one (exps[i]))
            return bases[i];
          e = node_new (ctx, MSPERF_EXPR_POW, 2);
          e->args[0] = bases[i];
          e->args[1] = msperf_expr_from_num (ctx, exps[i]);
          return e;
        }
  e = node_new (ctx, MSPERF_EXPR_MUL, kept);
  e->v = coef;
  e->nums = g_new0 (msperf_num, kept);
  kept = 0;
  for (size_t i = 0; i < n; i++)
    if (!num_is_zero (exps[i]))
      e->args[kept++] = bases[i];
  /* Sort the bases by printed form and carry the exponents along. */
  {
    msperf_expr **sorted = g_memdup2 (e->args, kept * sizeof (msperf_expr *));
    qsort (sorted, kept, sizeof (msperf_expr *), cmp_by_str);
    for (size_t j = 0; j < kept; j++)
      for (size_t i = 0; i < n; i++)
        if (bases[i] == sorted[j] && !num_is_zero (exps[i]))
          {
            e->nums[j] = exps[i];
            break;
          }
    memcpy (e->args, sorted, kept * sizeof (msperf_expr *));
    g_free (sorted);
  }
  return e;
}

static msperf_expr *
mul_acc_finish (msperf_expr_ctx *ctx, mul_acc *m)
{
  msperf_expr *r = msperf_expr_mul_factors (ctx, m->coef, (msperf_expr *const *) m->bases->pdata,
                                            (const msperf_num *) (void *) m->exps->data,
                                            m->bases->len);
  mul_acc_clear (m);
  return r;
}

msperf_expr *
msperf_expr_mul_n (msperf_expr *const *args, size_t n)
{
  mul_acc m;

  g_return_val_if_fail (args != NULL && n >= 1, NULL);
  mul_acc_init (&m);
  for (size_t i = 0; i < n; i++)
    mul_acc_item (&m, args[i]);
  return mul_acc_finish (args[0]->ctx, &m);
}

msperf_expr *
msperf_expr_mul (const msperf_expr *a, const msperf_expr *b)
{
  msperf_expr *args[2] = { (msperf_expr *) a, (msperf_expr *) b };

  g_return_val_if_fail (a != NULL && b != NULL && a->ctx == b->ctx, NULL);
  return msperf_expr_mul_n (args, 2);
}

static msperf_expr *
mul_num (const msperf_expr *a, msperf_num c)
{
  return msperf_expr_mul (a, msperf_expr_from_num (a->ctx, c));
}

msperf_expr *
msperf_expr_neg (const msperf_expr *a)
{
  g_return_val_if_fail (a != NULL, NULL);
  return mul_num (a, msperf_num_int (-1));
}

/* ------------------------------------------------------------------ sums */

typedef struct {
  msperf_num c;
  GPtrArray *terms;  /* msperf_expr* (coefficient-free) */
  GArray *coefs;     /* msperf_num */
} add_acc;

static void
add_acc_term (add_acc *s, msperf_expr *term, msperf_num coef)
{
  const char *key = msperf_expr_str (term);

  for (guint i = 0; i < s->terms->len; i++)
    if (strcmp (msperf_expr_str (g_ptr_array_index (s->terms, i)), key) == 0)
      {
        msperf_num *c = &g_array_index (s->coefs, msperf_num, i);
        *c = num_add (*c, coef);
        return;
      }
  g_ptr_array_add (s->terms, term);
  g_array_append_val (s->coefs, coef);
}

static void
add_acc_item (add_acc *s, const msperf_expr *item, msperf_num scale)
{
  if (msperf_expr_is_number (item))
    s->c = num_add (s->c, msperf_num_mul (item->v, scale));
  else if (item->kind == MSPERF_EXPR_ADD && msperf_num_is_one (scale))
    {
      /* Only a sum with coefficient 1 merges into the outer one: 2·(x + y) stays a product. */
      s->c = num_add (s->c, item->v);
      for (size_t i = 0; i < item->n; i++)
        add_acc_term (s, item->args[i], item->nums[i]);
    }
  else if (item->kind == MSPERF_EXPR_MUL && !msperf_num_is_one (item->v))
    add_acc_term (s, msperf_expr_mul_factors (item->ctx, msperf_num_int (1), item->args,
                                              item->nums, item->n),
                  msperf_num_mul (item->v, scale));
  else
    add_acc_term (s, (msperf_expr *) item, scale);
}

static msperf_expr *
add_acc_finish (msperf_expr_ctx *ctx, add_acc *s)
{
  size_t kept = 0;
  msperf_expr *e = NULL;

  for (guint i = 0; i < s->terms->len; i++)
    if (!num_is_zero (g_array_index (s->coefs, msperf_num, i)))
      kept++;
  if (kept == 0)
    e = msperf_expr_from_num (ctx, s->c);
  else if (kept == 1 && num_is_zero (s->c))
    {
      for (guint i = 0; i < s->terms->len; i++)
        if (!num_is_zero (g_array_index (s->coefs, msperf_num, i)))
          e = mul_num (g_ptr_array_index (s->terms, i), g_array_index (s->coefs, msperf_num, i));
    }
  else
    {
      msperf_expr **sorted = g_new0 (msperf_expr *, kept);
      size_t j = 0;

      for (guint i = 0; i < s->terms->len; i++)
        if (!num_is_zero (g_array_index (s->coefs, msperf_num, i)))
          sorted[j++] = g_ptr_array_index (s->terms, i);
      qsort (sorted, kept, sizeof (msperf_expr *), cmp_by_str);
      e = node_new (ctx, MSPERF_EXPR_ADD, kept);
      e->v = s->c;
      e->nums = g_new0 (msperf_num, kept);
      for (j = 0; j < kept; j++)
        {
          e->args[j] = sorted[j];
          for (guint i = 0; i < s->terms->len; i++)
            if (g_ptr_array_index (s->terms, i) == sorted[j])
              e->nums[j] = g_array_index (s->coefs, msperf_num, i);
        }
      g_free (sorted);
    }
  g_ptr_array_unref (s->terms);
  g_array_unref (s->coefs);
  return e;
}

static void
add_acc_init (add_acc *s)
{
  s->c = msperf_num_int (0);
  s->terms = g_ptr_array_new ();
  s->coefs = g_array_new (FALSE, FALSE, sizeof (msperf_num));
}

msperf_expr *
msperf_expr_add_n (msperf_expr *const *args, size_t n)
{
  add_acc s;

  g_return_val_if_fail (args != NULL && n >= 1, NULL);
  add_acc_init (&s);
  for (size_t i = 0; i < n; i++)
    add_acc_item (&s, args[i], msperf_num_int (1));
  return add_acc_finish (args[0]->ctx, &s);
}

msperf_expr *
msperf_expr_add (const msperf_expr *a, const msperf_expr *b)
{
  msperf_expr *args[2] = { (msperf_expr *) a, (msperf_expr *) b };

  g_return_val_if_fail (a != NULL && b != NULL && a->ctx == b->ctx, NULL);
  return msperf_expr_add_n (args, 2);
}

msperf_expr *
msperf_expr_sub (const msperf_expr *a, const msperf_expr *b)
{
  g_return_val_if_fail (a != NULL && b != NULL && a->ctx == b->ctx, NULL);
  return msperf_expr_add (a, msperf_expr_neg (b));
}

/* ------------------------------------------------------------------ powers and division */

msperf_expr *
msperf_expr_pow (const msperf_expr *a, const msperf_expr *b)
{
  msperf_expr_ctx *ctx;
  msperf_num r;

  g_return_val_if_fail (a != NULL && b != NULL && a->ctx == b->ctx, NULL);
  ctx = a->ctx;
  if (!msperf_expr_is_number (b))
    {
      if (msperf_expr_is_number (a) && msperf_num_is_one (a->v))
        return (msperf_expr *) a;
      return node_op (MSPERF_EXPR_POW, a, b);
    }
  if (num_is_zero (b->v))
    return msperf_expr_from_num (ctx, b->v.k == NUM_DBL ? num_dbl (1.0) : msperf_num_int (1));
  if (msperf_num_is_one (b->v))
    return (msperf_expr *) a;
  if (msperf_expr_is_number (a))
    {
      if (num_is_integer (b->v))
        {
          if (num_pow_int (a->v, b->v.n, &r))
            return msperf_expr_from_num (ctx, r);
          /* 0 to a negative power stays as a factor that evaluation reports. */
          return msperf_expr_mul_factors (ctx, msperf_num_int (1), (msperf_expr *const *) &a,
                                          &b->v, 1);
        }
      if (a->v.k == NUM_DBL || b->v.k == NUM_DBL)
        return msperf_expr_from_num (ctx, num_dbl (pow (msperf_num_to_double (a->v),
                                                        msperf_num_to_double (b->v))));
      return node_op (MSPERF_EXPR_POW, a, b);
    }
  if (a->kind == MSPERF_EXPR_MUL && num_is_integer (b->v))
    {
      msperf_num *exps = g_new0 (msperf_num, a->n);
      msperf_expr *e;

      if (!num_pow_int (a->v, b->v.n, &r))
        r = num_dbl (NAN);
      for (size_t i = 0; i < a->n; i++)
        exps[i] = msperf_num_mul (a->nums[i], b->v);
      e = msperf_expr_mul_factors (ctx, r, a->args, exps, a->n);
      g_free (exps);
      return e;
    }
  if (a->kind == MSPERF_EXPR_POW && msperf_expr_is_number (a->args[1]) && num_is_integer (b->v))
    {
      msperf_num e = msperf_num_mul (a->args[1]->v, b->v);
      return msperf_expr_mul_factors (ctx, msperf_num_int (1), &a->args[0], &e, 1);
    }
  return msperf_expr_mul_factors (ctx, msperf_num_int (1), (msperf_expr *const *) &a, &b->v, 1);
}

msperf_expr *
msperf_expr_pow_int (const msperf_expr *a, int64_t k)
{
  g_return_val_if_fail (a != NULL, NULL);
  return msperf_expr_pow (a, msperf_expr_int (a->ctx, k));
}

msperf_expr *
msperf_expr_div (const msperf_expr *a, const msperf_expr *b)
{
  g_return_val_if_fail (a != NULL && b != NULL && a->ctx == b->ctx, NULL);
  return msperf_expr_mul (a, msperf_expr_pow_int (b, -1));
}

msperf_expr *
msperf_expr_div_checked (const msperf_expr *a, const msperf_expr *b, GError **error)
{
  g_return_val_if_fail (a != NULL && b != NULL && a->ctx == b->ctx, NULL);
  if (msperf_expr_is_number (b) && num_is_zero (b->v))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "division by zero: %s / 0", msperf_expr_str (a));
      return NULL;
    }
  return msperf_expr_div (a, b);
}

/* ------------------------------------------------------------------ functions */

static gboolean
is_rounding (const msperf_expr *e)
{
  return e->kind == MSPERF_EXPR_CEIL || e->kind == MSPERF_EXPR_FLOOR;
}

static msperf_expr *
rounding (msperf_expr_kind kind, const msperf_expr *a)
{
  if (msperf_expr_is_number (a))
    return msperf_expr_from_num (a->ctx, kind == MSPERF_EXPR_CEIL ? num_ceil (a->v)
                                                                  : num_floor (a->v));
  /* Rounding an integer-valued rounding is a no-op. */
  if (is_rounding (a))
    return (msperf_expr *) a;
  /* An integer constant moves out: Ceiling(x + 3) = Ceiling(x) + 3 (as SymEngine does). */
  if (a->kind == MSPERF_EXPR_ADD && a->v.k == NUM_INT && a->v.n != 0)
    {
      msperf_expr *rest = msperf_expr_sub (a, msperf_expr_from_num (a->ctx, a->v));
      return msperf_expr_add (rounding (kind, rest), msperf_expr_from_num (a->ctx, a->v));
    }
  return node_op (kind, a, NULL);
}

msperf_expr *
msperf_expr_ceil (const msperf_expr *a)
{
  g_return_val_if_fail (a != NULL, NULL);
  return rounding (MSPERF_EXPR_CEIL, a);
}

msperf_expr *
msperf_expr_floor (const msperf_expr *a)
{
  g_return_val_if_fail (a != NULL, NULL);
  return rounding (MSPERF_EXPR_FLOOR, a);
}

msperf_expr *
msperf_expr_abs (const msperf_expr *a)
{
  g_return_val_if_fail (a != NULL, NULL);
  if (msperf_expr_is_number (a))
    return msperf_expr_from_num (a->ctx, msperf_num_is_negative (a->v) ? num_neg (a->v) : a->v);
  return node_op (MSPERF_EXPR_ABS, a, NULL);
}

msperf_expr *
msperf_expr_ceil_div (const msperf_expr *a, const msperf_expr *b)
{
  g_return_val_if_fail (a != NULL && b != NULL && a->ctx == b->ctx, NULL);
  return msperf_expr_ceil (msperf_expr_div (a, b));
}

msperf_expr *
msperf_expr_floor_div (const msperf_expr *a, const msperf_expr *b)
{
  g_return_val_if_fail (a != NULL && b != NULL && a->ctx == b->ctx, NULL);
  return msperf_expr_floor (msperf_expr_div (a, b));
}

msperf_expr *
msperf_expr_mod (const msperf_expr *a, const msperf_expr *b)
{
  g_return_val_if_fail (a != NULL && b != NULL && a->ctx == b->ctx, NULL);
  if (msperf_expr_is_number (a) && msperf_expr_is_number (b) && !num_is_zero (b->v))
    return msperf_expr_from_num (a->ctx, num_mod (a->v, b->v));
  return node_op (MSPERF_EXPR_MOD, a, b);
}

static void
minmax_collect (msperf_expr_kind kind, const msperf_expr *x, GPtrArray *args, int *num_pos,
                msperf_num *num)
{
  if (x->kind == kind)
    {
      for (size_t i = 0; i < x->n; i++)
        minmax_collect (kind, x->args[i], args, num_pos, num);
      return;
    }
  if (msperf_expr_is_number (x))
    {
      if (*num_pos < 0)
        {
          *num_pos = (int) args->len;
          *num = x->v;
          g_ptr_array_add (args, NULL);  /* the folded number's slot */
        }
      else
        {
          int c = num_cmp (x->v, *num);
          if ((kind == MSPERF_EXPR_MAX && c > 0) || (kind == MSPERF_EXPR_MIN && c < 0))
            *num = x->v;
        }
      return;
    }
  for (guint i = 0; i < args->len; i++)
    if (g_ptr_array_index (args, i) != NULL
        && msperf_expr_equal (g_ptr_array_index (args, i), x))
      return;
  g_ptr_array_add (args, (gpointer) x);
}

static msperf_expr *
minmax (msperf_expr_kind kind, const msperf_expr *a, const msperf_expr *b)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  int num_pos = -1;
  msperf_num num = msperf_num_int (0);
  msperf_expr *e;

  minmax_collect (kind, a, args, &num_pos, &num);
  minmax_collect (kind, b, args, &num_pos, &num);
  if (num_pos >= 0)
    args->pdata[num_pos] = msperf_expr_from_num (a->ctx, num);
  if (args->len == 1)
    return g_ptr_array_index (args, 0);
  e = node_new (a->ctx, kind, args->len);
  memcpy (e->args, args->pdata, args->len * sizeof (msperf_expr *));
  return e;
}

msperf_expr *
msperf_expr_max (const msperf_expr *a, const msperf_expr *b)
{
  g_return_val_if_fail (a != NULL && b != NULL && a->ctx == b->ctx, NULL);
  return minmax (MSPERF_EXPR_MAX, a, b);
}

msperf_expr *
msperf_expr_min (const msperf_expr *a, const msperf_expr *b)
{
  g_return_val_if_fail (a != NULL && b != NULL && a->ctx == b->ctx, NULL);
  return minmax (MSPERF_EXPR_MIN, a, b);
}

msperf_expr *
msperf_expr_cmp (msperf_cmp op, const msperf_expr *a, const msperf_expr *b)
{
  msperf_expr_kind kind;
  int c;

  g_return_val_if_fail (a != NULL && b != NULL && a->ctx == b->ctx, NULL);
  if (op == MSPERF_CMP_GT || op == MSPERF_CMP_GE)
    {
      const msperf_expr *t = a;
      a = b;
      b = t;
      op = op == MSPERF_CMP_GT ? MSPERF_CMP_LT : MSPERF_CMP_LE;
    }
  kind = op == MSPERF_CMP_EQ ? MSPERF_EXPR_EQ : op == MSPERF_CMP_NE ? MSPERF_EXPR_NE
         : op == MSPERF_CMP_LT ? MSPERF_EXPR_LT : MSPERF_EXPR_LE;
  if (msperf_expr_is_number (a) && msperf_expr_is_number (b))
    {
      gboolean t;
      c = num_cmp (a->v, b->v);
      t = kind == MSPERF_EXPR_EQ ? c == 0 : kind == MSPERF_EXPR_NE ? c != 0
          : kind == MSPERF_EXPR_LT ? c < 0 : c <= 0;
      return msperf_expr_int (a->ctx, t ? 1 : 0);
    }
  return node_op (kind, a, b);
}

msperf_expr *
msperf_expr_ternary (msperf_cond cond, const msperf_expr *left, const msperf_expr *right,
                     const msperf_expr *a, const msperf_expr *b)
{
  msperf_expr *e;

  g_return_val_if_fail (left != NULL && right != NULL && a != NULL && b != NULL, NULL);
  g_return_val_if_fail (left->ctx == right->ctx && left->ctx == a->ctx && a->ctx == b->ctx, NULL);
  e = node_new (left->ctx, MSPERF_EXPR_TERNARY, 4);
  e->cond = cond;
  e->args[0] = (msperf_expr *) left;
  e->args[1] = (msperf_expr *) right;
  e->args[2] = (msperf_expr *) a;
  e->args[3] = (msperf_expr *) b;
  return e;
}

/* ------------------------------------------------------------------ named variables */

static int
var_index (const msperf_expr_ctx *ctx, const char *name)
{
  for (guint i = 0; i < ctx->var_names->len; i++)
    if (strcmp (g_ptr_array_index (ctx->var_names, i), name) == 0)
      return (int) i;
  return -1;
}

msperf_expr *
msperf_expr_ctx_define (msperf_expr_ctx *ctx, const char *name, const msperf_expr *definition,
                        const char *description)
{
  int i;

  g_return_val_if_fail (ctx != NULL && definition != NULL && definition->ctx == ctx, NULL);
  if (!msperf_expr_is_identifier (name))
    return NULL;
  i = var_index (ctx, name);
  if (i >= 0)
    {
      ctx->var_defs->pdata[i] = (gpointer) definition;
      g_free (ctx->var_descs->pdata[i]);
      ctx->var_descs->pdata[i] = g_strdup (description);
    }
  else
    {
      g_ptr_array_add (ctx->var_names, g_strdup (name));
      g_ptr_array_add (ctx->var_defs, (gpointer) definition);
      g_ptr_array_add (ctx->var_descs, g_strdup (description));
    }
  return msperf_expr_symbol (ctx, name);
}

msperf_expr *
msperf_expr_ctx_define_fresh (msperf_expr_ctx *ctx, const char *prefix,
                              const msperf_expr *definition, const char *description)
{
  g_autofree char *name = g_strdup (prefix);

  g_return_val_if_fail (ctx != NULL && prefix != NULL, NULL);
  for (int k = 1; var_index (ctx, name) >= 0; k++)
    {
      g_free (name);
      name = g_strdup_printf ("%s%d", prefix, k);
    }
  return msperf_expr_ctx_define (ctx, name, definition, description);
}

size_t
msperf_expr_ctx_n_variables (const msperf_expr_ctx *ctx)
{
  return ctx->var_names->len;
}

void
msperf_expr_ctx_variable (const msperf_expr_ctx *ctx, size_t i, const char **name,
                          const msperf_expr **definition, const char **description)
{
  g_return_if_fail (i < ctx->var_names->len);
  if (name)
    *name = g_ptr_array_index (ctx->var_names, i);
  if (definition)
    *definition = g_ptr_array_index (ctx->var_defs, i);
  if (description)
    *description = g_ptr_array_index (ctx->var_descs, i);
}

const msperf_expr *
msperf_expr_ctx_lookup (const msperf_expr_ctx *ctx, const char *name)
{
  int i = var_index (ctx, name);
  return i >= 0 ? g_ptr_array_index (ctx->var_defs, i) : NULL;
}

/* ------------------------------------------------------------------ substitution */

/* Replacement of a symbol: NULL keeps it; *failed reports an error already set. */
typedef const msperf_expr *(*subst_fn) (void *data, const msperf_expr *sym, gboolean *failed,
                                        GError **error);

static msperf_expr *
rebuild (const msperf_expr *e, subst_fn fn, void *data, GError **error)
{
  msperf_expr_ctx *ctx = e->ctx;
  msperf_expr *a[4] = { NULL, NULL, NULL, NULL };
  gboolean failed = FALSE;

  switch (e->kind)
    {
    case MSPERF_EXPR_INTEGER:
    case MSPERF_EXPR_RATIONAL:
    case MSPERF_EXPR_DOUBLE:
      return (msperf_expr *) e;
    case MSPERF_EXPR_SYMBOL:
      {
        const msperf_expr *r = fn (data, e, &failed, error);
        if (failed)
          return NULL;
        return (msperf_expr *) (r != NULL ? r : e);
      }
    case MSPERF_EXPR_ADD:
      {
        add_acc s;
        add_acc_init (&s);
        s.c = e->v;
        for (size_t i = 0; i < e->n; i++)
          {
            msperf_expr *t = rebuild (e->args[i], fn, data, error);
            if (t == NULL)
              {
                g_ptr_array_unref (s.terms);
                g_array_unref (s.coefs);
                return NULL;
              }
            add_acc_item (&s, mul_num (t, e->nums[i]), msperf_num_int (1));
          }
        return add_acc_finish (ctx, &s);
      }
    case MSPERF_EXPR_MUL:
      {
        mul_acc m;
        mul_acc_init (&m);
        m.coef = e->v;
        for (size_t i = 0; i < e->n; i++)
          {
            msperf_expr *t = rebuild (e->args[i], fn, data, error);
            if (t == NULL)
              {
                mul_acc_clear (&m);
                return NULL;
              }
            mul_acc_item (&m, msperf_expr_pow (t, msperf_expr_from_num (ctx, e->nums[i])));
          }
        return mul_acc_finish (ctx, &m);
      }
    default:
      break;
    }
  for (size_t i = 0; i < e->n && i < 4; i++)
    if ((a[i] = rebuild (e->args[i], fn, data, error)) == NULL)
      return NULL;
  switch (e->kind)
    {
    case MSPERF_EXPR_POW: return msperf_expr_pow (a[0], a[1]);
    case MSPERF_EXPR_CEIL: return msperf_expr_ceil (a[0]);
    case MSPERF_EXPR_FLOOR: return msperf_expr_floor (a[0]);
    case MSPERF_EXPR_ABS: return msperf_expr_abs (a[0]);
    case MSPERF_EXPR_MOD: return msperf_expr_mod (a[0], a[1]);
    case MSPERF_EXPR_EQ: return msperf_expr_cmp (MSPERF_CMP_EQ, a[0], a[1]);
    case MSPERF_EXPR_NE: return msperf_expr_cmp (MSPERF_CMP_NE, a[0], a[1]);
    case MSPERF_EXPR_LT: return msperf_expr_cmp (MSPERF_CMP_LT, a[0], a[1]);
    case MSPERF_EXPR_LE: return msperf_expr_cmp (MSPERF_CMP_LE, a[0], a[1]);
    case MSPERF_EXPR_TERNARY: return msperf_expr_ternary (e->cond, a[0], a[1], a[2], a[3]);
    case MSPERF_EXPR_MAX:
    case MSPERF_EXPR_MIN:
      {
        msperf_expr *r = a[0];
        for (size_t i = 1; i < e->n; i++)
          {
            msperf_expr *x = i < 4 ? a[i] : rebuild (e->args[i], fn, data, error);
            if (x == NULL)
              return NULL;
            r = minmax (e->kind, r, x);
          }
        return r;
      }
    default:
      g_return_val_if_reached (NULL);
    }
}

static const msperf_expr *
subst_table (void *data, const msperf_expr *sym, gboolean *failed, GError **error)
{
  (void) failed;
  (void) error;
  return data != NULL ? g_hash_table_lookup (data, sym->name) : NULL;
}

msperf_expr *
msperf_expr_subs (const msperf_expr *e, GHashTable *bindings)
{
  g_return_val_if_fail (e != NULL, NULL);
  return rebuild (e, subst_table, bindings, NULL);
}

msperf_expr *
msperf_expr_subs1 (const msperf_expr *e, const char *name, const msperf_expr *value)
{
  g_autoptr (GHashTable) b = g_hash_table_new (g_str_hash, g_str_equal);
  msperf_expr *r;

  g_return_val_if_fail (e != NULL && name != NULL && value != NULL, NULL);
  g_hash_table_insert (b, (gpointer) name, (gpointer) value);
  r = msperf_expr_subs (e, b);
  return r;
}

/* The variables being expanded, to catch definitions that refer to themselves. */
typedef struct {
  GHashTable *active;
} inline_state;

static const msperf_expr *
subst_variable (void *data, const msperf_expr *sym, gboolean *failed, GError **error)
{
  inline_state *st = data;
  const msperf_expr *def = msperf_expr_ctx_lookup (sym->ctx, sym->name);
  msperf_expr *r;

  if (def == NULL)
    return NULL;
  if (g_hash_table_contains (st->active, sym->name))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "variable '%s' is defined in terms of itself", sym->name);
      *failed = TRUE;
      return NULL;
    }
  g_hash_table_add (st->active, sym->name);
  r = rebuild (def, subst_variable, st, error);
  g_hash_table_remove (st->active, sym->name);
  if (r == NULL)
    *failed = TRUE;
  return r;
}

msperf_expr *
msperf_expr_inline (const msperf_expr *e, GError **error)
{
  inline_state st;
  msperf_expr *r;

  g_return_val_if_fail (e != NULL, NULL);
  st.active = g_hash_table_new (g_str_hash, g_str_equal);
  r = rebuild (e, subst_variable, &st, error);
  g_hash_table_unref (st.active);
  return r;
}

static void
collect_symbols (const msperf_expr *e, gboolean through, GHashTable *out, GHashTable *seen)
{
  if (e->kind == MSPERF_EXPR_SYMBOL)
    {
      const msperf_expr *def = through ? msperf_expr_ctx_lookup (e->ctx, e->name) : NULL;
      if (def == NULL)
        g_hash_table_add (out, e->name);
      else if (!g_hash_table_contains (seen, e->name))
        {
          g_hash_table_add (seen, e->name);
          collect_symbols (def, through, out, seen);
        }
      return;
    }
  for (size_t i = 0; i < e->n; i++)
    collect_symbols (e->args[i], through, out, seen);
}

static int
cmp_names (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

char **
msperf_expr_free_symbols (const msperf_expr *e, gboolean through_variables)
{
  g_autoptr (GHashTable) out = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree gpointer *keys = NULL;
  guint n = 0;
  char **names;

  g_return_val_if_fail (e != NULL, NULL);
  collect_symbols (e, through_variables, out, seen);
  keys = g_hash_table_get_keys_as_array (out, &n);
  names = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    names[i] = g_strdup (keys[i]);
  qsort (names, n, sizeof (char *), cmp_names);
  return names;
}

/* ------------------------------------------------------------------ evaluation */

typedef struct {
  GHashTable *bindings;
  GHashTable *active;  /* variables being evaluated */
} eval_state;

static gboolean eval_num (const msperf_expr *e, eval_state *st, msperf_num *out,
                          GError **error);

static gboolean
div_zero (const msperf_expr *e, GError **error)
{
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "division by zero in '%s'",
               msperf_expr_str (e));
  return FALSE;
}

static gboolean
eval_pow (const msperf_expr *e, msperf_num base, msperf_num exp, msperf_num *out,
          GError **error)
{
  if (num_is_integer (exp))
    {
      if (!num_pow_int (base, exp.n, out))
        return div_zero (e, error);
      return TRUE;
    }
  if (num_is_zero (base) && msperf_num_is_negative (exp))
    return div_zero (e, error);
  *out = num_dbl (pow (msperf_num_to_double (base), msperf_num_to_double (exp)));
  return TRUE;
}

static gboolean
eval_symbol (const msperf_expr *e, eval_state *st, msperf_num *out, GError **error)
{
  const msperf_expr *v = st->bindings ? g_hash_table_lookup (st->bindings, e->name) : NULL;
  gboolean ok;

  if (v != NULL)
    return eval_num (v, st, out, error);
  v = msperf_expr_ctx_lookup (e->ctx, e->name);
  if (v == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_UNBOUND, "unbound symbol '%s'",
                   e->name);
      return FALSE;
    }
  if (g_hash_table_contains (st->active, e->name))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "variable '%s' is defined in terms of itself", e->name);
      return FALSE;
    }
  g_hash_table_add (st->active, e->name);
  ok = eval_num (v, st, out, error);
  g_hash_table_remove (st->active, e->name);
  return ok;
}

static gboolean
cond_holds (msperf_cond cond, msperf_num l, msperf_num r)
{
  int c = num_cmp (l, r);

  switch (cond)
    {
    case MSPERF_COND_EQ:
      /* The generated tiling code's IsEqual: |a − b| < 1e-8 (exact for exact numbers). */
      if (l.k == NUM_DBL || r.k == NUM_DBL)
        return fabs (msperf_num_to_double (l) - msperf_num_to_double (r)) < 1e-8;
      return c == 0;
    case MSPERF_COND_LT: return c < 0;
    case MSPERF_COND_GT: return c > 0;
    case MSPERF_COND_LE: return c <= 0;
    case MSPERF_COND_GE: return c >= 0;
    default: return FALSE;
    }
}

static gboolean
eval_num (const msperf_expr *e, eval_state *st, msperf_num *out, GError **error)
{
  msperf_num x, y, acc;

  switch (e->kind)
    {
    case MSPERF_EXPR_INTEGER:
    case MSPERF_EXPR_RATIONAL:
    case MSPERF_EXPR_DOUBLE:
      *out = e->v;
      return TRUE;
    case MSPERF_EXPR_SYMBOL:
      return eval_symbol (e, st, out, error);
    case MSPERF_EXPR_ADD:
      acc = e->v;
      for (size_t i = 0; i < e->n; i++)
        {
          if (!eval_num (e->args[i], st, &x, error))
            return FALSE;
          acc = num_add (acc, msperf_num_mul (e->nums[i], x));
        }
      *out = acc;
      return TRUE;
    case MSPERF_EXPR_MUL:
      acc = e->v;
      for (size_t i = 0; i < e->n; i++)
        {
          if (!eval_num (e->args[i], st, &x, error) || !eval_pow (e, x, e->nums[i], &y, error))
            return FALSE;
          acc = msperf_num_mul (acc, y);
        }
      *out = acc;
      return TRUE;
    case MSPERF_EXPR_POW:
      if (!eval_num (e->args[0], st, &x, error) || !eval_num (e->args[1], st, &y, error))
        return FALSE;
      return eval_pow (e, x, y, out, error);
    case MSPERF_EXPR_CEIL:
    case MSPERF_EXPR_FLOOR:
    case MSPERF_EXPR_ABS:
      if (!eval_num (e->args[0], st, &x, error))
        return FALSE;
      *out = e->kind == MSPERF_EXPR_CEIL ? num_ceil (x) : e->kind == MSPERF_EXPR_FLOOR
             ? num_floor (x) : (msperf_num_is_negative (x) ? num_neg (x) : x);
      return TRUE;
    case MSPERF_EXPR_MOD:
      if (!eval_num (e->args[0], st, &x, error) || !eval_num (e->args[1], st, &y, error))
        return FALSE;
      if (num_is_zero (y))
        return div_zero (e, error);
      *out = num_mod (x, y);
      return TRUE;
    case MSPERF_EXPR_MAX:
    case MSPERF_EXPR_MIN:
      for (size_t i = 0; i < e->n; i++)
        {
          if (!eval_num (e->args[i], st, &x, error))
            return FALSE;
          if (i == 0 || (e->kind == MSPERF_EXPR_MAX ? num_cmp (x, acc) > 0
                                                    : num_cmp (x, acc) < 0))
            acc = x;
        }
      *out = acc;
      return TRUE;
    case MSPERF_EXPR_EQ:
    case MSPERF_EXPR_NE:
    case MSPERF_EXPR_LT:
    case MSPERF_EXPR_LE:
      {
        int c;
        gboolean t;
        if (!eval_num (e->args[0], st, &x, error) || !eval_num (e->args[1], st, &y, error))
          return FALSE;
        c = num_cmp (x, y);
        t = e->kind == MSPERF_EXPR_EQ ? c == 0 : e->kind == MSPERF_EXPR_NE ? c != 0
            : e->kind == MSPERF_EXPR_LT ? c < 0 : c <= 0;
        *out = msperf_num_int (t ? 1 : 0);
        return TRUE;
      }
    case MSPERF_EXPR_TERNARY:
      if (!eval_num (e->args[0], st, &x, error) || !eval_num (e->args[1], st, &y, error))
        return FALSE;
      /* Only the branch taken is evaluated: the other may divide by zero legitimately. */
      return eval_num (e->args[cond_holds (e->cond, x, y) ? 2 : 3], st, out, error);
    default:
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "cannot evaluate expression kind %d", (int) e->kind);
      return FALSE;
    }
}

msperf_expr *
msperf_expr_evaluate (const msperf_expr *e, GHashTable *bindings, GError **error)
{
  eval_state st;
  msperf_num v;
  gboolean ok;

  g_return_val_if_fail (e != NULL, NULL);
  st.bindings = bindings;
  st.active = g_hash_table_new (g_str_hash, g_str_equal);
  ok = eval_num (e, &st, &v, error);
  g_hash_table_unref (st.active);
  return ok ? msperf_expr_from_num (e->ctx, v) : NULL;
}

gboolean
msperf_expr_eval (const msperf_expr *e, GHashTable *bindings, double *out, GError **error)
{
  msperf_expr *v = msperf_expr_evaluate (e, bindings, error);

  if (v == NULL)
    return FALSE;
  *out = msperf_num_to_double (v->v);
  return TRUE;
}
