/* Tests of core/app/serve/serve_recipes.c: a file of published deployments reads each line's
 * keys and stages (attention TP / DP, EP, workers, batch per rank, MTP), optional columns take
 * their defaults, an aggregated line its engine, a bad file is refused naming its line and
 * problem, and a deployment matches only the row that states all of its keys. */
#include <config.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <msperf/error.h>
#include "app/serve/serve.h"

#define HEADER                                                                                 \
  "recipe,model_path,backend,backend_version,mode,isl,osl,concurrency,nextn,"                  \
  "prefill_num_workers,prefill_tp_size,prefill_pp_size,prefill_attention_dp_size,"             \
  "prefill_moe_ep_size,prefill_batch_size,decode_num_workers,decode_tp_size,decode_pp_size,"   \
  "decode_attention_dp_size,decode_moe_ep_size,decode_batch_size\n"

static char *
write_file (const char *text)
{
  GError *e = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("msperf-recipes-XXXXXX.csv", &path, &e);

  assert_true (fd >= 0);
  g_close (fd, NULL);
  assert_true (g_file_set_contents (path, text, -1, &e));
  return path;
}

/* The file's deployments, or NULL with *message the error's (both freed by the caller). */
static GPtrArray *
load (const char *text, char **message)
{
  g_autofree char *path = write_file (text);
  GError *e = NULL;
  GPtrArray *r = msperf_serve_recipes_load (path, &e);

  *message = NULL;
  if (r == NULL)
    {
      assert_non_null (e);
      assert_int_equal (e->code, MSPERF_ERROR_PARSE);
      /* the message names the file as given */
      assert_non_null (strstr (e->message, path));
      *message = g_strdup (e->message + strlen (path));
      g_error_free (e);
    }
  g_unlink (path);
  return r;
}

static void
test_reads_stages (void **state)
{
  g_autofree char *msg = NULL;
  g_autoptr (GPtrArray) r = load (HEADER
                                  "dep,org/M,trtllm,0.8.1,disagg,8192,1024,256,2,"
                                  "3,8,1,1,8,2,1,1,1,8,8,32\n"
                                  "\n"
                                  "tep,org/M,trtllm,0.8.1,disagg,1024,1024,11,0,"
                                  "1,1,1,8,8,8,9,8,1,1,8,1\n", &msg);
  const msperf_serve_recipe *a, *b;

  (void) state;
  assert_non_null (r);
  assert_int_equal (r->len, 2);
  a = g_ptr_array_index (r, 0);
  b = g_ptr_array_index (r, 1);
  assert_string_equal (a->name, "dep");
  assert_int_equal (a->line, 2);
  assert_int_equal (a->clients, 256);
  assert_int_equal (a->nextn, 2);
  assert_int_equal (a->prefill_workers, 3);
  assert_int_equal (a->prefill.tp, 8);
  assert_int_equal (a->prefill.dp, 1);
  assert_int_equal (a->prefill_seqs, 2);
  assert_int_equal (a->decode_workers, 1);
  assert_int_equal (a->decode.tp, 1);
  assert_int_equal (a->decode.dp, 8);
  assert_int_equal (a->decode.ep, 8);
  assert_int_equal (a->decode_seqs, 32);
  assert_int_equal (b->line, 4);          /* a blank line is skipped, lines still counted */
  assert_int_equal (b->decode_workers, 9);
  assert_int_equal (b->decode.tp, 8);
  assert_int_equal (b->prefill.dp, 8);
  assert_int_equal (b->nextn, 0);
}

static void
test_optional_columns (void **state)
{
  g_autofree char *msg = NULL;
  g_autoptr (GPtrArray) r = load ("recipe,model_path,backend,backend_version,mode,isl,osl,"
                                  "concurrency,prefill_num_workers,prefill_tp_size,"
                                  "decode_num_workers,decode_tp_size,decode_batch_size\n"
                                  "x,org/M,vllm,,disagg,100,10,4,2,4,3,2,\n", &msg);
  const msperf_serve_recipe *a;

  (void) state;
  assert_non_null (r);
  a = g_ptr_array_index (r, 0);
  assert_string_equal (a->backend_version, "");
  assert_int_equal (a->nextn, 0);
  assert_int_equal (a->prefill.pp, 1);
  assert_int_equal (a->prefill.dp, 1);
  assert_int_equal (a->prefill.ep, 1);
  assert_int_equal (a->prefill_seqs, 0);  /* none: the preset's */
  assert_int_equal (a->decode_workers, 3);
  assert_int_equal (a->decode_seqs, 0);
}

