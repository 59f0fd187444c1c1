/* msperf fuzzing — op_mapping.yaml: the YAML loader itself (msperf_yaml_load_data) and the
 * database open over it (msperf_database_open reads a directory, so the input is written as
 * <scratch>/op_mapping.yaml; no CSV exists there, which exercises the csv_not_found path). */
#include <config.h>
#include <msperf/database.h>
#include "io/yaml_doc.h"
#include "engine/policy.h"
#include "fuzz_common.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  fuzz_init_logging ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_value) doc = NULL;
  g_autoptr (msperf_database) db = NULL;
  g_autofree char *path = NULL;

  doc = msperf_yaml_load_data ((const char *) data, size, "fuzz.yaml", &error);
  if (doc == NULL)
    {
      if (error == NULL)
        abort ();
      return 0;
    }
  else
    {
      g_autofree char *json = msperf_value_canonical_json (doc);
      (void) json;
    }
  g_clear_error (&error);

  path = fuzz_write_file ("op_mapping.yaml", data, size);
  db = msperf_database_open (fuzz_scratch (), NULL, &error);
  if (db == NULL)
    {
      if (error == NULL)
        abort ();
      return 0;
    }
  {
    const GPtrArray *entries = msperf_database_entries (db);
    g_autoptr (msperf_policy) p = msperf_policy_new_defaults ();
    g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);

    for (guint k = 0; k < entries->len; k++)
      {
        const msperf_mapping_entry *e = g_ptr_array_index (entries, k);
        g_autoptr (GError) terr = NULL;

        if (msperf_database_entry (db, e->op_name) == NULL)
          abort ();
        for (char **kt = e->kernel_types; kt != NULL && *kt != NULL; kt++)
          {
            (void) msperf_database_table (db, *kt, &terr);
            g_clear_error (&terr);
            (void) msperf_database_kernel_option (db, "latency_policy", *kt, "x");
          }
      }
    (void) msperf_database_device (db);
    (void) msperf_policy_merge_database (p, db, warnings, NULL);
  }
  return 0;
}
