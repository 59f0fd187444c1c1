/* msperf — the ATT V2 vector-function perf table, the VF cost accumulator and its call ledger
 * (reference att-model.md §1). Shared by the ATT modules (cast_att, broadcast_att) and the
 * `msperf att` command.
 *
 * One VF launch costs head + max_latency + Σ throughput·count. Every table lookup a model
 * makes is recorded in a ledger row, so each term of the final expression can be traced back to
 * the micro-API call that produced it — also the lookups that found nothing (which add nothing,
 * as upstream) are kept, marked no_table_entry. */
#ifndef MSPERF_ATT_H
#define MSPERF_ATT_H

#include <msperf/api.h>
#include <stdint.h>
#include <glib.h>
#include <msperf/error.h>
#include <msperf/op.h>
#include <msperf/expr.h>
#include <msperf/result.h>

G_BEGIN_DECLS

typedef struct msperf_att_table msperf_att_table;

/* Loads a table in the layout of policies/att/vf_perf_table_v2.yaml. Errors are
 * "FILE:LINE: problem" (MSPERF_ERROR_PARSE / MSPERF_ERROR_INVALID / MSPERF_ERROR_IO). */
MSPERF_API msperf_att_table *msperf_att_table_load (const char *path, GError **error);
/* The shipped table ($(pkgdatadir)/policies/att/vf_perf_table_v2.yaml, or the source tree's
 * copy when running uninstalled). */
MSPERF_API msperf_att_table *msperf_att_table_load_default (GError **error);
MSPERF_API void msperf_att_table_free (msperf_att_table *table);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_att_table, msperf_att_table_free)

/* The file the table came from. Transfer none. */
MSPERF_API const char *msperf_att_table_path (const msperf_att_table *table);
/* A value of the `constants` block ("vf_head_cost", "vector_len_bytes", …), or fallback. */
MSPERF_API double msperf_att_table_constant (const msperf_att_table *table, const char *name,
                                  double fallback);
/* The per-dtype maps (dtype strings as the table writes them: "float16", "int4", "bool"):
 * elements per 256-B repeat (kRptEleMap), per 32-B block (kBlkEleMap), bytes per element.
 * FALSE when the dtype is absent from the map (int4 is absent from repeat_elems). */
MSPERF_API gboolean msperf_att_table_repeat_elems (const msperf_att_table *table, const char *dtype,
                                        int64_t *out);
MSPERF_API gboolean msperf_att_table_block_elems (const msperf_att_table *table, const char *dtype,
                                       int64_t *out);
MSPERF_API gboolean msperf_att_table_dtype_size (const msperf_att_table *table, const char *dtype,
                                      int64_t *out);

/* Single-dtype lookup (§1.2): the first row of key `type` whose dtypes contain dtype.
 * FALSE for an unknown key or dtype (the caller then adds nothing). */
MSPERF_API gboolean msperf_att_table_lookup (const msperf_att_table *table, const char *type,
                                  const char *dtype, int64_t *latency, int64_t *throughput);
/* Dtype-mapping lookup (§1.3): candidates (in,out), (in,default), (default,out),
 * (default,default); the first row matching the first candidate that matches anything.
 * *matched_in / *matched_out (may be NULL) receive the candidate used (transfer none).
 * FALSE when nothing matches (latency and throughput 0 then). */
MSPERF_API gboolean msperf_att_table_lookup_mapping (const msperf_att_table *table, const char *type,
                                          const char *in, const char *out, int64_t *latency,
                                          int64_t *throughput, const char **matched_in,
                                          const char **matched_out);

/* One table lookup of a ledger row. */
typedef struct msperf_att_component {
  char *perf_type;        /* table key: "Store", "Cast", "kMaskAnd", … */
  char *perf_dtype;       /* the dtype looked up; for a mapping lookup the input dtype */
  char *perf_out_dtype;   /* the output dtype of a mapping lookup, NULL for a single lookup */
  char *matched;          /* mapping lookups answered by a fallback: "default->default", … */
  msperf_expr *count;     /* total count passed to the lookup (call and loop factors included) */
  int64_t latency;        /* the row's latency and throughput (0 without a row) */
  int64_t throughput;
  gboolean no_table_entry;
} msperf_att_component;

/* One micro-API call site of a model (FORMATS §5 ATT ledger). */
typedef struct msperf_att_ledger_row {
  char *call_site;        /* where in the kernel: "CastExtend.b8", "BrcLastGatherTwo", … */
  char *real_api;         /* the AscendC micro API: "LoadAlign", "StoreAlign", "Cast", … */
  char *data_dtype;
  char *index_dtype;      /* gather index dtype, or NULL */
  char *mode;             /* the model branch: "common", "same_bit", … */
  char *api_params;       /* free text (template/distribution parameters), or NULL */
  msperf_expr *call_count;
  GPtrArray *components;  /* msperf_att_component*, owned */
} msperf_att_ledger_row;

/* The cost of one VF launch being accumulated: upstream's (latency, throughput) pair. */
typedef struct msperf_att_vf msperf_att_vf;

/* Expressions are built in ctx, which must outlive the accumulator's results. */
MSPERF_API msperf_att_vf *msperf_att_vf_new (const msperf_att_table *table, msperf_expr_ctx *ctx);
MSPERF_API void msperf_att_vf_free (msperf_att_vf *vf);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_att_vf, msperf_att_vf_free)

/* Opens a ledger row (strings copied, NULL allowed except call_site/real_api). Transfer none. */
MSPERF_API msperf_att_ledger_row *msperf_att_vf_row (msperf_att_vf *vf, const char *call_site,
                                          const char *real_api, const char *data_dtype,
                                          const char *index_dtype, const char *mode,
                                          const char *api_params,
                                          const msperf_expr *call_count);
