/* msperf — composite ops (reference §2.8): an op that runs as several NPU kernels.
 *
 * Two sources of parts:
 *  - a decomposer module (plugin->decompose, chosen by op name through op_names) turns the
 *    invocation into sub-queries; each is answered through msperf_engine_subquery and the parts
 *    are aggregated by the §2.8 table (PARTIAL when some non-attention parts miss);
 *  - the entry's static `sub_kernels`: the non-`hcom_` kernels are ALTERNATIVES for one compute
 *    part (quirk Q2, reproduced: the MC2 reference value depends on it) and every `hcom_` kernel
 *    adds a communication part, sized from the matmul output.
 *
 * Decompose-slot convention (plugin.h has no result argument there): MSPERF_HIT with at least one
 * sub-query; MSPERF_MISS = the decomposition failed for this invocation (`decompose_failed`, e.g.
 * a mixed decode/prefill MLA batch, quirk Q24); MSPERF_ERROR = the module does not specify this
 * op or variant (`decomposer_unsupported`). */
#include <config.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine/engine_private.h"
#include "engine/composite.h"
#include <msperf/format.h>

/* Confidences of reference §2.12. */
#define STATIC_COMM_CONFIDENCE 0.9
#define STATIC_COMPUTE_CONFIDENCE 0.8
#define DECOMPOSED_CONFIDENCE 0.8
#define DECOMPOSED_INTERPOLATED_CONFIDENCE 0.75
/* A part answered by the interpolation wrapper (a sub-kernel that missed exactly): the
 * upstream wrapper's composite confidence (reference §2.12, issue 4/8). */
#define WRAPPER_COMPOSITE_CONFIDENCE 0.5

/* ------------------------------------------------------------------ value helpers */

static msperf_value *
v_shape (const msperf_tensor *t)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (int d = 0; d < t->rank; d++)
    msperf_value_list_append (list, msperf_value_new_int (t->dims[d]));
  return list;
}

/* LIST of shapes of n tensors. */
static msperf_value *
v_shapes (const msperf_tensor *t, size_t n)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (size_t i = 0; i < n; i++)
    msperf_value_list_append (list, v_shape (&t[i]));
  return list;
}

static msperf_value *
v_result_kernel_shapes (const msperf_result *sub)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (guint k = 0; sub && k < sub->kernel_shapes->len; k++)
    msperf_value_list_append (list, v_shape (g_ptr_array_index (sub->kernel_shapes, k)));
  return list;
}

/* Python's round(x, 2): printf rounds the exact binary value, as CPython does. */
static double
round2 (double x)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (x))
    return x;
  g_ascii_formatd (buf, sizeof buf, "%.2f", x);
  return g_ascii_strtod (buf, NULL);
}

/* One sub_kernel_durations item: [kernel, round(µs, 2)]. */
static msperf_value *
v_duration (const char *kernel, double latency_us)
{
  msperf_value *pair = msperf_value_new (MSPERF_VALUE_LIST);

  msperf_value_list_append (pair, msperf_value_new_string (kernel ? kernel : ""));
  msperf_value_list_append (pair, msperf_value_new_double (round2 (latency_us)));
  return pair;
}

/* One sub_kernel_shapes item (upstream SubKernelShapeInfo). Takes ownership of the shapes. */
static msperf_value *
v_sub_shape (const char *kernel, msperf_value *simulation, msperf_value *kernel_shapes,
             const char *rule)
{
  msperf_value *m = msperf_value_new (MSPERF_VALUE_MAP);

  msperf_value_map_set (m, "kernel_type", msperf_value_new_string (kernel ? kernel : ""));
  msperf_value_map_set (m, "simulation_shapes", simulation);
  msperf_value_map_set (m, "kernel_shapes", kernel_shapes);
  msperf_value_map_set (m, "shape_match_rule", msperf_value_new_string (rule ? rule : ""));
  return m;
}

