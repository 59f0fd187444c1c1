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
#include "app/report/holdout_report.h"
#include "app/report/holdout_compare.h"
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

/* ---- per method, with the confidence label and the table in effect ---- */

static const msperf_holdout_stats *
method_of (const msperf_holdout_report *r, const char *kernel, const char *method)
{
  for (guint k = 0; k < r->method_stats->len; k++)
    {
      const msperf_holdout_stats *s = g_ptr_array_index (r->method_stats, k);

      if (strcmp (s->kernel, kernel) == 0 && strcmp (s->method, method) == 0)
        return s;
    }
  fail_msg ("no method row %s / %s", kernel, method);
  abort ();
}

static const msperf_holdout_confidence *
table_entry (const msperf_holdout_report *r, const char *key)
{
  for (guint k = 0; k < r->confidence->len; k++)
    {
      const msperf_holdout_confidence *c = g_ptr_array_index (r->confidence, k);

      if (strcmp (c->key, key) == 0)
        return c;
    }
  fail_msg ("no confidence entry %s", key);
  abort ();
}

/* Compute fixture: M=32 (15 %) and M=48 (1/6) by linear_1d: one method row, median of the
 * two errors, the label 0.70 of the built-in table. */
static void
test_method_rows_carry_the_confidence_label (void **state)
{
  g_autoptr (msperf_holdout_report) r = run_loo (*state, NULL);
  const msperf_holdout_stats *m;
  g_autofree char *text = NULL;

  assert_int_equal (r->method_stats->len, 1);
  m = method_of (r, "MatMulV2", "linear_1d");
  assert_int_equal (m->dim, 1);
  assert_int_equal (m->samples, 4);
  assert_int_equal (m->recovered, 2);
  assert_float_equal (m->median_rel, (0.15 + 1.0 / 6.0) / 2.0, 1e-12);
  assert_float_equal (m->max_rel, 1.0 / 6.0, 1e-12);
  assert_true (m->confidence_min == 0.70 && m->confidence_max == 0.70);
  assert_string_equal (sample_at_line (r, 3)->method_key, "linear_1d");
  assert_null (sample_at_line (r, 2)->method_key);
  assert_true (table_entry (r, "linear_1d")->value == 0.70);
  assert_false (table_entry (r, "linear_1d")->from_policy);
  assert_true (table_entry (r, "analytic")->value == 0.30);
  text = msperf_holdout_summary_text (r);
  assert_non_null (strstr (text, "MatMulV2                     linear_1d                   4         2"));
  assert_non_null (strstr (text, "0.70\n"));
  assert_non_null (strstr (text, "confidence table: linear_1d 0.70, griddata_2d 0.65"));
}

/* A policy entry changes the label of the method's answers and shows as set by the policy. */
static void
test_policy_confidence_in_report (void **state)
{
  static const char *const o[] = { "confidence.linear_1d", "0.42", NULL };
  g_autoptr (msperf_engine) e = tu_engine_new ("holdout/compute", o);
  g_autoptr (msperf_holdout_report) r = run_loo (e, NULL);
  g_autofree char *text = msperf_holdout_summary_text (r);
  msperf_value *doc = msperf_holdout_report_value (r);
  const msperf_value *entry;
  double d = 0;

  (void) state;
  assert_true (sample_at_line (r, 3)->confidence == 0.42);
  assert_true (method_of (r, "MatMulV2", "linear_1d")->confidence_min == 0.42);
  assert_true (table_entry (r, "linear_1d")->from_policy);
  assert_non_null (strstr (text, "linear_1d 0.42*"));
  entry = msperf_value_lookup (msperf_value_lookup (doc, "confidence_table"), "linear_1d");
  assert_true (msperf_value_get_double (msperf_value_lookup (entry, "value"), &d) && d == 0.42);
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (entry, "from")), "policy");
  msperf_value_free (doc);
}

/* Attention fixture: the 2-D answers in sqrt(seq) space form the griddata_2d_sqrt row,
 * labelled 0.65 − 0.05. */
static void
test_attention_method_row (void **state)
{
  g_autoptr (msperf_holdout_report) r = run_loo (*state, "FusedInferAttentionScore");
  const msperf_holdout_stats *m = method_of (r, "FusedInferAttentionScore", "griddata_2d_sqrt");

  assert_int_equal (r->method_stats->len, 1);
  assert_int_equal (m->dim, 2);
  assert_int_equal (m->recovered, 5);
  assert_true (m->confidence_min == 0.65 - 0.05);
}

/* ---- variants ---- */

