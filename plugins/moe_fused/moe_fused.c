/* msperf module "moe_fused": the fused MoE kernel DispatchFFNCombine (reference §1.6, §2.7).
 *
 * 1. The primary kernel's CSV must exist (csv_not_found); a CSV with an `EP Size` column needs
 *    a configured expert-parallel size (parallel.ep_size; else ep_size_not_configured).
 * 2. Inputs: with `project_full_shape` the TensorCast arguments are projected onto the seven
 *    physical inputs (x flattened to (T,H), the stacked gmm1 and gmm2 expert weights, expert_idx
 *    as INT32, (E·gmm1_last,) INT64, (E·H,) INT64, an expert_idx-shaped FLOAT) and
 *    tc_input_count is ignored; otherwise the TC inputs are truncated to tc_input_count.
 * 3. Row match. Without an `EP Size` column the row is found by the compute module through a
 *    compute sub-query (one implementation of the compute row rules). With the column the EP
 *    size must be checked per row, which a sub-query cannot do, so this module scans the rows
 *    itself with the subset of the compute rules DispatchFFNCombine's inputs can need:
 *    exact, batch strip, padding, padding after strip, 3-D → 2-D flatten, FRACTAL_NZ restore,
 *    exact dtypes with the float16 → DT_BF16 retry (Q3), rule names as the Q4 fix, first
 *    matching row. Limitation: the kernel-specific rewrites of other kernels (matmul transposes,
 *    RoPE, SwiGlu, ReshapeAndCache) are not applied there — they never concern DFC's inputs —
 *    and the compute sub-query selects the nearest row (exact before padded) where upstream's
 *    moe path takes the first matching one; they differ only when a padded row precedes an
 *    exact row of the same shapes.
 *    An `identity` match of projected inputs is reported as `projected_full_shape`.
 * 4. embedded_compute (a list of specs, or one): `residual_norm_from_activation` (AddRmsNormBias
 *    on [(T,H), (T,H), (H,), (H,)] in the activation dtype, through a compute sub-query) and
 *    `routing_weight_cast` (a Cast of the routing weights, args[1]'s shape in args[0]'s dtype,
 *    whose row must also have exactly that output shape and the spec's output_dtype — an output
 *    check a compute sub-query cannot make, so scanned here). A spec that finds no row adds
 *    nothing.
 * 5. embedded_communication {kernel_type: hcom_*, message_bytes_mode: routed_input,
 *    group_type: expert_parallel, interpolation_method, optional}: message_bytes =
 *    bytes(x)·topk (topk = expert_idx.shape[-1]), the group is the last argument, answered by a
 *    communication sub-query. Out of its measured range → the compute part alone with
 *    embedded_communication_active: false; any other failure → PARTIAL, confidence 0.5.
 *    Confidence 1.0 without communication, 0.9 / 0.8 with a measured / interpolated one. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/plugin.h>
#include <msperf/details.h>
#include <msperf/number.h>
#include "moe_private.h"

#define CONFIDENCE_PARTIAL 0.5
/* A part answered by the interpolation stage (interpolation.part_modes opt-in): the wrapper's
 * composite confidence (reference §2.12). */
#define CONFIDENCE_INTERPOLATED_PART 0.5

/* One embedded part that answered. */
typedef struct part {
  char *kernel;
  double latency;
  char *rule;
  GPtrArray *shapes; /* msperf_tensor*, owned */
  gboolean interpolated; /* answered by the interpolation stage */
} part;

static void
part_free (gpointer p)
{
  part *x = p;

  g_free (x->kernel);
  g_free (x->rule);
  g_ptr_array_unref (x->shapes);
  g_free (x);
}

static part *
part_new (const char *kernel, double latency, const char *rule)
{
  part *x = g_new0 (part, 1);

  x->kernel = g_strdup (kernel);
  x->latency = latency;
  x->rule = g_strdup (rule);
  x->shapes = g_ptr_array_new_with_free_func (g_free);
  return x;
}

static void
part_add_shape (part *x, const msperf_tensor *t)
{
  msperf_tensor *c = g_new0 (msperf_tensor, 1);

  *c = *t;
  c->values = NULL;
  c->n_values = 0;
  g_ptr_array_add (x->shapes, c);
}

static const msperf_value *
entry_field (const msperf_query *q, const char *key)
{
  return q->entry && q->entry->raw ? msperf_value_lookup (q->entry->raw, key) : NULL;
}

