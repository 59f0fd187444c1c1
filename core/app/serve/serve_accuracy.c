/* msperf — `accuracy --silicon FILE`: serving predictions against measured deployments, on
 * aiconfigurator's silicon_sample.csv schema (doc/serving.md §6). Each row becomes one
 * simulation (agg or disagg, the backend's scheduler preset, the row's layout, closed loop at
 * the row's concurrency); the rows run on --jobs threads, each with its own engine session, and
 * the output is the same for any number of jobs. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include <msperf/format.h>
#include "app/serve/serve.h"

typedef struct {
  char *id, *model_path, *backend, *backend_version, *mode, *quant, *config;
  char *moe_quant;            /* moe_quant_mode when it differs from gemm_quant_mode, or NULL */
  char *system;               /* the row's `system` ("" when not stated) */
  char *other_system;         /* status note when that is not the engine's device profile, or
                               * NULL */
  int64_t isl, osl, concurrency;
  msperf_model_layout agg, prefill, decode;
  int64_t prefill_workers, decode_workers;
  int64_t prefill_seqs, decode_seqs;  /* disagg batch sizes per rank; 0 = not stated */
  double ttft, tpot;          /* measured, ms */
  /* results */
  double p_ttft, p_tpot, share;
  int64_t devices;
  gboolean workers_stated;
  int64_t decode_fill;        /* decode workers sized from the clients: sequences per DP rank,
                               * 0 when not (see size_from_clients) */
  gint twin;                  /* index of another row with the same measurement under another
                               * layout, -1 when none (see find_twins) */
  char *layout_note;          /* status note on a size inferred from the others, or NULL */
  char *config_note;          /* status note on a config found by a shorter name, or NULL */
  char *status;               /* "ok", "ok: …" or the reason it was not mapped */
  char *command;              /* the `msperf serve` command of the simulation that answered */
  gboolean ran;
  gboolean mtp;               /* ran with the stated MTP draft tokens (--nextn) */
  GPtrArray *recipes;         /* msperf_serve_recipe (borrowed): the published deployments
                               * that match the row, or NULL */
  gboolean gpus_known;        /* a disaggregated row's GPUs are known all the same: its
                               * published deployments agree on them */
} row;

static void
row_clear (row *r)
{
  g_free (r->id);
  g_free (r->model_path);
  g_free (r->backend);
  g_free (r->backend_version);
  g_free (r->mode);
  g_free (r->quant);
  g_free (r->moe_quant);
  g_free (r->config);
  g_free (r->system);
  g_free (r->other_system);
  g_free (r->layout_note);
  g_free (r->config_note);
  g_free (r->status);
  g_free (r->command);
  if (r->recipes)
    g_ptr_array_unref (r->recipes);
}

/* A disaggregated row that states no worker counts, sized as aiconfigurator's generator sizes
 * the benchmark of a deployment it writes: the clients are the decode pool's capacity,
 * estimated_concurrency = decode workers x max batch size (its benchmark rules for TensorRT-LLM,
 * vLLM and SGLang alike), the batch per attention-DP rank; the upstream rows that do state
 * their counts keep clients = workers x batch x DP exactly. Given the batch (the row's own
 * when stated), the decode workers are as many as the clients fill; the prefill count stays
 * as read. Nested ceiling divisions, so no product can overflow. */
static void
size_from_clients (row *r, int64_t batch)
{
  int64_t per_rank = (r->concurrency + MAX (r->decode.dp, 1) - 1) / MAX (r->decode.dp, 1);

  if (r->decode_seqs <= 0)
    r->decode_seqs = batch;
  r->decode_fill = r->decode_seqs;
  r->decode_workers = MAX (1, (per_rank + r->decode_fill - 1) / r->decode_fill);
}

/* The published deployments of row r (o->recipes), kept on the row when any match. */
static void
match_recipes (const msperf_serve_accuracy_opts *o, row *r)
{
  for (guint k = 0; o->recipes && k < o->recipes->len; k++)
    {
      const msperf_serve_recipe *d = g_ptr_array_index (o->recipes, k);

      if (!msperf_serve_recipe_matches (d, r->model_path, r->backend, r->backend_version,
                                        r->mode, r->isl, r->osl, r->concurrency))
        continue;
      if (r->recipes == NULL)
        r->recipes = g_ptr_array_new ();
      g_ptr_array_add (r->recipes, (gpointer) d);
    }
}

char *
msperf_serve_csv_text (const char *path, GError **error)
{
  char *text = NULL;
  const char *bad_at = NULL;
  gsize len = 0;
  guint bad_line = 1;

  if (!g_file_get_contents (path, &text, &len, error))
    return NULL;
  if (g_utf8_validate (text, (gssize) len, &bad_at))
    return text;
  for (const char *c = text; c < bad_at; c++)
    bad_line += *c == '\n';
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
               "%s:%u: not UTF-8 text (byte 0x%02x)", path, bad_line, (guint) (guchar) *bad_at);
  g_free (text);
  return NULL;
}

GPtrArray *
msperf_serve_csv_record (const char **p, guint *line)
{
  GPtrArray *f;
  GString *cur;
  gboolean q = FALSE;

  if (**p == '\0')
    return NULL;
  f = g_ptr_array_new_with_free_func (g_free);
  cur = g_string_new (NULL);
  for (; **p; (*p)++)
    {
      char c = **p;

      if (q)
        {
          if (c == '"' && (*p)[1] == '"')
            {
              g_string_append_c (cur, '"');
              (*p)++;
            }
          else if (c == '"')
            q = FALSE;
          else
            {
              g_string_append_c (cur, c);
              *line += c == '\n';
            }
        }
      else if (c == '"')
        q = TRUE;
      else if (c == ',')
        {
          g_ptr_array_add (f, g_string_free (cur, FALSE));
          cur = g_string_new (NULL);
        }
      else if (c == '\n' || c == '\r')
        {
          while (**p == '\r' || **p == '\n')
            *line += *(*p)++ == '\n';
          break;
        }
      else
        g_string_append_c (cur, c);
    }
  g_ptr_array_add (f, g_string_free (cur, FALSE));
  return f;
}

static const char *
field (GPtrArray *rec, GHashTable *cols, const char *name)
{
  gpointer v;

  if (!g_hash_table_lookup_extended (cols, name, NULL, &v))
    return "";
  return GPOINTER_TO_UINT (v) < rec->len ? g_ptr_array_index (rec, GPOINTER_TO_UINT (v)) : "";
}

static int64_t
int_field (GPtrArray *rec, GHashTable *cols, const char *name, int64_t fallback)
{
  const char *s = field (rec, cols, name);
  char *end;
  double v;

  if (*s == '\0')
    return fallback;
  v = g_ascii_strtod (s, &end);
  return end != s && *end == '\0' && v >= 1 && v == floor (v) ? (int64_t) v : -1;
}

/* "Org/Meta-Llama-3.1-8B-Instruct-FP8" -> "llama-3.1-8b": lower case, no organisation, no
 * "meta-" prefix, no "-instruct" and quantisation suffixes. *quant gets the quantisation
 * suffixes removed ("-fp8"; "" for none). */
static char *
normalise (const char *name, char **quant)
{
  const char *slash = strrchr (name, '/');
  char *s = g_ascii_strdown (slash ? slash + 1 : name, -1);
  const char *suffixes[] = { "-instruct", "-fp8", "-fp4", "-int4", "-awq", "-gptq" };
  GString *tags = g_string_new (NULL);
  gboolean again = TRUE;

  if (g_str_has_prefix (s, "meta-"))
    memmove (s, s + 5, strlen (s + 5) + 1);
  while (again)
    {
      again = FALSE;
      for (gsize i = 0; i < G_N_ELEMENTS (suffixes); i++)
        if (g_str_has_suffix (s, suffixes[i]))
          {
            s[strlen (s) - strlen (suffixes[i])] = '\0';
            if (i > 0)
              g_string_prepend (tags, suffixes[i]);
            again = TRUE;
          }
    }
  *quant = g_string_free (tags, FALSE);
  return s;
}

/* aiconfigurator's labels of 16-bit weights (GEMMQuantMode.bfloat16, and the float16 of older
 * exports) are the templates' bf16: the same bytes and tensor-core rate. */
