/* Tests of `msperf holdout` (core/holdout.c): leave-one-coordinate-out and the seeded fraction
 * over the candidate index, the statistics, the reports, and that the holdout goes through the
 * engine's own index and interpolation routine. Fixtures: tests/data/holdout/. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <cmocka.h>
#include <msperf/error.h>
#include "app/holdout_report.h"
#include "engine/interpolate.h"
#include "common/test_util.h"

static int
setup_compute (void **state)
{
  *state = tu_engine_new ("holdout/compute", NULL);
  return 0;
}

static int
setup_attention (void **state)
{
  *state = tu_engine_new ("holdout/attention", NULL);
  return 0;
}

static msperf_holdout_report *
run_loo (msperf_engine *e, const char *kernel)
{
  const char *kernels[] = { kernel, NULL };
  msperf_holdout_options o = { 0 };
  g_autoptr (GError) error = NULL;
  msperf_holdout_report *r;

  o.kernels = kernel ? kernels : NULL;
  o.leave_one_out = TRUE;
  r = msperf_holdout_run (e, &o, &error);
  if (r == NULL)
    {
      fail_msg ("holdout failed: %s", error->message);
      abort ();
    }
  return r;
}

static const msperf_holdout_sample *
sample_at_line (const msperf_holdout_report *r, guint line)
{
  for (guint k = 0; k < r->samples->len; k++)
    {
      const msperf_holdout_sample *s = g_ptr_array_index (r->samples, k);

      if (s->line == line)
        return s;
    }
  fail_msg ("no sample at CSV line %u", line);
  abort ();
}

static const msperf_holdout_stats *
stats_of (const msperf_holdout_report *r, const char *kernel, int dim)
{
  for (guint k = 0; k < r->stats->len; k++)
    {
      const msperf_holdout_stats *s = g_ptr_array_index (r->stats, k);

      if (strcmp (s->kernel, kernel) == 0 && s->dim == dim)
        return s;
    }
  fail_msg ("no statistics for %s dim %d", kernel, dim);
  abort ();
}

/* ---- statistics ---- */

/* numpy.percentile([1, 2, 3, 4], [50, 90]) == [2.5, 3.7] (linear method); one value is every
 * quantile; no value is NaN. */
static void
test_quantile_is_numpy_linear (void **state)
{
  const double v[] = { 1, 2, 3, 4 };
  const double one[] = { 7.5 };

  (void) state;
  assert_float_equal (msperf_holdout_quantile (v, 4, 0.5), 2.5, 1e-15);
  assert_float_equal (msperf_holdout_quantile (v, 4, 0.9), 3.7, 1e-15);
  assert_float_equal (msperf_holdout_quantile (v, 4, 1.0), 4.0, 0);
  assert_float_equal (msperf_holdout_quantile (v, 4, 0.0), 1.0, 0);
  assert_float_equal (msperf_holdout_quantile (one, 1, 0.9), 7.5, 0);
  assert_true (isnan (msperf_holdout_quantile (v, 0, 0.5)));
}

/* ---- leave one out on the compute fixture ----
 * MatMulV2.csv: M = 16 (10 µs), 32 (20), 48 (35 and 37: one coordinate, median 36), 64 (40),
 * K = N = 256; max_interpolation_dim 1. Known answers by the 1-D formula (reference §4.4 step 4):
 * M=32 from 16 and 48: 10 + (36 − 10)·16/32 = 23 (error 3, 15 %); M=48 from 32 and 64:
 * 20 + 20·16/32 = 30 (error 6, 1/6); M=16 and M=64 are outside the others' range. */