static void
refused (const char *text, const char *want)
{
  char *msg = NULL;
  GPtrArray *r = load (text, &msg);

  assert_null (r);
  if (strstr (msg, want) == NULL)
    fail_msg ("'%s' does not hold '%s'", msg, want);
  g_free (msg);
}

static void
test_bad_files (void **state)
{
  (void) state;
  refused ("", ":1: empty file");
  refused ("recipe,model_path,backend\n", ":1: no column 'backend_version'");
  refused (HEADER "a,org/M,trtllm,1,disagg,1024,1024,0,0,1,8,1,1,8,8,1,8,1,1,8,1\n",
           ":2: concurrency '0' is not an integer 1..");
  refused (HEADER "a,org/M,trtllm,1,disagg,1024,1024,8,-1,1,8,1,1,8,8,1,8,1,1,8,1\n",
           ":2: nextn '-1' is not an integer 0..");
  refused (HEADER "\na,org/M,trtllm,1,disagg,1024,1024,8,0,1,8,1,1,8,8,1,8,1,1,8,x\n",
           ":3: decode_batch_size 'x' is not an integer 0..");
  refused (HEADER "a,org/M,trtllm,1,disagg,1024,1024,8,0,1,8,1,1,8,8,1,8,1,1,8,99999999999\n",
           ":2: decode_batch_size '99999999999' is not an integer");
  refused (HEADER "a,org/M,trtllm,1,disagg,1024\n", ":2: 6 fields where the header has 21");
  refused (HEADER "a,org/M,trtllm,1,both,1024,1024,8,0,1,8,1,1,8,8,1,8,1,1,8,1\n",
           ":2: mode 'both' is not agg or disagg");
  /* an aggregated line needs its TP, a disaggregated one each stage's workers and TP */
  refused (HEADER "a,org/M,trtllm,1,agg,1024,1024,8,0,1,8,1,1,8,8,1,8,1,1,8,1\n",
           ":2: no tp_size (a line of its mode needs one)");
  refused (HEADER "a,org/M,trtllm,1,disagg,1024,1024,8,0,1,8,1,1,8,8,,8,1,1,8,1\n",
           ":2: no decode_num_workers (a line of its mode needs one)");
  refused (HEADER ",org/M,trtllm,1,disagg,1024,1024,8,0,1,8,1,1,8,8,1,8,1,1,8,1\n",
           ":2: recipe, model_path and backend must not be empty");
  refused (HEADER "a,org/\xff,trtllm\n", ":2: not UTF-8 text (byte 0xff)");
}

static void
test_reads_agg_lines (void **state)
{
  g_autofree char *msg = NULL;
  g_autoptr (GPtrArray) r = load ("recipe,model_path,backend,backend_version,mode,isl,osl,"
                                  "concurrency,nextn,tp_size,attention_dp_size,moe_ep_size,"
                                  "prefill_num_workers,prefill_tp_size,decode_num_workers,"
                                  "decode_tp_size\n"
                                  "tep,org/M,trtllm,1.1,agg,1024,1024,16,3,8,,8,,,,\n"
                                  "dep,org/M,trtllm,1.1,agg,1024,1024,256,1,1,8,8,,,,\n"
                                  "pd,org/M,trtllm,1.1,disagg,1024,1024,256,0,,,,1,8,2,8\n",
                                  &msg);
  const msperf_serve_recipe *a, *b, *c;

  (void) state;
  assert_non_null (r);
  assert_int_equal (r->len, 3);
  a = g_ptr_array_index (r, 0);
  b = g_ptr_array_index (r, 1);
  c = g_ptr_array_index (r, 2);
  assert_string_equal (a->mode, "agg");
  assert_int_equal (a->agg.tp, 8);
  assert_int_equal (a->agg.dp, 1);        /* empty: 1 */
  assert_int_equal (a->agg.ep, 8);
  assert_int_equal (a->agg.pp, 1);        /* absent: 1 */
  assert_int_equal (a->nextn, 3);
  assert_int_equal (b->agg.tp, 1);
  assert_int_equal (b->agg.dp, 8);
  assert_int_equal (b->nextn, 1);
  assert_int_equal (c->decode_workers, 2);
  assert_int_equal (c->decode.tp, 8);
}

