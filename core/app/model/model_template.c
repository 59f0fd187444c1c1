/* msperf — reading a model: the Hugging Face config.json (numbers only) and the template that
 * its `architectures` selects, compiled to expressions (doc/models.md §2). */
#include <config.h>
#include <math.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include <msperf/error.h>
#include "app/model/model_private.h"
#include "app/model/model_yaml.h"

const char *const msperf_model_dtype_names[] = {
  "bfloat16", "float16", "float32", "int8", "int32", "int64", "bool", NULL
};
static const double dtype_bytes[] = { 2, 2, 4, 1, 4, 8, 1 };

int
msperf_model_dtype_index (const char *name)
{
  if (g_str_has_prefix (name, "torch."))
    name += 6;
  for (int i = 0; msperf_model_dtype_names[i]; i++)
    if (strcmp (msperf_model_dtype_names[i], name) == 0)
      return i;
  return -1;
}

double
msperf_model_dtype_bytes (int index)
{
  return index >= 0 && index < (int) G_N_ELEMENTS (dtype_bytes) ? dtype_bytes[index] : 2;
}

static gboolean
bad (GError **error, const char *path, guint line, const char *msg)
{
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s:%u: %s", path, line, msg);
  return FALSE;
}

/* ---------------------------------------------------------------- config.json */

static void
config_put (msperf_model *m, const char *name, double v)
{
  double *p = g_new (double, 1);

  *p = v;
  g_hash_table_replace (m->config, g_strdup (name), p);
}

/* Numbers and booleans of one object; nested objects one level deep as parent_child; arrays
 * give name_len. Strings are ignored: templates compute with numbers only. */
static void
config_object (msperf_model *m, JsonObject *obj, const char *prefix)
{
  g_autoptr (GList) members = json_object_get_members (obj);

  for (GList *l = members; l; l = l->next)
    {
      const char *key = l->data;
      JsonNode *n = json_object_get_member (obj, key);
      g_autofree char *name = prefix ? g_strdup_printf ("%s_%s", prefix, key) : g_strdup (key);

      if (JSON_NODE_HOLDS_VALUE (n))
        {
          GType t = json_node_get_value_type (n);
          if (t == G_TYPE_INT64 || t == G_TYPE_DOUBLE)
            config_put (m, name, json_node_get_double (n));
          else if (t == G_TYPE_BOOLEAN)
            config_put (m, name, json_node_get_boolean (n) ? 1 : 0);
        }
      else if (JSON_NODE_HOLDS_ARRAY (n))
        {
          g_autofree char *len = g_strdup_printf ("%s_len", name);
          config_put (m, len, json_array_get_length (json_node_get_array (n)));
        }
      else if (JSON_NODE_HOLDS_OBJECT (n) && prefix == NULL)
        config_object (m, json_node_get_object (n), key);
    }
}

gboolean
msperf_model_read_config (msperf_model *m, const char *path, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) local = NULL;
  JsonObject *root;
  JsonArray *arch;
  const char *dt;

  if (!json_parser_load_from_file (parser, path, &local))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s: %s", path,
                   local->message);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return bad (error, path, 1, "a config.json must be a JSON object");
  root = json_node_get_object (json_parser_get_root (parser));
  arch = json_object_has_member (root, "architectures")
           && JSON_NODE_HOLDS_ARRAY (json_object_get_member (root, "architectures"))
           ? json_object_get_array_member (root, "architectures") : NULL;
  if (arch == NULL || json_array_get_length (arch) == 0
      || !JSON_NODE_HOLDS_VALUE (json_array_get_element (arch, 0))
      || json_node_get_value_type (json_array_get_element (arch, 0)) != G_TYPE_STRING)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s: missing field 'architectures' (a list of class names)", path);
      return FALSE;
    }
  m->arch = g_strdup (json_array_get_string_element (arch, 0));
  config_object (m, root, NULL);
  dt = json_object_has_member (root, "torch_dtype")
           && JSON_NODE_HOLDS_VALUE (json_object_get_member (root, "torch_dtype"))
         ? json_object_get_string_member (root, "torch_dtype") : NULL;
  if (m->act_dtype < 0 && dt)
    m->act_dtype = msperf_model_dtype_index (dt);
  if (m->act_dtype < 0)
    m->act_dtype = 0;   /* bfloat16, what the shipped configs say */
  return TRUE;
}

