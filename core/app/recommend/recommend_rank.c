/* msperf — `accuracy --silicon FILE --rank`: the deployment-choice check on the rows an
 * accuracy run predicted (recommend_check.h), grouped and printed as a table, csv or json. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <msperf/msperf.h>
#include "app/recommend/recommend_check.h"

struct msperf_recommend_rank {
  GStringChunk *strings;
  GArray *rows;                 /* msperf_recommend_check_row, strings in `strings` */
  GArray *groups;               /* msperf_recommend_check_group */
  GHashTable *unstated;         /* groups with a row whose GPUs are not stated */
  guint not_predicted;          /* rows the accuracy run could not map or simulate */
  guint duplicates;             /* rows repeating an earlier row's measurement */
};

msperf_recommend_rank *
msperf_recommend_rank_new (void)
{
  msperf_recommend_rank *r = g_new0 (msperf_recommend_rank, 1);

  r->strings = g_string_chunk_new (4096);
  r->rows = g_array_new (FALSE, TRUE, sizeof (msperf_recommend_check_row));
  r->unstated = g_hash_table_new (g_str_hash, g_str_equal);
  return r;
}

void
msperf_recommend_rank_free (msperf_recommend_rank *r)
{
  if (r == NULL)
    return;
  g_string_chunk_free (r->strings);
  g_array_free (r->rows, TRUE);
  g_hash_table_destroy (r->unstated);
  if (r->groups)
    g_array_free (r->groups, TRUE);
  g_free (r);
}

/* The same measurement seen before in the group: the same clients and the same measured TTFT
 * and TPOT (upstream carries some runs twice, once under another layout). Counted once. */
static gboolean
duplicate (const msperf_recommend_rank *r, const msperf_recommend_check_row *c,
           const msperf_serve_accuracy_row *a)
{
  for (guint i = 0; i < r->rows->len; i++)
    {
      const msperf_recommend_check_row *o = &g_array_index (r->rows, msperf_recommend_check_row, i);

      if (o->group == c->group && o->clients == (double) a->concurrency
          && o->measured_ttft_ms == a->ttft_ms && o->measured_tpot_ms == a->tpot_ms)
        return TRUE;
    }
  return FALSE;
}

void
msperf_recommend_rank_add_rows (const msperf_serve_accuracy_row *rows, guint n, gpointer data)
{
  msperf_recommend_rank *r = data;

  g_return_if_fail (r != NULL && (rows != NULL || n == 0));
  for (guint i = 0; i < n; i++)
    {
      const msperf_serve_accuracy_row *a = &rows[i];
      g_autofree char *key = NULL;
      msperf_recommend_check_row c = { 0 };

      if (!a->ran || !(a->devices > 0))
        {
          r->not_predicted++;
          continue;
        }
      /* Aggregated and disaggregated rows are two groups: the disaggregated rows do not give
       * their worker counts, so their GPUs — and their tokens/s/GPU — are not comparable with
       * an aggregated row's (doc/recommend.md §7). */
      key = g_strdup_printf ("%s|%s|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%s", a->model_path,
                             a->backend, a->isl, a->osl, a->mode);
      c.group = g_string_chunk_insert_const (r->strings, key);
      if (duplicate (r, &c, a))
        {
          r->duplicates++;
          continue;
        }
      if (!a->devices_stated)
        g_hash_table_add (r->unstated, (gpointer) c.group);
      c.id = g_string_chunk_insert (r->strings, a->id);
      c.measured_ttft_ms = a->ttft_ms, c.measured_tpot_ms = a->tpot_ms;
      c.predicted_ttft_ms = a->p_ttft_ms, c.predicted_tpot_ms = a->p_tpot_ms;
      c.clients = (double) a->concurrency;
      c.gpus = (double) a->devices;
      c.osl = (double) a->osl;
      g_array_append_val (r->rows, c);
    }
  if (r->groups)
    g_array_free (r->groups, TRUE);
  r->groups = msperf_recommend_check ((const msperf_recommend_check_row *) (void *) r->rows->data,
                                      r->rows->len);
  /* Without the GPUs there is no tokens/s/GPU to compare: shown, not judged. */
  for (guint i = 0; i < r->groups->len; i++)
    {
      msperf_recommend_check_group *g = &g_array_index (r->groups, msperf_recommend_check_group, i);

      if (g_hash_table_contains (r->unstated, g->group))
        g->gpus_unknown = TRUE, g->judged = g->pick.pass = g->order.pass = FALSE;
    }
}

