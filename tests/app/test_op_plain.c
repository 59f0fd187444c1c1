/* Tests of core/app/trace/op_plain.c: for every line it takes, the op must be the one trace.c's full
 * path (a json-glib tree, msperf_trace_parse_op_tree) makes, down to value kinds, member order,
 * tensor dtypes, formats and values; whatever the full path reports an error or a warning for
 * it must decline (the full path then says it), and it must take the plain lines it exists for. */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <msperf/op.h>
#include "app/trace/op_plain.h"
#include "app/trace/trace.h"
#include "trace_corpus.h"

/* ------------------------------------------------------------------ deep comparison */

static char *
tensor_diff (const msperf_tensor *a, const msperf_tensor *b, const char *path)
{
  if (a->rank != b->rank || memcmp (a->dims, b->dims, sizeof (int64_t) * (size_t) a->rank) != 0)
    return g_strdup_printf ("%s: shape differs", path);
  if (a->dtype != b->dtype || a->format != b->format)
    return g_strdup_printf ("%s: dtype %d/%d, format %d/%d", path, a->dtype, b->dtype, a->format,
                            b->format);
  if (a->n_values != b->n_values || (a->values == NULL) != (b->values == NULL)
      || (a->n_values && memcmp (a->values, b->values, a->n_values * sizeof (int64_t)) != 0))
    return g_strdup_printf ("%s: values differ", path);
  return NULL;
}

static char *
value_diff (const msperf_value *a, const msperf_value *b, const char *path)
{
  if ((a == NULL) != (b == NULL))
    return g_strdup_printf ("%s: one is NULL", path);
  if (a == NULL)
    return NULL;
  if (a->kind != b->kind)
    return g_strdup_printf ("%s: kind %d vs %d", path, a->kind, b->kind);
  if (a->b != b->b || a->i != b->i || memcmp (&a->f, &b->f, sizeof a->f) != 0
      || g_strcmp0 (a->s, b->s) != 0 || a->line != b->line)
    return g_strdup_printf ("%s: scalar differs", path);
  if (a->kind == MSPERF_VALUE_TENSOR)
    return tensor_diff (&a->tensor, &b->tensor, path);
  if ((a->items == NULL) != (b->items == NULL) || (a->keys == NULL) != (b->keys == NULL))
    return g_strdup_printf ("%s: containers differ", path);
  if (a->items && a->items->len != b->items->len)
    return g_strdup_printf ("%s: %u vs %u items", path, a->items->len, b->items->len);
  for (guint k = 0; a->items && k < a->items->len; k++)
    {
      g_autofree char *sub = a->keys ? g_strdup_printf ("%s.%s", path, (char *) a->keys->pdata[k])
                                     : g_strdup_printf ("%s[%u]", path, k);
      char *d;

      if (a->keys && strcmp (a->keys->pdata[k], b->keys->pdata[k]) != 0)
        return g_strdup_printf ("%s: key '%s' vs '%s'", path, (char *) a->keys->pdata[k],
                                (char *) b->keys->pdata[k]);
      if ((d = value_diff (a->items->pdata[k], b->items->pdata[k], sub)) != NULL)
        return d;
    }
  return NULL;
}

static char *
op_diff (const msperf_op *a, const msperf_op *b)
{
  char *d;

  if (strcmp (a->name, b->name) != 0)
    return g_strdup_printf ("name '%s' vs '%s'", a->name, b->name);
  if (a->count != b->count || a->zero_cost != b->zero_cost || a->index != b->index)
    return g_strdup ("count, zero_cost or index differs");
  if (a->args->len != b->args->len)
    return g_strdup_printf ("%u vs %u args", a->args->len, b->args->len);
  for (guint k = 0; k < a->args->len; k++)
    {
      g_autofree char *path = g_strdup_printf ("args[%u]", k);

      if ((d = value_diff (a->args->pdata[k], b->args->pdata[k], path)) != NULL)
        return d;
    }
  if ((d = value_diff (a->kwargs, b->kwargs, "kwargs")) != NULL
      || (d = value_diff (a->att, b->att, "att")) != NULL)
    return d;
  if (a->out->len != b->out->len)
    return g_strdup_printf ("%u vs %u outputs", a->out->len, b->out->len);
  for (guint k = 0; k < a->out->len; k++)
    if ((d = tensor_diff (a->out->pdata[k], b->out->pdata[k], "out")) != NULL)
      return d;
  return NULL;
}

