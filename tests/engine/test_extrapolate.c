/* Tests of guarded extrapolation (core/engine/extrapolate.c) on tests/data/extrap: a full
 * MatMulV2 grid whose latency is affine in FLOPs (10 + M·K·N·1e-6 µs), so marginal answers
 * have exact goldens; hold_analytic's golden is the clamped measurement times the work model's
 * roofline ratio on the engine's device (core/engine/work_model.c). */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include "engine/shared.h"
#include "engine/extrapolate.h"
#include "engine/work_model.h"
#include <msperf/holdout.h>
#include "common/test_util.h"

static double
grid_latency (double m, double k, double n)
{
  return 10.0 + m * k * n * 1e-6;
}

static msperf_result *
mm (msperf_engine *e, int64_t m, int64_t k, int64_t n)
{
  msperf_op *op = tu_op ("aten.mm.default");
  g_autofree char *a = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, m, k);
  g_autofree char *b = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, k, n);
  g_autofree char *o = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, m, n);

  tu_op_add_tensor (op, MSPERF_DTYPE_BF16, a);
  tu_op_add_tensor (op, MSPERF_DTYPE_BF16, b);
  tu_op_add_out (op, MSPERF_DTYPE_BF16, o);
  return tu_run (e, op);
}

static msperf_engine *
engine (const char *strategy, const char *extra_key, const char *extra_value)
{
  const char *kv[] = { "interpolation.allow_extrapolation", "true",
                       "interpolation.extrapolation.strategy", strategy,
                       extra_key, extra_value, NULL };

  if (extra_key == NULL)
    kv[4] = NULL;
  return tu_engine_new ("extrap", kv);
}

static const msperf_value *
extrap_detail (const msperf_result *r, const char *key)
{
  return msperf_value_lookup (msperf_value_lookup (msperf_result_details (r), "extrapolation"), key);
}

static double
roofline (msperf_engine *e, double m, double k, double n)
{
  const char *names[] = { "M", "K", "N" };
  double v[] = { m, k, n };
  msperf_work w;

  assert_true (msperf_work_model (names, v, 3, 2.0, &w));
  return msperf_work_roofline_us (msperf_engine_device (e), MSPERF_DTYPE_BF16, &w);
}

static void
test_off_by_default_stays_analytic (void **state)
{
  msperf_engine *e = tu_engine_new ("extrap", NULL);
  msperf_result *r = mm (e, 32, 256, 1536);

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  assert_null (msperf_value_lookup (msperf_result_details (r), "extrapolation_refused"));
  assert_false (msperf_extrapolation_allowed (e, "MatMulV2"));
  msperf_result_free (r);
  msperf_engine_free (e);
}

static void
test_hold_analytic_scales_the_clamped_point_by_the_roofline (void **state)
{
  msperf_engine *e = engine ("hold_analytic", NULL, NULL);
  msperf_result *r = mm (e, 32, 256, 1536);
  double inner = grid_latency (32, 256, 1024);
  double ratio = roofline (e, 32, 256, 1536) / roofline (e, 32, 256, 1024);
  int64_t n;

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_EXTRAPOLATED);
  assert_string_equal (r->method, "extrapolated_hold_analytic");
  assert_true (fabs (r->latency_us - inner * ratio) < 1e-9 * inner * ratio);
  assert_true (r->confidence <= 0.5 && r->confidence < 0.55);
  assert_true (fabs (r->confidence - MSPERF_EXTRAP_CONFIDENCE) < 1e-12);
  assert_string_equal (msperf_value_get_string (extrap_detail (r, "strategy")), "hold_analytic");
  assert_string_equal (msperf_value_get_string (extrap_detail (r, "clamp_rule")), "box");
  assert_true (msperf_value_get_int (msperf_value_lookup (extrap_detail (r, "clamped"), "N"), &n));
  assert_int_equal (n, 1024);
  assert_true (fabs (tu_detail_double (r, "confidence") - r->confidence) < 1e-12);
  assert_non_null (msperf_value_lookup (msperf_result_details (r), "fallback_reasons"));
  msperf_result_free (r);
  msperf_engine_free (e);
}

