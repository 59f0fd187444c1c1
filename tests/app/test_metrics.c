/* Tests for core/metrics.c: upstream M1–M5 (reference profiling-semantics §3.1–§3.3, §6
 * "Metrics") computed from hand-built records. */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <msperf/error.h>
#include "app/run/metrics.h"
#include "app/run/digest.h"
#include "app/report/report.h"

/* ------------------------------------------------------------------ record builders */

/* shapes: "136x5120;5120x768" (one bf16 tensor arg per ';' item), "()" a 0-d tensor. */
static msperf_op *
make_op (const char *name, const char *shapes)
{
  msperf_op *op = msperf_op_new (name);
  g_auto (GStrv) items = g_strsplit (shapes, ";", -1);

  for (int k = 0; *shapes && items[k]; k++)
    {
      msperf_value *v = msperf_value_new (MSPERF_VALUE_TENSOR);
      g_auto (GStrv) dims = g_strsplit (items[k], "x", -1);

      v->tensor.dtype = MSPERF_DTYPE_BF16;
      if (strcmp (items[k], "()") != 0)
        for (int d = 0; dims[d]; d++)
          v->tensor.dims[v->tensor.rank++] = g_ascii_strtoll (dims[d], NULL, 10);
      g_ptr_array_add (op->args, v);
    }
  return op;
}

static msperf_record *
add_record (msperf_run *run, const char *name, const char *shapes, msperf_source source,
            const char *kernel_type, double analytic_us)
{
  msperf_record *r = msperf_record_new ();

  r->index = run->records->len;
  r->op = make_op (name, shapes);
  r->op_name = g_strdup (name);
  r->signature = msperf_op_signature (r->op);
  r->result = msperf_result_new ();
  r->analytic_us = analytic_us;
  if (source == MSPERF_SOURCE_MEASURED || source == MSPERF_SOURCE_INTERPOLATED
      || source == MSPERF_SOURCE_PARTIAL)
    msperf_result_set_hit (r->result, source, 10.0, 1.0, kernel_type, "identity");
  else
    {
      /* A miss answered by the roofline, as the engine fills it. */
      msperf_result_set_miss (r->result, "%s", kernel_type ? kernel_type : "shape_mismatch");
      r->result->source = MSPERF_SOURCE_ANALYTIC;
      r->result->latency_us = analytic_us;
      r->result->confidence = 0.3;
      msperf_result_set_method (r->result, "roofline");
    }
  msperf_run_add (run, r);
  return r;
}

static msperf_record *
add_hit (msperf_run *run, const char *name, const char *shapes, const char *kernel_type)
{
  return add_record (run, name, shapes, MSPERF_SOURCE_MEASURED, kernel_type, 10.0);
}

static msperf_record *
add_zero_cost (msperf_run *run, const char *name, const char *shapes)
{
  msperf_record *r = add_hit (run, name, shapes, "View");
  msperf_result_detail_bool (r->result, "zero_cost", TRUE);
  return r;
}

static msperf_record *
add_miss (msperf_run *run, const char *name, const char *shapes, const char *reason)
{
  return add_record (run, name, shapes, MSPERF_SOURCE_ANALYTIC, reason, 10.0);
}

/* ------------------------------------------------------------------ M2 / M3 */

/* Upstream test_empirical_metrics.py::test_fused_op_hr_groups_dfc_as_one (reference §6:
 * fused-group collapsing, M2 total 4 hit 2). */
static void
test_metrics_fused_group_collapses_dispatch_ffn_combine (void **state)
{
  g_autoptr (msperf_metrics) m = NULL;
  msperf_run *run = msperf_run_new ();

  (void) state;
  add_hit (run, "aten.mm.default", "136x5120;5120x768", "MatMulV2");
  add_hit (run, "tensor_cast.swiglu.default", "136x6912", "SwiGlu");
  add_hit (run, "aten.mm.default", "136x5120;5120x768", "MatMulV2");
  add_miss (run, "tensor_cast.init_routing_v2.default", "", "csv_not_found");
  add_miss (run, "tensor_cast.grouped_matmul_quant_swiglu.default", "", "csv_not_found");
  add_miss (run, "tensor_cast.unpermute_tokens.default", "", "csv_not_found");
  add_miss (run, "tensor_cast.all_to_all.default", "", "csv_not_found");
  add_miss (run, "aten.embedding.default", "", "shape_mismatch");
  m = msperf_metrics_compute (run);
  assert_int_equal (m->m2_fused_total, 4);
  assert_int_equal (m->m2_fused_hit, 2);
  assert_int_equal (m->m2_fused_miss, 2);
  assert_string_equal (msperf_metrics_fused_group ("tensor_cast.grouped_matmul_quant_swiglu.default"),
                       "DispatchFFNCombine");
  assert_null (msperf_metrics_fused_group ("aten.mm.default"));
  msperf_run_free (run);
}