/* The deep comparison itself sees differences (a comparison that cannot fail proves nothing). */
static void
test_op_plain_diff_sees_differences (void **state)
{
  static const char *const pairs[][2] = {
    { "{\"op\": \"a\"}", "{\"op\": \"b\"}" },
    { "{\"op\": \"a\", \"count\": 2}", "{\"op\": \"a\"}" },
    { "{\"op\": \"a\", \"args\": [1]}", "{\"op\": \"a\", \"args\": [2]}" },
    { "{\"op\": \"a\", \"args\": [1]}", "{\"op\": \"a\", \"args\": [\"1\"]}" },
    { "{\"op\": \"a\", \"args\": [1]}", "{\"op\": \"a\", \"args\": [1, 1]}" },
    { "{\"op\": \"a\", \"args\": [{\"shape\": [1], \"dtype\": \"float16\"}]}",
      "{\"op\": \"a\", \"args\": [{\"shape\": [1], \"dtype\": \"bfloat16\"}]}" },
    { "{\"op\": \"a\", \"args\": [{\"shape\": [1], \"dtype\": \"int32\", \"values\": [1]}]}",
      "{\"op\": \"a\", \"args\": [{\"shape\": [1], \"dtype\": \"int32\", \"values\": [2]}]}" },
    { "{\"op\": \"a\", \"args\": [{\"shape\": [1], \"dtype\": \"float16\"}]}",
      "{\"op\": \"a\", \"args\": [{\"shape\": [1], \"dtype\": \"float16\", \"format\": \"NZ\"}]}" },
    { "{\"op\": \"a\", \"kwargs\": {\"x\": 1, \"y\": 2}}",
      "{\"op\": \"a\", \"kwargs\": {\"y\": 2, \"x\": 1}}" },
    { "{\"op\": \"a\", \"att\": {\"x\": true}}", "{\"op\": \"a\", \"att\": {\"x\": false}}" },
    { "{\"op\": \"a\", \"out\": {\"shape\": [2], \"dtype\": \"float16\"}}",
      "{\"op\": \"a\", \"out\": {\"shape\": [3], \"dtype\": \"float16\"}}" },
  };
  (void) state;

  for (guint k = 0; k < G_N_ELEMENTS (pairs); k++)
    {
      g_autoptr (msperf_op) a = msperf_trace_parse_op_tree (pairs[k][0], NULL);
      g_autoptr (msperf_op) b = msperf_trace_parse_op_tree (pairs[k][1], NULL);
      g_autofree char *d = NULL, *same = NULL;

      assert_non_null (a);
      assert_non_null (b);
      if ((d = op_diff (a, b)) == NULL)
        fail_msg ("no difference found between %s and %s", pairs[k][0], pairs[k][1]);
      same = op_diff (a, a);
      assert_null (same);
    }
}

/* ------------------------------------------------------------------ one line, both paths */

typedef struct {
  guint lines, plain;
} tally;

/* TRUE when the plain reader takes text; then the full path must make the same op. */
static gboolean
check_line (const char *text, tally *t)
{
  g_autoptr (msperf_op) plain = msperf_op_plain_parse (text, strlen (text));
  g_autoptr (msperf_op) tree = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *diff = NULL;

  if (t)
    t->lines++;
  if (plain == NULL)
    return FALSE;
  if (t)
    t->plain++;
  tree = msperf_trace_parse_op_tree (text, &error);
  if (tree == NULL)
    fail_msg ("the plain reader took a line the full path refuses (%s): %s", error->message,
              text);
  diff = op_diff (plain, tree);
  if (diff)
    fail_msg ("ops differ (%s) for: %s", diff, text);
  return TRUE;
}

static void
expect_plain (const char *text)
{
  if (!check_line (text, NULL))
    fail_msg ("the plain reader declined a line it is for: %s", text);
}

static void
expect_declined (const char *text)
{
  g_autoptr (msperf_op) plain = msperf_op_plain_parse (text, strlen (text));

  if (plain != NULL)
    fail_msg ("the plain reader took a line it must leave to the full path: %s", text);
}

#define GEMM_LINE \
  "{\"op\": \"aten.mm.default\", \"args\": [{\"shape\": [50, 11767], \"dtype\": \"bfloat16\"}, " \
  "{\"shape\": [11767, 660], \"dtype\": \"bfloat16\"}], \"out\": [{\"shape\": [50, 660], " \
  "\"dtype\": \"bfloat16\"}]}"

