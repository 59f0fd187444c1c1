/* msperf (app) — `msperf holdout --compare / --variant` (FORMATS §5): named policy variants,
 * one holdout per variant, and the comparison: one table per kernel, a row per method, a
 * column group per variant, so a user can choose settings from their own data. */
#ifndef MSPERF_APP_HOLDOUT_COMPARE_H
#define MSPERF_APP_HOLDOUT_COMPARE_H

#include <msperf/holdout.h>

G_BEGIN_DECLS

/* A named set of policy overrides (dotted key, YAML text), as msperf_engine_set_override
 * takes them. */
typedef struct msperf_holdout_variant {
  char *name;
  GPtrArray *keys;              /* char* */
  GPtrArray *values;            /* char* */
} msperf_holdout_variant;

void msperf_holdout_variant_free (msperf_holdout_variant *v);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_holdout_variant, msperf_holdout_variant_free)

/* --compare A,B,…: shorthand names, appended to out (msperf_holdout_variant*). default (no
 * override), linear / log (interpolation.space), dimN (interpolation.max_interpolation_dim=N),
 * median / mean (interpolation.aggregate). MSPERF_ERROR_INVALID for another name. */
gboolean msperf_holdout_variants_from_compare (const char *list, GPtrArray *out,
                                               GError **error);
/* --variant NAME:key=value[,key=value…]: a key without '.' is under interpolation.; commas
 * inside [] or {} belong to the value. Transfer full; NULL and MSPERF_ERROR_INVALID on a bad
 * spec. */
msperf_holdout_variant *msperf_holdout_variant_parse (const char *spec, GError **error);
/* "key=value, key=value", or "built-in policy" when empty. Transfer full. */
char *msperf_holdout_variant_describe (const msperf_holdout_variant *v);

/* The comparison of reports[k] computed under variants[k] (same length, ≥ 1). Transfer full. */
char *msperf_holdout_compare_text (const GPtrArray *variants, const GPtrArray *reports);
/* The same as Markdown, JSON ({schema_version, comparison: true, variants: [report value +
 * variant, overrides]}) or HTML by the extension of path. */
gboolean msperf_holdout_compare_write (const GPtrArray *variants, const GPtrArray *reports,
                                       const char *path, GError **error);

G_END_DECLS

#endif /* MSPERF_APP_HOLDOUT_COMPARE_H */
