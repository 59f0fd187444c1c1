/* msperf broadcast_att — the leaves of BroadcastExtend (reference att-model.md §4.7–§4.9, seed
 * FR4–FR6): every Reg/MicroAPI call of one `__simd_vf__` with its loop count, the gather
 * wrappers (index generation + gather, two launches), the UB→UB copy and the standalone
 * Duplicate. Counts are exact integer formulas of the loops: C integer division is
 * Floor(a / b), ⌈a/b⌉ is Ceiling(a / b).
 *
 * Call sites are "Helper.Slot", one row per source slot (seed FR5: 「每个源码 slot 独立成行，禁止跨
 * call_site 合并」): straight-line repeats of one API are numbered slots (VfGenIndex.Duplicate0
 * … Duplicate5), the two b8 index halves are Low/High slots, and a loop's main and tail calls are
 * separate rows (Main…/Tail…, Loop…/Tail…). A slot inside a loop has the loop count as its
 * call count. */
#include <config.h>
#include <string.h>
#include "brc_model.h"

#define RUN (c->run)
#define TY (c->ty)

static msperf_expr *
I (brc_leaf_ctx *c, int64_t v)
{
  return msperf_expr_int (RUN->ctx, v);
}

static msperf_expr *
mul (const msperf_expr *a, const msperf_expr *b)
{
  return msperf_expr_mul (a, b);
}

static msperf_expr *
mul3 (const msperf_expr *a, const msperf_expr *b, const msperf_expr *d)
{
  return msperf_expr_mul (msperf_expr_mul (a, b), d);
}

static msperf_expr *
plus (brc_leaf_ctx *c, const msperf_expr *a, int64_t k)
{
  return msperf_expr_add (a, I (c, k));
}

static msperf_expr *
cdiv (const msperf_expr *a, const msperf_expr *b)
{
  return msperf_expr_ceil_div (a, b);
}

static msperf_expr *
fdiv (const msperf_expr *a, const msperf_expr *b)
{
  return msperf_expr_floor_div (a, b);
}

static const char *
brc_load_mode (const brc_types *ty)
{
  return ty->brc_size == 1 ? "DIST_BRC_B8" : ty->brc_size == 2 ? "DIST_BRC_B16" : "DIST_BRC_B32";
}

static const char *
e2b_load_mode (const brc_types *ty)
{
  return ty->brc_size == 2 ? "DIST_E2B_B16" : "DIST_E2B_B32";
}

/* Shorthands for data calls on BrcT. */
static void
data (brc_leaf_ctx *c, const char *leaf, const char *slot, const char *api, const char *mode,
      const msperf_expr *count)
{
  g_autofree char *site = g_strdup_printf ("%s.%s", leaf, slot);

  brc_emit (RUN, site, api, TY->brc, NULL, mode, count, TY->brc);
}

static void
data_n (brc_leaf_ctx *c, const char *leaf, const char *slot, const char *api, const char *mode,
        int64_t n)
{
  data (c, leaf, slot, api, mode, I (c, n));
}

/* A call on the gather index (unsigned consumer dtype, or the signed generator dtype). */
static void
index_call (brc_leaf_ctx *c, const char *leaf, const char *slot, const char *api,
            const char *dtype, const char *mode, const msperf_expr *count)
{
  g_autofree char *site = g_strdup_printf ("%s.%s", leaf, slot);

  brc_emit (RUN, site, api, dtype, NULL, mode, count, dtype);
}

static void
gather_call (brc_leaf_ctx *c, const char *leaf, const char *slot, const char *api,
             const char *index, const msperf_expr *count)
{
  g_autofree char *site = g_strdup_printf ("%s.%s", leaf, slot);

  brc_emit (RUN, site, api, TY->brc, index, NULL, count,
            strcmp (api, "GatherB") == 0 ? TY->brc : TY->gather_perf);
}

/* ---------------------------------------------------------------- copy and duplicate */

void
brc_leaf_copy (brc_leaf_ctx *c, msperf_expr *dst_size)
{
  int64_t align = 32 / TY->size;
  msperf_expr *len = mul (cdiv (dst_size, I (c, align)), I (c, align));
  msperf_expr *per_vl = cdiv (len, I (c, 256 / TY->size));
  brc_call *call;

  /* AlignUp(dstSize, ONE_BLK_SIZE/sizeof(T)) adds align − 1 in uint32 (seed assumptions) */
  brc_check_max (RUN, dst_size, (int64_t) G_MAXUINT32 - (align - 1),
                 "dstSize of the DataCopy (AlignUp bound in uint32)");
  /* the UB→UB copy never enters the BrcT data path: the original dtype */
  call = brc_emit_external (RUN, "BroadcastExtend.DataCopy", "DataCopy", TY->t, "UB_TO_UB",
                            "copy_length", len);
  brc_call_component (RUN, call, "Load", TY->t, per_vl);
  brc_call_component (RUN, call, "Store", TY->t, per_vl);
}