const GArray *
msperf_recommend_rank_groups (const msperf_recommend_rank *r)
{
  g_return_val_if_fail (r != NULL, NULL);
  return r->groups;
}

void
msperf_recommend_rank_counts (const msperf_recommend_rank *r, guint *judged, guint *passed,
                              guint *order_passed)
{
  *judged = *passed = *order_passed = 0;
  for (guint i = 0; r->groups && i < r->groups->len; i++)
    {
      const msperf_recommend_check_group *g =
        &g_array_index (r->groups, msperf_recommend_check_group, i);

      *judged += g->judged;
      *passed += g->pick.pass;
      *order_passed += g->order.pass;
    }
}

static const char *
verdict (const msperf_recommend_check_group *g, const msperf_recommend_check_pick *p)
{
  if (g->rows < MSPERF_RECOMMEND_CHECK_MIN_ROWS)
    return "shown";
  if (!g->judged)
    return "n/a";
  return p->pass ? "pass" : "FAIL";
}

/* Why a group is not passed, in words; NULL when it passes or is only shown. */
static const char *
why (const msperf_recommend_check_group *g, const msperf_recommend_check_pick *p)
{
  if (g->rows < MSPERF_RECOMMEND_CHECK_MIN_ROWS || p->pass)
    return NULL;
  if (g->gpus_unknown)
    return "the rows do not state their GPUs (worker counts): no tokens/s/GPU to compare";
  if (!g->judged)
    return "no measured row meets the SLA: nothing to pick";
  if (p->id == NULL)
    return "no row is predicted to meet the SLA";
  if (!p->meets_sla)
    return "the pick misses the SLA as measured";
  return "the pick is more than 10 % below the best";
}

/* A pick's line of the table: its id, how far it misses the measured SLA, why it does not
 * pass, and without a pick the row predicted nearest to the SLA. */
static void
print_pick (FILE *out, const char *label, const msperf_recommend_check_group *g,
            const msperf_recommend_check_pick *p)
{
  const char *w = why (g, p);

  fprintf (out, "    %-6s %s", label, p->id ? p->id : "none");
  if (p->id && !p->meets_sla)
    {
      if (isfinite (p->miss.excess))
        fprintf (out, " (misses the measured SLA by %.1f %% on %s)", 100 * p->miss.excess,
                 p->miss.on);
      else
        fputs (" (misses the measured SLA)", out);
    }
  if (w)
    fprintf (out, "; %s", w);
  if (p->id == NULL && p->nearest_id)
    fprintf (out, " (nearest: %s, predicted %.1f %% over on %s)", p->nearest_id,
             100 * p->nearest.excess, p->nearest.on);
  fputc ('\n', out);
}

static void
print_table (const msperf_recommend_rank *r, FILE *out)
{
  guint judged, passed, order_passed;

  fprintf (out, "%-52s %4s %8s %7s %8s | %8s %6s %7s | %8s %6s %7s | %8s\n",
           "group (model|backend|isl|osl|mode)", "rows", "SLA TTFT", "TPOT", "best", "pick",
           "ratio", "verdict", "order", "ratio", "verdict", "spearman");
  for (guint i = 0; i < r->groups->len; i++)
    {
      const msperf_recommend_check_group *g =
        &g_array_index (r->groups, msperf_recommend_check_group, i);
      fprintf (out, "%-52s %4u %8.1f %7.2f %8.1f | %8.1f %6.3f %7s | %8.1f %6.3f %7s | %8.3f\n",
               g->group, g->rows, g->sla_ttft_ms, g->sla_tpot_ms, g->best_measured,
               g->pick.measured, g->pick.ratio, verdict (g, &g->pick), g->order.measured,
               g->order.ratio, verdict (g, &g->order), g->spearman);
      fprintf (out, "    best:  %s\n", g->best_id ? g->best_id : "none");
      print_pick (out, "pick:", g, &g->pick);
      print_pick (out, "order:", g, &g->order);
    }
  msperf_recommend_rank_counts (r, &judged, &passed, &order_passed);
  fprintf (out, "tokens/s/GPU measured, closed loop: clients x osl / (TTFT + (osl - 1) x TPOT) / "
                "GPUs. SLA: the group's median measured TTFT and TPOT (ms).\n"
                "pick: msperf's first choice among the rows predicted to meet the SLA; order: "
                "among those predicted within the group's median predicted TTFT and TPOT.\n");
  fprintf (out, "groups judged (>= %d rows, GPUs stated, some row meeting the SLA): %u; pick "
                "within %.0f %% of the best: %u; order: %u; rows not predicted: %u; repeated "
                "measurements counted once: %u\n",
           MSPERF_RECOMMEND_CHECK_MIN_ROWS, judged, 100 * MSPERF_RECOMMEND_CHECK_TOLERANCE,
           passed, order_passed, r->not_predicted, r->duplicates);
}

