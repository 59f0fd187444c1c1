/* Tests of core/app/trace/json_fast.c: for every line it accepts, the tree must be json-glib's own
 * (json_parser_new_immutable, as trace.c uses), down to value types, member order, parents and
 * sealing; what it declines goes to json-glib, so declining is always correct, but it must not
 * decline the plain lines it exists for. */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <json-glib/json-glib.h>
#include "app/trace/json_fast.h"
#include "trace_corpus.h"

/* ------------------------------------------------------------------ deep comparison */

static char *node_diff (JsonNode *a, JsonNode *b, JsonNode *parent_a, JsonNode *parent_b,
                        const char *path);

static char *
value_diff (JsonNode *a, JsonNode *b, const char *path)
{
  GType ta = json_node_get_value_type (a), tb = json_node_get_value_type (b);
  double da, db;

  if (ta != tb)
    return g_strdup_printf ("%s: value type %s vs %s", path, g_type_name (ta), g_type_name (tb));
  switch (ta)
    {
    case G_TYPE_INT64:
      if (json_node_get_int (a) != json_node_get_int (b))
        return g_strdup_printf ("%s: %" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT, path,
                                json_node_get_int (a), json_node_get_int (b));
      return NULL;
    case G_TYPE_DOUBLE:
      da = json_node_get_double (a);
      db = json_node_get_double (b);
      if (memcmp (&da, &db, sizeof da) != 0)
        return g_strdup_printf ("%s: %.17g vs %.17g", path, da, db);
      return NULL;
    case G_TYPE_BOOLEAN:
      if (json_node_get_boolean (a) != json_node_get_boolean (b))
        return g_strdup_printf ("%s: boolean differs", path);
      return NULL;
    case G_TYPE_STRING:
      if (g_strcmp0 (json_node_get_string (a), json_node_get_string (b)) != 0)
        return g_strdup_printf ("%s: \"%s\" vs \"%s\"", path, json_node_get_string (a),
                                json_node_get_string (b));
      return NULL;
    default:
      return g_strdup_printf ("%s: unexpected value type %s", path, g_type_name (ta));
    }
}

static char *
array_diff (JsonNode *a, JsonNode *b, const char *path)
{
  JsonArray *x = json_node_get_array (a), *y = json_node_get_array (b);
  guint n = json_array_get_length (x);

  if (n != json_array_get_length (y))
    return g_strdup_printf ("%s: %u vs %u elements", path, n, json_array_get_length (y));
  if (json_array_is_immutable (x) != json_array_is_immutable (y))
    return g_strdup_printf ("%s: array sealing differs", path);
  for (guint k = 0; k < n; k++)
    {
      g_autofree char *child = g_strdup_printf ("%s[%u]", path, k);
      char *diff = node_diff (json_array_get_element (x, k), json_array_get_element (y, k), a, b,
                              child);
      if (diff)
        return diff;
    }
  return NULL;
}

/* Member names in json_object_get_members order (what trace.c iterates), then each value. */
static char *
object_diff (JsonNode *a, JsonNode *b, const char *path)
{
  JsonObject *x = json_node_get_object (a), *y = json_node_get_object (b);
  g_autoptr (GList) mx = json_object_get_members (x);
  g_autoptr (GList) my = json_object_get_members (y);
  GList *l, *m;
  guint k = 0;

  if (json_object_get_size (x) != json_object_get_size (y))
    return g_strdup_printf ("%s: %u vs %u members", path, json_object_get_size (x),
                            json_object_get_size (y));
  if (json_object_is_immutable (x) != json_object_is_immutable (y))
    return g_strdup_printf ("%s: object sealing differs", path);
  for (l = mx, m = my; l && m; l = l->next, m = m->next, k++)
    {
      g_autofree char *child = g_strdup_printf ("%s.%s", path, (const char *) l->data);
      char *diff;

      if (strcmp (l->data, m->data) != 0)
        return g_strdup_printf ("%s: member %u is \"%s\" vs \"%s\"", path, k,
                                (const char *) l->data, (const char *) m->data);
      diff = node_diff (json_object_get_member (x, l->data), json_object_get_member (y, m->data),
                        a, b, child);
      if (diff)
        return diff;
    }
  if (l || m)
    return g_strdup_printf ("%s: member lists differ in length", path);
  return NULL;
}

