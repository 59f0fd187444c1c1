/* Shape rules (reference §0, §1.3, §6), dtype names (FORMATS.md §1–§2) and nearest-row
 * selection (reference §2.3). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/shape.h>
#include <msperf/select.h>

static msperf_tensor
shape_of (int rank, ...)
{
  msperf_tensor t = { 0 };
  va_list args;

  va_start (args, rank);
  t.rank = rank;
  for (int k = 0; k < rank; k++)
    t.dims[k] = va_arg (args, int64_t);
  va_end (args);
  return t;
}

static void
assert_dims (const msperf_tensor *t, int rank, const int64_t *dims)
{
  assert_int_equal (t->rank, rank);
  for (int k = 0; k < rank; k++)
    assert_int_equal (t->dims[k], dims[k]);
}

/* ---------------------------------------------------------------- checked multiply */

static void
test_checked_mul_detects_overflow_and_leaves_out_unchanged (void **state)
{
  int64_t out = 7;

  (void) state;
  assert_true (msperf_int64_checked_mul (136, 5120, &out));
  assert_int_equal (out, 696320);
  assert_true (msperf_int64_checked_mul (-3, 4, &out));
  assert_int_equal (out, -12);
  out = 7;
  assert_false (msperf_int64_checked_mul (INT64_MAX, 2, &out));
  assert_int_equal (out, 7);
  assert_false (msperf_int64_checked_mul (INT64_C (4294967296), INT64_C (4294967296), &out));
  assert_int_equal (out, 7);
}

/* ---------------------------------------------------------------- strip */

static void
test_strip_drops_one_leading_unit_dim_of_rank_above_one (void **state)
{
  msperf_tensor in, out;

  (void) state;
  /* reference §0: strip removes dim 0 only when it is 1 and rank > 1, and only one dim. */
  in = shape_of (3, INT64_C (1), INT64_C (136), INT64_C (5120));
  msperf_shape_strip (&in, &out);
  assert_dims (&out, 2, (const int64_t[]) { 136, 5120 });

  in = shape_of (3, INT64_C (1), INT64_C (1), INT64_C (4));
  msperf_shape_strip (&in, &out);
  assert_dims (&out, 2, (const int64_t[]) { 1, 4 });

  in = shape_of (1, INT64_C (1));
  msperf_shape_strip (&in, &out);
  assert_dims (&out, 1, (const int64_t[]) { 1 });

  in = shape_of (2, INT64_C (2), INT64_C (3));
  in.dtype = MSPERF_DTYPE_BF16;
  msperf_shape_strip (&in, &out);
  assert_dims (&out, 2, (const int64_t[]) { 2, 3 });
  assert_int_equal (out.dtype, MSPERF_DTYPE_BF16);

  /* In place. */
  in = shape_of (2, INT64_C (1), INT64_C (9));
  msperf_shape_strip (&in, &in);
  assert_dims (&in, 1, (const int64_t[]) { 9 });
}

/* ---------------------------------------------------------------- block padding */

static void
test_block_padded_examples_of_reference_section_0 (void **state)
{
  (void) state;
  /* reference §0 examples */
  assert_true (msperf_is_block_padded (144, 136));  /* bs 16 */
  assert_true (msperf_is_block_padded (72, 66));    /* bs 8, 66 >= 64 */
  /* derived from the rule text */
  assert_false (msperf_is_block_padded (72, 60));   /* bs 8 needs c >= 64 */
  assert_true (msperf_is_block_padded (64, 60));    /* bs 32 and 64 */
  assert_true (msperf_is_block_padded (136, 130));  /* bs 8 */
  assert_true (msperf_is_block_padded (96, 66));    /* bs 32 */
  assert_true (msperf_is_block_padded (128, 66));   /* bs 64 */
  assert_false (msperf_is_block_padded (40, 33));   /* 48/64 for bs 16..64; bs 8 excluded */
  assert_false (msperf_is_block_padded (136, 136)); /* t must be > c */
  assert_false (msperf_is_block_padded (128, 144)); /* smaller is never padded */
  assert_true (msperf_is_block_padded (160, 136));  /* bs 32 */
  assert_false (msperf_is_block_padded (152, 136)); /* ceilings are 136, 144, 160, 192 */
  assert_false (msperf_is_block_padded (0, 0));
  assert_false (msperf_is_block_padded (16, -3));
  assert_false (msperf_is_block_padded (INT64_MAX, INT64_MAX - 5)); /* ceiling overflows */
}

