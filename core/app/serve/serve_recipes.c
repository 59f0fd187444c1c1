/* msperf — the deployments a benchmark published for the rows it measured (doc/serving.md §6):
 * what aiconfigurator's silicon schema cannot state — worker counts, attention DP, the engines'
 * batch limits, MTP — keyed by what every row does state. */
#include <config.h>
#include <string.h>
#include <msperf/error.h>
#include "app/serve/serve.h"

/* Columns: the silicon schema's names where it has one. */
typedef enum {
  COL_RECIPE, COL_MODEL, COL_BACKEND, COL_VERSION, COL_MODE, COL_ISL, COL_OSL, COL_CLIENTS,
  COL_NEXTN,
  COL_TP, COL_PP, COL_DP, COL_EP,
  COL_P_WORKERS, COL_P_TP, COL_P_PP, COL_P_DP, COL_P_EP, COL_P_BATCH,
  COL_D_WORKERS, COL_D_TP, COL_D_PP, COL_D_DP, COL_D_EP, COL_D_BATCH,
  N_COLS
} column;

/* KEY: in the header, a value on every line; NEEDED: a value on every line of the mode that
 * reads it (a stage's workers and TP, an aggregated line's TP); OPTIONAL: its fallback when
 * empty or absent. */
typedef enum { KEY, NEEDED, OPTIONAL } column_need;

static const struct {
  const char *name;
  column_need need;
  int64_t fallback;       /* an empty or absent OPTIONAL integer column */
} columns[N_COLS] = {
  [COL_RECIPE] = { "recipe", KEY, 0 },
  [COL_MODEL] = { "model_path", KEY, 0 },
  [COL_BACKEND] = { "backend", KEY, 0 },
  [COL_VERSION] = { "backend_version", KEY, 0 },
  [COL_MODE] = { "mode", KEY, 0 },
  [COL_ISL] = { "isl", KEY, 0 },
  [COL_OSL] = { "osl", KEY, 0 },
  [COL_CLIENTS] = { "concurrency", KEY, 0 },
  [COL_NEXTN] = { "nextn", OPTIONAL, 0 },
  [COL_TP] = { "tp_size", NEEDED, 0 },
  [COL_PP] = { "pp_size", OPTIONAL, 1 },
  [COL_DP] = { "attention_dp_size", OPTIONAL, 1 },
  [COL_EP] = { "moe_ep_size", OPTIONAL, 1 },
  [COL_P_WORKERS] = { "prefill_num_workers", NEEDED, 0 },
  [COL_P_TP] = { "prefill_tp_size", NEEDED, 0 },
  [COL_P_PP] = { "prefill_pp_size", OPTIONAL, 1 },
  [COL_P_DP] = { "prefill_attention_dp_size", OPTIONAL, 1 },
  [COL_P_EP] = { "prefill_moe_ep_size", OPTIONAL, 1 },
  [COL_P_BATCH] = { "prefill_batch_size", OPTIONAL, 0 },
  [COL_D_WORKERS] = { "decode_num_workers", NEEDED, 0 },
  [COL_D_TP] = { "decode_tp_size", NEEDED, 0 },
  [COL_D_PP] = { "decode_pp_size", OPTIONAL, 1 },
  [COL_D_DP] = { "decode_attention_dp_size", OPTIONAL, 1 },
  [COL_D_EP] = { "decode_moe_ep_size", OPTIONAL, 1 },
  [COL_D_BATCH] = { "decode_batch_size", OPTIONAL, 0 },
};

typedef struct {
  const char *path;
  GPtrArray *recipes;
  gint at[N_COLS];        /* field index of each column, -1 when absent */
  size_t n_fields;
  gboolean header_seen;
} loader;

void
msperf_serve_recipe_free (gpointer p)
{
  msperf_serve_recipe *r = p;

  if (r == NULL)
    return;
  g_free (r->name);
  g_free (r->model_path);
  g_free (r->backend);
  g_free (r->backend_version);
  g_free (r->mode);
  g_free (r);
}

static gboolean
read_header (loader *l, const char *const *fields, size_t n, GError **error)
{
  for (int c = 0; c < N_COLS; c++)
    {
      l->at[c] = -1;
      for (size_t k = 0; k < n; k++)
        if (strcmp (fields[k], columns[c].name) == 0)
          l->at[c] = (gint) k;
      if (l->at[c] < 0 && columns[c].need == KEY)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                       "%s:1: no column '%s'", l->path, columns[c].name);
          return FALSE;
        }
    }
  l->n_fields = n;
  l->header_seen = TRUE;
  return TRUE;
}

/* Column c of a record as an integer >= min (its fallback when optional and empty). */
static gboolean
int_column (const loader *l, const char *const *fields, guint line, column c, int64_t min,
            int64_t *out, GError **error)
{
  const char *s = l->at[c] >= 0 ? fields[l->at[c]] : "";
  gint64 v;

  if (*s == '\0' && columns[c].need == OPTIONAL)
    {
      *out = columns[c].fallback;
      return TRUE;
    }
  if (*s == '\0')
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                   "%s:%u: no %s (a line of its mode needs one)", l->path, line,
                   columns[c].name);
      return FALSE;
    }
  if (!g_ascii_string_to_signed (s, 10, min, G_MAXINT32, &v, NULL))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                   "%s:%u: %s '%s' is not an integer %" G_GINT64_FORMAT "..%d", l->path, line,
                   columns[c].name, s, min, G_MAXINT32);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

