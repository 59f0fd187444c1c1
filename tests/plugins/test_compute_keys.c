/* Tests of the compute module's exact-key candidates (plugins/compute/compute_keys.c):
 * the keys may only skip rows that cannot match, so the exact lookup selects what the full scan
 * of reference §2.3 selects. Proven two ways: (1) for every row of the sample database's matmul
 * tables and of every rule fixture, used as a query as written and rewritten (transposed weight,
 * leading batch 1, block-padded, off by one, 3-D), every row the matcher accepts is among the
 * candidates (without padding: UNPADDED; at all: ANY); (2) through the engine, the self-lookup
 * of all 1 092 MatMulV2 rows and their padded and missing variants give the answer of a
 * reference full scan written here with the matcher and the selector. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "common/test_util.h"
#include "../../plugins/compute/compute_keys.h"
#include "../../plugins/compute/compute_match.h"

static gboolean
contains (const GArray *rows, size_t row)
{
  for (guint k = 0; k < rows->len; k++)
    if (g_array_index (rows, size_t, k) == row)
      return TRUE;
  return FALSE;
}

/* No row twice (the ANY candidates come in index order, not row order). */
static gboolean
distinct (const GArray *rows)
{
  for (guint k = 0; k < rows->len; k++)
    for (guint j = 0; j < k; j++)
      if (g_array_index (rows, size_t, j) == g_array_index (rows, size_t, k))
        return FALSE;
  return TRUE;
}

/* Checks the superset property for one query; returns how many rows matched. */
static size_t
check_query (const char *kernel, const msperf_table *t, const msperf_tensor *tc, size_t n_tc,
             int64_t tc_input_count)
{
  g_autoptr (GArray) unpadded = g_array_new (FALSE, FALSE, sizeof (size_t));
  g_autoptr (GArray) any = g_array_new (FALSE, FALSE, sizeof (size_t));
  gboolean keyed_u, keyed_a;
  size_t matched = 0;

  keyed_u = compute_keys_candidates (kernel, t, tc, n_tc, tc_input_count, COMPUTE_KEYS_UNPADDED,
                                     unpadded);
  keyed_a = compute_keys_candidates (kernel, t, tc, n_tc, tc_input_count, COMPUTE_KEYS_ANY, any);
  assert_int_equal (keyed_u, keyed_a);
  if (!keyed_u)
    return 0;   /* the caller scans every row: nothing to prove */
  assert_true (distinct (unpadded));
  assert_true (distinct (any));
  for (size_t row = 0; row < msperf_table_n_rows (t); row++)
    {
      compute_row_match m;

      if (!msperf_table_row_valid (t, row))
        continue;
      for (int alias = 0; alias < 2; alias++)
        if (compute_inputs_match (kernel, tc, n_tc, msperf_table_row_inputs (t, row),
                                  tc_input_count, alias, &m))
          {
            matched++;
            if (!contains (any, row))
              fail_msg ("%s line %u matches (%s) but is not an ANY candidate", kernel,
                        msperf_table_row_line (t, row), m.rule);
            if (m.distance == 0.0 && !contains (unpadded, row))
              fail_msg ("%s line %u matches without padding (%s) but is not an UNPADDED "
                        "candidate", kernel, msperf_table_row_line (t, row), m.rule);
          }
    }
  return matched;
}

static int64_t
round_up (int64_t d, int64_t bs)
{
  return (d + bs - 1) / bs * bs;
}

/* Every row of t as a query as written, every stride-th row also rewritten; returns the number
 * of matches seen (each check is a pass over every row: quadratic, hence the stride). */
