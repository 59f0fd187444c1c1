/* msperf tests — the host mock (host_mock.h): include/msperf/host.h over a fake engine.
 *
 * This file defines struct msperf_engine itself: a mock test links the layers below
 * core/engine only, so the real engine (and its struct) is never in the same binary. The
 * services keep the engine's documented contracts (host.h) — absent table = NULL +
 * MSPERF_ERROR_NOT_FOUND, kernel flag = a TRUE boolean, no grid = FALSE with *dims NULL — so
 * that a module behaves here as under the engine; they do nothing else (no memo, no lock, no
 * policy merge). */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>
#include <msperf/engine.h>
#include "common/host_mock.h"

struct msperf_engine {
  GHashTable *tables;          /* kernel → msperf_table* */
  GPtrArray *table_requests;   /* char* */
  GHashTable *options;         /* "block\x1fkernel\x1fkey" → msperf_value* */
  GHashTable *policy;          /* dotted path → msperf_value* */
  GHashTable *module_options;  /* "module\x1fkey" → msperf_value* */
  msperf_parallel parallel;
  GArray *comm_grid;           /* int64_t */
  double vector_clock_ghz;
  char *device_name;
  msperf_database *db;
  hm_subquery_fn subquery_fn;
  gpointer subquery_data;
  GPtrArray *subqueries;       /* msperf_subquery* */
  GPtrArray *subquery_parents; /* char* */
};

/* The same layout as core/engine/composite.h's: only the two plan helpers touch it. */
struct msperf_plan {
  GPtrArray *parts;
  char *miss;
};

static GHashTable *
value_map_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                (GDestroyNotify) msperf_value_free);
}

msperf_engine *
hm_engine_new (void)
{
  msperf_engine *e = g_new0 (msperf_engine, 1);

  e->tables = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                     (GDestroyNotify) msperf_table_free);
  e->table_requests = g_ptr_array_new_with_free_func (g_free);
  e->options = value_map_new ();
  e->policy = value_map_new ();
  e->module_options = value_map_new ();
  e->parallel = (msperf_parallel){ .tp_size = 1, .ep_size = 0, .dp_size = 1, .world_size = 1 };
  e->comm_grid = g_array_new (FALSE, FALSE, sizeof (int64_t));
  e->vector_clock_ghz = NAN;
  e->device_name = g_strdup ("mock");
  e->subqueries = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_subquery_free);
  e->subquery_parents = g_ptr_array_new_with_free_func (g_free);
  return e;
}

void
msperf_engine_free (msperf_engine *e)
{
  if (e == NULL)
    return;
  g_hash_table_unref (e->tables);
  g_ptr_array_unref (e->table_requests);
  g_hash_table_unref (e->options);
  g_hash_table_unref (e->policy);
  g_hash_table_unref (e->module_options);
  g_array_unref (e->comm_grid);
  g_free (e->device_name);
  msperf_database_free (e->db);
  g_ptr_array_unref (e->subqueries);
  g_ptr_array_unref (e->subquery_parents);
  g_free (e);
}

/* ------------------------------------------------------------------ configuration */

void
hm_table_take (msperf_engine *e, const char *kernel_type, msperf_table *table)
{
  g_hash_table_replace (e->tables, g_strdup (kernel_type), table);
}

void
hm_table_from_csv (msperf_engine *e, const char *kernel_type, const char *csv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_strconcat ("mock:", kernel_type, ".csv", NULL);
  msperf_table *t = msperf_table_load_data (csv, strlen (csv), name, kernel_type, &error);

  if (t == NULL)
    fail_msg ("host mock: table %s: %s", kernel_type, error->message);
  hm_table_take (e, kernel_type, t);
}

void
hm_table_from_file (msperf_engine *e, const char *kernel_type, const char *path)
{
  g_autoptr (GError) error = NULL;
  msperf_table *t = msperf_table_load (path, kernel_type, &error);

  if (t == NULL)
    fail_msg ("host mock: table %s: %s", kernel_type, error->message);
  hm_table_take (e, kernel_type, t);
}

const GPtrArray *
hm_table_requests (msperf_engine *e)
{
  return e->table_requests;
}

static void
set_value (GHashTable *map, char *key, msperf_value *value)
{
  if (value != NULL)
    {
      g_hash_table_replace (map, key, value);
      return;
    }
  g_hash_table_remove (map, key);
  g_free (key);
}

void
hm_kernel_option (msperf_engine *e, const char *block, const char *kernel, const char *key,
                  msperf_value *value)
{
  set_value (e->options, g_strjoin ("\x1f", block, kernel, key, NULL), value);
}

