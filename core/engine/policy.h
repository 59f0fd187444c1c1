/* msperf (internal) — the effective policy: built-in defaults < database < --policy < flags.
 *
 * The policy is a value tree with the schema of FORMATS §3. Every layer is validated against
 * the schema before it is merged: mappings merge deeply, lists and scalars replace.
 * Precedence is the call order. */
#ifndef MSPERF_CORE_POLICY_H
#define MSPERF_CORE_POLICY_H

#include <glib.h>
#include <msperf/op.h>
#include <msperf/database.h>

G_BEGIN_DECLS

typedef struct msperf_policy msperf_policy;

/* The built-in defaults (written out in policies/default.yaml). Transfer full. */
msperf_policy *msperf_policy_new_defaults (void);
void msperf_policy_free (msperf_policy *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_policy, msperf_policy_free)

/* Merges a --policy file. Strict: an unknown key, a wrong type or an out-of-range value is an
 * MSPERF_ERROR_INVALID "FILE:LINE: unknown key 'x' in 'interpolation'"; syntax errors are
 * MSPERF_ERROR_PARSE. On error p is unchanged. */
gboolean msperf_policy_merge_file (msperf_policy *p, const char *path, GError **error);
/* Same from memory (tests); name stands for the file in messages. */
gboolean msperf_policy_merge_data (msperf_policy *p, const char *data, const char *name,
                                   GError **error);
/* Merges op_mapping.yaml's interpolation_policy (global keys and kernel_overrides) into
 * interpolation.*. Lenient: unknown keys and invalid values are dropped with a warning
 * ("FILE:LINE: ...", char*) appended to warnings (nullable). FALSE only when the block is not
 * a mapping. */
gboolean msperf_policy_merge_database (msperf_policy *p, const msperf_database *db,
                                       GPtrArray *warnings, GError **error);
/* One command-line override: a dotted key ("parallel.tp_size",
 * "interpolation.kernel_overrides.MatMulV2.max_interpolation_dim") and a YAML text ("2",
 * "false", "[compute]", "null"), validated like a file value. */
gboolean msperf_policy_set (msperf_policy *p, const char *dotted_key, const char *scalar,
                            GError **error);

/* Declares the interpolation.<name> blocks a module owns, from its descriptor's policy_schema
 * (plugin.h): a YAML mapping "interpolation.NAME: {KEY: {type, choices, min, max, nullable,
 * default}, …}" (doc/plugin-guide.md § Policy blocks). Until msperf_policy_seal such blocks
 * are kept aside as every layer is merged; a block the core or another module already
 * defines, or a bad spec, is an error naming the owner, and adds nothing. */
gboolean msperf_policy_declare (msperf_policy *p, const char *owner, const char *text,
                                GError **error);
/* Every declaration is in: the blocks kept aside are validated against them in the order
 * their layers came (strict layers: the first problem is the error; the database layer:
 * problems become warnings appended to warnings, nullable) and merged, and the declared
 * defaults fill the keys no layer set. From now on an undeclared block is an unknown key. */
gboolean msperf_policy_seal (msperf_policy *p, GPtrArray *warnings, GError **error);
/* Sets dotted_path to value (transfer full) when no layer set it and its parent is a mapping;
 * FALSE (value freed) otherwise. */
gboolean msperf_policy_set_default (msperf_policy *p, const char *dotted_path,
                                    msperf_value *value);

/* A value by dotted path, or NULL when absent. Transfer none. */
const msperf_value *msperf_policy_get (const msperf_policy *p, const char *dotted_path);
/* The whole effective tree (a MAP). Transfer none. */
const msperf_value *msperf_policy_root (const msperf_policy *p);
/* Canonical JSON: sorted keys, no whitespace, shortest round-trip numbers. Transfer full. */
char *msperf_policy_canonical_json (const msperf_policy *p);
/* SHA-256 (hex) of the canonical JSON. Transfer full. */
char *msperf_policy_hash (const msperf_policy *p);
/* Module name → "disabled by policy" for every modules.NAME.enabled: false.
 * Transfer full (keys and values owned by the table). */
GHashTable *msperf_policy_disabled_modules (const msperf_policy *p);
/* Warnings collected while merging files and overrides (e.g. allow_extrapolation has no effect
 * yet), "FILE:LINE: message" (char*). Transfer none. */
const GPtrArray *msperf_policy_warnings (const msperf_policy *p);

/* Canonical JSON of any value tree (the serializer behind msperf_policy_canonical_json).
 * Transfer full. */
char *msperf_value_canonical_json (const msperf_value *v);

G_END_DECLS

#endif /* MSPERF_CORE_POLICY_H */
