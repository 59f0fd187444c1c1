/* msperf — one operator invocation (an op of the trace) and the tensors it carries. */
#ifndef MSPERF_OP_H
#define MSPERF_OP_H

#include <msperf/api.h>
#include <stdint.h>
#include <glib.h>
#include <msperf/dtype.h>

G_BEGIN_DECLS

/* Highest tensor rank msperf stores; a deeper shape is an input error, not a crash. */
#define MSPERF_MAX_RANK 8

/* A tensor as the trace or a CSV slot describes it. Plain value type: copy with '='.
 * 'values' is the one owned pointer (small integer tensors such as seq_lens); use
 * msperf_tensor_copy/clear when it may be set. */
typedef struct msperf_tensor {
  int rank;                         /* 0 = scalar "()" */
  int64_t dims[MSPERF_MAX_RANK];
  msperf_dtype dtype;
  msperf_format format;
  int64_t *values;                  /* NULL unless the trace gave "values"; n_values entries */
  size_t n_values;
} msperf_tensor;

/* Number of elements, or -1 when the product overflows int64. */
MSPERF_API int64_t msperf_tensor_numel (const msperf_tensor *t);
/* Equal rank and dims (dtype and format ignored). */
MSPERF_API gboolean msperf_tensor_same_shape (const msperf_tensor *a, const msperf_tensor *b);
/* Deep copy into dst (dst's previous contents are not freed). */
MSPERF_API void msperf_tensor_copy (msperf_tensor *dst, const msperf_tensor *src);
MSPERF_API void msperf_tensor_clear (msperf_tensor *t);
/* "[136, 5120]" (Python list repr of the dims). Transfer full. */
MSPERF_API char *msperf_tensor_shape_repr (const msperf_tensor *t);

/* A JSON-like argument value. Trees of these hold args, kwargs and ATT parameters. */
typedef enum {
  MSPERF_VALUE_NONE = 0, /* JSON null / Python None */
  MSPERF_VALUE_BOOL,
  MSPERF_VALUE_INT,
  MSPERF_VALUE_FLOAT,
  MSPERF_VALUE_STRING,
  MSPERF_VALUE_TENSOR,
  MSPERF_VALUE_LIST, /* items: msperf_value*, e.g. an int list, a tensor list, a symbolic shape */
  MSPERF_VALUE_MAP   /* ordered keys and values */
} msperf_value_kind;

typedef struct msperf_value msperf_value;
struct msperf_value {
  msperf_value_kind kind;
  gboolean b;
  int64_t i;
  double f;
  char *s;
  msperf_tensor tensor;  /* kind TENSOR */
  GPtrArray *items;      /* kind LIST and MAP (values), element type msperf_value*, owned */
  GPtrArray *keys;       /* kind MAP: char*, owned, parallel to items */
  guint line;            /* 1-based source line when parsed from a file, else 0 */
};

MSPERF_API msperf_value *msperf_value_new (msperf_value_kind kind);
MSPERF_API void msperf_value_free (msperf_value *v);
MSPERF_API msperf_value *msperf_value_copy (const msperf_value *v);
/* Scalar constructors (transfer full); string copies s (NULL gives a NONE value). */
MSPERF_API msperf_value *msperf_value_new_int (int64_t i);
MSPERF_API msperf_value *msperf_value_new_double (double f);
MSPERF_API msperf_value *msperf_value_new_bool (gboolean b);
MSPERF_API msperf_value *msperf_value_new_string (const char *s);
/* The dims of t as an INT list ("[136, 5120]"; an empty list for a scalar or NULL): the one
 * shape-as-value every detail and output uses. Transfer full. */
MSPERF_API msperf_value *msperf_value_new_shape (const msperf_tensor *t);
/* A LIST of STRING values copied from strings (char*; NULL gives an empty list), in order:
 * the list form of a detail such as fallback_reasons. Transfer full. */
MSPERF_API msperf_value *msperf_value_new_string_list (const GPtrArray *strings);
/* MAP lookup; NULL when v is not a map or has no such key. Transfer none. */
MSPERF_API const msperf_value *msperf_value_lookup (const msperf_value *v, const char *key);
/* Appends to a LIST (takes ownership of item). */
MSPERF_API void msperf_value_list_append (msperf_value *list, msperf_value *item);
/* Sets key in a MAP (takes ownership of item; replaces an existing key). */
MSPERF_API void msperf_value_map_set (msperf_value *map, const char *key, msperf_value *item);
/* TRUE and *out when v is an INT, or a FLOAT holding an integral value. */
MSPERF_API gboolean msperf_value_get_int (const msperf_value *v, int64_t *out);
/* TRUE and *out for INT or FLOAT. */
MSPERF_API gboolean msperf_value_get_double (const msperf_value *v, double *out);
/* String for kind STRING, else NULL. Transfer none. */
MSPERF_API const char *msperf_value_get_string (const msperf_value *v);
/* TRUE for kind LIST whose items are all INT. */
MSPERF_API gboolean msperf_value_is_int_list (const msperf_value *v);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_value, msperf_value_free)

/* One operator invocation. */
typedef struct msperf_op {
  char *name;          /* normalised: a leading "torch.ops." is stripped */
  GPtrArray *args;     /* msperf_value*, positional; NONE for null */
  msperf_value *kwargs;/* MAP, never NULL */
  GPtrArray *out;      /* msperf_tensor* outputs (maybe empty) */
  msperf_value *att;   /* MAP of ATT parameters, or NULL */
  int64_t count;       /* >= 1: how many times this exact invocation occurs */
  size_t index;        /* 0-based position in the input (line or op-summary variant) */
  guint line;          /* 1-based source line, 0 when not from a file */
  gboolean zero_cost;  /* the op summary flags it zero_cost: answered 0 µs (FORMATS §2) */
} msperf_op;

MSPERF_API msperf_op *msperf_op_new (const char *name);
/* Sets op's name as msperf_op_new does (a leading "torch.ops." stripped; NULL is ""). */
MSPERF_API void msperf_op_set_name (msperf_op *op, const char *name);
MSPERF_API void msperf_op_free (msperf_op *op);
/* A deep copy of op, every field included: nothing is shared with op. Transfer full. */
MSPERF_API msperf_op *msperf_op_copy (const msperf_op *op);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_op, msperf_op_free)

/* The TC tensor inputs as upstream _extract_tensor_inputs reads them: positional args only;
 * a tensor of rank > 0 contributes itself; a list contributes its tensors of rank > 0; scalars
 * and non-tensors are dropped. Returns msperf_tensor* pointing into op (transfer container). */
MSPERF_API GPtrArray *msperf_op_tensor_inputs (const msperf_op *op);
/* Top-level tensor args (rank 0 included), as upstream records tc_shapes (transfer container). */
MSPERF_API GPtrArray *msperf_op_top_level_tensors (const msperf_op *op);
/* Positional arg i (negative counts from the end), or NULL. Transfer none. */
MSPERF_API const msperf_value *msperf_op_arg (const msperf_op *op, int i);
/* First output tensor, or NULL. Transfer none. */
MSPERF_API const msperf_tensor *msperf_op_output (const msperf_op *op);
/* A stable signature of the invocation (name, args, kwargs, out, att; not count/index/line):
 * equal signatures get equal answers. Transfer full. */
MSPERF_API char *msperf_op_signature (const msperf_op *op);

G_END_DECLS

#endif /* MSPERF_OP_H */