void
brc_leaf_duplicate (brc_leaf_ctx *c, msperf_expr *n)
{
  msperf_expr *r = cdiv (n, I (c, TY->vf));

  /* the leaf counts its VL repeats in a uint16 repeatTimes (seed: 「限制按实际 consumer 应用」) */
  brc_check_max (RUN, r, G_MAXUINT16, "BrcDuplicate repeatTimes ⌈dstSize/VL⌉ (uint16)");
  data_n (c, "BrcDuplicate", "BrcLoad", "LoadAlign", brc_load_mode (TY), 1);
  data (c, "BrcDuplicate", "UpdateMask", "UpdateMask", NULL, r);
  data (c, "BrcDuplicate", "StoreAlign", "StoreAlign", "NORM", r);
  brc_add_launches (RUN, 1);
}

/* ---------------------------------------------------------------- E2B */

void
brc_leaf_last_e2b_2d (brc_leaf_ctx *c, msperf_expr *s0, msperf_expr *s1)
{
  msperf_expr *r = cdiv (s0, fdiv (I (c, TY->vf), s1));

  data (c, "BrcLastE2B2D", "UpdateMask", "UpdateMask", NULL, r);
  data (c, "BrcLastE2B2D", "E2bLoad", "LoadAlign", e2b_load_mode (TY), r);
  data (c, "BrcLastE2B2D", "StoreAlign", "StoreAlign", "NORM", r);
  brc_add_launches (RUN, 1);
}

void
brc_leaf_last_e2b_larger (brc_leaf_ctx *c, msperf_expr *s0, msperf_expr *s1, msperf_expr *s2)
{
  msperf_expr *n = mul (s0, cdiv (s1, fdiv (I (c, TY->vf), s2)));

  data (c, "BrcLastE2BLargerThanVL", "UpdateMask", "UpdateMask", NULL, n);
  data (c, "BrcLastE2BLargerThanVL", "E2bLoad", "LoadAlign", e2b_load_mode (TY), n);
  data (c, "BrcLastE2BLargerThanVL", "StoreAlign", "StoreAlign", "NORM", n);
  brc_add_launches (RUN, 1);
}

void
brc_leaf_last_e2b_less (brc_leaf_ctx *c, msperf_expr *s0)
{
  data_n (c, "BrcLastE2BLessThanVL", "UpdateMask", "UpdateMask", NULL, 1);
  data (c, "BrcLastE2BLessThanVL", "E2bLoad", "LoadAlign", e2b_load_mode (TY), s0);
  data (c, "BrcLastE2BLessThanVL", "StoreAlign", "StoreAlign", "NORM", s0);
  brc_add_launches (RUN, 1);
}

void
brc_leaf_last_e2b_4d (brc_leaf_ctx *c, msperf_expr *s0, msperf_expr *s1, msperf_expr *s2,
                      msperf_expr *s3)
{
  /* seed FR5: the three calls each run size0·size1·repeatTimes times */
  msperf_expr *n = mul3 (s0, s1, cdiv (s2, fdiv (I (c, TY->vf), s3)));

  data (c, "BrcLastE2B4D", "UpdateMask", "UpdateMask", NULL, n);
  data (c, "BrcLastE2B4D", "E2bLoad", "LoadAlign", e2b_load_mode (TY), n);
  data (c, "BrcLastE2B4D", "StoreAlign", "StoreAlign", "NORM", n);
  brc_add_launches (RUN, 1);
}

/* ---------------------------------------------------------------- 2-D gathers */

/* The largest gather index a 16-bit consumer (b8/b16 ordinary Gather) would receive. */
static void
check_index (brc_leaf_ctx *c, int n, msperf_expr *const *s, msperf_expr *const *st)
{
  msperf_expr *max = I (c, 0);

  if (strcmp (TY->index, "uint16") != 0)
    return;
  for (int k = 0; k < n; k++)
    max = msperf_expr_add (max, mul (plus (c, s[k], -1), st[k]));
  brc_check_max (RUN, max, G_MAXUINT16, "the largest Gather index (16-bit index consumer)");
}

static void
gen_index_2d (brc_leaf_ctx *c, gboolean last)
{
  const char *h = last ? "GenLastGatherIndex" : "GenNlastGatherIndex";
  const char *g = TY->gen_index;
  int64_t launches = TY->b8 ? 2 : 1;   /* b8: the index halves are generated apart */
  msperf_expr *n = I (c, launches);

  index_call (c, h, "CreateMask", "CreateMask", g, NULL, n);
  index_call (c, h, "Duplicate", "Duplicate", g, NULL, n);
  index_call (c, h, "Arange", "Arange", g, NULL, n);
  index_call (c, h, "Div", "Div", g, NULL, n);
  if (!last)
    {
      index_call (c, h, "Mul", "Mul", g, NULL, n);
      index_call (c, h, "Sub", "Sub", g, NULL, n);
    }
  index_call (c, h, "StoreAlign", "StoreAlign", g, "NORM", n);
  brc_add_launches (RUN, launches);
}

/* PopStackBuffer<T> and the address calls of the 2-D gathers (seed FR5 basic calls). */
static void
gather_2d_stack (brc_leaf_ctx *c, const char *wrap)
{
  data_n (c, wrap, "PopStackBuffer", "PopStackBuffer", NULL, 1);
  data_n (c, wrap, "GetPhyAddrIndexBase", "GetPhyAddr", NULL, 1);
  data_n (c, wrap, "GetPhyAddrSrcBase", "GetPhyAddr", NULL, 1);
  data_n (c, wrap, "GetPhyAddrIndexOffset", "GetPhyAddr", NULL, 1);
}

