/* msperf (internal) — the records of one run: each input item with its answer, and the run
 * that holds them with its settings and warnings. The bottom of core/app/run: the digests,
 * metrics and every report are built on these. */
#ifndef MSPERF_CORE_RUN_H
#define MSPERF_CORE_RUN_H

#include <stdint.h>
#include <glib.h>
#include <msperf/op.h>
#include <msperf/result.h>
#include <msperf/database.h>

typedef struct msperf_digest msperf_digest; /* app/run/digest.h */

/* One input item and its answer. */
typedef struct msperf_record {
  size_t index;
  guint line;
  char *op_name;             /* owned; the rejected line's name when known, else "" */
  int64_t count;             /* invocations (1 for rejected lines) */
  msperf_op *op;             /* owned; NULL when rejected */
  char *error;               /* owned rejection message; NULL otherwise */
  msperf_result *result;     /* owned final answer; source REJECTED when rejected */
  double analytic_us;        /* roofline estimate per call (NAN when unknown) */
  char *signature;           /* owned msperf_op_signature, NULL when rejected */
  msperf_digest *digest;     /* owned; set by msperf_record_digest, which drops op, result
                              * and signature (a streamed run's record, app/run/digest.h) */
} msperf_record;

typedef struct msperf_run {
  GPtrArray *records;        /* msperf_record*, input order */
  char *database;            /* path of the profiling database, or NULL (analytic only) */
  char *policy_hash;
  char *device_profile;      /* name of the device profile used by the roofline */
  gboolean use_profiling;    /* --performance-model includes profiling */
  gboolean use_analytic;     /* --performance-model includes analytic */
  gboolean dump_input_shapes;
  /* The headline and the warnings. */
  char *trace;               /* the trace as named in messages ("<stdin>", "--op") or NULL */
  char *database_version;    /* op_mapping.yaml `version:`, or NULL */
  char *database_device;     /* op_mapping.yaml `device:`, or NULL */
  GPtrArray *warnings;       /* char*, once each, in the order found */
  gboolean list_all;         /* the interpolation listing shows every op, not the top N */
  gboolean chrome_aggregate; /* Chrome trace: one event per distinct op and its count */
  gboolean report_all;       /* set while a report is written: listings are complete */
  /* Input lines folded into the record of the same op (its count) because only the
   * per-distinct-op aggregates were still needed (bounded memory). */
  size_t folded_lines;
  /* A streamed run (msperf_run_set_folding): one digest per distinct op in first-occurrence
   * order instead of records (records stays empty), and the fold index (signature → digest,
   * none owned). NULL otherwise. */
  GPtrArray *digests;
  GHashTable *fold;
} msperf_run;

msperf_run *msperf_run_new (void);
void msperf_run_free (msperf_run *run);
/* Takes ownership of record. */
void msperf_run_add (msperf_run *run, msperf_record *record);
msperf_record *msperf_record_new (void);
/* Adds a warning once (a repeated text is dropped) and prints it on stderr as
 * "msperf: warning: TEXT". */
void msperf_run_warn (msperf_run *run, const char *text);
/* Warnings about the run's inputs a user can act on: op names the mapping does not know
 * (closest known name suggested), mapped kernels whose CSV is missing, unusable or a Git LFS
 * pointer, CSV rows skipped as invalid. db may be NULL (analytic only). */
void msperf_run_check_inputs (msperf_run *run, msperf_database *db);
/* Warns (stderr and the run's warnings) when some op was left without a latency. */
void msperf_run_check_latencies (msperf_run *run);
void msperf_record_free (msperf_record *record);

/* Distinct signatures in first-occurrence order: the first record of each (transfer
 * container) and, in *counts (transfer full, int64_t), the summed counts. A rejected record
 * is its own entry. */
GPtrArray *msperf_run_distinct (const msperf_run *run, GArray **counts);

#endif
