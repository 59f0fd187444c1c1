/* msperf — replays the fuzzing corpora and the crash regressions through every harness in an
 * ordinary build (no clang, no libFuzzer), so `make check` — and valgrind and the sanitizer
 * build of .ci — keep every input that ever crashed, and every corpus entry, clean.
 *
 * All harnesses are compiled into this one program: each is included with its entry points
 * renamed (with a replay_ prefix: csv_init is libcsv's). Output is TAP, one test per
 * (harness, file); a crash kills the program, which the TAP driver reports as an error.
 *
 * Usage: test_fuzz_replay [DIR…]; without arguments the directories are
 * $MSPERF_TOP_SRCDIR/tests/fuzz/{corpus,regressions}/<harness>. */
#include <config.h>
#include <stdint.h>
#include <stdio.h>
#include <glib.h>

#define DECLARE_HARNESS(n) \
  int replay_##n##_init (int *argc, char ***argv); \
  int replay_##n##_one (const uint8_t *data, size_t size);

DECLARE_HARNESS (csv)
DECLARE_HARNESS (yaml_mapping)
DECLARE_HARNESS (policy)
DECLARE_HARNESS (device)
DECLARE_HARNESS (trace)
DECLARE_HARNESS (perf_table)
DECLARE_HARNESS (att_params)
DECLARE_HARNESS (tri_cache)
DECLARE_HARNESS (model_config)
DECLARE_HARNESS (requests)

#define LLVMFuzzerInitialize replay_csv_init
#define LLVMFuzzerTestOneInput replay_csv_one
#include "fuzz_csv.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerInitialize replay_yaml_mapping_init
#define LLVMFuzzerTestOneInput replay_yaml_mapping_one
#include "fuzz_yaml_mapping.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerInitialize replay_policy_init
#define LLVMFuzzerTestOneInput replay_policy_one
#include "fuzz_policy.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerInitialize replay_device_init
#define LLVMFuzzerTestOneInput replay_device_one
#include "fuzz_device.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerInitialize replay_trace_init
#define LLVMFuzzerTestOneInput replay_trace_one
#include "fuzz_trace.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerInitialize replay_perf_table_init
#define LLVMFuzzerTestOneInput replay_perf_table_one
#include "fuzz_perf_table.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerInitialize replay_att_params_init
#define LLVMFuzzerTestOneInput replay_att_params_one
#include "fuzz_att_params.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerInitialize replay_tri_cache_init
#define LLVMFuzzerTestOneInput replay_tri_cache_one
#include "fuzz_tri_cache.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerInitialize replay_model_config_init
#define LLVMFuzzerTestOneInput replay_model_config_one
#include "fuzz_model_config.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerInitialize replay_requests_init
#define LLVMFuzzerTestOneInput replay_requests_one
#include "fuzz_requests.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput

typedef struct {
  const char *name;
  int (*one) (const uint8_t *data, size_t size);
} harness;

static const harness harnesses[] = {
  { "csv", replay_csv_one },           { "yaml_mapping", replay_yaml_mapping_one },
  { "policy", replay_policy_one },     { "device", replay_device_one },
  { "trace", replay_trace_one },       { "perf_table", replay_perf_table_one },
  { "att_params", replay_att_params_one }, { "tri_cache", replay_tri_cache_one },
  { "model_config", replay_model_config_one },
  { "requests", replay_requests_one },
};

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* Runs every regular file of dir (sorted, for a stable TAP plan) through h. */
static void
replay_dir (const harness *h, const char *dir, GPtrArray *lines, guint *n)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *entry;

  while (d != NULL && (entry = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (entry));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);
      g_autofree char *data = NULL;
      gsize len;

      if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
        continue;
      if (!g_file_get_contents (path, &data, &len, NULL))
        {
          g_ptr_array_add (lines, g_strdup_printf ("not ok %u - %s: %s unreadable", ++*n,
                                                   h->name, path));
          continue;
        }
      h->one ((const uint8_t *) data, len);
      g_ptr_array_add (lines, g_strdup_printf ("ok %u - %s survives %s", ++*n, h->name,
                                               path));
    }
}

int
main (int argc, char **argv)
{
  const char *top = g_getenv ("MSPERF_TOP_SRCDIR");
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  gboolean failed = FALSE;
  guint n = 0;

  replay_csv_init (&argc, &argv);
  if (top == NULL)
    top = MSPERF_SRCDIR;
  for (size_t k = 0; k < G_N_ELEMENTS (harnesses); k++)
    {
      const char *kinds[] = { "corpus", "regressions" };

      for (size_t j = 0; j < G_N_ELEMENTS (kinds); j++)
        {
          g_autofree char *dir = g_build_filename (top, "tests", "fuzz", kinds[j],
                                                   harnesses[k].name, NULL);
          if (argc > 1)
            break;
          replay_dir (&harnesses[k], dir, lines, &n);
        }
      for (int a = 1; a < argc; a++)
        if (g_str_has_suffix (argv[a], harnesses[k].name))
          replay_dir (&harnesses[k], argv[a], lines, &n);
    }
  printf ("1..%u\n", n);
  for (guint i = 0; i < lines->len; i++)
    {
      const char *line = g_ptr_array_index (lines, i);
      failed |= g_str_has_prefix (line, "not ok");
      printf ("%s\n", line);
    }
  return failed ? 1 : 0;
}
