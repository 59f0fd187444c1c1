/* msperf — the digest of a distinct op (app/run/digest.h) and the folding of a streamed run.
 *
 * Why one block: a 1 M-line trace has ~210 k distinct ops, and the record a streamed run used
 * to keep for each (its op tree, its signature, a slimmed answer: ~3.5 KB) was most of the
 * run's memory. A digest is ~150 bytes plus its texts, allocated once. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "base/str_hash.h"
#include "app/run/digest.h"
#include <msperf/details.h>
#include <msperf/format.h>

static gboolean
value_truthy (const msperf_value *v)
{
  if (v == NULL)
    return FALSE;
  switch (v->kind)
    {
    case MSPERF_VALUE_BOOL: return v->b;
    case MSPERF_VALUE_INT: return v->i != 0;
    case MSPERF_VALUE_FLOAT: return v->f != 0.0;
    case MSPERF_VALUE_STRING: return v->s && *v->s;
    case MSPERF_VALUE_LIST:
    case MSPERF_VALUE_MAP: return v->items->len > 0;
    case MSPERF_VALUE_TENSOR: return TRUE;
    default: return FALSE;
    }
}

/* The details a digest reads, picked in one pass (an interpolated answer's details are a
 * record: nothing else of it is built). */
static const char *const digest_keys[] = { "kernel_type", "zero_cost", "missed_kernels", "axes",
                                           NULL };

/* A hit's metrics kernel type: "zero_cost", "accepted_miss", the kernel type or "?". */
static char *
metric_kernel_type (const msperf_result *res, const msperf_value *picked)
{
  const char *kt = msperf_value_get_string (msperf_value_lookup (picked, "kernel_type"));

  if (kt == NULL)
    kt = res->kernel_type;
  if (value_truthy (msperf_value_lookup (picked, "zero_cost")))
    return g_strdup ("zero_cost");
  if (g_strcmp0 (kt, "accepted_miss") == 0)
    return g_strdup ("accepted_miss");
  return g_strdup (kt ? kt : "?");
}

static char *
partial_reason (const msperf_value *picked)
{
  const msperf_value *missed = msperf_value_lookup (picked, "missed_kernels");
  GString *s = g_string_new ("partial:");

  if (missed && missed->kind == MSPERF_VALUE_LIST)
    for (guint k = 0; k < missed->items->len; k++)
      {
        if (k > 0)
          g_string_append_c (s, ',');
        msperf_fmt_py_str (s, g_ptr_array_index (missed->items, k));
      }
  else if (missed && missed->kind == MSPERF_VALUE_STRING)
    g_string_append (s, missed->s);
  return g_string_free (s, FALSE);
}

/* The metrics label of a metrics record (an answered op not REJECTED), else NULL. */
static char *
metric_label (const msperf_record *r, const msperf_value *picked)
{
  const msperf_result *res = r->result;

  if (r->op == NULL || res == NULL || res->source == MSPERF_SOURCE_REJECTED)
    return NULL;
  if (res->source == MSPERF_SOURCE_MEASURED || res->source == MSPERF_SOURCE_INTERPOLATED)
    return metric_kernel_type (res, picked);
  if (res->source == MSPERF_SOURCE_PARTIAL)
    return partial_reason (picked);
  return g_strdup (res->miss_reason && *res->miss_reason ? res->miss_reason : "unknown");
}

/* Copies s (nullable) to *at and returns where the next text goes. */
static char *
put_text (char *at, const char *s, const char **field)
{
  size_t n;

  *field = NULL;
  if (s == NULL)
    return at;
  n = strlen (s) + 1;
  *field = memcpy (at, s, n);
  return at + n;
}

static size_t
text_size (const char *s)
{
  return s ? strlen (s) + 1 : 0;
}

msperf_digest *
msperf_digest_new (const msperf_record *r, int64_t count, gboolean keep_signature)
{
  const msperf_result *res = r->result;
  g_autoptr (GPtrArray) top = r->op ? msperf_op_top_level_tensors (r->op) : NULL;
  g_autoptr (msperf_value) picked = res ? msperf_result_details_subset (res, digest_keys) : NULL;
  g_autofree char *label = metric_label (r, picked);
  g_autofree char *axes = NULL;
  const char *name = r->op ? r->op->name : (r->op_name ? r->op_name : "");
  const char *sig = keep_signature ? r->signature : NULL;
  const char *method = res ? res->method : NULL;
  size_t n_words = 0, size;
  msperf_digest *d;
  int64_t *w;
  char *at;

  if (r->op && res && res->source == MSPERF_SOURCE_INTERPOLATED)
    axes = msperf_digest_axes_text (msperf_value_lookup (picked, "axes"));
  for (guint k = 0; top && k < top->len; k++)
    n_words += 1 + (size_t) MAX (((const msperf_tensor *) g_ptr_array_index (top, k))->rank, 0);
  size = sizeof *d + n_words * sizeof (int64_t) + text_size (sig) + text_size (name)
         + text_size (method) + text_size (label) + text_size (axes);
  d = g_malloc0 (size);
  d->record = r;
  d->count = count;
  d->rejected = r->op == NULL;
  d->answered = res != NULL;
  d->source = res ? res->source : MSPERF_SOURCE_NONE;
  d->latency_us = res ? res->latency_us : NAN;
  d->confidence = res ? res->confidence : 0.0;
  d->interpolation_dim = res ? res->interpolation_dim : 0;
  d->analytic_us = r->analytic_us;
  d->line = r->line;
  d->has_att = r->op && r->op->att != NULL;
  d->n_shapes = top ? top->len : 0;
  w = (int64_t *) (d + 1);
  d->shapes = w;
  for (guint k = 0; k < d->n_shapes; k++)
    {
      const msperf_tensor *t = g_ptr_array_index (top, k);
      int rank = MAX (t->rank, 0);

      *w++ = rank;
      memcpy (w, t->dims, (size_t) rank * sizeof (int64_t));
      w += rank;
    }
  at = (char *) w;
  at = put_text (at, sig, &d->signature);
  at = put_text (at, name, &d->name);
  at = put_text (at, method, &d->method);
  at = put_text (at, label, &d->label);
  put_text (at, axes, &d->axes);
  return d;
}

