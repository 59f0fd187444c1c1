/* Kernel CSV tables (reference §1.3–§1.5, quirk Q1) and the RFC 4180 reader under them.
 * Fixtures: tests/data/table/ (each named after what it exercises) and the example database
 * doc/examples/h200-db. */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/table.h>
#include <msperf/shape.h>

static char *
fixture (const char *name)
{
  const char *dir = g_getenv ("MSPERF_TEST_DATADIR");

  if (dir == NULL)
    return g_build_filename (MSPERF_SRCDIR, "tests", "data", "table", name, NULL);
  return g_build_filename (dir, "table", name, NULL);
}

static msperf_table *
load_fixture (const char *name, const char *kernel_type)
{
  g_autofree char *path = fixture (name);
  g_autoptr (GError) error = NULL;
  msperf_table *table = msperf_table_load (path, kernel_type, &error);

  if (table == NULL)
    fail_msg ("%s: %s", name, error->message);
  return table;
}

static msperf_table *
load_text (const char *text, GError **error)
{
  return msperf_table_load_data (text, strlen (text), "mem.csv", "Mem", error);
}

static void
assert_contains (const char *haystack, const char *needle)
{
  if (haystack == NULL || strstr (haystack, needle) == NULL)
    fail_msg ("\"%s\" does not contain \"%s\"", haystack ? haystack : "(null)", needle);
}

static void
assert_slot (const msperf_slots *slots, size_t i, msperf_dtype dtype, msperf_format format,
             int rank, ...)
{
  va_list args;

  assert_true (i < slots->n);
  assert_int_equal (slots->t[i].rank, rank);
  va_start (args, rank);
  for (int k = 0; k < rank; k++)
    assert_int_equal (slots->t[i].dims[k], va_arg (args, int64_t));
  va_end (args);
  assert_int_equal (slots->t[i].dtype, dtype);
  assert_int_equal (slots->t[i].format, format);
  assert_null (slots->t[i].values);
}

static void
assert_problem (const msperf_table *table, guint i, const char *file_line, const char *text)
{
  const GPtrArray *problems = msperf_table_problems (table);
  const char *message;

  assert_true (i < problems->len);
  message = g_ptr_array_index (problems, i);
  assert_contains (message, file_line);
  assert_contains (message, text);
}

/* ---------------------------------------------------------------- schemas */

static void
test_table_minimal_schema_reads_the_reference_example_rows (void **state)
{
  g_autoptr (msperf_table) table = load_fixture ("minimal_schema.csv", "MatMulV2");
  const msperf_slots *in, *out;

  (void) state;
  /* reference §1.3 "Example rows (from upstream unit tests)" */
  assert_string_equal (msperf_table_kernel_type (table), "MatMulV2");
  assert_true (g_str_has_suffix (msperf_table_path (table), "minimal_schema.csv"));
  assert_int_equal (msperf_table_n_rows (table), 3);
  assert_int_equal (msperf_table_n_skipped (table), 0);
  assert_int_equal (msperf_table_n_columns (table), 7);
  assert_int_equal (msperf_table_problems (table)->len, 0);
  assert_true (msperf_table_has_shapes (table));
  assert_string_equal (msperf_table_column_name (table, 6), "Average Duration(us)");
  assert_int_equal (msperf_table_column (table, "Average Duration(us)"), 6);
  assert_int_equal (msperf_table_column (table, "Input Formats"), 2);
  assert_int_equal (msperf_table_column (table, "Duration(us)"), -1);

  assert_true (msperf_table_row_latency (table, 0) == 45.3);
  assert_true (msperf_table_row_latency (table, 1) == 14.156);
  assert_true (msperf_table_row_latency (table, 2) == 10.5);
  for (size_t r = 0; r < 3; r++)
    {
      assert_true (msperf_table_row_valid (table, r));
      assert_int_equal (msperf_table_row_latency_column (table, r), MSPERF_LATENCY_AVERAGE);
      assert_int_equal (msperf_table_row_line (table, r), r + 2);
    }

  in = msperf_table_row_inputs (table, 0);
  assert_int_equal (in->n, 2);
  assert_slot (in, 0, MSPERF_DTYPE_BF16, MSPERF_FORMAT_ND, 2, INT64_C (136), INT64_C (5120));
  assert_slot (in, 1, MSPERF_DTYPE_BF16, MSPERF_FORMAT_FRACTAL_NZ, 4, INT64_C (320),
               INT64_C (48), INT64_C (16), INT64_C (16));
  out = msperf_table_row_outputs (table, 0);
  assert_int_equal (out->n, 1);
  assert_slot (out, 0, MSPERF_DTYPE_BF16, MSPERF_FORMAT_ND, 2, INT64_C (136), INT64_C (768));
  in = msperf_table_row_inputs (table, 1);
  assert_slot (in, 1, MSPERF_DTYPE_BF16, MSPERF_FORMAT_FRACTAL_NZ, 4, INT64_C (32),
               INT64_C (320), INT64_C (16), INT64_C (16));

  assert_string_equal (msperf_table_cell (table, 0, 2), "ND;FRACTAL_NZ");
  assert_string_equal (msperf_table_cell_by_name (table, 2, "Input Shapes"), "256,7168;256,7168");
  assert_null (msperf_table_cell_by_name (table, 2, "Accelerator Core"));
  assert_string_equal (msperf_table_cell (table, 2, -1), "");
}

