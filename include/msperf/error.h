/* msperf — the GError domain of libmsperf. */
#ifndef MSPERF_ERROR_H
#define MSPERF_ERROR_H

#include <msperf/api.h>
#include <glib.h>

G_BEGIN_DECLS

/* GLib would call this MSPERF_ERROR, but ARCHITECTURE.md gives that name to the status
 * value of a module slot; the domain is therefore MSPERF_ERROR_DOMAIN. */
#define MSPERF_ERROR_DOMAIN (msperf_error_quark ())
MSPERF_API GQuark msperf_error_quark (void);

typedef enum {
  MSPERF_ERROR_FAILED = 0,  /* anything not listed below */
  MSPERF_ERROR_IO,          /* cannot read a file */
  MSPERF_ERROR_PARSE,       /* malformed YAML / CSV / JSON: message is "FILE:LINE: problem" */
  MSPERF_ERROR_INVALID,     /* well-formed but wrong value (unknown key, bad number, overflow) */
  MSPERF_ERROR_NOT_FOUND,   /* an optional file is absent (e.g. a kernel CSV: csv_not_found) */
  MSPERF_ERROR_PATH,        /* a path escapes the database or is not a plain stem */
  MSPERF_ERROR_PLUGIN,      /* a module was rejected */
  MSPERF_ERROR_UNBOUND      /* expression evaluation needs a symbol that has no value */
} msperf_error_code;

G_END_DECLS

#endif /* MSPERF_ERROR_H */