static void
test_pad_match_needs_same_rank_and_at_least_one_padded_dim (void **state)
{
  msperf_tensor t, c;

  (void) state;
  /* reference §6 MC2: mat1 (144,512) matches the CSV (136,512) by padding. */
  t = shape_of (2, INT64_C (144), INT64_C (512));
  c = shape_of (2, INT64_C (136), INT64_C (512));
  assert_true (msperf_shape_pad_match (&t, &c));
  assert_false (msperf_shape_pad_match (&c, &t));
  assert_false (msperf_shape_pad_match (&c, &c)); /* equal: nothing padded */

  c = shape_of (3, INT64_C (1), INT64_C (136), INT64_C (512));
  assert_false (msperf_shape_pad_match (&t, &c)); /* rank differs */

  c = shape_of (2, INT64_C (136), INT64_C (400)); /* ceilings of 400: 400, 416, 448 */
  assert_false (msperf_shape_pad_match (&t, &c));

  t = shape_of (0);
  c = shape_of (0);
  assert_false (msperf_shape_pad_match (&t, &c));
}

/* ---------------------------------------------------------------- NZ restore */

static void
test_nz_to_nd_matches_reference_goldens (void **state)
{
  msperf_tensor in, out;

  (void) state;
  /* reference §1.3 / §6 "NZ restore" table */
  in = shape_of (4, INT64_C (320), INT64_C (48), INT64_C (16), INT64_C (16));
  in.format = MSPERF_FORMAT_FRACTAL_NZ;
  in.dtype = MSPERF_DTYPE_BF16;
  assert_true (msperf_shape_nz_to_nd (&in, &out));
  assert_dims (&out, 2, (const int64_t[]) { 5120, 768 });
  assert_int_equal (out.dtype, MSPERF_DTYPE_BF16);

  in = shape_of (4, INT64_C (48), INT64_C (448), INT64_C (16), INT64_C (32));
  assert_true (msperf_shape_nz_to_nd (&in, &out));
  assert_dims (&out, 2, (const int64_t[]) { 1536, 7168 });

  in = shape_of (5, INT64_C (64), INT64_C (48), INT64_C (448), INT64_C (16), INT64_C (32));
  assert_true (msperf_shape_nz_to_nd (&in, &out));
  assert_dims (&out, 3, (const int64_t[]) { 64, 1536, 7168 });

  in = shape_of (3, INT64_C (8), INT64_C (6144), INT64_C (4096));
  assert_true (msperf_shape_nz_to_nd (&in, &out));
  assert_dims (&out, 3, (const int64_t[]) { 8, 6144, 4096 });

  /* reference §6 MC2: the MatMulV2 row's (32,320,16,16) is (5120,512) after restore. */
  in = shape_of (4, INT64_C (32), INT64_C (320), INT64_C (16), INT64_C (16));
  assert_true (msperf_shape_nz_to_nd (&in, &in));
  assert_dims (&in, 2, (const int64_t[]) { 512, 5120 });
}

static void
test_nz_to_nd_reports_overflow (void **state)
{
  msperf_tensor in, out = { 0 };

  (void) state;
  in = shape_of (4, INT64_MAX / 2, INT64_C (4), INT64_C (16), INT64_C (16));
  assert_false (msperf_shape_nz_to_nd (&in, &out));
  assert_int_equal (out.rank, 0);
}

/* ---------------------------------------------------------------- parse_dims */

