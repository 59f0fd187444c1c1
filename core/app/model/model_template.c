/* msperf — reading a model: the Hugging Face config.json (numbers only) and the template that
 * its `architectures` selects, compiled to expressions (doc/models.md §2). */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include <msperf/error.h>
#include "app/model/model_private.h"
#include "app/model/model_yaml.h"

const char *const msperf_model_dtype_names[] = {
  "bfloat16", "float16", "float32", "int8", "int32", "int64", "bool", "float8_e4m3fn",
  "float4_e2m1fn_x2", "int4", "uint8", NULL
};
/* Bytes per element; the 4-bit types hold two values per byte. */
static const double dtype_bytes[] = { 2, 2, 4, 1, 4, 8, 1, 1, 0.5, 0.5, 1 };

const char *const msperf_model_quant_names[] = {
  "bf16", "fp8", "fp8_block", "w4a16_mxfp4", "int4_wo", "w8a8", NULL
};

int
msperf_model_quant_index (const char *name)
{
  if (name == NULL)
    return -1;
  if (strcmp (name, "none") == 0)
    return QUANT_NONE;
  for (int i = 0; msperf_model_quant_names[i]; i++)
    if (strcmp (msperf_model_quant_names[i], name) == 0)
      return i;
  return -1;
}

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
  /* a number read later (text_config) replaces what an earlier mistyped value said */
  g_hash_table_remove (m->config_kinds, name);
}

/* A list of strings (layer_types) also gives name_VALUE: how many items are VALUE. */
static void
config_string_counts (msperf_model *m, JsonArray *a, const char *name)
{
  g_autoptr (GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter it;
  gpointer k, v;

  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *n = json_array_get_element (a, i);
      const char *s;
      if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
        return;
      s = json_node_get_string (n);
      g_hash_table_insert (counts, (gpointer) s,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, s)) + 1));
    }
  g_hash_table_iter_init (&it, counts);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      g_autofree char *key = g_strdup_printf ("%s_%s", name, (const char *) k);
      config_put (m, key, GPOINTER_TO_UINT (v));
    }
}

/* Numbers and booleans of one object; nested objects one level deep as parent_child; arrays
 * give name_len (and lists of strings name_VALUE counts). Other strings are ignored: templates
 * compute with numbers only. */
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
            {
              /* a flag for the expressions, but never a size (checked per field) */
              config_put (m, name, json_node_get_boolean (n) ? 1 : 0);
              g_hash_table_replace (m->config_kinds, g_strdup (name), (gpointer) "a boolean");
            }
          else
            g_hash_table_replace (m->config_kinds, g_strdup (name), (gpointer) "a string");
        }
      else if (JSON_NODE_HOLDS_NULL (n))
        g_hash_table_replace (m->config_kinds, g_strdup (name), (gpointer) "null");
      else if (JSON_NODE_HOLDS_ARRAY (n))
        {
          g_autofree char *len = g_strdup_printf ("%s_len", name);
          config_put (m, len, json_array_get_length (json_node_get_array (n)));
          config_string_counts (m, json_node_get_array (n), name);
          g_hash_table_replace (m->config_kinds, g_strdup (name), (gpointer) "a list");
        }
      else if (JSON_NODE_HOLDS_OBJECT (n))
        {
          g_hash_table_replace (m->config_kinds, g_strdup (name), (gpointer) "an object");
          if (prefix == NULL)
            config_object (m, json_node_get_object (n), key);
        }
    }
}

static const char *
string_member (JsonObject *obj, const char *key)
{
  JsonNode *n = obj && json_object_has_member (obj, key) ? json_object_get_member (obj, key) : NULL;

  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
           ? json_node_get_string (n) : NULL;
}

