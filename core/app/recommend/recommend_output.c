/* msperf — what recommend prints (recommend.h): the ranked table with the launch command of
 * the winner and why the other points were left out, JSON Lines and CSV of every point, and
 * the report directory (Pareto SVG, points CSV). */
#include <config.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <msperf/error.h>
#include <msperf/format.h>
#include "app/recommend/recommend.h"
#include "app/report/plot_svg.h"

static const char *const status_names[] = { "ok", "sla", "memory", "layout", "failed" };

static const char *
mode_name (const msperf_recommend_point *p)
{
  return p->dep.mode == MSPERF_SERVE_AGG ? "agg" : "disagg";
}

/* A point's traffic: its closed-loop clients, or "-" under an open loop (--rate), whose
 * requests/s the headline gives. */
static void
clients_text (char *buf, gsize n, const msperf_recommend_point *p)
{
  if (p->concurrency > 0)
    g_snprintf (buf, n, "%" G_GINT64_FORMAT, p->concurrency);
  else
    g_strlcpy (buf, "-", n);
}

static void
ranked_row (FILE *out, const msperf_recommend_opts *o, const msperf_recommend_point *p,
            int width)
{
  g_autofree char *layout = msperf_recommend_layout_text (p);
  char conc[24];

  clients_text (conc, sizeof conc, p);
  fprintf (out, "%4u  %-*s %-10s %5s %5" G_GINT64_FORMAT " %6" G_GINT64_FORMAT " %10.1f %9.1f "
           "%8.1f %8.1f %8.1f %8.2f %7.2f %7.2f %4" G_GINT64_FORMAT " %5.0f%%\n", p->rank,
           width, layout, o->quants[p->quant], conc, p->max_num_seqs, p->max_num_tokens,
           p->res.tok_per_s_gpu,
           p->res.tok_per_s_user, p->res.ttft_ms.mean, p->res.ttft_ms.p50, p->res.ttft_ms.p90,
           p->res.tpot_ms.mean, p->res.tpot_ms.p50, p->res.tpot_ms.p90, p->res.devices,
           100.0 * p->kv_headroom);
}

static void
sla_text (GString *s, const msperf_recommend_opts *o)
{
  if (!isnan (o->ttft_max_ms))
    g_string_append_printf (s, " TTFT <= %g ms", o->ttft_max_ms);
  if (!isnan (o->tpot_max_ms))
    g_string_append_printf (s, " TPOT <= %g ms", o->tpot_max_ms);
  if (!isnan (o->latency_max_ms))
    g_string_append_printf (s, " request latency <= %g ms", o->latency_max_ms);
  if (s->len == 0)
    g_string_append (s, " none");
}

static void
excluded (FILE *out, const msperf_recommend *r)
{
  guint counts[G_N_ELEMENTS (status_names)] = { 0 };
  const msperf_recommend_point *first[G_N_ELEMENTS (status_names)] = { NULL };

  for (guint i = 0; i < r->points->len; i++)
    {
      const msperf_recommend_point *p = g_ptr_array_index (r->points, i);

      counts[p->status]++;
      if (first[p->status] == NULL)
        first[p->status] = p;
    }
  fprintf (out, "\nLeft out\n");
  for (guint k = MSPERF_RECOMMEND_SLA; k < G_N_ELEMENTS (status_names); k++)
    {
      g_autofree char *layout = NULL;

      if (counts[k] == 0)
        continue;
      layout = msperf_recommend_layout_text (first[k]);
      if (first[k]->concurrency > 0)
        fprintf (out, "  %-7s %4u  e.g. %s, %" G_GINT64_FORMAT " clients: %s\n",
                 status_names[k], counts[k], layout, first[k]->concurrency, first[k]->reason);
      else
        fprintf (out, "  %-7s %4u  e.g. %s: %s\n", status_names[k], counts[k], layout,
                 first[k]->reason);
    }
}

/* The launch commands of a point, one per kind of engine, each after a comment line saying
 * how many engines of how many GPUs run it. Transfer full. */
