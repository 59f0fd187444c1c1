/* msperf — the process-wide log writer of the CLI (structured GLib logging). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <msperf/format.h>
#include "cli/logging.h"

/* The writer needs its settings; GLib passes them through user_data, so no global state. */
typedef struct {
  msperf_log_format format;
  gboolean verbose;
} log_settings;

static const char *
level_name (GLogLevelFlags level)
{
  if (level & G_LOG_LEVEL_ERROR)
    return "error";
  if (level & G_LOG_LEVEL_CRITICAL)
    return "critical";
  if (level & G_LOG_LEVEL_WARNING)
    return "warning";
  if (level & G_LOG_LEVEL_MESSAGE)
    return "message";
  if (level & G_LOG_LEVEL_INFO)
    return "info";
  return "debug";
}

/* The one JSON string writer (escapes, invalid UTF-8 as \xNN): a log line stays valid JSON
 * whatever bytes a path in a message holds. */
static void
json_escape (GString *s, const char *text)
{
  msperf_fmt_json_string (s, text);
}

static GLogWriterOutput
writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  const log_settings *cfg = user_data;
  const char *message = "", *domain = NULL;
  g_autoptr (GString) line = g_string_new (NULL);

  if ((level & (G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO)) && !cfg->verbose)
    return G_LOG_WRITER_HANDLED;
  for (gsize k = 0; k < n_fields; k++)
    {
      if (fields[k].length >= 0)
        continue; /* binary field: not ours */
      if (strcmp (fields[k].key, "MESSAGE") == 0)
        message = fields[k].value;
      else if (strcmp (fields[k].key, "GLIB_DOMAIN") == 0)
        domain = fields[k].value;
    }
  if (cfg->format == MSPERF_LOG_JSON)
    {
      g_string_append (line, "{\"level\":");
      json_escape (line, level_name (level));
      g_string_append (line, ",\"domain\":");
      json_escape (line, domain ? domain : "msperf");
      g_string_append (line, ",\"message\":");
      json_escape (line, message);
      g_string_append (line, "}\n");
    }
  else
    g_string_append_printf (line, "msperf: %s: %s\n", level_name (level), message);
  fputs (line->str, stderr);
  fflush (stderr);
  return G_LOG_WRITER_HANDLED;
}

void
msperf_logging_setup (msperf_log_format format, gboolean verbose)
{
  log_settings *cfg = g_new0 (log_settings, 1);

  cfg->format = format;
  cfg->verbose = verbose;
  /* The library formats its per-answer debug lines only when GLib says a debug message would
   * be written (g_log_writer_default_would_drop): -v says so. */
  g_log_set_debug_enabled (verbose);
  /* The settings live as long as the process: the writer can be set only once. */
  g_log_set_writer_func (writer, cfg, g_free);
}
