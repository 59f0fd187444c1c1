/* cmocka tests of an interpolated answer's compact details (core/engine/interp_details.c):
 * the record gives the tree a node-by-node builder gives (rebuilt here key by key, as the
 * reference), and printing it straight to JSON gives that tree's
 * bytes. Every optional key is switched on and off. */
#include <config.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include <msperf/format.h>
#include "engine/interp_details.h"

/* ------------------------------------------------------------------ the old layout */

static msperf_value *
old_number (double v)
{
  if (isfinite (v) && v == floor (v) && fabs (v) < 9007199254740992.0)
    return msperf_value_new_int ((int64_t) v);
  return isnan (v) ? msperf_value_new (MSPERF_VALUE_NONE) : msperf_value_new_double (v);
}

static msperf_value *
old_pair (double a, double b)
{
  msperf_value *l = msperf_value_new (MSPERF_VALUE_LIST);

  msperf_value_list_append (l, old_number (a));
  msperf_value_list_append (l, old_number (b));
  return l;
}

static gboolean
is_selected (const msperf_interp_details *d, size_t a)
{
  for (int j = 0; j < d->dim; j++)
    if (d->axes[j] == a)
      return TRUE;
  return FALSE;
}

/* The details built node by node, in the record's order (kernel_type came from set_hit). */
static msperf_value *
old_layout (const msperf_interp_details *d)
{
  msperf_value *m = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *axes = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *target = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *boundary = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *points = msperf_value_new (MSPERF_VALUE_LIST);
  msperf_value *exact = msperf_value_new (MSPERF_VALUE_MAP);
  msperf_value *reasons = msperf_value_new (MSPERF_VALUE_LIST);

  for (size_t a = 0; a < d->n_axes; a++)
    {
      msperf_value_map_set (target, d->axis_names[a], old_number (d->target[a]));
      if (!is_selected (d, a))
        msperf_value_map_set (exact, d->axis_names[a], old_number (d->target[a]));
    }
  for (size_t f = 0; f < d->n_fields; f++)
    msperf_value_map_set (exact, d->field_names[f], msperf_value_new_int (d->fields[f]));
  for (int j = 0; j < d->dim; j++)
    {
      const char *name = d->axis_names[d->axes[j]];

      msperf_value_map_set (axes, name, old_number (d->target[d->axes[j]]));
      msperf_value_map_set (boundary, name, old_pair (d->lo[j], d->hi[j]));
    }
  for (size_t k = 0; k < d->n_points; k++)
    {
      msperf_value *pt = msperf_value_new (MSPERF_VALUE_MAP);
      msperf_value *coords = msperf_value_new (MSPERF_VALUE_MAP);

      for (int j = 0; j < d->dim; j++)
        msperf_value_map_set (coords, d->axis_names[d->axes[j]], old_number (d->point_axes[k][j]));
      msperf_value_map_set (pt, "axes", coords);
      msperf_value_map_set (pt, "latency_us", msperf_value_new_double (d->point_latency[k]));
      if (d->have_weights)
        msperf_value_map_set (pt, "weight", msperf_value_new_double (d->point_weight[k]));
      msperf_value_list_append (points, pt);
    }
  for (guint k = 0; k < d->n_reasons; k++)
    msperf_value_list_append (reasons, msperf_value_new_string (d->reasons[k]));

  if (d->kernel)
    msperf_value_map_set (m, "kernel_type", msperf_value_new_string (d->kernel));
  msperf_value_map_set (m, "method", msperf_value_new_string (d->method));
  msperf_value_map_set (m, "interpolation_dim", msperf_value_new_int (d->dim));
  msperf_value_map_set (m, "axes", axes);
  msperf_value_map_set (m, "target", target);
  msperf_value_map_set (m, "axis_boundary", boundary);
  msperf_value_map_set (m, "candidate_points", points);
  msperf_value_map_set (m, "candidate_count", msperf_value_new_int (d->candidate_count));
  msperf_value_map_set (m, "raw_count", msperf_value_new_int (d->raw_count));
  msperf_value_map_set (m, "aggregated_count", msperf_value_new_int (d->aggregated_count));
  msperf_value_map_set (m, "dropped_count", msperf_value_new_int (d->dropped_count));
  msperf_value_map_set (m, "aggregate", msperf_value_new_string (d->aggregate));
  msperf_value_map_set (m, "confidence", msperf_value_new_double (d->confidence));
  msperf_value_map_set (m, "fallback_from", msperf_value_new_string (d->fallback_from));
  msperf_value_map_set (m, "exact_fields", exact);
  msperf_value_map_set (m, "regime", msperf_value_new_string (d->regime));
  if (d->regime_group && d->regime_group[0])
    msperf_value_map_set (m, "regime_group", msperf_value_new_string (d->regime_group));
  msperf_value_map_set (m, "axis_transform", d->transformed ? msperf_value_new_string ("sqrt_seq")
                                              : msperf_value_new (MSPERF_VALUE_NONE));
  if (d->log_space)
    {
      msperf_value_map_set (m, "space", msperf_value_new_string ("log"));
      if (d->sqrt_seq_ignored)
        msperf_value_map_set (m, "axis_transform_ignored", msperf_value_new_string ("sqrt_seq"));
    }
  if (d->seq_block)
    {
      msperf_value_map_set (m, "seq_block", msperf_value_new_int (d->seq_block));
      if (d->seq_rounded)
        msperf_value_map_set (m, "seq_rounded_from", old_number (d->seq_rounded_from));
    }
  msperf_value_map_set (m, "query_mode", msperf_value_new_string (d->query_mode));
  msperf_value_map_set (m, "fallback_reasons", reasons);
  if (d->base_reason)
    msperf_value_map_set (m, "base_reason", msperf_value_new_string (d->base_reason));
  return m;
}

