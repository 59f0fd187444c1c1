/* msperf — `msperf att cast|broadcast|duplicate`: one ATT model run from the command line
 * (FORMATS §5 ATT output, §5.2). The core holds no module code: the command builds an op whose
 * `att` MAP is exactly what a trace line carries (FORMATS §2: kind cast, broadcast_extend or
 * duplicate; `--bind SYM=V` becomes `"bind": {"SYM": V}`), asks an engine, which routes it by
 * att.kind to the module's model slot, and prints what the module put in the result details.
 * Text shows the ledger, the expression, the ternary definitions and the value when every
 * symbol is bound; json prints one object. Exit 1 when the model refused its parameters
 * (REJECTED), 2 for usage and configuration errors (no module answering included). */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <msperf/engine.h>
#include <msperf/details.h>
#include <msperf/expr.h>
#include <msperf/op.h>

#include "cli/cli.h"
#include <msperf/format.h>
#include "cli/options.h"

/* The device profile when none is asked for: one without a vector clock, so the answer is
 * cycles only (latency null, reason no_vector_clock) without the default-device warning. */
#define ATT_NO_CLOCK_DEVICE "nvidia-h200"

/* "a,b,64" as a LIST of STRING values (entries are checked by the model). */
static msperf_value *
list_value (const char *text)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);

  for (char **p = parts; *p != NULL; p++)
    {
      g_autofree char *s = g_strstrip (g_strdup (*p));
      msperf_value_list_append (list, msperf_value_new_string (s));
    }
  return list;
}

/* --bind SYM=V into the att MAP's "bind" object (V an integer or a number). */
static gboolean
bind_value (char **binds, msperf_value **out, GError **error)
{
  g_autoptr (msperf_value) map = msperf_value_new (MSPERF_VALUE_MAP);

  for (char **b = binds; b != NULL && *b != NULL; b++)
    {
      const char *eq = strchr (*b, '=');
      g_autofree char *name = eq ? g_strndup (*b, (gsize) (eq - *b)) : NULL;
      gint64 i;
      double d;
      char *end = NULL;

      if (name == NULL || !msperf_expr_is_identifier (name))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "--bind '%s': expected SYM=VALUE", *b);
          return FALSE;
        }
      if (g_ascii_string_to_signed (eq + 1, 10, G_MININT64, G_MAXINT64, &i, NULL))
        msperf_value_map_set (map, name, msperf_value_new_int (i));
      else if ((d = g_ascii_strtod (eq + 1, &end)), end != eq + 1 && *end == '\0' && isfinite (d))
        msperf_value_map_set (map, name, msperf_value_new_double (d));
      else
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "--bind '%s': the value of %s, '%s', is not a finite number", *b, name,
                       eq + 1);
          return FALSE;
        }
    }
  *out = g_steal_pointer (&map);
  return TRUE;
}

static void
value_text (GString *out, const msperf_value *v)
{
  if (v->kind == MSPERF_VALUE_INT)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, v->i);
  else if (v->kind == MSPERF_VALUE_FLOAT)
    msperf_fmt_py_float (out, v->f);
  else if (v->kind == MSPERF_VALUE_STRING)
    g_string_append (out, v->s);
  else if (v->kind == MSPERF_VALUE_BOOL)
    g_string_append (out, v->b ? "yes" : "");
  else
    g_string_append (out, "-");
}

static const char *
cell (const msperf_value *map, const char *key, GString *buf)
{
  const msperf_value *v = msperf_value_lookup (map, key);

  g_string_truncate (buf, 0);
  if (v != NULL)
    value_text (buf, v);
  return buf->len > 0 ? buf->str : "-";
}

/* A cell padded to width plus two spaces; width 0 ends the line. */
static void
pad (GString *out, const char *s, size_t width)
{
  if (width == 0)
    {
      g_string_append_printf (out, "%s\n", s);
      return;
    }
  g_string_append_printf (out, "%-*s  ", (int) width, s);
}

