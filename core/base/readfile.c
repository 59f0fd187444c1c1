/* msperf — reading whole input files: regular files only. */
#define _POSIX_C_SOURCE 200809L  /* O_CLOEXEC, O_NOCTTY, fstat: POSIX, hidden by -std=c11 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/readfile.h"
#include "base/file_kind.h"

static gboolean
fail (GError **error, int err)
{
  g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (err), g_strerror (err));
  return FALSE;
}

gboolean
msperf_file_get_regular_contents (const char *path, char **contents, gsize *len, GError **error)
{
  struct stat st;
  GString *buf;
  char chunk[65536];
  int fd;

  g_return_val_if_fail (path != NULL && contents != NULL, FALSE);
  /* O_NONBLOCK: opening a FIFO with no writer must not block before the check below. */
  fd = open (path, O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return fail (error, errno);
  if (fstat (fd, &st) != 0)
    {
      int err = errno;
      close (fd);
      return fail (error, err);
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "not a regular file (%s)",
                   msperf_file_kind_name (st.st_mode));
      close (fd);
      return FALSE;
    }
  buf = g_string_sized_new (st.st_size > 0 ? (gsize) st.st_size + 1 : 4096);
  for (;;)
    {
      ssize_t n = read (fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int err = errno;
          close (fd);
          g_string_free (buf, TRUE);
          return fail (error, err);
        }
      if (n == 0)
        break;
      g_string_append_len (buf, chunk, n);
    }
  close (fd);
  if (len)
    *len = buf->len;
  *contents = g_string_free (buf, FALSE);
  return TRUE;
}
