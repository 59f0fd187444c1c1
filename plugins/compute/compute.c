/* msperf module "compute": exact lookup of a compute op in its kernel CSVs (reference §2.3,
 * §2.4), with the msperf fixes Q3 (fp16 measured as fp16, BF16 retry) and Q4 (padding anywhere
 * ranks as padded). The row matcher lives in compute_match.c. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/plugin.h>
#include <msperf/latency.h>
#include "compute_match.h"
#include "compute_keys.h"
#include "compute_axes.h"
#include "compute_batched.h"

typedef enum {
  SCAN_HIT,
  SCAN_NO_CSV,     /* no table of the kernel list could be loaded */
  SCAN_NO_MATCH,
  SCAN_AMBIGUOUS   /* require_semantic_unique refused a tie */
} scan_status;

/* The TC side of one attempt: inputs after every preparation step, and the kernel list. */
typedef struct attempt {
  msperf_tensor *tc;          /* n_tc shallow copies (values never owned) */
  size_t n_tc;
  GPtrArray *kernels;         /* const char *, transfer none (strings of the query/entry) */
} attempt;

static const msperf_value *
entry_field (const msperf_query *q, const char *key)
{
  return q->entry && q->entry->raw ? msperf_value_lookup (q->entry->raw, key) : NULL;
}

static void
add_kernel (GPtrArray *kernels, const char *k)
{
  if (k == NULL || *k == '\0')
    return;
  for (guint i = 0; i < kernels->len; i++)
    if (strcmp (g_ptr_array_index (kernels, i), k) == 0)
      return;
  g_ptr_array_add (kernels, (gpointer) k);
}

/* Offers the rows of the kernel list that match: only the exact-key candidates of scope
 * (compute_keys.h, in index order: the selector keeps the smallest tied row whatever the
 * order), or every row when the inputs cannot be keyed. */
static scan_status
scan_rows (msperf_engine *engine, const attempt *a, int64_t tc_input_count,
           gboolean fp16_as_bf16, compute_keys_scope scope, msperf_selector *sel)
{
  gboolean any_table = FALSE;
  g_autoptr (GArray) candidates = g_array_new (FALSE, FALSE, sizeof (size_t));

  for (guint ki = 0; ki < a->kernels->len; ki++)
    {
      const char *k = g_ptr_array_index (a->kernels, ki);
      g_autoptr (GError) error = NULL;
      const msperf_table *t = msperf_engine_table (engine, k, &error);
      msperf_latency_policy policy;
      compute_kernel_class kc;
      gboolean keyed;
      size_t n;

      /* An absent (or unusable) CSV only removes this kernel from the list. */
      if (t == NULL)
        continue;
      any_table = TRUE;
      msperf_latency_policy_init (&policy, engine, k);
      compute_kernel_class_init (&kc, k);
      g_array_set_size (candidates, 0);
      keyed = compute_keys_candidates (k, t, a->tc, a->n_tc, tc_input_count, scope, candidates);
      n = keyed ? candidates->len : msperf_table_n_rows (t);
      for (size_t c = 0; c < n; c++)
        {
          size_t row = keyed ? g_array_index (candidates, size_t, c) : c;
          const msperf_slots *slots;
          compute_row_match m;
          double lat;
          int priority;

          if (!msperf_table_row_valid (t, row))
            continue;
          slots = msperf_table_row_inputs (t, row);
          if (slots == NULL
              || !compute_inputs_match_class (&kc, a->tc, a->n_tc, slots, tc_input_count,
                                              fp16_as_bf16, &m))
            continue;
          lat = msperf_latency_policy_row (&policy, t, row, &priority, NULL);
          msperf_selector_offer (sel, m.distance, (int) ki, priority, t, row, lat, m.rule);
        }
    }
  if (!any_table)
    return SCAN_NO_CSV;
  if (!sel->have)
    return SCAN_NO_MATCH;
  if (sel->ambiguous
      && msperf_engine_kernel_flag (engine, "query_selection_policy",
                                    msperf_table_kernel_type (sel->table),
                                    "require_semantic_unique"))
    return SCAN_AMBIGUOUS;
  return SCAN_HIT;
}