/* The first tensor in a tensor or (nested) list value, or NULL. */
static const msperf_tensor *
first_tensor (const msperf_value *v)
{
  if (v == NULL)
    return NULL;
  if (v->kind == MSPERF_VALUE_TENSOR)
    return &v->tensor;
  if (v->kind == MSPERF_VALUE_LIST)
    for (guint k = 0; k < v->items->len; k++)
      {
        const msperf_tensor *t = first_tensor (g_ptr_array_index (v->items, k));
        if (t)
          return t;
      }
  return NULL;
}

static void
set_dims (msperf_tensor *t, msperf_dtype dtype, int rank, const int64_t *dims)
{
  memset (t, 0, sizeof *t);
  t->dtype = dtype;
  t->format = MSPERF_FORMAT_ND;
  t->rank = rank;
  for (int d = 0; d < rank; d++)
    t->dims[d] = dims[d];
}

/* Per-expert weight list → the stacked physical shape (E, ·, ·) with the hidden size on axis
 * 1 (gmm1, hidden_axis 0 of each expert) or axis 2 (gmm2, hidden_axis 1). */
static gboolean
stacked_weight_shape (const msperf_value *weights, int64_t hidden, int hidden_axis,
                      msperf_tensor *out)
{
  const msperf_tensor *w;
  int64_t e, a, b;

  if (weights == NULL || weights->kind != MSPERF_VALUE_LIST || weights->items->len == 0)
    return FALSE;
  w = first_tensor (g_ptr_array_index (weights->items, 0));
  if (w == NULL || w->rank != 2)
    return FALSE;
  e = weights->items->len;
  a = w->dims[0];
  b = w->dims[1];
  if ((hidden_axis == 0 && a != hidden && b == hidden)
      || (hidden_axis == 1 && b != hidden && a == hidden))
    {
      /* the expert weight is stored the other way round */
      int64_t tmp = a;
      a = b;
      b = tmp;
    }
  set_dims (out, w->dtype, 3, (const int64_t[]) { e, a, b });
  return TRUE;
}

/* See moe_private.h. */
gboolean
moe_project_inputs (const msperf_op *op, msperf_tensor in[7])
{
  const msperf_value *xv = msperf_op_arg (op, 0), *iv = msperf_op_arg (op, 1);
  const msperf_value *gmm1, *gmm2;
  const msperf_tensor *x, *idx;
  int64_t xs[2], h, n;

  if (op->args->len < 8 || xv == NULL || xv->kind != MSPERF_VALUE_TENSOR || iv == NULL
      || iv->kind != MSPERF_VALUE_TENSOR)
    return FALSE;
  x = &xv->tensor;
  idx = &iv->tensor;
  if (x->rank == 2)
    {
      xs[0] = x->dims[0];
      xs[1] = x->dims[1];
    }
  else if (x->rank == 3)
    {
      if (!msperf_int64_checked_mul (x->dims[0], x->dims[1], &xs[0]))
        return FALSE;
      xs[1] = x->dims[2];
    }
  else
    return FALSE;
  if (idx->rank < 1)
    return FALSE;
  if (strcmp (op->name, "tensor_cast.dispatch_ffn_combine.default") == 0)
    gmm2 = msperf_op_arg (op, 4);
  else if (strcmp (op->name, "tensor_cast.dispatch_ffn_combine_quant.default") == 0
           || strcmp (op->name, "tensor_cast.dispatch_ffn_combine_quant_int4.default") == 0
           || strcmp (op->name, "tensor_cast.dispatch_ffn_combine_fp8.default") == 0
           || strcmp (op->name, "tensor_cast.dispatch_ffn_combine_mxfp4.default") == 0)
    gmm2 = msperf_op_arg (op, 7);
  else
    return FALSE;
  gmm1 = msperf_op_arg (op, 2);
  h = xs[1];
  set_dims (&in[0], x->dtype, 2, xs);
  if (!stacked_weight_shape (gmm1, h, 0, &in[1]) || !stacked_weight_shape (gmm2, h, 1, &in[2]))
    return FALSE;
  set_dims (&in[3], MSPERF_DTYPE_INT32, idx->rank, idx->dims);
  if (!msperf_int64_checked_mul (in[1].dims[0], in[1].dims[2], &n))
    return FALSE;
  set_dims (&in[4], MSPERF_DTYPE_INT64, 1, &n);
  if (!msperf_int64_checked_mul (in[1].dims[0], h, &n))
    return FALSE;
  set_dims (&in[5], MSPERF_DTYPE_INT64, 1, &n);
  set_dims (&in[6], MSPERF_DTYPE_FLOAT32, idx->rank, idx->dims);
  return TRUE;
}

/* ------------------------------------------------------------------ own row matcher */