/* ---------------------------------------------------------------- template */

typedef struct {
  msperf_model *m;
  const char *path;
  GError **error;
} compiler;

static msperf_mexpr *
compile_node (compiler *c, const msperf_ynode *n)
{
  g_autofree char *where = NULL;

  if (n == NULL || n->kind != MSPERF_YNODE_SCALAR)
    {
      bad (c->error, c->path, n ? n->line : 0, "expected an expression");
      return NULL;
    }
  where = g_strdup_printf ("%s:%u", c->path, n->line);
  return msperf_mexpr_compile (n->text, c->m->syms, where, c->error);
}

static int
dtype_code (const char *text)
{
  if (strcmp (text, "dt") == 0)
    return DT_ACT;
  if (strcmp (text, "ldt") == 0)
    return DT_LINEAR;
  return msperf_model_dtype_index (text);
}

static void
arg_clear (arg_spec *a)
{
  if (a->exprs)
    g_ptr_array_free (a->exprs, TRUE);
  msperf_mexpr_free (a->fill);
}

/* [dim, dim, …, dtype?]: the dtype defaults to the model's. */
static gboolean
compile_tensor (compiler *c, const msperf_ynode *seq, arg_spec *a)
{
  guint n = msperf_ynode_len (seq);

  a->kind = ARG_TENSOR;
  a->dtype = DT_ACT;
  a->exprs = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_mexpr_free);
  if (n > 0 && msperf_ynode_item (seq, n - 1)->kind == MSPERF_YNODE_SCALAR
      && dtype_code (msperf_ynode_item (seq, n - 1)->text) != -1)
    a->dtype = dtype_code (msperf_ynode_item (seq, --n)->text);
  if (n > 8)
    return bad (c->error, c->path, seq->line, "a tensor has at most 8 dims");
  for (guint i = 0; i < n; i++)
    {
      msperf_mexpr *e = compile_node (c, msperf_ynode_item (seq, i));
      if (e == NULL)
        return FALSE;
      g_ptr_array_add (a->exprs, e);
    }
  return TRUE;
}

static gboolean
compile_arg (compiler *c, const msperf_ynode *n, arg_spec *a)
{
  const msperf_ynode *t;

  memset (a, 0, sizeof *a);
  if (msperf_ynode_is_null (n))
    return TRUE;
  if (n->kind == MSPERF_YNODE_SEQ)
    return compile_tensor (c, n, a);
  if (n->kind == MSPERF_YNODE_SCALAR)
    {
      msperf_mexpr *e = compile_node (c, n);
      a->kind = ARG_SCALAR;
      a->exprs = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_mexpr_free);
      if (e)
        g_ptr_array_add (a->exprs, e);
      return e != NULL;
    }
  if ((t = msperf_ynode_get (n, "ranks")) != NULL)
    {
      msperf_mexpr *e = compile_node (c, t);
      a->kind = ARG_RANKS;
      a->exprs = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_mexpr_free);
      if (e)
        g_ptr_array_add (a->exprs, e);
      return e != NULL;
    }
  if ((t = msperf_ynode_get (n, "list")) != NULL && t->kind == MSPERF_YNODE_SEQ)
    {
      if (!compile_tensor (c, t, a))
        return FALSE;
      a->kind = ARG_LIST;
      return TRUE;
    }
  if ((t = msperf_ynode_get (n, "tensor")) != NULL && t->kind == MSPERF_YNODE_SEQ)
    {
      const msperf_ynode *fill = msperf_ynode_get (n, "fill");
      if (!compile_tensor (c, t, a))
        return FALSE;
      if (fill && (a->fill = compile_node (c, fill)) == NULL)
        return FALSE;
      if (fill && a->exprs->len != 1)
        return bad (c->error, c->path, n->line, "'fill' needs a 1-D tensor");
      return TRUE;
    }
  return bad (c->error, c->path, n->line,
              "an argument is null, an expression, [dims…, dtype], {list: […]}, {ranks: n} or "
              "{tensor: [n, dtype], fill: expr}");
}