/* Upstream test_fused_op_hr_excludes_zero_cost (reference §6: M2 4/3, M3 2/1). */
static void
test_metrics_zero_cost_excluded_from_m3 (void **state)
{
  g_autoptr (msperf_metrics) m = NULL;
  msperf_run *run = msperf_run_new ();

  (void) state;
  add_hit (run, "aten.mm.default", "136x5120;5120x768", "MatMulV2");
  add_zero_cost (run, "aten.view.default", "136x5120");
  add_zero_cost (run, "aten.permute.default", "136x5120");
  add_miss (run, "aten.embedding.default", "", "shape_mismatch");
  m = msperf_metrics_compute (run);
  assert_int_equal (m->m2_fused_total, 4);
  assert_int_equal (m->m2_fused_hit, 3);
  assert_int_equal (m->m3_total, 2);
  assert_int_equal (m->m3_hit, 1);
  msperf_run_free (run);
}

/* Upstream test_fused_op_hr_pessimistic_partial_shape (reference §6: M2 4/1, M3 3/0). */
static void
test_metrics_name_that_hit_and_missed_is_a_miss (void **state)
{
  g_autoptr (msperf_metrics) m = NULL;
  msperf_run *run = msperf_run_new ();

  (void) state;
  add_hit (run, "tensor_cast.quantize.default", "8x16x128", "AscendQuantV2");
  add_hit (run, "aten.mm.default", "136x5120;5120x768", "MatMulV2");
  add_zero_cost (run, "aten.view.default", "136x5120");
  add_miss (run, "tensor_cast.quantize.default", "16x128", "shape_mismatch");
  add_miss (run, "aten.mm.default", "16x7168", "shape_mismatch");
  add_miss (run, "aten.embedding.default", "9496x5120", "shape_mismatch");
  m = msperf_metrics_compute (run);
  assert_int_equal (m->m2_fused_total, 4);
  assert_int_equal (m->m2_fused_hit, 1);
  assert_int_equal (m->m2_fused_miss, 3);
  assert_int_equal (m->m3_hit, 0);
  assert_int_equal (m->m3_total, 3);
  msperf_run_free (run);
}

/* accepted_miss counts like zero_cost (reference §2.10; upstream
 * TestM4PerShapeMatchRate::test_accepted_miss_excluded). */
static void
test_metrics_accepted_miss_excluded_from_m4 (void **state)
{
  g_autoptr (msperf_metrics) m = NULL;
  msperf_run *run = msperf_run_new ();

  (void) state;
  add_hit (run, "aten.mm.default", "2048x5120;5120x5120", "MatMulV2");
  add_hit (run, "aten.index.Tensor", "163840x128", "accepted_miss");
  add_hit (run, "tensor_cast.concat_and_cache_mla.default", "4099x512", "accepted_miss");
  m = msperf_metrics_compute (run);
  assert_int_equal (m->m4_hit_shapes, 1);
  assert_int_equal (m->m4_total_shapes, 1);
  assert_int_equal (m->m1_hit, 3);
  msperf_run_free (run);
}

/* ------------------------------------------------------------------ M4 */