static void
gather_one (brc_leaf_ctx *c, const char *leaf)
{
  msperf_expr *one = I (c, 1);

  /* CreateMask<IndexT>: uint16 for b8 (seed FR6), BrcT otherwise */
  index_call (c, leaf, "CreateMask", "CreateMask", TY->index, NULL, one);
  index_call (c, leaf, "LoadIndex", "LoadAlign", TY->index, "NORM", one);
  if (TY->b8)
    index_call (c, leaf, "LoadIndexHigh", "LoadAlign", TY->index, "NORM", one);
  data_n (c, leaf, "UpdateMask", "UpdateMask", NULL, 1);
  gather_call (c, leaf, "Gather", "Gather", TY->index, one);
  if (TY->b8)
    {
      gather_call (c, leaf, "GatherHigh", "Gather", TY->index, one);
      data_n (c, leaf, "DeInterleave", "DeInterleave", NULL, 1);
    }
  data_n (c, leaf, "StoreAlign", "StoreAlign", "NORM", 1);
  brc_add_launches (RUN, 1);
}

static void
last_gather_two (brc_leaf_ctx *c, msperf_expr *r)
{
  const char *leaf = "BrcLastGatherTwo";
  const char *im = TY->index_math;
  msperf_expr *one = I (c, 1);

  index_call (c, leaf, "CreateMask", "CreateMask", TY->index, NULL, one);   /* CreateMask<IndexT> */
  index_call (c, leaf, "Duplicate", "Duplicate", im, NULL, one);
  index_call (c, leaf, "LoadIndex", "LoadAlign", TY->index, "NORM", one);
  if (TY->b8)
    index_call (c, leaf, "LoadIndexHigh", "LoadAlign", TY->index, "NORM", one);
  /* main loop, r iterations */
  index_call (c, leaf, "LoopMuls", "Muls", im, NULL, r);
  index_call (c, leaf, "LoopAdd", "Add", im, NULL, r);
  if (TY->b8)
    index_call (c, leaf, "LoopAddHigh", "Add", im, NULL, r);
  gather_call (c, leaf, "LoopGather", "Gather", TY->index, r);
  if (TY->b8)
    {
      gather_call (c, leaf, "LoopGatherHigh", "Gather", TY->index, r);
      data (c, leaf, "LoopDeInterleave", "DeInterleave", NULL, r);
    }
  data (c, leaf, "LoopStoreUnAlign", "StoreUnAlign", "UNALIGN", r);
  /* tail */
  index_call (c, leaf, "TailAdds", "Adds", im, NULL, one);
  if (TY->b8)
    index_call (c, leaf, "TailAddsHigh", "Adds", im, NULL, one);
  gather_call (c, leaf, "TailGather", "Gather", TY->index, one);
  if (TY->b8)
    {
      gather_call (c, leaf, "TailGatherHigh", "Gather", TY->index, one);
      data_n (c, leaf, "TailDeInterleave", "DeInterleave", NULL, 1);
    }
  data_n (c, leaf, "TailStoreUnAlign", "StoreUnAlign", "UNALIGN", 1);
  data_n (c, leaf, "StoreUnAlignPost", "StoreUnAlignPost", "POST", 1);
  brc_add_launches (RUN, 1);
}

static void
nlast_gather_two (brc_leaf_ctx *c, msperf_expr *r)
{
  const char *leaf = "BrcNlastGatherTwo";
  msperf_expr *one = I (c, 1);

  index_call (c, leaf, "CreateMask", "CreateMask", TY->index, NULL, one);   /* CreateMask<IndexT> */
  index_call (c, leaf, "LoadIndex", "LoadAlign", TY->index, "NORM", one);
  if (TY->b8)
    index_call (c, leaf, "LoadIndexHigh", "LoadAlign", TY->index, "NORM", one);
  gather_call (c, leaf, "Gather", "Gather", TY->index, one);
  if (TY->b8)
    {
      gather_call (c, leaf, "GatherHigh", "Gather", TY->index, one);
      data_n (c, leaf, "DeInterleave", "DeInterleave", NULL, 1);
    }
  /* the gathered rows are stored r times in the loop, then once for the tail */
  data (c, leaf, "LoopStoreUnAlign", "StoreUnAlign", "UNALIGN", r);
  data_n (c, leaf, "TailStoreUnAlign", "StoreUnAlign", "UNALIGN", 1);
  data_n (c, leaf, "StoreUnAlignPost", "StoreUnAlignPost", "POST", 1);
  brc_add_launches (RUN, 1);
}

