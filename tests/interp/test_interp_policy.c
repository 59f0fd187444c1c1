/* msperf tests — the opt-in interpolation policy keys through the whole stage:
 * space: log (global, per kernel, with sqrt_seq), max_interpolation_dim 4 and seq_block. The
 * bit-exact scipy comparison of log space is test_log_space.c; here the engine's answers and
 * their details. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include "common/test_util.h"
#include "engine/shared.h"
#include "interp/interp.h"

#define BF16 MSPERF_DTYPE_BF16
#define ATTN "tensor_cast.attention.default"

static msperf_engine *
h200_engine (const char *const *overrides)
{
  /* The sample rows under the upstream mapping (Makefile.am, upstream_db). */
  g_autofree char *db = g_strdup (g_getenv ("MSPERF_TEST_UPSTREAM_DB"));
  return tu_engine_new (db, overrides);
}

static msperf_op *
mm (const char *x, const char *w)
{
  msperf_op *op = tu_op ("aten.mm.default");

  tu_op_add_tensor (op, BF16, x);
  tu_op_add_tensor (op, BF16, w);
  return op;
}

static void
add_seq_lens (msperf_op *op, const int64_t *values, size_t n)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_TENSOR);
  char dims[32];

  g_snprintf (dims, sizeof dims, "%zu", n);
  tu_tensor (&v->tensor, MSPERF_DTYPE_INT64, dims);
  v->tensor.values = g_new0 (int64_t, n ? n : 1);
  v->tensor.n_values = n;
  if (n)
    memcpy (v->tensor.values, values, n * sizeof *values);
  g_ptr_array_add (op->args, v);
}

/* A TND prefill of one sequence of seq tokens, heads × head_dim, as many KV heads. */
static msperf_op *
prefill (int64_t seq, int64_t heads, int64_t kv, int64_t d)
{
  msperf_op *op = tu_op (ATTN);
  g_autofree char *q = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
                                        G_GINT64_FORMAT, seq, heads, d);
  g_autofree char *k = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
                                        G_GINT64_FORMAT, seq, kv, d);

  tu_op_add_tensor (op, BF16, q);
  tu_op_add_tensor (op, BF16, k);
  tu_op_add_tensor (op, BF16, k);
  tu_op_add_none (op);
  tu_op_add_none (op);
  tu_op_add_none (op);
  add_seq_lens (op, &seq, 1);
  tu_op_add_none (op);
  tu_op_add_out (op, BF16, q);
  return op;
}

static const msperf_value *
detail (const msperf_result *r, const char *path)
{
  const msperf_value *v = msperf_result_details (r);
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);

  for (char **p = parts; *p && v; p++)
    v = msperf_value_lookup (v, *p);
  return v;
}

static int64_t
detail_int (const msperf_result *r, const char *path)
{
  int64_t v = -1;

  if (!msperf_value_get_int (detail (r, path), &v))
    fail_msg ("detail %s is not an int", path);
  return v;
}

static void
assert_interpolated (const msperf_result *r, const char *method)
{
  if (r->source != MSPERF_SOURCE_INTERPOLATED)
    fail_msg ("expected INTERPOLATED, got %s (reason %s)", msperf_source_name (r->source),
              r->miss_reason ? r->miss_reason : "-");
  assert_string_equal (r->method, method);
}

/* ------------------------------------------------------------------ space: log */

/* h200-db MatMulV2 (K = N = 4096), M = 3000 between M = 2048 (95.7808) and 4096 (198.9141):
 * numpy.exp(numpy.interp(log2(3000), log2([2048, 4096]), log([95.7808, 198.9141])))
 * = 0x1.1e7d41e114171p+7 (gen_log_goldens.py's numpy settings); linear gives 143.7217. */
static void
test_log_space_1d_matmul (void **state)
{
  static const char *const ov[] = { "interpolation.space", "log", NULL };
  msperf_engine *e = h200_engine (ov);
  g_autoptr (msperf_result) r = tu_run (e, mm ("3000,4096", "4096,4096"));
  const msperf_value *bounds, *pt;

  (void) state;
  assert_interpolated (r, "linear_1d_log");
  assert_true (r->latency_us == 0x1.1e7d41e114171p+7);
  assert_string_equal (r->shape_match_rule, "interpolated_1d_linear_log");
  assert_float_equal (r->confidence, 0.70, 1e-12);
  assert_string_equal (tu_detail_string (r, "space"), "log");
  assert_null (detail (r, "axis_transform_ignored"));
  /* the user's coordinates and latencies */
  bounds = detail (r, "axis_boundary.M");
  assert_int_equal (((msperf_value *) g_ptr_array_index (bounds->items, 0))->i, 2048);
  assert_int_equal (((msperf_value *) g_ptr_array_index (bounds->items, 1))->i, 4096);
  pt = g_ptr_array_index (detail (r, "candidate_points")->items, 0);
  assert_int_equal (((msperf_value *) msperf_value_lookup (msperf_value_lookup (pt, "axes"),
                                                           "M"))->i, 2048);
  assert_true (((msperf_value *) msperf_value_lookup (pt, "latency_us"))->f == 95.7808);
  msperf_engine_free (e);
}

