/* Tests of the cast_att module (plugins/cast_att/): the Cast V2 model of reference
 * att-model.md §3 and the module's model slot.
 *
 * Golden values: the upstream-asserted ones of §3.5 (graph-autofusion
 * tests/v35/ut/att/gen_model_info/api_perf_register/test_ascir_perf_v2.cpp: TestCastV2 30,
 * ...SameBitIntegerUsesDataCopyCostOnly 52, ...UInt8ToInt64UsesInterleaveCost 42,
 * ...Int64ToUInt8UsesPackCost 38, TestCastV2DynamicCallCountMultipliesFinalCost); the other
 * branch values are hand-derived from §3.3 and the §1.4 table, each derivation in a comment. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include <msperf/engine.h>
#include <msperf/plugin.h>
#include <msperf/att.h>
#include "../../plugins/cast_att/cast_model.h"

extern const msperf_plugin msperf_plugin_v1;

typedef struct {
  msperf_att_table *table;
  msperf_expr_ctx *ctx;
  cast_att_params p;
  cast_att_model m;
} fx;

static int
setup (void **state)
{
  g_autoptr (GError) error = NULL;
  fx *f = g_new0 (fx, 1);

  f->table = msperf_att_table_load_default (&error);
  if (f->table == NULL)
    fail_msg ("%s", error->message);
  f->ctx = msperf_expr_ctx_new ();
  cast_att_params_init (&f->p);
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  fx *f = *state;

  cast_att_model_clear (&f->m);
  cast_att_params_clear (&f->p);
  msperf_expr_ctx_free (f->ctx);
  msperf_att_table_free (f->table);
  g_free (f);
  return 0;
}

/* "a,64,b" into expressions (integers or symbols). */
static void
fill (fx *f, GPtrArray *into, const char *text)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);

  for (char **p = parts; *p != NULL; p++)
    {
      gint64 v;
      if (g_ascii_string_to_signed (*p, 10, 0, G_MAXINT64, &v, NULL))
        g_ptr_array_add (into, msperf_expr_int (f->ctx, v));
      else
        g_ptr_array_add (into, msperf_expr_symbol (f->ctx, *p));
    }
}

/* Runs the model; dims/os/is NULL = absent codegen parameters (the shape fallback). */
static const char *
run (fx *f, const char *in, const char *out, const char *shape, const char *dims,
     const char *os, const char *is)
{
  g_autoptr (GError) error = NULL;

  f->p.in_dtype = g_strdup (in);
  f->p.out_dtype = g_strdup (out);
  if (shape)
    fill (f, f->p.shape, shape);
  if (dims)
    fill (f, f->p.output_dims, dims);
  if (os)
    fill (f, f->p.output_strides, os);
  if (is)
    fill (f, f->p.input_strides, is);
  f->p.valid = dims != NULL;
  if (!cast_att_run (f->table, f->ctx, &f->p, &f->m, &error))
    fail_msg ("%s", error->message);
  return msperf_expr_str (f->m.cost);
}

static double
value_of (fx *f, GHashTable *bindings)
{
  g_autoptr (GError) error = NULL;
  double v = NAN;

  if (!msperf_expr_eval (f->m.cost, bindings, &v, &error))
    fail_msg ("%s", error->message);
  return v;
}

#define F ((fx *) *state)

/* §3.5 TestCastV2: float32 → float16, no parameters, R = ⌈129/64⌉ = 3: 20 + 4 + 3·(1 + 1). */
static void
test_cast_upstream_f32_to_f16_shape_fallback_is_30 (void **state)
{
  assert_string_equal (run (F, "float32", "float16", "129", NULL, NULL, NULL), "30");
  assert_int_equal (msperf_expr_ctx_n_variables (F->ctx), 0);
}

/* §3.5 same-bit int8 → uint8 [2,64]: (20 + 3 + 2·1 + R·(0 + 1))·C with R = 1, C = 2. */
static void
test_cast_upstream_same_bit_is_52 (void **state)
{
  assert_string_equal (run (F, "int8", "uint8", "2,64", "2,64", "64,1", "64,1"), "52");
  assert_string_equal (F->m.branch, "same_bit");
  assert_int_equal (msperf_expr_ctx_n_variables (F->ctx), 0);
}

