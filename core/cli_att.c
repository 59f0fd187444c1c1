/* msperf — `msperf att cast|broadcast|duplicate`: one ATT model run from the command line
 * (FORMATS §5 ATT output, §5.2). Text shows the ledger, the expression, the ternary definitions
 * and the value when every symbol is bound; json prints one object. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <msperf/att.h>
#include <msperf/expr.h>

#include "cli.h"
#include "numfmt.h"
#include "../plugins/cast_att/cast_model.h"

/* "a,b,64" as a LIST of STRING values (entries are checked by the model). */
static msperf_value *
list_value (const char *text)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);

  for (char **p = parts; *p != NULL; p++)
    {
      msperf_value *s = msperf_value_new (MSPERF_VALUE_STRING);
      s->s = g_strstrip (g_strdup (*p));
      msperf_value_list_append (list, s);
    }
  return list;
}

static void
set_string (msperf_value *map, const char *key, const char *text)
{
  msperf_value *s = msperf_value_new (MSPERF_VALUE_STRING);

  s->s = g_strdup (text);
  msperf_value_map_set (map, key, s);
}

/* --bind SYM=V (V an integer or a number) into name → expression. */
static gboolean
parse_bindings (msperf_expr_ctx *ctx, char **binds, GHashTable *into, GError **error)
{
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
        g_hash_table_replace (into, g_strdup (name), msperf_expr_int (ctx, i));
      else if ((d = g_ascii_strtod (eq + 1, &end)), end != eq + 1 && *end == '\0')
        g_hash_table_replace (into, g_strdup (name), msperf_expr_double (ctx, d));
      else
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "--bind '%s': '%s' is not a number", *b, eq + 1);
          return FALSE;
        }
    }
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
  static const char *const heads[] = { "call_site", "real_api", "mode", "perf_type",
                                       "perf_dtype", "count", "latency", "throughput", "note" };
  enum { N_COLS = G_N_ELEMENTS (heads) };
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  size_t width[N_COLS];
  GString *buf = g_string_new (NULL);

  for (size_t c = 0; c < N_COLS; c++)
    width[c] = strlen (heads[c]);
  for (guint i = 0; i < ledger->items->len; i++)
    {
      const msperf_value *row = g_ptr_array_index (ledger->items, i);
      const msperf_value *comps = msperf_value_lookup (row, "perf_components");

      for (guint j = 0; comps != NULL && j < comps->items->len; j++)
        {
          const msperf_value *comp = g_ptr_array_index (comps->items, j);
          char **line = g_new0 (char *, N_COLS + 1);
          const msperf_value *missing = msperf_value_lookup (comp, "no_table_entry");
          const char *matched = msperf_value_get_string (msperf_value_lookup (comp, "matched"));

          line[0] = g_strdup (cell (row, "call_site", buf));
          line[1] = g_strdup (cell (row, "real_api", buf));
          line[2] = g_strdup (cell (row, "mode", buf));
          line[3] = g_strdup (cell (comp, "perf_type", buf));
          line[4] = g_strdup (cell (comp, "perf_dtype", buf));
          line[5] = g_strdup (cell (comp, "component_count", buf));
          line[6] = g_strdup (cell (comp, "latency", buf));
          line[7] = g_strdup (cell (comp, "throughput", buf));
          line[8] = missing != NULL && missing->b ? g_strdup ("no_table_entry (adds nothing)")
                    : matched != NULL ? g_strdup_printf ("row %s", matched) : g_strdup ("");
          for (size_t c = 0; c < N_COLS; c++)
            width[c] = MAX (width[c], strlen (line[c]));
          g_ptr_array_add (lines, line);
        }
    }
  g_string_free (buf, TRUE);
  for (size_t c = 0; c < N_COLS; c++)
    pad (out, heads[c], c + 1 < N_COLS ? width[c] : 0);
  for (guint i = 0; i < lines->len; i++)
    {
      char **line = g_ptr_array_index (lines, i);
      for (size_t c = 0; c < N_COLS; c++)
        pad (out, line[c], c + 1 < N_COLS ? width[c] : 0);
    }
}