/* Upstream TestM4PerShapeMatchRate::test_mixed_hit_miss (reference §6: M4 mixed 0.5). */
static void
test_metrics_m4_mixed_is_half (void **state)
{
  g_autoptr (msperf_metrics) m = NULL;
  msperf_run *run = msperf_run_new ();

  (void) state;
  add_hit (run, "aten.mm.default", "2048x5120;5120x5120", "MatMulV2");
  add_hit (run, "tensor_cast.swiglu.default", "2048x6912", "SwiGlu");
  add_miss (run, "aten.mm.default", "4096x5120;5120x5120", "shape_mismatch");
  add_miss (run, "tensor_cast.swiglu.default", "4096x6912", "shape_mismatch");
  m = msperf_metrics_compute (run);
  assert_int_equal (m->m4_hit_shapes, 2);
  assert_int_equal (m->m4_total_shapes, 4);
  assert_true (fabs (m->m4_hr - 0.5) < 1e-9);
  msperf_run_free (run);
}

/* Upstream test_miss_shape_list_sorted: by func_name, then shape tuple. */
static void
test_metrics_m4_miss_list_sorted_by_name_then_shape (void **state)
{
  g_autoptr (msperf_metrics) m = NULL;
  msperf_run *run = msperf_run_new ();
  const msperf_metric_record *mr;
  msperf_tensor t;

  (void) state;
  add_miss (run, "z_op", "10x20", "unmapped");
  add_miss (run, "a_op", "30x40", "unmapped");
  add_miss (run, "a_op", "30", "unmapped");
  add_miss (run, "a_op", "4x1", "unmapped");
  m = msperf_metrics_compute (run);
  assert_int_equal (m->m4_miss_shapes->len, 4);
  /* ((4, 1),) < ((30,),) < ((30, 40),) < z_op */
  mr = g_ptr_array_index (m->m4_miss_shapes, 0);
  msperf_digest_shape (mr->digest, 0, &t);
  assert_int_equal (t.dims[0], 4);
  mr = g_ptr_array_index (m->m4_miss_shapes, 1);
  msperf_digest_shape (mr->digest, 0, &t);
  assert_int_equal (t.rank, 1);
  mr = g_ptr_array_index (m->m4_miss_shapes, 2);
  msperf_digest_shape (mr->digest, 0, &t);
  assert_int_equal (t.rank, 2);
  mr = g_ptr_array_index (m->m4_miss_shapes, 3);
  assert_string_equal (mr->record->op->name, "z_op");
  msperf_run_free (run);
}

/* ------------------------------------------------------------------ M5 */

/* Upstream TestM5SimulatedLatencyCoverage::test_weighted_by_analytic_latency
 * (reference §6: HIT 50 µs, MISS 150 µs → 0.25). */
static void
test_metrics_m5_weighted_by_analytic_latency (void **state)
{
  g_autoptr (msperf_metrics) m = NULL;
  msperf_run *run = msperf_run_new ();

  (void) state;
  add_record (run, "aten.mm.default", "2048x5120;5120x768", MSPERF_SOURCE_MEASURED,
              "MatMulV2", 50.0);
  add_record (run, "aten.mm.default", "4096x5120;5120x768", MSPERF_SOURCE_ANALYTIC,
              "shape_mismatch", 150.0);
  m = msperf_metrics_compute (run);
  assert_true (fabs (m->m5_coverage - 0.25) < 1e-9);
  assert_true (fabs (m->m5_total_s - 200e-6) < 1e-15);
  msperf_run_free (run);
}

/* Upstream test_mixed_coverage (reference §6: 2 HIT, 1 MISS, equal weights → 2/3). The
 * upstream test repeats one shape for its two hits; with one record per distinct signature
 * (Q12) those would be one record, so the two hits here have distinct shapes. */
static void
test_metrics_m5_equal_weights_two_thirds (void **state)
{
  g_autoptr (msperf_metrics) m = NULL;
  msperf_run *run = msperf_run_new ();

  (void) state;
  add_record (run, "aten.mm.default", "2048x5120;5120x768", MSPERF_SOURCE_MEASURED,
              "MatMulV2", 50.0);
  add_record (run, "aten.mm.default", "1024x5120;5120x768", MSPERF_SOURCE_INTERPOLATED,
              "MatMulV2", 50.0);
  add_record (run, "aten.mm.default", "4096x5120;5120x768", MSPERF_SOURCE_ANALYTIC,
              "shape_mismatch", 50.0);
  m = msperf_metrics_compute (run);
  assert_true (fabs (m->m5_coverage - 2.0 / 3.0) < 1e-9);
  assert_int_equal (m->m1_hit, 2);
  assert_int_equal (m->m1_miss, 1);
  msperf_run_free (run);
}