static gboolean
read_stage (const loader *l, const char *const *fields, guint line, column first,
            msperf_model_layout *layout, int64_t *workers, int64_t *batch, GError **error)
{
  /* first, then tp, pp, dp, ep, batch in the order of the enum */
  memset (layout, 0, sizeof *layout);
  return int_column (l, fields, line, first, 1, workers, error)
         && int_column (l, fields, line, first + 1, 1, &layout->tp, error)
         && int_column (l, fields, line, first + 2, 1, &layout->pp, error)
         && int_column (l, fields, line, first + 3, 1, &layout->dp, error)
         && int_column (l, fields, line, first + 4, 1, &layout->ep, error)
         && int_column (l, fields, line, first + 5, 0, batch, error);
}

static gboolean
on_record (guint line, const char *const *fields, size_t n, gpointer data, GError **error)
{
  loader *l = data;
  msperf_serve_recipe *r;

  if (!l->header_seen)
    return read_header (l, fields, n, error);
  if (n != l->n_fields)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                   "%s:%u: %" G_GSIZE_FORMAT " fields where the header has %" G_GSIZE_FORMAT,
                   l->path, line, n, l->n_fields);
      return FALSE;
    }
  r = g_new0 (msperf_serve_recipe, 1);
  r->line = line;
  r->name = g_strdup (fields[l->at[COL_RECIPE]]);
  r->model_path = g_strdup (fields[l->at[COL_MODEL]]);
  r->backend = g_strdup (fields[l->at[COL_BACKEND]]);
  r->backend_version = g_strdup (fields[l->at[COL_VERSION]]);
  r->mode = g_strdup (fields[l->at[COL_MODE]]);
  g_ptr_array_add (l->recipes, r);
  if (strcmp (r->mode, "disagg") != 0 && strcmp (r->mode, "agg") != 0)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                   "%s:%u: mode '%s' is not agg or disagg", l->path, line, r->mode);
      return FALSE;
    }
  if (*r->name == '\0' || *r->model_path == '\0' || *r->backend == '\0')
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE,
                   "%s:%u: recipe, model_path and backend must not be empty", l->path, line);
      return FALSE;
    }
  if (!int_column (l, fields, line, COL_ISL, 1, &r->isl, error)
      || !int_column (l, fields, line, COL_OSL, 1, &r->osl, error)
      || !int_column (l, fields, line, COL_CLIENTS, 1, &r->clients, error)
      || !int_column (l, fields, line, COL_NEXTN, 0, &r->nextn, error))
    return FALSE;
  if (strcmp (r->mode, "agg") == 0)
    return int_column (l, fields, line, COL_TP, 1, &r->agg.tp, error)
           && int_column (l, fields, line, COL_PP, 1, &r->agg.pp, error)
           && int_column (l, fields, line, COL_DP, 1, &r->agg.dp, error)
           && int_column (l, fields, line, COL_EP, 1, &r->agg.ep, error);
  return read_stage (l, fields, line, COL_P_WORKERS, &r->prefill, &r->prefill_workers,
                     &r->prefill_seqs, error)
         && read_stage (l, fields, line, COL_D_WORKERS, &r->decode, &r->decode_workers,
                        &r->decode_seqs, error);
}

/* One file's deployments appended to recipes. */
static gboolean
load_file (const char *path, GPtrArray *recipes, GError **error)
{
  g_autofree char *text = NULL;
  loader l = { 0 };
  const char *p;
  guint line, next = 1;

  if ((text = msperf_serve_csv_text (path, error)) == NULL)
    return FALSE;
  l.path = path;
  l.recipes = recipes;
  p = text;
  for (GPtrArray *rec; (line = next, rec = msperf_serve_csv_record (&p, &next)) != NULL;
       g_ptr_array_free (rec, TRUE))
    {
      if (rec->len == 1 && *(char *) g_ptr_array_index (rec, 0) == '\0')
        continue;
      if (!on_record (line, (const char *const *) rec->pdata, rec->len, &l, error))
        {
          g_ptr_array_free (rec, TRUE);
          return FALSE;
        }
    }
  if (!l.header_seen)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_PARSE, "%s:1: empty file", path);
      return FALSE;
    }
  return TRUE;
}

static gint
cmp_path (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

GPtrArray *
msperf_serve_recipes_load (const char *path, GError **error)
{
  g_autoptr (GPtrArray) recipes = g_ptr_array_new_with_free_func (msperf_serve_recipe_free);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, error);
      const char *name;

      if (dir == NULL)
        return NULL;
      while ((name = g_dir_read_name (dir)) != NULL)
        if (g_str_has_suffix (name, ".csv"))
          g_ptr_array_add (files, g_build_filename (path, name, NULL));
      g_ptr_array_sort (files, cmp_path);
    }
  else
    g_ptr_array_add (files, g_strdup (path));
  for (guint k = 0; k < files->len; k++)
    if (!load_file (g_ptr_array_index (files, k), recipes, error))
      return NULL;
  return g_steal_pointer (&recipes);
}

gboolean
msperf_serve_recipe_matches (const msperf_serve_recipe *r, const char *model_path,
                             const char *backend, const char *backend_version, const char *mode,
                             int64_t isl, int64_t osl, int64_t clients)
{
  g_return_val_if_fail (r != NULL, FALSE);

  return r->isl == isl && r->osl == osl && r->clients == clients
         && g_strcmp0 (r->model_path, model_path) == 0 && g_strcmp0 (r->backend, backend) == 0
         && g_strcmp0 (r->backend_version, backend_version) == 0
         && g_strcmp0 (r->mode, mode) == 0;
}
