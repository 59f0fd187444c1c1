/* Unit tests of the "communication" module's lookup slot over the host mock (reference §1.5,
 * §2.9, quirks Q9–Q11): the module's own state (init/fini), the fixture CSVs of
 * tests/data/communication given to the fake engine, the comm grid set directly, and queries
 * built by hand — both forms: the collective op of a mapping entry, and a sub-query's params.
 * Goldens as tests/plugins/test_communication.c (reference §6 "Communication", upstream
 * test_profiling_data_source.py); the rest derived by hand in comments. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include <msperf/plugin.h>
#include "common/host_mock.h"
#include "common/test_util.h"

#define BF16 MSPERF_DTYPE_BF16
#define I8 MSPERF_DTYPE_INT8

extern const msperf_plugin msperf_plugin_v1;

/* Q10 warnings (about competing topology tiers) seen by the log writer installed in main. */
static int tier_warnings;

static GLogWriterOutput
count_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
  for (gsize k = 0; k < n_fields; k++)
    if (strcmp (fields[k].key, "MESSAGE") == 0 && fields[k].length < 0
        && strstr (fields[k].value, "topology_tier") != NULL)
      tier_warnings++;
  return g_log_writer_default (level, fields, n_fields, data);
}

typedef struct {
  msperf_engine *engine;
  void *state;                 /* the module's */
} fx;

#define E (((fx *) *state)->engine)
#define S (((fx *) *state)->state)

static int
setup (void **state)
{
  static const char *const kernels[] = { "hcom_allReduce_", "hcom_allGather_",
                                         "hcom_reduceScatter_", "hcom_alltoallv_", "hcom_latdom_",
                                         "hcom_tiers_", "hcom_raw_" };
  fx *f = g_new0 (fx, 1);
  g_autoptr (GError) error = NULL;

  f->engine = hm_engine_new ();
  for (size_t k = 0; k < G_N_ELEMENTS (kernels); k++)
    {
      g_autofree char *file = g_strconcat ("communication/", kernels[k], ".csv", NULL);
      g_autofree char *path = tu_data_path (file);
      hm_table_from_file (f->engine, kernels[k], path);
    }
  if (!msperf_plugin_v1.init (f->engine, &f->state, &error))
    fail_msg ("init: %s", error->message);
  *state = f;
  return 0;
}

/* The same with the A3 device's comm grid [48, 8, 2] (policies/devices/ascend-a3.yaml). */
static int
setup_grid (void **state)
{
  static const int64_t a3[] = { 48, 8, 2 };

  setup (state);
  hm_comm_grid (E, a3, G_N_ELEMENTS (a3));
  return 0;
}

static int
teardown (void **state)
{
  fx *f = *state;

  msperf_plugin_v1.fini (f->state);
  msperf_engine_free (f->engine);
  g_free (f);
  return 0;
}

/* name(x, [dim,] rank, rank_group) with the group [first, first + step, ...] of n ranks. */
static msperf_op *
collective (const char *name, msperf_dtype dtype, const char *dims, int n, int64_t first,
            int64_t step)
{
  msperf_op *op = tu_op (name);

  tu_op_add_tensor (op, dtype, dims);
  if (strstr (name, "all_gather") || strstr (name, "reduce_scatter"))
    tu_op_add_int (op, 0);
  tu_op_add_int (op, 0);
  g_ptr_array_add (op->args, tu_int_list (n, first, step));
  return op;
}

/* Calls the slot for op (taken) on kernel, with entry (NULL: none) as the mapping entry. */
static msperf_result *
run_entry (void **state, msperf_op *op, const char *kernel, const msperf_mapping_entry *entry,
           msperf_status *status)
{
  g_autoptr (msperf_op) owned = op;
  g_autoptr (msperf_query) q
    = hm_query_new (E, owned, "communication", (const char *const[]){ kernel, NULL });
  msperf_result *r = msperf_result_new ();

  q->entry = entry;
  *status = msperf_plugin_v1.lookup (E, S, q, r);
  return r;
}