static const char *
quant_label (const char *label)
{
  const char *sixteen[] = { "bfloat16", "float16", "fp16", "half" };

  for (gsize i = 0; i < G_N_ELEMENTS (sixteen); i++)
    if (g_ascii_strcasecmp (label, sixteen[i]) == 0)
      return "bf16";
  return label;
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Of names (file names in dir), the config whose normalised name is want: the one with the
 * quantisation suffix tag when there is one, else the first. NULL when none. */
static char *
match_config (const char *dir, GPtrArray *names, const char *want, const char *tag)
{
  char *first = NULL;

  for (guint i = 0; i < names->len; i++)
    {
      const char *file = g_ptr_array_index (names, i);
      g_autofree char *stem = g_strndup (file, strlen (file) - 5);
      char *sep = strstr (stem, "--");
      g_autofree char *own = NULL;
      g_autofree char *norm = normalise (sep ? sep + 2 : stem, &own);

      if (strcmp (norm, want) != 0)
        continue;
      if (strcmp (own, tag) == 0)
        {
          g_free (first);
          return g_build_filename (dir, file, NULL);
        }
      if (first == NULL)
        first = g_build_filename (dir, file, NULL);
    }
  return first;
}

/* The config of a Hugging Face name in dir: ORG--NAME.json exactly, else one whose normalised
 * name is equal — the one with the same quantisation suffix when there is one (the row of
 * "Llama-3.1-70B-Instruct" is the bf16 checkpoint, not "Llama-3.1-70B-Instruct-FP8"), else the
 * first by file name. Else a revision or packaging of a model whose own config is not there
 * ("Qwen3-30B-A3B-Instruct-2507", "Qwen3-32B-FP8-Static-PerTensor"): the name's trailing
 * segments dropped one at a time, down to two ("qwen3-32b"), *note saying so. NULL when
 * none. */
static char *
find_config (const char *dir, const char *hf, char **note)
{
  g_autofree char *flat = g_strdup (hf);
  g_autofree char *exact = NULL, *tag = NULL, *want = normalise (hf, &tag);
  g_autoptr (GDir) d = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *n;
  char *found, *cut;

  g_strdelimit (flat, "/", '\001');
  {
    g_auto (GStrv) parts = g_strsplit (flat, "\001", -1);
    g_autofree char *joined = g_strjoinv ("--", parts);
    exact = g_strdup_printf ("%s/%s.json", dir, joined);
  }
  if (g_file_test (exact, G_FILE_TEST_IS_REGULAR))
    return g_steal_pointer (&exact);
  if ((d = g_dir_open (dir, 0, NULL)) == NULL)
    return NULL;
  while ((n = g_dir_read_name (d)))
    if (g_str_has_suffix (n, ".json"))
      g_ptr_array_add (names, g_strdup (n));
  g_ptr_array_sort (names, compare_names);
  if ((found = match_config (dir, names, want, tag)) != NULL)
    return found;
  while ((cut = strrchr (want, '-')) != NULL && strchr (want, '-') != cut)
    {
      g_autofree char *shorter = NULL, *more = NULL;

      *cut = '\0';
      shorter = normalise (want, &more);
      if ((found = match_config (dir, names, shorter, *more ? more : tag)) != NULL)
        {
          g_autofree char *base = g_path_get_basename (found);

          *note = g_strdup_printf ("; config %s (the nearest name: none of %s)", base, hf);
          return found;
        }
    }
  return NULL;
}

static gboolean
layout_valid (const msperf_model_layout *l)
{
  return l->tp >= 1 && l->dp >= 1 && l->ep >= 1 && l->pp >= 1;
}

/* One stage's layout from its columns (prefix "" for agg, "prefill_", "decode_"). The layout
 * keeps tp·dp = moe_tp·ep (msperf_model_layout); a row that leaves attention_dp_size blank
 * while its MoE group is larger than its attention TP states attention data parallelism by
 * the other three: vLLM without --enable-expert-parallel runs the experts tensor-parallel
 * over all dp × tp ranks (FusedMoEParallelConfig.make, vllm/model_executor/layers/fused_moe/
 * config.py), so tp_size 1 with moe_tp_size 2 is two DP ranks. */
static msperf_model_layout
stage_layout (GPtrArray *rec, GHashTable *cols, const char *prefix, char **note)
{
  g_autofree char *tp_c = g_strconcat (prefix, "tp_size", NULL);
  g_autofree char *ep_c = g_strconcat (prefix, "moe_ep_size", NULL);
  g_autofree char *dp_c = g_strconcat (prefix, "attention_dp_size", NULL);
  g_autofree char *pp_c = g_strconcat (prefix, "pp_size", NULL);
  g_autofree char *mtp_c = g_strconcat (prefix, "moe_tp_size", NULL);
  msperf_model_layout l = { int_field (rec, cols, tp_c, 1), int_field (rec, cols, ep_c, 1),
                            int_field (rec, cols, dp_c, 1), int_field (rec, cols, pp_c, 1),
                            FALSE };
  int64_t moe_tp = int_field (rec, cols, mtp_c, 1);

  if (*field (rec, cols, dp_c) == '\0' && l.tp >= 1 && l.ep >= 1 && moe_tp > 1
      && moe_tp <= G_MAXINT32 / l.ep && moe_tp * l.ep > l.tp && moe_tp * l.ep % l.tp == 0)
    {
      l.dp = moe_tp * l.ep / l.tp;
      if (*note == NULL)
        *note = g_strdup_printf ("; %sattention DP %" G_GINT64_FORMAT " (%s blank: %s %"
                                 G_GINT64_FORMAT " x %s %" G_GINT64_FORMAT " over %s %"
                                 G_GINT64_FORMAT ")", prefix, l.dp, dp_c, mtp_c, moe_tp, ep_c,
                                 l.ep, tp_c, l.tp);
    }
  return l;
}
/* The C of `silicon_concurrency=C` in silicon_data_source: NULL with *clients set, or the
 * stated text (at most 32 bytes) when it is no integer >= 1 — a count that is stated wrong is
 * an error of its row, not a cue to fall back on batch_size. */
static char *
parse_clients (const char *text, int64_t *clients)
{
  g_autofree char *word = g_strndup (text, MIN (strcspn (text, "; \t"), (gsize) 32));
  gint64 v;

  if (!g_ascii_string_to_signed (word, 10, 1, G_MAXINT64, &v, NULL))
    return g_steal_pointer (&word);
  *clients = v;
  return NULL;
}


static gboolean
parse_rows (const msperf_serve_accuracy_opts *o, GArray *rows, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (GHashTable) cols = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const char *p;
  GPtrArray *hdr;
  const char *need[] = { "id", "silicon_data_source", "backend", "model_path", "mode", "isl",
                         "osl" };
  const char *measured[] = { "silicon_ttft_ms", "silicon_tpot_ms" };
  guint line = 1, next = 1, n_cols;

  /* cells are echoed into the output: text only (a NUL would also end the file early) */
  if ((text = msperf_serve_csv_text (o->silicon, error)) == NULL)
    return FALSE;
  p = text;
  if ((hdr = msperf_serve_csv_record (&p, &next)) == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s:1: empty file", o->silicon);
      return FALSE;
    }
  for (guint i = 0; i < hdr->len; i++)
    g_hash_table_insert (cols, g_strdup (g_ptr_array_index (hdr, i)), GUINT_TO_POINTER (i));
  n_cols = hdr->len;
  g_ptr_array_free (hdr, TRUE);
  for (gsize i = 0; i < G_N_ELEMENTS (need); i++)
    if (!g_hash_table_contains (cols, need[i]))
      {
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                     "%s:1: no column '%s' (aiconfigurator's silicon_sample.csv schema)",
                     o->silicon, need[i]);
        return FALSE;
      }
  for (GPtrArray *rec; (line = next, rec = msperf_serve_csv_record (&p, &next)) != NULL;
       g_ptr_array_free (rec, TRUE))
    {
      row r = { 0 };
      const char *src = field (rec, cols, "silicon_data_source"), *c;
      const char *bad_measure = NULL, *moe_label;
      g_autofree char *bad_clients = NULL;
      char *end;

      if (rec->len == 1 && *(char *) g_ptr_array_index (rec, 0) == '\0')
        continue;
      if ((int64_t) rows->len >= (o->max_rows > 0 ? o->max_rows : MSPERF_SERVE_ACCURACY_MAX_ROWS))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                       "%s:%u: more than %" G_GINT64_FORMAT " rows (the bound --max-rows; "
                       "raise it for a larger file)", o->silicon, line,
                       o->max_rows > 0 ? o->max_rows : MSPERF_SERVE_ACCURACY_MAX_ROWS);
          g_ptr_array_free (rec, TRUE);
          return FALSE;
        }
      if (rec->len != n_cols)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                       "%s:%u: %u fields where the header has %u", o->silicon, line, rec->len,
                       n_cols);
          g_ptr_array_free (rec, TRUE);
          return FALSE;
        }
      r.id = g_strdup (field (rec, cols, "id"));
      r.model_path = g_strdup (field (rec, cols, "model_path"));
      r.backend = g_strdup (field (rec, cols, "backend"));
      r.backend_version = g_strdup (field (rec, cols, "backend_version"));
      r.mode = g_strdup (field (rec, cols, "mode"));
      r.quant = g_strdup (quant_label (field (rec, cols, "gemm_quant_mode")));
      moe_label = quant_label (field (rec, cols, "moe_quant_mode"));
      if (*moe_label != '\0' && strcmp (moe_label, r.quant) != 0)
        r.moe_quant = g_strdup (moe_label);
      r.system = g_strdup (field (rec, cols, "system"));
      r.isl = int_field (rec, cols, "isl", -1);
      r.osl = int_field (rec, cols, "osl", -1);
      for (gsize k = 0; k < G_N_ELEMENTS (measured); k++)
        {
          const char *val = field (rec, cols, measured[k]);
          double v = g_ascii_strtod (val, &end);

          if (end == val || *end != '\0' || !isfinite (v) || !(v > 0))
            bad_measure = bad_measure ? bad_measure : measured[k];
          *(k == 0 ? &r.ttft : &r.tpot) = v;
        }
      r.concurrency = -1;
      if ((c = strstr (src, "silicon_concurrency=")) != NULL)
        bad_clients = parse_clients (c + 20, &r.concurrency);
      else
        r.concurrency = int_field (rec, cols, "batch_size", -1);
      r.agg = stage_layout (rec, cols, "", &r.layout_note);
      r.prefill = stage_layout (rec, cols, "prefill_", &r.layout_note);
      r.decode = stage_layout (rec, cols, "decode_", &r.layout_note);
      r.twin = -1;
      r.prefill_workers = int_field (rec, cols, "prefill_num_workers", 1);
      r.decode_workers = int_field (rec, cols, "decode_num_workers", 1);
      r.prefill_seqs = int_field (rec, cols, "prefill_batch_size", 0);
      r.decode_seqs = int_field (rec, cols, "decode_batch_size", 0);
      r.workers_stated = *field (rec, cols, "prefill_num_workers") != '\0'
                         && *field (rec, cols, "decode_num_workers") != '\0';
      match_recipes (o, &r);
      if (strcmp (r.mode, "disagg") == 0 && !r.workers_stated && o->unstated_decode_batch > 0
          && r.recipes == NULL)
        size_from_clients (&r, o->unstated_decode_batch);
      r.p_ttft = r.p_tpot = r.share = NAN;
      if (r.isl < 1 || r.osl < 1)
        r.status = g_strdup_printf ("unmapped: line %u: isl/osl not integers >= 1", line);
      else if (bad_measure && !g_hash_table_contains (cols, bad_measure))
        r.status = g_strdup_printf ("unmapped: no column %s", bad_measure);
      else if (bad_measure)
        r.status = g_strdup_printf ("unmapped: line %u: %s '%s' is not a number > 0", line,
                                    bad_measure, field (rec, cols, bad_measure));
      else if (*r.backend == '\0' || strchr (r.backend, '/') || strchr (r.backend, '\\'))
        r.status = g_strdup_printf ("unmapped: line %u: backend '%s' is not a preset name",
                                    line, r.backend);
      else if (bad_clients)
        r.status = g_strdup_printf ("unmapped: line %u: silicon_concurrency '%s' is not an "
                                    "integer >= 1", line, bad_clients);
      else if (r.concurrency < 1)
        r.status = g_strdup ("unmapped: no silicon_concurrency in silicon_data_source and no "
                             "batch_size");
      else if (strcmp (r.mode, "agg") != 0 && strcmp (r.mode, "disagg") != 0)
        r.status = g_strdup_printf ("unmapped: mode '%s' is not agg or disagg", r.mode);
      else if (strcmp (r.mode, "agg") == 0 ? !layout_valid (&r.agg)
               : !layout_valid (&r.prefill) || !layout_valid (&r.decode)
                   || r.prefill_workers < 1 || r.decode_workers < 1)
        r.status = g_strdup ("unmapped: a parallel size is not an integer >= 1");
      else if (strcmp (r.mode, "disagg") == 0 && (r.prefill_seqs < 0 || r.decode_seqs < 0))
        r.status = g_strdup ("unmapped: a batch size is not an integer >= 1");
      else if ((r.config = find_config (o->models_dir, r.model_path, &r.config_note)) == NULL)
        r.status = g_strdup_printf ("unmapped: no config for %s in the models directory",
                                    r.model_path);
      g_array_append_val (rows, r);
    }
  return TRUE;
}

