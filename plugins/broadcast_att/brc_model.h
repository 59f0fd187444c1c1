/* msperf broadcast_att — the ATT Broadcast V2 model (reference att-model.md §4, seed 002): the
 * BroadcastExtend tiling, dispatch, wrappers and leaves, the standalone Duplicate paths, the
 * Reg-level call ledger (seed `BroadcastCallCount`) and the cost
 * VFHead + max_latency + Σ throughput·count per static branch.
 *
 * Files: brc_params.c (att MAP → parameters, validation), brc_branch.c (condition decisions,
 * branch enumeration, call emission), brc_tiling.c (tiling, dispatch, wrappers), brc_leaves.c
 * (leaves, gather wrappers, Duplicate), brc_ledger.c (union ledger, cost, report).
 *
 * Symbolic shapes: the model runs once per static branch. Every condition the kernel evaluates
 * goes through brc_decide: a condition that folds (numbers, or after substituting equalities
 * decided earlier on the same branch) is answered at once; any other is a branch point, and the
 * driver re-runs the model with every combination of answers (depth first, "true" first), so
 * the branches nest as ternaries in the order the kernel evaluates its conditions. */
#ifndef MSPERF_PLUGINS_BRC_MODEL_H
#define MSPERF_PLUGINS_BRC_MODEL_H

#include <glib.h>
#include <msperf/att.h>
#include <msperf/expr.h>
#include <msperf/op.h>

/* Highest BroadcastExtend rank (the public entry accepts 1..9). */
#define BRC_MAX_RANK 9
/* Work bound of the symbolic model: the static branches it enumerates. Measured on a 2-core
 * build machine (doc/att-broadcast.md): the seed's rank-9 example with 2^5 B/E states
 * (float16) is 736 branches in about 1 s CPU; a rank-7 shape of fourteen free symbols (int8)
 * 2166 branches in about 2.7 s and 0.5 GB. More branches than this is refused with a message
 * asking to bind symbols (att.bind folds before the enumeration). */
#define BRC_MAX_BRANCHES 2500

typedef enum {
  BRC_EXTEND = 0,     /* BroadcastExtendParams{dst_shapes, src_shapes} */
  BRC_DUPLICATE       /* BroadcastDuplicateParams{count, dst_view_size, source_kind} */
} brc_kind;

typedef enum {
  BRC_SRC_CONSTANT = 0,
  BRC_SRC_UB_SCALAR,
  BRC_SRC_TENSOR_VEC_IN,
  BRC_SRC_TENSOR_VEC_CALC,
  BRC_SRC_TENSOR_OTHER
} brc_source_kind;

/* "kConstant", … (static strings). */
const char *brc_source_kind_name (brc_source_kind k);

typedef struct brc_params {
  brc_kind kind;
  char *dtype;                 /* table spelling of T: "float16", "int64", "bool", … */
  GPtrArray *dst_shapes;       /* msperf_expr* (extend) */
  GPtrArray *src_shapes;
  msperf_expr *count;          /* duplicate */
  msperf_expr *dst_view_size;  /* duplicate; NULL when absent (then = count) */
  brc_source_kind source_kind;
  GHashTable *bindings;        /* att.bind: char* → const msperf_expr* (values for `value`) */
} brc_params;

void brc_params_init (brc_params *p);
void brc_params_clear (brc_params *p);
/* From an op's `att` MAP (FORMATS §2: kind broadcast_extend | duplicate). Checks the forms
 * (rank 1..9, equal lengths, integers >= 1 or symbol names, src 1 or equal dst, the source
 * kind); the model checks the numeric domain limits. */
gboolean brc_params_from_value (msperf_expr_ctx *ctx, const msperf_value *att, brc_params *p,
                                GError **error);

/* ---------------------------------------------------------------- one static branch */

typedef struct brc_component {
  char *perf_type;             /* table key: "Load", "Store", "Placeholder", … */
  char *perf_dtype;
  msperf_expr *count;          /* component_count */
} brc_component;

typedef struct brc_call {
  char *call_site;             /* stable "Helper.Slot" */
  char *real_api;
  char *data_dtype;
  char *index_dtype;           /* NULL without an index */
  char *mode;                  /* NULL when the API has no mode */
  char *param_role;            /* "copy_length" | "count" | NULL */
  msperf_expr *param_value;
  msperf_expr *call_count;
  GPtrArray *components;       /* brc_component*, owned */
} brc_call;

