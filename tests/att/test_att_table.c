/* Tests of the ATT V2 VF perf table and the VF cost accumulator (core/att_table.c). Golden
 * values come from reference att-model.md §1.2–§1.5 (the shipped table's rows and quirks) and
 * the fixtures under tests/data/att/ (fallback order, load errors). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/att.h>

static msperf_att_table *
load_fixture (const char *name, GError **error)
{
  g_autofree char *path = g_build_filename (g_getenv ("MSPERF_TEST_DATADIR"), "att", name, NULL);
  return msperf_att_table_load (path, error);
}

static msperf_att_table *
load_shipped (void)
{
  g_autoptr (GError) error = NULL;
  msperf_att_table *t = msperf_att_table_load_default (&error);

  if (t == NULL)
    fail_msg ("%s", error->message);
  return t;
}

/* §1.4: constants and element maps (int4 absent from kRptEleMap). */
static void
test_att_table_constants_and_element_maps (void **state)
{
  g_autoptr (msperf_att_table) t = load_shipped ();
  int64_t v = 0;

  (void) state;
  assert_true (msperf_att_table_constant (t, "vf_head_cost", -1) == 20.0);
  assert_true (msperf_att_table_constant (t, "vector_len_bytes", -1) == 256.0);
  assert_true (msperf_att_table_constant (t, "no_such_constant", -1) == -1.0);
  assert_true (msperf_att_table_repeat_elems (t, "float16", &v) && v == 128);
  assert_true (msperf_att_table_repeat_elems (t, "int64", &v) && v == 32);
  assert_true (msperf_att_table_repeat_elems (t, "bool", &v) && v == 256);
  assert_false (msperf_att_table_repeat_elems (t, "int4", &v));
  assert_true (msperf_att_table_block_elems (t, "float32", &v) && v == 8);
  assert_true (msperf_att_table_dtype_size (t, "int4", &v) && v == 1);
}

/* §1.2 and §1.4 rows; §1.5 quirks: missing dtypes and keys give no entry, the key strings are
 * the runtime values of the constants (kMaskAnd, vcadd). */
static void
test_att_table_single_lookup_and_quirks (void **state)
{
  g_autoptr (msperf_att_table) t = load_shipped ();
  int64_t lat = -1, thr = -1;

  (void) state;
  assert_true (msperf_att_table_lookup (t, "Store", "uint8", &lat, &thr));
  assert_true (lat == 0 && thr == 5);
  assert_true (msperf_att_table_lookup (t, "Store", "int64", &lat, &thr));
  assert_true (lat == 0 && thr == 1);
  assert_true (msperf_att_table_lookup (t, "Add", "int32", &lat, &thr));
  assert_true (lat == 4 && thr == 2);
  assert_true (msperf_att_table_lookup (t, "Add", "bfloat16", &lat, &thr));
  assert_true (lat == 4 && thr == 1);
  assert_true (msperf_att_table_lookup (t, "Exp", "float16", &lat, &thr));
  assert_true (lat == 18 && thr == 8);
  assert_true (msperf_att_table_lookup (t, "kMaskAnd", "int8", &lat, &thr));
  assert_true (lat == 4 && thr == 2);
  assert_true (msperf_att_table_lookup (t, "vcadd", "float32", &lat, &thr));
  assert_true (lat == 19 && thr == 1);
  assert_true (msperf_att_table_lookup (t, "Pack", "uint32", &lat, &thr));
  assert_true (lat == 8 && thr == 1);
  assert_true (msperf_att_table_lookup (t, "Duplicate", "uint32", &lat, &thr));
  assert_true (lat == 8 && thr == 1);
  assert_true (msperf_att_table_lookup (t, "Load", "int64", &lat, &thr));
  assert_true (lat == 0 && thr == 0);

  assert_false (msperf_att_table_lookup (t, "Or", "uint32", &lat, &thr));
  assert_false (msperf_att_table_lookup (t, "UpdateMask", "int64", &lat, &thr));
  assert_false (msperf_att_table_lookup (t, "MaskPack", "float16", &lat, &thr));
  assert_false (msperf_att_table_lookup (t, "Div", "int32", &lat, &thr));
  assert_false (msperf_att_table_lookup (t, "Mul", "int8", &lat, &thr));
  assert_false (msperf_att_table_lookup (t, "Load", "bool", &lat, &thr));
  assert_false (msperf_att_table_lookup (t, "CompareScalarGE", "int32", &lat, &thr));
  assert_false (msperf_att_table_lookup (t, "MaskAnd", "int8", &lat, &thr));
  assert_false (msperf_att_table_lookup (t, "Vcadd", "float32", &lat, &thr));
}

