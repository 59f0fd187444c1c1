/* Tests for the outputs: core/numfmt.c, report_json.c (JSONL, JSON, CSV), report_chrome.c,
 * report_table.c and report_doc.c (FORMATS.md §5, reference profiling-semantics §3.4). */
#include <config.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <msperf/error.h>
#include <msperf/format.h>
#include "app/run/metrics.h"
#include "app/report/report.h"

/* ------------------------------------------------------------------ helpers */

static char *
py_float (double v)
{
  GString *s = g_string_new (NULL);
  msperf_fmt_py_float (s, v);
  return g_string_free (s, FALSE);
}

static char *
json_double (double v)
{
  GString *s = g_string_new (NULL);
  msperf_fmt_json_double (s, v);
  return g_string_free (s, FALSE);
}

static void
add_tensor (msperf_op *op, int rank, const int64_t *dims)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_TENSOR);

  v->tensor.dtype = MSPERF_DTYPE_BF16;
  v->tensor.rank = rank;
  memcpy (v->tensor.dims, dims, sizeof (int64_t) * (size_t) rank);
  g_ptr_array_add (op->args, v);
}

/* aten.mm (136,5120)x(5120,768) MEASURED 45.3 µs: reference §6 "Compute". */
static msperf_record *
mm_record (size_t index, const char *name, double latency, int64_t count)
{
  static const int64_t a[] = { 136, 5120 }, b[] = { 5120, 768 }, nz[] = { 320, 48, 16, 16 };
  msperf_record *r = msperf_record_new ();
  msperf_tensor kshape = { 0 };

  r->index = index;
  r->line = (guint) index + 1;
  r->count = count;
  r->op = msperf_op_new (name);
  add_tensor (r->op, 2, a);
  add_tensor (r->op, 2, b);
  r->op_name = g_strdup (r->op->name);
  r->signature = msperf_op_signature (r->op);
  r->analytic_us = 30.5;
  r->result = msperf_result_new ();
  msperf_result_set_hit (r->result, MSPERF_SOURCE_MEASURED, latency, 1.0, "MatMulV2", "identity");
  kshape.rank = 2;
  kshape.dims[0] = 136;
  kshape.dims[1] = 5120;
  msperf_result_add_kernel_shape (r->result, &kshape);
  kshape.rank = 4;
  memcpy (kshape.dims, nz, sizeof nz);
  msperf_result_add_kernel_shape (r->result, &kshape);
  return r;
}

static msperf_record *
analytic_record (size_t index, const char *name, double latency)
{
  static const int64_t a[] = { 128, 4096 };
  msperf_record *r = msperf_record_new ();
  msperf_value *fallback = msperf_value_new (MSPERF_VALUE_LIST);

  r->index = index;
  r->op = msperf_op_new (name);
  add_tensor (r->op, 2, a);
  g_ptr_array_add (r->op->args, msperf_value_new (MSPERF_VALUE_NONE));
  r->op_name = g_strdup (r->op->name);
  r->signature = msperf_op_signature (r->op);
  r->analytic_us = latency;
  r->result = msperf_result_new ();
  msperf_result_set_miss (r->result, "unmapped");
  r->result->source = MSPERF_SOURCE_ANALYTIC;
  r->result->latency_us = latency;
  r->result->confidence = 0.3;
  msperf_result_set_method (r->result, "roofline");
  msperf_result_detail_string (r->result, "base_reason", "unmapped");
  msperf_value_list_append (fallback, msperf_value_new_string ("1d(M): no_candidates"));
  msperf_result_detail_value (r->result, "fallback_reasons", fallback);
  msperf_result_detail_bool (r->result, "zero_cost", FALSE);
  return r;
}

static msperf_record *
rejected_record (size_t index)
{
  msperf_record *r = msperf_record_new ();

  r->index = index;
  r->line = (guint) index + 1;
  r->op_name = g_strdup ("aten.bad.default");
  r->error = g_strdup ("ops.jsonl:3: unknown dtype \"float99\"");
  r->result = msperf_result_new ();
  r->result->source = MSPERF_SOURCE_REJECTED;
  return r;
}

/* mm ×2 (45.3 µs), analytic add (12.25 µs), rejected line, mm again (same signature). */
static msperf_run *
sample_run (void)
{
  msperf_run *run = msperf_run_new ();

  run->database = g_strdup ("doc/examples/h200-db");
  run->policy_hash = g_strdup ("abc123");
  run->device_profile = g_strdup ("nvidia-h200");
  msperf_run_add (run, mm_record (0, "aten.mm.default", 45.3, 2));
  msperf_run_add (run, analytic_record (1, "aten.add.default", 12.25));
  msperf_run_add (run, rejected_record (2));
  msperf_run_add (run, mm_record (3, "aten.mm.default", 45.3, 1));
  return run;
}

typedef void (*writer_fn) (const msperf_run *run, FILE *out);

static char *
capture (writer_fn fn, const msperf_run *run)
{
  FILE *f = tmpfile ();
  GString *s = g_string_new (NULL);
  char buf[4096];
  size_t n;

  assert_non_null (f);
  fn (run, f);
  rewind (f);
  while ((n = fread (buf, 1, sizeof buf, f)) > 0)
    g_string_append_len (s, buf, (gssize) n);
  fclose (f);
  return g_string_free (s, FALSE);
}

static char *
tmp_path (const char *name, char **dir)
{
  *dir = g_dir_make_tmp ("msperf-reports-XXXXXX", NULL);
  assert_non_null (*dir);
  return g_build_filename (*dir, name, NULL);
}