static gboolean
dtype_matches (msperf_dtype tc, msperf_dtype csv, gboolean fp16_as_bf16)
{
  if (!msperf_dtype_is_mapped (tc))
    return FALSE;
  if (tc == MSPERF_DTYPE_FLOAT16 && fp16_as_bf16)
    tc = MSPERF_DTYPE_BF16;
  return tc == csv;
}

static gboolean
flatten_3d (const msperf_tensor *tc, msperf_tensor *out)
{
  msperf_tensor s;
  const msperf_tensor *t = tc;

  msperf_shape_strip (tc, &s);
  if (s.rank == 3)
    t = &s;
  if (t->rank != 3)
    return FALSE;
  *out = *t;
  out->values = NULL;
  out->rank = 2;
  if (!msperf_int64_checked_mul (t->dims[0], t->dims[1], &out->dims[0]))
    return FALSE;
  out->dims[1] = t->dims[2];
  return TRUE;
}

/* The rule name of one input, or NULL when nothing fits (reference §2.4 rules a, b, f, g, h). */
static const char *
input_rule (const msperf_tensor *tc, const msperf_tensor *csv_slot, gboolean flatten_kernel)
{
  msperf_tensor csv, stc, scsv, flat;

  if (csv_slot->format == MSPERF_FORMAT_FRACTAL_NZ)
    {
      if (!msperf_shape_nz_to_nd (csv_slot, &csv))
        return NULL;
    }
  else
    csv = *csv_slot;
  msperf_shape_strip (tc, &stc);
  msperf_shape_strip (&csv, &scsv);
  if (msperf_tensor_same_shape (tc, &csv))
    return "identity";
  if (msperf_tensor_same_shape (&stc, &scsv) || msperf_tensor_same_shape (&stc, &csv))
    return "batch_strip";
  if (msperf_shape_pad_match (&stc, &csv))
    return "padding";
  if (msperf_shape_pad_match (&stc, &scsv))
    return "batch_strip+padding";
  if (flatten_kernel && csv.rank == 2 && flatten_3d (tc, &flat))
    {
      if (msperf_tensor_same_shape (&flat, &csv))
        return "flatten_3d";
      if (msperf_shape_pad_match (&flat, &csv))
        return "flatten_3d+padding";
    }
  return NULL;
}

/* Matches the TC inputs against one row's input slots; fills rule (the distinct
 * non-identity names joined by '+', Q4) and *padded. */
static gboolean
row_inputs_match (const msperf_tensor *tc, size_t n_tc, const msperf_slots *slots,
                  int64_t tc_input_count, gboolean flatten_kernel, gboolean fp16_as_bf16,
                  GString *rule, gboolean *padded)
{
  size_t n_csv = msperf_input_count_limit (slots ? slots->n : 0, tc_input_count);

  if (n_csv != n_tc)
    return FALSE;
  const char *names[MSPERF_MAX_RANK * 2];
  size_t n_names = 0;

  g_string_truncate (rule, 0);
  *padded = FALSE;
  for (size_t i = 0; i < n_tc; i++)
    {
      const char *name;
      gboolean seen = FALSE;

      if (!dtype_matches (tc[i].dtype, slots->t[i].dtype, fp16_as_bf16))
        return FALSE;
      name = input_rule (&tc[i], &slots->t[i], flatten_kernel);
      if (name == NULL)
        return FALSE;
      if (strcmp (name, "identity") == 0)
        continue;
      *padded |= strstr (name, "padding") != NULL;
      for (size_t k = 0; k < n_names; k++)
        seen |= strcmp (names[k], name) == 0;
      if (seen)
        continue;
      if (n_names < G_N_ELEMENTS (names))
        names[n_names++] = name;
      if (rule->len)
        g_string_append_c (rule, '+');
      g_string_append (rule, name);
    }
  if (rule->len == 0)
    g_string_assign (rule, "identity");
  return TRUE;
}

/* The `EP Size` filter: the cell must be a number whose integer part is ep_size. */
static gboolean
ep_matches (const msperf_table *t, size_t row, int col, int64_t ep_size)
{
  double v;

  if (col < 0)
    return TRUE;
  if (!msperf_number_parse (msperf_table_cell (t, row, col), &v) || fabs (v) > 9.0e15)
    return FALSE;
  return (int64_t) v == ep_size;
}

/* A row of the Cast spec must also produce exactly the routing shape in output_dtype. */
typedef struct output_check {
  const msperf_tensor *shape;
  msperf_dtype dtype;
} output_check;

static gboolean
outputs_match (const msperf_table *t, size_t row, const output_check *oc)
{
  const msperf_slots *out = msperf_table_row_outputs (t, row);

  return out && out->n == 1 && msperf_tensor_same_shape (&out->t[0], oc->shape)
         && out->t[0].dtype == oc->dtype;
}

