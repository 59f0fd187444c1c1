/* Tests of core/trace.c: JSON Lines op traces and the upstream op-summary JSON (FORMATS §2). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>
#include <msperf/error.h>
#include <msperf/op.h>
#include "app/trace/trace.h"

/* All items of a reader, in order (element type msperf_trace_item). */
static void
item_array_clear (gpointer p)
{
  msperf_trace_item_clear (p);
}

static GArray *
read_all (msperf_trace_reader *r)
{
  GArray *items = g_array_new (FALSE, TRUE, sizeof (msperf_trace_item));
  msperf_trace_item item = { 0 };

  g_array_set_clear_func (items, item_array_clear);
  while (msperf_trace_reader_next (r, &item))
    {
      g_array_append_val (items, item);
      memset (&item, 0, sizeof item);
    }
  return items;
}

static GArray *
read_path (const char *path)
{
  g_autoptr (GError) error = NULL;
  msperf_trace_reader *r = msperf_trace_reader_open (path, &error);
  GArray *items;

  if (r == NULL)
    fail_msg ("%s: %s", path, error->message);
  items = read_all (r);
  msperf_trace_reader_free (r);
  return items;
}

static GArray *
read_data (const char *text, const char *name)
{
  g_autoptr (GError) error = NULL;
  msperf_trace_reader *r = msperf_trace_reader_open_data (text, -1, name, &error);
  GArray *items;

  if (r == NULL)
    fail_msg ("%s: %s", name, error->message);
  items = read_all (r);
  msperf_trace_reader_free (r);
  return items;
}

static char *
data_path (const char *rel)
{
  const char *dir = g_getenv ("MSPERF_TEST_DATADIR");

  if (dir == NULL)
    dir = MSPERF_SRCDIR "/tests/data";
  return g_build_filename (dir, rel, NULL);
}

static msperf_trace_item *
item_at (GArray *items, guint k)
{
  assert_true (k < items->len);
  return &g_array_index (items, msperf_trace_item, k);
}

static const msperf_value *
arg (const msperf_op *op, guint k)
{
  assert_true (k < op->args->len);
  return g_ptr_array_index (op->args, k);
}

static void
assert_dims (const msperf_tensor *t, int rank, ...)
{
  va_list ap;

  assert_int_equal (t->rank, rank);
  va_start (ap, rank);
  for (int k = 0; k < rank; k++)
    assert_int_equal (t->dims[k], va_arg (ap, int64_t));
  va_end (ap);
}

static void
assert_tensor_arg (const msperf_op *op, guint k, msperf_dtype dtype)
{
  const msperf_value *v = arg (op, k);

  assert_int_equal (v->kind, MSPERF_VALUE_TENSOR);
  assert_int_equal (v->tensor.dtype, dtype);
}

/* ------------------------------------------------------------------ JSON Lines */