static void
remove_tmp (char *path, char *dir)
{
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

/* ------------------------------------------------------------------ numfmt */

/* Python 3: repr(2.0), repr(45.3), repr(1e-05), repr(1e16), repr(0.1), repr(1e15),
 * repr(123456789012345678.0), repr(0.0001), repr(1/3), repr(5e-324). */
static void
test_numfmt_python_repr_floats (void **state)
{
  static const struct { double v; const char *text; } cases[] = {
    { 2.0, "2.0" }, { 45.3, "45.3" }, { 1e-05, "1e-05" }, { 1e16, "1e+16" }, { 0.1, "0.1" },
    { 1e15, "1000000000000000.0" }, { 123456789012345678.0, "1.2345678901234568e+17" },
    { 0.0001, "0.0001" }, { 1.0 / 3.0, "0.3333333333333333" }, { 5e-324, "5e-324" },
    { -2.5, "-2.5" }, { 0.0, "0.0" }, { 100.0, "100.0" }, { 1.5e-7, "1.5e-07" },
    { 1.7976931348623157e308, "1.7976931348623157e+308" }, { 214.156, "214.156" },
    /* repr(2.0 ** -1017): a power of two whose shortest digits are not its closest 16 */
    { 0x1p-1017, "7.120236347223045e-307" },
  };

  (void) state;
  for (gsize k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *text = py_float (cases[k].v);
      assert_string_equal (text, cases[k].text);
    }
}

static void
test_numfmt_json_double_nonfinite_is_null (void **state)
{
  g_autofree char *a = json_double (NAN);
  g_autofree char *b = json_double (INFINITY);
  g_autofree char *c = json_double (75.12);
  g_autofree char *d = py_float (NAN);

  (void) state;
  assert_string_equal (a, "null");
  assert_string_equal (b, "null");
  assert_string_equal (c, "75.12");
  assert_string_equal (d, "nan");
}

/* Reads "[-]d.ddde±xx" back after replacing its digits by d (same count) or by n + 1 digits. */
static gboolean
digits_read_back (double v, guint64 d, int ndigits, int exp10, char out[64])
{
  char digits[24];

  g_snprintf (digits, sizeof digits, "%" G_GUINT64_FORMAT, d);
  if ((int) strlen (digits) > ndigits)  /* 9.99 + 1 unit = 10.0: one more place */
    exp10++;
  else if ((int) strlen (digits) < ndigits)  /* 1.00 − 1 unit = 0.999: 9.99 a place lower */
    {
      memset (digits, '9', (size_t) ndigits);
      digits[ndigits] = '\0';
      exp10--;
    }
  g_snprintf (out, 64, "%s%c.%se%d", v < 0 ? "-" : "", digits[0], digits + 1, exp10);
  return strtod (out, NULL) == v;
}

/* The definition of the shortest digits, by brute force (what Python's repr prints): for each
 * length, the correctly rounded decimal (printf and strtod round correctly in glibc) if it
 * reads back, else its neighbour on the other side of v if that one does — only at a power of
 * two, whose rounding interval is twice as wide above as below, can a decimal farther than the
 * closest one read back. Returns the significant digits without trailing zeros. */
static void
scan_digits (double v, char out[32])
{
  char buf[64];
  int n = 0;

  for (int prec = 0; prec <= 16; prec++)
    {
      char *end;
      guint64 d = 0;
      int e;

      snprintf (buf, sizeof buf, "%.*e", prec, v);
      if (strtod (buf, NULL) == v)
        break;
      for (const char *p = buf; *p != 'e'; p++)
        if (g_ascii_isdigit (*p))
          d = d * 10 + (guint64) (*p - '0');
      e = (int) strtol (strchr (buf, 'e') + 1, &end, 10);
      if (digits_read_back (v, fabs (strtod (buf, NULL)) < fabs (v) ? d + 1 : d - 1, prec + 1, e,
                            buf))
        break;
    }
  for (const char *p = buf; *p && *p != 'e'; p++)
    if (g_ascii_isdigit (*p))
      out[n++] = *p;
  while (n > 1 && out[n - 1] == '0')
    n--;
  out[n] = '\0';
}

/* The significant digits of a repr string ("-0.00123" → "123", "1.5e+20" → "15"). */
static void
repr_digits (const char *text, char out[32])
{
  int n = 0;
  gboolean leading = TRUE;

  for (const char *p = text; *p && *p != 'e'; p++)
    {
      if (!g_ascii_isdigit (*p) || (leading && *p == '0'))
        continue;
      leading = FALSE;
      out[n++] = *p;
    }
  while (n > 1 && out[n - 1] == '0')
    n--;
  out[n] = '\0';
}

/* The one check of the shortest digits (it took over test_engine's check against the old
 * scan, which lacked the power-of-two neighbour). */
static void
check_shortest (double v)
{
  g_autofree char *text = py_float (v);
  char want[32], got[32];

  if (v == 0.0)  /* "0.0" and "-0.0": test_numfmt_python_repr_floats */
    return;
  if (strtod (text, NULL) != v)
    fail_msg ("%s does not read back as %.17g", text, v);
  scan_digits (v, want);
  repr_digits (text, got);
  if (strcmp (want, got) != 0)
    fail_msg ("%.17g: repr %s has digits %s, the shortest round trip is %s", v, text, got, want);
}

/* msperf_fmt_py_float (libdouble-conversion's shortest mode) against the brute-force
 * definition: random bit patterns over every exponent, values of the size the outputs carry
 * (latencies, weights, coordinates), and the edges where a shortcut would slip — powers of two
 * (their rounding interval is lopsided) and their neighbours, integers around 2^53, powers of
 * ten and their neighbours, subnormals, DBL_MIN and DBL_MAX. */
static void
test_numfmt_shortest_matches_printf_scan (void **state)
{
  GRand *rand = g_rand_new_with_seed (20261202);

  (void) state;
  for (int k = 0; k < 60000; k++)
    {
      guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
      double v;

      memcpy (&v, &bits, sizeof v);
      if (isfinite (v) && v != 0.0)
        check_shortest (v);
      v = g_rand_double_range (rand, -3.0, 7.0);
      check_shortest (pow (10.0, v));                       /* interpolated latencies */
      check_shortest (round (pow (10.0, v) * 1e6) / 1e6);   /* CSV latencies, 6 decimals */
      check_shortest (g_rand_double (rand));                /* weights */
      check_shortest (-(double) (bits >> 40));              /* integers */
      check_shortest (9007199254740992.0 - (double) (bits % 4096) * 0.5);  /* below 2^53 */
    }
  check_shortest (1e23);
  check_shortest (0.1);
  check_shortest (45.3);
  for (int e = -1074; e <= 1023; e++)
    {
      double p2 = ldexp (1.0, e);

      check_shortest (p2);
      check_shortest (nextafter (p2, 0.0));
      check_shortest (nextafter (p2, INFINITY));
    }
  for (int e = -323; e <= 308; e++)
    {
      char text[16];
      double p10;

      g_snprintf (text, sizeof text, "1e%d", e);
      p10 = strtod (text, NULL);

      check_shortest (p10);
      check_shortest (nextafter (p10, 0.0));
      check_shortest (nextafter (p10, INFINITY));
    }
  for (gint64 i = -50; i <= 50; i++)  /* 2^53 ± 50 (2, then 4 apart above 2^53) */
    check_shortest ((double) ((G_GINT64_CONSTANT (1) << 53) + i * 2));
  check_shortest (DBL_MIN);
  check_shortest (DBL_MAX);
  check_shortest (5e-324);
  check_shortest (-1.0 / 3.0);
  g_rand_free (rand);
}

/* Python round(): 0.5 → 0, 1.5 → 2, 2.5 → 2, 3.5 → 4, -0.5 → 0 (reference Q13). */
/* msperf_fmt_int writes what printf's %lld does, at the edges of int64 and between. */
static void
test_numfmt_int_matches_printf (void **state)
{
  const int64_t cases[] = { 0, 1, -1, 9, 10, -10, 42, 1000000007, -9007199254740993,
                            G_MAXINT64, G_MININT64, G_MININT64 + 1 };
  GString *s = g_string_new ("x");

  (void) state;
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *want = g_strdup_printf ("x%" G_GINT64_FORMAT, cases[k]);

      g_string_truncate (s, 1);
      msperf_fmt_int (s, cases[k]);
      assert_string_equal (s->str, want);
    }
  g_string_free (s, TRUE);
}

