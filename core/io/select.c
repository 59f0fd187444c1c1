/* msperf — nearest-row selection shared by the query modes (reference §2.3). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <msperf/select.h>

void
msperf_selector_init (msperf_selector *sel)
{
  g_return_if_fail (sel != NULL);
  memset (sel, 0, sizeof *sel);
}

void
msperf_selector_clear (msperf_selector *sel)
{
  g_return_if_fail (sel != NULL);
  g_free (sel->rule);
  msperf_selector_init (sel);
}

/* Upstream compares tied latencies as Python round(x, 12). printf's %.12f rounds the exact
 * binary value to nearest (ties to even), as Python's correctly rounded round() does. */
static gboolean
same_latency_12 (double a, double b)
{
  char sa[G_ASCII_DTOSTR_BUF_SIZE + 320];
  char sb[sizeof sa];

  if (a == b)
    return TRUE;
  snprintf (sa, sizeof sa, "%.12f", a);
  snprintf (sb, sizeof sb, "%.12f", b);
  /* -0.000000000000 and 0.000000000000 are the same rounded value. */
  if (strcmp (sa, "-0.000000000000") == 0)
    memmove (sa, sa + 1, strlen (sa));
  if (strcmp (sb, "-0.000000000000") == 0)
    memmove (sb, sb + 1, strlen (sb));
  return strcmp (sa, sb) == 0;
}

/* <0 when (d1, k1, p1) is smaller than the current best, 0 when equal, >0 when larger. */
static int
compare_score (const msperf_selector *sel, double distance, int kernel_index,
               int latency_priority)
{
  if (distance != sel->distance)
    return distance < sel->distance ? -1 : 1;
  if (kernel_index != sel->kernel_index)
    return kernel_index < sel->kernel_index ? -1 : 1;
  if (latency_priority != sel->latency_priority)
    return latency_priority < sel->latency_priority ? -1 : 1;
  return 0;
}

void
msperf_selector_offer (msperf_selector *sel, double distance, int kernel_index,
                       int latency_priority, const msperf_table *table, size_t row,
                       double latency, const char *rule)
{
  int cmp;

  g_return_if_fail (sel != NULL);
  sel->n_offered++;
  cmp = sel->have ? compare_score (sel, distance, kernel_index, latency_priority) : -1;
  if (cmp > 0)
    return;
  if (cmp == 0)
    {
      /* A different latency at the best score makes the match ambiguous. */
      if (!same_latency_12 (latency, sel->latency))
        sel->ambiguous = TRUE;
      /* Equal scores keep the smallest row of the table, so that the answer does not depend
       * on the order rows are offered in (the exact-key index hands them out by key). The
       * latencies tied at 12 decimals form classes: 'ambiguous' (two classes seen at the best
       * score) is the same whichever row is kept. */
      if (table != sel->table || row >= sel->row)
        return;
    }

  sel->have = TRUE;
  sel->distance = distance;
  sel->kernel_index = kernel_index;
  sel->latency_priority = latency_priority;
  sel->table = table;
  sel->row = row;
  sel->latency = latency;
  g_free (sel->rule);
  sel->rule = g_strdup (rule);
  if (cmp < 0)
    sel->ambiguous = FALSE;
}