static void
test_parse_dims_reads_lists_scalars_and_blanks (void **state)
{
  msperf_tensor t = { 0 };

  (void) state;
  t.dtype = MSPERF_DTYPE_INT8;
  assert_true (msperf_shape_parse_dims ("136,5120", &t, NULL));
  assert_dims (&t, 2, (const int64_t[]) { 136, 5120 });
  assert_int_equal (t.dtype, MSPERF_DTYPE_INT8); /* dims only */

  assert_true (msperf_shape_parse_dims (" 8 , 64,\t128 ", &t, NULL));
  assert_dims (&t, 3, (const int64_t[]) { 8, 64, 128 });

  assert_true (msperf_shape_parse_dims ("()", &t, NULL));
  assert_int_equal (t.rank, 0);
  assert_true (msperf_shape_parse_dims ("", &t, NULL));
  assert_int_equal (t.rank, 0);

  assert_true (msperf_shape_parse_dims ("0,7", &t, NULL));
  assert_dims (&t, 2, (const int64_t[]) { 0, 7 });

  assert_true (msperf_shape_parse_dims ("1,2,3,4,5,6,7,8", &t, NULL));
  assert_int_equal (t.rank, MSPERF_MAX_RANK);
}

static void
expect_parse_error (const char *text, const char *fragment)
{
  msperf_tensor t = { 0 };
  g_autoptr (GError) error = NULL;

  t.rank = 1;
  t.dims[0] = 42;
  assert_false (msperf_shape_parse_dims (text, &t, &error));
  assert_non_null (error);
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID));
  if (strstr (error->message, fragment) == NULL)
    fail_msg ("\"%s\": message \"%s\" lacks \"%s\"", text, error->message, fragment);
  /* A failed parse leaves the tensor as it was. */
  assert_int_equal (t.rank, 1);
  assert_int_equal (t.dims[0], 42);
}

static void
test_parse_dims_rejects_bad_text (void **state)
{
  (void) state;
  expect_parse_error ("136,x", "\"x\"");
  expect_parse_error ("136,-1", "negative dimension \"-1\"");
  expect_parse_error ("1.5", "\"1.5\"");
  expect_parse_error ("1,,2", "empty dimension");
  expect_parse_error ("136,", "empty dimension");
  expect_parse_error (",136", "empty dimension");
  expect_parse_error ("(3)", "\"(3)\"");
  expect_parse_error ("1,2,3,4,5,6,7,8,9", "more than 8 dimensions");
  expect_parse_error ("99999999999999999999", "dimension overflows int64");
  expect_parse_error ("4294967296,4294967296", "element count overflows int64");
}

/* ---------------------------------------------------------------- dtypes */

static void
test_dtype_names_round_trip (void **state)
{
  (void) state;
  for (int d = MSPERF_DTYPE_UNDEFINED; d < MSPERF_DTYPE_N_TYPES; d++)
    {
      const char *profiling = msperf_dtype_profiling_name ((msperf_dtype) d);
      g_autofree char *prefixed = g_strconcat ("torch.", msperf_dtype_torch_name (d), NULL);

      assert_int_equal (msperf_dtype_from_string (profiling), d);
      if (d != MSPERF_DTYPE_UNDEFINED)
        {
          assert_int_equal (msperf_dtype_from_string (msperf_dtype_torch_name (d)), d);
          assert_int_equal (msperf_dtype_from_string (prefixed), d);
        }
    }
}