static void
test_leave_one_out_compute_known_answers (void **state)
{
  g_autoptr (msperf_holdout_report) r = run_loo (*state, NULL);
  const msperf_holdout_sample *s;
  const msperf_holdout_stats *st;

  assert_int_equal (r->samples->len, 4);
  assert_true (r->leave_one_out);

  s = sample_at_line (r, 2);
  assert_false (s->interpolated);
  assert_string_equal (s->source, "NONE");
  assert_true (isnan (s->predicted_us));
  assert_non_null (strstr (s->reason, "1d(M): outside_axis_boundary"));
  assert_non_null (strstr (s->reason, "1d(K): insufficient_filtered_candidates"));

  s = sample_at_line (r, 3);
  assert_true (s->interpolated);
  assert_string_equal (s->kernel, "MatMulV2");
  assert_string_equal (s->source, "INTERPOLATED");
  assert_string_equal (s->method, "linear_1d");
  assert_int_equal (s->dim, 1);
  assert_float_equal (s->confidence, 0.70, 1e-12);
  assert_int_equal (s->candidate_count, 3);
  assert_int_equal (s->n_rows, 1);
  assert_float_equal (s->measured_us, 20.0, 0);
  assert_float_equal (s->predicted_us, 23.0, 1e-12);
  assert_float_equal (s->abs_error_us, 3.0, 1e-12);
  assert_float_equal (s->rel_error, 0.15, 1e-12);
  assert_int_equal (s->n_axes, 3);
  assert_string_equal (s->axis_names[0], "M");
  assert_float_equal (s->axes[0], 32, 0);
  assert_float_equal (s->axes[1], 256, 0);

  /* Both rows at M = 48 leave: measured is their median, the answer comes from 32 and 64. */
  s = sample_at_line (r, 4);
  assert_int_equal (s->n_rows, 2);
  assert_float_equal (s->measured_us, 36.0, 0);
  assert_float_equal (s->predicted_us, 30.0, 1e-12);
  assert_float_equal (s->rel_error, 1.0 / 6.0, 1e-12);

  s = sample_at_line (r, 6);
  assert_false (s->interpolated);

  /* coverage 2/4; errors {0.15, 1/6}: median 0.158333…, p90 0.15 + 0.9·(1/6 − 0.15) */
  st = stats_of (r, "MatMulV2", 0);
  assert_int_equal (st->samples, 4);
  assert_int_equal (st->recovered, 2);
  assert_float_equal (st->coverage, 0.5, 0);
  assert_float_equal (st->median_rel, (0.15 + 1.0 / 6.0) / 2, 1e-12);
  assert_float_equal (st->p90_rel, 0.15 + 0.9 * (1.0 / 6.0 - 0.15), 1e-12);
  assert_float_equal (st->max_rel, 1.0 / 6.0, 1e-12);
  st = stats_of (r, "MatMulV2", 1);
  assert_int_equal (st->recovered, 2);
  st = stats_of (r, "MatMulV2", 2);
  assert_int_equal (st->samples, 4);
  assert_int_equal (st->recovered, 0);
  assert_float_equal (st->coverage, 0.0, 0);
  assert_true (isnan (st->median_rel));
}

/* The holdout asks the engine's own index (built once) and leaves it intact: afterwards an
 * exact query still hits the held-out row and a miss interpolates from the cached index. */