typedef struct brc_cond {
  msperf_cond cond;
  msperf_expr *left, *right;
} brc_cond;

/* The state of one run of the model along one decision path. */
typedef struct brc_run {
  msperf_expr_ctx *ctx;
  const msperf_att_table *table;
  GArray *path;                /* gboolean answers of the branch points, in order */
  GArray *conds;               /* brc_cond of each branch point met */
  guint pos;
  GHashTable *memo;            /* condition text → answer + 1 */
  GHashTable *known;           /* symbol → value decided equal on this branch */
  GPtrArray *calls;            /* brc_call*, owned */
  msperf_expr *mult;           /* loop multiplier applied to leaf calls */
  msperf_expr *launches;       /* __simd_vf__ launches */
  GString *branch;             /* the dispatch path, "NLast/NlastWrap3D/…" */
  GError *error;               /* first refusal met on this branch */
} brc_run;

brc_run *brc_run_new (msperf_expr_ctx *ctx, const msperf_att_table *table, GArray *path);
void brc_run_free (brc_run *run);

/* Decides "left cond right" on this branch (see the file comment). */
gboolean brc_decide (brc_run *run, msperf_cond cond, const msperf_expr *left,
                     const msperf_expr *right);
gboolean brc_eq (brc_run *run, const msperf_expr *a, const msperf_expr *b);
gboolean brc_eq_int (brc_run *run, const msperf_expr *a, int64_t b);
gboolean brc_lt_int (brc_run *run, const msperf_expr *a, int64_t b);
gboolean brc_le_int (brc_run *run, const msperf_expr *a, int64_t b);
gboolean brc_gt_int (brc_run *run, const msperf_expr *a, int64_t b);
/* a % m == 0 */
gboolean brc_divisible (brc_run *run, const msperf_expr *a, int64_t m);

