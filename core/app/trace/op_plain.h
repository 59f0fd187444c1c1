/* msperf (internal) — the op of a plain trace line, read straight from its text.
 *
 * Why: a json-glib tree costs more to build and to free than the op made from it (a quarter
 * of a warm interpolated query went to the tree of its line). Machine-written trace
 * lines nearly all have one shape; for those this makes the very op trace.c's full path makes,
 * and for anything else it says "not for me" (NULL), never an error: the full path then reads
 * the line, so every message, warning and rule stays in one place. */
#ifndef MSPERF_CORE_OP_PLAIN_H
#define MSPERF_CORE_OP_PLAIN_H

#include <glib.h>
#include <msperf/op.h>

/* The op of text[0..len), or NULL when the line is outside the plain subset: the lexical subset
 * of app/trace/json_lex.h; only the keys op, args, kwargs, out, count and att, each at most once; no
 * key twice in any object; and nothing the full path would reject or warn about (a tensor
 * without a known dtype, a bad shape, stride or values, a count below 1, an empty op ...).
 * Tensors may carry at most MSPERF_OP_PLAIN_MAX_INTS integers in their lists in all, and
 * objects at most MSPERF_OP_PLAIN_MAX_MEMBERS members. */
#define MSPERF_OP_PLAIN_MAX_INTS 256
#define MSPERF_OP_PLAIN_MAX_MEMBERS 16
msperf_op *msperf_op_plain_parse (const char *text, gsize len);

#endif /* MSPERF_CORE_OP_PLAIN_H */
