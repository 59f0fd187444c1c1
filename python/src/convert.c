/* msperf Python module — Python objects to trace-line JSON and back.
 * A Python op is encoded as the JSON text of doc/formats.md §2 and read by the same parser as
 * `msperf estimate` (msperf_trace_parse_op), so the module accepts exactly what the CLI does and
 * reports the same field paths. Answers go back through their JSON form and json.loads. */
#include <config.h>
#include "pymsperf.h"
#include <math.h>
#include <string.h>

/* Deeper than any trace line: the trace parser itself stops earlier with a better message;
 * this only bounds the recursion over self-referencing containers. */
#define ENCODE_MAX_DEPTH 64

static PyObject *json_loads;

int
mpy_convert_init (void)
{
  PyObject *json = PyImport_ImportModule ("json");

  if (json == NULL)
    return -1;
  json_loads = PyObject_GetAttrString (json, "loads");
  Py_DECREF (json);
  return json_loads ? 0 : -1;
}

PyObject *
mpy_json_loads (const char *text, gsize len)
{
  PyObject *str = PyUnicode_DecodeUTF8 (text, (Py_ssize_t) len, "replace"), *out;

  if (str == NULL)
    return NULL;
  out = PyObject_CallOneArg (json_loads, str);
  Py_DECREF (str);
  return out;
}

PyObject *
mpy_value_to_py (const msperf_value *value)
{
  g_autoptr (GString) s = g_string_sized_new (256);

  if (value == NULL)
    Py_RETURN_NONE;
  msperf_fmt_json_value (s, value, 0, 0);
  return mpy_json_loads (s->str, s->len);
}

typedef struct {
  GString *out;
  GString *path;   /* JSON path of the value being encoded: "args[1].shape" */
  int depth;
} encoder;

static gboolean
encode_fail (encoder *enc, const char *what, PyObject *obj)
{
  PyErr_Format (PyExc_ValueError, "%s%s%s of type %s", enc->path->len ? enc->path->str : "op",
                ": ", what, Py_TYPE (obj)->tp_name);
  return FALSE;
}

static gboolean encode_value (encoder *enc, PyObject *obj);

static gboolean
encode_string (encoder *enc, PyObject *obj)
{
  Py_ssize_t len;
  const char *s = PyUnicode_AsUTF8AndSize (obj, &len);

  if (s == NULL)
    return FALSE;
  if ((size_t) len != strlen (s))
    return encode_fail (enc, "a string with a NUL character", obj);
  msperf_fmt_json_string (enc->out, s);
  return TRUE;
}

static gboolean
encode_int (encoder *enc, PyObject *obj)
{
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow (obj, &overflow);
  PyObject *text;

  if (v == -1 && PyErr_Occurred ())
    return FALSE;
  if (!overflow)
    {
      g_string_append_printf (enc->out, "%lld", v);
      return TRUE;
    }
  /* Written out in full: the trace parser then reports the overflow with the field's path. */
  text = PyObject_Str (obj);
  if (text == NULL)
    return FALSE;
  g_string_append (enc->out, PyUnicode_AsUTF8 (text));
  Py_DECREF (text);
  return TRUE;
}

static gboolean
encode_float (encoder *enc, PyObject *obj)
{
  double v = PyFloat_AsDouble (obj);

  if (v == -1.0 && PyErr_Occurred ())
    return FALSE;
  if (!isfinite (v))
    return encode_fail (enc, "a non-finite number (JSON has none)", obj);
  msperf_fmt_json_double (enc->out, v);
  return TRUE;
}

static gboolean
encode_list (encoder *enc, PyObject *obj)
{
  PyObject *seq = PySequence_Fast (obj, "not a sequence");
  gsize mark = enc->path->len;
  gboolean ok = TRUE;
  Py_ssize_t n;

  if (seq == NULL)
    return FALSE;
  n = PySequence_Fast_GET_SIZE (seq);
  g_string_append_c (enc->out, '[');
  for (Py_ssize_t k = 0; k < n && ok; k++)
    {
      if (k)
        g_string_append_c (enc->out, ',');
      g_string_append_printf (enc->path, "[%zd]", k);
      ok = encode_value (enc, PySequence_Fast_GET_ITEM (seq, k));
      g_string_truncate (enc->path, mark);
    }
  g_string_append_c (enc->out, ']');
  Py_DECREF (seq);
  return ok;
}

static gboolean
encode_dict (encoder *enc, PyObject *obj)
{
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  gsize mark = enc->path->len;
  gboolean first = TRUE;

  g_string_append_c (enc->out, '{');
  while (PyDict_Next (obj, &pos, &key, &value))
    {
      const char *name;
      if (!PyUnicode_Check (key))
        return encode_fail (enc, "a non-string key", key);
      if ((name = PyUnicode_AsUTF8 (key)) == NULL)
        return FALSE;
      if (!first)
        g_string_append_c (enc->out, ',');
      first = FALSE;
      if (!encode_string (enc, key))
        return FALSE;
      g_string_append_c (enc->out, ':');
      if (enc->path->len)
        g_string_append_c (enc->path, '.');
      g_string_append (enc->path, name);
      if (!encode_value (enc, value))
        return FALSE;
      g_string_truncate (enc->path, mark);
    }
  g_string_append_c (enc->out, '}');
  return TRUE;
}

static gboolean
encode_value (encoder *enc, PyObject *obj)
{
  gboolean ok;

  if (obj == Py_None)
    g_string_append (enc->out, "null");
  else if (obj == Py_True || obj == Py_False)
    g_string_append (enc->out, obj == Py_True ? "true" : "false");
  else if (PyUnicode_Check (obj))
    return encode_string (enc, obj);
  else if (PyLong_Check (obj))
    return encode_int (enc, obj);
  else if (PyFloat_Check (obj))
    return encode_float (enc, obj);
  else if (PyDict_Check (obj) || PyList_Check (obj) || PyTuple_Check (obj))
    {
      if (++enc->depth > ENCODE_MAX_DEPTH)
        return encode_fail (enc, "nesting too deep", obj);
      ok = PyDict_Check (obj) ? encode_dict (enc, obj) : encode_list (enc, obj);
      enc->depth--;
      return ok;
    }
  else if (PyIndex_Check (obj))      /* numpy integers */
    {
      PyObject *i = PyNumber_Index (obj);
      if (i == NULL)
        return FALSE;
      ok = encode_int (enc, i);
      Py_DECREF (i);
      return ok;
    }
  else
    return encode_fail (enc, "cannot encode a value", obj);
  return TRUE;
}

gboolean
mpy_op_to_json (PyObject *op, GString *out)
{
  g_autoptr (GString) path = g_string_sized_new (32);
  encoder enc = { out, path, 0 };

  if (PyUnicode_Check (op))
    {
      const char *s = PyUnicode_AsUTF8 (op);
      if (s == NULL)
        return FALSE;
      g_string_append (out, s);
      return TRUE;
    }
  if (!PyDict_Check (op))
    {
      PyErr_Format (PyExc_ValueError,
                    "op: a trace-line dict (doc/formats.md, section 2) or its JSON text, not %s",
                    Py_TYPE (op)->tp_name);
      return FALSE;
    }
  return encode_value (&enc, op);
}