/* §3.5 uint8 → int64 [64]: 20 + 8 + R·(5 + 1 + 1), R = 2. */
static void
test_cast_upstream_u8_to_i64_is_42 (void **state)
{
  assert_string_equal (run (F, "uint8", "int64", "64", "64", "1", "1"), "42");
  assert_string_equal (F->m.branch, "u8_s64");
}

/* §3.5 int64 → uint8 [64]: 20 + 8 + R·(1 + 1 + 1 + 1 + 1), R = 2. */
static void
test_cast_upstream_i64_to_u8_is_38 (void **state)
{
  assert_string_equal (run (F, "int64", "uint8", "64", "64", "1", "1"), "38");
  assert_string_equal (F->m.branch, "s64_u8");
}

/* §3.5 TestCastV2DynamicCallCountMultipliesFinalCost: both ternaries are built although their
 * conditions are numbers; the value is 28. */
static void
test_cast_upstream_dynamic_call_count_string (void **state)
{
  const char *name;
  const msperf_expr *def;

  assert_string_equal (run (F, "float32", "float16", "2,64", "2,64", "64,1", "64,1"),
                       "(((2 * cast_repeat_time) + 24) * cast_call_count)");
  assert_int_equal (msperf_expr_ctx_n_variables (F->ctx), 2);
  msperf_expr_ctx_variable (F->ctx, 0, &name, &def, NULL);
  assert_string_equal (name, "cast_repeat_time");
  assert_string_equal (msperf_expr_str (def),
                       "TernaryOp(IsEqual(64, 64), TernaryOp(IsEqual(64, 64), 2, 1), 1)");
  msperf_expr_ctx_variable (F->ctx, 1, &name, &def, NULL);
  assert_string_equal (name, "cast_call_count");
  assert_string_equal (msperf_expr_str (def),
                       "TernaryOp(IsEqual(64, 64), TernaryOp(IsEqual(64, 64), 1, 2), 2)");
  assert_true (value_of (F, NULL) == 28.0);
}

/* §3.5 dynamic stride (float32 → float16, symbols) and dynamic call count (float16 →
 * float32): the cost names both variables; two ternaries. */
static void
test_cast_upstream_dynamic_symbols_build_two_ternaries (void **state)
{
  const char *s = run (F, "float16", "float32", "cast_outer,cast_inner", "cast_outer,cast_inner",
                       "cast_output_stride,1", "cast_input_stride,1");
  const msperf_expr *def = msperf_expr_ctx_lookup (F->ctx, "cast_repeat_time");

  assert_non_null (strstr (s, "cast_repeat_time"));
  assert_non_null (strstr (s, "cast_call_count"));
  assert_int_equal (msperf_expr_ctx_n_variables (F->ctx), 2);
  assert_string_equal (msperf_expr_str (def),
                       "TernaryOp(IsEqual(cast_output_stride, cast_input_stride), "
                       "TernaryOp(IsEqual(cast_output_stride, cast_inner), "
                       "Ceiling((Rational(1 , 64) * cast_inner * cast_outer)), "
                       "Ceiling((Rational(1 , 64) * cast_inner))), "
                       "Ceiling((Rational(1 , 64) * cast_inner)))");
}

/* §3.5 same-bit dynamic (int32 → uint32): no ternary, C = cast_outer. */
static void
test_cast_upstream_same_bit_dynamic_has_no_ternary (void **state)
{
  const char *s = run (F, "int32", "uint32", "cast_outer,cast_inner", "cast_outer,cast_inner",
                       "cast_output_stride,1", "cast_input_stride,1");

  assert_int_equal (msperf_expr_ctx_n_variables (F->ctx), 0);
  assert_non_null (strstr (s, "cast_outer"));
  /* (20 + 3 + 2 + R·(0 + 1))·outer with R = ⌈inner/64⌉ */
  assert_string_equal (s, "((25 + Ceiling((Rational(1 , 64) * cast_inner))) * cast_outer)");
}

typedef struct {
  const char *in, *out, *dims;
  const char *expected;
  const char *branch;
} branch_case;