static void
test_marginal_fits_affine_in_flops (void **state)
{
  msperf_engine *e = engine ("marginal", NULL, NULL);
  msperf_result *r = mm (e, 32, 256, 1536);
  double x;

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_EXTRAPOLATED);
  assert_string_equal (r->method, "extrapolated_marginal");
  /* The grid is affine in FLOPs: the fit through N = 1024 and 512 is exact. */
  assert_true (fabs (r->latency_us - grid_latency (32, 256, 1536)) < 1e-9);
  assert_string_equal (msperf_value_get_string (extrap_detail (r, "axis")), "N");
  assert_true (msperf_value_get_double (msperf_value_lookup (extrap_detail (r, "ratio"), "N"), &x));
  assert_true (fabs (x - 1.5) < 1e-12);
  msperf_result_free (r);
  msperf_engine_free (e);
}

static void
test_marginal_below_the_minimum (void **state)
{
  msperf_engine *e = engine ("marginal", NULL, NULL);
  /* N = 128 under the minimum 256: ratio 256/128 = 2, not above max_ratio 2. */
  msperf_result *r = mm (e, 32, 256, 128);
  double x;

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_EXTRAPOLATED);
  assert_true (fabs (r->latency_us - grid_latency (32, 256, 128)) < 1e-9);
  assert_true (msperf_value_get_double (msperf_value_lookup (extrap_detail (r, "ratio"), "N"), &x));
  assert_true (fabs (x - 2.0) < 1e-12);
  msperf_result_free (r);
  msperf_engine_free (e);
}

static void
test_marginal_slope_is_clamped_at_zero (void **state)
{
  msperf_engine *e = engine ("marginal", NULL, NULL);
  /* M = 16, K = 256: 14 µs at N = 512, 13 µs at N = 1024; more work never runs faster. */
  msperf_result *r = mm (e, 16, 256, 1536);
  double slope;

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_EXTRAPOLATED);
  assert_true (fabs (r->latency_us - 13.0) < 1e-9);
  assert_true (msperf_value_get_double (extrap_detail (r, "slope_us_per_work"), &slope));
  assert_true (slope == 0.0);
  msperf_result_free (r);
  msperf_engine_free (e);
}

static void
test_marginal_with_two_axes_outside_holds_analytic (void **state)
{
  msperf_engine *e = engine ("marginal", NULL, NULL);
  msperf_result *r = mm (e, 96, 256, 1536);
  double inner = grid_latency (64, 256, 1024);
  double ratio = roofline (e, 96, 256, 1536) / roofline (e, 64, 256, 1024);

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_EXTRAPOLATED);
  assert_string_equal (r->method, "extrapolated_hold_analytic");
  assert_string_equal (msperf_value_get_string (extrap_detail (r, "note")),
                       "marginal_needs_one_axis_outside");
  assert_true (fabs (r->latency_us - inner * ratio) < 1e-9 * inner * ratio);
  /* One more axis outside: lower. */
  assert_true (fabs (r->confidence - (MSPERF_EXTRAP_CONFIDENCE
                                      - MSPERF_EXTRAP_CONFIDENCE_PER_AXIS)) < 1e-12);
  msperf_result_free (r);
  msperf_engine_free (e);
}

static void
test_refused_by_ratio (void **state)
{
  msperf_engine *e = engine ("hold_analytic", NULL, NULL);
  msperf_result *r = mm (e, 32, 256, 4096);

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (tu_detail_string (r, "extrapolation_refused"),
                       "ratio 4 > max_ratio 2 on N");
  assert_string_equal (r->miss_reason, "wrapper_interpolation_failed");
  msperf_result_free (r);
  msperf_engine_free (e);
}

static void
test_refused_by_bound_and_wider_ratio (void **state)
{
  msperf_engine *e = engine ("hold_analytic", "interpolation.extrapolation.max_bound",
                             "{N: 1200}");
  msperf_engine *wide = engine ("hold_analytic", "interpolation.extrapolation.max_ratio", "4");
  msperf_result *r = mm (e, 32, 256, 1536);
  msperf_result *w = mm (wide, 32, 256, 4096);

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (tu_detail_string (r, "extrapolation_refused"), "N 1536 > max_bound 1200");
  tu_assert_source (w, MSPERF_SOURCE_EXTRAPOLATED);
  msperf_result_free (r);
  msperf_result_free (w);
  msperf_engine_free (e);
  msperf_engine_free (wide);
}

static void
test_kernel_override_turns_it_off (void **state)
{
  const char *kv[] = { "interpolation.allow_extrapolation", "true",
                       "interpolation.kernel_overrides.MatMulV2.allow_extrapolation", "false",
                       NULL };
  msperf_engine *e = tu_engine_new ("extrap", kv);
  msperf_result *r = mm (e, 32, 256, 1536);

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_ANALYTIC);
  assert_null (msperf_value_lookup (msperf_result_details (r), "extrapolation_refused"));
  msperf_result_free (r);
  msperf_engine_free (e);
}