void
hm_policy_value (msperf_engine *e, const char *path, msperf_value *value)
{
  set_value (e->policy, g_strdup (path), value);
}

void
hm_module_option (msperf_engine *e, const char *module, const char *key, msperf_value *value)
{
  set_value (e->module_options, g_strjoin ("\x1f", module, key, NULL), value);
}

msperf_parallel *
hm_parallel (msperf_engine *e)
{
  return &e->parallel;
}

void
hm_comm_grid (msperf_engine *e, const int64_t *dims, size_t n)
{
  g_array_set_size (e->comm_grid, 0);
  if (n > 0)
    g_array_append_vals (e->comm_grid, dims, (guint) n);
}

void
hm_vector_clock_ghz (msperf_engine *e, double ghz)
{
  e->vector_clock_ghz = ghz;
}

void
hm_device_name (msperf_engine *e, const char *name)
{
  g_free (e->device_name);
  e->device_name = g_strdup (name);
}

void
hm_database (msperf_engine *e, msperf_database *db)
{
  msperf_database_free (e->db);
  e->db = db;
}

void
hm_subquery_handler (msperf_engine *e, hm_subquery_fn fn, gpointer user_data)
{
  e->subquery_fn = fn;
  e->subquery_data = user_data;
}

const GPtrArray *
hm_subqueries (msperf_engine *e)
{
  return e->subqueries;
}

const char *
hm_subquery_parent (msperf_engine *e, guint index)
{
  return index < e->subquery_parents->len ? g_ptr_array_index (e->subquery_parents, index) : NULL;
}

/* ------------------------------------------------------------------ queries and plans */

msperf_query *
hm_query_new (msperf_engine *e, const msperf_op *op, const char *mode, const char *const *kernels)
{
  msperf_query *q = g_new0 (msperf_query, 1);
  GArray *inputs = g_array_new (FALSE, TRUE, sizeof (msperf_tensor));

  if (op != NULL)
    {
      g_autoptr (GPtrArray) in = msperf_op_tensor_inputs (op);
      for (guint k = 0; k < in->len; k++)
        g_array_append_vals (inputs, g_ptr_array_index (in, k), 1);
    }
  q->engine = e;
  q->op = op;
  q->mode = g_strdup (mode);
  q->kernel_types = (const char *const *) g_strdupv ((char **) (kernels ? kernels
                                                                : (const char *const[]){ NULL }));
  q->n_inputs = inputs->len;
  /* The array keeps the tensors; reserved[0] keeps the array for hm_query_free. */
  q->inputs = (const msperf_tensor *) (void *) inputs->data;
  q->reserved[0] = inputs;
  q->tc_input_count = -1;
  return q;
}

void
hm_query_free (msperf_query *q)
{
  if (q == NULL)
    return;
  g_array_unref (q->reserved[0]);
  g_free ((char *) q->mode);
  g_strfreev ((char **) q->kernel_types);
  g_free (q);
}

static msperf_value *
value_from_node (JsonNode *node)
{
  msperf_value *v;

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *o = json_node_get_object (node);
        g_autoptr (GList) members = json_object_get_members (o);

        v = msperf_value_new (MSPERF_VALUE_MAP);
        for (GList *m = members; m != NULL; m = m->next)
          msperf_value_map_set (v, m->data, value_from_node (json_object_get_member (o, m->data)));
        return v;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *a = json_node_get_array (node);

        v = msperf_value_new (MSPERF_VALUE_LIST);
        for (guint i = 0; i < json_array_get_length (a); i++)
          msperf_value_list_append (v, value_from_node (json_array_get_element (a, i)));
        return v;
      }
    case JSON_NODE_NULL:
      return msperf_value_new (MSPERF_VALUE_NONE);
    case JSON_NODE_VALUE:
    default:
      break;
    }
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return msperf_value_new_int (json_node_get_int (node));
    case G_TYPE_BOOLEAN:
      return msperf_value_new_bool (json_node_get_boolean (node));
    case G_TYPE_STRING:
      return msperf_value_new_string (json_node_get_string (node));
    default:
      return msperf_value_new_double (json_node_get_double (node));
    }
}

msperf_value *
hm_value_from_json (const char *json)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;

  if (!json_parser_load_from_data (parser, json, -1, &error))
    fail_msg ("host mock: bad JSON %s: %s", json, error->message);
  return value_from_node (json_parser_get_root (parser));
}

msperf_plan *
hm_plan_new (void)
{
  msperf_plan *p = g_new0 (msperf_plan, 1);

  p->parts = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_subquery_free);
  return p;
}

const GPtrArray *
hm_plan_parts (const msperf_plan *plan)
{
  return plan->parts;
}