static size_t
check_table (const msperf_table *t, int64_t tc_input_count, size_t stride)
{
  const char *kernel = msperf_table_kernel_type (t);
  size_t matched = 0;

  for (size_t row = 0; row < msperf_table_n_rows (t); row++)
    {
      const msperf_slots *s = msperf_table_row_inputs (t, row);
      msperf_tensor q[16];
      size_t n;

      if (!msperf_table_row_valid (t, row) || s->n == 0 || s->n > G_N_ELEMENTS (q))
        continue;
      n = s->n;
      for (int variant = 0; variant < (row % stride == 0 ? 8 : 1); variant++)
        {
          for (size_t i = 0; i < n; i++)
            {
              q[i] = s->t[i];
              /* FRACTAL_NZ rows: query the ND shape, as a trace would. */
              if (q[i].format == MSPERF_FORMAT_FRACTAL_NZ)
                {
                  msperf_tensor nd;

                  if (msperf_shape_nz_to_nd (&s->t[i], &nd))
                    q[i] = nd;
                }
              q[i].format = MSPERF_FORMAT_ND;
            }
          switch (variant)
            {
            case 0:
              break;
            case 1: /* the weight the other way round (matmul transpose rules) */
              if (n >= 2 && q[1].rank >= 2)
                {
                  int64_t d = q[1].dims[q[1].rank - 1];
                  q[1].dims[q[1].rank - 1] = q[1].dims[q[1].rank - 2];
                  q[1].dims[q[1].rank - 2] = d;
                }
              break;
            case 2: /* a leading batch of 1 (batch strip) */
              if (q[0].rank < MSPERF_MAX_RANK)
                {
                  memmove (&q[0].dims[1], &q[0].dims[0], (size_t) q[0].rank * sizeof (int64_t));
                  q[0].dims[0] = 1;
                  q[0].rank++;
                }
              break;
            case 3: /* every dim of every input block-padded to 16 */
            case 4: /* ... to 64 */
              for (size_t i = 0; i < n; i++)
                for (int k = 0; k < q[i].rank; k++)
                  q[i].dims[k] = round_up (q[i].dims[k], variant == 3 ? 16 : 64);
              break;
            case 5: /* only the last dim of input 0 padded to 32 */
              if (q[0].rank >= 1)
                q[0].dims[q[0].rank - 1] = round_up (q[0].dims[q[0].rank - 1] + 1, 32);
              break;
            case 6: /* off by one: no row matches (or a padded one) */
              q[0].dims[0] += 1;
              break;
            case 7: /* a 2-D input 0 split into 3-D (flatten and merge rules) */
              if (q[0].rank == 2 && q[0].dims[0] % 2 == 0 && q[0].dims[0] > 2)
                {
                  q[0].rank = 3;
                  q[0].dims[2] = q[0].dims[1];
                  q[0].dims[1] = q[0].dims[0] / 2;
                  q[0].dims[0] = 2;
                }
              break;
            default:
              break;
            }
          matched += check_query (kernel, t, q, n, tc_input_count);
          if (tc_input_count < 0 && n >= 2 && variant == 0 && row % stride == 0)
            matched += check_query (kernel, t, q, n - 1, -1);
        }
    }
  return matched;
}

static msperf_table *
load (const char *relative_to_src, const char *kernel)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tu_srcdir_path (relative_to_src);
  msperf_table *t = msperf_table_load (path, kernel, &error);

  if (t == NULL)
    fail_msg ("%s", error->message);
  return t;
}

/* The sample database's matmul grids (SOURCE.md: 1 092 MatMulV2 and 1 302 BatchMatMulV2 rows). */
static void
test_keys_cover_every_match_of_the_sample_matmul_tables (void **state)
{
  g_autoptr (msperf_table) mm = load ("doc/examples/h200-db/MatMulV2.csv", "MatMulV2");
  g_autoptr (msperf_table) bmm = load ("doc/examples/h200-db/BatchMatMulV2.csv", "BatchMatMulV2");
  size_t matched;

  (void) state;
  assert_int_equal (msperf_table_n_rows (mm), 1092);
  matched = check_table (mm, -1, 9);
  /* Every row finds at least itself (variant 0): the check did look at matches. */
  assert_true (matched >= 1092);
  assert_true (check_table (bmm, -1, 13) >= 1302);
}

/* msperf_table_rows_by_input_numels (doc/performance.md, P4) against a filter of every row:
 * the same rows, ascending, for the (key0, key1) of every two-slot row of the sample tables. */
static void
test_two_key_runs_equal_a_filter_of_every_row (void **state)
{
  const char *files[] = { "doc/examples/h200-db/MatMulV2.csv", "doc/examples/h200-db/BatchMatMulV2.csv" };
  const char *kernels[] = { "MatMulV2", "BatchMatMulV2" };
  size_t checked = 0;

  (void) state;
  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autoptr (msperf_table) t = load (files[f], kernels[f]);
      g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (size_t));
      g_autoptr (GArray) want = g_array_new (FALSE, FALSE, sizeof (size_t));

      for (size_t row = 0; row < msperf_table_n_rows (t); row++)
        {
          const msperf_slots *s = msperf_table_row_inputs (t, row);
          uint64_t k0, k1;
          size_t n;

          if (!msperf_table_row_valid (t, row) || s == NULL || s->n < 2)
            continue;
          k0 = msperf_tensor_numel_key (&s->t[0]);
          k1 = msperf_tensor_numel_key (&s->t[1]);
          g_array_set_size (got, 0);
          g_array_set_size (want, 0);
          n = msperf_table_rows_by_input_numels (t, k0, k1, got);
          assert_int_equal (n, got->len);
          for (size_t r = 0; r < msperf_table_n_rows (t); r++)
            {
              const msperf_slots *o = msperf_table_row_inputs (t, r);

              if (msperf_table_row_valid (t, r) && o != NULL && o->n >= 2
                  && msperf_tensor_numel_key (&o->t[0]) == k0
                  && msperf_tensor_numel_key (&o->t[1]) == k1)
                g_array_append_val (want, r);
            }
          assert_true (want->len >= 1);
          assert_int_equal (got->len, want->len);
          assert_memory_equal (got->data, want->data, want->len * sizeof (size_t));
          checked++;
        }
    }
  assert_true (checked >= 1092 + 1302);
}