static gboolean
same_layout (const msperf_model_layout *a, const msperf_model_layout *b)
{
  return a->tp == b->tp && a->ep == b->ep && a->dp == b->dp && a->pp == b->pp;
}

static gboolean
same_deployment (const row *a, const row *b)
{
  if (strcmp (a->mode, "agg") == 0)
    return same_layout (&a->agg, &b->agg);
  return same_layout (&a->prefill, &b->prefill) && same_layout (&a->decode, &b->decode)
         && a->prefill_workers == b->prefill_workers && a->decode_workers == b->decode_workers
         && a->prefill_seqs == b->prefill_seqs && a->decode_seqs == b->decode_seqs;
}

/* Equal to the printed precision of a measurement: exports of the same run differ in the last
 * digit of its shortest decimal form. */
static gboolean
same_measure (double a, double b)
{
  return fabs (a - b) <= 1e-12 * fmax (fabs (a), fabs (b));
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* The workload a row measured: model, backend, mode, isl, osl, clients. */
static int
cmp_workload (const row *a, const row *b)
{
  int c;

  if ((c = strcmp (a->model_path, b->model_path)) || (c = strcmp (a->backend, b->backend))
      || (c = strcmp (a->mode, b->mode)) || (c = CMP (a->isl, b->isl))
      || (c = CMP (a->osl, b->osl)))
    return c;
  return CMP (a->concurrency, b->concurrency);
}

/* Row indices by workload, then measured TTFT, then file order: rows that can be one run sort
 * together. */
static int
cmp_run (gconstpointer x, gconstpointer y, gpointer data)
{
  const row *v = data;
  guint i = *(const guint *) x, j = *(const guint *) y;
  int c;

  if ((c = cmp_workload (&v[i], &v[j])) || (c = CMP (v[i].ttft, v[j].ttft)))
    return c;
  return CMP (i, j);
}

/* The sizes an aggregated row's id names: upstream names a row by its deployment
 * ("…_c64_tp8_ep8_1897", "…_tp8_0_ep8_0_585", "…_tp4_epnone_1"). The last "_tp<N>[_<k>]_ep<M>"
 * or "…_epnone" in the id counts; FALSE when there is none or a size is out of range. The
 * row's own attention DP and PP are kept: the ids do not name them. */
static gboolean
id_layout (const row *r, msperf_model_layout *out)
{
  const char *p, *hit = NULL;
  int64_t tp = 0, ep = 0;

  if (strcmp (r->mode, "agg") != 0)
    return FALSE;
  for (const char *q = r->id; (q = strstr (q, "_tp")) != NULL; q++)
    hit = q;
  if (hit == NULL)
    return FALSE;
  p = hit + 3;
  for (; g_ascii_isdigit (*p) && tp <= G_MAXINT32; p++)
    tp = tp * 10 + (*p - '0');
  if (*p == '_' && g_ascii_isdigit (p[1]))
    for (p++; g_ascii_isdigit (*p); p++)
      ;
  if (!g_str_has_prefix (p, "_ep"))
    return FALSE;
  p += 3;
  if (g_str_has_prefix (p, "none"))
    ep = 1;
  else
    for (; g_ascii_isdigit (*p) && ep <= G_MAXINT32; p++)
      ep = ep * 10 + (*p - '0');
  if (tp < 1 || tp > G_MAXINT32 || ep < 1 || ep > G_MAXINT32)
    return FALSE;
  *out = r->agg;
  out->tp = tp;
  out->ep = ep;
  return TRUE;
}

/* A measurement that a row shares with another row of the same workload under another layout
 * is one run exported twice with its sizes written two ways (upstream carries such pairs): at
 * most one of the two layouts ran, and the row cannot tell which. Each such row names the other
 * in its status, so a user sees which rows to check before trusting their errors. */
static void
find_twins (GArray *rows)
{
  row *v = (row *) (void *) rows->data;
  g_autofree guint *idx = g_new (guint, rows->len + 1);
  guint n = 0;

  /* Only rows that will run: an unmapped row's measurement may be unreadable. */
  for (guint i = 0; i < rows->len; i++)
    if (v[i].status == NULL)
      idx[n++] = i;
  g_qsort_with_data (idx, (gint) n, sizeof *idx, cmp_run, v);
  for (guint i = 0; i < n; i++)
    for (guint j = i + 1; j < n; j++)
      {
        row *a = &v[idx[i]], *b = &v[idx[j]];

        if (cmp_workload (a, b) != 0 || !same_measure (a->ttft, b->ttft))
          break;
        if (!same_measure (a->tpot, b->tpot) || same_deployment (a, b))
          continue;
        if (a->twin < 0)
          a->twin = (gint) idx[j];
        if (b->twin < 0)
          b->twin = (gint) idx[i];
      }
}

/* A row measured on another system than the engine's device profile is still predicted,
 * for the profile (the database is of that device), and says so: its status and its summary
 * group name the system, so its error is not read as this device's. */
static void
mark_other_systems (msperf_engine *engine, GArray *rows)
{
  const char *device = msperf_engine_device_name (engine);

  for (guint i = 0; i < rows->len; i++)
    {
      row *r = &g_array_index (rows, row, i);

      if (*r->system != '\0' && !msperf_engine_device_is (engine, r->system))
        r->other_system = g_strdup_printf ("; measured on %s, predicted for %s", r->system,
                                           device ? device : "no device profile");
    }
}

/* ---------------------------------------------------------------- running rows */

typedef struct {
  const msperf_serve_accuracy_opts *o;
  msperf_engine *engine;
  GArray *rows;
  guint *order;               /* the rows' indices, the longest expected simulation first */
  gint next;
} acc_run;

typedef struct {
  msperf_model *model;
  char *note;               /* the status note of a quant mode run otherwise than the row
                             * names it, or NULL */
  char *quant, *moe_quant, *kv_dtype;   /* the options it was loaded with (NULL: default) */
  int64_t nextn;            /* draft tokens its rows run with: --nextn when the config has
                             * MTP layers (num_nextn_predict_layers), else 0 */
} loaded;

static void
loaded_free (gpointer p)
{
  loaded *l = p;

  msperf_model_free (l->model);
  g_free (l->note);
  g_free (l->quant);
  g_free (l->moe_quant);
  g_free (l->kv_dtype);
  g_free (l);
}

/* How a row's quant mode was run (quant_note says which). */
typedef enum {
  RUN_AS_ASKED,               /* the row's modes */
  RUN_CHECKPOINT_OWN,         /* a mode the templates do not know: the checkpoint's own */
  RUN_AS_W8A8,                /* an 8-bit mode the templates do not know */
  RUN_FP8_BLOCK,              /* "fp8" on a block-scaled checkpoint */
  RUN_EXPERTS_AS_LINEARS,     /* moe_quant_mode the templates do not know */
  RUN_EXPERTS_DECLARED,       /* the same, on a checkpoint that declares quantised experts */
  RUN_EXPERTS_ONLY,           /* the experts' mode, on a checkpoint that leaves its linears out */
} quant_run;

/* The checkpoint as its config declares itself: mo's options without its quant modes. NULL
 * when it does not load. */
static msperf_model *
load_as_declared (const char *config, const char *templates_dir, const msperf_model_options *mo)
{
  msperf_model_options co = *mo;

  co.quant = NULL;
  co.moe_quant = NULL;
  return msperf_model_load (config, NULL, templates_dir, &co, NULL);
}

/* A row's quant mode is aiconfigurator's label; a runtime serves a quantised checkpoint as its
 * quantization_config declares it. Two labels name such a checkpoint without saying all of it:
 * - "fp8" for any 8-bit float checkpoint, where one with 128×128 weight blocks (DeepSeek-R1/V3)
 *   is served with its block scales (TensorRT-LLM's FP8_BLOCK_SCALES linear and fused MoE), and
 *   aiconfigurator itself prices DeepSeek's linears as fp8_block (its SDK's DeepSeek modules
 *   and MLA studies query GEMMQuantMode.fp8_block; its H200 MoE tables hold DeepSeek's H 7168 in
 *   fp8_block only);
 * - the experts' mode for every linear, where the checkpoint quantises the experts alone
 *   (Kimi-K2.5's int4 compressed-tensors lists attention and the shared and dense MLPs under
 *   "ignore"): the runtime loads those layers unquantised, and cannot quantise them to int4 at
 *   load time.
 * The model as its config declares it in either case (*how RUN_FP8_BLOCK or RUN_EXPERTS_ONLY);
 * NULL otherwise. Loaded without quant options, experts in a mode other than bf16 are the
 * config's. */
static msperf_model *
declared_checkpoint (const char *config, const char *templates_dir,
                     const msperf_model_options *mo, quant_run *how)
{
  const char *lin, *exp;
  msperf_model *m = load_as_declared (config, templates_dir, mo);

  if (m == NULL)
    return NULL;
  lin = msperf_model_quant_name (m, FALSE);
  exp = msperf_model_quant_name (m, TRUE);
  *how = RUN_AS_ASKED;
  if (strcmp (mo->quant, "fp8") == 0 && g_strcmp0 (mo->moe_quant ? mo->moe_quant : exp, exp) == 0
      && strcmp (lin, "fp8_block") == 0 && strcmp (exp, "fp8_block") == 0)
    *how = RUN_FP8_BLOCK;
  else if (mo->moe_quant == NULL && strcmp (mo->quant, exp) == 0 && strcmp (lin, exp) != 0)
    *how = RUN_EXPERTS_ONLY;
  if (*how == RUN_AS_ASKED)
    g_clear_pointer (&m, msperf_model_free);
  return m;
}

/* The experts' quant mode the checkpoint declares, or NULL when it leaves them in bf16. */
static char *
declared_experts (const char *config, const char *templates_dir, const msperf_model_options *mo)
{
  msperf_model *m = load_as_declared (config, templates_dir, mo);
  char *exp = NULL;

  if (m == NULL)
    return NULL;
  if (strcmp (msperf_model_quant_name (m, TRUE), "bf16") != 0)
    exp = g_strdup (msperf_model_quant_name (m, TRUE));
  msperf_model_free (m);
  return exp;
}

/* The step limits of the deployment that measured the row. aiconfigurator generates an
 * aggregated worker's engine config with a token budget of the prompt plus a margin (plus the
 * batch size where the runtime counts decode tokens in it: vLLM's max-num-batched-tokens; else
 * SGLang's max-prefill-tokens) and, for SGLang, mixed chunks; the preset keys accuracy_* carry
 * those rules (doc/serving.md §2). Otherwise (disaggregated rows, whose batch sizes the rows
 * leave empty, or a preset without them) a runtime that does not chunk prompts gets at least
 * isl + concurrency x (1 + nextn): the deployment was configured to take a prompt beside its
 * running requests, each of which puts its draft tokens in the step too. */
static void
generated_limits (msperf_serve_policy *pol, const row *r, int64_t nextn)
{
  gboolean agg = strcmp (r->mode, "agg") == 0;

  if (agg && pol->accuracy_token_margin >= 0)
    {
      int64_t want = r->isl + pol->accuracy_token_margin;
      /* The rows' batch_size is the batch of one DP rank. */
      int64_t batch = (r->concurrency + r->agg.dp - 1) / r->agg.dp;

      if (pol->accuracy_budget_holds_batch)
        pol->max_num_batched_tokens = want + batch;
      else if (pol->max_prefill_tokens > 0)
        pol->max_prefill_tokens = want;
      else
        pol->max_num_batched_tokens = MIN (pol->max_num_batched_tokens, want);
    }
  else if (!pol->chunked_prefill)
    pol->max_num_batched_tokens = MAX (pol->max_num_batched_tokens,
                                       r->isl + r->concurrency * (1 + nextn));
  if (agg && pol->accuracy_agg_mixed_batch >= 0)
    pol->mixed_batch = pol->accuracy_agg_mixed_batch > 0;
}

/* One simulation of row r's workload on the sizes (layouts, workers, batch limits) of row
 * `sizes`: r itself, or the row that carries the same measurement under another layout. The
 * generator's limits for those sizes are applied to a copy of the backend's preset (its
 * numbers only; the copy owns nothing). */
static gboolean
simulate_row (const msperf_serve_accuracy_opts *o, msperf_serve_answers *answers,
              const loaded *lm, const msperf_serve_policy *preset, const char *preset_path,
              const row *r, const row *sizes, int64_t nextn, msperf_serve_result *res,
              char **command, GError **error)
{
  msperf_serve_policy pol = *preset;
  msperf_serve_deployment dep = { 0 };
  msperf_serve_workload w = { 0 };
  generated_limits (&pol, sizes, nextn);
  dep.mode = strcmp (r->mode, "agg") == 0 ? MSPERF_SERVE_AGG : MSPERF_SERVE_DISAGG;
  dep.layout = sizes->agg;
  dep.replicas = 1;
  dep.prefill = sizes->prefill;
  dep.decode = sizes->decode;
  dep.prefill_workers = sizes->prefill_workers;
  dep.decode_workers = sizes->decode_workers;
  /* A stage's batch size is its engines' max batch size (aiconfigurator's generator writes it
   * as TensorRT-LLM's max_batch_size, vLLM's --max-num-seqs, SGLang's --max-running-requests). */
  dep.prefill_max_seqs = sizes->prefill_seqs;
  dep.decode_max_seqs = sizes->decode_seqs;
  /* The rows do not record a draft depth: by default none, as aiconfigurator predicts them
   * (its cli_estimate never enables MTP implicitly and its generated engine configs enable
   * speculative decoding only when one is asked for); --nextn states the depth the measured
   * deployments ran, for the models that have MTP layers to draft with (doc/serving.md §6). */
  dep.nextn = nextn;
  dep.accept = o->nextn_accept;
  dep.device_bytes = o->device_bytes;
  w.arrival = MSPERF_SERVE_CLOSED;
  w.concurrency = r->concurrency;
  w.isl = r->isl;
  w.osl = r->osl;
  /* The measurements are of a benchmark in its steady state: clients staggered, the first
   * and last `concurrency` requests (ramp-up, ramp-down) left out. */
  w.staggered = TRUE;
  w.num_requests = MAX (3, o->requests_per_client) * r->concurrency;
  w.warmup = w.cooldown = r->concurrency;
  if (o->burst)
    {
      /* The benchmark that measured the rows (aiperf in concurrency mode, as aiconfigurator's
       * generated bench_run.sh runs it, doc/serving.md §6): its warm-up requests all return
       * before the profiling phase starts, which then sends C requests at once and
       * requests_per_client × C in all (--num-requests C × 20), every one in the means. */
      w.staggered = FALSE;
      w.num_requests = MAX (1, o->requests_per_client) * r->concurrency;
      w.warmup = w.cooldown = 0;
    }
  /* aiperf's synthetic prompts: --num-dataset-entries distinct ones, default 100
   * (aiperf/common/config/config_defaults.py), each request taking one with random.choice
   * (dataset/dataset_manager.py; later releases default to shuffled passes, --prompt-shuffle);
   * its C × 2 warm-up requests draw from the same pool. A runtime with prefix caching serves
   * the repeats from its KV cache. */
  w.prompt_pool = o->prompt_pool;
  w.prompt_shuffle = o->prompt_shuffle;
  w.prompt_warmup = o->prompt_pool > 0 ? 2 * r->concurrency : 0;
  w.seed = 1;
  w.max_events = o->max_events;
  if (!msperf_serve_run (answers, lm->model, &dep, &pol, &w, NULL, res, error))
    return FALSE;
  {
    const msperf_model_options mo = { .quant = lm->quant, .moe_quant = lm->moe_quant,
                                      .kv_dtype = lm->kv_dtype };
    const msperf_serve_command c = { o->program, r->config, NULL,
                                     o->shipped_templates ? NULL : o->templates_dir, &mo,
                                     preset_path, o->shipped_presets ? r->backend : NULL,
                                     preset, &pol, &dep, &w, o->engine_args };

    *command = msperf_serve_command_line (&c);
  }
  return TRUE;
}

/* What a row's quant mode was run as (how, as run_row sets it). A mode the templates do not
 * know runs as the checkpoint's own quantization_config when it declares one (gpt-oss: mxfp4
 * experts, bf16 linears, which is what a Hopper GPU without FP4 tensor cores runs for the
 * rows' "nvfp4"), else in bf16; the note names what ran. */
static char *
quant_note (const msperf_model *m, quant_run how, const char *asked, const char *asked_moe)
{
  const char *lin = msperf_model_quant_name (m, FALSE), *exp = msperf_model_quant_name (m, TRUE);

  switch (how)
    {
    case RUN_FP8_BLOCK:
      return g_strdup ("; fp8 as fp8_block (the checkpoint's 128x128 block scales)");
    case RUN_EXPERTS_ONLY:
      return g_strdup_printf ("; %s experts and %s linears (the checkpoint's "
                              "quantization_config leaves the linears out)", exp, lin);
    case RUN_EXPERTS_DECLARED:
      return g_strdup_printf ("; experts %s as the checkpoint declares them (the templates "
                              "have no quant mode %s)", exp, asked_moe ? asked_moe : "");
    case RUN_EXPERTS_AS_LINEARS:
      return g_strdup ("; experts as the linears (the templates have no quant mode for "
                       "moe_quant_mode)");
    case RUN_AS_W8A8:
      return g_strdup ("; as w8a8 (the templates have no quant mode for it)");
    case RUN_CHECKPOINT_OWN:
      if (strcmp (lin, "bf16") == 0 && strcmp (exp, "bf16") == 0)
        return g_strdup ("; bf16 (the templates have no quant mode for it)");
      return g_strdup_printf ("; as the checkpoint's quantization_config: linears %s and "
                              "experts %s (the templates have no quant mode %s)", lin, exp,
                              asked);
    case RUN_AS_ASKED:
      /* 16-bit weights asked, a quantised checkpoint loaded: its own modes ran. (A row that
       * leaves the mode blank leaves it to the checkpoint: nothing to say.) */
      if (strcmp (asked, "bf16") == 0
          && (strcmp (lin, "bf16") != 0 || strcmp (exp, asked_moe ? asked_moe : "bf16") != 0))
        return g_strdup_printf ("; as the checkpoint's quantization_config: linears %s and "
                                "experts %s", lin, exp);
      break;
    }
  return NULL;
}

/* Row r, whose own layout failed with own, under the layout its id names (id_layout); on
 * success *note says so and TRUE. */
static gboolean
run_id_layout (const msperf_serve_accuracy_opts *o, msperf_serve_answers *answers,
               const loaded *lm, const msperf_serve_policy *pol, const char *preset_path,
               const row *r, msperf_serve_result *res, char **command, const GError *own,
               char **note)
{
  row named = *r;
  GError *e = NULL;

  if (!id_layout (r, &named.agg) || same_layout (&named.agg, &r->agg))
    return FALSE;
  if (!simulate_row (o, answers, lm, pol, preset_path, r, &named, lm->nextn, res, command, &e))
    {
      g_error_free (e);
      return FALSE;
    }
  *note = g_strdup_printf ("; answered under TP %" G_GINT64_FORMAT " and EP %" G_GINT64_FORMAT
                           " as its id names (its own: %s)", named.agg.tp,
                           named.agg.ep, own->message);
  return TRUE;
}

/* Row r as each deployment its benchmark published for it (r->recipes) runs it: the rows do
 * not say which of several they measured, so the prediction is the mean of theirs. *res holds
 * the last run with the means of TTFT, TPOT and data share; r->gpus_known whether they agree
 * on the GPUs; *note names them. */
static gboolean
run_recipes (const msperf_serve_accuracy_opts *o, msperf_serve_answers *answers,
             const loaded *lm, const msperf_serve_policy *pol, const char *preset_path, row *r,
             msperf_serve_result *res, char **note, GError **error)
{
  double ttft = 0, tpot = 0, share = 0;
  int64_t devices = -1;
  guint n = r->recipes->len;
  g_autoptr (GString) commands = g_string_new (NULL);
  g_autoptr (GString) names = g_string_new (NULL);

  r->gpus_known = TRUE;
  for (guint k = 0; k < n; k++)
    {
      const msperf_serve_recipe *d = g_ptr_array_index (r->recipes, k);
      row sizes = *r;
      g_autofree char *command = NULL;

      sizes.agg = d->agg;
      sizes.prefill = d->prefill;
      sizes.decode = d->decode;
      sizes.prefill_workers = d->prefill_workers;
      sizes.decode_workers = d->decode_workers;
      sizes.prefill_seqs = d->prefill_seqs;
      sizes.decode_seqs = d->decode_seqs;
      if (!simulate_row (o, answers, lm, pol, preset_path, r, &sizes,
                         msperf_model_has_mtp (lm->model) ? d->nextn : 0, res, &command, error))
        {
          g_prefix_error (error, "deployment %s: ", d->name);
          return FALSE;
        }
      ttft += res->ttft_ms.mean / n;
      tpot += res->tpot_ms.mean / n;
      share += res->data_share / n;
      r->gpus_known = r->gpus_known && (devices < 0 || devices == res->devices);
      devices = res->devices;
      /* Each run is a command of its own; the row's figures are their mean. */
      if (n > 1)
        g_string_append_printf (commands, "%s# deployment %s\n", k ? "\n" : "", d->name);
      g_string_append (commands, command);
      g_string_append_printf (names, "%s%s", k ? ", " : "", d->name);
    }
  res->ttft_ms.mean = ttft;
  res->tpot_ms.mean = tpot;
  res->data_share = share;
  r->command = g_string_free (g_steal_pointer (&commands), FALSE);
  *note = n == 1 ? g_strdup_printf ("; the deployment its benchmark published: %s", names->str)
                 : g_strdup_printf ("; one of %u deployments its benchmark published (%s): the "
                                    "mean of their predictions", n, names->str);
  return TRUE;
}

/* Row r on the engine; twin is the row that carries its measurement under another layout, or
 * NULL. */
static void
run_row (const msperf_serve_accuracy_opts *o, msperf_serve_answers *answers,
         GHashTable *models, row *r, const row *twin)
{
  g_autofree char *preset = g_strdup_printf ("%s/%s.yaml", o->policies_dir, r->backend);
  g_autofree char *key = NULL, *fields_key = NULL, *twin_note = NULL,
                   *workers_note = NULL, *mtp_note = NULL, *recipe_note = NULL;
  g_auto (GStrv) fields = NULL;
  msperf_serve_policy pol;
  msperf_serve_result res;
  loaded *lm = NULL;
  msperf_model *m = NULL;
  gboolean fp8_kv;
  const char *note = "";
  GError *e = NULL;

  msperf_serve_policy_init (&pol);
  if (!g_file_test (preset, G_FILE_TEST_EXISTS) || strcmp (r->backend, "static") == 0)
    {
      r->status = g_strdup_printf ("unmapped: no scheduler preset for backend '%s'", r->backend);
      return;
    }
  if (!msperf_serve_policy_load (&pol, preset, &e))
    goto fail;
  /* The rows do not state the KV-cache dtype: the runtime's recipe decides (the preset). */
  fp8_kv = pol.kv_fp8_with_fp8_weights && g_str_has_prefix (r->quant, "fp8");
  fields = msperf_serve_policy_model_fields (&pol);
  fields_key = g_strjoinv (",", fields);
  key = g_strdup_printf ("%s\n%s\n%s\n%d\n%s", r->config, r->quant,
                         r->moe_quant ? r->moe_quant : "", fp8_kv, fields_key);
  lm = g_hash_table_lookup (models, key);
  m = lm ? lm->model : NULL;
  if (m == NULL)
    {
      msperf_model_options mo;
      quant_run how = RUN_AS_ASKED;
      g_autofree char *experts = NULL;

      memset (&mo, 0, sizeof mo);
      mo.quant = *r->quant && strcmp (r->quant, "bf16") ? r->quant : NULL;
      /* A row whose experts are quantised otherwise than its linears (fp8 linears, fp8_block
       * experts) states it in moe_quant_mode. */
      mo.moe_quant = r->moe_quant;
      mo.kv_dtype = fp8_kv ? "fp8" : NULL;
      mo.fields = (const char *const *) fields;

      if (mo.quant)
        m = declared_checkpoint (r->config, o->templates_dir, &mo, &how);
      if (m == NULL)
        m = msperf_model_load (r->config, NULL, o->templates_dir, &mo, &e);
      if (m == NULL && mo.moe_quant)
        {
          /* Experts in a mode the templates do not know: as the checkpoint declares them
           * when it quantises them (an FP4 label on gpt-oss's mxfp4 experts, which a Hopper
           * runtime serves as they are), else quantised as the linears. */
          g_clear_error (&e);
          experts = declared_experts (r->config, o->templates_dir, &mo);
          mo.moe_quant = experts;
          if (experts != NULL
              && (m = msperf_model_load (r->config, NULL, o->templates_dir, &mo, NULL)) != NULL)
            how = RUN_EXPERTS_DECLARED;
          else
            {
              mo.moe_quant = NULL;
              m = msperf_model_load (r->config, NULL, o->templates_dir, &mo, &e);
              how = m != NULL ? RUN_EXPERTS_AS_LINEARS : RUN_AS_ASKED;
            }
        }
      if (m == NULL && mo.quant && (g_str_has_prefix (mo.quant, "fp8")
                                    || g_str_has_prefix (mo.quant, "int8")
                                    || strcmp (mo.quant, "sq") == 0))
        {
          /* An 8-bit mode the templates do not know (SmoothQuant's "sq" is int8 weights and
           * activations): their 8-bit linear layers (w8a8) carry the same bytes and the same
           * tensor-core rate. */
          g_clear_error (&e);
          mo.quant = "w8a8";
          mo.moe_quant = NULL;
          m = msperf_model_load (r->config, NULL, o->templates_dir, &mo, &e);
          how = m != NULL ? RUN_AS_W8A8 : RUN_AS_ASKED;
        }
      if (m == NULL && mo.quant)
        {
          /* The templates do not know this quantisation: the checkpoint's own, else bf16. */
          g_clear_error (&e);
          mo.quant = mo.moe_quant = NULL;
          m = msperf_model_load (r->config, NULL, o->templates_dir, &mo, &e);
          how = RUN_CHECKPOINT_OWN;
        }
      if (m == NULL)
        goto fail;
      lm = g_new0 (loaded, 1);
      lm->model = m;
      /* A checkpoint served as it declares itself was loaded without --quant. */
      lm->quant = how == RUN_FP8_BLOCK || how == RUN_EXPERTS_ONLY ? NULL : g_strdup (mo.quant);
      lm->moe_quant = g_strdup (mo.moe_quant);
      lm->kv_dtype = g_strdup (mo.kv_dtype);
      lm->note = quant_note (m, how, r->quant, r->moe_quant);
      lm->nextn = msperf_model_has_mtp (m) ? o->nextn : 0;
      g_hash_table_insert (models, g_strdup (key), lm);
    }
  if (lm->note)
    note = lm->note;
  if (r->recipes != NULL)
    {
      if (!run_recipes (o, answers, lm, &pol, preset, r, &res, &recipe_note, &e))
        goto fail;
    }
  else if (!simulate_row (o, answers, lm, &pol, preset, r, r, lm->nextn, &res, &r->command, &e))
    {
      GError *own = e;

      /* Its own layout cannot run (a size the model refuses, no room for the KV cache): the
       * twin's layout, under which the same measurement was exported, is the deployment;
       * without a twin, the layout the row's id names. */
      if (twin != NULL && !same_deployment (r, twin))
        {
          e = NULL;
          if (!simulate_row (o, answers, lm, &pol, preset, r, twin, lm->nextn, &res, &r->command,
                             &e))
            {
              g_error_free (own);
              goto fail;
            }
          twin_note = g_strdup_printf ("; answered under the layout of row %s that carries the "
                                       "same measurement (its own: %s)", twin->id,
                                       own->message);
        }
      else if (!run_id_layout (o, answers, lm, &pol, preset, r, &res, &r->command, own,
                               &twin_note))
        goto fail;        /* e is still own: fail reports and frees it */
      e = NULL;           /* own is freed here; e no longer points at it */
      g_error_free (own);
    }
  else if (twin)
    twin_note = g_strdup_printf ("; the same measurement as row %s under another layout",
                                 twin->id);
  r->p_ttft = res.ttft_ms.mean;
  r->p_tpot = res.tpot_ms.mean;
  r->share = res.data_share;
  r->devices = res.devices;
  r->ran = TRUE;
  r->mtp = lm->nextn > 0 && r->recipes == NULL;
  if (r->mtp)
    mtp_note = g_strdup_printf ("; MTP: %" G_GINT64_FORMAT " draft token%s per step at "
                                "acceptance %g (--nextn)", o->nextn, o->nextn > 1 ? "s" : "",
                                o->nextn_accept);
  if (strcmp (r->mode, "disagg") == 0 && !r->workers_stated && r->recipes == NULL)
    workers_note = r->decode_fill > 0
                   ? g_strdup_printf ("; no worker counts: %" G_GINT64_FORMAT " prefill and %"
                                      G_GINT64_FORMAT " decode workers of %" G_GINT64_FORMAT
                                      " sequences per rank (the clients fill the decode pool)",
                                      r->prefill_workers, r->decode_workers, r->decode_fill)
                   : g_strdup ("; no worker counts: one prefill and one decode worker");
  r->status = g_strdup_printf ("ok%s%s%s%s%s%s%s%s", r->config_note ? r->config_note : "",
                               note,
                               r->other_system ? r->other_system : "",
                               recipe_note ? recipe_note : "",
                               r->layout_note && r->recipes == NULL ? r->layout_note : "",
                               workers_note ? workers_note : "",
                               mtp_note ? mtp_note : "",
                               twin_note ? twin_note : "");
  msperf_serve_policy_clear (&pol);
  return;
fail:
  r->status = g_strdup_printf ("unmapped: %s", e->message);
  g_error_free (e);
  msperf_serve_policy_clear (&pol);
}

static gpointer
worker_main (gpointer data)
{
  acc_run *a = data;
  msperf_engine *session = msperf_engine_new_session (a->engine);
  msperf_serve_answers *answers = msperf_serve_answers_new (session);
  GHashTable *models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                              loaded_free);

  for (;;)
    {
      guint n = (guint) g_atomic_int_add (&a->next, 1), k;

      if (n >= a->rows->len)
        break;
      k = a->order[n];
      if (g_array_index (a->rows, row, k).status == NULL)
        {
          row *r = &g_array_index (a->rows, row, k);

          run_row (a->o, answers, models, r,
                   r->twin >= 0 ? &g_array_index (a->rows, row, r->twin) : NULL);
        }
    }
  g_hash_table_destroy (models);
  msperf_serve_answers_free (answers);
  msperf_engine_free (session);
  return NULL;
}