/* The ledger as an aligned table: one line per table lookup. */
static void
print_ledger (GString *out, const msperf_value *ledger)
{
  static const char *const heads[] = { "call_site", "real_api", "data_dtype", "mode", "call_count",
                                       "perf_type", "perf_dtype", "count", "latency",
                                       "throughput", "note" };
  enum { N_COLS = G_N_ELEMENTS (heads) };
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  size_t width[N_COLS];
  g_autoptr (GString) buf = g_string_new (NULL);

  for (size_t c = 0; c < N_COLS; c++)
    width[c] = strlen (heads[c]);
  for (guint i = 0; ledger != NULL && i < ledger->items->len; i++)
    {
      const msperf_value *row = g_ptr_array_index (ledger->items, i);
      const msperf_value *comps = msperf_value_lookup (row, "perf_components");

      for (guint j = 0; comps != NULL && j < comps->items->len; j++)
        {
          const msperf_value *comp = g_ptr_array_index (comps->items, j);
          char **line = g_new0 (char *, N_COLS + 1);
          const msperf_value *missing = msperf_value_lookup (comp, "no_table_entry");
          const char *matched = msperf_value_get_string (msperf_value_lookup (comp, "matched"));
          const char *params = msperf_value_get_string (msperf_value_lookup (row, "api_params"));

          line[0] = g_strdup (cell (row, "call_site", buf));
          line[1] = g_strdup (cell (row, "real_api", buf));
          line[2] = g_strdup (cell (row, "data_dtype", buf));
          line[3] = g_strdup (cell (row, "mode", buf));
          line[4] = g_strdup (cell (row, "call_count", buf));
          line[5] = g_strdup (cell (comp, "perf_type", buf));
          line[6] = g_strdup (cell (comp, "perf_dtype", buf));
          line[7] = g_strdup (cell (comp, "component_count", buf));
          line[8] = g_strdup (cell (comp, "latency", buf));
          line[9] = g_strdup (cell (comp, "throughput", buf));
          line[10] = missing != NULL && missing->b ? g_strdup ("no_table_entry (adds nothing)")
                     : matched != NULL ? g_strdup_printf ("row %s", matched)
                     : params != NULL ? g_strdup (params) : g_strdup ("");
          for (size_t c = 0; c < N_COLS; c++)
            width[c] = MAX (width[c], strlen (line[c]));
          g_ptr_array_add (lines, line);
        }
    }
  for (size_t c = 0; c < N_COLS; c++)
    pad (out, heads[c], c + 1 < N_COLS ? width[c] : 0);
  for (guint i = 0; i < lines->len; i++)
    {
      char **line = g_ptr_array_index (lines, i);
      for (size_t c = 0; c < N_COLS; c++)
        pad (out, line[c], c + 1 < N_COLS ? width[c] : 0);
    }
}

/* Symbol names among the att parameters that --bind left unbound (for the text hint). */
static void
unbound_symbols (const msperf_value *v, const msperf_value *bind, GPtrArray *into)
{
  const char *s = msperf_value_get_string (v);

  if (s != NULL && msperf_expr_is_identifier (s) && msperf_value_lookup (bind, s) == NULL)
    {
      for (guint i = 0; i < into->len; i++)
        if (strcmp (g_ptr_array_index (into, i), s) == 0)
          return;
      g_ptr_array_add (into, (gpointer) s);
    }
  if (v->kind == MSPERF_VALUE_LIST)
    for (guint i = 0; i < v->items->len; i++)
      unbound_symbols (g_ptr_array_index (v->items, i), bind, into);
}