/* msperf_fmt_printable: ESC, C1 controls and invalid UTF-8 become \xNN, valid text stays. */
static void
test_numfmt_printable_escapes_control_and_invalid_bytes (void **state)
{
  g_autofree char *esc = msperf_fmt_printable ("a\033[31mb");
  g_autofree char *latin1 = msperf_fmt_printable ("traces/x\351y");
  g_autofree char *c1 = msperf_fmt_printable ("p\302\233q");
  g_autofree char *utf8 = msperf_fmt_printable ("µs ✓");
  g_autofree char *null = msperf_fmt_printable (NULL);

  (void) state;
  assert_string_equal (esc, "a\\x1b[31mb");
  assert_string_equal (latin1, "traces/x\\xe9y");
  assert_string_equal (c1, "p\\xc2\\x9bq");
  assert_string_equal (utf8, "µs ✓");
  assert_string_equal (null, "");
  assert_true (g_utf8_validate (latin1, -1, NULL));
}

/* A text formatter's input and the text it must append. */
typedef struct {
  const char *in, *out;
} text_case;

static void
text_cases (void (*fmt) (GString *, const char *), const text_case *cases, gsize n)
{
  GString *s = g_string_new (NULL);

  for (gsize k = 0; k < n; k++)
    {
      g_string_truncate (s, 0);
      fmt (s, cases[k].in);
      assert_string_equal (s->str, cases[k].out);
    }
  g_string_free (s, TRUE);
}

/* msperf_fmt_csv_field: plain text as it is; a comma, quote, CR, LF or an edge space quoted,
 * quotes doubled (RFC 4180); NULL empty. */
static void
test_numfmt_csv_field_quotes_what_splits (void **state)
{
  static const text_case cases[] = {
    { "plain_id_1", "plain_id_1" },
    { "a,b", "\"a,b\"" },
    { "say \"hi\"", "\"say \"\"hi\"\"\"" },
    { "two\nlines", "\"two\nlines\"" },
    { "cr\r", "\"cr\r\"" },
    { " edge", "\" edge\"" },
    { "", "" },
  };
  GString *s = g_string_new (NULL);

  (void) state;
  text_cases (msperf_fmt_csv_field, cases, G_N_ELEMENTS (cases));
  msperf_fmt_csv_field (s, NULL);
  assert_string_equal (s->str, "");
  g_string_free (s, TRUE);
}