static void
test_dtype_profiling_spellings (void **state)
{
  (void) state;
  /* reference §1.3 "Dtype strings seen in CSVs" and TC DTYPE_MAP; FORMATS.md §1 */
  assert_string_equal (msperf_dtype_profiling_name (MSPERF_DTYPE_BF16), "DT_BF16");
  assert_string_equal (msperf_dtype_profiling_name (MSPERF_DTYPE_FLOAT16), "DT_FLOAT16");
  assert_string_equal (msperf_dtype_profiling_name (MSPERF_DTYPE_FLOAT32), "FLOAT");
  assert_string_equal (msperf_dtype_profiling_name (MSPERF_DTYPE_INT8), "INT8");
  assert_string_equal (msperf_dtype_profiling_name (MSPERF_DTYPE_INT16), "INT16");
  assert_string_equal (msperf_dtype_profiling_name (MSPERF_DTYPE_INT32), "INT32");
  assert_string_equal (msperf_dtype_profiling_name (MSPERF_DTYPE_INT64), "INT64");
  assert_string_equal (msperf_dtype_profiling_name (MSPERF_DTYPE_UINT8), "UINT8");
  assert_string_equal (msperf_dtype_profiling_name (MSPERF_DTYPE_BOOL), "BOOL");
  assert_string_equal (msperf_dtype_profiling_name (MSPERF_DTYPE_UNDEFINED), "DT_UNDEFINED");
  assert_string_equal (msperf_dtype_profiling_name (MSPERF_DTYPE_FLOAT64), "DT_DOUBLE");

  /* DT_X and X are one dtype */
  assert_int_equal (msperf_dtype_from_string ("DT_FLOAT"), MSPERF_DTYPE_FLOAT32);
  assert_int_equal (msperf_dtype_from_string ("FLOAT"), MSPERF_DTYPE_FLOAT32);
  assert_int_equal (msperf_dtype_from_string ("DT_INT8"), MSPERF_DTYPE_INT8);
  assert_int_equal (msperf_dtype_from_string ("DT_INT32"), MSPERF_DTYPE_INT32);
  assert_int_equal (msperf_dtype_from_string ("DT_INT64"), MSPERF_DTYPE_INT64);
  assert_int_equal (msperf_dtype_from_string ("INT16"), MSPERF_DTYPE_INT16);
  assert_int_equal (msperf_dtype_from_string ("DT_BOOL"), MSPERF_DTYPE_BOOL);
  assert_int_equal (msperf_dtype_from_string ("DT_UINT8"), MSPERF_DTYPE_UINT8);
  /* hccl CSVs write DT_FP16 (reference §1.5) */
  assert_int_equal (msperf_dtype_from_string ("DT_FP16"), MSPERF_DTYPE_FLOAT16);
  assert_int_equal (msperf_dtype_from_string ("DT_FLOAT16"), MSPERF_DTYPE_FLOAT16);
  assert_int_equal (msperf_dtype_from_string ("float16"), MSPERF_DTYPE_FLOAT16);
  assert_int_equal (msperf_dtype_from_string ("torch.bfloat16"), MSPERF_DTYPE_BF16);
  assert_int_equal (msperf_dtype_from_string ("float8_e4m3fn"), MSPERF_DTYPE_FP8_E4M3);

  /* Not listed spellings stay unknown (FORMATS.md §2: anything else rejects the line). */
  assert_int_equal (msperf_dtype_from_string ("half"), MSPERF_DTYPE_UNKNOWN);
  assert_int_equal (msperf_dtype_from_string ("float"), MSPERF_DTYPE_UNKNOWN);
  assert_int_equal (msperf_dtype_from_string ("double"), MSPERF_DTYPE_UNKNOWN);
  assert_int_equal (msperf_dtype_from_string ("torch.FLOAT"), MSPERF_DTYPE_UNKNOWN);
  assert_int_equal (msperf_dtype_from_string ("dt_bf16"), MSPERF_DTYPE_UNKNOWN);
  assert_int_equal (msperf_dtype_from_string ("DT_COMPLEX64"), MSPERF_DTYPE_UNKNOWN);
  assert_int_equal (msperf_dtype_from_string (""), MSPERF_DTYPE_UNKNOWN);
  assert_int_equal (msperf_dtype_from_string (NULL), MSPERF_DTYPE_UNKNOWN);
}

