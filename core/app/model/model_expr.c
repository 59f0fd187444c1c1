/* msperf — template expressions: recursive-descent parser to a tree, tree-walking evaluator.
 * Depth and length are bounded so a bad template cannot exhaust the stack. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/error.h>
#include "app/model/model_expr.h"

#define MAX_DEPTH 48
#define MAX_TEXT 4096

struct msperf_msyms {
  GHashTable *index;   /* name -> slot + 1 */
  GPtrArray *names;
};

msperf_msyms *
msperf_msyms_new (void)
{
  msperf_msyms *s = g_new0 (msperf_msyms, 1);

  s->index = g_hash_table_new (g_str_hash, g_str_equal);
  s->names = g_ptr_array_new_with_free_func (g_free);
  return s;
}

void
msperf_msyms_free (msperf_msyms *s)
{
  if (s == NULL)
    return;
  g_hash_table_destroy (s->index);
  g_ptr_array_free (s->names, TRUE);
  g_free (s);
}

guint
msperf_msyms_slot (msperf_msyms *s, const char *name)
{
  gpointer v = g_hash_table_lookup (s->index, name);
  char *copy;

  if (v)
    return GPOINTER_TO_UINT (v) - 1;
  copy = g_strdup (name);
  g_ptr_array_add (s->names, copy);
  g_hash_table_insert (s->index, copy, GUINT_TO_POINTER (s->names->len));
  return s->names->len - 1;
}

int
msperf_msyms_find (const msperf_msyms *s, const char *name)
{
  gpointer v = g_hash_table_lookup (s->index, name);

  return v ? (int) GPOINTER_TO_UINT (v) - 1 : -1;
}

guint
msperf_msyms_count (const msperf_msyms *s)
{
  return s->names->len;
}

const char *
msperf_msyms_name (const msperf_msyms *s, guint slot)
{
  return slot < s->names->len ? g_ptr_array_index (s->names, slot) : "?";
}

typedef enum {
  N_NUM, N_VAR, N_NEG, N_NOT, N_ADD, N_SUB, N_MUL, N_DIV, N_IDIV, N_MOD, N_LT, N_LE, N_GT, N_GE,
  N_EQ, N_NE, N_AND, N_OR, N_COND, N_MIN, N_MAX, N_CEIL, N_FLOOR, N_CDIV, N_ABS
} node_kind;

typedef struct node node;
struct node {
  node_kind kind;
  double num;
  guint slot;
  node *a, *b, *c;
};

struct msperf_mexpr {
  node *root;
  char *text;
  char *where;
  const msperf_msyms *syms;
};

static void
node_free (node *n)
{
  if (n == NULL)
    return;
  node_free (n->a);
  node_free (n->b);
  node_free (n->c);
  g_free (n);
}

static node *
node_new (node_kind kind, node *a, node *b, node *c)
{
  node *n = g_new0 (node, 1);

  n->kind = kind;
  n->a = a;
  n->b = b;
  n->c = c;
  return n;
}

typedef struct {
  const char *s;
  size_t pos;
  int depth;
  msperf_msyms *syms;
  const char *where;
  GError **error;
} parser;

static node *
perr (parser *p, const char *what)
{
  if (p->error && *p->error == NULL)
    g_set_error (p->error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                 "%s: bad expression '%s': %s at column %zu", p->where, p->s, what, p->pos + 1);
  return NULL;
}

static void
skip_ws (parser *p)
{
  while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t')
    p->pos++;
}

/* Consumes tok when it comes next. */
static gboolean
accept (parser *p, const char *tok)
{
  size_t n = strlen (tok);

  skip_ws (p);
  if (strncmp (p->s + p->pos, tok, n) != 0)
    return FALSE;
  /* "/" must not eat the first half of "//", "<" not of "<=" and so on. */
  if (n == 1 && (tok[0] == '/' || tok[0] == '<' || tok[0] == '>' || tok[0] == '!')
      && (p->s[p->pos + 1] == '=' || (tok[0] == '/' && p->s[p->pos + 1] == '/')))
    return FALSE;
  p->pos += n;
  return TRUE;
}

static node *parse_cond (parser *p);

typedef struct {
  const char *name;
  node_kind kind;
  int arity;
} func_def;

static const func_def funcs[] = {
  { "min", N_MIN, 2 }, { "max", N_MAX, 2 }, { "ceil", N_CEIL, 1 }, { "floor", N_FLOOR, 1 },
  { "cdiv", N_CDIV, 2 }, { "abs", N_ABS, 1 },
};

static node *
parse_call (parser *p, const func_def *f)
{
  node *args[2] = { NULL, NULL };

  for (int i = 0; i < f->arity; i++)
    {
      if (i > 0 && !accept (p, ","))
        goto bad;
      if ((args[i] = parse_cond (p)) == NULL)
        goto bad;
    }
  if (!accept (p, ")"))
    goto bad;
  return node_new (f->kind, args[0], args[1], NULL);
bad:
  node_free (args[0]);
  node_free (args[1]);
  return perr (p, "bad function arguments");
}

