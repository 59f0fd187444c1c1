/* msperf Python module — msperf.Result: one answer, read lazily from the engine's result.
 * The object holds one reference on the (read-only, shared with the engine's answer cache)
 * msperf_result and owns the parsed op; Python values are built on first access only, so
 * query_many creates one small object per op and nothing more. */
#include <config.h>
#include "pymsperf.h"
#include <msperf/details.h>
#include <math.h>
#include <structmember.h>
#include "app/report/report.h"

typedef struct {
  PyObject_HEAD
  msperf_op *op;
  msperf_result *result;
  double analytic_us;
  PyObject *details;   /* cache */
} mpy_result;

PyObject *
mpy_result_new (msperf_op *op, msperf_result *result, double analytic_us)
{
  mpy_result *self = PyObject_New (mpy_result, &mpy_result_type);

  if (self == NULL)
    {
      msperf_op_free (op);
      msperf_result_free (result);
      return NULL;
    }
  self->op = op;
  self->result = result;
  self->analytic_us = analytic_us;
  self->details = NULL;
  return (PyObject *) self;
}

static void
result_dealloc (mpy_result *self)
{
  msperf_op_free (self->op);
  msperf_result_free (self->result);
  Py_XDECREF (self->details);
  PyObject_Free (self);
}

static PyObject *
optional_double (double v)
{
  if (isnan (v))
    Py_RETURN_NONE;
  return PyFloat_FromDouble (v);
}

static PyObject *
optional_string (const char *s)
{
  if (s == NULL)
    Py_RETURN_NONE;
  return PyUnicode_FromString (s);
}

static PyObject *
get_latency (mpy_result *self, void *closure)
{
  (void) closure;
  return optional_double (self->result->latency_us);
}

static PyObject *
get_analytic (mpy_result *self, void *closure)
{
  (void) closure;
  return optional_double (self->analytic_us);
}

static PyObject *
get_confidence (mpy_result *self, void *closure)
{
  (void) closure;
  return PyFloat_FromDouble (self->result->confidence);
}

static PyObject *
get_source (mpy_result *self, void *closure)
{
  (void) closure;
  return PyUnicode_FromString (msperf_source_name (self->result->source));
}

static PyObject *
get_method (mpy_result *self, void *closure)
{
  (void) closure;
  return optional_string (self->result->method);
}

static PyObject *
get_miss_reason (mpy_result *self, void *closure)
{
  (void) closure;
  return optional_string (self->result->miss_reason);
}

static PyObject *
get_kernel_type (mpy_result *self, void *closure)
{
  (void) closure;
  return optional_string (self->result->kernel_type);
}

static PyObject *
get_rule (mpy_result *self, void *closure)
{
  (void) closure;
  return optional_string (self->result->shape_match_rule);
}

static PyObject *
get_dim (mpy_result *self, void *closure)
{
  (void) closure;
  return PyLong_FromLong (self->result->interpolation_dim);
}

static PyObject *
get_op_name (mpy_result *self, void *closure)
{
  (void) closure;
  return PyUnicode_FromString (self->op->name);
}

static PyObject *
get_count (mpy_result *self, void *closure)
{
  (void) closure;
  return PyLong_FromLongLong (self->op->count);
}

static PyObject *
get_details (mpy_result *self, void *closure)
{
  (void) closure;
  if (self->details == NULL && (self->details = mpy_value_to_py (msperf_result_details (self->result))) == NULL)
    return NULL;
  Py_INCREF (self->details);
  return self->details;
}

static PyObject *
shape_list (const msperf_tensor *t)
{
  PyObject *dims = PyList_New (t->rank);

  for (int k = 0; dims && k < t->rank; k++)
    PyList_SET_ITEM (dims, k, PyLong_FromLongLong (t->dims[k]));
  return dims;
}

static PyObject *
get_kernel_shapes (mpy_result *self, void *closure)
{
  GPtrArray *shapes = self->result->kernel_shapes;
  guint n = shapes ? shapes->len : 0;
  PyObject *list = PyList_New (n);

  (void) closure;
  for (guint k = 0; list && k < n; k++)
    {
      PyObject *dims = shape_list (g_ptr_array_index (shapes, k));
      if (dims == NULL)
        Py_CLEAR (list);
      else
        PyList_SET_ITEM (list, k, dims);
    }
  return list;
}