static void
test_dtype_sizes_and_upstream_map (void **state)
{
  (void) state;
  /* reference §6 "Byte sizes": BF16 2, FLOAT 4, INT8 1, INT32 4, INT64 8, unknown 0 */
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_BF16), 2);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_FLOAT32), 4);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_INT8), 1);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_INT32), 4);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_INT64), 8);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_UNKNOWN), 0);
  /* brief: the rest of the size table */
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_FLOAT16), 2);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_FLOAT64), 8);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_UINT8), 1);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_BOOL), 1);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_FP8_E4M3), 1);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_FP8_E5M2), 1);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_INT16), 2);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_UINT16), 2);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_UINT32), 4);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_UINT64), 8);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_INT4), 1);
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_UNDEFINED), 0);
  /* FP4 (MXFP4 expert weights): both spellings, packed like int4 */
  assert_int_equal (msperf_dtype_from_string ("float4_e2m1fn_x2"), MSPERF_DTYPE_FLOAT4_E2M1);
  assert_int_equal (msperf_dtype_from_string ("torch.float4_e2m1fn_x2"), MSPERF_DTYPE_FLOAT4_E2M1);
  assert_int_equal (msperf_dtype_from_string ("DT_FLOAT4_E2M1"), MSPERF_DTYPE_FLOAT4_E2M1);
  assert_string_equal (msperf_dtype_profiling_name (MSPERF_DTYPE_FLOAT4_E2M1), "DT_FLOAT4_E2M1");
  assert_string_equal (msperf_dtype_torch_name (MSPERF_DTYPE_FLOAT4_E2M1), "float4_e2m1fn_x2");
  assert_int_equal (msperf_dtype_size (MSPERF_DTYPE_FLOAT4_E2M1), 1);

  /* reference §1.3 DTYPE_MAP: bf16, fp16, int8, int32, int64, float32, bool; and, a msperf
   * extension (core/base/dtype.c), the two FP8 dtypes the imported aiconfigurator tables
   * measure */
  for (int d = 0; d < MSPERF_DTYPE_N_TYPES; d++)
    {
      gboolean expected = d == MSPERF_DTYPE_BF16 || d == MSPERF_DTYPE_FLOAT16
                          || d == MSPERF_DTYPE_INT8 || d == MSPERF_DTYPE_INT32
                          || d == MSPERF_DTYPE_INT64 || d == MSPERF_DTYPE_FLOAT32
                          || d == MSPERF_DTYPE_BOOL || d == MSPERF_DTYPE_FP8_E4M3
                          || d == MSPERF_DTYPE_FP8_E5M2;
      assert_int_equal (msperf_dtype_is_mapped ((msperf_dtype) d), expected);
    }
}

static void
test_format_names (void **state)
{
  (void) state;
  /* reference §1.3 cell encodings: ND, FRACTAL_NZ, NULL; a missing entry is ND */
  assert_int_equal (msperf_format_from_string ("ND"), MSPERF_FORMAT_ND);
  assert_int_equal (msperf_format_from_string ("FRACTAL_NZ"), MSPERF_FORMAT_FRACTAL_NZ);
  assert_int_equal (msperf_format_from_string ("NULL"), MSPERF_FORMAT_NULL);
  assert_int_equal (msperf_format_from_string (""), MSPERF_FORMAT_ND);
  assert_int_equal (msperf_format_from_string ("NC1HWC0"), MSPERF_FORMAT_OTHER);
  assert_string_equal (msperf_format_name (MSPERF_FORMAT_FRACTAL_NZ), "FRACTAL_NZ");
  assert_string_equal (msperf_format_name (MSPERF_FORMAT_ND), "ND");
  assert_string_equal (msperf_format_name (MSPERF_FORMAT_NULL), "NULL");
  assert_string_equal (msperf_format_name (MSPERF_FORMAT_OTHER), "OTHER");
}

/* ---------------------------------------------------------------- selector */

/* msperf_op_new and msperf_op_set_name normalise the name the same way: one leading
 * "torch.ops." stripped, NULL as "". */