typedef struct scan_hit {
  gboolean have;
  size_t row;
  double latency;
  char *rule;
  gboolean padded;
  gboolean aliased;
} scan_hit;

/* Scans one table. first = TRUE: the first matching row (moe path); FALSE: the nearest, i.e.
 * the first unpadded row, else the first padded one. ep_col < 0: no EP filter. */
static void
scan_rows (const msperf_table *t, const msperf_tensor *tc, size_t n_tc, int64_t tc_input_count,
           gboolean flatten_kernel, int ep_col, int64_t ep_size, const output_check *oc,
           gboolean first, scan_hit *hit)
{
  gboolean has_fp16 = FALSE;
  g_autoptr (GString) rule = g_string_new (NULL);

  for (size_t i = 0; i < n_tc; i++)
    has_fp16 |= tc[i].dtype == MSPERF_DTYPE_FLOAT16;
  memset (hit, 0, sizeof *hit);
  /* Q3: float16 first matches DT_FLOAT16 rows only, then DT_BF16 as upstream. */
  for (int pass = 0; pass < (has_fp16 ? 2 : 1) && !hit->have; pass++)
    for (size_t row = 0; row < msperf_table_n_rows (t); row++)
      {
        gboolean padded;

        if (!msperf_table_row_valid (t, row)
            || !row_inputs_match (tc, n_tc, msperf_table_row_inputs (t, row), tc_input_count,
                                  flatten_kernel, pass == 1, rule, &padded)
            || !ep_matches (t, row, ep_col, ep_size) || (oc && !outputs_match (t, row, oc)))
          continue;
        if (hit->have && (first || padded || !hit->padded))
          continue;
        g_free (hit->rule);
        hit->have = TRUE;
        hit->row = row;
        hit->latency = msperf_table_row_latency (t, row);
        hit->rule = g_strdup (rule->str);
        hit->padded = padded;
        hit->aliased = pass == 1;
        if (first || !padded)
          break;
      }
}

/* ------------------------------------------------------------------ the parts */

/* A compute sub-query of kernel on inputs; the part when it hits, else NULL (and the
 * sub-result's miss reason in *reason when reason is not NULL). */
static part *
compute_part (const msperf_query *q, const char *kernel, const msperf_tensor *in, size_t n,
              int64_t tc_input_count, char **reason)
{
  msperf_subquery *sq = msperf_subquery_new ("compute", kernel);
  g_autoptr (msperf_result) r = msperf_result_new ();
  part *p = NULL;

  for (size_t i = 0; i < n; i++)
    msperf_subquery_add_input (sq, &in[i]);
  sq->tc_input_count = tc_input_count;
  if (msperf_engine_subquery (q->engine, q->op, sq, r) == MSPERF_HIT && !isnan (r->latency_us))
    {
      p = part_new (r->kernel_type ? r->kernel_type : kernel, r->latency_us,
                    r->shape_match_rule ? r->shape_match_rule : "identity");
      p->interpolated = r->source == MSPERF_SOURCE_INTERPOLATED;
      for (guint k = 0; k < r->kernel_shapes->len; k++)
        part_add_shape (p, g_ptr_array_index (r->kernel_shapes, k));
    }
  else if (reason)
    *reason = g_strdup (r->miss_reason ? r->miss_reason : "shape_mismatch");
  msperf_subquery_free (sq);
  return p;
}

static part *
scanned_part (const msperf_table *t, const scan_hit *hit)
{
  const msperf_slots *slots = msperf_table_row_inputs (t, hit->row);
  part *p = part_new (msperf_table_kernel_type (t), hit->latency, hit->rule);

  for (size_t i = 0; slots && i < slots->n; i++)
    part_add_shape (p, &slots->t[i]);
  return p;
}

static part *
residual_norm_part (const msperf_query *q, const msperf_value *spec, const char *kernel)
{
  const msperf_tensor *act = first_tensor (msperf_op_arg (q->op, 0));
  const msperf_value *flatten = msperf_value_lookup (spec, "flatten_leading_dims");
  int64_t rows = 1, hidden;
  msperf_tensor in[4];

  if (act == NULL || act->rank < 2)
    return NULL;
  hidden = act->dims[act->rank - 1];
  if (act->rank == 2)
    rows = act->dims[0];
  else if (flatten && flatten->kind == MSPERF_VALUE_BOOL && flatten->b)
    {
      for (int d = 0; d < act->rank - 1; d++)
        if (!msperf_int64_checked_mul (rows, act->dims[d], &rows))
          return NULL;
    }
  else
    return NULL;
  set_dims (&in[0], act->dtype, 2, (const int64_t[]) { rows, hidden });
  in[1] = in[0];
  set_dims (&in[2], act->dtype, 1, &hidden);
  in[3] = in[2];
  return compute_part (q, kernel, in, 4, 4, NULL);
}