void
brc_leaf_gather_2d (brc_leaf_ctx *c, gboolean last, msperf_expr *s0, msperf_expr *s1)
{
  msperf_expr *s[2] = { s0, s1 };
  msperf_expr *st[2] = { last ? I (c, 1) : I (c, 0), last ? I (c, 0) : I (c, 1) };

  check_index (c, 2, s, st);
  gather_2d_stack (c, last ? "LastWrap2D" : "NlastWrap2D");
  gen_index_2d (c, last);
  if (brc_lt_int (RUN, mul (s0, s1), TY->vf))
    {
      g_string_append (RUN->branch, last ? "/BrcLastGatherOne" : "/BrcNlastGatherOne");
      gather_one (c, last ? "BrcLastGatherOne" : "BrcNlastGatherOne");
      return;
    }
  {
    /* r = ⌈s0 / (VF/s1)⌉ − 1 (seed FR5 Gather body) */
    msperf_expr *r = plus (c, cdiv (s0, fdiv (I (c, TY->vf), s1)), -1);
    g_string_append (RUN->branch, last ? "/BrcLastGatherTwo" : "/BrcNlastGatherTwo");
    if (last)
      last_gather_two (c, r);
    else
      nlast_gather_two (c, r);
  }
}

void
brc_leaf_gather_b_2d (brc_leaf_ctx *c, msperf_expr *s0, msperf_expr *s1)
{
  const char *w = "NlastWrap2D";
  const char *u32 = "uint32";   /* GatherB reads a real 32-bit block index for every dtype */
  msperf_expr *one = I (c, 1);

  data_n (c, w, "PopStackBuffer", "PopStackBuffer", NULL, 1);
  data_n (c, w, "GetPhyAddrIndex", "GetPhyAddr", NULL, 1);
  /* the block index is written by the scalar unit: V→S before, S→V after */
  data_n (c, w, "GetTPipePtrVS", "GetTPipePtr", NULL, 1);
  data_n (c, w, "FetchEventIDVS", "FetchEventID", "V_S", 1);
  data_n (c, w, "SetFlagVS", "SetFlag", "V_S", 1);
  data_n (c, w, "WaitFlagVS", "WaitFlag", "V_S", 1);
  data_n (c, w, "GetTPipePtrSV", "GetTPipePtr", NULL, 1);
  data_n (c, w, "FetchEventIDSV", "FetchEventID", "S_V", 1);
  data_n (c, w, "SetFlagSV", "SetFlag", "S_V", 1);
  data_n (c, w, "WaitFlagSV", "WaitFlag", "S_V", 1);
  if (brc_lt_int (RUN, mul (s0, s1), TY->vf))
    {
      const char *leaf = "BrcNlastGatherBOne";
      g_string_append (RUN->branch, "/BrcNlastGatherBOne");
      data_n (c, leaf, "CreateMask", "CreateMask", NULL, 1);
      index_call (c, leaf, "LoadIndex", "LoadAlign", u32, "NORM", one);
      gather_call (c, leaf, "GatherB", "GatherB", u32, one);
      data_n (c, leaf, "UpdateMask", "UpdateMask", NULL, 1);
      data_n (c, leaf, "StoreAlign", "StoreAlign", "NORM", 1);
    }
  else
    {
      const char *leaf = "BrcNlastGatherBTwo";
      msperf_expr *r = plus (c, cdiv (s0, fdiv (I (c, TY->vf), s1)), -1);
      g_string_append (RUN->branch, "/BrcNlastGatherBTwo");
      data_n (c, leaf, "CreateMask", "CreateMask", NULL, 1);
      index_call (c, leaf, "LoadIndex", "LoadAlign", u32, "NORM", one);
      gather_call (c, leaf, "GatherB", "GatherB", u32, one);
      data_n (c, leaf, "UpdateMask", "UpdateMask", NULL, 1);
      data_n (c, leaf, "UpdateMaskTail", "UpdateMask", NULL, 1);
      data (c, leaf, "LoopStoreAlign", "StoreAlign", "NORM", r);
      data_n (c, leaf, "TailStoreAlign", "StoreAlign", "NORM", 1);
    }
  brc_add_launches (RUN, 1);
}

/* ---------------------------------------------------------------- Less / Larger leaves */

static const char *const leaf_names[] = {
  "BrcLastLessThanVLAligned", "BrcLastLessThanVLUnaligned", "BrcLastLargerThanVLAligned",
  "BrcLastLargerThanVLUnaligned", "BrcNlastLessThanVLAligned", "BrcNlastLessThanVLUnaligned",
  "BrcNlastLargerThanVLAlignedWithVL", "BrcNlastLargerThanVLAlignedWithBlock",
  "BrcNlastLargerThanVLUnaligned",
};