/* Every branch of §3.3 with R = 2 (dims = 2·elements per repeat, strides [1]); values from the
 * §1.4 rows: Load (0,0), mapped Store (0,1) except u8→i64 (0,5), Cast float↔float (4,1) else
 * (5,2), Duplicate/Pack/UnPack/(De)Interleave (8,1), And/Not/Vshrs (3,1), Adds (4,2); no row
 * for Or(u32), MaskPack(f16/u32), UpdateMask(64-bit), Load(int4). */
static const branch_case branch_cases[] = {
  /* 20 + 8 + [Store 2 + Dup 1 + And 2 + Adds 4 + Not 2 + Vshrs 2] (Or: no row) */
  { "float32", "bool", "128", "41", "f32_to_bool" },
  /* 20 + 5 + [Store 2 + Cast(default) 4] (MaskPack(f16): no row) */
  { "float16", "int4", "256", "31", "b4" },
  /* one_rep 64 (int4 absent → 64); Load(int4): no row */
  { "int4", "float16", "128", "31", "b4" },
  /* 20 + 8 + [Store 2 + Dup 1 + DeInterleave 2 + Cast i64→f32 4 + Cast f32→f16 2] */
  { "int64", "float16", "64", "39", "b64_transfer" },
  /* Interleave instead of DeInterleave (the input is under 4 bytes) */
  { "float16", "int64", "64", "39", "b64_transfer" },
  /* 20 + 8 + [Store 2 + Cast u8→f16 4 + UnPack 2 + Cast f16→f32 2] */
  { "uint8", "float32", "128", "38", "b8" },
  { "uint8", "int32", "128", "40", "b8" },  /* Cast f16→i32 is (5,2): 4 instead of 2 */
  /* 20 + 8 + [Store 2 + Cast u8→f16 4 + Cast u8→int4 4 + Pack 2 + Pack 2 + Cast f16→int4 4] */
  { "uint8", "int4", "256", "46", "b8" },
  { "uint8", "int16", "256", "35", "b8" },  /* 20 + 5 + [2 + 4 + 4] */
  { "int8", "float32", "128", "33", "b8" },  /* 20 + 5 + [2 + 4 + 2] */
  { "float32", "int8", "128", "33", "b8" },  /* 20 + 5 + [2 + Cast f32→f16 2 + Cast f16→i8 4] */
  { "int16", "int8", "256", "35", "b8" },    /* 20 + 5 + [2 + 4 + 4] */
  { "int16", "uint8", "256", "31", "b8" },   /* no final Cast: 20 + 5 + [2 + 4] */
  /* 20 + 8 + [Store 2 + Cast 4 + Dup 2 + DeInterleave 2] */
  { "int64", "float32", "64", "38", "b64" },
  { "int64", "int32", "64", "38", "b64" },
  { "float32", "int64", "64", "31", "b64" },  /* the input is smaller: 20 + 5 + [2 + 4] */
  { "int32", "int64", "64", "31", "b64" },
  /* 20 + 5 + [Store 2 + Cast i32→f32 4 + Cast f32→f16 2] */
  { "int32", "float16", "128", "33", "i32_to_f16" },
  /* common: float↔float (4,1): 20 + 4 + [2 + 2]; other pairs (5,2): 20 + 5 + [2 + 4] */
  { "float16", "float32", "128", "28", "common" },
  { "bfloat16", "float32", "128", "28", "common" },
  { "bfloat16", "int8", "256", "31", "common" },
  { "float16", "int32", "128", "31", "common" },
  /* same-bit: 20 + 3 + [UpdateMask 2 + Store 2]; 64-bit has no UpdateMask row: 20 + 0 + 2 */
  { "int16", "uint16", "256", "27", "same_bit" },
  { "uint32", "int32", "128", "27", "same_bit" },
  { "int64", "uint64", "64", "22", "same_bit" },
};

static void
test_cast_every_branch_hand_derived (void **state)
{
  for (size_t i = 0; i < G_N_ELEMENTS (branch_cases); i++)
    {
      const branch_case *c = &branch_cases[i];
      const char *got;

      teardown (state);
      setup (state);
      got = run (F, c->in, c->out, c->dims, c->dims, "1", "1");
      if (strcmp (got, c->expected) != 0 || strcmp (F->m.branch, c->branch) != 0)
        fail_msg ("%s -> %s: got %s (%s), expected %s (%s)", c->in, c->out, got, F->m.branch,
                  c->expected, c->branch);
    }
}

