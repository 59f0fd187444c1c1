/* Tests of the query frame: reference-counted results (result.h), the answer cache keyed by
 * the op's binary encoding (core/dispatch.c) and the one-block string values (core/value.c).
 * The answers themselves are the modules' tests; here: the cache hands out the very answer it
 * computed, shares it read-only, and tells apart every two ops the signature tells apart. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include <msperf/format.h>
#include "common/test_util.h"

#define BF16 MSPERF_DTYPE_BF16
#define FP16 MSPERF_DTYPE_FLOAT16

static int
setup_rules (void **state)
{
  *state = tu_engine_new ("compute/rules", NULL);
  return 0;
}

static int
teardown_engine (void **state)
{
  msperf_engine_free (*state);
  return 0;
}

/* (136,5120)x(5120,768) bf16: the golden exact hit of tests/plugins/test_compute.c
 * (reference §6 "Compute", 45.3 µs). */
static msperf_op *
golden_mm (void)
{
  msperf_op *op = tu_op ("aten.mm.default");

  tu_op_add_tensor (op, BF16, "136,5120");
  tu_op_add_tensor (op, BF16, "5120,768");
  return op;
}

/* Criticals from g_return_if_fail, counted instead of printed. */
typedef struct {
  int criticals;
} log_count;

static void
count_log (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
  (void) domain;
  (void) message;
  if (level & G_LOG_LEVEL_CRITICAL)
    ((log_count *) data)->criticals++;
}

/* ------------------------------------------------------------------ reference counting */

static void
test_result_ref_shares_until_the_last_unref (void **state)
{
  msperf_result *r = msperf_result_new ();

  (void) state;
  assert_false (msperf_result_is_shared (r));
  assert_ptr_equal (msperf_result_ref (r), r);
  assert_true (msperf_result_is_shared (r));
  msperf_result_unref (r);
  assert_false (msperf_result_is_shared (r));
  /* the remaining reference is private again: setters work */
  msperf_result_detail_string (r, "k", "v");
  assert_string_equal (tu_detail_string (r, "k"), "v");
  msperf_result_free (r);
  msperf_result_unref (NULL);
}

static void
test_shared_result_refuses_setters (void **state)
{
  msperf_result *r = msperf_result_new ();
  log_count count = { 0 };
  GLogFunc old;

  (void) state;
  msperf_result_set_hit (r, MSPERF_SOURCE_MEASURED, 1.5, 1.0, "MatMulV2", "identity");
  msperf_result_ref (r);
  old = g_log_set_default_handler (count_log, &count);
  msperf_result_detail_string (r, "late", "x");
  msperf_result_set_method (r, "roofline");
  msperf_result_set_hit (r, MSPERF_SOURCE_ANALYTIC, 9.0, 0.3, "Other", "analytic");
  msperf_result_reset (r);
  g_log_set_default_handler (old, NULL);
  assert_int_equal (count.criticals, 4);
  assert_null (tu_detail_string (r, "late"));
  assert_string_equal (r->method, "exact");
  assert_int_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 1.5, 0.0);
  msperf_result_unref (r);
  msperf_result_unref (r);
}

static void
test_result_copy_is_deep_and_private (void **state)
{
  msperf_result *r = msperf_result_new ();
  msperf_result *c;
  msperf_tensor t;

  (void) state;
  tu_tensor (&t, BF16, "4,8");
  msperf_result_set_hit (r, MSPERF_SOURCE_MEASURED, 2.0, 1.0, "MatMulV2", "transpose");
  msperf_result_add_kernel_shape (r, &t);
  msperf_result_detail_int (r, "n", 7);
  msperf_result_ref (r);
  c = msperf_result_copy (r);
  assert_false (msperf_result_is_shared (c));
  assert_string_equal (c->kernel_type, "MatMulV2");
  assert_string_equal (c->shape_match_rule, "transpose");
  assert_string_equal (c->method, "exact");
  assert_int_equal (c->kernel_shapes->len, 1);
  assert_ptr_not_equal (msperf_result_details (c), msperf_result_details (r));
  assert_string_equal (tu_detail_string (c, "kernel_type"), "MatMulV2");
  msperf_result_detail_string (c, "only_in_copy", "y");
  assert_null (tu_detail_string (r, "only_in_copy"));
  msperf_result_free (c);
  msperf_result_unref (r);
  msperf_result_unref (r);
}

static void
test_set_method_keeps_an_equal_value (void **state)
{
  g_autoptr (msperf_result) r = msperf_result_new ();
  const char *before;

  (void) state;
  msperf_result_set_hit (r, MSPERF_SOURCE_MEASURED, 1.0, 1.0, "K", "identity");
  before = r->method;
  msperf_result_set_method (r, "exact");
  assert_ptr_equal (r->method, before);
  msperf_result_set_method (r, "linear_1d");
  assert_string_equal (r->method, "linear_1d");
}

