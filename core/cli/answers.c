/* msperf — JSON Lines answers read back (merge, summarize). */
#define _POSIX_C_SOURCE 200809L  /* getline: POSIX, hidden by -std=c11 */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include <msperf/msperf.h>
#include "cli/answers.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "app/report/output.h"

/* The index of an estimate JSONL line: it always starts `{"index": N` (report_json.c), so a
 * merge never parses the rest and copies the bytes as they are. */
static gboolean
line_index (const char *line, guint64 *index)
{
  const char prefix[] = "{\"index\": ";
  char *end = NULL;

  if (strncmp (line, prefix, sizeof prefix - 1) != 0 || !g_ascii_isdigit (line[sizeof prefix - 1]))
    return FALSE;
  errno = 0;
  *index = g_ascii_strtoull (line + sizeof prefix - 1, &end, 10);
  return errno == 0 && end && (*end == ',' || *end == '}');
}

typedef struct {
  const char *path;
  FILE *f;
  char *line;
  size_t cap;
  guint64 index;
  gboolean done;
  guint lineno;
} shard_in;

/* The next non-blank line of in (in->done at the end). */
static gboolean
shard_advance (shard_in *in, GError **error)
{
  guint64 previous = in->index;
  ssize_t n;

  do
    {
      n = getline (&in->line, &in->cap, in->f);
      in->lineno++;
    }
  while (n > 0 && in->line[0] == '\n');
  if (n < 0)
    {
      in->done = TRUE;
      if (ferror (in->f))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: %s", in->path,
                       g_strerror (errno));
          return FALSE;
        }
      return TRUE;
    }
  if (!line_index (in->line, &in->index))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s:%u: not an estimate JSON Lines record (no leading \"index\")", in->path,
                   in->lineno);
      return FALSE;
    }
  if (in->lineno > 1 && in->index <= previous)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%s:%u: index %" G_GUINT64_FORMAT " after %" G_GUINT64_FORMAT
                   ": give each shard's output as its own file", in->path, in->lineno,
                   in->index, previous);
      return FALSE;
    }
  return TRUE;
}

static void
shards_close (shard_in *in, guint n)
{
  for (guint k = 0; k < n; k++)
    {
      if (in[k].f && in[k].f != stdin)
        fclose (in[k].f);
      free (in[k].line);
    }
  g_free (in);
}

gboolean
msperf_answers_merge (const char *const *paths, FILE *out, GError **error)
{
  guint n = g_strv_length ((char **) paths), k;
  shard_in *in = g_new0 (shard_in, MAX (n, 1));
  gboolean ok = FALSE;

  for (k = 0; k < n; k++)
    {
      in[k].path = paths[k];
      in[k].f = strcmp (paths[k], "-") == 0 ? stdin : fopen (paths[k], "r");
      if (in[k].f == NULL)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: %s", paths[k],
                       g_strerror (errno));
          goto out;
        }
      if (!shard_advance (&in[k], error))
        goto out;
    }
  /* N shards are a handful: a linear scan for the smallest head is cheaper than a heap. */
  for (;;)
    {
      shard_in *min = NULL;

      for (k = 0; k < n; k++)
        if (!in[k].done && (min == NULL || in[k].index < min->index))
          min = &in[k];
      if (min == NULL)
        break;
      fputs (min->line, out);
      if (min->line[strlen (min->line) - 1] != '\n')
        fputc ('\n', out);
      if (!shard_advance (min, error))
        goto out;
    }
  ok = TRUE;
out:
  shards_close (in, n);
  return ok;
}

/* ------------------------------------------------------------------ summarize */

struct msperf_answers {
  GHashTable *lines;   /* guint64* index → char* line */
  JsonParser *parser;
};

void
msperf_answers_free (msperf_answers *a)
{
  if (a == NULL)
    return;
  g_hash_table_unref (a->lines);
  g_clear_object (&a->parser);
  g_free (a);
}

static gboolean
load_one (msperf_answers *a, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  char *line, *next;
  guint lineno = 0;

  if (!g_file_get_contents (strcmp (path, "-") == 0 ? "/dev/stdin" : path, &text, &len, error))
    return FALSE;
  for (line = text; line && *line; line = next)
    {
      guint64 index, *key;

      next = strchr (line, '\n');
      if (next)
        *next++ = '\0';
      lineno++;
      if (*line == '\0')
        continue;
      if (!line_index (line, &index))
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "%s:%u: not an estimate JSON Lines record (no leading \"index\")", path,
                       lineno);
          return FALSE;
        }
      key = g_new (guint64, 1);
      *key = index;
      g_hash_table_replace (a->lines, key, g_strdup (line));
    }
  return TRUE;
}

msperf_answers *
msperf_answers_load (const char *const *paths, GError **error)
{
  msperf_answers *a = g_new0 (msperf_answers, 1);

  a->lines = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  a->parser = json_parser_new_immutable ();
  for (const char *const *p = paths; p && *p; p++)
    if (!load_one (a, *p, error))
      {
        msperf_answers_free (a);
        return NULL;
      }
  return a;
}

