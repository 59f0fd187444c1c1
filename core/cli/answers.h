/* msperf (internal) — estimate's JSON Lines answers read back: `msperf merge` (shards into one
 * stream, by index) and `msperf summarize` (the records of a run rebuilt from its answers). */
#ifndef MSPERF_CLI_ANSWERS_H
#define MSPERF_CLI_ANSWERS_H

#include <stdio.h>
#include <glib.h>
#include <msperf/result.h>

/* Writes the lines of the files (each sorted by "index", as one shard writes them) to out in
 * ascending index order: the bytes of the single run. FALSE with error on an unreadable file, a
 * line without an index or a file out of order. */
gboolean msperf_answers_merge (const char *const *paths, FILE *out, GError **error);

typedef struct msperf_answers msperf_answers;

/* Every line of the files (any order: shards merged or concatenated). Transfer full. */
msperf_answers *msperf_answers_load (const char *const *paths, GError **error);
void msperf_answers_free (msperf_answers *answers);
/* The answer of trace item index, as estimate computed it: the result, its roofline estimate
 * and its rejection message (NULL unless rejected). FALSE when the files hold none. */
gboolean msperf_answers_get (msperf_answers *answers, size_t index, msperf_result **result,
                             double *analytic_us, char **error_text, GError **error);

#endif
