/* Tests of att.bind and its domain check (core/att/att_bind.c), the one check every path that
 * binds ATT symbols runs. The check callback stands for a module: it refuses any size below 1
 * and a "dst" different from a numeric "src" other than 1, the forms broadcast_att refuses. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/att.h>

/* The module stand-in: att.count, att.dst, att.src must be integers >= 1 or symbols, and a
 * numeric src other than 1 must equal a numeric dst. */
static gboolean
sizes_check (const msperf_value *att, void *calls, GError **error)
{
  static const char *const keys[] = { "count", "dst", "src" };
  int64_t v[3] = { 0, 0, 0 };
  gboolean num[3] = { FALSE, FALSE, FALSE };

  (*(int *) calls)++;
  if (msperf_value_lookup (att, "bind") != NULL)
    {
      g_set_error_literal (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "bind left in");
      return FALSE;
    }
  if (msperf_value_lookup (att, "dtype") == NULL)
    {
      g_set_error_literal (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, "att.dtype is missing");
      return FALSE;
    }
  for (int k = 0; k < 3; k++)
    {
      const msperf_value *x = msperf_value_lookup (att, keys[k]);
      if (x == NULL || msperf_value_get_string (x) != NULL)
        continue;
      if (x->kind != MSPERF_VALUE_INT || x->i < 1)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "att.%s: expected an integer >= 1", keys[k]);
          return FALSE;
        }
      v[k] = x->i;
      num[k] = TRUE;
    }
  if (num[1] && num[2] && v[2] != 1 && v[2] != v[1])
    {
      g_set_error_literal (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                           "src must be 1 or equal dst");
      return FALSE;
    }
  return TRUE;
}

/* {"dtype": "n", "count": "n", "dst": "d", "src": "s", "bind": {...}}: "dtype" holds a name
 * equal to a bound symbol, which must stay a name. */
static msperf_value *
att_with (msperf_value *bind)
{
  msperf_value *att = msperf_value_new (MSPERF_VALUE_MAP);

  msperf_value_map_set (att, "dtype", msperf_value_new_string ("n"));
  msperf_value_map_set (att, "count", msperf_value_new_string ("n"));
  msperf_value_map_set (att, "dst", msperf_value_new_string ("d"));
  msperf_value_map_set (att, "src", msperf_value_new_string ("s"));
  if (bind != NULL)
    msperf_value_map_set (att, "bind", bind);
  return att;
}

static msperf_value *
bind1 (const char *name, msperf_value *v)
{
  msperf_value *b = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value_map_set (b, name, v);
  return b;
}

static void
expect_refused (msperf_value *att, const char *message)
{
  g_autoptr (msperf_value) owned = att;
  g_autoptr (GError) error = NULL;
  int calls = 0;

  assert_false (msperf_att_bind_check (owned, sizes_check, &calls, &error));
  assert_non_null (error);
  if (strstr (error->message, message) == NULL)
    fail_msg ("'%s' not in '%s'", message, error->message);
  /* only a refusal of the bound values names att.bind */
  assert_true ((strstr (error->message, "att.bind") != NULL)
               == (strstr (message, "att.bind") != NULL));
}

/* The values the static checks refuse are refused when bound, naming the symbol. */
static void
test_att_bind_check_refuses_out_of_domain_values_naming_the_symbol (void **state)
{
  (void) state;
  expect_refused (att_with (bind1 ("n", msperf_value_new_int (G_MININT64))),
                  "att.bind.n = -9223372036854775808 is out of the parameter's domain: "
                  "att.count: expected an integer >= 1");
  expect_refused (att_with (bind1 ("d", msperf_value_new_int (0))),
                  "att.bind.d = 0 is out of the parameter's domain: att.dst");
  expect_refused (att_with (bind1 ("s", msperf_value_new_double (1.5))),
                  "att.bind.s = 1.5 is out of the parameter's domain: att.src");
  expect_refused (att_with (bind1 ("n", msperf_value_new_double (INFINITY))),
                  "att.bind.n: expected a finite number, got inf");
  expect_refused (att_with (bind1 ("n", msperf_value_new_string ("x"))),
                  "att.bind.n: expected a finite number, got a value of another type");
}

/* A refusal that needs two bound values names both; one that is not about the bound values
 * (a missing dtype) does not blame them. */
static void
test_att_bind_check_blames_only_the_bound_values (void **state)
{
  msperf_value *b = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *att;

  (void) state;
  msperf_value_map_set (b, "d", msperf_value_new_int (4));
  msperf_value_map_set (b, "s", msperf_value_new_int (3));
  expect_refused (att_with (b), "att.bind {d = 4, s = 3} is out of the parameters' domain: "
                                "src must be 1 or equal dst");
  att = att_with (bind1 ("n", msperf_value_new_int (0)));
  msperf_value_free (att->items->pdata[0]);
  att->items->pdata[0] = msperf_value_new (MSPERF_VALUE_NONE);
  g_free (att->keys->pdata[0]);
  att->keys->pdata[0] = g_strdup ("dtype_missing");
  expect_refused (att, "att.dtype is missing");
}

/* In-domain values pass with one call of the check; no bind, no call. */
static void
test_att_bind_check_accepts_in_domain_values (void **state)
{
  g_autoptr (msperf_value) att = att_with (bind1 ("n", msperf_value_new_int (64)));
  g_autoptr (msperf_value) plain = att_with (NULL);
  g_autoptr (GError) error = NULL;
  int calls = 0;

  (void) state;
  assert_true (msperf_att_bind_check (att, sizes_check, &calls, &error));
  assert_int_equal (calls, 1);
  assert_true (msperf_att_bind_check (plain, sizes_check, &calls, &error));
  assert_int_equal (calls, 1);
}

/* msperf_att_bindings: integers stay integers, numbers doubles; names must be symbols. */
static void
test_att_bindings_parse (void **state)
{
  g_autoptr (msperf_expr_ctx) ctx = msperf_expr_ctx_new ();
  g_autoptr (GError) error = NULL;
  msperf_value *b = msperf_value_new (MSPERF_VALUE_MAP);
  g_autoptr (msperf_value) att = NULL;
  g_autoptr (msperf_value) bad = NULL;
  g_autoptr (GHashTable) t = NULL;
  int64_t i = 0;

  (void) state;
  msperf_value_map_set (b, "n", msperf_value_new_int (300));
  msperf_value_map_set (b, "x", msperf_value_new_double (0.5));
  att = att_with (b);
  t = msperf_att_bindings (ctx, att, &error);
  assert_non_null (t);
  assert_int_equal (g_hash_table_size (t), 2);
  assert_true (msperf_expr_get_int (g_hash_table_lookup (t, "n"), &i) && i == 300);
  bad = att_with (bind1 ("1n", msperf_value_new_int (1)));
  assert_null (msperf_att_bindings (ctx, bad, &error));
  assert_non_null (strstr (error->message, "att.bind: '1n' is not a symbol name"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_att_bind_check_refuses_out_of_domain_values_naming_the_symbol),
    cmocka_unit_test (test_att_bind_check_blames_only_the_bound_values),
    cmocka_unit_test (test_att_bind_check_accepts_in_domain_values),
    cmocka_unit_test (test_att_bindings_parse),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
