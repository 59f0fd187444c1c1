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
  guint not_predicted;          /* rows the accuracy run could not map or simulate */
};

msperf_recommend_rank *
msperf_recommend_rank_new (void)
{
  msperf_recommend_rank *r = g_new0 (msperf_recommend_rank, 1);

  r->strings = g_string_chunk_new (4096);
  r->rows = g_array_new (FALSE, TRUE, sizeof (msperf_recommend_check_row));
  return r;
}

void
msperf_recommend_rank_free (msperf_recommend_rank *r)
{
  if (r == NULL)
    return;
  g_string_chunk_free (r->strings);
  g_array_free (r->rows, TRUE);
  if (r->groups)
    g_array_free (r->groups, TRUE);
  g_free (r);
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
      c.id = g_string_chunk_insert (r->strings, a->id);
      c.measured_ttft_ms = a->ttft_ms, c.measured_tpot_ms = a->tpot_ms;
      c.predicted_ttft_ms = a->p_ttft_ms, c.predicted_tpot_ms = a->p_tpot_ms;
      c.clients = (double) a->concurrency;
      c.gpus = (double) a->devices;
      c.osl = (double) a->osl;
      c.predicted_tps_gpu = a->p_tok_per_s_gpu;
      g_array_append_val (r->rows, c);
    }
  if (r->groups)
    g_array_free (r->groups, TRUE);
  r->groups = msperf_recommend_check ((const msperf_recommend_check_row *) (void *) r->rows->data,
                                      r->rows->len);
}

const GArray *
msperf_recommend_rank_groups (const msperf_recommend_rank *r)
{
  g_return_val_if_fail (r != NULL, NULL);
  return r->groups;
}

void
msperf_recommend_rank_counts (const msperf_recommend_rank *r, guint *judged, guint *passed)
{
  *judged = *passed = 0;
  for (guint i = 0; r->groups && i < r->groups->len; i++)
    {
      const msperf_recommend_check_group *g =
        &g_array_index (r->groups, msperf_recommend_check_group, i);

      *judged += g->judged;
      *passed += g->pass;
    }
}

static const char *
verdict (const msperf_recommend_check_group *g)
{
  if (!g->judged)
    return "shown";
  return g->pass ? "pass" : "FAIL";
}

/* Why a judged group fails, in words; NULL when it passes or is not judged. */
static const char *
why (const msperf_recommend_check_group *g)
{
  if (!g->judged || g->pass)
    return NULL;
  if (g->picked_id == NULL)
    return "no row is predicted to meet the SLA";
  if (!g->picked_meets_sla)
    return "the pick misses the SLA as measured";
  return "the pick is more than 10 % below the best";
}

