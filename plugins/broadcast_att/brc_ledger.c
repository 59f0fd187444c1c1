/* msperf broadcast_att — the whole model: every static branch (depth first over the branch
 * points, "true" first), each costed on its own as VFHead + max_latency + Σ throughput·count,
 * the costs nested as ternaries in the order the kernel evaluates its conditions, and the
 * conditional union ledger (seed FR5): one row per call identity, every count a ternary of the
 * branch counts (0 where the branch has no such call). The union ledger is never costed —
 * a zero-count call of another branch would otherwise raise max_latency. */
#include <config.h>
#include <string.h>
#include "brc_model.h"

static void
branch_free (gpointer data)
{
  brc_branch *b = data;

  g_array_unref (b->path);
  g_array_unref (b->conds);
  g_ptr_array_unref (b->calls);
  g_clear_pointer (&b->by_identity, g_hash_table_unref);
  g_free (b->name);
  g_free (b->refusal);
  msperf_att_vf_free (b->vf);
  g_free (b);
}

void
brc_model_clear (brc_model *m)
{
  g_clear_pointer (&m->branches, g_ptr_array_unref);
  g_clear_pointer (&m->ledger, msperf_att_vf_free);
}

static char *
params_text (const brc_call *c)
{
  if (c->param_role == NULL)
    return NULL;
  return g_strdup_printf ("%s=%s", c->param_role, msperf_expr_str (c->param_value));
}

static msperf_att_vf *
cost_branch (const msperf_att_table *table, msperf_expr_ctx *ctx, GPtrArray *calls)
{
  msperf_att_vf *vf = msperf_att_vf_new (table, ctx);

  for (guint i = 0; i < calls->len; i++)
    {
      const brc_call *c = g_ptr_array_index (calls, i);
      g_autofree char *params = params_text (c);
      msperf_att_ledger_row *row = msperf_att_vf_row (vf, c->call_site, c->real_api,
                                                      c->data_dtype, c->index_dtype, c->mode,
                                                      params, c->call_count);
      for (guint j = 0; j < c->components->len; j++)
        {
          const brc_component *k = g_ptr_array_index (c->components, j);
          msperf_att_vf_add (vf, row, k->perf_type, k->perf_dtype, k->count);
        }
    }
  return vf;
}

/* ---------------------------------------------------------------- nesting */

typedef msperf_expr *(*leaf_fn) (const brc_branch *b, gpointer user);

/* The branches [lo, hi) share their first depth answers; a leaf is a branch whose path ends
 * here. Equal arms fold (the condition cannot matter). A branch outside the normal domain has
 * no formula (NULL): its arm is dropped, as no instance inside the domain takes it (seed:
 * symbolic formulas hold for the instances that satisfy the domain). */
static msperf_expr *
nest (msperf_expr_ctx *ctx, GPtrArray *branches, guint lo, guint hi, guint depth, leaf_fn fn,
      gpointer user)
{
  const brc_branch *b = g_ptr_array_index (branches, lo);
  const brc_cond *c;
  msperf_expr *a, *z;
  guint k;

  (void) ctx;
  if (b->path->len == depth)
    return b->refusal != NULL ? NULL : fn (b, user);
  c = &g_array_index (b->conds, brc_cond, depth);
  for (k = lo; k < hi; k++)
    {
      const brc_branch *x = g_ptr_array_index (branches, k);
      if (!g_array_index (x->path, gboolean, depth))
        break;
    }
  a = nest (ctx, branches, lo, k, depth + 1, fn, user);
  z = nest (ctx, branches, k, hi, depth + 1, fn, user);
  if (a == NULL || z == NULL)
    return a != NULL ? a : z;
  if (msperf_expr_equal (a, z))
    return a;
  return msperf_expr_ternary (c->cond, c->left, c->right, a, z);
}

static msperf_expr *
leaf_cost (const brc_branch *b, gpointer user)
{
  (void) user;
  return b->cost;
}

static msperf_expr *
leaf_launches (const brc_branch *b, gpointer user)
{
  (void) user;
  return b->launches;
}