static void
test_table_raw_triple_quoted_cells_decode_with_aligned_slots (void **state)
{
  g_autoptr (msperf_table) table = load_fixture ("raw_triple_quoted.csv", NULL);
  const msperf_slots *in, *out;

  (void) state;
  /* upstream fixture fia_raw_test/FusedInferAttentionScore.csv, first two rows */
  assert_string_equal (msperf_table_kernel_type (table), "raw_triple_quoted");
  assert_int_equal (msperf_table_n_rows (table), 2);
  assert_int_equal (msperf_table_n_columns (table), 37);
  assert_true (msperf_table_row_latency (table, 0) == 58.2);
  assert_true (msperf_table_row_latency (table, 1) == 60.1);
  /* the cell keeps its literal quotes; the slots do not */
  assert_true (g_str_has_prefix (msperf_table_cell_by_name (table, 0, "Input Shapes"),
                                 "\"128,4,128;"));
  assert_string_equal (msperf_table_cell_by_name (table, 0, "avg_seq_len"), "4096");

  /* 31 FIA slots (reference §1.4); the 7 non-empty ones are 0,1,2,4,5,6,14. */
  in = msperf_table_row_inputs (table, 0);
  assert_int_equal (in->n, 7);
  assert_slot (in, 0, MSPERF_DTYPE_BF16, MSPERF_FORMAT_ND, 3, INT64_C (128), INT64_C (4),
               INT64_C (128));
  assert_slot (in, 1, MSPERF_DTYPE_BF16, MSPERF_FORMAT_ND, 3, INT64_C (12307), INT64_C (128),
               INT64_C (128));
  assert_slot (in, 3, MSPERF_DTYPE_INT8, MSPERF_FORMAT_ND, 2, INT64_C (2048), INT64_C (2048));
  assert_slot (in, 4, MSPERF_DTYPE_INT64, MSPERF_FORMAT_ND, 1, INT64_C (128));
  assert_slot (in, 5, MSPERF_DTYPE_INT64, MSPERF_FORMAT_ND, 1, INT64_C (128));
  /* slot 14 (block_table) keeps its own INT32: upstream would pair it with slot 6's INT64 */
  assert_slot (in, 6, MSPERF_DTYPE_INT32, MSPERF_FORMAT_ND, 2, INT64_C (128), INT64_C (512));

  /* Output cell "128,4,128;" with DT_BF16;FLOAT: the empty slot takes FLOAT with it. */
  out = msperf_table_row_outputs (table, 0);
  assert_int_equal (out->n, 1);
  assert_slot (out, 0, MSPERF_DTYPE_BF16, MSPERF_FORMAT_ND, 3, INT64_C (128), INT64_C (4),
               INT64_C (128));
}

