/* msperf (internal) — YAML files (policies, device profiles, op_mapping.yaml) as value trees.
 *
 * Scalars are resolved by msperf, not libyaml (which tags everything !!str): a plain
 * null/~/empty is NONE, plain true/false BOOL, a plain decimal integer that fits int64 INT,
 * a plain number (g_ascii_strtod over the whole text, or .inf/.nan) FLOAT, everything else
 * and every quoted scalar STRING. Mappings keep file order; every node carries its 1-based
 * line. Rejected: syntax errors, duplicate keys, non-scalar keys, merge keys, nesting deeper
 * than MSPERF_YAML_MAX_DEPTH, alias expansion beyond MSPERF_YAML_MAX_NODES, non-UTF-8 text,
 * more than one document. Errors are MSPERF_ERROR_PARSE "FILE:LINE: problem". */
#ifndef MSPERF_CORE_YAML_DOC_H
#define MSPERF_CORE_YAML_DOC_H

#include <stddef.h>
#include <stdint.h>
#include <glib.h>
#include <msperf/op.h>

G_BEGIN_DECLS

#define MSPERF_YAML_MAX_DEPTH 64
#define MSPERF_YAML_MAX_NODES 1000000
/* The longest string a configuration field (policy, device profile) takes: a path fits
 * (PATH_MAX); a longer one is a runaway value, refused at its line rather than carried on. */
#define MSPERF_YAML_MAX_STRING 4096

/* FALSE + "FILE:LINE: key 'KEY': a string of N bytes is too long (at most
 * MSPERF_YAML_MAX_STRING)" when v is a longer STRING; TRUE for anything else. */
gboolean msperf_yaml_check_length (const msperf_value *v, const char *file, const char *key,
                                   GError **error);

/* Loads a file. An empty document gives a NONE value. Transfer full. */
msperf_value *msperf_yaml_load_file (const char *path, GError **error);
/* Same from memory; name stands for the file in messages. */
msperf_value *msperf_yaml_load_data (const char *data, size_t len, const char *name,
                                     GError **error);
/* Resolves one plain scalar text as the loader does (NONE/BOOL/INT/FLOAT/STRING). */
msperf_value *msperf_yaml_resolve_plain (const char *text);

/* How a value looks in an error message: the scalar in quotes, "a list", "a mapping", "null".
 * Transfer full. */
char *msperf_yaml_describe (const msperf_value *v);

/* Sets a GError "FILE:LINE: message" (just "FILE: message" when line is 0). */
void msperf_yaml_set_error (GError **error, int code, const char *file, guint line,
                            const char *format, ...) G_GNUC_PRINTF (5, 6);
/* The same message as a newly allocated string. */
char *msperf_yaml_format_message (const char *file, guint line, const char *format, ...)
  G_GNUC_PRINTF (3, 4);

/* Strict conversions of one value; on a wrong type: MSPERF_ERROR_INVALID
 * "FILE:LINE: key 'KEY': expected an integer, got 'abc'". */
gboolean msperf_yaml_value_int (const msperf_value *v, const char *file, const char *key,
                                int64_t *out, GError **error);
gboolean msperf_yaml_value_double (const msperf_value *v, const char *file, const char *key,
                                   double *out, GError **error);
gboolean msperf_yaml_value_bool (const msperf_value *v, const char *file, const char *key,
                                 gboolean *out, GError **error);
/* STRING only, at most MSPERF_YAML_MAX_STRING bytes (transfer none into v). */
gboolean msperf_yaml_value_string (const msperf_value *v, const char *file, const char *key,
                                   const char **out, GError **error);

/* The same for map[key]: an absent key leaves *out unchanged and returns TRUE. */
gboolean msperf_yaml_get_int (const msperf_value *map, const char *key, const char *file,
                              int64_t *out, GError **error);
gboolean msperf_yaml_get_double (const msperf_value *map, const char *key, const char *file,
                                 double *out, GError **error);
gboolean msperf_yaml_get_bool (const msperf_value *map, const char *key, const char *file,
                               gboolean *out, GError **error);
gboolean msperf_yaml_get_string (const msperf_value *map, const char *key, const char *file,
                                 const char **out, GError **error);

G_END_DECLS

#endif /* MSPERF_CORE_YAML_DOC_H */