/* msperf_fmt_shell_word: a word a shell leaves alone stays bare; a space, a quote, a newline,
 * a $ or an empty text is single-quoted, so that it stays one word and nothing expands. */
static void
test_numfmt_shell_word (void **state)
{
  static const text_case cases[] = {
    { "../models/meta-llama--Llama-3.1-8B.json", "../models/meta-llama--Llama-3.1-8B.json" },
    { "nvidia-h200", "nvidia-h200" },
    { "my presets/vllm.yaml", "'my presets/vllm.yaml'" },
    { "it's", "'it'\\''s'" },
    { "a\necho pwned", "'a\necho pwned'" },
    { "$HOME", "'$HOME'" },
    { "", "''" },
  };

  (void) state;
  text_cases (msperf_fmt_shell_word, cases, G_N_ELEMENTS (cases));
}

/* msperf_fmt_json_string: valid UTF-8 (2, 3, 4 bytes) is copied, any byte that is not part of
 * a valid sequence (Latin-1, a lone continuation, overlong, a surrogate, above U+10FFFF, cut
 * short) becomes \xNN, so the JSON text stays valid UTF-8 and shows what the text outputs show. */
static void
test_numfmt_json_string_escapes_invalid_utf8 (void **state)
{
  static const struct { const char *in, *out; } cases[] = {
    { "db\351", "\"db\\\\xe9\"" },
    { "µs ✓ 𝄞", "\"µs ✓ 𝄞\"" },
    { "a\200b", "\"a\\\\x80b\"" },
    { "\300\257", "\"\\\\xc0\\\\xaf\"" },            /* overlong '/' */
    { "\355\240\200", "\"\\\\xed\\\\xa0\\\\x80\"" }, /* the surrogate U+D800 */
    { "\364\220\200\200", "\"\\\\xf4\\\\x90\\\\x80\\\\x80\"" }, /* above U+10FFFF */
    { "x\342\234", "\"x\\\\xe2\\\\x9c\"" },         /* cut short at the end */
    { "q\"\\\n\001\177", "\"q\\\"\\\\\\n\\u0001\177\"" },
  };

  (void) state;
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (GString) s = g_string_new (NULL);

      msperf_fmt_json_string (s, cases[k].in);
      if (strcmp (s->str, cases[k].out) != 0)
        fail_msg ("case %zu: got %s, expected %s", k, s->str, cases[k].out);
      assert_true (g_utf8_validate (s->str, -1, NULL));
    }
}

static void
test_numfmt_round_half_to_even (void **state)
{
  (void) state;
  assert_int_equal (msperf_round_half_even (0.5), 0);
  assert_int_equal (msperf_round_half_even (1.5), 2);
  assert_int_equal (msperf_round_half_even (2.5), 2);
  assert_int_equal (msperf_round_half_even (3.5), 4);
  assert_int_equal (msperf_round_half_even (-0.5), 0);
  assert_int_equal (msperf_round_half_even (45.3), 45);
  assert_int_equal (msperf_round_half_even (2.5000001), 3);
  assert_int_equal (msperf_round_half_even (NAN), 0);
}

static void
test_numfmt_python_str_of_values (void **state)
{
  g_autoptr (msperf_value) list = msperf_value_new (MSPERF_VALUE_LIST);
  g_autoptr (msperf_value) map = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *inner = msperf_value_new (MSPERF_VALUE_LIST);
  g_autoptr (GString) s = g_string_new (NULL);

  (void) state;
  msperf_value_list_append (inner, msperf_value_new_int (136));
  msperf_value_list_append (inner, msperf_value_new_int (5120));
  msperf_value_list_append (list, inner);
  msperf_value_list_append (list, msperf_value_new_bool (TRUE));
  msperf_value_list_append (list, msperf_value_new (MSPERF_VALUE_NONE));
  msperf_value_list_append (list, msperf_value_new_double (14.16));
  msperf_value_list_append (list, msperf_value_new_string ("MatMulV2"));
  msperf_fmt_py_str (s, list);
  assert_string_equal (s->str, "[[136, 5120], True, None, 14.16, 'MatMulV2']");
  g_string_truncate (s, 0);
  msperf_value_map_set (map, "it's", msperf_value_new_double (2.0));
  msperf_fmt_py_str (s, map);
  assert_string_equal (s->str, "{\"it's\": 2.0}");
  g_string_truncate (s, 0);
  msperf_fmt_json_string (s, "a\"b\\c\n\x01é");
  assert_string_equal (s->str, "\"a\\\"b\\\\c\\n\\u0001é\"");
}

/* ------------------------------------------------------------------ JSON Lines */

static const char *const jsonl_keys[] = {
  "\"index\": ", "\"op\": ", "\"count\": ", "\"source\": ", "\"confidence\": ",
  "\"latency_us\": ", "\"total_us\": ", "\"analytic_latency_us\": ", "\"kernel_type\": ",
  "\"method\": ", "\"interpolation_dim\": ", "\"shape_match_rule\": ", "\"axes\": ",
  "\"candidate_count\": ", "\"miss_reason\": ", "\"base_reason\": ", "\"fallback_reasons\": ",
  "\"details\": "
};

