/* msperf — the shape rules several query modes share (reference §0 and §1.3). */
#include <config.h>
#include <stdarg.h>
#include <string.h>
#include <msperf/error.h>
#include <msperf/shape.h>

gboolean
msperf_int64_checked_mul (int64_t a, int64_t b, int64_t *out)
{
  int64_t r;

  g_return_val_if_fail (out != NULL, FALSE);
  if (__builtin_mul_overflow (a, b, &r))
    return FALSE;
  *out = r;
  return TRUE;
}

/* Shape transforms produce a new value: the owned 'values' pointer is carried only when the
 * transform happens in place, so that two tensors never own the same buffer. */
static void
assign_result (msperf_tensor *out, const msperf_tensor *in, const msperf_tensor *result)
{
  int64_t *values = out == in ? in->values : NULL;
  size_t n_values = out == in ? in->n_values : 0;

  *out = *result;
  out->values = values;
  out->n_values = n_values;
}

void
msperf_shape_strip (const msperf_tensor *in, msperf_tensor *out)
{
  msperf_tensor r;

  g_return_if_fail (in != NULL && out != NULL);
  r = *in;
  if (in->rank > 1 && in->dims[0] == 1)
    {
      r.rank = in->rank - 1;
      memmove (r.dims, in->dims + 1, (size_t) r.rank * sizeof (int64_t));
      r.dims[r.rank] = 0;
    }
  assign_result (out, in, &r);
}

gboolean
msperf_is_block_padded (int64_t t, int64_t c)
{
  static const int64_t block_sizes[] = { 8, 16, 32, 64 };

  if (c < 0 || t <= c)
    return FALSE;
  for (size_t k = 0; k < G_N_ELEMENTS (block_sizes); k++)
    {
      int64_t bs = block_sizes[k];
      int64_t rounded;

      /* Block size 8 only counts for dims of at least 64 (reference §0). */
      if (bs == 8 && c < 64)
        continue;
      /* ceil(c/bs)*bs without forming c + bs - 1, which could overflow. */
      if (msperf_int64_checked_mul (c / bs + (c % bs != 0), bs, &rounded) && rounded == t)
        return TRUE;
    }
  return FALSE;
}

gboolean
msperf_shape_pad_match (const msperf_tensor *t, const msperf_tensor *c)
{
  gboolean padded = FALSE;

  g_return_val_if_fail (t != NULL && c != NULL, FALSE);
  if (t->rank != c->rank)
    return FALSE;
  for (int k = 0; k < t->rank; k++)
    {
      if (t->dims[k] == c->dims[k])
        continue;
      if (!msperf_is_block_padded (t->dims[k], c->dims[k]))
        return FALSE;
      padded = TRUE;
    }
  return padded;
}

gboolean
msperf_shape_nz_to_nd (const msperf_tensor *in, msperf_tensor *out)
{
  msperf_tensor r;
  int n;
  int64_t h, w;

  g_return_val_if_fail (in != NULL && out != NULL, FALSE);
  r = *in;
  n = in->rank;
  if (n >= 4)
    {
      /* [...batch, H, W, bh, bw] -> (...batch, H*bw, W*bh) */
      if (!msperf_int64_checked_mul (in->dims[n - 4], in->dims[n - 1], &h)
          || !msperf_int64_checked_mul (in->dims[n - 3], in->dims[n - 2], &w))
        return FALSE;
      r.rank = n - 2;
      r.dims[n - 4] = h;
      r.dims[n - 3] = w;
      r.dims[n - 2] = 0;
      r.dims[n - 1] = 0;
    }
  assign_result (out, in, &r);
  return TRUE;
}

static gboolean
parse_fail (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
parse_fail (GError **error, const char *format, ...)
{
  va_list args;
  char *message;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID, message);
  g_free (message);
  return FALSE;
}

/* One dim: optional blanks, decimal digits, optional blanks. */
static gboolean
parse_dim (const char *start, const char *end, int64_t *out, GError **error)
{
  int64_t v = 0;
  const char *p;
  char *text;
  gboolean ok;

  while (start < end && g_ascii_isspace (*start))
    start++;
  while (end > start && g_ascii_isspace (end[-1]))
    end--;
  if (start == end)
    return parse_fail (error, "empty dimension");
  for (p = start; p < end; p++)
    if (!g_ascii_isdigit (*p))
      break;
  if (p == end)
    {
      for (p = start; p < end; p++)
        if (__builtin_mul_overflow (v, 10, &v) || __builtin_add_overflow (v, *p - '0', &v))
          return parse_fail (error, "dimension overflows int64");
      *out = v;
      return TRUE;
    }

  text = g_strndup (start, (size_t) MIN (end - start, 40));
  if (*start == '-' && start + 1 < end && g_ascii_isdigit (start[1]))
    ok = parse_fail (error, "negative dimension \"%s\"", text);
  else
    ok = parse_fail (error, "dimension \"%s\" is not a non-negative integer", text);
  g_free (text);
  return ok;
}

gboolean
msperf_shape_parse_dims (const char *text, msperf_tensor *t, GError **error)
{
  const char *start, *end, *p;
  int64_t dims[MSPERF_MAX_RANK] = { 0 };
  int64_t numel = 1;
  int rank = 0;

  g_return_val_if_fail (text != NULL && t != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  start = text;
  end = text + strlen (text);
  while (start < end && g_ascii_isspace (*start))
    start++;
  while (end > start && g_ascii_isspace (end[-1]))
    end--;

  /* "()" is how profiling writes a scalar; an empty text is a scalar too. */
  if (end - start == 2 && start[0] == '(' && start[1] == ')')
    start = end;

  for (p = start; start < end; start = p + 1)
    {
      int64_t d = 0;

      p = memchr (start, ',', (size_t) (end - start));
      if (p == NULL)
        p = end;
      if (rank == MSPERF_MAX_RANK)
        return parse_fail (error, "more than %d dimensions", MSPERF_MAX_RANK);
      if (!parse_dim (start, p, &d, error))
        return FALSE;
      /* Same sequential product as msperf_tensor_numel, so a parsed shape always has one. */
      if (!msperf_int64_checked_mul (numel, d, &numel))
        return parse_fail (error, "element count overflows int64");
      dims[rank++] = d;
      if (p == end)
        break;
      if (p + 1 == end)
        return parse_fail (error, "empty dimension");
    }

  t->rank = rank;
  memcpy (t->dims, dims, sizeof dims);
  return TRUE;
}