/* The expected cost of a row's simulation: its decode steps carry every running request,
 * concurrency × output length of them. */
static double
row_cost (const row *r)
{
  return (double) r->concurrency * (double) r->osl;
}

static int
cmp_cost (gconstpointer x, gconstpointer y, gpointer data)
{
  const row *rows = data;
  guint a = *(const guint *) x, b = *(const guint *) y;
  double ca = row_cost (&rows[a]), cb = row_cost (&rows[b]);

  if (ca != cb)
    return ca > cb ? -1 : 1;
  return (a > b) - (a < b);
}

/* ---------------------------------------------------------------- summary */

static int
cmp_d (const void *x, const void *y)
{
  double a = *(const double *) x, b = *(const double *) y;

  return (a > b) - (a < b);
}

/* What a group keeps of each of its rows: the absolute percentage errors of TTFT, TPOT and
 * request latency, and the ratios predicted / measured that say which way they go. */
enum { G_TTFT_APE, G_TPOT_APE, G_E2E_APE, G_TTFT_RATIO, G_TPOT_RATIO, G_E2E_RATIO, G_N };

/* A request's mean latency from its mean TTFT and TPOT: the benchmarks' TPOT is (e2e - TTFT)
 * / (osl - 1) per request, so with a fixed osl the means add up exactly. In a closed loop it
 * is the clients' cycle, the inverse of the throughput a deployment is sized by. */