static void
test_table_communication_csv_has_no_slots (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_table) table = NULL;

  (void) state;
  /* reference §1.5 example rows */
  table = load_text ("message_bytes,num_devices,dtype,topology_tier,Duration(us)\n"
                     "1310720,16,DT_BF16,0,689.96\n"
                     "655360,16,DT_BF16,0,412.50\n"
                     "1310720,4,DT_BF16,2,125.30\n", &error);
  assert_non_null (table);
  assert_false (msperf_table_has_shapes (table));
  assert_int_equal (msperf_table_n_rows (table), 3);
  assert_int_equal (msperf_table_row_inputs (table, 0)->n, 0);
  assert_int_equal (msperf_table_row_outputs (table, 0)->n, 0);
  assert_int_equal (msperf_table_row_latency_column (table, 1), MSPERF_LATENCY_DURATION);
  assert_true (msperf_table_row_latency (table, 0) == 689.96);
  assert_string_equal (msperf_table_cell_by_name (table, 2, "num_devices"), "4");
}

/* ---------------------------------------------------------------- latency */

static void
test_table_latency_priority_falls_through_and_skips_invalid_rows (void **state)
{
  g_autoptr (msperf_table) table = load_fixture ("latency_priority.csv", NULL);
  static const struct {
    msperf_latency_column column;
    double latency;
  } expected[] = {
    { MSPERF_LATENCY_AVERAGE, 10.5 },
    { MSPERF_LATENCY_PROFILING_AVERAGE, 20.5 }, /* blank Average falls through */
    { MSPERF_LATENCY_DURATION, 30.5 },          /* blank Average and Profiling */
    { MSPERF_LATENCY_NONE, 0.0 },               /* nan, negative, zero */
    { MSPERF_LATENCY_NONE, 0.0 },               /* zero, blanks */
    { MSPERF_LATENCY_NONE, 0.0 },               /* negative, inf, text */
    { MSPERF_LATENCY_AVERAGE, 12.25 },          /* blanks around a number are trimmed */
    { MSPERF_LATENCY_DURATION, 7.0 },           /* "12.5us" and hex are not numbers */
    { MSPERF_LATENCY_NONE, 0.0 },               /* all blank */
  };

  (void) state;
  /* reference §1.3 "Latency column priority" */
  assert_int_equal (msperf_table_n_rows (table), G_N_ELEMENTS (expected));
  assert_int_equal (msperf_table_n_skipped (table), 4);
  for (size_t r = 0; r < G_N_ELEMENTS (expected); r++)
    {
      assert_int_equal (msperf_table_row_latency_column (table, r), expected[r].column);
      assert_int_equal (msperf_table_row_valid (table, r),
                        expected[r].column != MSPERF_LATENCY_NONE);
      if (expected[r].column != MSPERF_LATENCY_NONE)
        assert_true (msperf_table_row_latency (table, r) == expected[r].latency);
      /* rows without a latency are kept with their slots */
      assert_int_equal (msperf_table_row_inputs (table, r)->n, 1);
    }
  assert_int_equal (msperf_table_problems (table)->len, 0);
}

static void
test_table_without_average_column_prefers_profiling_average (void **state)
{
  g_autoptr (msperf_table) table = load_fixture ("profiling_preferred.csv", NULL);

  (void) state;
  assert_int_equal (msperf_table_row_latency_column (table, 0), MSPERF_LATENCY_DURATION);
  assert_true (msperf_table_row_latency (table, 0) == 2.5);
  assert_int_equal (msperf_table_row_latency_column (table, 1),
                    MSPERF_LATENCY_PROFILING_AVERAGE);
  assert_true (msperf_table_row_latency (table, 1) == 3.5);
}

static void
test_table_without_latency_column_is_an_error (void **state)
{
  g_autoptr (GError) error = NULL;
  msperf_table *table;

  (void) state;
  table = load_text ("Input Shapes,Median Duration(us)\n\"1,2\",3.0\n", &error);
  assert_null (table);
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID));
  assert_string_equal (error->message,
                       "mem.csv:1: no latency column (expected one of Average Duration(us), "
                       "Profiling Average Duration(us), Duration(us))");
}

/* ---------------------------------------------------------------- Q1 slots */