/* Every rule fixture of tests/data/compute/rules (padding, NZ, flatten, merge, Index, SwiGlu,
 * RoPE, ReshapeAndCache, quantised matmuls), with and without a tc_input_count. */
static void
test_keys_cover_every_match_of_the_rule_fixtures (void **state)
{
  g_autofree char *dir_path = tu_data_path ("compute/rules");
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;
  size_t tables = 0, matched = 0;

  (void) state;
  assert_non_null (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL, *kernel = NULL;
      g_autoptr (msperf_table) t = NULL;

      if (!g_str_has_suffix (name, ".csv"))
        continue;
      path = g_build_filename (dir_path, name, NULL);
      kernel = g_strndup (name, strlen (name) - 4);
      t = msperf_table_load (path, kernel, NULL);
      if (t == NULL)
        continue;
      tables++;
      matched += check_table (t, -1, 1);
      matched += check_table (t, 1, 1);
      matched += check_table (t, 2, 1);
    }
  assert_true (tables >= 15);
  assert_true (matched > 0);
}

/* The reference: reference §2.3 over every row, written with the matcher and the selector. */
static gboolean
full_scan (const msperf_table *t, const msperf_tensor *tc, size_t n_tc, msperf_selector *sel)
{
  msperf_selector_init (sel);
  for (int alias = 0; alias < 2 && !sel->have; alias++)
    for (size_t row = 0; row < msperf_table_n_rows (t); row++)
      {
        compute_row_match m;

        if (msperf_table_row_valid (t, row)
            && compute_inputs_match ("MatMulV2", tc, n_tc, msperf_table_row_inputs (t, row), -1,
                                     alias, &m))
          msperf_selector_offer (sel, m.distance, 0, (int) msperf_table_row_latency_column (t, row),
                                 t, row, msperf_table_row_latency (t, row), m.rule);
      }
  return sel->have;
}

/* The 1 092-row self-lookup and its padded and missing variants: the engine's keyed lookup
 * answers exactly what the full scan selects (latency to the bit, rule, hit or miss). */
static void
test_keyed_lookup_equals_full_scan_on_the_sample_matmuls (void **state)
{
  g_autofree char *db = tu_srcdir_path ("doc/examples/h200-db");
  g_autoptr (msperf_engine) e = tu_engine_new (db, NULL);
  g_autoptr (GError) error = NULL;
  const msperf_table *t = msperf_engine_table (e, "MatMulV2", &error);
  size_t hits = 0, padded = 0, misses = 0;

  (void) state;
  assert_non_null (t);
  for (size_t row = 0; row < msperf_table_n_rows (t); row++)
    for (int variant = 0; variant < 3; variant++)
      {
        const msperf_slots *s = msperf_table_row_inputs (t, row);
        msperf_tensor tc[2];
        msperf_selector sel;
        g_autoptr (msperf_op) op = tu_op ("aten.mm.default");
        g_autoptr (msperf_result) r = NULL;
        g_autofree char *a = NULL, *b = NULL;
        gboolean expect;

        if (s->n != 2)
          continue;
        tc[0] = s->t[0];
        tc[1] = s->t[1];
        if (variant == 1)       /* M block-padded: M <= 16 to 32 (48 fp16 (M, K, N) of the
                                 * grid have no M = 32 row: padded hits), else to 64 */
          tc[0].dims[0] = tc[0].dims[0] <= 16 ? 32 : round_up (tc[0].dims[0] + 1, 64);
        else if (variant == 2)  /* M + 3: an odd M no block rounds to */
          tc[0].dims[0] += 3;
        a = msperf_tensor_shape_repr (&tc[0]);
        b = msperf_tensor_shape_repr (&tc[1]);
        /* "[1, 256]" → "1, 256" for tu_op_add_tensor. */
        a[strlen (a) - 1] = '\0';
        b[strlen (b) - 1] = '\0';
        tu_op_add_tensor (op, tc[0].dtype == MSPERF_DTYPE_FLOAT16 ? MSPERF_DTYPE_FLOAT16
                                                                  : MSPERF_DTYPE_BF16, a + 1);
        tu_op_add_tensor (op, tc[1].dtype == MSPERF_DTYPE_FLOAT16 ? MSPERF_DTYPE_FLOAT16
                                                                  : MSPERF_DTYPE_BF16, b + 1);
        tc[0].dtype = tc[0].dtype == MSPERF_DTYPE_FLOAT16 ? MSPERF_DTYPE_FLOAT16 : MSPERF_DTYPE_BF16;
        tc[1].dtype = tc[1].dtype == MSPERF_DTYPE_FLOAT16 ? MSPERF_DTYPE_FLOAT16 : MSPERF_DTYPE_BF16;
        expect = full_scan (t, tc, 2, &sel);
        r = msperf_engine_query (e, op);
        if (expect)
          {
            if (r->source != MSPERF_SOURCE_MEASURED)
              fail_msg ("line %u variant %d: full scan hits line %u, engine says %s (%s)",
                        msperf_table_row_line (t, row), variant,
                        msperf_table_row_line (t, sel.row), msperf_source_name (r->source),
                        r->miss_reason ? r->miss_reason : "-");
            assert_true (r->latency_us == sel.latency);
            assert_string_equal (r->shape_match_rule, sel.rule);
            hits++;
            padded += sel.distance > 0;
          }
        else
          {
            assert_int_not_equal (r->source, MSPERF_SOURCE_MEASURED);
            misses++;
          }
        msperf_selector_clear (&sel);
      }
  /* All three kinds of answer were exercised. */
  assert_true (hits >= 1092);
  assert_true (padded > 0);
  assert_true (misses > 0);
}