static void
test_holdout_reuses_engine_index_and_leaves_it_intact (void **state)
{
  msperf_engine *e = *state;
  g_autoptr (msperf_holdout_report) r = run_loo (e, "MatMulV2");
  msperf_index_stats before, after;
  msperf_op *op;
  g_autoptr (msperf_result) hit = NULL;
  g_autoptr (msperf_result) interp = NULL;

  msperf_engine_index_stats (e, &before);
  assert_int_equal (before.index_builds, 1);

  op = tu_op ("aten.mm.default");
  tu_op_add_tensor (op, MSPERF_DTYPE_BF16, "32,256");
  tu_op_add_tensor (op, MSPERF_DTYPE_BF16, "256,256");
  tu_op_add_out (op, MSPERF_DTYPE_BF16, "32,256");
  hit = msperf_engine_query (e, op);
  msperf_op_free (op);
  assert_int_equal (hit->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (hit->latency_us, 20.0, 0);

  /* M = 40 between 32 (20) and 48 (36): 28 (1-D formula) */
  op = tu_op ("aten.mm.default");
  tu_op_add_tensor (op, MSPERF_DTYPE_BF16, "40,256");
  tu_op_add_tensor (op, MSPERF_DTYPE_BF16, "256,256");
  tu_op_add_out (op, MSPERF_DTYPE_BF16, "40,256");
  interp = msperf_engine_query (e, op);
  msperf_op_free (op);
  assert_int_equal (interp->source, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (interp->latency_us, 28.0, 1e-12);
  msperf_engine_index_stats (e, &after);
  assert_int_equal (after.index_builds, 1);
}

/* ceil(0.5 · 4) = 2 coordinates, the same ones for the same seed, in CSV order. */
static void
test_fraction_is_seeded_and_deterministic (void **state)
{
  msperf_holdout_options o = { 0 };
  g_autoptr (msperf_holdout_report) a = NULL;
  g_autoptr (msperf_holdout_report) b = NULL;

  o.fraction = 0.5;
  o.seed = 1;
  a = msperf_holdout_run (*state, &o, NULL);
  b = msperf_holdout_run (*state, &o, NULL);
  assert_non_null (a);
  assert_non_null (b);
  assert_false (a->leave_one_out);
  assert_int_equal (a->samples->len, 2);
  assert_int_equal (b->samples->len, 2);
  for (guint k = 0; k < 2; k++)
    assert_int_equal (((msperf_holdout_sample *) g_ptr_array_index (a->samples, k))->line,
                      ((msperf_holdout_sample *) g_ptr_array_index (b->samples, k))->line);
  assert_true (((msperf_holdout_sample *) g_ptr_array_index (a->samples, 0))->line
               < ((msperf_holdout_sample *) g_ptr_array_index (a->samples, 1))->line);
  assert_int_equal (stats_of (a, "MatMulV2", 0)->samples, 2);
}

static void
test_bad_fraction_and_unknown_kernel_are_errors (void **state)
{
  const char *kernels[] = { "NoSuchKernel", NULL };
  msperf_holdout_options o = { 0 };
  g_autoptr (GError) error = NULL;

  o.fraction = 1.5;
  assert_null (msperf_holdout_run (*state, &o, &error));
  assert_non_null (error);
  assert_int_equal (error->code, MSPERF_ERROR_INVALID);
  g_clear_error (&error);
  o.leave_one_out = TRUE;
  o.kernels = kernels;
  assert_null (msperf_holdout_run (*state, &o, &error));
  assert_non_null (error);
  assert_int_equal (error->code, MSPERF_ERROR_NOT_FOUND);
  assert_non_null (strstr (error->message, "NoSuchKernel"));
}

/* ---- reports ---- */

static char *
read_text (const char *path)
{
  char *text = NULL;

  assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static void
test_reports_md_json_html (void **state)
{
  g_autoptr (msperf_holdout_report) r = run_loo (*state, NULL);
  g_autofree char *dir = g_dir_make_tmp ("msperf-holdout-XXXXXX", NULL);
  g_autofree char *md = g_build_filename (dir, "h.md", NULL);
  g_autofree char *json = g_build_filename (dir, "h.json", NULL);
  g_autofree char *html = g_build_filename (dir, "h.html", NULL);
  g_autofree char *bad = g_build_filename (dir, "h.txt", NULL);
  g_autofree char *text = NULL;
  g_autofree char *summary = msperf_holdout_summary_text (r);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonObject *root, *kernel, *sample;

  assert_non_null (dir);
  assert_true (msperf_holdout_write (r, md, NULL));
  assert_true (msperf_holdout_write (r, json, NULL));
  assert_true (msperf_holdout_write (r, html, NULL));
  assert_false (msperf_holdout_write (r, bad, &error));
  assert_int_equal (error->code, MSPERF_ERROR_INVALID);

  text = read_text (md);
  assert_non_null (strstr (text, "| MatMulV2 | all | 4 | 2 | 50.00% | 15.83% | 16.50% | 16.67% |"));
  assert_non_null (strstr (text, "| 20.0000 | 23.0000 | 3.0000 | 15.00% | INTERPOLATED | 0.70 |"));
  g_clear_pointer (&text, g_free);

  assert_true (json_parser_load_from_file (parser, json, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  assert_string_equal (json_object_get_string_member (root, "selection"), "leave_one_out");
  kernel = json_array_get_object_element (json_object_get_array_member (root, "kernels"), 0);
  assert_string_equal (json_object_get_string_member (kernel, "kernel"), "MatMulV2");
  assert_float_equal (json_object_get_double_member (kernel, "coverage"), 0.5, 0);
  assert_float_equal (json_object_get_double_member (kernel, "p90_rel_error"), 0.165, 1e-12);
  assert_int_equal (json_array_get_length (json_object_get_array_member (kernel, "by_dim")), 3);
  assert_int_equal (json_array_get_length (json_object_get_array_member (root, "samples")), 4);
  sample = json_array_get_object_element (json_object_get_array_member (root, "samples"), 1);
  assert_float_equal (json_object_get_double_member (sample, "interpolated_us"), 23.0, 1e-12);
  assert_int_equal (json_object_get_int_member (
                      json_object_get_object_member (sample, "axes"), "M"), 32);
  assert_true (json_object_get_null_member (
    json_array_get_object_element (json_object_get_array_member (root, "samples"), 0),
    "interpolated_us"));

  text = read_text (html);
  assert_non_null (strstr (text, "Interpolated vs measured latency"));
  assert_non_null (strstr (text, "Relative error of the interpolated samples"));
  assert_non_null (strstr (text, "<circle"));
  g_clear_pointer (&text, g_free);

  assert_non_null (strstr (summary, "MatMulV2"));
  assert_non_null (strstr (summary, "50.00%"));

  g_unlink (md);
  g_unlink (json);
  g_unlink (html);
  g_rmdir (dir);
}

/* ---- attention: 2-D griddata in sqrt(seq) space (seed 000 §11.3 attention holdout) ----
 * tests/data/holdout/attention: a scattered decode cloud of 11 (seq, batch) points; held out,
 * a point has no 1-D neighbour, and 2d(seq,batch) answers with griddata on the other 10 in
 * (sqrt(seq), batch). Expected values: scipy.interpolate.griddata(method="linear") on the same
 * points (tests/data/holdout/gen_attention.py, /usr/bin/python3, scipy). */
static void
test_attention_2d_holdout_equals_scipy_griddata (void **state)
{
  static const struct { guint line; double value; } expected[] = {
    { 3, 5.240174010658057 },
    { 4, 8.082265368616193 },
    { 5, 13.723533790964076 },
    { 7, 9.802412760015535 },
    { 8, 12.268784488834367 },
  };
  g_autoptr (msperf_holdout_report) r = run_loo (*state, "FusedInferAttentionScore");
  const msperf_holdout_stats *st;

  assert_int_equal (r->samples->len, 11);
  for (gsize k = 0; k < G_N_ELEMENTS (expected); k++)
    {
      const msperf_holdout_sample *s = sample_at_line (r, expected[k].line);

      if (!s->interpolated)
        fail_msg ("line %u not interpolated: %s", expected[k].line, s->reason);
      assert_string_equal (s->method, "griddata_linear_sqrt");
      assert_int_equal (s->dim, 2);
      /* 0.65 for 2-D, lowered by 0.05 for the transform (seed 000 §5.6) */
      assert_float_equal (s->confidence, 0.60, 1e-12);
      assert_int_equal (s->candidate_count, 10);
      /* bit-equal: the same points in the same order give scipy's triangulation */
      assert_true (s->predicted_us == expected[k].value);
    }
  /* seq 256 is below every other seq; (4096, 2) is inside both ranges but outside the hull */
  assert_false (sample_at_line (r, 2)->interpolated);
  assert_non_null (strstr (sample_at_line (r, 2)->reason, "2d(seq,batch): outside_axis_boundary"));
  assert_false (sample_at_line (r, 6)->interpolated);
  assert_non_null (strstr (sample_at_line (r, 6)->reason, "2d(seq,batch): outside_convex_hull"));
  st = stats_of (r, "FusedInferAttentionScore", 2);
  assert_int_equal (st->recovered, 5);
  assert_int_equal (stats_of (r, "FusedInferAttentionScore", 1)->recovered, 0);
}

int
main (void)
{
#define COMPUTE(t) cmocka_unit_test_setup_teardown (t, setup_compute, tu_teardown_engine)
#define ATTENTION(t) cmocka_unit_test_setup_teardown (t, setup_attention, tu_teardown_engine)
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_quantile_is_numpy_linear),
    COMPUTE (test_leave_one_out_compute_known_answers),
    COMPUTE (test_holdout_reuses_engine_index_and_leaves_it_intact),
    COMPUTE (test_fraction_is_seeded_and_deterministic),
    COMPUTE (test_bad_fraction_and_unknown_kernel_are_errors),
    COMPUTE (test_reports_md_json_html),
    ATTENTION (test_attention_2d_holdout_equals_scipy_griddata),
  };

  return cmocka_run_group_tests_name ("holdout", tests, NULL, NULL);
}