const char *
hm_plan_miss (const msperf_plan *plan)
{
  return plan->miss;
}

void
hm_plan_free (msperf_plan *plan)
{
  if (plan == NULL)
    return;
  g_ptr_array_unref (plan->parts);
  g_free (plan->miss);
  g_free (plan);
}

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

/* ------------------------------------------------------------------ host.h: sub-queries */





static msperf_subquery *
subquery_copy (const msperf_subquery *sq)
{
  msperf_subquery *c = msperf_subquery_new (sq->mode, NULL);

  for (char **k = sq->kernel_types; k && *k; k++)
    msperf_subquery_add_kernel (c, *k);
  for (guint i = 0; i < sq->inputs->len; i++)
    msperf_subquery_add_input (c, &g_array_index (sq->inputs, msperf_tensor, i));
  c->params = sq->params ? msperf_value_copy (sq->params) : NULL;
  c->tc_input_count = sq->tc_input_count;
  return c;
}

msperf_status
msperf_engine_subquery (msperf_engine *e, const msperf_op *parent, const msperf_subquery *sq,
                        msperf_result *result)
{
  g_return_val_if_fail (e != NULL && parent != NULL && sq != NULL && result != NULL,
                        MSPERF_ERROR);
  g_ptr_array_add (e->subqueries, subquery_copy (sq));
  g_ptr_array_add (e->subquery_parents, g_strdup (parent->name));
  if (e->subquery_fn == NULL)
    return msperf_result_set_miss (result, "mock_no_subquery_handler");
  return e->subquery_fn (e, parent, sq, result, e->subquery_data);
}

/* ------------------------------------------------------------------ host.h: services */

msperf_database *
msperf_engine_database (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  return e->db;
}

const msperf_table *
msperf_engine_table (msperf_engine *e, const char *kernel_type, GError **error)
{
  const msperf_table *t;

  g_return_val_if_fail (e != NULL && kernel_type != NULL, NULL);
  g_ptr_array_add (e->table_requests, g_strdup (kernel_type));
  t = g_hash_table_lookup (e->tables, kernel_type);
  if (t == NULL)
    g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND,
                 "host mock: no table for kernel '%s'", kernel_type);
  return t;
}

const msperf_value *
msperf_engine_kernel_option (msperf_engine *e, const char *block, const char *kernel,
                             const char *key)
{
  g_autofree char *id = NULL;

  g_return_val_if_fail (e != NULL && block != NULL && kernel != NULL && key != NULL, NULL);
  id = g_strjoin ("\x1f", block, kernel, key, NULL);
  return g_hash_table_lookup (e->options, id);
}

gboolean
msperf_engine_kernel_flag (msperf_engine *e, const char *block, const char *kernel,
                           const char *key)
{
  const msperf_value *v = msperf_engine_kernel_option (e, block, kernel, key);
  return v != NULL && v->kind == MSPERF_VALUE_BOOL && v->b;
}

const msperf_parallel *
msperf_engine_parallel (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  return &e->parallel;
}

const msperf_value *
msperf_engine_policy_value (msperf_engine *e, const char *path)
{
  g_return_val_if_fail (e != NULL && path != NULL, NULL);
  return g_hash_table_lookup (e->policy, path);
}

const char *
msperf_engine_policy_hash (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  /* SHA-256 of "{}": the mock's policy is empty whatever values the test set. */
  return "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a";
}

const char *
msperf_engine_policy_json (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  return "{}";
}

gboolean
msperf_engine_comm_grid (msperf_engine *e, const int64_t **dims, size_t *n)
{
  g_return_val_if_fail (e != NULL && dims != NULL && n != NULL, FALSE);
  *dims = NULL;
  *n = 0;
  if (e->comm_grid->len == 0)
    return FALSE;
  *dims = (const int64_t *) (void *) e->comm_grid->data;
  *n = e->comm_grid->len;
  return TRUE;
}

const char *
msperf_engine_device_name (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NULL);
  return e->device_name;
}

/* Modules never read the device memory (only the model-level commands do). */
double
msperf_engine_device_memory_gib (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NAN);
  return NAN;
}

double
msperf_engine_vector_clock_ghz (msperf_engine *e)
{
  g_return_val_if_fail (e != NULL, NAN);
  return e->vector_clock_ghz;
}

const msperf_value *
msperf_engine_module_option (msperf_engine *e, const char *module_name, const char *key)
{
  g_autofree char *id = NULL;

  g_return_val_if_fail (e != NULL && module_name != NULL && key != NULL, NULL);
  id = g_strjoin ("\x1f", module_name, key, NULL);
  return g_hash_table_lookup (e->module_options, id);
}