/* A number for csv (empty when not finite) and json (null). */
static void
num (GString *s, double v, int digits, gboolean json)
{
  if (isfinite (v))
    g_string_append_printf (s, "%.*f", digits, v);
  else if (json)
    g_string_append (s, "null");
}

static void
json_str (GString *s, const char *v)
{
  if (v == NULL)
    {
      g_string_append (s, "null");
      return;
    }
  g_string_append_c (s, '"');
  for (const char *p = v; *p; p++)
    if (*p == '"' || *p == '\\')
      g_string_append_printf (s, "\\%c", *p);
    else if ((unsigned char) *p < 0x20)
      g_string_append_printf (s, "\\u%04x", (unsigned) (unsigned char) *p);
    else
      g_string_append_c (s, *p);
  g_string_append_c (s, '"');
}

/* A csv field: the text with no comma, quote or line break (ids and model names have none). */
static void
csv_str (GString *s, const char *v)
{
  g_autofree char *c = g_strdup (v ? v : "");

  g_strdelimit (c, ",\"\n\r", ';');
  g_string_append (s, c);
}

static void
csv_pick (GString *s, const msperf_recommend_check_group *g, const msperf_recommend_check_pick *p)
{
  g_string_append_c (s, ',');
  csv_str (s, p->id);
  g_string_append_c (s, ',');
  num (s, p->predicted, 3, FALSE);
  g_string_append_c (s, ',');
  num (s, p->measured, 3, FALSE);
  g_string_append_printf (s, ",%d,", p->meets_sla);
  num (s, p->ratio, 4, FALSE);
  g_string_append_printf (s, ",%s", verdict (g, p));
}

/* The excess columns of a pick: miss_pct, miss_on, nearest_id, nearest_pct, nearest_on. */
static void
csv_excess (GString *s, const msperf_recommend_check_pick *p)
{
  g_string_append_c (s, ',');
  num (s, 100 * p->miss.excess, 2, FALSE);
  g_string_append_printf (s, ",%s,", p->miss.on ? p->miss.on : "");
  csv_str (s, p->nearest_id);
  g_string_append_c (s, ',');
  num (s, 100 * p->nearest.excess, 2, FALSE);
  g_string_append_printf (s, ",%s", p->nearest.on ? p->nearest.on : "");
}

static void
print_csv (const msperf_recommend_rank *r, FILE *out)
{
  g_autoptr (GString) s = g_string_new ("group,rows,judged,gpus_stated,sla_ttft_ms,sla_tpot_ms,"
                                        "best_id,"
                                        "best_measured_tps_gpu,pick_id,pick_predicted_tps_gpu,"
                                        "pick_measured_tps_gpu,pick_meets_sla,pick_ratio,"
                                        "pick_verdict,predicted_sla_ttft_ms,"
                                        "predicted_sla_tpot_ms,order_id,"
                                        "order_predicted_tps_gpu,order_measured_tps_gpu,"
                                        "order_meets_sla,order_ratio,order_verdict,spearman,"
                                        "pick_miss_pct,pick_miss_on,pick_nearest_id,"
                                        "pick_nearest_pct,pick_nearest_on,order_miss_pct,"
                                        "order_miss_on,order_nearest_id,order_nearest_pct,"
                                        "order_nearest_on\n");

  for (guint i = 0; i < r->groups->len; i++)
    {
      const msperf_recommend_check_group *g =
        &g_array_index (r->groups, msperf_recommend_check_group, i);

      csv_str (s, g->group);
      g_string_append_printf (s, ",%u,%d,%d,", g->rows, g->judged, !g->gpus_unknown);
      num (s, g->sla_ttft_ms, 3, FALSE);
      g_string_append_c (s, ',');
      num (s, g->sla_tpot_ms, 4, FALSE);
      g_string_append_c (s, ',');
      csv_str (s, g->best_id);
      g_string_append_c (s, ',');
      num (s, g->best_measured, 3, FALSE);
      csv_pick (s, g, &g->pick);
      g_string_append_c (s, ',');
      num (s, g->predicted_sla_ttft_ms, 3, FALSE);
      g_string_append_c (s, ',');
      num (s, g->predicted_sla_tpot_ms, 4, FALSE);
      csv_pick (s, g, &g->order);
      g_string_append_c (s, ',');
      num (s, g->spearman, 4, FALSE);
      csv_excess (s, &g->pick);
      csv_excess (s, &g->order);
      g_string_append_c (s, '\n');
    }
  fputs (s->str, out);
}

