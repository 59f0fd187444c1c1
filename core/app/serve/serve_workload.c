/* msperf — workloads of the serving simulation (doc/serving.md §1): closed loop, Poisson or
 * gamma arrivals, or a JSON Lines request file; input/output lengths fixed or uniform around
 * their mean. One RNG per run, seeded, drawn in a fixed order: the same seed gives the same
 * requests. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include "app/serve/serve.h"
#include "app/trace/json_check.h"

gboolean
msperf_serve_parse_arrival (const char *text, msperf_serve_workload *w, GError **error)
{
  if (strcmp (text, "poisson") == 0)
    {
      w->arrival = MSPERF_SERVE_POISSON;
      return TRUE;
    }
  if (g_str_has_prefix (text, "gamma:"))
    {
      char *end = NULL;
      double cv = g_ascii_strtod (text + 6, &end);

      if (end != text + 6 && *end == '\0' && isfinite (cv) && cv > 0)
        {
          w->arrival = MSPERF_SERVE_GAMMA;
          w->gamma_cv = cv;
          return TRUE;
        }
    }
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
               "--arrival must be poisson or gamma:CV (CV > 0), not '%s'", text);
  return FALSE;
}

gboolean
msperf_serve_parse_len_dist (const char *text, msperf_serve_len_dist *d, GError **error)
{
  if (strcmp (text, "fixed") == 0)
    {
      d->range_ratio = 0;
      return TRUE;
    }
  if (g_str_has_prefix (text, "uniform:"))
    {
      char *end = NULL;
      double r = g_ascii_strtod (text + 8, &end);

      if (end != text + 8 && *end == '\0' && r >= 0 && r < 1)
        {
          d->range_ratio = r;
          return TRUE;
        }
    }
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
               "a length distribution is fixed or uniform:R (0 <= R < 1), not '%s'", text);
  return FALSE;
}

/* e of one line (json-glib says "<data>:1:COLUMN: …") as FILE:LINE:COLUMN: … */
static void
line_error (GError **error, const char *path, guint line, const GError *e)
{
  const char *msg = e->message;

  if (g_str_has_prefix (msg, "<data>:1:"))
    g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s:%u:%s", path, line,
                 msg + strlen ("<data>:1:"));
  else
    g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s:%u: %s", path, line, msg);
}

static gboolean
member_number (JsonObject *o, const char *key, double *v)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL || json_node_get_value_type (n) == G_TYPE_STRING
      || JSON_NODE_TYPE (n) != JSON_NODE_VALUE)
    return FALSE;
  *v = json_node_get_double (n);
  return isfinite (*v);
}

GArray *
msperf_serve_read_requests (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL, NULL);
  if (!g_file_get_contents (path, &text, &len, error))
    return NULL;
  return msperf_serve_parse_requests (text, len, path, error);
}

GArray *
msperf_serve_parse_requests (const char *data, gsize len, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (msperf_serve_req_spec));
  g_autoptr (JsonParser) parser = json_parser_new ();

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  if (data == NULL)
    data = "";
  if (len > 0 && memchr (data, '\0', len) != NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s: a NUL byte: not text",
                   path);
      return NULL;
    }
  if (!g_utf8_validate (data, (gssize) len, NULL))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s: not UTF-8 text", path);
      return NULL;
    }
  text = g_strndup (data, len);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      char *line = g_strstrip (lines[i]);
      JsonNode *root;
      JsonObject *o;
      msperf_serve_req_spec r;
      double t, isl, osl;
      GError *e = NULL;

      if (*line == '\0' || *line == '#')
        continue;
      /* Nesting, control bytes and a second value on the line are refused before json-glib
       * (which recurses without a bound and leaks what follows the first value). */
      if (!msperf_json_text_ok (line, strlen (line), &e)
          || !json_parser_load_from_data (parser, line, -1, &e))
        {
          line_error (error, path, i + 1, e);
          g_error_free (e);
          return NULL;
        }
      root = json_parser_get_root (parser);
      if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
        goto bad;
      o = json_node_get_object (root);
      if (member_number (o, "arrival_s", &t))
        ;
      else if (member_number (o, "arrival_ms", &t))
        t /= 1e3;
      else
        goto bad;
      if (!member_number (o, "input_tokens", &isl) || !member_number (o, "output_tokens", &osl)
          || t < 0 || isl < 1 || osl < 1 || isl != floor (isl) || osl != floor (osl))
        goto bad;
      if (isl > MSPERF_SERVE_MAX_TOKENS || osl > MSPERF_SERVE_MAX_TOKENS)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                       "%s:%u: a token count above %" G_GINT64_FORMAT, path, i + 1,
                       (gint64) MSPERF_SERVE_MAX_TOKENS);
          return NULL;
        }
      r.arrival_s = t;
      r.prompt = -1;
      r.isl = (int64_t) isl;
      r.osl = (int64_t) osl;
      if (out->len && t < g_array_index (out, msperf_serve_req_spec, out->len - 1).arrival_s)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                       "%s:%u: arrivals must not decrease (%g s after %g s): sort the file "
                       "by arrival", path, i + 1, t,
                       g_array_index (out, msperf_serve_req_spec, out->len - 1).arrival_s);
          return NULL;
        }
      g_array_append_val (out, r);
      continue;
    bad:
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                   "%s:%u: expected {\"arrival_s\" or \"arrival_ms\": >= 0, \"input_tokens\": "
                   "N >= 1, \"output_tokens\": N >= 1}", path, i + 1);
      return NULL;
    }
  if (out->len == 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s: no requests", path);
      return NULL;
    }
  return g_steal_pointer (&out);
}