static const msperf_value *
entry_field (const msperf_mapping_entry *entry, const char *key)
{
  return entry->raw ? msperf_value_lookup (entry->raw, key) : NULL;
}

static gboolean
value_true (const msperf_value *v)
{
  return v && v->kind == MSPERF_VALUE_BOOL && v->b;
}

static gboolean
source_is_answer (msperf_source s)
{
  return s == MSPERF_SOURCE_MEASURED || s == MSPERF_SOURCE_INTERPOLATED;
}

/* ------------------------------------------------------------------ decomposer path */

static const char *
first_kernel (const msperf_subquery *sq)
{
  return sq->kernel_types && sq->kernel_types[0] ? sq->kernel_types[0] : "?";
}

/* "q_shape_3d=[8, 16, 512],avg_seq_len=1024,…" from an attention spec's params: the semantic
 * key the CSV rows were searched for, so a miss says what was asked. */
static char *
semantic_key (const msperf_subquery *sq)
{
  GString *s = g_string_new (NULL);
  const msperf_value *p = sq->params;

  for (guint k = 0; p && p->kind == MSPERF_VALUE_MAP && k < p->keys->len; k++)
    {
      if (k > 0)
        g_string_append_c (s, ',');
      g_string_append_printf (s, "%s=", (const char *) g_ptr_array_index (p->keys, k));
      msperf_fmt_py_str (s, g_ptr_array_index (p->items, k));
    }
  return g_string_free (s, FALSE);
}

static const char *
subquery_dtype (const msperf_subquery *sq)
{
  if (sq->inputs->len == 0)
    return "?";
  return msperf_dtype_profiling_name (g_array_index (sq->inputs, msperf_tensor, 0).dtype);
}

static char *
join_names (GPtrArray *names)
{
  GString *s = g_string_new (NULL);

  for (guint k = 0; k < names->len; k++)
    {
      if (k > 0)
        g_string_append_c (s, ',');
      g_string_append (s, g_ptr_array_index (names, k));
    }
  return g_string_free (s, FALSE);
}

static msperf_value *
v_names (GPtrArray *names)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (guint k = 0; k < names->len; k++)
    msperf_value_list_append (list, msperf_value_new_string (g_ptr_array_index (names, k)));
  return list;
}

/* Aggregation state over the decomposer's specs. */
typedef struct parts {
  double total_us;
  gboolean any_interpolated;
  gboolean any_wrapper;       /* a part came from the interpolation stage */
  GPtrArray *hit_kernels;     /* char*, owned */
  GPtrArray *missed_kernels;  /* char*, owned */
  msperf_value *durations;    /* LIST */
  msperf_value *shapes;       /* LIST of sub_kernel_shapes items */
} parts;

static void
parts_init (parts *p)
{
  p->total_us = 0.0;
  p->any_interpolated = FALSE;
  p->any_wrapper = FALSE;
  p->hit_kernels = g_ptr_array_new_with_free_func (g_free);
  p->missed_kernels = g_ptr_array_new_with_free_func (g_free);
  p->durations = msperf_value_new (MSPERF_VALUE_LIST);
  p->shapes = msperf_value_new (MSPERF_VALUE_LIST);
}

static void
parts_clear (parts *p)
{
  g_ptr_array_unref (p->hit_kernels);
  g_ptr_array_unref (p->missed_kernels);
  msperf_value_free (p->durations);
  msperf_value_free (p->shapes);
}

