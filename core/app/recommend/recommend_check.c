/* msperf — the deployment-choice check against measured rows (recommend_check.h). */
#include <config.h>
#include <math.h>
#include <string.h>
#include "app/recommend/recommend_check.h"

double
msperf_recommend_check_tps_gpu (double ttft_ms, double tpot_ms, double clients, double gpus,
                                double osl)
{
  double latency_s = (ttft_ms + (osl - 1.0) * tpot_ms) / 1000.0;

  if (!(latency_s > 0) || !(gpus > 0))
    return NAN;
  return clients * osl / latency_s / gpus;
}

static int
by_value (gconstpointer a, gconstpointer b, gpointer data)
{
  const double *v = data;
  double x = v[*(const guint *) a], y = v[*(const guint *) b];

  return (x > y) - (x < y);
}

/* Average ranks (1-based), ties sharing the mean of their positions. */
static void
ranks (const double *v, guint n, double *out)
{
  g_autofree guint *order = g_new (guint, n);

  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) n, sizeof (guint), by_value, (gpointer) v);
  for (guint i = 0; i < n;)
    {
      guint j = i;

      while (j + 1 < n && v[order[j + 1]] == v[order[i]])
        j++;
      for (guint k = i; k <= j; k++)
        out[order[k]] = (double) (i + j) / 2.0 + 1.0;
      i = j + 1;
    }
}

double
msperf_recommend_spearman (const double *a, const double *b, guint n)
{
  g_autofree double *ra = NULL, *rb = NULL;
  double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;

  if (n < 3)
    return NAN;
  ra = g_new (double, n), rb = g_new (double, n);
  ranks (a, n, ra);
  ranks (b, n, rb);
  for (guint i = 0; i < n; i++)
    ma += ra[i] / n, mb += rb[i] / n;
  for (guint i = 0; i < n; i++)
    {
      sab += (ra[i] - ma) * (rb[i] - mb);
      saa += (ra[i] - ma) * (ra[i] - ma);
      sbb += (rb[i] - mb) * (rb[i] - mb);
    }
  return saa > 0 && sbb > 0 ? sab / sqrt (saa * sbb) : NAN;
}

static double
median (double *v, guint n)
{
  g_autofree double *c = g_memdup2 (v, n * sizeof (double));

  for (guint i = 1; i < n; i++)   /* a group is a handful of rows */
    for (guint j = i; j > 0 && c[j - 1] > c[j]; j--)
      {
        double t = c[j];
        c[j] = c[j - 1], c[j - 1] = t;
      }
  return n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2.0;
}

static msperf_recommend_check_excess
excess (double ttft, double tpot, double sla_ttft, double sla_tpot)
{
  double et = ttft / sla_ttft - 1.0, ep = tpot / sla_tpot - 1.0;
  msperf_recommend_check_excess e = { NAN, NULL };

  if (isfinite (et) && isfinite (ep))
    e.excess = MAX (et, ep), e.on = et >= ep ? "TTFT" : "TPOT";
  return e;
}

/* No row predicted within (ttft, tpot): the one whose prediction misses it least, so that a
 * user tells a group missed by a few per cent from one missed by a factor. */
static void
nearest (const msperf_recommend_check_row *const *rows, guint n, double ttft, double tpot,
         msperf_recommend_check_pick *p)
{
  gint best = -1;
  msperf_recommend_check_excess e, most = { NAN, NULL };

  for (guint i = 0; i < n; i++)
    {
      e = excess (rows[i]->predicted_ttft_ms, rows[i]->predicted_tpot_ms, ttft, tpot);
      if (isfinite (e.excess) && (best < 0 || e.excess < most.excess))
        best = (gint) i, most = e;
    }
  if (best < 0)
    return;
  p->nearest_id = g_strdup (rows[best]->id);
  p->nearest = most;
}

/* The row with the highest predicted tokens/s/GPU among those predicted to meet (ttft, tpot);
 * the first in row order on a tie (duplicates of one configuration are equal both ways, so
 * which is named changes no figure). */