static gboolean
compile_args (compiler *c, const msperf_ynode *seq, GArray *out, gboolean tensors_only)
{
  if (seq == NULL)
    return TRUE;
  if (seq->kind != MSPERF_YNODE_SEQ)
    return bad (c->error, c->path, seq->line, "args and out are lists");
  for (guint i = 0; i < msperf_ynode_len (seq); i++)
    {
      arg_spec a;
      gboolean ok = compile_arg (c, msperf_ynode_item (seq, i), &a);

      g_array_append_val (out, a);
      if (!ok)
        return FALSE;
      if (tensors_only && a.kind != ARG_TENSOR)
        return bad (c->error, c->path, msperf_ynode_item (seq, i)->line,
                    "an output is a tensor");
    }
  return TRUE;
}

static void
op_free (op_spec *op)
{
  g_free (op->name);
  msperf_mexpr_free (op->when);
  msperf_mexpr_free (op->count);
  g_array_free (op->args, TRUE);
  g_array_free (op->outs, TRUE);
  g_free (op);
}

static gboolean
known_keys (compiler *c, const msperf_ynode *map, const char *const *keys)
{
  for (guint i = 0; i < msperf_ynode_len (map); i++)
    {
      const msperf_ynode *k = msperf_ynode_key (map, i);
      if (!g_strv_contains (keys, k->text))
        {
          g_autofree char *msg = g_strdup_printf ("unknown key '%s'", k->text);
          return bad (c->error, c->path, k->line, msg);
        }
    }
  return TRUE;
}

static gboolean
compile_op (compiler *c, const msperf_ynode *n)
{
  static const char *const keys[] = { "op", "when", "count", "args", "out", NULL };
  const msperf_ynode *name = msperf_ynode_get (n, "op"), *count, *when;
  op_spec *op;

  if (n->kind != MSPERF_YNODE_MAP || name == NULL || name->kind != MSPERF_YNODE_SCALAR)
    return bad (c->error, c->path, n->line, "an op is a map with 'op: NAME'");
  if (!known_keys (c, n, keys))
    return FALSE;
  op = g_new0 (op_spec, 1);
  op->name = g_strdup (name->text);
  op->args = g_array_new (FALSE, TRUE, sizeof (arg_spec));
  op->outs = g_array_new (FALSE, TRUE, sizeof (arg_spec));
  g_array_set_clear_func (op->args, (GDestroyNotify) arg_clear);
  g_array_set_clear_func (op->outs, (GDestroyNotify) arg_clear);
  g_ptr_array_add (c->m->ops, op);
  count = msperf_ynode_get (n, "count");
  when = msperf_ynode_get (n, "when");
  if (count && (op->count = compile_node (c, count)) == NULL)
    return FALSE;
  if (when && (op->when = compile_node (c, when)) == NULL)
    return FALSE;
  return compile_args (c, msperf_ynode_get (n, "args"), op->args, FALSE)
         && compile_args (c, msperf_ynode_get (n, "out"), op->outs, TRUE);
}

/* name: expr pairs of a map, in order. */
static gboolean
compile_lets (compiler *c, const msperf_ynode *map, GArray *out)
{
  if (map == NULL)
    return TRUE;
  if (map->kind != MSPERF_YNODE_MAP)
    return bad (c->error, c->path, map->line, "expected a map of name: expression");
  for (guint i = 0; i < msperf_ynode_len (map); i++)
    {
      let_spec l = { msperf_msyms_slot (c->m->syms, msperf_ynode_key (map, i)->text), NULL };

      if ((l.expr = compile_node (c, msperf_ynode_value (map, i))) == NULL)
        return FALSE;
      g_array_append_val (out, l);
    }
  return TRUE;
}