static void
test_table_q1_empty_shape_slot_drops_its_dtype_and_format (void **state)
{
  g_autoptr (msperf_table) table = load_fixture ("q1_empty_slot.csv", NULL);
  const msperf_slots *in, *out;

  (void) state;
  /* reference §5 Q1 (fix): slots aligned by position, then empty shapes dropped */
  in = msperf_table_row_inputs (table, 0);
  assert_int_equal (in->n, 3);
  assert_slot (in, 0, MSPERF_DTYPE_BF16, MSPERF_FORMAT_ND, 2, INT64_C (16), INT64_C (32));
  assert_slot (in, 1, MSPERF_DTYPE_INT32, MSPERF_FORMAT_FRACTAL_NZ, 2, INT64_C (32),
               INT64_C (64));
  /* "()" is a rank-0 slot; its missing format entry counts as ND */
  assert_slot (in, 2, MSPERF_DTYPE_INT64, MSPERF_FORMAT_ND, 0);
  out = msperf_table_row_outputs (table, 0);
  assert_int_equal (out->n, 1);
  assert_slot (out, 0, MSPERF_DTYPE_BF16, MSPERF_FORMAT_ND, 2, INT64_C (16), INT64_C (64));

  in = msperf_table_row_inputs (table, 1);
  assert_int_equal (in->n, 1);
  assert_slot (in, 0, MSPERF_DTYPE_INT8, MSPERF_FORMAT_ND, 2, INT64_C (8), INT64_C (8));
  assert_int_equal (msperf_table_row_outputs (table, 1)->n, 0);
  assert_int_equal (msperf_table_n_skipped (table), 0);
}

static void
test_table_bad_shape_cell_is_a_row_problem_and_row_is_invalid (void **state)
{
  g_autoptr (msperf_table) table = load_fixture ("shape_overflow.csv", NULL);

  (void) state;
  assert_int_equal (msperf_table_n_rows (table), 3);
  assert_true (msperf_table_row_valid (table, 0));
  assert_false (msperf_table_row_valid (table, 1));
  assert_false (msperf_table_row_valid (table, 2));
  assert_int_equal (msperf_table_row_latency_column (table, 1), MSPERF_LATENCY_NONE);
  assert_int_equal (msperf_table_n_skipped (table), 2);
  assert_int_equal (msperf_table_problems (table)->len, 2);
  assert_problem (table, 0,
                  "shape_overflow.csv:3: ",
                  "Input Shapes \"4294967296,4294967296;4,8\": element count overflows int64");
  assert_problem (table, 1, "shape_overflow.csv:4: ", "Output Shapes \"4,x\": dimension \"x\"");
  assert_int_equal (msperf_table_row_inputs (table, 1)->n, 0);
  assert_int_equal (msperf_table_row_inputs (table, 2)->n, 1);
  assert_int_equal (msperf_table_row_outputs (table, 2)->n, 0);
}

static void
test_table_problem_quotes_at_most_80_bytes_of_a_cell (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_table) table = NULL;
  g_autoptr (GString) csv = g_string_new ("Input Shapes,Duration(us)\n\"");
  const char *message;

  (void) state;
  for (int k = 0; k < 60; k++)
    g_string_append (csv, "7;");
  g_string_append (csv, "-1\",2.0\n");
  table = load_text (csv->str, &error);
  assert_non_null (table);
  message = g_ptr_array_index (msperf_table_problems (table), 0);
  assert_contains (message, "mem.csv:2: Input Shapes \"7;7;");
  assert_contains (message, "...\": negative dimension \"-1\"");
  /* FORMATS.md §1: at most 80 bytes of the offending cell */
  assert_true (strlen (message) < 80 + 80);
}

/* ---------------------------------------------------------------- reader */

static void
test_table_ragged_row_is_reported_with_its_line_and_skipped (void **state)
{
  g_autoptr (msperf_table) table = load_fixture ("ragged_rows.csv", NULL);

  (void) state;
  assert_int_equal (msperf_table_n_rows (table), 2);
  assert_int_equal (msperf_table_row_line (table, 0), 2);
  assert_int_equal (msperf_table_row_line (table, 1), 5);
  assert_true (msperf_table_row_latency (table, 1) == 3.0);
  assert_int_equal (msperf_table_problems (table)->len, 2);
  assert_problem (table, 0, "ragged_rows.csv:3: ", "row has 3 fields, header has 4");
  assert_problem (table, 1, "ragged_rows.csv:4: ", "row has 5 fields, header has 4");
}

