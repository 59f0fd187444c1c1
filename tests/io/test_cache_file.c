/* Tests of core/io/cache_file.c, the layout both on-disk caches share: a built file has its
 * sections at 8-byte-aligned, zero-padded offsets and its size and checksum in the prefix; the
 * prefix checks name the first failing one (size, magic, version, architecture, length, key,
 * checksum); section lookup finds entries and refuses one past the end of the file. */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <msperf/error.h>
#include "io/cache_file.h"

/* A kind with a word of its own after the prefix (the word size, as the triangulations). */
typedef struct {
  msperf_cache_file_prefix p;
  guint32 word_size;
  guint32 nsections;
} test_header;

static const msperf_cache_file_kind kind = {
  .magic = "MSPTEST", .format = 3, .header_size = sizeof (test_header), .name = "test",
  .key_owner = "test set", .word_size_at = G_STRUCT_OFFSET (test_header, word_size)
};

static const guint8 key[32] = { 1, 2, 3 };

static GByteArray *
build (void)
{
  static const char text[] = "abc";      /* 4 bytes: padded to 8 */
  static const double nums[2] = { 1.5, -2.0 };
  msperf_cache_out_section sec[2];
  size_t nsec = 0;
  test_header h = { .p = { .magic = "MSPTEST", .format = 3,
                           .endian = MSPERF_CACHE_FILE_ENDIAN },
                    .word_size = sizeof (size_t), .nsections = 2 };

  memcpy (h.p.key, key, 32);
  nsec = msperf_cache_file_add_section (sec, nsec, 7, 1, sizeof text, text);
  nsec = msperf_cache_file_add_section (sec, nsec, 9, sizeof (double), 2, nums);
  return msperf_cache_file_build (&h, sizeof h, sec, nsec);
}

static void
assert_refused (const guint8 *data, size_t size, const char *fragment)
{
  g_autoptr (GError) error = NULL;

  assert_false (msperf_cache_file_check_prefix (data, size, &kind, key, &error));
  assert_non_null (error);
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE));
  if (strstr (error->message, fragment) == NULL)
    fail_msg ("'%s' not in '%s'", fragment, error->message);
}

static void
test_build_lays_out_and_seals (void **state)
{
  g_autoptr (GByteArray) b = build ();
  msperf_cache_file_prefix p;
  msperf_cache_section s[2];
  size_t at = sizeof (test_header) + 2 * sizeof (msperf_cache_section);
  g_autoptr (GError) error = NULL;

  (void) state;
  assert_int_equal (b->len, at + 8 + 16);
  memcpy (&p, b->data, sizeof p);
  assert_int_equal (p.file_size, b->len);
  assert_true (p.checksum == msperf_cache_file_checksum (b->data, b->len,
                                                         G_STRUCT_OFFSET (msperf_cache_file_prefix,
                                                                          checksum)));
  memcpy (s, b->data + sizeof (test_header), sizeof s);
  assert_int_equal (s[0].offset, at);
  assert_int_equal (s[1].offset, at + 8);
  assert_memory_equal (b->data + at, "abc\0\0\0\0\0", 8);
  assert_true (msperf_cache_file_check_prefix (b->data, b->len, &kind, key, &error));
  assert_null (error);
}

static void
test_prefix_checks_in_order (void **state)
{
  g_autoptr (GByteArray) b = build ();
  g_autofree guint8 *d = NULL;
  const guint8 other_key[32] = { 9 };
  g_autoptr (GError) error = NULL;
  guint32 v;

  (void) state;
  assert_refused (b->data, sizeof (test_header) - 1,
                  "truncated: 79 bytes, shorter than the header");
  d = g_memdup2 (b->data, b->len);
  d[0] = 'X';
  assert_refused (d, b->len, "not a msperf test cache file (bad magic)");
  memcpy (d, b->data, b->len);
  v = 4;
  memcpy (d + G_STRUCT_OFFSET (msperf_cache_file_prefix, format), &v, 4);
  assert_refused (d, b->len, "format version 4, this msperf reads 3");
  memcpy (d, b->data, b->len);
  v = 0x04030201u;
  memcpy (d + G_STRUCT_OFFSET (msperf_cache_file_prefix, endian), &v, 4);
  assert_refused (d, b->len, "written on another architecture");
  memcpy (d, b->data, b->len);
  v = 2;
  memcpy (d + G_STRUCT_OFFSET (test_header, word_size), &v, 4);
  assert_refused (d, b->len, "written on another architecture");
  assert_refused (b->data, b->len - 8, "truncated or extended");
  assert_false (msperf_cache_file_check_prefix (b->data, b->len, &kind, other_key, &error));
  assert_non_null (strstr (error->message, "foreign file: its key is not this test set's"));
  memcpy (d, b->data, b->len);
  d[b->len - 1] ^= 1;
  assert_refused (d, b->len, "checksum mismatch (corrupt file)");
  msperf_cache_file_seal (d, b->len, sizeof (test_header));
  assert_true (msperf_cache_file_check_prefix (d, b->len, &kind, key, NULL));
}

static void
test_sections_found_and_bounded (void **state)
{
  g_autoptr (GByteArray) b = build ();
  msperf_cache_reader r = { .data = b->data, .size = b->len, .nsections = 2 };
  msperf_cache_section s;
  g_autoptr (GError) error = NULL;
  const double *nums;

  (void) state;
  assert_true (msperf_cache_file_sections_fit (b->len, sizeof (test_header), 2, 16));
  assert_false (msperf_cache_file_sections_fit (b->len, sizeof (test_header), 17, 16));
  assert_false (msperf_cache_file_sections_fit (sizeof (test_header) + 47,
                                                sizeof (test_header), 2, 16));
  r.table = (const msperf_cache_section *) (const void *) (b->data + sizeof (test_header));
  assert_false (msperf_cache_file_find (&r, 8, &s));
  assert_true (msperf_cache_file_find (&r, 9, &s));
  assert_int_equal (s.count, 2);
  nums = msperf_cache_file_section_data (&r, &s, &error);
  assert_non_null (nums);
  assert_true (nums[0] == 1.5 && nums[1] == -2.0);
  s.count = 3;
  assert_null (msperf_cache_file_section_data (&r, &s, &error));
  assert_non_null (strstr (error->message, "section 9 (offset "));
  assert_non_null (strstr (error->message, ") runs past the end of the file"));
  g_clear_error (&error);
  s.count = 2;
  s.offset += 4;
  assert_null (msperf_cache_file_section_data (&r, &s, &error));
}

static void
test_map_and_write (void **state)
{
  g_autoptr (GByteArray) b = build ();
  g_autofree char *dir = g_dir_make_tmp ("msperf-cache-file-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "f.test", NULL);
  g_autoptr (GMappedFile) map = NULL;
  g_autoptr (GError) error = NULL;
  const guint8 *data = NULL;
  size_t size = 0;

  (void) state;
  assert_non_null (dir);
  assert_true (msperf_cache_file_write (path, b->data, b->len, &error));
  map = msperf_cache_file_map (path, &data, &size, &error);
  assert_non_null (map);
  assert_int_equal (size, b->len);
  assert_memory_equal (data, b->data, size);
  g_unlink (path);
  g_rmdir (dir);
  g_clear_pointer (&map, g_mapped_file_unref);
  assert_null (msperf_cache_file_map (path, &data, &size, &error));
  assert_true (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_build_lays_out_and_seals),
    cmocka_unit_test (test_prefix_checks_in_order),
    cmocka_unit_test (test_sections_found_and_bounded),
    cmocka_unit_test (test_map_and_write),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
