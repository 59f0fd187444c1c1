/* msperf broadcast_att — BroadcastExtend as the kernel computes it (reference att-model.md
 * §4.3–§4.6): the tiling (axis kinds, rank > 4 merging, the 8-byte expansion and loopNum,
 * strides), the top-level dispatch (Copy / Duplicate / Last / NLast, the constRank-4
 * leading-1 skip) and the wrapper conditions with their dynamic fallback. */
#include <config.h>
#include <string.h>
#include "brc_model.h"

gboolean
brc_types_init (brc_types *ty, const msperf_att_table *table, const char *dtype, GError **error)
{
  int64_t size = 0;

  memset (ty, 0, sizeof *ty);
  if (strcmp (dtype, "int4") == 0 || !msperf_att_table_dtype_size (table, dtype, &size)
      || (size != 1 && size != 2 && size != 4 && size != 8))
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "BroadcastExtend: dtype %s is not supported (1-, 2-, 4- or 8-byte types)",
                   dtype);
      return FALSE;
    }
  ty->t = dtype;
  ty->size = size;
  /* BrcT: the unsigned type of the same size; 8-byte data runs as pairs of uint32 */
  ty->brc_size = size == 8 ? 4 : size;
  ty->brc = ty->brc_size == 1 ? "uint8" : ty->brc_size == 2 ? "uint16" : "uint32";
  ty->vf = 256 / ty->brc_size;
  ty->half = ty->vf / 2;
  ty->blk = 32 / ty->brc_size;
  ty->b8 = ty->brc_size == 1;
  /* §4.9: signed generators, unsigned consumers; b8 index arithmetic runs on uint16 */
  ty->gen_index = ty->brc_size <= 2 ? "int16" : "int32";
  ty->index = ty->brc_size <= 2 ? "uint16" : "uint32";
  ty->index_math = ty->index;
  ty->gather_perf = ty->b8 ? "uint16" : ty->brc;
  return TRUE;
}

typedef struct {
  brc_run *run;
  const brc_types *ty;
  brc_leaf_ctx leaf;
  int K;                        /* constRank: the number of shape entries */
  int dim;                      /* tiling rank */
  msperf_expr *D[BRC_MAX_RANK + 1], *S[BRC_MAX_RANK + 1];
  gboolean brc[BRC_MAX_RANK + 1];
  msperf_expr *dst_stride[BRC_MAX_RANK + 1], *src_stride[BRC_MAX_RANK + 1];
  msperf_expr *src_size, *dst_size;
  msperf_expr *orig_src0;
  msperf_expr *loop_num;        /* NULL when loopNum == 0 */
} tiling;

static msperf_expr *
I (tiling *t, int64_t v)
{
  return msperf_expr_int (t->run->ctx, v);
}

static void
branch (tiling *t, const char *name)
{
  g_string_append_printf (t->run->branch, "%s%s", t->run->branch->len > 0 ? "/" : "", name);
}

/* "broadcast axis" (B): src == 1 and dst != 1; else a kept axis (E: src == dst, the
 * precondition of the parameters). One decision per axis — the real B/E space, 2 states:
 * - the same expression: E without asking;
 * - src the number 1: B exactly when dst != 1 (IsEqual(dst, 1) on a symbolic dst);
 * - src a symbol: B exactly when src < dst (src is 1 or dst, and dst >= 1), so src == 1 and
 *   dst == 1 is not a third state. A numeric dst 1 leaves only E. */
static gboolean
axis_is_broadcast (brc_run *run, const msperf_expr *d, const msperf_expr *s)
{
  if (msperf_expr_equal (d, s))
    return FALSE;
  if (msperf_expr_is_number (s))
    return !brc_eq_int (run, d, 1);
  if (msperf_expr_is_number (d) && brc_eq_int (run, d, 1))
    return FALSE;
  return brc_decide (run, MSPERF_COND_LT, s, d);
}

/* ---------------------------------------------------------------- wrappers */