static msperf_result *
run (void **state, msperf_op *op, const char *kernel)
{
  msperf_status status;
  msperf_result *r = run_entry (state, op, kernel, NULL, &status);

  assert_int_equal (status, r->miss_reason ? MSPERF_MISS : MSPERF_HIT);
  return r;
}

/* A sub-query: params (taken) on kernel, parent test.parent.default. */
static msperf_result *
run_params (void **state, const char *kernel, msperf_value *params, msperf_status *status)
{
  g_autoptr (msperf_value) p = params;
  g_autoptr (msperf_op) parent = tu_op ("test.parent.default");
  g_autoptr (msperf_query) q
    = hm_query_new (E, NULL, "communication", (const char *const[]){ kernel, NULL });
  msperf_result *r = msperf_result_new ();

  q->op = parent;
  q->params = p;
  *status = msperf_plugin_v1.lookup (E, S, q, r);
  return r;
}

static int64_t
detail_int (const msperf_result *r, const char *key)
{
  int64_t v = -12345;

  assert_true (msperf_value_get_int (msperf_value_lookup (msperf_result_details (r), key), &v));
  return v;
}

static void
assert_miss (const msperf_result *r, const char *reason)
{
  assert_non_null (r->miss_reason);
  assert_string_equal (r->miss_reason, reason);
  assert_true (isnan (r->latency_us));
}

/* Golden, reference §6: 655360 bf16 = 1310720 B over 16 devices is the exact row 689.96,
 * MEASURED 0.9; no grid → topology_tier null; the kernel shape is [message_bytes]. */
static void
test_mock_comm_exact_row_golden_689_96 (void **state)
{
  g_autoptr (msperf_result) r
    = run (state, collective ("tensor_cast.all_reduce.default", BF16, "655360", 16, 0, 1),
           "hcom_allReduce_");
  const msperf_tensor *shape;

  assert_int_equal (r->source, MSPERF_SOURCE_MEASURED);
  assert_float_equal (r->latency_us, 689.96, 1e-9);
  assert_float_equal (r->confidence, 0.9, 1e-12);
  assert_string_equal (r->kernel_type, "hcom_allReduce_");
  assert_string_equal (r->shape_match_rule, "comm");
  assert_int_equal (detail_int (r, "message_bytes"), 1310720);
  assert_int_equal (detail_int (r, "num_devices"), 16);
  assert_int_equal (msperf_value_lookup (msperf_result_details (r), "topology_tier")->kind, MSPERF_VALUE_NONE);
  assert_int_equal (r->kernel_shapes->len, 1);
  shape = g_ptr_array_index (r->kernel_shapes, 0);
  assert_int_equal (shape->rank, 1);
  assert_int_equal (shape->dims[0], 1310720);
}

/* Golden, reference §6 (551.23 ± 1 there): the 16-device group has two rows, so the OLS line
 * is the chord: 412.50 + (983040 − 655360) / (1310720 − 655360) · (689.96 − 412.50)
 * = 412.50 + 0.5 · 277.46 = 551.23 exactly. */
static void
test_mock_comm_alpha_beta_golden_551_23 (void **state)
{
  g_autoptr (msperf_result) r
    = run (state, collective ("tensor_cast.all_reduce.default", BF16, "491520", 16, 0, 1),
           "hcom_allReduce_");

  assert_int_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (r->latency_us, 551.23, 1e-9);
  assert_float_equal (r->confidence, 0.8, 1e-12);
  assert_string_equal (r->method, "comm_alpha_beta");
  assert_int_equal (r->interpolation_dim, 1);
  assert_int_equal (detail_int (r, "bracket_lo_bytes"), 655360);
  assert_int_equal (detail_int (r, "bracket_hi_bytes"), 1310720);
  assert_int_equal (detail_int (r, "fit_points"), 2);
}

/* No extrapolation: above (2621440 B) and below (2000 B) the 16-device range, and a device
 * count without rows (8), miss shape_mismatch. */