/* §3.2: without codegen parameters, or with dims but no strides, R comes from the shape
 * product and C = 1; a same-bit cast without parameters too. */
static void
test_cast_missing_parameters_fall_back_to_shape_product (void **state)
{
  /* [2,64] without strides: R = ⌈128/64⌉ = 2, C = 1: 24 + 2·2 */
  assert_string_equal (run (F, "float32", "float16", "2,64", "2,64", NULL, NULL), "28");
  assert_int_equal (msperf_expr_ctx_n_variables (F->ctx), 0);
  teardown (state);
  setup (state);
  /* same-bit without parameters: R = ⌈(2·256)/256⌉ = 2, C = 1: 20 + 3 + 2 + 2 */
  assert_string_equal (run (F, "int8", "uint8", "2,256", NULL, NULL, NULL), "27");
  teardown (state);
  setup (state);
  /* a symbolic shape stays symbolic */
  assert_string_equal (run (F, "float32", "float16", "s0,128", NULL, NULL, NULL),
                       "((2 * Ceiling((2 * s0))) + 24)");
}

/* The ledger keeps every call, with no_table_entry on the ones the table lacks. */
static void
test_cast_ledger_keeps_missing_entries (void **state)
{
  GPtrArray *rows;
  gboolean saw_or = FALSE;

  run (F, "float32", "bool", "128", "128", "1", "1");
  rows = msperf_att_vf_ledger (F->m.vf);
  assert_int_equal (rows->len, 8);  /* Load, Store, Duplicate, And, Adds, Or, Not, Vshrs */
  for (guint i = 0; i < rows->len; i++)
    {
      msperf_att_ledger_row *r = g_ptr_array_index (rows, i);
      msperf_att_component *c = g_ptr_array_index (r->components, 0);
      if (strcmp (c->perf_type, "Or") == 0)
        {
          saw_or = TRUE;
          assert_true (c->no_table_entry);
          assert_string_equal (c->perf_dtype, "uint32");
        }
      else
        assert_false (c->no_table_entry);
    }
  assert_true (saw_or);
}

/* Substituting numbers into the symbolic cost equals the model run on those numbers, for random
 * shapes, contiguous or strided. */
static void
test_cast_symbolic_substitution_equals_static_run (void **state)
{
  GRand *rand = g_rand_new_with_seed (42);
  g_autoptr (GHashTable) b = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  run (F, "float16", "int8", "o,n", "o,n", "os,1", "is,1");
  for (int k = 0; k < 40; k++)
    {
      int64_t o = g_rand_int_range (rand, 1, 50), n = g_rand_int_range (rand, 1, 5000);
      int64_t os = g_rand_boolean (rand) ? n : n + g_rand_int_range (rand, 1, 64);
      int64_t is = g_rand_boolean (rand) ? os : n;
      g_autofree char *dims = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, o, n);
      g_autofree char *so = g_strdup_printf ("%" G_GINT64_FORMAT ",1", os);
      g_autofree char *si = g_strdup_printf ("%" G_GINT64_FORMAT ",1", is);
      msperf_expr_ctx *sctx = msperf_expr_ctx_new ();
      fx g = { F->table, sctx, { 0 }, { 0 } };
      double sym, direct;

      g_hash_table_replace (b, g_strdup ("o"), msperf_expr_int (F->ctx, o));
      g_hash_table_replace (b, g_strdup ("n"), msperf_expr_int (F->ctx, n));
      g_hash_table_replace (b, g_strdup ("os"), msperf_expr_int (F->ctx, os));
      g_hash_table_replace (b, g_strdup ("is"), msperf_expr_int (F->ctx, is));
      sym = value_of (F, b);
      cast_att_params_init (&g.p);
      run (&g, "float16", "int8", dims, dims, so, si);
      direct = value_of (&g, NULL);
      cast_att_model_clear (&g.m);
      cast_att_params_clear (&g.p);
      msperf_expr_ctx_free (sctx);
      /* and by hand: common branch (5,2): (20 + 5 + 3R)·C */
      {
        int64_t r1 = (n + 127) / 128, ra = (o * n + 127) / 128;
        gboolean one = os == is && os == n;
        double hand = (double) ((25 + 3 * (one ? ra : r1)) * (one ? 1 : o));
        assert_true (direct == hand);
      }
      if (sym != direct)
        fail_msg ("o=%" G_GINT64_FORMAT " n=%" G_GINT64_FORMAT ": symbolic %g, static %g", o, n,
                  sym, direct);
    }
  g_rand_free (rand);
}