static part *
routing_cast_part (const msperf_query *q, const msperf_value *spec, const char *kernel)
{
  const msperf_value *x = msperf_op_arg (q->op, 0), *w = msperf_op_arg (q->op, 1);
  const char *out_dtype = msperf_value_get_string (msperf_value_lookup (spec, "output_dtype"));
  g_autoptr (GError) error = NULL;
  const msperf_table *t;
  msperf_tensor in;
  output_check oc;
  scan_hit hit;
  part *p = NULL;

  if (out_dtype == NULL || x == NULL || x->kind != MSPERF_VALUE_TENSOR || w == NULL
      || w->kind != MSPERF_VALUE_TENSOR)
    return NULL;
  t = msperf_engine_table (q->engine, kernel, &error);
  if (t == NULL)
    return NULL;
  set_dims (&in, x->tensor.dtype, w->tensor.rank, w->tensor.dims);
  oc.shape = &w->tensor;
  oc.dtype = msperf_dtype_from_string (out_dtype);
  scan_rows (t, &in, 1, 1, FALSE, -1, 0, &oc, FALSE, &hit);
  if (hit.have)
    p = scanned_part (t, &hit);
  g_free (hit.rule);
  return p;
}

static void
embedded_compute (const msperf_query *q, GPtrArray *parts)
{
  const msperf_value *specs = entry_field (q, "embedded_compute");
  guint n;

  if (specs == NULL)
    return;
  n = specs->kind == MSPERF_VALUE_LIST ? specs->items->len : 1;
  for (guint k = 0; k < n; k++)
    {
      const msperf_value *spec = specs->kind == MSPERF_VALUE_LIST
                                   ? g_ptr_array_index (specs->items, k) : specs;
      const char *kernel = msperf_value_get_string (msperf_value_lookup (spec, "kernel_type"));
      const char *proj = msperf_value_get_string (msperf_value_lookup (spec, "input_projection"));
      part *p = NULL;

      if (spec->kind != MSPERF_VALUE_MAP || kernel == NULL || *kernel == '\0' || proj == NULL)
        continue;
      if (strcmp (proj, "residual_norm_from_activation") == 0)
        p = residual_norm_part (q, spec, kernel);
      else if (strcmp (proj, "routing_weight_cast") == 0)
        p = routing_cast_part (q, spec, kernel);
      if (p)
        g_ptr_array_add (parts, p);
    }
}

/* ------------------------------------------------------------------ result */

/* [[kernel, round(µs, 2)], ...] as upstream's sub_kernel_durations tuples. */
static msperf_value *
durations (const GPtrArray *parts, const char *extra_kernel, double extra_latency)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (guint k = 0; k <= parts->len; k++)
    {
      const char *kernel = k < parts->len ? ((part *) g_ptr_array_index (parts, k))->kernel
                                          : extra_kernel;
      double lat = k < parts->len ? ((part *) g_ptr_array_index (parts, k))->latency
                                  : extra_latency;
      msperf_value *pair;

      if (kernel == NULL)
        break;
      pair = msperf_value_new (MSPERF_VALUE_LIST);
      msperf_value_list_append (pair, msperf_value_new_string (kernel));
      msperf_value_list_append (pair, msperf_value_new_double (nearbyint (lat * 100.0) / 100.0));
      msperf_value_list_append (list, pair);
    }
  return list;
}

/* [{kernel_type, kernel_shapes, shape_match_rule}, ...] of every part. */
static msperf_value *
sub_kernel_shapes (const GPtrArray *parts)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (guint k = 0; k < parts->len; k++)
    {
      const part *p = g_ptr_array_index (parts, k);
      msperf_value *m = msperf_value_new (MSPERF_VALUE_MAP);
      msperf_value *shapes = msperf_value_new (MSPERF_VALUE_LIST);

      for (guint s = 0; s < p->shapes->len; s++)
        {
          const msperf_tensor *t = g_ptr_array_index (p->shapes, s);
          msperf_value *dims = msperf_value_new (MSPERF_VALUE_LIST);

          for (int d = 0; d < t->rank; d++)
            msperf_value_list_append (dims, msperf_value_new_int (t->dims[d]));
          msperf_value_list_append (shapes, dims);
        }
      msperf_value_map_set (m, "kernel_type", msperf_value_new_string (p->kernel));
      msperf_value_map_set (m, "kernel_shapes", shapes);
      msperf_value_map_set (m, "shape_match_rule", msperf_value_new_string (p->rule));
      msperf_value_list_append (list, m);
    }
  return list;
}