static node *
parse_name (parser *p)
{
  size_t start = p->pos;
  g_autofree char *name = NULL;
  node *n;

  while (g_ascii_isalnum (p->s[p->pos]) || p->s[p->pos] == '_')
    p->pos++;
  name = g_strndup (p->s + start, p->pos - start);
  if (accept (p, "("))
    {
      for (size_t i = 0; i < G_N_ELEMENTS (funcs); i++)
        if (strcmp (funcs[i].name, name) == 0)
          return parse_call (p, &funcs[i]);
      return perr (p, "unknown function");
    }
  n = node_new (N_VAR, NULL, NULL, NULL);
  n->slot = msperf_msyms_slot (p->syms, name);
  return n;
}

static node *
parse_primary (parser *p)
{
  node *n;
  char *end;

  skip_ws (p);
  if (accept (p, "("))
    {
      n = parse_cond (p);
      if (n && !accept (p, ")"))
        {
          node_free (n);
          return perr (p, "missing ')'");
        }
      return n;
    }
  if (g_ascii_isdigit (p->s[p->pos]) || p->s[p->pos] == '.')
    {
      n = node_new (N_NUM, NULL, NULL, NULL);
      n->num = g_ascii_strtod (p->s + p->pos, &end);
      p->pos = (size_t) (end - p->s);
      return n;
    }
  if (g_ascii_isalpha (p->s[p->pos]) || p->s[p->pos] == '_')
    return parse_name (p);
  return perr (p, p->s[p->pos] ? "unexpected character" : "unexpected end");
}

static node *
parse_unary (parser *p)
{
  node *a;

  if (++p->depth > MAX_DEPTH)
    return perr (p, "nested too deeply");
  if (accept (p, "-"))
    a = (a = parse_unary (p)) ? node_new (N_NEG, a, NULL, NULL) : NULL;
  else if (accept (p, "!"))
    a = (a = parse_unary (p)) ? node_new (N_NOT, a, NULL, NULL) : NULL;
  else
    a = parse_primary (p);
  p->depth--;
  return a;
}

typedef struct {
  const char *tok;
  node_kind kind;
} binop;

/* One precedence level: left-associative ops, operands from next. */
static node *
parse_level (parser *p, const binop *ops, size_t n_ops, node *(*next) (parser *))
{
  node *a = next (p);

  while (a)
    {
      size_t i;
      node *b;

      for (i = 0; i < n_ops && !accept (p, ops[i].tok); i++)
        ;
      if (i == n_ops)
        break;
      if ((b = next (p)) == NULL)
        {
          node_free (a);
          return NULL;
        }
      a = node_new (ops[i].kind, a, b, NULL);
    }
  return a;
}

static node *
parse_mul (parser *p)
{
  static const binop ops[] = { { "//", N_IDIV }, { "*", N_MUL }, { "/", N_DIV }, { "%", N_MOD } };
  return parse_level (p, ops, G_N_ELEMENTS (ops), parse_unary);
}

static node *
parse_add (parser *p)
{
  static const binop ops[] = { { "+", N_ADD }, { "-", N_SUB } };
  return parse_level (p, ops, G_N_ELEMENTS (ops), parse_mul);
}

static node *
parse_cmp (parser *p)
{
  static const binop ops[] = { { "<=", N_LE }, { ">=", N_GE }, { "==", N_EQ }, { "!=", N_NE },
                               { "<", N_LT }, { ">", N_GT } };
  return parse_level (p, ops, G_N_ELEMENTS (ops), parse_add);
}

static node *
parse_and (parser *p)
{
  static const binop ops[] = { { "&&", N_AND } };
  return parse_level (p, ops, G_N_ELEMENTS (ops), parse_cmp);
}

static node *
parse_or (parser *p)
{
  static const binop ops[] = { { "||", N_OR } };
  return parse_level (p, ops, G_N_ELEMENTS (ops), parse_and);
}

static node *
parse_cond (parser *p)
{
  node *c, *a, *b;

  if (++p->depth > MAX_DEPTH)
    return perr (p, "nested too deeply");
  c = parse_or (p);
  if (c && accept (p, "?"))
    {
      if ((a = parse_cond (p)) == NULL || !accept (p, ":") || (b = parse_cond (p)) == NULL)
        {
          node_free (c);
          node_free (a);
          p->depth--;
          return perr (p, "bad '?:'");
        }
      c = node_new (N_COND, c, a, b);
    }
  p->depth--;
  return c;
}

msperf_mexpr *
msperf_mexpr_compile (const char *text, msperf_msyms *syms, const char *where, GError **error)
{
  parser p = { .s = text, .syms = syms, .where = where, .error = error };
  msperf_mexpr *e;
  node *root;

  if (strlen (text) > MAX_TEXT)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s: expression too long",
                   where);
      return NULL;
    }
  root = parse_cond (&p);
  skip_ws (&p);
  if (root && p.s[p.pos] != '\0')
    {
      node_free (root);
      root = perr (&p, "unexpected text");
    }
  if (root == NULL)
    return NULL;
  e = g_new0 (msperf_mexpr, 1);
  e->root = root;
  e->text = g_strdup (text);
  e->where = g_strdup (where);
  e->syms = syms;
  return e;
}