/* Bad parameters are refused with a clear message (bad[] describes each att object, built below). */
static void
test_cast_refuses_bad_parameters (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_value) att = NULL;
  const char *bad[] = {
    "{\"kind\":\"cast\",\"in_dtype\":\"float99\",\"out_dtype\":\"int8\",\"shape\":[4]}",
    "{\"kind\":\"cast\",\"out_dtype\":\"int8\",\"shape\":[4]}",
    "{\"kind\":\"cast\",\"in_dtype\":\"int8\",\"out_dtype\":\"int8\",\"shape\":[-4]}",
    "{\"kind\":\"cast\",\"in_dtype\":\"int8\",\"out_dtype\":\"int8\",\"shape\":[\"a b\"]}",
    "{\"kind\":\"cast\",\"in_dtype\":\"int8\",\"out_dtype\":\"int8\",\"shape\":4}",
  };
  const char *expect[] = { "unknown dtype 'float99'", "att.in_dtype is missing", "att.shape[0]",
                           "att.shape[0]", "att.shape" };

  (void) state;
  for (size_t i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (msperf_expr_ctx) ctx = msperf_expr_ctx_new ();
      cast_att_params p;
      cast_att_params_init (&p);
      /* Build the att MAP by hand from the few shapes above (no JSON dependency). */
      att = msperf_value_new (MSPERF_VALUE_MAP);
      {
        msperf_value *kind = msperf_value_new (MSPERF_VALUE_STRING);
        kind->s = g_strdup ("cast");
        msperf_value_map_set (att, "kind", kind);
      }
      if (i != 1)
        {
          msperf_value *d = msperf_value_new (MSPERF_VALUE_STRING);
          d->s = g_strdup (i == 0 ? "float99" : "int8");
          msperf_value_map_set (att, "in_dtype", d);
        }
      {
        msperf_value *d = msperf_value_new (MSPERF_VALUE_STRING);
        d->s = g_strdup ("int8");
        msperf_value_map_set (att, "out_dtype", d);
      }
      {
        msperf_value *shape = msperf_value_new (i == 4 ? MSPERF_VALUE_INT : MSPERF_VALUE_LIST);
        if (i == 4)
          shape->i = 4;
        else
          {
            msperf_value *e = msperf_value_new (i == 3 ? MSPERF_VALUE_STRING : MSPERF_VALUE_INT);
            if (i == 3)
              e->s = g_strdup ("a b");
            else
              e->i = i == 2 ? -4 : 4;
            msperf_value_list_append (shape, e);
          }
        msperf_value_map_set (att, "shape", shape);
      }
      assert_false (cast_att_params_from_value (ctx, att, &p, &error));
      if (strstr (error->message, expect[i]) == NULL)
        fail_msg ("case %zu (%s): message '%s' lacks '%s'", i, bad[i], error->message, expect[i]);
      g_clear_error (&error);
      g_clear_pointer (&att, msperf_value_free);
      cast_att_params_clear (&p);
    }
}

/* Seed 004 FR1 (「缺失或无效时…回退」): parameters that disagree — list lengths, or an
 * output_dims product that is not the shape's element count — fall back to the shape-product
 * path with a warning; only a missing shape (nothing to fall back to) is refused. */