/* The record `msperf estimate --format jsonl` writes for this op, as a dict (FORMATS §5.1). */
static PyObject *
result_to_dict (mpy_result *self, PyObject *unused)
{
  g_autoptr (GString) s = g_string_sized_new (1024);
  g_autofree char *signature = msperf_op_signature (self->op);
  msperf_record record = {
    .index = self->op->index, .line = self->op->line, .op_name = self->op->name,
    .count = self->op->count, .op = self->op, .result = self->result,
    .analytic_us = self->analytic_us, .signature = signature,
  };

  (void) unused;
  msperf_report_jsonl_write (s, &record);
  return mpy_json_loads (s->str, s->len);
}

static PyObject *
result_repr (mpy_result *self)
{
  g_autoptr (GString) s = g_string_new ("msperf.Result(op=");

  msperf_fmt_py_string (s, self->op->name);
  g_string_append (s, ", latency_us=");
  if (isnan (self->result->latency_us))
    g_string_append (s, "None");
  else
    msperf_fmt_py_float (s, self->result->latency_us);
  g_string_append_printf (s, ", source='%s', method=", msperf_source_name (self->result->source));
  if (self->result->method)
    msperf_fmt_py_string (s, self->result->method);
  else
    g_string_append (s, "None");
  if (self->result->miss_reason)
    {
      g_string_append (s, ", miss_reason=");
      msperf_fmt_py_string (s, self->result->miss_reason);
    }
  g_string_append_c (s, ')');
  return PyUnicode_FromStringAndSize (s->str, (Py_ssize_t) s->len);
}

static PyGetSetDef result_getset[] = {
  { "latency_us", (getter) get_latency, NULL, "Latency in µs, None when unknown", NULL },
  { "source", (getter) get_source, NULL,
    "MEASURED, INTERPOLATED, EXTRAPOLATED, PARTIAL, ANALYTIC, NONE or REJECTED", NULL },
  { "confidence", (getter) get_confidence, NULL, "0..1", NULL },
  { "method", (getter) get_method, NULL, "exact, linear_1d, griddata_linear, roofline, …", NULL },
  { "miss_reason", (getter) get_miss_reason, NULL, "Why the profiling lookup missed, or None", NULL },
  { "details", (getter) get_details, NULL, "The answer's details (a dict, keys in order)", NULL },
  { "analytic_latency_us", (getter) get_analytic, NULL, "Roofline estimate in µs, or None", NULL },
  { "kernel_type", (getter) get_kernel_type, NULL, "The kernel that answered, or None", NULL },
  { "shape_match_rule", (getter) get_rule, NULL, "identity, transpose, padding, …, or None", NULL },
  { "interpolation_dim", (getter) get_dim, NULL, "0 unless interpolated", NULL },
  { "kernel_shapes", (getter) get_kernel_shapes, NULL, "The CSV shapes as written", NULL },
  { "op", (getter) get_op_name, NULL, "The op name (torch.ops. stripped)", NULL },
  { "count", (getter) get_count, NULL, "Invocations of this op", NULL },
  { NULL, NULL, NULL, NULL, NULL }
};

static PyMethodDef result_methods[] = {
  { "to_dict", (PyCFunction) result_to_dict, METH_NOARGS,
    "The JSON Lines record `msperf estimate --format jsonl` writes for this op." },
  { NULL, NULL, 0, NULL }
};

PyTypeObject mpy_result_type = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "msperf.Result",
  .tp_basicsize = sizeof (mpy_result),
  .tp_dealloc = (destructor) result_dealloc,
  .tp_repr = (reprfunc) result_repr,
  .tp_flags = Py_TPFLAGS_DEFAULT,
  .tp_doc = "The answer to one op (Engine.query, Engine.query_many).",
  .tp_getset = result_getset,
  .tp_methods = result_methods,
};