/* Source: FORMATS.md §2 example lines (tests/data/trace/formats-examples.jsonl). */
static void
test_trace_formats_examples_parse_into_expected_ops (void **state)
{
  g_autofree char *path = data_path ("trace/formats-examples.jsonl");
  g_autoptr (GArray) items = read_path (path);
  /* Physical lines of the ops in the fixture (comments and blank lines in between). */
  static const guint lines[] = { 4, 5, 7, 8, 10, 11, 12, 13 };
  const msperf_op *op;
  const msperf_value *v, *att;

  (void) state;
  assert_int_equal (items->len, 8);
  for (guint k = 0; k < items->len; k++)
    {
      msperf_trace_item *it = item_at (items, k);
      assert_null (it->error);
      assert_non_null (it->op);
      assert_int_equal (it->index, k);
      assert_int_equal (it->op->index, k);
      assert_int_equal (it->line, lines[k]);
      assert_int_equal (it->op->line, lines[k]);
    }

  /* aten.mm: two bf16 tensors, the stride only validated, one output, count 32. */
  op = item_at (items, 0)->op;
  assert_string_equal (op->name, "aten.mm.default");
  assert_int_equal (op->args->len, 2);
  assert_tensor_arg (op, 0, MSPERF_DTYPE_BF16);
  assert_dims (&arg (op, 0)->tensor, 2, (int64_t) 128, (int64_t) 4096);
  assert_dims (&arg (op, 1)->tensor, 2, (int64_t) 4096, (int64_t) 11008);
  assert_int_equal (arg (op, 1)->tensor.format, MSPERF_FORMAT_ND);
  assert_null (arg (op, 1)->tensor.values);
  assert_int_equal (op->out->len, 1);
  assert_dims (g_ptr_array_index (op->out, 0), 2, (int64_t) 128, (int64_t) 11008);
  assert_int_equal (op->count, 32);
  assert_null (op->att);

  /* attention: 3 tensors, 3 None, then seq_lens and query_lens carrying their values. */
  op = item_at (items, 1)->op;
  assert_string_equal (op->name, "tensor_cast.attention.default");
  assert_int_equal (op->args->len, 8);
  assert_dims (&arg (op, 0)->tensor, 3, (int64_t) 4096, (int64_t) 32, (int64_t) 128);
  assert_dims (&arg (op, 2)->tensor, 3, (int64_t) 4096, (int64_t) 8, (int64_t) 128);
  for (guint k = 3; k < 6; k++)
    assert_int_equal (arg (op, k)->kind, MSPERF_VALUE_NONE);
  for (guint k = 6; k < 8; k++)
    {
      v = arg (op, k);
      assert_tensor_arg (op, k, MSPERF_DTYPE_INT64);
      assert_int_equal (v->tensor.n_values, 2);
      assert_int_equal (v->tensor.values[0], 2048);
      assert_int_equal (v->tensor.values[1], 2048);
    }
  assert_int_equal (op->count, 1);
  assert_int_equal (op->out->len, 0);

  /* all_reduce: a tensor, an int scalar and an int list (the rank group). */
  op = item_at (items, 2)->op;
  assert_int_equal (op->args->len, 3);
  assert_int_equal (arg (op, 1)->kind, MSPERF_VALUE_INT);
  assert_int_equal (arg (op, 1)->i, 0);
  assert_true (msperf_value_is_int_list (arg (op, 2)));
  assert_int_equal (arg (op, 2)->items->len, 4);

  /* Broadcast: att map with integer and symbol entries in a shape list. */
  op = item_at (items, 3)->op;
  assert_string_equal (op->name, "ascir.Broadcast");
  assert_int_equal (op->args->len, 0);
  att = op->att;
  assert_non_null (att);
  assert_int_equal (att->kind, MSPERF_VALUE_MAP);
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (att, "kind")),
                       "broadcast_extend");
  v = msperf_value_lookup (att, "dst_shapes");
  assert_non_null (v);
  assert_int_equal (v->kind, MSPERF_VALUE_LIST);
  assert_int_equal (v->items->len, 3);
  assert_int_equal (((msperf_value *) g_ptr_array_index (v->items, 1))->i, 16);
  assert_string_equal (msperf_value_get_string (g_ptr_array_index (v->items, 2)), "s0");
  /* Keys keep their order of the line. */
  assert_string_equal (g_ptr_array_index (att->keys, 0), "kind");
  assert_string_equal (g_ptr_array_index (att->keys, 3), "src_shapes");

  op = item_at (items, 4)->op;
  assert_int_equal (msperf_value_lookup (op->att, "count")->i, 300);
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (op->att, "source_kind")),
                       "kTensorVecIn");

  /* Cast: "shape" inside att is a plain int list, not a tensor. */
  op = item_at (items, 5)->op;
  v = msperf_value_lookup (op->att, "shape");
  assert_non_null (v);
  assert_true (msperf_value_is_int_list (v));
  assert_true (msperf_value_is_int_list (msperf_value_lookup (op->att, "input_strides")));

  /* torch.ops. prefix stripped; scalar kinds; kwargs map with a tensor; a single out tensor. */
  op = item_at (items, 6)->op;
  assert_string_equal (op->name, "aten.mul.Tensor");
  assert_tensor_arg (op, 0, MSPERF_DTYPE_BF16);
  assert_int_equal (arg (op, 1)->kind, MSPERF_VALUE_FLOAT);
  assert_true (arg (op, 1)->f == 0.5);
  assert_int_equal (arg (op, 2)->kind, MSPERF_VALUE_BOOL);
  assert_true (arg (op, 2)->b);
  assert_string_equal (msperf_value_get_string (arg (op, 3)), "x");
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (op->kwargs, "phase")),
                       "decode");
  v = msperf_value_lookup (op->kwargs, "is_decode_values");
  assert_int_equal (v->kind, MSPERF_VALUE_LIST);
  assert_int_equal (((msperf_value *) g_ptr_array_index (v->items, 1))->kind,
                    MSPERF_VALUE_BOOL);
  v = msperf_value_lookup (op->kwargs, "query_lens");
  assert_int_equal (v->kind, MSPERF_VALUE_TENSOR);
  assert_int_equal (v->tensor.dtype, MSPERF_DTYPE_INT32);
  assert_int_equal (v->tensor.n_values, 2);
  assert_int_equal (msperf_value_lookup (op->kwargs, "opts")->kind, MSPERF_VALUE_MAP);
  assert_int_equal (op->out->len, 1);
  assert_int_equal (((msperf_tensor *) g_ptr_array_index (op->out, 0))->dtype,
                    MSPERF_DTYPE_FLOAT32);

  op = item_at (items, 7)->op;
  assert_tensor_arg (op, 1, MSPERF_DTYPE_FLOAT16);
}

/* Each rejection case of FORMATS §2: the message names file and line, the reason is precise,
 * and the line after it still parses. */
