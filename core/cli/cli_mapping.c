/* msperf mapping — authoring an op_mapping.yaml: `mapping draft` proposes entries for the ops
 * of traces from the database's kernel tables, `mapping check` validates a mapping against the
 * contract (schema), its tables (lookup), the traces' ops (coverage) and answers them (smoke),
 * with a per-op report (doc/formats.md §1.5). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>
#include <msperf/msperf.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "app/trace/trace.h"

/* Ops that only change metadata: a draft proposes zero_cost for them. */
static const char *const metadata_ops[] = {
  "aten.view.default", "aten._unsafe_view.default", "aten.reshape.default", "aten.alias.default",
  "aten.expand.default", "aten.unsqueeze.default", "aten.squeeze.dim", "aten.permute.default",
  "aten.transpose.int", "aten.t.default", "aten.slice.Tensor", "aten.select.int",
  "aten.split.Tensor", "aten.detach.default", NULL
};

typedef struct op_stat {
  char *name;
  gint64 invocations;
  gint64 by_source[MSPERF_SOURCE_REJECTED + 1];
  double time_us;
  msperf_op *example;       /* the first invocation, for the draft */
} op_stat;

static void
op_stat_free (gpointer p)
{
  op_stat *s = p;

  g_free (s->name);
  if (s->example != NULL)
    msperf_op_free (s->example);
  g_free (s);
}

/* The distinct ops of the traces, first-seen order. */
static GPtrArray *
read_ops (char **traces, GError **error)
{
  g_autoptr (GPtrArray) ops = g_ptr_array_new_with_free_func (op_stat_free);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (char **t = traces; t && *t; t++)
    {
      msperf_trace_reader *r = msperf_trace_reader_open (*t, error);
      msperf_trace_item item = { 0 };

      if (r == NULL)
        return NULL;
      while (msperf_trace_reader_next (r, &item))
        {
          if (item.op != NULL)
            {
              op_stat *s = g_hash_table_lookup (seen, item.op->name);
              if (s == NULL)
                {
                  s = g_new0 (op_stat, 1);
                  s->name = g_strdup (item.op->name);
                  s->example = g_steal_pointer (&item.op);
                  g_ptr_array_add (ops, s);
                  g_hash_table_insert (seen, s->name, s);
                }
            }
          msperf_trace_item_clear (&item);
        }
      msperf_trace_reader_free (r);
    }
  return g_steal_pointer (&ops);
}

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* Kernel stems of the database directory (KERNEL.csv and KERNEL.csv.gz), sorted. */
static GPtrArray *
kernel_files (const char *dir)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      char *stem = NULL;
      if (g_str_has_suffix (name, ".csv"))
        stem = g_strndup (name, strlen (name) - 4);
      else if (g_str_has_suffix (name, ".csv.gz"))
        stem = g_strndup (name, strlen (name) - 7);
      if (stem != NULL)
        g_ptr_array_add (out, stem);
    }
  g_ptr_array_sort (out, cmp_str);
  return out;
}

static gboolean
in_array (const GPtrArray *a, const char *s)
{
  for (guint k = 0; k < a->len; k++)
    if (strcmp (g_ptr_array_index (a, k), s) == 0)
      return TRUE;
  return FALSE;
}

/* Every kernel an entry names: kernel_types (primary, alternates) and sub_kernels. */
static void
entry_kernels (const msperf_mapping_entry *e, GPtrArray *out)
{
  const msperf_value *subs = msperf_value_lookup (e->raw, "sub_kernels");

  const char *from = msperf_value_get_string (msperf_value_lookup (e->raw, "batched_from"));

  for (char **k = e->kernel_types; k && *k; k++)
    g_ptr_array_add (out, g_strdup (*k));
  if (from != NULL)
    g_ptr_array_add (out, g_strdup (from));
  if (subs != NULL && subs->kind == MSPERF_VALUE_LIST)
    for (guint i = 0; i < subs->items->len; i++)
      {
        const char *s = msperf_value_get_string (g_ptr_array_index (subs->items, i));
        if (s != NULL)
          g_ptr_array_add (out, g_strdup (s));
      }
}

/* ------------------------------------------------------------------ check */