/* A query that matches only through padding still finds its row among the
 * bounded ANY candidates, and those candidates all fit the dim bounds (their largest ND dim
 * is at most the query's): the bounds skip rows, never a match. */
static void
test_padded_query_still_matches_within_the_dim_bounds (void **state)
{
  g_autoptr (msperf_table) mm = load ("doc/examples/h200-db/MatMulV2.csv", "MatMulV2");
  compute_kernel_class kc;
  size_t checked = 0;

  (void) state;
  compute_kernel_class_init (&kc, "MatMulV2");
  assert_true (kc.matmul && kc.dtype_relaxed && !kc.flatten_batch && !kc.rope);
  for (size_t row = 0; row < msperf_table_n_rows (mm); row++)
    {
      const msperf_slots *s = msperf_table_row_inputs (mm, row);
      g_autoptr (GArray) any = g_array_new (FALSE, FALSE, sizeof (size_t));
      msperf_tensor q[2];
      compute_row_match m;
      int64_t qmax;

      /* M in {1, 2, 4, 8} pads to 16 (the grid's other M are multiples of 16). */
      if (s->n != 2 || s->t[0].rank != 2 || s->t[0].dims[0] % 16 == 0)
        continue;
      q[0] = s->t[0];
      q[1] = s->t[1];
      q[0].dims[0] = round_up (q[0].dims[0], 16);
      assert_true (compute_inputs_match_class (&kc, q, 2, s, -1, FALSE, &m));
      assert_string_equal (m.rule, "padding");
      assert_true (m.distance == 1.0);
      assert_true (compute_keys_candidates ("MatMulV2", mm, q, 2, -1, COMPUTE_KEYS_ANY, any));
      assert_true (contains (any, row));
      qmax = MAX (q[0].dims[0], q[0].dims[1]);
      for (guint k = 0; k < any->len; k++)
        {
          size_t r = g_array_index (any, size_t, k);
          const msperf_tensor *c = &msperf_table_row_inputs (mm, r)->t[0];

          assert_true (c->dims[0] <= qmax && c->dims[1] <= qmax);
        }
      /* The per-row matcher of a classified kernel is the name-based one. */
      {
        compute_row_match by_name;

        assert_true (compute_inputs_match ("MatMulV2", q, 2, s, -1, FALSE, &by_name));
        assert_string_equal (by_name.rule, m.rule);
      }
      checked++;
    }
  assert_int_equal (checked, 312); /* python3 csv.reader: rows with M % 16 != 0 */
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_keys_cover_every_match_of_the_sample_matmul_tables),
    cmocka_unit_test (test_two_key_runs_equal_a_filter_of_every_row),
    cmocka_unit_test (test_keys_cover_every_match_of_the_rule_fixtures),
    cmocka_unit_test (test_keyed_lookup_equals_full_scan_on_the_sample_matmuls),
    cmocka_unit_test (test_padded_query_still_matches_within_the_dim_bounds),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