/* The compute part as the result (source MEASURED, confidence 1.0). */
static double
set_base (msperf_result *r, const GPtrArray *parts, int64_t ep_size, gboolean aliased)
{
  const part *main_part = g_ptr_array_index (parts, 0);
  double total = 0;
  gboolean interpolated = FALSE;

  for (guint k = 0; k < parts->len; k++)
    {
      total += ((const part *) g_ptr_array_index (parts, k))->latency;
      interpolated |= ((const part *) g_ptr_array_index (parts, k))->interpolated;
    }
  msperf_result_set_hit (r, interpolated ? MSPERF_SOURCE_INTERPOLATED : MSPERF_SOURCE_MEASURED,
                         total, interpolated ? CONFIDENCE_INTERPOLATED_PART : 1.0,
                         main_part->kernel, main_part->rule);
  for (guint s = 0; s < main_part->shapes->len; s++)
    msperf_result_add_kernel_shape (r, g_ptr_array_index (main_part->shapes, s));
  if (ep_size > 0)
    msperf_result_detail_int (r, "ep_size", ep_size);
  else
    msperf_result_detail_value (r, "ep_size", msperf_value_new (MSPERF_VALUE_NONE));
  msperf_result_detail_string (r, "query_mode", "moe_fused");
  if (aliased)
    msperf_result_detail_string (r, "dtype_alias", "DT_FLOAT16->DT_BF16");
  msperf_result_detail_value (r, "sub_kernel_durations", durations (parts, NULL, 0));
  if (parts->len > 1)
    msperf_result_detail_value (r, "sub_kernel_shapes", sub_kernel_shapes (parts));
  return total;
}

/* The routed-input communication context (upstream _moe_embedded_comm_context): FALSE when
 * the op or the parallel configuration does not fit the spec. */
static gboolean
comm_context (const msperf_query *q, const msperf_value *spec, msperf_value *ctx,
              const msperf_value **group_out)
{
  const msperf_value *x = msperf_op_arg (q->op, 0), *idx = msperf_op_arg (q->op, 1);
  const msperf_value *group = msperf_op_arg (q->op, -1);
  const char *mode = msperf_value_get_string (msperf_value_lookup (spec, "message_bytes_mode"));
  const char *group_type = msperf_value_get_string (msperf_value_lookup (spec, "group_type"));
  int64_t topk = 1, bytes, ep = msperf_engine_parallel (q->engine)->ep_size;
  int64_t numel;

  if (q->op->args->len < 2 || x == NULL || x->kind != MSPERF_VALUE_TENSOR || idx == NULL
      || idx->kind != MSPERF_VALUE_TENSOR || group == NULL || group->kind != MSPERF_VALUE_LIST)
    return FALSE;
  if (g_strcmp0 (mode, "routed_input") != 0)
    return FALSE;
  if (idx->tensor.rank >= 2)
    topk = idx->tensor.dims[idx->tensor.rank - 1];
  numel = msperf_tensor_numel (&x->tensor);
  if (topk <= 0 || numel < 0
      || !msperf_int64_checked_mul (numel, msperf_dtype_size (x->tensor.dtype), &bytes)
      || !msperf_int64_checked_mul (bytes, topk, &bytes))
    return FALSE;
  if (g_strcmp0 (group_type, "expert_parallel") == 0
      && (ep <= 0 || (int64_t) group->items->len != ep))
    return FALSE;
  msperf_value_map_set (ctx, "message_bytes", msperf_value_new_int (bytes));
  msperf_value_map_set (ctx, "message_bytes_mode", msperf_value_new_string ("routed_input"));
  msperf_value_map_set (ctx, "topk", msperf_value_new_int (topk));
  msperf_value_map_set (ctx, "num_devices", msperf_value_new_int (group->items->len));
  *group_out = group;
  return TRUE;
}

static msperf_value *
string_list (const GPtrArray *parts)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (guint k = 0; k < parts->len; k++)
    {
      const part *p = g_ptr_array_index (parts, k);

      msperf_value_list_append (list, msperf_value_new_string (p->kernel));
    }
  return list;
}

