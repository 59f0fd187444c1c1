/* Tests of core/app/model/: the template expression language, layout refusals, and the golden
 * comparison of generated traces with real TensorCast op summaries (tests/data/models/
 * tc_op_summaries, msmodeling commit 84fec853: Qwen3-32B tp 16 and DeepSeek-V3 W8A8 tp 8 dp 2
 * ep 16, prefill and decode). doc/models.md §4 lists every remaining difference. */
#include <config.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include "app/model/model.h"
#include "app/model/model_expr.h"
#include "app/model/model_memory.h"

#define DATA MSPERF_SRCDIR "/tests/data/models/"
#define TEMPLATES MSPERF_SRCDIR "/policies/models"

/* ---------------------------------------------------------------- expressions */

static double
eval (const char *text, double x)
{
  msperf_msyms *syms = msperf_msyms_new ();
  g_autoptr (GError) error = NULL;
  msperf_mexpr *e;
  double env[8], out = NAN;

  msperf_msyms_slot (syms, "x");
  e = msperf_mexpr_compile (text, syms, "t:1", &error);
  assert_non_null (e);
  for (guint i = 0; i < G_N_ELEMENTS (env); i++)
    env[i] = NAN;
  env[0] = x;
  assert_true (msperf_msyms_count (syms) <= G_N_ELEMENTS (env));
  if (!msperf_mexpr_eval (e, env, &out, &error))
    out = -999;
  msperf_mexpr_free (e);
  msperf_msyms_free (syms);
  return out;
}

static void
test_expr_arithmetic (void **state)
{
  (void) state;
  assert_true (eval ("1 + 2 * 3", 0) == 7);
  assert_true (eval ("(1 + 2) * 3", 0) == 9);
  assert_true (eval ("7 // 2", 0) == 3);
  assert_true (eval ("7 / 2", 0) == 3.5);
  assert_true (eval ("-7 % 3", 0) == 2);              /* floor modulo */
  assert_true (eval ("cdiv(4097, 128)", 0) == 33);
  assert_true (eval ("min(x, 3) + max(x, 3)", 5) == 8);
  assert_true (eval ("x > 4 ? 10 : 20", 5) == 10);
  assert_true (eval ("x <= 4 && 1 / 0", 5) == 0);      /* && short-circuits */
  assert_true (eval ("!x || x == 5", 5) == 1);
  assert_true (eval ("x != 5", 5) == 0);
  assert_true (eval ("1 / (x - 5)", 5) == -999);       /* division by zero is an error */
  assert_true (eval ("y + 1", 5) == -999);             /* undefined name */
}

static void
test_expr_syntax_errors (void **state)
{
  const char *bad[] = { "1 +", "(1", "foo(1)", "1 2", "min(1)", "a ? b", "$", NULL };
  msperf_msyms *syms = msperf_msyms_new ();

  (void) state;
  for (int i = 0; bad[i]; i++)
    {
      g_autoptr (GError) error = NULL;
      assert_null (msperf_mexpr_compile (bad[i], syms, "tpl.yaml:7", &error));
      assert_non_null (error);
      assert_non_null (strstr (error->message, "tpl.yaml:7"));
    }
  msperf_msyms_free (syms);
}

/* ---------------------------------------------------------------- golden comparison */

/* op name -> {count, set of "(a, b);(c)" input shape variants} */
typedef struct {
  gint64 count;
  GHashTable *variants;
} op_entry;

static void
op_entry_free (op_entry *e)
{
  g_hash_table_destroy (e->variants);
  g_free (e);
}

static op_entry *
entry_for (GHashTable *ops, const char *name)
{
  op_entry *e = g_hash_table_lookup (ops, name);

  if (e == NULL)
    {
      e = g_new0 (op_entry, 1);
      e->variants = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_insert (ops, g_strdup (name), e);
    }
  return e;
}

static GHashTable *
ops_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) op_entry_free);
}

static GHashTable *
load_summary (const char *name)
{
  g_autofree char *path = g_strconcat (DATA "tc_op_summaries/", name, NULL);
  g_autoptr (JsonParser) p = json_parser_new ();
  GHashTable *ops = ops_table ();
  JsonArray *arr;

  assert_true (json_parser_load_from_file (p, path, NULL));
  arr = json_object_get_array_member (json_node_get_object (json_parser_get_root (p)), "ops");
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonObject *op = json_array_get_object_element (arr, i);
      JsonArray *vs = json_object_get_array_member (op, "shape_variants");
      op_entry *e = entry_for (ops, json_object_get_string_member (op, "op_name"));

      e->count += json_object_get_int_member (op, "count");
      for (guint k = 0; k < json_array_get_length (vs); k++)
        {
          JsonArray *ins = json_object_get_array_member (json_array_get_object_element (vs, k),
                                                         "input_shapes");
          GString *key = g_string_new (NULL);
          for (guint j = 0; j < json_array_get_length (ins); j++)
            g_string_append_printf (key, "%s%s", j ? ";" : "",
                                    json_array_get_string_element (ins, j));
          g_hash_table_add (e->variants, g_string_free (key, FALSE));
        }
    }
  return ops;
}

/* The summary spells a shape "(41040, 512)", a 1-D one "(41040)". */
static void
shape_text (GString *key, JsonArray *dims)
{
  g_string_append_c (key, '(');
  for (guint d = 0; d < json_array_get_length (dims); d++)
    g_string_append_printf (key, "%s%" G_GINT64_FORMAT, d ? ", " : "",
                            json_array_get_int_element (dims, d));
  g_string_append_c (key, ')');
}

