/* msperf fuzzing — helpers shared by the libFuzzer harnesses (header-only: each harness is one
 * translation unit linked with the library sources).
 *
 * Criticals (g_return_if_fail: a caller bug) and errors abort so that libFuzzer reports them;
 * other log messages are dropped: bad input is expected to warn. */
#ifndef MSPERF_FUZZ_COMMON_H
#define MSPERF_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gstdio.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

G_GNUC_UNUSED static GLogWriterOutput
fuzz_log_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields,
                 gpointer user_data)
{
  (void) user_data;
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR))
    {
      for (gsize k = 0; k < n_fields; k++)
        if (strcmp (fields[k].key, "MESSAGE") == 0)
          fprintf (stderr, "fuzz: fatal log: %s\n", (const char *) fields[k].value);
      abort ();
    }
  return G_LOG_WRITER_HANDLED;
}

G_GNUC_UNUSED static void
fuzz_init_logging (void)
{
  g_log_set_writer_func (fuzz_log_writer, NULL, NULL);
}

/* A scratch directory for the loaders that only take paths, made once per process (removed at
 * exit; libFuzzer -jobs runs separate processes, each with its own). */
static char *fuzz_scratch_dir; /* per process: the harness owns the process */

G_GNUC_UNUSED static void
fuzz_remove_scratch (void)
{
  g_autoptr (GDir) dir = NULL;
  const char *name;

  if (fuzz_scratch_dir == NULL)
    return;
  dir = g_dir_open (fuzz_scratch_dir, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *p = g_build_filename (fuzz_scratch_dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (fuzz_scratch_dir);
}

G_GNUC_UNUSED static const char *
fuzz_scratch (void)
{
  if (fuzz_scratch_dir == NULL)
    {
      fuzz_scratch_dir = g_dir_make_tmp ("msperf-fuzz-XXXXXX", NULL);
      if (fuzz_scratch_dir == NULL)
        abort ();
      atexit (fuzz_remove_scratch);
    }
  return fuzz_scratch_dir;
}

/* Writes data to <scratch>/<name> and returns the path (transfer full). */
G_GNUC_UNUSED static char *
fuzz_write_file (const char *name, const uint8_t *data, size_t size)
{
  char *path = g_build_filename (fuzz_scratch (), name, NULL);

  if (!g_file_set_contents (path, (const char *) data, (gssize) size, NULL))
    abort ();
  return path;
}

/* A NUL-terminated copy for the loaders that take C strings. */
G_GNUC_UNUSED static char *
fuzz_strndup (const uint8_t *data, size_t size)
{
  char *s = g_malloc (size + 1);

  memcpy (s, data, size);
  s[size] = '\0';
  return s;
}

#endif