static void
leaf (tiling *t, brc_leaf_kind kind, int n, msperf_expr *const *s)
{
  brc_leaf (&t->leaf, kind, n, s);
}

/* Each wrapper returns TRUE for "fallback" (dynamic mode only). */
static gboolean
last_wrap_2d (tiling *t, msperf_expr *const *s, gboolean dyn)
{
  brc_run *run = t->run;
  const brc_types *ty = t->ty;

  branch (t, "LastWrap2D");
  if (!ty->b8 && brc_eq_int (run, s[1], ty->blk))
    {
      branch (t, "BrcLastE2B2D");
      brc_leaf_last_e2b_2d (&t->leaf, s[0], s[1]);
    }
  else if (brc_lt_int (run, s[1], ty->half))
    brc_leaf_gather_2d (&t->leaf, TRUE, s[0], s[1]);
  else if (brc_le_int (run, s[1], ty->vf))
    leaf (t, BRC_LAST_LESS_UNALIGNED, 2, s);
  else if (brc_divisible (run, s[1], ty->blk))
    leaf (t, BRC_LAST_LARGER_ALIGNED, 2, s);
  else if (dyn)
    return TRUE;
  else
    leaf (t, BRC_LAST_LARGER_UNALIGNED, 2, s);
  return FALSE;
}

static gboolean
last_wrap_3d (tiling *t, msperf_expr *const *s, msperf_expr *const *st, const gboolean *brc,
              gboolean dyn)
{
  brc_run *run = t->run;
  const brc_types *ty = t->ty;

  branch (t, "LastWrap3D");
  if (!ty->b8 && brc_eq_int (run, s[2], ty->blk)
      && brc_gt_int (run, msperf_expr_mul (s[1], s[2]), ty->half)
      && brc_divisible (run, s[1], 8) && !brc[1])
    {
      if (brc_gt_int (run, msperf_expr_mul (s[1], s[2]), ty->vf))
        {
          branch (t, "BrcLastE2BLargerThanVL");
          brc_leaf_last_e2b_larger (&t->leaf, s[0], s[1], s[2]);
        }
      else
        {
          branch (t, "BrcLastE2BLessThanVL");
          brc_leaf_last_e2b_less (&t->leaf, s[0]);
        }
    }
  else if (brc_lt_int (run, s[2], ty->half))
    brc_gather_wrapper (&t->leaf, 3, s, st);
  else if (brc_le_int (run, s[2], ty->vf))
    {
      if (brc_divisible (run, s[2], ty->blk))
        leaf (t, BRC_LAST_LESS_ALIGNED, 3, s);
      else if (dyn)
        return TRUE;
      else
        leaf (t, BRC_LAST_LESS_UNALIGNED, 3, s);
    }
  else if (brc_divisible (run, s[2], ty->blk))
    leaf (t, BRC_LAST_LARGER_ALIGNED, 3, s);
  else if (dyn)
    return TRUE;
  else
    leaf (t, BRC_LAST_LARGER_UNALIGNED, 3, s);
  return FALSE;
}

static gboolean
last_wrap_4d (tiling *t, msperf_expr *const *s, msperf_expr *const *st, const gboolean *brc,
              gboolean dyn)
{
  brc_run *run = t->run;
  const brc_types *ty = t->ty;

  branch (t, "LastWrap4D");
  if (!ty->b8 && brc_eq_int (run, s[3], ty->blk) && !brc[2] && brc_divisible (run, s[2], 8))
    {
      branch (t, "BrcLastE2B4D");
      brc_leaf_last_e2b_4d (&t->leaf, s[0], s[1], s[2], s[3]);
    }
  else if (!ty->b8 && brc_lt_int (run, s[3], ty->half))
    brc_gather_wrapper (&t->leaf, 4, s, st);
  else if (brc_le_int (run, s[3], ty->vf))
    {
      if (brc_divisible (run, s[3], ty->blk))
        leaf (t, BRC_LAST_LESS_ALIGNED, 4, s);
      else if (dyn)
        return TRUE;
      else
        leaf (t, BRC_LAST_LESS_UNALIGNED, 4, s);
    }
  else if (brc_divisible (run, s[3], ty->blk))
    leaf (t, BRC_LAST_LARGER_ALIGNED, 4, s);
  else if (dyn)
    return TRUE;
  else
    leaf (t, BRC_LAST_LARGER_UNALIGNED, 4, s);
  return FALSE;
}

