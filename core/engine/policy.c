/* msperf — policy loading, validation, merging and hashing (ARCHITECTURE.md § Policies). */
#include <config.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/format.h>
#include "engine/policy.h"
#include "io/yaml_doc.h"

typedef struct section section;

struct msperf_policy {
  msperf_value *root;     /* MAP with the schema below */
  GPtrArray *warnings;    /* char* */
  GPtrArray *sections;    /* section*: interpolation.<key> blocks modules declared */
  GPtrArray *pending;     /* pending*: such blocks met before their declaration */
  gboolean sealed;        /* every declaration is in: an undeclared block is an unknown key */
};

/* The built-in defaults of the core's own keys. policies/default.yaml writes them out with
 * comments, and test_policy checks that both hash alike. ep_size stays null: "not configured"
 * is not 1. interpolation.modes and the interpolation.<block>s a module owns are not here:
 * their defaults are the modules' declarations (msperf_policy_declare, msperf_policy_seal). */
static const char default_policy[] =
  "modules: {}\n"
  "interpolation:\n"
  "  enabled: true\n"
  "  max_interpolation_dim: 3\n"
  "  aggregate: median\n"
  "  allow_extrapolation: false\n"
  "  kernel_overrides: {}\n"
  "analytic: {device_profile: null}\n"
  "parallel: {tp_size: 1, ep_size: null, dp_size: 1, world_size: 1, sequence_parallel: false}\n";

/* ------------------------------------------------------------------ schema */

typedef enum { S_MAP, S_DICT, S_BOOL, S_INT, S_NUM, S_ENUM, S_STR, S_STR_LIST } schema_kind;

typedef struct schema schema;
typedef struct field {
  const char *name;
  const schema *s;
} field;

struct schema {
  schema_kind kind;
  gboolean nullable;
  int64_t min, max;             /* S_INT */
  double num_min, num_max;      /* S_NUM: a finite integer or float in [num_min, num_max] */
  gboolean min_open;            /* S_NUM: num_min itself is refused (> num_min) */
  const char *const *choices;   /* S_ENUM, NULL-terminated */
  const field *fields;          /* S_MAP, NULL-terminated */
  const schema *item;           /* S_DICT: schema of every value */
  gboolean open;                /* S_MAP: other keys are kept unchecked (a module's options,
                                 * checked against its declaration once it is loaded) */
};

static const schema s_bool = { .kind = S_BOOL };
static const schema s_str_list = { .kind = S_STR_LIST };
static const schema s_dim = { .kind = S_INT, .min = 1, .max = 4 };
static const schema s_count = { .kind = S_INT, .min = 1, .max = INT64_MAX };
static const schema s_count_or_null = { .kind = S_INT, .nullable = TRUE, .min = 1,
                                        .max = INT64_MAX };
static const schema s_str_or_null = { .kind = S_STR, .nullable = TRUE };
static const schema s_unit = { .kind = S_NUM, .num_min = 0.0, .num_max = 1.0 };

static const char *const aggregate_choices[] = { "median", "mean", NULL };
static const char *const transform_choices[] = { "sqrt_seq", "linear", NULL };
static const char *const space_choices[] = { "linear", "log", NULL };
static const char *const gc_axis_choices[] = { "output_numel", "axis_0", NULL };
static const schema s_aggregate = { .kind = S_ENUM, .choices = aggregate_choices };
static const schema s_transform = { .kind = S_ENUM, .choices = transform_choices };
static const schema s_space = { .kind = S_ENUM, .choices = space_choices };
static const schema s_gc_axis = { .kind = S_ENUM, .choices = gc_axis_choices };
static const char *const scale_subcase_choices[] = { "compute_scale", "scale_matrix", NULL };
static const schema s_scale_subcase = { .kind = S_ENUM, .choices = scale_subcase_choices };

static const field generic_compute_fields[] = { { "axis", &s_gc_axis }, { NULL, NULL } };
static const schema s_generic_compute = { .kind = S_MAP, .fields = generic_compute_fields };

/* Guarded extrapolation (extrapolate.c): optional, absent = off; no built-in default. */
static const char *const extrap_strategy_choices[] = { "hold_analytic", "marginal", NULL };
static const schema s_extrap_strategy = { .kind = S_ENUM, .choices = extrap_strategy_choices };
static const schema s_ratio = { .kind = S_NUM, .num_min = 1.0, .num_max = DBL_MAX,
                                .min_open = TRUE };
static const schema s_positive = { .kind = S_NUM, .num_min = 0.0, .num_max = DBL_MAX,
                                   .min_open = TRUE };
static const schema s_max_bound = { .kind = S_DICT, .item = &s_positive };
static const field extrapolation_fields[] = {
  { "strategy", &s_extrap_strategy },
  { "max_ratio", &s_ratio },
  { "max_bound", &s_max_bound },
  { NULL, NULL }
};
static const schema s_extrapolation = { .kind = S_MAP, .fields = extrapolation_fields };

