/* msperf — the ATT V2 VF perf table: loading, the two lookups with upstream's quirks
 * (reference att-model.md §1.2–§1.5), the VF cost accumulator and its ledger. */
#include <config.h>
#include <string.h>
#include <msperf/att.h>
#include <msperf/paths.h>
#include "io/yaml_doc.h"

typedef struct {
  char **dtypes;   /* single-dtype rows */
  char **in;       /* mapping rows */
  char **out;
  int64_t latency;
  int64_t throughput;
} perf_row;

struct msperf_att_table {
  char *path;
  GHashTable *constants;    /* char* → double* */
  GHashTable *repeat_elems; /* char* → int64_t* */
  GHashTable *block_elems;
  GHashTable *dtype_size;
  GHashTable *single;       /* key → GPtrArray of perf_row*, in table order */
  GHashTable *mapping;
};

static const char kDefault[] = "default";

static void
perf_row_free (gpointer p)
{
  perf_row *r = p;

  g_strfreev (r->dtypes);
  g_strfreev (r->in);
  g_strfreev (r->out);
  g_free (r);
}

void
msperf_att_table_free (msperf_att_table *t)
{
  if (t == NULL)
    return;
  g_free (t->path);
  g_hash_table_unref (t->constants);
  g_hash_table_unref (t->repeat_elems);
  g_hash_table_unref (t->block_elems);
  g_hash_table_unref (t->dtype_size);
  g_hash_table_unref (t->single);
  g_hash_table_unref (t->mapping);
  g_free (t);
}

static gboolean
expect_map (const msperf_value *v, const char *file, const char *what, GError **error)
{
  if (v->kind == MSPERF_VALUE_MAP)
    return TRUE;
  msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v->line, "%s must be a mapping",
                         what);
  return FALSE;
}

/* A list of dtype strings. */
static char **
dtype_list (const msperf_value *row, const char *key, const char *file, GError **error)
{
  const msperf_value *v = msperf_value_lookup (row, key);
  GPtrArray *out;

  if (v == NULL || v->kind != MSPERF_VALUE_LIST || v->items->len == 0)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, v ? v->line : row->line,
                             "key '%s': expected a non-empty list of dtypes", key);
      return NULL;
    }
  /* Owns its strings until the list is handed over: an error frees those read so far. */
  out = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < v->items->len; i++)
    {
      const msperf_value *item = g_ptr_array_index (v->items, i);
      const char *s = msperf_value_get_string (item);
      if (s == NULL)
        {
          g_autofree char *what = msperf_yaml_describe (item);
          msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, item->line,
                                 "key '%s': expected a dtype name, got %s", key, what);
          g_ptr_array_free (out, TRUE);
          return NULL;
        }
      g_ptr_array_add (out, g_strdup (s));
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

static gboolean
load_rows (const msperf_value *block, gboolean mapping, GHashTable *into, const char *file,
           GError **error)
{
  if (!expect_map (block, file, mapping ? "dtype_mapping" : "vf_instruct", error))
    return FALSE;
  for (guint k = 0; k < block->keys->len; k++)
    {
      const char *key = g_ptr_array_index (block->keys, k);
      const msperf_value *entry = g_ptr_array_index (block->items, k);
      const msperf_value *rows = msperf_value_lookup (entry, "rows");
      GPtrArray *list;

      if (!expect_map (entry, file, key, error))
        return FALSE;
      if (rows == NULL || rows->kind != MSPERF_VALUE_LIST)
        {
          msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, entry->line,
                                 "'%s': expected a list 'rows'", key);
          return FALSE;
        }
      list = g_ptr_array_new_with_free_func (perf_row_free);
      g_hash_table_replace (into, g_strdup (key), list);
      for (guint i = 0; i < rows->items->len; i++)
        {
          const msperf_value *rv = g_ptr_array_index (rows->items, i);
          perf_row *r;

          if (!expect_map (rv, file, "a row", error))
            return FALSE;
          r = g_new0 (perf_row, 1);
          g_ptr_array_add (list, r);
          if (mapping)
            {
              if ((r->in = dtype_list (rv, "in", file, error)) == NULL
                  || (r->out = dtype_list (rv, "out", file, error)) == NULL)
                return FALSE;
            }
          else if ((r->dtypes = dtype_list (rv, "dtypes", file, error)) == NULL)
            return FALSE;
          r->latency = -1;
          r->throughput = -1;
          if (!msperf_yaml_get_int (rv, "latency", file, &r->latency, error)
              || !msperf_yaml_get_int (rv, "throughput", file, &r->throughput, error))
            return FALSE;
          if (r->latency < 0 || r->throughput < 0)
            {
              msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, rv->line,
                                     "'%s': a row needs non-negative 'latency' and "
                                     "'throughput'", key);
              return FALSE;
            }
        }
    }
  return TRUE;
}