static JsonObject *
object_member (JsonObject *obj, const char *key)
{
  JsonNode *n = obj && json_object_has_member (obj, key) ? json_object_get_member (obj, key) : NULL;

  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

/* TRUE when a string of list `key` of obj contains needle. */
static gboolean
list_mentions (JsonObject *obj, const char *key, const char *needle)
{
  JsonNode *n = obj && json_object_has_member (obj, key) ? json_object_get_member (obj, key) : NULL;
  JsonArray *a = n && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;

  for (guint i = 0; a && i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      if (JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING
          && strstr (json_node_get_string (e), needle))
        return TRUE;
    }
  return FALSE;
}

/* The quant modes a Hugging Face quantization_config declares (doc/models.md §5): fp8 with
 * 128×128 weight blocks is fp8_block, without blocks (or modelopt FP8) per-tensor fp8; mxfp4
 * quantises the experts; 4-bit integer compressed-tensors is int4_wo, on the experts only when
 * attention and the dense/shared MLPs are in its ignore list. Anything else: not declared. */
static void
config_quant (msperf_model *m, JsonObject *q)
{
  const char *method = string_member (q, "quant_method");
  JsonObject *groups = object_member (q, "config_groups");

  m->cfg_gemm_quant = m->cfg_moe_quant = -1;
  if (method == NULL)
    return;
  if (strcmp (method, "fp8") == 0)
    m->cfg_gemm_quant = m->cfg_moe_quant
      = json_object_has_member (q, "weight_block_size") ? QUANT_FP8_BLOCK : QUANT_FP8;
  else if (strcmp (method, "modelopt") == 0 && g_strcmp0 (string_member (q, "quant_algo"), "FP8") == 0)
    m->cfg_gemm_quant = m->cfg_moe_quant = QUANT_FP8;
  else if (strcmp (method, "mxfp4") == 0)
    {
      m->cfg_gemm_quant = QUANT_NONE;
      m->cfg_moe_quant = QUANT_W4A16_MXFP4;
    }
  else if (strcmp (method, "compressed-tensors") == 0 && groups)
    {
      g_autoptr (GList) names = json_object_get_members (groups);
      JsonObject *w = names ? object_member (object_member (groups, names->data), "weights") : NULL;
      /* num_bits as the config writes it: any other JSON type ([4], "4") is not 4 bits (and
       * json_object_get_int_member would be a caller error on a list) */
      JsonNode *bits = w && json_object_has_member (w, "num_bits")
                         ? json_object_get_member (w, "num_bits") : NULL;

      if (bits && JSON_NODE_HOLDS_VALUE (bits) && json_node_get_value_type (bits) == G_TYPE_INT64
          && json_node_get_int (bits) == 4
          && g_strcmp0 (string_member (w, "type"), "int") == 0)
        {
          m->cfg_moe_quant = QUANT_INT4_WO;
          m->cfg_gemm_quant = list_mentions (q, "ignore", "self_attn") ? QUANT_NONE : QUANT_INT4_WO;
        }
    }
}

/* A config.json is a few kB; anything past this bound is not one. */
#define CONFIG_MAX_BYTES (16u << 20)
/* json-glib parses recursively without a depth limit (a million '[' overflows the stack);
 * a config nests two or three levels (text_config, rope_scaling, quantization_config). */
#define CONFIG_MAX_DEPTH 64

/* The line of byte offset in text (1-based). */
static guint
line_at (const char *text, gsize offset)
{
  guint line = 1;

  for (gsize k = 0; k < offset && text[k] != '\0'; k++)
    line += text[k] == '\n';
  return line;
}

/* What json-glib must not see: control bytes, text that is not UTF-8, a root that is not an
 * object, nesting past CONFIG_MAX_DEPTH, content after the object (json-glib reads several
 * values and leaks the extra ones). FALSE + "CONFIG:LINE: problem". */
static gboolean
config_text_ok (const char *path, const char *text, gsize len, GError **error)
{
  const char *bad_utf8 = NULL;
  guint depth = 0;
  gboolean in_string = FALSE, closed = FALSE, started = FALSE;

  if (!g_utf8_validate (text, (gssize) len, &bad_utf8) && *bad_utf8 != '\0')
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                   "%s:%u: not UTF-8 (byte 0x%02x)", path, line_at (text, bad_utf8 - text),
                   (guchar) *bad_utf8);
      return FALSE;
    }
  for (gsize k = 0; k < len; k++)
    {
      guchar c = (guchar) text[k];

      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                       "%s:%u: binary content (control byte 0x%02x)", path, line_at (text, k), c);
          return FALSE;
        }
      if (g_ascii_isspace (c) && !in_string)
        continue;
      if (!started)
        {
          started = TRUE;
          if (c != '{')
            return bad (error, path, line_at (text, k), "a config.json must be a JSON object");
        }
      if (closed)
        return bad (error, path, line_at (text, k), "unexpected content after the JSON object");
      if (in_string)
        {
          if (c == '\\' && k + 1 < len)
            k++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if ((c == '[' || c == '{') && ++depth > CONFIG_MAX_DEPTH)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "%s:%u: JSON nesting deeper than %d levels", path, line_at (text, k),
                       CONFIG_MAX_DEPTH);
          return FALSE;
        }
      else if ((c == ']' || c == '}') && depth > 0)
        closed = --depth == 0;
    }
  if (!started)
    return bad (error, path, 1, "a config.json must be a JSON object");
  return TRUE;
}