static void
test_cast_disagreeing_parameters_fall_back_with_warning (void **state)
{
  g_autoptr (GError) error = NULL;

  /* lengths: shape [2, 64] → R = ⌈128/64⌉ = 2, C = 1: 20 + 4 + 2·(1 + 1) = 28 */
  assert_string_equal (run (F, "float32", "float16", "2,64", "2,64", "64", "64,1"), "28");
  assert_non_null (F->m.warning);
  assert_non_null (strstr (F->m.warning, "disagree"));
  assert_non_null (strstr (F->m.warning, "shape product"));
  assert_int_equal (msperf_expr_ctx_n_variables (F->ctx), 0);   /* no stride ternary */
  cast_att_model_clear (&F->m);
  cast_att_params_clear (&F->p);
  cast_att_params_init (&F->p);
  /* products: dims 2·64 = 128 elements, shape 129 → §3.5's fallback answer 30 */
  assert_string_equal (run (F, "float32", "float16", "129", "2,64", "64,1", "64,1"), "30");
  assert_non_null (strstr (F->m.warning, "128 elements, the shape 129"));
  cast_att_model_clear (&F->m);
  cast_att_params_clear (&F->p);
  cast_att_params_init (&F->p);
  /* agreeing parameters: no warning */
  run (F, "float32", "float16", "2,64", "2,64", "64,1", "64,1");
  assert_null (F->m.warning);
  cast_att_model_clear (&F->m);
  cast_att_params_clear (&F->p);
  cast_att_params_init (&F->p);
  /* disagreeing without a shape: refused */
  F->p.in_dtype = g_strdup ("float32");
  F->p.out_dtype = g_strdup ("float16");
  fill (F, F->p.output_dims, "2,64");
  fill (F, F->p.output_strides, "64");
  fill (F, F->p.input_strides, "64,1");
  F->p.valid = TRUE;
  assert_false (cast_att_run (F->table, F->ctx, &F->p, &F->m, &error));
  assert_non_null (strstr (error->message, "no 'shape' to fall back to"));
  g_clear_error (&error);
  cast_att_params_clear (&F->p);
  cast_att_params_init (&F->p);
  F->p.in_dtype = g_strdup ("float32");
  F->p.out_dtype = g_strdup ("float16");
  assert_false (cast_att_run (F->table, F->ctx, &F->p, &F->m, &error));
  assert_non_null (strstr (error->message, "needs 'shape'"));
}

/* The module's model slot: ANALYTIC, method att, cycles in details, latency from the clock;
 * without a clock latency NAN and miss reason no_vector_clock. */
static msperf_result *
module_query (const char *device, const char *in, const char *out, gint64 n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_engine) e = msperf_engine_new ();
  g_autoptr (msperf_op) op = msperf_op_new ("ascir.Cast");
  msperf_result *r = msperf_result_new ();
  msperf_query q = { 0 };
  msperf_value *v, *shape;
  void *st = NULL;

  msperf_engine_set_plugin_search_defaults (e, FALSE);
  if (!msperf_engine_set_device_profile (e, device, &error) || !msperf_engine_start (e, &error))
    fail_msg ("%s", error->message);
  op->att = msperf_value_new (MSPERF_VALUE_MAP);
  v = msperf_value_new (MSPERF_VALUE_STRING);
  v->s = g_strdup ("cast");
  msperf_value_map_set (op->att, "kind", v);
  v = msperf_value_new (MSPERF_VALUE_STRING);
  v->s = g_strdup (in);
  msperf_value_map_set (op->att, "in_dtype", v);
  v = msperf_value_new (MSPERF_VALUE_STRING);
  v->s = g_strdup (out);
  msperf_value_map_set (op->att, "out_dtype", v);
  shape = msperf_value_new (MSPERF_VALUE_LIST);
  v = msperf_value_new (MSPERF_VALUE_INT);
  v->i = n;
  msperf_value_list_append (shape, v);
  msperf_value_map_set (op->att, "shape", shape);
  q.engine = e;
  q.op = op;
  q.mode = "cast_att";
  if (!msperf_plugin_v1.init (e, &st, &error))
    fail_msg ("%s", error->message);
  msperf_plugin_v1.model (e, st, &q, r);
  msperf_plugin_v1.fini (st);
  return r;
}

static const msperf_value *
detail (const msperf_result *r, const char *key)
{
  return msperf_value_lookup (msperf_result_details (r), key);
}