static void
test_trace_bad_lines_are_rejected_and_the_rest_parses (void **state)
{
  static const struct {
    guint line;
    const char *op_name;  /* NULL when the name could not be read */
    const char *reason;   /* substring of the message after "FILE:LINE: " */
  } bad[] = {
    { 2, NULL, "invalid JSON" },
    { 4, NULL, "missing required key 'op'" },
    { 6, NULL, "'op' must be a string, got integer" },
    { 8, "bad.negative_dim", "args[0].shape: dimension -1 is negative" },
    { 10, "bad.overflow", "args[0].shape: element count overflows int64" },
    { 12, "bad.rank9", "args[0].shape: rank 9 exceeds the maximum 8" },
    { 14, "bad.dtype", "args[0]: unknown dtype 'foo'" },
    { 16, "bad.count0", "'count' must be an integer >= 1, got 0" },
    { 18, "bad.count_string", "'count' must be an integer >= 1, got string" },
    { 20, "bad.shape_not_list", "args[0].shape: must be a list of integers, got string" },
    { 22, "bad.dtype_missing", "args[0]: tensor has no 'dtype'" },
  };
  g_autofree char *path = data_path ("trace/bad-lines.jsonl");
  g_autoptr (GArray) items = read_path (path);

  (void) state;
  assert_int_equal (items->len, 2 * G_N_ELEMENTS (bad));
  for (guint k = 0; k < G_N_ELEMENTS (bad); k++)
    {
      msperf_trace_item *it = item_at (items, 2 * k);
      msperf_trace_item *good = item_at (items, 2 * k + 1);
      g_autofree char *prefix = g_strdup_printf ("%s:%u: ", path, bad[k].line);

      assert_null (it->op);
      assert_non_null (it->error);
      assert_true (g_str_has_prefix (it->error, prefix));
      if (strstr (it->error, bad[k].reason) == NULL)
        fail_msg ("line %u: \"%s\" lacks \"%s\"", bad[k].line, it->error, bad[k].reason);
      if (bad[k].op_name)
        assert_string_equal (it->op_name, bad[k].op_name);
      else
        assert_null (it->op_name);
      assert_int_equal (it->line, bad[k].line);
      assert_int_equal (it->index, 2 * k);

      assert_null (good->error);
      assert_non_null (good->op);
      assert_true (g_str_has_prefix (good->op->name, "good.after_"));
      assert_int_equal (good->line, bad[k].line + 1);
      assert_int_equal (good->index, 2 * k + 1);
    }
}

static void
assert_single_rejection (const char *text, const char *reason)
{
  g_autoptr (GArray) items = read_data (text, "t.jsonl");
  msperf_trace_item *it;

  assert_int_equal (items->len, 2);
  it = item_at (items, 0);
  assert_null (it->op);
  assert_non_null (it->error);
  if (!g_str_has_prefix (it->error, "t.jsonl:1: ") || strstr (it->error, reason) == NULL)
    fail_msg ("\"%s\" lacks \"t.jsonl:1: ...%s\"", it->error, reason);
  assert_non_null (item_at (items, 1)->op);
}

static void
test_trace_tensor_field_errors_are_precise (void **state)
{
  (void) state;
  assert_single_rejection ("{\"op\":\"a\",\"args\":[{\"shape\":[2,3],\"dtype\":\"bf16x\"}]}\n{\"op\":\"b\"}\n",
                           "args[0]: unknown dtype 'bf16x'");
  assert_single_rejection ("{\"op\":\"a\",\"args\":[[1,{\"shape\":[2.5],\"dtype\":\"int8\"}]]}\n{\"op\":\"b\"}\n",
                           "args[0][1].shape[0]: must be an integer, got number");
  assert_single_rejection ("{\"op\":\"a\",\"args\":[{\"shape\":[2],\"dtype\":\"int64\",\"values\":[1]}]}\n{\"op\":\"b\"}\n",
                           "args[0].values: has 1 entries but the shape holds 2");
  assert_single_rejection ("{\"op\":\"a\",\"args\":[{\"shape\":[2,2],\"dtype\":\"int64\",\"stride\":[1]}]}\n{\"op\":\"b\"}\n",
                           "args[0].stride: has 1 entries for a rank-2 shape");
  assert_single_rejection ("{\"op\":\"a\",\"kwargs\":{\"q\":{\"shape\":[-3],\"dtype\":\"int32\"}}}\n{\"op\":\"b\"}\n",
                           "kwargs.q.shape: dimension -3 is negative");
  assert_single_rejection ("{\"op\":\"a\",\"out\":[{\"shape\":[2],\"dtype\":\"float32\"},3]}\n{\"op\":\"b\"}\n",
                           "out[1]: must be a tensor");
  assert_single_rejection ("{\"op\":\"a\",\"args\":{}}\n{\"op\":\"b\"}\n", "'args' must be a list");
  assert_single_rejection ("{\"op\":\"a\",\"att\":[1]}\n{\"op\":\"b\"}\n", "'att' must be an object");
  assert_single_rejection ("{\"op\":\"a\",\"count\":2.0}\n{\"op\":\"b\"}\n",
                           "'count' must be an integer >= 1, got number");
  assert_single_rejection ("{\"op\":\"torch.ops.\"}\n{\"op\":\"b\"}\n", "'op' is empty");
  assert_single_rejection ("[1,2]\n{\"op\":\"b\"}\n", "a trace line must be a JSON object");
}

/* A malformed first line that is the only line is still reported per line, not as a whole
 * document failure; also CRLF line ends and a first line of comments. */
static void
test_trace_lone_malformed_line_and_crlf (void **state)
{
  g_autoptr (GArray) lone = read_data ("# header\n{\"op\": \"aten.mm.default\", \"count\": \n", "x");
  g_autoptr (GArray) crlf = read_data ("{\"op\": \"a\"}\r\n\r\n{\"op\": \"b\", \"count\": 3}\r\n", "y");

  (void) state;
  assert_int_equal (lone->len, 1);
  assert_null (item_at (lone, 0)->op);
  assert_true (g_str_has_prefix (item_at (lone, 0)->error, "x:2: invalid JSON"));
  assert_int_equal (item_at (lone, 0)->index, 0);

  assert_int_equal (crlf->len, 2);
  assert_string_equal (item_at (crlf, 1)->op->name, "b");
  assert_int_equal (item_at (crlf, 1)->op->count, 3);
  assert_int_equal (item_at (crlf, 1)->line, 3);
  assert_int_equal (item_at (crlf, 1)->index, 1);
}

