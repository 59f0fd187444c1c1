/* msperf Python module — declarations shared by the extension's C files (python/src/).
 * The module is a thin layer: every answer comes from libmsperf, every trace line is read by
 * the app library's trace parser (core/app/trace/trace.h), every summary by core/app/run/metrics.h. */
#ifndef MSPERF_PY_H
#define MSPERF_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <msperf/msperf.h>
#include <msperf/paths.h>
#include <msperf/format.h>

/* Exception classes (module.c): msperf.Error and its subclasses by GError code. */
extern PyObject *mpy_error;
/* Raises the msperf.Error subclass of error's code with error's message ("FILE:LINE: …"). */
void mpy_raise_gerror (const GError *error);
/* TRUE when this extension file lives in the build tree (module.c). */
gboolean mpy_uninstalled (void);

/* convert.c. Appends op (a trace-line dict, or its JSON text) to out as JSON; FALSE with a
 * ValueError naming the field when op cannot be encoded. */
gboolean mpy_op_to_json (PyObject *op, GString *out);
/* json.loads of text (new reference, NULL with an exception). */
PyObject *mpy_json_loads (const char *text, gsize len);
/* An msperf_value tree as Python objects, through its JSON form (new reference). */
PyObject *mpy_value_to_py (const msperf_value *value);
/* Module set-up of convert.c (imports json). */
int mpy_convert_init (void);

/* result.c */
extern PyTypeObject mpy_result_type;
/* A Result owning op and result (one reference each); NULL with an exception. */
PyObject *mpy_result_new (msperf_op *op, msperf_result *result, double analytic_us);

/* engine.c */
extern PyTypeObject mpy_engine_type;

#endif
