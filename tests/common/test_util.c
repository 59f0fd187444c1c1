/* msperf tests — shared helpers that start an engine (see test_util.h); the
 * engine-free ones are in test_ops.c, which mock-based module tests link too. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
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

msperf_engine *
tu_engine_new (const char *db_dir, const char *const *overrides)
{
  msperf_engine *e = msperf_engine_new ();
  g_autofree char *dir = g_path_is_absolute (db_dir) ? g_strdup (db_dir) : tu_data_path (db_dir);
  g_autoptr (GError) error = NULL;

  msperf_engine_set_plugin_search_defaults (e, FALSE);
  msperf_engine_add_plugin_dir (e, env_or_fail ("MSPERF_TEST_PLUGINDIR"));
  for (const char *const *kv = overrides; kv && kv[0]; kv += 2)
    if (!msperf_engine_set_override (e, kv[0], kv[1], &error))
      fail_msg ("override %s=%s: %s", kv[0], kv[1], error->message);
  if (!msperf_engine_open_database (e, dir, NULL, &error))
    fail_msg ("open %s: %s", dir, error->message);
  if (!msperf_engine_start (e, &error))
    fail_msg ("start: %s", error->message);
  return e;
}

int
tu_teardown_engine (void **state)
{
  msperf_engine_free (*state);
  return 0;
}

msperf_result *
tu_run (msperf_engine *e, msperf_op *op)
{
  msperf_result *r = msperf_engine_query (e, op);

  msperf_op_free (op);
  assert_non_null (r);
  return r;
}
