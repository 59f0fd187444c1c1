/* msperf module "field_table": kernel tables whose rows are told apart by named fields besides
 * their tensors (doc/formats.md §1.3: the imported FusedMoE table's num_experts, moe_tp, moe_ep,
 * topk, distribution and quant).
 *
 * Fields: every column of the table that is not a column of the CSV contract (doc/formats.md
 * §1.2: OP State, Accelerator Core, the Input and Output columns, the latency columns). A row's
 * field value is its cell; the op's is its kwarg of the same name, else the mapping entry's
 * `field_defaults.<column>`, else the op is not answered (miss `field_missing:<column>`). Values
 * compare as text, numbers in one canonical form ("8" = "8.0"). Every field is exact: it is
 * part of the regime, never interpolated.
 * Tensors: the dims of the first tc_input_count inputs (all without one). Dim 0 of the first
 * input is the `tokens` axis; dim 0 of another input of the same rank that equals it follows
 * the axis (the [T, topk] routing ids), every other dim must match exactly. Dtypes are not
 * compared: the table's quantisation is a field, and the kernel's internal dtypes (an fp8
 * activation) need not be what the op records.
 * Exact stage: in the entry's kernels in order (primary, then alternates), the first row whose
 * fields, dims and token count all equal the op's, MEASURED, confidence 1.0, rule `field_exact`.
 * Otherwise the core's interpolation stage answers along `tokens` in the same regime (listed in
 * interpolation.modes).
 * Column axes: when the kernel's interpolation policy names `axes` that are columns of its table
 * (the imported MLA tables: num_heads, batch_size, isl, step), those numeric columns are the
 * axes and the table needs no tensors; the fields are the policy's `exact_fields` (every other
 * non-contract column without it). The op's value of a field or an axis is its kwarg, else one
 * derived from its tensors by the entry's `field_args.<column>` ({arg: N, dim: D}: dim D of
 * tensor argument N; {arg: N, value: max}: the largest of its values, e.g. seq_lens;
 * {arg: N, dtype: {TORCH_DTYPE: TEXT, …}}: its dtype named as the table names it; `minus:`
 * another such spec subtracted), else `field_defaults`. Every kernel of the entry (primary,
 * then alternates) is tried in order: a kernel whose exact fields no row has (the context MLA
 * table for a decode op, step > 0) answers nothing and the next one is asked. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/number.h>
#include <msperf/plugin.h>

#define MAX_INPUTS 8
#define MAX_COLUMN_AXES MSPERF_POINT_MAX_AXES

static const char *const contract_columns[] = {
  "OP State", "Accelerator Core", "Input Shapes", "Input Data Types", "Input Formats",
  "Output Shapes", "Output Data Types", "Output Formats", "Average Duration(us)",
  "Profiling Average Duration(us)", "Duration(us)", NULL
};

static gboolean
is_field_column (const char *name)
{
  return name && *name && !g_strv_contains (contract_columns, name);
}

/* Tensor argument n of the op (positional), or NULL. */
static const msperf_tensor *
arg_tensor (const msperf_op *op, int64_t n)
{
  const msperf_value *v;

  if (op->args == NULL || n < 0 || (guint) n >= op->args->len)
    return NULL;
  v = g_ptr_array_index (op->args, (guint) n);
  return v && v->kind == MSPERF_VALUE_TENSOR ? &v->tensor : NULL;
}

/* The number a `field_args` spec derives from the op's tensors; FALSE when the op has no such
 * tensor, dim or values. */