static void
test_reads_a_directory (void **state)
{
  g_autofree char *dir = g_dir_make_tmp ("msperf-recipes-XXXXXX", NULL);
  g_autofree char *b = g_build_filename (dir, "b.csv", NULL);
  g_autofree char *a = g_build_filename (dir, "a.csv", NULL);
  g_autofree char *note = g_build_filename (dir, "SOURCE.md", NULL);
  GError *e = NULL;
  GPtrArray *r;

  (void) state;
  assert_non_null (dir);
  assert_true (g_file_set_contents (b, HEADER
                                    "b,org/M,trtllm,1,disagg,1,1,1,0,1,8,1,1,8,,1,8,1,1,8,\n",
                                    -1, NULL));
  assert_true (g_file_set_contents (a, HEADER
                                    "a,org/M,trtllm,1,disagg,1,1,1,0,1,8,1,1,8,,1,8,1,1,8,\n",
                                    -1, NULL));
  assert_true (g_file_set_contents (note, "not a table\n", -1, NULL));
  r = msperf_serve_recipes_load (dir, &e);
  assert_non_null (r);
  /* every *.csv in name order, the rest left alone */
  assert_int_equal (r->len, 2);
  assert_string_equal (((msperf_serve_recipe *) g_ptr_array_index (r, 0))->name, "a");
  assert_string_equal (((msperf_serve_recipe *) g_ptr_array_index (r, 1))->name, "b");
  g_ptr_array_unref (r);
  /* a bad file in the directory fails the whole load, naming it */
  assert_true (g_file_set_contents (b, HEADER "b,org/M\n", -1, NULL));
  assert_null (msperf_serve_recipes_load (dir, &e));
  assert_non_null (strstr (e->message, "b.csv:2: 2 fields where the header has 21"));
  g_clear_error (&e);
  g_unlink (a);
  g_unlink (b);
  g_unlink (note);
  g_rmdir (dir);
}

static void
test_matches_every_key (void **state)
{
  g_autofree char *msg = NULL;
  g_autoptr (GPtrArray) r = load (HEADER
                                  "a,org/M,trtllm,0.8.1,disagg,1024,1024,144,3,"
                                  "1,1,1,8,8,8,9,8,1,1,8,128\n", &msg);
  const msperf_serve_recipe *a;
  const struct {
    const char *model, *backend, *version, *mode;
    int64_t isl, osl, clients;
    gboolean match;
  } rows[] = {
    { "org/M", "trtllm", "0.8.1", "disagg", 1024, 1024, 144, TRUE },
    { "org/N", "trtllm", "0.8.1", "disagg", 1024, 1024, 144, FALSE },
    { "org/M", "sglang", "0.8.1", "disagg", 1024, 1024, 144, FALSE },
    { "org/M", "trtllm", "0.8.2", "disagg", 1024, 1024, 144, FALSE },
    { "org/M", "trtllm", "0.8.1", "agg", 1024, 1024, 144, FALSE },
    { "org/M", "trtllm", "0.8.1", "disagg", 8192, 1024, 144, FALSE },
    { "org/M", "trtllm", "0.8.1", "disagg", 1024, 2048, 144, FALSE },
    { "org/M", "trtllm", "0.8.1", "disagg", 1024, 1024, 145, FALSE },
  };

  (void) state;
  assert_non_null (r);
  a = g_ptr_array_index (r, 0);

  for (gsize k = 0; k < G_N_ELEMENTS (rows); k++)
    assert_int_equal (msperf_serve_recipe_matches (a, rows[k].model, rows[k].backend,
                                                   rows[k].version, rows[k].mode, rows[k].isl,
                                                   rows[k].osl, rows[k].clients),
                      rows[k].match);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_reads_stages),
    cmocka_unit_test (test_optional_columns),
    cmocka_unit_test (test_bad_files),
    cmocka_unit_test (test_reads_agg_lines),
    cmocka_unit_test (test_reads_a_directory),
    cmocka_unit_test (test_matches_every_key),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
