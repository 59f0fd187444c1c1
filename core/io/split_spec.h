/* msperf (internal) — an operator mapping's `split_transfer` declaration (doc/formats.md §1.1):
 * which two kwargs split the op's work over its ranks, and which tensor dims each divides. */
#ifndef MSPERF_CORE_IO_SPLIT_SPEC_H
#define MSPERF_CORE_IO_SPLIT_SPEC_H

#include <glib.h>
#include <msperf/op.h>

#define MSPERF_SPLIT_MAX_DIMS 8

/* One tensor dim a split field divides: dim `dim` of positional argument `arg`. */
typedef struct msperf_split_dim {
  int arg;
  int dim;
} msperf_split_dim;

/* The two fields (kwargs) whose product is the op's rank count, and the dims each divides. */
typedef struct msperf_split_spec {
  const char *field[2];                              /* borrowed from the spec value */
  msperf_split_dim dims[2][MSPERF_SPLIT_MAX_DIMS];
  int n_dims[2];
} msperf_split_spec;

/* Reads spec ({fields: [A, B], dims: {A: [[arg, dim], …], B: […]}}) into out. FALSE with
 * *problem (owned) saying what is wrong. */
gboolean msperf_split_spec_parse (const msperf_value *spec, msperf_split_spec *out,
                                  char **problem);
/* Only checks spec: FALSE with *problem (owned) as msperf_split_spec_parse says it. */
gboolean msperf_split_spec_valid (const msperf_value *spec, char **problem);

#endif