static gboolean
load_int_map (const msperf_value *doc, const char *key, GHashTable *into, const char *file,
              GError **error)
{
  const msperf_value *m = msperf_value_lookup (doc, key);

  if (m == NULL)
    return TRUE;
  if (!expect_map (m, file, key, error))
    return FALSE;
  for (guint i = 0; i < m->keys->len; i++)
    {
      int64_t v;
      if (!msperf_yaml_value_int (g_ptr_array_index (m->items, i), file,
                                  g_ptr_array_index (m->keys, i), &v, error))
        return FALSE;
      g_hash_table_replace (into, g_strdup (g_ptr_array_index (m->keys, i)),
                            g_memdup2 (&v, sizeof v));
    }
  return TRUE;
}

msperf_att_table *
msperf_att_table_load (const char *path, GError **error)
{
  g_autoptr (msperf_value) doc = NULL;
  g_autoptr (msperf_att_table) t = NULL;
  const msperf_value *v;

  g_return_val_if_fail (path != NULL, NULL);
  doc = msperf_yaml_load_file (path, error);
  if (doc == NULL)
    return NULL;
  if (doc->kind != MSPERF_VALUE_MAP)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, path, doc->line,
                             "the ATT perf table must be a mapping");
      return NULL;
    }
  t = g_new0 (msperf_att_table, 1);
  t->path = g_strdup (path);
  t->constants = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  t->repeat_elems = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  t->block_elems = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  t->dtype_size = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  t->single = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                     (GDestroyNotify) g_ptr_array_unref);
  t->mapping = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify) g_ptr_array_unref);

  if ((v = msperf_value_lookup (doc, "constants")) != NULL)
    {
      if (!expect_map (v, path, "constants", error))
        return NULL;
      for (guint i = 0; i < v->keys->len; i++)
        {
          double d;
          if (!msperf_yaml_value_double (g_ptr_array_index (v->items, i), path,
                                         g_ptr_array_index (v->keys, i), &d, error))
            return NULL;
          g_hash_table_replace (t->constants, g_strdup (g_ptr_array_index (v->keys, i)),
                                g_memdup2 (&d, sizeof d));
        }
    }
  if (!load_int_map (doc, "repeat_elems", t->repeat_elems, path, error)
      || !load_int_map (doc, "block_elems", t->block_elems, path, error)
      || !load_int_map (doc, "dtype_size_bytes", t->dtype_size, path, error))
    return NULL;
  if ((v = msperf_value_lookup (doc, "vf_instruct")) == NULL)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, path, doc->line,
                             "missing the 'vf_instruct' table");
      return NULL;
    }
  if (!load_rows (v, FALSE, t->single, path, error))
    return NULL;
  if ((v = msperf_value_lookup (doc, "dtype_mapping")) != NULL
      && !load_rows (v, TRUE, t->mapping, path, error))
    return NULL;
  return g_steal_pointer (&t);
}

msperf_att_table *
msperf_att_table_load_default (GError **error)
{
  g_autofree char *path = msperf_paths_data_file ("policies/att/vf_perf_table_v2.yaml",
                                                  "policies/att/vf_perf_table_v2.yaml");
  return msperf_att_table_load (path, error);
}

const char *
msperf_att_table_path (const msperf_att_table *t)
{
  return t->path;
}

double
msperf_att_table_constant (const msperf_att_table *t, const char *name, double fallback)
{
  const double *d = g_hash_table_lookup (t->constants, name);
  return d != NULL ? *d : fallback;
}