static GHashTable *
generate_with (const char *config, const msperf_model_layout *l, const msperf_model_pass *pass,
               const char *quant, const char *const *fields)
{
  msperf_model_options opts = { "float16", quant, NULL, NULL, NULL, fields };
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_strconcat (DATA "configs/", config, NULL);
  g_autoptr (msperf_model) m = msperf_model_load (path, NULL, TEMPLATES, &opts, &error);
  g_autoptr (GPtrArray) bodies = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) counts = g_array_new (FALSE, FALSE, sizeof (gint64));
  GHashTable *ops = ops_table ();

  assert_non_null (m);
  assert_true (msperf_model_pass_ops (m, l, pass, bodies, counts, &error));
  for (guint i = 0; i < bodies->len; i++)
    {
      g_autoptr (JsonParser) p = json_parser_new ();
      JsonObject *o;
      JsonArray *args;
      GString *key = g_string_new (NULL);
      op_entry *e;

      assert_true (json_parser_load_from_data (p, g_ptr_array_index (bodies, i), -1, NULL));
      o = json_node_get_object (json_parser_get_root (p));
      e = entry_for (ops, json_object_get_string_member (o, "op"));
      e->count += g_array_index (counts, gint64, i);
      args = json_object_get_array_member (o, "args");
      for (guint k = 0; k < json_array_get_length (args); k++)
        {
          JsonNode *a = json_array_get_element (args, k);
          if (!JSON_NODE_HOLDS_OBJECT (a))
            continue;
          if (key->len)
            g_string_append_c (key, ';');
          shape_text (key, json_object_get_array_member (json_node_get_object (a), "shape"));
        }
      g_hash_table_add (e->variants, g_string_free (key, FALSE));
    }
  return ops;
}

static GHashTable *
generate (const char *config, const msperf_model_layout *l, const msperf_model_pass *pass,
          const char *quant)
{
  return generate_with (config, l, pass, quant, NULL);
}

static gboolean
same_variants (GHashTable *a, GHashTable *b)
{
  GHashTableIter it;
  gpointer k;

  if (g_hash_table_size (a) != g_hash_table_size (b))
    return FALSE;
  g_hash_table_iter_init (&it, a);
  while (g_hash_table_iter_next (&it, &k, NULL))
    if (!g_hash_table_contains (b, k))
      return FALSE;
  return TRUE;
}

/* Every op name generated occurs in the capture. */
static void
assert_names_subset (GHashTable *gen, GHashTable *tc)
{
  GHashTableIter it;
  gpointer k;

  g_hash_table_iter_init (&it, gen);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      if (!g_hash_table_contains (tc, k))
        print_error ("generated op %s is not in the capture\n", (char *) k);
      assert_true (g_hash_table_contains (tc, k));
    }
}

/* Same per-pass count and the same set of input shapes. */
static void
assert_op_matches (GHashTable *gen, GHashTable *tc, const char *name)
{
  op_entry *g = g_hash_table_lookup (gen, name), *t = g_hash_table_lookup (tc, name);

  assert_non_null (g);
  assert_non_null (t);
  if (g->count != t->count || !same_variants (g->variants, t->variants))
    print_error ("%s: count %" G_GINT64_FORMAT " vs TensorCast %" G_GINT64_FORMAT "\n", name,
                 g->count, t->count);
  assert_int_equal (g->count, t->count);
  assert_true (same_variants (g->variants, t->variants));
}

static void
assert_count (GHashTable *gen, GHashTable *tc, const char *name)
{
  op_entry *g = g_hash_table_lookup (gen, name), *t = g_hash_table_lookup (tc, name);

  assert_non_null (g);
  assert_non_null (t);
  assert_int_equal (g->count, t->count);
}

static const char *const qwen_exact[] = {
  "aten.mm.default", "tensor_cast.matmul_all_reduce.default", "tensor_cast.all_reduce.default",
  "tensor_cast.all_gather.default", "aten.embedding.default", "tensor_cast.rms_norm.default",
  "tensor_cast.add_rms_norm2.default", "tensor_cast.apply_rope.default",
  "tensor_cast.reshape_and_cache.default", "tensor_cast.swiglu.default", "aten.add.Tensor",
  "aten.mul.Tensor", "aten.index.Tensor", NULL
};

static void
check_qwen (const char *summary, const msperf_model_pass *pass)
{
  msperf_model_layout tp16 = { 16, 1, 1, 1, FALSE };
  GHashTable *tc = load_summary (summary);
  GHashTable *gen = generate ("Qwen--Qwen3-32B.json", &tp16, pass, NULL);

  assert_names_subset (gen, tc);
  for (int i = 0; qwen_exact[i]; i++)
    assert_op_matches (gen, tc, qwen_exact[i]);
  /* Attention: same count; its layout is the database's (doc/models.md §4). */
  assert_count (gen, tc, "tensor_cast.attention.default");
  g_hash_table_destroy (tc);
  g_hash_table_destroy (gen);
}

static void
test_golden_qwen3_32b_prefill (void **state)
{
  msperf_model_pass pass = { MSPERF_PHASE_PREFILL, 10, 4104, 0, 0 };

  (void) state;
  check_qwen ("qwen3_32b_prefill.json", &pass);
}

static void
test_golden_qwen3_32b_decode (void **state)
{
  msperf_model_pass pass = { MSPERF_PHASE_DECODE, 16, 0, 4096, 0 };

  (void) state;
  check_qwen ("qwen3_32b_decode.json", &pass);
}

static const msperf_model_layout dsv3_layout = { 8, 16, 2, 1, FALSE };

static void
test_golden_dsv3_prefill (void **state)
{
  static const char *const exact[] = {
    "tensor_cast.static_quant_linear.default", "tensor_cast.static_quant_linear_all_reduce.default",
    "aten.mm.default", "tensor_cast.all_to_all.default", "tensor_cast.all_reduce.default",
    "tensor_cast.mlapo_quant.default", "tensor_cast.concat_and_cache_mla.default",
    "tensor_cast.init_routing_v2.default", "tensor_cast.unpermute_tokens.default",
    "aten.embedding.default", "tensor_cast.rms_norm.default", "tensor_cast.add_rms_norm2.default",
    "tensor_cast.add_rms_norm_quant2.default", "aten.sigmoid.default", "aten.index.Tensor",
    /* Per local expert and MoE layer, 3 all_gathers over the TP group (expert_gather): 2784;
     * plus the MoE token gather (58) and the logits (1): 2843; the routed SwiGLU on (128, 2048). */
    "tensor_cast.all_gather.default", "tensor_cast.swiglu.default", NULL
  };
  msperf_model_pass pass = { MSPERF_PHASE_PREFILL, 1, 256, 0, 0 };
  GHashTable *tc = load_summary ("dsv3_prefill.json");
  GHashTable *gen = generate ("deepseek-ai--DeepSeek-V3.json", &dsv3_layout, &pass, "w8a8");

  (void) state;
  assert_names_subset (gen, tc);
  for (int i = 0; exact[i]; i++)
    assert_op_matches (gen, tc, exact[i]);
  assert_count (gen, tc, "tensor_cast.multihead_latent_attention.default");
  g_hash_table_destroy (tc);
  g_hash_table_destroy (gen);
}