static void
test_table_unterminated_quote_is_an_error_at_its_line (void **state)
{
  g_autofree char *path = fixture ("unterminated_quote.csv");
  g_autofree char *expected = g_strdup_printf ("%s:4: unterminated quoted field", path);
  g_autoptr (GError) error = NULL;

  (void) state;
  assert_null (msperf_table_load (path, NULL, &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE));
  assert_contains (error->message, expected);
}

static void
test_table_malformed_quote_is_an_error_at_its_line (void **state)
{
  g_autoptr (GError) error = NULL;

  (void) state;
  assert_null (load_text ("Input Shapes,Duration(us)\n\"1,2\",1.0\n\n1\"2,3.0\n", &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE));
  assert_contains (error->message, "mem.csv:4: malformed quoting");
  g_clear_error (&error);
  assert_null (load_text ("Input Shapes,Duration(us)\n\"1,2\"x,1.0\n", &error));
  assert_contains (error->message, "mem.csv:2: malformed quoting");
}

static void
test_table_binary_content_is_an_error (void **state)
{
  static const char nul_data[] = "Input Shapes,Duration(us)\n\"1,2\",1.0\nab\0cd\n";
  static const char png[] = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR";
  g_autoptr (GError) error = NULL;

  (void) state;
  assert_null (msperf_table_load_data (nul_data, sizeof nul_data - 1, "mem.csv", NULL, &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE));
  assert_string_equal (error->message, "mem.csv:3: binary content (byte 0x00)");
  g_clear_error (&error);

  assert_null (msperf_table_load_data (png, sizeof png - 1, "img.csv", NULL, &error));
  assert_string_equal (error->message, "img.csv:2: binary content (byte 0x1a)");
  g_clear_error (&error);

  assert_null (load_text ("Input \xff\xfe Shapes,Duration(us)\n1,2\n", &error));
  assert_contains (error->message, "mem.csv:1: header is not valid UTF-8");
}

static void
test_table_invalid_utf8_row_is_a_problem (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_table) table = NULL;

  (void) state;
  table = load_text ("Input Shapes,Duration(us)\n\"1,2\",1.0\n\"1\xc3\",2.0\n\"3\",3.0\n", &error);
  assert_non_null (table);
  assert_int_equal (msperf_table_n_rows (table), 2);
  assert_problem (table, 0, "mem.csv:3: ", "not valid UTF-8");
}

static void
test_table_crlf_bom_blank_lines_and_multiline_cells (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_table) table = NULL;

  (void) state;
  table = load_text ("\xEF\xBB\xBFInput Shapes,Average Duration(us)\r\n"
                     "\"1,2\",3.5\r\n"
                     "\r\n"
                     "\"4,\r\n5\",6.5\r\n"
                     "\"7,8\",9.5", &error);
  assert_non_null (table);
  assert_int_equal (msperf_table_column (table, "Input Shapes"), 0);
  assert_int_equal (msperf_table_n_rows (table), 3);
  assert_int_equal (msperf_table_row_line (table, 0), 2);
  assert_int_equal (msperf_table_row_line (table, 1), 4);
  assert_int_equal (msperf_table_row_line (table, 2), 6);
  assert_true (msperf_table_row_latency (table, 1) == 6.5);
  assert_string_equal (msperf_table_cell (table, 1, 0), "4,\r\n5");
  assert_slot (msperf_table_row_inputs (table, 1), 0, MSPERF_DTYPE_UNKNOWN, MSPERF_FORMAT_ND, 2,
               INT64_C (4), INT64_C (5));
  assert_true (msperf_table_row_latency (table, 2) == 9.5);
  g_clear_pointer (&table, msperf_table_free);

  /* classic Mac line ends */
  table = load_text ("Duration(us)\r1.5\r2.5\r", &error);
  assert_non_null (table);
  assert_int_equal (msperf_table_n_rows (table), 2);
  assert_int_equal (msperf_table_row_line (table, 1), 3);
}

static void
test_table_empty_file_is_an_error (void **state)
{
  g_autoptr (GError) error = NULL;

  (void) state;
  assert_null (load_text ("", &error));
  assert_contains (error->message, "mem.csv:1: empty file");
  g_clear_error (&error);
  assert_null (load_text ("\xEF\xBB\xBF\n\n", &error));
  assert_contains (error->message, "mem.csv:1: empty file");
}