/* The nearest-row selection of reference §2.3 over the exact-key candidates: first the rows
 * that can match without padding; only when none of them matches at distance 0 (the best any
 * row can score) the rows that can match with padding. Rows that cannot match are never
 * offered, which is all that distinguishes this from offering every row (compute_keys.h). */
static scan_status
scan (msperf_engine *engine, const attempt *a, int64_t tc_input_count, gboolean fp16_as_bf16,
      msperf_selector *sel)
{
  scan_status st = scan_rows (engine, a, tc_input_count, fp16_as_bf16,
                              COMPUTE_KEYS_UNPADDED, sel);

  if (st == SCAN_NO_CSV || (sel->have && sel->distance == 0.0))
    return st;
  msperf_selector_clear (sel);
  return scan_rows (engine, a, tc_input_count, fp16_as_bf16, COMPUTE_KEYS_ANY, sel);
}

static void
set_hit (msperf_engine *engine, const msperf_selector *sel, msperf_result *r)
{
  const char *k = msperf_table_kernel_type (sel->table);
  const msperf_slots *slots = msperf_table_row_inputs (sel->table, sel->row);
  const char *selection;

  msperf_result_set_hit (r, MSPERF_SOURCE_MEASURED, sel->latency, 1.0, k, sel->rule);
  msperf_result_set_method (r, "exact");
  for (size_t i = 0; slots && i < slots->n; i++)
    msperf_result_add_kernel_shape (r, &slots->t[i]);
  msperf_latency_policy_apply (engine, sel->table, sel->row, NULL, &selection);
  if (selection)
    msperf_result_detail_string (r, "latency_selection", selection);
}

/* Scans the attempt's kernel list with the Q3 retry: a float16 input first matches DT_FLOAT16
 * rows only; when no row of any kernel matches, it is compared as DT_BF16. sel is initialised
 * here; the caller clears it. */
static scan_status
run_attempt (msperf_engine *engine, const attempt *a, int64_t tc_input_count,
             msperf_selector *sel, gboolean *aliased)
{
  gboolean has_fp16 = FALSE;
  scan_status st;

  for (size_t i = 0; i < a->n_tc; i++)
    has_fp16 |= a->tc[i].dtype == MSPERF_DTYPE_FLOAT16;
  *aliased = FALSE;
  msperf_selector_init (sel);
  st = scan (engine, a, tc_input_count, FALSE, sel);
  if (st == SCAN_NO_MATCH && has_fp16)
    {
      msperf_selector_clear (sel);
      msperf_selector_init (sel);
      st = scan (engine, a, tc_input_count, TRUE, sel);
      *aliased = TRUE;
    }
  return st;
}

static msperf_status
finish (msperf_engine *engine, scan_status st, const msperf_selector *sel, gboolean aliased,
        msperf_result *r)
{
  switch (st)
    {
    case SCAN_HIT:
      set_hit (engine, sel, r);
      if (aliased)
        msperf_result_detail_string (r, "dtype_alias", "DT_FLOAT16->DT_BF16");
      return MSPERF_HIT;
    case SCAN_NO_CSV:
      return msperf_result_set_miss (r, "csv_not_found");
    case SCAN_AMBIGUOUS:
      return msperf_result_set_miss (r, "ambiguous_semantic_match:%s",
                                     msperf_table_kernel_type (sel->table));
    case SCAN_NO_MATCH:
    default:
      return msperf_result_set_miss (r, "shape_mismatch");
    }
}

static gboolean
is_shape3 (const msperf_tensor *t, int64_t a, int64_t b, int64_t c)
{
  return t->rank == 3 && t->dims[0] == a && t->dims[1] == b && t->dims[2] == c;
}

