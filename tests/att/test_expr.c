/* Tests of the symbolic expressions (core/expr.c, core/expr_print.c). Golden strings come from
 * reference att-model.md §2.3 (printing rules and their worked examples) and §2.6 (strings the
 * upstream V2 UT asserts: mirror-cann/graph-autofusion test_ascir_perf_v2.cpp). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/expr.h>

typedef struct {
  msperf_expr_ctx *ctx;
} fx;

static int
setup (void **state)
{
  fx *f = g_new0 (fx, 1);
  f->ctx = msperf_expr_ctx_new ();
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  fx *f = *state;
  msperf_expr_ctx_free (f->ctx);
  g_free (f);
  return 0;
}

#define CTX (((fx *) *state)->ctx)
#define I(v) msperf_expr_int (CTX, (v))
#define S(n) msperf_expr_symbol (CTX, (n))

/* §2.6 TestCastV2DynamicCallCountMultipliesFinalCost and §2.3 "24 + 2·R → ((2 * R) + 24)". */
static void
test_expr_prints_upstream_cast_call_count_form (void **state)
{
  msperf_expr *r = S ("cast_repeat_time"), *c = S ("cast_call_count");
  msperf_expr *sum = msperf_expr_add (msperf_expr_add (I (20), I (4)),
                                      msperf_expr_mul (r, I (2)));

  assert_string_equal (msperf_expr_str (sum), "((2 * cast_repeat_time) + 24)");
  assert_string_equal (msperf_expr_str (msperf_expr_mul (sum, c)),
                       "(((2 * cast_repeat_time) + 24) * cast_call_count)");
  assert_string_equal (msperf_expr_str (msperf_expr_add (I (24), msperf_expr_mul (I (2), S ("R")))),
                       "((2 * R) + 24)");
}

/* §2.3 examples: a − 2·b, 2/x, x², R/2. */
static void
test_expr_prints_section_2_3_examples (void **state)
{
  msperf_expr *a = S ("a"), *b = S ("b"), *x = S ("x");

  assert_string_equal (msperf_expr_str (msperf_expr_sub (a, msperf_expr_mul (I (2), b))),
                       "(a - (2 * b))");
  assert_string_equal (msperf_expr_str (msperf_expr_div (I (2), x)), "(2 / (x))");
  assert_string_equal (msperf_expr_str (msperf_expr_mul (x, x)), "(x * x)");
  assert_string_equal (msperf_expr_str (msperf_expr_div (S ("R"), I (2))),
                       "(R * Rational(1 , 2))");
  /* x⁻¹ alone is a Pow with a non-positive exponent: Pow(x, -1). */
  assert_string_equal (msperf_expr_str (msperf_expr_pow_int (x, -1)), "Pow(x, -1)");
  assert_string_equal (msperf_expr_str (msperf_expr_div (a, msperf_expr_mul (x, x))),
                       "(a / ((x * x)))");
}

/* §2.6 Load ternary: a negative constant stays among the positive terms ("+ -256") and
 * "(1666 * …)" sorts before "-256". The branches are elided upstream; a and b stand in. */
static void
test_expr_prints_load_ternary_with_negative_constant (void **state)
{
  msperf_expr *prod = msperf_expr_mul (msperf_expr_mul (I (1666), S ("z4t_size")), S ("z0z1t_size"));
  msperf_expr *t = msperf_expr_ternary (MSPERF_COND_LT, msperf_expr_sub (prod, I (256)), I (0),
                                        S ("a"), S ("b"));

  assert_string_equal (msperf_expr_str (t),
                       "TernaryOp(((1666 * z0z1t_size * z4t_size) + -256) < 0, a, b)");
}

/* §2.6 Store ternary: a relational inside IsEqual. */
static void
test_expr_prints_store_ternary_with_relational (void **state)
{
  msperf_expr *z = S ("z6t_size");
  msperf_expr *lt = msperf_expr_cmp (MSPERF_CMP_LT, msperf_expr_mul (I (8), z), I (128));
  msperf_expr *t = msperf_expr_ternary (MSPERF_COND_EQ, lt, I (0), z, I (16));

  assert_string_equal (msperf_expr_str (t),
                       "TernaryOp(IsEqual(ExpectLt((8 * z6t_size), 128), 0), z6t_size, 16)");
}