static double
normal (GRand *rng)
{
  /* Box–Muller; u1 in (0, 1]. */
  double u1 = 1.0 - g_rand_double (rng), u2 = g_rand_double (rng);

  return sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
}

/* Gamma(shape k, scale 1) by Marsaglia and Tsang; k < 1 by the boost u^(1/k). */
static double
gamma_variate (GRand *rng, double k)
{
  double d, c;

  if (k < 1)
    return gamma_variate (rng, k + 1) * pow (1.0 - g_rand_double (rng), 1.0 / k);
  d = k - 1.0 / 3.0;
  c = 1.0 / sqrt (9.0 * d);
  for (;;)
    {
      double x = normal (rng), v = 1 + c * x, u;

      if (v <= 0)
        continue;
      v = v * v * v;
      u = 1.0 - g_rand_double (rng);
      if (log (u) < 0.5 * x * x + d - d * v + d * log (v))
        return d * v;
    }
}

static int64_t
draw_len (GRand *rng, int64_t mean, const msperf_serve_len_dist *d)
{
  int64_t lo, hi;

  if (d->range_ratio <= 0)
    return mean;
  lo = MAX (1, (int64_t) floor ((double) mean * (1 - d->range_ratio)));
  hi = MAX (lo, (int64_t) ceil ((double) mean * (1 + d->range_ratio)));
  return lo + (int64_t) g_rand_int_range (rng, 0, (gint32) (hi - lo + 1));
}

static int64_t
uniform_below (GRand *prng, int64_t n)
{
  return n <= G_MAXINT32 ? (int64_t) g_rand_int_range (prng, 0, (gint32) n)
                         : MIN (n - 1, (int64_t) floor (g_rand_double (prng) * (double) n));
}

/* The prompt of the next request from a pool of n: uniform with replacement (aiperf's
 * `random` sampling), or the next of a shuffled pass over the pool, reshuffled when a pass
 * ends (`shuffle`: without replacement). order holds the pass, *at the next position. */
static int64_t
draw_prompt (GRand *prng, int64_t n, gboolean shuffle, int64_t *order, int64_t *at)
{
  if (!shuffle)
    return uniform_below (prng, n);
  if (*at == 0)
    for (int64_t k = n - 1; k > 0; k--)
      {
        int64_t j = uniform_below (prng, k + 1), t = order[k];

        order[k] = order[j];
        order[j] = t;
      }
  {
    int64_t p = order[*at];

    *at = (*at + 1) % n;
    return p;
  }
}

GArray *
msperf_serve_make_requests (const msperf_serve_workload *w)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (msperf_serve_req_spec));
  g_autoptr (GRand) rng = g_rand_new_with_seed (w->seed);
  g_autoptr (GRand) prng = NULL;
  g_autofree int64_t *pool_isl = NULL, *order = NULL;
  int64_t at = 0;
  double t = 0;

  if (w->arrival == MSPERF_SERVE_TRACE)
    {
      g_array_append_vals (out, w->trace->data, w->trace->len);
      return out;
    }
  if (w->prompt_pool > 0)
    {
      /* Each prompt of the pool has one length, drawn once; a request's input is its
       * prompt's. */
      prng = g_rand_new_with_seed (w->seed ^ 0x5bd1e995u);
      pool_isl = g_new (int64_t, w->prompt_pool);
      order = g_new (int64_t, w->prompt_pool);
      for (int64_t k = 0; k < w->prompt_pool; k++)
        {
          pool_isl[k] = draw_len (prng, w->isl, &w->isl_dist);
          order[k] = k;
        }
      for (int64_t i = 0; i < w->prompt_warmup; i++)
        {
          msperf_serve_req_spec r = { 0, 0, 0, draw_prompt (prng, w->prompt_pool,
                                                            w->prompt_shuffle, order, &at) };

          r.isl = pool_isl[r.prompt];
          r.osl = w->osl;
          g_array_append_val (out, r);
        }
    }
  for (int64_t i = 0; i < w->num_requests; i++)
    {
      msperf_serve_req_spec r;

      r.isl = draw_len (rng, w->isl, &w->isl_dist);
      r.osl = draw_len (rng, w->osl, &w->osl_dist);
      r.prompt = -1;
      if (prng)
        {
          r.prompt = draw_prompt (prng, w->prompt_pool, w->prompt_shuffle, order, &at);
          r.isl = pool_isl[r.prompt];
        }
      if (w->arrival == MSPERF_SERVE_POISSON)
        t += -log (1.0 - g_rand_double (rng)) / w->rate;
      else if (w->arrival == MSPERF_SERVE_GAMMA)
        {
          double k = 1.0 / (w->gamma_cv * w->gamma_cv);
          t += gamma_variate (rng, k) / (k * w->rate);
        }
      r.arrival_s = w->arrival == MSPERF_SERVE_CLOSED ? 0 : t;
      g_array_append_val (out, r);
    }
  return out;
}
