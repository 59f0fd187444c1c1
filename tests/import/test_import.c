/* The pieces of `msperf import aiconfigurator` (core/app/import/): exact ms -> us shifts,
 * deterministic gzip, the families' converters on a cut of the upstream tables
 * (tests/data/import/SOURCE.md) and the op mapping it writes. */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <msperf/database.h>
#include <msperf/error.h>
#include <msperf/table.h>
#include "app/import/import_aic.h"
#include "app/import/import_private.h"
#include "io/gzip_data.h"

static void
expect_us (const char *ms, const char *us)
{
  g_autofree char *got = msperf_import_ms_to_us (ms);

  if (us == NULL)
    {
      if (got != NULL)
        fail_msg ("%s -> %s, expected a refusal", ms, got);
      return;
    }
  if (got == NULL || strcmp (got, us) != 0)
    fail_msg ("%s -> %s, expected %s", ms, got ? got : "(null)", us);
}

/* Goldens: Python's format(Decimal(text).scaleb(3), "f"), the shift the earlier GEMM-only
 * converter used (its SOURCE.md), with trailing zeros of the fraction dropped. */
static void
test_import_ms_to_us_is_an_exact_decimal_shift (void **state)
{
  (void) state;
  expect_us ("0.023872000475724537", "23.872000475724537");
  expect_us ("41.099622090657554", "41099.622090657554");
  expect_us ("2.4196331024169924", "2419.6331024169924");
  expect_us ("0.0141", "14.1");
  expect_us ("31", "31000");
  expect_us ("1e-05", "0.01");
  expect_us ("3.5e-7", "0.00035");
  expect_us ("1.25e2", "125000");
  expect_us ("0.00536", "5.36");
  expect_us ("0", NULL);
  expect_us ("-1", NULL);
  expect_us ("nan", NULL);
  expect_us ("", NULL);
  expect_us ("1e", NULL);
  expect_us ("1.2.3", NULL);
}

static void
test_import_gzip_is_deterministic_and_round_trips (void **state)
{
  const char *text = "OP State,Input Shapes\ndynamic,\"1,2;3,4\"\n";
  g_autoptr (GBytes) a = msperf_import_gzip (text, strlen (text));
  g_autoptr (GBytes) b = msperf_import_gzip (text, strlen (text));
  g_autofree char *plain = NULL;
  size_t len = 0;
  const guchar *d = g_bytes_get_data (a, NULL);

  (void) state;
  assert_true (g_bytes_equal (a, b));
  /* gzip header: magic, deflate, no flags, mtime 0 (bytes 4..7) */
  assert_int_equal (d[0], 0x1f);
  assert_int_equal (d[1], 0x8b);
  assert_int_equal (d[3], 0);
  assert_int_equal (d[4] | d[5] | d[6] | d[7], 0);
  plain = msperf_gzip_inflate (g_bytes_get_data (a, NULL), g_bytes_get_size (a), "t", 1 << 20,
                               &len, NULL);
  assert_non_null (plain);
  assert_string_equal (plain, text);
}

static void
test_import_csv_cell_quotes_only_when_needed (void **state)
{
  GString *s = g_string_new (NULL);

  (void) state;
  imp_csv_cell (s, "plain", TRUE);
  imp_csv_cell (s, "1,2", FALSE);
  imp_csv_cell (s, "say \"x\"", FALSE);
  assert_string_equal (s->str, "plain,\"1,2\",\"say \"\"x\"\"\"");
  g_string_free (s, TRUE);
}

static char *
fixture_tables (void)
{
  const char *top = g_getenv ("MSPERF_TOP_SRCDIR");

  return g_build_filename (top ? top : MSPERF_SRCDIR, "tests", "data", "import", "tables", NULL);
}

static char *
gunzip_file (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *gz = NULL;
  gsize len = 0;
  size_t out = 0;
  char *plain;

  assert_true (g_file_get_contents (path, &gz, &len, NULL));
  plain = msperf_gzip_inflate (gz, len, path, (size_t) 1 << 30, &out, NULL);
  assert_non_null (plain);
  return plain;
}

static void
remove_tree (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
}

/* The rows each family writes, checked on the cut's first rows (the goldens are the rows of
 * tests/data/import/tables, converted by hand from the rules of doc/formats.md §1.3). */