/* `, "key": {["id": …, ]"pct": …, "on": …}`, or null without e. */
static void
json_excess (GString *s, const char *key, const char *id, const msperf_recommend_check_excess *e)
{
  g_string_append_printf (s, ", \"%s\": ", key);
  if (e == NULL)
    {
      g_string_append (s, "null");
      return;
    }
  g_string_append_c (s, '{');
  if (id != NULL)
    {
      g_string_append (s, "\"id\": ");
      json_str (s, id);
      g_string_append (s, ", ");
    }
  g_string_append (s, "\"pct\": ");
  num (s, 100 * e->excess, 2, TRUE);
  g_string_append_printf (s, ", \"on\": \"%s\"}", e->on);
}

static void
json_pick (GString *s, const msperf_recommend_check_group *g,
           const msperf_recommend_check_pick *p)
{
  g_string_append (s, "{\"id\": ");
  json_str (s, p->id);
  g_string_append (s, ", \"predicted_tps_gpu\": ");
  num (s, p->predicted, 3, TRUE);
  g_string_append (s, ", \"measured_tps_gpu\": ");
  num (s, p->measured, 3, TRUE);
  g_string_append_printf (s, ", \"meets_sla\": %s, \"ratio\": ", p->meets_sla ? "true" : "false");
  num (s, p->ratio, 4, TRUE);
  g_string_append_printf (s, ", \"verdict\": \"%s\", \"why\": ", verdict (g, p));
  json_str (s, why (g, p));
  json_excess (s, "miss", NULL, isfinite (p->miss.excess) ? &p->miss : NULL);
  json_excess (s, "nearest", p->nearest_id, p->nearest_id ? &p->nearest : NULL);
  g_string_append_c (s, '}');
}

static void
print_json (const msperf_recommend_rank *r, FILE *out)
{
  g_autoptr (GString) s = g_string_new ("{\"groups\": [");
  guint judged, passed, order_passed;

  for (guint i = 0; i < r->groups->len; i++)
    {
      const msperf_recommend_check_group *g =
        &g_array_index (r->groups, msperf_recommend_check_group, i);

      g_string_append (s, i ? ",\n  {\"group\": " : "\n  {\"group\": ");
      json_str (s, g->group);
      g_string_append_printf (s, ", \"rows\": %u, \"judged\": %s, \"gpus_stated\": %s, "
                              "\"sla_ttft_ms\": ", g->rows, g->judged ? "true" : "false",
                              g->gpus_unknown ? "false" : "true");
      num (s, g->sla_ttft_ms, 3, TRUE);
      g_string_append (s, ", \"sla_tpot_ms\": ");
      num (s, g->sla_tpot_ms, 4, TRUE);
      g_string_append (s, ", \"best_id\": ");
      json_str (s, g->best_id);
      g_string_append (s, ", \"best_measured_tps_gpu\": ");
      num (s, g->best_measured, 3, TRUE);
      g_string_append (s, ", \"pick\": ");
      json_pick (s, g, &g->pick);
      g_string_append (s, ", \"predicted_sla_ttft_ms\": ");
      num (s, g->predicted_sla_ttft_ms, 3, TRUE);
      g_string_append (s, ", \"predicted_sla_tpot_ms\": ");
      num (s, g->predicted_sla_tpot_ms, 4, TRUE);
      g_string_append (s, ", \"order\": ");
      json_pick (s, g, &g->order);
      g_string_append (s, ", \"spearman\": ");
      num (s, g->spearman, 4, TRUE);
      g_string_append_c (s, '}');
    }
  msperf_recommend_rank_counts (r, &judged, &passed, &order_passed);
  g_string_append_printf (s, "\n], \"min_rows\": %d, \"tolerance\": %.2f, \"judged\": %u, "
                          "\"passed\": %u, \"order_passed\": %u, \"rows_not_predicted\": %u, "
                          "\"duplicates\": %u}\n",
                          MSPERF_RECOMMEND_CHECK_MIN_ROWS, MSPERF_RECOMMEND_CHECK_TOLERANCE,
                          judged, passed, order_passed, r->not_predicted, r->duplicates);
  fputs (s->str, out);
}

