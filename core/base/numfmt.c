/* msperf — number and string formatting shared by every output. */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <msperf/format.h>
#include "shortest_digits.h"
#include "str_append.h"

void
msperf_fmt_py_float (GString *out, double value)
{
  char digits[32];
  int exp10, ndigits;

  g_return_if_fail (out != NULL);
  if (isnan (value))
    {
      msperf_str_append (out, "nan");
      return;
    }
  if (isinf (value))
    {
      msperf_str_append (out, value < 0 ? "-inf" : "inf");
      return;
    }
  if (value == 0.0)
    {
      msperf_str_append (out, signbit (value) ? "-0.0" : "0.0");
      return;
    }
  if (value < 0)
    g_string_append_c (out, '-');
  msperf_shortest_digits (value, digits, &exp10);
  ndigits = (int) strlen (digits);
  /* Python's float_repr_style 'short': exponent form when decpt <= -4 or decpt > 16,
   * with decpt = exp10 + 1. */
  if (exp10 < -4 || exp10 >= 16)
    {
      g_string_append_c (out, digits[0]);
      if (ndigits > 1)
        {
          g_string_append_c (out, '.');
          msperf_str_append (out, digits + 1);
        }
      g_string_append_printf (out, "e%c%02d", exp10 < 0 ? '-' : '+', abs (exp10));
    }
  else if (exp10 < 0)
    {
      msperf_str_append (out, "0.");
      for (int k = 0; k < -exp10 - 1; k++)
        g_string_append_c (out, '0');
      msperf_str_append (out, digits);
    }
  else if (exp10 + 1 >= ndigits)
    {
      msperf_str_append (out, digits);
      for (int k = 0; k < exp10 + 1 - ndigits; k++)
        g_string_append_c (out, '0');
      msperf_str_append (out, ".0");
    }
  else
    {
      msperf_str_append_len (out, digits, exp10 + 1);
      g_string_append_c (out, '.');
      msperf_str_append (out, digits + exp10 + 1);
    }
}

void
msperf_fmt_int (GString *out, int64_t value)
{
  char buf[24];
  char *at = buf + sizeof buf;
  /* the magnitude as unsigned, so INT64_MIN does not overflow */
  uint64_t u = value < 0 ? (uint64_t) 0 - (uint64_t) value : (uint64_t) value;

  g_return_if_fail (out != NULL);
  do
    {
      *--at = (char) ('0' + u % 10);
      u /= 10;
    }
  while (u != 0);
  if (value < 0)
    *--at = '-';
  msperf_str_append_len (out, at, buf + sizeof buf - at);
}

void
msperf_fmt_json_double (GString *out, double value)
{
  g_return_if_fail (out != NULL);
  if (!isfinite (value))
    msperf_str_append (out, "null");
  else
    msperf_fmt_py_float (out, value);
}

void
msperf_fmt_fixed (GString *out, double value, int decimals)
{
  g_return_if_fail (out != NULL);
  if (isnan (value))
    msperf_str_append (out, "-");
  else
    g_string_append_printf (out, "%.*f", decimals, value);
}

int64_t
msperf_round_half_even (double value)
{
  double r;

  if (!isfinite (value))
    return 0;
  /* nearbyint honours the current rounding mode, which is round-to-nearest-even unless a
   * caller changed it; that is Python's round(). */
  r = nearbyint (value);
  if (r >= 9223372036854775807.0)
    return G_MAXINT64;
  if (r <= -9223372036854775808.0)
    return G_MININT64;
  return (int64_t) r;
}

/* Bytes a JSON string can carry as they are: printable ASCII, not '"' or '\\'. Bytes from 0x80
 * take the slow path, which copies valid UTF-8 sequences and escapes the others. A table: this
 * loop runs over every key and string of every details record. */
#define PLAIN16 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
#define CONTROL16 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
static const guint8 json_plain_table[256] = {
  CONTROL16, CONTROL16,                                      /* 0x00-0x1f */
  1, 1, 0 /* '"' */, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  /* 0x20-0x2f */
  PLAIN16, PLAIN16,                                          /* 0x30-0x4f */
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 /* '\\' */, 1, 1, 1, /* 0x50-0x5f */
  PLAIN16, PLAIN16,                                          /* 0x60-0x7f */
  CONTROL16, CONTROL16, CONTROL16, CONTROL16,                /* 0x80-0xbf */
  CONTROL16, CONTROL16, CONTROL16, CONTROL16,                /* 0xc0-0xff */
};
#undef PLAIN16
#undef CONTROL16