static void
print_text (GString *out, const cast_att_params *p, const cast_att_model *m,
            const msperf_value *report)
{
  const msperf_value *ternaries = msperf_value_lookup (report, "ternaries");
  const msperf_value *value = msperf_value_lookup (report, "value");
  g_auto (GStrv) unbound = msperf_expr_free_symbols (m->cost, TRUE);

  g_string_append_printf (out, "ATT Cast V2: %s -> %s (branch %s)\n\n", p->in_dtype,
                          p->out_dtype, m->branch);
  print_ledger (out, msperf_value_lookup (report, "ledger"));
  g_string_append_printf (out, "\nrepeat time R: %s\ncall count C:  %s\n",
                          msperf_expr_str (m->repeat), msperf_expr_str (m->call_count));
  g_string_append_printf (out, "\nexpression:         %s\n",
                          msperf_value_get_string (msperf_value_lookup (report, "expression")));
  g_string_append_printf (out, "expression_inlined: %s\n",
                          msperf_value_get_string (msperf_value_lookup (report,
                                                                        "expression_inlined")));
  if (ternaries->keys->len > 0)
    {
      g_string_append (out, "\nternaries:\n");
      for (guint i = 0; i < ternaries->keys->len; i++)
        g_string_append_printf (out, "  %s = %s\n", (char *) g_ptr_array_index (ternaries->keys, i),
                                ((msperf_value *) g_ptr_array_index (ternaries->items, i))->s);
    }
  g_string_append (out, "\nvalue: ");
  if (value->kind == MSPERF_VALUE_NONE)
    {
      g_autofree char *names = g_strjoinv (", ", unbound);
      g_string_append_printf (out, "unbound symbols: %s (bind them with --bind SYM=VALUE)\n",
                              names);
    }
  else
    {
      value_text (out, value);
      g_string_append (out, " cycles\n");
    }
}