/* The communication part answered: total, confidence 0.9 / 0.8, its details. ctx is taken. */
static void
add_comm_hit (msperf_result *r, const GPtrArray *parts, double base, const char *kernel,
              const char *method, const msperf_result *cr, msperf_value *ctx)
{
  gboolean interpolated = cr->source == MSPERF_SOURCE_INTERPOLATED;
  gboolean part_interpolated = r->source == MSPERF_SOURCE_INTERPOLATED;
  const msperf_value *tier = msperf_value_lookup (msperf_result_details (cr), "topology_tier");

  /* An interpolated compute part keeps its lower confidence. */
  msperf_result_set_answer (r, interpolated || part_interpolated ? MSPERF_SOURCE_INTERPOLATED
                                                                 : MSPERF_SOURCE_MEASURED,
                            base + cr->latency_us,
                            part_interpolated ? CONFIDENCE_INTERPOLATED_PART
                            : interpolated    ? 0.8 : 0.9);
  if (interpolated && cr->method)
    msperf_result_set_method (r, cr->method);
  msperf_result_detail_value (r, "sub_kernel_durations", durations (parts, kernel, cr->latency_us));
  msperf_value_map_set (ctx, "topology_tier",
                        tier ? msperf_value_copy (tier) : msperf_value_new (MSPERF_VALUE_NONE));
  msperf_value_map_set (ctx, "kernel_type", msperf_value_new_string (kernel));
  msperf_value_map_set (ctx, "interpolation_method", msperf_value_new_string (method));
  msperf_value_map_set (ctx, "interpolated", msperf_value_new_bool (interpolated));
  msperf_result_detail_value (r, "embedded_communication", ctx);
}

/* The communication part failed for another reason than its range: PARTIAL, confidence 0.5,
 * counted as a miss by the metrics (partial:<kernel>). ctx is taken. */
static void
set_partial (msperf_result *r, const GPtrArray *parts, const char *kernel, const char *why,
             msperf_value *ctx)
{
  msperf_value *missed = msperf_value_new (MSPERF_VALUE_LIST);
  g_autofree char *reason = g_strdup_printf ("moe_embedded_communication_miss:%s", kernel);

  msperf_result_set_answer (r, MSPERF_SOURCE_PARTIAL, r->latency_us, CONFIDENCE_PARTIAL);
  msperf_value_list_append (missed, msperf_value_new_string (kernel));
  msperf_result_detail_value (r, "hit_kernels", string_list (parts));
  msperf_result_detail_value (r, "missed_kernels", missed);
  msperf_result_detail_string (r, "partial_miss_reason", reason);
  msperf_result_detail_string (r, "communication_miss_reason", why ? why : "unknown");
  msperf_result_detail_bool (r, "partial", TRUE);
  msperf_result_detail_value (r, "embedded_communication", ctx);
}

/* Adds the embedded communication term (step 5) to a result holding the compute part. */
static msperf_status
add_communication (const msperf_query *q, const GPtrArray *parts, double base,
                   msperf_result *r)
{
  const msperf_value *spec = entry_field (q, "embedded_communication");
  const char *kernel, *method;
  const msperf_value *mv, *optional, *group = NULL;
  gboolean is_optional;
  g_autoptr (msperf_value) ctx = NULL;
  g_autoptr (msperf_result) cr = NULL;
  msperf_subquery *sq;
  msperf_status status;

  if (spec == NULL || spec->kind != MSPERF_VALUE_MAP)
    return MSPERF_HIT;
  kernel = msperf_value_get_string (msperf_value_lookup (spec, "kernel_type"));
  mv = msperf_value_lookup (spec, "interpolation_method");
  method = mv ? msperf_value_get_string (mv) : "alpha_beta";
  optional = msperf_value_lookup (spec, "optional");
  is_optional = optional && optional->kind == MSPERF_VALUE_BOOL && optional->b;
  if (kernel == NULL || !msperf_engine_kernel_is_collective (q->engine, kernel) || method == NULL
      || (strcmp (method, "alpha_beta") != 0 && strcmp (method, "bracket_linear") != 0))
    {
      msperf_result_reset (r);
      return msperf_result_set_miss (r, "invalid_moe_embedded_communication");
    }
  ctx = msperf_value_new (MSPERF_VALUE_MAP);
  if (!comm_context (q, spec, ctx, &group))
    {
      if (is_optional)
        return MSPERF_HIT;
      msperf_result_reset (r);
      return msperf_result_set_miss (r, "moe_embedded_communication_context_mismatch");
    }

  sq = msperf_subquery_new ("communication", kernel);
  sq->params = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value_map_set (sq->params, "message_bytes",
                        msperf_value_copy (msperf_value_lookup (ctx, "message_bytes")));
  msperf_value_map_set (sq->params, "num_devices",
                        msperf_value_copy (msperf_value_lookup (ctx, "num_devices")));
  /* the group's ranks give the topology tier when the device has a comm grid */
  msperf_value_map_set (sq->params, "rank_group", msperf_value_copy (group));
  msperf_value_map_set (sq->params, "interpolation_method", msperf_value_new_string (method));
  cr = msperf_result_new ();
  status = msperf_engine_subquery (q->engine, q->op, sq, cr);
  msperf_subquery_free (sq);

  if (status == MSPERF_HIT && !isnan (cr->latency_us))
    add_comm_hit (r, parts, base, kernel, method, cr, g_steal_pointer (&ctx));
  else if (g_strcmp0 (cr->miss_reason, "shape_mismatch") == 0 || is_optional)
    {
      /* Outside the measured message range: upstream keeps the compute part only. */
      msperf_value_map_set (ctx, "kernel_type", msperf_value_new_string (kernel));
      msperf_value_map_set (ctx, "reason",
                            msperf_value_new_string (
                              g_strcmp0 (cr->miss_reason, "shape_mismatch") == 0
                                ? "outside_measured_range" : "optional_lookup_failed"));
      msperf_result_detail_bool (r, "embedded_communication_active", FALSE);
      msperf_result_detail_value (r, "embedded_communication", g_steal_pointer (&ctx));
    }
  else
    set_partial (r, parts, kernel, cr->miss_reason, g_steal_pointer (&ctx));
  return MSPERF_HIT;
}