static void
print_text (GString *out, const char *title, const msperf_op *op, const msperf_result *r)
{
  const msperf_value *d = msperf_result_details (r);
  const msperf_value *ternaries = msperf_value_lookup (d, "ternaries");
  const msperf_value *value = msperf_value_lookup (d, "value");
  const char *rep = msperf_value_get_string (msperf_value_lookup (d, "repeat_time"));
  const char *calls = msperf_value_get_string (msperf_value_lookup (d, "call_count"));
  const msperf_value *launches = msperf_value_lookup (d, "vf_launches");
  g_autoptr (GString) buf = g_string_new (NULL);

  g_string_append_printf (out, "%s (branch %s)\n\n", title, cell (d, "att_branch", buf));
  /* A parameter set the model did not trust (Cast's fallback to the shape product). */
  if (msperf_value_lookup (d, "warning") != NULL)
    g_string_append_printf (out, "warning: %s\n\n", cell (d, "warning", buf));
  print_ledger (out, msperf_value_lookup (d, "ledger"));
  if (rep != NULL && calls != NULL)
    g_string_append_printf (out, "\nrepeat time R: %s\ncall count C:  %s\n", rep, calls);
  g_string_append_printf (out, "\nexpression:         %s\n", cell (d, "expression", buf));
  g_string_append_printf (out, "expression_inlined: %s\n", cell (d, "expression_inlined", buf));
  if (ternaries != NULL && ternaries->keys->len > 0)
    {
      g_string_append (out, "\nternaries:\n");
      for (guint i = 0; i < ternaries->keys->len; i++)
        g_string_append_printf (out, "  %s = %s\n", (char *) g_ptr_array_index (ternaries->keys, i),
                                ((msperf_value *) g_ptr_array_index (ternaries->items, i))->s);
    }
  if (launches != NULL)
    g_string_append_printf (out, "\nvf_launches: %s\n", cell (d, "vf_launches", buf));
  g_string_append (out, "\nvalue: ");
  if (value == NULL || value->kind == MSPERF_VALUE_NONE)
    {
      g_autoptr (GPtrArray) names = g_ptr_array_new ();
      const msperf_value *bind = msperf_value_lookup (op->att, "bind");
      g_autofree char *joined = NULL;

      /* the sizes: shape lists and the Duplicate sizes (not dtypes or kinds) */
      for (guint i = 0; i < op->att->items->len; i++)
        {
          const char *key = g_ptr_array_index (op->att->keys, i);
          const msperf_value *v = g_ptr_array_index (op->att->items, i);
          if (v->kind == MSPERF_VALUE_LIST || strcmp (key, "count") == 0
              || strcmp (key, "dst_view_size") == 0)
            unbound_symbols (v, bind, names);
        }
      g_ptr_array_add (names, NULL);
      joined = g_strjoinv (", ", (char **) names->pdata);
      g_string_append_printf (out, "unbound symbols: %s (bind them with --bind SYM=VALUE)\n",
                              joined);
      return;
    }
  value_text (out, value);
  g_string_append (out, " cycles\n");
  if (isnan (r->latency_us))
    g_string_append_printf (out, "latency: - (%s)\n", r->miss_reason ? r->miss_reason : "-");
  else
    {
      g_string_append (out, "latency: ");
      msperf_fmt_py_float (out, r->latency_us);
      g_string_append (out, " us\n");
    }
}

/* The json object: the §5 ATT keys from the details, then cycles, latency and its reason. */
static void
print_json (GString *out, const msperf_result *r)
{
  static const char *const keys[] = { "expression", "expression_inlined", "value", "ternaries",
                                      "ledger", "vf_launches", "att_kind", "att_branch",
                                      "branches", "repeat_time", "call_count", "cycles",
                                      "warning" };
  g_autoptr (msperf_value) obj = msperf_value_new (MSPERF_VALUE_MAP);

  for (size_t i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const msperf_value *v = msperf_value_lookup (msperf_result_details (r), keys[i]);
      if (v != NULL)
        msperf_value_map_set (obj, keys[i], msperf_value_copy (v));
    }
  msperf_value_map_set (obj, "latency_us", isnan (r->latency_us)
                                           ? msperf_value_new (MSPERF_VALUE_NONE)
                                           : msperf_value_new_double (r->latency_us));
  msperf_value_map_set (obj, "reason", msperf_value_new_string (r->miss_reason));
  msperf_fmt_json_value (out, obj, 2, 0);
  g_string_append_c (out, '\n');
}

typedef struct {
  const char *cmd;              /* "msperf att cast" */
  char **binds;
  char *format;
  char *device;
} att_common;

