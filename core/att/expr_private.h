/* msperf (internal) — the expression node and exact numbers, shared by expr.c (construction,
 * substitution, evaluation) and expr_print.c (the upstream printing rules). */
#ifndef MSPERF_CORE_EXPR_PRIVATE_H
#define MSPERF_CORE_EXPR_PRIVATE_H

#include <stdint.h>
#include <glib.h>
#include <msperf/expr.h>

typedef enum { NUM_INT = 0, NUM_RAT, NUM_DBL } msperf_num_kind;

/* An exact number while it fits: INT n, RAT n/d (d > 1, reduced), else DBL f. */
typedef struct msperf_num {
  msperf_num_kind k;
  int64_t n;
  int64_t d;
  double f;
} msperf_num;

struct msperf_expr {
  msperf_expr_kind kind;
  msperf_expr_ctx *ctx;
  msperf_num v;          /* numbers; ADD: the constant; MUL: the coefficient */
  char *name;            /* SYMBOL */
  msperf_cond cond;      /* TERNARY */
  size_t n;              /* number of args */
  msperf_expr **args;    /* ADD: terms; MUL: bases; POW: base, exponent; TERNARY: left,
                          * right, a, b; other kinds: operands in order */
  msperf_num *nums;      /* ADD: coefficient of each term; MUL: exponent of each base */
  char *str;             /* printed form, filled on first use */
};

msperf_num msperf_num_int (int64_t n);
msperf_num msperf_num_mul (msperf_num a, msperf_num b);
gboolean msperf_num_is_one (msperf_num a);
gboolean msperf_num_is_negative (msperf_num a);
double msperf_num_to_double (msperf_num a);
/* A node for a number (folded to the context). */
msperf_expr *msperf_expr_from_num (msperf_expr_ctx *ctx, msperf_num v);
/* coefficient · Π bases[i]^exps[i], canonical. */
msperf_expr *msperf_expr_mul_factors (msperf_expr_ctx *ctx, msperf_num coef,
                                      msperf_expr *const *bases, const msperf_num *exps,
                                      size_t n);

/* expr_print.c */
void msperf_num_print (GString *out, msperf_num v);

#endif