static void
test_table_missing_file_is_not_found (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = fixture ("does_not_exist.csv");

  (void) state;
  assert_null (msperf_table_load (path, "X", &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND));
}

/* ---------------------------------------------------------------- hash */

static void
test_table_hash_is_sha256_of_the_bytes (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_table) a = NULL;
  g_autoptr (msperf_table) b = NULL;
  g_autoptr (msperf_table) f = NULL;

  (void) state;
  a = load_text ("Duration(us)\n1.0\n", &error);
  b = load_text ("Duration(us)\n1.5\n", &error);
  assert_non_null (a);
  assert_non_null (b);
  /* printf 'Duration(us)\n1.0\n' | sha256sum */
  assert_string_equal (msperf_table_hash (a),
                       "fc1dd094717e0cb4dffbf212b0f75982c933ba676d2a916a4c2c3137148585a2");
  assert_string_not_equal (msperf_table_hash (a), msperf_table_hash (b));
  /* sha256sum tests/data/table/minimal_schema.csv */
  f = load_fixture ("minimal_schema.csv", NULL);
  assert_string_equal (msperf_table_hash (f),
                       "697640fe0069fe1937d5bfca90b30f5508a81474f355ccae93141c737c71f03e");
}

/* ---------------------------------------------------------------- example database */

static void
test_table_loads_every_h200_db_csv_with_exact_row_counts (void **state)
{
  /* Row counts: python3 csv.reader over each doc/examples/h200-db CSV, header excluded. */
  static const struct {
    const char *kernel;
    size_t rows;
    size_t columns;
  } expected[] = {
    { "Add", 20, 9 },
    { "BatchMatMulV2", 1302, 9 },
    { "FusedInferAttentionScore", 430, 21 },
    { "MatMulV2", 1092, 9 },
    { "Mul", 20, 9 },
    { "Silu", 20, 9 },
  };
  const char *top = g_getenv ("MSPERF_TOP_SRCDIR");

  (void) state;
  for (size_t k = 0; k < G_N_ELEMENTS (expected); k++)
    {
      g_autofree char *file = g_strconcat (expected[k].kernel, ".csv", NULL);
      g_autofree char *path = g_build_filename (top ? top : MSPERF_SRCDIR, "doc", "examples",
                                                "h200-db", file, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (msperf_table) table = msperf_table_load (path, expected[k].kernel, &error);
      size_t n;

      if (table == NULL)
        fail_msg ("%s: %s", file, error->message);
      n = msperf_table_n_rows (table);
      assert_int_equal (n, expected[k].rows);
      assert_int_equal (msperf_table_n_columns (table), expected[k].columns);
      assert_int_equal (msperf_table_n_skipped (table), 0);
      assert_int_equal (msperf_table_problems (table)->len, 0);
      assert_int_equal (strlen (msperf_table_hash (table)), 64);
      assert_int_equal (msperf_table_row_line (table, n - 1), n + 1);
      for (size_t r = 0; r < n; r++)
        {
          assert_true (msperf_table_row_valid (table, r));
          assert_true (msperf_table_row_inputs (table, r)->n >= 1);
          assert_int_equal (msperf_table_row_outputs (table, r)->n, 1);
        }
    }
}

static void
test_table_h200_matmul_first_and_last_rows (void **state)
{
  const char *top = g_getenv ("MSPERF_TOP_SRCDIR");
  g_autofree char *path = g_build_filename (top ? top : MSPERF_SRCDIR, "doc", "examples",
                                            "h200-db", "MatMulV2.csv", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_table) table = msperf_table_load (path, "MatMulV2", &error);

  (void) state;
  assert_non_null (table);
  /* doc/examples/h200-db/MatMulV2.csv lines 2 and 1093 */
  assert_true (msperf_table_row_latency (table, 0) == 2.6338);
  assert_slot (msperf_table_row_inputs (table, 0), 1, MSPERF_DTYPE_BF16, MSPERF_FORMAT_ND, 2,
               INT64_C (256), INT64_C (256));
  assert_true (msperf_table_row_latency (table, 1091) == 215.1701);
  assert_slot (msperf_table_row_outputs (table, 1091), 0, MSPERF_DTYPE_BF16, MSPERF_FORMAT_ND,
               2, INT64_C (4096), INT64_C (3072));
  assert_string_equal (msperf_table_cell_by_name (table, 1091, "Accelerator Core"), "AI_CORE");
}

/* ---------------------------------------------------------------- bounds form of the index */

/* The smallest and largest dim of a slot's ND shape as the bounds read them; FALSE when no dim
 * bound applies (no slot, a scalar, an NZ shape that does not restore). */
static gboolean
nd_dim_range (const msperf_slots *s, size_t i, int64_t *lo, int64_t *hi)
{
  msperf_tensor nd;

  if (i >= s->n || s->t[i].rank == 0)
    return FALSE;
  if (s->t[i].format == MSPERF_FORMAT_FRACTAL_NZ)
    {
      if (!msperf_shape_nz_to_nd (&s->t[i], &nd))
        return FALSE;
    }
  else
    nd = s->t[i];
  *lo = INT64_MAX;
  *hi = INT64_MIN;
  for (int k = 0; k < nd.rank; k++)
    {
      *lo = MIN (*lo, nd.dims[k]);
      *hi = MAX (*hi, nd.dims[k]);
    }
  return TRUE;
}

static gboolean
slot_within (const msperf_slots *s, size_t i, const msperf_slot_bounds *b)
{
  uint64_t key = i < s->n ? msperf_tensor_numel_key (&s->t[i]) : 0;
  int64_t lo, hi;

  if (key < b->numel_lo || key > b->numel_hi)
    return FALSE;
  if (!nd_dim_range (s, i, &lo, &hi))
    return TRUE;
  return hi >= b->max_dim_lo && hi <= b->max_dim_hi && lo <= b->min_dim_hi;
}

/* What msperf_table_rows_by_input_bounds must return, by reading every row. */
static GArray *
rows_within (const msperf_table *t, const msperf_slot_bounds *b0, const msperf_slot_bounds *b1)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (size_t));
  msperf_slot_bounds any;

  msperf_slot_bounds_init (&any);
  for (size_t r = 0; r < msperf_table_n_rows (t); r++)
    {
      const msperf_slots *s = msperf_table_row_inputs (t, r);

      if (msperf_table_row_valid (t, r) && s->n > 0 && slot_within (s, 0, b0)
          && slot_within (s, 1, b1 ? b1 : &any))
        g_array_append_val (rows, r);
    }
  return rows;
}