static double
request_ms (double ttft, double tpot, int64_t osl)
{
  return ttft + (double) (osl - 1) * tpot;
}

typedef struct {
  char *key;
  GArray *v[G_N];
} group;

/* Appends row r's errors and ratios of TTFT, TPOT and request latency to g. */
static void
group_append (group *g, const row *r)
{
  const double pred[3] = { r->p_ttft, r->p_tpot, request_ms (r->p_ttft, r->p_tpot, r->osl) };
  const double meas[3] = { r->ttft, r->tpot, request_ms (r->ttft, r->tpot, r->osl) };

  for (guint k = 0; k < 3; k++)
    {
      g_array_append_val (g->v[G_TTFT_APE + k],
                          (double){ 100 * fabs (pred[k] - meas[k]) / meas[k] });
      g_array_append_val (g->v[G_TTFT_RATIO + k], (double){ pred[k] / meas[k] });
    }
}

/* Adds row r's errors to the group named key (created on first use); r NULL creates it only. */
static void
group_add (GPtrArray *groups, const char *key, const row *r)
{
  group *g = NULL;

  for (guint i = 0; i < groups->len && !g; i++)
    if (strcmp (((group *) g_ptr_array_index (groups, i))->key, key) == 0)
      g = g_ptr_array_index (groups, i);
  if (g == NULL)
    {
      g = g_new0 (group, 1);
      g->key = g_strdup (key);
      for (guint k = 0; k < G_N; k++)
        g->v[k] = g_array_new (FALSE, FALSE, sizeof (double));
      g_ptr_array_add (groups, g);
    }
  if (r != NULL)
    group_append (g, r);
}