static gboolean
nlast_wrap_2d (tiling *t, msperf_expr *const *s, gboolean dyn)
{
  brc_run *run = t->run;
  const brc_types *ty = t->ty;

  branch (t, "NlastWrap2D");
  if (brc_lt_int (run, s[1], ty->half))
    {
      if (brc_divisible (run, s[1], ty->blk))
        brc_leaf_gather_b_2d (&t->leaf, s[0], s[1]);
      else
        brc_leaf_gather_2d (&t->leaf, FALSE, s[0], s[1]);
    }
  else if (brc_le_int (run, s[1], ty->vf))
    leaf (t, BRC_NLAST_LESS_UNALIGNED, 2, s);
  else if (brc_divisible (run, s[1], ty->blk))
    {
      if (brc_divisible (run, s[1], ty->vf) && brc_gt_int (run, s[0], 8))
        leaf (t, BRC_NLAST_LARGER_WITH_VL, 2, s);
      else
        leaf (t, BRC_NLAST_LARGER_WITH_BLOCK, 2, s);
    }
  else if (dyn)
    return TRUE;
  else
    leaf (t, BRC_NLAST_LARGER_UNALIGNED, 2, s);
  return FALSE;
}

static gboolean
nlast_wrap_3d (tiling *t, msperf_expr *const *s, msperf_expr *const *st, gboolean dyn)
{
  brc_run *run = t->run;
  const brc_types *ty = t->ty;

  branch (t, "NlastWrap3D");
  if (brc_lt_int (run, s[2], ty->half))
    brc_gather_wrapper (&t->leaf, 3, s, st);
  else if (brc_le_int (run, s[2], ty->vf))
    leaf (t, BRC_NLAST_LESS_UNALIGNED, 3, s);   /* no aligned variant */
  else if (brc_divisible (run, s[2], ty->blk))
    leaf (t, brc_divisible (run, s[2], ty->vf) ? BRC_NLAST_LARGER_WITH_VL
                                                : BRC_NLAST_LARGER_WITH_BLOCK, 3, s);
  else if (dyn)
    return TRUE;
  else
    leaf (t, BRC_NLAST_LARGER_UNALIGNED, 3, s);
  return FALSE;
}

static gboolean
nlast_wrap_4d (tiling *t, msperf_expr *const *s, msperf_expr *const *st, gboolean dyn)
{
  brc_run *run = t->run;
  const brc_types *ty = t->ty;

  branch (t, "NlastWrap4D");
  if (!ty->b8 && brc_lt_int (run, s[3], ty->half))
    brc_gather_wrapper (&t->leaf, 4, s, st);
  else if (brc_le_int (run, s[3], ty->vf))
    {
      if (brc_divisible (run, s[3], ty->blk))
        leaf (t, BRC_NLAST_LESS_ALIGNED, 4, s);
      else if (dyn)
        return TRUE;
      else
        leaf (t, BRC_NLAST_LESS_UNALIGNED, 4, s);
    }
  else if (brc_divisible (run, s[3], ty->blk))
    leaf (t, brc_divisible (run, s[3], ty->vf) ? BRC_NLAST_LARGER_WITH_VL
                                                : BRC_NLAST_LARGER_WITH_BLOCK, 4, s);
  else if (dyn)
    return TRUE;
  else
    leaf (t, BRC_NLAST_LARGER_UNALIGNED, 4, s);
  return FALSE;
}