static void
parts_add_hit (parts *p, const msperf_subquery *sq, const msperf_result *sub)
{
  const char *k = sub->kernel_type ? sub->kernel_type : first_kernel (sq);
  gboolean attention = strcmp (sq->mode, "attention_special") == 0;

  p->total_us += sub->latency_us;
  p->any_interpolated |= sub->source == MSPERF_SOURCE_INTERPOLATED;
  p->any_wrapper |= sub->interpolation_dim > 0;
  g_ptr_array_add (p->hit_kernels, g_strdup (k));
  msperf_value_list_append (p->durations, v_duration (k, sub->latency_us));
  /* Attention parts are matched by semantic key, not shapes (upstream records none). */
  msperf_value_list_append (
    p->shapes,
    attention ? v_sub_shape (k, msperf_value_new (MSPERF_VALUE_LIST),
                             msperf_value_new (MSPERF_VALUE_LIST), "attention")
              : v_sub_shape (k, v_shapes ((const msperf_tensor *) (void *) sq->inputs->data,
                                          sq->inputs->len),
                             v_result_kernel_shapes (sub),
                             sub->shape_match_rule ? sub->shape_match_rule : "unknown"));
}

/* ------------------------------------------------------------------ decomposer plans */

void
msperf_plan_add_part (msperf_plan *plan, msperf_subquery *part)
{
  g_return_if_fail (plan != NULL && part != NULL);
  g_ptr_array_add (plan->parts, part);
}

void
msperf_plan_set_miss (msperf_plan *plan, const char *fmt, ...)
{
  va_list ap;

  g_return_if_fail (plan != NULL && fmt != NULL);
  g_free (plan->miss);
  va_start (ap, fmt);
  plan->miss = g_strdup_vprintf (fmt, ap);
  va_end (ap);
}

static msperf_status
decomposed (msperf_engine *e, const msperf_op *op, const msperf_mapping_entry *entry,
            const msperf_plugin *plugin, void *state, msperf_result *r)
{
  g_autoptr (GPtrArray) specs
    = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_subquery_free);
  msperf_plan plan = { specs, NULL };
  g_autoptr (GPtrArray) in = msperf_op_tensor_inputs (op);
  g_autoptr (GArray) inputs = g_array_sized_new (FALSE, FALSE, sizeof (msperf_tensor), in->len);
  static const char *const no_kernels[] = { NULL };
  msperf_query q = { 0 };
  msperf_status st;
  parts p;
  g_autofree char *missed = NULL;

  for (guint k = 0; k < in->len; k++)
    g_array_append_val (inputs, *(msperf_tensor *) g_ptr_array_index (in, k));
  q.engine = e;
  q.op = op;
  q.entry = entry;
  q.mode = plugin->name;
  q.kernel_types = entry->kernel_types ? (const char *const *) entry->kernel_types : no_kernels;
  q.inputs = (const msperf_tensor *) (void *) inputs->data;
  q.n_inputs = inputs->len;
  q.tc_input_count = entry->tc_input_count;
  st = plugin->decompose (e, state, &q, &plan);
  if (st == MSPERF_ERROR)
    {
      g_free (plan.miss);
      return msperf_result_set_miss (r, "decomposer_unsupported");
    }
  if (st != MSPERF_HIT || specs->len == 0)
    {
      g_autofree char *why = plan.miss;

      return msperf_result_set_miss (r, "%s", why ? why : "decompose_failed");
    }
  g_free (plan.miss);

  parts_init (&p);
  for (guint k = 0; k < specs->len; k++)
    {
      const msperf_subquery *sq = g_ptr_array_index (specs, k);
      g_autoptr (msperf_result) sub = msperf_result_new ();

      if (msperf_engine_subquery (e, op, sq, sub) == MSPERF_HIT && source_is_answer (sub->source))
        {
          parts_add_hit (&p, sq, sub);
          continue;
        }
      if (sq->is_attention)
        {
          /* The attention kernel dominates the op: a PARTIAL sum without it would look like
           * data while dropping most of the time, so the whole op goes to the fallback. */
          g_autofree char *key = semantic_key (sq);
          msperf_result_set_miss (r, "attention_sub_kernel_miss:%s:%s;semantic_key=%s;dtype=%s",
                                  first_kernel (sq),
                                  sub->miss_reason ? sub->miss_reason : "unknown", key,
                                  subquery_dtype (sq));
          parts_clear (&p);
          return MSPERF_MISS;
        }
      g_ptr_array_add (p.missed_kernels, g_strdup (first_kernel (sq)));
    }

  if (p.missed_kernels->len == 0)
    {
      g_autofree char *kernels = join_names (p.hit_kernels);

      msperf_result_set_method (r, "composite");
      msperf_result_set_hit (r, p.any_interpolated ? MSPERF_SOURCE_INTERPOLATED
                                                   : MSPERF_SOURCE_MEASURED,
                             p.total_us,
                             p.any_wrapper ? WRAPPER_COMPOSITE_CONFIDENCE
                             : p.any_interpolated ? DECOMPOSED_INTERPOLATED_CONFIDENCE
                                                  : DECOMPOSED_CONFIDENCE,
                             NULL, "composite");
      msperf_result_detail_string (r, "kernel_type", kernels);
      msperf_result_detail_value (r, "sub_kernel_durations", g_steal_pointer (&p.durations));
      msperf_result_detail_bool (r, "composite", TRUE);
      msperf_result_detail_string (r, "note", "decomposed sub-kernels");
      msperf_result_detail_value (r, "sub_kernel_shapes", g_steal_pointer (&p.shapes));
      parts_clear (&p);
      return MSPERF_HIT;
    }

  missed = join_names (p.missed_kernels);
  if (p.hit_kernels->len == 0
      || value_true (entry_field (entry, "require_all_sub_kernels")))
    {
      msperf_result_set_miss (r, "sub_kernel_miss:%s", missed);
      parts_clear (&p);
      return MSPERF_MISS;
    }

  /* PARTIAL is an answer (its latency is the op's latency) that metrics count as a miss. */
  msperf_result_set_method (r, "composite");
  msperf_result_set_hit (r, MSPERF_SOURCE_PARTIAL, p.total_us,
                         (double) p.hit_kernels->len / (double) specs->len, NULL, "composite");
  msperf_result_detail_value (r, "hit_kernels", v_names (p.hit_kernels));
  msperf_result_detail_value (r, "missed_kernels", v_names (p.missed_kernels));
  msperf_result_detail_value (r, "sub_kernel_durations", g_steal_pointer (&p.durations));
  msperf_result_detail_bool (r, "composite", TRUE);
  msperf_result_detail_bool (r, "partial", TRUE);
  msperf_result_detail_value (r, "sub_kernel_shapes", g_steal_pointer (&p.shapes));
  r->miss_reason = g_strdup_printf ("sub_kernel_miss:%s", missed);
  parts_clear (&p);
  return MSPERF_HIT;
}