/* Asks an engine for the op and prints the answer. */
static int
answer (const msperf_cli_global *g, const att_common *o, msperf_op *op, const char *title)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_engine) e = msperf_engine_new ();
  g_autoptr (msperf_result) r = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  msperf_value *bind = NULL;

  if (o->format != NULL && strcmp (o->format, "text") != 0 && strcmp (o->format, "json") != 0)
    {
      fprintf (stderr, "%s: --format must be 'text' or 'json', not '%s'\n", o->cmd, o->format);
      return MSPERF_EXIT_USAGE;
    }
  if (!bind_value (o->binds, &bind, &error))
    {
      fprintf (stderr, "%s: %s\n", o->cmd, error->message);
      return MSPERF_EXIT_USAGE;
    }
  if (bind->keys->len > 0)
    msperf_value_map_set (op->att, "bind", bind);
  else
    msperf_value_free (bind);
  for (char **d = g->plugin_dirs; d && *d; d++)
    msperf_engine_add_plugin_dir (e, *d);
  if ((g->policy && !msperf_engine_load_policy (e, g->policy, &error))
      || ((o->device != NULL || g->policy == NULL)
          && !msperf_engine_set_device_profile (e, o->device ? o->device : ATT_NO_CLOCK_DEVICE,
                                                &error))
      || !msperf_engine_start (e, &error))
    {
      fprintf (stderr, "%s: %s\n", o->cmd, error->message);
      return MSPERF_EXIT_USAGE;
    }
  r = msperf_engine_query (e, op);
  if (r->source == MSPERF_SOURCE_REJECTED)
    {
      /* the model refused its parameters (FORMATS §5.2), --bind values included: the module
       * checks them as it does on every other path (msperf_att_bind_check) */
      fprintf (stderr, "%s: %s\n", o->cmd, r->miss_reason ? r->miss_reason : "refused");
      return MSPERF_EXIT_PROBLEMS;
    }
  if (g_strcmp0 (r->method, "att") != 0)
    {
      fprintf (stderr, "%s: no ATT module answered (%s)\n", o->cmd,
               r->miss_reason ? r->miss_reason : "unknown");
      return MSPERF_EXIT_USAGE;
    }
  if (o->format != NULL && strcmp (o->format, "json") == 0)
    print_json (text, r);
  else
    print_text (text, title, op, r);
  fputs (text->str, g->out);
  return MSPERF_EXIT_OK;
}

/* Parses a subcommand's options; FALSE (after a message) on a parse error, an extra argument
 * or a required option left unset (required: NULL-terminated, names: how the message lists
 * them). */
static gboolean
parse (char ***args, const GOptionEntry *entries, const char *summary, const char *cmd,
       char **const *required, const char *names)
{
  g_autoptr (GOptionContext) octx = g_option_context_new (summary);
  g_autoptr (GError) error = NULL;

  g_option_context_add_main_entries (octx, entries, NULL);
  if (!msperf_cli_check_options (cmd, entries, *args, &error)
      || !g_option_context_parse_strv (octx, args, &error))
    {
      fprintf (stderr, "%s: %s\n", cmd, error->message);
      return FALSE;
    }
  if (*args != NULL && (*args)[0] != NULL && (*args)[1] != NULL)
    {
      fprintf (stderr, "%s: unexpected argument '%s'\n", cmd, (*args)[1]);
      return FALSE;
    }
  for (size_t k = 0; required[k] != NULL; k++)
    if (*required[k] == NULL)
      {
        fprintf (stderr, "%s: %s are required\n", cmd, names);
        return FALSE;
      }
  return TRUE;
}

/* A new ATT parameter MAP of the given kind on op. Transfer none. */
static msperf_value *
att_of_kind (msperf_op *op, const char *kind)
{
  msperf_value_free (op->att);
  op->att = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value_map_set (op->att, "kind", msperf_value_new_string (kind));
  return op->att;
}

#define COMMON_ENTRIES(o)                                                                      \
  { "bind", 0, 0, G_OPTION_ARG_STRING_ARRAY, &(o).binds, "Value of a symbol (repeatable)",     \
    "SYM=V" },                                                                                 \
  { "format", 0, 0, G_OPTION_ARG_STRING, &(o).format, "text (default) or json", "FORMAT" },    \
  { "device-profile", 0, 0, G_OPTION_ARG_STRING, &(o).device,                                  \
    "Device profile whose vector clock turns cycles into µs (default: none, cycles only)",     \
    "NAME|FILE" }

