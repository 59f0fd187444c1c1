/* msperf — numbers read from text (table cells, field values, kwargs as text) the one way every
 * module reads them, and the canonical text numbers compare in as fields. */
#ifndef MSPERF_NUMBER_H
#define MSPERF_NUMBER_H

#include <glib.h>
#include <msperf/api.h>

G_BEGIN_DECLS

/* TRUE and *out when the whole of text is a finite number in C-locale decimal notation ("8",
 * "-2.5", "1e+16"); FALSE (out untouched) for NULL, "", surrounding spaces, trailing text,
 * "inf", "nan" and C99 hex floats ("0x10": Python's float(), which writes the tables, does not
 * read them). */
MSPERF_API gboolean msperf_number_parse (const char *text, double *out);
/* Appends text to out in canonical form: a number msperf_number_parse reads as "%.17g" (so
 * "8", "8.0", "8e0" and the kwarg 8 all give "8"), any other text as is (NULL as ""). */
MSPERF_API void msperf_number_append_canonical (GString *out, const char *text);

G_END_DECLS

#endif /* MSPERF_NUMBER_H */
