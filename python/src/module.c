/* msperf Python module — the `msperf._msperf` extension: exceptions, types, build-tree detection.
 * The public face is the package msperf/ (python/msperf/__init__.py), which re-exports these. */
#include <config.h>
#include "pymsperf.h"
#include <stdlib.h>
#include <string.h>

PyObject *mpy_error;
static PyObject *error_io, *error_parse, *error_config, *error_plugin;
static PyObject *this_module;

void
mpy_raise_gerror (const GError *error)
{
  PyObject *type = mpy_error, *exc, *code;

  if (error->domain == MSPERF_ERROR_DOMAIN)
    switch ((msperf_error_code) error->code)
      {
      case MSPERF_ERROR_IO:
      case MSPERF_ERROR_NOT_FOUND:
      case MSPERF_ERROR_PATH:
        type = error_io;
        break;
      case MSPERF_ERROR_PARSE:
        type = error_parse;
        break;
      case MSPERF_ERROR_PLUGIN:
        type = error_plugin;
        break;
      case MSPERF_ERROR_INVALID:
      case MSPERF_ERROR_UNBOUND:
      case MSPERF_ERROR_FAILED:
      default:
        type = error_config;
        break;
      }
  exc = PyObject_CallFunction (type, "s", error->message);
  code = PyLong_FromLong (error->code);
  /* .code: the msperf_error_code, for callers that dispatch on it. */
  if (exc && code && PyObject_SetAttrString (exc, "code", code) == 0)
    PyErr_SetObject (type, exc);
  Py_XDECREF (code);
  Py_XDECREF (exc);
}

/* TRUE when this extension's file lies under the build tree it was compiled in: the package
 * is then used from there (PYTHONPATH=builddir/python) and finds modules and data as an
 * uninstalled msperf does. Decided once, on first use (after import set __file__). */
gboolean
mpy_uninstalled (void)
{
  static int cached = -1;
  PyObject *file;

  if (cached >= 0)
    return cached;
  cached = 0;
  file = this_module ? PyObject_GetAttrString (this_module, "__file__") : NULL;
  if (file && PyUnicode_Check (file))
    {
      char *real = realpath (PyUnicode_AsUTF8 (file), NULL);
      char *top = realpath (MSPERF_PY_BUILDDIR, NULL);
      size_t n = top ? strlen (top) : 0;
      cached = real && top && strncmp (real, top, n) == 0 && real[n] == '/';
      free (real);
      free (top);
    }
  PyErr_Clear ();
  Py_XDECREF (file);
  return cached;
}

static PyObject *
module_uninstalled (PyObject *self, PyObject *unused)
{
  (void) self;
  (void) unused;
  return PyBool_FromLong (mpy_uninstalled ());
}

static PyObject *
module_default_database (PyObject *self, PyObject *unused)
{
  g_autofree char *path = NULL;

  (void) self;
  (void) unused;
  if (mpy_uninstalled ())
    path = g_build_filename (MSPERF_PY_SRCDIR, "doc", "examples", "h200-db", NULL);
  else
    path = msperf_paths_data_file ("examples/h200-db", "doc/examples/h200-db");
  return PyUnicode_DecodeFSDefault (path);
}

static PyObject *
module_data_file (PyObject *self, PyObject *args)
{
  const char *installed, *source;
  g_autofree char *path = NULL;

  (void) self;
  if (!PyArg_ParseTuple (args, "ss", &installed, &source))
    return NULL;
  if (mpy_uninstalled ())
    path = g_build_filename (MSPERF_PY_SRCDIR, source, NULL);
  else
    path = msperf_paths_data_file (installed, source);
  return PyUnicode_DecodeFSDefault (path);
}

/* The msperf program of this build: the build tree's when the package runs from there. */
static PyObject *
module_program (PyObject *self, PyObject *unused)
{
  g_autofree char *path = NULL;

  (void) self;
  (void) unused;
  path = g_build_filename (mpy_uninstalled () ? MSPERF_PY_BUILDDIR : MSPERF_PY_BINDIR, "msperf",
                           NULL);
  return PyUnicode_DecodeFSDefault (path);
}

static PyMethodDef module_methods[] = {
  { "program", module_program, METH_NOARGS,
    "program() -> str: the msperf program serve() and recommend() run." },
  { "uninstalled", module_uninstalled, METH_NOARGS,
    "uninstalled() -> bool: the module runs from the build tree." },
  { "default_database", module_default_database, METH_NOARGS,
    "default_database() -> str: the shipped sample database (installed or source tree)." },
  { "data_file", module_data_file, METH_VARARGS,
    "data_file(installed_rel, source_rel) -> str: a shipped file, as msperf_paths_data_file "
    "resolves it for an uninstalled or installed msperf." },
  { NULL, NULL, 0, NULL }
};

static struct PyModuleDef module_def = {
  PyModuleDef_HEAD_INIT,
  .m_name = "msperf._msperf",
  .m_doc = "The C side of the msperf package (libmsperf bindings).",
  .m_size = -1,
  .m_methods = module_methods,
};

static int
add_error (PyObject *module, const char *name, PyObject *base, PyObject **out)
{
  g_autofree char *full = g_strdup_printf ("msperf.%s", name);

  *out = PyErr_NewException (full, base, NULL);
  if (*out == NULL)
    return -1;
  Py_INCREF (*out);
  return PyModule_AddObject (module, name, *out);
}

static int
add_type (PyObject *module, const char *name, PyTypeObject *type)
{
  if (PyType_Ready (type) < 0)
    return -1;
  Py_INCREF (type);
  return PyModule_AddObject (module, name, (PyObject *) type);
}

PyMODINIT_FUNC PyInit__msperf (void);

PyMODINIT_FUNC
PyInit__msperf (void)
{
  PyObject *module = PyModule_Create (&module_def);

  if (module == NULL)
    return NULL;
  if (mpy_convert_init () < 0
      || add_error (module, "Error", PyExc_Exception, &mpy_error) < 0
      || add_error (module, "FileError", mpy_error, &error_io) < 0
      || add_error (module, "ParseError", mpy_error, &error_parse) < 0
      || add_error (module, "ConfigError", mpy_error, &error_config) < 0
      || add_error (module, "PluginError", mpy_error, &error_plugin) < 0
      || add_type (module, "Engine", &mpy_engine_type) < 0
      || add_type (module, "Result", &mpy_result_type) < 0
      || PyModule_AddStringConstant (module, "version", PACKAGE_VERSION) < 0)
    {
      Py_DECREF (module);
      return NULL;
    }
  this_module = module;
  return module;
}
