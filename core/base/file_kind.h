/* msperf (internal) — the kind of a file that is not a regular one, for messages. Inline, so
 * that the library's readers and the app layer's trace reader (which links the public API
 * only) word their refusals alike. Includers need the POSIX file types of <sys/stat.h>
 * (_POSIX_C_SOURCE 200809L under -std=c11). */
#ifndef MSPERF_CORE_FILE_KIND_H
#define MSPERF_CORE_FILE_KIND_H

#include <sys/stat.h>

/* "a directory", "a FIFO", "a character device", "a block device", "a socket", else
 * "not a regular file". */
static inline const char *
msperf_file_kind_name (unsigned int st_mode)
{
  if (S_ISDIR (st_mode))
    return "a directory";
  if (S_ISFIFO (st_mode))
    return "a FIFO";
  if (S_ISCHR (st_mode))
    return "a character device";
  if (S_ISBLK (st_mode))
    return "a block device";
  if (S_ISSOCK (st_mode))
    return "a socket";
  return "not a regular file";
}

#endif