void
msperf_recommend_rank_print (const msperf_recommend_rank *r, const char *format, FILE *out)
{
  g_return_if_fail (r != NULL && r->groups != NULL && out != NULL);
  if (format && strcmp (format, "csv") == 0)
    print_csv (r, out);
  else if (format && strcmp (format, "json") == 0)
    print_json (r, out);
  else
    print_table (r, out);
}

static void
print_rows (const msperf_recommend_rank *r, FILE *out)
{
  g_autoptr (GString) s = g_string_new ("group,id,clients,gpus,measured_ttft_ms,"
                                        "measured_tpot_ms,predicted_ttft_ms,predicted_tpot_ms,"
                                        "measured_tps_gpu,predicted_tps_gpu,measured_meets_sla,"
                                        "predicted_meets_sla\n");

  for (guint i = 0; i < r->rows->len; i++)
    {
      const msperf_recommend_check_row *c =
        &g_array_index (r->rows, msperf_recommend_check_row, i);
      const msperf_recommend_check_group *g = NULL;

      for (guint k = 0; k < r->groups->len && g == NULL; k++)
        if (strcmp (g_array_index (r->groups, msperf_recommend_check_group, k).group,
                    c->group) == 0)
          g = &g_array_index (r->groups, msperf_recommend_check_group, k);
      csv_str (s, c->group);
      g_string_append_c (s, ',');
      csv_str (s, c->id);
      g_string_append_printf (s, ",%.0f,%.0f,%.3f,%.4f,%.3f,%.4f,", c->clients, c->gpus,
                              c->measured_ttft_ms, c->measured_tpot_ms, c->predicted_ttft_ms,
                              c->predicted_tpot_ms);
      num (s, msperf_recommend_check_tps_gpu (c->measured_ttft_ms, c->measured_tpot_ms,
                                              c->clients, c->gpus, c->osl), 3, FALSE);
      g_string_append_c (s, ',');
      num (s, msperf_recommend_check_tps_gpu (c->predicted_ttft_ms, c->predicted_tpot_ms,
                                              c->clients, c->gpus, c->osl), 3, FALSE);
      g_string_append_printf (s, ",%d,%d\n",
                              c->measured_ttft_ms <= g->sla_ttft_ms
                                && c->measured_tpot_ms <= g->sla_tpot_ms,
                              c->predicted_ttft_ms <= g->sla_ttft_ms
                                && c->predicted_tpot_ms <= g->sla_tpot_ms);
    }
  fputs (s->str, out);
}

gboolean
msperf_recommend_rank_write_report (const msperf_recommend_rank *r, const char *dir,
                                    GError **error)
{
  const char *names[] = { "rank.txt", "rank.csv", "rank.json", "rank_rows.csv" };

  g_return_val_if_fail (r != NULL && r->groups != NULL && dir != NULL, FALSE);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot create the directory",
                   dir);
      return FALSE;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      FILE *f = g_fopen (path, "w");

      if (f == NULL)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot write", path);
          return FALSE;
        }
      if (i == 3)
        print_rows (r, f);
      else
        msperf_recommend_rank_print (r, i == 0 ? "table" : i == 1 ? "csv" : "json", f);
      if (fclose (f) != 0)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot write", path);
          return FALSE;
        }
    }
  return TRUE;
}