static msperf_status
moe_lookup (msperf_engine *engine, void *state, const msperf_query *q, msperf_result *r)
{
  const char *kernel;
  const msperf_value *project = entry_field (q, "project_full_shape");
  msperf_tensor projected[7];
  const msperf_tensor *tc = q->inputs;
  size_t n_tc = q->n_inputs;
  int64_t tc_input_count = q->tc_input_count;
  int64_t ep_size = msperf_engine_parallel (engine)->ep_size;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func (part_free);
  const msperf_table *t;
  gboolean is_projected = FALSE, aliased = FALSE;
  int ep_col;
  part *main_part;
  double base;

  (void) state;
  g_return_val_if_fail (q != NULL && r != NULL, MSPERF_ERROR);
  if (q->kernel_types == NULL || q->kernel_types[0] == NULL)
    return msperf_result_set_miss (r, "unmapped");
  if (q->op == NULL)
    return msperf_result_set_miss (r, "invalid_args");
  kernel = q->kernel_types[0];

  if (project && project->kind == MSPERF_VALUE_BOOL && project->b
      && moe_project_inputs (q->op, projected))
    {
      is_projected = TRUE;
      tc = projected;
      n_tc = 7;
      tc_input_count = -1;
    }
  else
    n_tc = msperf_input_count_limit (n_tc, tc_input_count);

  /* Only the primary kernel (reference §2.7 step 1; alternates are not scanned). */
  t = msperf_engine_table (engine, kernel, &error);
  if (t == NULL)
    return msperf_result_set_miss (r, "csv_not_found");
  ep_col = msperf_table_column (t, "EP Size");
  if (ep_col >= 0 && ep_size <= 0)
    return msperf_result_set_miss (r, "ep_size_not_configured");

  if (ep_col >= 0)
    {
      scan_hit hit;

      scan_rows (t, tc, n_tc, tc_input_count, TRUE, ep_col, ep_size, NULL, TRUE, &hit);
      if (!hit.have)
        return msperf_result_set_miss (r, "shape_mismatch");
      g_ptr_array_add (parts, scanned_part (t, &hit));
      aliased = hit.aliased;
      g_free (hit.rule);
    }
  else
    {
      g_autofree char *reason = NULL;
      part *p = compute_part (q, kernel, tc, n_tc, tc_input_count, &reason);

      if (p == NULL)
        return msperf_result_set_miss (r, "%s", reason);
      g_ptr_array_add (parts, p);
    }
  main_part = g_ptr_array_index (parts, 0);
  if (is_projected && strcmp (main_part->rule, "identity") == 0)
    {
      g_free (main_part->rule);
      main_part->rule = g_strdup ("projected_full_shape");
    }

  embedded_compute (q, parts);
  base = set_base (r, parts, ep_size, aliased);
  return add_communication (q, parts, base, r);
}

MSPERF_PLUGIN_DEFINE (
  .name = "moe_fused",
  .version = PACKAGE_VERSION,
  .description = "fused MoE (DispatchFFNCombine): projected shapes, EP size, embedded parts",
  .lookup = moe_lookup,
  /* Interpolated along tokens only when a policy lists moe_fused in interpolation.modes. */
  .describe_target = moe_describe_target,
  .describe_row = moe_describe_row,
  .no_target_reason = "moe_target_unavailable",
);
