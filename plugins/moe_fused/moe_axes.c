/* msperf module "moe_fused" — interpolation coordinates (seed 000 §2 extensions: "moe_fused /
 * DispatchFFNCombine, axes: tokens; exact: top-k, expert layout, EP, dtype").
 *
 * Axis `tokens`: dim 0 of x, the first input, after the exact lookup's shape rules (a leading
 * batch of 1 stripped, 3-D flattened to (a·b, c)). Regime: kernel, input count, input dtypes
 * (float16 as DT_BF16 when the kernel has no DT_FLOAT16 row, Q3) and every input shape with the
 * token dimension written `T` (the expert weights, hidden size and top-k must match exactly).
 * Exact fields: `ep_size` when the CSV has an `EP Size` column (the target's is parallel.ep_size),
 * `topk` (last dim of expert_idx) for the seven-input physical layout.
 * Not interpolated: alternates of the primary kernel (the exact lookup reads the primary only),
 * and entries with embedded_compute / embedded_communication — the stage answers the fused
 * kernel alone and would drop those terms. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/number.h>
#include "moe_private.h"

#define MOE_PHYSICAL_INPUTS 7
#define MAX_AXIS_INPUTS 16

static gboolean
normalise_x (msperf_tensor *x)
{
  msperf_tensor src = *x, *dst = x;

  if (dst->rank >= 3 && dst->dims[0] == 1)
    msperf_shape_strip (&src, dst);
  if (dst->rank == 3)
    {
      if (!msperf_int64_checked_mul (dst->dims[0], dst->dims[1], &dst->dims[0]))
        return FALSE;
      dst->dims[1] = dst->dims[2];
      dst->rank = 2;
    }
  return dst->rank == 2;
}

static void
append_shape (GString *s, const msperf_tensor *t, int64_t tokens, gboolean is_x)
{
  g_string_append_c (s, '[');
  for (int d = 0; d < t->rank; d++)
    {
      if (d)
        g_string_append_c (s, ',');
      /* dim 0 of x always, of a later input when it is the token count (expert_idx, routing
       * weights): those follow the target along the axis. */
      if (d == 0 && (is_x || (t->rank >= 2 && t->dims[0] == tokens)))
        g_string_append_c (s, 'T');
      else
        g_string_append_printf (s, "%" G_GINT64_FORMAT, t->dims[d]);
    }
  g_string_append_printf (s, "]:%s", msperf_dtype_profiling_name (t->dtype));
}

/* in[0] is already normalised. */
static gboolean
describe (const char *kernel, const msperf_tensor *in, size_t n, gboolean have_ep, int64_t ep,
          msperf_point *p)
{
  g_autoptr (GString) sig = g_string_new ("shapes=");
  char count[32];
  int64_t tokens;

  if (n < 1 || in[0].rank != 2 || (tokens = in[0].dims[0]) <= 0)
    return FALSE;
  for (size_t i = 0; i < n; i++)
    {
      if (i)
        g_string_append_c (sig, ';');
      append_shape (sig, &in[i], tokens, i == 0);
    }
  g_snprintf (count, sizeof count, "inputs=%zu", n);
  msperf_point_regime_add (p, kernel);
  msperf_point_regime_add (p, "moe_fused");
  msperf_point_regime_add (p, count);
  msperf_point_regime_add (p, sig->str);
  msperf_point_add_axis (p, "tokens", (double) tokens, TRUE);
  if (have_ep)
    msperf_point_add_field (p, "ep_size", ep, MSPERF_MATCH_EXACT);
  if (n == MOE_PHYSICAL_INPUTS && in[3].rank >= 1)
    msperf_point_add_field (p, "topk", in[3].dims[in[3].rank - 1], MSPERF_MATCH_EXACT);
  return TRUE;
}

static gboolean
table_has_fp16 (const msperf_table *t)
{
  for (size_t row = 0; t && row < msperf_table_n_rows (t); row++)
    {
      const msperf_slots *s = msperf_table_row_inputs (t, row);

      for (size_t i = 0; s && i < s->n; i++)
        if (s->t[i].dtype == MSPERF_DTYPE_FLOAT16)
          return TRUE;
    }
  return FALSE;
}

