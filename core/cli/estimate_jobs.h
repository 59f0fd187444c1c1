/* msperf (internal) — estimate's answering loop: the trace in batches, distinct ops spread over
 * --jobs sessions of one engine, records handed back in input order. */
#ifndef MSPERF_CLI_ESTIMATE_JOBS_H
#define MSPERF_CLI_ESTIMATE_JOBS_H

#include <msperf/engine.h>
#include "app/report/report.h"
#include "app/trace/trace.h"

typedef struct msperf_jobs msperf_jobs;

/* n_jobs sessions of engine (n_jobs >= 1; 1 answers on the calling thread only). source names
 * the trace in rejection messages. Transfer full. */
msperf_jobs *msperf_jobs_new (msperf_engine *engine, guint n_jobs, const char *source);
void msperf_jobs_free (msperf_jobs *jobs);
/* Answer only the items whose 0-based index is index modulo count (estimate --shard I/N is
 * index I-1 of N): the shards of a trace are interleaved, so each gets its share of every
 * part of the trace. */
void msperf_jobs_set_shard (msperf_jobs *jobs, guint index, guint count);

/* How each record is also rendered, by the session that answered it (the formatting of a
 * record costs as much as its answer, so it runs on the jobs too); with slim, the record's
 * answer is then reduced to what the summary, the metrics and the headline read (the other
 * outputs have been written). */
typedef enum { MSPERF_JOBS_RENDER_NONE, MSPERF_JOBS_RENDER_JSONL, MSPERF_JOBS_RENDER_CSV } msperf_jobs_render;
void msperf_jobs_set_render (msperf_jobs *jobs, msperf_jobs_render render, gboolean slim);
/* The text of record k of the last batch ("" without a render). Transfer none. */
const GString *msperf_jobs_text (msperf_jobs *jobs, guint k);

/* Reads up to one batch of items from reader and answers them. Returns the number of records
 * now in *records (input order, transfer full each), 0 at the end of input. */
guint msperf_jobs_next_batch (msperf_jobs *jobs, msperf_trace_reader *reader,
                              msperf_record ***records);

/* Hands the unknown keys of record k of the last batch to reader's warnings. Call for each
 * record the run takes, in input order (records answered ahead of a --strict stop are not
 * taken, and neither are their warnings). */
void msperf_jobs_note_keys (msperf_jobs *jobs, guint k, msperf_trace_reader *reader);

/* The number of cores to use by default (at least 1). */
guint msperf_jobs_default (void);

#endif