/* ------------------------------------------------------------------ the cases */

static char *
fmt (const msperf_value *v)
{
  GString *s = g_string_new (NULL);

  msperf_fmt_json_value (s, v, -1, 0);
  return g_string_free (s, FALSE);
}

/* A 3-D answer over four bucket axes (one pinned), two exact fields; variant bits switch the
 * optional keys and the odd values on. */
static void
fill (msperf_interp_details *d, unsigned variant, char *scratch, GPtrArray *reasons)
{
  static const char *const names[] = { "M", "K", "N", "batch" };

  memset (d, 0, sizeof *d);
  d->kernel = variant & 1 ? "MatMulV2" : NULL;
  d->method = variant & 2 ? "griddata_linear_log" : "griddata_linear";
  d->dim = 3;
  d->n_axes = 4;
  for (size_t a = 0; a < 4; a++)
    d->axis_names[a] = names[a];
  d->target[0] = 136;
  d->target[1] = variant & 4 ? 5120.5 : 5120;
  d->target[2] = 1e17;                       /* integral beyond 2^53: printed as a double */
  d->target[3] = variant & 8 ? NAN : 2;      /* unknown pinned axis: null */
  d->axes[0] = 2;                            /* group order differs from bucket order */
  d->axes[1] = 0;
  d->axes[2] = 1;
  for (int j = 0; j < 3; j++)
    {
      d->lo[j] = 1.0 + j;
      d->hi[j] = j == 1 ? 0.1 : 4096.0 * (j + 1);
    }
  d->n_points = 4;
  for (size_t k = 0; k < 4; k++)
    {
      for (int j = 0; j < 3; j++)
        d->point_axes[k][j] = (double) (k + 1) * 64 + (j == 2 ? 0.25 : 0);
      d->point_latency[k] = 10.0 / (double) (k + 3);
      d->point_weight[k] = 0.25 + (double) k * 1e-17;
    }
  d->have_weights = (variant & 16) != 0;
  d->n_fields = 2;
  d->field_names[0] = "dtype";
  d->fields[0] = 27;
  d->field_names[1] = "format";
  d->fields[1] = -1;
  d->candidate_count = 35700;
  d->raw_count = 35712;
  d->aggregated_count = 12;
  d->dropped_count = 0;
  d->aggregate = "median";
  d->confidence = 0.6;
  d->fallback_from = variant & 32 ? "exact" : NULL;
  d->regime = "bfloat16|ND";
  d->regime_group = variant & 64 ? "ND,NZ" : (variant & 128 ? "" : NULL);
  d->transformed = (variant & 256) != 0;
  d->log_space = (variant & 2) != 0;
  d->sqrt_seq_ignored = (variant & 2) && (variant & 512);
  d->seq_block = variant & 1024 ? 128 : 0;
  d->seq_rounded = (variant & 1024) && (variant & 1);
  d->seq_rounded_from = 1000;
  d->query_mode = "compute";
  g_ptr_array_set_size (reasons, 0);
  if (variant & 2048)
    {
      g_ptr_array_add (reasons, (gpointer) "3d(M,K,N): outside_hull");
      g_ptr_array_add (reasons, (gpointer) "2d(K,N): \"quoted\"\n");
    }
  d->n_reasons = reasons->len;
  d->reasons = (const char *const *) reasons->pdata;
  if (variant & 4096)
    {
      g_snprintf (scratch, 64, "exact miss: padding %u", variant);
      d->base_reason = scratch;
    }
}