char *
msperf_recommend_launch_text (const msperf_recommend_point *p, const msperf_recommend_opts *o)
{
  msperf_launch_spec sp = { .backend = o->backend, .model_id = o->model_id,
                            .max_num_seqs = p->max_num_seqs, .max_num_tokens = p->max_num_tokens,
                            .quant = o->quants[p->quant], .kv_dtype = o->kv_dtype,
                            .checkpoint_quantized = o->checkpoint_quant != NULL
                                                    && strcmp (o->checkpoint_quant,
                                                               o->quants[p->quant]) == 0,
                            .moe = msperf_recommend_has_experts (o->models[p->quant]),
                            .gpu_memory_utilization = o->policy->gpu_memory_utilization,
                            .nextn = o->nextn, .node_devices = o->node_devices };
  GString *s = g_string_new (NULL);
  const msperf_model_layout *ls[2];
  int64_t counts[2], engine_gpus;
  msperf_launch_role roles[2];
  guint n;

  if (p->dep.mode == MSPERF_SERVE_AGG)
    ls[0] = &p->dep.layout, counts[0] = p->dep.replicas, roles[0] = MSPERF_LAUNCH_AGG, n = 1;
  else
    {
      ls[0] = &p->dep.prefill, counts[0] = p->dep.prefill_workers;
      ls[1] = &p->dep.decode, counts[1] = p->dep.decode_workers;
      roles[0] = MSPERF_LAUNCH_PREFILL, roles[1] = MSPERF_LAUNCH_DECODE, n = 2;
    }
  for (guint k = 0; k < n; k++)
    {
      g_autoptr (GError) err = NULL;
      g_autofree char *cmd = NULL;

      sp.role = roles[k];
      sp.tp = ls[k]->tp, sp.pp = ls[k]->pp, sp.dp = ls[k]->dp, sp.ep = ls[k]->ep;
      cmd = msperf_launch_command (&sp, &err);
      if (cmd == NULL)
        {
          g_string_append_printf (s, "# %s\n", err->message);
          break;
        }
      engine_gpus = ls[k]->tp * ls[k]->dp * ls[k]->pp;
      g_string_append_printf (s, "# %s: %" G_GINT64_FORMAT " engine%s of %" G_GINT64_FORMAT
                              " GPU%s%s\n%s\n",
                              roles[k] == MSPERF_LAUNCH_AGG       ? "aggregated"
                              : roles[k] == MSPERF_LAUNCH_PREFILL ? "prefill"
                                                                  : "decode",
                              counts[k], counts[k] > 1 ? "s" : "", engine_gpus,
                              engine_gpus > 1 ? "s" : "",
                              counts[k] > 1 ? " each, behind a load balancer" : "", cmd);
    }
  return g_string_free (s, FALSE);
}