void
brc_leaf (brc_leaf_ctx *c, brc_leaf_kind kind, int n, msperf_expr *const *s)
{
  g_autofree char *leaf = g_strdup_printf ("%s%dD", leaf_names[kind], n);
  msperf_expr *last = s[n - 1];
  msperf_expr *outer = I (c, 1);
  msperf_expr *vf = I (c, TY->vf);
  msperf_expr *f_up = cdiv (last, vf);      /* ⌈last/VF⌉ of the aligned large leaves */
  msperf_expr *f_dn = fdiv (last, vf);      /* ⌊last/VF⌋ of the unaligned large leaves */
  const char *bl = brc_load_mode (TY);

  for (int k = 0; k < n - 1; k++)
    outer = mul (outer, s[k]);
  g_string_append_printf (RUN->branch, "/%s", leaf);
  switch (kind)
    {
    case BRC_LAST_LESS_ALIGNED:
      data_n (c, leaf, "UpdateMask", "UpdateMask", NULL, 1);
      data (c, leaf, "BrcLoad", "LoadAlign", bl, outer);
      data (c, leaf, "StoreAlign", "StoreAlign", "NORM", outer);
      break;
    case BRC_LAST_LESS_UNALIGNED:
      data (c, leaf, "BrcLoad", "LoadAlign", bl, outer);
      data (c, leaf, "StoreUnAlign", "StoreUnAlign", "UNALIGN", outer);
      data_n (c, leaf, "StoreUnAlignPost", "StoreUnAlignPost", "POST", 1);
      break;
    case BRC_LAST_LARGER_ALIGNED:
      data_n (c, leaf, "CreateMask", "CreateMask", NULL, 1);
      if (n == 4)
        {
          /* UpdateMask per (s0, s2, f); BrcLoad and StoreAlign also over s1 (§4.7) */
          data (c, leaf, "UpdateMask", "UpdateMask", NULL, mul3 (s[0], s[2], f_up));
          data (c, leaf, "BrcLoad", "LoadAlign", bl, mul (mul3 (s[0], s[1], s[2]), f_up));
          data (c, leaf, "StoreAlign", "StoreAlign", "NORM", mul (mul3 (s[0], s[1], s[2]), f_up));
        }
      else
        {
          data (c, leaf, "BrcLoad", "LoadAlign", bl, outer);
          data (c, leaf, "UpdateMask", "UpdateMask", NULL, mul (outer, f_up));
          data (c, leaf, "StoreAlign", "StoreAlign", "NORM", mul (outer, f_up));
        }
      break;
    case BRC_LAST_LARGER_UNALIGNED:
      /* per row: ⌊last/VF⌋ full-VL stores, then the tail store */
      data (c, leaf, "BrcLoad", "LoadAlign", bl, outer);
      data (c, leaf, "MainStoreUnAlign", "StoreUnAlign", "UNALIGN", mul (outer, f_dn));
      data (c, leaf, "TailStoreUnAlign", "StoreUnAlign", "UNALIGN", outer);
      data_n (c, leaf, "StoreUnAlignPost", "StoreUnAlignPost", "POST", 1);
      break;
    case BRC_NLAST_LESS_ALIGNED:
      data_n (c, leaf, "UpdateMask", "UpdateMask", NULL, 1);
      data (c, leaf, "LoadAlign", "LoadAlign", "NORM", outer);
      data (c, leaf, "StoreAlign", "StoreAlign", "NORM", outer);
      break;
    case BRC_NLAST_LESS_UNALIGNED:
      data_n (c, leaf, "UpdateMask", "UpdateMask", NULL, 1);
      if (n == 2)
        {
          /* one row loaded once, stored s0 times */
          data_n (c, leaf, "LoadAlign", "LoadAlign", "NORM", 1);
          data (c, leaf, "StoreUnAlign", "StoreUnAlign", "UNALIGN", s[0]);
        }
      else
        {
          data (c, leaf, "LoadUnAlignPre", "LoadUnAlignPre", "PRE", outer);
          data (c, leaf, "LoadUnAlign", "LoadUnAlign", "UNALIGN", outer);
          data (c, leaf, "StoreUnAlign", "StoreUnAlign", "UNALIGN", outer);
        }
      data_n (c, leaf, "StoreUnAlignPost", "StoreUnAlignPost", "POST", 1);
      break;
    case BRC_NLAST_LARGER_WITH_VL:
      data_n (c, leaf, "CreateMask", "CreateMask", NULL, 1);
      if (n == 2)
        {
          /* the row is loaded once per VL and stored for every s0 */
          data (c, leaf, "LoadAlign", "LoadAlign", "NORM", f_up);
          data (c, leaf, "StoreAlign", "StoreAlign", "NORM", mul (f_up, s[0]));
        }
      else
        {
          msperf_expr *k = n == 3 ? mul3 (s[0], f_up, s[1]) : mul (mul3 (s[1], f_up, s[0]), s[2]);
          data (c, leaf, "LoadAlign", "LoadAlign", "NORM", k);
          data (c, leaf, "StoreAlign", "StoreAlign", "NORM", k);
        }
      break;
    case BRC_NLAST_LARGER_WITH_BLOCK:
      {
        msperf_expr *um = n == 4 ? mul (s[1], f_up) : mul (s[0], f_up);
        msperf_expr *k = n == 2 ? mul (s[0], f_up)
                         : n == 3 ? mul3 (s[0], f_up, s[1]) : mul (mul3 (s[1], f_up, s[0]), s[2]);
        data_n (c, leaf, "CreateMask", "CreateMask", NULL, 1);
        data (c, leaf, "UpdateMask", "UpdateMask", NULL, um);
        data (c, leaf, "LoadAlign", "LoadAlign", "NORM", k);
        data (c, leaf, "StoreAlign", "StoreAlign", "NORM", k);
      }
      break;
    case BRC_NLAST_LARGER_UNALIGNED:
      if (n == 2)
        {
          data_n (c, leaf, "TailLoadAlign", "LoadAlign", "NORM", 1);
          data (c, leaf, "MainLoadAlign", "LoadAlign", "NORM", mul (s[0], f_dn));
          data (c, leaf, "MainStoreUnAlign", "StoreUnAlign", "UNALIGN", mul (s[0], f_dn));
          data (c, leaf, "TailStoreUnAlign", "StoreUnAlign", "UNALIGN", s[0]);
        }
      else
        {
          /* per row: ⌊last/VF⌋ main (load, store) pairs, then the tail pair */
          msperf_expr *k = mul (outer, f_dn);
          data (c, leaf, "LoadUnAlignPre", "LoadUnAlignPre", "PRE", outer);
          data (c, leaf, "MainLoadUnAlign", "LoadUnAlign", "UNALIGN", k);
          data (c, leaf, "MainStoreUnAlign", "StoreUnAlign", "UNALIGN", k);
          data (c, leaf, "TailLoadUnAlign", "LoadUnAlign", "UNALIGN", outer);
          data (c, leaf, "TailStoreUnAlign", "StoreUnAlign", "UNALIGN", outer);
        }
      data_n (c, leaf, "StoreUnAlignPost", "StoreUnAlignPost", "POST", 1);
      break;
    default:
      g_assert_not_reached ();
    }
  brc_add_launches (RUN, 1);
}