static void
test_trace_empty_and_comment_only_inputs_have_no_items (void **state)
{
  g_autoptr (GArray) empty = read_data ("", "e");
  g_autoptr (GArray) comments = read_data ("# only\n\n   \n# comments", "c");

  (void) state;
  assert_int_equal (empty->len, 0);
  assert_int_equal (comments->len, 0);
}

static void
test_trace_open_errors (void **state)
{
  g_autoptr (GError) error = NULL;
  msperf_trace_reader *r;

  (void) state;
  r = msperf_trace_reader_open ("/nonexistent/trace.jsonl", &error);
  assert_null (r);
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO));
  assert_non_null (strstr (error->message, "/nonexistent/trace.jsonl"));
  g_clear_error (&error);

  /* Neither JSON Lines nor a JSON document. */
  r = msperf_trace_reader_open_data ("op: aten.mm\n", -1, "g.txt", &error);
  assert_null (r);
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE));
  assert_true (g_str_has_prefix (error->message, "g.txt:1:"));
  g_clear_error (&error);

  /* Valid JSON, but no op-summary. */
  r = msperf_trace_reader_open_data ("[\n {\"op\": \"a\"}\n]\n", -1, "l.json", &error);
  assert_null (r);
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE));
  assert_non_null (strstr (error->message, "op-summary"));
}

static void
test_trace_parse_op_single_object (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_op) op = NULL;

  (void) state;
  op = msperf_trace_parse_op ("{\"op\": \"torch.ops.aten.mm.default\", \"args\": "
                              "[{\"shape\": [136, 5120], \"dtype\": \"bfloat16\"}, "
                              "{\"shape\": [5120, 768], \"dtype\": \"bfloat16\"}], \"count\": 4}",
                              "--op", 0, &error);
  assert_null (error);
  assert_non_null (op);
  assert_string_equal (op->name, "aten.mm.default");
  assert_int_equal (op->count, 4);
  assert_dims (&arg (op, 1)->tensor, 2, (int64_t) 5120, (int64_t) 768);

  assert_null (msperf_trace_parse_op ("{\"op\": \"a\", \"count\": -2}", "--op", 1, &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID));
  assert_string_equal (error->message, "--op:1: 'count' must be an integer >= 1, got -2");
  g_clear_error (&error);

  assert_null (msperf_trace_parse_op ("{\"op\": ", "--op", 1, &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE));
  assert_true (g_str_has_prefix (error->message, "--op:1: invalid JSON"));
}

/* "-" reads standard input and names it "<stdin>" in messages. */
static void
test_trace_stdin_is_read_for_dash (void **state)
{
  g_autofree char *path = data_path ("trace/bad-lines.jsonl");
  g_autoptr (GArray) items = NULL;

  (void) state;
  assert_non_null (freopen (path, "r", stdin));
  items = read_path ("-");
  assert_int_equal (items->len, 22);
  assert_true (g_str_has_prefix (item_at (items, 0)->error, "<stdin>:2: invalid JSON"));
  assert_string_equal (item_at (items, 21)->op->name, "good.after_dtype_missing");
}

/* ------------------------------------------------------------------ op-summary */

static void
test_trace_summary_splits_count_over_variants (void **state)
{
  g_autofree char *path = data_path ("trace/summary-small.json");
  g_autoptr (GArray) items = read_path (path);
  static const int64_t counts[] = { 4, 3, 3, 2 };  /* 10 over 3 → 4,3,3 (remainder first) */
  const msperf_op *op;
  const msperf_tensor *out;

  (void) state;
  assert_int_equal (items->len, 4);
  for (guint k = 0; k < 4; k++)
    {
      msperf_trace_item *it = item_at (items, k);
      assert_null (it->error);
      assert_int_equal (it->index, k);
      assert_int_equal (it->op->index, k);
      assert_int_equal (it->op->count, counts[k]);
    }
  /* Each variant's line is where its object starts in the fixture. */
  assert_int_equal (item_at (items, 0)->line, 10);
  assert_int_equal (item_at (items, 2)->line, 14);

  op = item_at (items, 0)->op;
  assert_string_equal (op->name, "aten.mm.default");
  assert_int_equal (op->args->len, 2);
  assert_tensor_arg (op, 0, MSPERF_DTYPE_FLOAT16);
  assert_dims (&arg (op, 1)->tensor, 2, (int64_t) 5120, (int64_t) 768);
  assert_int_equal (arg (op, 1)->tensor.format, MSPERF_FORMAT_ND);
  out = g_ptr_array_index (op->out, 0);
  assert_dims (out, 2, (int64_t) 16, (int64_t) 768);
  assert_int_equal (out->dtype, MSPERF_DTYPE_FLOAT16);
  assert_tensor_arg (item_at (items, 1)->op, 1, MSPERF_DTYPE_BF16);

  /* Fewer dtypes than shapes: slots cannot be paired, so every dtype is unknown; "()" is a
   * scalar and "(5120,)" a one-element tuple. */
  op = item_at (items, 3)->op;
  assert_string_equal (op->name, "aten.where.self");
  assert_int_equal (op->args->len, 3);
  assert_tensor_arg (op, 0, MSPERF_DTYPE_UNKNOWN);
  assert_int_equal (arg (op, 1)->tensor.rank, 0);
  assert_dims (&arg (op, 2)->tensor, 1, (int64_t) 5120);
  assert_int_equal (((msperf_tensor *) g_ptr_array_index (op->out, 0))->dtype,
                    MSPERF_DTYPE_UNKNOWN);
}

