/* msperf (internal) — the compiled form of a model template, shared by model_template.c (load,
 * compile) and model.c (evaluation per layout and pass). */
#ifndef MSPERF_APP_MODEL_PRIVATE_H
#define MSPERF_APP_MODEL_PRIVATE_H

#include "app/model/model.h"
#include "app/model/model_expr.h"

/* dtype codes of a tensor spec: a fixed name, or the model's (DT_ACT), the linear layers'
 * input dtype (DT_LINEAR: int8 under w8a8, else the model's), the KV cache's (DT_KV: `kvdt`,
 * float8_e4m3fn under --kv-dtype fp8, else the model's), and the weight dtype of the non-expert
 * linear layers (DT_GEMM_W: `gwdt`) and of the routed experts (DT_MOE_W: `mwdt`) under their
 * quant mode. */
enum { DT_ACT = -1, DT_LINEAR = -2, DT_KV = -3, DT_GEMM_W = -4, DT_MOE_W = -5 };

/* ARG_RANKS: the int list 0..n-1 of a collective's rank group; ARG_STRING a quoted literal
 * (kwargs only); ARG_QUANT the name of a part's quant mode (kwargs `{quant: gemm|moe}`). */
typedef enum { ARG_NULL, ARG_SCALAR, ARG_LIST, ARG_TENSOR, ARG_RANKS, ARG_STRING,
               ARG_QUANT } arg_kind;

/* Quant modes of a part of the model (doc/models.md §5). QUANT_NONE: the model's dtype. */
typedef enum { QUANT_NONE, QUANT_FP8, QUANT_FP8_BLOCK, QUANT_W4A16_MXFP4, QUANT_INT4_WO,
               QUANT_W8A8, QUANT_N_MODES } quant_mode;
/* The parts a linear op belongs to (`part:` of an op). */
typedef enum { PART_NONE, PART_GEMM, PART_MOE } part_kind;

typedef struct {
  arg_kind kind;
  GPtrArray *exprs;        /* msperf_mexpr*: dims (tensor), items (list), one (scalar) */
  int dtype;               /* index in msperf_model_dtype_names, or a DT_ code above */
  msperf_mexpr *fill;      /* tensor values: dims[0] copies of fill, or NULL */
  char *text;              /* ARG_STRING: the literal */
  part_kind part;          /* ARG_QUANT: whose mode */
} arg_spec;

typedef struct {
  char *name;
  msperf_mexpr *when;      /* NULL = always */
  msperf_mexpr *count;
  GArray *args;            /* arg_spec */
  GArray *outs;            /* arg_spec (tensors) */
  GPtrArray *kw_names;     /* char*: kwargs keys, in order (NULL = none) */
  GArray *kwargs;          /* arg_spec: their values */
  part_kind part;          /* a linear layer whose form follows that part's quant mode */
  gboolean input_quantised;   /* fp8 modes: its input was quantised for an earlier linear */
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
  /* Optional memory terms (doc/models.md §6): parameters per rank by part, the active share
   * of the experts, sliding-window KV, recurrent state, MTP layers. NULL = not given. */
  msperf_mexpr *params_dense, *params_expert, *params_other, *params_mtp, *expert_share;
  msperf_mexpr *kv_window_per_token, *kv_window, *state_per_seq, *act_per_token;
  msperf_mexpr *params_embedding;
  GHashTable *config;      /* config field -> double*, until the template is compiled */
  GHashTable *config_kinds; /* config field that is not a number -> what it is ("a string") */
  GArray *defaults;        /* let_spec: evaluated at load for names the config lacks */
  GPtrArray *fields;       /* char*: config fields the template needs */
  int act_dtype;           /* index in msperf_model_dtype_names */
  gboolean w8a8;           /* both parts w8a8: the templates' own `quant` forms */
  quant_mode gemm_quant, moe_quant;   /* resolved: options, else the config's, else none */
  int cfg_gemm_quant, cfg_moe_quant;  /* from quantization_config, -1 = none declared */
  gboolean kv_fp8;
};

extern const char *const msperf_model_dtype_names[];
/* Index of a dtype name (torch spelling, optionally "torch."), or -1. */
int msperf_model_dtype_index (const char *name);
/* Bytes of a dtype index. */
double msperf_model_dtype_bytes (int index);
/* Quant mode names ("bf16", "fp8", …) and their parsing ("none" = "bf16"); -1 unknown. */
extern const char *const msperf_model_quant_names[];
int msperf_model_quant_index (const char *name);

gboolean msperf_model_compile_template (msperf_model *m, const char *path, GError **error);
/* TRUE when the template lists arch under `architectures`; FALSE with *error set when it
 * cannot be read. */
gboolean msperf_model_template_matches (const char *path, const char *arch, GError **error);
gboolean msperf_model_read_config (msperf_model *m, const char *path, GError **error);
/* Every field the template needs is a JSON number, an integer from 1 (0 where a count of
 * layers may be none) to MSPERF_MODEL_MAX_FIELD; else "CONFIG:LINE: field 'NAME': problem". */
gboolean msperf_model_check_fields (const msperf_model *m, GError **error);

/* The largest value of a config field: far above any model (2^31 - 1 layers, heads, experts
 * or elements of a dimension), small enough that every count and shape derived from it stays
 * exact in a double and within int64. */
#define MSPERF_MODEL_MAX_FIELD 2147483647.0

#endif
