/* msperf (internal) — the roofline's op families (policies/roofline-families.yaml,
 * doc/formats.md §4.1): which cost model answers an op, chosen by the op's name. The names
 * are data; the cost models are the roofline's formulas (core/engine/roofline.c). */
#ifndef MSPERF_CORE_OP_FAMILIES_H
#define MSPERF_CORE_OP_FAMILIES_H

#include <glib.h>

G_BEGIN_DECLS

/* The cost models a family may name (the formulas of FORMATS §4). */
typedef enum {
  MSPERF_COST_METADATA = 0,      /* a view: no kernel, no bytes */
  MSPERF_COST_MATMUL_COLLECTIVE, /* a matmul plus an all_reduce of its output */
  MSPERF_COST_COLLECTIVE,        /* a ring alpha-beta collective */
  MSPERF_COST_ATTENTION,         /* 4·H·Sq·Skv·D, causal halved */
  MSPERF_COST_GATHER,            /* a row gather (embedding) */
  MSPERF_COST_MATMUL,            /* 2·M·K·N */
  MSPERF_COST_FUSED_MOE          /* the routed GEMMs and the experts the tokens reach */
} msperf_cost_model;

/* The ring pattern of a collective (how many steps, how the group is sized). */
typedef enum {
  MSPERF_PATTERN_NONE = 0,       /* (n−1)/n of the bytes, group tp_size */
  MSPERF_PATTERN_ALL_REDUCE,
  MSPERF_PATTERN_ALL_GATHER,
  MSPERF_PATTERN_REDUCE_SCATTER,
  MSPERF_PATTERN_ALL_TO_ALL
} msperf_collective_pattern;

/* One rule. Every criterion given must hold; a list holds when one of its items does. */
typedef struct msperf_op_family {
  char *name;                    /* `family:`, for messages */
  msperf_cost_model model;
  msperf_collective_pattern pattern;
  char *namespace_prefix;        /* "aten." from `namespace: aten`, or NULL */
  char **bases;                  /* `base:`: the segment after the namespace, or NULL */
  char **names;                  /* `names:`: the whole op name, or NULL */
  char **contains;               /* `contains:`: a substring of the name, or NULL */
  char **and_contains;           /* `and_contains:`: a second substring, or NULL */
} msperf_op_family;

typedef struct msperf_op_families msperf_op_families;

/* Loads a table. Strict: unknown keys, an unknown model or pattern, a rule with no name
 * criterion are MSPERF_ERROR_INVALID "FILE:LINE: ...". Transfer full. */
msperf_op_families *msperf_op_families_load (const char *path, GError **error);
/* The shipped table (policies/roofline-families.yaml of the data directory, or of the source
 * tree when uninstalled). Transfer full. */
msperf_op_families *msperf_op_families_load_default (GError **error);
void msperf_op_families_free (msperf_op_families *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_op_families, msperf_op_families_free)

/* The file the table was read from. Transfer none. */
const char *msperf_op_families_path (const msperf_op_families *f);
/* The first rule at index >= *cursor that matches op_name, or NULL; *cursor moves past it so
 * the caller can go on when the rule's model cannot cost the op. Transfer none. */
const msperf_op_family *msperf_op_families_match (const msperf_op_families *f,
                                                  const char *op_name, guint *cursor);

G_END_DECLS

#endif /* MSPERF_CORE_OP_FAMILIES_H */
