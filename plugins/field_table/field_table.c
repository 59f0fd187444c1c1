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
 * Exact stage: in the entry's primary kernel, the first row whose fields, dims and token count
 * all equal the op's, MEASURED, confidence 1.0, rule `field_exact`. Otherwise the core's interpolation stage answers along
 * `tokens` in the same regime (listed in interpolation.modes). */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/plugin.h>

#define MAX_INPUTS 8

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

/* Numbers in one form so "8", "8.0" and the kwarg 8 compare equal; other text as is. */
static void
append_canonical (GString *s, const char *text)
{
  char *end;
  double v;

  v = g_ascii_strtod (text, &end);
  if (*text && end != text && *end == '\0' && isfinite (v))
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.17g", v));
    }
  else
    g_string_append (s, text);
}

/* The op's value of field `name` as text, into s; FALSE when neither a kwarg nor the entry's
 * field_defaults gives a scalar. */
static gboolean
target_field (const msperf_query *q, const char *name, GString *s)
{
  const msperf_value *v = msperf_value_lookup (q->op->kwargs, name);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if ((v == NULL || v->kind == MSPERF_VALUE_NONE) && q->entry && q->entry->raw)
    v = msperf_value_lookup (msperf_value_lookup (q->entry->raw, "field_defaults"), name);
  if (v == NULL)
    return FALSE;
  switch (v->kind)
    {
    case MSPERF_VALUE_STRING:
      append_canonical (s, v->s);
      return TRUE;
    case MSPERF_VALUE_INT:
      g_string_append_printf (s, "%" G_GINT64_FORMAT, v->i);
      return TRUE;
    case MSPERF_VALUE_FLOAT:
      g_snprintf (buf, sizeof buf, "%.17g", v->f);
      append_canonical (s, buf);
      return TRUE;
    case MSPERF_VALUE_BOOL:
      g_string_append (s, v->b ? "1" : "0");
      return TRUE;
    default:
      return FALSE;
    }
}

/* "name=value" of every field column, for a row (q NULL) or the target. On a missing target
 * field, *missing names it and FALSE. */
static gboolean
fields_key (const msperf_table *t, size_t row, const msperf_query *q, GString *key,
            const char **missing)
{
  for (size_t c = 0; c < msperf_table_n_columns (t); c++)
    {
      const char *name = msperf_table_column_name (t, c);

      if (!is_field_column (name))
        continue;
      g_string_append_printf (key, "|%s=", name);
      if (q == NULL)
        append_canonical (key, msperf_table_cell (t, row, (int) c));
      else if (!target_field (q, name, key))
        {
          *missing = name;
          return FALSE;
        }
    }
  return TRUE;
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

/* The regime key and token count of the target, or a miss reason. */
static const char *
target_key (msperf_engine *engine, const msperf_query *q, const char *kernel, GString *key,
            int64_t *tokens, const msperf_table **table, const char **missing)
{
  g_autoptr (GError) error = NULL;
  size_t n;

  *table = msperf_engine_table (engine, kernel, &error);
  if (*table == NULL)
    return "csv_not_found";
  n = msperf_input_count_limit (q->n_inputs, q->tc_input_count);
  if (n > MAX_INPUTS || !msperf_table_has_shapes (*table))
    return "field_table_shape_unsupported";
  g_string_append (key, kernel);
  if (!fields_key (*table, 0, q, key, missing))
    return "field_missing";
  if (!shapes_key (q->inputs, n, key, tokens))
    return "field_table_shape_unsupported";
  return NULL;
}

static gboolean
row_key (const msperf_table *t, size_t row, int64_t limit, GString *key, int64_t *tokens)
{
  msperf_tensor in[MAX_INPUTS];
  size_t n;

  if (!msperf_table_row_valid (t, row)
      || !msperf_table_row_inputs_nd (t, row, limit, in, MAX_INPUTS, &n))
    return FALSE;
  g_string_append (key, msperf_table_kernel_type (t));
  fields_key (t, row, NULL, key, NULL);
  return shapes_key (in, n, key, tokens);
}

static msperf_status
field_lookup (msperf_engine *engine, void *state, const msperf_query *q, msperf_result *r)
{
  const char *reason = "csv_not_found", *missing = NULL, *kernel;
  g_autoptr (GString) want = g_string_new (NULL);
  g_autoptr (GString) have = g_string_new (NULL);
  const msperf_table *t = NULL;
  int64_t tokens = 0;

  (void) state;
  g_return_val_if_fail (engine != NULL && q != NULL && r != NULL, MSPERF_ERROR);
  if (q->op == NULL || q->kernel_types == NULL || (kernel = q->kernel_types[0]) == NULL)
    return msperf_result_set_miss (r, "csv_not_found");
  reason = target_key (engine, q, kernel, want, &tokens, &t, &missing);
  if (reason)
    return missing ? msperf_result_set_miss (r, "%s:%s", reason, missing)
                   : msperf_result_set_miss (r, "%s", reason);
  for (size_t row = 0; row < msperf_table_n_rows (t); row++)
    {
      const msperf_slots *s = msperf_table_row_inputs (t, row);
      int64_t row_tokens = 0;

      /* The token count first: it rules out almost every row without building its key. */
      if (s == NULL || s->n < 1 || s->t[0].rank < 1 || s->t[0].dims[0] != tokens)
        continue;
      g_string_truncate (have, 0);
      if (!row_key (t, row, q->tc_input_count, have, &row_tokens) || row_tokens != tokens
          || strcmp (have->str, want->str) != 0)
        continue;
      msperf_result_set_hit (r, MSPERF_SOURCE_MEASURED, msperf_table_row_latency (t, row), 1.0,
                             kernel, "field_exact");
      msperf_result_detail_int (r, "row_line", msperf_table_row_line (t, row));
      return MSPERF_HIT;
    }
  return msperf_result_set_miss (r, "field_row_not_found");
}

static gboolean
field_describe_target (msperf_engine *engine, void *state, const msperf_query *q,
                       msperf_point *p)
{
  g_autoptr (GString) key = g_string_new (NULL);
  const msperf_table *t = NULL;
  const char *missing = NULL;
  int64_t tokens = 0;

  (void) state;
  g_return_val_if_fail (engine != NULL && q != NULL && p != NULL, FALSE);
  if (q->op == NULL || q->kernel_types == NULL || q->kernel_types[0] == NULL
      || target_key (engine, q, q->kernel_types[0], key, &tokens, &t, &missing) != NULL)
    return FALSE;
  msperf_point_regime_add (p, key->str);
  msperf_point_add_axis (p, "tokens", (double) tokens, TRUE);
  return TRUE;
}

static gboolean
field_describe_row (msperf_engine *engine, void *state, const msperf_table *t, size_t row,
                    msperf_point *p)
{
  g_autoptr (GString) key = g_string_new (NULL);
  int64_t tokens = 0;

  (void) engine;
  (void) state;
  g_return_val_if_fail (t != NULL && p != NULL, FALSE);
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
  /* Interpolated along tokens when a policy lists field_table in interpolation.modes. */
  .describe_target = field_describe_target,
  .describe_row = field_describe_row,
  .no_target_reason = "field_target_unavailable",
);