static gboolean
has_embedded_parts (const msperf_mapping_entry *entry)
{
  return entry && entry->raw
         && (msperf_value_lookup (entry->raw, "embedded_compute") != NULL
             || msperf_value_lookup (entry->raw, "embedded_communication") != NULL);
}

gboolean
moe_describe_target (msperf_engine *engine, void *state, const msperf_query *q, msperf_point *p)
{
  const msperf_value *project;
  const msperf_table *t;
  msperf_tensor in[MAX_AXIS_INPUTS];
  const char *kernel;
  size_t n;
  int64_t ep = 0;
  gboolean have_ep, fp16;

  (void) state;
  g_return_val_if_fail (engine != NULL && q != NULL && p != NULL, FALSE);
  if (q->kernel_types == NULL || q->kernel_types[0] == NULL || q->op == NULL
      || has_embedded_parts (q->entry))
    return FALSE;
  kernel = q->kernel_types[0];
  if (q->entry && q->entry->kernel_types && q->entry->kernel_types[0]
      && strcmp (kernel, q->entry->kernel_types[0]) != 0)
    return FALSE;
  t = msperf_engine_table (engine, kernel, NULL);
  if (t == NULL)
    return FALSE;
  have_ep = msperf_table_column (t, "EP Size") >= 0;
  if (have_ep && (ep = msperf_engine_parallel (engine)->ep_size) <= 0)
    return FALSE;  /* the exact lookup's ep_size_not_configured */
  project = q->entry && q->entry->raw ? msperf_value_lookup (q->entry->raw, "project_full_shape")
                                      : NULL;
  if (project && project->kind == MSPERF_VALUE_BOOL && project->b
      && moe_project_inputs (q->op, in))
    n = MOE_PHYSICAL_INPUTS;
  else
    {
      n = msperf_input_count_limit (q->n_inputs, p->input_limit);
      if (n > MAX_AXIS_INPUTS)
        return FALSE;
      for (size_t i = 0; i < n; i++)
        in[i] = q->inputs[i];
    }
  fp16 = table_has_fp16 (t);
  for (size_t i = 0; i < n; i++)
    {
      in[i].values = NULL;
      in[i].n_values = 0;
      if (!msperf_dtype_is_mapped (in[i].dtype))
        return FALSE;
      if (in[i].dtype == MSPERF_DTYPE_FLOAT16 && !fp16)
        in[i].dtype = MSPERF_DTYPE_BF16;
    }
  if (n < 1 || !normalise_x (&in[0]))
    return FALSE;
  return describe (kernel, in, n, have_ep, ep, p);
}

/* The `EP Size` cell as an integer (its integer part, as the exact filter compares). */
static gboolean
row_ep (const msperf_table *t, size_t row, int col, int64_t *ep)
{
  double v;

  if (!msperf_number_parse (msperf_table_cell (t, row, col), &v) || fabs (v) > 9.0e15)
    return FALSE;
  *ep = (int64_t) v;
  return TRUE;
}

gboolean
moe_describe_row (msperf_engine *engine, void *state, const msperf_table *t, size_t row,
                  msperf_point *p)
{
  msperf_tensor in[MAX_AXIS_INPUTS];
  int col;
  int64_t ep = 0;
  size_t n;

  (void) engine;
  (void) state;
  g_return_val_if_fail (t != NULL && p != NULL, FALSE);
  col = msperf_table_column (t, "EP Size");
  if (col >= 0 && !row_ep (t, row, col, &ep))
    return FALSE;
  if (!msperf_table_row_inputs_nd (t, row, p->input_limit, in, MAX_AXIS_INPUTS, &n))
    return FALSE;
  if (!normalise_x (&in[0]))
    return FALSE;
  return describe (msperf_table_kernel_type (t), in, n, col >= 0, ep, p);
}
