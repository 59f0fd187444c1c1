/* msperf tests — the engine-free helpers of test_util.h (paths, ops, tensors,
 * details): linked by white-box tests and by mock-based module tests (host_mock.h) alike. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include <glib/gstdio.h>
#include "common/test_util.h"

static const char *
env_or_fail (const char *name)
{
  const char *v = getenv (name);

  if (v == NULL || *v == '\0')
    fail_msg ("%s is not set: run the test through `make check`", name);
  return v;
}

char *
tu_data_path (const char *relative)
{
  return g_build_filename (env_or_fail ("MSPERF_TEST_DATADIR"), relative, NULL);
}

char *
tu_srcdir_path (const char *relative)
{
  return g_build_filename (env_or_fail ("MSPERF_TOP_SRCDIR"), relative, NULL);
}

void
tu_assert_source (const msperf_result *r, msperf_source source)
{
  if (r->source != source)
    fail_msg ("expected %s, got %s (reason %s)", msperf_source_name (source),
              msperf_source_name (r->source), r->miss_reason ? r->miss_reason : "-");
}

void
tu_rm_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      GDir *dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          tu_rm_tree (child);
        }
      if (dir)
        g_dir_close (dir);
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

void
tu_tensor (msperf_tensor *t, msperf_dtype dtype, const char *dims)
{
  g_auto (GStrv) parts = NULL;

  memset (t, 0, sizeof *t);
  t->dtype = dtype;
  t->format = MSPERF_FORMAT_ND;
  if (dims == NULL || *dims == '\0' || strcmp (dims, "()") == 0)
    return;
  parts = g_strsplit (dims, ",", -1);
  for (int k = 0; parts[k]; k++)
    {
      char *end;
      gint64 d = g_ascii_strtoll (parts[k], &end, 10);

      if (end == parts[k] || *end != '\0' || k >= MSPERF_MAX_RANK)
        fail_msg ("bad test shape \"%s\"", dims);
      t->dims[k] = d;
      t->rank = k + 1;
    }
}

msperf_op *
tu_op (const char *name)
{
  return msperf_op_new (name);
}

void
tu_op_add_tensor (msperf_op *op, msperf_dtype dtype, const char *dims)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_TENSOR);

  tu_tensor (&v->tensor, dtype, dims);
  g_ptr_array_add (op->args, v);
}

void
tu_op_add_int (msperf_op *op, int64_t value)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_INT);

  v->i = value;
  g_ptr_array_add (op->args, v);
}

msperf_value *
tu_int_list (int n, int64_t first, int64_t step)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (int k = 0; k < n; k++)
    msperf_value_list_append (list, msperf_value_new_int (first + k * step));
  return list;
}

void
tu_op_add_int_list (msperf_op *op, int n, int64_t first, int64_t step)
{
  g_ptr_array_add (op->args, tu_int_list (n, first, step));
}

void
tu_op_add_tensor_list (msperf_op *op, int n, msperf_dtype dtype, const char *dims)
{
  msperf_value *list = msperf_value_new (MSPERF_VALUE_LIST);

  for (int k = 0; k < n; k++)
    {
      msperf_value *v = msperf_value_new (MSPERF_VALUE_TENSOR);

      tu_tensor (&v->tensor, dtype, dims);
      msperf_value_list_append (list, v);
    }
  g_ptr_array_add (op->args, list);
}

void
tu_op_add_none (msperf_op *op)
{
  g_ptr_array_add (op->args, msperf_value_new (MSPERF_VALUE_NONE));
}

void
tu_op_add_out (msperf_op *op, msperf_dtype dtype, const char *dims)
{
  msperf_tensor *t = g_new0 (msperf_tensor, 1);

  tu_tensor (t, dtype, dims);
  g_ptr_array_add (op->out, t);
}

const char *
tu_detail_string (const msperf_result *r, const char *key)
{
  return msperf_value_get_string (msperf_value_lookup (msperf_result_details (r), key));
}

double
tu_detail_double (const msperf_result *r, const char *key)
{
  double d;

  return msperf_value_get_double (msperf_value_lookup (msperf_result_details (r), key), &d) ? d : NAN;
}

gboolean
tu_detail_bool (const msperf_result *r, const char *key)
{
  const msperf_value *v = msperf_value_lookup (msperf_result_details (r), key);

  return v && v->kind == MSPERF_VALUE_BOOL && v->b;
}

void
tu_assert_transfer (const msperf_result *r, const char *method, const char *from_key,
                    const char *from, const char *ref_source, double ref_us, double ratio)
{
  tu_assert_source (r, MSPERF_SOURCE_EXTRAPOLATED);
  assert_string_equal (r->method, method);
  assert_string_equal (r->kernel_type, "FusedMoE");
  assert_string_equal (tu_detail_string (r, from_key), from);
  assert_string_equal (tu_detail_string (r, "reference_source"), ref_source);
  assert_true (fabs (tu_detail_double (r, "reference_latency_us") - ref_us) < 1e-9);
  assert_true (fabs (tu_detail_double (r, "roofline_ratio") - ratio) < 1e-12);
  assert_true (fabs (r->latency_us - ref_us * ratio) < 1e-9);
  assert_true (r->confidence > 0.0 && r->confidence < 0.7);
}