/* §2.3: > and >= canonicalise to < and <= with swapped operands; Eq/Ne sort. */
static void
test_expr_relationals_canonicalise_and_sort (void **state)
{
  assert_string_equal (msperf_expr_str (msperf_expr_cmp (MSPERF_CMP_GT, S ("a"), S ("b"))),
                       "ExpectLt(b, a)");
  assert_string_equal (msperf_expr_str (msperf_expr_cmp (MSPERF_CMP_GE, S ("a"), I (3))),
                       "ExpectLe(3, a)");
  assert_string_equal (msperf_expr_str (msperf_expr_cmp (MSPERF_CMP_EQ, S ("b"), S ("a"))),
                       "ExpectEq(a, b)");
  assert_string_equal (msperf_expr_str (msperf_expr_cmp (MSPERF_CMP_NE, S ("z"), I (1))),
                       "ExpectNe(1, z)");
  /* numbers fold */
  assert_string_equal (msperf_expr_str (msperf_expr_cmp (MSPERF_CMP_LT, I (1), I (2))), "1");
}

/* §2.4: nested ternaries and every condition's printed form. */
static void
test_expr_prints_nested_ternaries (void **state)
{
  msperf_expr *inner = msperf_expr_ternary (MSPERF_COND_GE, S ("a"), I (4), I (1), S ("b"));
  msperf_expr *outer = msperf_expr_ternary (MSPERF_COND_EQ, S ("a"), S ("c"), inner, I (2));

  assert_string_equal (msperf_expr_str (outer),
                       "TernaryOp(IsEqual(a, c), TernaryOp(a >= 4, 1, b), 2)");
  assert_string_equal (msperf_expr_str (msperf_expr_ternary (MSPERF_COND_GT, S ("a"), I (1), I (1), I (0))),
                       "TernaryOp(a > 1, 1, 0)");
  assert_string_equal (msperf_expr_str (msperf_expr_ternary (MSPERF_COND_LE, S ("a"), I (1), I (1), I (0))),
                       "TernaryOp(a <= 1, 1, 0)");
}

/* §2.3: Max/Min keep argument order and nest to the left; numbers fold. */
static void
test_expr_max_min_order_and_folding (void **state)
{
  msperf_expr *m = msperf_expr_max (msperf_expr_max (S ("b"), S ("a")), S ("c"));

  assert_string_equal (msperf_expr_str (m), "Max(Max(b, a), c)");
  assert_string_equal (msperf_expr_str (msperf_expr_min (S ("y"), S ("x"))), "Min(y, x)");
  assert_string_equal (msperf_expr_str (msperf_expr_max (I (3), I (8))), "8");
  assert_string_equal (msperf_expr_str (msperf_expr_max (msperf_expr_max (I (3), S ("a")), I (8))),
                       "Max(8, a)");
  assert_string_equal (msperf_expr_str (msperf_expr_max (S ("a"), S ("a"))), "a");
}

