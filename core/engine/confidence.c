/* msperf — the confidence table (see confidence.h). The defaults are the constants the engine
 * had before the table existed (reference §4.4 step 6, seed 000 §5.6), so a policy without the
 * key answers bit for bit as before. A module's own confidences (an exact hit's 1.0, the
 * communication model's 0.9 / 0.8, …) are part of its semantics and stay in the module
 * (doc/formats.md lists them). */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/host.h>
#include "engine/confidence.h"
#include "engine/shared.h"

static const msperf_confidence_entry defaults[] = {
  { "linear_1d", 0.70, "1-D linear interpolation between the two bracketing points" },
  { "griddata_2d", 0.65, "2-D griddata (Delaunay, barycentric)" },
  { "griddata_3d", 0.60, "3-D griddata" },
  { "griddata_4d", 0.55, "4-D griddata (when max_interpolation_dim allows it)" },
  { "transform_penalty", 0.05, "subtracted when an axis transform (sqrt_seq) was applied" },
  { "extrapolated", 0.45, "guarded extrapolation beyond the data (every strategy)" },
  { "extrapolated_hold_analytic", 0.45, "extrapolation by strategy hold_analytic" },
  { "extrapolated_marginal", 0.45, "extrapolation by strategy marginal" },
  { "analytic", 0.30, "the roofline fallback" },
};

const msperf_confidence_entry *
msperf_confidence_defaults (size_t *n_out)
{
  if (n_out)
    *n_out = G_N_ELEMENTS (defaults);
  return defaults;
}

char *
msperf_confidence_key (const char *kind, int dim)
{
  g_return_val_if_fail (kind != NULL, NULL);
  if (strcmp (kind, "interpolated") != 0)
    return g_strdup (kind);
  return dim <= 1 ? g_strdup ("linear_1d") : g_strdup_printf ("griddata_%dd", dim);
}

/* One key, no prefix fallback: the policy's number, else the built-in one, else NAN. */
static double
lookup_one (msperf_engine *e, const char *key, gboolean *from_policy)
{
  g_autofree char *path = g_strdup_printf ("confidence.%s", key);
  const msperf_value *v = e ? msperf_engine_policy_value (e, path) : NULL;
  double d;

  if (v && msperf_value_get_double (v, &d))
    {
      *from_policy = TRUE;
      return d;
    }
  *from_policy = FALSE;
  for (gsize k = 0; k < G_N_ELEMENTS (defaults); k++)
    if (strcmp (defaults[k].key, key) == 0)
      return defaults[k].value;
  return NAN;
}

double
msperf_confidence_value (msperf_engine *e, const char *key, gboolean *from_policy)
{
  g_autofree char *k = NULL;
  gboolean set = FALSE;
  double v;

  g_return_val_if_fail (key != NULL, NAN);
  k = g_strdup (key);
  for (;;)
    {
      char *cut;

      v = lookup_one (e, k, &set);
      if (!isnan (v) || (cut = strrchr (k, '_')) == NULL)
        break;
      *cut = '\0';
    }
  if (from_policy)
    *from_policy = set;
  return v;
}

double
msperf_confidence_for (msperf_engine *e, const char *kind, int dim, gboolean transformed)
{
  g_autofree char *key = msperf_confidence_key (kind, dim);
  double v = msperf_confidence_value (e, key, NULL);

  if (isnan (v))
    return 0.0;
  /* The same expression as the old constants' (value − penalty or − 0.0): bit-identical. */
  v = v - (transformed ? msperf_confidence_value (e, "transform_penalty", NULL) : 0.0);
  return v < 0.0 ? 0.0 : v;
}

void
msperf_confidence_prepare (msperf_engine *e)
{
  g_return_if_fail (e != NULL);
  for (int dim = 0; dim <= MSPERF_DELAUNAY_MAX_DIM; dim++)
    for (int t = 0; t < 2; t++)
      e->shared->interp_confidence[dim][t] = msperf_confidence_for (e, "interpolated", dim, t);
}

double
msperf_confidence_interpolated (const msperf_engine *e, int dim, gboolean transformed)
{
  g_return_val_if_fail (e != NULL && dim >= 0 && dim <= MSPERF_DELAUNAY_MAX_DIM, 0.0);
  return e->shared->interp_confidence[dim][transformed ? 1 : 0];
}
