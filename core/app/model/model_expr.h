/* msperf (internal) — the arithmetic of model templates: a small, safe expression language over
 * config fields and layout sizes (doc/models.md §2). No side effects, no loops, no strings:
 * numbers, names, + - * / // % (floor division and modulo on integers), comparisons,
 * && || !, c ? a : b, and min max ceil floor cdiv abs. Compiled once, evaluated per point. */
#ifndef MSPERF_APP_MODEL_EXPR_H
#define MSPERF_APP_MODEL_EXPR_H

#include <glib.h>

/* Names to slots. A name seen while compiling gets the next slot. */
typedef struct msperf_msyms msperf_msyms;
msperf_msyms *msperf_msyms_new (void);
void msperf_msyms_free (msperf_msyms *syms);
/* The slot of name, added when absent. */
guint msperf_msyms_slot (msperf_msyms *syms, const char *name);
/* The slot of name, or -1. */
int msperf_msyms_find (const msperf_msyms *syms, const char *name);
guint msperf_msyms_count (const msperf_msyms *syms);
const char *msperf_msyms_name (const msperf_msyms *syms, guint slot);

typedef struct msperf_mexpr msperf_mexpr;
/* where ("FILE:LINE") prefixes every error of the expression. Transfer full. */
msperf_mexpr *msperf_mexpr_compile (const char *text, msperf_msyms *syms, const char *where,
                                    GError **error);
void msperf_mexpr_free (msperf_mexpr *expr);
/* env holds one value per slot; NAN marks an undefined name (an error when read).
 * Division or modulo by zero and non-finite results are errors. */
gboolean msperf_mexpr_eval (const msperf_mexpr *expr, const double *env, double *out,
                            GError **error);
/* The same, requiring an integral result that fits an int64. */
gboolean msperf_mexpr_eval_int (const msperf_mexpr *expr, const double *env, gint64 *out,
                                GError **error);
const char *msperf_mexpr_text (const msperf_mexpr *expr);
const char *msperf_mexpr_where (const msperf_mexpr *expr);

#endif