/* §2.1 canonical form: flattening, folding, like terms, zero/one removal, no distribution. */
static void
test_expr_canonical_form (void **state)
{
  msperf_expr *x = S ("x"), *y = S ("y");
  msperf_expr *xy = msperf_expr_add (x, y);

  assert_string_equal (msperf_expr_str (msperf_expr_add (x, x)), "(2 * x)");
  assert_string_equal (msperf_expr_str (msperf_expr_sub (x, x)), "0");
  assert_string_equal (msperf_expr_str (msperf_expr_mul (I (0), x)), "0");
  assert_string_equal (msperf_expr_str (msperf_expr_mul (I (1), x)), "x");
  assert_string_equal (msperf_expr_str (msperf_expr_add (I (0), x)), "x");
  assert_string_equal (msperf_expr_str (msperf_expr_mul (msperf_expr_mul (x, x), x)), "(x * x * x)");
  assert_string_equal (msperf_expr_str (msperf_expr_div (msperf_expr_mul (x, x), x)), "x");
  /* a product is never distributed over a sum */
  assert_string_equal (msperf_expr_str (msperf_expr_mul (I (2), xy)), "((x + y) * 2)");
  assert_string_equal (msperf_expr_str (msperf_expr_add (xy, msperf_expr_add (x, I (3)))),
                       "((2 * x) + 3 + y)");
  assert_string_equal (msperf_expr_str (msperf_expr_add (msperf_expr_mul (I (3), x),
                                                         msperf_expr_mul (x, I (-3)))), "0");
  assert_string_equal (msperf_expr_str (msperf_expr_neg (x)), "(-1 * x)");
  /* §2.3: no positive term at all */
  assert_string_equal (msperf_expr_str (msperf_expr_sub (msperf_expr_neg (x), y)), "( - x - y)");
  assert_true (msperf_expr_equal (msperf_expr_add (x, y), msperf_expr_add (y, x)));
  assert_true (msperf_expr_equal (msperf_expr_mul (x, y), msperf_expr_mul (y, x)));
}

/* §2.1/§2.3 numbers: exact rationals, doubles printed with 15 digits and a ".0" mark. */
static void
test_expr_numbers_rationals_and_doubles (void **state)
{
  assert_string_equal (msperf_expr_str (msperf_expr_div (I (6), I (4))), "Rational(3 , 2)");
  assert_string_equal (msperf_expr_str (msperf_expr_div (I (-1), I (2))), "Rational(-1 , 2)");
  assert_string_equal (msperf_expr_str (msperf_expr_div (I (8), I (4))), "2");
  assert_string_equal (msperf_expr_str (msperf_expr_rational (CTX, 4, -6)), "Rational(-2 , 3)");
  /* §2.3: C++ float parameters print widened */
  assert_string_equal (msperf_expr_str (msperf_expr_double (CTX, 160.0)), "160.0");
  assert_string_equal (msperf_expr_str (msperf_expr_double (CTX, (double) 6.4088f)),
                       "6.40880012512207");
  assert_string_equal (msperf_expr_str (msperf_expr_double (CTX, 2.5)), "2.5");
  /* nested rationals: a rational coefficient inside a sum */
  assert_string_equal (msperf_expr_str (msperf_expr_add (msperf_expr_div (S ("x"), I (3)), I (1))),
                       "((Rational(1 , 3) * x) + 1)");
  /* a double coefficient stays a double */
  assert_string_equal (msperf_expr_str (msperf_expr_mul (msperf_expr_double (CTX, 0.5), S ("n"))),
                       "(0.5 * n)");
}

/* Ceiling/floor/mod fold exactly on numbers and print Ceiling(x) otherwise. */
static void
test_expr_rounding_and_mod (void **state)
{
  assert_string_equal (msperf_expr_str (msperf_expr_ceil_div (I (129), I (64))), "3");
  assert_string_equal (msperf_expr_str (msperf_expr_floor_div (I (129), I (64))), "2");
  assert_string_equal (msperf_expr_str (msperf_expr_ceil_div (I (-129), I (64))), "-2");
  assert_string_equal (msperf_expr_str (msperf_expr_floor_div (I (-129), I (64))), "-3");
  assert_string_equal (msperf_expr_str (msperf_expr_mod (I (-7), I (3))), "2");
  assert_string_equal (msperf_expr_str (msperf_expr_mod (S ("a"), I (3))), "Mod(a, 3)");
  assert_string_equal (msperf_expr_str (msperf_expr_ceil_div (S ("n"), I (64))),
                       "Ceiling((Rational(1 , 64) * n))");
  assert_string_equal (msperf_expr_str (msperf_expr_floor (msperf_expr_double (CTX, 2.5))), "2");
  assert_string_equal (msperf_expr_str (msperf_expr_abs (I (-4))), "4");
  assert_string_equal (msperf_expr_str (msperf_expr_abs (S ("q"))), "Abs(q)");
  assert_string_equal (msperf_expr_str (msperf_expr_pow (S ("q"), S ("p"))), "Pow(q, p)");
  assert_string_equal (msperf_expr_str (msperf_expr_pow_int (I (2), 10)), "1024");
  assert_string_equal (msperf_expr_str (msperf_expr_pow_int (I (2), -2)), "Rational(1 , 4)");
  assert_string_equal (msperf_expr_str (msperf_expr_pow_int (msperf_expr_mul (I (2), S ("q")), 2)),
                       "((q * q) * 4)");
}