static const field kernel_override_fields[] = {
  { "max_interpolation_dim", &s_dim },
  { "axis_transform", &s_transform },
  { "generic_compute", &s_generic_compute },
  { "axes", &s_str_list },
  { "exact_fields", &s_str_list },
  { "aggregate", &s_aggregate },
  { "space", &s_space },          /* optional, absent = linear (not in the defaults) */
  { "seq_block", &s_count },      /* optional, absent = no rounding */
  { "allow_extrapolation", &s_bool },
  { "extrapolation", &s_extrapolation },
  /* optional, absent = the plain compute coordinates (compute_axes.c) */
  { "scale_subcase", &s_scale_subcase },
  { NULL, NULL }
};
static const schema s_kernel_override = { .kind = S_MAP, .fields = kernel_override_fields };
static const schema s_kernel_overrides = { .kind = S_DICT, .item = &s_kernel_override };

static const field interpolation_fields[] = {
  { "enabled", &s_bool },
  { "modes", &s_str_list },
  { "part_modes", &s_str_list },  /* optional, no built-in default: parts.c */
  { "max_interpolation_dim", &s_dim },
  { "aggregate", &s_aggregate },
  { "space", &s_space },          /* optional, absent = linear (not in the defaults) */
  { "allow_extrapolation", &s_bool },
  { "extrapolation", &s_extrapolation },
  { "kernel_overrides", &s_kernel_overrides },
  { NULL, NULL }
};
static const schema s_interpolation = { .kind = S_MAP, .fields = interpolation_fields };

static const field module_fields[] = { { "enabled", &s_bool }, { NULL, NULL } };
static const schema s_module = { .kind = S_MAP, .fields = module_fields, .open = TRUE };
static const schema s_modules = { .kind = S_DICT, .item = &s_module };

static const field analytic_fields[] = { { "device_profile", &s_str_or_null }, { NULL, NULL } };
static const schema s_analytic = { .kind = S_MAP, .fields = analytic_fields };

static const field parallel_fields[] = {
  { "tp_size", &s_count },
  { "ep_size", &s_count_or_null },
  { "dp_size", &s_count },
  { "world_size", &s_count },
  { "sequence_parallel", &s_bool },
  { NULL, NULL }
};
static const schema s_parallel = { .kind = S_MAP, .fields = parallel_fields };

/* The confidence table (engine/confidence.c): optional, absent from the built-in defaults so
 * the policy hash of a policy without it is unchanged; every entry defaults to the old
 * constant. */
static const field confidence_fields[] = {
  { "linear_1d", &s_unit },
  { "griddata_2d", &s_unit },
  { "griddata_3d", &s_unit },
  { "griddata_4d", &s_unit },
  { "transform_penalty", &s_unit },
  { "extrapolated", &s_unit },
  { "extrapolated_hold_analytic", &s_unit },
  { "extrapolated_marginal", &s_unit },
  { "analytic", &s_unit },
  { NULL, NULL }
};
static const schema s_confidence = { .kind = S_MAP, .fields = confidence_fields };

/* Bounds of the engine's caches (dispatch.c): optional, absent = the built-in sizes; they
 * change memory and time, never an answer, so they are left out of the policy hash. */
static const field cache_fields[] = { { "answers", &s_count }, { NULL, NULL } };
static const schema s_cache = { .kind = S_MAP, .fields = cache_fields };

/* The model-level commands' settings (e2e, sweep): optional, absent = their built-in
 * defaults; they change no op's answer, so they are left out of the policy hash. */
static const schema s_tokens = { .kind = S_INT, .min = 0, .max = INT32_MAX };
static const field model_fields[] = { { "max_prefill_tokens", &s_tokens }, { NULL, NULL } };
static const schema s_model = { .kind = S_MAP, .fields = model_fields };

static const field root_fields[] = {
  { "modules", &s_modules },
  { "interpolation", &s_interpolation },
  { "analytic", &s_analytic },
  { "parallel", &s_parallel },
  { "confidence", &s_confidence },
  { "cache", &s_cache },
  { "model", &s_model },
  { NULL, NULL }
};
static const schema s_root = { .kind = S_MAP, .fields = root_fields };

/* ------------------------------------------------------------------ validation */

typedef struct {
  const char *file;
  gboolean lenient;       /* database layer: problems become warnings, the value is dropped */
  GPtrArray *warnings;    /* nullable */
  msperf_policy *policy;  /* for the declared interpolation blocks; NULL: none */
} vctx;

/* A block interpolation.<key> a module declared (msperf_policy_declare). */
struct section {
  char *owner;            /* the module */
  char *key;
  schema *s;              /* S_MAP of the declared keys */
  msperf_value *defaults; /* MAP: the declared defaults, validated */
  GPtrArray *allocs;      /* what s points into */
};

/* A declared-looking block met before any module declared it: validated and merged by
 * msperf_policy_seal, in the order the layers came. */
typedef struct pending {
  char *parent;           /* "interpolation" or "interpolation_policy" */
  char *key;
  msperf_value *value;
  char *file;
  gboolean lenient;
} pending;

static void
section_free (gpointer data)
{
  section *sec = data;

  g_free (sec->owner);
  g_free (sec->key);
  msperf_value_free (sec->defaults);
  g_ptr_array_unref (sec->allocs);
  g_free (sec);
}

static void
pending_free (gpointer data)
{
  pending *pd = data;

  g_free (pd->parent);
  g_free (pd->key);
  msperf_value_free (pd->value);
  g_free (pd->file);
  g_free (pd);
}

static const section *
find_section (const msperf_policy *p, const char *key)
{
  for (guint k = 0; p != NULL && k < p->sections->len; k++)
    {
      const section *sec = g_ptr_array_index (p->sections, k);
      if (strcmp (sec->key, key) == 0)
        return sec;
    }
  return NULL;
}