/* §1.4 mapping table: every Cast pair that is not float↔float costs (5,2); every mapped store
 * but u8→i64 costs (0,1). */
static void
test_att_table_mapping_lookup_shipped (void **state)
{
  g_autoptr (msperf_att_table) t = load_shipped ();
  int64_t lat = -1, thr = -1;
  const char *mi = NULL, *mo = NULL;

  (void) state;
  assert_true (msperf_att_table_lookup_mapping (t, "Cast", "float32", "float16", &lat, &thr, &mi, &mo));
  assert_true (lat == 4 && thr == 1);
  assert_string_equal (mi, "float32");
  assert_string_equal (mo, "float16");
  assert_true (msperf_att_table_lookup_mapping (t, "Cast", "int8", "float16", &lat, &thr, &mi, &mo));
  assert_true (lat == 5 && thr == 2);
  assert_string_equal (mi, "default");
  assert_string_equal (mo, "default");
  assert_true (msperf_att_table_lookup_mapping (t, "Store", "uint8", "int64", &lat, &thr, NULL, NULL));
  assert_true (lat == 0 && thr == 5);
  assert_true (msperf_att_table_lookup_mapping (t, "Store", "int64", "uint8", &lat, &thr, NULL, NULL));
  assert_true (lat == 0 && thr == 1);
  assert_false (msperf_att_table_lookup_mapping (t, "Pack", "int8", "int8", &lat, &thr, NULL, NULL));
  assert_true (lat == 0 && thr == 0);
}

/* §1.3 order: (in,out), (in,default), (default,out), (default,default) — regardless of the
 * order of the rows; §1.2: the first row listing a dtype wins. Fixture fallback_order.yaml. */
static void
test_att_table_mapping_fallback_order (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_att_table) t = load_fixture ("fallback_order.yaml", &error);
  int64_t lat = 0, thr = 0;
  const char *mi = NULL, *mo = NULL;

  (void) state;
  assert_non_null (t);
  assert_true (msperf_att_table_lookup_mapping (t, "Conv", "int8", "float16", &lat, &thr, &mi, &mo));
  assert_true (lat == 10);
  assert_true (msperf_att_table_lookup_mapping (t, "Conv", "int8", "int32", &lat, &thr, &mi, &mo));
  assert_true (lat == 20);
  assert_string_equal (mo, "default");
  assert_true (msperf_att_table_lookup_mapping (t, "Conv", "uint8", "float16", &lat, &thr, &mi, &mo));
  assert_true (lat == 30);
  assert_string_equal (mi, "default");
  assert_true (msperf_att_table_lookup_mapping (t, "Conv", "uint8", "int32", &lat, &thr, &mi, &mo));
  assert_true (lat == 40);
  /* a table without default rows: only the exact pair matches */
  assert_true (msperf_att_table_lookup_mapping (t, "NoDefault", "int8", "float16", &lat, &thr, NULL, NULL));
  assert_false (msperf_att_table_lookup_mapping (t, "NoDefault", "int8", "int32", &lat, &thr, NULL, NULL));
  /* first row wins */
  assert_true (msperf_att_table_lookup (t, "Dup", "int16", &lat, &thr));
  assert_true (lat == 1 && thr == 1);
}

