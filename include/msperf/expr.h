/* msperf — symbolic cost expressions (the ATT models' formulas, reference att-model.md §2).
 *
 * Expressions are immutable nodes owned by an msperf_expr_ctx (an arena): every constructor
 * returns a node of the context of its arguments, nothing is freed one by one, and
 * msperf_expr_ctx_free releases the whole context. All arguments of one call must come from
 * the same context. Nodes are kept in canonical form as they are built: sums are
 * constant + Σ coefficient·term, products coefficient · Π base^exponent; constants fold, like
 * terms and repeated factors merge, zeros and ones vanish; a product is never distributed over
 * a sum. Numbers are exact (int64 integers, reduced int64 rationals) unless a double enters or
 * an int64 operation would overflow, which turns that value into a double.
 *
 * Named variables: a context also keeps definitions "name = expression" beside the
 * expressions (upstream's named ternaries, `cast_repeat_time = TernaryOp(...)`); an expression
 * uses the bare symbol, printing shows the name, the inlined form and evaluation resolve it. */
#ifndef MSPERF_EXPR_H
#define MSPERF_EXPR_H

#include <msperf/api.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>
#include <msperf/error.h>

G_BEGIN_DECLS

typedef struct msperf_expr_ctx msperf_expr_ctx;
typedef struct msperf_expr msperf_expr;

typedef enum {
  MSPERF_EXPR_INTEGER = 0,
  MSPERF_EXPR_RATIONAL,
  MSPERF_EXPR_DOUBLE,
  MSPERF_EXPR_SYMBOL,
  MSPERF_EXPR_ADD,
  MSPERF_EXPR_MUL,
  MSPERF_EXPR_POW,
  MSPERF_EXPR_CEIL,
  MSPERF_EXPR_FLOOR,
  MSPERF_EXPR_ABS,
  MSPERF_EXPR_MOD,
  MSPERF_EXPR_MAX,
  MSPERF_EXPR_MIN,
  MSPERF_EXPR_EQ,      /* relationals are 1 or 0 when evaluated */
  MSPERF_EXPR_NE,
  MSPERF_EXPR_LT,
  MSPERF_EXPR_LE,
  MSPERF_EXPR_TERNARY  /* an IfCase node: (cond, left, right) ? a : b */
} msperf_expr_kind;

/* Conditions of a ternary (upstream CondType). */
typedef enum {
  MSPERF_COND_EQ = 0,
  MSPERF_COND_LT,
  MSPERF_COND_GT,
  MSPERF_COND_LE,
  MSPERF_COND_GE
} msperf_cond;

/* Relational operators for msperf_expr_cmp. GT and GE are canonicalised to LT and LE with
 * swapped operands, as SymEngine does. */
typedef enum {
  MSPERF_CMP_EQ = 0,
  MSPERF_CMP_NE,
  MSPERF_CMP_LT,
  MSPERF_CMP_LE,
  MSPERF_CMP_GT,
  MSPERF_CMP_GE
} msperf_cmp;

MSPERF_API msperf_expr_ctx *msperf_expr_ctx_new (void);
MSPERF_API void msperf_expr_ctx_free (msperf_expr_ctx *ctx);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_expr_ctx, msperf_expr_ctx_free)

/* ---- leaves (transfer none: owned by ctx) */
MSPERF_API msperf_expr *msperf_expr_int (msperf_expr_ctx *ctx, int64_t value);
/* n/d reduced; an integer when d divides n. d == 0 is a caller bug (NULL). */
MSPERF_API msperf_expr *msperf_expr_rational (msperf_expr_ctx *ctx, int64_t n, int64_t d);
MSPERF_API msperf_expr *msperf_expr_double (msperf_expr_ctx *ctx, double value);
/* A symbol. name must be an identifier ([A-Za-z_][A-Za-z0-9_]*), else NULL. */
MSPERF_API msperf_expr *msperf_expr_symbol (msperf_expr_ctx *ctx, const char *name);
/* TRUE when name is an identifier msperf_expr_symbol accepts. */
MSPERF_API gboolean msperf_expr_is_identifier (const char *name);