/* The identity of a call (seed FR5: call_site, real_api, data/index dtype, mode, api_params
 * roles) as one text; NULL fields differ from empty ones. */
static char *
identity (const brc_call *c)
{
#define F_(x) ((x) != NULL ? (x) : "\x1e")
  return g_strdup_printf ("%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", c->call_site, c->real_api,
                          F_ (c->data_dtype), F_ (c->index_dtype), F_ (c->mode),
                          F_ (c->param_role));
#undef F_
}

static GHashTable *
index_calls (GPtrArray *calls)
{
  GHashTable *h = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < calls->len; i++)
    {
      brc_call *c = g_ptr_array_index (calls, i);
      char *id = identity (c);
      /* a branch never emits one identity twice; keep the first if it did */
      if (g_hash_table_contains (h, id))
        g_free (id);
      else
        g_hash_table_insert (h, id, c);
    }
  return h;
}

typedef struct {
  const char *id;              /* identity text of the key call */
  msperf_expr_ctx *ctx;
  int what;                    /* 0 call count, 1 param value, 2 component count */
  const brc_component *comp;
} key_ctx;

static msperf_expr *
leaf_key (const brc_branch *b, gpointer user)
{
  key_ctx *k = user;
  const brc_call *c = g_hash_table_lookup (b->by_identity, k->id);

  if (c == NULL)
    return msperf_expr_int (k->ctx, 0);
  if (k->what == 0)
    return c->call_count;
  if (k->what == 1)
    return c->param_value;
  for (guint j = 0; j < c->components->len; j++)
    {
      const brc_component *x = g_ptr_array_index (c->components, j);
      if (strcmp (x->perf_type, k->comp->perf_type) == 0
          && g_strcmp0 (x->perf_dtype, k->comp->perf_dtype) == 0)
        return x->count;
    }
  return msperf_expr_int (k->ctx, 0);
}