/* The line of the first "name" key in the config text, 0 when it cannot be found (a field
 * of text_config is looked up by its own name). For messages only. */
static guint
field_line (const char *path, const char *name)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  guint line = 0;

  if (!g_file_get_contents (path, &text, &len, NULL) || len > CONFIG_MAX_BYTES)
    return 0;
  for (const char *n = name; line == 0 && n != NULL;
       n = g_str_has_prefix (n, "text_config_") && n == name ? name + strlen ("text_config_")
                                                              : NULL)
    {
      g_autofree char *quoted = g_strdup_printf ("\"%s\"", n);
      const char *at = strstr (text, quoted);

      if (at != NULL)
        line = line_at (text, (gsize) (at - text));
    }
  return line;
}

static gboolean
field_error (GError **error, const msperf_model *m, const char *name, const char *fmt, ...)
  G_GNUC_PRINTF (4, 5);

static gboolean
field_error (GError **error, const msperf_model *m, const char *name, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;
  guint line = field_line (m->config_path, name);

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (line > 0)
    g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s:%u: field '%s': %s",
                 m->config_path, line, name, msg);
  else
    g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s: field '%s': %s",
                 m->config_path, name, msg);
  return FALSE;
}

/* Fields that count layers of a kind a model may have none of. */
static gboolean
may_be_zero (const char *name)
{
  return g_str_has_prefix (name, "first_k_") || strstr (name, "num_nextn") != NULL;
}

gboolean
msperf_model_check_fields (const msperf_model *m, GError **error)
{
  for (guint i = 0; i < m->fields->len; i++)
    {
      const char *f = g_ptr_array_index (m->fields, i);
      const char *kind = g_hash_table_lookup (m->config_kinds, f);
      int slot = msperf_msyms_find (m->syms, f);
      double v = slot >= 0 ? m->base[slot] : NAN;
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      /* a mistyped field ("32", true, null) is named as such, not as missing; a default the
       * template computes for an absent one is checked like a written value */
      if (kind != NULL && (isnan (v) || strcmp (kind, "a boolean") == 0))
        return field_error (error, m, f, "expected a number, got %s", kind);
      if (isnan (v))
        continue;   /* missing: reported with the template that needs it */
      g_ascii_dtostr (buf, sizeof buf, v);
      if (!isfinite (v))
        return field_error (error, m, f, "%s is not a finite number", buf);
      if (v != floor (v))
        return field_error (error, m, f, "%s is not an integer", buf);
      if (v < (may_be_zero (f) ? 0.0 : 1.0))
        return field_error (error, m, f, "is %s; it must be at least %d", buf,
                            may_be_zero (f) ? 0 : 1);
      if (v > MSPERF_MODEL_MAX_FIELD)
        return field_error (error, m, f, v < 1e20 ? "%.0f is above %.0f, the largest value a "
                            "model config field may hold" : "%g is above %.0f, the largest value "
                            "a model config field may hold", v, MSPERF_MODEL_MAX_FIELD);
    }
  return TRUE;
}

static const char *
node_kind (JsonNode *n)
{
  if (JSON_NODE_HOLDS_OBJECT (n))
    return "an object";
  if (JSON_NODE_HOLDS_ARRAY (n))
    return "an array";
  if (JSON_NODE_HOLDS_NULL (n))
    return "null";
  switch (json_node_get_value_type (n))
    {
    case G_TYPE_STRING:
      return "a string";
    case G_TYPE_BOOLEAN:
      return "a boolean";
    default:
      return "a number";
    }
}

/* "CONFIG:LINE: field 'NAME': expected WANT, got KIND" (the line of the field's first key). */
static gboolean
member_error (GError **error, const char *path, const char *name, const char *want, JsonNode *n)
{
  g_autofree char *text = NULL;
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", name);
  const char *at;
  guint line = 1;

  if (g_file_get_contents (path, &text, NULL, NULL) && (at = strstr (text, quoted)) != NULL)
    line = line_at (text, (gsize) (at - text));
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
               "%s:%u: field '%s': expected %s, got %s", path, line, name, want, node_kind (n));
  return FALSE;
}

/* The members a config holds as objects (or null): one of another type is refused, not
 * silently read as absent. */