static void
group_free (gpointer p)
{
  group *g = p;

  g_free (g->key);
  for (guint k = 0; k < G_N; k++)
    g_array_free (g->v[k], TRUE);
  g_free (g);
}

static void
stats (GArray *v, double *mape, double *median)
{
  double *x = (double *) (void *) v->data, sum = 0;

  qsort (x, v->len, sizeof *x, cmp_d);
  for (guint i = 0; i < v->len; i++)
    sum += x[i];
  *mape = v->len ? sum / v->len : NAN;
  *median = v->len ? (v->len % 2 ? x[v->len / 2] : (x[v->len / 2 - 1] + x[v->len / 2]) / 2) : NAN;
}

static void
write_rows (GArray *rows, FILE *out)
{
  fputs ("id,predicted_ttft_ms,predicted_tpot_ms,data_share,status\n", out);
  for (guint i = 0; i < rows->len; i++)
    {
      const row *r = &g_array_index (rows, row, i);
      g_autofree char *st = g_strdup (r->status);
      g_autoptr (GString) id = g_string_new (NULL);

      g_strdelimit (st, ",\n\"", ';');
      msperf_fmt_csv_field (id, r->id);    /* an id is the measured file's, as it came */
      if (r->ran)
        fprintf (out, "%s,%.4f,%.4f,%.4f,%s\n", id->str, r->p_ttft, r->p_tpot, r->share, st);
      else
        fprintf (out, "%s,,,,%s\n", id->str, st);
    }
}