static void
common_clear (att_common *o)
{
  g_strfreev (o->binds);
  g_free (o->format);
  g_free (o->device);
}

static int
att_cast (const msperf_cli_global *g, char **owned_args)
{
  g_auto (GStrv) args = owned_args;
  g_autofree char *in = NULL, *out_dtype = NULL, *shape = NULL, *dims = NULL;
  g_autofree char *ostrides = NULL, *istrides = NULL, *title = NULL;
  att_common o = { "msperf att cast", NULL, NULL, NULL };
  const GOptionEntry entries[] = {
    { "in-dtype", 0, 0, G_OPTION_ARG_STRING, &in, "Input dtype (float32, int8, …)", "T" },
    { "out-dtype", 0, 0, G_OPTION_ARG_STRING, &out_dtype, "Output dtype", "T" },
    { "shape", 0, 0, G_OPTION_ARG_STRING, &shape, "Input dims, integers or symbols", "D,…" },
    { "output-dims", 0, 0, G_OPTION_ARG_STRING, &dims, "CastExtend output_dims", "D,…" },
    { "output-strides", 0, 0, G_OPTION_ARG_STRING, &ostrides, "CastExtend output_strides", "S,…" },
    { "input-strides", 0, 0, G_OPTION_ARG_STRING, &istrides, "CastExtend input_strides", "S,…" },
    COMMON_ENTRIES (o),
    G_OPTION_ENTRY_NULL
  };
  char **const required[] = { &in, &out_dtype, &shape, NULL };
  g_autoptr (msperf_op) op = msperf_op_new ("ascir.Cast");
  int status = MSPERF_EXIT_USAGE;
  msperf_value *att;

  if (!parse (&args, entries, "— the ATT Cast V2 cost of one Cast", o.cmd, required,
              "--in-dtype, --out-dtype and --shape"))
    goto out;
  att = att_of_kind (op, "cast");
  msperf_value_map_set (att, "in_dtype", msperf_value_new_string (in));
  msperf_value_map_set (att, "out_dtype", msperf_value_new_string (out_dtype));
  msperf_value_map_set (att, "shape", list_value (shape));
  if (dims != NULL)
    msperf_value_map_set (att, "output_dims", list_value (dims));
  if (ostrides != NULL)
    msperf_value_map_set (att, "output_strides", list_value (ostrides));
  if (istrides != NULL)
    msperf_value_map_set (att, "input_strides", list_value (istrides));
  title = g_strdup_printf ("ATT Cast V2: %s -> %s", in, out_dtype);
  status = answer (g, &o, op, title);
out:
  common_clear (&o);
  return status;
}

static int
att_broadcast (const msperf_cli_global *g, char **owned_args)
{
  g_auto (GStrv) args = owned_args;
  g_autofree char *dtype = NULL, *dst = NULL, *src = NULL, *title = NULL;
  att_common o = { "msperf att broadcast", NULL, NULL, NULL };
  const GOptionEntry entries[] = {
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &dtype, "Element dtype (float16, int64, bool, …)", "T" },
    { "dst-shape", 0, 0, G_OPTION_ARG_STRING, &dst, "BroadcastExtend dst_shape, integers or "
      "symbols (rank 1..9)", "D,…" },
    { "src-shape", 0, 0, G_OPTION_ARG_STRING, &src, "BroadcastExtend src_shape (1 on broadcast "
      "axes)", "S,…" },
    COMMON_ENTRIES (o),
    G_OPTION_ENTRY_NULL
  };
  char **const required[] = { &dtype, &dst, &src, NULL };
  g_autoptr (msperf_op) op = msperf_op_new ("ascir.Broadcast");
  int status = MSPERF_EXIT_USAGE;
  msperf_value *att;

  if (!parse (&args, entries, "— the ATT Broadcast V2 cost of one BroadcastExtend", o.cmd,
              required, "--dtype, --dst-shape and --src-shape"))
    goto out;
  att = att_of_kind (op, "broadcast_extend");
  msperf_value_map_set (att, "dtype", msperf_value_new_string (dtype));
  msperf_value_map_set (att, "dst_shapes", list_value (dst));
  msperf_value_map_set (att, "src_shapes", list_value (src));
  title = g_strdup_printf ("ATT Broadcast V2: BroadcastExtend<%s> dst [%s] src [%s]", dtype, dst,
                           src);
  status = answer (g, &o, op, title);
