/* msperf module "compute" — batched matmuls from a single-GEMM table (compute_batched.h). */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/plugin.h>
#include "compute_batched.h"

/* Largest flattened row count asked of the GEMM table (far above any measured m; keeps the
 * products below int64 overflow for any dims the trace may hold). */
#define BATCHED_MAX_ROWS ((int64_t) 1 << 40)
/* At most this many chunks of rows beyond the table, each of at least this many rows. */
#define BATCHED_MAX_CHUNKS 64
#define BATCHED_MIN_CHUNK_ROWS 1024

const char *
compute_batched_kernel (const msperf_query *q)
{
  const msperf_value *v;

  if (q == NULL || q->entry == NULL || q->entry->raw == NULL)
    return NULL;
  v = msperf_value_lookup (q->entry->raw, "batched_from");
  return v ? msperf_value_get_string (v) : NULL;
}

static void
set_tensor (msperf_tensor *t, msperf_dtype dtype, int rank, const int64_t *dims)
{
  memset (t, 0, sizeof *t);
  t->rank = rank;
  t->dtype = dtype;
  for (int i = 0; i < rank; i++)
    t->dims[i] = dims[i];
}

static void
op_add_tensor (msperf_op *op, const msperf_tensor *t)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_TENSOR);

  /* Shape and dtype only: the values (if any) stay the caller's. */
  set_tensor (&v->tensor, t->dtype, t->rank, t->dims);
  g_ptr_array_add (op->args, v);
}

/* The roofline of name(a, w) -> out, in µs (NAN when the engine cannot tell). */
static double
roofline_us (msperf_engine *engine, const char *name, const msperf_tensor *a,
             const msperf_tensor *w, const msperf_tensor *out)
{
  g_autoptr (msperf_op) op = msperf_op_new (name);
  msperf_tensor *o = g_new0 (msperf_tensor, 1);

  op_add_tensor (op, a);
  op_add_tensor (op, w);
  set_tensor (o, out->dtype, out->rank, out->dims);
  g_ptr_array_add (op->out, o);
  return msperf_engine_roofline_us (engine, op);
}

msperf_status
compute_batched_lookup (msperf_engine *engine, const msperf_query *q, const char *kernel,
                        msperf_result *r)
{
  const msperf_tensor *a, *w;
  msperf_tensor flat_a, flat_w, flat_o, bmm_o;
  msperf_subquery *sq;
  g_autoptr (msperf_result) sub = NULL;
  int64_t b, m, k, n;
  double batched_roof, gemm_roof, extra = 0.0, gemm_us = NAN;
  g_autofree char *first_reason = NULL;
  int64_t chunks;
  msperf_source source;
  msperf_status status;

  g_return_val_if_fail (q != NULL && kernel != NULL && r != NULL, MSPERF_ERROR);
  if (q->n_inputs < 2 || q->inputs[0].rank != 3 || q->inputs[1].rank != 3)
    return msperf_result_set_miss (r, "batched_from_bad_dims:rank");
  a = &q->inputs[0];
  w = &q->inputs[1];
  b = a->dims[0];
  m = a->dims[1];
  k = a->dims[2];
  n = w->dims[2];
  if (b <= 0 || m <= 0 || k <= 0 || n <= 0 || w->dims[0] != b || w->dims[1] != k
      || m > BATCHED_MAX_ROWS / b)
    return msperf_result_set_miss (r, "batched_from_bad_dims:[%" G_GINT64_FORMAT ",%"
                                   G_GINT64_FORMAT ",%" G_GINT64_FORMAT "]x[%" G_GINT64_FORMAT
                                   ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT "]",
                                   a->dims[0], a->dims[1], a->dims[2], w->dims[0], w->dims[1],
                                   w->dims[2]);

  /* The GEMM of the same FLOPs: [b*M, K] x [K, N], answered as aten.mm is (exact, else the
   * interpolation of the kernel's table). Rows beyond the table are answered in c equal
   * chunks (c = 2, 4, ... 64) scaled by the row ratio: a GEMM that large is compute-bound,
   * its time linear in the rows; such an answer is EXTRAPOLATED. */
  set_tensor (&flat_w, w->dtype, 2, (int64_t[]) { k, n });
  set_tensor (&flat_a, a->dtype, 2, (int64_t[]) { b * m, k });
  set_tensor (&flat_o, a->dtype, 2, (int64_t[]) { b * m, n });
  set_tensor (&bmm_o, a->dtype, 3, (int64_t[]) { b, m, n });
  for (chunks = 1; chunks <= BATCHED_MAX_CHUNKS; chunks *= 2)
    {
      msperf_tensor part_a;
      int64_t rows = (b * m + chunks - 1) / chunks;

      if (chunks > 1 && rows < BATCHED_MIN_CHUNK_ROWS)
        break;
      set_tensor (&part_a, a->dtype, 2, (int64_t[]) { rows, k });
      sq = msperf_subquery_new ("compute", kernel);
      msperf_subquery_add_input (sq, &part_a);
      msperf_subquery_add_input (sq, &flat_w);
      g_clear_pointer (&sub, msperf_result_free);
      sub = msperf_result_new ();
      status = msperf_engine_subquery (engine, q->op, sq, sub);
      msperf_subquery_free (sq);
      if (status == MSPERF_HIT && !isnan (sub->latency_us))
        {
          gemm_us = sub->latency_us * (double) (b * m) / (double) rows;
          break;
        }
      if (first_reason == NULL)
        first_reason = g_strdup (sub->miss_reason ? sub->miss_reason : "shape_mismatch");
    }
  if (isnan (gemm_us))
    return msperf_result_set_miss (r, "batched_from_gemm_miss:%s", first_reason);

  /* The b - 1 other right-hand matrices the batched kernel reads: the roofline difference
   * (zero for b = 1; launch overheads cancel). */
  batched_roof = roofline_us (engine, "aten.bmm.default", a, w, &bmm_o);
  gemm_roof = roofline_us (engine, "aten.mm.default", &flat_a, &flat_w, &flat_o);
  if (isfinite (batched_roof) && isfinite (gemm_roof) && batched_roof > gemm_roof)
    extra = batched_roof - gemm_roof;

  source = sub->source == MSPERF_SOURCE_EXTRAPOLATED || chunks > 1
             ? MSPERF_SOURCE_EXTRAPOLATED : MSPERF_SOURCE_INTERPOLATED;
  msperf_result_set_hit (r, source, gemm_us + extra, sub->confidence,
                         sub->kernel_type ? sub->kernel_type : kernel,
                         sub->shape_match_rule ? sub->shape_match_rule : "identity");
  msperf_result_set_method (r, COMPUTE_BATCHED_METHOD);
  for (guint i = 0; i < sub->kernel_shapes->len; i++)
    msperf_result_add_kernel_shape (r, g_ptr_array_index (sub->kernel_shapes, i));
  msperf_result_detail_int (r, "batch", b);
  msperf_result_detail_double (r, "gemm_us", gemm_us);
  msperf_result_detail_int (r, "row_chunks", chunks);
  msperf_result_detail_string (r, "gemm_method", sub->method ? sub->method : "exact");
  msperf_result_detail_string (r, "gemm_source", msperf_source_name (sub->source));
  msperf_result_detail_double (r, "extra_weight_read_us", extra);
  return MSPERF_HIT;
}