static void
add_warning (vctx *c, char *msg)
{
  if (c->warnings != NULL)
    g_ptr_array_add (c->warnings, msg);
  else
    g_free (msg);
}

static char *
join_path (const char *path, const char *key)
{
  return *path ? g_strdup_printf ("%s.%s", path, key) : g_strdup (key);
}

static const schema *
field_schema (const schema *s, const char *key)
{
  for (const field *f = s->fields; f->name != NULL; f++)
    if (strcmp (f->name, key) == 0)
      return f->s;
  return NULL;
}

static gboolean
bad_value (vctx *c, const msperf_value *v, const char *path, const char *expected,
           GError **error)
{
  g_autofree char *got = msperf_yaml_describe (v);
  msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, c->file, v->line,
                         "key '%s': expected %s, got %s", path, expected, got);
  return FALSE;
}

static char *
choices_text (const char *const *choices)
{
  g_autofree char *joined = g_strjoinv (" or ", (char **) choices);
  return g_strdup_printf ("%s", joined);
}

static msperf_value *validate (vctx *c, const schema *s, const msperf_value *v, const char *path,
                               GError **error);

/* Validates the entries of a MAP (fixed fields) or DICT (free keys) into a new MAP. */
static msperf_value *
validate_map (vctx *c, const schema *s, const msperf_value *v, const char *path, GError **error)
{
  g_autoptr (msperf_value) out = msperf_value_new (MSPERF_VALUE_MAP);

  out->line = v->line;
  if (v->kind == MSPERF_VALUE_NONE)
    return g_steal_pointer (&out);   /* "key:" with nothing after it: an empty mapping */
  if (v->kind != MSPERF_VALUE_MAP)
    {
      bad_value (c, v, *path ? path : "(top level)", "a mapping", error);
      return NULL;
    }
  for (guint k = 0; k < v->keys->len; k++)
    {
      const char *key = g_ptr_array_index (v->keys, k);
      const msperf_value *item = g_ptr_array_index (v->items, k);
      const schema *sub = s->kind == S_DICT ? s->item : field_schema (s, key);
      g_autofree char *sub_path = join_path (path, key);
      GError *local = NULL;
      msperf_value *checked;

      if (strlen (key) > MSPERF_YAML_MAX_STRING)
        {
          /* a runaway key is named by its head, never echoed whole */
          char *msg = msperf_yaml_format_message (c->file, item->line,
                                                  "a key of %zu bytes in '%s' is too long "
                                                  "(at most %d): '%.80s…'", strlen (key),
                                                  *path ? path : "(top level)",
                                                  MSPERF_YAML_MAX_STRING, key);
          if (!c->lenient)
            {
              g_set_error_literal (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, msg);
              g_free (msg);
              return NULL;
            }
          add_warning (c, msg);
          continue;
        }
      if (sub == NULL && s == &s_interpolation && c->policy != NULL)
        {
          const section *sec = find_section (c->policy, key);

          if (sec != NULL)
            sub = sec->s;
          else if (!c->policy->sealed
                   && (item->kind == MSPERF_VALUE_MAP || item->kind == MSPERF_VALUE_NONE))
            {
              /* A block a module may declare once loaded: checked then (msperf_policy_seal). */
              pending *pd = g_new0 (pending, 1);

              pd->parent = g_strdup (path);
              pd->key = g_strdup (key);
              pd->value = msperf_value_copy (item);
              pd->file = g_strdup (c->file);
              pd->lenient = c->lenient;
              g_ptr_array_add (c->policy->pending, pd);
              continue;
            }
        }
      if (sub == NULL && s->open)
        {
          g_ptr_array_add (out->keys, g_strdup (key));
          g_ptr_array_add (out->items, msperf_value_copy (item));
          continue;
        }
      if (sub == NULL)
        {
          char *msg = *path
            ? msperf_yaml_format_message (c->file, item->line, "unknown key '%s' in '%s'", key, path)
            : msperf_yaml_format_message (c->file, item->line, "unknown key '%s'", key);
          if (!c->lenient)
            {
              g_set_error_literal (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, msg);
              g_free (msg);
              return NULL;
            }
          add_warning (c, msg);
          continue;
        }
      checked = validate (c, sub, item, sub_path, &local);
      if (checked == NULL)
        {
          if (!c->lenient)
            {
              g_propagate_error (error, local);
              return NULL;
            }
          add_warning (c, g_strdup_printf ("%s (ignored)", local->message));
          g_error_free (local);
          continue;
        }
      g_ptr_array_add (out->keys, g_strdup (key));
      g_ptr_array_add (out->items, checked);
    }
  return g_steal_pointer (&out);
}