/* ---------------------------------------------------------------- gather wrappers */

/* One row per slot: n straight-line calls of api are slots api0 … api(n−1) (a single call keeps
 * the bare name); b8 generators compute the low and high index halves apart (…Low, …High). */
static void
gen_index_slots (brc_leaf_ctx *c, const char *h, const char *api, int64_t n, gboolean halves)
{
  static const char *const half_names[] = { "Low", "High" };
  const char *g = TY->gen_index;
  const char *mode = strcmp (api, "StoreAlign") == 0 ? "NORM" : NULL;

  for (int hf = 0; hf < (halves ? 2 : 1); hf++)
    for (int64_t k = 0; k < n; k++)
      {
        g_autofree char *slot = n == 1 ? g_strdup_printf ("%s%s", api, halves ? half_names[hf] : "")
          : g_strdup_printf ("%s%s%" G_GINT64_FORMAT, api, halves ? half_names[hf] : "", k);
        index_call (c, h, slot, api, g, mode, I (c, 1));
      }
}

static void
gen_index_wrapper (brc_leaf_ctx *c, int n)
{
  /* calls per launch (seed FR5 "Gather index 固定次数"); b8 doubles the per-half slots, the
   * CreateMask and the six Duplicate constants are shared by both halves */
  static const char *const apis[] = { "CreateMask", "Arange", "Duplicate", "Div", "Mul", "Sub",
                                      "MulAddDst", "StoreAlign" };
  static const int64_t three[] = { 1, 1, 6, 3, 4, 3, 2, 1 };
  static const int64_t four[] = { 1, 1, 8, 4, 5, 4, 3, 1 };
  static const gboolean per_half[] = { FALSE, TRUE, FALSE, TRUE, TRUE, TRUE, TRUE, TRUE };
  const int64_t *k = n == 4 ? four : three;
  gboolean b8 = TY->b8 && n == 3;
  const char *h = n == 4 ? "VfGenIndexForFourDim" : b8 ? "VfGenIndexB8" : "VfGenIndex";

  for (size_t i = 0; i < G_N_ELEMENTS (apis); i++)
    gen_index_slots (c, h, apis[i], k[i], b8 && per_half[i]);
  brc_add_launches (RUN, 1);
}

/* Numbered straight-line slots of one API: Duplicate0, Duplicate1, … */
static void
index_slots (brc_leaf_ctx *c, const char *h, const char *api, const char *dtype, int n)
{
  for (int k = 0; k < n; k++)
    {
      g_autofree char *slot = g_strdup_printf ("%s%d", api, k);
      index_call (c, h, slot, api, dtype, NULL, I (c, 1));
    }
}

/* VfGatherBrc / VfGatherBrcB8 over sI1 = m outer iterations of sI2 = nn main steps and a tail:
 * per outer iteration one base-offset (Muls, Add), per step and for the tail (Muls, Add, Gather,
 * StoreUnAlign) — seed FR5 Muls = Add = m·(n+2), Gather = Store = m·(n+1). */