static gboolean
int_lookup (GHashTable *map, const char *dtype, int64_t *out)
{
  const int64_t *v = dtype != NULL ? g_hash_table_lookup (map, dtype) : NULL;

  if (v == NULL)
    return FALSE;
  *out = *v;
  return TRUE;
}

gboolean
msperf_att_table_repeat_elems (const msperf_att_table *t, const char *dtype, int64_t *out)
{
  return int_lookup (t->repeat_elems, dtype, out);
}

gboolean
msperf_att_table_block_elems (const msperf_att_table *t, const char *dtype, int64_t *out)
{
  return int_lookup (t->block_elems, dtype, out);
}

gboolean
msperf_att_table_dtype_size (const msperf_att_table *t, const char *dtype, int64_t *out)
{
  return int_lookup (t->dtype_size, dtype, out);
}

gboolean
msperf_att_table_lookup (const msperf_att_table *t, const char *type, const char *dtype,
                         int64_t *latency, int64_t *throughput)
{
  GPtrArray *rows;

  g_return_val_if_fail (t != NULL && type != NULL, FALSE);
  rows = g_hash_table_lookup (t->single, type);
  if (rows == NULL || dtype == NULL)
    return FALSE;
  /* The first row listing the dtype wins; later rows are never consulted. */
  for (guint i = 0; i < rows->len; i++)
    {
      perf_row *r = g_ptr_array_index (rows, i);
      if (g_strv_contains ((const char *const *) r->dtypes, dtype))
        {
          *latency = r->latency;
          *throughput = r->throughput;
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
msperf_att_table_lookup_mapping (const msperf_att_table *t, const char *type, const char *in,
                                 const char *out, int64_t *latency, int64_t *throughput,
                                 const char **matched_in, const char **matched_out)
{
  const char *cand[4][2] = {
    { in, out }, { in, kDefault }, { kDefault, out }, { kDefault, kDefault },
  };
  GPtrArray *rows;

  g_return_val_if_fail (t != NULL && type != NULL && in != NULL && out != NULL, FALSE);
  *latency = 0;
  *throughput = 0;
  rows = g_hash_table_lookup (t->mapping, type);
  if (rows == NULL)
    return FALSE;
  for (int c = 0; c < 4; c++)
    for (guint i = 0; i < rows->len; i++)
      {
        perf_row *r = g_ptr_array_index (rows, i);
        /* "default" is an ordinary literal: only rows listing it match steps 2–4. */
        if (g_strv_contains ((const char *const *) r->in, cand[c][0])
            && g_strv_contains ((const char *const *) r->out, cand[c][1]))
          {
            *latency = r->latency;
            *throughput = r->throughput;
            if (matched_in)
              *matched_in = c == 0 || c == 1 ? in : kDefault;
            if (matched_out)
              *matched_out = c == 0 || c == 2 ? out : kDefault;
            return TRUE;
          }
      }
  return FALSE;
}

/* ------------------------------------------------------------------ VF accumulator */

struct msperf_att_vf {
  const msperf_att_table *table;
  msperf_expr_ctx *ctx;
  msperf_expr *latency;
  msperf_expr *throughput;
  GPtrArray *ledger;  /* msperf_att_ledger_row*, owned */
};

static void
component_free (gpointer p)
{
  msperf_att_component *c = p;

  g_free (c->perf_type);
  g_free (c->perf_dtype);
  g_free (c->perf_out_dtype);
  g_free (c->matched);
  g_free (c);
}

static void
row_free (gpointer p)
{
  msperf_att_ledger_row *r = p;

  g_free (r->call_site);
  g_free (r->real_api);
  g_free (r->data_dtype);
  g_free (r->index_dtype);
  g_free (r->mode);
  g_free (r->api_params);
  g_ptr_array_unref (r->components);
  g_free (r);
}

msperf_att_vf *
msperf_att_vf_new (const msperf_att_table *table, msperf_expr_ctx *ctx)
{
  msperf_att_vf *vf;

  g_return_val_if_fail (table != NULL && ctx != NULL, NULL);
  vf = g_new0 (msperf_att_vf, 1);
  vf->table = table;
  vf->ctx = ctx;
  vf->latency = msperf_expr_int (ctx, 0);
  vf->throughput = msperf_expr_int (ctx, 0);
  vf->ledger = g_ptr_array_new_with_free_func (row_free);
  return vf;
}

void
msperf_att_vf_free (msperf_att_vf *vf)
{
  if (vf == NULL)
    return;
  g_ptr_array_unref (vf->ledger);
  g_free (vf);
}

msperf_att_ledger_row *
msperf_att_vf_row (msperf_att_vf *vf, const char *call_site, const char *real_api,
                   const char *data_dtype, const char *index_dtype, const char *mode,
                   const char *api_params, const msperf_expr *call_count)
{
  msperf_att_ledger_row *r;

  g_return_val_if_fail (vf != NULL && call_site != NULL && real_api != NULL, NULL);
  r = g_new0 (msperf_att_ledger_row, 1);
  r->call_site = g_strdup (call_site);
  r->real_api = g_strdup (real_api);
  r->data_dtype = g_strdup (data_dtype);
  r->index_dtype = g_strdup (index_dtype);
  r->mode = g_strdup (mode);
  r->api_params = g_strdup (api_params);
  r->call_count = (msperf_expr *) (call_count != NULL ? call_count : msperf_expr_int (vf->ctx, 1));
  r->components = g_ptr_array_new_with_free_func (component_free);
  g_ptr_array_add (vf->ledger, r);
  return r;
}

static void
accumulate (msperf_att_vf *vf, msperf_att_component *c)
{
  msperf_expr *lat = msperf_expr_int (vf->ctx, c->latency);
  msperf_expr *thr = msperf_expr_int (vf->ctx, c->throughput);

  vf->latency = msperf_expr_max (lat, vf->latency);
  vf->throughput = msperf_expr_add (vf->throughput, msperf_expr_mul (thr, c->count));
}

void
msperf_att_vf_add (msperf_att_vf *vf, msperf_att_ledger_row *row, const char *perf_type,
                   const char *dtype, const msperf_expr *count)
{
  msperf_att_component *c;

  g_return_if_fail (vf != NULL && row != NULL && perf_type != NULL && count != NULL);
  c = g_new0 (msperf_att_component, 1);
  c->perf_type = g_strdup (perf_type);
  c->perf_dtype = g_strdup (dtype);
  c->count = (msperf_expr *) count;
  c->no_table_entry = !msperf_att_table_lookup (vf->table, perf_type, dtype, &c->latency,
                                                &c->throughput);
  g_ptr_array_add (row->components, c);
  /* A missing key or dtype adds nothing at all (not even Max(0, …)): upstream returns early. */
  if (!c->no_table_entry)
    accumulate (vf, c);
}

void
msperf_att_vf_add_mapping (msperf_att_vf *vf, msperf_att_ledger_row *row, const char *perf_type,
                           const char *in, const char *out, const msperf_expr *count)
{
  msperf_att_component *c;
  const char *mi = NULL, *mo = NULL;

  g_return_if_fail (vf != NULL && row != NULL && perf_type != NULL && count != NULL);
  g_return_if_fail (in != NULL && out != NULL);
  c = g_new0 (msperf_att_component, 1);
  c->perf_type = g_strdup (perf_type);
  c->perf_dtype = g_strdup (in);
  c->perf_out_dtype = g_strdup (out);
  c->count = (msperf_expr *) count;
  c->no_table_entry = !msperf_att_table_lookup_mapping (vf->table, perf_type, in, out,
                                                        &c->latency, &c->throughput, &mi, &mo);
  if (!c->no_table_entry && (strcmp (mi, in) != 0 || strcmp (mo, out) != 0))
    c->matched = g_strdup_printf ("%s->%s", mi, mo);
  g_ptr_array_add (row->components, c);
  /* Unmatched mapping lookups still apply Max(0, lat) and + 0·count: no effect on value. */
  accumulate (vf, c);
}

void
msperf_att_vf_call (msperf_att_vf *vf, const char *call_site, const char *real_api,
                    const char *mode, const char *perf_type, const char *in, const char *out,
                    const msperf_expr *count)
{
  msperf_att_ledger_row *row = msperf_att_vf_row (vf, call_site, real_api, in, NULL, mode, NULL,
                                                  count);
  if (out != NULL)
    {
      g_free (row->data_dtype);
      row->data_dtype = g_strdup_printf ("%s->%s", in, out);
      msperf_att_vf_add_mapping (vf, row, perf_type, in, out, count);
    }
  else
    msperf_att_vf_add (vf, row, perf_type, in, count);
}

msperf_expr *
msperf_att_vf_max_latency (const msperf_att_vf *vf)
{
  return vf->latency;
}

msperf_expr *
msperf_att_vf_throughput (const msperf_att_vf *vf)
{
  return vf->throughput;
}

msperf_expr *
msperf_att_vf_cost (const msperf_att_vf *vf)
{
  double head = msperf_att_table_constant (vf->table, "vf_head_cost", 20.0);
  msperf_expr *h = head == (double) (int64_t) head ? msperf_expr_int (vf->ctx, (int64_t) head)
                                                   : msperf_expr_double (vf->ctx, head);
  msperf_expr *args[3] = { h, vf->latency, vf->throughput };

  return msperf_expr_add_n (args, 3);
}

GPtrArray *
msperf_att_vf_ledger (const msperf_att_vf *vf)
{
  return vf->ledger;
}

/* ------------------------------------------------------------------ ledger as values */

msperf_value *
msperf_att_expr_value (const msperf_expr *e)
{
  int64_t i;
  double d;

  if (msperf_expr_get_int (e, &i))
    return msperf_value_new_int (i);
  if (msperf_expr_get_kind (e) == MSPERF_EXPR_DOUBLE && msperf_expr_get_double (e, &d))
    return msperf_value_new_double (d);
  return msperf_value_new_string (msperf_expr_str (e));
}

msperf_value *
msperf_att_ledger_to_value (GPtrArray *rows)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (guint i = 0; rows != NULL && i < rows->len; i++)
    {
      msperf_att_ledger_row *r = g_ptr_array_index (rows, i);
      msperf_value *m = msperf_value_new (MSPERF_VALUE_MAP);
      msperf_value *comps = msperf_value_new (MSPERF_VALUE_LIST);

      msperf_value_map_set (m, "call_site", msperf_value_new_string (r->call_site));
      msperf_value_map_set (m, "real_api", msperf_value_new_string (r->real_api));
      msperf_value_map_set (m, "data_dtype", msperf_value_new_string (r->data_dtype));
      msperf_value_map_set (m, "index_dtype", msperf_value_new_string (r->index_dtype));
      msperf_value_map_set (m, "mode", msperf_value_new_string (r->mode));
      msperf_value_map_set (m, "api_params", msperf_value_new_string (r->api_params));
      msperf_value_map_set (m, "call_count", msperf_att_expr_value (r->call_count));
      for (guint j = 0; j < r->components->len; j++)
        {
          msperf_att_component *c = g_ptr_array_index (r->components, j);
          msperf_value *cm = msperf_value_new (MSPERF_VALUE_MAP);
          g_autofree char *dt = c->perf_out_dtype != NULL
            ? g_strdup_printf ("%s->%s", c->perf_dtype, c->perf_out_dtype)
            : g_strdup (c->perf_dtype);

          msperf_value_map_set (cm, "perf_type", msperf_value_new_string (c->perf_type));
          msperf_value_map_set (cm, "perf_dtype", msperf_value_new_string (dt));
          msperf_value_map_set (cm, "component_count", msperf_att_expr_value (c->count));
          msperf_value_map_set (cm, "latency", msperf_value_new_int (c->latency));
          msperf_value_map_set (cm, "throughput", msperf_value_new_int (c->throughput));
          msperf_value_map_set (cm, "no_table_entry", msperf_value_new_bool (c->no_table_entry));
          if (c->matched != NULL)
            msperf_value_map_set (cm, "matched", msperf_value_new_string (c->matched));
          msperf_value_list_append (comps, cm);
        }
      msperf_value_map_set (m, "perf_components", comps);
      msperf_value_list_append (list, m);
    }
  return list;
}
