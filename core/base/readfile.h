/* msperf (internal) — reading a whole input file, regular files only. */
#ifndef MSPERF_CORE_READFILE_H
#define MSPERF_CORE_READFILE_H

#include <glib.h>

/* Like g_file_get_contents (errors in G_FILE_ERROR, the message without the path), but a file
 * that is not a regular file is refused at open, without reading a byte: a FIFO in a database
 * would hang the run for ever and a character device would be read until memory runs out. */
gboolean msperf_file_get_regular_contents (const char *path, char **contents, gsize *len,
                                           GError **error);

#endif
