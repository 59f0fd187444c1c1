/* msperf — what the on-disk caches share (see cache_file.h). */
#define _XOPEN_SOURCE 700   /* mkstemp */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include <msperf/error.h>
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

/* ------------------------------------------------------------------ the file layout */

size_t
msperf_cache_file_add_section (msperf_cache_out_section *out, size_t k, guint32 id,
                               guint32 elem_size, size_t count, const void *data)
{
  out[k] = (msperf_cache_out_section){ .s = { .id = id, .elem_size = elem_size,
                                              .count = count },
                                       .data = data };
  return k + 1;
}

GByteArray *
msperf_cache_file_build (const void *header, size_t header_size, msperf_cache_out_section *sec,
                         size_t nsec)
{
  const guint8 pad[8] = { 0 };
  guint64 file_size;
  size_t at;
  GByteArray *b;

  g_return_val_if_fail (header != NULL && header_size >= sizeof (msperf_cache_file_prefix),
                        NULL);
  g_return_val_if_fail (sec != NULL || nsec == 0, NULL);
  at = header_size + nsec * sizeof (msperf_cache_section);
  for (size_t k = 0; k < nsec; k++)
    {
      sec[k].s.offset = at;
      at += (sec[k].s.count * sec[k].s.elem_size + 7) / 8 * 8;
    }
  file_size = at;
  b = g_byte_array_sized_new ((guint) at);
  g_byte_array_append (b, header, (guint) header_size);
  memcpy (b->data + G_STRUCT_OFFSET (msperf_cache_file_prefix, file_size), &file_size,
          sizeof file_size);
  for (size_t k = 0; k < nsec; k++)
    g_byte_array_append (b, (const guint8 *) &sec[k].s, sizeof sec[k].s);
  for (size_t k = 0; k < nsec; k++)
    {
      size_t len = sec[k].s.count * sec[k].s.elem_size;

      if (len > 0)
        g_byte_array_append (b, sec[k].data, (guint) len);
      g_byte_array_append (b, pad, (guint) ((8 - len % 8) % 8));
    }
  msperf_cache_file_seal (b->data, b->len, header_size);
  return b;
}

void
msperf_cache_file_seal (guint8 *data, size_t size, size_t header_size)
{
  const size_t at = G_STRUCT_OFFSET (msperf_cache_file_prefix, checksum);
  guint64 sum;

  g_return_if_fail (data != NULL || size == 0);
  if (size < header_size || size < sizeof (msperf_cache_file_prefix))
    return;
  sum = msperf_cache_file_checksum (data, size, at);
  memcpy (data + at, &sum, sizeof sum);
}

/* ------------------------------------------------------------------ reading */

gboolean
msperf_cache_file_bad (GError **error, const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  g_propagate_error (error, g_error_new_valist (MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                                                format, ap));
  va_end (ap);
  return FALSE;
}

GMappedFile *
msperf_cache_file_map (const char *file, const guint8 **data, size_t *size, GError **error)
{
  GMappedFile *map;

  g_return_val_if_fail (file != NULL && data != NULL && size != NULL, NULL);
  map = g_mapped_file_new (file, FALSE, error);
  if (map == NULL)
    return NULL;
  *data = (const guint8 *) g_mapped_file_get_contents (map);
  *size = *data ? g_mapped_file_get_length (map) : 0;
  return map;
}

gboolean
msperf_cache_file_check_prefix (const guint8 *data, size_t size,
                                const msperf_cache_file_kind *kind, const guint8 key[32],
                                GError **error)
{
  msperf_cache_file_prefix p;

  g_return_val_if_fail (kind != NULL && key != NULL, FALSE);
  g_return_val_if_fail (kind->header_size >= sizeof p, FALSE);
  g_return_val_if_fail (kind->word_size_at == 0 || kind->word_size_at + 4 <= kind->header_size,
                        FALSE);
  if (size < kind->header_size)
    return msperf_cache_file_bad (error, "truncated: %zu bytes, shorter than the header", size);
  memcpy (&p, data, sizeof p);
  if (memcmp (p.magic, kind->magic, sizeof p.magic) != 0)
    return msperf_cache_file_bad (error, "not a msperf %s cache file (bad magic)", kind->name);
  if (p.format != kind->format)
    return msperf_cache_file_bad (error, "format version %u, this msperf reads %u", p.format,
                                  kind->format);
  if (p.endian != MSPERF_CACHE_FILE_ENDIAN)
    return msperf_cache_file_bad (error, "written on another architecture");
  if (kind->word_size_at != 0)
    {
      guint32 word_size;

      memcpy (&word_size, data + kind->word_size_at, sizeof word_size);
      if (word_size != sizeof (size_t))
        return msperf_cache_file_bad (error, "written on another architecture");
    }
  if (p.file_size != size)
    return msperf_cache_file_bad (error, "truncated or extended: %zu bytes, the header says %"
                                  G_GUINT64_FORMAT, size, p.file_size);
  if (memcmp (p.key, key, sizeof p.key) != 0)
    return msperf_cache_file_bad (error, "foreign file: its key is not this %s's",
                                  kind->key_owner);
  if (p.checksum != msperf_cache_file_checksum (data, size,
                                                G_STRUCT_OFFSET (msperf_cache_file_prefix,
                                                                 checksum)))
    return msperf_cache_file_bad (error, "checksum mismatch (corrupt file)");
  return TRUE;
}

gboolean
msperf_cache_file_sections_fit (size_t size, size_t header_size, guint32 nsections, guint32 max)
{
  return size >= header_size && nsections <= max
         && nsections * sizeof (msperf_cache_section) <= size - header_size;
}

gboolean
msperf_cache_file_find (const msperf_cache_reader *r, guint32 id, msperf_cache_section *out)
{
  g_return_val_if_fail (r != NULL && out != NULL, FALSE);
  for (guint32 k = 0; k < r->nsections; k++)
    {
      memcpy (out, r->table + k, sizeof *out);
      if (out->id == id)
        return TRUE;
    }
  return FALSE;
}

const void *
msperf_cache_file_section_data (const msperf_cache_reader *r, const msperf_cache_section *s,
                                GError **error)
{
  g_return_val_if_fail (r != NULL && s != NULL && s->elem_size > 0, NULL);
  if (s->offset % 8 != 0 || s->offset > r->size
      || (s->count > 0 && s->count > (r->size - s->offset) / s->elem_size))
    {
      msperf_cache_file_bad (error, "section %u (offset %" G_GUINT64_FORMAT
                             ") runs past the end of the file", s->id, s->offset);
      return NULL;
    }
  return r->data + s->offset;
}
