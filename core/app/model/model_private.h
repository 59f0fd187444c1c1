/* msperf (internal) — the compiled form of a model template, shared by model_template.c (load,
 * compile) and model.c (evaluation per layout and pass). */
#ifndef MSPERF_APP_MODEL_PRIVATE_H
#define MSPERF_APP_MODEL_PRIVATE_H

#include "app/model/model.h"
#include "app/model/model_expr.h"

/* dtype codes of a tensor spec: a fixed name, or the model's (DT_ACT) or the linear layers'
 * input dtype (DT_LINEAR: int8 under w8a8, else the model's). */
enum { DT_ACT = -1, DT_LINEAR = -2 };

/* ARG_RANKS: the int list 0..n-1 of a collective's rank group. */
typedef enum { ARG_NULL, ARG_SCALAR, ARG_LIST, ARG_TENSOR, ARG_RANKS } arg_kind;

typedef struct {
  arg_kind kind;
  GPtrArray *exprs;        /* msperf_mexpr*: dims (tensor), items (list), one (scalar) */
  int dtype;               /* index in msperf_model_dtype_names, or DT_ACT / DT_LINEAR */
  msperf_mexpr *fill;      /* tensor values: dims[0] copies of fill, or NULL */
} arg_spec;

typedef struct {
  char *name;
  msperf_mexpr *when;      /* NULL = always */
  msperf_mexpr *count;
  GArray *args;            /* arg_spec */
  GArray *outs;            /* arg_spec (tensors) */
} op_spec;

typedef struct {
  msperf_mexpr *cond;
  char *message;           /* {name} is replaced by the value */
} check_spec;

typedef struct {
  guint slot;
  msperf_mexpr *expr;
} let_spec;

struct msperf_model {
  char *config_path, *template_path, *name, *family, *arch;
  msperf_msyms *syms;
  double *base;            /* config, arch values and defaults; NAN = undefined */
  guint n_env;
  GArray *checks;          /* check_spec */
  GArray *lets;            /* let_spec, in order */
  GPtrArray *ops;          /* op_spec* */
  msperf_mexpr *weights, *kv_per_token;
  GHashTable *config;      /* config field -> double*, until the template is compiled */
  GArray *defaults;        /* let_spec: evaluated at load for names the config lacks */
  GPtrArray *fields;       /* char*: config fields the template needs */
  int act_dtype;           /* index in msperf_model_dtype_names */
  gboolean w8a8;
};

extern const char *const msperf_model_dtype_names[];
/* Index of a dtype name (torch spelling, optionally "torch."), or -1. */
int msperf_model_dtype_index (const char *name);
/* Bytes of a dtype index. */
double msperf_model_dtype_bytes (int index);

gboolean msperf_model_compile_template (msperf_model *m, const char *path, GError **error);
/* TRUE when the template lists arch under `architectures`; FALSE with *error set when it
 * cannot be read. */
gboolean msperf_model_template_matches (const char *path, const char *arch, GError **error);
gboolean msperf_model_read_config (msperf_model *m, const char *path, GError **error);

#endif