/* NULL when a and b are the same tree, else where and how they first differ. */
static char *
node_diff (JsonNode *a, JsonNode *b, JsonNode *parent_a, JsonNode *parent_b, const char *path)
{
  if (JSON_NODE_TYPE (a) != JSON_NODE_TYPE (b))
    return g_strdup_printf ("%s: node type %s vs %s", path, json_node_type_name (a),
                            json_node_type_name (b));
  if (json_node_is_immutable (a) != json_node_is_immutable (b))
    return g_strdup_printf ("%s: node sealing differs", path);
  if ((json_node_get_parent (a) == parent_a) != (json_node_get_parent (b) == parent_b))
    return g_strdup_printf ("%s: parent differs", path);
  switch (JSON_NODE_TYPE (a))
    {
    case JSON_NODE_OBJECT:
      return object_diff (a, b, path);
    case JSON_NODE_ARRAY:
      return array_diff (a, b, path);
    case JSON_NODE_VALUE:
      return value_diff (a, b, path);
    case JSON_NODE_NULL:
    default:
      return NULL;
    }
}

static char *
tree_diff (JsonNode *a, JsonNode *b)
{
  return node_diff (a, b, NULL, NULL, "$");
}

/* ------------------------------------------------------------------ one line, both readers */

typedef struct {
  guint lines, fast;
} tally;

/* TRUE when the fast reader took text; then json-glib must have parsed it to the same tree.
 * json-glib runs only then: what the fast reader declines needs no comparison (and texts
 * json_text_ok refuses, such as several values, make json-glib leak). */
static gboolean
check_line (const char *text, tally *t)
{
  g_autoptr (JsonNode) fast = msperf_json_fast_parse (text, strlen (text));
  g_autoptr (JsonParser) parser = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *diff = NULL;

  if (t)
    t->lines++;
  if (fast == NULL)
    return FALSE;
  if (t)
    t->fast++;
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, text, -1, &error))
    fail_msg ("the fast reader took a line json-glib refuses (%s): %s", error->message, text);
  if (json_parser_get_root (parser) == NULL)
    fail_msg ("the fast reader took a line json-glib finds empty: %s", text);
  diff = tree_diff (fast, json_parser_get_root (parser));
  if (diff)
    fail_msg ("trees differ at %s in: %s", diff, text);
  return TRUE;
}

static void
expect_fast (const char *text)
{
  if (!check_line (text, NULL))
    fail_msg ("the fast reader declined a line it is for: %s", text);
}

static void
expect_declined (const char *text)
{
  g_autoptr (JsonNode) fast = msperf_json_fast_parse (text, strlen (text));

  if (fast != NULL)
    fail_msg ("the fast reader took a line outside its subset: %s", text);
}

/* ------------------------------------------------------------------ the comparison itself */

static JsonNode *
glib_tree (const char *text)
{
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();

  assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  return json_node_ref (json_parser_get_root (parser));
}

/* The comparison must see what a reader of the tree would: a float for an integer, a swapped
 * member order, a different string or a missing element. */
static void
test_json_fast_diff_sees_differences (void **state)
{
  static const char *const pairs[][2] = {
    { "{\"a\": 1}", "{\"a\": 1.0}" },
    { "{\"a\": 1, \"b\": 2}", "{\"b\": 2, \"a\": 1}" },
    { "{\"a\": \"x\"}", "{\"a\": \"y\"}" },
    { "{\"a\": [1, 2]}", "{\"a\": [1]}" },
    { "{\"a\": null}", "{\"a\": false}" },
    { "{\"a\": {}}", "{\"a\": []}" },
    { "{\"a\": 1}", "{\"b\": 1}" },
  };
  (void) state;

  for (guint k = 0; k < G_N_ELEMENTS (pairs); k++)
    {
      g_autoptr (JsonNode) a = glib_tree (pairs[k][0]);
      g_autoptr (JsonNode) b = glib_tree (pairs[k][1]);
      g_autofree char *diff = tree_diff (a, b);
      g_autofree char *same = tree_diff (a, a);

      if (diff == NULL)
        fail_msg ("no difference found between %s and %s", pairs[k][0], pairs[k][1]);
      assert_null (same);
    }
}