static void
test_golden_dsv3_decode (void **state)
{
  static const char *const exact[] = {
    "tensor_cast.static_quant_linear_all_reduce.default", "tensor_cast.all_reduce.default",
    "tensor_cast.mlapo_quant.default", "tensor_cast.concat_and_cache_mla.default",
    "aten.embedding.default", "tensor_cast.rms_norm.default", "aten.index.Tensor",
    /* The MoE block on the 256 padded tokens per rank (moe_pad_tokens): router, shared and
     * routed (16 rows) expert GEMMs, dispatch and combine, routing, as captured. */
    "tensor_cast.static_quant_linear.default", "aten.mm.default", "tensor_cast.all_to_all.default",
    "aten.sigmoid.default", "tensor_cast.init_routing_v2.default",
    "tensor_cast.unpermute_tokens.default", "tensor_cast.all_gather.default",
    "tensor_cast.swiglu.default", NULL
  };
  static const char *const counts[] = { "tensor_cast.multihead_latent_attention.default", NULL };
  msperf_model_pass pass = { MSPERF_PHASE_DECODE, 8, 0, 4096, 0 };
  GHashTable *tc = load_summary ("dsv3_decode.json");
  GHashTable *gen = generate ("deepseek-ai--DeepSeek-V3.json", &dsv3_layout, &pass, "w8a8");
  op_entry *mm;

  (void) state;
  assert_names_subset (gen, tc);
  for (int i = 0; exact[i]; i++)
    assert_op_matches (gen, tc, exact[i]);
  /* Known difference (doc/models.md §4): the MLA args. The counts agree. */
  for (int i = 0; counts[i]; i++)
    assert_count (gen, tc, counts[i]);
  mm = g_hash_table_lookup (gen, "aten.mm.default");
  assert_true (g_hash_table_contains (mm->variants, "(8, 7168);(7168, 16160)"));
  g_hash_table_destroy (tc);
  g_hash_table_destroy (gen);
}

/* The op of name generated with a variant of these argument shapes: its entry. */
static op_entry *
assert_variant (GHashTable *gen, const char *name, const char *shapes)
{
  op_entry *e = g_hash_table_lookup (gen, name);

  assert_non_null (e);
  if (!g_hash_table_contains (e->variants, shapes))
    fail_msg ("%s: no variant %s", name, shapes);
  return e;
}

/* Model fields set over the config's (a runtime's template parameters): moe_pad_tokens=0
 * runs the decode MoE block on the step's own 8 tokens, not the 256 padded rows; a field that
 * is not name=number is refused naming it. */
static void
test_fields_override (void **state)
{
  static const char *const nopad[] = { "moe_pad_tokens=0", NULL };
  static const char *const bad[] = { "moe_pad_tokens", NULL };
  msperf_model_pass pass = { MSPERF_PHASE_DECODE, 8, 0, 4096, 0 };
  GHashTable *pad = generate ("deepseek-ai--DeepSeek-V3.json", &dsv3_layout, &pass, "w8a8");
  GHashTable *gen = generate_with ("deepseek-ai--DeepSeek-V3.json", &dsv3_layout, &pass, "w8a8",
                                   nopad);
  msperf_model_options opts = { "float16", "w8a8", NULL, NULL, NULL, bad };
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_strconcat (DATA "configs/", "deepseek-ai--DeepSeek-V3.json", NULL);
  op_entry *a = g_hash_table_lookup (pad, "aten.sigmoid.default");
  op_entry *b = g_hash_table_lookup (gen, "aten.sigmoid.default");

  (void) state;
  assert_non_null (a);
  assert_non_null (b);
  assert_true (g_hash_table_contains (a->variants, "(256, 256)"));
  assert_true (g_hash_table_contains (b->variants, "(8, 256)"));
  assert_false (g_hash_table_contains (b->variants, "(256, 256)"));
  assert_null (msperf_model_load (path, NULL, TEMPLATES, &opts, &error));
  assert_non_null (strstr (error->message, "model field 'moe_pad_tokens'"));
  g_hash_table_destroy (pad);
  g_hash_table_destroy (gen);
}

/* moe_allreduce=1 (the CUDA runtimes' fused MoE): no all_to_all dispatch/combine. Under
 * attention DP (tp 8, ep 16, dp 2) the DP ranks' 8 tokens are all-gathered to 16 before the
 * MoE and reduce-scattered after it; without it (tp 8, ep 8) one all_reduce over the TP group
 * sums the experts' partial outputs and no token is gathered. */
static void
test_moe_allreduce (void **state)
{
  static const char *const nvidia[] = { "moe_pad_tokens=0", "moe_allreduce=1", NULL };
  static const msperf_model_layout tp_ep = { 8, 8, 1, 1, FALSE };
  msperf_model_pass pass = { MSPERF_PHASE_DECODE, 8, 0, 4096, 0 };
  GHashTable *dp = generate_with ("deepseek-ai--DeepSeek-V3.json", &dsv3_layout, &pass, "w8a8",
                                  nvidia);
  GHashTable *tp = generate_with ("deepseek-ai--DeepSeek-V3.json", &tp_ep, &pass, "w8a8", nvidia);
  GHashTable *capture = generate ("deepseek-ai--DeepSeek-V3.json", &tp_ep, &pass, "w8a8");
  op_entry *e;

  (void) state;
  assert_null (g_hash_table_lookup (dp, "tensor_cast.all_to_all.default"));
  assert_null (g_hash_table_lookup (tp, "tensor_cast.all_to_all.default"));
  assert_non_null (g_hash_table_lookup (capture, "tensor_cast.all_to_all.default"));
  assert_variant (dp, "tensor_cast.reduce_scatter.default", "(16, 7168)");
  assert_variant (dp, "tensor_cast.all_gather.default", "(8, 7168)");
  assert_variant (tp, "tensor_cast.all_reduce.default", "(8, 7168)");
  e = g_hash_table_lookup (tp, "tensor_cast.all_gather.default");
  assert_true (e == NULL || !g_hash_table_contains (e->variants, "(8, 7168)"));
  assert_null (g_hash_table_lookup (tp, "tensor_cast.reduce_scatter.default"));
  g_hash_table_destroy (dp);
  g_hash_table_destroy (tp);
  g_hash_table_destroy (capture);
}

