/* msperf — interpolation coordinates filled by modules (see include/msperf/point.h). */
#include <config.h>
#include <math.h>
#include <msperf/point.h>

void
msperf_point_init (msperf_point *p)
{
  g_return_if_fail (p != NULL);
  *p = (msperf_point){ 0 };
  p->regime = g_string_new (NULL);
  p->latency_us = NAN;
  p->input_limit = -1;
}

void
msperf_point_clear (msperf_point *p)
{
  g_return_if_fail (p != NULL);
  if (p->regime)
    g_string_free (p->regime, TRUE);
  if (p->group)
    g_string_free (p->group, TRUE);
  *p = (msperf_point){ 0 };
}

void
msperf_point_regime_add (msperf_point *p, const char *part)
{
  g_return_if_fail (p != NULL && p->regime != NULL);
  g_string_append_c (p->regime, '|');
  g_string_append (p->regime, part ? part : "");
}

gboolean
msperf_point_add_axis (msperf_point *p, const char *name, double value, gboolean known)
{
  g_return_val_if_fail (p != NULL && name != NULL, FALSE);
  if (p->n_axes >= MSPERF_POINT_MAX_AXES)
    return FALSE;
  p->axis_names[p->n_axes] = name;
  p->axes[p->n_axes] = value;
  p->axis_known[p->n_axes] = known;
  p->n_axes++;
  return TRUE;
}

gboolean
msperf_point_add_field (msperf_point *p, const char *name, int64_t value, msperf_matcher matcher)
{
  g_return_val_if_fail (p != NULL && name != NULL, FALSE);
  if (p->n_fields >= MSPERF_POINT_MAX_FIELDS)
    return FALSE;
  p->field_names[p->n_fields] = name;
  p->fields[p->n_fields] = value;
  p->matchers[p->n_fields] = matcher;
  p->n_fields++;
  return TRUE;
}

void
msperf_point_set_group (msperf_point *p, const char *group, int rank)
{
  g_return_if_fail (p != NULL);
  if (p->group == NULL)
    p->group = g_string_new (NULL);
  g_string_assign (p->group, group ? group : "");
  p->group_rank = rank;
}