static gboolean
compile_checks (compiler *c, const msperf_ynode *seq)
{
  for (guint i = 0; seq && i < msperf_ynode_len (seq); i++)
    {
      const msperf_ynode *n = msperf_ynode_item (seq, i);
      const msperf_ynode *cond = msperf_ynode_get (n, "if"), *msg = msperf_ynode_get (n, "error");
      check_spec ck = { 0 };

      if (cond == NULL || msg == NULL || msg->kind != MSPERF_YNODE_SCALAR)
        return bad (c->error, c->path, n->line, "a check is {if: expr, error: text}");
      if ((ck.cond = compile_node (c, cond)) == NULL)
        return FALSE;
      ck.message = g_strdup (msg->text);
      g_array_append_val (c->m->checks, ck);
    }
  return TRUE;
}

/* Values the template gives per architecture (q/k norm for Qwen3, …). */
static void
apply_arch (compiler *c, const msperf_ynode *arch)
{
  const msperf_ynode *vals = msperf_ynode_get (arch, c->m->arch);

  for (guint i = 0; vals && i < msperf_ynode_len (vals); i++)
    {
      const msperf_ynode *v = msperf_ynode_value (vals, i);
      if (v->kind == MSPERF_YNODE_SCALAR)
        config_put (c->m, msperf_ynode_key (vals, i)->text, g_ascii_strtod (v->text, NULL));
    }
}

static gboolean
compile_root (compiler *c, const msperf_ynode *root)
{
  static const char *const keys[] = { "family", "description", "architectures", "fields",
                                      "defaults", "arch", "checks", "let", "memory", "ops", NULL };
  const msperf_ynode *fam = msperf_ynode_get (root, "family"), *fields, *mem, *ops;

  if (!known_keys (c, root, keys))
    return FALSE;
  if (fam == NULL || fam->kind != MSPERF_YNODE_SCALAR)
    return bad (c->error, c->path, root->line, "missing 'family'");
  c->m->family = g_strdup (fam->text);
  fields = msperf_ynode_get (root, "fields");
  for (guint i = 0; fields && i < msperf_ynode_len (fields); i++)
    g_ptr_array_add (c->m->fields, g_strdup (msperf_ynode_item (fields, i)->text));
  apply_arch (c, msperf_ynode_get (root, "arch"));
  if (!compile_lets (c, msperf_ynode_get (root, "defaults"), c->m->defaults)
      || !compile_checks (c, msperf_ynode_get (root, "checks"))
      || !compile_lets (c, msperf_ynode_get (root, "let"), c->m->lets))
    return FALSE;
  mem = msperf_ynode_get (root, "memory");
  if (mem == NULL || (c->m->weights = compile_node (c, msperf_ynode_get (mem, "weights"))) == NULL
      || (c->m->kv_per_token = compile_node (c, msperf_ynode_get (mem, "kv_per_token"))) == NULL)
    return mem ? FALSE : bad (c->error, c->path, root->line,
                              "missing 'memory: {weights, kv_per_token}'");
  ops = msperf_ynode_get (root, "ops");
  if (ops == NULL || ops->kind != MSPERF_YNODE_SEQ)
    return bad (c->error, c->path, root->line, "missing 'ops' (a list)");
  for (guint i = 0; i < msperf_ynode_len (ops); i++)
    if (!compile_op (c, msperf_ynode_item (ops, i)))
      return FALSE;
  return TRUE;
}

gboolean
msperf_model_compile_template (msperf_model *m, const char *path, GError **error)
{
  compiler c = { m, path, error };
  msperf_ynode *root = msperf_ynode_load (path, error);
  gboolean ok;

  if (root == NULL)
    return FALSE;
  m->ops = g_ptr_array_new_with_free_func ((GDestroyNotify) op_free);
  ok = root->kind == MSPERF_YNODE_MAP ? compile_root (&c, root)
                                      : bad (error, path, root->line, "a template is a map");
  msperf_ynode_free (root);
  return ok;
}

gboolean
msperf_model_template_matches (const char *path, const char *arch, GError **error)
{
  msperf_ynode *root = msperf_ynode_load (path, error);
  const msperf_ynode *list;
  gboolean found = FALSE;

  if (root == NULL)
    return FALSE;
  list = msperf_ynode_get (root, "architectures");
  for (guint i = 0; list && list->kind == MSPERF_YNODE_SEQ && i < msperf_ynode_len (list); i++)
    found = found || strcmp (msperf_ynode_item (list, i)->text, arch) == 0;
  msperf_ynode_free (root);
  return found;
}