/* ------------------------------------------------------------------ static sub_kernels */

static gboolean
is_comm_kernel (const char *k)
{
  return g_str_has_prefix (k, "hcom_");
}

/* `_find_compute_match` post-miss diagnosis (quirk Q18, reproduced): only the first row of the
 * primary CSV is consulted. */
static const char *
diagnose_compute_miss (msperf_engine *e, const char *reason, const char *primary, size_t n_tc,
                       int64_t tc_input_count)
{
  g_autoptr (GError) error = NULL;
  const msperf_table *t;
  const msperf_slots *slots;
  size_t n_csv;

  if (g_strcmp0 (reason, "shape_mismatch") != 0)
    return reason;
  t = msperf_engine_table (e, primary, &error);
  if (t == NULL || msperf_table_n_rows (t) == 0)
    return "csv_not_found";
  slots = msperf_table_row_inputs (t, 0);
  n_csv = slots ? slots->n : 0;
  if (tc_input_count >= 0)
    {
      n_csv = MIN (n_csv, (size_t) tc_input_count);
      n_tc = MIN (n_tc, (size_t) tc_input_count);
    }
  if (strcmp (primary, "SwiGlu") == 0 && n_tc == 2 && n_csv == 1)
    n_tc = 1;
  if ((strcmp (primary, "ReshapeAndCacheNdKernel") == 0
       || strcmp (primary, "reshape_and_cache_200000000") == 0)
      && n_tc == 4 && n_csv == 5)
    n_tc = 5;
  return n_tc != n_csv ? "input_count_mismatch" : "shape_mismatch";
}