/* A stray line after an op-summary document is one rejected item at its line, and the document
 * is answered: neither a whole-input error nor a JSON Lines reading of the document (each of
 * its lines rejected) when its first line is not "{" alone. */
static void
test_trace_summary_trailing_junk_is_rejected_at_its_line (void **state)
{
  static const char *const docs[] = {
    /* first line an incomplete object that does not open with "ops" */
    "{\"model\": \"m\",\n  \"ops\": [\n    {\"op_name\": \"aten.add.Tensor\", \"count\": 2},\n"
    "    {\"op_name\": \"aten.mul.Tensor\"}\n  ]\n}\njunk here\n",
    /* the whole document on line 1 */
    "{\"ops\": [{\"op_name\": \"aten.add.Tensor\", \"count\": 2}, {\"op_name\": \"aten.mul.Tensor\"}]}"
    "\n\n\njunk here\n",
  };
  static const guint junk_line[] = { 7, 4 };
  static const guint end_line[] = { 6, 1 };

  (void) state;
  for (guint d = 0; d < G_N_ELEMENTS (docs); d++)
    {
      g_autoptr (GArray) items = read_data (docs[d], "s.json");
      g_autofree char *want = g_strdup_printf ("s.json:%u: unexpected content after the "
                                               "op-summary document, which ends on line %u",
                                               junk_line[d], end_line[d]);
      msperf_trace_item *junk;

      assert_int_equal (items->len, 3);
      assert_null (item_at (items, 0)->error);
      assert_string_equal (item_at (items, 0)->op->name, "aten.add.Tensor");
      assert_int_equal (item_at (items, 0)->op->count, 2);
      assert_null (item_at (items, 1)->error);
      assert_string_equal (item_at (items, 1)->op->name, "aten.mul.Tensor");
      junk = item_at (items, 2);
      assert_null (junk->op);
      assert_non_null (junk->error);
      assert_string_equal (junk->error, want);
      assert_int_equal (junk->line, junk_line[d]);
      assert_int_equal (junk->index, 2);
    }
}

/* Entries of "ops" that are not objects are rejected with the line they are on, as every other
 * entry is (json-glib keeps no position of a scalar). */
static void
test_trace_summary_non_object_entries_have_their_line (void **state)
{
  static const char doc[] =
    "{\n  \"ops\": [\n    1,\n    \"x, ]\"\n    , null,\n"
    "    {\"op_name\": \"aten.add.Tensor\"},\n    [2], true\n  ],\n  \"other\": [3]\n}\n";
  static const char *const want[] = {
    "s.json:3: ops[0]: must be an object, got integer",
    "s.json:4: ops[1]: must be an object, got string",
    "s.json:5: ops[2]: must be an object, got null",
    NULL,
    "s.json:7: ops[4]: must be an object, got list",
    "s.json:7: ops[5]: must be an object, got boolean",
  };
  g_autoptr (GArray) items = read_data (doc, "s.json");

  (void) state;
  assert_int_equal (items->len, G_N_ELEMENTS (want));
  for (guint k = 0; k < G_N_ELEMENTS (want); k++)
    {
      msperf_trace_item *it = item_at (items, k);

      if (want[k] == NULL)
        {
          assert_null (it->error);
          assert_int_equal (it->line, 6);
          continue;
        }
      assert_non_null (it->error);
      assert_string_equal (it->error, want[k]);
      assert_int_equal (it->line, g_ascii_strtoull (want[k] + strlen ("s.json:"), NULL, 10));
    }
}

static void
test_trace_summary_count_split_edge_cases (void **state)
{
  const char *doc = "{\"ops\": [{\"op_name\": \"a\", \"count\": 2, \"shape_variants\": ["
                    "{\"input_shapes\": [\"(1)\"], \"input_dtypes\": [\"int8\"]},"
                    "{\"input_shapes\": [\"(2)\"], \"input_dtypes\": [\"int8\"]},"
                    "{\"input_shapes\": [\"(3)\"], \"input_dtypes\": [\"int8\"]}]},"
                    "{\"op_name\": \"b\", \"count\": 5},"
                    "{\"op_name\": \"c\", \"shape_variants\": [{\"input_shapes\": [\"(-1)\"]}]},"
                    "{\"op_name\": \"d\", \"shape_variants\": [{\"input_shapes\": [\"(2)\"], "
                    "\"input_dtypes\": [\"complex32\"]}]}]}";
  g_autoptr (GArray) items = read_data (doc, "s.json");

  (void) state;
  /* A single-line summary is detected as a document (it has "ops" and no "op"). 2 over 3
   * variants: 1, 1 and a variant with no occurrence, which is no invocation. */
  assert_int_equal (items->len, 5);
  assert_int_equal (item_at (items, 0)->op->count, 1);
  assert_int_equal (item_at (items, 1)->op->count, 1);
  assert_int_equal (arg (item_at (items, 1)->op, 0)->tensor.dims[0], 2);
  /* An op without variants is one op with no tensors and its whole count. */
  assert_string_equal (item_at (items, 2)->op->name, "b");
  assert_int_equal (item_at (items, 2)->op->count, 5);
  assert_int_equal (item_at (items, 2)->op->args->len, 0);
  /* Malformed variants are rejected items, named. */
  assert_null (item_at (items, 3)->op);
  assert_string_equal (item_at (items, 3)->op_name, "c");
  assert_non_null (strstr (item_at (items, 3)->error, "is negative"));
  assert_true (g_str_has_prefix (item_at (items, 3)->error, "s.json:1: "));
  assert_non_null (strstr (item_at (items, 4)->error, "unknown dtype 'complex32'"));
  assert_int_equal (item_at (items, 4)->index, 4);
}

