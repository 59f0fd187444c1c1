/* msperf module "elementwise": exact lookup by output shape (reference §2.6). Only the primary
 * kernel is scanned (quirk Q17, reproduced); a row with the query's output dtype is preferred
 * over an earlier row of another dtype (quirk Q25, fixed). An entry with proxy_bytes is looked up
 * as the unary op that moves the op's bytes, in the kernel's unary rows (elementwise_proxy.h). */
#include <config.h>
#include <string.h>
#include <msperf/plugin.h>
#include "elementwise_axes.h"
#include "elementwise_proxy.h"

/* Element sizes as upstream's elementwise scaling counts them; 0 rejects the row. */
static guint
scale_bytes (msperf_dtype d)
{
  switch (d)
    {
    case MSPERF_DTYPE_BF16:
    case MSPERF_DTYPE_FLOAT16:
    case MSPERF_DTYPE_INT16:
      return 2;
    case MSPERF_DTYPE_FLOAT32:
    case MSPERF_DTYPE_INT32:
      return 4;
    case MSPERF_DTYPE_INT8:
      return 1;
    case MSPERF_DTYPE_INT64:
      return 8;
    default:
      return 0;
    }
}

/* tc ∈ {c, strip(c)} or pad_match(tc, c) or pad_match(tc, strip(c)). */
static gboolean
shape_fits (const msperf_tensor *tc, const msperf_tensor *c)
{
  msperf_tensor sc;

  msperf_shape_strip (c, &sc);
  return msperf_tensor_same_shape (tc, c) || msperf_tensor_same_shape (tc, &sc)
         || msperf_shape_pad_match (tc, c) || msperf_shape_pad_match (tc, &sc);
}

static gboolean
output_fits (const msperf_tensor *tc, const msperf_tensor *c)
{
  msperf_tensor flat;

  if (shape_fits (tc, c))
    return TRUE;
  /* A (a,b,c) output also matches a row measured flattened to (a*b, c). */
  if (tc->rank != 3 || c->rank != 2)
    return FALSE;
  flat = *tc;
  flat.values = NULL;
  flat.rank = 2;
  if (!msperf_int64_checked_mul (tc->dims[0], tc->dims[1], &flat.dims[0]))
    return FALSE;
  flat.dims[1] = tc->dims[2];
  return shape_fits (&flat, c);
}

static msperf_status
elementwise_lookup (msperf_engine *engine, void *state, const msperf_query *q, msperf_result *r)
{
  const msperf_tensor *out;
  msperf_tensor tc_out, proxy_in, proxy_out;  /* proxy_in: the describe side's; unused here */
  elementwise_proxy_status proxy;
  const char *kernel, *reason = NULL;
  int64_t proxy_bytes = 0;
  const msperf_table *t;
  g_autoptr (GError) error = NULL;
  msperf_dtype want;
  gssize same = -1, alias = -1, scaled = -1;
  double latency, scale = 1.0, confidence = 1.0;
  size_t row;

  (void) state;
  g_return_val_if_fail (q != NULL && r != NULL, MSPERF_ERROR);
  proxy = elementwise_proxy_tensors (q, &proxy_in, &proxy_out, &proxy_bytes, &reason);
  if (proxy == ELEMENTWISE_PROXY_FAILED)
    return msperf_result_set_miss (r, "%s", reason);
  out = proxy == ELEMENTWISE_PROXY_READY ? &proxy_out : q->op ? msperf_op_output (q->op) : NULL;
  /* Without an output tensor the op is answered by the compute path (reference §2.6 step 1):
   * the engine asks this module's fallback_mode. */
  if (out == NULL || out->rank == 0)
    return MSPERF_FALLBACK;
  if (q->kernel_types == NULL || q->kernel_types[0] == NULL)
    return msperf_result_set_miss (r, "no_kernel_type");
  kernel = q->kernel_types[0];
  t = msperf_engine_table (engine, kernel, &error);
  if (t == NULL)
    return msperf_result_set_miss (r, "csv_not_found");

  msperf_shape_strip (out, &tc_out);
  tc_out.values = NULL;
  want = msperf_dtype_is_mapped (out->dtype) ? out->dtype : MSPERF_DTYPE_UNKNOWN;
  for (row = 0; row < msperf_table_n_rows (t) && same < 0; row++)
    {
      const msperf_slots *outs, *ins;
      msperf_dtype have;

      if (!msperf_table_row_valid (t, row))
        continue;
      /* A proxy is one read and one write: only the kernel's unary rows move its bytes. */
      ins = proxy == ELEMENTWISE_PROXY_READY ? msperf_table_row_inputs (t, row) : NULL;
      if (proxy == ELEMENTWISE_PROXY_READY && (ins == NULL || ins->n != 1))
        continue;
      outs = msperf_table_row_outputs (t, row);
      if (outs == NULL || outs->n == 0 || !output_fits (&tc_out, &outs->t[0]))
        continue;
      have = outs->t[0].dtype;
      if (want != MSPERF_DTYPE_UNKNOWN && have == want)
        same = (gssize) row;
      else if (alias < 0 && want == MSPERF_DTYPE_FLOAT16 && have == MSPERF_DTYPE_BF16)
        alias = (gssize) row;
      else if (scaled < 0 && scale_bytes (want) && scale_bytes (have))
        scaled = (gssize) row;
    }

  if (same >= 0)
    row = (size_t) same;
  else if (alias >= 0)
    /* Q3: upstream stores fp16 as DT_BF16; that row answers an fp16 output unscaled. */
    row = (size_t) alias;
  else if (scaled >= 0)
    {
      row = (size_t) scaled;
      scale = (double) scale_bytes (want)
              / (double) scale_bytes (msperf_table_row_outputs (t, row)->t[0].dtype);
      confidence = 0.9;
    }
  else
    return msperf_result_set_miss (r, "elementwise_output_shape_mismatch");

  latency = msperf_table_row_latency (t, row) * scale;
  msperf_result_set_hit (r, MSPERF_SOURCE_MEASURED, latency, confidence, kernel, "elementwise");
  msperf_result_set_method (r, "exact");
  msperf_result_detail_string (r, "query_mode", "elementwise");
  if (same < 0 && alias < 0)
    msperf_result_detail_double (r, "dtype_scale", scale);
  if (same < 0 && alias >= 0)
    msperf_result_detail_string (r, "dtype_alias", "DT_FLOAT16->DT_BF16");
  if (proxy == ELEMENTWISE_PROXY_READY)
    {
      msperf_result_detail_string (r, "proxy_bytes",
                                   msperf_value_get_string (
                                     msperf_value_lookup (q->entry->raw, "proxy_bytes")));
      msperf_result_detail_double (r, "proxy_op_bytes", (double) proxy_bytes);
    }
  {
    const msperf_slots *outs = msperf_table_row_outputs (t, row);
    for (size_t i = 0; i < outs->n; i++)
      msperf_result_add_kernel_shape (r, &outs->t[i]);
  }
  return MSPERF_HIT;
}

MSPERF_PLUGIN_DEFINE (
  .name = "elementwise",
  .version = PACKAGE_VERSION,
  .description = "elementwise ops: exact lookup by output shape with dtype scaling",
  .fallback_mode = "compute",
  .lookup = elementwise_lookup,
  /* Interpolated only when a policy lists the mode in interpolation.modes (opt-in:
   * no MSPERF_PLUGIN_INTERPOLATE_BY_DEFAULT). */
  .describe_target = elementwise_describe_target,
  .describe_row = elementwise_describe_row,
  .no_target_reason = "elementwise_interpolation_failed",
);