static guint
check_schema (msperf_database *db, const char *yaml, GPtrArray *problems)
{
  const GPtrArray *entries = msperf_database_entries (db);
  const GPtrArray *warnings = msperf_database_warnings (db);
  guint before = problems->len;

  for (guint k = 0; k < warnings->len; k++)
    g_ptr_array_add (problems, g_strdup_printf ("schema: %s",
                                                (const char *) g_ptr_array_index (warnings, k)));
  for (guint k = 0; k < entries->len; k++)
    {
      const msperf_mapping_entry *e = g_ptr_array_index (entries, k);
      int kinds = (e->kernel_type != NULL) + (e->composite ? 1 : 0) + (e->zero_cost ? 1 : 0);

      if (kinds > 1)
        g_ptr_array_add (problems, g_strdup_printf (
          "schema: %s:%u: operator '%s': kernel_type, composite and zero_cost exclude each other",
          yaml, e->line, e->op_name));
      if (kinds == 0 && e->accepted_miss == NULL && e->query_mode == NULL)
        g_ptr_array_add (problems, g_strdup_printf (
          "schema: %s:%u: operator '%s': none of kernel_type, composite, zero_cost, "
          "accepted_miss", yaml, e->line, e->op_name));
      if (e->composite && msperf_value_lookup (e->raw, "sub_kernels") == NULL
          && msperf_value_lookup (e->raw, "decomposer") == NULL)
        g_ptr_array_add (problems, g_strdup_printf (
          "schema: %s:%u: operator '%s': composite without sub_kernels or decomposer", yaml,
          e->line, e->op_name));
      if (e->tc_input_count >= 0 && (e->kernel_type == NULL || e->tc_input_count < 1))
        g_ptr_array_add (problems, g_strdup_printf (
          "schema: %s:%u: operator '%s': tc_input_count (it only cuts the op's trailing internal "
          "parameters) needs a kernel_type and a value >= 1", yaml, e->line, e->op_name));
      if (msperf_value_lookup (e->raw, "batched_from") != NULL)
        {
          const char *from = msperf_value_get_string (msperf_value_lookup (e->raw,
                                                                           "batched_from"));
          g_autoptr (GError) terr = NULL;
          if (from == NULL || e->kernel_type == NULL
              || (e->query_mode != NULL && strcmp (e->query_mode, "compute") != 0))
            g_ptr_array_add (problems, g_strdup_printf (
              "schema: %s:%u: operator '%s': batched_from names the single-GEMM kernel of a "
              "compute entry with a kernel_type", yaml, e->line, e->op_name));
          else if (msperf_database_table (db, from, &terr) == NULL)
            g_ptr_array_add (problems, g_strdup_printf (
              "schema: %s:%u: operator '%s': batched_from '%s': no such kernel table", yaml,
              e->line, e->op_name, from));
        }
      if (g_strcmp0 (e->category, "communication") == 0)
        {
          const msperf_table *t;
          if (!msperf_database_kernel_is_collective (db, e->kernel_type))
            g_ptr_array_add (problems, g_strdup_printf (
              "schema: %s:%u: operator '%s': a communication entry's kernel_type must be a "
              "collective table (hcom_*), not '%s'", yaml, e->line, e->op_name,
              e->kernel_type ? e->kernel_type : "(none)"));
          else if ((t = msperf_database_table (db, e->kernel_type, NULL)) != NULL
                   && (msperf_table_column (t, "message_bytes") < 0
                       || msperf_table_column (t, "num_devices") < 0))
            g_ptr_array_add (problems, g_strdup_printf (
              "schema: %s:%u: operator '%s': %s has no message_bytes and num_devices columns "
              "(collectives are looked up by bytes and number of devices)", yaml, e->line,
              e->op_name, e->kernel_type));
        }
      /* An alternate is another implementation of the same op; the kernel another op maps
       * to (a fused super-op such as a GEMM + all-reduce) would answer with that op's work. */
      if (e->kernel_types != NULL && e->kernel_types[0] != NULL)
        for (char **alt = e->kernel_types + 1; *alt; alt++)
          for (guint j = 0; j < entries->len; j++)
            {
              const msperf_mapping_entry *c = g_ptr_array_index (entries, j);
              if (c != e && c->kernel_type != NULL && strcmp (c->kernel_type, *alt) == 0
                  && strcmp (c->kernel_type, e->kernel_type) != 0)
                {
                  g_ptr_array_add (problems, g_strdup_printf (
                    "schema: %s:%u: operator '%s': alternate '%s' is the kernel of operator "
                    "'%s' (no other op's kernel as an alternate)", yaml, e->line, e->op_name,
                    *alt, c->op_name));
                  break;
                }
            }
    }
  return problems->len - before;
}