static gboolean
spec_number (const msperf_op *op, const msperf_value *spec, int depth, double *out)
{
  const msperf_tensor *t;
  int64_t arg, dim;
  const char *value;
  const msperf_value *minus;

  if (spec == NULL || spec->kind != MSPERF_VALUE_MAP || depth > 4
      || !msperf_value_get_int (msperf_value_lookup (spec, "arg"), &arg)
      || (t = arg_tensor (op, arg)) == NULL)
    return FALSE;
  value = msperf_value_get_string (msperf_value_lookup (spec, "value"));
  if (msperf_value_get_int (msperf_value_lookup (spec, "dim"), &dim))
    {
      if (dim < 0 || dim >= t->rank)
        return FALSE;
      *out = (double) t->dims[dim];
    }
  else if (g_strcmp0 (value, "max") == 0 && t->values != NULL && t->n_values > 0)
    {
      int64_t m = t->values[0];

      for (size_t i = 1; i < t->n_values; i++)
        m = MAX (m, t->values[i]);
      *out = (double) m;
    }
  else
    return FALSE;
  minus = msperf_value_lookup (spec, "minus");
  if (minus != NULL)
    {
      double sub;

      if (!spec_number (op, minus, depth + 1, &sub))
        return FALSE;
      *out -= sub;
    }
  return TRUE;
}

/* The text a `field_args` spec derives: a dtype named through the spec's map, or a number. */
static gboolean
spec_text (const msperf_op *op, const msperf_value *spec, GString *s)
{
  const msperf_value *map = msperf_value_lookup (spec, "dtype");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  double v;

  if (map != NULL)
    {
      const msperf_tensor *t;
      int64_t arg;
      const char *name;

      if (map->kind != MSPERF_VALUE_MAP
          || !msperf_value_get_int (msperf_value_lookup (spec, "arg"), &arg)
          || (t = arg_tensor (op, arg)) == NULL
          || (name = msperf_value_get_string (msperf_value_lookup (map,
                                                                   msperf_dtype_torch_name (t->dtype))))
                 == NULL)
        return FALSE;
      g_string_append (s, name);
      return TRUE;
    }
  if (!spec_number (op, spec, 0, &v))
    return FALSE;
  g_snprintf (buf, sizeof buf, "%.17g", v);
  msperf_number_append_canonical (s, buf);
  return TRUE;
}

/* The op's value of field `name` as text, into s; FALSE when neither a kwarg, the entry's
 * field_args nor its field_defaults gives a scalar. */
static gboolean
target_field (const msperf_query *q, const char *name, GString *s)
{
  const msperf_value *v = msperf_value_lookup (q->op->kwargs, name);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if ((v == NULL || v->kind == MSPERF_VALUE_NONE) && q->entry && q->entry->raw)
    {
      const msperf_value *spec
        = msperf_value_lookup (msperf_value_lookup (q->entry->raw, "field_args"), name);

      if (spec != NULL && spec_text (q->op, spec, s))
        return TRUE;
      v = msperf_value_lookup (msperf_value_lookup (q->entry->raw, "field_defaults"), name);
    }
  if (v == NULL)
    return FALSE;
  switch (v->kind)
    {
    case MSPERF_VALUE_STRING:
      msperf_number_append_canonical (s, v->s);
      return TRUE;
    case MSPERF_VALUE_INT:
      g_string_append_printf (s, "%" G_GINT64_FORMAT, v->i);
      return TRUE;
    case MSPERF_VALUE_FLOAT:
      g_snprintf (buf, sizeof buf, "%.17g", v->f);
      msperf_number_append_canonical (s, buf);
      return TRUE;
    case MSPERF_VALUE_BOOL:
      g_string_append (s, v->b ? "1" : "0");
      return TRUE;
    default:
      return FALSE;
    }
}

/* How a table's rows are told apart: its column axes (none: the tensor layout, `tokens`) and
 * the policy's exact_fields list (NULL: every non-contract column that is not an axis). */
typedef struct {
  size_t n_axes;
  int axis_col[MAX_COLUMN_AXES];
  const char *axis_name[MAX_COLUMN_AXES]; /* the table's column names: live as long as it */
  const msperf_value *exact;
} layout;

static gboolean
list_has (const msperf_value *list, const char *name)
{
  if (list == NULL || list->kind != MSPERF_VALUE_LIST)
    return FALSE;
  for (guint i = 0; i < list->items->len; i++)
    if (g_strcmp0 (msperf_value_get_string (g_ptr_array_index (list->items, i)), name) == 0)
      return TRUE;
  return FALSE;
}