/* FORMATS §5.1: key order index, op, count, source, … details. */
static void
test_jsonl_keys_in_documented_order (void **state)
{
  msperf_run *run = sample_run ();
  FILE *f = tmpfile ();
  char line[4096];
  const char *prev;

  (void) state;
  msperf_report_jsonl_record (g_ptr_array_index (run->records, 0), f);
  rewind (f);
  assert_non_null (fgets (line, sizeof line, f));
  fclose (f);
  assert_true (g_str_has_prefix (line, "{\"index\": 0, \"op\": \"aten.mm.default\", \"count\": 2, "
                                 "\"source\": \"MEASURED\", \"confidence\": 1.0, "
                                 "\"latency_us\": 45.3, \"total_us\": 90.6, "
                                 "\"analytic_latency_us\": 30.5, \"kernel_type\": \"MatMulV2\", "
                                 "\"method\": \"exact\", \"interpolation_dim\": null"));
  prev = line;
  for (gsize k = 0; k < G_N_ELEMENTS (jsonl_keys); k++)
    {
      const char *at = strstr (line, jsonl_keys[k]);
      assert_non_null (at);
      assert_true (at >= prev);
      prev = at;
    }
  assert_true (g_str_has_suffix (line, "}\n"));
  assert_null (strstr (line, "\"error\""));
  msperf_run_free (run);
}

/* The direct writer must give the very bytes of a value tree
 * (doc/performance.md, P1): every record kind of the sample run, plus records with no result, a
 * NULL op name, an interpolated answer with axes/candidate_count, and non-finite latencies. */
static void
test_jsonl_direct_writer_equals_value_tree (void **state)
{
  msperf_run *run = sample_run ();
  msperf_record *extra[3];
  msperf_value *axes = msperf_value_new (MSPERF_VALUE_LIST);

  (void) state;
  extra[0] = msperf_record_new ();
  extra[0]->index = 4;
  extra[1] = mm_record (5, "aten.mm.default", NAN, 3);
  extra[1]->analytic_us = INFINITY;
  extra[2] = mm_record (6, "aten.mm.default", 1.0 / 3.0, 7);
  msperf_value_list_append (axes, msperf_value_new_string ("M"));
  extra[2]->result->source = MSPERF_SOURCE_INTERPOLATED;
  extra[2]->result->interpolation_dim = 1;
  extra[2]->result->confidence = 0.1 + 0.2;
  msperf_result_detail_value (extra[2]->result, "axes", axes);
  msperf_result_detail_int (extra[2]->result, "candidate_count", 12);
  for (guint k = 0; k < G_N_ELEMENTS (extra); k++)
    msperf_run_add (run, extra[k]);
  for (guint k = 0; k < run->records->len; k++)
    {
      const msperf_record *r = g_ptr_array_index (run->records, k);
      g_autoptr (msperf_value) v = msperf_report_record_value (r);
      g_autoptr (GString) tree = g_string_new (NULL);
      g_autoptr (GString) direct = g_string_new (NULL);

      msperf_fmt_json_value (tree, v, -1, 0);
      msperf_report_jsonl_write (direct, r);
      assert_string_equal (direct->str, tree->str);
    }
  msperf_run_free (run);
}

static void
test_jsonl_rejected_line_has_error_and_null_latencies (void **state)
{
  msperf_run *run = sample_run ();
  FILE *f = tmpfile ();
  char line[4096];
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o;

  (void) state;
  msperf_report_jsonl_record (g_ptr_array_index (run->records, 2), f);
  rewind (f);
  assert_non_null (fgets (line, sizeof line, f));
  fclose (f);
  assert_true (json_parser_load_from_data (parser, line, -1, NULL));
  o = json_node_get_object (json_parser_get_root (parser));
  assert_string_equal (json_object_get_string_member (o, "source"), "REJECTED");
  assert_string_equal (json_object_get_string_member (o, "error"),
                       "ops.jsonl:3: unknown dtype \"float99\"");
  assert_true (json_object_get_null_member (o, "latency_us"));
  assert_true (json_object_get_null_member (o, "total_us"));
  assert_true (json_object_get_null_member (o, "analytic_latency_us"));
  assert_int_equal (json_object_get_int_member (o, "index"), 2);
  assert_string_equal (json_object_get_string_member (o, "op"), "aten.bad.default");
  msperf_run_free (run);
}

static void
test_jsonl_analytic_carries_reasons (void **state)
{
  msperf_run *run = sample_run ();
  FILE *f = tmpfile ();
  char line[4096];

  (void) state;
  msperf_report_jsonl_record (g_ptr_array_index (run->records, 1), f);
  rewind (f);
  assert_non_null (fgets (line, sizeof line, f));
  fclose (f);
  assert_non_null (strstr (line, "\"source\": \"ANALYTIC\", \"confidence\": 0.3, "
                           "\"latency_us\": 12.25"));
  assert_non_null (strstr (line, "\"method\": \"roofline\""));
  assert_non_null (strstr (line, "\"miss_reason\": \"unmapped\", \"base_reason\": \"unmapped\", "
                           "\"fallback_reasons\": [\"1d(M): no_candidates\"], \"details\": {"));
  msperf_run_free (run);
}

/* ------------------------------------------------------------------ JSON, CSV */