/* kernel_types_by_input_rank (first), degenerate_bmm_kernel_type (appended). */
static void
build_kernel_list (const msperf_query *q, const attempt *a, GPtrArray *kernels)
{
  const msperf_value *by_rank = entry_field (q, "kernel_types_by_input_rank");
  const msperf_value *degenerate = entry_field (q, "degenerate_bmm_kernel_type");
  g_autoptr (GPtrArray) base = g_ptr_array_new ();

  for (const char *const *k = q->kernel_types; k && *k; k++)
    add_kernel (base, *k);
  /* The K=1 sampling BMM (1,32,1)@(1,1,N) is lowered to a broadcast kernel. */
  if (degenerate && msperf_value_get_string (degenerate) && a->n_tc >= 2
      && is_shape3 (&a->tc[0], 1, 32, 1) && a->tc[1].rank == 3 && a->tc[1].dims[0] == 1
      && a->tc[1].dims[1] == 1 && a->tc[1].dims[2] > 0)
    add_kernel (base, msperf_value_get_string (degenerate));

  if (by_rank && by_rank->kind == MSPERF_VALUE_MAP && a->n_tc >= 1)
    {
      char key[16];
      const msperf_value *list;

      g_snprintf (key, sizeof key, "%d", a->tc[0].rank);
      list = msperf_value_lookup (by_rank, key);
      if (list && list->kind == MSPERF_VALUE_LIST)
        for (guint i = 0; i < list->items->len; i++)
          add_kernel (kernels, msperf_value_get_string (g_ptr_array_index (list->items, i)));
      else if (list)
        add_kernel (kernels, msperf_value_get_string (list));
    }
  for (guint i = 0; i < base->len; i++)
    add_kernel (kernels, g_ptr_array_index (base, i));
}

/* tp_linear_projection (§2.4 step 5). Returns FALSE with the miss set when the rule is malformed
 * or the projection is not exact; 'applied' receives "axis:dim/tp" when a dim was projected. */
static gboolean
apply_tp_projection (const msperf_query *q, attempt *a, char *applied, size_t applied_size,
                     msperf_result *r)
{
  const msperf_value *rule = entry_field (q, "tp_linear_projection");
  const msperf_value *dims, *otherwise;
  const char *axis;
  gboolean input, listed = FALSE;
  int64_t visible, tp;

  if (rule == NULL)
    return TRUE;
  axis = msperf_value_get_string (msperf_value_lookup (rule, "shard_axis"));
  dims = msperf_value_lookup (rule, "logical_global_dims");
  otherwise = msperf_value_lookup (rule, "otherwise");
  if (rule->kind != MSPERF_VALUE_MAP || axis == NULL
      || (strcmp (axis, "input") != 0 && strcmp (axis, "output") != 0)
      || dims == NULL || !msperf_value_is_int_list (dims)
      || (otherwise != NULL
          && g_strcmp0 (msperf_value_get_string (otherwise), "physical_local") != 0))
    {
      msperf_result_set_miss (r, "invalid_tp_linear_projection_rule");
      return FALSE;
    }
  if (a->n_tc != 2 || a->tc[0].rank != 2 || a->tc[1].rank != 2)
    return TRUE;
  input = strcmp (axis, "input") == 0;
  visible = input ? a->tc[0].dims[1] : a->tc[1].dims[1];
  for (guint i = 0; i < dims->items->len; i++)
    listed |= ((const msperf_value *) g_ptr_array_index (dims->items, i))->i == visible;
  tp = msperf_engine_parallel (q->engine)->tp_size;
  if (!listed || tp <= 1)
    return TRUE;
  if (visible % tp != 0)
    {
      msperf_result_set_miss (r, "tp_projection_invalid:%s_dim=%" G_GINT64_FORMAT
                              ",tp_size=%" G_GINT64_FORMAT, axis, visible, tp);
      return FALSE;
    }
  if (input)
    {
      /* Row-parallel: the activation's K and the weight's K (either orientation) are local. */
      a->tc[0].dims[1] = visible / tp;
      if (a->tc[1].dims[0] == visible)
        a->tc[1].dims[0] = visible / tp;
      else if (a->tc[1].dims[1] == visible)
        a->tc[1].dims[1] = visible / tp;
    }
  else
    a->tc[1].dims[1] = visible / tp;
  g_snprintf (applied, applied_size, "%s:%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, axis,
              visible, tp);
  return TRUE;
}

/* query_mode mtp_projection: an activation (M,2H) against a {2H,H} weight giving (M,H) is first
 * looked up as the BF16-service matmul kernel, in the output dtype. */
