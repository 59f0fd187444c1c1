/* msperf — sweep outputs: the Pareto front, CSV / JSON Lines rows, the SVG plot. */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/error.h>
#include "app/model/model_e2e.h"
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
  g_string_append_printf (s, ", \"pareto\": %s}\n", p->pareto ? "true" : "false");
  fputs (s->str, out);
}

/* ---------------------------------------------------------------- SVG */

#define W 720.0
#define HGT 480.0
#define M 60.0

static void
svg_text (GString *s, double x, double y, const char *anchor, const char *text)
{
  g_autofree char *esc = g_markup_escape_text (text, -1);

  g_string_append_printf (s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n", x, y,
                          anchor, esc);
}

static int
by_user (gconstpointer a, gconstpointer b)
{
  const msperf_e2e_point *p = *(msperf_e2e_point *const *) a, *q = *(msperf_e2e_point *const *) b;
  return (p->tps_user > q->tps_user) - (p->tps_user < q->tps_user);
}

static void
svg_front (GString *s, const msperf_e2e_point *pts, guint n, double xmax, double ymax)
{
  g_autoptr (GPtrArray) front = g_ptr_array_new ();

  for (guint i = 0; i < n; i++)
    if (pts[i].pareto)
      g_ptr_array_add (front, (gpointer) &pts[i]);
  g_ptr_array_sort (front, by_user);
  g_string_append (s, "<polyline fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\" points=\"");
  for (guint i = 0; i < front->len; i++)
    {
      const msperf_e2e_point *p = g_ptr_array_index (front, i);
      g_string_append_printf (s, "%.1f,%.1f ", M + p->tps_user / xmax * (W - 2 * M),
                              HGT - M - p->tps_device / ymax * (HGT - 2 * M));
    }
  g_string_append (s, "\"/>\n");
}

gboolean
msperf_e2e_pareto_svg (const msperf_e2e_point *pts, guint n, const char *title, const char *path,
                       GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);
  double xmax = 0, ymax = 0;
  char buf[64];

  for (guint i = 0; i < n; i++)
    if (usable (&pts[i]))
      {
        xmax = MAX (xmax, pts[i].tps_user);
        ymax = MAX (ymax, pts[i].tps_device);
      }
  xmax = xmax > 0 ? xmax * 1.05 : 1;
  ymax = ymax > 0 ? ymax * 1.05 : 1;
  g_string_append_printf (s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                          "height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n", W, HGT);
  g_string_append_printf (s, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", W, HGT);
  svg_text (s, W / 2, 20, "middle", title);
  g_string_append_printf (s, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
                          "stroke=\"black\"/>\n<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" "
                          "y2=\"%.0f\" stroke=\"black\"/>\n", M, HGT - M, W - M, HGT - M, M, M,
                          M, HGT - M);
  svg_text (s, W / 2, HGT - 15, "middle", "tokens/s/user");
  svg_text (s, 15, HGT / 2, "middle", "tokens/s/device");
  g_snprintf (buf, sizeof buf, "%.0f", xmax);
  svg_text (s, W - M, HGT - M + 15, "end", buf);
  g_snprintf (buf, sizeof buf, "%.0f", ymax);
  svg_text (s, M - 5, M, "end", buf);
  for (guint i = 0; i < n; i++)
    if (usable (&pts[i]))
      g_string_append_printf (s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"><title>"
                              "tp %" G_GINT64_FORMAT " pp %" G_GINT64_FORMAT " ep %"
                              G_GINT64_FORMAT " dp %" G_GINT64_FORMAT " batch %" G_GINT64_FORMAT
                              "</title></circle>\n",
                              M + pts[i].tps_user / xmax * (W - 2 * M),
                              HGT - M - pts[i].tps_device / ymax * (HGT - 2 * M),
                              pts[i].pareto ? "4" : "2.5", pts[i].pareto ? "#c0392b" : "#7f8c8d",
                              pts[i].layout.tp, pts[i].layout.pp, pts[i].layout.ep,
                              pts[i].layout.dp, pts[i].batch);
  svg_front (s, pts, n, xmax, ymax);
  g_string_append (s, "</svg>\n");
  return g_file_set_contents (path, s->str, (gssize) s->len, error);
}