/* The forms it is for: every key, every value kind, tensors with all their members, tensors
 * nested in lists and maps, maps that only look like tensors, whitespace anywhere. */
static void
test_op_plain_takes_plain_lines (void **state)
{
  static const char *const lines[] = {
    GEMM_LINE,
    "{\"op\": \"torch.ops.aten.mm.default\", \"args\": []}",
    "{\"op\":\"x\",\"args\":[],\"kwargs\":{},\"out\":null,\"count\":1}",
    "{\"op\": \"x\", \"args\": null, \"kwargs\": null, \"out\": [], \"att\": null}",
    "  { \"op\" :\t\"x\" , \"args\" : [ 1 ,-2,\t0, true, false, null, \"s\", [], [[1], {}] ] ,"
    " \"kwargs\" :{ \"a\" : true , \"b\":false, \"c\" : null } }  ",
    "{\"count\": 7, \"op\": \"x\"}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [], \"dtype\": \"float32\"}]}",
    "{\"op\": \"x\", \"args\": [{\"dtype\": \"int64\", \"shape\": [2, 2], \"stride\": [2, 1],"
    " \"format\": \"ND\", \"values\": [1, 2, 3, 4]}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [0], \"dtype\": \"int32\", \"values\": []}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [16, 32], \"dtype\": \"float16\", \"format\":"
    " \"FRACTAL_NZ\", \"stride\": null, \"values\": null, \"format_extra\": [1.5, \"\\n\"]}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [1], \"dtype\": \"float16\", \"format\": null}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [1], \"dtype\": \"float16\", \"format\": \"weird\"}]}",
    "{\"op\": \"x\", \"args\": [[{\"shape\": [4, 8], \"dtype\": \"bfloat16\"},"
    " {\"shape\": [8], \"dtype\": \"bfloat16\"}]]}",
    "{\"op\": \"x\", \"args\": [{\"w\": {\"shape\": [3], \"dtype\": \"int8\"}, \"dtype\": \"x\","
    " \"format\": \"y\", \"stride\": [1, 2], \"values\": [3]}]}",
    "{\"op\": \"x\", \"kwargs\": {\"shape\": [4], \"dtype\": \"float16\", \"stride\": [1],"
    " \"bias\": {\"shape\": [4], \"dtype\": \"float16\"}}}",
    "{\"op\": \"x\", \"att\": {\"kind\": \"cast\", \"shape\": [1, 2, 3], \"dtype\": \"f\","
    " \"inner\": {\"shape\": [2]}}, \"count\": 3}",
    "{\"op\": \"x\", \"out\": {\"shape\": [2, 3], \"dtype\": \"float32\"}}",
    "{\"op\": \"x\", \"out\": [{\"shape\": [2], \"dtype\": \"float32\"},"
    " {\"shape\": [3], \"dtype\": \"int64\", \"values\": [1, 2, 3]}]}",
    "{\"op\": \"x\", \"args\": [999999999999999999, -999999999999999999, \"\", \" \"]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [1, 1, 1, 1, 1, 1, 1, 1], \"dtype\": \"float16\"}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [3037000499, 3037000499], \"dtype\": \"int8\"}]}",
  };
  (void) state;

  for (guint k = 0; k < G_N_ELEMENTS (lines); k++)
    {
      if (strstr (lines[k], "1.5"))  /* a float anywhere: the full path's */
        expect_declined (lines[k]);
      else
        expect_plain (lines[k]);
    }
}

