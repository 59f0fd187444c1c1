/* msperf — the answer the transfer stages share (transfer.h): the reference's achieved share
 * of its roofline carries over to the op, as aiconfigurator's transfer ladder carries a
 * measured shape's or quantisation's utilisation to an unmeasured one
 * (`aic-core/.../operators/moe.rs`, SOL(query) / util). The answer is EXTRAPOLATED: another
 * kernel stands in, so it is not counted as data. */
#define G_LOG_DOMAIN "msperf"
#include <config.h>
#include <math.h>
#include "engine/transfer.h"
#include "engine/confidence.h"

static void
fill (msperf_engine *e, msperf_result *r, const char *method, const char *from_key,
      const char *from, const msperf_result *ref, double ratio)
{
  g_autofree char *base = g_strdup (r->miss_reason);
  double conf = msperf_confidence_value (e, "extrapolated", NULL);

  msperf_result_reset (r);
  msperf_result_set_method (r, method);
  msperf_result_set_hit (r, MSPERF_SOURCE_EXTRAPOLATED, ref->latency_us * ratio,
                         MIN (isnan (conf) ? 0.45 : conf, ref->confidence), ref->kernel_type,
                         method);
  msperf_result_detail_string (r, from_key, from);
  msperf_result_detail_double (r, "reference_latency_us", ref->latency_us);
  msperf_result_detail_string (r, "reference_source", msperf_source_name (ref->source));
  msperf_result_detail_string (r, "reference_method", ref->method);
  msperf_result_detail_double (r, "roofline_ratio", ratio);
  if (base)
    msperf_result_detail_string (r, "base_reason", base);
}

gboolean
msperf_transfer_answer (msperf_engine *e, const msperf_op *op, const msperf_op *ref,
                        msperf_data_answer_fn data_answer, const char *method,
                        const char *from_key, const char *from, msperf_result *r)
{
  g_autoptr (msperf_result) sub = NULL;
  const msperf_mapping_entry *entry;
  double rq, rr;

  g_return_val_if_fail (e != NULL && op != NULL && ref != NULL && data_answer != NULL
                        && method != NULL && from_key != NULL && from != NULL && r != NULL,
                        FALSE);
  sub = msperf_result_new ();
  if (data_answer (e, ref, sub, &entry) != MSPERF_HIT
      || (sub->source != MSPERF_SOURCE_MEASURED && sub->source != MSPERF_SOURCE_INTERPOLATED)
      || !isfinite (sub->latency_us))
    return FALSE;
  rq = msperf_engine_analytic_latency (e, op);
  rr = msperf_engine_analytic_latency (e, ref);
  if (!isfinite (rq) || !isfinite (rr) || rq <= 0.0 || rr <= 0.0)
    return FALSE;
  fill (e, r, method, from_key, from, sub, rq / rr);
  return TRUE;
}