static gboolean
glib_accepts (const char *line)
{
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();

  return json_parser_load_from_data (parser, line, -1, NULL);
}

/* Every line of every trace under tests/data through both readers; the plain GEMM lines must
 * take the fast path (not a GEMM line with a float, as bad/trace-huge-dim.jsonl's 1e300, nor a
 * truncated one). */
static void
test_json_fast_corpus_matches_json_glib (void **state)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  tally t = { 0, 0 };
  guint gemm = 0;
  (void) state;

  tc_find_jsonl (tc_data_dir (), files);
  assert_true (files->len >= 20);
  for (guint f = 0; f < files->len; f++)
    {
      g_autofree char *text = NULL;
      gsize len;
      g_auto (GStrv) lines = NULL;

      assert_true (g_file_get_contents (files->pdata[f], &text, &len, NULL));
      lines = g_strsplit (text, "\n", -1);
      for (guint k = 0; lines[k]; k++)
        {
          char *line = lines[k];
          gsize n = strlen (line);

          if (n && line[n - 1] == '\r')
            line[n - 1] = '\0';
          check_line (line, &t);
          if (tc_is_gemm_line (line) && !tc_outside_subset (line) && glib_accepts (line))
            {
              gemm++;
              expect_fast (line);
            }
        }
    }
  print_message ("# %u lines in %u files, %u taken by the fast reader, %u GEMM lines\n",
                 t.lines, files->len, t.fast, gemm);
  assert_true (gemm >= 20);
  assert_true (t.fast >= gemm);
}

/* ------------------------------------------------------------------ generated lines */

#define GEMM_LINE \
  "{\"op\": \"aten.mm.default\", \"args\": [{\"shape\": [50, 11767], \"dtype\": \"bfloat16\"}, " \
  "{\"shape\": [11767, 660], \"dtype\": \"bfloat16\"}], \"out\": [{\"shape\": [50, 660], " \
  "\"dtype\": \"bfloat16\"}]}"

/* The forms the fast reader is for: whitespace anywhere JSON allows it, every value kind,
 * nesting up to the limit, integers up to 18 digits either sign. */
static void
test_json_fast_takes_plain_lines (void **state)
{
  static const char *const lines[] = {
    GEMM_LINE,
    "{}",
    " \t\r\n{ \t\r\n} \t\r\n",
    "{\"op\":\"x\",\"args\":[],\"kwargs\":{},\"out\":null,\"count\":1}",
    "  { \"op\" :\t\"x\" , \"args\" : [ 1 ,2,\t3 ] , \"kwargs\" :{ \"a\" : true , \"b\":false,"
    "\"c\" : null } }  ",
    "{\"a\": [[], [[]], {}, [{}], {\"b\": {\"c\": [null]}}]}",
    "{\"a\": 0, \"b\": -0, \"c\": -1, \"d\": 10, \"e\": -10, \"f\": 7}",
    "{\"a\": 999999999999999999, \"b\": -999999999999999999, \"c\": 100000000000000000}",
    "{\"a\": 123456789012345678, \"b\": -123456789012345678}",
    "{\"a\": \"\", \"b\": \" \", \"c\": \"a/b:c,d{e}f[g]h\", \"d\": \"~!@#$%^&*()_+`'\"}",
    "{\"a\": \"null\", \"true\": \"false\", \"1\": \"-1\"}",
    "{\"op\": \"x\", \"att\": {\"kind\": \"cast\", \"shape\": [1, 2, 3]}, \"count\": 3}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [], \"dtype\": \"float32\", \"stride\": [],"
    " \"format\": \"ND\", \"values\": [1, 2]}], \"kwargs\": {\"shape\": [4]}}",
    "{\"typo\": 1, \"op\": \"x\", \"arg\": [], \"z\": {\"y\": 2, \"x\": 1, \"w\": 0}}",
  };
  (void) state;

  for (guint k = 0; k < G_N_ELEMENTS (lines); k++)
    expect_fast (lines[k]);
}

