/* msperf (internal) — an operator mapping's `quant_transfer` declaration (doc/formats.md §1.1):
 * which kwarg names the op's quantisation, and for a value the table lacks, which measured
 * values stand in, in order, with the dtypes their tensors take. */
#ifndef MSPERF_CORE_IO_QUANT_SPEC_H
#define MSPERF_CORE_IO_QUANT_SPEC_H

#include <glib.h>
#include <msperf/op.h>

#define MSPERF_QUANT_MAX_REFS 8
#define MSPERF_QUANT_MAX_ARGS 8

/* One stand-in: the kwarg's value and the dtypes of positional args 0 .. n_dtypes-1. */
typedef struct msperf_quant_ref {
  const char *value;                            /* borrowed from the spec value */
  msperf_dtype dtypes[MSPERF_QUANT_MAX_ARGS];
  int n_dtypes;
} msperf_quant_ref;

/* The stand-ins of one queried value. */
typedef struct msperf_quant_spec {
  const char *field;                            /* borrowed from the spec value */
  msperf_quant_ref refs[MSPERF_QUANT_MAX_REFS];
  int n_refs;
} msperf_quant_spec;

/* Checks spec ({field: F, from: {VALUE: [{quant: V, dtypes: [D, …]}, …], …}}); with value
 * non-NULL fills out with that value's stand-ins (n_refs 0 when it has none). FALSE with
 * *problem (owned) saying what is wrong. */
gboolean msperf_quant_spec_parse (const msperf_value *spec, const char *value,
                                  msperf_quant_spec *out, char **problem);
/* Only checks spec: FALSE with *problem (owned) as msperf_quant_spec_parse says it. */
gboolean msperf_quant_spec_valid (const msperf_value *spec, char **problem);

#endif