static msperf_value *
validate (vctx *c, const schema *s, const msperf_value *v, const char *path, GError **error)
{
  if (s->kind == S_MAP || s->kind == S_DICT)
    return validate_map (c, s, v, path, error);
  if (v->kind == MSPERF_VALUE_NONE && s->nullable)
    return msperf_value_copy (v);
  switch (s->kind)
    {
    case S_BOOL:
      if (v->kind != MSPERF_VALUE_BOOL)
        return bad_value (c, v, path, "true or false", error), NULL;
      break;
    case S_INT:
      if (v->kind != MSPERF_VALUE_INT || v->i < s->min || v->i > s->max)
        {
          g_autofree char *expected = s->max == INT64_MAX
            ? g_strdup_printf ("an integer >= %" PRId64 "%s", s->min, s->nullable ? " or null" : "")
            : g_strdup_printf ("an integer from %" PRId64 " to %" PRId64, s->min, s->max);
          return bad_value (c, v, path, expected, error), NULL;
        }
      break;
    case S_NUM:
      {
        double d;

        if (!msperf_value_get_double (v, &d) || !isfinite (d) || d > s->num_max
            || (s->min_open ? !(d > s->num_min) : !(d >= s->num_min)))
          {
            g_autofree char *expected
              = s->num_max == DBL_MAX ? g_strdup_printf ("a number > %g", s->num_min)
                                      : g_strdup_printf ("a number from %g to %g", s->num_min,
                                                         s->num_max);
            return bad_value (c, v, path, expected, error), NULL;
          }
        break;
      }
    case S_ENUM:
      {
        gboolean ok = FALSE;
        for (const char *const *ch = s->choices; v->kind == MSPERF_VALUE_STRING && *ch; ch++)
          ok = ok || strcmp (*ch, v->s) == 0;
        if (!ok)
          {
            g_autofree char *expected = choices_text (s->choices);
            return bad_value (c, v, path, expected, error), NULL;
          }
        break;
      }
    case S_STR:
      if (v->kind != MSPERF_VALUE_STRING)
        return bad_value (c, v, path, s->nullable ? "a string or null" : "a string", error), NULL;
      if (!msperf_yaml_check_length (v, c->file, path, error))
        return NULL;
      break;
    case S_STR_LIST:
      if (v->kind != MSPERF_VALUE_LIST)
        return bad_value (c, v, path, "a list of strings", error), NULL;
      for (guint k = 0; k < v->items->len; k++)
        {
          const msperf_value *item = g_ptr_array_index (v->items, k);
          if (item->kind != MSPERF_VALUE_STRING)
            return bad_value (c, item, path, "a list of strings", error), NULL;
          if (!msperf_yaml_check_length (item, c->file, path, error))
            return NULL;
        }
      break;
    case S_MAP:
    case S_DICT:
    default:
      g_assert_not_reached ();
    }
  return msperf_value_copy (v);
}

/* Notices about accepted values that do not do anything: extrapolation follows a failed
 * interpolation stage, so it has no effect where the same layer turns the stage off. */
static void
check_notices (vctx *c, const msperf_value *tree, const char *prefix)
{
  const msperf_value *interp = prefix ? tree : msperf_value_lookup (tree, "interpolation");
  const msperf_value *ae = msperf_value_lookup (interp, "allow_extrapolation");
  const msperf_value *enabled = msperf_value_lookup (interp, "enabled");

  if (ae != NULL && ae->kind == MSPERF_VALUE_BOOL && ae->b && enabled != NULL
      && enabled->kind == MSPERF_VALUE_BOOL && !enabled->b)
    add_warning (c, msperf_yaml_format_message (c->file, ae->line,
                                                "key '%s.allow_extrapolation': no effect while "
                                                "interpolation is disabled",
                                                prefix ? prefix : "interpolation"));
}

/* ------------------------------------------------------------------ merging */

static void
merge_into (msperf_value *dst, const msperf_value *src)
{
  for (guint k = 0; k < src->keys->len; k++)
    {
      const char *key = g_ptr_array_index (src->keys, k);
      const msperf_value *item = g_ptr_array_index (src->items, k);
      msperf_value *cur = (msperf_value *) msperf_value_lookup (dst, key);

      if (cur != NULL && cur->kind == MSPERF_VALUE_MAP && item->kind == MSPERF_VALUE_MAP)
        merge_into (cur, item);
      else
        msperf_value_map_set (dst, key, msperf_value_copy (item));
    }
}

msperf_policy *
msperf_policy_new_defaults (void)
{
  msperf_policy *p = g_new0 (msperf_policy, 1);
  g_autoptr (GError) error = NULL;

  p->root = msperf_yaml_load_data (default_policy, strlen (default_policy), "built-in defaults",
                                   &error);
  if (p->root == NULL)
    g_error ("built-in policy: %s", error->message);  /* a bug in this file, not input */
  p->warnings = g_ptr_array_new_with_free_func (g_free);
  p->sections = g_ptr_array_new_with_free_func (section_free);
  p->pending = g_ptr_array_new_with_free_func (pending_free);
  return p;
}

void
msperf_policy_free (msperf_policy *p)
{
  if (p == NULL)
    return;
  msperf_value_free (p->root);
  g_ptr_array_unref (p->warnings);
  g_ptr_array_unref (p->sections);
  g_ptr_array_unref (p->pending);
  g_free (p);
}

static gboolean
merge_tree (msperf_policy *p, const msperf_value *tree, const char *file, GError **error)
{
  vctx c = { file, FALSE, p->warnings, p };
  g_autoptr (msperf_value) checked = NULL;

  checked = validate (&c, &s_root, tree, "", error);
  if (checked == NULL)
    return FALSE;
  check_notices (&c, checked, NULL);
  merge_into (p->root, checked);
  return TRUE;
}

gboolean
msperf_policy_merge_file (msperf_policy *p, const char *path, GError **error)
{
  g_autoptr (msperf_value) tree = NULL;

  g_return_val_if_fail (p != NULL && path != NULL, FALSE);
  tree = msperf_yaml_load_file (path, error);
  return tree != NULL && merge_tree (p, tree, path, error);
}