/* The 3-D case of test_index.c under a per-kernel space: log. The value is scipy's
 * accumulation Σ w_j·ln y_j (from 0.0, in vertex order) and its exp, with the weights and the
 * raw latencies the details report. */
static void
test_log_space_3d_matmul_per_kernel (void **state)
{
  static const char *const ov[] = { "interpolation.kernel_overrides.MatMulV2.space", "log",
                                    NULL };
  msperf_engine *e = h200_engine (ov);
  g_autoptr (msperf_result) r = tu_run (e, mm ("6055,3840", "1152,3840"));
  const msperf_value *points;
  double acc = 0.0;

  (void) state;
  assert_interpolated (r, "griddata_linear_log");
  assert_string_equal (r->shape_match_rule, "interpolated_3d_griddata_linear_log");
  assert_int_equal (r->interpolation_dim, 3);
  assert_int_equal (detail_int (r, "candidate_count"), 896);
  points = detail (r, "candidate_points");
  assert_int_equal (points->items->len, 4);
  for (guint k = 0; k < points->items->len; k++)
    {
      const msperf_value *pt = g_ptr_array_index (points->items, k);
      double w = ((msperf_value *) msperf_value_lookup (pt, "weight"))->f;
      double y = ((msperf_value *) msperf_value_lookup (pt, "latency_us"))->f;
      int64_t m = -1;

      assert_true (msperf_value_get_int (msperf_value_lookup (msperf_value_lookup (pt, "axes"),
                                                              "M"), &m));
      assert_true (m >= 1 && m <= 8192);   /* raw M, not log2 M */
      acc += w * log (y);
    }
  assert_true (r->latency_us == exp (acc));
  msperf_engine_free (e);
}

/* Without the key nothing changes: no "space" detail, the linear method. */
static void
test_linear_space_keeps_its_details (void **state)
{
  static const char *const ov[] = { "interpolation.space", "linear", NULL };
  msperf_engine *e = h200_engine (NULL), *e2 = h200_engine (ov);
  g_autoptr (msperf_result) r = tu_run (e, mm ("3000,4096", "4096,4096"));
  g_autoptr (msperf_result) r2 = tu_run (e2, mm ("3000,4096", "4096,4096"));

  (void) state;
  assert_interpolated (r, "linear_1d");
  assert_null (detail (r, "space"));
  assert_true (r->latency_us == 0x1.1f717eb851eb8p+7);
  assert_interpolated (r2, "linear_1d");
  assert_true (r2->latency_us == r->latency_us);
  assert_null (detail (r2, "space"));
  msperf_engine_free (e);
  msperf_engine_free (e2);
}

/* h200 prefill seq 3000 (rows 2048: 83.3577, 4096: 259.4893): the database asks sqrt_seq, the
 * policy space: log; log wins (doc/decisions.md) and says so. numpy.exp(numpy.interp(
 * log2(3000), [11, 12], log([83.3577, 259.4893]))) = 155.7971720423253. */
static void
test_log_space_wins_over_sqrt_seq (void **state)
{
  static const char *const ov[] = { "interpolation.space", "log", NULL };
  msperf_engine *e = h200_engine (ov);
  g_autoptr (msperf_result) r = tu_run (e, prefill (3000, 32, 8, 128));

  (void) state;
  assert_interpolated (r, "linear_1d_log");
  assert_true (r->latency_us == 155.7971720423253);
  assert_float_equal (r->confidence, 0.70, 1e-12);   /* no sqrt penalty: sqrt is not applied */
  assert_string_equal (tu_detail_string (r, "axis_transform_ignored"), "sqrt_seq");
  assert_null (tu_detail_string (r, "axis_transform"));
  assert_int_equal (detail_int (r, "target.seq"), 3000);
  msperf_engine_free (e);
}

/* The schema: space is linear | log, seq_block an integer >= 1, max_interpolation_dim 1..4. */
static void
test_policy_schema_of_the_new_keys (void **state)
{
  g_autoptr (msperf_engine) e = msperf_engine_new ();
  g_autoptr (GError) error = NULL;

  (void) state;
  assert_true (msperf_engine_set_override (e, "interpolation.space", "log", &error));
  assert_true (msperf_engine_set_override (e, "interpolation.max_interpolation_dim", "4",
                                           &error));
  assert_true (msperf_engine_set_override (e, "interpolation.kernel_overrides.K.seq_block",
                                           "128", &error));
  assert_true (msperf_engine_set_override (e, "interpolation.kernel_overrides.K.space",
                                           "linear", &error));
  assert_false (msperf_engine_set_override (e, "interpolation.space", "log10", &error));
  g_clear_error (&error);
  assert_false (msperf_engine_set_override (e, "interpolation.max_interpolation_dim", "5",
                                            &error));
  g_clear_error (&error);
  assert_false (msperf_engine_set_override (e, "interpolation.kernel_overrides.K.seq_block",
                                            "0", &error));
}

/* ------------------------------------------------------------------ 4-D */

/* h200 prefill, 4 attention axes (seq, batch, heads, head_dim). With max_interpolation_dim 4 a
 * 4-D group is tried after every 3-D group (and only then); by default it is never tried and
 * no "4d(" reason appears. */