/* Named variables: fresh names prefix, prefix1, prefix2 (upstream GetPerfVar). */
static void
test_expr_fresh_variable_names (void **state)
{
  msperf_expr *v0 = msperf_expr_ctx_define_fresh (CTX, "mte2_pipe_head", I (1), NULL);
  msperf_expr *v1 = msperf_expr_ctx_define_fresh (CTX, "mte2_pipe_head", I (2), NULL);
  msperf_expr *v2 = msperf_expr_ctx_define_fresh (CTX, "mte2_pipe_head", I (3), "third");
  const char *name, *desc;
  const msperf_expr *def;

  assert_string_equal (msperf_expr_str (v0), "mte2_pipe_head");
  assert_string_equal (msperf_expr_str (v1), "mte2_pipe_head1");
  assert_string_equal (msperf_expr_str (v2), "mte2_pipe_head2");
  assert_int_equal (msperf_expr_ctx_n_variables (CTX), 3);
  msperf_expr_ctx_variable (CTX, 2, &name, &def, &desc);
  assert_string_equal (name, "mte2_pipe_head2");
  assert_string_equal (msperf_expr_str (def), "3");
  assert_string_equal (desc, "third");
  assert_null (msperf_expr_ctx_define (CTX, "not a name", I (1), NULL));
  assert_null (S ("1x"));
}

/* §2.5: the inlined form shows the ternary text where the variable was; nested variables
 * resolve in dependency order; evaluation picks branches. */
static void
test_expr_inline_and_evaluate_variables (void **state)
{
  msperf_expr *inner = msperf_expr_ctx_define (CTX, "v_in",
      msperf_expr_ternary (MSPERF_COND_LT, S ("s"), I (10), I (1), I (2)), NULL);
  msperf_expr *outer = msperf_expr_ctx_define (CTX, "v_out",
      msperf_expr_ternary (MSPERF_COND_EQ, S ("s"), I (3), inner, I (7)), NULL);
  msperf_expr *e = msperf_expr_add (msperf_expr_mul (I (2), outer), I (5));
  g_autofree char *inl = msperf_expr_str_inlined (e, NULL);
  g_autoptr (GHashTable) b = g_hash_table_new (g_str_hash, g_str_equal);
  double v = 0;

  assert_string_equal (msperf_expr_str (e), "((2 * v_out) + 5)");
  assert_string_equal (inl, "((2 * TernaryOp(IsEqual(s, 3), TernaryOp(s < 10, 1, 2), 7)) + 5)");
  g_hash_table_insert (b, "s", I (3));
  assert_true (msperf_expr_eval (e, b, &v, NULL));
  assert_true (v == 7.0);
  g_hash_table_insert (b, "s", I (4));
  assert_true (msperf_expr_eval (e, b, &v, NULL));
  assert_true (v == 19.0);
}