/* The kernel policy's axes that are non-contract columns of t, in the policy's order. */
static void
layout_init (msperf_engine *engine, const msperf_table *t, const char *kernel, layout *l)
{
  const msperf_value *axes;

  l->n_axes = 0;
  l->exact = NULL;
  if (engine == NULL || kernel == NULL)
    return;
  axes = msperf_engine_kernel_option (engine, "interpolation_policy", kernel, "axes");
  if (axes == NULL || axes->kind != MSPERF_VALUE_LIST)
    return;
  for (guint i = 0; i < axes->items->len && l->n_axes < MAX_COLUMN_AXES; i++)
    {
      const char *name = msperf_value_get_string (g_ptr_array_index (axes->items, i));
      int c = name ? msperf_table_column (t, name) : -1;

      if (c < 0 || !is_field_column (name))
        continue;
      l->axis_col[l->n_axes] = c;
      l->axis_name[l->n_axes++] = msperf_table_column_name (t, (size_t) c);
    }
  if (l->n_axes > 0)
    l->exact = msperf_engine_kernel_option (engine, "interpolation_policy", kernel,
                                            "exact_fields");
}

static gboolean
layout_is_field (const layout *l, const char *name)
{
  if (!is_field_column (name))
    return FALSE;
  for (size_t a = 0; a < l->n_axes; a++)
    if (strcmp (l->axis_name[a], name) == 0)
      return FALSE;
  return l->exact == NULL || list_has (l->exact, name);
}

/* "name=value" of every field column, for a row (q NULL) or the target. On a missing target
 * field, *missing names it and FALSE. */
static gboolean
fields_key (const msperf_table *t, const layout *l, size_t row, const msperf_query *q,
            GString *key, const char **missing)
{
  for (size_t c = 0; c < msperf_table_n_columns (t); c++)
    {
      const char *name = msperf_table_column_name (t, c);

      if (!layout_is_field (l, name))
        continue;
      g_string_append_printf (key, "|%s=", name);
      if (q == NULL)
        msperf_number_append_canonical (key, msperf_table_cell (t, row, (int) c));
      else if (!target_field (q, name, key))
        {
          *missing = name;
          return FALSE;
        }
    }
  return TRUE;
}

/* A cell as a number, NAN when it is not one (msperf_table_column_parsed's parser). */
static double
cell_number (const char *cell)
{
  double v;

  return msperf_number_parse (cell, &v) ? v : NAN;
}

/* The op's value of column axis `name`: from the same sources as a field, as a number. */
static gboolean
target_number (const msperf_query *q, const char *name, double *v)
{
  g_autoptr (GString) s = g_string_new (NULL);

  return target_field (q, name, s) && msperf_number_parse (s->str, v);
}

/* The dims of in[0..n), token dims written T; *tokens = dim 0 of the first input. */
static gboolean
shapes_key (const msperf_tensor *in, size_t n, GString *key, int64_t *tokens)
{
  if (n < 1 || in[0].rank < 1 || (*tokens = in[0].dims[0]) <= 0)
    return FALSE;
  g_string_append_printf (key, "|inputs=%zu|", n);
  for (size_t i = 0; i < n; i++)
    {
      g_string_append_c (key, i ? ';' : '[');
      for (int d = 0; d < in[i].rank; d++)
        {
          if (d)
            g_string_append_c (key, ',');
          if (d == 0 && (i == 0 || (in[i].rank == in[0].rank && in[i].dims[0] == *tokens)))
            g_string_append_c (key, 'T');
          else
            g_string_append_printf (key, "%" G_GINT64_FORMAT, in[i].dims[d]);
        }
    }
  g_string_append_c (key, ']');
  return TRUE;
}

/* The target's coordinate in one kernel's table: regime key and axes (tokens, or the column
 * axes' values in x). */
typedef struct {
  const msperf_table *table;
  layout l;
  int64_t tokens;
  double x[MAX_COLUMN_AXES];
} target;

