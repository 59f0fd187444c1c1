/* msperf module "compute" — exact-key candidates (see compute_keys.h).
 *
 * Why element counts: every non-padding shape rule of reference §2.4 (identity, batch strip,
 * singleton transpose, transposes, flatten, merge) and the FRACTAL_NZ restore permute, drop
 * unit dims from, or multiply together the same dims, so a row matching without padding has,
 * input by input, the element count of the query's input. A padding rule only grows the query
 * side: per dim the row holds c with t = ceil(c/bs)·bs, bs in {8, 16, 32, 64}, so
 * t - 63 <= c <= t, and c == t unless t is a multiple of 8. */
#include <config.h>
#include <string.h>
#include "compute_keys.h"
#include "compute_match.h"

static uint64_t
sat_mul (uint64_t a, uint64_t b)
{
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* Smallest row dim c that equals TC dim t or is block-padded to it (msperf_is_block_padded:
 * t = ceil(c/bs)·bs for a bs in {8, 16, 32, 64} dividing t, so c > t - bs; bs 8 only for
 * c >= 64). t > 0. */
static int64_t
dim_floor (int64_t t)
{
  static const int64_t block_sizes[] = { 8, 16, 32, 64 };
  int64_t lo = t;

  for (size_t k = 0; k < G_N_ELEMENTS (block_sizes); k++)
    {
      int64_t bs = block_sizes[k];
      int64_t c = t > bs ? t - bs + 1 : 1;

      if (t % bs != 0)
        continue;
      if (bs == 8 && c < 64)
        c = 64;
      if (c <= t)
        lo = MIN (lo, c);
    }
  return lo;
}

/* Smallest element count a row dim list can have against the TC dims d[0..n), per dim the
 * smallest dim that pads to it. */
static uint64_t
padded_floor (const int64_t *d, int n)
{
  uint64_t p = 1;

  for (int k = 0; k < n; k++)
    p = sat_mul (p, (uint64_t) dim_floor (d[k]));
  return p;
}

/* Lower bound of a row slot's key for any match of the TC input t0 (the same rules apply to
 * every input): the minimum over the shapes the rules compare against the row (t0 or its
 * strip, and the 3-D folds). Dims are positive here (checked by the caller). */
static uint64_t
input_floor (const msperf_tensor *t0)
{
  msperf_tensor st;
  const msperf_tensor *t3;
  uint64_t lb = padded_floor (t0->dims, t0->rank);

  msperf_shape_strip (t0, &st);
  t3 = st.rank == 3 ? &st : t0->rank == 3 ? t0 : NULL;
  if (t3 != NULL)
    {
      int64_t flat[2], merged[2];
      uint64_t ab = sat_mul ((uint64_t) t3->dims[0], (uint64_t) t3->dims[1]);
      uint64_t bc = sat_mul ((uint64_t) t3->dims[1], (uint64_t) t3->dims[2]);

      /* An overflowing fold never matches (fold_3d); clamping keeps the bound a lower one. */
      flat[0] = ab > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) ab;
      flat[1] = t3->dims[2];
      merged[0] = t3->dims[0];
      merged[1] = bc > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) bc;
      lb = MIN (lb, padded_floor (flat, 2));
      lb = MIN (lb, padded_floor (merged, 2));
    }
  return lb;
}

/* The slot of a row that can match TC input t (dims > 0) at all: its key between the padded
 * floor and t's own; unless the kernel folds 3-D inputs (products of dims), its largest ND dim
 * between the largest per-dim floor and the largest dim of t's strip, its smallest at most the
 * strip's smallest. Why: the other rules keep the dims (up to a leading 1), and padding keeps
 * every row dim c_d in [floor(t_d), t_d] position by position, which bounds the sorted dims. */
static void
slot_bounds (const msperf_tensor *t, gboolean folds, msperf_slot_bounds *b)
{
  msperf_tensor st;

  msperf_slot_bounds_init (b);
  b->numel_lo = input_floor (t);
  b->numel_hi = msperf_tensor_numel_key (t);
  msperf_shape_strip (t, &st);
  if (folds || st.rank == 0)
    return;
  b->max_dim_lo = 0;
  b->max_dim_hi = 0;
  b->min_dim_hi = INT64_MAX;
  for (int k = 0; k < st.rank; k++)
    {
      b->max_dim_lo = MAX (b->max_dim_lo, dim_floor (st.dims[k]));
      b->max_dim_hi = MAX (b->max_dim_hi, st.dims[k]);
      b->min_dim_hi = MIN (b->min_dim_hi, st.dims[k]);
    }
}

gboolean
compute_keys_candidates (const char *kernel, const msperf_table *t, const msperf_tensor *tc,
                         size_t n_tc, int64_t tc_input_count, compute_keys_scope scope,
                         GArray *rows)
{
  uint64_t key0, keys[8];
  size_t n_keys, start;

  g_return_val_if_fail (kernel != NULL && t != NULL && rows != NULL, FALSE);
  if (n_tc == 0 || tc == NULL || tc_input_count == 0 || compute_kernel_rewrites_inputs (kernel))
    return FALSE;
  /* A dim <= 0 could equal a row's (or be block-padded from it) in ways the keys ignore. */
  for (size_t i = 0; i < n_tc; i++)
    for (int k = 0; k < tc[i].rank; k++)
      if (tc[i].dims[k] <= 0)
        return FALSE;

  key0 = msperf_tensor_numel_key (&tc[0]);
  if (scope == COMPUTE_KEYS_ANY)
    {
      /* Any input may be padded: each of the first two inputs bounds its slot; with two TC
       * inputs a matching row has a second slot (numel_lo >= 1). Index order, not row order. */
      gboolean folds = compute_kernel_folds (kernel);
      msperf_slot_bounds b[2];

      for (size_t i = 0; i < MIN (n_tc, 2); i++)
        slot_bounds (&tc[i], folds, &b[i]);
      msperf_table_rows_by_input_bounds (t, &b[0], n_tc >= 2 ? &b[1] : NULL, rows);
      return TRUE;
    }

  start = rows->len;
  /* Unpadded: every input's key and the slot count must agree as well. */
  n_keys = MIN (n_tc, G_N_ELEMENTS (keys));
  for (size_t i = 0; i < n_keys; i++)
    keys[i] = msperf_tensor_numel_key (&tc[i]);
  /* With two or more TC inputs a matching row has a second slot of the second key: the
   * index's (key0, key1) run holds exactly those rows (a matmul's K×N run instead of every
   * row of the M×K run, doc/performance.md); the loop below checks the rest. */
  if (n_tc >= 2)
    msperf_table_rows_by_input_numels (t, key0, keys[1], rows);
  else
    {
      /* One key but possibly several second-key runs: the bounds form, which does not sort. */
      msperf_slot_bounds b0;

      msperf_slot_bounds_init (&b0);
      b0.numel_lo = b0.numel_hi = key0;
      msperf_table_rows_by_input_bounds (t, &b0, NULL, rows);
    }
  {
    size_t kept = start;

    for (size_t k = start; k < rows->len; k++)
      {
        size_t row = g_array_index (rows, size_t, k);
        const msperf_slots *s = msperf_table_row_inputs (t, row);
        size_t n_csv = msperf_input_count_limit (s->n, tc_input_count);
        gboolean ok = n_csv == n_tc;

        for (size_t i = 1; ok && i < n_keys; i++)
          ok = msperf_tensor_numel_key (&s->t[i]) == keys[i];
        if (ok)
          g_array_index (rows, size_t, kept++) = row;
      }
    g_array_set_size (rows, (guint) kept);
  }
  return TRUE;
}