void
msperf_recommend_print_table (const msperf_recommend *r, const msperf_recommend_opts *o,
                              guint top, FILE *out)
{
  g_autoptr (GString) sla = g_string_new (NULL);
  g_autoptr (GPtrArray) ranked = g_ptr_array_new ();
  const msperf_recommend_point *best = msperf_recommend_best (r);
  int width = 34;

  sla_text (sla, o);
  for (guint i = 0; i < r->points->len; i++)
    {
      const msperf_recommend_point *p = g_ptr_array_index (r->points, i);
      if (p->rank > 0)
        g_ptr_array_add (ranked, (gpointer) p);
    }
  fprintf (out, "%s on %" G_GINT64_FORMAT " GPUs, isl %" G_GINT64_FORMAT " osl %" G_GINT64_FORMAT
           ", backend %s", o->model_name, o->gpus, o->isl, o->osl, o->backend);
  if (o->nextn > 0)
    fprintf (out, ", MTP %" G_GINT64_FORMAT " draft token%s at acceptance %g", o->nextn,
             o->nextn > 1 ? "s" : "", o->accept);
  if (o->rate > 0)
    fprintf (out, ", Poisson arrivals at %g requests/s", o->rate);
  else if (o->concurrency > 0)
    fprintf (out, ", %" G_GINT64_FORMAT " clients", o->concurrency);
  fprintf (out, ", SLA%s\n", sla->str);
  fprintf (out, "%" G_GUINT64_FORMAT " points simulated in %.2f s, %u meet the SLA\n\n",
           r->simulated, r->seconds, ranked->len);
  /* The SLA judges the means (section 3 of doc/recommend.md), so they lead each latency. */
  /* the layout column as wide as the longest shown (wide disaggregated pools) */
  for (guint i = 0; i < ranked->len; i++)
    if (((msperf_recommend_point *) g_ptr_array_index (ranked, i))->rank <= top)
      {
        g_autofree char *layout = msperf_recommend_layout_text (g_ptr_array_index (ranked, i));
        width = MAX (width, (int) strlen (layout));
      }
  fprintf (out, "rank  %-*s %-10s %5s %5s %6s %10s %9s %8s %8s %8s %8s %7s %7s %4s %6s\n",
           width, "layout", "quant", "conc", "seqs", "budget", "tok/s/GPU", "tok/s/usr",
           "TTFTmean", "TTFTp50", "TTFTp90", "TPOTmean", "TPOTp50", "TPOTp90", "GPUs", "KVfree");
  for (guint rank = 1; rank <= MIN (top, ranked->len); rank++)
    for (guint i = 0; i < ranked->len; i++)
      if (((msperf_recommend_point *) g_ptr_array_index (ranked, i))->rank == rank)
        ranked_row (out, o, g_ptr_array_index (ranked, i), width);
  if (best == NULL)
    fprintf (out, "  (no point meets the SLA)\n");
  excluded (out, r);
  if (best != NULL)
    {
      g_autofree char *cmd = msperf_recommend_launch_text (best, o);
      g_autofree char *sim = o->config ? msperf_recommend_serve_command (best, o) : NULL;

      fprintf (out, "\nLaunch (%s)\n%s", o->backend, cmd);
      if (sim)
        fprintf (out, "\nSimulate it alone (add --timeline FILE or --report DIR to see its "
                 "steps)\n%s\n", sim);
    }
}

static void
point_json (GString *s, const msperf_recommend_opts *o, const msperf_recommend_point *p)
{
  g_autofree char *layout = msperf_recommend_layout_text (p);

  g_string_append_printf (s, "{\"index\": %u, \"status\": \"%s\", \"mode\": \"%s\", "
                          "\"layout\": \"%s\", \"quant\": \"%s\", \"concurrency\": %"
                          G_GINT64_FORMAT ", \"max_num_seqs\": %" G_GINT64_FORMAT
                          ", \"max_num_tokens\": %" G_GINT64_FORMAT ", \"gpus\": %"
                          G_GINT64_FORMAT, p->index, status_names[p->status],
                          mode_name (p), layout, o->quants[p->quant], p->concurrency,
                          p->max_num_seqs, p->max_num_tokens, p->res.devices);
  if (p->status <= MSPERF_RECOMMEND_SLA)
    g_string_append_printf (s, ", \"tokens_s_gpu\": %.3f, \"tokens_s_user\": %.3f, "
                            "\"ttft_ms\": {\"mean\": %.3f, \"p50\": %.3f, \"p90\": %.3f}, "
                            "\"tpot_ms\": {\"mean\": %.4f, \"p50\": %.4f, \"p90\": %.4f}, "
                            "\"kv_headroom\": %.4f, \"data_share\": %.4f",
                            p->res.tok_per_s_gpu, p->res.tok_per_s_user, p->res.ttft_ms.mean,
                            p->res.ttft_ms.p50, p->res.ttft_ms.p90, p->res.tpot_ms.mean,
                            p->res.tpot_ms.p50, p->res.tpot_ms.p90, p->kv_headroom,
                            p->res.data_share);
  if (p->reason != NULL)
    {
      g_string_append (s, ", \"reason\": ");
      msperf_fmt_json_string (s, p->reason);
    }
  if (p->status == MSPERF_RECOMMEND_OK)
    {
      g_autofree char *cmd = msperf_recommend_launch_text (p, o);
      g_autofree char *sim = o->config ? msperf_recommend_serve_command (p, o) : NULL;

      g_string_append (s, ", \"launch\": ");
      msperf_fmt_json_string (s, cmd);
      if (sim)
        {
          g_string_append (s, ", \"serve_command\": ");
          msperf_fmt_json_string (s, sim);
        }
    }
  g_string_append (s, "}\n");
}