static void
print_table (const msperf_recommend_rank *r, FILE *out)
{
  guint judged, passed;

  fprintf (out, "%-52s %4s %9s %8s %9s %9s %6s %7s %8s\n", "group (model|backend|isl|osl|mode)",
           "rows", "SLA TTFT", "SLA TPOT", "pick t/s", "best t/s", "ratio", "verdict",
           "spearman");
  for (guint i = 0; i < r->groups->len; i++)
    {
      const msperf_recommend_check_group *g =
        &g_array_index (r->groups, msperf_recommend_check_group, i);
      const char *w = why (g);

      fprintf (out, "%-52s %4u %9.1f %8.2f %9.1f %9.1f %6.3f %7s %8.3f\n", g->group, g->rows,
               g->sla_ttft_ms, g->sla_tpot_ms, g->picked_measured, g->best_measured, g->ratio,
               verdict (g), g->spearman);
      fprintf (out, "    picked: %s%s\n    best:   %s\n", g->picked_id ? g->picked_id : "none",
               g->picked_id && !g->picked_meets_sla ? " (misses the measured SLA)" : "",
               g->best_id ? g->best_id : "none");
      if (w)
        fprintf (out, "    why:    %s\n", w);
    }
  msperf_recommend_rank_counts (r, &judged, &passed);
  fprintf (out, "tokens/s/GPU measured; SLA = the group's median measured TTFT (ms) and TPOT "
                "(ms); groups of >= %d rows judged\n", MSPERF_RECOMMEND_CHECK_MIN_ROWS);
  fprintf (out, "groups judged: %u, passing: %u (the pick within %.0f %% of the best measured "
                "tokens/s/GPU); rows not predicted: %u\n", judged, passed,
           100 * MSPERF_RECOMMEND_CHECK_TOLERANCE, r->not_predicted);
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
print_csv (const msperf_recommend_rank *r, FILE *out)
{
  g_autoptr (GString) s = g_string_new ("group,rows,judged,sla_ttft_ms,sla_tpot_ms,picked_id,"
                                        "picked_predicted_tps_gpu,picked_measured_tps_gpu,"
                                        "picked_meets_sla,best_id,best_measured_tps_gpu,ratio,"
                                        "verdict,spearman\n");

  for (guint i = 0; i < r->groups->len; i++)
    {
      const msperf_recommend_check_group *g =
        &g_array_index (r->groups, msperf_recommend_check_group, i);

      csv_str (s, g->group);
      g_string_append_printf (s, ",%u,%d,", g->rows, g->judged);
      num (s, g->sla_ttft_ms, 3, FALSE);
      g_string_append_c (s, ',');
      num (s, g->sla_tpot_ms, 4, FALSE);
      g_string_append_c (s, ',');
      csv_str (s, g->picked_id);
      g_string_append_c (s, ',');
      num (s, g->picked_predicted, 3, FALSE);
      g_string_append_c (s, ',');
      num (s, g->picked_measured, 3, FALSE);
      g_string_append_printf (s, ",%d,", g->picked_meets_sla);
      csv_str (s, g->best_id);
      g_string_append_c (s, ',');
      num (s, g->best_measured, 3, FALSE);
      g_string_append_c (s, ',');
      num (s, g->ratio, 4, FALSE);
      g_string_append_printf (s, ",%s,", verdict (g));
      num (s, g->spearman, 4, FALSE);
      g_string_append_c (s, '\n');
    }
  fputs (s->str, out);
}

static void
print_json (const msperf_recommend_rank *r, FILE *out)
{
  g_autoptr (GString) s = g_string_new ("{\"groups\": [");
  guint judged, passed;

  for (guint i = 0; i < r->groups->len; i++)
    {
      const msperf_recommend_check_group *g =
        &g_array_index (r->groups, msperf_recommend_check_group, i);

      g_string_append (s, i ? ",\n  {\"group\": " : "\n  {\"group\": ");
      json_str (s, g->group);
      g_string_append_printf (s, ", \"rows\": %u, \"judged\": %s, \"sla_ttft_ms\": ", g->rows,
                              g->judged ? "true" : "false");
      num (s, g->sla_ttft_ms, 3, TRUE);
      g_string_append (s, ", \"sla_tpot_ms\": ");
      num (s, g->sla_tpot_ms, 4, TRUE);
      g_string_append (s, ", \"picked_id\": ");
      json_str (s, g->picked_id);
      g_string_append (s, ", \"picked_predicted_tps_gpu\": ");
      num (s, g->picked_predicted, 3, TRUE);
      g_string_append (s, ", \"picked_measured_tps_gpu\": ");
      num (s, g->picked_measured, 3, TRUE);
      g_string_append_printf (s, ", \"picked_meets_sla\": %s, \"best_id\": ",
                              g->picked_meets_sla ? "true" : "false");
      json_str (s, g->best_id);
      g_string_append (s, ", \"best_measured_tps_gpu\": ");
      num (s, g->best_measured, 3, TRUE);
      g_string_append (s, ", \"ratio\": ");
      num (s, g->ratio, 4, TRUE);
      g_string_append_printf (s, ", \"verdict\": \"%s\", \"spearman\": ", verdict (g));
      num (s, g->spearman, 4, TRUE);
      g_string_append (s, ", \"why\": ");
      json_str (s, why (g));
      g_string_append_c (s, '}');
    }
  msperf_recommend_rank_counts (r, &judged, &passed);
  g_string_append_printf (s, "\n], \"min_rows\": %d, \"tolerance\": %.2f, \"judged\": %u, "
                          "\"passed\": %u, \"rows_not_predicted\": %u}\n",
                          MSPERF_RECOMMEND_CHECK_MIN_ROWS, MSPERF_RECOMMEND_CHECK_TOLERANCE,
                          judged, passed, r->not_predicted);
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
      num (s, c->predicted_tps_gpu, 3, FALSE);
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