static void
test_record_equals_old_layout (void **state)
{
  g_autoptr (GPtrArray) reasons = g_ptr_array_new ();

  (void) state;
  for (unsigned variant = 0; variant < 8192; variant += 1 + variant % 7)
    {
      msperf_interp_details d;
      char scratch[64];
      msperf_result *r = msperf_result_new ();
      g_autofree char *printed = NULL, *built = NULL;
      GString *s = g_string_new (NULL);

      fill (&d, variant, scratch, reasons);
      msperf_interp_details_defer (r, &d);
      /* the record copied every string: scribble over the caller's */
      memset (scratch, 'x', sizeof scratch - 1);
      scratch[sizeof scratch - 1] = '\0';
      g_ptr_array_set_size (reasons, 0);
      msperf_result_details_json (r, s, NULL, NULL);
      printed = g_string_free (s, FALSE);
      built = fmt (msperf_result_details (r));
      if (variant & 4096)
        assert_null (strstr (printed, "xxxx"));
      assert_string_equal (printed, built);
      fill (&d, variant, scratch, reasons);   /* the reference again, with the real strings */
      {
        g_autoptr (msperf_value) again = old_layout (&d);
        g_autofree char *again_text = fmt (again);
        assert_string_equal (built, again_text);
      }
      msperf_result_free (r);
    }
}

/* One key (msperf_result_detail_dup: the probe-then-tree path) and key subsets of a record
 * still in its compact form give the values of the full tree, for every key the record has and
 * for keys it lacks: the emitter skips whole containers the sink does not want
 * (msperf_detail_sink_wants), which must never drop or add a value. */
static void
test_one_key_and_subsets_match_the_tree (void **state)
{
  static const char *const absent[] = { "absent", "weight", "M", "latency_us", NULL };
  g_autoptr (GPtrArray) reasons = g_ptr_array_new ();

  (void) state;
  for (unsigned variant = 0; variant < 8192; variant += 1 + variant % 13)
    {
      msperf_interp_details d;
      char scratch[64];
      msperf_result *full = msperf_result_new (), *r = msperf_result_new ();
      const msperf_value *tree;

      fill (&d, variant, scratch, reasons);
      msperf_interp_details_defer (full, &d);
      msperf_interp_details_defer (r, &d);
      tree = msperf_result_details (full);
      for (guint k = 0; k < tree->keys->len; k++)
        {
          const char *key = g_ptr_array_index (tree->keys, k);
          const char *pair[] = { key, tree->keys->pdata[(k + 3) % tree->keys->len], NULL };
          g_autoptr (msperf_value) one = msperf_result_detail_dup (r, key);
          g_autoptr (msperf_value) sub = msperf_result_details_subset (r, pair);
          g_autofree char *want = fmt (g_ptr_array_index (tree->items, k));
          g_autofree char *got = NULL;

          assert_non_null (one);
          got = fmt (one);
          assert_string_equal (got, want);
          assert_true (sub->keys->len == (strcmp (pair[0], pair[1]) == 0 ? 1u : 2u));
          for (guint j = 0; j < sub->keys->len; j++)
            {
              g_autofree char *a = fmt (g_ptr_array_index (sub->items, j));
              g_autofree char *b
                = fmt (msperf_value_lookup (tree, g_ptr_array_index (sub->keys, j)));
              assert_string_equal (a, b);
            }
        }
      for (guint k = 0; absent[k]; k++)
        assert_null (msperf_result_detail_dup (r, absent[k]));
      msperf_result_free (full);
      msperf_result_free (r);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_record_equals_old_layout),
    cmocka_unit_test (test_one_key_and_subsets_match_the_tree),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