gboolean
msperf_policy_merge_data (msperf_policy *p, const char *data, const char *name, GError **error)
{
  g_autoptr (msperf_value) tree = NULL;

  g_return_val_if_fail (p != NULL && data != NULL && name != NULL, FALSE);
  tree = msperf_yaml_load_data (data, strlen (data), name, error);
  return tree != NULL && merge_tree (p, tree, name, error);
}

gboolean
msperf_policy_merge_database (msperf_policy *p, const msperf_database *db, GPtrArray *warnings,
                              GError **error)
{
  const msperf_value *block;
  g_autofree char *file = NULL;
  g_autoptr (msperf_value) checked = NULL;
  msperf_value *interp;
  vctx c = { NULL, TRUE, warnings, p };

  g_return_val_if_fail (p != NULL && db != NULL, FALSE);
  block = msperf_database_top (db, "interpolation_policy");
  if (block == NULL || block->kind == MSPERF_VALUE_NONE)
    return TRUE;
  file = g_build_filename (msperf_database_dir (db), "op_mapping.yaml", NULL);
  c.file = file;
  if (block->kind != MSPERF_VALUE_MAP)
    {
      g_autofree char *got = msperf_yaml_describe (block);
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, block->line,
                             "key 'interpolation_policy': expected a mapping, got %s", got);
      return FALSE;
    }
  /* Global keys and kernel_overrides are distinct subtrees, so one deep merge applies them
   * in the documented order (global, then kernel_overrides). */
  checked = validate (&c, &s_interpolation, block, "interpolation_policy", error);
  if (checked == NULL)
    return FALSE;
  check_notices (&c, checked, "interpolation_policy");
  interp = (msperf_value *) msperf_value_lookup (p->root, "interpolation");
  merge_into (interp, checked);
  return TRUE;
}

/* ------------------------------------------------------------------ declared blocks */

static char *
keep (GPtrArray *allocs, const char *text)
{
  char *copy = g_strdup (text);

  g_ptr_array_add (allocs, copy);
  return copy;
}

/* One declared key ({type, choices, min, max, nullable, default}) into a schema node. */
static schema *
declared_node (section *sec, const char *file, const char *path, const msperf_value *spec,
               GError **error)
{
  static const char *const spec_keys[] = { "type", "choices", "min", "max", "nullable",
                                           "default", "help", NULL };
  static const char *const types[] = { "bool", "integer", "number", "choice", "string",
                                       "strings", NULL };
  schema *node = g_new0 (schema, 1);
  const char *type = NULL;
  const msperf_value *v;
  int64_t i;
  double d;

  g_ptr_array_add (sec->allocs, node);
  if (spec->kind != MSPERF_VALUE_MAP)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, spec->line,
                             "key '%s': expected a mapping {type: …}", path);
      return NULL;
    }
  for (guint k = 0; k < spec->keys->len; k++)
    if (!g_strv_contains (spec_keys, g_ptr_array_index (spec->keys, k)))
      {
        msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, spec->line,
                               "unknown key '%s' in '%s'",
                               (const char *) g_ptr_array_index (spec->keys, k), path);
        return NULL;
      }
  v = msperf_value_lookup (spec, "type");
  if (v == NULL || (type = msperf_value_get_string (v)) == NULL || !g_strv_contains (types, type))
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, spec->line,
                             "key '%s.type': expected bool, integer, number, choice, string or "
                             "strings", path);
      return NULL;
    }
  v = msperf_value_lookup (spec, "nullable");
  node->nullable = v != NULL && v->kind == MSPERF_VALUE_BOOL && v->b;
  if (strcmp (type, "bool") == 0)
    node->kind = S_BOOL;
  else if (strcmp (type, "string") == 0)
    node->kind = S_STR;
  else if (strcmp (type, "strings") == 0)
    node->kind = S_STR_LIST;
  else if (strcmp (type, "integer") == 0)
    {
      node->kind = S_INT;
      node->min = msperf_value_get_int (msperf_value_lookup (spec, "min"), &i) ? i : INT64_MIN;
      node->max = msperf_value_get_int (msperf_value_lookup (spec, "max"), &i) ? i : INT64_MAX;
    }
  else if (strcmp (type, "number") == 0)
    {
      node->kind = S_NUM;
      node->num_min = msperf_value_get_double (msperf_value_lookup (spec, "min"), &d) ? d : -DBL_MAX;
      node->num_max = msperf_value_get_double (msperf_value_lookup (spec, "max"), &d) ? d : DBL_MAX;
    }
  else
    {
      const msperf_value *ch = msperf_value_lookup (spec, "choices");
      const char **choices;

      if (ch == NULL || ch->kind != MSPERF_VALUE_LIST || ch->items->len == 0)
        {
          msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, spec->line,
                                 "key '%s.choices': expected a list of strings", path);
          return NULL;
        }
      choices = g_new0 (const char *, ch->items->len + 1);
      g_ptr_array_add (sec->allocs, choices);
      for (guint k = 0; k < ch->items->len; k++)
        {
          const char *c = msperf_value_get_string (g_ptr_array_index (ch->items, k));
          if (c == NULL)
            {
              msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, spec->line,
                                     "key '%s.choices': expected a list of strings", path);
              return NULL;
            }
          choices[k] = keep (sec->allocs, c);
        }
      node->kind = S_ENUM;
      node->choices = choices;
    }
  return node;
}