static void
test_cast_module_answers_analytic_with_clock (void **state)
{
  g_autoptr (msperf_result) r = module_query ("ascend-a3", "float32", "float16", 129);

  (void) state;
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (r->method, "att");
  assert_null (r->miss_reason);
  assert_int_equal (detail (r, "cycles")->i, 30);
  /* 30 cycles at the A3 profile's 1.85 GHz vector clock */
  assert_float_equal (r->latency_us, 30.0 / 1.85 / 1e3, 1e-12);
  assert_string_equal (msperf_value_get_string (detail (r, "expression")), "30");
  assert_int_equal (detail (r, "ledger")->items->len, 3);
  assert_non_null (detail (r, "ternaries"));
}

static void
test_cast_module_without_clock_reports_cycles_only (void **state)
{
  g_autoptr (msperf_result) r = module_query ("nvidia-h200", "int64", "uint8", 64);

  (void) state;
  assert_int_equal (r->source, MSPERF_SOURCE_ANALYTIC);
  assert_true (isnan (r->latency_us));
  assert_string_equal (r->miss_reason, "no_vector_clock");
  assert_int_equal (detail (r, "cycles")->i, 38);
}

static void
test_cast_module_refuses_bad_dtype_with_error_status (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_engine) e = msperf_engine_new ();
  g_autoptr (msperf_op) op = msperf_op_new ("ascir.Cast");
  g_autoptr (msperf_result) r = msperf_result_new ();
  msperf_query q = { 0 };
  msperf_value *v;
  void *st = NULL;

  (void) state;
  msperf_engine_set_plugin_search_defaults (e, FALSE);
  assert_true (msperf_engine_start (e, &error));
  op->att = msperf_value_new (MSPERF_VALUE_MAP);
  v = msperf_value_new (MSPERF_VALUE_STRING);
  v->s = g_strdup ("cast");
  msperf_value_map_set (op->att, "kind", v);
  v = msperf_value_new (MSPERF_VALUE_STRING);
  v->s = g_strdup ("floatX");
  msperf_value_map_set (op->att, "in_dtype", v);
  q.engine = e;
  q.op = op;
  assert_true (msperf_plugin_v1.init (e, &st, &error));
  assert_int_equal (msperf_plugin_v1.model (e, st, &q, r), MSPERF_ERROR);
  assert_non_null (strstr (r->miss_reason, "unknown dtype 'floatX'"));
  msperf_plugin_v1.fini (st);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_cast_upstream_f32_to_f16_shape_fallback_is_30, setup, teardown),
    cmocka_unit_test_setup_teardown (test_cast_upstream_same_bit_is_52, setup, teardown),
    cmocka_unit_test_setup_teardown (test_cast_upstream_u8_to_i64_is_42, setup, teardown),
    cmocka_unit_test_setup_teardown (test_cast_upstream_i64_to_u8_is_38, setup, teardown),
    cmocka_unit_test_setup_teardown (test_cast_upstream_dynamic_call_count_string, setup, teardown),
    cmocka_unit_test_setup_teardown (test_cast_upstream_dynamic_symbols_build_two_ternaries, setup, teardown),
    cmocka_unit_test_setup_teardown (test_cast_upstream_same_bit_dynamic_has_no_ternary, setup, teardown),
    cmocka_unit_test_setup_teardown (test_cast_every_branch_hand_derived, setup, teardown),
    cmocka_unit_test_setup_teardown (test_cast_missing_parameters_fall_back_to_shape_product, setup, teardown),
    cmocka_unit_test_setup_teardown (test_cast_ledger_keeps_missing_entries, setup, teardown),
    cmocka_unit_test_setup_teardown (test_cast_symbolic_substitution_equals_static_run, setup, teardown),
    cmocka_unit_test (test_cast_refuses_bad_parameters),
    cmocka_unit_test_setup_teardown (test_cast_disagreeing_parameters_fall_back_with_warning, setup, teardown),
    cmocka_unit_test (test_cast_module_answers_analytic_with_clock),
    cmocka_unit_test (test_cast_module_without_clock_reports_cycles_only),
    cmocka_unit_test (test_cast_module_refuses_bad_dtype_with_error_status),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