/* Qwen3-30B-A3B on TP 4, a decode step of 8 rows, its experts in `quant`: with the fields
 * `fused`, one fused_moe per layer (48) without the per-expert GEMMs, SwiGLUs and routing ops;
 * with each field list of `unfused`, per expert (TensorCast's form: 48 × 128 SwiGLUs). */
static void
assert_moe_fusion (const char *quant, const char *const *fused,
                   const char *const *const *unfused)
{
  static const msperf_model_layout tp4 = { 4, 1, 1, 1, FALSE };
  msperf_model_pass pass = { MSPERF_PHASE_DECODE, 8, 0, 1024, 0 };
  GHashTable *f = generate_with ("Qwen--Qwen3-30B-A3B.json", &tp4, &pass, quant, fused);
  op_entry *e = assert_variant (f, "tensor_cast.fused_moe.default",
                                "(8, 2048);(128, 384, 2048);(128, 2048, 192);(8, 8)");

  assert_int_equal (e->count, 48);
  assert_null (g_hash_table_lookup (f, "tensor_cast.swiglu.default"));
  assert_null (g_hash_table_lookup (f, "tensor_cast.init_routing_v2.default"));
  g_hash_table_destroy (f);
  for (; *unfused; unfused++)
    {
      GHashTable *u = generate_with ("Qwen--Qwen3-30B-A3B.json", &tp4, &pass, quant, *unfused);

      assert_null (g_hash_table_lookup (u, "tensor_cast.fused_moe.default"));
      e = g_hash_table_lookup (u, "tensor_cast.swiglu.default");
      assert_non_null (e);
      assert_int_equal (e->count, 48 * 128);
      g_hash_table_destroy (u);
    }
}

/* moe_bf16_fused=1 (the CUDA runtimes' fused MoE for unquantised experts) fuses Qwen3-30B-A3B's
 * bf16 experts, 0 keeps them per expert; FP8 experts are fused either way. */
static void
test_moe_bf16_fused (void **state)
{
  static const char *const fused[] = { "moe_bf16_fused=1", NULL };
  static const char *const unfused[] = { "moe_bf16_fused=0", NULL };
  static const char *const *const unfused_lists[] = { unfused, NULL };
  static const msperf_model_layout tp4 = { 4, 1, 1, 1, FALSE };
  msperf_model_pass pass = { MSPERF_PHASE_DECODE, 8, 0, 1024, 0 };
  GHashTable *q = generate_with ("Qwen--Qwen3-30B-A3B.json", &tp4, &pass, "fp8", unfused);

  (void) state;
  assert_moe_fusion (NULL, fused, unfused_lists);
  assert_non_null (g_hash_table_lookup (q, "tensor_cast.fused_moe.default"));
  g_hash_table_destroy (q);
}

/* moe_int4_fused=1 (the CUDA runtimes' fused Marlin / CUTLASS MoE for int4 weight-only
 * experts) fuses them under int4_wo; 0, or only moe_bf16_fused, keeps them per expert. */
static void
test_moe_int4_fused (void **state)
{
  static const char *const fused[] = { "moe_int4_fused=1", NULL };
  static const char *const unfused[] = { "moe_int4_fused=0", NULL };
  static const char *const bf16_only[] = { "moe_bf16_fused=1", NULL };
  static const char *const *const unfused_lists[] = { unfused, bf16_only, NULL };

  (void) state;
  assert_moe_fusion ("int4_wo", fused, unfused_lists);
}

/* moe_allreduce=1 in the GQA MoE template (Qwen3-30B-A3B, 8 decode tokens): on TP 8 / EP 8
 * no all_to_all, one all_reduce of the 8 rows over the TP group per layer beside the
 * attention's; under attention DP 8 / EP 8 the DP ranks' rows are all-gathered to 64 before
 * the experts and reduce-scattered after; the template's own form keeps the all_to_alls. */
static void
test_moe_gqa_allreduce (void **state)
{
  static const char *const cuda[] = { "moe_allreduce=1", "moe_bf16_fused=1", NULL };
  static const char *const own[] = { "moe_bf16_fused=1", NULL };
  static const msperf_model_layout tp_ep = { 8, 8, 1, 1, FALSE };
  static const msperf_model_layout dp_ep = { 1, 8, 8, 1, FALSE };
  msperf_model_pass pass = { MSPERF_PHASE_DECODE, 8, 0, 1024, 0 };
  GHashTable *tp = generate_with ("Qwen--Qwen3-30B-A3B.json", &tp_ep, &pass, NULL, cuda);
  GHashTable *dp = generate_with ("Qwen--Qwen3-30B-A3B.json", &dp_ep, &pass, NULL, cuda);
  GHashTable *a2a = generate_with ("Qwen--Qwen3-30B-A3B.json", &tp_ep, &pass, NULL, own);
  op_entry *e;

  (void) state;
  assert_null (g_hash_table_lookup (tp, "tensor_cast.all_to_all.default"));
  assert_null (g_hash_table_lookup (dp, "tensor_cast.all_to_all.default"));
  e = g_hash_table_lookup (a2a, "tensor_cast.all_to_all.default");
  assert_non_null (e);
  assert_int_equal (e->count, 2 * 48);
  assert_variant (tp, "tensor_cast.all_reduce.default", "(8, 2048)");
  assert_variant (dp, "tensor_cast.all_gather.default", "(8, 2048)");
  e = assert_variant (dp, "tensor_cast.reduce_scatter.default", "(64, 2048)");
  assert_int_equal (e->count, 48);
  g_hash_table_destroy (tp);
  g_hash_table_destroy (dp);
  g_hash_table_destroy (a2a);
}

/* --sequence-parallel on Qwen3-32B prefill, tp 8, 2 × 1000 tokens (Megatron-style): norms and
 * residual adds on the rank's 250 tokens, an all_gather before qkv and gate/up (and before the
 * LM head), a reduce_scatter after o_proj and down_proj (and the embedding) in place of the
 * all-reduces; the GEMMs keep all 2000 rows. Without it, the trace is the golden one above. */