/* The communication options in force: the entry's own, or the sequence-parallel variant's. */
typedef struct comm_plan {
  const char *variant;        /* "default" or "sequence_parallel" */
  const char *source;         /* the kernel the variant replaces, or NULL */
  const char *replacement;
  const char *mode;           /* message_bytes_mode or NULL */
  const char *group_type;     /* NULL or "tensor_parallel" */
  const char *method;         /* interpolation_method or NULL (the module's default) */
} comm_plan;

static gboolean
optional_string (const msperf_value *map, const char *key, const char **out)
{
  const msperf_value *v = msperf_value_lookup (map, key);

  *out = NULL;
  if (v == NULL || v->kind == MSPERF_VALUE_NONE)
    return TRUE;
  *out = msperf_value_get_string (v);
  return *out != NULL;
}

/* FALSE with the miss set when the variant is malformed or names a kernel the entry lacks. */
static gboolean
plan_comm (msperf_engine *e, const msperf_mapping_entry *entry, GPtrArray *comm, comm_plan *plan,
           msperf_result *r)
{
  const msperf_value *variants = entry_field (entry, "runtime_comm_variants");
  const msperf_value *sp;

  memset (plan, 0, sizeof *plan);
  plan->variant = "default";
  if (entry->raw)
    {
      optional_string (entry->raw, "message_bytes_mode", &plan->mode);
      optional_string (entry->raw, "group_type", &plan->group_type);
      optional_string (entry->raw, "interpolation_method", &plan->method);
    }
  if (!msperf_engine_parallel (e)->sequence_parallel || variants == NULL)
    return TRUE;
  sp = msperf_value_lookup (variants, "sequence_parallel");
  if (sp == NULL)
    return TRUE;

  plan->variant = "sequence_parallel";
  if (sp->kind != MSPERF_VALUE_MAP
      || !optional_string (sp, "kernel_type", &plan->replacement) || plan->replacement == NULL
      || !msperf_kernel_type_is_plain (plan->replacement)
      || !optional_string (sp, "source_kernel_type", &plan->source)
      || !optional_string (sp, "message_bytes_mode", &plan->mode)
      || !optional_string (sp, "group_type", &plan->group_type)
      || !optional_string (sp, "interpolation_method", &plan->method)
      || (plan->mode && strcmp (plan->mode, "per_rank_output") != 0)
      || (plan->group_type && strcmp (plan->group_type, "tensor_parallel") != 0))
    {
      msperf_result_set_miss (r, "invalid_runtime_comm_variant");
      return FALSE;
    }
  if (plan->source == NULL)
    {
      /* Without a named source the swap is only unambiguous for a single collective. */
      if (comm->len != 1)
        {
          msperf_result_set_miss (r, "invalid_runtime_comm_variant");
          return FALSE;
        }
      plan->source = g_ptr_array_index (comm, 0);
    }
  for (guint k = 0; k < comm->len; k++)
    if (strcmp (g_ptr_array_index (comm, k), plan->source) == 0)
      return TRUE;
  msperf_result_set_miss (r, "runtime_comm_variant_source_missing");
  return FALSE;
}

/* Message bytes of the MC2 matmul output: args[0] = mat1, args[1] = mat2, args[-1] = rank_group.
 * FALSE when the layout does not hold (the caller reports comm_sub_kernel_miss). */