static void
test_4d_groups_only_when_enabled (void **state)
{
  static const char *const ov[] = { "interpolation.max_interpolation_dim", "4", NULL };
  msperf_engine *e = h200_engine (NULL), *e4 = h200_engine (ov);
  /* heads 48 and head_dim 96 are measured nowhere: every group with them fixed is empty */
  g_autoptr (msperf_result) r = tu_run (e, prefill (3000, 48, 8, 96));
  g_autoptr (msperf_result) r4 = tu_run (e4, prefill (3000, 48, 8, 96));
  const msperf_value *reasons;
  gboolean any4 = FALSE;

  (void) state;
  reasons = detail (r, "fallback_reasons");
  for (guint k = 0; reasons && k < reasons->items->len; k++)
    any4 |= g_str_has_prefix (msperf_value_get_string (g_ptr_array_index (reasons->items, k)),
                              "4d(");
  assert_false (any4);
  if (r4->source == MSPERF_SOURCE_INTERPOLATED)
    assert_int_equal (r4->interpolation_dim, 4);
  else
    {
      any4 = FALSE;
      reasons = detail (r4, "fallback_reasons");
      for (guint k = 0; reasons && k < reasons->items->len; k++)
        any4 |= g_str_has_prefix (msperf_value_get_string (g_ptr_array_index (reasons->items,
                                                                              k)), "4d(");
      assert_true (any4);
    }
  msperf_engine_free (e);
  msperf_engine_free (e4);
}

/* ------------------------------------------------------------------ seq_block */

/* tests/data/attention/seqblock: prefill rows seq 1000 (10), 1024 (11), 2000 (20) and the
 * database's seq_block: 128. seq 1500 → 1536: 11 + 9·(1536 − 1024)/976. */
static void
test_seq_block_rounds_up (void **state)
{
  msperf_engine *e = tu_engine_new ("attention/seqblock", NULL);
  g_autoptr (msperf_result) r = tu_run (e, prefill (1500, 8, 8, 64));

  (void) state;
  assert_interpolated (r, "linear_1d");
  assert_true (r->latency_us == msperf_interp_linear (1536, 1024, 11, 2000, 20));
  assert_int_equal (detail_int (r, "seq_block"), 128);
  assert_int_equal (detail_int (r, "seq_rounded_from"), 1500);
  assert_int_equal (detail_int (r, "target.seq"), 1536);
  msperf_engine_free (e);
}

/* seq 1950 → 2048 is outside the rows (1000..2000): the group is retried with 1950 (1990 would be an exact hit on 2000, within the ±16 match). */
static void
test_seq_block_retries_unrounded (void **state)
{
  msperf_engine *e = tu_engine_new ("attention/seqblock", NULL);
  g_autoptr (msperf_result) r = tu_run (e, prefill (1950, 8, 8, 64));

  (void) state;
  assert_interpolated (r, "linear_1d");
  assert_true (r->latency_us == msperf_interp_linear (1950, 1024, 11, 2000, 20));
  assert_int_equal (detail_int (r, "seq_block"), 128);
  assert_null (detail (r, "seq_rounded_from"));
  assert_int_equal (detail_int (r, "target.seq"), 1950);
  msperf_engine_free (e);
}

/* A multiple of the block is not rounded; without the key (override to the policy's absence
 * is not possible, so the same fixture under space: log) the rounding composes with log. */
static void
test_seq_block_multiple_and_log (void **state)
{
  static const char *const ov[] = { "interpolation.space", "log", NULL };
  msperf_engine *e = tu_engine_new ("attention/seqblock", NULL);
  msperf_engine *el = tu_engine_new ("attention/seqblock", ov);
  g_autoptr (msperf_result) r = tu_run (e, prefill (1280, 8, 8, 64));
  g_autoptr (msperf_result) rl = tu_run (el, prefill (1500, 8, 8, 64));

  (void) state;
  assert_interpolated (r, "linear_1d");
  assert_true (r->latency_us == msperf_interp_linear (1280, 1024, 11, 2000, 20));
  assert_null (detail (r, "seq_rounded_from"));
  assert_interpolated (rl, "linear_1d_log");
  assert_true (rl->latency_us == exp (msperf_interp_linear (log2 (1536), log2 (1024), log (11),
                                                            log2 (2000), log (20))));
  assert_int_equal (detail_int (rl, "seq_rounded_from"), 1500);
  msperf_engine_free (e);
  msperf_engine_free (el);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_log_space_1d_matmul),
    cmocka_unit_test (test_log_space_3d_matmul_per_kernel),
    cmocka_unit_test (test_linear_space_keeps_its_details),
    cmocka_unit_test (test_log_space_wins_over_sqrt_seq),
    cmocka_unit_test (test_policy_schema_of_the_new_keys),
    cmocka_unit_test (test_4d_groups_only_when_enabled),
    cmocka_unit_test (test_seq_block_rounds_up),
    cmocka_unit_test (test_seq_block_retries_unrounded),
    cmocka_unit_test (test_seq_block_multiple_and_log),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