static void
test_json_document_parses_with_every_op (void **state)
{
  msperf_run *run = sample_run ();
  g_autofree char *text = capture (msperf_report_json, run);
  g_autoptr (JsonParser) parser = json_parser_new ();
  GError *error = NULL;
  JsonObject *root, *summary, *by;

  (void) state;
  assert_true (json_parser_load_from_data (parser, text, -1, &error));
  assert_null (error);
  root = json_node_get_object (json_parser_get_root (parser));
  assert_int_equal (json_object_get_int_member (root, "schema_version"), 1);
  assert_string_equal (json_object_get_string_member (root, "device_profile"), "nvidia-h200");
  assert_int_equal (json_array_get_length (json_object_get_array_member (root, "ops")), 4);
  summary = json_object_get_object_member (root, "summary");
  /* 3 × 45.3 + 12.25 */
  assert_true (fabs (json_object_get_double_member (summary, "total_us") - 148.15) < 1e-9);
  assert_int_equal (json_object_get_int_member (summary, "rejected"), 1);
  by = json_object_get_object_member (summary, "by_source");
  assert_int_equal (json_object_get_int_member (json_object_get_object_member (by, "MEASURED"),
                                                "invocations"), 3);
  assert_int_equal (json_object_get_int_member (json_object_get_object_member (by, "MEASURED"),
                                                "distinct"), 1);
  assert_true (json_object_has_member (json_object_get_object_member (root, "metrics"), "m5"));
  assert_false (json_object_has_member (json_object_get_object_member (root, "metrics"),
                                        "misses"));
  msperf_run_free (run);
}

/* RFC 4180: a field with a comma or quote is quoted and quotes are doubled; CRLF rows. */
static void
test_csv_header_and_quoting (void **state)
{
  msperf_run *run = msperf_run_new ();
  g_autofree char *text = NULL;

  (void) state;
  msperf_run_add (run, mm_record (0, "weird,\"op\"", 45.3, 1));
  msperf_run_add (run, rejected_record (1));
  text = capture (msperf_report_csv, run);
  assert_true (g_str_has_prefix (text, "index,op,count,source,confidence,latency_us,total_us,"
                                 "analytic_latency_us,kernel_type,method,interpolation_dim,"
                                 "shape_match_rule,axes,candidate_count,miss_reason,base_reason,"
                                 "fallback_reasons,error,input_shapes\r\n"));
  /* input_shapes is the last column; the columns before it are unchanged. */
  assert_non_null (strstr (text, "\r\n0,\"weird,\"\"op\"\"\",1,MEASURED,1.0,45.3,45.3,30.5,"
                           "MatMulV2,exact,,identity,,,,,,,"));
  assert_non_null (strstr (text, "\r\n1,aten.bad.default,1,REJECTED,,,,,,,,,,,,,,"
                           "\"ops.jsonl:3: unknown dtype \"\"float99\"\"\",\r\n"));
  msperf_run_free (run);
}

/* ------------------------------------------------------------------ Chrome trace */

static JsonArray *
load_events (JsonParser *parser, const char *path)
{
  GError *error = NULL;

  assert_true (json_parser_load_from_file (parser, path, &error));
  assert_null (error);
  return json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                       "traceEvents");
}

/* One X event per invocation (Σ count), none for rejected lines; metadata names. */
static void
test_chrome_trace_one_event_per_invocation (void **state)
{
  msperf_run *run = sample_run ();
  char *dir;
  char *path = tmp_path ("trace.json", &dir);
  g_autoptr (JsonParser) parser = json_parser_new ();
  GError *error = NULL;
  JsonArray *events;
  guint n_x = 0;
  JsonObject *first, *args;

  (void) state;
  assert_true (msperf_report_chrome_trace (run, path, &error));
  assert_null (error);
  events = load_events (parser, path);
  for (guint k = 0; k < json_array_get_length (events); k++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (events, k), "ph"),
                   "X") == 0)
      n_x++;
  assert_int_equal (n_x, 2 + 1 + 1);
  first = json_array_get_object_element (events, 0);
  assert_string_equal (json_object_get_string_member (
                         json_object_get_object_member (first, "args"), "name"),
                       "empirical (PID: 0)");
  assert_string_equal (json_object_get_string_member (
                         json_object_get_object_member (json_array_get_object_element (events, 1),
                                                        "args"), "name"), "Stream 0");
  /* the first op event: args as upstream str() values */
  args = json_object_get_object_member (json_array_get_object_element (events, 2), "args");
  assert_string_equal (json_object_get_string_member (args, "Inputs"),
                       "(tensor(..., device='meta', size=(136, 5120), dtype=torch.bfloat16), "
                       "tensor(..., device='meta', size=(5120, 768), dtype=torch.bfloat16)) "
                       "kwargs: {}");
  assert_string_equal (json_object_get_string_member (args, "simulation_shapes"),
                       "[[136, 5120], [5120, 768]]");
  assert_string_equal (json_object_get_string_member (args, "source"), "MEASURED");
  assert_string_equal (json_object_get_string_member (args, "confidence"), "1.0");
  assert_string_equal (json_object_get_string_member (args, "kernel_type"), "MatMulV2");
  assert_string_equal (json_object_get_string_member (args, "kernel_shapes"),
                       "[[136, 5120], [320, 48, 16, 16]]");
  assert_string_equal (json_object_get_string_member (args, "shape_match_rule"), "identity");
  /* the analytic op */
  args = json_object_get_object_member (json_array_get_object_element (events, 4), "args");
  assert_string_equal (json_object_get_string_member (args, "source"), "ANALYTIC");
  assert_string_equal (json_object_get_string_member (args, "shape_match_rule"), "analytic");
  assert_string_equal (json_object_get_string_member (args, "zero_cost"), "False");
  assert_string_equal (json_object_get_string_member (args, "fallback_reasons"),
                       "['1d(M): no_candidates']");
  remove_tmp (path, dir);
  msperf_run_free (run);
}