/* PARTIAL: a miss with reason "partial:<missed kernels>", only in the M5 denominator
 * (reference §3.1; upstream test_partial_contributes_to_total_but_not_hit). */
static void
test_metrics_partial_is_a_miss_with_partial_reason (void **state)
{
  g_autoptr (msperf_metrics) m = NULL;
  msperf_run *run = msperf_run_new ();
  msperf_record *r;
  msperf_value *missed = msperf_value_new (MSPERF_VALUE_LIST);
  const msperf_metric_record *mr;

  (void) state;
  r = add_record (run, "tensor_cast.mlapo_quant.default", "4099x7168", MSPERF_SOURCE_PARTIAL,
                  "QuantBatchMatmulV3", 50.0);
  msperf_value_list_append (missed, msperf_value_new_string ("KvRmsNormRopeCache"));
  msperf_value_list_append (missed, msperf_value_new_string ("X"));
  msperf_result_detail_value (r->result, "missed_kernels", missed);
  m = msperf_metrics_compute (run);
  assert_int_equal (m->m1_hit, 0);
  assert_int_equal (m->m1_miss, 1);
  assert_true (m->m5_hit_s == 0.0);
  assert_true (fabs (m->m5_total_s - 50e-6) < 1e-18);
  mr = g_ptr_array_index (m->records, 0);
  assert_false (mr->hit);
  assert_string_equal (mr->reason, "partial:KvRmsNormRopeCache,X");
  /* the MLAPO group occurs and missed */
  assert_int_equal (m->m2_fused_total, 1);
  assert_int_equal (m->m2_fused_hit, 0);
  msperf_run_free (run);
}

/* ------------------------------------------------------------------ Q12 and rejected */

/* Quirk Q12: one metrics record per distinct signature (first occurrence); the
 * invocation-weighted variants count every invocation. */
static void
test_metrics_one_record_per_distinct_signature (void **state)
{
  g_autoptr (msperf_metrics) m = NULL;
  msperf_run *run = msperf_run_new ();
  msperf_record *r;

  (void) state;
  r = add_hit (run, "aten.mm.default", "2048x5120;5120x768", "MatMulV2");
  r->count = 3;
  add_hit (run, "aten.mm.default", "2048x5120;5120x768", "MatMulV2");
  add_miss (run, "aten.add.default", "2048x5120", "unmapped");
  m = msperf_metrics_compute (run);
  assert_int_equal (m->records->len, 2);
  assert_int_equal (m->m1_hit, 1);
  assert_int_equal (m->m1_total, 2);
  assert_true (fabs (m->m1_hr - 0.5) < 1e-12);
  assert_int_equal (m->inv_hit, 4);
  assert_int_equal (m->inv_miss, 1);
  assert_true (fabs (m->inv_m1_hr - 0.8) < 1e-12);
  assert_int_equal (((msperf_metric_record *) g_ptr_array_index (m->records, 0))->invocations, 4);
  msperf_run_free (run);
}

static void
test_metrics_rejected_lines_are_not_records (void **state)
{
  g_autoptr (msperf_metrics) m = NULL;
  msperf_run *run = msperf_run_new ();
  msperf_record *r = msperf_record_new ();

  (void) state;
  r->op_name = g_strdup ("aten.bad.default");
  r->error = g_strdup ("ops.jsonl:3: unknown dtype \"float99\"");
  r->result = msperf_result_new ();
  r->result->source = MSPERF_SOURCE_REJECTED;
  msperf_run_add (run, r);
  add_hit (run, "aten.mm.default", "2048x5120;5120x768", "MatMulV2");
  m = msperf_metrics_compute (run);
  assert_int_equal (m->m1_total, 1);
  assert_int_equal (m->m1_hit, 1);
  msperf_run_free (run);
}

/* ------------------------------------------------------------------ metrics JSON */

/* Golden: tests/data/reports/metrics_small.json, generated by Python json.dumps(indent=2,
 * ensure_ascii=False) of upstream export_hit_miss_report's dictionary (see README.md there). */
