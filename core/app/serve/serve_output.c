/* msperf — outputs of the serving simulation: table, JSON, CSV, and the SVG report (latency
 * CDFs, batch size and KV use over time). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include "app/serve/serve.h"

static void
dist_row (FILE *out, const char *name, const msperf_serve_dist *d)
{
  fprintf (out, "%-18s mean %10.3f  p50 %10.3f  p90 %10.3f  p99 %10.3f ms\n", name, d->mean,
           d->p50, d->p90, d->p99);
}

void
msperf_serve_print_table (const msperf_serve_result *r, FILE *out)
{
  fprintf (out, "requests           %" G_GINT64_FORMAT " (%" G_GINT64_FORMAT " measured) on %"
           G_GINT64_FORMAT " devices\n", r->requests, r->measured, r->devices);
  dist_row (out, "TTFT", &r->ttft_ms);
  dist_row (out, "TPOT", &r->tpot_ms);
  dist_row (out, "ITL", &r->itl_ms);
  dist_row (out, "e2e latency", &r->e2e_ms);
  fprintf (out, "duration           %.3f s\n", r->duration_s);
  fprintf (out, "throughput         %.3f req/s, %.2f input tok/s, %.2f output tok/s\n",
           r->req_per_s, r->in_tok_per_s, r->out_tok_per_s);
  fprintf (out, "tokens/s/device    %.2f\n", r->tok_per_s_gpu);
  fprintf (out, "tokens/s/user      %.2f\n", r->tok_per_s_user);
  fprintf (out, "KV cache           %" G_GINT64_FORMAT " tokens per rank, use mean %.1f %% max "
           "%.1f %%\n", r->kv_capacity_tokens, 100 * r->kv_use_mean, 100 * r->kv_use_max);
  if (isfinite (r->prefix_hit_share))
    fprintf (out, "prefix cache       %.1f %% of the prompt tokens found cached\n",
             100 * r->prefix_hit_share);
  fprintf (out, "steps              %" G_GINT64_FORMAT " (mean batch %.2f), preemptions %"
           G_GINT64_FORMAT "\n", r->steps, r->mean_batch, r->preemptions);
  fprintf (out, "answered from data %.1f %% of the step time (%" G_GUINT64_FORMAT
           " distinct step shapes)\n", 100 * r->data_share, r->step_points);
}

static void
json_num (FILE *out, double v)
{
  if (isfinite (v))
    fprintf (out, "%.6g", v);
  else
    fputs ("null", out);
}

static void
json_dist (FILE *out, const char *name, const msperf_serve_dist *d)
{
  fprintf (out, "\"%s\": {\"mean\": ", name);
  json_num (out, d->mean);
  fputs (", \"p50\": ", out);
  json_num (out, d->p50);
  fputs (", \"p90\": ", out);
  json_num (out, d->p90);
  fputs (", \"p99\": ", out);
  json_num (out, d->p99);
  fputs ("}, ", out);
}

void
msperf_serve_print_json (const msperf_serve_result *r, FILE *out)
{
  const struct { const char *k; double v; } nums[] = {
    { "duration_s", r->duration_s }, { "req_per_s", r->req_per_s },
    { "input_tok_per_s", r->in_tok_per_s }, { "output_tok_per_s", r->out_tok_per_s },
    { "tok_per_s_device", r->tok_per_s_gpu }, { "tok_per_s_user", r->tok_per_s_user },
    { "kv_use_mean", r->kv_use_mean }, { "kv_use_max", r->kv_use_max },
    { "mean_batch", r->mean_batch }, { "data_share", r->data_share },
  };

  fprintf (out, "{\"requests\": %" G_GINT64_FORMAT ", \"measured\": %" G_GINT64_FORMAT
           ", \"devices\": %" G_GINT64_FORMAT ", ", r->requests, r->measured, r->devices);
  json_dist (out, "ttft_ms", &r->ttft_ms);
  json_dist (out, "tpot_ms", &r->tpot_ms);
  json_dist (out, "itl_ms", &r->itl_ms);
  json_dist (out, "e2e_ms", &r->e2e_ms);
  for (gsize i = 0; i < G_N_ELEMENTS (nums); i++)
    {
      fprintf (out, "\"%s\": ", nums[i].k);
      json_num (out, nums[i].v);
      fputs (", ", out);
    }
  /* Only a workload drawing on a prompt pool has it; the other runs' figures stay as they
   * were. */
  if (isfinite (r->prefix_hit_share))
    fprintf (out, "\"prefix_hit_share\": %.6g, ", r->prefix_hit_share);
  fprintf (out, "\"kv_capacity_tokens\": %" G_GINT64_FORMAT ", \"preemptions\": %"
           G_GINT64_FORMAT ", \"steps\": %" G_GINT64_FORMAT ", \"step_points\": %"
           G_GUINT64_FORMAT "}\n", r->kv_capacity_tokens, r->preemptions, r->steps,
           r->step_points);
}