/* Source: msmodeling tests/benchmark/ops/perf_database/fixtures/traces/qwen3_32b_decode.json
 * (30 ops, 51 shape variants, "total_ops": 2392; aten.mm count 129 over 3 variants). */
static void
test_trace_summary_real_qwen3_decode (void **state)
{
  g_autofree char *path = data_path ("trace/qwen3_32b_decode.json");
  g_autoptr (GArray) items = read_path (path);
  int64_t total = 0;
  const msperf_op *op;

  (void) state;
  assert_int_equal (items->len, 51);
  for (guint k = 0; k < items->len; k++)
    {
      msperf_trace_item *it = item_at (items, k);
      if (it->error)
        fail_msg ("%s", it->error);
      assert_int_equal (it->op->index, k);
      total += it->op->count;
    }
  assert_int_equal (total, 2392);

  op = item_at (items, 0)->op;
  assert_string_equal (op->name, "aten.mm.default");
  assert_int_equal (op->count, 43);
  assert_int_equal (item_at (items, 0)->line, 49);
  assert_dims (&arg (op, 0)->tensor, 2, (int64_t) 16, (int64_t) 5120);
  assert_dims (&arg (op, 1)->tensor, 2, (int64_t) 5120, (int64_t) 768);
  assert_tensor_arg (op, 1, MSPERF_DTYPE_FLOAT16);

  /* tensor_cast.attention: q, k cache, v cache, block table — tensors only, no scalars. */
  op = item_at (items, 3)->op;
  assert_string_equal (op->name, "tensor_cast.attention.default");
  assert_int_equal (op->count, 64);
  assert_int_equal (op->args->len, 4);
  assert_dims (&arg (op, 1)->tensor, 4, (int64_t) 513, (int64_t) 128, (int64_t) 1,
               (int64_t) 128);
  assert_tensor_arg (op, 3, MSPERF_DTYPE_INT64);

  /* The summary's zero_cost: true rides on the op: 25 variants of 9 metadata ops,
   * the first aten.full (item 23); aten.mm is not flagged. */
  assert_false (item_at (items, 0)->op->zero_cost);
  assert_string_equal (item_at (items, 23)->op->name, "aten.full.default");
  assert_true (item_at (items, 23)->op->zero_cost);
  {
    guint flagged = 0;
    for (guint k = 0; k < items->len; k++)
      flagged += item_at (items, k)->op->zero_cost ? 1 : 0;
    assert_int_equal (flagged, 25);
  }
}

/* ------------------------------------------------------------------ sample traces */

static void
assert_sample_trace (const char *file, size_t n_ops, int64_t mm_m)
{
  const char *top = g_getenv ("MSPERF_TOP_SRCDIR");
  g_autofree char *path = g_build_filename (top ? top : MSPERF_SRCDIR, "doc", "examples",
                                            "traces", file, NULL);
  g_autoptr (GArray) items = read_path (path);
  gboolean seen_q = FALSE, seen_attn = FALSE, seen_view = FALSE;

  assert_int_equal (items->len, n_ops);
  for (guint k = 0; k < items->len; k++)
    {
      msperf_trace_item *it = item_at (items, k);
      const msperf_op *op = it->op;

      if (it->error)
        fail_msg ("%s", it->error);
      if (op->out->len == 0)
        fail_msg ("%s:%u: %s has no out", file, it->line, op->name);
      for (guint a = 0; a < op->args->len; a++)
        if (arg (op, a)->kind == MSPERF_VALUE_TENSOR && arg (op, a)->tensor.rank > 1)
          assert_int_equal (arg (op, a)->tensor.dtype, MSPERF_DTYPE_BF16);
      if (strcmp (op->name, "aten.mm.default") == 0 && arg (op, 1)->tensor.dims[1] == 4096
          && arg (op, 1)->tensor.dims[0] == 4096)
        {
          seen_q = TRUE;
          assert_int_equal (arg (op, 0)->tensor.dims[0], mm_m);
          assert_int_equal (op->count, 64);  /* q and o projections of 32 layers */
        }
      if (strcmp (op->name, "tensor_cast.attention.default") == 0)
        {
          seen_attn = TRUE;
          assert_int_equal (op->count, 32);
          assert_non_null (arg (op, 6)->tensor.values);
        }
      if (strcmp (op->name, "aten.view.default") == 0)
        seen_view = TRUE;
    }
  assert_true (seen_q && seen_attn && seen_view);
}

static void
test_trace_sample_traces_parse_without_rejections (void **state)
{
  (void) state;
  assert_sample_trace ("llama3-8b-prefill.jsonl", 15, 2048);
  assert_sample_trace ("llama3-8b-decode.jsonl", 15, 16);
}

/* Repeated lines are served from the reader's line cache (doc/performance.md, P3): each
 * item must still be its own op, equal to a fresh parse, with its own index and line; a
 * rejected line is never cached. */