static gboolean
mc2_message (const msperf_op *op, int64_t *message_bytes, const msperf_value **rank_group,
             const char **why)
{
  const msperf_value *a0 = msperf_op_arg (op, 0), *a1 = msperf_op_arg (op, 1);
  const msperf_value *group = msperf_op_arg (op, -1);
  const msperf_tensor *mat1, *mat2;
  int64_t elem, bytes;

  if (group == NULL || !msperf_value_is_int_list (group))
    {
      *why = "rank_group_not_list";
      return FALSE;
    }
  if (a0 == NULL || a1 == NULL || a0->kind != MSPERF_VALUE_TENSOR
      || a1->kind != MSPERF_VALUE_TENSOR || a0->tensor.rank < 1 || a1->tensor.rank < 1)
    {
      *why = "matmul_args_not_tensors";
      return FALSE;
    }
  mat1 = &a0->tensor;
  mat2 = &a1->tensor;
  /* Quantised MC2 accumulates and reduces in BF16. */
  switch (mat1->dtype)
    {
    case MSPERF_DTYPE_INT8:
    case MSPERF_DTYPE_UINT8:
    case MSPERF_DTYPE_FP8_E4M3:
    case MSPERF_DTYPE_FP8_E5M2:
      elem = 2;
      break;
    default:
      elem = msperf_dtype_size (mat1->dtype);
      break;
    }
  if (!msperf_int64_checked_mul (mat1->dims[0], mat2->dims[mat2->rank - 1], &bytes)
      || !msperf_int64_checked_mul (bytes, elem, &bytes))
    {
      *why = "message_bytes_overflow";
      return FALSE;
    }
  *message_bytes = bytes;
  *rank_group = group;
  return TRUE;
}

/* Answers one hcom_ part; FALSE with r's miss set. */
static gboolean
comm_part (msperf_engine *e, const msperf_op *op, const char *kernel, const comm_plan *plan,
           double *latency, gboolean *interpolated, msperf_result *r)
{
  const msperf_value *group = NULL;
  const char *why = NULL;
  gboolean per_rank = plan->mode && strcmp (plan->mode, "per_rank_output") == 0;
  int64_t mb = 0, nd;
  msperf_subquery *sq;
  g_autoptr (msperf_result) sub = NULL;
  msperf_status st;

  if (!mc2_message (op, &mb, &group, &why))
    {
      msperf_result_detail_string (r, "comm_miss_reason", why);
      msperf_result_set_miss (r, "comm_sub_kernel_miss");
      return FALSE;
    }
  nd = (int64_t) group->items->len;
  if (per_rank && nd <= 0)
    {
      msperf_result_set_miss (r, "invalid_per_rank_output_group_size");
      return FALSE;
    }
  if (plan->group_type && strcmp (plan->group_type, "tensor_parallel") == 0
      && nd != msperf_engine_parallel (e)->tp_size)
    {
      g_autofree char *why_tp = g_strdup_printf ("tensor_parallel_group_mismatch:group_size=%"
                                                 G_GINT64_FORMAT ",tp_size=%" G_GINT64_FORMAT,
                                                 nd, msperf_engine_parallel (e)->tp_size);
      msperf_result_detail_string (r, "comm_miss_reason", why_tp);
      msperf_result_set_miss (r, "comm_sub_kernel_miss");
      return FALSE;
    }
  if (per_rank)
    {
      /* HCCL counts a reduce-scatter's bytes per receiving rank. */
      if (mb % nd != 0)
        {
          msperf_result_set_miss (r, "nondivisible_per_rank_output:message_bytes=%" G_GINT64_FORMAT
                                  ",num_devices=%" G_GINT64_FORMAT, mb, nd);
          return FALSE;
        }
      mb /= nd;
    }

  sq = msperf_subquery_new ("communication", kernel);
  sq->params = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value_map_set (sq->params, "message_bytes", msperf_value_new_int (mb));
  msperf_value_map_set (sq->params, "num_devices", msperf_value_new_int (nd));
  msperf_value_map_set (sq->params, "rank_group", msperf_value_copy (group));
  if (plan->method)
    msperf_value_map_set (sq->params, "interpolation_method",
                          msperf_value_new_string (plan->method));
  sub = msperf_result_new ();
  st = msperf_engine_subquery (e, op, sq, sub);
  msperf_subquery_free (sq);
  if (st != MSPERF_HIT || !source_is_answer (sub->source) || !isfinite (sub->latency_us))
    {
      msperf_result_detail_string (r, "comm_miss_reason",
                                   sub->miss_reason ? sub->miss_reason : "unknown");
      msperf_result_set_miss (r, "comm_sub_kernel_miss");
      return FALSE;
    }
  *latency = sub->latency_us;
  *interpolated |= sub->source == MSPERF_SOURCE_INTERPOLATED;
  return TRUE;
}

