/* Fake modules for the loader tests; FAKE_KIND selects the defect:
 * 0 good, 1 wrong ABI, 2 size too small, 3 missing symbol, 4 init fails, 5 ABI minor newer
 * than the core's; 6 no defect but every declaration the core applies at start (a policy
 * block, collective prefixes, interpolated by default, a semantic-key rule). */
#include <config.h>
#include <msperf/plugin.h>

#if FAKE_KIND == 3
/* Exports something, but not msperf_plugin_v1. */
MSPERF_PLUGIN_EXPORT const int msperf_fake_not_a_plugin = 42;
#else
static gboolean
fake_init (msperf_engine *engine, void **state, GError **error)
{
  (void) engine;
#if FAKE_KIND == 4
  (void) state;
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PLUGIN, "fake init failure");
  return FALSE;
#else
  (void) error;
  *state = g_strdup ("fake state");
  return TRUE;
#endif
}

static void
fake_fini (void *state)
{
  g_free (state);
}

static msperf_status
fake_lookup (msperf_engine *engine, void *state, const msperf_query *query, msperf_result *result)
{
  (void) engine;
  (void) state;
#if FAKE_KIND == 6
  if (query->kernel_types != NULL && query->kernel_types[0] != NULL
      && g_strcmp0 (query->kernel_types[0], "FakeMiss") == 0)
    return msperf_result_set_miss (result, "no_row");
#else
  (void) query;
#endif
  msperf_result_set_hit (result, MSPERF_SOURCE_MEASURED, 42.0, 1.0, "FakeKernel", "identity");
  return MSPERF_HIT;
}

#if FAKE_KIND == 6
/* Two parts answered by this module itself, keyed by params; the second misses for the
 * _miss op. */
static const char *const fake_keyed_ops[] = { "fake.keyed_hit.default",
                                              "fake.keyed_miss.default", NULL };

static msperf_status
fake_keyed_decompose (msperf_engine *engine, void *state, const msperf_query *query,
                      msperf_plan *plan)
{
  (void) engine;
  (void) state;
  for (int k = 0; k < 2; k++)
    {
      gboolean miss = k == 1 && g_str_has_prefix (query->op->name, "fake.keyed_miss");
      msperf_subquery *sq = msperf_subquery_new ("fake_declares", miss ? "FakeMiss" : "FakeHit");

      sq->params = msperf_value_new (MSPERF_VALUE_MAP);
      msperf_value_map_set (sq->params, "k", msperf_value_new_int (k));
      msperf_plan_add_part (plan, sq);
    }
  return MSPERF_HIT;
}
#endif

#if FAKE_KIND == 0
/* The good module also decomposes one op, so the loader's decomposer lookup can be tested. */
static const char *const fake_op_names[] = { "FakeComposite", NULL };

static msperf_status
fake_decompose (msperf_engine *engine, void *state, const msperf_query *query, msperf_plan *plan)
{
  (void) engine;
  (void) state;
  (void) query;
  (void) plan;
  return MSPERF_HIT;
}
#endif

MSPERF_PLUGIN_EXPORT const msperf_plugin msperf_plugin_v1 = {
#if FAKE_KIND == 1
  .abi = MSPERF_PLUGIN_ABI + 41,
#else
  .abi = MSPERF_PLUGIN_ABI,
#endif
#if FAKE_KIND == 5
  .abi_minor = MSPERF_PLUGIN_ABI_MINOR + 1,
#else
  .abi_minor = MSPERF_PLUGIN_ABI_MINOR,
#endif
#if FAKE_KIND == 2
  .size = 16,
#else
  .size = sizeof (msperf_plugin),
#endif
#if FAKE_KIND == 0
  .name = "fake_good",
#elif FAKE_KIND == 1
  .name = "fake_bad_abi",
#elif FAKE_KIND == 2
  .name = "fake_small",
#elif FAKE_KIND == 5
  .name = "fake_newer_minor",
#elif FAKE_KIND == 6
  .name = "fake_declares",
#else
  .name = "fake_init_fail",
#endif
  .version = "9.9.9",
  .description = "fake module for loader tests",
  .init = fake_init,
  .fini = fake_fini,
  .lookup = fake_lookup,
#if FAKE_KIND == 0
  .op_names = fake_op_names,
  .decompose = fake_decompose,
#endif
#if FAKE_KIND == 6
  .flags = MSPERF_PLUGIN_INTERPOLATE_BY_DEFAULT,
  .semantic_key_rule = "fake_rule",
  .collective_prefixes = (const char *const[]){ "fakecomm_", NULL },
  .op_names = fake_keyed_ops,
  .decompose = fake_keyed_decompose,
  .policy_schema = "interpolation.fake_block:\n"
                   "  level: {type: integer, min: 1, max: 5, default: 2}\n"
                   "  style: {type: choice, choices: [plain, fancy], default: plain}\n"
                   "  extra: {type: bool}\n",
#endif
};
#endif