static void
test_import_fixture_rows_follow_the_contract (void **state)
{
  g_autofree char *tables = fixture_tables ();
  g_autofree char *base = g_dir_make_tmp ("msperf-import-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (base, "db", NULL);
  g_autoptr (GError) error = NULL;
  msperf_import_options o = { 0 };
  msperf_import_stats st = { 0 };
  g_autofree char *gemm = NULL;
  g_autofree char *attn = NULL;
  g_autofree char *moe = NULL;
  g_autofree char *ag = NULL;
  g_autofree char *q = NULL;

  (void) state;
  o.tables_dir = tables;
  o.out_dir = out;
  if (!msperf_import_aiconfigurator (&o, &st, &error))
    fail_msg ("%s", error->message);
  assert_int_equal (st.rows_in, 2844);
  assert_int_equal (st.rows_out + st.rows_dropped, st.rows_in);
  assert_int_equal (st.n_kernels, 24);

  gemm = gunzip_file (out, "MatMulV2.csv.gz");
  /* bfloat16,4353,65536,51200,41.099622090657554 -> activation [m,k], weight [n,k] */
  assert_non_null (strstr (gemm, "\ndynamic,AI_CORE,\"4353,51200;65536,51200\",DT_BF16;DT_BF16,"
                                 "ND;ND,\"4353,65536\",DT_BF16,ND,41099.622090657554\n"));
  attn = gunzip_file (out, "FusedInferAttentionScore.csv.gz");
  /* context: batch 16, isl 6144, 96 heads, 1 KV head, head_dim 128 -> TND over 98304 tokens */
  assert_non_null (strstr (attn, "\ndynamic,MIX_AIC,\"98304,96,128;98304,1,128;98304,1,128\","
                                 "DT_BF16;DT_BF16;DT_BF16,ND;ND;ND,\"98304,96,128\",DT_BF16,ND,"
                                 "31601.961771647137,16,,16,,6144.000000,16,96,1,3,TND,"));
  assert_non_null (strstr (attn, ",6144.000000,16,96,1,3,TND,prefill_no_cache,runtime_values,0\n"));
  /* generation: batch 32, isl 1, step 1 -> BNSD, KV length 2 */
  assert_non_null (strstr (attn, "\ndynamic,MIX_AIC,\"32,64,1,64;32,64,2,64;32,64,2,64\","));
  moe = gunzip_file (out, "FusedMoE.csv.gz");
  /* fp8, 1 token, hidden 3072, inter 1024, top-8 of 256 experts, tp 16, ep 16 */
  assert_non_null (strstr (moe, "\ndynamic,AI_CORE,\"1,3072;16,128,3072;16,3072,64;1,8\","
                                "DT_FLOAT8_E4M3FN;DT_FLOAT8_E4M3FN;DT_FLOAT8_E4M3FN;INT32,"
                                "ND;ND;ND;ND,\"1,3072\",DT_BF16,ND,26.169601082801818,256,16,16,"
                                "8,power_law_1.01,fp8\n"));
  ag = gunzip_file (out, "hcom_allGather_.csv.gz");
  /* all_gather half, 2 GPUs, 256 elements = 512 bytes in all, 256 per rank */
  assert_non_null (strstr (ag, "message_bytes,num_devices,dtype,Average Duration(us)\n"
                               "256,2,DT_BF16,5.36\n"));
  q = gunzip_file (out, "Fp8Quantize.csv.gz");
  assert_non_null (strstr (q, "\ndynamic,AI_CORE,\"32768,51200\",DT_BF16,ND,\"32768,51200\","
                              "DT_FLOAT8_E4M3FN,ND,2419.6331024169924\n"));
  remove_tree (out);
  g_rmdir (base);
}

/* Every kernel the mapping names is a table the importer writes (or a merged elementwise one),
 * and the database loads without warnings. */
static void
test_import_mapping_names_only_written_kernels (void **state)
{
  g_autofree char *yaml = imp_op_mapping_yaml (TRUE);
  static const char *const written[] = {
    "MatMulV2", "FP8MatMul", "FP8BlockMatMul", "Fp8Quantize", "FusedInferAttentionScore",
    "hcom_allReduce_", "hcom_allGather_", "hcom_reduceScatter_", "hcom_alltoall_", "FusedMoE",
    "AicContextMla", "AicGenerationMla", "AicGatedDeltaNet", "SlidingWindowAttention", "Add",
    "Mul", "Silu", NULL
  };
  g_autofree char *dir = g_dir_make_tmp ("msperf-import-map-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "op_mapping.yaml", NULL);
  g_autoptr (GError) error = NULL;
  msperf_database *db;
  gchar **lines;

  (void) state;
  lines = g_strsplit (yaml, "\n", -1);
  for (gchar **l = lines; *l != NULL; l++)
    {
      const char *k = strstr (*l, "kernel_type: ");
      if (k != NULL)
        assert_true (g_strv_contains (written, k + strlen ("kernel_type: ")));
    }
  g_strfreev (lines);
  assert_true (g_file_set_contents (path, yaml, -1, NULL));
  db = msperf_database_open (dir, NULL, &error);
  if (db == NULL)
    fail_msg ("%s", error->message);
  assert_int_equal (msperf_database_warnings (db)->len, 0);
  msperf_database_free (db);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_import_ms_to_us_is_an_exact_decimal_shift),
    cmocka_unit_test (test_import_gzip_is_deterministic_and_round_trips),
    cmocka_unit_test (test_import_csv_cell_quotes_only_when_needed),
    cmocka_unit_test (test_import_fixture_rows_follow_the_contract),
    cmocka_unit_test (test_import_mapping_names_only_written_kernels),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
