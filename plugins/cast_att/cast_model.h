/* msperf cast_att — the Cast V2 VF cost model (reference att-model.md §3). Compiled into the
 * cast_att module and into the `msperf att cast` command. */
#ifndef MSPERF_PLUGINS_CAST_MODEL_H
#define MSPERF_PLUGINS_CAST_MODEL_H

#include <glib.h>
#include <msperf/att.h>
#include <msperf/expr.h>
#include <msperf/op.h>

/* The Cast node parameters (upstream CastNodeParams plus the node's dtypes and shape).
 * Expressions live in the caller's context. */
typedef struct cast_att_params {
  char *in_dtype;           /* table spelling: "float32", "int4", "bool", … */
  char *out_dtype;
  gboolean valid;           /* the codegen parameters were given */
  GPtrArray *shape;         /* msperf_expr*: the input dims (the fallback's element count) */
  GPtrArray *output_dims;   /* msperf_expr* */
  GPtrArray *output_strides;
  GPtrArray *input_strides;
} cast_att_params;

void cast_att_params_init (cast_att_params *p);
void cast_att_params_clear (cast_att_params *p);
/* One entry: an integer >= 0, or a symbol name; anything else is an error. */
msperf_expr *cast_att_entry (msperf_expr_ctx *ctx, const msperf_value *v, const char *what,
                             GError **error);
/* From an op's `att` MAP (FORMATS §2: kind cast, in_dtype, out_dtype, shape, output_dims,
 * output_strides, input_strides, optional valid). */
gboolean cast_att_params_from_value (msperf_expr_ctx *ctx, const msperf_value *att,
                                     cast_att_params *p, GError **error);

typedef struct cast_att_model {
  msperf_expr *cost;        /* (head + max_latency + Σ) × call_count, named-variable form */
  msperf_expr *repeat;      /* R */
  msperf_expr *call_count;  /* C */
  const char *branch;       /* "same_bit", "f32_to_bool", … "common" (static string) */
  msperf_att_vf *vf;        /* the accumulated VF with its ledger, owned */
  char *warning;            /* why the codegen parameters were ignored (shape fallback), or NULL */
} cast_att_model;

/* Runs the model. Named ternaries (cast_repeat_time, cast_call_count) are defined in ctx.
 * FALSE + MSPERF_ERROR_INVALID for parameters the model refuses. */
gboolean cast_att_run (const msperf_att_table *table, msperf_expr_ctx *ctx,
                       const cast_att_params *p, cast_att_model *m, GError **error);
void cast_att_model_clear (cast_att_model *m);

/* The ATT JSON object of FORMATS §5: expression, expression_inlined, value (bindings may be
 * NULL; null while symbols are unbound), ternaries, ledger, vf_launches. Transfer full. */
msperf_value *cast_att_report (msperf_expr_ctx *ctx, const cast_att_model *m,
                               GHashTable *bindings, GError **error);

#endif