/* 8-byte T, constRank 4, dim 5: GatherWrapperForFourDim once per D[0]. */
static void
nlast_more_dim (tiling *t)
{
  msperf_expr *saved = t->run->mult;

  branch (t, "NlastMoreDim");
  t->run->mult = msperf_expr_mul (saved, t->D[0]);
  brc_gather_wrapper (&t->leaf, 4, t->D + 1, t->src_stride + 1);
  t->run->mult = saved;
}

/* LastMoreDimDynamic / NlastMoreDimDynamic over max(loopNum, 1) · Π D[0 .. dim−5]. */
static void
more_dim_dynamic (tiling *t, gboolean last)
{
  brc_run *run = t->run;
  const brc_types *ty = t->ty;
  msperf_expr *saved = run->mult;
  msperf_expr *outer = t->loop_num != NULL ? t->loop_num : I (t, 1);
  msperf_expr *size[4], *stride[4];

  branch (t, last ? "LastMoreDimDynamic" : "NlastMoreDimDynamic");
  for (int i = 0; i < t->dim - 4; i++)
    outer = msperf_expr_mul (outer, t->D[i]);
  for (int k = 0; k < 4; k++)
    {
      int i = t->dim - 4 + k;
      size[k] = i >= 0 ? t->D[i] : I (t, 1);
      stride[k] = i >= 0 ? t->src_stride[i] : I (t, 0);
    }
  /* the outer offsets come from the tiling's const uint32_t* strides: uint32, which dstSize
   * <= UINT32_MAX already bounds (no 16-bit limit here) */
  run->mult = msperf_expr_mul (saved, outer);
  if (last)
    leaf (t, brc_le_int (run, size[3], ty->vf) ? BRC_LAST_LESS_UNALIGNED
                                               : BRC_LAST_LARGER_UNALIGNED, 4, size);
  else if (!ty->b8 && brc_lt_int (run, size[3], ty->half))
    brc_gather_wrapper (&t->leaf, 4, size, stride);
  else if (brc_le_int (run, size[3], ty->vf))
    leaf (t, brc_divisible (run, size[3], ty->blk) ? BRC_NLAST_LESS_ALIGNED
                                                   : BRC_NLAST_LESS_UNALIGNED, 4, size);
  else
    /* the dynamic large aligned leaf is always WithBlock (seed FR3) */
    leaf (t, brc_divisible (run, size[3], ty->blk) ? BRC_NLAST_LARGER_WITH_BLOCK
                                                   : BRC_NLAST_LARGER_UNALIGNED, 4, size);
  run->mult = saved;
}

/* ---------------------------------------------------------------- dispatch */