/* The `msperf serve` run behind each row's prediction, as a shell script in the file's order;
 * a row not answered is a comment with its reason. */
static void
write_commands (GArray *rows, FILE *out)
{
  fputs ("#!/bin/sh\n# msperf accuracy: the serve run behind each row's prediction (its mean "
         "TTFT and TPOT are the row's).\n", out);
  for (guint i = 0; i < rows->len; i++)
    {
      const row *r = &g_array_index (rows, row, i);
      /* A CSV field may hold a newline: a comment stays one line, never a command. */
      g_autofree char *id = msperf_fmt_printable (r->id);
      g_autofree char *status = msperf_fmt_printable (r->status);

      if (r->ran && r->command)
        fprintf (out, "# %s\n%s\n", id, r->command);
      else
        fprintf (out, "# %s: %s\n", id, status);
    }
}

static void
write_summary (GPtrArray *groups, GArray *rows, guint unmapped, FILE *out)
{
  guint twins = 0, unstated = 0, filled = 0, elsewhere = 0, mtp = 0, published = 0, several = 0;
  int width = 52;

  for (guint i = 0; i < groups->len; i++)
    width = MAX (width, (int) strlen (((group *) g_ptr_array_index (groups, i))->key));
  fprintf (out, "%-*s %5s %10s %10s %10s %10s %10s %10s %10s %10s\n", width,
           "model / backend / mode", "rows", "TTFT MAPE", "TTFT mdAPE", "TPOT MAPE", "TPOT mdAPE",
           "E2E MAPE", "TTFT p/m", "TPOT p/m", "E2E p/m");
  for (guint i = 0; i < groups->len; i++)
    {
      group *g = g_ptr_array_index (groups, i);
      double m[G_N], md[G_N];

      for (guint k = 0; k < G_N; k++)
        stats (g->v[k], &m[k], &md[k]);
      fprintf (out, "%-*s %5u %9.1f%% %9.1f%% %9.1f%% %9.1f%% %9.1f%% %9.2fx %9.2fx %9.2fx\n",
               width, g->key, g->v[G_TTFT_APE]->len, m[G_TTFT_APE], md[G_TTFT_APE],
               m[G_TPOT_APE], md[G_TPOT_APE], m[G_E2E_APE], md[G_TTFT_RATIO], md[G_TPOT_RATIO],
               md[G_E2E_RATIO]);
    }
  fputs ("E2E: a request's latency, TTFT + (osl - 1) x TPOT (with a fixed osl, the means add up); "
         "in a closed loop the inverse of the throughput\n"
         "p/m: the median of predicted / measured (under 1: predicted too low)\n", out);
  fprintf (out, "rows not mapped: %u\n", unmapped);
  for (guint i = 0; i < rows->len; i++)
    {
      const row *r = &g_array_index (rows, row, i);

      twins += r->ran && r->twin >= 0;
      elsewhere += r->ran && r->other_system != NULL;
      unstated += r->ran && strcmp (r->mode, "disagg") == 0 && !r->workers_stated
                  && r->recipes == NULL;
      published += r->ran && r->recipes != NULL;
      several += r->ran && r->recipes != NULL && r->recipes->len > 1;
      filled += r->ran && r->decode_fill > 0;
      mtp += r->ran && r->mtp;
    }
  if (unstated)
    fprintf (out, "disaggregated rows without worker counts (run with one prefill %s): %u\n",
             filled ? "worker and the decode workers their clients fill (the status says how "
                      "many)" : "and one decode worker", unstated);
  if (published)
    fprintf (out, "rows run as the deployment their benchmark published "
                  "(--deployments): %u, of which %u match several (the mean of their "
                  "predictions)\n", published, several);
  if (mtp)
    fprintf (out, "rows run with MTP speculative decoding (--nextn; the models with MTP "
                  "layers): %u\n", mtp);
  if (twins)
    fprintf (out, "rows whose measurement another row carries under another layout (the "
                  "status names it): %u\n", twins);
  if (elsewhere)
    fprintf (out, "rows measured on another system than the device profile (predicted for the "
                  "profile; their groups name the system): %u\n", elsewhere);
}