/* ---- arithmetic (canonical form; transfer none) */
MSPERF_API msperf_expr *msperf_expr_add (const msperf_expr *a, const msperf_expr *b);
MSPERF_API msperf_expr *msperf_expr_sub (const msperf_expr *a, const msperf_expr *b);
MSPERF_API msperf_expr *msperf_expr_mul (const msperf_expr *a, const msperf_expr *b);
MSPERF_API msperf_expr *msperf_expr_neg (const msperf_expr *a);
/* n-ary forms; n >= 1. */
MSPERF_API msperf_expr *msperf_expr_add_n (msperf_expr *const *args, size_t n);
MSPERF_API msperf_expr *msperf_expr_mul_n (msperf_expr *const *args, size_t n);
/* Exact division a · b⁻¹ (integers give a Rational). A literal zero divisor is kept as an
 * unevaluated 0⁻¹ factor that fails evaluation; msperf_expr_div_checked refuses it instead. */
MSPERF_API msperf_expr *msperf_expr_div (const msperf_expr *a, const msperf_expr *b);
MSPERF_API msperf_expr *msperf_expr_div_checked (const msperf_expr *a, const msperf_expr *b,
                                      GError **error);
/* a^b; integer powers of numbers fold, powers of products distribute for integer b. */
MSPERF_API msperf_expr *msperf_expr_pow (const msperf_expr *a, const msperf_expr *b);
MSPERF_API msperf_expr *msperf_expr_pow_int (const msperf_expr *a, int64_t k);
MSPERF_API msperf_expr *msperf_expr_ceil (const msperf_expr *a);
MSPERF_API msperf_expr *msperf_expr_floor (const msperf_expr *a);
MSPERF_API msperf_expr *msperf_expr_abs (const msperf_expr *a);
/* Ceiling(a / b), Floor(a / b). */
MSPERF_API msperf_expr *msperf_expr_ceil_div (const msperf_expr *a, const msperf_expr *b);
MSPERF_API msperf_expr *msperf_expr_floor_div (const msperf_expr *a, const msperf_expr *b);
/* Mod(a, b): floored remainder (the sign of b) when both are numbers. */
MSPERF_API msperf_expr *msperf_expr_mod (const msperf_expr *a, const msperf_expr *b);
/* Max/Min: nested calls flatten, numbers fold into one, duplicates go; argument order kept. */
MSPERF_API msperf_expr *msperf_expr_max (const msperf_expr *a, const msperf_expr *b);
MSPERF_API msperf_expr *msperf_expr_min (const msperf_expr *a, const msperf_expr *b);
/* A relational (printed ExpectEq/ExpectNe/ExpectLt/ExpectLe); numbers fold to 1 or 0. */
MSPERF_API msperf_expr *msperf_expr_cmp (msperf_cmp op, const msperf_expr *a, const msperf_expr *b);
/* An IfCase node "cond(left, right) ? a : b". Never folded, even with numeric conditions
 * (upstream builds and prints `TernaryOp(IsEqual(64, 64), …)`); evaluation picks a branch. */
MSPERF_API msperf_expr *msperf_expr_ternary (msperf_cond cond, const msperf_expr *left,
                                  const msperf_expr *right, const msperf_expr *a,
                                  const msperf_expr *b);

/* ---- inspection */
MSPERF_API msperf_expr_kind msperf_expr_get_kind (const msperf_expr *e);
MSPERF_API msperf_expr_ctx *msperf_expr_get_ctx (const msperf_expr *e);
/* INTEGER, RATIONAL or DOUBLE. */
MSPERF_API gboolean msperf_expr_is_number (const msperf_expr *e);
/* TRUE and *out for an INTEGER node. */
MSPERF_API gboolean msperf_expr_get_int (const msperf_expr *e, int64_t *out);
/* TRUE and *out for any number node. */
MSPERF_API gboolean msperf_expr_get_double (const msperf_expr *e, double *out);
/* Structural equality (same canonical form). */
MSPERF_API gboolean msperf_expr_equal (const msperf_expr *a, const msperf_expr *b);
/* The symbol's name (transfer none), NULL for other kinds. */
MSPERF_API const char *msperf_expr_symbol_name (const msperf_expr *e);
/* Sorted, de-duplicated names of the free symbols (variables count as symbols unless
 * through_variables, which looks into their definitions instead). Transfer full (g_strfreev). */
