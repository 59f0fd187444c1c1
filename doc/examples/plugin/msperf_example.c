/* msperf_example.c — a complete third-party module (module ABI 2), mode name "example".
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
 *   msperf --plugins-dir . query --profiling-database db \
 *     --op '{"op": "example.scaled", "att": {"kind": "example_scale", "elements": 4096}}'
 *
 * What the module does, slot by slot:
 *
 * - lookup (the exact stage): an op whose op_mapping.yaml entry says `query_mode: example` is
 *   answered from its kernel CSVs by the row whose FIRST input shape equals the op's first
 *   tensor input. A row of the same dtype is preferred over one of another dtype, an earlier
 *   kernel of the entry's kernel list over a later one, and an earlier row over a later one.
 *   No padding, no transposes, no interpolation: the real modes (plugins/compute, elementwise)
 *   use the same building blocks with richer rules.
 * - model (the analytic stage): an op whose `att` object has `"kind": "example_scale"` (the
 *   descriptor's att_kinds) is routed here by the core, with or without a database. The cost is
 *   elements / elements_per_us µs, times the policy option modules.example.scale_factor.
 *
 * It declares one policy option, modules.example.scale_factor (a number, default 1.0): the core
 * checks a policy's modules.example block against the declaration (an unknown key or a wrong
 * type stops the run with FILE:LINE) and the model slot reads the effective value through
 * msperf_engine_module_option. */

/* Messages of this module are tagged with its own log domain (`msperf -v` shows g_debug). */
#define G_LOG_DOMAIN "msperf-example"

/* The one header a module needs: it pulls in the whole public API it may call. */
#include <msperf/plugin.h>
#include <math.h>
#include <string.h>

/* The mode name: the descriptor's name, the `query_mode:` of the mapping and the
 * modules.<name> block of a policy. */
#define EXAMPLE_NAME "example"
/* The rule name the lookup writes into result->shape_match_rule (and the JSON Lines output):
 * scripts and `make installcheck` recognise the example's answers by it. */
#define EXAMPLE_RULE "example_first_input"
/* The one ATT kind the model slot answers, and the rule of its answers. */
#define EXAMPLE_ATT_KIND "example_scale"
/* An analytic model: better than the roofline (0.3), below measured data. */
#define EXAMPLE_MODEL_CONFIDENCE 0.5
/* att.elements_per_us when the op does not give it. */
#define EXAMPLE_DEFAULT_ELEMENTS_PER_US 1024.0

/* Module state. The core calls init ONCE PER MODEL (msperf_engine_start) and hands the pointer
 * back to every other slot; all the threads that query the model through their own sessions
 * (msperf_engine_new_session) share it. So anything here is either read-only after init or
 * guarded by the module itself: these two counters are only touched with atomic operations.
 * Two models in one process (tests create many) get two states, so nothing here may be a
 * global variable. The state keeps NO engine pointer: every slot receives the handle of the
 * calling thread, and the handle given to init may be freed before the model goes. */
typedef struct example_state {
  gint n_lookups;  /* lookups made on this model (logged by fini), g_atomic_int_* only */
  gint n_models;
} example_state;

static gboolean
example_init (msperf_engine *engine, void **state, GError **error)
{
  example_state *s;

  /* An init that cannot work sets *error and returns FALSE: the loader then rejects this
   * module with the message (`msperf plugins list` shows it) and the run goes on without it.
   * This module has no precondition, so the error path is only shown, never taken. Options
   * are checked only after every module's init: read them from the slots, not here. */
  if (engine == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PLUGIN, "example: no engine");
      return FALSE;
    }
  s = g_new0 (example_state, 1);
  *state = s;
  return TRUE;
}

/* Called once when the model goes (with its last handle), before the module is unloaded
 * (never after a failed init: an init that fails frees what it allocated itself). */