static void
test_trace_repeated_lines_parse_into_independent_equal_ops (void **state)
{
  const char *mm = "{\"op\": \"aten.mm.default\", \"args\": [{\"shape\": [2, 3], \"dtype\": "
                   "\"bfloat16\", \"values\": [1, 2, 3, 4, 5, 6]}, {\"shape\": [3, 4], \"dtype\": \"bfloat16\"}], "
                   "\"kwargs\": {\"alpha\": 0.5}, \"out\": [{\"shape\": [2, 4], \"dtype\": "
                   "\"bfloat16\"}], \"count\": 3}";
  g_autofree char *text = g_strdup_printf ("%s\n{\"op\": 1}\n%s\n{\"op\": 1}\n%s\n", mm, mm, mm);
  g_autoptr (GArray) items = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_op) fresh = msperf_trace_parse_op (mm, "x", 1, &error);
  g_autofree char *sig = NULL;

  (void) state;
  assert_non_null (fresh);
  sig = msperf_op_signature (fresh);
  items = read_data (text, "rep.jsonl");
  assert_int_equal (items->len, 5);
  for (guint k = 0; k < 5; k += 2)
    {
      msperf_trace_item *it = item_at (items, k);
      g_autofree char *s = NULL;

      assert_non_null (it->op);
      s = msperf_op_signature (it->op);
      assert_string_equal (s, sig);
      assert_int_equal (it->op->count, 3);
      assert_int_equal (it->index, k);
      assert_int_equal (it->op->index, k);
      assert_int_equal (it->line, k + 1);
      assert_int_equal (it->op->line, k + 1);
      assert_int_equal (arg (it->op, 0)->tensor.n_values, 6);
    }
  /* Independent: changing one op leaves the others as parsed. */
  arg (item_at (items, 0)->op, 0)->tensor.values[0] = 99;
  assert_int_equal (arg (item_at (items, 2)->op, 0)->tensor.values[0], 1);
  assert_ptr_not_equal (item_at (items, 2)->op->out, item_at (items, 4)->op->out);
  for (guint k = 1; k < 5; k += 2)
    {
      g_autofree char *where = g_strdup_printf ("rep.jsonl:%u:", k + 1);

      assert_null (item_at (items, k)->op);
      assert_true (g_str_has_prefix (item_at (items, k)->error, where));
    }
}

/* ------------------------------------------------------------------ raw lines, parsed elsewhere */

/* Every item of path read with msperf_trace_reader_next_raw and parsed by two parsers taken
 * in turn (two jobs), with the unknown keys noted in input order, equals what
 * msperf_trace_reader_next gives: ops, errors, op names, lines, indexes and warnings. */
static void
assert_raw_equals_next (const char *path)
{
  g_autoptr (GError) error = NULL;
  msperf_trace_reader *a = msperf_trace_reader_open (path, &error);
  msperf_trace_reader *b = msperf_trace_reader_open (path, &error);
  msperf_trace_parser *p[2];
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  msperf_trace_item x = { 0 }, y = { 0 };
  guint n = 0;

  assert_non_null (a);
  assert_non_null (b);
  p[0] = msperf_trace_parser_new (b);
  p[1] = msperf_trace_parser_new (b);
  while (msperf_trace_reader_next (a, &x))
    {
      assert_true (msperf_trace_reader_next_raw (b, &y, text));
      if (y.op == NULL && y.error == NULL)
        {
          assert_true (text->len > 0);
          g_ptr_array_set_size (keys, 0);
          /* the same line parsed twice by one parser: its cache gives the same op */
          msperf_trace_parser_parse (p[n % 2], text->str, &y, keys);
          msperf_trace_reader_note_keys (b, y.line, keys);
        }
      assert_int_equal (x.index, y.index);
      assert_int_equal (x.line, y.line);
      assert_string_equal (x.error ? x.error : "-", y.error ? y.error : "-");
      assert_string_equal (x.op_name ? x.op_name : "-", y.op_name ? y.op_name : "-");
      assert_true ((x.op == NULL) == (y.op == NULL));
      if (x.op)
        {
          g_autofree char *sx = msperf_op_signature (x.op), *sy = msperf_op_signature (y.op);

          assert_string_equal (sx, sy);
          assert_int_equal (x.op->count, y.op->count);
          assert_int_equal (x.op->line, y.op->line);
          assert_int_equal (x.op->index, y.op->index);
        }
      msperf_trace_item_clear (&x);
      msperf_trace_item_clear (&y);
      n++;
    }
  assert_false (msperf_trace_reader_next_raw (b, &y, text));
  {
    const GPtrArray *wa = msperf_trace_reader_warnings (a), *wb = msperf_trace_reader_warnings (b);

    assert_int_equal (wa->len, wb->len);
    for (guint k = 0; k < wa->len; k++)
      assert_string_equal (g_ptr_array_index (wa, k), g_ptr_array_index (wb, k));
  }
  msperf_trace_parser_free (p[0]);
  msperf_trace_parser_free (p[1]);
  msperf_trace_reader_free (a);
  msperf_trace_reader_free (b);
}

