/* msperf_example.c — a complete third-party query-mode module, mode name "example".
 *
 * Read this file next to doc/plugin-guide.md. It is built out of tree against an installed
 * msperf with nothing but pkg-config:
 *
 *   cc -std=c11 -Wall -Wextra -Wpedantic -Werror -shared -fPIC -Wl,-z,now -o msperf_example.so \
 *      msperf_example.c $(pkg-config --cflags --libs msperf-plugin)
 *
 * and used by pointing msperf at the directory that holds msperf_example.so:
 *
 *   msperf --plugins-dir . plugins info example
 *   msperf --plugins-dir . query --profiling-database db --op '{"op": "example.scale", ...}'
 *
 * What the mode does: an op whose op_mapping.yaml entry says `query_mode: example` is answered
 * from its kernel CSVs by the row whose FIRST input shape equals the op's first tensor input.
 * A row of the same dtype is preferred over one of another dtype, an earlier kernel of the
 * entry's kernel list over a later one, and an earlier row over a later one. That is all: no
 * padding, no transposes, no interpolation. The real modes (plugins/compute, elementwise) use
 * the same building blocks with richer rules. */

/* Messages of this module are tagged with its own log domain (`msperf -v` shows g_debug). */
#define G_LOG_DOMAIN "msperf-example"

/* The one header a module needs: it pulls in the whole public API it may call. */
#include <msperf/plugin.h>

/* The rule name this mode writes into result->shape_match_rule (and the JSON Lines output):
 * scripts and `make installcheck` recognise the example's answers by it. */
#define EXAMPLE_RULE "example_first_input"

/* Per-engine state. The core calls init once per engine and hands the pointer back to every
 * other slot of that engine; two engines in one process (tests create many) get two states, so
 * nothing here may be a global variable. One engine is only ever used from one thread, so the
 * counters need no lock. */
typedef struct example_state {
  msperf_engine *engine;  /* borrowed: every engine outlives its modules' states */
  guint64 n_lookups;      /* lookups made by this engine (logged by fini) */
  guint64 n_hits;
} example_state;

static gboolean
example_init (msperf_engine *engine, void **state, GError **error)
{
  example_state *s;

  /* An init that cannot work sets *error and returns FALSE: the loader then rejects this
   * module with the message (`msperf plugins list` shows it) and the run goes on without it.
   * This module has no precondition, so the error path is only shown, never taken. */
  if (engine == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PLUGIN, "example: no engine");
      return FALSE;
    }
  s = g_new0 (example_state, 1);
  s->engine = engine;
  *state = s;
  return TRUE;
}

/* Called once when the engine is freed, before the module is unloaded (never after a failed
 * init: an init that fails frees what it allocated itself). */
static void
example_fini (void *state)
{
  example_state *s = state;

  /* Debug messages are free when not shown; `msperf -v` shows them. */
  g_debug ("example: %" G_GUINT64_FORMAT " lookups, %" G_GUINT64_FORMAT " hits", s->n_lookups,
           s->n_hits);
  g_free (s);
}

/* Offers every row of one kernel table whose first input has the target's shape. */
static void
scan_table (const msperf_table *table, int kernel_index, const msperf_tensor *target,
            msperf_selector *sel)
{
  for (size_t row = 0; row < msperf_table_n_rows (table); row++)
    {
      const msperf_slots *inputs;
      const msperf_tensor *first;

      /* Rows without a usable latency (blank, NaN, <= 0) or with a bad shape cell are kept
       * by the table for `msperf validate`, but are never candidates. */
      if (!msperf_table_row_valid (table, row))
        continue;
      inputs = msperf_table_row_inputs (table, row);
      if (inputs == NULL || inputs->n == 0)
        continue;
      first = &inputs->t[0];
      if (!msperf_tensor_same_shape (target, first))
        continue;
      /* The selector keeps the smallest (distance, kernel index, latency column) and the
       * earliest row among equals, as every built-in mode does (reference §2.3). Distance 0 is
       * a full match, 1 a shape-only match of another dtype. */
      msperf_selector_offer (sel, first->dtype == target->dtype ? 0.0 : 1.0, kernel_index,
                             (int) msperf_table_row_latency_column (table, row), table, row,
                             msperf_table_row_latency (table, row), EXAMPLE_RULE);
    }
}

