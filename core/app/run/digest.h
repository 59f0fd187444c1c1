/* msperf (internal) — one distinct op of a run, reduced to what the summary, the metrics, the
 * headline and the input checks read: a few numbers, its name, its top-level shapes and three
 * short texts, in one allocation. A streamed run (JSON Lines, CSV) keeps only these. */
#ifndef MSPERF_CORE_DIGEST_H
#define MSPERF_CORE_DIGEST_H

#include <glib.h>
#include <msperf/op.h>
#include <msperf/result.h>
#include "app/run/run.h"

struct msperf_digest {
  const msperf_record *record; /* the first record of the op (transfer none); NULL once the
                                * run has folded its records into digests */
  const char *signature;       /* folded runs: the op's signature (the fold key), else NULL */
  const char *name;            /* op name, or the rejected line's name ("" when unknown) */
  const char *method;          /* the answer's method, or NULL */
  const char *label;           /* metrics: a hit's kernel type, a miss's reason (NULL when the
                                * op is not a metrics record) */
  const char *axes;            /* INTERPOLATED answers: the axes text of the listing, else NULL */
  int64_t count;               /* Σ count over the op's lines (saturating) */
  double latency_us, confidence, analytic_us;
  msperf_source source;        /* the answer's source (NONE without an answer) */
  int interpolation_dim;
  guint line;                  /* line of the first occurrence */
  gboolean rejected;           /* no op: an invalid input line (never folded) */
  gboolean answered;           /* has an answer (a result) */
  gboolean has_att;
  guint n_shapes;              /* top-level tensor args, packed in shapes */
  const int64_t *shapes;       /* per shape: rank, then its dims */
};

/* The digest of record r (its op and answer are read, not kept) with count invocations; with
 * keep_signature, r's signature is copied in (the fold key of a streamed run). Transfer full
 * (one block: g_free or msperf_digest_free). */
msperf_digest *msperf_digest_new (const msperf_record *r, int64_t count, gboolean keep_signature);
void msperf_digest_free (msperf_digest *d);
/* Top-level tensor k (0 <= k < n_shapes) as a plain tensor (rank and dims only) into *out. */
void msperf_digest_shape (const msperf_digest *d, guint k, msperf_tensor *out);
/* "[2048, 4096] [4096, 4096]", as msperf_report_input_shapes_text. Transfer full. */
char *msperf_digest_shapes_text (const msperf_digest *d);
/* A details.axes value as the reports show it: {M: 6055, K: 3840} → "M=6055,K=3840", a list
 * as its items joined by ',', "-" when absent (NULL) or empty. Transfer full. */
char *msperf_digest_axes_text (const msperf_value *axes);

/* The run's distinct ops in first-occurrence order (a rejected line is its own entry): the
 * folded digests of a streamed run, else built from its records. Transfer full (unref). */
GPtrArray *msperf_run_digests (const msperf_run *run);

/* Streamed runs: from now on msperf_run_fold keeps one digest per distinct op instead of the
 * records. */
void msperf_run_set_folding (msperf_run *run);
/* Replaces record's op and answer by its digest (record->digest), on the job that rendered
 * it: the other outputs have been written, only the aggregates still need it. */
void msperf_record_digest (msperf_record *record);
/* Takes record: folds it into the digest of the same op (its count added) or keeps its digest
 * as a new distinct op; the record itself is freed. Without folding, adds it to the run. */
void msperf_run_fold (msperf_run *run, msperf_record *record);

#endif