/* One block "interpolation.<key>: {KEY: SPEC, …}" of a declaration. */
static section *
declared_section (msperf_policy *p, const char *owner, const char *file, const char *path,
                  const msperf_value *block, GError **error)
{
  g_autoptr (GPtrArray) hold = g_ptr_array_new_with_free_func (section_free);
  const char *key = path + strlen ("interpolation.");
  const section *other = NULL;
  section *sec;
  field *fields;
  vctx c = { file, FALSE, NULL, NULL };

  if (!g_str_has_prefix (path, "interpolation.") || *key == '\0' || strchr (key, '.') != NULL)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, block->line,
                             "block '%s': a module declares interpolation.<name> blocks only",
                             path);
      return NULL;
    }
  if (field_schema (&s_interpolation, key) != NULL || (other = find_section (p, key)) != NULL)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, block->line,
                             "block '%s' is already declared by %s", path,
                             field_schema (&s_interpolation, key) ? "the core" : other->owner);
      return NULL;
    }
  if (block->kind != MSPERF_VALUE_MAP)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, block->line,
                             "block '%s': expected a mapping of keys", path);
      return NULL;
    }
  sec = g_new0 (section, 1);
  g_ptr_array_add (hold, sec);
  sec->owner = g_strdup (owner);
  sec->key = g_strdup (key);
  sec->allocs = g_ptr_array_new_with_free_func (g_free);
  sec->defaults = msperf_value_new (MSPERF_VALUE_MAP);
  sec->s = g_new0 (schema, 1);
  g_ptr_array_add (sec->allocs, sec->s);
  fields = g_new0 (field, block->keys->len + 1);
  g_ptr_array_add (sec->allocs, fields);
  sec->s->kind = S_MAP;
  sec->s->fields = fields;
  for (guint k = 0; k < block->keys->len; k++)
    {
      const char *name = g_ptr_array_index (block->keys, k);
      const msperf_value *spec = g_ptr_array_index (block->items, k);
      g_autofree char *sub = join_path (path, name);
      const msperf_value *def;
      schema *node = declared_node (sec, file, sub, spec, error);

      if (node == NULL)
        return NULL;
      fields[k].name = keep (sec->allocs, name);
      fields[k].s = node;
      /* A key without default is absent until a policy sets it. */
      def = msperf_value_lookup (spec, "default");
      if (def != NULL)
        {
          msperf_value *checked = validate (&c, node, def, sub, error);
          if (checked == NULL)
            return NULL;
          msperf_value_map_set (sec->defaults, name, checked);
        }
    }
  return g_ptr_array_steal_index (hold, 0);
}

gboolean
msperf_policy_declare (msperf_policy *p, const char *owner, const char *text, GError **error)
{
  g_autofree char *file = NULL;
  g_autoptr (msperf_value) doc = NULL;
  g_autoptr (GPtrArray) added = g_ptr_array_new_with_free_func (section_free);

  g_return_val_if_fail (p != NULL && owner != NULL && text != NULL && !p->sealed, FALSE);
  file = g_strdup_printf ("module %s: policy_schema", owner);
  doc = msperf_yaml_load_data (text, strlen (text), file, error);
  if (doc == NULL)
    return FALSE;
  if (doc->kind != MSPERF_VALUE_MAP)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, file, doc->line,
                             "expected a mapping of interpolation.<name> blocks");
      return FALSE;
    }
  for (guint k = 0; k < doc->keys->len; k++)
    {
      section *sec = declared_section (p, owner, file, g_ptr_array_index (doc->keys, k),
                                       g_ptr_array_index (doc->items, k), error);
      if (sec == NULL)
        return FALSE;
      g_ptr_array_add (added, sec);
    }
  /* All or nothing: a bad block leaves the policy as it was. */
  while (added->len > 0)
    g_ptr_array_add (p->sections, g_ptr_array_steal_index (added, 0));
  return TRUE;
}

/* Validates one pending block against its declaration and merges it; FALSE (error set) when a
 * strict layer has a problem. */
static gboolean
seal_pending (msperf_policy *p, const pending *pd, msperf_value *interp, GPtrArray *warnings,
              GError **error)
{
  vctx c = { pd->file, pd->lenient, warnings, p };
  const section *sec = find_section (p, pd->key);
  g_autofree char *path = join_path (pd->parent, pd->key);
  g_autoptr (msperf_value) checked = NULL;
  GError *local = NULL;
  msperf_value *cur;

  if (sec == NULL)
    {
      char *msg = msperf_yaml_format_message (pd->file, pd->value->line,
                                              "unknown key '%s' in '%s'", pd->key, pd->parent);
      if (!pd->lenient)
        {
          g_set_error_literal (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, msg);
          g_free (msg);
          return FALSE;
        }
      add_warning (&c, msg);
      return TRUE;
    }
  checked = validate (&c, sec->s, pd->value, path, &local);
  if (checked == NULL)
    {
      if (!pd->lenient)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      add_warning (&c, g_strdup_printf ("%s (ignored)", local->message));
      g_error_free (local);
      return TRUE;
    }
  cur = (msperf_value *) msperf_value_lookup (interp, pd->key);
  if (cur != NULL && cur->kind == MSPERF_VALUE_MAP)
    merge_into (cur, checked);
  else
    msperf_value_map_set (interp, pd->key, g_steal_pointer (&checked));
  return TRUE;
}