static void
test_sequence_parallel (void **state)
{
  msperf_model_layout sp8 = { 8, 1, 1, 1, TRUE };
  msperf_model_pass pass = { MSPERF_PHASE_PREFILL, 2, 1000, 0, 0 };
  GHashTable *gen = generate ("Qwen--Qwen3-32B.json", &sp8, &pass, NULL);
  op_entry *e;

  (void) state;
  assert_null (g_hash_table_lookup (gen, "tensor_cast.matmul_all_reduce.default"));
  assert_null (g_hash_table_lookup (gen, "tensor_cast.all_reduce.default"));
  e = g_hash_table_lookup (gen, "tensor_cast.reduce_scatter.default");
  assert_non_null (e);
  assert_int_equal (e->count, 1 + 2 * 64);
  assert_true (g_hash_table_contains (e->variants, "(2000, 5120)"));
  e = g_hash_table_lookup (gen, "tensor_cast.all_gather.default");
  assert_int_equal (e->count, 2 * 64 + 1 + 1);
  assert_true (g_hash_table_contains (e->variants, "(250, 5120)"));
  assert_true (g_hash_table_contains (e->variants, "(1, 250, 5120)"));
  e = g_hash_table_lookup (gen, "aten.mm.default");
  assert_int_equal (e->count, 4 * 64 + 1);
  assert_true (g_hash_table_contains (e->variants, "(2000, 1024);(1024, 5120)"));
  assert_true (g_hash_table_contains (e->variants, "(2000, 3200);(3200, 5120)"));
  e = g_hash_table_lookup (gen, "tensor_cast.rms_norm.default");
  assert_true (g_hash_table_contains (e->variants, "(1, 250, 5120);(5120)"));
  assert_false (g_hash_table_contains (e->variants, "(1, 2000, 5120);(5120)"));
  e = g_hash_table_lookup (gen, "tensor_cast.add_rms_norm2.default");
  assert_true (g_hash_table_contains (e->variants, "(1, 250, 5120);(250, 5120);(5120)"));
  g_hash_table_destroy (gen);
  /* tp 1: nothing to split, the plain trace. */
  sp8.tp = 1;
  sp8.dp = 1;
  gen = generate ("Qwen--Qwen3-32B.json", &sp8, &pass, NULL);
  assert_null (g_hash_table_lookup (gen, "tensor_cast.reduce_scatter.default"));
  g_hash_table_destroy (gen);
}

/* ---------------------------------------------------------------- refusals and errors */

static char *
refusal (const char *config, msperf_model_layout l)
{
  g_autofree char *path = g_strconcat (DATA "configs/", config, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_model) m = msperf_model_load (path, NULL, TEMPLATES, NULL, &error);

  assert_non_null (m);
  if (msperf_model_check_layout (m, &l, &error))
    return NULL;
  return g_strdup (error->message);
}

static void
test_layout_refusals (void **state)
{
  struct { const char *config; msperf_model_layout l; const char *reason; } cases[] = {
    { "Qwen--Qwen3-32B.json", { 3, 1, 1, 1, FALSE }, "num_attention_heads 64 is not divisible by --tp 3" },
    { "Qwen--Qwen3-32B.json", { 2, 2, 1, 1, FALSE }, "a dense model has no experts" },
    { "Qwen--Qwen3-32B.json", { 2, 1, 1, 65, FALSE }, "--pp 65 exceeds num_hidden_layers 64" },
    { "deepseek-ai--DeepSeek-V3.json", { 1, 1, 1, 62, FALSE }, "--pp 62 exceeds num_hidden_layers 61" },
    { "deepseek-ai--DeepSeek-V3.json", { 8, 3, 3, 1, FALSE }, "n_routed_experts 256 is not divisible by --ep 3" },
    { "deepseek-ai--DeepSeek-V3.json", { 8, 16, 1, 1, FALSE }, "is not a multiple of ep = 16" },
    { "mistralai--Mixtral-8x7B-v0.1.json", { 1, 16, 16, 1, FALSE }, "num_experts 8 is not divisible by --ep 16" },
  };
  g_autofree char *ok = refusal ("Qwen--Qwen3-32B.json", (msperf_model_layout) { 8, 1, 1, 2, FALSE });

  (void) state;
  assert_null (ok);
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *why = refusal (cases[i].config, cases[i].l);
      assert_non_null (why);
      if (strstr (why, cases[i].reason) == NULL)
        print_error ("got '%s', want '%s'\n", why, cases[i].reason);
      assert_non_null (strstr (why, cases[i].reason));
    }
}

/* Pipeline stages: the template's pass is the largest stage, ceil(layers / pp) layers, and a
 * stage count that does not divide the layers is run, not refused: DeepSeek-V3's 61 layers at
 * pp 2 are 31 a stage, 2 of them dense (its 3 dense layers' share, rounded up) and 29 MoE;
 * Qwen3-32B's 64 at pp 3 are 22. At pp 1 the whole model, as the goldens above. */
static void
test_pipeline_stages (void **state)
{
  static const msperf_model_layout ds1 = { 8, 1, 1, 1, FALSE }, ds2 = { 8, 1, 1, 2, FALSE };
  static const msperf_model_layout qw3 = { 1, 1, 1, 3, FALSE };
  msperf_model_pass pass = { MSPERF_PHASE_DECODE, 8, 0, 1024, 0 };
  GHashTable *one = generate ("deepseek-ai--DeepSeek-V3.json", &ds1, &pass, NULL);
  GHashTable *two = generate ("deepseek-ai--DeepSeek-V3.json", &ds2, &pass, NULL);
  GHashTable *qw = generate ("Qwen--Qwen3-32B.json", &qw3, &pass, NULL);
  const char *mla = "tensor_cast.multihead_latent_attention.default";
  op_entry *e;

  (void) state;
  e = g_hash_table_lookup (one, mla);
  assert_non_null (e);
  assert_int_equal (e->count, 61);
  e = g_hash_table_lookup (two, mla);
  assert_non_null (e);
  assert_int_equal (e->count, 31);
  e = g_hash_table_lookup (one, "tensor_cast.fused_moe.default");   /* the MoE layers */
  assert_non_null (e);
  assert_int_equal (e->count, 58);
  e = g_hash_table_lookup (two, "tensor_cast.fused_moe.default");
  assert_non_null (e);
  assert_int_equal (e->count, 29);
  e = g_hash_table_lookup (qw, "tensor_cast.attention.default");
  assert_non_null (e);
  assert_int_equal (e->count, 22);
  g_hash_table_destroy (one);
  g_hash_table_destroy (two);
  g_hash_table_destroy (qw);
}