/* AddVfInstructPerf: latency = Max(row.latency, latency); throughput += row.throughput·count;
 * nothing when no row matches (the component is still recorded, no_table_entry). */
MSPERF_API void msperf_att_vf_add (msperf_att_vf *vf, msperf_att_ledger_row *row, const char *perf_type,
                        const char *dtype, const msperf_expr *count);
/* AddVfInstructDtypeMappingPerf: the same through the mapping lookup (0/0 when unmatched). */
MSPERF_API void msperf_att_vf_add_mapping (msperf_att_vf *vf, msperf_att_ledger_row *row,
                                const char *perf_type, const char *in, const char *out,
                                const msperf_expr *count);
/* Shorthand: a row with a single lookup (out == NULL: single-dtype, else mapping). */
MSPERF_API void msperf_att_vf_call (msperf_att_vf *vf, const char *call_site, const char *real_api,
                         const char *mode, const char *perf_type, const char *in,
                         const char *out, const msperf_expr *count);

MSPERF_API msperf_expr *msperf_att_vf_max_latency (const msperf_att_vf *vf);
MSPERF_API msperf_expr *msperf_att_vf_throughput (const msperf_att_vf *vf);
/* head + max_latency + Σ throughput·count, head from constants.vf_head_cost. */
MSPERF_API msperf_expr *msperf_att_vf_cost (const msperf_att_vf *vf);
/* The rows in call order (msperf_att_ledger_row*). Transfer none. */
MSPERF_API GPtrArray *msperf_att_vf_ledger (const msperf_att_vf *vf);

/* A ledger as FORMATS §5 prints it: LIST of MAPs (call_site, real_api, data_dtype,
 * index_dtype, mode, api_params, call_count, perf_components: [{perf_type, perf_dtype,
 * component_count, latency, throughput, no_table_entry[, matched]}]). Counts are numbers when
 * static, printed expressions otherwise. Transfer full. */
MSPERF_API msperf_value *msperf_att_ledger_to_value (GPtrArray *rows);
/* An expression as a value: INT for an integer, FLOAT for another number, else STRING. */
MSPERF_API msperf_value *msperf_att_expr_value (const msperf_expr *e);

/* ---- att.bind: symbol values of an ATT op (core/att/att_bind.c) */

/* att.bind ({"SYM": number, …}) as SYM → msperf_expr* built in ctx (transfer full; empty
 * without att.bind). Names must be symbols and values finite numbers; the error names the
 * symbol ("att.bind.s0: expected a finite number, got inf"). */
MSPERF_API GHashTable *msperf_att_bindings (msperf_expr_ctx *ctx, const msperf_value *att,
                                            GError **error);

/* A module's parameter check: TRUE when att (a MAP without bind) is in the model's domain. */
typedef gboolean (*msperf_att_check_func) (const msperf_value *att, void *user_data,
                                           GError **error);

/* The domain check of att.bind, the one every symbol-binding path runs: check is called on a
 * copy of att whose bare symbols bound by att.bind are replaced by their values (strings under
 * keys naming a kind or a dtype are left alone) and whose bind is dropped, so a bound value
 * meets the checks and limits the same value written in place gets. When check refuses, the
 * error names the symbol and keeps check's reason: "att.bind.s0 = 1.5 is out of the
 * parameter's domain: REASON" (all bound symbols when only their combination is refused).
 * TRUE without att.bind. */
MSPERF_API gboolean msperf_att_bind_check (const msperf_value *att, msperf_att_check_func check,
                                           void *user_data, GError **error);

/* ---- the answer of an ATT model module (core/att_report.c) */

/* The ATT JSON object of FORMATS §5 for a model whose total cost is cost: a MAP with
 * expression (msperf_expr_str), expression_inlined, value (cost evaluated under bindings,
 * char* → const msperf_expr*, may be NULL; null while a symbol is unbound), ternaries (every
 * variable of ctx by name, printed), ledger (msperf_att_ledger_to_value of vf's ledger) and
 * vf_launches (msperf_att_expr_value of launches). A model appends its own keys after these.
 * NULL + error when cost cannot be inlined or evaluating it fails for another reason than an
 * unbound symbol (a zero divisor). Transfer full. */
MSPERF_API msperf_value *msperf_att_report_new (msperf_expr_ctx *ctx, const msperf_expr *cost,
                                     GHashTable *bindings, const msperf_att_vf *vf,
                                     const msperf_expr *launches, GError **error);

/* First half of an ATT module's answer: method "att", an ANALYTIC hit (latency NAN for now)
 * of kernel_type with rule "att" and confidence, and the `cycles` detail: the report's value
 * when it is a number, else the printed cost. Returns the cycles, NAN while symbolic. The
 * module then adds its own details (att_branch, …) and calls msperf_att_result_finish. */
MSPERF_API double msperf_att_result_begin (msperf_result *result, const char *kernel_type,
                                double confidence, const msperf_expr *cost,
                                const msperf_value *report);
/* Second half: copies every key of report into the details (in report order), then sets the
 * latency cycles / clock_ghz / 1e3 µs, or keeps the ANALYTIC answer without a latency and the
 * miss reason "symbolic_cost" (cycles NAN) or "no_vector_clock" (clock_ghz NAN or not > 0: a
 * module passes msperf_engine_vector_clock_ghz, the device profile's vector clock). */
MSPERF_API void msperf_att_result_finish (msperf_result *result, double clock_ghz,
                                          const msperf_value *report, double cycles);

G_END_DECLS

#endif /* MSPERF_ATT_H */