/* The regime key and coordinates of the target, or a miss reason. */
static const char *
target_key (msperf_engine *engine, const msperf_query *q, const char *kernel, GString *key,
            target *tg, const char **missing)
{
  g_autoptr (GError) error = NULL;
  size_t n;

  tg->table = msperf_engine_table (engine, kernel, &error);
  if (tg->table == NULL)
    return "csv_not_found";
  layout_init (engine, tg->table, kernel, &tg->l);
  g_string_append (key, kernel);
  if (tg->l.n_axes > 0)
    {
      if (!fields_key (tg->table, &tg->l, 0, q, key, missing))
        return "field_missing";
      for (size_t a = 0; a < tg->l.n_axes; a++)
        if (!target_number (q, tg->l.axis_name[a], &tg->x[a]))
          {
            *missing = tg->l.axis_name[a];
            return "field_missing";
          }
      return NULL;
    }
  n = msperf_input_count_limit (q->n_inputs, q->tc_input_count);
  if (n > MAX_INPUTS || !msperf_table_has_shapes (tg->table))
    return "field_table_shape_unsupported";
  if (!fields_key (tg->table, &tg->l, 0, q, key, missing))
    return "field_missing";
  if (!shapes_key (q->inputs, n, key, &tg->tokens))
    return "field_table_shape_unsupported";
  return NULL;
}

static gboolean
row_key (const msperf_table *t, size_t row, int64_t limit, GString *key, int64_t *tokens)
{
  msperf_tensor in[MAX_INPUTS];
  size_t n;
  layout none = { 0 };

  if (!msperf_table_row_valid (t, row)
      || !msperf_table_row_inputs_nd (t, row, limit, in, MAX_INPUTS, &n))
    return FALSE;
  g_string_append (key, msperf_table_kernel_type (t));
  fields_key (t, &none, row, NULL, key, NULL);
  return shapes_key (in, n, key, tokens);
}

/* A row of a column-axes table: its regime key and axis values. */
static gboolean
column_row_key (const msperf_table *t, const layout *l, size_t row, GString *key, double *x)
{
  if (!msperf_table_row_valid (t, row))
    return FALSE;
  for (size_t a = 0; a < l->n_axes; a++)
    if (!msperf_number_parse (msperf_table_cell (t, row, l->axis_col[a]), &x[a]))
      return FALSE;
  g_string_append (key, msperf_table_kernel_type (t));
  return fields_key (t, l, row, NULL, key, NULL);
}

/* The first row of tg's table at the target's regime and coordinates, or -1. */
static gssize
exact_row (const msperf_query *q, const target *tg, const char *want)
{
  g_autoptr (GString) have = g_string_new (NULL);
  const msperf_table *t = tg->table;
  const double *parsed[MAX_COLUMN_AXES];

  for (size_t a = 0; a < tg->l.n_axes; a++)
    if ((parsed[a] = msperf_table_column_parsed (t, tg->l.axis_col[a], cell_number)) == NULL)
      return -1;
  for (size_t row = 0; row < msperf_table_n_rows (t); row++)
    {
      if (tg->l.n_axes > 0)
        {
          double x[MAX_COLUMN_AXES];
          gboolean same = TRUE;

          /* The parsed axis columns first: they rule out almost every row without a key. */
          for (size_t a = 0; a < tg->l.n_axes && same; a++)
            same = parsed[a][row] == tg->x[a];
          if (!same)
            continue;
          g_string_truncate (have, 0);
          if (column_row_key (t, &tg->l, row, have, x) && strcmp (have->str, want) == 0)
            return (gssize) row;
        }
      else
        {
          const msperf_slots *s = msperf_table_row_inputs (t, row);
          int64_t row_tokens = 0;

          /* The token count first: it rules out almost every row without building its key. */
          if (s == NULL || s->n < 1 || s->t[0].rank < 1 || s->t[0].dims[0] != tg->tokens)
            continue;
          g_string_truncate (have, 0);
          if (row_key (t, row, q->tc_input_count, have, &row_tokens) && row_tokens == tg->tokens
              && strcmp (have->str, want) == 0)
            return (gssize) row;
        }
    }
  return -1;
}