static void
assert_load_fails (const char *config, const char *tpl, const char *dir, const char *want)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_model) m = msperf_model_load (config, tpl, dir, NULL, &error);

  assert_null (m);
  assert_non_null (error);
  if (strstr (error->message, want) == NULL)
    print_error ("got '%s', want '%s'\n", error->message, want);
  assert_non_null (strstr (error->message, want));
}

static void
test_bad_inputs (void **state)
{
  (void) state;
  assert_load_fails (DATA "bad/no-heads.json", NULL, TEMPLATES,
                     "no-heads.json: missing field 'num_attention_heads'");
  assert_load_fails (DATA "bad/unknown-arch.json", NULL, TEMPLATES,
                     "unknown architecture 'FrobnicatorForCausalLM'");
  assert_load_fails (DATA "toy-config.json", DATA "bad/bad_expr.yaml", NULL, "bad_expr.yaml:4:");
  assert_load_fails (DATA "nowhere.json", NULL, TEMPLATES, "nowhere.json");
}

/* The Llama-3.1-8B config with num_hidden_layers (line 17) or first_k_dense_replace of the
 * DeepSeek-V3 config replaced by value; written to dir/name. Transfer full: the path. */
static char *
config_with (const char *dir, const char *name, const char *source, const char *field,
             const char *value)
{
  g_autofree char *text = NULL;
  g_autofree char *src = g_build_filename (DATA "configs", source, NULL);
  g_autofree char *key = g_strdup_printf ("\"%s\": ", field);
  g_autoptr (GString) out = g_string_new (NULL);
  char *path = g_build_filename (dir, name, NULL);
  const char *at, *end;

  assert_true (g_file_get_contents (src, &text, NULL, NULL));
  at = strstr (text, key);
  assert_non_null (at);
  at += strlen (key);
  end = at + strcspn (at, ",\n}");
  g_string_append_len (out, text, at - text);
  g_string_append (out, value);
  g_string_append (out, end);
  assert_true (g_file_set_contents (path, out->str, -1, NULL));
  return path;
}

static void
write_text (const char *path, const char *text, gssize len)
{
  assert_true (g_file_set_contents (path, text, len, NULL));
}

/* Every field a template needs is a number, an integer, at least 1 (0 for a count of dense
 * first layers) and at most 2^31 - 1; the message names the config, the field's line and the
 * problem. Before, 0 and -1 layers gave a trace, 2^40 layers one with counts of 2^40, true was
 * one layer and "32" was reported as missing. */
static void
test_config_field_values (void **state)
{
  static const struct { const char *value, *want; } cases[] = {
    { "0", "c.json:17: field 'num_hidden_layers': is 0; it must be at least 1" },
    { "-1", "c.json:17: field 'num_hidden_layers': is -1; it must be at least 1" },
    { "1099511627776", "c.json:17: field 'num_hidden_layers': 1099511627776 is above "
                       "2147483647, the largest value a model config field may hold" },
    { "1e400", "c.json:17: field 'num_hidden_layers': inf is not a finite number" },
    { "1.5", "c.json:17: field 'num_hidden_layers': 1.5 is not an integer" },
    { "\"32\"", "c.json:17: field 'num_hidden_layers': expected a number, got a string" },
    { "true", "c.json:17: field 'num_hidden_layers': expected a number, got a boolean" },
    { "null", "c.json:17: field 'num_hidden_layers': expected a number, got null" },
    { "[32]", "c.json:17: field 'num_hidden_layers': expected a number, got a list" },
    { "{\"n\": 32}", "c.json:17: field 'num_hidden_layers': expected a number, got an object" },
  };
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("msperf-model-XXXXXX", &error);

  (void) state;
  assert_non_null (dir);
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *path = config_with (dir, "c.json", "meta-llama--Meta-Llama-3.1-8B.json",
                                           "num_hidden_layers", cases[k].value);
      assert_load_fails (path, NULL, TEMPLATES, cases[k].want);
      g_unlink (path);
    }
  {
    /* a model may have no dense first layers: 0 is a value there, -1 is not */
    g_autofree char *zero = config_with (dir, "z.json", "deepseek-ai--DeepSeek-V3.json",
                                         "first_k_dense_replace", "0");
    g_autoptr (msperf_model) m = msperf_model_load (zero, NULL, TEMPLATES, NULL, &error);
    g_autofree char *neg = NULL;

    if (m == NULL)
      fail_msg ("%s", error->message);
    g_unlink (zero);
    neg = config_with (dir, "n.json", "deepseek-ai--DeepSeek-V3.json", "first_k_dense_replace",
                       "-1");
    assert_load_fails (neg, NULL, TEMPLATES, "field 'first_k_dense_replace': is -1; it must "
                                             "be at least 0");
    g_unlink (neg);
  }
  g_rmdir (dir);
}

/* What json-glib must not be given: it recursed without bound (a million '[' in a field, or
 * text_config nested 100000 deep, crashed msperf), read values after the object (and leaked
 * them), and took binary or non-UTF-8 text. */
