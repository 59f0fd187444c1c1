/* msperf fuzzing — the op-trace reader: format detection, JSON Lines and op-summary JSON
 * (msperf_trace_reader_open_data + next), and the single-op form of `query --op`. */
#include <config.h>
#include <string.h>
#include <msperf/op.h>
#include "app/trace/trace.h"
#include "app/trace/op_plain.h"
#include "fuzz_common.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  fuzz_init_logging ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  msperf_trace_reader *reader;
  msperf_trace_item item = { 0 };
  g_autofree char *text = NULL;
  msperf_op *op;

  reader = msperf_trace_reader_open_data ((const char *) data, (gssize) size, "fuzz.jsonl",
                                          &error);
  if (reader == NULL)
    {
      if (error == NULL)
        abort ();
    }
  else
    {
      while (msperf_trace_reader_next (reader, &item))
        {
          /* Exactly one of op and error. */
          if ((item.op == NULL) == (item.error == NULL))
            abort ();
          if (item.op != NULL)
            {
              g_autofree char *sig = msperf_op_signature (item.op);
              g_autoptr (GPtrArray) in = msperf_op_tensor_inputs (item.op);
              for (guint k = 0; k < in->len; k++)
                (void) msperf_tensor_numel (g_ptr_array_index (in, k));
            }
          msperf_trace_item_clear (&item);
        }
      msperf_trace_reader_free (reader);
    }

  /* The same bytes as one `query --op` object. */
  g_clear_error (&error);
  text = fuzz_strndup (data, size);
  op = msperf_trace_parse_op (text, "fuzz-op", 1, &error);
  if (op == NULL && error == NULL)
    abort ();
  msperf_op_free (op);

  /* What the plain reader takes, the full path takes too, as the same op. */
  op = msperf_op_plain_parse (text, strlen (text));
  if (op != NULL)
    {
      msperf_op *tree = msperf_trace_parse_op_tree (text, NULL);
      char *a, *b;

      if (tree == NULL)
        abort ();
      a = msperf_op_signature (op);
      b = msperf_op_signature (tree);
      if (strcmp (a, b) != 0 || op->count != tree->count)
        abort ();
      g_free (a);
      g_free (b);
      msperf_op_free (tree);
      msperf_op_free (op);
    }
  return 0;
}