static gboolean
objects_ok (JsonObject *obj, const char *path, GError **error)
{
  static const char *const names[] = { "text_config", "quantization_config", "rope_scaling",
                                       NULL };

  for (const char *const *k = names; *k != NULL; k++)
    {
      JsonNode *n = json_object_has_member (obj, *k) ? json_object_get_member (obj, *k) : NULL;

      if (n != NULL && !JSON_NODE_HOLDS_OBJECT (n) && !JSON_NODE_HOLDS_NULL (n))
        return member_error (error, path, *k, "an object", n);
    }
  return TRUE;
}

/* How deep text_config may nest (a multimodal wrapper around a text model). */
#define TEXT_CONFIG_DEPTH 4

gboolean
msperf_model_read_config (msperf_model *m, const char *path, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) local = NULL;
  g_autofree char *content = NULL;
  gsize len = 0;
  JsonObject *root, *text;
  JsonArray *arch;
  const char *dt;
  int depth = 0;

  if (!g_file_get_contents (path, &content, &len, &local))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s", local->message);
      return FALSE;
    }
  if (len > CONFIG_MAX_BYTES)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s: %" G_GSIZE_FORMAT " bytes is too large for a config.json (at most %u)",
                   path, len, CONFIG_MAX_BYTES);
      return FALSE;
    }
  if (!config_text_ok (path, content, len, error))
    return FALSE;
  if (!json_parser_load_from_data (parser, content, (gssize) len, &local))
    {
      /* json-glib names the text "<data>:LINE:COLUMN: …": named after the file instead */
      const char *msg = local->message;

      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "%s%s%s", path,
                   g_str_has_prefix (msg, "<data>:") ? "" : ": ",
                   g_str_has_prefix (msg, "<data>") ? msg + strlen ("<data>") : msg);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return bad (error, path, 1, "a config.json must be a JSON object");
  root = json_node_get_object (json_parser_get_root (parser));
  if (json_object_has_member (root, "architectures")
      && !JSON_NODE_HOLDS_ARRAY (json_object_get_member (root, "architectures")))
    return member_error (error, path, "architectures", "a list of class names",
                         json_object_get_member (root, "architectures"));
  if (!objects_ok (root, path, error))
    return FALSE;
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
  config_quant (m, object_member (root, "quantization_config"));
  dt = string_member (root, "torch_dtype") ? string_member (root, "torch_dtype")
                                           : string_member (root, "dtype");
  /* A wrapper's text model (text_config, possibly nested): its fields are the model's. */
  for (text = object_member (root, "text_config"); text; text = object_member (text, "text_config"))
    {
      if (++depth > TEXT_CONFIG_DEPTH)
        return bad (error, path, 1, "text_config nested deeper than 4 levels");
      if (!objects_ok (text, path, error))
        return FALSE;
      config_object (m, text, NULL);
      if (object_member (text, "quantization_config"))
        config_quant (m, object_member (text, "quantization_config"));
      if (string_member (text, "torch_dtype") || string_member (text, "dtype"))
        dt = string_member (text, "torch_dtype") ? string_member (text, "torch_dtype")
                                                 : string_member (text, "dtype");
    }
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
  static const struct { const char *name; int code; } codes[] = {
    { "dt", DT_ACT }, { "ldt", DT_LINEAR }, { "kvdt", DT_KV }, { "gwdt", DT_GEMM_W },
    { "mwdt", DT_MOE_W },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (codes); i++)
    if (strcmp (text, codes[i].name) == 0)
      return codes[i].code;
  return msperf_model_dtype_index (text);
}

static part_kind
part_code (const char *text)
{
  return strcmp (text, "gemm") == 0 ? PART_GEMM : strcmp (text, "moe") == 0 ? PART_MOE : PART_NONE;
}