/* ts/dur are fractional µs (three decimals), each event starting where the previous ended
 * (whole-µs rounding would make neighbours overlap): 2.5 µs ×2 then 1.5 µs →
 * (0, 2.5), (2.5, 2.5), (5, 1.5). */
static void
test_chrome_trace_rounds_half_to_even (void **state)
{
  msperf_run *run = msperf_run_new ();
  char *dir;
  char *path = tmp_path ("trace.json", &dir);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *events;
  static const double expect[][2] = { { 0, 2.5 }, { 2.5, 2.5 }, { 5, 1.5 } };

  (void) state;
  msperf_run_add (run, mm_record (0, "a.op", 2.5, 2));
  msperf_run_add (run, mm_record (1, "b.op", 1.5, 1));
  assert_true (msperf_report_chrome_trace (run, path, NULL));
  events = load_events (parser, path);
  assert_int_equal (json_array_get_length (events), 2 + 3);
  for (guint k = 0; k < 3; k++)
    {
      JsonObject *e = json_array_get_object_element (events, k + 2);
      assert_true (json_object_get_double_member (e, "ts") == expect[k][0]);
      assert_true (json_object_get_double_member (e, "dur") == expect[k][1]);
      assert_int_equal (json_object_get_int_member (e, "pid"), 0);
      assert_int_equal (json_object_get_int_member (e, "tid"), 0);
    }
  remove_tmp (path, dir);
  msperf_run_free (run);
}

static void
test_chrome_trace_unwritable_path_is_an_error (void **state)
{
  msperf_run *run = sample_run ();
  GError *error = NULL;

  (void) state;
  assert_false (msperf_report_chrome_trace (run, "/nonexistent-dir/x/trace.json", &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO));
  g_error_free (error);
  msperf_run_free (run);
}

/* An analytic-only run names its process "analytic (PID: 0)" (reference §3.4). */
static void
test_chrome_trace_analytic_only_process_name (void **state)
{
  msperf_run *run = msperf_run_new ();
  char *dir;
  char *path = tmp_path ("trace.json", &dir);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *events;
  JsonObject *e;

  (void) state;
  run->use_profiling = FALSE;
  run->use_analytic = TRUE;
  msperf_run_add (run, analytic_record (0, "aten.add.default", 3.5));
  assert_true (msperf_report_chrome_trace (run, path, NULL));
  events = load_events (parser, path);
  assert_int_equal (json_array_get_length (events), 3);
  assert_string_equal (json_object_get_string_member (
                         json_object_get_object_member (json_array_get_object_element (events, 0),
                                                        "args"), "name"), "analytic (PID: 0)");
  e = json_array_get_object_element (events, 2);
  assert_string_equal (json_object_get_string_member (e, "cat"), "analytic");
  assert_true (json_object_get_double_member (e, "dur") == 3.5);
  remove_tmp (path, dir);
  msperf_run_free (run);
}

/* An ATT answer without a vector clock has latency NaN ("no_vector_clock", FORMATS §4):
 * null in JSON, counted apart and left out of the total. */
static void
test_unknown_latency_counted_apart (void **state)
{
  msperf_run *run = msperf_run_new ();
  msperf_record *r = analytic_record (1, "ascir.Cast", NAN);
  g_autoptr (msperf_summary) s = NULL;
  g_autofree char *json = NULL;
  g_autofree char *table = NULL;

  (void) state;
  g_free (r->result->miss_reason);
  r->result->miss_reason = g_strdup ("no_vector_clock");
  msperf_result_set_method (r->result, "att");
  r->count = 4;
  msperf_run_add (run, mm_record (0, "aten.mm.default", 45.3, 1));
  msperf_run_add (run, r);
  s = msperf_summary_compute (run);
  assert_true (fabs (s->total_us - 45.3) < 1e-12);
  assert_int_equal (s->unknown_latency_invocations, 4);
  assert_int_equal (s->unknown_latency_distinct, 1);
  json = capture (msperf_report_json, run);
  assert_non_null (strstr (json, "\"latency_us\": null,\n      \"total_us\": null"));
  table = capture (msperf_report_table, run);
  assert_non_null (strstr (table, "without a latency (not in the total): 4 invocations"));
  msperf_run_free (run);
}

/* ------------------------------------------------------------------ table */

static void
test_table_one_row_per_signature_then_summary (void **state)
{
  msperf_run *run = sample_run ();
  g_autofree char *text = NULL;
  g_autofree char *long_name = g_strnfill (80, 'x');
  g_auto (GStrv) lines = NULL;

  (void) state;
  msperf_run_add (run, mm_record (4, long_name, 1.0, 1));
  run->use_analytic = TRUE;
  text = capture (msperf_report_table, run);
  lines = g_strsplit (text, "\n", -1);
  assert_true (g_str_has_prefix (lines[0], "op "));
  assert_non_null (strstr (lines[0], "analytic_us"));
  /* rows: mm (count 3), add, rejected, long name */
  assert_true (g_str_has_prefix (lines[1], "aten.mm.default"));
  assert_non_null (strstr (lines[1], " 3  MatMulV2"));
  assert_non_null (strstr (lines[1], "135.900"));
  assert_true (g_str_has_prefix (lines[2], "aten.add.default"));
  assert_non_null (strstr (lines[3], "REJECTED"));
  assert_non_null (strstr (lines[4], "…"));
  assert_null (strstr (lines[4], long_name));
  assert_non_null (strstr (text, "Summary\n  total time: 149.150 us"));
  assert_non_null (strstr (text, "M2 Fused Op Match Rate: 2/3"));
  assert_non_null (strstr (text, "Profiling interpolation summary"));
  msperf_run_free (run);
}