static int
att_cast (char **owned_args)
{
  g_auto (GStrv) args = owned_args;
  g_autofree char *in = NULL, *out_dtype = NULL, *shape = NULL, *dims = NULL;
  g_autofree char *ostrides = NULL, *istrides = NULL, *format = NULL;
  g_auto (GStrv) binds = NULL;
  const GOptionEntry entries[] = {
    { "in-dtype", 0, 0, G_OPTION_ARG_STRING, &in, "Input dtype (float32, int8, …)", "T" },
    { "out-dtype", 0, 0, G_OPTION_ARG_STRING, &out_dtype, "Output dtype", "T" },
    { "shape", 0, 0, G_OPTION_ARG_STRING, &shape, "Input dims, integers or symbols", "D,…" },
    { "output-dims", 0, 0, G_OPTION_ARG_STRING, &dims, "CastExtend output_dims", "D,…" },
    { "output-strides", 0, 0, G_OPTION_ARG_STRING, &ostrides, "CastExtend output_strides", "S,…" },
    { "input-strides", 0, 0, G_OPTION_ARG_STRING, &istrides, "CastExtend input_strides", "S,…" },
    { "bind", 0, 0, G_OPTION_ARG_STRING_ARRAY, &binds, "Value of a symbol (repeatable)", "SYM=V" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, "text (default) or json", "FORMAT" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) octx = g_option_context_new ("— the ATT Cast V2 cost of one Cast");
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_value) att = msperf_value_new (MSPERF_VALUE_MAP);
  g_autoptr (msperf_value) report = NULL;
  g_autoptr (msperf_att_table) table = NULL;
  g_autoptr (msperf_expr_ctx) ctx = msperf_expr_ctx_new ();
  g_autoptr (GHashTable) bindings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GString) text = g_string_new (NULL);
  cast_att_params p;
  cast_att_model m = { 0 };
  int status = MSPERF_EXIT_PROBLEMS;

  g_option_context_add_main_entries (octx, entries, NULL);
  if (!g_option_context_parse_strv (octx, &args, &error))
    {
      fprintf (stderr, "msperf att cast: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  if (in == NULL || out_dtype == NULL || shape == NULL)
    {
      fprintf (stderr, "msperf att cast: --in-dtype, --out-dtype and --shape are required\n");
      return MSPERF_EXIT_USAGE;
    }
  if (format != NULL && strcmp (format, "text") != 0 && strcmp (format, "json") != 0)
    {
      fprintf (stderr, "msperf att cast: --format must be 'text' or 'json', not '%s'\n", format);
      return MSPERF_EXIT_USAGE;
    }
  if (args != NULL && args[0] != NULL && args[1] != NULL)
    {
      fprintf (stderr, "msperf att cast: unexpected argument '%s'\n", args[1]);
      return MSPERF_EXIT_USAGE;
    }
  if ((table = msperf_att_table_load_default (&error)) == NULL)
    {
      fprintf (stderr, "msperf att cast: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  if (!parse_bindings (ctx, binds, bindings, &error))
    {
      fprintf (stderr, "msperf att cast: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  set_string (att, "kind", "cast");
  set_string (att, "in_dtype", in);
  set_string (att, "out_dtype", out_dtype);
  msperf_value_map_set (att, "shape", list_value (shape));
  if (dims != NULL)
    msperf_value_map_set (att, "output_dims", list_value (dims));
  if (ostrides != NULL)
    msperf_value_map_set (att, "output_strides", list_value (ostrides));
  if (istrides != NULL)
    msperf_value_map_set (att, "input_strides", list_value (istrides));

  cast_att_params_init (&p);
  if (!cast_att_params_from_value (ctx, att, &p, &error) || !cast_att_run (table, ctx, &p, &m, &error)
      || (report = cast_att_report (ctx, &m, bindings, &error)) == NULL)
    {
      /* The model refused its parameters: exit 1 (FORMATS §5.2). */
      fprintf (stderr, "msperf att cast: %s\n", error->message);
      goto out;
    }
  if (format != NULL && strcmp (format, "json") == 0)
    {
      msperf_fmt_json_value (text, report, 2, 0);
      g_string_append_c (text, '\n');
    }
  else
    print_text (text, &p, &m, report);
  fputs (text->str, stdout);
  status = MSPERF_EXIT_OK;
out:
  cast_att_model_clear (&m);
  cast_att_params_clear (&p);
  return status;
}

int
msperf_cli_att (const msperf_cli_global *g, int argc, char **argv)
{
  g_auto (GStrv) args = NULL;
  const char *model;

  (void) g;
  if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    {
      fprintf (argc < 2 ? stderr : stdout,
               "Usage: msperf att cast|broadcast|duplicate [OPTION…]\n"
               "  cast       the ATT Cast V2 cost (run 'msperf att cast --help')\n"
               "  broadcast  the BroadcastExtend cost (not implemented yet)\n"
               "  duplicate  the Duplicate cost (not implemented yet)\n");
      return argc < 2 ? MSPERF_EXIT_USAGE : MSPERF_EXIT_OK;
    }
  model = argv[1];
  if (strcmp (model, "cast") == 0)
    {
      /* GOption wants the program name first: "msperf att cast" then the options. */
      args = g_new0 (char *, (gsize) argc + 1);
      args[0] = g_strdup ("msperf att cast");
      for (int i = 2; i < argc; i++)
        args[i - 1] = g_strdup (argv[i]);
      return att_cast (g_steal_pointer (&args));
    }
  if (strcmp (model, "broadcast") == 0 || strcmp (model, "duplicate") == 0)
    {
      fprintf (stderr, "msperf att %s: not implemented yet\n", model);
      return MSPERF_EXIT_USAGE;
    }
  fprintf (stderr, "msperf att: unknown model '%s' (cast, broadcast, duplicate)\n", model);
  return MSPERF_EXIT_USAGE;
}
