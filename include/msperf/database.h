/* msperf — a profiling database: op_mapping.yaml plus one CSV per kernel type. */
#ifndef MSPERF_DATABASE_H
#define MSPERF_DATABASE_H

#include <msperf/api.h>
#include <glib.h>
#include <msperf/op.h>
#include <msperf/table.h>

G_BEGIN_DECLS

typedef struct msperf_database msperf_database;

/* One entry of operator_mappings, decoded. Unknown fields stay readable through 'raw'. */
typedef struct msperf_mapping_entry {
  char *op_name;
  char *kernel_type;          /* NULL when absent */
  char **kernel_types;        /* primary then alternates, duplicates removed, NULL-terminated */
  char *query_mode;           /* NULL, attention_special, elementwise, moe_fused, mtp_projection, ... */
  char *category;             /* NULL or "communication" */
  gboolean composite;
  gboolean zero_cost;
  char *accepted_miss;        /* the note, or NULL */
  int64_t tc_input_count;     /* -1 when absent */
  msperf_value *raw;          /* the whole entry as a MAP */
  guint line;                 /* line of the entry in op_mapping.yaml */
} msperf_mapping_entry;

/* Opens dir/op_mapping.yaml. root (nullable) confines every resolved file (after symlinks).
 * Entries with a bad kernel_type are rejected with an error naming them and recorded as
 * problems (msperf_database_problems); the rest load. Transfer full. */
MSPERF_API msperf_database *msperf_database_open (const char *dir, const char *root, GError **error);
MSPERF_API void msperf_database_free (msperf_database *db);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_database, msperf_database_free)

MSPERF_API const char *msperf_database_dir (const msperf_database *db);
/* The `device:` metadata value, or NULL. */
MSPERF_API const char *msperf_database_device (const msperf_database *db);
/* Entry for a normalised op name, or NULL (unmapped). */
MSPERF_API const msperf_mapping_entry *msperf_database_entry (const msperf_database *db, const char *op_name);
/* All entries in file order (msperf_mapping_entry*). Transfer none. */
MSPERF_API const GPtrArray *msperf_database_entries (const msperf_database *db);
/* The kernel table, loaded on first use and cached. NULL with MSPERF_ERROR_NOT_FOUND when no
 * CSV exists (csv_not_found); NULL with another code when it exists but is unusable. */
MSPERF_API const msperf_table *msperf_database_table (msperf_database *db, const char *kernel_type,
                                           GError **error);
/* <block>.kernel_overrides.<kernel>.<key> from op_mapping.yaml (block: latency_policy,
 * query_selection_policy, interpolation_policy), or NULL. Transfer none. */
MSPERF_API const msperf_value *msperf_database_kernel_option (const msperf_database *db, const char *block,
                                                   const char *kernel, const char *key);
/* A top-level key of op_mapping.yaml as a value tree, or NULL. */
MSPERF_API const msperf_value *msperf_database_top (const msperf_database *db, const char *key);
/* Load-time problems and warnings ("FILE:LINE: message"), in order. Transfer none. */
MSPERF_API const GPtrArray *msperf_database_warnings (const msperf_database *db);
/* Drops every cached table (and what the engine built on them). */
MSPERF_API void msperf_database_clear_cache (msperf_database *db);

/* TRUE when name is a plain file stem (no '/', '\\', "..", leading '.', control chars). */
MSPERF_API gboolean msperf_kernel_type_is_plain (const char *name);
/* The kernel-type prefixes of collectives (NULL-terminated, copied; NULL: none), as the
 * loaded modules declare them (msperf_engine_collective_prefixes; a started engine sets its
 * own database's): their tables are looked up in communication_data_ref first (reference
 * §1.1). Drops the cached tables. */
MSPERF_API void msperf_database_set_collective_prefixes (msperf_database *db,
                                                         const char *const *prefixes);
/* TRUE when kernel_type starts with one of db's collective prefixes. */
MSPERF_API gboolean msperf_database_kernel_is_collective (const msperf_database *db,
                                                          const char *kernel_type);
/* TRUE for HCCL's hcom_* kernel names. Kept for modules built against ABI 2.0 and 2.1: which
 * kernels are collectives is what the loaded modules declare (msperf_plugin.
 * collective_prefixes), asked with msperf_engine_kernel_is_collective. */
MSPERF_API gboolean msperf_kernel_is_collective (const char *kernel_type)
  G_GNUC_DEPRECATED_FOR (msperf_engine_kernel_is_collective);

G_END_DECLS

#endif /* MSPERF_DATABASE_H */