static int
cmp_row (gconstpointer a, gconstpointer b)
{
  size_t x = *(const size_t *) a, y = *(const size_t *) b;

  return x < y ? -1 : x > y;
}

/* Seeded bounds around each stride-th row's own slots (64-bit LCG): a box that holds the row,
 * one that excludes it by one unit on each side in turn, and no bound at all. */
static void
check_bounds_against_every_row (const msperf_table *t, size_t stride)
{
  guint64 seed = 15;

  for (size_t r = 0; r < msperf_table_n_rows (t); r += stride)
    {
      const msperf_slots *s = msperf_table_row_inputs (t, r);

      for (int variant = 0; variant < 8 && s->n >= 2; variant++)
        {
          msperf_slot_bounds b[2];
          g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (size_t));
          g_autoptr (GArray) want = NULL;

          for (size_t i = 0; i < 2; i++)
            {
              uint64_t key = msperf_tensor_numel_key (&s->t[i]);
              int64_t lo = 0, hi = 0;

              seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
              msperf_slot_bounds_init (&b[i]);
              if (variant == 7)
                continue;
              b[i].numel_lo = key - MIN (key, (seed >> 33) % (key + 1));
              b[i].numel_hi = key + (seed >> 40) % (key + 1);
              if (nd_dim_range (s, i, &lo, &hi))
                {
                  b[i].max_dim_lo = hi - (int64_t) ((seed >> 20) % 64);
                  b[i].max_dim_hi = hi + (int64_t) ((seed >> 27) % 64);
                  b[i].min_dim_hi = lo + (int64_t) ((seed >> 14) % 8);
                }
              /* Variants 1-6 move one bound just past the row's own value. */
              if (variant == 1 && i == 0)
                b[i].numel_lo = key + 1;
              if (variant == 2 && i == 1)
                b[i].numel_hi = key - 1;
              if (variant == 3 && i == 0)
                b[i].max_dim_lo = hi + 1;
              if (variant == 4 && i == 1)
                b[i].max_dim_hi = hi - 1;
              if (variant == 5 && i == 0)
                b[i].min_dim_hi = lo - 1;
              if (variant == 6 && i == 1)
                b[i].numel_lo = 1;
            }
          msperf_table_rows_by_input_bounds (t, &b[0], variant == 6 ? NULL : &b[1], got);
          want = rows_within (t, &b[0], variant == 6 ? NULL : &b[1]);
          g_array_sort (got, cmp_row);
          assert_int_equal (got->len, want->len);
          for (guint k = 0; k < got->len; k++)
            assert_int_equal (g_array_index (got, size_t, k), g_array_index (want, size_t, k));
          /* The row itself: in every box that holds it, in none of those one unit past it. */
          {
            gboolean has = FALSE;

            for (guint k = 0; k < got->len; k++)
              has |= g_array_index (got, size_t, k) == r;
            assert_int_equal (has, variant == 0 || variant >= 6);
          }
        }
    }
}