static void
gather_brc_3d (brc_leaf_ctx *c, msperf_expr *m, msperf_expr *nn)
{
  const char *h = TY->b8 ? "VfGatherBrcB8" : "VfGatherBrc";
  const char *im = TY->index_math;
  msperf_expr *main_n = mul (m, nn);
  static const char *const phase[] = { "Outer", "Loop", "Tail" };
  msperf_expr *counts[3];

  counts[0] = m;
  counts[1] = main_n;
  counts[2] = m;
  /* CreateMask<uint16_t> on the b8 path: the index register type */
  index_call (c, h, "CreateMask", "CreateMask", TY->index, NULL, I (c, 1));
  index_slots (c, h, "Duplicate", im, 2);
  index_call (c, h, "LoadIndex", "LoadAlign", TY->index, "NORM", I (c, 1));
  if (TY->b8)
    index_call (c, h, "LoadIndexHigh", "LoadAlign", TY->index, "NORM", I (c, 1));
  for (int ph = 0; ph < 3; ph++)
    {
      g_autofree char *muls = g_strdup_printf ("%sMuls", phase[ph]);
      g_autofree char *add = g_strdup_printf ("%sAdd", phase[ph]);
      g_autofree char *add_hi = g_strdup_printf ("%sAddHigh", phase[ph]);
      index_call (c, h, muls, "Muls", im, NULL, counts[ph]);
      index_call (c, h, add, "Add", im, NULL, counts[ph]);
      if (TY->b8)
        index_call (c, h, add_hi, "Add", im, NULL, counts[ph]);
      if (ph == 0)
        continue;
      {
        g_autofree char *ga = g_strdup_printf ("%sGather", phase[ph]);
        g_autofree char *ga_hi = g_strdup_printf ("%sGatherHigh", phase[ph]);
        g_autofree char *de = g_strdup_printf ("%sDeInterleave", phase[ph]);
        g_autofree char *st = g_strdup_printf ("%sStoreUnAlign", phase[ph]);
        gather_call (c, h, ga, "Gather", TY->index, counts[ph]);
        if (TY->b8)
          {
            gather_call (c, h, ga_hi, "Gather", TY->index, counts[ph]);
            data (c, h, de, "DeInterleave", NULL, counts[ph]);
          }
        data (c, h, st, "StoreUnAlign", "UNALIGN", counts[ph]);
      }
    }
  data_n (c, h, "StoreUnAlignPost", "StoreUnAlignPost", "POST", 1);
}

/* VfGatherBrcForFourDim over (sI1, sI2, sI3) = (m, nn, p): a base offset per level-1 and per
 * level-2 iteration, then sI3 main steps and a tail — seed FR5 Muls = Add = m + m·n + m·n·(p+1),
 * Gather = Store = m·n·(p+1). */
static void
gather_brc_4d (brc_leaf_ctx *c, msperf_expr *m, msperf_expr *nn, msperf_expr *p)
{
  const char *h = "VfGatherBrcForFourDim";
  const char *im = TY->index_math;
  static const char *const phase[] = { "Outer", "Middle", "Loop", "Tail" };
  msperf_expr *counts[4];

  counts[0] = m;
  counts[1] = mul (m, nn);
  counts[2] = mul3 (m, nn, p);
  counts[3] = mul (m, nn);
  data_n (c, h, "CreateMask", "CreateMask", NULL, 1);
  index_slots (c, h, "Duplicate", im, 3);
  index_call (c, h, "LoadIndex", "LoadAlign", TY->index, "NORM", I (c, 1));
  for (int ph = 0; ph < 4; ph++)
    {
      g_autofree char *muls = g_strdup_printf ("%sMuls", phase[ph]);
      g_autofree char *add = g_strdup_printf ("%sAdd", phase[ph]);
      g_autofree char *ga = g_strdup_printf ("%sGather", phase[ph]);
      g_autofree char *st = g_strdup_printf ("%sStoreUnAlign", phase[ph]);
      index_call (c, h, muls, "Muls", im, NULL, counts[ph]);
      index_call (c, h, add, "Add", im, NULL, counts[ph]);
      if (ph < 2)
        continue;
      gather_call (c, h, ga, "Gather", TY->index, counts[ph]);
      data (c, h, st, "StoreUnAlign", "UNALIGN", counts[ph]);
    }
  data_n (c, h, "StoreUnAlignPost", "StoreUnAlignPost", "POST", 1);
}

void
brc_gather_wrapper (brc_leaf_ctx *c, int n, msperf_expr *const *s, msperf_expr *const *st)
{
  const char *w = n == 4 ? "GatherWrapperForFourDim" : "GatherWrapper";
  msperf_expr *vf = I (c, TY->vf);
  msperf_expr *m, *nn, *p = NULL;

  g_string_append_printf (RUN->branch, "/%s", w);
  check_index (c, n, s, st);
  /* PopStackBuffer<BrcIndexType>, the index and the data tensor addresses; the b8 3-D wrapper
   * takes the source address of its uint16 view (seed FR6: BrcIndexType = uint16) */
  index_call (c, w, "PopStackBuffer", "PopStackBuffer", TY->index, NULL, I (c, 1));
  index_call (c, w, "GetPhyAddrIndex", "GetPhyAddr", TY->index, NULL, I (c, 1));
  if (TY->b8 && n == 3)
    index_call (c, w, "GetPhyAddrSrc", "GetPhyAddr", TY->index, NULL, I (c, 1));
  else
    data_n (c, w, "GetPhyAddrSrc", "GetPhyAddr", NULL, 1);
  gen_index_wrapper (c, n);
  if (n == 3)
    {
      /* §4.8: one VF covers t0 planes of (size1, size2), else t1 rows of size2 */
      msperf_expr *plane = mul (s[2], s[1]);
      if (brc_lt_int (RUN, plane, TY->vf))
        {
          m = I (c, 1);
          nn = fdiv (s[0], fdiv (vf, plane));
        }
      else
        {
          m = s[0];
          nn = fdiv (s[1], fdiv (vf, s[2]));
        }
      gather_brc_3d (c, m, nn);
    }
  else
    {
      /* The four-dim analogue (§4.8 GatherWrapperForFourDim): the index tile covers t cubes,
       * planes or rows; (sI1, sI2, sI3) are the loops outside it. */
      msperf_expr *cube = mul3 (s[3], s[2], s[1]), *plane = mul (s[3], s[2]);
      if (brc_lt_int (RUN, cube, TY->vf))
        {
          m = I (c, 1);
          nn = I (c, 1);
          p = fdiv (s[0], fdiv (vf, cube));
        }
      else if (brc_lt_int (RUN, plane, TY->vf))
        {
          m = I (c, 1);
          nn = s[0];
          p = fdiv (s[1], fdiv (vf, plane));
        }
      else
        {
          m = s[0];
          nn = s[1];
          p = fdiv (s[2], fdiv (vf, s[3]));
        }
      gather_brc_4d (c, m, nn, p);
    }
  brc_add_launches (RUN, 1);
}

