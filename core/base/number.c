/* msperf — reading numbers from text, and their canonical text (include/msperf/number.h). */
#include <config.h>
#include <math.h>
#include <string.h>
#include <msperf/number.h>

gboolean
msperf_number_parse (const char *text, double *out)
{
  char *end;
  double v;

  g_return_val_if_fail (out != NULL, FALSE);
  /* g_ascii_strtod skips leading space and reads hex floats; neither is a number here */
  if (text == NULL || *text == '\0' || g_ascii_isspace (*text) || strpbrk (text, "xX") != NULL)
    return FALSE;
  v = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0' || !isfinite (v))
    return FALSE;
  *out = v;
  return TRUE;
}

void
msperf_number_append_canonical (GString *out, const char *text)
{
  double v;

  g_return_if_fail (out != NULL);
  if (text != NULL && msperf_number_parse (text, &v))
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.17g", v));
    }
  else if (text != NULL)
    g_string_append (out, text);
}