static inline gboolean
json_plain (unsigned char c)
{
  return json_plain_table[c];
}

/* The length of the valid UTF-8 sequence at p (a byte >= 0x80), 0 when it is not one:
 * no overlong forms, no surrogates, nothing above U+10FFFF (RFC 3629). */
static gsize
utf8_sequence (const unsigned char *p)
{
  gsize n;
  unsigned char lo = 0x80, hi = 0xbf;

  if (*p >= 0xc2 && *p <= 0xdf)
    n = 2;
  else if (*p >= 0xe0 && *p <= 0xef)
    {
      n = 3;
      lo = *p == 0xe0 ? 0xa0 : 0x80;
      hi = *p == 0xed ? 0x9f : 0xbf;
    }
  else if (*p >= 0xf0 && *p <= 0xf4)
    {
      n = 4;
      lo = *p == 0xf0 ? 0x90 : 0x80;
      hi = *p == 0xf4 ? 0x8f : 0xbf;
    }
  else
    return 0;
  if (p[1] < lo || p[1] > hi)
    return 0;
  for (gsize k = 2; k < n; k++)
    if (p[k] < 0x80 || p[k] > 0xbf)
      return 0;
  return n;
}

void
msperf_fmt_json_string (GString *out, const char *s)
{
  const unsigned char *p = (const unsigned char *) (s ? s : "");

  const unsigned char *end = p;

  g_return_if_fail (out != NULL);
  while (json_plain (*end))
    end++;
  if (*end == '\0')
    {
      /* nothing to escape (keys, names, regimes): one copy */
      gsize n = (gsize) (end - p);
      char *d = msperf_str_extend (out, n + 2);

      d[0] = '"';
      memcpy (d + 1, p, n);
      d[n + 1] = '"';
      return;
    }
  g_string_append_c (out, '"');
  while (*p)
    {
      const unsigned char *run = p;

      /* the plain run in one append: names and regimes rarely need an escape */
      while (json_plain (*p))
        p++;
      if (p > run)
        msperf_str_append_len (out, (const char *) run, p - run);
      if (*p == '\0')
        break;
      switch (*p)
        {
        case '"': msperf_str_append (out, "\\\""); break;
        case '\\': msperf_str_append (out, "\\\\"); break;
        case '\n': msperf_str_append (out, "\\n"); break;
        case '\r': msperf_str_append (out, "\\r"); break;
        case '\t': msperf_str_append (out, "\\t"); break;
        case '\b': msperf_str_append (out, "\\b"); break;
        case '\f': msperf_str_append (out, "\\f"); break;
        default:
          if (*p >= 0x80)
            {
              /* valid UTF-8 as it is; a stray byte (a Latin-1 path) as the text outputs write
               * it, \xNN, its backslash escaped: the output stays valid JSON */
              gsize n = utf8_sequence (p);

              if (n > 0)
                {
                  msperf_str_append_len (out, (const char *) p, n);
                  p += n;
                  continue;
                }
              g_string_append_printf (out, "\\\\x%02x", *p);
            }
          else
            g_string_append_printf (out, "\\u%04x", *p);
          break;
        }
      p++;
    }
  g_string_append_c (out, '"');
}

void
msperf_fmt_csv_field (GString *out, const char *text)
{
  gsize n;

  g_return_if_fail (out != NULL);
  text = text ? text : "";
  n = strlen (text);
  if (strpbrk (text, ",\"\r\n") == NULL && !(n > 0 && (text[0] == ' ' || text[n - 1] == ' ')))
    {
      msperf_str_append_len (out, text, n);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

void
msperf_fmt_shell_word (GString *out, const char *text)
{
  static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                             "0123456789_./:=@%+,-";
  g_autofree char *q = NULL;

  g_return_if_fail (out != NULL && text != NULL);
  if (*text && strspn (text, safe) == strlen (text))
    {
      msperf_str_append (out, text);
      return;
    }
  q = g_shell_quote (text);
  msperf_str_append (out, q);
}

void
msperf_fmt_py_string (GString *out, const char *s)
{
  char quote;

  g_return_if_fail (out != NULL);
  s = s ? s : "";
  quote = (strchr (s, '\'') != NULL && strchr (s, '"') == NULL) ? '"' : '\'';
  g_string_append_c (out, quote);
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    {
      if (*p == quote || *p == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) *p);
        }
      else if (*p == '\n')
        msperf_str_append (out, "\\n");
      else if (*p == '\r')
        msperf_str_append (out, "\\r");
      else if (*p == '\t')
        msperf_str_append (out, "\\t");
      else if (*p < 0x20 || *p == 0x7f)
        g_string_append_printf (out, "\\x%02x", *p);
      else
        g_string_append_c (out, (char) *p);
    }
  g_string_append_c (out, quote);
}

