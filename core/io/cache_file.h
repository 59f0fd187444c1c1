/* msperf — what the on-disk caches (parsed tables, triangulations) share: the hex form of
 * their content keys, the payload checksum, the common header prefix and its checks, the
 * section table (writing and bounds-checked lookup), the read-only mapping and the atomic
 * write. Each cache keeps its own header fields and sections (doc/formats.md §8, §9).
 * Internal to libmsperf. */
#ifndef MSPERF_IO_CACHE_FILE_H
#define MSPERF_IO_CACHE_FILE_H

#include <stddef.h>
#include <glib.h>

G_BEGIN_DECLS

/* The 64 lower-case hex digits of a 32-byte key, newly allocated. */
char *msperf_cache_file_hex (const guint8 key[32]);

/* The key of 64 hex digits; FALSE when hex is not that. */
gboolean msperf_cache_file_key_of_hex (const char *hex, guint8 out[32]);

/* Not cryptographic (the key is): catches corruption at memory speed. FNV-style mix over
 * 8-byte words, the tail zero-padded, the 8-byte checksum field at checksum_at (a multiple
 * of 8) counted as zero, the size mixed in last. */
guint64 msperf_cache_file_checksum (const guint8 *data, size_t size, size_t checksum_at);

/* Writes data to path through a temporary file in the same directory and a rename, so a
 * reader never sees a partial file; nothing is left behind on failure. */
gboolean msperf_cache_file_write (const char *path, const guint8 *data, size_t len,
                                  GError **error);

/* ------------------------------------------------------------------ the file layout */

/* Every cache file is native-endian and starts with this prefix; the two words after the
 * endianness mark and everything after the key are the file kind's own. A kind's header
 * struct asserts that its fields sit at these offsets. */
typedef struct {
  char magic[8];              /* 7 characters and a NUL */
  guint32 format;
  guint32 endian;             /* MSPERF_CACHE_FILE_ENDIAN as written */
  guint32 own[2];
  guint64 file_size;
  guint64 checksum;           /* of the whole file with this field zero */
  guint8 key[32];             /* SHA-256, as in the file name */
} msperf_cache_file_prefix;

#define MSPERF_CACHE_FILE_ENDIAN 0x01020304u

/* Asserts at compile time that a kind's header struct type (with the fields magic, format,
 * endian, file_size, checksum and key) starts with the prefix's layout. */
#define MSPERF_CACHE_FILE_ASSERT_PREFIX(type)                                                  \
  G_STATIC_ASSERT (G_STRUCT_OFFSET (type, format)                                             \
                   == G_STRUCT_OFFSET (msperf_cache_file_prefix, format)                      \
                   && G_STRUCT_OFFSET (type, endian)                                          \
                      == G_STRUCT_OFFSET (msperf_cache_file_prefix, endian)                   \
                   && G_STRUCT_OFFSET (type, file_size)                                       \
                      == G_STRUCT_OFFSET (msperf_cache_file_prefix, file_size)                \
                   && G_STRUCT_OFFSET (type, checksum)                                        \
                      == G_STRUCT_OFFSET (msperf_cache_file_prefix, checksum)                 \
                   && G_STRUCT_OFFSET (type, key)                                             \
                      == G_STRUCT_OFFSET (msperf_cache_file_prefix, key))

/* One entry of the section table that follows the header. */
typedef struct {
  guint32 id;
  guint32 elem_size;
  guint64 count;
  guint64 offset;
} msperf_cache_section;

G_STATIC_ASSERT (sizeof (msperf_cache_file_prefix) == 72);
G_STATIC_ASSERT (sizeof (msperf_cache_section) == 24);

/* One section to write: its table entry (offset filled in by msperf_cache_file_build) and
 * its count × elem_size bytes (transfer none). */
typedef struct {
  msperf_cache_section s;
  const void *data;
} msperf_cache_out_section;

/* Sets out[k] to section id and returns k + 1. */
size_t msperf_cache_file_add_section (msperf_cache_out_section *out, size_t k, guint32 id,
                                      guint32 elem_size, size_t count, const void *data);

/* The whole file in memory (transfer full): the header_size bytes of header (its section
 * count already set), the section table, then each section at an 8-byte-aligned offset,
 * zero-padded; the prefix's file size and checksum filled in. */
GByteArray *msperf_cache_file_build (const void *header, size_t header_size,
                                     msperf_cache_out_section *sec, size_t nsec);

/* Stores the checksum of the size bytes at data in its prefix (nothing when data is shorter
 * than header_size). */
void msperf_cache_file_seal (guint8 *data, size_t size, size_t header_size);

/* ------------------------------------------------------------------ reading */

/* What a kind's header check needs to know of it. */
typedef struct {
  const char *magic;          /* 8 bytes with the NUL */
  guint32 format;             /* the version this build reads */
  size_t header_size;
  const char *name;           /* "not a msperf NAME cache file" */
  const char *key_owner;      /* "its key is not this KEY_OWNER's" */
  size_t word_size_at;        /* offset of a guint32 holding sizeof (size_t); 0: none */
} msperf_cache_file_kind;

/* Maps file read-only (PROT_READ, MAP_PRIVATE); *data and *size its bytes (NULL and 0 when
 * empty). Transfer full; NULL with error when it cannot be opened. */
GMappedFile *msperf_cache_file_map (const char *file, const guint8 **data, size_t *size,
                                    GError **error);

/* Checks, in order: size ≥ the header, magic, format version, architecture (byte order and
 * the word size when the kind stores it), the prefix's size equal to size, the key, the
 * checksum. FALSE with an MSPERF_ERROR_PARSE error naming the check. */
gboolean msperf_cache_file_check_prefix (const guint8 *data, size_t size,
                                         const msperf_cache_file_kind *kind,
                                         const guint8 key[32], GError **error);

/* Whether a table of nsections entries (at most max) fits after the header. */
gboolean msperf_cache_file_sections_fit (size_t size, size_t header_size, guint32 nsections,
                                         guint32 max);

/* A checked file: its bytes and section table. */
typedef struct {
  const guint8 *data;
  size_t size;
  guint32 nsections;
  const msperf_cache_section *table;
} msperf_cache_reader;

/* The table entry of section id, copied to *out; FALSE when there is none. */
gboolean msperf_cache_file_find (const msperf_cache_reader *r, guint32 id,
                                 msperf_cache_section *out);

/* The bytes of section s (a pointer to its offset when empty); NULL with an
 * MSPERF_ERROR_PARSE error when the section is misaligned or runs past the end of the file.
 * The caller has checked s's element size (not 0). */
const void *msperf_cache_file_section_data (const msperf_cache_reader *r,
                                            const msperf_cache_section *s, GError **error);

/* Sets an MSPERF_ERROR_PARSE error from format; returns FALSE. */
gboolean msperf_cache_file_bad (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

G_END_DECLS

#endif