/* ---------------------------------------------------------------- standalone Duplicate */

void
brc_duplicate_model (brc_run *run, const brc_params *p)
{
  const char *t = p->dtype;
  const char *sync = NULL;
  int64_t size = 0;
  msperf_expr *one = msperf_expr_int (run->ctx, 1);
  msperf_expr *view = p->dst_view_size != NULL ? p->dst_view_size : p->count;
  brc_call *call;

  if (!msperf_att_table_dtype_size (run->table, t, &size) || size <= 0
      || strcmp (t, "int4") == 0)
    {
      brc_fail (run, "Duplicate: dtype %s is not supported (no element size)", t);
      return;
    }
  /* The scalar a Tensor input gives: BroadcastScalar reads it after a sync of the queue it
   * came through; constants and UB scalars are ready (their producer pays, seed FR5). */
  if (p->source_kind == BRC_SRC_TENSOR_VEC_IN)
    sync = "MTE2_S";
  else if (p->source_kind == BRC_SRC_TENSOR_VEC_CALC)
    sync = "V_S";
  if (sync != NULL)
    {
      brc_emit (run, "BroadcastScalar.GetTPipePtr", "GetTPipePtr", t, NULL, NULL, one, t);
      brc_emit (run, "BroadcastScalar.FetchEventID", "FetchEventID", t, NULL, sync, one, t);
      brc_emit (run, "BroadcastScalar.SetFlag", "SetFlag", t, NULL, sync, one, t);
      brc_emit (run, "BroadcastScalar.WaitFlag", "WaitFlag", t, NULL, sync, one, t);
    }
  if (p->source_kind >= BRC_SRC_TENSOR_VEC_IN)
    brc_emit (run, "BroadcastScalar.GetValue", "GetValue", t, NULL, NULL, one, t);
  g_string_append_printf (run->branch, "Duplicate/%s", brc_source_kind_name (p->source_kind));
  if (strcmp (t, "uint8") == 0 || strcmp (t, "int8") == 0)
    {
      /* The in-repo B8 overloads reinterpret as uint16 and duplicate half as many elements:
       * uint8 reads dst.GetSize() (the view size), int8 uses count (seed FR5). */
      gboolean u8 = strcmp (t, "uint8") == 0;
      msperf_expr *src = u8 ? view : p->count;
      msperf_expr *n = msperf_expr_ceil_div (src, msperf_expr_int (run->ctx, 2));

      brc_check_max (run, src, G_MAXINT32 - 1, u8 ? "dst_view_size of a uint8 Duplicate "
                     "(size + 1 in int32)" : "count of an int8 Duplicate (size + 1 in int32)");
      brc_check_max (run, u8 ? p->count : view, G_MAXUINT32,
                     u8 ? "count (uint32)" : "dst_view_size (uint32)");
      brc_emit (run, "DuplicateB8.ReinterpretCast", "ReinterpretCast", "uint16", NULL, NULL, one,
                "uint16");
      if (u8)
        brc_emit (run, "DuplicateB8.GetSize", "GetSize", "uint8", NULL, NULL, one, "uint8");
      call = brc_emit_external (run, "DuplicateB8.Duplicate", "Duplicate", "uint16", "SCALAR",
                                "count", n);
      brc_call_component (run, call, "Duplicate", "uint16",
                          msperf_expr_ceil_div (n, msperf_expr_int (run->ctx, 128)));
      g_string_append (run->branch, u8 ? "/DuplicateB8(dst_view_size)" : "/DuplicateB8(count)");
    }
  else
    {
      /* CANN's int32_t count overload (also bool and the three-argument B64 form) */
      brc_check_max (run, p->count, G_MAXINT32, "count of a Duplicate (int32)");
      brc_check_max (run, view, G_MAXUINT32, "dst_view_size (uint32)");
      call = brc_emit_external (run, "Duplicate.Duplicate", "Duplicate", t, "SCALAR", "count",
                                p->count);
      brc_call_component (run, call, "Duplicate", t,
                          msperf_expr_ceil_div (p->count, msperf_expr_int (run->ctx, 256 / size)));
      g_string_append (run->branch, "/Duplicate");
    }
  brc_add_launches (run, 1);
}