/* The exact-lookup slot. Everything in q is owned by the core and valid only during this
 * call; the answer goes into r through the msperf_result_* setters, which copy every string,
 * so nothing here outlives the call. Return MSPERF_HIT with a latency, or MSPERF_MISS with a
 * reason (the core then tries its fallbacks and finally the roofline); MSPERF_ERROR is for a
 * query this module cannot even evaluate (bad parameters). */
static msperf_status
example_lookup (msperf_engine *engine, void *state, const msperf_query *q, msperf_result *r)
{
  example_state *s = state;
  msperf_selector sel;
  gboolean any_table = FALSE;
  const msperf_slots *inputs;
  const char *kernel;

  s->n_lookups++;
  if (q->kernel_types == NULL || q->kernel_types[0] == NULL)
    return msperf_result_set_miss (r, "no_kernel_type");
  /* q->inputs are the op's tensor inputs of rank > 0 in argument order (tensor lists
   * flattened), or a sub-query's own inputs. */
  if (q->n_inputs == 0)
    return msperf_result_set_miss (r, "example_no_tensor_input");

  msperf_selector_init (&sel);
  for (int k = 0; q->kernel_types[k] != NULL; k++)
    {
      g_autoptr (GError) error = NULL;
      /* Tables come from the engine's cache: parsed once per engine, shared read-only. Never
       * free them and never open the CSV yourself (the core confines paths to the database). */
      const msperf_table *table = msperf_engine_table (q->engine, q->kernel_types[k], &error);

      if (table == NULL)
        {
          /* NOT_FOUND is the normal "no CSV for this kernel" case; anything else is a broken
           * file that `msperf validate` reports in full. Either way, try the next kernel. */
          if (!g_error_matches (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND))
            g_debug ("example: kernel %s skipped: %s", q->kernel_types[k], error->message);
          continue;
        }
      any_table = TRUE;
      scan_table (table, k, &q->inputs[0], &sel);
    }

  if (!sel.have)
    {
      msperf_selector_clear (&sel);
      return msperf_result_set_miss (r, any_table ? "example_first_input_mismatch"
                                                  : "csv_not_found");
    }

  kernel = msperf_table_kernel_type (sel.table);
  /* Confidence is the module's own statement of trust: 1.0 for a full match, less for a row
   * measured with another dtype. */
  msperf_result_set_hit (r, MSPERF_SOURCE_MEASURED, sel.latency, sel.distance == 0.0 ? 1.0 : 0.5,
                         kernel, sel.rule);
  msperf_result_set_method (r, "exact");
  /* Details are free-form and ordered; they appear under "details" in JSON outputs. */
  msperf_result_detail_string (r, "query_mode", "example");
  msperf_result_detail_int (r, "csv_line", (int64_t) msperf_table_row_line (sel.table, sel.row));
  msperf_result_detail_int (r, "candidates", (int64_t) sel.n_offered);
  if (sel.ambiguous)
    msperf_result_detail_bool (r, "ambiguous", TRUE);
  /* The answer must depend on the query, the database and the policy only: the engine caches
   * answers per op signature, so anything taken from call history (like these counters) stays
   * in the state and never goes into the result. */
  s->n_hits++;
  /* The CSV shapes as written, so reports can show what was matched. */
  inputs = msperf_table_row_inputs (sel.table, sel.row);
  for (size_t i = 0; i < inputs->n; i++)
    msperf_result_add_kernel_shape (r, &inputs->t[i]);
  msperf_selector_clear (&sel);
  return MSPERF_HIT;
}

/* The descriptor: the ONE symbol this file exports (MSPERF_PLUGIN_EXPORT; everything else is
 * static). abi and size are checked before anything else is read; the slots left out here
 * (describe_target, describe_row, model, decompose, op_names, reserved) are NULL, which means
 * "not supported" and is what `msperf plugins info example` reports as capabilities. */
MSPERF_PLUGIN_EXPORT const msperf_plugin msperf_plugin_v1 = {
  .abi = MSPERF_PLUGIN_ABI,
  .size = sizeof (msperf_plugin),
  .name = "example",
  .version = "1.0",
  .description = "example module: exact match on the first input shape (doc/plugin-guide.md)",
  .init = example_init,
  .fini = example_fini,
  .lookup = example_lookup,
};