static void
assert_override (const msperf_holdout_variant *v, guint k, const char *key, const char *value)
{
  assert_true (k < v->keys->len);
  assert_string_equal (g_ptr_array_index (v->keys, k), key);
  assert_string_equal (g_ptr_array_index (v->values, k), value);
}

static void
test_variant_parsing (void **state)
{
  g_autoptr (GPtrArray) list =
    g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_holdout_variant_free);
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_holdout_variant) v = NULL;
  g_autofree char *d = NULL;
  static const char *const bad[] = { "noname", ":a=1", "x:a", "x:=1", "x:a=", "bad name:a=1",
                                     NULL };

  (void) state;
  assert_true (msperf_holdout_variants_from_compare ("linear, log,dim1,default,mean", list,
                                                     &error));
  assert_int_equal (list->len, 5);
  assert_override (g_ptr_array_index (list, 0), 0, "interpolation.space", "linear");
  assert_override (g_ptr_array_index (list, 1), 0, "interpolation.space", "log");
  assert_override (g_ptr_array_index (list, 2), 0, "interpolation.max_interpolation_dim", "1");
  assert_int_equal (((msperf_holdout_variant *) g_ptr_array_index (list, 3))->keys->len, 0);
  assert_override (g_ptr_array_index (list, 4), 0, "interpolation.aggregate", "mean");
  assert_false (msperf_holdout_variants_from_compare ("linear,cubic", list, &error));
  assert_non_null (strstr (error->message, "'cubic'"));
  g_clear_error (&error);

  v = msperf_holdout_variant_parse ("d2:max_interpolation_dim=2, modes=[compute,x],"
                                    "confidence.linear_1d=0.5", &error);
  assert_non_null (v);
  assert_string_equal (v->name, "d2");
  assert_int_equal (v->keys->len, 3);
  assert_override (v, 0, "interpolation.max_interpolation_dim", "2");
  assert_override (v, 1, "interpolation.modes", "[compute,x]");
  assert_override (v, 2, "confidence.linear_1d", "0.5");
  d = msperf_holdout_variant_describe (v);
  assert_string_equal (d, "interpolation.max_interpolation_dim=2, interpolation.modes="
                          "[compute,x], confidence.linear_1d=0.5");
  g_clear_pointer (&v, msperf_holdout_variant_free);
  v = msperf_holdout_variant_parse ("base:", &error);
  assert_non_null (v);
  assert_int_equal (v->keys->len, 0);
  for (const char *const *b = bad; *b; b++)
    {
      msperf_holdout_variant *x = msperf_holdout_variant_parse (*b, &error);

      if (x != NULL)
        fail_msg ("'%s' accepted", *b);
      assert_int_equal (error->code, MSPERF_ERROR_INVALID);
      g_clear_error (&error);
    }
}

/* Two variants on the compute fixture: the comparison has a row per method, a group each. */
static void
test_compare_text (void **state)
{
  static const char *const o[] = { "confidence.linear_1d", "0.5", NULL };
  g_autoptr (msperf_engine) e2 = tu_engine_new ("holdout/compute", o);
  g_autoptr (GPtrArray) variants =
    g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_holdout_variant_free);
  g_autoptr (GPtrArray) reports =
    g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_holdout_report_free);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  g_ptr_array_add (variants, msperf_holdout_variant_parse ("base:", &error));
  g_ptr_array_add (variants, msperf_holdout_variant_parse ("low:confidence.linear_1d=0.5",
                                                           &error));
  g_ptr_array_add (reports, run_loo (*state, NULL));
  g_ptr_array_add (reports, run_loo (e2, NULL));
  text = msperf_holdout_compare_text (variants, reports);
  assert_non_null (strstr (text, "  base         built-in policy"));
  assert_non_null (strstr (text, "  low          confidence.linear_1d=0.5"));
  assert_non_null (strstr (text, "\nMatMulV2\n"));
  assert_non_null (strstr (text, "all                  |         2/4   15.83%   16.50%   16.67%"
                                 "      0.70 |         2/4   15.83%   16.50%   16.67%      0.50 |"));
  assert_non_null (strstr (text, "linear_1d            |         2/4"));
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
    COMPUTE (test_method_rows_carry_the_confidence_label),
    cmocka_unit_test (test_policy_confidence_in_report),
    ATTENTION (test_attention_method_row),
    cmocka_unit_test (test_variant_parsing),
    COMPUTE (test_compare_text),
  };

  return cmocka_run_group_tests_name ("holdout", tests, NULL, NULL);
}
