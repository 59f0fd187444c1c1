/* msperf (internal) — writing outputs safely: every write checked, regular files replaced
 * atomically, special files (a FIFO, /dev/stdout, /dev/full) written in place. */
#ifndef MSPERF_CORE_OUTPUT_H
#define MSPERF_CORE_OUTPUT_H

#include <stdio.h>
#include <glib.h>

typedef struct msperf_outfile msperf_outfile;

/* Opens path for writing. A regular file (or a new name) is written to a temporary file in the
 * same directory and renamed over path on close; a non-regular file is written in place; a
 * symlink is followed only to a target in the same directory. Errors: MSPERF_ERROR_IO naming
 * path. Transfer full. */
msperf_outfile *msperf_outfile_open (const char *path, GError **error);
/* The stream to write to. Transfer none. */
FILE *msperf_outfile_stream (msperf_outfile *of);
/* Flushes and closes, then renames into place; on any failure (including an earlier write
 * error on the stream) the temporary file is removed and error says "<path>: <strerror>".
 * Frees of in every case. */
gboolean msperf_outfile_close (msperf_outfile *of, GError **error);
/* Drops a partial output (the temporary file is removed). */
void msperf_outfile_abort (msperf_outfile *of);

/* The standard output of one command run: a stream over descriptor 1 that remembers why its
 * first write failed (stdio keeps only a flag). Everything the command prints goes to its
 * stream; stdio's stdout is left as it is. Transfer full. */
typedef struct msperf_stdout msperf_stdout;
msperf_stdout *msperf_stdout_open (void);
/* The stream to write to (stdout itself when no checked stream could be made). Transfer
 * none. */
FILE *msperf_stdout_stream (msperf_stdout *o);
/* Flushes the stream and reports a failed write ("stdout: <strerror>"); EPIPE counts as failed
 * too (SIGPIPE, when not ignored, has ended the process quietly before this). */
gboolean msperf_stdout_ok (msperf_stdout *o, GError **error);
/* Closes the stream (descriptor 1 stays open). */
void msperf_stdout_free (msperf_stdout *o);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_stdout, msperf_stdout_free)

#endif