/* Every line the full path rejects or warns about, and the lexical forms outside the subset. */
static void
test_op_plain_declines_the_rest (void **state)
{
  static const char *const lines[] = {
    /* not one op object */
    "", " ", "[]", "1", "{}", "{} {}", "{\"op\": \"x\"}x", "{\"args\": []}",
    /* the op */
    "{\"op\": \"\"}", "{\"op\": \"torch.ops.\"}", "{\"op\": null}", "{\"op\": 1}",
    "{\"op\": [\"x\"]}", "{\"op\": \"x\", \"op\": \"y\"}",
    /* unknown or repeated keys (the full path warns or keeps the last) */
    "{\"op\": \"x\", \"arg\": []}", "{\"op\": \"x\", \"Args\": []}",
    "{\"op\": \"x\", \"count\": 1, \"count\": 2}",
    "{\"op\": \"x\", \"kwargs\": {\"a\": 1, \"a\": 2}}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [1], \"shape\": [2], \"dtype\": \"int8\"}]}",
    /* the kinds of the keys */
    "{\"op\": \"x\", \"args\": {}}", "{\"op\": \"x\", \"args\": 1}", "{\"op\": \"x\", \"kwargs\": []}",
    "{\"op\": \"x\", \"kwargs\": 1}", "{\"op\": \"x\", \"out\": 1}", "{\"op\": \"x\", \"out\": [1]}",
    "{\"op\": \"x\", \"out\": {\"a\": 1}}", "{\"op\": \"x\", \"out\": [{}]}",
    "{\"op\": \"x\", \"att\": []}", "{\"op\": \"x\", \"att\": 1}",
    "{\"op\": \"x\", \"count\": 0}", "{\"op\": \"x\", \"count\": -1}",
    "{\"op\": \"x\", \"count\": \"2\"}", "{\"op\": \"x\", \"count\": null}",
    "{\"op\": \"x\", \"count\": 2.0}",
    /* tensors the full path rejects */
    "{\"op\": \"x\", \"args\": [{\"shape\": [1]}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [1], \"dtype\": \"float17\"}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [1], \"dtype\": null}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [1], \"dtype\": 16}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": null, \"dtype\": \"int8\"}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": \"[1]\", \"dtype\": \"int8\"}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [\"s\"], \"dtype\": \"int8\"}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [-1], \"dtype\": \"int8\"}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [1.0], \"dtype\": \"int8\"}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [1, 1, 1, 1, 1, 1, 1, 1, 1], \"dtype\": \"int8\"}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [4294967296, 4294967296], \"dtype\": \"int8\"}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [2], \"dtype\": \"int8\", \"format\": 1}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [2], \"dtype\": \"int8\", \"stride\": [1, 1]}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [2], \"dtype\": \"int8\", \"stride\": 1}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [2], \"dtype\": \"int8\", \"values\": [1]}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [2], \"dtype\": \"int8\", \"values\": [1, \"2\"]}]}",
    "{\"op\": \"x\", \"args\": [{\"shape\": [], \"dtype\": \"int8\", \"values\": []}]}",
    "{\"op\": \"x\", \"kwargs\": {\"b\": {\"shape\": [1], \"dtype\": \"nope\"}}}",
    "{\"op\": \"x\", \"out\": {\"shape\": [1], \"dtype\": \"nope\"}}",
    /* outside the lexical subset */
    "{\"op\": \"x\", \"args\": [1.5]}", "{\"op\": \"x\", \"args\": [1e3]}",
    "{\"op\": \"x\", \"args\": [1000000000000000000]}", "{\"op\": \"x\\u0041\"}",
    "{\"op\": \"caf\xc3\xa9\"}", "{\"op\": \"x\", \"args\": [01]}", "{\"op\": \"x\",}",
    "{\"op\": \"x\" \"args\": []}", "{\"op\": \"x\", \"args\": [1,]}", "{\"op\": \"x\"",
    "{\"op\": \"x\", \"args\": [\"a\tb\"]}", "\xef\xbb\xbf{\"op\": \"x\"}",
  };
  (void) state;

  for (guint k = 0; k < G_N_ELEMENTS (lines); k++)
    expect_declined (lines[k]);
}

/* Its limits: members, integers, nesting and string length decline rather than truncate. */
static void
test_op_plain_limits (void **state)
{
  g_autoptr (GString) many = g_string_new ("{\"op\": \"x\", \"kwargs\": {");
  g_autoptr (GString) ints = g_string_new ("{\"op\": \"x\", \"args\": [{\"shape\": [");
  g_autoptr (GString) deep = g_string_new ("{\"op\": \"x\", \"args\": ");
  g_autoptr (GString) longs = g_string_new ("{\"op\": \"x\", \"args\": [\"");
  g_autoptr (msperf_op) full = NULL;
  (void) state;

  for (guint k = 0; k < MSPERF_OP_PLAIN_MAX_MEMBERS; k++)
    g_string_append_printf (many, "%s\"k%u\": %u", k ? ", " : "", k, k);
  g_string_append (many, "}}");
  expect_plain (many->str);
  g_string_truncate (many, many->len - 2);
  g_string_append (many, ", \"one_more\": 1}}");
  expect_declined (many->str);

  g_string_append (ints, "256], \"dtype\": \"int32\", \"values\": [");
  for (guint k = 0; k < 256; k++)
    g_string_append_printf (ints, "%s%u", k ? ", " : "", k);
  g_string_append (ints, "]}]}");
  expect_declined (ints->str);  /* 257 integers: beyond the pool */
  full = msperf_trace_parse_op_tree (ints->str, NULL);
  assert_non_null (full);  /* which the full path takes */

  for (guint k = 0; k < 20; k++)
    g_string_append_c (deep, '[');
  for (guint k = 0; k < 20; k++)
    g_string_append_c (deep, ']');
  g_string_append_c (deep, '}');
  expect_declined (deep->str);

  for (guint k = 0; k < 300; k++)
    g_string_append_c (longs, 'a');
  g_string_append (longs, "\"]}");
  expect_declined (longs->str);
}