static msperf_value *
value_from_node (JsonNode *node)
{
  msperf_value *v;

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *o = json_node_get_object (node);
        g_autoptr (GList) members = json_object_get_members (o);

        v = msperf_value_new (MSPERF_VALUE_MAP);
        for (GList *m = members; m; m = m->next)
          msperf_value_map_set (v, m->data, value_from_node (json_object_get_member (o, m->data)));
        return v;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *arr = json_node_get_array (node);

        v = msperf_value_new (MSPERF_VALUE_LIST);
        for (guint k = 0; k < json_array_get_length (arr); k++)
          msperf_value_list_append (v, value_from_node (json_array_get_element (arr, k)));
        return v;
      }
    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64: return msperf_value_new_int (json_node_get_int (node));
        case G_TYPE_BOOLEAN: return msperf_value_new_bool (json_node_get_boolean (node));
        case G_TYPE_STRING: return msperf_value_new_string (json_node_get_string (node));
        default: return msperf_value_new_double (json_node_get_double (node));
        }
    default:
      return msperf_value_new (MSPERF_VALUE_NONE);
    }
}

static const char *
member_string (JsonObject *o, const char *key)
{
  JsonNode *n = json_object_get_member (o, key);

  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
         ? json_node_get_string (n) : NULL;
}

/* A latency: a number, or null for NAN. */
static double
member_double (JsonObject *o, const char *key)
{
  JsonNode *n = json_object_get_member (o, key);

  return n && JSON_NODE_HOLDS_VALUE (n) ? json_node_get_double (n) : NAN;
}

static msperf_source
source_of (const char *name)
{
  for (int s = MSPERF_SOURCE_NONE; s <= MSPERF_SOURCE_REJECTED; s++)
    if (g_strcmp0 (msperf_source_name ((msperf_source) s), name) == 0)
      return (msperf_source) s;
  return MSPERF_SOURCE_NONE;
}

static msperf_result *
result_from_object (JsonObject *o)
{
  msperf_result *r = msperf_result_new ();
  JsonNode *details = json_object_get_member (o, "details");
  JsonNode *dim = json_object_get_member (o, "interpolation_dim");

  r->source = source_of (member_string (o, "source"));
  r->latency_us = member_double (o, "latency_us");
  r->confidence = member_double (o, "confidence");
  if (isnan (r->confidence))
    r->confidence = 0.0;
  r->kernel_type = g_strdup (member_string (o, "kernel_type"));
  r->method = g_strdup (member_string (o, "method"));
  r->shape_match_rule = g_strdup (member_string (o, "shape_match_rule"));
  r->miss_reason = g_strdup (member_string (o, "miss_reason"));
  if (dim && JSON_NODE_HOLDS_VALUE (dim))
    r->interpolation_dim = (int) json_node_get_int (dim);
  if (details && JSON_NODE_HOLDS_OBJECT (details))
    {
      msperf_value_free (r->details);
      r->details = value_from_node (details);
    }
  return r;
}

gboolean
msperf_answers_get (msperf_answers *a, size_t index, msperf_result **result, double *analytic_us,
                    char **error_text, GError **error)
{
  guint64 key = index;
  const char *line = g_hash_table_lookup (a->lines, &key);
  JsonNode *root;
  JsonObject *o;

  if (line == NULL)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_NOT_FOUND,
                   "no answer for trace item %zu (a shard missing?)", index);
      return FALSE;
    }
  if (!json_parser_load_from_data (a->parser, line, -1, error))
    return FALSE;
  root = json_parser_get_root (a->parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "answer %zu is not a JSON object", index);
      return FALSE;
    }
  o = json_node_get_object (root);
  *result = result_from_object (o);
  *analytic_us = member_double (o, "analytic_latency_us");
  *error_text = g_strdup (member_string (o, "error"));
  return TRUE;
}

/* ------------------------------------------------------------------ msperf merge */

int
msperf_cli_merge (const msperf_cli_global *g, int argc, char **argv)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new (
    "SHARD.jsonl… — estimate --shard outputs in the single run's order");
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = g_new0 (char *, argc + 1);

  static const GOptionEntry no_options[] = { G_OPTION_ENTRY_NULL };

  for (int k = 0; k < argc; k++)
    args[k] = g_strdup (argv[k]);
  if (!msperf_cli_check_options ("msperf merge", no_options, args, &error)
      || !g_option_context_parse_strv (ctx, &args, &error))
    {
      fprintf (stderr, "msperf merge: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  if (g_strv_length (args) < 2)
    {
      fprintf (stderr, "msperf merge: give the shards' JSON Lines files\n");
      return MSPERF_EXIT_USAGE;
    }
  if (!msperf_answers_merge ((const char *const *) args + 1, g->out, &error)
      || !msperf_stdout_ok (g->std, &error))
    {
      fprintf (stderr, "msperf merge: %s\n", error->message);
      return MSPERF_EXIT_USAGE;
    }
  return MSPERF_EXIT_OK;
}