/* The compute part: one sub-query over every non-hcom_ kernel (alternatives, nearest wins). */
static gboolean
compute_part (msperf_engine *e, const msperf_op *op, const msperf_mapping_entry *entry,
              GPtrArray *compute, msperf_result *sub, msperf_value **simulation,
              msperf_result *r)
{
  g_autoptr (GPtrArray) in = msperf_op_tensor_inputs (op);
  msperf_subquery *sq = msperf_subquery_new ("compute", NULL);
  size_t n_sim = in->len;
  msperf_status st;

  for (guint k = 0; k < compute->len; k++)
    msperf_subquery_add_kernel (sq, g_ptr_array_index (compute, k));
  for (guint k = 0; k < in->len; k++)
    msperf_subquery_add_input (sq, g_ptr_array_index (in, k));
  sq->tc_input_count = entry->tc_input_count;
  st = msperf_engine_subquery (e, op, sq, sub);
  msperf_subquery_free (sq);
  if (st != MSPERF_HIT || !source_is_answer (sub->source))
    {
      msperf_result_set_miss (r, "%s",
                              diagnose_compute_miss (e, sub->miss_reason ? sub->miss_reason
                                                                         : "shape_mismatch",
                                                     g_ptr_array_index (compute, 0), in->len,
                                                     entry->tc_input_count));
      return FALSE;
    }
  if (entry->tc_input_count >= 0)
    n_sim = MIN (n_sim, (size_t) entry->tc_input_count);
  *simulation = msperf_value_new (MSPERF_VALUE_LIST);
  for (size_t k = 0; k < n_sim; k++)
    msperf_value_list_append (*simulation, v_shape (g_ptr_array_index (in, k)));
  return TRUE;
}