void
msperf_recommend_print_jsonl (const msperf_recommend *r, const msperf_recommend_opts *o,
                              FILE *out)
{
  g_autoptr (GString) s = g_string_new (NULL);

  for (guint i = 0; i < r->points->len; i++)
    point_json (s, o, g_ptr_array_index (r->points, i));
  fputs (s->str, out);
}

void
msperf_recommend_print_csv (const msperf_recommend *r, const msperf_recommend_opts *o, FILE *out)
{
  fputs ("index,rank,status,layout,quant,concurrency,max_num_seqs,max_num_tokens,gpus,"
         "tokens_s_gpu,"
         "tokens_s_user,ttft_mean_ms,ttft_p50_ms,ttft_p90_ms,tpot_mean_ms,tpot_p50_ms,tpot_p90_ms,"
         "kv_headroom,pareto,"
         "reason\n", out);
  for (guint i = 0; i < r->points->len; i++)
    {
      const msperf_recommend_point *p = g_ptr_array_index (r->points, i);
      g_autofree char *layout = msperf_recommend_layout_text (p);
      g_autofree char *reason = p->reason ? g_strdelimit (g_strdup (p->reason), "\",", ';')
                                          : g_strdup ("");

      fprintf (out, "%u,%u,%s,%s,%s,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
               ",%" G_GINT64_FORMAT ",%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%s,%s\n",
               p->index, p->rank, status_names[p->status], layout, o->quants[p->quant],
               p->concurrency, p->max_num_seqs, p->max_num_tokens, p->res.devices, p->res.tok_per_s_gpu, p->res.tok_per_s_user,
               p->res.ttft_ms.mean, p->res.ttft_ms.p50, p->res.ttft_ms.p90, p->res.tpot_ms.mean,
               p->res.tpot_ms.p50, p->res.tpot_ms.p90, p->kv_headroom,
               p->pareto ? "true" : "false", reason);
    }
}

gboolean
msperf_recommend_report (const msperf_recommend *r, const msperf_recommend_opts *o,
                         const char *title, const char *dir, GError **error)
{
  g_autoptr (GArray) pts = g_array_new (FALSE, TRUE, sizeof (msperf_plot_point));
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *svg = NULL, *csv = NULL, *tpot = NULL;
  msperf_plot plot = { .title = title, .x_title = "tokens/s/user",
                       .y_title = "tokens/s/GPU", .series = { "aggregated", "disaggregated" } };
  FILE *f;

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot create", dir);
      return FALSE;
    }
  for (guint i = 0; i < r->points->len; i++)
    {
      const msperf_recommend_point *p = g_ptr_array_index (r->points, i);
      g_autofree char *layout = NULL;
      msperf_plot_point q;

      if (p->status > MSPERF_RECOMMEND_SLA)
        continue;
      layout = msperf_recommend_layout_text (p);
      q = (msperf_plot_point) { p->res.tok_per_s_user, p->res.tok_per_s_gpu,
                                p->dep.mode == MSPERF_SERVE_AGG ? 0 : 1, p->pareto, NULL };
      /* under an open loop the headline's rate is every point's traffic: the layout alone */
      q.label = p->concurrency > 0
                  ? g_strdup_printf ("%s c%" G_GINT64_FORMAT, layout + (p->dep.mode ? 7 : 4),
                                     p->concurrency)
                  : g_strdup (layout + (p->dep.mode ? 7 : 4));
      g_ptr_array_add (labels, (gpointer) q.label);
      g_array_append_val (pts, q);
    }
  if (!isnan (o->tpot_max_ms) && o->tpot_max_ms > 0)
    {
      tpot = g_strdup_printf ("TPOT \u2264 %g ms", o->tpot_max_ms);
      plot.lines[plot.n_lines++] = (msperf_plot_line) { TRUE, 1000.0 / o->tpot_max_ms, tpot };
    }
  svg = g_build_filename (dir, "pareto.svg", NULL);
  if (!msperf_plot_svg_file (svg, &plot, (msperf_plot_point *) (void *) pts->data, pts->len,
                             error))
    return FALSE;
  csv = g_build_filename (dir, "points.csv", NULL);
  f = fopen (csv, "w");
  if (f == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot write", csv);
      return FALSE;
    }
  msperf_recommend_print_csv (r, o, f);
  return fclose (f) == 0;
}