/* The bounds form of the exact-key index returns exactly the rows a scan of every
 * row keeps, on the sample database's 2-D and 3-D matmul grids and on an NZ fixture. */
static void
test_table_bounds_form_equals_a_filter_of_every_row (void **state)
{
  static const char *const kernels[] = { "MatMulV2", "BatchMatMulV2" };
  const char *top = g_getenv ("MSPERF_TOP_SRCDIR");

  (void) state;
  for (size_t k = 0; k < G_N_ELEMENTS (kernels); k++)
    {
      g_autofree char *file = g_strconcat (kernels[k], ".csv", NULL);
      g_autofree char *path = g_build_filename (top ? top : MSPERF_SRCDIR, "doc", "examples",
                                                "h200-db", file, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (msperf_table) table = msperf_table_load (path, kernels[k], &error);

      if (table == NULL)
        fail_msg ("%s: %s", file, error->message);
      check_bounds_against_every_row (table, 13);
    }
  {
    g_autoptr (msperf_table) nz = load_fixture ("minimal_schema.csv", "MatMulV2");

    check_bounds_against_every_row (nz, 1);
  }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_table_minimal_schema_reads_the_reference_example_rows),
    cmocka_unit_test (test_table_raw_triple_quoted_cells_decode_with_aligned_slots),
    cmocka_unit_test (test_table_communication_csv_has_no_slots),
    cmocka_unit_test (test_table_latency_priority_falls_through_and_skips_invalid_rows),
    cmocka_unit_test (test_table_without_average_column_prefers_profiling_average),
    cmocka_unit_test (test_table_without_latency_column_is_an_error),
    cmocka_unit_test (test_table_q1_empty_shape_slot_drops_its_dtype_and_format),
    cmocka_unit_test (test_table_bad_shape_cell_is_a_row_problem_and_row_is_invalid),
    cmocka_unit_test (test_table_problem_quotes_at_most_80_bytes_of_a_cell),
    cmocka_unit_test (test_table_ragged_row_is_reported_with_its_line_and_skipped),
    cmocka_unit_test (test_table_unterminated_quote_is_an_error_at_its_line),
    cmocka_unit_test (test_table_malformed_quote_is_an_error_at_its_line),
    cmocka_unit_test (test_table_binary_content_is_an_error),
    cmocka_unit_test (test_table_invalid_utf8_row_is_a_problem),
    cmocka_unit_test (test_table_crlf_bom_blank_lines_and_multiline_cells),
    cmocka_unit_test (test_table_empty_file_is_an_error),
    cmocka_unit_test (test_table_missing_file_is_not_found),
    cmocka_unit_test (test_table_hash_is_sha256_of_the_bytes),
    cmocka_unit_test (test_table_loads_every_h200_db_csv_with_exact_row_counts),
    cmocka_unit_test (test_table_h200_matmul_first_and_last_rows),
    cmocka_unit_test (test_table_bounds_form_equals_a_filter_of_every_row),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