gboolean
msperf_policy_seal (msperf_policy *p, GPtrArray *warnings, GError **error)
{
  msperf_value *interp;

  g_return_val_if_fail (p != NULL && !p->sealed, FALSE);
  interp = (msperf_value *) msperf_value_lookup (p->root, "interpolation");
  for (guint k = 0; k < p->pending->len; k++)
    if (!seal_pending (p, g_ptr_array_index (p->pending, k), interp, warnings, error))
      return FALSE;
  g_ptr_array_set_size (p->pending, 0);
  /* The declared defaults, below every layer: only where no layer set the key. */
  for (guint k = 0; k < p->sections->len; k++)
    {
      const section *sec = g_ptr_array_index (p->sections, k);
      msperf_value *block;

      if (sec->defaults->keys->len == 0)
        continue;
      block = (msperf_value *) msperf_value_lookup (interp, sec->key);
      if (block == NULL || block->kind != MSPERF_VALUE_MAP)
        {
          msperf_value_map_set (interp, sec->key, msperf_value_new (MSPERF_VALUE_MAP));
          block = (msperf_value *) msperf_value_lookup (interp, sec->key);
        }
      for (guint i = 0; i < sec->defaults->keys->len; i++)
        if (msperf_value_lookup (block, g_ptr_array_index (sec->defaults->keys, i)) == NULL)
          msperf_value_map_set (block, g_ptr_array_index (sec->defaults->keys, i),
                                msperf_value_copy (g_ptr_array_index (sec->defaults->items, i)));
    }
  p->sealed = TRUE;
  return TRUE;
}

gboolean
msperf_policy_set_default (msperf_policy *p, const char *dotted_path, msperf_value *value)
{
  g_autofree char *parent_path = NULL;
  const char *dot;
  msperf_value *parent;

  g_return_val_if_fail (p != NULL && dotted_path != NULL && value != NULL, FALSE);
  dot = strrchr (dotted_path, '.');
  parent_path = dot ? g_strndup (dotted_path, (gsize) (dot - dotted_path)) : g_strdup ("");
  parent = (msperf_value *) msperf_policy_get (p, parent_path);
  if (parent == NULL || parent->kind != MSPERF_VALUE_MAP
      || msperf_value_lookup (parent, dot ? dot + 1 : dotted_path) != NULL)
    {
      msperf_value_free (value);
      return FALSE;
    }
  msperf_value_map_set (parent, dot ? dot + 1 : dotted_path, value);
  return TRUE;
}

static void
clear_lines (msperf_value *v)
{
  v->line = 0;
  for (guint k = 0; v->items && k < v->items->len; k++)
    clear_lines (g_ptr_array_index (v->items, k));
}

gboolean
msperf_policy_set (msperf_policy *p, const char *dotted_key, const char *scalar, GError **error)
{
  g_auto (GStrv) parts = NULL;
  g_autoptr (msperf_value) tree = NULL;
  msperf_value *leaf;
  guint n;

  g_return_val_if_fail (p != NULL && dotted_key != NULL && scalar != NULL, FALSE);
  parts = g_strsplit (dotted_key, ".", -1);
  n = g_strv_length (parts);
  for (guint k = 0; k < n; k++)
    if (*parts[k] == '\0')
      {
        msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, "command line", 0,
                               "bad policy key '%s'", dotted_key);
        return FALSE;
      }
  if (n == 0)
    {
      msperf_yaml_set_error (error, MSPERF_ERROR_INVALID, "command line", 0, "empty policy key");
      return FALSE;
    }
  leaf = msperf_yaml_load_data (scalar, strlen (scalar), "command line", error);
  if (leaf == NULL)
    return FALSE;
  clear_lines (leaf);
  /* Wrap the value in one mapping per key part, innermost first. */
  tree = leaf;
  for (guint k = n; k-- > 0;)
    {
      msperf_value *map = msperf_value_new (MSPERF_VALUE_MAP);
      g_ptr_array_add (map->keys, g_strdup (parts[k]));
      g_ptr_array_add (map->items, g_steal_pointer (&tree));
      tree = map;
    }
  return merge_tree (p, tree, "command line", error);
}

const msperf_value *
msperf_policy_get (const msperf_policy *p, const char *dotted_path)
{
  const msperf_value *v;
  const char *seg = dotted_path;

  g_return_val_if_fail (p != NULL && dotted_path != NULL, NULL);
  v = p->root;
  /* Segment by segment without splitting the path: policies are read on every answer. The
   * empty path is the root (g_strsplit's empty vector, as before). */
  while (v != NULL && *dotted_path != '\0')
    {
      const char *dot = strchr (seg, '.');
      size_t len = dot ? (size_t) (dot - seg) : strlen (seg);
      char small[128];

      if (len < sizeof small)
        {
          memcpy (small, seg, len);
          small[len] = '\0';
          v = msperf_value_lookup (v, small);
        }
      else
        {
          g_autofree char *key = g_strndup (seg, len);
          v = msperf_value_lookup (v, key);
        }
      if (dot == NULL)
        break;
      seg = dot + 1;
    }
  return v;
}

const msperf_value *
msperf_policy_root (const msperf_policy *p)
{
  g_return_val_if_fail (p != NULL, NULL);
  return p->root;
}