/* A line nested depth deep ({"a": [[...[1]...]]}: the object is one level). */
static char *
nested_line (guint depth)
{
  GString *s = g_string_new ("{\"a\": ");

  for (guint k = 1; k < depth; k++)
    g_string_append_c (s, '[');
  g_string_append (s, "1");
  for (guint k = 1; k < depth; k++)
    g_string_append_c (s, ']');
  g_string_append_c (s, '}');
  return g_string_free (s, FALSE);
}

static void
test_json_fast_nesting_limit (void **state)
{
  g_autofree char *ok = nested_line (64);
  g_autofree char *deep = nested_line (65);
  (void) state;

  expect_fast (ok);
  expect_declined (deep);
}

/* Everything outside the subset, valid JSON or not, is declined. */
static void
test_json_fast_declines_the_rest (void **state)
{
  static const char *const lines[] = {
    /* not one object */
    "", " ", "\n", "[]", "[1, 2]", "1", "\"x\"", "null", "true", "{} {}", "{}x", "{},",
    "{}}", "{} []",
    /* numbers other than short integers */
    "{\"a\": 1.0}", "{\"a\": 1.5}", "{\"a\": -0.0}", "{\"a\": 1e5}", "{\"a\": 1E5}",
    "{\"a\": 1e-5}", "{\"a\": 0e0}", "{\"a\": -1.5e-3}", "{\"a\": 1000000000000000000}",
    "{\"a\": -1000000000000000000}", "{\"a\": 9223372036854775807}",
    "{\"a\": -9223372036854775808}", "{\"a\": 9223372036854775808}",
    "{\"a\": 12345678901234567890123}", "{\"a\": 01}", "{\"a\": -01}", "{\"a\": 00}",
    "{\"a\": +1}", "{\"a\": -}", "{\"a\": - 1}", "{\"a\": .5}", "{\"a\": 5.}",
    "{\"a\": 0x10}", "{\"a\": 1}x", "{\"a\": [1x]}", "{\"a\": NaN}", "{\"a\": Infinity}",
    /* strings outside ASCII or with escapes */
    "{\"a\": \"\\n\"}", "{\"a\": \"\\\"\"}", "{\"a\": \"\\\\\"}", "{\"a\": \"\\/\"}",
    "{\"a\": \"\\u00e9\"}", "{\"a\": \"\\ud83d\\ude00\"}", "{\"a\": \"caf\xc3\xa9\"}",
    "{\"caf\xc3\xa9\": 1}", "{\"a\": \"\xe2\x82\xac\"}", "{\"a\\n\": 1}",
    "{\"a\": \"x\ty\"}", "{\"a\": \"x\x7fy\"}" /* DEL is fine for both: see below */,
    /* keys */
    "{\"a\": 1, \"a\": 2}", "{\"a\": 1, \"b\": 2, \"a\": 3}", "{\"x\": {\"a\": 1, \"a\": 1}}",
    "{\"\": 1}", "{a: 1}", "{'a': 1}", "{\"a\" 1}", "{\"a\": }", "{\"a\"}", "{1: 2}",
    /* structure */
    "{\"a\": 1,}", "{\"a\": [1, 2,]}", "{\"a\": [,]}", "{,}", "{\"a\": 1 \"b\": 2}",
    "{\"a\": [1 2]}", "{\"a\": [1, 2}", "{\"a\": {\"b\": 1]}", "{\"a\": [", "{\"a\": ",
    "{\"a\"", "{", "{\"a\": \"x", "{\"a\": tru}", "{\"a\": truex}", "{\"a\": nul}",
    "{\"a\": nulll}", "{\"a\": True}", "{\"a\": FALSE}", "{\"a\": undefined}",
    "{\"a\": 1} // c", "{/* c */\"a\": 1}", "{\"a\": 1}\f", "\xef\xbb\xbf{\"a\": 1}",
    "{\"a\":\v1}", "var a = {\"a\": 1}",
  };
  (void) state;

  for (guint k = 0; k < G_N_ELEMENTS (lines); k++)
    {
      /* DEL (0x7f) is neither a control byte nor non-ASCII: both readers take it */
      if (strchr (lines[k], '\x7f'))
        expect_fast (lines[k]);
      else
        expect_declined (lines[k]);
    }
}

