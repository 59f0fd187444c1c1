/* msperf — the per-kernel latency policy shared by the modules that scan kernel CSVs
 * (reference §1.3 latency quality fallback, §2.3 step 5 latency priority). */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/latency.h>

void
msperf_latency_policy_init (msperf_latency_policy *policy, msperf_engine *engine,
                            const char *kernel_type)
{
  const msperf_value *v;
  double r;

  g_return_if_fail (policy != NULL && engine != NULL);
  policy->prefer_profiling_rows = msperf_engine_kernel_flag (engine, "latency_policy",
                                                             kernel_type,
                                                             "prefer_profiling_rows");
  policy->envelope_ratio = NAN;
  v = msperf_engine_kernel_option (engine, "latency_policy", kernel_type,
                                   "profiling_core_envelope_fallback");
  if (v && msperf_value_get_double (msperf_value_lookup (v, "max_duration_to_core_ratio"), &r)
      && r > 0)
    policy->envelope_ratio = r;
}

/* A core-time cell as pandas reads it: blanks and quotes around a finite number; NAN when
 * blank or not a number (a non-finite time is no measurement). */
static double
cell_number (const char *cell)
{
  const char *s = cell ? cell : "";
  char *end;
  double v;

  while (g_ascii_isspace (*s) || *s == '"')
    s++;
  /* g_ascii_strtod reads C99 hex floats; Python's float() does not. */
  if (*s == '\0' || strpbrk (s, "xX") != NULL)
    return NAN;
  v = g_ascii_strtod (s, &end);
  if (end == s)
    return NAN;
  while (g_ascii_isspace (*end) || *end == '"')
    end++;
  return *end == '\0' && isfinite (v) ? v : NAN;
}

double
msperf_latency_policy_row (const msperf_latency_policy *policy, const msperf_table *table,
                           size_t row, int *priority, const char **selection)
{
  msperf_latency_column col;
  double lat, aic, aiv, envelope;
  const char *core;

  g_return_val_if_fail (policy != NULL && table != NULL, NAN);
  lat = msperf_table_row_latency (table, row);
  col = msperf_table_row_latency_column (table, row);
  if (priority)
    *priority = policy->prefer_profiling_rows
                  ? (col == MSPERF_LATENCY_PROFILING_AVERAGE ? 0 : 1) : (int) col;
  if (selection)
    *selection = NULL;
  if (isnan (policy->envelope_ratio) || col != MSPERF_LATENCY_PROFILING_AVERAGE)
    return lat;
  core = msperf_table_cell_by_name (table, row, "Accelerator Core");
  if (core == NULL || strcmp (core, "MIX_AIC") != 0)
    return lat;
  aic = cell_number (msperf_table_cell_by_name (table, row, "Profiling Average aicore_time(us)"));
  aiv = cell_number (msperf_table_cell_by_name (table, row, "Profiling Average aiv_time(us)"));
  envelope = isnan (aic) ? aiv : isnan (aiv) ? aic : MAX (aic, aiv);
  /* A mixed-core kernel whose wall time dwarfs its busiest core measured launch gaps. */
  if (!(envelope > 0) || !(lat / envelope > policy->envelope_ratio))
    return lat;
  if (selection)
    *selection = MSPERF_LATENCY_SELECTION_CORE_ENVELOPE;
  return envelope;
}

double
msperf_latency_policy_apply (msperf_engine *engine, const msperf_table *table, size_t row,
                             int *priority, const char **selection)
{
  msperf_latency_policy policy;

  g_return_val_if_fail (engine != NULL && table != NULL, NAN);
  msperf_latency_policy_init (&policy, engine, msperf_table_kernel_type (table));
  return msperf_latency_policy_row (&policy, table, row, priority, selection);
}