static void
test_op_names_are_normalised (void **state)
{
  g_autoptr (msperf_op) op = msperf_op_new ("torch.ops.aten.mm.default");
  (void) state;

  assert_string_equal (op->name, "aten.mm.default");
  msperf_op_set_name (op, "torch.ops.torch.ops.x");
  assert_string_equal (op->name, "torch.ops.x");
  msperf_op_set_name (op, "torch.ops.");
  assert_string_equal (op->name, "");
  msperf_op_set_name (op, NULL);
  assert_string_equal (op->name, "");
  msperf_op_set_name (op, "aten.add.Tensor");
  assert_string_equal (op->name, "aten.add.Tensor");
}

static void
test_selector_keeps_smallest_score_lexicographically (void **state)
{
  msperf_selector sel;

  (void) state;
  msperf_selector_init (&sel);
  assert_false (sel.have);
  /* reference §2.3: score (distance, kernel_index, latency_priority) */
  msperf_selector_offer (&sel, 1.0, 0, 0, NULL, 0, 10.0, "padding");
  msperf_selector_offer (&sel, 0.0, 1, 2, NULL, 1, 20.0, "identity");
  assert_int_equal (sel.row, 1); /* distance wins over kernel index */
  msperf_selector_offer (&sel, 0.0, 0, 2, NULL, 2, 30.0, "transpose");
  assert_int_equal (sel.row, 2); /* then kernel index */
  msperf_selector_offer (&sel, 0.0, 0, 1, NULL, 3, 40.0, "identity");
  assert_int_equal (sel.row, 3); /* then latency priority */
  msperf_selector_offer (&sel, 0.5, 0, 0, NULL, 4, 50.0, "x");
  msperf_selector_offer (&sel, 0.0, 1, 0, NULL, 5, 60.0, "x");
  assert_true (sel.have);
  assert_int_equal (sel.row, 3);
  assert_true (sel.latency == 40.0);
  assert_string_equal (sel.rule, "identity");
  assert_int_equal (sel.n_offered, 6);
  assert_false (sel.ambiguous);
  msperf_selector_clear (&sel);
  assert_false (sel.have);
  assert_null (sel.rule);
}

static void
test_selector_ties_keep_earliest_and_flag_different_latency (void **state)
{
  msperf_selector sel;

  (void) state;
  msperf_selector_init (&sel);
  msperf_selector_offer (&sel, 0.0, 0, 0, NULL, 7, 45.3, "identity");
  msperf_selector_offer (&sel, 0.0, 0, 0, NULL, 8, 45.3, "other");
  assert_int_equal (sel.row, 7);
  assert_string_equal (sel.rule, "identity");
  assert_false (sel.ambiguous); /* same latency: not ambiguous */

  /* reference Q22: rounded to 12 decimals, 1e-13 apart is the same latency */
  msperf_selector_offer (&sel, 0.0, 0, 0, NULL, 9, 45.3 + 1e-13, NULL);
  assert_false (sel.ambiguous);
  msperf_selector_offer (&sel, 0.0, 0, 0, NULL, 10, 45.300000000002, NULL);
  assert_true (sel.ambiguous);
  assert_int_equal (sel.row, 7);

  /* A strictly better candidate resets the ambiguity. */
  msperf_selector_offer (&sel, 0.0, 0, -1, NULL, 11, 12.0, NULL);
  assert_false (sel.ambiguous);
  assert_int_equal (sel.row, 11);
  assert_null (sel.rule);
  /* A worse candidate with another latency does not make it ambiguous. */
  msperf_selector_offer (&sel, 1.0, 0, 0, NULL, 12, 99.0, "padding");
  assert_false (sel.ambiguous);
  msperf_selector_clear (&sel);
}

/* The exact-key index hands rows out by key, not by row. Ties within a table keep
 * the smallest row and 'ambiguous' says whether the tied latencies differ, whatever the offer
 * order: every permutation of five offers gives the result of the ascending order. */