static void
test_expr_evaluation_errors (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) b = g_hash_table_new (g_str_hash, g_str_equal);
  msperf_expr *e = msperf_expr_add (S ("s0"), I (1));
  double v = 0;

  assert_false (msperf_expr_eval (e, NULL, &v, &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_UNBOUND));
  assert_non_null (strstr (error->message, "'s0'"));
  g_clear_error (&error);

  g_hash_table_insert (b, "d", I (0));
  assert_false (msperf_expr_eval (msperf_expr_div (I (4), S ("d")), b, &v, &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID));
  assert_non_null (strstr (error->message, "division by zero"));
  g_clear_error (&error);

  assert_false (msperf_expr_eval (msperf_expr_mod (I (4), S ("d")), b, &v, &error));
  assert_non_null (strstr (error->message, "division by zero"));
  g_clear_error (&error);

  /* a literal zero divisor: kept for evaluation, refused by the checked form */
  assert_false (msperf_expr_eval (msperf_expr_div (I (1), I (0)), NULL, &v, &error));
  g_clear_error (&error);
  assert_null (msperf_expr_div_checked (S ("x"), I (0), &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID));
  g_clear_error (&error);

  /* the branch not taken may divide by zero */
  assert_true (msperf_expr_eval (msperf_expr_ternary (MSPERF_COND_EQ, S ("d"), I (0), I (0),
                                                      msperf_expr_div (I (1), S ("d"))),
                                 b, &v, &error));
  assert_true (v == 0.0);

  /* a variable defined through itself */
  msperf_expr_ctx_define (CTX, "loop", msperf_expr_add (S ("loop"), I (1)), NULL);
  assert_false (msperf_expr_eval (S ("loop"), NULL, &v, &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID));
  g_clear_error (&error);
  assert_null (msperf_expr_str_inlined (S ("loop"), &error));
  assert_non_null (error);
}

/* Substitution rebuilds canonically and agrees with evaluation. */
static void
test_expr_substitution_matches_evaluation (void **state)
{
  msperf_expr *e = msperf_expr_mul (msperf_expr_add (msperf_expr_ceil_div (S ("n"), I (64)), I (25)),
                                    S ("c"));
  msperf_expr *r = msperf_expr_subs1 (e, "n", I (129));
  g_autoptr (GHashTable) b = g_hash_table_new (g_str_hash, g_str_equal);
  g_auto (GStrv) syms = msperf_expr_free_symbols (e, FALSE);
  double v = 0;
  GRand *rand = g_rand_new_with_seed (7);

  assert_string_equal (msperf_expr_str (r), "(28 * c)");
  assert_int_equal (g_strv_length (syms), 2);
  assert_string_equal (syms[0], "c");
  assert_string_equal (syms[1], "n");
  for (int k = 0; k < 50; k++)
    {
      int64_t n = g_rand_int_range (rand, 1, 100000), c = g_rand_int_range (rand, 1, 64);
      msperf_expr *full;
      double direct = (double) (((n + 63) / 64 + 25) * c);

      g_hash_table_insert (b, "n", I (n));
      g_hash_table_insert (b, "c", I (c));
      full = msperf_expr_subs (e, b);
      assert_true (msperf_expr_is_number (full));
      assert_true (msperf_expr_eval (e, b, &v, NULL));
      assert_true (v == direct);
      assert_true (msperf_expr_get_double (full, &v) && v == direct);
    }
  g_rand_free (rand);
}

/* int64 overflow turns the value into a double instead of wrapping. */
static void
test_expr_overflow_becomes_double (void **state)
{
  msperf_expr *big = msperf_expr_mul (I (INT64_MAX), I (4));
  double v = 0;

  assert_int_equal (msperf_expr_get_kind (big), MSPERF_EXPR_DOUBLE);
  assert_true (msperf_expr_get_double (big, &v));
  assert_true (fabs (v - 4.0 * (double) INT64_MAX) < 1e6);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_expr_prints_upstream_cast_call_count_form, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_prints_section_2_3_examples, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_prints_load_ternary_with_negative_constant, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_prints_store_ternary_with_relational, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_relationals_canonicalise_and_sort, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_prints_nested_ternaries, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_max_min_order_and_folding, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_canonical_form, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_numbers_rationals_and_doubles, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_rounding_and_mod, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_fresh_variable_names, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_inline_and_evaluate_variables, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_evaluation_errors, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_substitution_matches_evaluation, setup, teardown),
    cmocka_unit_test_setup_teardown (test_expr_overflow_becomes_double, setup, teardown),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