/* Refuses the branch (first message kept) when e is a number above limit. */
void brc_check_max (brc_run *run, const msperf_expr *e, int64_t limit, const char *what);
void brc_fail (brc_run *run, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

/* Records one Reg-level call: call_count = count × run->mult, one component (perf type of the
 * real API, perf_dtype) with the same count. Returns the row (transfer none). */
brc_call *brc_emit (brc_run *run, const char *site, const char *api, const char *data_dtype,
                    const char *index_dtype, const char *mode, const msperf_expr *count,
                    const char *perf_dtype);
/* The same with an integer count. */
brc_call *brc_emit_n (brc_run *run, const char *site, const char *api, const char *data_dtype,
                      const char *index_dtype, const char *mode, int64_t count,
                      const char *perf_dtype);
/* A high-level call counted once with its own component counts (DataCopy, Duplicate): no
 * component is added; add them with brc_call_component. */
brc_call *brc_emit_external (brc_run *run, const char *site, const char *api,
                             const char *data_dtype, const char *mode, const char *role,
                             const msperf_expr *value);
void brc_call_component (brc_run *run, brc_call *call, const char *perf_type,
                         const char *perf_dtype, const msperf_expr *count);
/* The table key a real API maps to (seed FR6): Load*, Store*, Duplicate, UpdateMask, the
 * arithmetic keys, else "Placeholder". */
const char *brc_perf_type (const char *real_api);
void brc_add_launches (brc_run *run, int64_t n);

/* Runs the model on one branch (brc_tiling.c). */
void brc_model_run (brc_run *run, const brc_params *p);

/* ---------------------------------------------------------------- kernel constants */

/* Sizes of T and of BrcT (uint32 for 8-byte T). */
typedef struct brc_types {
  const char *t;               /* table spelling of T */
  int64_t size;                /* sizeof (T) */
  const char *brc;             /* BrcT: uint8 / uint16 / uint32 */
  int64_t brc_size;
  int64_t vf, half, blk;       /* VF = 256/sizeof(BrcT), HALF = VF/2, BLK = 32/sizeof(BrcT) */
  gboolean b8;
  const char *gen_index;       /* signed index of the generators: int16 / int32 */
  const char *index;           /* unsigned index of the consumers: uint16 / uint32 */
  const char *index_math;      /* dtype of the gather-loop index arithmetic */
  const char *gather_perf;     /* perf dtype of Gather (uint16 for b8, else BrcT) */
} brc_types;

gboolean brc_types_init (brc_types *ty, const msperf_att_table *table, const char *dtype,
                         GError **error);

/* Leaves (brc_leaves.c). Sizes are expressions; ty the types of the call. */
typedef struct brc_leaf_ctx {
  brc_run *run;
  const brc_types *ty;
} brc_leaf_ctx;

void brc_leaf_duplicate (brc_leaf_ctx *c, msperf_expr *n);
void brc_leaf_copy (brc_leaf_ctx *c, msperf_expr *dst_size);
/* Last side */
void brc_leaf_last_e2b_2d (brc_leaf_ctx *c, msperf_expr *s0, msperf_expr *s1);
void brc_leaf_last_e2b_larger (brc_leaf_ctx *c, msperf_expr *s0, msperf_expr *s1,
                               msperf_expr *s2);
void brc_leaf_last_e2b_less (brc_leaf_ctx *c, msperf_expr *s0);
void brc_leaf_last_e2b_4d (brc_leaf_ctx *c, msperf_expr *s0, msperf_expr *s1, msperf_expr *s2,
                           msperf_expr *s3);
void brc_leaf_gather_2d (brc_leaf_ctx *c, gboolean last, msperf_expr *s0, msperf_expr *s1);
void brc_leaf_gather_b_2d (brc_leaf_ctx *c, msperf_expr *s0, msperf_expr *s1);
/* The remaining leaves by their upstream names: dims are s[0..n-1], n = 2, 3 or 4. */
typedef enum {
  BRC_LAST_LESS_ALIGNED = 0,
  BRC_LAST_LESS_UNALIGNED,
  BRC_LAST_LARGER_ALIGNED,
  BRC_LAST_LARGER_UNALIGNED,
  BRC_NLAST_LESS_ALIGNED,
  BRC_NLAST_LESS_UNALIGNED,
  BRC_NLAST_LARGER_WITH_VL,
  BRC_NLAST_LARGER_WITH_BLOCK,
  BRC_NLAST_LARGER_UNALIGNED
} brc_leaf_kind;
void brc_leaf (brc_leaf_ctx *c, brc_leaf_kind kind, int n, msperf_expr *const *s);
/* GatherWrapper (n = 3) and GatherWrapperForFourDim (n = 4): index generation + gather. */
void brc_gather_wrapper (brc_leaf_ctx *c, int n, msperf_expr *const *s, msperf_expr *const *st);
/* The standalone Duplicate path. */
void brc_duplicate_model (brc_run *run, const brc_params *p);

/* ---------------------------------------------------------------- the whole model */

typedef struct brc_branch {
  GArray *path;                /* gboolean */
  GArray *conds;               /* brc_cond */
  GPtrArray *calls;            /* brc_call*, owned */
  GHashTable *by_identity;     /* identity text → brc_call* of calls (the union's lookups) */
  msperf_expr *launches;
  char *name;
  msperf_att_vf *vf;           /* the branch's own cost accumulator */
  msperf_expr *cost;
  char *refusal;               /* outside the normal domain: the limit it breaks, else NULL */
} brc_branch;

typedef struct brc_model {
  GPtrArray *branches;         /* brc_branch*, depth-first, "true" first */
  msperf_expr *cost;           /* nested ternary of the branch costs (or the single cost) */
  msperf_expr *expression;     /* cost, or the named variable broadcast_cost */
  msperf_expr *launches;       /* vf_launches, nested like the cost */
  msperf_att_vf *ledger;       /* the conditional union ledger (counts only; never costed) */
  const char *kind;            /* "broadcast_extend" | "duplicate" */
} brc_model;

/* Runs every branch and builds the union ledger and the cost. FALSE + MSPERF_ERROR_INVALID
 * when the parameters are refused (never a partial formula). */
gboolean brc_model_build (const msperf_att_table *table, msperf_expr_ctx *ctx,
                          const brc_params *p, brc_model *m, GError **error);
void brc_model_clear (brc_model *m);

/* The ATT object of FORMATS §5 (expression, expression_inlined, value, ternaries, ledger,
 * vf_launches, branches). Transfer full; NULL + error on an evaluation error. */
msperf_value *brc_model_report (msperf_expr_ctx *ctx, const brc_model *m, GHashTable *bindings,
                                GError **error);

#endif