MSPERF_API char **msperf_expr_free_symbols (const msperf_expr *e, gboolean through_variables);

/* ---- named variables kept beside the expressions */
/* Defines (or redefines) name := definition and returns the symbol `name`. NULL when name is
 * not an identifier. */
MSPERF_API msperf_expr *msperf_expr_ctx_define (msperf_expr_ctx *ctx, const char *name,
                                     const msperf_expr *definition, const char *description);
/* Like msperf_expr_ctx_define with the first free name of prefix, prefix1, prefix2, …
 * (upstream GetPerfVar). */
MSPERF_API msperf_expr *msperf_expr_ctx_define_fresh (msperf_expr_ctx *ctx, const char *prefix,
                                           const msperf_expr *definition,
                                           const char *description);
MSPERF_API size_t msperf_expr_ctx_n_variables (const msperf_expr_ctx *ctx);
/* Variable i in definition order: name, definition, description (any may be NULL-ed out). */
MSPERF_API void msperf_expr_ctx_variable (const msperf_expr_ctx *ctx, size_t i, const char **name,
                               const msperf_expr **definition, const char **description);
/* The definition of name, or NULL. */
MSPERF_API const msperf_expr *msperf_expr_ctx_lookup (const msperf_expr_ctx *ctx, const char *name);

/* ---- substitution and evaluation */
/* Replaces symbols by expressions: bindings maps char* name → const msperf_expr* (same ctx).
 * Rebuilt through the constructors, so the result is canonical again. */
MSPERF_API msperf_expr *msperf_expr_subs (const msperf_expr *e, GHashTable *bindings);
MSPERF_API msperf_expr *msperf_expr_subs1 (const msperf_expr *e, const char *name,
                                const msperf_expr *value);
/* Replaces every variable of the context by its definition, recursively (upstream
 * ConcursiveReplaceVars); unbound symbols stay. NULL + MSPERF_ERROR_INVALID when definitions
 * refer to each other in a cycle. */
MSPERF_API msperf_expr *msperf_expr_inline (const msperf_expr *e, GError **error);
/* Numeric value: symbols from bindings (name → const msperf_expr*, may be NULL), else from
 * the context's variables. Exact while possible. Ternaries evaluate only the branch taken;
 * EQ compares exactly, or with |a − b| < 1e-8 once doubles are involved (as the generated
 * tiling code does). Errors: MSPERF_ERROR_UNBOUND "unbound symbol 'x'", MSPERF_ERROR_INVALID
 * "division by zero in …" (also Mod by zero), cyclic variables. Transfer none. */
MSPERF_API msperf_expr *msperf_expr_evaluate (const msperf_expr *e, GHashTable *bindings, GError **error);
/* The same as a double. */
MSPERF_API gboolean msperf_expr_eval (const msperf_expr *e, GHashTable *bindings, double *out,
                           GError **error);

/* ---- printing (expr_print.c) */
/* The upstream Str() form (att-model.md §2.3): sorted printed arguments, brackets,
 * `Rational(n , d)`, `TernaryOp(IsEqual(a, b), x, y)`, `Max(a, b)`. Transfer none (cached). */
MSPERF_API const char *msperf_expr_str (const msperf_expr *e);
/* The inlined form: every variable replaced by its printed definition. Transfer full;
 * NULL + error on cyclic definitions. */
MSPERF_API char *msperf_expr_str_inlined (const msperf_expr *e, GError **error);

G_END_DECLS

#endif /* MSPERF_EXPR_H */