static void
union_ledger (const msperf_att_table *table, msperf_expr_ctx *ctx, brc_model *m)
{
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  g_autoptr (GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *br = m->branches;

  /* the identities in first-seen order (branches depth first, calls in emission order) */
  for (guint i = 0; i < br->len; i++)
    {
      const brc_branch *b = g_ptr_array_index (br, i);
      for (guint j = 0; b->refusal == NULL && j < b->calls->len; j++)
        {
          const brc_call *c = g_ptr_array_index (b->calls, j);
          char *id = identity (c);
          if (g_hash_table_contains (seen, id))
            {
              g_free (id);
              continue;
            }
          g_hash_table_add (seen, id);
          g_ptr_array_add (ids, id);
          g_ptr_array_add (keys, (gpointer) c);
        }
    }
  m->ledger = msperf_att_vf_new (table, ctx);
  for (guint k = 0; k < keys->len; k++)
    {
      const brc_call *like = g_ptr_array_index (keys, k);
      key_ctx kc = { g_ptr_array_index (ids, k), ctx, 0, NULL };
      msperf_expr *count = nest (ctx, br, 0, br->len, 0, leaf_key, &kc);
      g_autofree char *params = NULL;
      msperf_att_ledger_row *row;

      if (like->param_role != NULL)
        {
          kc.what = 1;
          params = g_strdup_printf ("%s=%s", like->param_role,
                                    msperf_expr_str (nest (ctx, br, 0, br->len, 0, leaf_key, &kc)));
        }
      row = msperf_att_vf_row (m->ledger, like->call_site, like->real_api, like->data_dtype,
                               like->index_dtype, like->mode, params, count);
      kc.what = 2;
      for (guint j = 0; j < like->components->len; j++)
        {
          kc.comp = g_ptr_array_index (like->components, j);
          msperf_att_vf_add (m->ledger, row, kc.comp->perf_type, kc.comp->perf_dtype,
                             nest (ctx, br, 0, br->len, 0, leaf_key, &kc));
        }
    }
}

gboolean
brc_model_build (const msperf_att_table *table, msperf_expr_ctx *ctx, const brc_params *p,
                 brc_model *m, GError **error)
{
  g_autoptr (GArray) path = g_array_new (FALSE, FALSE, sizeof (gboolean));

  g_return_val_if_fail (table != NULL && ctx != NULL && p != NULL && m != NULL, FALSE);
  memset (m, 0, sizeof *m);
  m->kind = p->kind == BRC_EXTEND ? "broadcast_extend" : "duplicate";
  m->branches = g_ptr_array_new_with_free_func (branch_free);
  for (;;)
    {
      brc_run *run = brc_run_new (ctx, table, path);
      brc_branch *b;

      brc_model_run (run, p);
      /* a static model (no branch point) outside the domain is refused */
      if (run->error != NULL && run->pos == 0)
        {
          g_propagate_error (error, g_steal_pointer (&run->error));
          brc_run_free (run);
          brc_model_clear (m);
          return FALSE;
        }
      if (m->branches->len >= BRC_MAX_BRANCHES)
        {
          brc_run_free (run);
          brc_model_clear (m);
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "the symbolic Broadcast model has more than %d static branches (the "
                       "work bound): bind some symbols (att.bind / --bind folds them before "
                       "the enumeration) or give integer sizes", BRC_MAX_BRANCHES);
          return FALSE;
        }
      g_array_set_size (path, run->pos);
      b = g_new0 (brc_branch, 1);
      b->path = g_array_copy (path);
      b->conds = g_array_ref (run->conds);
      b->calls = g_ptr_array_ref (run->calls);
      b->by_identity = index_calls (b->calls);
      b->launches = run->launches;
      b->name = g_strdup (run->branch->str);
      if (run->error != NULL)
        b->refusal = g_strdup (run->error->message);
      b->vf = cost_branch (table, ctx, b->calls);
      b->cost = msperf_att_vf_cost (b->vf);
      g_ptr_array_add (m->branches, b);
      brc_run_free (run);
      /* the next path: drop the trailing "false" answers, flip the last "true" */
      while (path->len > 0 && !g_array_index (path, gboolean, path->len - 1))
        g_array_set_size (path, path->len - 1);
      if (path->len == 0)
        break;
      g_array_index (path, gboolean, path->len - 1) = FALSE;
    }
  m->cost = nest (ctx, m->branches, 0, m->branches->len, 0, leaf_cost, NULL);
  if (m->cost == NULL)
    {
      /* every branch breaks a limit: no instance is inside the domain */
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s",
                   ((brc_branch *) g_ptr_array_index (m->branches, 0))->refusal);
      brc_model_clear (m);
      return FALSE;
    }
  m->launches = nest (ctx, m->branches, 0, m->branches->len, 0, leaf_launches, NULL);
  m->expression = m->cost;
  if (msperf_expr_get_kind (m->cost) == MSPERF_EXPR_TERNARY)
    m->expression = msperf_expr_ctx_define_fresh (ctx, "broadcast_cost", m->cost,
        "Broadcast V2 cost: the static branches nested in the kernel's condition order");
  union_ledger (table, ctx, m);
  return TRUE;
}

msperf_value *
brc_model_report (msperf_expr_ctx *ctx, const brc_model *m, GHashTable *bindings,
                  GError **error)
{
  msperf_value *obj = msperf_att_report_new (ctx, m->expression, bindings, m->ledger,
                                             m->launches, error);
  msperf_value *names;

  if (obj == NULL)
    return NULL;
  names = msperf_value_new (MSPERF_VALUE_LIST);
  for (guint i = 0; i < m->branches->len; i++)
    {
      const brc_branch *b = g_ptr_array_index (m->branches, i);
      g_autofree char *name = b->refusal == NULL ? g_strdup (b->name)
        : g_strdup_printf ("%s (outside the normal domain: %s)", b->name, b->refusal);
      msperf_value_list_append (names, msperf_value_new_string (name));
    }
  msperf_value_map_set (obj, "branches", names);
  return obj;
}