static void
test_config_text_refused_before_parsing (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("msperf-model-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autoptr (GString) deep = g_string_new ("{\"architectures\": [\"LlamaForCausalLM\"],\n"
                                           "\"text_config\": ");

  (void) state;
  assert_non_null (dir);
  path = g_build_filename (dir, "c.json", NULL);
  for (int k = 0; k < 100000; k++)
    g_string_append (deep, "{\"text_config\": ");
  g_string_append (deep, "1");
  for (int k = 0; k < 100001; k++)
    g_string_append_c (deep, '}');
  write_text (path, deep->str, -1);
  assert_load_fails (path, NULL, TEMPLATES, "c.json:2: JSON nesting deeper than 64 levels");
  g_string_assign (deep, "{\"architectures\": [\"LlamaForCausalLM\"], \"x\": ");
  for (int k = 0; k < 1000000; k++)
    g_string_append_c (deep, '[');
  write_text (path, deep->str, -1);
  assert_load_fails (path, NULL, TEMPLATES, "c.json:1: JSON nesting deeper than 64 levels");
  write_text (path, "{\"architectures\": [\"LlamaForCausalLM\"]}\n{\"x\": 1}\n", -1);
  assert_load_fails (path, NULL, TEMPLATES, "c.json:2: unexpected content after the JSON object");
  write_text (path, "{\"architectures\":\n [\"Llama\351\"]}", -1);
  assert_load_fails (path, NULL, TEMPLATES, "c.json:2: not UTF-8 (byte 0xe9)");
  write_text (path, "{\"architectures\": \0", 20);
  assert_load_fails (path, NULL, TEMPLATES, "c.json:1: binary content (control byte 0x00)");
  write_text (path, "", 0);
  assert_load_fails (path, NULL, TEMPLATES, "c.json:1: a config.json must be a JSON object");
  write_text (path, "  [1, 2]", -1);
  assert_load_fails (path, NULL, TEMPLATES, "c.json:1: a config.json must be a JSON object");
  write_text (path, "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": ", -1);
  assert_load_fails (path, NULL, TEMPLATES, "c.json");
  {
    /* a config of 16 MiB and more is not one */
    g_autofree char *big = g_malloc (17u << 20);

    memset (big, ' ', 17u << 20);
    big[0] = '{';
    big[(17u << 20) - 1] = '}';
    write_text (path, big, 17u << 20);
    assert_load_fails (path, NULL, TEMPLATES, "is too large for a config.json");
  }
  g_unlink (path);
  g_rmdir (dir);
}

/* A new family is one template file: the toy template, found by its architecture. */
static void
test_new_family_template (void **state)
{
  msperf_model_layout tp2 = { 2, 1, 1, 1, FALSE };
  msperf_model_pass pass = { MSPERF_PHASE_PREFILL, 2, 64, 0, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_model) m = msperf_model_load (DATA "toy-config.json", NULL, DATA "templates",
                                                  NULL, &error);
  g_autoptr (GString) out = g_string_new (NULL);
  double w = 0, kv = 1;

  (void) state;
  assert_non_null (m);
  assert_string_equal (msperf_model_family (m), "toy_mlp");
  assert_true (msperf_model_trace (m, &tp2, &pass, out, &error));
  /* 128 tokens, hidden 256, FFN 1024 / tp 2 = 512, 4 layers, an all_reduce per layer. */
  assert_non_null (strstr (out->str, "{\"shape\": [128, 256], \"dtype\": \"bfloat16\"}, "
                                     "{\"shape\": [256, 512], \"dtype\": \"bfloat16\"}"));
  assert_non_null (strstr (out->str, "\"op\": \"tensor_cast.all_reduce.default\", \"args\": "
                                     "[{\"shape\": [128, 256], \"dtype\": \"bfloat16\"}, 0, [0, 1]]"));
  assert_non_null (strstr (out->str, "\"count\": 4}"));
  assert_true (msperf_model_memory (m, &tp2, &w, &kv, &error));
  assert_true (w == 4.0 * 2 * 256 * 512 * 2);
  assert_true (kv == 0);
}

/* Memory: Llama-3.1-8B bf16 on one device — 8.03e9 parameters (Meta's model card). */
static void
test_memory_llama (void **state)
{
  msperf_model_layout one = { 1, 1, 1, 1, FALSE };
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_model) m = msperf_model_load (DATA "configs/meta-llama--Meta-Llama-3.1-8B.json",
                                                  NULL, TEMPLATES, NULL, &error);
  double w, kv;

  (void) state;
  assert_non_null (m);
  assert_true (msperf_model_memory (m, &one, &w, &kv, &error));
  assert_true (fabs (w / 2 - 8.03e9) < 0.01e9);
  /* 2 (K, V) × 32 layers × 8 KV heads × 128 × 2 bytes = 128 KiB per token. */
  assert_true (kv == 131072);
}

/* KV capacity of Llama-3.1-8B bf16 on one 141 GiB device at 0.9: the closed form of
 * model_memory.h — weights 8.03e9 × 2 bytes, activations 8192 tokens × 131072 bytes (1 GiB),
 * 3.5 GiB reserves (no NCCL on one device), 128 KiB of KV per token. */
static void
test_kv_capacity_llama (void **state)
{
  const double gib = 1024.0 * 1024.0 * 1024.0;
  msperf_model_layout one = { 1, 1, 1, 1, FALSE }, two = { 2, 1, 1, 1, FALSE };
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_model) m = msperf_model_load (DATA "configs/meta-llama--Meta-Llama-3.1-8B.json",
                                                  NULL, TEMPLATES, NULL, &error);
  g_autoptr (msperf_model) big = msperf_model_load (DATA "configs/meta-llama--Meta-Llama-3.1-70B.json",
                                                    NULL, TEMPLATES, NULL, &error);
  msperf_model_runtime rt;
  msperf_model_kv_capacity cap, cap2;
  double w, kv, budget;

  (void) state;
  assert_non_null (m);
  assert_non_null (big);
  msperf_model_runtime_init (&rt, 141 * gib);
  assert_true (msperf_model_memory (m, &one, &w, &kv, &error));
  assert_true (msperf_model_kv_capacity_tokens (m, &one, &rt, &cap, &error));
  assert_true (cap.activation_bytes == gib);
  assert_true (cap.reserve_bytes == 3.5 * gib);
  assert_true (cap.terms.weight_bytes == w && cap.terms.kv_bytes_per_token == 131072);
  budget = 141 * gib * 0.9 - w - gib - 3.5 * gib;
  assert_true (cap.fits);
  assert_true (cap.tokens == (int64_t) floor (budget / 131072));
  /* two devices: half the weights and KV per token each, and the NCCL buffers (342 MiB) */
  assert_true (msperf_model_kv_capacity_tokens (m, &two, &rt, &cap2, &error));
  assert_true (cap2.reserve_bytes == 3.5 * gib + 358612992.0);
  assert_true (cap2.tokens > 2 * cap.tokens);
  /* TensorRT-LLM's share: 0.9 of what the weights, activations and reserves leave */
  rt.share_of_free = TRUE;
  assert_true (msperf_model_kv_capacity_tokens (m, &one, &rt, &cap2, &error));
  assert_true (cap2.usable_bytes == 141 * gib);
  assert_true (cap2.tokens == (int64_t) floor (0.9 * (141 * gib - w - gib - 3.5 * gib) / 131072));
  assert_true (cap2.tokens > cap.tokens);
  rt.share_of_free = FALSE;
  /* Llama-3.1-70B bf16 (141 GB of weights) does not fit one H200 */
  assert_true (msperf_model_kv_capacity_tokens (big, &one, &rt, &cap, &error));
  assert_false (cap.fits);
  assert_true (cap.tokens == 0);
  /* a runtime without a device is refused */
  msperf_model_runtime_init (&rt, 0);
  assert_false (msperf_model_kv_capacity_tokens (m, &one, &rt, &cap, &error));
  assert_non_null (strstr (error->message, "device memory"));
}