void
msperf_mexpr_free (msperf_mexpr *e)
{
  if (e == NULL)
    return;
  node_free (e->root);
  g_free (e->text);
  g_free (e->where);
  g_free (e);
}

const char *
msperf_mexpr_text (const msperf_mexpr *e)
{
  return e->text;
}

const char *
msperf_mexpr_where (const msperf_mexpr *e)
{
  return e->where;
}

typedef struct {
  const msperf_mexpr *e;
  const double *env;
  GError **error;
} evaluator;

static gboolean
eerr (evaluator *ev, const char *what, const char *name)
{
  g_set_error (ev->error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s: '%s': %s%s%s",
               ev->e->where, ev->e->text, what, name ? " " : "", name ? name : "");
  return FALSE;
}

static gboolean eval_node (evaluator *ev, const node *n, double *out);

static gboolean
eval_binary (evaluator *ev, const node *n, double a, double b, double *out)
{
  switch (n->kind)
    {
    case N_ADD: *out = a + b; return TRUE;
    case N_SUB: *out = a - b; return TRUE;
    case N_MUL: *out = a * b; return TRUE;
    case N_DIV:
    case N_IDIV:
    case N_MOD:
    case N_CDIV:
      if (b == 0)
        return eerr (ev, "division by zero", NULL);
      if (n->kind == N_DIV)
        *out = a / b;
      else if (n->kind == N_IDIV)
        *out = floor (a / b);
      else if (n->kind == N_CDIV)
        *out = ceil (a / b);
      else
        *out = a - b * floor (a / b);
      return TRUE;
    case N_LT: *out = a < b; return TRUE;
    case N_LE: *out = a <= b; return TRUE;
    case N_GT: *out = a > b; return TRUE;
    case N_GE: *out = a >= b; return TRUE;
    case N_EQ: *out = a == b; return TRUE;
    case N_NE: *out = a != b; return TRUE;
    case N_MIN: *out = MIN (a, b); return TRUE;
    case N_MAX: *out = MAX (a, b); return TRUE;
    default: return eerr (ev, "internal error", NULL);
    }
}

static gboolean
eval_node (evaluator *ev, const node *n, double *out)
{
  double a = 0, b = 0;

  switch (n->kind)
    {
    case N_NUM:
      *out = n->num;
      return TRUE;
    case N_VAR:
      *out = ev->env[n->slot];
      return isnan (*out) ? eerr (ev, "undefined name", msperf_msyms_name (ev->e->syms, n->slot))
                          : TRUE;
    case N_COND:
      if (!eval_node (ev, n->a, &a))
        return FALSE;
      return eval_node (ev, a != 0 ? n->b : n->c, out);
    case N_AND:
    case N_OR:
      /* Short-circuit, so a guard can protect a division: tp > 0 && x % tp == 0. */
      if (!eval_node (ev, n->a, &a))
        return FALSE;
      if ((n->kind == N_AND) == (a == 0))
        {
          *out = n->kind == N_OR;
          return TRUE;
        }
      if (!eval_node (ev, n->b, &b))
        return FALSE;
      *out = b != 0;
      return TRUE;
    case N_NEG:
    case N_NOT:
    case N_CEIL:
    case N_FLOOR:
    case N_ABS:
      if (!eval_node (ev, n->a, &a))
        return FALSE;
      *out = n->kind == N_NEG ? -a : n->kind == N_NOT ? (a == 0) : n->kind == N_CEIL ? ceil (a)
             : n->kind == N_FLOOR ? floor (a) : fabs (a);
      return TRUE;
    default:
      if (!eval_node (ev, n->a, &a) || !eval_node (ev, n->b, &b))
        return FALSE;
      return eval_binary (ev, n, a, b, out);
    }
}

gboolean
msperf_mexpr_eval (const msperf_mexpr *e, const double *env, double *out, GError **error)
{
  evaluator ev = { e, env, error };

  if (!eval_node (&ev, e->root, out))
    return FALSE;
  if (!isfinite (*out))
    return eerr (&ev, "result is not finite", NULL);
  return TRUE;
}

gboolean
msperf_mexpr_eval_int (const msperf_mexpr *e, const double *env, gint64 *out, GError **error)
{
  evaluator ev = { e, env, error };
  double v;

  if (!msperf_mexpr_eval (e, env, &v, error))
    return FALSE;
  if (v != floor (v) || fabs (v) > 9007199254740992.0)
    {
      g_autofree char *s = g_strdup_printf ("%.17g", v);
      return eerr (&ev, "not an integer:", s);
    }
  *out = (gint64) v;
  return TRUE;
}