static guint
check_lookup (msperf_database *db, const char *yaml, GPtrArray *problems, GPtrArray *used)
{
  const GPtrArray *entries = msperf_database_entries (db);
  guint before = problems->len;

  for (guint k = 0; k < entries->len; k++)
    {
      const msperf_mapping_entry *e = g_ptr_array_index (entries, k);
      g_autoptr (GPtrArray) ks = g_ptr_array_new_with_free_func (g_free);

      entry_kernels (e, ks);
      for (guint j = 0; j < ks->len; j++)
        {
          const char *kernel = g_ptr_array_index (ks, j);
          g_autoptr (GError) error = NULL;
          const char *window = msperf_value_get_string (msperf_value_lookup (e->raw,
                                                                             "window_kernel_type"));
          /* The primary and the window kernel must exist; an alternate may be absent. */
          gboolean primary = (e->kernel_type != NULL && strcmp (kernel, e->kernel_type) == 0)
                             || g_strcmp0 (kernel, window) == 0;

          if (!in_array (used, kernel))
            g_ptr_array_add (used, g_strdup (kernel));
          if (msperf_database_table (db, kernel, &error) == NULL
              && (primary || !g_error_matches (error, MSPERF_ERROR_DOMAIN,
                                               MSPERF_ERROR_NOT_FOUND)))
            g_ptr_array_add (problems, g_strdup_printf ("lookup: %s:%u: operator '%s': %s", yaml,
                                                        e->line, e->op_name, error->message));
        }
    }
  return problems->len - before;
}