/* §1.1: head + max_latency + Σ throughput·count; a missing entry adds nothing but stays in the
 * ledger marked no_table_entry. */
static void
test_att_vf_cost_and_ledger (void **state)
{
  g_autoptr (msperf_att_table) t = load_shipped ();
  g_autoptr (msperf_expr_ctx) ctx = msperf_expr_ctx_new ();
  g_autoptr (msperf_att_vf) vf = msperf_att_vf_new (t, ctx);
  msperf_expr *r = msperf_expr_symbol (ctx, "R");
  g_autoptr (msperf_value) ledger = NULL;
  const msperf_value *row, *comp;
  GPtrArray *rows;
  msperf_att_component *c;

  (void) state;
  msperf_att_vf_call (vf, "test", "LoadAlign", "common", "Load", "float32", NULL, r);
  msperf_att_vf_call (vf, "test", "StoreAlign", "common", "Store", "float32", "float16", r);
  msperf_att_vf_call (vf, "test", "Or", "bool", "Or", "uint32", NULL, r);
  msperf_att_vf_call (vf, "test", "Cast", "common", "Cast", "float32", "float16", r);
  /* 20 + max(0, 0, 4) + R·(0 + 1 + 1) */
  assert_string_equal (msperf_expr_str (msperf_att_vf_cost (vf)), "((2 * R) + 24)");
  assert_string_equal (msperf_expr_str (msperf_att_vf_max_latency (vf)), "4");

  rows = msperf_att_vf_ledger (vf);
  assert_int_equal (rows->len, 4);
  c = g_ptr_array_index (((msperf_att_ledger_row *) g_ptr_array_index (rows, 2))->components, 0);
  assert_true (c->no_table_entry);
  assert_string_equal (c->perf_type, "Or");

  ledger = msperf_att_ledger_to_value (rows);
  assert_int_equal (ledger->items->len, 4);
  row = g_ptr_array_index (ledger->items, 1);
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (row, "real_api")), "StoreAlign");
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (row, "call_count")), "R");
  comp = g_ptr_array_index (msperf_value_lookup (row, "perf_components")->items, 0);
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (comp, "perf_dtype")),
                       "float32->float16");
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (comp, "matched")),
                       "default->default");
  assert_int_equal (msperf_value_lookup (comp, "throughput")->i, 1);
  assert_false (msperf_value_lookup (comp, "no_table_entry")->b);
  row = g_ptr_array_index (ledger->items, 2);
  comp = g_ptr_array_index (msperf_value_lookup (row, "perf_components")->items, 0);
  assert_true (msperf_value_lookup (comp, "no_table_entry")->b);
}

/* Load errors name the file and line. */
static void
test_att_table_load_errors_name_file_and_line (void **state)
{
  g_autoptr (GError) error = NULL;
  msperf_att_table *t;

  (void) state;
  t = load_fixture ("bad_row.yaml", &error);
  assert_null (t);
  assert_non_null (strstr (error->message, "bad_row.yaml:4:"));
  g_clear_error (&error);
  t = load_fixture ("bad_dtypes.yaml", &error);
  assert_null (t);
  assert_non_null (strstr (error->message, "bad_dtypes.yaml:4:"));
  assert_non_null (strstr (error->message, "dtypes"));
  g_clear_error (&error);
  t = load_fixture ("no_such_file.yaml", &error);
  assert_null (t);
  assert_non_null (error);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_att_table_constants_and_element_maps),
    cmocka_unit_test (test_att_table_single_lookup_and_quirks),
    cmocka_unit_test (test_att_table_mapping_lookup_shipped),
    cmocka_unit_test (test_att_table_mapping_fallback_order),
    cmocka_unit_test (test_att_vf_cost_and_ledger),
    cmocka_unit_test (test_att_table_load_errors_name_file_and_line),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