char *
msperf_digest_axes_text (const msperf_value *axes)
{
  GString *s;

  if (axes == NULL || axes->kind != MSPERF_VALUE_MAP || axes->items->len == 0)
    {
      if (axes && axes->kind == MSPERF_VALUE_LIST && axes->items->len > 0)
        {
          s = g_string_new (NULL);
          for (guint k = 0; k < axes->items->len; k++)
            {
              if (k > 0)
                g_string_append_c (s, ',');
              msperf_fmt_py_str (s, g_ptr_array_index (axes->items, k));
            }
          return g_string_free (s, FALSE);
        }
      return g_strdup ("-");
    }
  s = g_string_new (NULL);
  for (guint k = 0; k < axes->items->len; k++)
    {
      /* appends, not printf: this runs once per distinct interpolated op (the run digest) */
      if (k)
        g_string_append_c (s, ',');
      g_string_append (s, g_ptr_array_index (axes->keys, k));
      g_string_append_c (s, '=');
      msperf_fmt_py_str (s, g_ptr_array_index (axes->items, k));
    }
  return g_string_free (s, FALSE);
}

void
msperf_digest_free (msperf_digest *d)
{
  g_free (d);
}

void
msperf_digest_shape (const msperf_digest *d, guint k, msperf_tensor *out)
{
  const int64_t *w;

  g_return_if_fail (d != NULL && out != NULL && k < d->n_shapes);
  w = d->shapes;
  for (guint j = 0; j < k; j++)
    w += 1 + w[0];
  *out = (msperf_tensor){ .rank = (int) w[0] };
  memcpy (out->dims, w + 1, (size_t) w[0] * sizeof (int64_t));
}

char *
msperf_digest_shapes_text (const msperf_digest *d)
{
  GString *s = g_string_new (NULL);

  for (guint k = 0; k < d->n_shapes; k++)
    {
      msperf_tensor t;

      msperf_digest_shape (d, k, &t);
      if (k > 0)
        g_string_append_c (s, ' ');
      msperf_fmt_py_shape (s, &t);
    }
  return g_string_free (s, FALSE);
}

GPtrArray *
msperf_run_digests (const msperf_run *run)
{
  g_autoptr (GPtrArray) firsts = NULL;
  g_autoptr (GArray) counts = NULL;
  GPtrArray *out;

  g_return_val_if_fail (run != NULL, NULL);
  if (run->digests)
    return g_ptr_array_ref (run->digests);
  firsts = msperf_run_distinct (run, &counts);
  out = g_ptr_array_new_full (firsts->len, (GDestroyNotify) msperf_digest_free);
  for (guint k = 0; k < firsts->len; k++)
    g_ptr_array_add (out, msperf_digest_new (g_ptr_array_index (firsts, k),
                                             g_array_index (counts, int64_t, k), FALSE));
  return out;
}

void
msperf_run_set_folding (msperf_run *run)
{
  g_return_if_fail (run != NULL && run->records->len == 0 && run->digests == NULL);
  run->digests = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_digest_free);
  run->fold = g_hash_table_new (msperf_str_hash, g_str_equal);
}

void
msperf_record_digest (msperf_record *r)
{
  g_return_if_fail (r != NULL);
  if (r->digest)
    return;
  r->digest = msperf_digest_new (r, r->count, TRUE);
  r->digest->record = NULL;
  g_clear_pointer (&r->op, msperf_op_free);
  g_clear_pointer (&r->result, msperf_result_free);
  g_clear_pointer (&r->signature, g_free);
}

void
msperf_run_fold (msperf_run *run, msperf_record *r)
{
  msperf_digest *first;

  g_return_if_fail (run != NULL && r != NULL);
  if (run->digests == NULL)
    {
      msperf_run_add (run, r);
      return;
    }
  msperf_record_digest (r);
  /* Rejected lines are never folded (each has its own message). */
  first = r->digest->signature ? g_hash_table_lookup (run->fold, r->digest->signature) : NULL;
  if (first)
    {
      /* Saturating, as msperf_run_distinct sums. */
      first->count = first->count > G_MAXINT64 - r->digest->count
                     ? G_MAXINT64 : first->count + r->digest->count;
      run->folded_lines++;
    }
  else
    {
      if (r->digest->signature)
        g_hash_table_insert (run->fold, (gpointer) r->digest->signature, r->digest);
      g_ptr_array_add (run->digests, g_steal_pointer (&r->digest));
    }
  msperf_record_free (r);
}