static void
test_metrics_json_matches_upstream_golden (void **state)
{
  g_autoptr (msperf_metrics) m = NULL;
  g_autofree char *text = NULL;
  g_autofree char *golden = NULL;
  g_autofree char *path = g_build_filename (g_getenv ("MSPERF_TEST_DATADIR"), "reports",
                                            "metrics_small.json", NULL);
  msperf_run *run = msperf_run_new ();

  (void) state;
  assert_true (g_file_get_contents (path, &golden, NULL, NULL));
  add_record (run, "aten.mm.default", "2048x5120", MSPERF_SOURCE_MEASURED, "MatMulV2", 50.0);
  add_record (run, "aten.add.default", "1024x512", MSPERF_SOURCE_ANALYTIC, "shape_mismatch", 30.0);
  m = msperf_metrics_compute (run);
  text = msperf_metrics_to_json (m);
  assert_string_equal (text, golden);
  msperf_run_free (run);
}

/* Upstream writes `hit / total if total > 0 else 0`: an int 0 for M1–M3, 0.0 for M4/M5
 * (test_empty_report: m1_total 0, m5 coverage 0.0). */
static void
test_metrics_json_empty_run_keeps_upstream_zero_types (void **state)
{
  g_autoptr (msperf_metrics) m = NULL;
  g_autofree char *text = NULL;
  msperf_run *run = msperf_run_new ();

  (void) state;
  m = msperf_metrics_compute (run);
  text = msperf_metrics_to_json (m);
  assert_non_null (strstr (text, "\"m1_raw_op_count_hr\": 0\n"));
  assert_non_null (strstr (text, "\"m2_fused_op_hr\": 0\n"));
  assert_non_null (strstr (text, "\"m4_per_shape_hr\": 0.0,"));
  assert_non_null (strstr (text, "\"m5_simulated_latency_coverage\": 0.0\n"));
  assert_non_null (strstr (text, "\"m4_miss_shape_list\": []"));
  assert_non_null (strstr (text, "\"misses\": []\n}"));
  msperf_run_free (run);
}

static void
test_metrics_file_written_and_bad_path_errors (void **state)
{
  g_autofree char *dir = g_dir_make_tmp ("msperf-metrics-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "m.json", NULL);
  g_autofree char *bad = g_build_filename (dir, "missing", "m.json", NULL);
  g_autofree char *text = NULL;
  GError *error = NULL;
  msperf_run *run = msperf_run_new ();

  (void) state;
  add_hit (run, "aten.mm.default", "2048x5120", "MatMulV2");
  assert_true (msperf_report_metrics_file (run, path, &error));
  assert_null (error);
  assert_true (g_file_get_contents (path, &text, NULL, NULL));
  assert_true (g_str_has_prefix (text, "{\n  \"m1\": {\n    \"m1_hit\": 1,"));
  assert_false (msperf_report_metrics_file (run, bad, &error));
  assert_non_null (error);
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO));
  assert_non_null (strstr (error->message, bad));
  g_error_free (error);
  g_unlink (path);
  g_rmdir (dir);
  msperf_run_free (run);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_metrics_fused_group_collapses_dispatch_ffn_combine),
    cmocka_unit_test (test_metrics_zero_cost_excluded_from_m3),
    cmocka_unit_test (test_metrics_name_that_hit_and_missed_is_a_miss),
    cmocka_unit_test (test_metrics_accepted_miss_excluded_from_m4),
    cmocka_unit_test (test_metrics_m4_mixed_is_half),
    cmocka_unit_test (test_metrics_m4_miss_list_sorted_by_name_then_shape),
    cmocka_unit_test (test_metrics_m5_weighted_by_analytic_latency),
    cmocka_unit_test (test_metrics_m5_equal_weights_two_thirds),
    cmocka_unit_test (test_metrics_partial_is_a_miss_with_partial_reason),
    cmocka_unit_test (test_metrics_one_record_per_distinct_signature),
    cmocka_unit_test (test_metrics_rejected_lines_are_not_records),
    cmocka_unit_test (test_metrics_json_matches_upstream_golden),
    cmocka_unit_test (test_metrics_json_empty_run_keeps_upstream_zero_types),
    cmocka_unit_test (test_metrics_file_written_and_bad_path_errors),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
