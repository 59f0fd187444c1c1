/* msperf — a sub-query: a part of a composite op, or an embedded term of a module's answer,
 * that a decomposer or a module builds and the engine answers (msperf_engine_subquery,
 * include/msperf/host.h). Plain data, below the engine. */
#ifndef MSPERF_SUBQUERY_H
#define MSPERF_SUBQUERY_H

#include <msperf/api.h>
#include <stdint.h>
#include <glib.h>
#include <msperf/op.h>

G_BEGIN_DECLS

/* A part of a composite op, or an embedded term of a module's answer, to be answered by the
 * module of `mode` (msperf_engine_subquery), or by the engine as one part of a plan. */
typedef struct msperf_subquery {
  char *mode;              /* "compute", "attention_special", ... */
  char **kernel_types;     /* NULL-terminated, owned */
  GArray *inputs;          /* msperf_tensor, owned (values freed with the subquery) */
  msperf_value *params;    /* MAP or NULL, owned */
  int64_t tc_input_count;  /* -1 = none */
  /* Zero, ignored: how a part is matched is declared by the module answering it
   * (msperf_plugin.semantic_key_rule). Kept so the layout of 2.0 and 2.1 holds. */
  uint32_t reserved_flags;
  gpointer reserved[4];    /* zero (msperf_subquery_new); room for minor versions */
} msperf_subquery;

MSPERF_API msperf_subquery *msperf_subquery_new (const char *mode, const char *kernel_type);
MSPERF_API void msperf_subquery_free (msperf_subquery *sq);
MSPERF_API void msperf_subquery_add_input (msperf_subquery *sq, const msperf_tensor *t);
MSPERF_API void msperf_subquery_add_kernel (msperf_subquery *sq, const char *kernel_type);

/* How many of n inputs take part in matching under a mapping's tc_input_count (upstream
 * auto_truncate): n when tc_input_count is negative (none set), else at most tc_input_count.
 * The one rule for cutting both the op's inputs and a CSV row's input slots. */
MSPERF_API size_t msperf_input_count_limit (size_t n, int64_t tc_input_count);

G_END_DECLS

#endif /* MSPERF_SUBQUERY_H */
