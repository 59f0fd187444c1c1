/* msperf broadcast_att — one static branch of the model: condition decisions (folded, memoised
 * per branch, or answered from the decision path), domain refusals and call emission into
 * the branch's ledger. */
#include <config.h>
#include <string.h>
#include "brc_model.h"

static void
call_free (gpointer data)
{
  brc_call *c = data;

  g_free (c->call_site);
  g_free (c->real_api);
  g_free (c->data_dtype);
  g_free (c->index_dtype);
  g_free (c->mode);
  g_free (c->param_role);
  g_ptr_array_unref (c->components);
  g_free (c);
}

static void
component_free (gpointer data)
{
  brc_component *c = data;

  g_free (c->perf_type);
  g_free (c->perf_dtype);
  g_free (c);
}

brc_run *
brc_run_new (msperf_expr_ctx *ctx, const msperf_att_table *table, GArray *path)
{
  brc_run *run = g_new0 (brc_run, 1);

  run->ctx = ctx;
  run->table = table;
  run->path = path;
  run->conds = g_array_new (FALSE, FALSE, sizeof (brc_cond));
  run->memo = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  run->known = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  run->calls = g_ptr_array_new_with_free_func (call_free);
  run->mult = msperf_expr_int (ctx, 1);
  run->launches = msperf_expr_int (ctx, 0);
  run->branch = g_string_new (NULL);
  return run;
}

void
brc_run_free (brc_run *run)
{
  if (run == NULL)
    return;
  g_array_unref (run->conds);
  g_hash_table_unref (run->memo);
  g_hash_table_unref (run->known);
  g_ptr_array_unref (run->calls);
  g_string_free (run->branch, TRUE);
  g_clear_error (&run->error);
  g_free (run);
}

void
brc_fail (brc_run *run, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  if (run->error != NULL)
    return;
  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (&run->error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, msg);
}

void
brc_check_max (brc_run *run, const msperf_expr *e, int64_t limit, const char *what)
{
  int64_t v;

  if (msperf_expr_get_int (e, &v) && v > limit)
    brc_fail (run, "%s is %" G_GINT64_FORMAT ", above the kernel's limit %" G_GINT64_FORMAT,
              what, v, limit);
}

/* The truth of "l cond r" for numbers (and for a numeric difference: x == x). */
static gboolean
fold (msperf_cond cond, const msperf_expr *l, const msperf_expr *r, gboolean *answer)
{
  const msperf_expr *d = msperf_expr_sub (l, r);
  double v;

  if (!msperf_expr_is_number (d) || !msperf_expr_get_double (d, &v))
    return FALSE;
  switch (cond)
    {
    case MSPERF_COND_EQ: *answer = v == 0.0; break;
    case MSPERF_COND_LT: *answer = v < 0.0; break;
    case MSPERF_COND_GT: *answer = v > 0.0; break;
    case MSPERF_COND_LE: *answer = v <= 0.0; break;
    case MSPERF_COND_GE: *answer = v >= 0.0; break;
    default: return FALSE;
    }
  return TRUE;
}

gboolean
brc_decide (brc_run *run, msperf_cond cond, const msperf_expr *left, const msperf_expr *right)
{
  g_autofree char *key = NULL;
  gpointer memo;
  gboolean answer;
  brc_cond c;

  /* Equalities decided earlier on this branch fold the conditions that follow. */
  if (g_hash_table_size (run->known) > 0)
    {
      left = msperf_expr_subs (left, run->known);
      right = msperf_expr_subs (right, run->known);
    }
  if (fold (cond, left, right, &answer))
    return answer;
  key = g_strdup_printf ("%d|%s|%s", (int) cond, msperf_expr_str (left), msperf_expr_str (right));
  if ((memo = g_hash_table_lookup (run->memo, key)) != NULL)
    return GPOINTER_TO_INT (memo) - 1;
  if (run->pos < run->path->len)
    answer = g_array_index (run->path, gboolean, run->pos);
  else
    {
      answer = TRUE;
      g_array_append_val (run->path, answer);
    }
  run->pos++;
  c.cond = cond;
  c.left = (msperf_expr *) left;
  c.right = (msperf_expr *) right;
  g_array_append_val (run->conds, c);
  g_hash_table_insert (run->memo, g_steal_pointer (&key), GINT_TO_POINTER (answer + 1));
  /* symbol == number on the "true" side: later conditions see the number */
  if (cond == MSPERF_COND_EQ && answer && msperf_expr_symbol_name (left) != NULL
      && msperf_expr_is_number (right))
    g_hash_table_replace (run->known, g_strdup (msperf_expr_symbol_name (left)),
                          (gpointer) right);
  else if (cond == MSPERF_COND_EQ && answer && msperf_expr_symbol_name (right) != NULL
           && msperf_expr_is_number (left))
    g_hash_table_replace (run->known, g_strdup (msperf_expr_symbol_name (right)),
                          (gpointer) left);
  return answer;
}

