/* msperf (internal) — GLib structured logging to stderr, as text or JSON lines. */
#ifndef MSPERF_CORE_LOGGING_H
#define MSPERF_CORE_LOGGING_H

#include <glib.h>

typedef enum { MSPERF_LOG_TEXT = 0, MSPERF_LOG_JSON } msperf_log_format;

/* Installs the writer for the whole process (the CLI calls it once; libraries never do).
 * Debug messages are shown only when verbose. */
void msperf_logging_setup (msperf_log_format format, gboolean verbose);

#endif
