/* msperf — sweep outputs: the Pareto front, CSV / JSON Lines rows, the SVG plot. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/error.h>
#include "app/model/model_e2e.h"
#include "app/report/plot_svg.h"
#include <msperf/format.h>

static gboolean
usable (const msperf_e2e_point *p)
{
  return p->estimated && isfinite (p->tps_device) && isfinite (p->tps_user);
}

void
msperf_e2e_pareto (msperf_e2e_point *pts, const gboolean *keep, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      pts[i].pareto = usable (&pts[i]) && (keep == NULL || keep[i]);
      /* Dominated when another kept point is at least as good on both axes, better on one. */
      for (guint j = 0; pts[i].pareto && j < n; j++)
        if (j != i && usable (&pts[j]) && (keep == NULL || keep[j])
            && pts[j].tps_device >= pts[i].tps_device && pts[j].tps_user >= pts[i].tps_user
            && (pts[j].tps_device > pts[i].tps_device || pts[j].tps_user > pts[i].tps_user))
          pts[i].pareto = FALSE;
    }
}

void
msperf_e2e_csv_header (FILE *out)
{
  fputs ("tp,pp,ep,dp,moe_tp,batch,ttft_ms,tpot_ms,request_latency_ms,tokens_s_device,"
         "tokens_s_user,weights_gib,kv_cache_gib,device_gib,fits,data_share,pareto\n", out);
}

static void
csv_num (GString *s, double v)
{
  if (isfinite (v))
    g_string_append_printf (s, ",%.6g", v);
  else
    g_string_append (s, ",");
}

void
msperf_e2e_csv_row (const msperf_e2e_point *p, FILE *out)
{
  const msperf_model_layout *l = &p->layout;
  g_autoptr (GString) s = g_string_new (NULL);

  g_string_append_printf (s, "%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                          ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT,
                          l->tp, l->pp, l->ep, l->dp, l->tp * l->dp / l->ep, p->batch);
  csv_num (s, p->ttft_ms);
  csv_num (s, p->tpot_ms);
  csv_num (s, p->latency_ms);
  csv_num (s, p->tps_device);
  csv_num (s, p->tps_user);
  csv_num (s, p->weight_gib);
  csv_num (s, p->kv_gib);
  csv_num (s, p->device_gib);
  g_string_append_printf (s, ",%s", p->fits ? "true" : "false");
  csv_num (s, p->data_share);
  g_string_append_printf (s, ",%s\n", p->pareto ? "true" : "false");
  fputs (s->str, out);
}

static void
json_key (GString *s, const char *key, double v)
{
  g_string_append_printf (s, ", \"%s\": ", key);
  msperf_fmt_json_double (s, v);
}

void
msperf_e2e_jsonl_row (const msperf_e2e_point *p, FILE *out)
{
  const msperf_model_layout *l = &p->layout;
  g_autoptr (GString) s = g_string_new (NULL);

  g_string_append_printf (s, "{\"tp\": %" G_GINT64_FORMAT ", \"pp\": %" G_GINT64_FORMAT
                          ", \"ep\": %" G_GINT64_FORMAT ", \"dp\": %" G_GINT64_FORMAT
                          ", \"moe_tp\": %" G_GINT64_FORMAT ", \"batch\": %" G_GINT64_FORMAT,
                          l->tp, l->pp, l->ep, l->dp, l->tp * l->dp / l->ep, p->batch);
  json_key (s, "ttft_ms", p->ttft_ms);
  json_key (s, "tpot_ms", p->tpot_ms);
  json_key (s, "request_latency_ms", p->latency_ms);
  json_key (s, "tokens_s_device", p->tps_device);
  json_key (s, "tokens_s_user", p->tps_user);
  json_key (s, "weights_gib", p->weight_gib);
  json_key (s, "kv_cache_gib", p->kv_gib);
  json_key (s, "device_gib", p->device_gib);
  g_string_append_printf (s, ", \"fits\": %s", p->fits ? "true" : "false");
  json_key (s, "data_share", p->data_share);
  /* Only when chunked: an unchunked point's row is as it always was. */
  if (p->prefill_passes > 1)
    g_string_append_printf (s, ", \"prefill_passes\": %" G_GINT64_FORMAT, p->prefill_passes);
  g_string_append_printf (s, ", \"pareto\": %s}\n", p->pareto ? "true" : "false");
  fputs (s->str, out);
}

/* ---------------------------------------------------------------- SVG */

gboolean
msperf_e2e_pareto_svg (const msperf_e2e_point *pts, guint n, const char *title,
                       double ttft_max_ms, double tpot_max_ms, const char *path, GError **error)
{
  g_autoptr (GArray) points = g_array_sized_new (FALSE, TRUE, sizeof (msperf_plot_point), n);
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *tpot_label = NULL, *full_title = NULL;
  msperf_plot plot = { .x_title = "tokens/s/user", .y_title = "tokens/s/device",
                       .series = { "layouts and batch sizes", NULL } };

  for (guint i = 0; i < n; i++)
    if (usable (&pts[i]))
      {
        char *label = g_strdup_printf ("tp%" G_GINT64_FORMAT " pp%" G_GINT64_FORMAT " ep%"
                                       G_GINT64_FORMAT " dp%" G_GINT64_FORMAT " b%"
                                       G_GINT64_FORMAT, pts[i].layout.tp, pts[i].layout.pp,
                                       pts[i].layout.ep, pts[i].layout.dp, pts[i].batch);
        msperf_plot_point p = { pts[i].tps_user, pts[i].tps_device, 0, pts[i].pareto, label };

        g_ptr_array_add (labels, label);
        g_array_append_val (points, p);
      }
  if (isfinite (tpot_max_ms) && tpot_max_ms > 0)
    {
      /* tokens/s/user = 1000 / TPOT: the TPOT limit is a vertical line */
      tpot_label = g_strdup_printf ("TPOT \u2264 %g ms", tpot_max_ms);
      plot.lines[plot.n_lines++] = (msperf_plot_line) { TRUE, 1000.0 / tpot_max_ms, tpot_label };
    }
  full_title = isfinite (ttft_max_ms) && ttft_max_ms > 0
                 ? g_strdup_printf ("%s (front under TTFT \u2264 %g ms)", title, ttft_max_ms)
                 : g_strdup (title);
  plot.title = full_title;
  return msperf_plot_svg_file (path, &plot, (const msperf_plot_point *) (void *) points->data,
                               points->len, error);
}