out:
  common_clear (&o);
  return status;
}

static int
att_duplicate (const msperf_cli_global *g, char **owned_args)
{
  g_auto (GStrv) args = owned_args;
  g_autofree char *dtype = NULL, *count = NULL, *view = NULL, *kind = NULL, *title = NULL;
  att_common o = { "msperf att duplicate", NULL, NULL, NULL };
  const GOptionEntry entries[] = {
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &dtype, "Element dtype", "T" },
    { "count", 0, 0, G_OPTION_ARG_STRING, &count, "Duplicate count, an integer or a symbol", "C" },
    { "dst-view-size", 0, 0, G_OPTION_ARG_STRING, &view, "Size of the destination view "
      "(required for uint8)", "V" },
    { "source-kind", 0, 0, G_OPTION_ARG_STRING, &kind, "kConstant, kUbScalar, kTensorVecIn, "
      "kTensorVecCalc or kTensorOther (default)", "K" },
    COMMON_ENTRIES (o),
    G_OPTION_ENTRY_NULL
  };
  char **const required[] = { &dtype, &count, NULL };
  g_autoptr (msperf_op) op = msperf_op_new ("ascir.Broadcast");
  int status = MSPERF_EXIT_USAGE;
  msperf_value *att;

  if (!parse (&args, entries, "— the ATT Broadcast V2 cost of one standalone Duplicate", o.cmd,
              required, "--dtype and --count"))
    goto out;
  att = att_of_kind (op, "duplicate");
  msperf_value_map_set (att, "dtype", msperf_value_new_string (dtype));
  msperf_value_map_set (att, "count", msperf_value_new_string (count));
  if (view != NULL)
    msperf_value_map_set (att, "dst_view_size", msperf_value_new_string (view));
  if (kind != NULL)
    msperf_value_map_set (att, "source_kind", msperf_value_new_string (kind));
  title = g_strdup_printf ("ATT Broadcast V2: Duplicate<%s> count %s", dtype, count);
  status = answer (g, &o, op, title);
out:
  common_clear (&o);
  return status;
}

int
msperf_cli_att (const msperf_cli_global *g, int argc, char **argv)
{
  g_auto (GStrv) args = NULL;
  const char *model;

  if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    {
      fprintf (argc < 2 ? stderr : g->out,
               "Usage: msperf att cast|broadcast|duplicate [OPTION…]\n"
               "  cast       the ATT Cast V2 cost (run 'msperf att cast --help')\n"
               "  broadcast  the ATT Broadcast V2 cost of a BroadcastExtend\n"
               "  duplicate  the ATT Broadcast V2 cost of a standalone Duplicate\n");
      return argc < 2 ? MSPERF_EXIT_USAGE : MSPERF_EXIT_OK;
    }
  model = argv[1];
  /* GOption wants the program name first: "msperf att MODEL" then the options. */
  args = g_new0 (char *, (gsize) argc + 1);
  args[0] = g_strdup_printf ("msperf att %s", model);
  for (int i = 2; i < argc; i++)
    args[i - 1] = g_strdup (argv[i]);
  if (strcmp (model, "cast") == 0)
    return att_cast (g, g_steal_pointer (&args));
  if (strcmp (model, "broadcast") == 0)
    return att_broadcast (g, g_steal_pointer (&args));
  if (strcmp (model, "duplicate") == 0)
    return att_duplicate (g, g_steal_pointer (&args));
  fprintf (stderr, "msperf att: unknown model '%s' (cast, broadcast, duplicate)\n", model);
  return MSPERF_EXIT_USAGE;
}