/* quantization_config selects the modes; options override them per part; weights follow. */
static void
test_quant_modes (void **state)
{
  msperf_model_layout l = { 8, 1, 1, 1, FALSE };
  msperf_model_options bf16 = { NULL, "bf16", NULL, NULL, NULL, NULL };
  msperf_model_options moe_only = { NULL, NULL, "bf16", "int4_wo", "fp8", NULL };
  msperf_model_options bad = { NULL, NULL, "w4a16_mxfp4", NULL, NULL, NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_model) fp8 = msperf_model_load (DATA "configs/deepseek-ai--DeepSeek-V3.json",
                                                    NULL, TEMPLATES, NULL, &error);
  g_autoptr (msperf_model) plain = msperf_model_load (DATA "configs/deepseek-ai--DeepSeek-V3.json",
                                                      NULL, TEMPLATES, &bf16, &error);
  g_autoptr (msperf_model) mixed = msperf_model_load (DATA "configs/deepseek-ai--DeepSeek-V3.json",
                                                      NULL, TEMPLATES, &moe_only, &error);
  double w8, w16, wm, kv16, kvm, total, active, mtp, emb;

  (void) state;
  assert_non_null (fp8);
  assert_non_null (plain);
  assert_non_null (mixed);
  assert_string_equal (msperf_model_quant_name (fp8, FALSE), "fp8_block");
  assert_string_equal (msperf_model_quant_name (fp8, TRUE), "fp8_block");
  assert_string_equal (msperf_model_quant_name (plain, TRUE), "bf16");
  assert_string_equal (msperf_model_quant_name (mixed, FALSE), "bf16");
  assert_string_equal (msperf_model_quant_name (mixed, TRUE), "int4_wo");
  assert_true (msperf_model_kv_fp8 (mixed));
  assert_true (msperf_model_memory (fp8, &l, &w8, &kv16, &error));
  assert_true (msperf_model_memory (plain, &l, &w16, &kv16, &error));
  assert_true (msperf_model_memory (mixed, &l, &wm, &kvm, &error));
  /* fp8_block: a byte per weight plus a float32 per 128×128 block; bf16 embeddings stay */
  assert_true (w8 < 0.53 * w16 && w8 > 0.5 * w16);
  assert_true (wm < w16 && wm > w8 * 0.4);
  assert_true (kvm == kv16 / 2);
  /* DeepSeek-V3: 671 B parameters, 37 B active */
  assert_true (msperf_model_params (plain, &total, &active, &mtp, &emb, &error));
  assert_true (fabs (total / 671e9 - 1) < 0.02 && fabs (active / 37e9 - 1) < 0.02);
  assert_true (mtp > 10e9 && emb == 129280.0 * 7168);
  assert_true (msperf_model_has_mtp (plain));
  /* MXFP4 is for experts only */
  assert_null (msperf_model_load (DATA "configs/deepseek-ai--DeepSeek-V3.json", NULL, TEMPLATES,
                                  &bad, &error));
  assert_non_null (strstr (error->message, "routed experts"));
}

/* A template without parameter counts: params is refused with the reason. */
static void
test_params_absent (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_model) m = msperf_model_load (DATA "configs/meta-llama--Meta-Llama-3.1-8B.json",
                                                  DATA "templates/toy_mlp.yaml", NULL, NULL, &error);
  double t, a, mtp, e;

  (void) state;
  assert_non_null (m);
  assert_false (msperf_model_params (m, &t, &a, &mtp, &e, &error));
  assert_non_null (strstr (error->message, "no parameter counts"));
  assert_false (msperf_model_has_mtp (m));   /* no counts: no MTP layers to draft with */
}

/* A dense config without num_nextn_predict_layers has no MTP layers. */
static void
test_has_mtp_dense (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_model) m = msperf_model_load (DATA "configs/meta-llama--Meta-Llama-3.1-8B.json",
                                                  NULL, TEMPLATES, NULL, &error);

  (void) state;
  assert_non_null (m);
  assert_false (msperf_model_has_mtp (m));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_expr_arithmetic),
    cmocka_unit_test (test_expr_syntax_errors),
    cmocka_unit_test (test_golden_qwen3_32b_prefill),
    cmocka_unit_test (test_golden_qwen3_32b_decode),
    cmocka_unit_test (test_golden_dsv3_prefill),
    cmocka_unit_test (test_golden_dsv3_decode),
    cmocka_unit_test (test_sequence_parallel),
    cmocka_unit_test (test_layout_refusals),
    cmocka_unit_test (test_pipeline_stages),
    cmocka_unit_test (test_bad_inputs),
    cmocka_unit_test (test_config_field_values),
    cmocka_unit_test (test_config_text_refused_before_parsing),
    cmocka_unit_test (test_new_family_template),
    cmocka_unit_test (test_memory_llama),
    cmocka_unit_test (test_kv_capacity_llama),
    cmocka_unit_test (test_quant_modes),
    cmocka_unit_test (test_params_absent),
    cmocka_unit_test (test_has_mtp_dense),
    cmocka_unit_test (test_fields_override),
    cmocka_unit_test (test_moe_allreduce),
    cmocka_unit_test (test_moe_bf16_fused),
    cmocka_unit_test (test_moe_int4_fused),
    cmocka_unit_test (test_moe_gqa_allreduce),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
