/* msperf — the answer to one query: latency, where it came from, how much to trust it. */
#ifndef MSPERF_RESULT_H
#define MSPERF_RESULT_H

#include <msperf/api.h>
#include <glib.h>
#include <msperf/op.h>

G_BEGIN_DECLS

typedef enum {
  MSPERF_SOURCE_NONE = 0,  /* no answer yet (a miss before the fallbacks ran) */
  MSPERF_SOURCE_MEASURED,
  MSPERF_SOURCE_INTERPOLATED,
  MSPERF_SOURCE_EXTRAPOLATED, /* only with interpolation.allow_extrapolation (seed 000 §8;
                               * reference Q21: upstream declares it, never produces it) */
  MSPERF_SOURCE_PARTIAL,
  MSPERF_SOURCE_ANALYTIC,
  MSPERF_SOURCE_REJECTED   /* the input line was invalid */
} msperf_source;

/* What a module slot returns. */
typedef enum {
  MSPERF_HIT = 0,
  MSPERF_MISS,   /* result->miss_reason says why */
  MSPERF_ERROR,  /* the module could not run (bad parameters); miss_reason holds the message */
  MSPERF_FALLBACK /* a lookup's "not mine": the engine asks the module's fallback_mode */
} msperf_status;

MSPERF_API const char *msperf_source_name (msperf_source source);

/* The result object. The core creates it; modules fill it only through the setters below,
 * which copy every string (a module keeps no pointer into it after returning). */
typedef struct msperf_result {
  msperf_source source;
  double latency_us;          /* NAN when unknown */
  double confidence;          /* 0..1 */
  char *kernel_type;          /* the kernel that answered, or NULL */
  char *method;               /* exact, linear_1d, griddata_linear, comm_alpha_beta, roofline, att, ... */
  char *shape_match_rule;     /* identity, transpose, padding, elementwise, attention, ... */
  char *miss_reason;          /* NULL on a hit */
  int interpolation_dim;      /* 0 unless interpolated */
  GPtrArray *kernel_shapes;   /* msperf_tensor*: the CSV shapes as written, owned */
  msperf_value *details;      /* MAP, ordered, never NULL. Read it with msperf_result_details
                               * (msperf/details.h): an answer may keep its details as a
                               * compact record until they are read (ABI 2.1); then this field
                               * holds only the keys set after that record. Sub-answers a
                               * module gets from msperf_engine_subquery are always built. */
} msperf_result;

/* Results are reference counted: msperf_result_new gives the caller the one reference, and
 * msperf_result_free drops a reference (the result is freed with the last one), so every
 * "transfer full" result is released with msperf_result_free as before. A result whose
 * reference is shared (msperf_engine_query's answers share theirs with the engine's answer
 * cache) is read-only: the setters below refuse it; msperf_result_copy gives a private,
 * modifiable copy. */
MSPERF_API msperf_result *msperf_result_new (void);
MSPERF_API void msperf_result_free (msperf_result *result);
/* Back to the state of msperf_result_new (for reuse). */
MSPERF_API void msperf_result_reset (msperf_result *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_result, msperf_result_free)

/* Another reference to result (returns it). */
MSPERF_API msperf_result *msperf_result_ref (msperf_result *result);
/* Drops one reference (the same as msperf_result_free). NULL is ignored. */
MSPERF_API void msperf_result_unref (msperf_result *result);
/* TRUE when more than one reference is held: the result must not be modified. */
MSPERF_API gboolean msperf_result_is_shared (const msperf_result *result);
/* A deep copy with a single reference (modifiable). Transfer full. */
MSPERF_API msperf_result *msperf_result_copy (const msperf_result *result);

/* A hit: sets source, latency, confidence, rule and method, clears miss_reason. */
MSPERF_API void msperf_result_set_hit (msperf_result *result, msperf_source source, double latency_us,
                            double confidence, const char *kernel_type, const char *rule);
/* A miss: reason printf-style; the latency stays NAN. Returns MSPERF_MISS for tail calls. */
MSPERF_API msperf_status msperf_result_set_miss (msperf_result *result, const char *fmt, ...)
  G_GNUC_PRINTF (2, 3);
MSPERF_API void msperf_result_set_method (msperf_result *result, const char *method);
/* The answer's source, latency and confidence alone (kernel, rule, reason untouched): a
 * model's answer without a latency, a PARTIAL sum, a fallback estimate. */
MSPERF_API void msperf_result_set_answer (msperf_result *result, msperf_source source,
                                          double latency_us, double confidence);
/* The reason alone (printf-style; NULL fmt clears it), latency untouched: a PARTIAL answer
 * keeps its latency and says what it lacks. */
MSPERF_API void msperf_result_set_reason (msperf_result *result, const char *fmt, ...)
  G_GNUC_PRINTF (2, 3);
MSPERF_API void msperf_result_set_rule (msperf_result *result, const char *rule);
MSPERF_API void msperf_result_set_interpolation_dim (msperf_result *result, int dim);
/* REJECTED: refused parameters; latency NAN; reason kept when the module set one, else
 * default_reason. */
MSPERF_API void msperf_result_set_rejected (msperf_result *result, const char *default_reason);
MSPERF_API void msperf_result_add_kernel_shape (msperf_result *result, const msperf_tensor *shape);

/* Detail items of a composite answer (FORMATS § details), built alike by the engine's
 * aggregation of a decomposer's parts and by a module answering static sub_kernels:
 * one sub_kernel_durations item [kernel, round(µs, 2)]; */
MSPERF_API msperf_value *msperf_sub_kernel_duration_new (const char *kernel, double latency_us);
/* one sub_kernel_shapes item (upstream SubKernelShapeInfo), taking ownership of the two lists; */
MSPERF_API msperf_value *msperf_sub_kernel_shape_new (const char *kernel, msperf_value *simulation,
                                                      msperf_value *kernel_shapes,
                                                      const char *rule);
/* the kernel_shapes of a part's answer as a LIST of shapes. All transfer full. */
MSPERF_API msperf_value *msperf_result_kernel_shapes_value (const msperf_result *result);

/* Ordered details (keys keep their first insertion position; setting again replaces). */
MSPERF_API void msperf_result_detail_string (msperf_result *result, const char *key, const char *value);
MSPERF_API void msperf_result_detail_int (msperf_result *result, const char *key, int64_t value);
MSPERF_API void msperf_result_detail_double (msperf_result *result, const char *key, double value);
MSPERF_API void msperf_result_detail_bool (msperf_result *result, const char *key, gboolean value);
/* Takes ownership of value. */
MSPERF_API void msperf_result_detail_value (msperf_result *result, const char *key, msperf_value *value);

G_END_DECLS

#endif /* MSPERF_RESULT_H */
