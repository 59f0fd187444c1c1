/* msperf — the split-transfer stage (split_transfer.h), between the interpolation stage and the
 * roofline.
 *
 * A fused MoE split over P ranks as moe_tp × moe_ep does the same work per rank whichever way
 * P is factored: every rank holds E/ep experts of I/tp columns and runs the same routed FLOPs
 * on a balanced load. A measured table covers some factorings and not others (NVIDIA's H200
 * MXFP4 MoE rows are all moe_tp 1; its fp8_block rows of some shapes stop at moe_tp 4), and the
 * roofline is a poor stand-in for the measured kernel: 4–6× under it for prefill batches and
 * off either way by up to 3× for small decode batches, on the rows of the same table. So an op
 * whose factoring is not in the table is answered from a measured factoring of the same P,
 * the nearest moe_tp first and of two as near the larger (the fewer expert-parallel ranks, the
 * less of the measured routing skew lands on one rank), scaled by the ratio of the two ops'
 * rooflines: the reference's achieved share of its roofline carries over, as aiconfigurator's
 * transfer ladder carries a measured shape's utilisation to an unmeasured one
 * (`aic-core/.../operators/moe.rs`, SOL(query) / util).
 *
 * The mapping entry declares it (doc/formats.md §1.1): `split_transfer: {fields: [A, B],
 * dims: {A: [[arg, dim], …], B: […]}}` — kwargs A and B split the ranks, and each listed tensor
 * dim is divided by its field. A reference factoring whose dims do not divide exactly is
 * skipped. The answer is EXTRAPOLATED (not data: the reference is another kernel shape),
 * method split_transfer, with the reference in its details. */
#define G_LOG_DOMAIN "msperf"
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include "engine/shared.h"
#include "engine/split_transfer.h"
#include "io/split_spec.h"

/* Rank counts past this are not split over (a factoring search of a hostile kwarg stays short). */
#define MAX_RANKS 4096
/* Dims past this are not rescaled (no product can overflow). */
#define MAX_DIM ((int64_t) 1 << 40)

static gboolean
kwarg_int (const msperf_op *op, const char *name, int64_t *out)
{
  return msperf_value_get_int (msperf_value_lookup (op->kwargs, name), out);
}

static msperf_tensor *
arg_tensor (msperf_op *op, int arg)
{
  msperf_value *v;

  if ((guint) arg >= op->args->len)
    return NULL;
  v = g_ptr_array_index (op->args, (guint) arg);
  return v->kind == MSPERF_VALUE_TENSOR ? &v->tensor : NULL;
}

/* Each listed dim × from / to; FALSE when a dim is missing or does not divide. */
static gboolean
rescale_dims (msperf_op *ref, const msperf_split_dim *dims, int n, int64_t from, int64_t to)
{
  for (int k = 0; k < n; k++)
    {
      msperf_tensor *t = arg_tensor (ref, dims[k].arg);
      int64_t d;

      if (t == NULL || dims[k].dim >= t->rank)
        return FALSE;
      d = t->dims[dims[k].dim];
      if (d <= 0 || d > MAX_DIM || (d * from) % to != 0)
        return FALSE;
      t->dims[dims[k].dim] = d * from / to;
    }
  return TRUE;
}

/* op under factoring (a2, b2) of its ranks, or NULL when its dims do not divide. */
static msperf_op *
reference_op (const msperf_op *op, const msperf_split_spec *spec, int64_t a, int64_t b,
              int64_t a2, int64_t b2)
{
  msperf_op *ref = msperf_op_copy (op);

  if (!rescale_dims (ref, spec->dims[0], spec->n_dims[0], a, a2)
      || !rescale_dims (ref, spec->dims[1], spec->n_dims[1], b, b2))
    {
      msperf_op_free (ref);
      return NULL;
    }
  msperf_value_map_set (ref->kwargs, spec->field[0], msperf_value_new_int (a2));
  msperf_value_map_set (ref->kwargs, spec->field[1], msperf_value_new_int (b2));
  return ref;
}

/* The other factorings of a × b ranks, nearest first in log(first field), ties larger first. */
static GArray *
factorings (int64_t a, int64_t b)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (int64_t));
  int64_t p = a * b;

  for (int64_t d = 1; d <= p; d++)
    if (p % d == 0 && d != a)
      g_array_append_val (out, d);
  for (guint i = 1; i < out->len; i++)
    for (guint j = i; j > 0; j--)
      {
        int64_t x = g_array_index (out, int64_t, j - 1), y = g_array_index (out, int64_t, j);
        double dx = fabs (log ((double) x / (double) a)), dy = fabs (log ((double) y / (double) a));

        if (dy < dx || (dy == dx && y > x))
          {
            g_array_index (out, int64_t, j - 1) = y;
            g_array_index (out, int64_t, j) = x;
          }
      }
  return out;
}

/* TRUE with r filled when factoring (a2, b2) is answered from data. */
static gboolean
try_factoring (msperf_engine *e, const msperf_op *op, const msperf_split_spec *spec, int64_t a,
               int64_t b, int64_t a2, msperf_data_answer_fn data_answer, msperf_result *r)
{
  int64_t b2 = a * b / a2;
  g_autoptr (msperf_op) ref = reference_op (op, spec, a, b, a2, b2);
  g_autofree char *from = NULL;

  if (ref == NULL)
    return FALSE;
  from = g_strdup_printf ("%s=%" G_GINT64_FORMAT ", %s=%" G_GINT64_FORMAT, spec->field[0], a2,
                          spec->field[1], b2);
  return msperf_transfer_answer (e, op, ref, data_answer, "split_transfer", "split_from", from,
                                 r);
}

gboolean
msperf_split_transfer_answer (msperf_engine *e, const msperf_op *op,
                              const msperf_mapping_entry *entry,
                              msperf_data_answer_fn data_answer, msperf_result *r)
{
  const msperf_value *raw;
  msperf_split_spec spec;
  g_autofree char *problem = NULL;
  g_autoptr (GArray) order = NULL;
  int64_t a, b;

  g_return_val_if_fail (e != NULL && op != NULL && entry != NULL && data_answer != NULL
                        && r != NULL, FALSE);
  raw = entry->raw ? msperf_value_lookup (entry->raw, "split_transfer") : NULL;
  if (raw == NULL || !msperf_split_spec_parse (raw, &spec, &problem)
      || !kwarg_int (op, spec.field[0], &a) || !kwarg_int (op, spec.field[1], &b)
      || a < 1 || b < 1 || a > MAX_RANKS || b > MAX_RANKS / a)
    return FALSE;
  order = factorings (a, b);
  for (guint k = 0; k < order->len; k++)
    if (try_factoring (e, op, &spec, a, b, g_array_index (order, int64_t, k), data_answer, r))
      return TRUE;
  return FALSE;
}