static void
pick (const msperf_recommend_check_row *const *rows, guint n, const double *pred,
      const double *meas, double ttft, double tpot, const msperf_recommend_check_group *g,
      msperf_recommend_check_pick *p)
{
  gint best = -1;

  for (guint i = 0; i < n; i++)
    if (rows[i]->predicted_ttft_ms <= ttft && rows[i]->predicted_tpot_ms <= tpot
        && pred[i] > 0 && (best < 0 || pred[i] > pred[best]))
      best = (gint) i;
  p->predicted = p->measured = p->ratio = NAN;
  p->miss.excess = p->nearest.excess = NAN;
  if (best < 0)
    {
      nearest (rows, n, ttft, tpot, p);
      return;
    }
  p->id = g_strdup (rows[best]->id);
  p->predicted = pred[best], p->measured = meas[best];
  p->meets_sla = rows[best]->measured_ttft_ms <= g->sla_ttft_ms
                 && rows[best]->measured_tpot_ms <= g->sla_tpot_ms;
  if (!p->meets_sla)
    p->miss = excess (rows[best]->measured_ttft_ms, rows[best]->measured_tpot_ms,
                      g->sla_ttft_ms, g->sla_tpot_ms);
  if (g->best_measured > 0)
    p->ratio = p->measured / g->best_measured;
  /* A pick that misses the SLA as measured is no answer, however fast it is. */
  p->pass = g->judged && p->meets_sla
            && p->ratio >= 1.0 - MSPERF_RECOMMEND_CHECK_TOLERANCE - 1e-12;
}

static void
check_group (const msperf_recommend_check_row *const *rows, guint n,
             msperf_recommend_check_group *g)
{
  g_autofree double *mt = g_new (double, n), *mp = g_new (double, n);
  g_autofree double *pt = g_new (double, n), *pp = g_new (double, n);
  g_autofree double *meas = g_new (double, n), *pred = g_new (double, n);

  for (guint i = 0; i < n; i++)
    {
      const msperf_recommend_check_row *r = rows[i];

      mt[i] = r->measured_ttft_ms, mp[i] = r->measured_tpot_ms;
      pt[i] = r->predicted_ttft_ms, pp[i] = r->predicted_tpot_ms;
      /* One definition both ways: the closed-loop throughput of the mean latencies. */
      meas[i] = msperf_recommend_check_tps_gpu (r->measured_ttft_ms, r->measured_tpot_ms,
                                                r->clients, r->gpus, r->osl);
      pred[i] = msperf_recommend_check_tps_gpu (r->predicted_ttft_ms, r->predicted_tpot_ms,
                                                r->clients, r->gpus, r->osl);
    }
  g->rows = n;
  g->sla_ttft_ms = median (mt, n), g->sla_tpot_ms = median (mp, n);
  g->predicted_sla_ttft_ms = median (pt, n), g->predicted_sla_tpot_ms = median (pp, n);
  g->best_measured = NAN;
  for (guint i = 0; i < n; i++)
    if (rows[i]->measured_ttft_ms <= g->sla_ttft_ms && rows[i]->measured_tpot_ms <= g->sla_tpot_ms
        && meas[i] > 0 && !(meas[i] <= g->best_measured))
      {
        g->best_measured = meas[i];
        g_free (g->best_id);
        g->best_id = g_strdup (rows[i]->id);
      }
  /* Without a measured row meeting the SLA there is no right answer to pick. */
  g->judged = n >= MSPERF_RECOMMEND_CHECK_MIN_ROWS && g->best_id != NULL;
  pick (rows, n, pred, meas, g->sla_ttft_ms, g->sla_tpot_ms, g, &g->pick);
  pick (rows, n, pred, meas, g->predicted_sla_ttft_ms, g->predicted_sla_tpot_ms, g, &g->order);
  g->spearman = msperf_recommend_spearman (pred, meas, n);
}

GArray *
msperf_recommend_check (const msperf_recommend_check_row *rows, guint n)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (msperf_recommend_check_group));
  g_autoptr (GPtrArray) members = g_ptr_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  g_array_set_clear_func (out, (GDestroyNotify) msperf_recommend_check_group_clear);
  for (guint i = 0; i < n; i++)
    {
      msperf_recommend_check_group g = { 0 };

      if (g_hash_table_contains (seen, rows[i].group))
        continue;
      g_hash_table_add (seen, (gpointer) rows[i].group);
      g_ptr_array_set_size (members, 0);
      for (guint j = i; j < n; j++)
        if (strcmp (rows[j].group, rows[i].group) == 0)
          g_ptr_array_add (members, (gpointer) &rows[j]);
      g.group = g_strdup (rows[i].group);
      check_group ((const msperf_recommend_check_row *const *) members->pdata, members->len, &g);
      g_array_append_val (out, g);
    }
  return out;
}

void
msperf_recommend_check_group_clear (msperf_recommend_check_group *g)
{
  g_clear_pointer (&g->group, g_free);
  g_clear_pointer (&g->pick.id, g_free);
  g_clear_pointer (&g->order.id, g_free);
  g_clear_pointer (&g->pick.nearest_id, g_free);
  g_clear_pointer (&g->order.nearest_id, g_free);
  g_clear_pointer (&g->best_id, g_free);
}