/* ------------------------------------------------------------------ corpus and variants */

/* Every line of every trace under tests/data and doc/examples through both paths; the GEMM lines
 * the full path takes without floats must take the plain path. */
static void
test_op_plain_corpus_matches_full_path (void **state)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  tally t = { 0, 0 };
  guint gemm = 0;
  (void) state;

  tc_find_jsonl (tc_data_dir (), files);
  tc_find_jsonl (MSPERF_SRCDIR "/doc/examples", files);
  assert_true (files->len >= 20);
  for (guint f = 0; f < files->len; f++)
    {
      g_autofree char *text = NULL;
      g_auto (GStrv) lines = NULL;

      assert_true (g_file_get_contents (files->pdata[f], &text, NULL, NULL));
      lines = g_strsplit (text, "\n", -1);
      for (guint k = 0; lines[k]; k++)
        {
          char *line = lines[k];
          gsize n = strlen (line);
          g_autoptr (msperf_op) tree = NULL;

          if (n && line[n - 1] == '\r')
            line[n - 1] = '\0';
          check_line (line, &t);
          if (tc_is_gemm_line (line) && !tc_outside_subset (line)
              && (tree = msperf_trace_parse_op_tree (line, NULL)) != NULL)
            {
              gemm++;
              expect_plain (line);
            }
        }
    }
  print_message ("# %u lines in %u files, %u taken by the plain reader, %u GEMM lines\n",
                 t.lines, files->len, t.plain, gemm);
  assert_true (t.plain >= gemm);
}

/* Mutations of plain lines: a byte deleted, duplicated or replaced anywhere. Each variant is
 * either declined or made into the full path's op (the full path may still reject it). */
static void
test_op_plain_mutations (void **state)
{
  static const char *const seeds[] = {
    GEMM_LINE,
    "{\"op\": \"x\", \"args\": [{\"shape\": [2, 2], \"dtype\": \"int64\", \"stride\": [2, 1],"
    " \"format\": \"ND\", \"values\": [1, 2, 3, 4]}, [1, -2], null], \"kwargs\": {\"a\": true,"
    " \"shape\": [4]}, \"out\": {\"shape\": [2], \"dtype\": \"float32\"}, \"count\": 3,"
    " \"att\": {\"k\": {\"shape\": [1]}}}",
  };
  static const char bytes[] = "{}[],:\" 0123456789-aenlrstuf";
  GRand *rand = g_rand_new_with_seed (7);
  tally t = { 0, 0 };
  (void) state;

  for (guint s = 0; s < G_N_ELEMENTS (seeds); s++)
    {
      gsize n = strlen (seeds[s]);

      for (gsize at = 0; at < n; at++)
        for (guint how = 0; how < 3; how++)
          {
            g_autoptr (GString) v = g_string_new (seeds[s]);

            if (how == 0)
              g_string_erase (v, (gssize) at, 1);
            else if (how == 1)
              g_string_insert_c (v, (gssize) at, seeds[s][at]);
            else
              v->str[at] = bytes[g_rand_int_range (rand, 0, (gint32) sizeof bytes - 1)];
            check_line (v->str, &t);
          }
    }
  g_rand_free (rand);
  print_message ("# %u variants, %u taken by the plain reader\n", t.lines, t.plain);
  assert_true (t.plain > 0 && t.plain < t.lines);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_op_plain_diff_sees_differences),
    cmocka_unit_test (test_op_plain_takes_plain_lines),
    cmocka_unit_test (test_op_plain_declines_the_rest),
    cmocka_unit_test (test_op_plain_limits),
    cmocka_unit_test (test_op_plain_corpus_matches_full_path),
    cmocka_unit_test (test_op_plain_mutations),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