static void
dispatch (tiling *t)
{
  brc_run *run = t->run;
  gboolean last = t->brc[t->dim - 1];
  gboolean eight = t->ty->size == 8;
  gboolean fb = FALSE;
  msperf_expr **D = t->D, **st = t->src_stride;

  branch (t, last ? "Last" : "NLast");
  /* Limits per real consumer: every size is a uint16 wrapper size or loop count; the strides
   * of the (at most four) wrapper axes are uint16 wrapper arguments, while the outer strides of
   * the more-dim loops (axes before the last four) are read as uint32. */
  for (int i = 0; i < t->dim; i++)
    {
      brc_check_max (run, D[i], G_MAXUINT16, "a tiling dstShape entry (uint16 wrapper size)");
      if (i >= t->dim - 4)
        brc_check_max (run, st[i], G_MAXUINT16, "a wrapper srcStride entry (uint16)");
      else
        brc_check_max (run, st[i], G_MAXUINT32, "a more-dim srcStride entry (uint32)");
    }
  if (t->loop_num != NULL)
    brc_check_max (run, t->loop_num, G_MAXUINT16, "loopNum (uint16 loop of the 8-byte rank-9 "
                   "tiling)");
  switch (t->K)
    {
    case 2:
      if (last)
        last_wrap_2d (t, D, FALSE);
      else if (eight && t->dim != 2)
        nlast_wrap_3d (t, D, st, FALSE);
      else
        nlast_wrap_2d (t, D, FALSE);
      return;
    case 3:
      if (last)
        last_wrap_3d (t, D, st, t->brc, FALSE);
      else if (eight && t->dim != 3)
        nlast_wrap_4d (t, D, st, FALSE);
      else
        nlast_wrap_3d (t, D, st, FALSE);
      return;
    case 4:
      if (eight && !last)
        {
          if (t->dim != 4)
            nlast_more_dim (t);
          else
            nlast_wrap_4d (t, D, st, FALSE);
        }
      /* constRank 4 with a leading 1 in dst and in the original src: the 3-D wrapper */
      else if (brc_eq_int (run, D[0], 1) && brc_eq_int (run, t->orig_src0, 1))
        {
          branch (t, "SkipLeading1");
          if (last)
            last_wrap_3d (t, D + 1, st + 1, t->brc + 1, FALSE);
          else
            nlast_wrap_3d (t, D + 1, st + 1, FALSE);
        }
      else if (last)
        last_wrap_4d (t, D, st, t->brc, FALSE);
      else
        nlast_wrap_4d (t, D, st, FALSE);
      return;
    default:
      break;
    }
  /* constRank 1 and 5..9: the wrappers run with template rank −1 (dynamic) */
  if (t->dim == 2)
    fb = last ? last_wrap_2d (t, D, TRUE) : nlast_wrap_2d (t, D, TRUE);
  else if (t->dim == 3)
    fb = last ? last_wrap_3d (t, D, st, t->brc, TRUE) : nlast_wrap_3d (t, D, st, TRUE);
  else if (t->dim == 4)
    fb = last ? last_wrap_4d (t, D, st, t->brc, TRUE) : nlast_wrap_4d (t, D, st, TRUE);
  else
    fb = TRUE;
  if (fb)
    more_dim_dynamic (t, last);
}

static void
prelude (brc_run *run, const char *t)
{
  /* CheckTensorPos<T> and the top-level GetPhyAddr: once per BroadcastExtend, original T */
  static const char *const slots[][2] = {
    { "BroadcastExtend.CheckTensorPosDst", "CheckTensorPos" },
    { "BroadcastExtend.CheckTensorPosSrc", "CheckTensorPos" },
    { "BroadcastExtend.GetPhyAddrDst", "GetPhyAddr" },
    { "BroadcastExtend.GetPhyAddrSrc", "GetPhyAddr" },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (slots); i++)
    brc_emit_n (run, slots[i][0], slots[i][1], t, NULL, NULL, 1, t);
}