gboolean
brc_eq (brc_run *run, const msperf_expr *a, const msperf_expr *b)
{
  return brc_decide (run, MSPERF_COND_EQ, a, b);
}

gboolean
brc_eq_int (brc_run *run, const msperf_expr *a, int64_t b)
{
  return brc_decide (run, MSPERF_COND_EQ, a, msperf_expr_int (run->ctx, b));
}

gboolean
brc_lt_int (brc_run *run, const msperf_expr *a, int64_t b)
{
  return brc_decide (run, MSPERF_COND_LT, a, msperf_expr_int (run->ctx, b));
}

gboolean
brc_le_int (brc_run *run, const msperf_expr *a, int64_t b)
{
  return brc_decide (run, MSPERF_COND_LE, a, msperf_expr_int (run->ctx, b));
}

gboolean
brc_gt_int (brc_run *run, const msperf_expr *a, int64_t b)
{
  return brc_decide (run, MSPERF_COND_GT, a, msperf_expr_int (run->ctx, b));
}

gboolean
brc_divisible (brc_run *run, const msperf_expr *a, int64_t m)
{
  msperf_expr *me = msperf_expr_int (run->ctx, m);

  return brc_decide (run, MSPERF_COND_EQ, msperf_expr_mod (a, me), msperf_expr_int (run->ctx, 0));
}

const char *
brc_perf_type (const char *api)
{
  static const char *const same[] = { "Duplicate", "UpdateMask", "Add", "Adds", "Sub", "Mul",
                                      "Muls", "MulAddDst", "Div", "DeInterleave", NULL };

  /* every API that loads maps to Load, every one that stores to Store (seed FR6) */
  if (strstr (api, "Load") != NULL)
    return "Load";
  if (strstr (api, "Store") != NULL)
    return "Store";
  if (g_strv_contains (same, api))
    return api;
  return "Placeholder";
}

static brc_call *
new_call (brc_run *run, const char *site, const char *api, const char *data_dtype,
          const char *index_dtype, const char *mode, const msperf_expr *count)
{
  brc_call *c = g_new0 (brc_call, 1);

  c->call_site = g_strdup (site);
  c->real_api = g_strdup (api);
  c->data_dtype = g_strdup (data_dtype);
  c->index_dtype = g_strdup (index_dtype);
  c->mode = g_strdup (mode);
  c->call_count = (msperf_expr *) count;
  c->components = g_ptr_array_new_with_free_func (component_free);
  g_ptr_array_add (run->calls, c);
  return c;
}

void
brc_call_component (brc_run *run, brc_call *call, const char *perf_type,
                    const char *perf_dtype, const msperf_expr *count)
{
  brc_component *k = g_new0 (brc_component, 1);

  (void) run;
  k->perf_type = g_strdup (perf_type);
  k->perf_dtype = g_strdup (perf_dtype);
  k->count = (msperf_expr *) count;
  g_ptr_array_add (call->components, k);
}

brc_call *
brc_emit (brc_run *run, const char *site, const char *api, const char *data_dtype,
          const char *index_dtype, const char *mode, const msperf_expr *count,
          const char *perf_dtype)
{
  msperf_expr *n = msperf_expr_mul (count, run->mult);
  brc_call *c = new_call (run, site, api, data_dtype, index_dtype, mode, n);

  brc_call_component (run, c, brc_perf_type (api), perf_dtype, n);
  return c;
}

brc_call *
brc_emit_n (brc_run *run, const char *site, const char *api, const char *data_dtype,
            const char *index_dtype, const char *mode, int64_t count, const char *perf_dtype)
{
  return brc_emit (run, site, api, data_dtype, index_dtype, mode,
                   msperf_expr_int (run->ctx, count), perf_dtype);
}

brc_call *
brc_emit_external (brc_run *run, const char *site, const char *api, const char *data_dtype,
                   const char *mode, const char *role, const msperf_expr *value)
{
  brc_call *c = new_call (run, site, api, data_dtype, NULL, mode, msperf_expr_int (run->ctx, 1));

  c->param_role = g_strdup (role);
  c->param_value = (msperf_expr *) value;
  return c;
}

void
brc_add_launches (brc_run *run, int64_t n)
{
  run->launches = msperf_expr_add (run->launches,
                                   msperf_expr_mul (msperf_expr_int (run->ctx, n), run->mult));
}
