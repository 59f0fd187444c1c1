/* msperf tests — the shared trace-line corpus (trace_corpus.h). */
#include <config.h>
#include <string.h>
#include "trace_corpus.h"

const char *
tc_data_dir (void)
{
  const char *dir = g_getenv ("MSPERF_TEST_DATADIR");

  return dir ? dir : MSPERF_SRCDIR "/tests/data";
}

void
tc_find_jsonl (const char *dir, GPtrArray *out)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          tc_find_jsonl (path, out);
          g_free (path);
        }
      else if (g_str_has_suffix (name, ".jsonl"))
        g_ptr_array_add (out, path);
      else
        g_free (path);
    }
}

gboolean
tc_is_gemm_line (const char *line)
{
  return g_str_has_prefix (line, "{\"op\": \"aten.mm.default\"")
         || g_str_has_prefix (line, "{\"op\": \"aten.addmm.default\"")
         || g_str_has_prefix (line, "{\"op\": \"aten.bmm.default\"");
}

gboolean
tc_outside_subset (const char *line)
{
  for (const char *p = line; *p; p++)
    if ((g_ascii_isdigit (p[0]) && (p[1] == '.' || p[1] == 'e' || p[1] == 'E')) || *p == '\\'
        || (guchar) *p >= 0x80)
      return TRUE;
  return FALSE;
}