static char *
write_temp (const char *text, gssize len)
{
  g_autoptr (GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("msperf-trace-XXXXXX.jsonl", &path, &error);

  assert_true (fd >= 0);
  close (fd);
  assert_true (g_file_set_contents (path, text, len, &error));
  return path;
}

/* Source: the tests/data/trace fixtures and a trace written here (unknown keys, repeats, CRLF). */
static void
test_trace_raw_lines_parsed_elsewhere_equal_next (void **state)
{
  const char *text =
    "\xef\xbb\xbf{\"op\": \"a\", \"arg\": [], \"count\": 2}\r\n"
    "{\"op\": \"a\", \"arg\": [], \"count\": 2}\r\n"
    "# comment\r\n"
    "{\"op\": \"b\", \"kwarg\": {}, \"cnt\": 1}\r"
    "{\"op\": \"a\", \"arg\": [], \"count\": 2}\n"
    "{\"op\": 3}\n"
    "{\"op\": \"c\", \"arg\": 1, \"zz\": 2}\n";
  g_autofree char *mixed = write_temp (text, -1);
  const char *rels[] = { "trace/bad-lines.jsonl", "trace/formats-examples.jsonl",
                         "trace/summary-small.json" };

  (void) state;
  for (gsize k = 0; k < G_N_ELEMENTS (rels); k++)
    {
      g_autofree char *path = data_path (rels[k]);
      assert_raw_equals_next (path);
    }
  assert_raw_equals_next (mixed);
  {
    g_autoptr (GError) error = NULL;
    msperf_trace_reader *r = msperf_trace_reader_open (mixed, &error);
    g_autoptr (GArray) items = NULL;
    const GPtrArray *w;

    assert_non_null (r);
    items = read_all (r);
    w = msperf_trace_reader_warnings (r);
    /* once per key, in the order of the lines, named by the line it was first seen on */
    assert_int_equal (w->len, 4);
    assert_true (g_str_has_suffix (g_ptr_array_index (w, 0),
                                   ":1: unknown key \"arg\" ignored (did you mean \"args\"?)"));
    assert_true (g_str_has_suffix (g_ptr_array_index (w, 1),
                                   ":4: unknown key \"kwarg\" ignored (did you mean \"kwargs\"?)"));
    assert_true (g_str_has_suffix (g_ptr_array_index (w, 2),
                                   ":4: unknown key \"cnt\" ignored (did you mean \"out\"?)"));
    assert_true (g_str_has_suffix (g_ptr_array_index (w, 3),
                                   ":7: unknown key \"zz\" ignored (did you mean \"op\"?)"));
    assert_int_equal (items->len, 6);
    assert_int_equal (item_at (items, 3)->line, 5);  /* the lone CR ended line 4 */
    assert_string_equal (item_at (items, 3)->op->name, "a");
    assert_int_equal (item_at (items, 4)->line, 6);
    assert_non_null (item_at (items, 4)->error);
    assert_false (msperf_trace_reader_is_stream (r));
    msperf_trace_reader_free (r);
  }
  g_unlink (mixed);
}

/* Files are read in 64 KB chunks: a CR LF, a line or a NUL split across a chunk boundary is
 * read as if whole. */
static void
test_trace_lines_across_read_chunks (void **state)
{
  const char *op = "{\"op\": \"a\", \"count\": 1}";

  (void) state;
  for (gsize at = 65536 - 3; at <= 65536 + 1; at++)
    {
      g_autoptr (GString) s = g_string_new (NULL);
      g_autofree char *path = NULL;
      g_autoptr (GArray) items = NULL;
      gsize pad;

      /* a comment line that ends (its CR) at byte `at`, then CR LF op lines */
      g_string_append (s, op);
      g_string_append (s, "\r\n#");
      pad = at - s->len - 1;
      for (gsize k = 0; k < pad; k++)
        g_string_append_c (s, 'x');
      g_string_append (s, "\r\n");
      g_string_append (s, op);
      g_string_append (s, "\r\n{\"op\": \"b\"}\r\n");
      g_string_append_len (s, "{\"op\": \"nul\0\"}\n", 15);
      path = write_temp (s->str, (gssize) s->len);
      items = read_path (path);
      assert_int_equal (items->len, 4);
      assert_int_equal (item_at (items, 1)->line, 3);
      assert_string_equal (item_at (items, 2)->op->name, "b");
      assert_int_equal (item_at (items, 2)->line, 4);
      assert_non_null (item_at (items, 3)->error);  /* the NUL became a control byte */
      assert_int_equal (item_at (items, 3)->line, 5);
      assert_raw_equals_next (path);
      g_unlink (path);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_trace_formats_examples_parse_into_expected_ops),
    cmocka_unit_test (test_trace_repeated_lines_parse_into_independent_equal_ops),
    cmocka_unit_test (test_trace_bad_lines_are_rejected_and_the_rest_parses),
    cmocka_unit_test (test_trace_tensor_field_errors_are_precise),
    cmocka_unit_test (test_trace_lone_malformed_line_and_crlf),
    cmocka_unit_test (test_trace_empty_and_comment_only_inputs_have_no_items),
    cmocka_unit_test (test_trace_open_errors),
    cmocka_unit_test (test_trace_parse_op_single_object),
    cmocka_unit_test (test_trace_stdin_is_read_for_dash),
    cmocka_unit_test (test_trace_summary_splits_count_over_variants),
    cmocka_unit_test (test_trace_summary_count_split_edge_cases),
    cmocka_unit_test (test_trace_summary_trailing_junk_is_rejected_at_its_line),
    cmocka_unit_test (test_trace_summary_non_object_entries_have_their_line),
    cmocka_unit_test (test_trace_summary_real_qwen3_decode),
    cmocka_unit_test (test_trace_sample_traces_parse_without_rejections),
    cmocka_unit_test (test_trace_raw_lines_parsed_elsewhere_equal_next),
    cmocka_unit_test (test_trace_lines_across_read_chunks),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