void
msperf_fmt_py_shape (GString *out, const msperf_tensor *t)
{
  g_return_if_fail (out != NULL && t != NULL);
  g_string_append_c (out, '[');
  for (int k = 0; k < t->rank; k++)
    {
      if (k)
        msperf_str_append (out, ", ");
      msperf_fmt_int (out, t->dims[k]);  /* not printf: every record's shapes come here */
    }
  g_string_append_c (out, ']');
}

static void
json_newline (GString *out, int indent, int level)
{
  g_string_append_c (out, '\n');
  for (int k = 0; k < indent * level; k++)
    g_string_append_c (out, ' ');
}

static void
json_tensor (GString *out, const msperf_tensor *t)
{
  const char *dtype = msperf_dtype_torch_name (t->dtype);

  msperf_str_append (out, "{\"shape\": ");
  msperf_fmt_py_shape (out, t);
  msperf_str_append (out, ", \"dtype\": ");
  msperf_fmt_json_string (out, dtype ? dtype : "unknown");
  if (t->format != MSPERF_FORMAT_ND)
    {
      msperf_str_append (out, ", \"format\": ");
      msperf_fmt_json_string (out, msperf_format_name (t->format));
    }
  if (t->values)
    {
      msperf_str_append (out, ", \"values\": [");
      for (size_t k = 0; k < t->n_values; k++)
        g_string_append_printf (out, "%s%" G_GINT64_FORMAT, k ? ", " : "", t->values[k]);
      g_string_append_c (out, ']');
    }
  g_string_append_c (out, '}');
}

void
msperf_fmt_json_value (GString *out, const msperf_value *v, int indent, int level)
{
  gboolean is_map;

  g_return_if_fail (out != NULL);
  if (v == NULL)
    {
      msperf_str_append (out, "null");
      return;
    }
  switch (v->kind)
    {
    case MSPERF_VALUE_NONE: msperf_str_append (out, "null"); return;
    case MSPERF_VALUE_BOOL: msperf_str_append (out, v->b ? "true" : "false"); return;
    case MSPERF_VALUE_INT: msperf_fmt_int (out, v->i); return;
    case MSPERF_VALUE_FLOAT: msperf_fmt_json_double (out, v->f); return;
    case MSPERF_VALUE_STRING: msperf_fmt_json_string (out, v->s); return;
    case MSPERF_VALUE_TENSOR: json_tensor (out, &v->tensor); return;
    case MSPERF_VALUE_LIST:
    case MSPERF_VALUE_MAP:
      break;
    default:
      msperf_str_append (out, "null");
      return;
    }
  is_map = v->kind == MSPERF_VALUE_MAP;
  if (v->items->len == 0)
    {
      msperf_str_append (out, is_map ? "{}" : "[]");
      return;
    }
  g_string_append_c (out, is_map ? '{' : '[');
  for (guint k = 0; k < v->items->len; k++)
    {
      if (indent >= 0)
        {
          if (k > 0)
            g_string_append_c (out, ',');
          json_newline (out, indent, level + 1);
        }
      else if (k > 0)
        msperf_str_append (out, ", ");
      if (is_map)
        {
          msperf_fmt_json_string (out, g_ptr_array_index (v->keys, k));
          msperf_str_append (out, ": ");
        }
      msperf_fmt_json_value (out, g_ptr_array_index (v->items, k), indent, level + 1);
    }
  if (indent >= 0)
    json_newline (out, indent, level);
  g_string_append_c (out, is_map ? '}' : ']');
}