static int
run_check (const msperf_cli_global *g, const char *database, char **traces, gboolean strict)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_database) db = NULL;
  g_autoptr (msperf_engine) e = NULL;
  g_autoptr (GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) used = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GPtrArray) ops = NULL;
  g_autofree char *yaml = NULL;
  guint unmapped = 0, n_schema, n_lookup;

  db = msperf_database_open (database, NULL, &error);
  if (db == NULL)
    {
      fprintf (stderr, "msperf mapping check: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  msperf_cli_declare_collectives (g, db);
  yaml = g_build_filename (database, "op_mapping.yaml", NULL);
  n_schema = check_schema (db, yaml, problems);
  n_lookup = check_lookup (db, yaml, problems, used);
  files = kernel_files (database);
  printf ("schema: %u problem(s); lookup: %u problem(s) in %u entries\n", n_schema, n_lookup,
          msperf_database_entries (db)->len);

  if (traces != NULL)
    {
      ops = read_ops (traces, &error);
      if (ops == NULL)
        {
          fprintf (stderr, "msperf mapping check: %s\n", error->message);
          return MSPERF_EXIT_USAGE;
        }
      /* smoke: every op of the traces answered once by the engine */
      e = msperf_engine_new ();
      for (char **d = g->plugin_dirs; d && *d; d++)
        msperf_engine_add_plugin_dir (e, *d);
      if ((g->policy && !msperf_engine_load_policy (e, g->policy, &error))
          || !msperf_engine_open_database (e, database, NULL, &error)
          || !msperf_engine_start (e, &error))
        {
          fprintf (stderr, "msperf mapping check: %s\n", error->message);
          return MSPERF_EXIT_USAGE;
        }
      for (char **t = traces; *t; t++)
        {
          msperf_trace_reader *r = msperf_trace_reader_open (*t, &error);
          msperf_trace_item item = { 0 };

          if (r == NULL)
            {
              fprintf (stderr, "msperf mapping check: %s\n", error->message);
              return MSPERF_EXIT_USAGE;
            }
          while (msperf_trace_reader_next (r, &item))
            {
              if (item.op != NULL)
                {
                  g_autoptr (msperf_result) res = msperf_engine_query (e, item.op);
                  for (guint k = 0; k < ops->len; k++)
                    {
                      op_stat *s = g_ptr_array_index (ops, k);
                      if (strcmp (s->name, item.op->name) == 0)
                        {
                          s->invocations += item.op->count;
                          s->by_source[res->source] += item.op->count;
                          if (res->latency_us == res->latency_us)
                            s->time_us += res->latency_us * (double) item.op->count;
                          break;
                        }
                    }
                }
              msperf_trace_item_clear (&item);
            }
          msperf_trace_reader_free (r);
        }
      printf ("\n%-46s %-17s %-26s %9s %9s %9s %9s %9s\n", "op", "mapping", "kernel",
              "invoc.", "measured", "interp.", "extrap.", "roofline");
      for (guint k = 0; k < ops->len; k++)
        {
          op_stat *s = g_ptr_array_index (ops, k);
          const msperf_mapping_entry *en = msperf_database_entry (db, s->name);
          const char *kind = en == NULL ? "UNMAPPED" : en->composite ? "composite"
                             : g_strcmp0 (en->category, "communication") == 0 ? "comm"
                             : en->zero_cost ? "zero_cost" : en->accepted_miss ? "accepted"
                             : en->query_mode ? en->query_mode : "compute";

          if (en == NULL)
            unmapped++;
          printf ("%-46s %-17s %-26s %9" G_GINT64_FORMAT " %9" G_GINT64_FORMAT " %9"
                  G_GINT64_FORMAT " %9" G_GINT64_FORMAT " %9" G_GINT64_FORMAT "\n", s->name, kind,
                  en && en->kernel_type ? en->kernel_type : "-", s->invocations,
                  s->by_source[MSPERF_SOURCE_MEASURED],
                  s->by_source[MSPERF_SOURCE_INTERPOLATED] + s->by_source[MSPERF_SOURCE_PARTIAL],
                  s->by_source[MSPERF_SOURCE_EXTRAPOLATED], s->by_source[MSPERF_SOURCE_ANALYTIC]);
          if (en == NULL && strict)
            g_ptr_array_add (problems, g_strdup_printf ("coverage: operator '%s' of the traces "
                                                        "is not mapped", s->name));
        }
      printf ("\ncoverage: %u of %u op(s) of the traces mapped", ops->len - unmapped, ops->len);
      if (unmapped > 0)
        {
          printf (" (unmapped, answered by the roofline:");
          for (guint k = 0; k < ops->len; k++)
            {
              op_stat *s = g_ptr_array_index (ops, k);
              if (msperf_database_entry (db, s->name) == NULL)
                printf (" %s", s->name);
            }
          printf (")");
        }
      printf ("\n");
    }
  printf ("kernels never used by the mapping:");
  {
    guint n = 0;
    for (guint k = 0; k < files->len; k++)
      if (!in_array (used, g_ptr_array_index (files, k)))
        {
          printf (" %s", (const char *) g_ptr_array_index (files, k));
          n++;
        }
    if (n == 0)
      printf (" none");
  }
  printf ("\n");
  for (guint k = 0; k < problems->len; k++)
    fprintf (stderr, "%s\n", (const char *) g_ptr_array_index (problems, k));
  return problems->len > 0 ? MSPERF_EXIT_PROBLEMS : MSPERF_EXIT_OK;
}

/* ------------------------------------------------------------------ draft */

static const char *
first_kernel_with (const GPtrArray *files, const char *part)
{
  for (guint k = 0; k < files->len; k++)
    if (strstr (g_ptr_array_index (files, k), part) != NULL)
      return g_ptr_array_index (files, k);
  return NULL;
}

static const char *
exact_kernel (const GPtrArray *files, const char *name)
{
  return in_array (files, name) ? name : NULL;
}

/* Tensor inputs of an op (the first tensors of args, and the tensors of tensor lists). */
static guint
tensor_inputs (const msperf_op *op)
{
  guint n = 0;

  for (guint k = 0; k < op->args->len; k++)
    {
      const msperf_value *v = g_ptr_array_index (op->args, k);
      if (v->kind == MSPERF_VALUE_TENSOR)
        n++;
    }
  return n;
}

/* Ops whose kernel is a table of named fields (doc/formats.md §1.6), by a part of the op's name:
 * the table (or, with `phased`, the pair AicContextFAMILY / AicGenerationFAMILY: the context
 * table first, the generation table its alternate) and where the template op's tensors carry
 * the table's numeric columns (column, spec pairs; a column the table lacks is left out). */
typedef struct field_rule {
  const char *op_part;
  const char *family;
  gboolean phased;
  const char *const *args;
  const char *defaults_column; /* the column the default below is for (absent: none) */
  const char *defaults;
  const char *note;
} field_rule;

static const char *const mla_args[] = {
  "num_heads", "{arg: 0, dim: 1}",
  "batch_size", "{arg: 4, dim: 0}",
  "isl", "{arg: 5, value: max}",
  "step", "{arg: 4, value: max, minus: {arg: 5, value: max}}",
  "mla_dtype", "{arg: 0, dtype: {bfloat16: bfloat16}}",
  "kv_cache_dtype", "{arg: 1, dtype: {bfloat16: bfloat16, float8_e4m3fn: fp8}}",
  NULL
};

static const char *const gdn_args[] = {
  "batch_size", "{arg: 5, dim: 0}",
  "num_k_heads", "{arg: 0, dim: 1}",
  "head_k_dim", "{arg: 0, dim: 2}",
  "num_v_heads", "{arg: 2, dim: 1}",
  "head_v_dim", "{arg: 2, dim: 2}",
  NULL
};

static const char *const no_args[] = { NULL };

static const field_rule field_rules[] = {
  { "multihead_latent_attention", "Mla", TRUE, mla_args, NULL, NULL,
    "MLA attention kernel alone: the context table for a pass without cached tokens (step 0), "
    "the generation table otherwise; heads per rank from q, batch from seq_lens, isl = query "
    "length, step = cached tokens, dtypes from q and the cache" },
  { "gated_delta_rule", "AicGatedDeltaNet", FALSE, gdn_args, NULL, NULL,
    "gated delta rule recurrence alone: batch from the state, heads and head dims per rank "
    "from k and v; kernel_source, seq_len and d_model from the op's kwargs" },
  { "fused_moe", "FusedMoE", FALSE, no_args, "distribution", "{distribution: power_law_1.2}",
    "fused MoE: exact fields from the op's kwargs (num_experts, moe_tp, moe_ep, topk, quant); "
    "the routing distribution defaults to power_law_1.2 (as aiconfigurator) for an op "
    "without that kwarg; tokens interpolated" },
};

/* Memory-bound ops no table measures, answered from an elementwise table as the op that moves
 * the same bytes (doc/formats.md §1.7): the kernel whose rows have the op's operand count
 * (Silu: one, Add/Mul: two), `proxy_bytes` or a `tc_input_count` cutting a small weight, and
 * which bytes the op moves. */
typedef struct proxy_rule {
  const char *op;
  const char *kernel;
  const char *proxy_bytes;  /* "all", "gather" or NULL */
  guint tc_input_count;     /* 0: none */
  const char *note;
} proxy_rule;

static const proxy_rule proxy_rules[] = {
  { "aten.sigmoid.default", "Silu", NULL, 0,
    "one read and one write of the same shape, the bytes of the unary Silu rows" },
  { "tensor_cast.swiglu.default", "Mul", NULL, 0,
    "silu(x) * y: two reads and one write of one shape, the bytes of Mul" },
  { "tensor_cast.rms_norm.default", "Silu", NULL, 1,
    "one read and one write of [T, H] (the [H] weight is cut), the bytes of the unary Silu "
    "rows" },
  { "tensor_cast.add_rms_norm2.default", "Add", NULL, 2,
    "residual add + norm reads x and r as Add does (the [H] weight is cut); its second output "
    "is not counted" },
  { "tensor_cast.reshape_and_cache.default", "Add", NULL, 2,
    "reads k and v as Add reads its two operands and writes one of them where the op writes "
    "both into the cache: 3/4 of its bytes" },
  { "tensor_cast.concat_and_cache_mla.default", "Silu", NULL, 1,
    "one read and one write of the latent rows (the rope part and the cache write of it are "
    "not counted)" },
  { "aten.embedding.default", "Silu", "gather", 0,
    "a gather: reads the gathered rows (not the whole table) and the indices, writes them" },
  { "aten.index.Tensor", "Silu", "gather", 0,
    "a gather: reads the selected elements and the indices, writes them" },
  { "tensor_cast.apply_rope.default", "Silu", "all", 0,
    "reads every input (q, k, cos, sin) and writes every output" },
  { "tensor_cast.causal_conv1d.default", "Silu", "all", 0,
    "a depthwise convolution of a few taps reads x and its weights once and writes its "
    "output (its conv-state update is not counted)" },
  { "aten.topk.default", "Silu", "all", 0,
    "reads the scores, writes the values and indices (the selection's compare work is not "
    "counted)" },
  { "tensor_cast.init_routing_v2.default", "Silu", "all", 0,
    "reads the tokens and expert ids, writes the permuted copies (the sort is not counted)" },
  { "tensor_cast.unpermute_tokens.default", "Silu", "all", 0,
    "reads the expert outputs and ids, writes them back in token order" },
  { "aten.sum.dim_IntList", "Silu", "all", 0,
    "a reduction reads its input and writes the reduced output" },
};

static gboolean
table_has_column (msperf_database *db, const char *kernel, const char *column)
{
  const msperf_table *t = msperf_database_table (db, kernel, NULL);

  return t != NULL && msperf_table_column (t, column) >= 0;
}

/* A field_table entry for op s by rule r, when the database has the rule's table(s) and they
 * have at least one of its columns (or the rule needs none). */
static gboolean
draft_field_table (GString *out, msperf_database *db, const GPtrArray *files, const op_stat *s,
                   const field_rule *r, GPtrArray *used)
{
  g_autofree char *primary = NULL, *alternate = NULL;
  g_autoptr (GString) args = g_string_new (NULL);
  g_autoptr (GString) left_out = g_string_new (NULL);
  guint n_args = 0;
  gboolean defaults;

  if (r->phased)
    {
      primary = g_strdup_printf ("AicContext%s", r->family);
      alternate = g_strdup_printf ("AicGeneration%s", r->family);
      if (!in_array (files, alternate))
        g_clear_pointer (&alternate, g_free);
    }
  else
    primary = g_strdup (r->family);
  if (!in_array (files, primary))
    return FALSE;
  for (guint k = 0; r->args[k] != NULL; k += 2)
    {
      const char *column = r->args[k], *spec = r->args[k + 1];
      guint arg = 0;
      gboolean has = table_has_column (db, primary, column)
                     || (alternate != NULL && table_has_column (db, alternate, column));
      /* the op must have the argument the spec reads */
      if (has && s->example != NULL && sscanf (spec, "{arg: %u", &arg) == 1
          && arg >= s->example->args->len)
        has = FALSE;
      if (has)
        {
          g_string_append_printf (args, "      %s: %s\n", column, spec);
          n_args++;
        }
      else
        g_string_append_printf (left_out, "%s%s", left_out->len ? ", " : "", column);
    }
  if (r->args[0] != NULL && n_args == 0)
    return FALSE;
  defaults = r->defaults != NULL && table_has_column (db, primary, r->defaults_column);
  g_string_append_printf (out, "  \"%s\":\n    kernel_type: %s\n", s->name, primary);
  if (alternate != NULL)
    g_string_append_printf (out, "    alternate_kernel_types: [%s]\n", alternate);
  g_string_append (out, "    query_mode: field_table\n");
  if (n_args > 0)
    g_string_append_printf (out, "    field_args:\n%s", args->str);
  if (defaults)
    g_string_append_printf (out, "    field_defaults: %s\n", r->defaults);
  g_string_append_printf (out, "    notes: \"%s%s%s%s%s%s; the kernel's interpolation_policy "
                          "(axes, exact_fields) decides which columns are interpolated\"\n",
                          r->note,
                          left_out->len ? " (left out: the table lacks the column or the op "
                                          "the argument of " : "",
                          left_out->str, left_out->len ? ")" : "",
                          r->phased && alternate == NULL ? "; the database has no AicGeneration"
                                                           : "",
                          r->phased && alternate == NULL ? r->family : "");
  if (!in_array (used, primary))
    g_ptr_array_add (used, g_strdup (primary));
  if (alternate != NULL && !in_array (used, alternate))
    g_ptr_array_add (used, g_strdup (alternate));
  return TRUE;
}

/* An elementwise proxy entry for op s by rule r, when the database has the rule's kernel and
 * the op has the tensors the cut keeps. */
static gboolean
draft_proxy (GString *out, const GPtrArray *files, const op_stat *s, const proxy_rule *r,
             GPtrArray *used)
{
  if (!in_array (files, r->kernel))
    return FALSE;
  if (r->tc_input_count > 0 && s->example != NULL
      && tensor_inputs (s->example) < r->tc_input_count)
    return FALSE;
  g_string_append_printf (out, "  \"%s\":\n    kernel_type: %s\n    query_mode: elementwise\n",
                          s->name, r->kernel);
  if (r->proxy_bytes != NULL)
    g_string_append_printf (out, "    proxy_bytes: %s\n", r->proxy_bytes);
  if (r->tc_input_count > 0)
    g_string_append_printf (out, "    tc_input_count: %u\n", r->tc_input_count);
  g_string_append_printf (out, "    notes: \"memory-bound proxy (no table measures the op): %s; "
                          "answered as the %s op of those bytes\"\n", r->note, r->kernel);
  if (!in_array (used, r->kernel))
    g_ptr_array_add (used, g_strdup (r->kernel));
  return TRUE;
}

static void
draft_entry (GString *out, msperf_database *db, const GPtrArray *files, const op_stat *s,
             GPtrArray *used)
{
  const char *n = s->name;
  const char *kernel = NULL, *mode = NULL, *category = NULL, *note = NULL, *batched = NULL;
  const char *mm = exact_kernel (files, "MatMulV2") ? "MatMulV2" : first_kernel_with (files, "MatMul");

  if (g_strv_contains (metadata_ops, n))
    {
      g_string_append_printf (out, "  \"%s\":\n    zero_cost: true\n", n);
      return;
    }
  if (strstr (n, "matmul_all_reduce") != NULL)
    {
      const char *ar = exact_kernel (files, "hcom_allReduce_");
      g_string_append_printf (out, "  \"%s\":\n    composite: true\n    sub_kernels: [%s, %s]\n"
                              "    notes: \"GEMM then an all-reduce of its output\"\n", n,
                              mm ? mm : "TODO", ar ? ar : "TODO");
      if (mm && !in_array (used, mm)) g_ptr_array_add (used, g_strdup (mm));
      if (ar && !in_array (used, ar)) g_ptr_array_add (used, g_strdup (ar));
      return;
    }
  if (strstr (n, "all_reduce") != NULL)
    kernel = exact_kernel (files, "hcom_allReduce_"), category = "communication";
  else if (strstr (n, "all_gather") != NULL)
    kernel = exact_kernel (files, "hcom_allGather_"), category = "communication";
  else if (strstr (n, "reduce_scatter") != NULL)
    kernel = exact_kernel (files, "hcom_reduceScatter_"), category = "communication";
  else if (strstr (n, "all_to_all") != NULL)
    kernel = exact_kernel (files, "hcom_alltoall_"), category = "communication";
  else if (strstr (n, "fp8_block_matmul") != NULL)
    kernel = exact_kernel (files, "FP8BlockMatMul");
  else if (strstr (n, "fp8_matmul") != NULL)
    kernel = exact_kernel (files, "FP8MatMul");
  else if (strstr (n, "fp8_quantize") != NULL)
    kernel = exact_kernel (files, "Fp8Quantize");
  else if (strcmp (n, "aten.mm.default") == 0 || strcmp (n, "aten.linear.default") == 0)
    kernel = mm;
  else if (strcmp (n, "aten.bmm.default") == 0)
    {
      /* Without a batched-GEMM table, the single GEMM's (doc/formats.md §1.1 batched_from). */
      kernel = first_kernel_with (files, "BatchMatMul");
      if (kernel == NULL && mm != NULL)
        kernel = batched = mm;
    }
  else if (strcmp (n, "tensor_cast.attention.default") == 0)
    kernel = exact_kernel (files, "FusedInferAttentionScore"), mode = "attention_special";
  else if (strcmp (n, "aten.add.Tensor") == 0)
    kernel = exact_kernel (files, "Add"), mode = "elementwise";
  else if (strcmp (n, "aten.mul.Tensor") == 0)
    kernel = exact_kernel (files, "Mul"), mode = "elementwise";
  else if (strcmp (n, "aten.silu.default") == 0)
    kernel = exact_kernel (files, "Silu"), mode = "elementwise";
  if (kernel == NULL)
    {
      for (guint k = 0; k < G_N_ELEMENTS (field_rules); k++)
        if (strstr (n, field_rules[k].op_part) != NULL
            && draft_field_table (out, db, files, s, &field_rules[k], used))
          return;
      for (guint k = 0; k < G_N_ELEMENTS (proxy_rules); k++)
        if (strcmp (n, proxy_rules[k].op) == 0
            && draft_proxy (out, files, s, &proxy_rules[k], used))
          return;
      g_string_append_printf (out, "  # \"%s\": no kernel table of this database measures it "
                              "(answered by the roofline); map it when one does\n", n);
      return;
    }
  if (!in_array (used, kernel))
    g_ptr_array_add (used, g_strdup (kernel));
  g_string_append_printf (out, "  \"%s\":\n    kernel_type: %s\n", n, kernel);
  if (category != NULL)
    g_string_append_printf (out, "    category: %s\n", category);
  if (mode != NULL)
    g_string_append_printf (out, "    query_mode: %s\n", mode);
  /* attention_special reads sliding-window ops from their own table when the database has it */
  if (g_strcmp0 (mode, "attention_special") == 0 && exact_kernel (files, "SlidingWindowAttention"))
    {
      g_string_append (out, "    window_kernel_type: SlidingWindowAttention\n");
      if (!in_array (used, "SlidingWindowAttention"))
        g_ptr_array_add (used, g_strdup ("SlidingWindowAttention"));
    }
  if (batched != NULL)
    {
      g_string_append_printf (out, "    batched_from: %s\n", batched);
      note = "no batched-GEMM table: [b, M, K] x [b, K, N] as GEMM(b*M, N, K) plus the reads of "
             "the other b - 1 right-hand matrices";
    }
  else if (category == NULL && mode == NULL && s->example != NULL)
    {
      /* tc_input_count cuts only trailing internal parameters (scales) the table lacks */
      const msperf_table *t = msperf_database_table (db, kernel, NULL);
      guint op_in = tensor_inputs (s->example);
      if (t != NULL && msperf_table_n_rows (t) > 0)
        {
          guint tab_in = (guint) msperf_table_row_inputs (t, 0)->n;
          if (tab_in > 0 && tab_in < op_in)
            {
              g_string_append_printf (out, "    tc_input_count: %u\n", tab_in);
              note = "the op's trailing scale tensors are cut (the table has none)";
            }
        }
    }
  if (note != NULL)
    g_string_append_printf (out, "    notes: \"%s\"\n", note);
}

static int
run_draft (const char *database, char **traces)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_database) db = NULL;
  g_autoptr (GPtrArray) ops = NULL;
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GPtrArray) used = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) out = g_string_new (NULL);
  g_autofree char *yaml = g_build_filename (database, "op_mapping.yaml", NULL);

  ops = read_ops (traces, &error);
  if (ops == NULL)
    {
      fprintf (stderr, "msperf mapping draft: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  files = kernel_files (database);
  if (g_file_test (yaml, G_FILE_TEST_EXISTS))
    {
      db = msperf_database_open (database, NULL, &error);
      if (db == NULL)
        {
          fprintf (stderr, "msperf mapping draft: %s\n", error->message);
          return MSPERF_EXIT_USAGE;
        }
      for (guint k = 0; k < msperf_database_entries (db)->len; k++)
        entry_kernels (g_ptr_array_index (msperf_database_entries (db), k), used);
    }
  else
    {
      /* no mapping yet: an empty one, so that tables resolve */
      g_autoptr (GError) local = NULL;
      g_autofree char *tmpdir = NULL;
      if (!g_file_set_contents (yaml, "version: \"1.0\"\noperator_mappings: {}\n", -1, &local))
        {
          fprintf (stderr, "msperf mapping draft: %s\n", local->message);
          return MSPERF_EXIT_USAGE;
        }
      db = msperf_database_open (database, NULL, &error);
      g_unlink (yaml);
      (void) tmpdir;
      if (db == NULL)
        {
          fprintf (stderr, "msperf mapping draft: %s\n", error->message);
          return MSPERF_EXIT_USAGE;
        }
    }
  g_string_append (out, "# Drafted by `msperf mapping draft` from the ops of the traces and the "
                        "kernel tables;\n# review every entry, then `msperf mapping check`.\n"
                        "operator_mappings:\n");
  for (guint k = 0; k < ops->len; k++)
    {
      op_stat *s = g_ptr_array_index (ops, k);
      if (msperf_database_entry (db, s->name) != NULL)
        continue;
      draft_entry (out, db, files, s, used);
    }
  for (guint k = 0; k < files->len; k++)
    {
      const char *kernel = g_ptr_array_index (files, k);
      if (!in_array (used, kernel))
        g_string_append_printf (out, "  \"profiling.%s\":\n    kernel_type: %s\n    notes: "
                                "\"profiling-only kernel: no op of the traces maps to it\"\n",
                                kernel, kernel);
    }
  fputs (out->str, stdout);
  return MSPERF_EXIT_OK;
}

int
msperf_cli_mapping (const msperf_cli_global *g, int argc, char **argv)
{
  g_autofree char *database = NULL;
  g_auto (GStrv) traces = NULL;
  gboolean strict = FALSE;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  const GOptionEntry entries[] = {
    { "database", 0, 0, G_OPTION_ARG_FILENAME, &database,
      "The database directory (op_mapping.yaml and kernel tables)", "DIR" },
    { "ops", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &traces,
      "An op trace (repeatable): the ops the mapping must cover", "TRACE" },
    { "require-coverage", 0, 0, G_OPTION_ARG_NONE, &strict,
      "check: an op of the traces without an entry is a problem (exit 1)", NULL },
    G_OPTION_ENTRY_NULL
  };

  ctx = g_option_context_new ("draft|check — propose or validate op_mapping.yaml entries");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!msperf_cli_check_options ("msperf mapping", entries, argv, &error)
      || !g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "msperf mapping: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  /* `--ops A B C`: the words after the command are traces too */
  if (argc > 2)
    {
      GStrvBuilder *b = g_strv_builder_new ();
      if (traces != NULL)
        g_strv_builder_addv (b, (const char **) traces);
      for (int k = 2; k < argc; k++)
        g_strv_builder_add (b, argv[k]);
      g_strfreev (traces);
      traces = g_strv_builder_end (b);
      g_strv_builder_unref (b);
      argc = 2;
    }
  if (argc != 2 || (strcmp (argv[1], "draft") != 0 && strcmp (argv[1], "check") != 0))
    {
      fprintf (stderr, "msperf mapping: usage: msperf mapping draft|check --database DIR "
                       "[--ops TRACE]...\n");
      return MSPERF_EXIT_USAGE;
    }
  if (database == NULL)
    {
      fprintf (stderr, "msperf mapping: --database is required\n");
      return MSPERF_EXIT_USAGE;
    }
  if (strcmp (argv[1], "draft") == 0)
    {
      if (traces == NULL)
        {
          fprintf (stderr, "msperf mapping draft: --ops TRACE is required\n");
          return MSPERF_EXIT_USAGE;
        }
      return run_draft (database, traces);
    }
  return run_check (g, database, traces, strict);
}