static gboolean
try_mtp_projection (const msperf_query *q, const attempt *a, msperf_result *r)
{
  const char *k = msperf_value_get_string (entry_field (q, "mtp_projection_kernel_type"));
  const msperf_tensor *out = q->op ? msperf_op_output (q->op) : NULL;
  msperf_tensor in[2];
  const msperf_tensor *x, *w;
  attempt mtp;
  msperf_selector sel;
  scan_status st;
  gboolean aliased;
  int64_t h;

  if (k == NULL || out == NULL || a->n_tc < 2)
    return FALSE;
  x = &a->tc[0];
  w = &a->tc[1];
  if (x->rank != 2 || w->rank != 2 || out->rank != 2)
    return FALSE;
  h = out->dims[1];
  if (out->dims[0] != x->dims[0] || h <= 0 || h > INT64_MAX / 2 || x->dims[1] != 2 * h
      || !((w->dims[0] == 2 * h && w->dims[1] == h) || (w->dims[0] == h && w->dims[1] == 2 * h)))
    return FALSE;
  in[0] = *x;
  in[1] = *w;
  in[0].dtype = in[1].dtype = out->dtype;
  mtp.tc = in;
  mtp.n_tc = 2;
  mtp.kernels = g_ptr_array_new ();
  add_kernel (mtp.kernels, k);
  st = run_attempt (q->engine, &mtp, q->tc_input_count, &sel, &aliased);
  if (st == SCAN_HIT)
    {
      finish (q->engine, st, &sel, aliased, r);
      msperf_result_detail_bool (r, "mtp_projection", TRUE);
    }
  msperf_selector_clear (&sel);
  g_ptr_array_unref (mtp.kernels);
  return st == SCAN_HIT;
}

static msperf_status
compute_lookup (msperf_engine *engine, void *state, const msperf_query *q, msperf_result *r)
{
  attempt a = { 0 };
  char tp_applied[96] = "";
  msperf_status status;

  (void) state;
  g_return_val_if_fail (q != NULL && r != NULL, MSPERF_ERROR);
  if (q->kernel_types == NULL || q->kernel_types[0] == NULL)
    return msperf_result_set_miss (r, "no_kernel_type");
  if (compute_batched_kernel (q) != NULL)
    return compute_batched_lookup (engine, q, compute_batched_kernel (q), r);

  a.n_tc = msperf_input_count_limit (q->n_inputs, q->tc_input_count);
  a.tc = g_new0 (msperf_tensor, a.n_tc ? a.n_tc : 1);
  for (size_t i = 0; i < a.n_tc; i++)
    {
      a.tc[i] = q->inputs[i];
      a.tc[i].values = NULL;
      a.tc[i].n_values = 0;
    }

  if (q->entry && g_strcmp0 (q->entry->query_mode, "mtp_projection") == 0
      && try_mtp_projection (q, &a, r))
    {
      g_free (a.tc);
      return MSPERF_HIT;
    }

  a.kernels = g_ptr_array_new ();
  build_kernel_list (q, &a, a.kernels);
  if (!apply_tp_projection (q, &a, tp_applied, sizeof tp_applied, r))
    status = MSPERF_MISS;
  else
    {
      msperf_selector sel;
      gboolean aliased;
      scan_status st = run_attempt (engine, &a, q->tc_input_count, &sel, &aliased);

      status = finish (engine, st, &sel, aliased, r);
      if (status == MSPERF_HIT && tp_applied[0])
        msperf_result_detail_string (r, "tp_projection", tp_applied);
      msperf_selector_clear (&sel);
    }
  g_ptr_array_unref (a.kernels);
  g_free (a.tc);
  return status;
}

/* Upstream's mtp_projection query mode is a compute lookup (reference §2.2). */
static const char *const compute_aliases[] = { "mtp_projection", NULL };

/* No init or fini: stateless, every slot reads the policy and the tables through its engine
 * argument. */

MSPERF_PLUGIN_DEFINE (
  .name = "compute",
  .version = PACKAGE_VERSION,
  .description = "compute kernels: exact CSV lookup with the upstream shape rules",
  .flags = MSPERF_PLUGIN_DEFAULT_MODE | MSPERF_PLUGIN_INTERPOLATE_BY_DEFAULT,
  .aliases = compute_aliases,
  .no_table_reason = "compute_csv_not_found",
  .no_target_reason = "compute_target_unavailable",
  .lookup = compute_lookup,
  .describe_target = compute_describe_target,
  .describe_row = compute_describe_row,
);