static void
example_fini (void *state)
{
  example_state *s = state;

  /* Debug messages are free when not shown; `msperf -v` shows them. */
  g_debug ("example: %d lookups, %d model answers", g_atomic_int_get (&s->n_lookups),
           g_atomic_int_get (&s->n_models));
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

/* The exact-lookup slot. engine is the handle of the calling thread: use it (never one kept
 * from init) for every service. Everything in q is owned by the core and valid only during
 * this call; the answer goes into r through the msperf_result_* setters, which copy every
 * string, so nothing here outlives the call. Return MSPERF_HIT with a latency, or MSPERF_MISS
 * with a reason (the core then tries interpolation when the module can, and finally the
 * roofline); MSPERF_ERROR is for a query this module cannot even evaluate (bad parameters);
 * MSPERF_FALLBACK hands the op to the descriptor's fallback_mode (this module has none). */
static msperf_status
example_lookup (msperf_engine *engine, void *state, const msperf_query *q, msperf_result *r)
{
  example_state *s = state;
  msperf_selector sel;
  gboolean any_table = FALSE;
  const msperf_slots *inputs;
  const char *kernel;

  g_atomic_int_inc (&s->n_lookups);
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
      /* Tables come from the model's cache: parsed once, shared read-only by every thread.
       * Never free them and never open the CSV yourself (the core confines paths to the
       * database). */
      const msperf_table *table = msperf_engine_table (engine, q->kernel_types[k], &error);

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
  msperf_result_detail_string (r, "query_mode", EXAMPLE_NAME);
  msperf_result_detail_int (r, "csv_line", (int64_t) msperf_table_row_line (sel.table, sel.row));
  msperf_result_detail_int (r, "candidates", (int64_t) sel.n_offered);
  if (sel.ambiguous)
    msperf_result_detail_bool (r, "ambiguous", TRUE);
  /* The answer must depend on the query, the database and the policy only: the engine caches
   * answers per op signature, so anything taken from call history (like the counters) stays
   * in the state and never goes into the result. The CSV shapes as written, so reports can
   * show what was matched: */
  inputs = msperf_table_row_inputs (sel.table, sel.row);
  for (size_t i = 0; i < inputs->n; i++)
    msperf_result_add_kernel_shape (r, &inputs->t[i]);
  msperf_selector_clear (&sel);
  return MSPERF_HIT;
}

/* The effective modules.example.scale_factor: the policy's value, else the declared default.
 * The core validated the type (an integer is a number too), so this cannot fail for a
 * declared key; the fallback only guards against a typo in the key. */
static double
scale_factor (msperf_engine *engine)
{
  double f = 1.0;

  if (!msperf_value_get_double (msperf_engine_module_option (engine, EXAMPLE_NAME,
                                                             "scale_factor"), &f))
    g_debug ("example: option scale_factor not found, using 1.0");
  return f;
}

/* A positive number of att (integer or floating point); FALSE when present but not one. */
static gboolean
att_number (const msperf_value *att, const char *key, double fallback, double *out)
{
  const msperf_value *v = msperf_value_lookup (att, key);

  if (v == NULL)
    {
      *out = fallback;
      return !isnan (fallback);
    }
  return msperf_value_get_double (v, out) && isfinite (*out) && *out > 0.0;
}

/* The analytic-model slot: the core calls it for an op whose att.kind is one of att_kinds,
 * before and instead of any database lookup. q->op->att is the op's `att` object; there is no
 * mapping entry, no kernel and no tensor input. A parameter the model cannot use is
 * MSPERF_ERROR with the message as the miss reason: the core then answers REJECTED, as for an
 * invalid input line. */
static msperf_status
example_model (msperf_engine *engine, void *state, const msperf_query *q, msperf_result *r)
{
  example_state *s = state;
  const msperf_value *att = q->op->att;
  double elements, per_us, factor, latency_us;

  g_atomic_int_inc (&s->n_models);
  if (!att_number (att, "elements", NAN, &elements))
    {
      msperf_result_set_miss (r, "example_scale: att.elements must be a positive number");
      return MSPERF_ERROR;
    }
  if (!att_number (att, "elements_per_us", EXAMPLE_DEFAULT_ELEMENTS_PER_US, &per_us))
    {
      msperf_result_set_miss (r, "example_scale: att.elements_per_us must be a positive number");
      return MSPERF_ERROR;
    }
  factor = scale_factor (engine);
  latency_us = elements / per_us * factor;
  msperf_result_set_hit (r, MSPERF_SOURCE_ANALYTIC, latency_us, EXAMPLE_MODEL_CONFIDENCE,
                         EXAMPLE_ATT_KIND, EXAMPLE_ATT_KIND);
  msperf_result_set_method (r, "example_model");
  msperf_result_detail_string (r, "query_mode", EXAMPLE_NAME);
  msperf_result_detail_double (r, "elements", elements);
  msperf_result_detail_double (r, "elements_per_us", per_us);
  /* The option is part of the policy, so of the policy_hash every answer carries: an answer
   * that depends on it stays a pure function of (op, database, policy). */
  msperf_result_detail_double (r, "scale_factor", factor);
  return MSPERF_HIT;
}

/* Routing: the `att.kind` values the model slot answers (NULL-terminated). */
static const char *const example_att_kinds[] = { EXAMPLE_ATT_KIND, NULL };

/* Options: modules.example.<key> in a policy, { NULL }-terminated. default_yaml is YAML text
 * parsed with the policy's rules and checked against the type when the module loads. */
static const msperf_option_spec example_options[] = {
  { "scale_factor", MSPERF_OPTION_DOUBLE, "1.0",
    "multiplies the analytic cost of example_scale ops" },
  { NULL, 0, NULL, NULL }
};

/* The descriptor: the ONE symbol this file exports (MSPERF_PLUGIN_DEFINE fills abi, size and
 * abi_minor and marks it for export; everything else is static). Fields left out are NULL or
 * 0: no flags (not the default mode, interpolated only when a policy lists "example" in
 * interpolation.modes — and this module has no describe slots anyway), no aliases, no
 * categories, no decomposed ops, no fallback_mode. `msperf plugins info example` reports the
 * filled slots as capabilities: lookup,model. */
MSPERF_PLUGIN_DEFINE (
  .name = EXAMPLE_NAME,
  .version = "2.0",
  .description = "example module: exact match on the first input shape, and an analytic "
                 "example_scale ATT model (doc/plugin-guide.md)",
  .att_kinds = example_att_kinds,
  .options = example_options,
  .init = example_init,
  .fini = example_fini,
  .lookup = example_lookup,
  .model = example_model,
);