/* torch's repr of a meta tensor, which is what upstream's str(args) prints. */
static void
py_tensor (GString *out, const msperf_tensor *t)
{
  const char *dtype = msperf_dtype_torch_name (t->dtype);

  msperf_str_append (out, "tensor(..., device='meta', size=(");
  for (int k = 0; k < t->rank; k++)
    g_string_append_printf (out, "%s%" G_GINT64_FORMAT, k ? ", " : "", t->dims[k]);
  msperf_str_append (out, t->rank == 1 ? ",)" : ")");
  if (t->dtype != MSPERF_DTYPE_FLOAT32)
    g_string_append_printf (out, ", dtype=torch.%s", dtype ? dtype : "unknown");
  g_string_append_c (out, ')');
}

static void
py_value (GString *out, const msperf_value *v, gboolean quote_strings)
{
  if (v == NULL)
    {
      msperf_str_append (out, "None");
      return;
    }
  switch (v->kind)
    {
    case MSPERF_VALUE_NONE: msperf_str_append (out, "None"); break;
    case MSPERF_VALUE_BOOL: msperf_str_append (out, v->b ? "True" : "False"); break;
    case MSPERF_VALUE_INT: msperf_fmt_int (out, v->i); break;
    case MSPERF_VALUE_FLOAT: msperf_fmt_py_float (out, v->f); break;
    case MSPERF_VALUE_STRING:
      if (quote_strings)
        msperf_fmt_py_string (out, v->s);
      else
        msperf_str_append (out, v->s ? v->s : "");
      break;
    case MSPERF_VALUE_TENSOR: py_tensor (out, &v->tensor); break;
    case MSPERF_VALUE_LIST:
    case MSPERF_VALUE_MAP:
      {
        gboolean is_map = v->kind == MSPERF_VALUE_MAP;

        g_string_append_c (out, is_map ? '{' : '[');
        for (guint k = 0; k < v->items->len; k++)
          {
            if (k > 0)
              msperf_str_append (out, ", ");
            if (is_map)
              {
                msperf_fmt_py_string (out, g_ptr_array_index (v->keys, k));
                msperf_str_append (out, ": ");
              }
            py_value (out, g_ptr_array_index (v->items, k), TRUE);
          }
        g_string_append_c (out, is_map ? '}' : ']');
      }
      break;
    default:
      msperf_str_append (out, "None");
      break;
    }
}

void
msperf_fmt_py_str (GString *out, const msperf_value *value)
{
  g_return_if_fail (out != NULL);
  py_value (out, value, FALSE);
}

void
msperf_fmt_py_repr (GString *out, const msperf_value *value)
{
  g_return_if_fail (out != NULL);
  py_value (out, value, TRUE);
}

/* ------------------------------------------------------------------ names */

guint
msperf_edit_distance (const char *a, const char *b)
{
  gsize la, lb;
  g_autofree guint *row = NULL;

  g_return_val_if_fail (a != NULL && b != NULL, G_MAXUINT);
  la = strlen (a);
  lb = strlen (b);
  row = g_new (guint, lb + 1);
  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diag = row[0];

      row[0] = (guint) i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint up = row[j];

          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diag + (a[i - 1] != b[j - 1]));
          diag = up;
        }
    }
  return row[lb];
}

const char *
msperf_closest_name (const char *word, const char *const *candidates, guint max_edits)
{
  const char *best = NULL;
  guint best_d = max_edits + 1;

  g_return_val_if_fail (word != NULL, NULL);
  for (const char *const *c = candidates; c != NULL && *c != NULL; c++)
    {
      guint d = msperf_edit_distance (word, *c);

      if (d < best_d)
        {
          best_d = d;
          best = *c;
        }
    }
  return best;
}

char *
msperf_fmt_printable (const char *s)
{
  GString *out = g_string_new (NULL);

  for (const char *p = s ? s : ""; *p;)
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2 || c < 0x20 || c == 0x7f
          || (c >= 0x80 && c < 0xa0))
        {
          int len = (c == (gunichar) -1 || c == (gunichar) -2) ? 1
                    : (int) (g_utf8_next_char (p) - p);

          for (int k = 0; k < len; k++)
            g_string_append_printf (out, "\\x%02x", (guchar) p[k]);
          p += len;
          continue;
        }
      msperf_str_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}