static msperf_status
static_composite (msperf_engine *e, const msperf_op *op, const msperf_mapping_entry *entry,
                  const msperf_value *sub_kernels, msperf_result *r)
{
  g_autoptr (GPtrArray) compute = g_ptr_array_new ();
  g_autoptr (GPtrArray) comm = g_ptr_array_new ();
  g_autoptr (msperf_result) csub = msperf_result_new ();
  msperf_value *simulation = NULL, *durations, *shapes, *comm_names;
  double comm_us = 0.0;
  gboolean interpolated = FALSE;
  comm_plan plan;

  for (guint k = 0; k < sub_kernels->items->len; k++)
    {
      const char *name = msperf_value_get_string (g_ptr_array_index (sub_kernels->items, k));
      if (name && *name)
        g_ptr_array_add (is_comm_kernel (name) ? comm : compute, (gpointer) name);
    }
  /* Upstream scans an empty kernel list and finds no CSV. */
  if (compute->len == 0)
    return msperf_result_set_miss (r, "csv_not_found");
  if (!compute_part (e, op, entry, compute, csub, &simulation, r))
    return MSPERF_MISS;
  if (comm->len > 0 && !plan_comm (e, entry, comm, &plan, r))
    {
      msperf_value_free (simulation);
      return MSPERF_MISS;
    }

  durations = msperf_value_new (MSPERF_VALUE_LIST);
  shapes = msperf_value_new (MSPERF_VALUE_LIST);
  comm_names = msperf_value_new (MSPERF_VALUE_LIST);
  msperf_value_list_append (durations, v_duration (csub->kernel_type, csub->latency_us));
  msperf_value_list_append (shapes, v_sub_shape (csub->kernel_type, simulation,
                                                 v_result_kernel_shapes (csub),
                                                 csub->shape_match_rule));
  for (guint k = 0; k < comm->len; k++)
    {
      const char *kernel = g_ptr_array_index (comm, k);
      double lat = 0.0;

      if (plan.source && strcmp (kernel, plan.source) == 0)
        kernel = plan.replacement;
      if (!comm_part (e, op, kernel, &plan, &lat, &interpolated, r))
        {
          msperf_value_free (durations);
          msperf_value_free (shapes);
          msperf_value_free (comm_names);
          return MSPERF_MISS;
        }
      comm_us += lat;
      msperf_value_list_append (durations, v_duration (kernel, lat));
      msperf_value_list_append (shapes, v_sub_shape (kernel, msperf_value_new (MSPERF_VALUE_LIST),
                                                     msperf_value_new (MSPERF_VALUE_LIST),
                                                     "comm"));
      msperf_value_list_append (comm_names, msperf_value_new_string (kernel));
    }

  interpolated |= csub->source == MSPERF_SOURCE_INTERPOLATED;
  msperf_result_set_method (r, "composite");
  msperf_result_set_hit (r, interpolated ? MSPERF_SOURCE_INTERPOLATED : MSPERF_SOURCE_MEASURED,
                         csub->latency_us + comm_us,
                         csub->interpolation_dim > 0 ? WRAPPER_COMPOSITE_CONFIDENCE
                         : comm->len > 0             ? STATIC_COMM_CONFIDENCE
                                                     : STATIC_COMPUTE_CONFIDENCE,
                         csub->kernel_type, csub->shape_match_rule);
  for (guint k = 0; k < csub->kernel_shapes->len; k++)
    msperf_result_add_kernel_shape (r, g_ptr_array_index (csub->kernel_shapes, k));
  msperf_result_detail_value (r, "sub_kernel_durations", durations);
  msperf_result_detail_bool (r, "composite", TRUE);
  msperf_result_detail_string (r, "note", comm->len > 0 ? "compute + comm sub-kernels"
                                                        : "compute sub-kernel only");
  msperf_result_detail_value (r, "compute_latency_details", msperf_value_copy (csub->details));
  msperf_result_detail_string (r, "communication_variant", comm->len > 0 ? plan.variant
                                                                         : "none");
  msperf_result_detail_value (r, "communication_sub_kernels", comm_names);
  msperf_result_detail_value (r, "sub_kernel_shapes", shapes);
  return MSPERF_HIT;
}

/* ------------------------------------------------------------------ entry point */

msperf_status
msperf_composite_answer (msperf_engine *engine, const msperf_op *op,
                         const msperf_mapping_entry *entry, msperf_result *r)
{
  const msperf_plugin *plugin;
  const msperf_value *sub_kernels;
  void *state = NULL;

  g_return_val_if_fail (engine != NULL && op != NULL && entry != NULL && r != NULL,
                        MSPERF_ERROR);
  plugin = msperf_registry_decomposer (engine->m->registry, op->name, &state);
  if (plugin != NULL && plugin->decompose != NULL)
    return decomposed (engine, op, entry, plugin, state, r);
  sub_kernels = entry_field (entry, "sub_kernels");
  if (sub_kernels && sub_kernels->kind == MSPERF_VALUE_LIST && sub_kernels->items->len > 0)
    return static_composite (engine, op, entry, sub_kernels, r);
  /* `decomposer: true` promises a decomposition no loaded module provides (not written, or
   * disabled by policy): say so rather than blame the mapping. */
  if (value_true (entry_field (entry, "decomposer")))
    return msperf_result_set_miss (r, "decomposer_unsupported");
  return msperf_result_set_miss (r, "no_sub_kernels");
}