static void
test_inside_the_data_interpolation_is_unchanged (void **state)
{
  msperf_engine *e = engine ("hold_analytic", NULL, NULL);
  msperf_result *r = mm (e, 48, 256, 1024);

  (void) state;
  tu_assert_source (r, MSPERF_SOURCE_INTERPOLATED);
  assert_true (fabs (r->latency_us - grid_latency (48, 256, 1024)) < 1e-9);
  msperf_result_free (r);
  msperf_engine_free (e);
}

static void
test_work_model (void **state)
{
  const char *mm_names[] = { "M", "K", "N" };
  const char *att_names[] = { "seq", "batch", "heads", "head_dim" };
  const char *one[] = { "output_numel" };
  const char *odd[] = { "x", "y" };
  double mkn[] = { 2, 3, 4 }, att[] = { 8, NAN, 2, 4 }, n[] = { 10 };
  msperf_work w;

  (void) state;
  assert_true (msperf_work_model (mm_names, mkn, 3, 2.0, &w));
  assert_true (w.kind == MSPERF_WORK_MATMUL && w.flops == 48.0 && w.bytes == 2.0 * 26.0);
  assert_true (msperf_work_measure (&w) == 48.0);
  assert_true (msperf_work_model (att_names, att, 4, 2.0, &w));
  assert_true (w.kind == MSPERF_WORK_ATTENTION && w.flops == 2.0 * 2 * 64 * 4);
  assert_true (msperf_work_model (one, n, 1, 4.0, &w));
  assert_true (w.kind == MSPERF_WORK_LINEAR && msperf_work_measure (&w) == 120.0);
  assert_false (msperf_work_model (odd, mkn, 2, 2.0, &w));
  assert_true (isnan (msperf_work_roofline_us (NULL, MSPERF_DTYPE_BF16, &w)));
}

static void
test_holdout_hides_the_outer_values (void **state)
{
  msperf_engine *e = engine ("marginal", NULL, NULL);
  msperf_holdout_options o = { 0 };
  const char *kernels[] = { "MatMulV2", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_holdout_report) rep = NULL;
  guint extrapolated = 0;

  (void) state;
  o.kernels = kernels;
  o.leave_one_out = TRUE;
  o.extrapolate_axis = "N";
  o.hide_outer = 1;
  rep = msperf_holdout_run (e, &o, &error);
  assert_non_null (rep);
  /* N = 1024 hidden: 3 M x 2 K coordinates, predicted from N = 256 and 512. */
  assert_int_equal (rep->samples->len, 6);
  for (guint k = 0; k < rep->samples->len; k++)
    {
      const msperf_holdout_sample *s = g_ptr_array_index (rep->samples, k);

      assert_true (s->axes[2] == 1024.0);
      assert_true (s->interpolated);
      assert_string_equal (s->source, "EXTRAPOLATED");
      extrapolated++;
      /* Affine in FLOPs but for M = 16, K = 256 (14 at 512, 13 at 1024). */
      if (!(s->axes[0] == 16.0 && s->axes[1] == 256.0))
        assert_true (s->rel_error < 1e-9);
    }
  assert_int_equal (extrapolated, 6);
  /* hide_outer 3 of 3 values: nothing left to predict from, no sample. */
  o.hide_outer = 3;
  msperf_holdout_report_free (g_steal_pointer (&rep));
  rep = msperf_holdout_run (e, &o, &error);
  assert_non_null (rep);
  assert_int_equal (rep->samples->len, 0);
  msperf_engine_free (e);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_off_by_default_stays_analytic),
    cmocka_unit_test (test_hold_analytic_scales_the_clamped_point_by_the_roofline),
    cmocka_unit_test (test_marginal_fits_affine_in_flops),
    cmocka_unit_test (test_marginal_below_the_minimum),
    cmocka_unit_test (test_marginal_slope_is_clamped_at_zero),
    cmocka_unit_test (test_marginal_with_two_axes_outside_holds_analytic),
    cmocka_unit_test (test_refused_by_ratio),
    cmocka_unit_test (test_refused_by_bound_and_wider_ratio),
    cmocka_unit_test (test_kernel_override_turns_it_off),
    cmocka_unit_test (test_inside_the_data_interpolation_is_unchanged),
    cmocka_unit_test (test_work_model),
    cmocka_unit_test (test_holdout_hides_the_outer_values),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