void
msperf_serve_print_csv (const msperf_serve_result *r, gboolean header, FILE *out)
{
  const msperf_serve_dist *d[] = { &r->ttft_ms, &r->tpot_ms, &r->itl_ms, &r->e2e_ms };
  const char *names[] = { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" };

  if (header)
    {
      fputs ("requests,measured,devices", out);
      for (gsize i = 0; i < G_N_ELEMENTS (d); i++)
        fprintf (out, ",%s_mean,%s_p50,%s_p90,%s_p99", names[i], names[i], names[i], names[i]);
      fputs (",duration_s,req_per_s,input_tok_per_s,output_tok_per_s,tok_per_s_device,"
             "tok_per_s_user,kv_capacity_tokens,kv_use_mean,kv_use_max,mean_batch,steps,"
             "preemptions,data_share,prefix_hit_share\n", out);
    }
  fprintf (out, "%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, r->requests,
           r->measured, r->devices);
  for (gsize i = 0; i < G_N_ELEMENTS (d); i++)
    fprintf (out, ",%.6g,%.6g,%.6g,%.6g", d[i]->mean, d[i]->p50, d[i]->p90, d[i]->p99);
  fprintf (out, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%" G_GINT64_FORMAT ",%.6g,%.6g,%.6g,%"
           G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%.6g,%.6g\n", r->duration_s, r->req_per_s,
           r->in_tok_per_s, r->out_tok_per_s, r->tok_per_s_gpu, r->tok_per_s_user,
           r->kv_capacity_tokens, r->kv_use_mean, r->kv_use_max, r->mean_batch, r->steps,
           r->preemptions, r->data_share, r->prefix_hit_share);
}

/* ---------------------------------------------------------------- SVG */

#define W 640
#define H 400
#define L 70
#define R 20
#define T 40
#define B 50

static void
svg_frame (GString *s, const char *title, const char *xlabel, const char *ylabel, double x0,
           double x1, double y0, double y1)
{
  g_string_append_printf (s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                          "height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n"
                          "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                          "<text x=\"%d\" y=\"20\" font-size=\"14\">%s</text>\n"
                          "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                          "stroke=\"black\"/>\n"
                          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n"
                          "<text x=\"15\" y=\"%d\" transform=\"rotate(-90 15 %d)\" "
                          "text-anchor=\"middle\">%s</text>\n", W, H, L, title, L, T, W - L - R,
                          H - T - B, (W + L - R) / 2, H - 10, xlabel, (H + T - B) / 2,
                          (H + T - B) / 2, ylabel);
  g_string_append_printf (s, "<text x=\"%d\" y=\"%d\">%.4g</text><text x=\"%d\" y=\"%d\" "
                          "text-anchor=\"end\">%.4g</text>\n", L, H - B + 15, x0, W - R,
                          H - B + 15, x1);
  g_string_append_printf (s, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.4g</text><text "
                          "x=\"%d\" y=\"%d\" text-anchor=\"end\">%.4g</text>\n", L - 4, H - B, y0,
                          L - 4, T + 10, y1);
}

static double
px (double v, double v0, double v1)
{
  return L + (v1 > v0 ? (v - v0) / (v1 - v0) : 0) * (W - L - R);
}

static double
py (double v, double v0, double v1)
{
  return H - B - (v1 > v0 ? (v - v0) / (v1 - v0) : 0) * (H - T - B);
}

static int
cmp_d (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static gboolean
write_cdf (const char *dir, const char *file, const char *title, GArray *v, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autofree double *x = g_memdup2 (v->data, v->len * sizeof (double));
  guint n = v->len, step = MAX (1u, n / 1000);
  double x1;

  qsort (x, n, sizeof *x, cmp_d);
  x1 = n ? x[n - 1] : 1;
  svg_frame (s, title, "ms", "share of requests", 0, x1, 0, 1);
  g_string_append (s, "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"");
  for (guint i = 0; i < n; i += step)
    g_string_append_printf (s, "%.1f,%.1f ", px (x[i], 0, x1), py ((i + 1.0) / n, 0, 1));
  if (n)
    g_string_append_printf (s, "%.1f,%.1f", px (x[n - 1], 0, x1), py (1, 0, 1));
  g_string_append (s, "\"/>\n</svg>\n");
  return g_file_set_contents (path, s->str, (gssize) s->len, error);
}

static gboolean
write_series (const char *dir, const char *file, const char *title, const char *ylabel,
              const GArray *samples, gboolean kv, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);
  g_autofree char *path = g_build_filename (dir, file, NULL);
  guint n = samples->len, step = MAX (1u, n / 2000);
  double t1 = 0, y1 = kv ? 1 : 1;

  for (guint i = 0; i < n; i++)
    {
      const msperf_serve_sample *m = &g_array_index (samples, msperf_serve_sample, i);
      t1 = MAX (t1, m->t_s);
      if (!kv)
        y1 = MAX (y1, (double) m->batch);
    }
  svg_frame (s, title, "time (s)", ylabel, 0, t1, 0, y1);
  g_string_append (s, "<g fill=\"#d62728\">\n");
  for (guint i = 0; i < n; i += step)
    {
      const msperf_serve_sample *m = &g_array_index (samples, msperf_serve_sample, i);
      g_string_append_printf (s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.2\"/>\n",
                              px (m->t_s, 0, t1), py (kv ? m->kv_use : (double) m->batch, 0, y1));
    }
  g_string_append (s, "</g>\n</svg>\n");
  return g_file_set_contents (path, s->str, (gssize) s->len, error);
}

gboolean
msperf_serve_write_report (const msperf_serve_record *rec, const char *dir, const char *title,
                           GError **error)
{
  g_autofree char *t1 = g_strdup_printf ("%s: TTFT CDF", title);
  g_autofree char *t2 = g_strdup_printf ("%s: TPOT CDF", title);
  g_autofree char *t3 = g_strdup_printf ("%s: end-to-end latency CDF", title);
  g_autofree char *t4 = g_strdup_printf ("%s: batch size per step", title);
  g_autofree char *t5 = g_strdup_printf ("%s: KV cache use per step", title);

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot create the directory",
                   dir);
      return FALSE;
    }
  return write_cdf (dir, "ttft_cdf.svg", t1, rec->ttfts, error)
         && write_cdf (dir, "tpot_cdf.svg", t2, rec->tpots, error)
         && write_cdf (dir, "e2e_cdf.svg", t3, rec->e2es, error)
         && write_series (dir, "batch.svg", t4, "sequences", rec->samples, FALSE, error)
         && write_series (dir, "kv_use.svg", t5, "share of the KV cache", rec->samples, TRUE,
                          error);
}