static void
test_mock_comm_outside_range_misses (void **state)
{
  g_autoptr (msperf_result) above
    = run (state, collective ("tensor_cast.all_reduce.default", BF16, "1310720", 16, 0, 1),
           "hcom_allReduce_");
  g_autoptr (msperf_result) below
    = run (state, collective ("tensor_cast.all_reduce.default", BF16, "1000", 16, 0, 1),
           "hcom_allReduce_");
  g_autoptr (msperf_result) nd8
    = run (state, collective ("tensor_cast.all_reduce.default", BF16, "655360", 8, 0, 1),
           "hcom_allReduce_");

  assert_miss (above, "shape_mismatch");
  assert_miss (below, "shape_mismatch");
  assert_miss (nd8, "shape_mismatch");
}

/* Golden, reference §6 "latency-dominated case": 163840 B over the 8-row group: α = 119.9025,
 * β = 9.99918e-6 µs/B → 121.54, inside the bracket clamp [120.6, 130.0]. */
static void
test_mock_comm_alpha_beta_latency_dominated (void **state)
{
  g_autoptr (msperf_result) r
    = run (state, collective ("test.all_reduce_latdom.default", BF16, "81920", 16, 0, 1),
           "hcom_latdom_");

  assert_int_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (r->latency_us, 121.54, 0.01);
  assert_float_equal (tu_detail_double (r, "alpha_us"), 119.9025, 1e-3);
  assert_float_equal (tu_detail_double (r, "beta_us_per_byte"), 9.99918e-6, 1e-9);
  assert_int_equal (detail_int (r, "fit_points"), 8);
}

/* Q9 clamp: at 1025 B the fit (≈ 119.91) is below both bracket latencies (120.0, 120.3). */
static void
test_mock_comm_alpha_beta_is_clamped (void **state)
{
  g_autoptr (msperf_result) r
    = run (state, collective ("test.all_reduce_latdom.default", I8, "1025", 16, 0, 1),
           "hcom_latdom_");

  assert_float_equal (r->latency_us, 120.0, 1e-9);
}

/* The entry's interpolation_method (read from entry->raw): bracket_linear between 1024 (10.0)
 * and 4096 (20.0): 2048 B → 10 + 1024/3072 · 10; an unknown method misses only when it is
 * needed (4096 B is an exact row). */