/* ------------------------------------------------------------------ string values */

static void
test_string_value_copies_replaces_and_frees (void **state)
{
  g_autoptr (msperf_value) map = msperf_value_new (MSPERF_VALUE_MAP);
  g_autoptr (msperf_value) copy = NULL;
  char text[] = "abc";
  msperf_value *none = msperf_value_new_string (NULL);

  (void) state;
  msperf_value_map_set (map, "s", msperf_value_new_string (text));
  text[0] = 'X';  /* the value keeps its own bytes */
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (map, "s")), "abc");
  msperf_value_map_set (map, "e", msperf_value_new_string (""));
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (map, "e")), "");
  copy = msperf_value_copy (map);
  msperf_value_map_set (map, "s", msperf_value_new_string ("replaced"));
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (map, "s")), "replaced");
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (copy, "s")), "abc");
  assert_int_equal (none->kind, MSPERF_VALUE_NONE);
  assert_null (none->s);
  msperf_value_free (none);
}

/* ------------------------------------------------------------------ the answer cache */

static void
test_repeated_op_gets_the_cached_answer_shared (void **state)
{
  msperf_engine *e = *state;
  msperf_op *a = golden_mm (), *b = golden_mm ();
  msperf_result *ra, *rb;

  /* count, index and line are not part of the invocation (op.h signature) */
  b->count = 5;
  b->index = 9;
  b->line = 12;
  ra = msperf_engine_query (e, a);
  rb = msperf_engine_query (e, b);
  assert_ptr_equal (ra, rb);
  assert_true (msperf_result_is_shared (ra));
  /* golden: tests/plugins/test_compute.c (reference §6 "Compute") */
  assert_int_equal (ra->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (ra->latency_us, 45.3, 1e-9);
  assert_non_null (tu_detail_string (ra, "policy_hash"));
  msperf_result_free (ra);
  msperf_result_free (rb);
  msperf_op_free (a);
  msperf_op_free (b);
}

static void
test_cached_answer_equals_a_fresh_engines (void **state)
{
  msperf_engine *e = *state;
  g_autoptr (msperf_engine) fresh = tu_engine_new ("compute/rules", NULL);
  g_autoptr (msperf_op) op = golden_mm ();
  g_autoptr (msperf_result) first = msperf_engine_query (e, op);
  g_autoptr (msperf_result) cached = msperf_engine_query (e, op);
  g_autoptr (msperf_result) other = msperf_engine_query (fresh, op);

  assert_ptr_equal (first, cached);
  assert_int_equal (cached->source, other->source);
  assert_memory_equal (&cached->latency_us, &other->latency_us, sizeof (double));
  assert_string_equal (cached->shape_match_rule, other->shape_match_rule);
  assert_string_equal (cached->method, other->method);
  assert_int_equal (msperf_result_details (cached)->keys->len, msperf_result_details (other)->keys->len);
  for (guint k = 0; k < msperf_result_details (cached)->keys->len; k++)
    assert_string_equal (g_ptr_array_index (msperf_result_details (cached)->keys, k),
                         g_ptr_array_index (msperf_result_details (other)->keys, k));
}

/* Variants of the golden op, each different from the others for msperf_op_signature. */
static msperf_op *
variant (int which)
{
  msperf_op *op = golden_mm ();
  msperf_value *arg0 = g_ptr_array_index (op->args, 0);

  switch (which)
    {
    case 0: break;
    case 1: arg0->tensor.dtype = FP16; break;
    case 2: arg0->tensor.format = MSPERF_FORMAT_FRACTAL_NZ; break;
    case 3: arg0->tensor.dims[1] = 5121; break;
    case 4: tu_op_add_int (op, 1); break;
    case 5:
      msperf_value_map_set (op->kwargs, "alpha", msperf_value_new_int (1));
      break;
    case 6: msperf_value_map_set (op->kwargs, "alpha", msperf_value_new_double (1.0)); break;
    case 7: msperf_value_map_set (op->kwargs, "alpha", msperf_value_new_string ("1")); break;
    case 8: msperf_value_map_set (op->kwargs, "beta", msperf_value_new_int (1)); break;
    case 9: tu_op_add_out (op, BF16, "136,768"); break;
    case 10: tu_op_add_none (op); break;
    case 11:
      op->att = msperf_value_new (MSPERF_VALUE_MAP);
      msperf_value_map_set (op->att, "kind", msperf_value_new_string ("none"));
      break;
    case 12:
      {
        /* the same two tensors, as one list argument */
        msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

        while (op->args->len)
          msperf_value_list_append (list, g_ptr_array_steal_index (op->args, 0));
        g_ptr_array_add (op->args, list);
      }
      break;
    case 13:
      g_free (op->name);
      op->name = g_strdup ("aten.matmul.default");
      break;
    case 14:
      arg0->tensor.values = g_new (int64_t, 2);
      arg0->tensor.values[0] = 1;
      arg0->tensor.values[1] = 2;
      arg0->tensor.n_values = 2;
      break;
    case 15: msperf_value_map_set (op->kwargs, "alpha", msperf_value_new_bool (TRUE)); break;
    default: g_assert_not_reached ();
    }
  return op;
}

#define N_VARIANTS 16

static void
test_cache_tells_apart_what_the_signature_tells_apart (void **state)
{
  msperf_engine *e = *state;
  msperf_result *answers[N_VARIANTS];
  char *sigs[N_VARIANTS];

  for (int k = 0; k < N_VARIANTS; k++)
    {
      msperf_op *op = variant (k);

      sigs[k] = msperf_op_signature (op);
      answers[k] = msperf_engine_query (e, op);
      msperf_op_free (op);
    }
  for (int k = 0; k < N_VARIANTS; k++)
    for (int j = k + 1; j < N_VARIANTS; j++)
      {
        assert_string_not_equal (sigs[k], sigs[j]);
        if (answers[k] == answers[j])
          fail_msg ("variants %d and %d share one cached answer", k, j);
      }
  /* ... and asked again, each variant gets its own answer back */
  for (int k = 0; k < N_VARIANTS; k++)
    {
      msperf_op *op = variant (k);
      msperf_result *again = msperf_engine_query (e, op);

      assert_ptr_equal (again, answers[k]);
      msperf_result_free (again);
      msperf_op_free (op);
    }
  for (int k = 0; k < N_VARIANTS; k++)
    {
      msperf_result_free (answers[k]);
      g_free (sigs[k]);
    }
}

static void
test_callers_answer_outlives_the_engine (void **state)
{
  msperf_engine *e = tu_engine_new ("compute/rules", NULL);
  g_autoptr (msperf_op) op = golden_mm ();
  g_autoptr (msperf_result) r = msperf_engine_query (e, op);

  (void) state;
  assert_true (msperf_result_is_shared (r));
  msperf_engine_free (e);
  /* the cache's reference went with the engine; the caller's stays valid (valgrind) */
  assert_false (msperf_result_is_shared (r));
  assert_float_equal (r->latency_us, 45.3, 1e-9);
  assert_string_equal (r->kernel_type, "MatMulV2");
}

/* ------------------------------------------------------------------ device profile names */

/* A measurement's system label names the profile by its name or an alias, in any case
 * (policies/devices/nvidia-h200.yaml: aliases NVIDIA_H200_SXM, h200_sxm); nothing else does,
 * and without a device profile nothing does. */
static void
test_device_is_matches_name_and_aliases_in_any_case (void **state)
{
  const char *const h200[] = { "analytic.device_profile", "nvidia-h200", NULL };
  msperf_engine *e = tu_engine_new ("compute/rules", h200);

  (void) state;
  assert_string_equal (msperf_engine_device_name (e), "nvidia-h200");
  assert_true (msperf_engine_device_is (e, "nvidia-h200"));
  assert_true (msperf_engine_device_is (e, "NVIDIA-H200"));
  assert_true (msperf_engine_device_is (e, "NVIDIA_H200_SXM"));
  assert_true (msperf_engine_device_is (e, "h200_sxm"));
  assert_true (msperf_engine_device_is (e, "H200_SXM"));
  assert_false (msperf_engine_device_is (e, "b200_sxm"));
  assert_false (msperf_engine_device_is (e, "h200"));
  assert_false (msperf_engine_device_is (e, ""));
  msperf_engine_free (e);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_result_ref_shares_until_the_last_unref),
    cmocka_unit_test (test_shared_result_refuses_setters),
    cmocka_unit_test (test_result_copy_is_deep_and_private),
    cmocka_unit_test (test_set_method_keeps_an_equal_value),
    cmocka_unit_test (test_string_value_copies_replaces_and_frees),
    cmocka_unit_test_setup_teardown (test_repeated_op_gets_the_cached_answer_shared, setup_rules,
                                     teardown_engine),
    cmocka_unit_test_setup_teardown (test_cached_answer_equals_a_fresh_engines, setup_rules,
                                     teardown_engine),
    cmocka_unit_test_setup_teardown (test_cache_tells_apart_what_the_signature_tells_apart,
                                     setup_rules, teardown_engine),
    cmocka_unit_test (test_callers_answer_outlives_the_engine),
    cmocka_unit_test (test_device_is_matches_name_and_aliases_in_any_case),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