static double
lx (double v, double lo, double hi, double px0, double px1)
{
  return px0 + (log10 (v) - log10 (lo)) / (log10 (hi) - log10 (lo)) * (px1 - px0);
}

static gboolean
write_scatter (GArray *rows, const char *path, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);

  g_string_append (s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"460\" "
                      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" "
                      "height=\"100%\" fill=\"white\"/>\n");
  for (int panel = 0; panel < 2; panel++)
    {
      double lo = INFINITY, hi = 0, x0 = 60 + panel * 440, x1 = x0 + 360, y0 = 400, y1 = 40;

      for (guint i = 0; i < rows->len; i++)
        {
          const row *r = &g_array_index (rows, row, i);
          double m = panel ? r->tpot : r->ttft, p = panel ? r->p_tpot : r->p_ttft;

          if (!r->ran || !(m > 0) || !(p > 0))
            continue;
          lo = MIN (lo, MIN (m, p));
          hi = MAX (hi, MAX (m, p));
        }
      if (!(hi > lo))
        lo = 1, hi = 10;
      lo /= 1.2;
      hi *= 1.2;
      g_string_append_printf (s, "<text x=\"%.0f\" y=\"25\" font-size=\"14\">%s (ms, log-log)"
                              "</text>\n<rect x=\"%.0f\" y=\"%.0f\" width=\"360\" height=\"360\" "
                              "fill=\"none\" stroke=\"black\"/>\n<line x1=\"%.0f\" y1=\"%.0f\" "
                              "x2=\"%.0f\" y2=\"%.0f\" stroke=\"#999\" stroke-dasharray=\"4\"/>\n"
                              "<text x=\"%.0f\" y=\"430\">measured %.3g .. %.3g</text>\n"
                              "<text x=\"%.0f\" y=\"%.0f\" transform=\"rotate(-90 %.0f %.0f)\">"
                              "predicted</text>\n", x0, panel ? "TPOT" : "TTFT", x0, y1, x0, y0,
                              x1, y1, x0, lo, hi, x0 - 10, 260.0, x0 - 10, 260.0);
      for (guint i = 0; i < rows->len; i++)
        {
          const row *r = &g_array_index (rows, row, i);
          double m = panel ? r->tpot : r->ttft, p = panel ? r->p_tpot : r->p_ttft;

          if (!r->ran || !(m > 0) || !(p > 0))
            continue;
          g_string_append_printf (s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
                                  lx (m, lo, hi, x0, x1), lx (p, lo, hi, y0, y1),
                                  strcmp (r->mode, "agg") == 0 ? "#1f77b4" : "#d62728");
        }
    }
  g_string_append (s, "<text x=\"60\" y=\"452\" fill=\"#1f77b4\">agg</text><text x=\"100\" "
                      "y=\"452\" fill=\"#d62728\">disagg</text>\n</svg>\n");
  return g_file_set_contents (path, s->str, (gssize) s->len, error);
}

gboolean
msperf_serve_accuracy (msperf_engine *engine, const msperf_serve_accuracy_opts *o, FILE *out,
                       GError **error)
{
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (row));
  g_autoptr (GPtrArray) groups = g_ptr_array_new_with_free_func (group_free);
  acc_run a = { o, engine, rows, NULL, 0 };
  g_autofree guint *order = NULL;
  guint workers, unmapped = 0;
  g_autofree GThread **threads = NULL;
  gboolean ok = FALSE;

  g_array_set_clear_func (rows, (GDestroyNotify) row_clear);
  if (!parse_rows (o, rows, error))
    return FALSE;
  find_twins (rows);
  mark_other_systems (engine, rows);
  /* The longest rows first: with a few rows many times the others, the threads end
   * together instead of one running the last long row alone. The output is in file order. */
  order = g_new (guint, rows->len + 1);
  for (guint i = 0; i < rows->len; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) rows->len, sizeof *order, cmp_cost, rows->data);
  a.order = order;
  workers = CLAMP (rows->len, 1, MAX (o->jobs, 1));
  threads = g_new0 (GThread *, workers);
  for (guint w = 1; w < workers; w++)
    threads[w] = g_thread_new ("msperf-accuracy", worker_main, &a);
  worker_main (&a);
  for (guint w = 1; w < workers; w++)
    g_thread_join (threads[w]);
  group_add (groups, "all", NULL);
  for (guint i = 0; i < rows->len; i++)
    {
      const row *r = &g_array_index (rows, row, i);
      g_autofree char *key = NULL;

      if (!r->ran)
        {
          unmapped++;
          continue;
        }
      key = g_strdup_printf ("%s / %s / %s%s%s", r->model_path, r->backend, r->mode,
                             r->other_system ? " / on " : "",
                             r->other_system ? r->system : "");
      group_add (groups, key, r);
      group_add (groups, "all", r);
    }
  if (out && o->format && strcmp (o->format, "csv") == 0)
    write_rows (rows, out);
  else if (out)
    write_summary (groups, rows, unmapped, out);
  if (o->rows_done)
    {
      g_autofree msperf_serve_accuracy_row *v = g_new0 (msperf_serve_accuracy_row, rows->len + 1);

      for (guint i = 0; i < rows->len; i++)
        {
          const row *r = &g_array_index (rows, row, i);

          v[i] = (msperf_serve_accuracy_row){ r->id, r->model_path, r->backend, r->mode, r->isl,
                                              r->osl, r->concurrency, r->ran ? r->devices : 0,
                                              strcmp (r->mode, "agg") == 0 || r->workers_stated
                                              || (r->recipes != NULL && r->gpus_known),
                                              r->ttft, r->tpot, r->p_ttft, r->p_tpot, r->ran };
        }
      o->rows_done (v, rows->len, o->rows_data);
    }
  if (o->report_dir)
    {
      g_autofree char *p1 = g_build_filename (o->report_dir, "rows.csv", NULL);
      g_autofree char *p2 = g_build_filename (o->report_dir, "summary.txt", NULL);
      g_autofree char *p3 = g_build_filename (o->report_dir, "scatter.svg", NULL);
      g_autofree char *p4 = g_build_filename (o->report_dir, "commands.sh", NULL);
      FILE *f;

      if (g_mkdir_with_parents (o->report_dir, 0755) != 0)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO,
                       "%s: cannot create the directory", o->report_dir);
          goto out;
        }
      if ((f = g_fopen (p1, "w")) == NULL)
        goto io;
      write_rows (rows, f);
      fclose (f);
      if ((f = g_fopen (p2, "w")) == NULL)
        goto io;
      write_summary (groups, rows, unmapped, f);
      fclose (f);
      if ((f = g_fopen (p4, "w")) == NULL)
        goto io;
      write_commands (rows, f);
      fclose (f);
      if (!write_scatter (rows, p3, error))
        goto out;
    }
  ok = TRUE;
  goto out;
io:
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: cannot write the report",
               o->report_dir);
out:
  return ok;
}