static msperf_status
field_lookup (msperf_engine *engine, void *state, const msperf_query *q, msperf_result *r)
{
  const char *reason = NULL, *reason_missing = NULL;
  g_autoptr (GString) want = g_string_new (NULL);

  (void) state;
  g_return_val_if_fail (engine != NULL && q != NULL && r != NULL, MSPERF_ERROR);
  if (q->op == NULL || q->kernel_types == NULL || q->kernel_types[0] == NULL)
    return msperf_result_set_miss (r, "csv_not_found");
  /* Primary, then alternates: the first kernel with an exact row answers. The miss reason is
   * the first kernel's unless a later one got as far as its rows. */
  for (const char *const *k = q->kernel_types; *k; k++)
    {
      const char *missing = NULL, *why;
      target tg = { 0 };
      gssize row;

      g_string_truncate (want, 0);
      why = target_key (engine, q, *k, want, &tg, &missing);
      if (why != NULL)
        {
          if (reason == NULL)
            {
              reason = why;
              reason_missing = missing;
            }
          continue;
        }
      row = exact_row (q, &tg, want->str);
      if (row >= 0)
        {
          msperf_result_set_hit (r, MSPERF_SOURCE_MEASURED,
                                 msperf_table_row_latency (tg.table, (size_t) row), 1.0, *k,
                                 "field_exact");
          msperf_result_detail_int (r, "row_line", msperf_table_row_line (tg.table,
                                                                          (size_t) row));
          return MSPERF_HIT;
        }
      reason = "field_row_not_found";
      reason_missing = NULL;
    }
  return reason_missing ? msperf_result_set_miss (r, "%s:%s", reason, reason_missing)
                        : msperf_result_set_miss (r, "%s", reason);
}

static gboolean
field_describe_target (msperf_engine *engine, void *state, const msperf_query *q,
                       msperf_point *p)
{
  g_autoptr (GString) key = g_string_new (NULL);
  const char *missing = NULL;
  target tg = { 0 };

  (void) state;
  g_return_val_if_fail (engine != NULL && q != NULL && p != NULL, FALSE);
  if (q->op == NULL || q->kernel_types == NULL || q->kernel_types[0] == NULL
      || target_key (engine, q, q->kernel_types[0], key, &tg, &missing) != NULL)
    return FALSE;
  msperf_point_regime_add (p, key->str);
  if (tg.l.n_axes == 0)
    msperf_point_add_axis (p, "tokens", (double) tg.tokens, TRUE);
  for (size_t a = 0; a < tg.l.n_axes; a++)
    msperf_point_add_axis (p, tg.l.axis_name[a], tg.x[a], TRUE);
  return TRUE;
}

static gboolean
field_describe_row (msperf_engine *engine, void *state, const msperf_table *t, size_t row,
                    msperf_point *p)
{
  g_autoptr (GString) key = g_string_new (NULL);
  int64_t tokens = 0;
  layout l;

  (void) state;
  g_return_val_if_fail (t != NULL && p != NULL, FALSE);
  layout_init (engine, t, msperf_table_kernel_type (t), &l);
  if (l.n_axes > 0)
    {
      double x[MAX_COLUMN_AXES];

      if (!column_row_key (t, &l, row, key, x))
        return FALSE;
      msperf_point_regime_add (p, key->str);
      for (size_t a = 0; a < l.n_axes; a++)
        msperf_point_add_axis (p, l.axis_name[a], x[a], TRUE);
      return TRUE;
    }
  if (!row_key (t, row, p->input_limit, key, &tokens))
    return FALSE;
  msperf_point_regime_add (p, key->str);
  msperf_point_add_axis (p, "tokens", (double) tokens, TRUE);
  return TRUE;
}

MSPERF_PLUGIN_DEFINE (
  .name = "field_table",
  .version = PACKAGE_VERSION,
  .description = "tables with exact named fields (fused MoE): exact rows, tokens interpolated",
  .lookup = field_lookup,
  /* Interpolated along tokens (or the column axes) when a policy lists field_table in
   * interpolation.modes. */
  .describe_target = field_describe_target,
  .describe_row = field_describe_row,
  .no_target_reason = "field_target_unavailable",
);