GHashTable *
msperf_policy_disabled_modules (const msperf_policy *p)
{
  GHashTable *out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  const msperf_value *modules;

  g_return_val_if_fail (p != NULL, out);
  modules = msperf_value_lookup (p->root, "modules");
  for (guint k = 0; modules && modules->keys && k < modules->keys->len; k++)
    {
      const msperf_value *enabled = msperf_value_lookup (g_ptr_array_index (modules->items, k),
                                                         "enabled");
      if (enabled != NULL && enabled->kind == MSPERF_VALUE_BOOL && !enabled->b)
        g_hash_table_replace (out, g_strdup (g_ptr_array_index (modules->keys, k)),
                              g_strdup ("disabled by policy"));
    }
  return out;
}

const GPtrArray *
msperf_policy_warnings (const msperf_policy *p)
{
  g_return_val_if_fail (p != NULL, NULL);
  return p->warnings;
}

/* ------------------------------------------------------------------ canonical JSON */

/* Canonical strings are the JSON writer's (msperf_fmt_json_string: the same escapes, and a
 * byte that is not UTF-8 as \xNN so the canonical text stays valid JSON). */
static void
json_string (GString *out, const char *s)
{
  msperf_fmt_json_string (out, s);
}

/* Shortest "%.Ng" that reads back as the same double. */
static void
json_double (GString *out, double d)
{
  char buf[64];

  if (!isfinite (d))
    {
      g_string_append (out, "null");
      return;
    }
  for (int prec = 1; prec <= 17; prec++)
    {
      snprintf (buf, sizeof buf, "%.*g", prec, d);
      /* snprintf follows LC_NUMERIC; msperf never changes it from "C", but be safe. */
      for (char *c = buf; *c; c++)
        if (*c == ',')
          *c = '.';
      if (g_ascii_strtod (buf, NULL) == d)
        break;
    }
  g_string_append (out, buf);
}

static int
compare_keys (gconstpointer a, gconstpointer b, gpointer keys)
{
  guint ia = *(const guint *) a, ib = *(const guint *) b;
  return strcmp (g_ptr_array_index ((GPtrArray *) keys, ia),
                 g_ptr_array_index ((GPtrArray *) keys, ib));
}

static void
json_value (GString *out, const msperf_value *v)
{
  switch (v->kind)
    {
    case MSPERF_VALUE_NONE:
      g_string_append (out, "null");
      break;
    case MSPERF_VALUE_BOOL:
      g_string_append (out, v->b ? "true" : "false");
      break;
    case MSPERF_VALUE_INT:
      g_string_append_printf (out, "%" PRId64, v->i);
      break;
    case MSPERF_VALUE_FLOAT:
      json_double (out, v->f);
      break;
    case MSPERF_VALUE_STRING:
      json_string (out, v->s ? v->s : "");
      break;
    case MSPERF_VALUE_LIST:
      g_string_append_c (out, '[');
      for (guint k = 0; k < v->items->len; k++)
        {
          if (k > 0)
            g_string_append_c (out, ',');
          json_value (out, g_ptr_array_index (v->items, k));
        }
      g_string_append_c (out, ']');
      break;
    case MSPERF_VALUE_MAP:
      {
        g_autofree guint *order = g_new (guint, v->keys->len + 1);
        for (guint k = 0; k < v->keys->len; k++)
          order[k] = k;
        g_qsort_with_data (order, (gint) v->keys->len, sizeof (guint), compare_keys, v->keys);
        g_string_append_c (out, '{');
        for (guint k = 0; k < v->keys->len; k++)
          {
            if (k > 0)
              g_string_append_c (out, ',');
            json_string (out, g_ptr_array_index (v->keys, order[k]));
            g_string_append_c (out, ':');
            json_value (out, g_ptr_array_index (v->items, order[k]));
          }
        g_string_append_c (out, '}');
        break;
      }
    case MSPERF_VALUE_TENSOR:
    default:
      g_string_append (out, "null");   /* policies never hold tensors */
      break;
    }
}

char *
msperf_value_canonical_json (const msperf_value *v)
{
  GString *out = g_string_new (NULL);

  if (v == NULL)
    g_string_append (out, "null");
  else
    json_value (out, v);
  return g_string_free (out, FALSE);
}

char *
msperf_policy_canonical_json (const msperf_policy *p)
{
  g_return_val_if_fail (p != NULL, NULL);
  return msperf_value_canonical_json (p->root);
}

char *
msperf_policy_hash (const msperf_policy *p)
{
  g_autofree char *json = NULL;

  g_return_val_if_fail (p != NULL, NULL);
  if (msperf_value_lookup (p->root, "cache") == NULL
      && msperf_value_lookup (p->root, "model") == NULL)
    json = msperf_policy_canonical_json (p);
  else
    {
      /* The cache sizes and the model-level settings change no op's answer: a policy that
       * sets them hashes as one that does not (answers carry the hash, and must not differ
       * by them). */
      g_autoptr (msperf_value) rest = msperf_value_new (MSPERF_VALUE_MAP);

      for (guint k = 0; k < p->root->keys->len; k++)
        if (strcmp (g_ptr_array_index (p->root->keys, k), "cache") != 0
            && strcmp (g_ptr_array_index (p->root->keys, k), "model") != 0)
          msperf_value_map_set (rest, g_ptr_array_index (p->root->keys, k),
                                msperf_value_copy (g_ptr_array_index (p->root->items, k)));
      json = msperf_value_canonical_json (rest);
    }
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, json, -1);
}