static void
extend (brc_run *run, const brc_params *p, const brc_types *ty)
{
  tiling t = { 0 };
  int K = (int) p->dst_shapes->len;
  gboolean ax_brc[BRC_MAX_RANK], has_brc = FALSE, all_one = TRUE;
  msperf_expr *src[BRC_MAX_RANK] = { 0 };
  int r;

  t.run = run;
  t.ty = ty;
  t.leaf.run = run;
  t.leaf.ty = ty;
  t.K = K;
  t.src_size = I (&t, 1);
  t.dst_size = I (&t, 1);
  prelude (run, ty->t);
  for (int i = 0; i < K; i++)
    {
      msperf_expr *d = g_ptr_array_index (p->dst_shapes, i);
      ax_brc[i] = axis_is_broadcast (run, d, g_ptr_array_index (p->src_shapes, i));
      /* the decided src entry: 1 on a B axis, dst on an E axis (a symbolic src leaves the
       * model here, so no later condition branches on it again) */
      src[i] = ax_brc[i] ? I (&t, 1) : d;
      has_brc |= ax_brc[i];
      t.src_size = msperf_expr_mul (t.src_size, src[i]);
      t.dst_size = msperf_expr_mul (t.dst_size, d);
    }
  t.orig_src0 = src[0];
  brc_check_max (run, t.dst_size, G_MAXUINT32, "dstSize (uint32)");
  /* srcSize == dstSize exactly when no axis is broadcast */
  if (!has_brc)
    {
      branch (&t, "Copy");
      brc_leaf_copy (&t.leaf, t.dst_size);
      return;
    }
  /* srcSize == 1 exactly when every src entry is 1; 8-byte T doubled it in the tiling */
  for (int i = 0; i < K && all_one; i++)
    all_one = ax_brc[i] || brc_eq_int (run, src[i], 1);
  if (all_one && ty->size != 8)
    {
      branch (&t, "Duplicate");
      brc_leaf_duplicate (&t.leaf, t.dst_size);
      return;
    }
  /* 1. axis merge for constRank > 4: maximal runs of one kind become one axis */
  r = 0;
  for (int i = 0; i < K; i++)
    {
      msperf_expr *d = g_ptr_array_index (p->dst_shapes, i);
      msperf_expr *s = src[i];
      if (K > 4 && r > 0 && t.brc[r - 1] == ax_brc[i])
        {
          t.D[r - 1] = msperf_expr_mul (t.D[r - 1], d);
          if (!ax_brc[i])
            t.S[r - 1] = msperf_expr_mul (t.S[r - 1], s);
          continue;
        }
      t.D[r] = d;
      t.S[r] = ax_brc[i] ? I (&t, 1) : s;
      t.brc[r] = ax_brc[i];
      r++;
    }
  /* 2. 8-byte elements run as pairs of uint32 */
  if (ty->size == 8)
    {
      if (t.brc[r - 1])
        {
          if (r < BRC_MAX_RANK)
            {
              t.D[r] = t.S[r] = I (&t, 2);
              t.brc[r] = FALSE;
              r++;
            }
          else
            t.loop_num = t.D[0];
        }
      else
        {
          t.D[r - 1] = msperf_expr_mul (t.D[r - 1], I (&t, 2));
          t.S[r - 1] = msperf_expr_mul (t.S[r - 1], I (&t, 2));
        }
      t.src_size = msperf_expr_mul (t.src_size, I (&t, 2));
      t.dst_size = msperf_expr_mul (t.dst_size, I (&t, 2));
      brc_check_max (run, t.dst_size, G_MAXUINT32, "dstSize in uint32 elements (uint32)");
    }
  /* 3. nine alternating axes of 8-byte T: axis 0 becomes the outer loop */
  if (t.loop_num != NULL)
    {
      for (int i = 0; i < BRC_MAX_RANK - 1; i++)
        {
          t.D[i] = t.D[i + 1];
          t.S[i] = t.S[i + 1];
          t.brc[i] = t.brc[i + 1];
        }
      t.D[BRC_MAX_RANK - 1] = t.S[BRC_MAX_RANK - 1] = I (&t, 2);
      t.brc[BRC_MAX_RANK - 1] = FALSE;
    }
  t.dim = r;
  /* 4. strides, innermost outwards */
  {
    msperf_expr *dprod = I (&t, 1), *sprod = I (&t, 1);
    for (int i = r - 1; i >= 0; i--)
      {
        t.dst_stride[i] = dprod;
        t.src_stride[i] = t.brc[i] ? I (&t, 0) : sprod;
        dprod = msperf_expr_mul (dprod, t.D[i]);
        sprod = msperf_expr_mul (sprod, t.S[i]);
      }
  }
  dispatch (&t);
}

void
brc_model_run (brc_run *run, const brc_params *p)
{
  brc_types ty;
  GError *error = NULL;

  if (p->kind == BRC_DUPLICATE)
    {
      brc_duplicate_model (run, p);
      return;
    }
  if (!brc_types_init (&ty, run->table, p->dtype, &error))
    {
      brc_fail (run, "%s", error->message);
      g_error_free (error);
      return;
    }
  extend (run, p, &ty);
}