/* ------------------------------------------------------------------ documents */

static char *
write_doc (msperf_run *run, const char *name, char **path, char **dir)
{
  char *text = NULL;
  GError *error = NULL;

  *path = tmp_path (name, dir);
  assert_true (msperf_report_document (run, *path, &error));
  assert_null (error);
  assert_true (g_file_get_contents (*path, &text, NULL, NULL));
  return text;
}

static void
test_report_html_has_svg_and_escaped_names (void **state)
{
  msperf_run *run = sample_run ();
  char *path, *dir;
  g_autofree char *text = NULL;

  (void) state;
  msperf_run_add (run, mm_record (4, "aten.<script>&.default", 3.0, 1));
  text = write_doc (run, "report.html", &path, &dir);
  assert_true (g_str_has_prefix (text, "<!DOCTYPE html>"));
  assert_non_null (strstr (text, "<style>"));
  assert_non_null (strstr (text, "<svg"));
  assert_non_null (strstr (text, "Confidence histogram"));
  assert_non_null (strstr (text, "aten.&lt;script&gt;&amp;.default"));
  /* The only script is the report's own layout check: the op name's one is escaped. */
  assert_non_null (strstr (text, "<script>"));
  assert_null (strstr (strstr (text, "<script>") + 1, "<script>"));
  assert_non_null (strstr (strstr (text, "<script>"), "data-clipped-labels"));
  assert_non_null (strstr (text, "1d(M): no_candidates"));
  remove_tmp (path, dir);
  msperf_run_free (run);
}

static void
test_report_markdown_contains_summary_and_details (void **state)
{
  msperf_run *run = sample_run ();
  char *path, *dir;
  g_autofree char *text = NULL;

  (void) state;
  text = write_doc (run, "report.md", &path, &dir);
  assert_true (g_str_has_prefix (text, "# msperf report\n"));
  assert_non_null (strstr (text, "## Summary"));
  assert_non_null (strstr (text, "total time: 148.150 us"));
  assert_non_null (strstr (text, "M1 Raw Op-Count Match Rate: 1/2"));
  assert_non_null (strstr (text, "- fallback_reasons: ['1d(M): no\\_candidates']"));
  assert_non_null (strstr (text, "- error: ops.jsonl:3: unknown dtype \"float99\""));
  remove_tmp (path, dir);
  msperf_run_free (run);
}

static void
test_report_json_parses (void **state)
{
  msperf_run *run = sample_run ();
  char *path, *dir;
  g_autofree char *text = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root;

  (void) state;
  text = write_doc (run, "report.json", &path, &dir);
  assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  /* distinct ops: mm (3 invocations), add, the rejected line */
  assert_int_equal (json_array_get_length (json_object_get_array_member (root, "ops")), 3);
  assert_int_equal (json_object_get_int_member (
                      json_array_get_object_element (json_object_get_array_member (root, "ops"), 0),
                      "count"), 3);
  assert_true (json_object_has_member (json_object_get_object_member (root, "metrics"), "misses"));
  remove_tmp (path, dir);
  msperf_run_free (run);
}

static void
test_report_unknown_extension_is_an_error (void **state)
{
  msperf_run *run = sample_run ();
  GError *error = NULL;

  (void) state;
  assert_false (msperf_report_document (run, "report.pdf", &error));
  assert_true (g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID));
  assert_non_null (strstr (error->message, "report.pdf"));
  g_error_free (error);
  msperf_run_free (run);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_numfmt_python_repr_floats),
    cmocka_unit_test (test_numfmt_json_double_nonfinite_is_null),
    cmocka_unit_test (test_numfmt_shortest_matches_printf_scan),
    cmocka_unit_test (test_numfmt_round_half_to_even),
    cmocka_unit_test (test_numfmt_printable_escapes_control_and_invalid_bytes),
    cmocka_unit_test (test_numfmt_csv_field_quotes_what_splits),
    cmocka_unit_test (test_numfmt_shell_word),
    cmocka_unit_test (test_numfmt_json_string_escapes_invalid_utf8),
    cmocka_unit_test (test_numfmt_int_matches_printf),
    cmocka_unit_test (test_numfmt_python_str_of_values),
    cmocka_unit_test (test_jsonl_keys_in_documented_order),
    cmocka_unit_test (test_jsonl_direct_writer_equals_value_tree),
    cmocka_unit_test (test_jsonl_rejected_line_has_error_and_null_latencies),
    cmocka_unit_test (test_jsonl_analytic_carries_reasons),
    cmocka_unit_test (test_json_document_parses_with_every_op),
    cmocka_unit_test (test_csv_header_and_quoting),
    cmocka_unit_test (test_chrome_trace_one_event_per_invocation),
    cmocka_unit_test (test_chrome_trace_rounds_half_to_even),
    cmocka_unit_test (test_chrome_trace_unwritable_path_is_an_error),
    cmocka_unit_test (test_chrome_trace_analytic_only_process_name),
    cmocka_unit_test (test_unknown_latency_counted_apart),
    cmocka_unit_test (test_table_one_row_per_signature_then_summary),
    cmocka_unit_test (test_report_html_has_svg_and_escaped_names),
    cmocka_unit_test (test_report_markdown_contains_summary_and_details),
    cmocka_unit_test (test_report_json_parses),
    cmocka_unit_test (test_report_unknown_extension_is_an_error),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
