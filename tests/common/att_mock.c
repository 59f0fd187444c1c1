/* The fixture of an ATT module's unit tests over the host mock (see att_mock.h). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "common/att_mock.h"
#include "common/host_mock.h"
#include "common/test_util.h"

int
am_setup (void **state)
{
  am_fixture *f = g_new0 (am_fixture, 1);
  g_autoptr (GError) error = NULL;

  f->engine = hm_engine_new ();
  if (!msperf_plugin_v1.init (f->engine, &f->state, &error))
    fail_msg ("init: %s", error->message);
  assert_non_null (f->state);
  *state = f;
  return 0;
}

int
am_teardown (void **state)
{
  am_fixture *f = *state;

  msperf_plugin_v1.fini (f->state);
  msperf_engine_free (f->engine);
  g_free (f);
  return 0;
}

msperf_result *
am_model (void **state, const char *op_name, const char *mode, const char *att_json,
          msperf_status *status)
{
  am_fixture *f = *state;
  g_autoptr (msperf_op) op = tu_op (op_name);
  g_autoptr (msperf_query) q = NULL;
  msperf_result *r = msperf_result_new ();

  if (att_json)
    op->att = hm_value_from_json (att_json);
  q = hm_query_new (f->engine, op, mode, NULL);
  *status = msperf_plugin_v1.model (f->engine, f->state, q, r);
  return r;
}

const msperf_value *
am_detail (const msperf_result *r, const char *key)
{
  const msperf_value *v = msperf_value_lookup (msperf_result_details (r), key);

  if (v == NULL)
    fail_msg ("no detail '%s'", key);
  return v;
}

guint
am_detail_len (const msperf_result *r, const char *key)
{
  const msperf_value *v = am_detail (r, key);

  if (v == NULL || v->kind != MSPERF_VALUE_LIST)
    fail_msg ("detail '%s' is not a list", key);
  return v != NULL && v->items != NULL ? v->items->len : 0;
}