static void
test_selector_ties_do_not_depend_on_the_offer_order (void **state)
{
  static const struct {
    double distance;
    size_t row;
    double latency;
    const char *rule;
  } offers[] = {
    { 1.0, 3, 9.0, "padding" }, { 0.0, 9, 5.0, "c" }, { 0.0, 4, 5.0, "b" },
    { 0.0, 6, 5.0 + 1e-13, "d" }, { 0.0, 8, 7.0, "e" },
  };
  const msperf_table *table = (const msperf_table *) (const void *) offers; /* any pointer */
  int perm[5] = { 0, 1, 2, 3, 4 };
  size_t seen = 0;

  (void) state;
  for (;;)
    {
      msperf_selector sel;
      int k, j;

      msperf_selector_init (&sel);
      for (int i = 0; i < 5; i++)
        msperf_selector_offer (&sel, offers[perm[i]].distance, 0, 0, table, offers[perm[i]].row,
                               offers[perm[i]].latency, offers[perm[i]].rule);
      assert_int_equal (sel.row, 4);
      assert_string_equal (sel.rule, "b");
      assert_true (sel.latency == 5.0);
      assert_true (sel.ambiguous); /* row 8's 7.0 ties at distance 0 */
      msperf_selector_clear (&sel);
      seen++;
      /* Next permutation (lexicographic). */
      for (k = 3; k >= 0 && perm[k] > perm[k + 1]; k--)
        ;
      if (k < 0)
        break;
      for (j = 4; perm[j] < perm[k]; j--)
        ;
      {
        int tmp = perm[k];
        perm[k] = perm[j];
        perm[j] = tmp;
      }
      for (int a = k + 1, b = 4; a < b; a++, b--)
        {
          int tmp = perm[a];
          perm[a] = perm[b];
          perm[b] = tmp;
        }
    }
  assert_int_equal (seen, 120);
  /* Without row 8, the 12-decimal tie of rows 4 and 6 is not ambiguous in either order. */
  for (int order = 0; order < 2; order++)
    {
      msperf_selector sel;

      msperf_selector_init (&sel);
      double first = order ? 5.0 + 1e-13 : 5.0, second = order ? 5.0 : 5.0 + 1e-13;

      msperf_selector_offer (&sel, 0.0, 0, 0, table, order ? 6 : 4, first, NULL);
      msperf_selector_offer (&sel, 0.0, 0, 0, table, order ? 4 : 6, second, NULL);
      assert_int_equal (sel.row, 4);
      assert_true (sel.latency == 5.0);
      assert_false (sel.ambiguous);
      msperf_selector_clear (&sel);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_checked_mul_detects_overflow_and_leaves_out_unchanged),
    cmocka_unit_test (test_op_names_are_normalised),
    cmocka_unit_test (test_strip_drops_one_leading_unit_dim_of_rank_above_one),
    cmocka_unit_test (test_block_padded_examples_of_reference_section_0),
    cmocka_unit_test (test_pad_match_needs_same_rank_and_at_least_one_padded_dim),
    cmocka_unit_test (test_nz_to_nd_matches_reference_goldens),
    cmocka_unit_test (test_nz_to_nd_reports_overflow),
    cmocka_unit_test (test_parse_dims_reads_lists_scalars_and_blanks),
    cmocka_unit_test (test_parse_dims_rejects_bad_text),
    cmocka_unit_test (test_dtype_names_round_trip),
    cmocka_unit_test (test_dtype_profiling_spellings),
    cmocka_unit_test (test_dtype_sizes_and_upstream_map),
    cmocka_unit_test (test_format_names),
    cmocka_unit_test (test_selector_keeps_smallest_score_lexicographically),
    cmocka_unit_test (test_selector_ties_keep_earliest_and_flag_different_latency),
    cmocka_unit_test (test_selector_ties_do_not_depend_on_the_offer_order),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
