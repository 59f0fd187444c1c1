/* msperf — what the on-disk caches share (see cache_file.h). */
#define _XOPEN_SOURCE 700   /* mkstemp */
#include <config.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "io/cache_file.h"

char *
msperf_cache_file_hex (const guint8 key[32])
{
  char *s = g_malloc (65);

  for (int i = 0; i < 32; i++)
    g_snprintf (s + 2 * i, 3, "%02x", key[i]);
  return s;
}

gboolean
msperf_cache_file_key_of_hex (const char *hex, guint8 out[32])
{
  if (hex == NULL || strlen (hex) != 64)
    return FALSE;
  for (int i = 0; i < 32; i++)
    {
      int hi = g_ascii_xdigit_value (hex[2 * i]), lo = g_ascii_xdigit_value (hex[2 * i + 1]);

      if (hi < 0 || lo < 0)
        return FALSE;
      out[i] = (guint8) (hi * 16 + lo);
    }
  return TRUE;
}

static guint64
mix_word (guint64 h, guint64 w)
{
  h = (h ^ w) * G_GUINT64_CONSTANT (0x100000001b3);
  return h ^ (h >> 29);
}

guint64
msperf_cache_file_checksum (const guint8 *data, size_t size, size_t checksum_at)
{
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  size_t k;

  g_return_val_if_fail (data != NULL || size == 0, 0);
  g_return_val_if_fail (checksum_at % 8 == 0, 0);
  for (k = 0; k + 8 <= size; k += 8)
    {
      guint64 w = 0;

      if (k != checksum_at)
        memcpy (&w, data + k, 8);
      h = mix_word (h, w);
    }
  if (k < size)
    {
      guint64 w = 0;

      memcpy (&w, data + k, size - k);
      h = mix_word (h, w);
    }
  return h ^ (guint64) size;
}

static gboolean
write_all (int fd, const guint8 *p, size_t len)
{
  while (len > 0)
    {
      ssize_t w = write (fd, p, len);

      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return FALSE;
      p += w;
      len -= (size_t) w;
    }
  return TRUE;
}

gboolean
msperf_cache_file_write (const char *path, const guint8 *data, size_t len, GError **error)
{
  g_autofree char *tmp = NULL;
  int fd, saved;
  gboolean ok;

  g_return_val_if_fail (path != NULL && (data != NULL || len == 0), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  /* Same directory, so the rename is atomic. */
  tmp = g_strconcat (path, ".XXXXXX", NULL);
  fd = g_mkstemp (tmp);
  if (fd < 0)
    {
      saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot create %s: %s", tmp, g_strerror (saved));
      return FALSE;
    }
  ok = write_all (fd, data, len);
  saved = errno;
  if (close (fd) != 0 && ok)
    {
      ok = FALSE;
      saved = errno;
    }
  if (ok && g_rename (tmp, path) != 0)
    {
      ok = FALSE;
      saved = errno;
    }
  if (!ok)
    {
      g_unlink (tmp);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot write %s: %s", path, g_strerror (saved));
    }
  return ok;
}