static void
test_mock_comm_entry_interpolation_method (void **state)
{
  g_autoptr (msperf_value) linear = msperf_value_new (MSPERF_VALUE_MAP);
  g_autoptr (msperf_value) cubic = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_mapping_entry e_linear = { .raw = linear, .tc_input_count = -1 };
  msperf_mapping_entry e_cubic = { .raw = cubic, .tc_input_count = -1 };
  msperf_status status;
  g_autoptr (msperf_result) r = NULL;
  g_autoptr (msperf_result) bad = NULL;
  g_autoptr (msperf_result) exact = NULL;

  msperf_value_map_set (linear, "interpolation_method", msperf_value_new_string ("bracket_linear"));
  msperf_value_map_set (cubic, "interpolation_method", msperf_value_new_string ("cubic"));
  r = run_entry (state, collective ("tensor_cast.all_reduce.default", I8, "2048", 2, 0, 1),
                 "hcom_alltoallv_", &e_linear, &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_float_equal (r->latency_us, 10.0 + 1024.0 / 3072.0 * 10.0, 1e-9);
  assert_string_equal (r->method, "comm_bracket_linear");
  assert_string_equal (tu_detail_string (r, "interpolation_method"), "bracket_linear");
  bad = run_entry (state, collective ("tensor_cast.all_reduce.default", I8, "2048", 2, 0, 1),
                   "hcom_alltoallv_", &e_cubic, &status);
  assert_int_equal (status, MSPERF_MISS);
  assert_miss (bad, "invalid_comm_interpolation_method");
  exact = run_entry (state, collective ("tensor_cast.all_reduce.default", I8, "4096", 2, 0, 1),
                     "hcom_alltoallv_", &e_cubic, &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_float_equal (exact->latency_us, 20.0, 1e-9);
}

/* Q11: reduce_scatter divides by the group size, integer division (262147 / 4 = 65536 → the
 * 30.0 row); all_gather keeps the per-rank input (128·1024 bf16 = 262144 B → 40.0). */
static void
test_mock_comm_message_bytes_rules (void **state)
{
  g_autoptr (msperf_result) rs
    = run (state, collective ("tensor_cast.reduce_scatter.default", I8, "262147", 4, 0, 1),
           "hcom_reduceScatter_");
  g_autoptr (msperf_result) ag
    = run (state, collective ("tensor_cast.all_gather.default", BF16, "128,1024", 4, 0, 1),
           "hcom_allGather_");

  assert_float_equal (rs->latency_us, 30.0, 1e-9);
  assert_int_equal (detail_int (rs, "message_bytes"), 65536);
  assert_float_equal (ag->latency_us, 40.0, 1e-9);
  assert_int_equal (detail_int (ag, "message_bytes"), 262144);
}

/* Q10 without a grid: the first row of a (size, devices) pair wins (tier 0: 50.0 for 2048 bf16
 * = 4096 B), the blank-latency row of 2048 B (1024 bf16) is skipped (4.0), and the module warns once per CSV per state. */
static void
test_mock_comm_no_grid_first_row_wins_and_warns_once (void **state)
{
  int before = tier_warnings;
  g_autoptr (msperf_result) a
    = run (state, collective ("test.all_reduce_tiers.default", BF16, "2048", 2, 0, 1),
           "hcom_tiers_");
  g_autoptr (msperf_result) b
    = run (state, collective ("test.all_reduce_tiers.default", BF16, "2048", 2, 0, 2),
           "hcom_tiers_");
  g_autoptr (msperf_result) first_valid
    = run (state, collective ("test.all_reduce_tiers.default", BF16, "1024", 2, 0, 1),
           "hcom_tiers_");

  assert_float_equal (a->latency_us, 50.0, 1e-9);
  assert_float_equal (b->latency_us, 50.0, 1e-9);
  assert_float_equal (first_valid->latency_us, 4.0, 1e-9);
  assert_int_equal (tier_warnings - before, 1);
}

/* With the grid [48, 8, 2]: ranks {0,1} differ in the die (tier 2, 5.0), {0,2} in the node
 * (tier 1, 20.0), {0,16} in the pod (tier 0, 50.0); 6144 B interpolates in the tier-2 group
 * only: rows 4096 → 5.0, 8192 → 6.0, 2048 → 4.0; in units of 2048 B the OLS line is
 * 3.5 + 9/14·x, x = 3 → 38/7, inside the clamp [5, 6]. No Q10 warning: the tier is known. */
static void
test_mock_comm_grid_selects_topology_tier (void **state)
{
  int before = tier_warnings;
  g_autoptr (msperf_result) die
    = run (state, collective ("test.all_reduce_tiers.default", BF16, "2048", 2, 0, 1),
           "hcom_tiers_");
  g_autoptr (msperf_result) node
    = run (state, collective ("test.all_reduce_tiers.default", BF16, "2048", 2, 0, 2),
           "hcom_tiers_");
  g_autoptr (msperf_result) pod
    = run (state, collective ("test.all_reduce_tiers.default", BF16, "2048", 2, 0, 16),
           "hcom_tiers_");
  g_autoptr (msperf_result) interp
    = run (state, collective ("test.all_reduce_tiers.default", BF16, "3072", 2, 0, 1),
           "hcom_tiers_");

  assert_float_equal (die->latency_us, 5.0, 1e-9);
  assert_int_equal (detail_int (die, "topology_tier"), 2);
  assert_float_equal (node->latency_us, 20.0, 1e-9);
  assert_int_equal (detail_int (node, "topology_tier"), 1);
  assert_float_equal (pod->latency_us, 50.0, 1e-9);
  assert_int_equal (detail_int (pod, "topology_tier"), 0);
  assert_int_equal (interp->source, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (interp->latency_us, 38.0 / 7.0, 1e-9);
  assert_int_equal (tier_warnings - before, 0);
}

/* Reference §1.5: ranks 0..15 on the A3 grid are tier 1; the §6 allReduce rows are tier 0,
 * so the 16-device query finds no group, while the tier-1 latdom row answers. */
static void
test_mock_comm_grid_tp16_is_tier_1 (void **state)
{
  g_autoptr (msperf_result) r
    = run (state, collective ("tensor_cast.all_reduce.default", BF16, "655360", 16, 0, 1),
           "hcom_allReduce_");
  g_autoptr (msperf_result) tier1
    = run (state, collective ("test.all_reduce_latdom.default", I8, "1024", 16, 0, 1),
           "hcom_latdom_");

  assert_miss (r, "shape_mismatch");
  assert_float_equal (tier1->latency_us, 120.0, 1e-9);
  assert_int_equal (detail_int (tier1, "topology_tier"), 1);
}

/* The miss reasons of the op form. */
static void
test_mock_comm_op_form_misses (void **state)
{
  msperf_op *not_tensor = tu_op ("tensor_cast.all_reduce.default");
  msperf_op *not_list = tu_op ("tensor_cast.all_reduce.default");
  msperf_status status;
  g_autoptr (msperf_result) raw = NULL;
  g_autoptr (msperf_result) missing = NULL;
  g_autoptr (msperf_result) bad_x = NULL;
  g_autoptr (msperf_result) bad_group = NULL;
  g_autoptr (msperf_result) no_kernel = NULL;

  raw = run (state, collective ("test.all_reduce_raw.default", BF16, "655360", 16, 0, 1),
             "hcom_raw_");
  missing = run (state, collective ("test.all_reduce_missing.default", BF16, "655360", 16, 0, 1),
                 "hcom_missing_");
  tu_op_add_int (not_tensor, 7);
  tu_op_add_int (not_tensor, 0);
  g_ptr_array_add (not_tensor->args, tu_int_list (16, 0, 1));
  bad_x = run (state, not_tensor, "hcom_allReduce_");
  tu_op_add_tensor (not_list, BF16, "655360");
  tu_op_add_int (not_list, 0);
  tu_op_add_int (not_list, 16);
  bad_group = run (state, not_list, "hcom_allReduce_");
  no_kernel = run_entry (state, collective ("tensor_cast.all_reduce.default", BF16, "8", 2, 0, 1),
                         NULL, NULL, &status);
  assert_miss (raw, "csv_format_raw");
  assert_miss (missing, "csv_not_found");
  assert_miss (bad_x, "invalid_args");
  assert_miss (bad_group, "invalid_args");
  assert_int_equal (status, MSPERF_MISS);
  assert_miss (no_kernel, "unmapped");
}

/* Sub-query form: message_bytes + num_devices (the §6 alpha-beta golden again). */
static void
test_mock_comm_params_bytes_and_devices (void **state)
{
  msperf_value *p = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_status status;
  g_autoptr (msperf_result) r = NULL;

  msperf_value_map_set (p, "message_bytes", msperf_value_new_int (983040));
  msperf_value_map_set (p, "num_devices", msperf_value_new_int (16));
  r = run_params (state, "hcom_allReduce_", p, &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_int_equal (r->source, MSPERF_SOURCE_INTERPOLATED);
  assert_float_equal (r->latency_us, 551.23, 1e-9);
}

/* rank_group gives num_devices (16) and, with the grid, tier 1; bracket_linear between 131072
 * (120.6) and 1048576 (130.0): 163840 B → 120.6 + 32768/917504 · 9.4. */
static void
test_mock_comm_params_rank_group_and_bracket_linear (void **state)
{
  msperf_value *p = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_status status;
  g_autoptr (msperf_result) r = NULL;

  msperf_value_map_set (p, "message_bytes", msperf_value_new_int (163840));
  msperf_value_map_set (p, "rank_group", tu_int_list (16, 0, 1));
  msperf_value_map_set (p, "interpolation_method", msperf_value_new_string ("bracket_linear"));
  r = run_params (state, "hcom_latdom_", p, &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_float_equal (r->latency_us, 120.6 + 32768.0 / 917504.0 * 9.4, 1e-9);
  assert_string_equal (r->method, "comm_bracket_linear");
  assert_int_equal (detail_int (r, "num_devices"), 16);
  assert_int_equal (detail_int (r, "topology_tier"), 1);
}

/* An explicit topology_tier filters the tier column without a grid (4096 B tier 1 → 20.0). */
static void
test_mock_comm_params_explicit_tier (void **state)
{
  msperf_value *p = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_status status;
  g_autoptr (msperf_result) r = NULL;

  msperf_value_map_set (p, "message_bytes", msperf_value_new_int (4096));
  msperf_value_map_set (p, "num_devices", msperf_value_new_int (2));
  msperf_value_map_set (p, "topology_tier", msperf_value_new_int (1));
  r = run_params (state, "hcom_tiers_", p, &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_float_equal (r->latency_us, 20.0, 1e-9);
  assert_int_equal (detail_int (r, "topology_tier"), 1);
}

/* Malformed params: each is invalid_args (no message_bytes, negative bytes, num_devices 0,
 * a rank_group that is not an int list, neither num_devices nor rank_group, tier −1). */
static void
test_mock_comm_params_invalid (void **state)
{
  for (int k = 0; k < 6; k++)
    {
      msperf_value *p = msperf_value_new (MSPERF_VALUE_MAP);
      msperf_status status;
      g_autoptr (msperf_result) r = NULL;

      if (k != 0)
        msperf_value_map_set (p, "message_bytes", msperf_value_new_int (k == 1 ? -1 : 4096));
      if (k == 0 || k == 1 || k == 5)
        msperf_value_map_set (p, "num_devices", msperf_value_new_int (2));
      if (k == 2)
        msperf_value_map_set (p, "num_devices", msperf_value_new_int (0));
      if (k == 3)
        msperf_value_map_set (p, "rank_group", msperf_value_new_string ("0,1"));
      if (k == 5)
        msperf_value_map_set (p, "topology_tier", msperf_value_new_int (-1));
      r = run_params (state, "hcom_tiers_", p, &status);
      if (status != MSPERF_MISS || r->miss_reason == NULL
          || strcmp (r->miss_reason, "invalid_args") != 0)
        fail_msg ("case %d: status %d, reason %s", k, status, r->miss_reason ? r->miss_reason : "-");
    }
}

#define T(t) cmocka_unit_test_setup_teardown (t, setup, teardown)
#define G(t) cmocka_unit_test_setup_teardown (t, setup_grid, teardown)

int
main (void)
{
  const struct CMUnitTest tests[] = {
    T (test_mock_comm_exact_row_golden_689_96),
    T (test_mock_comm_alpha_beta_golden_551_23),
    T (test_mock_comm_outside_range_misses),
    T (test_mock_comm_alpha_beta_latency_dominated),
    T (test_mock_comm_alpha_beta_is_clamped),
    T (test_mock_comm_entry_interpolation_method),
    T (test_mock_comm_message_bytes_rules),
    T (test_mock_comm_no_grid_first_row_wins_and_warns_once),
    G (test_mock_comm_grid_selects_topology_tier),
    G (test_mock_comm_grid_tp16_is_tier_1),
    T (test_mock_comm_op_form_misses),
    T (test_mock_comm_params_bytes_and_devices),
    G (test_mock_comm_params_rank_group_and_bracket_linear),
    T (test_mock_comm_params_explicit_tier),
    T (test_mock_comm_params_invalid),
  };

  g_log_set_writer_func (count_writer, NULL, NULL);
  return cmocka_run_group_tests_name ("communication_mock", tests, NULL, NULL);
}