static void
arg_clear (arg_spec *a)
{
  if (a->exprs)
    g_ptr_array_free (a->exprs, TRUE);
  msperf_mexpr_free (a->fill);
  g_free (a->text);
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

/* kwargs: an expression, a quoted string, or {quant: gemm|moe} (that part's mode name). */
static gboolean
compile_kwargs (compiler *c, const msperf_ynode *map, op_spec *op)
{
  if (map == NULL)
    return TRUE;
  if (map->kind != MSPERF_YNODE_MAP)
    return bad (c->error, c->path, map->line, "kwargs is a map of name: value");
  op->kw_names = g_ptr_array_new_with_free_func (g_free);
  op->kwargs = g_array_new (FALSE, TRUE, sizeof (arg_spec));
  g_array_set_clear_func (op->kwargs, (GDestroyNotify) arg_clear);
  for (guint i = 0; i < msperf_ynode_len (map); i++)
    {
      const msperf_ynode *v = msperf_ynode_value (map, i), *q;
      arg_spec a = { 0 };
      gboolean ok = TRUE;

      g_ptr_array_add (op->kw_names, g_strdup (msperf_ynode_key (map, i)->text));
      if (v->kind == MSPERF_YNODE_SCALAR && !v->plain)
        {
          a.kind = ARG_STRING;
          a.text = g_strdup (v->text);
        }
      else if (v->kind == MSPERF_YNODE_MAP && (q = msperf_ynode_get (v, "quant")) != NULL)
        {
          a.kind = ARG_QUANT;
          a.part = q->kind == MSPERF_YNODE_SCALAR ? part_code (q->text) : PART_NONE;
          if (a.part == PART_NONE)
            ok = bad (c->error, c->path, v->line, "{quant: PART}: PART is gemm or moe");
        }
      else
        ok = compile_arg (c, v, &a);
      g_array_append_val (op->kwargs, a);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static void
op_free (op_spec *op)
{
  g_free (op->name);
  if (op->kw_names)
    g_ptr_array_free (op->kw_names, TRUE);
  if (op->kwargs)
    g_array_free (op->kwargs, TRUE);
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
  static const char *const keys[] = { "op", "when", "count", "args", "out", "kwargs", "part",
                                      "input_quantised", NULL };
  const msperf_ynode *name = msperf_ynode_get (n, "op"), *count, *when, *part, *iq;
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
  part = msperf_ynode_get (n, "part");
  iq = msperf_ynode_get (n, "input_quantised");
  if (part && (part->kind != MSPERF_YNODE_SCALAR || (op->part = part_code (part->text)) == PART_NONE))
    return bad (c->error, c->path, part->line, "part is gemm (non-expert linear layers) or moe "
                "(routed experts)");
  op->input_quantised = iq && iq->kind == MSPERF_YNODE_SCALAR && strcmp (iq->text, "0") != 0
                        && strcmp (iq->text, "false") != 0;
  if (!compile_args (c, msperf_ynode_get (n, "args"), op->args, FALSE)
      || !compile_args (c, msperf_ynode_get (n, "out"), op->outs, TRUE)
      || !compile_kwargs (c, msperf_ynode_get (n, "kwargs"), op))
    return FALSE;
  /* A linear layer: [M, K] times [K, N], whatever else follows (a fused all-reduce's group). */
  if (op->part != PART_NONE
      && (op->args->len < 2 || op->outs->len != 1
          || g_array_index (op->args, arg_spec, 0).kind != ARG_TENSOR
          || g_array_index (op->args, arg_spec, 0).exprs->len != 2
          || g_array_index (op->args, arg_spec, 1).kind != ARG_TENSOR
          || g_array_index (op->args, arg_spec, 1).exprs->len != 2))
    return bad (c->error, c->path, n->line, "an op with 'part' is a linear layer: args [[M, K], "
                "[K, N], …] and one output");
  return TRUE;
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

/* The optional memory terms (doc/models.md §6); unknown keys are refused. */
static gboolean
compile_memory (compiler *c, const msperf_ynode *mem)
{
  static const char *const keys[] = { "weights", "kv_per_token", "params_dense", "params_expert",
                                      "params_other", "params_mtp", "expert_share",
                                      "kv_window_per_token", "kv_window", "state_per_seq",
                                      "act_per_token", "params_embedding", NULL };
  msperf_mexpr **slots[] = { NULL, NULL, &c->m->params_dense, &c->m->params_expert,
                             &c->m->params_other, &c->m->params_mtp, &c->m->expert_share,
                             &c->m->kv_window_per_token, &c->m->kv_window, &c->m->state_per_seq,
                             &c->m->act_per_token, &c->m->params_embedding };

  if (mem->kind != MSPERF_YNODE_MAP || !known_keys (c, mem, keys))
    return mem->kind == MSPERF_YNODE_MAP ? FALSE
                                         : bad (c->error, c->path, mem->line, "memory is a map");
  for (gsize i = 2; i < G_N_ELEMENTS (slots); i++)
    {
      const msperf_ynode *n = msperf_ynode_get (mem, keys[i]);
      if (n && (*slots[i] = compile_node (c, n)) == NULL)
        return FALSE;
    }
  if ((c->m->params_dense || c->m->params_expert || c->m->params_other)
      && !(c->m->params_dense && c->m->params_expert && c->m->params_other))
    return bad (c->error, c->path, mem->line,
                "params_dense, params_expert and params_other go together");
  return TRUE;
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
      || (c->m->kv_per_token = compile_node (c, msperf_ynode_get (mem, "kv_per_token"))) == NULL
      || !compile_memory (c, mem))
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