/* Embedded NUL and length: only len bytes are read, and a NUL inside is not JSON. */
static void
test_json_fast_reads_len_bytes (void **state)
{
  static const char text[] = "{\"a\": 1}{\"b\": 2}";
  static const char nul[] = "{\"a\": \"x\0y\"}";
  g_autoptr (JsonNode) first = msperf_json_fast_parse (text, 8);
  g_autoptr (JsonNode) all = msperf_json_fast_parse (text, sizeof text - 1);
  g_autoptr (JsonNode) with_nul = msperf_json_fast_parse (nul, sizeof nul - 1);
  g_autoptr (JsonNode) none = msperf_json_fast_parse (text, 0);
  (void) state;

  assert_non_null (first);
  assert_int_equal (json_object_get_size (json_node_get_object (first)), 1);
  assert_null (all);
  assert_null (with_nul);
  assert_null (none);
}

/* Variants of every GEMM line shape: whitespace added or removed around every token, keys
 * reordered and renamed, dims made negative and long; each either declined or the same tree. */
static void
test_json_fast_generated_variants (void **state)
{
  static const char *const ws[] = { "", " ", "  ", "\t", "\n", "\r\n", " \t " };
  GRand *rand = g_rand_new_with_seed (42);
  tally t = { 0, 0 };
  (void) state;

  for (guint k = 0; k < 4000; k++)
    {
      GString *s = g_string_new (NULL);
      const char *w = ws[g_rand_int_range (rand, 0, G_N_ELEMENTS (ws))];
      gint64 m = g_rand_int_range (rand, 0, 1 << 30), n;
      guint digits = (guint) g_rand_int_range (rand, 1, 21);
      char dims[32];

      /* an integer of 1..20 digits, either sign: 18 is the edge */
      for (guint d = 0; d < digits; d++)
        dims[d] = (char) ('0' + (d == 0 ? g_rand_int_range (rand, 1, 10)
                                        : g_rand_int_range (rand, 0, 10)));
      dims[digits] = '\0';
      n = g_rand_boolean (rand) ? -1 : 1;
      g_string_append_printf (s, "%s{%s\"op\"%s:%s\"aten.mm.default\"%s,%s\"args\"%s:%s[%s{"
                              "\"shape\":%s[%" G_GINT64_FORMAT ",%s%s%s]%s,\"dtype\":"
                              "\"bfloat16\"}%s]%s,%s\"count\":%s%s%s%s}%s",
                              w, w, w, w, w, w, w, w, w, w, m * n, w, n < 0 ? "-" : "", dims, w,
                              w, w, w, w, g_rand_boolean (rand) ? "1" : "2", w,
                              g_rand_boolean (rand) ? ", \"x\": 1.5" : "", w);
      if (check_line (s->str, &t) != (digits <= 18 && strstr (s->str, "1.5") == NULL))
        fail_msg ("taken or declined wrongly: %s", s->str);
      g_string_free (s, TRUE);
    }
  g_rand_free (rand);
  print_message ("# %u generated lines, %u taken by the fast reader\n", t.lines, t.fast);
  assert_true (t.fast > 1000);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_json_fast_diff_sees_differences),
    cmocka_unit_test (test_json_fast_corpus_matches_json_glib),
    cmocka_unit_test (test_json_fast_takes_plain_lines),
    cmocka_unit_test (test_json_fast_nesting_limit),
    cmocka_unit_test (test_json_fast_declines_the_rest),
    cmocka_unit_test (test_json_fast_reads_len_bytes),
    cmocka_unit_test (test_json_fast_generated_variants),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
