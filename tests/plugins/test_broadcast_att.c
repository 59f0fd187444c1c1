/* Tests of the broadcast_att module (plugins/broadcast_att/): the ATT Broadcast V2 model.
 *
 * There is no upstream implementation of this model (reference att-model.md §0, §4.1): these
 * tests are its specification. Every expected value is hand-derived from reference
 * att-model.md §4.4–§4.9 (tiling, dispatch, wrapper conditions, leaf calls, gather wrappers,
 * index types), seed 002 FR1–FR6 (Reg counts, dtypes, domain limits) and the perf table of
 * §1.4 (latency, throughput): UpdateMask (3,1), Duplicate (8,1), Muls/Mul (5,2), Add/Adds/Sub
 * (4,2), MulAddDst (6,2), DeInterleave (8,1), Load (0,0), Store 1-/2-byte (0,5) and 4-/8-byte
 * (0,1), Placeholder (0,0), Div without integer rows, no bool rows. Cost of a branch:
 * 20 + max latency + Σ throughput·count (seed FR5). Each derivation is in the comment of its
 * case; "Σ" lists the non-zero throughput terms. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <msperf/details.h>
#include <msperf/engine.h>
#include <msperf/plugin.h>
#include <msperf/att.h>
#include "app/trace/trace.h"
#include "../../plugins/broadcast_att/brc_model.h"

extern const msperf_plugin msperf_plugin_v1;

typedef struct {
  msperf_att_table *table;
  msperf_expr_ctx *ctx;
  brc_params p;
  brc_model m;
  gboolean built;
} fx;

static fx *
fx_new (void)
{
  g_autoptr (GError) error = NULL;
  fx *f = g_new0 (fx, 1);

  f->table = msperf_att_table_load_default (&error);
  if (f->table == NULL)
    fail_msg ("%s", error->message);
  f->ctx = msperf_expr_ctx_new ();
  brc_params_init (&f->p);
  return f;
}

static void
fx_reset (fx *f)
{
  brc_model_clear (&f->m);
  brc_params_clear (&f->p);
  msperf_expr_ctx_free (f->ctx);
  f->ctx = msperf_expr_ctx_new ();
  brc_params_init (&f->p);
  f->built = FALSE;
}

static void
fx_free (fx *f)
{
  brc_model_clear (&f->m);
  brc_params_clear (&f->p);
  msperf_expr_ctx_free (f->ctx);
  msperf_att_table_free (f->table);
  g_free (f);
}

static int
setup (void **state)
{
  *state = fx_new ();
  return 0;
}

static int
teardown (void **state)
{
  fx_free (*state);
  return 0;
}

#define F ((fx *) *state)

/* Builds the model from an `att` object text; FALSE + error when refused. */
static gboolean
try_att (fx *f, const char *att_json, GError **error)
{
  g_autofree char *line = g_strdup_printf ("{\"op\": \"ascir.Broadcast\", \"att\": %s}", att_json);
  g_autoptr (msperf_op) op = msperf_trace_parse_op (line, "test", 1, error);

  if (op == NULL)
    return FALSE;
  if (!brc_params_from_value (f->ctx, op->att, &f->p, error)
      || !brc_model_build (f->table, f->ctx, &f->p, &f->m, error))
    return FALSE;
  f->built = TRUE;
  return TRUE;
}

static void
att (fx *f, const char *att_json)
{
  g_autoptr (GError) error = NULL;

  if (f->built || f->p.dtype != NULL)
    fx_reset (f);
  if (!try_att (f, att_json, &error))
    fail_msg ("%s: %s", att_json, error->message);
}

static void
ext (fx *f, const char *dtype, const char *dst, const char *src)
{
  g_autofree char *j = g_strdup_printf ("{\"kind\": \"broadcast_extend\", \"dtype\": \"%s\", "
                                        "\"dst_shapes\": %s, \"src_shapes\": %s}", dtype, dst, src);
  att (f, j);
}

static int64_t
eval_int (const msperf_expr *e, GHashTable *bindings)
{
  g_autoptr (GError) error = NULL;
  msperf_expr *v = msperf_expr_evaluate (e, bindings, &error);
  int64_t i = -1;

  if (v == NULL)
    fail_msg ("%s: %s", msperf_expr_str (e), error->message);
  if (!msperf_expr_get_int (v, &i))
    fail_msg ("%s is not an integer", msperf_expr_str (v));
  return i;
}

static int64_t
cost (fx *f)
{
  return eval_int (f->m.expression, NULL);
}

static int64_t
launches (fx *f)
{
  return eval_int (f->m.launches, NULL);
}

static const char *
branch (fx *f)
{
  assert_int_equal (f->m.branches->len, 1);
  return ((brc_branch *) g_ptr_array_index (f->m.branches, 0))->name;
}

static msperf_att_ledger_row *
row (fx *f, const char *site)
{
  GPtrArray *rows = msperf_att_vf_ledger (f->m.ledger);

  for (guint i = 0; i < rows->len; i++)
    {
      msperf_att_ledger_row *r = g_ptr_array_index (rows, i);
      if (strcmp (r->call_site, site) == 0)
        return r;
    }
  return NULL;
}

/* The call count of a ledger row (-1 when the row is absent). */
static int64_t
count (fx *f, const char *site)
{
  msperf_att_ledger_row *r = row (f, site);

  return r == NULL ? -1 : eval_int (r->call_count, NULL);
}

static int64_t
component (fx *f, const char *site, guint k)
{
  msperf_att_ledger_row *r = row (f, site);

  assert_non_null (r);
  assert_true (k < r->components->len);
  return eval_int (((msperf_att_component *) g_ptr_array_index (r->components, k))->count, NULL);
}

static guint
n_rows (fx *f)
{
  return msperf_att_vf_ledger (f->m.ledger)->len;
}

/* ------------------------------------------------------------------ every leaf, table-driven */

typedef struct {
  const char *dtype, *dst, *src;
  const char *path;        /* the full dispatch path */
  int64_t cost;
  int64_t launches;
  const char *site;        /* one characteristic ledger row … */
  int64_t count;           /* … and its call count */
} leaf_case;

static const leaf_case leaf_cases[] = {
  /* Copy: no broadcast axis. dstSize 256, copy_length AlignUp(256, 32/2) = 256, Load/Store
   * components ⌈256/128⌉ = 2 each: Σ Store f16 5·2 = 10 → 20 + 0 + 10 = 30; no VF. */
  { "float16", "[4, 64]", "[4, 64]", "Copy", 30, 0, "BroadcastExtend.DataCopy", 1 },
  /* srcSize 1: BrcDuplicate(512), BrcT uint32, VF 64, R = 8: UpdateMask 8·1 + Store 8·1 →
   * 20 + 3 + 16 = 39 */
  { "float32", "[8, 64]", "[1, 1]", "Duplicate", 39, 1, "BrcDuplicate.StoreAlign", 8 },
  /* LastWrap2D s1 = BLK 16 (b16): E2B, f = 128/16 = 8, R = ⌈64/8⌉ = 8: UM 8 + Store 5·8 →
   * 20 + 3 + 48 = 71 */
  { "float16", "[64, 16]", "[64, 1]", "Last/LastWrap2D/BrcLastE2B2D", 71, 1,
    "BrcLastE2B2D.E2bLoad", 8 },
  /* s1 = 4 < HALF 32 (b32), s0·s1 = 16 < 64: GenLastGatherIndex (Duplicate 8,1; Store i32 1)
   * + BrcLastGatherOne (UM 1, Store 1): 20 + 8 + 4 = 32; two launches */
  { "float32", "[4, 4]", "[4, 1]", "Last/LastWrap2D/BrcLastGatherOne", 32, 2,
    "BrcLastGatherOne.Gather", 1 },
  /* s0·s1 = 256 ≥ 64: GatherTwo, r = ⌈64/(64/4)⌉ − 1 = 3. Σ gen 1 + 1; Duplicate 1, Muls 2·3,
   * Add 2·3, StoreUnAlign 3, Adds 2, tail StoreUnAlign 1, Post 1 → 22: 20 + 8 + 22 = 50 */
  { "float32", "[64, 4]", "[64, 1]", "Last/LastWrap2D/BrcLastGatherTwo", 50, 2,
    "BrcLastGatherTwo.LoopGather", 3 },
  /* HALF 64 ≤ s1 = 100 ≤ VF 128: LessUnaligned2D, 10 × (BrcLoad, StoreUnAlign), Post:
   * Σ 5·10 + 5 → 20 + 0 + 55 = 75 */
  { "float16", "[10, 100]", "[10, 1]", "Last/LastWrap2D/BrcLastLessThanVLUnaligned2D", 75, 1,
    "BrcLastLessThanVLUnaligned2D.StoreUnAlign", 10 },
  /* s1 = 256 > VF, aligned: f = 2; BrcLoad 10, UM 20, Store 20: 20 + 3 + 20 + 100 = 143 */
  { "float16", "[10, 256]", "[10, 1]", "Last/LastWrap2D/BrcLastLargerThanVLAligned2D", 143, 1,
    "BrcLastLargerThanVLAligned2D.UpdateMask", 20 },
  /* s1 = 200 unaligned (static): f = ⌊200/128⌋ = 1; StoreUnAlign 10·2, Post 1:
   * 20 + 5·21 = 125 */
  { "float16", "[10, 200]", "[10, 1]", "Last/LastWrap2D/BrcLastLargerThanVLUnaligned2D", 125, 1,
    "BrcLastLargerThanVLUnaligned2D.MainStoreUnAlign", 10 },
  /* NlastWrap2D s1 = 8 < 32 and 8 % BLK 8 == 0: GatherB, s0·s1 = 32 < 64: GatherBOne
   * (UM 1, Store 1) → 20 + 3 + 2 = 25; the sync calls are placeholders */
  { "float32", "[4, 8]", "[1, 8]", "NLast/NlastWrap2D/BrcNlastGatherBOne", 25, 1,
    "NlastWrap2D.SetFlagSV", 1 },
  /* s0·s1 = 128 ≥ 64: GatherBTwo, r = ⌈16/8⌉ − 1 = 1: UM 2, Store 2 → 20 + 3 + 4 = 27 */
  { "float32", "[16, 8]", "[1, 8]", "NLast/NlastWrap2D/BrcNlastGatherBTwo", 27, 1,
    "BrcNlastGatherBTwo.LoopStoreAlign", 1 },
  /* s1 = 4 not a block multiple: GenNlastGatherIndex (Duplicate 1, Mul 2, Sub 2, Store 1 = 6)
   * + NlastGatherOne (UM 1, Store 1) → 20 + 8 + 8 = 36 */
  { "float32", "[4, 4]", "[1, 4]", "NLast/NlastWrap2D/BrcNlastGatherOne", 36, 2,
    "GenNlastGatherIndex.Mul", 1 },
  /* GatherTwo, r = ⌈64/16⌉ − 1 = 3: gen 6 + StoreUnAlign 4 + Post 1 → 20 + 8 + 11 = 39 */
  { "float32", "[64, 4]", "[1, 4]", "NLast/NlastWrap2D/BrcNlastGatherTwo", 39, 2,
    "BrcNlastGatherTwo.LoopStoreUnAlign", 3 },
  /* NLast LessUnaligned2D: UM 1, LoadAlign 1, StoreUnAlign 10, Post 1 → 20 + 3 + 1 + 55 = 79 */
  { "float16", "[10, 100]", "[1, 100]", "NLast/NlastWrap2D/BrcNlastLessThanVLUnaligned2D", 79, 1,
    "BrcNlastLessThanVLUnaligned2D.StoreUnAlign", 10 },
  /* 256 % VF == 0 and s0 = 10 > 8: WithVL, f = 2: Load 2, Store 20 → 20 + 100 = 120 */
  { "float16", "[10, 256]", "[1, 256]", "NLast/NlastWrap2D/BrcNlastLargerThanVLAlignedWithVL2D",
    120, 1, "BrcNlastLargerThanVLAlignedWithVL2D.LoadAlign", 2 },
  /* s0 = 8 is not > 8: WithBlock, UM 16, Load 16, Store 16 → 20 + 3 + 16 + 80 = 119 */
  { "float16", "[8, 256]", "[1, 256]", "NLast/NlastWrap2D/BrcNlastLargerThanVLAlignedWithBlock2D",
    119, 1, "BrcNlastLargerThanVLAlignedWithBlock2D.UpdateMask", 16 },
  /* unaligned 200: f = 1; tail Load 1, main Load 10, main StoreUnAlign 10, tail StoreUnAlign
   * 10, Post 1 → 20 + 5·21 = 125 */
  { "float16", "[10, 200]", "[1, 200]", "NLast/NlastWrap2D/BrcNlastLargerThanVLUnaligned2D", 125,
    1, "BrcNlastLargerThanVLUnaligned2D.MainLoadAlign", 10 },
  /* LastWrap3D E2B: s2 = 8 = BLK, s1·s2 = 128 > 32, 16 % 8 == 0, axis 1 kept; 128 > 64:
   * LargerThanVL, R = ⌈16/8⌉ = 2, 2·2 = 4 × (UM, E2bLoad, Store) → 20 + 3 + 4 + 4 = 31 */
  { "float32", "[2, 16, 8]", "[2, 16, 1]", "Last/LastWrap3D/BrcLastE2BLargerThanVL", 31, 1,
    "BrcLastE2BLargerThanVL.UpdateMask", 4 },
  /* s1·s2 = 64 ≤ 64: LessThanVL: UM 1, 3 × (E2bLoad, Store) → 20 + 3 + 1 + 3 = 27 */
  { "float32", "[3, 8, 8]", "[3, 8, 1]", "Last/LastWrap3D/BrcLastE2BLessThanVL", 27, 1,
    "BrcLastE2BLessThanVL.StoreAlign", 3 },
  /* s2 = 4 < 32: GatherWrapper; VfGenIndex Σ Duplicate 6 + Mul 8 + Sub 6 + MulAddDst 4 +
   * Store 1 = 25; s2·s1 = 16 < 64: sI1 = 1, sI2 = ⌊2/4⌋ = 0; VfGatherBrc Duplicate 2,
   * Muls 2·2, Add 2·2, StoreUnAlign 1, Post 1 = 12 → 20 + 8 + 37 = 65 */
  { "float32", "[2, 4, 4]", "[2, 4, 1]", "Last/LastWrap3D/GatherWrapper", 65, 2,
    "VfGatherBrc.OuterMuls", 1 },
  /* s2 = 96 in [64, 128], aligned: LessAligned3D, UM 1, 6 × (BrcLoad, Store) → 20 + 3 + 31 */
  { "float16", "[2, 3, 96]", "[2, 3, 1]", "Last/LastWrap3D/BrcLastLessThanVLAligned3D", 54, 1,
    "BrcLastLessThanVLAligned3D.BrcLoad", 6 },
  /* 100 unaligned: 6 × (BrcLoad, StoreUnAlign), Post → 20 + 35 = 55 */
  { "float16", "[2, 3, 100]", "[2, 3, 1]", "Last/LastWrap3D/BrcLastLessThanVLUnaligned3D", 55, 1,
    "BrcLastLessThanVLUnaligned3D.StoreUnAlign", 6 },
  /* 256: f = 2, BrcLoad 6, UM 12, Store 12 → 20 + 3 + 12 + 60 = 95 */
  { "float16", "[2, 3, 256]", "[2, 3, 1]", "Last/LastWrap3D/BrcLastLargerThanVLAligned3D", 95, 1,
    "BrcLastLargerThanVLAligned3D.StoreAlign", 12 },
  /* 200: f = 1, StoreUnAlign 12, Post → 20 + 65 = 85 */
  { "float16", "[2, 3, 200]", "[2, 3, 1]", "Last/LastWrap3D/BrcLastLargerThanVLUnaligned3D", 85,
    1, "BrcLastLargerThanVLUnaligned3D.MainStoreUnAlign", 6 },
  /* NlastWrap3D s2 = 20 < 64 (b16): GatherWrapper; VfGenIndex int16 Σ 6 + 8 + 6 + 4 + Store 5
   * = 29; s2·s1 = 60 < 128: t0 = 2, sI2 = 1: Duplicate 2, Muls 2·3, Add 2·3, StoreUnAlign
   * 5·2, Post 5 = 29 → 20 + 8 + 58 = 86 */
  { "float16", "[2, 3, 20]", "[2, 1, 20]", "NLast/NlastWrap3D/GatherWrapper", 86, 2,
    "VfGatherBrc.LoopGather", 1 },
  /* NlastLessUnaligned3D: UM 1, 6 × (Pre, LoadUnAlign, StoreUnAlign), Post → 20 + 3 + 36 = 59 */
  { "float16", "[2, 3, 100]", "[2, 1, 100]", "NLast/NlastWrap3D/BrcNlastLessThanVLUnaligned3D",
    59, 1, "BrcNlastLessThanVLUnaligned3D.LoadUnAlignPre", 6 },
  /* 256 % 128 == 0: WithVL3D, s0·f·s1 = 12 × (Load, Store) → 20 + 60 = 80 */
  { "float16", "[2, 3, 256]", "[2, 1, 256]",
    "NLast/NlastWrap3D/BrcNlastLargerThanVLAlignedWithVL3D", 80, 1,
    "BrcNlastLargerThanVLAlignedWithVL3D.StoreAlign", 12 },
  /* 144 aligned, not a VL multiple: WithBlock3D, f = 2, UM s0·f = 4, 12 × (Load, Store) →
   * 20 + 3 + 4 + 60 = 87 */
  { "float16", "[2, 3, 144]", "[2, 1, 144]",
    "NLast/NlastWrap3D/BrcNlastLargerThanVLAlignedWithBlock3D", 87, 1,
    "BrcNlastLargerThanVLAlignedWithBlock3D.UpdateMask", 4 },
  /* 200: f = 1, Pre 6, LoadUnAlign 12, StoreUnAlign 12, Post → 20 + 65 = 85 */
  { "float16", "[2, 3, 200]", "[2, 1, 200]", "NLast/NlastWrap3D/BrcNlastLargerThanVLUnaligned3D",
    85, 1, "BrcNlastLargerThanVLUnaligned3D.MainLoadUnAlign", 6 },
  /* LastWrap4D E2B: s3 = 8 = BLK, axis 2 kept, 16 % 8 == 0: R = ⌈16/8⌉ = 2, s0·s1·R = 12 ×
   * (UM, E2bLoad, Store) → 20 + 3 + 12 + 12 = 47 (seed: all three = size0·size1·repeatTimes) */
  { "float32", "[2, 3, 16, 8]", "[2, 3, 16, 1]", "Last/LastWrap4D/BrcLastE2B4D", 47, 1,
    "BrcLastE2B4D.E2bLoad", 12 },
  /* s3 = 4 < 32: GatherWrapperForFourDim; VfGenIndexForFourDim Σ Duplicate 8 + Mul 10 +
   * Sub 8 + MulAddDst 6 + Store 1 = 33; s3·s2·s1 = 48 < 64: sI = (1, 1, ⌊2/1⌋ = 2):
   * Muls/Add 1·(1 + 1·4) = 5, Gather/Store 1·1·3 = 3; Duplicate 3 + 10 + 10 + 3 + Post 1 = 27
   * → 20 + 8 + 60 = 88 */
  { "float32", "[2, 3, 4, 4]", "[2, 3, 4, 1]", "Last/LastWrap4D/GatherWrapperForFourDim", 88, 2,
    "VfGatherBrcForFourDim.LoopAdd", 2 },
  /* LessAligned4D: UM 1, 24 × (BrcLoad, Store) → 20 + 3 + 1 + 120 = 144 */
  { "float16", "[2, 3, 4, 96]", "[2, 3, 4, 1]", "Last/LastWrap4D/BrcLastLessThanVLAligned4D", 144,
    1, "BrcLastLessThanVLAligned4D.StoreAlign", 24 },
  /* LessUnaligned4D: 24 × (BrcLoad, StoreUnAlign), Post → 20 + 125 = 145 */
  { "float16", "[2, 3, 4, 100]", "[2, 3, 4, 1]", "Last/LastWrap4D/BrcLastLessThanVLUnaligned4D",
    145, 1, "BrcLastLessThanVLUnaligned4D.BrcLoad", 24 },
  /* LargerAligned4D: f = 2, UM s0·s2·f = 16, (BrcLoad, Store) s0·s1·s2·f = 48 →
   * 20 + 3 + 16 + 240 = 279 */
  { "float16", "[2, 3, 4, 256]", "[2, 3, 4, 1]", "Last/LastWrap4D/BrcLastLargerThanVLAligned4D",
    279, 1, "BrcLastLargerThanVLAligned4D.UpdateMask", 16 },
  /* LargerUnaligned4D: f = 1, BrcLoad 24, StoreUnAlign 48, Post → 20 + 245 = 265 */
  { "float16", "[2, 3, 4, 200]", "[2, 3, 4, 1]",
    "Last/LastWrap4D/BrcLastLargerThanVLUnaligned4D", 265, 1,
    "BrcLastLargerThanVLUnaligned4D.TailStoreUnAlign", 24 },
  /* NlastWrap4D gather: same counts as the Last four-dim gather above → 88 */
  { "float32", "[2, 3, 4, 4]", "[2, 1, 4, 4]", "NLast/NlastWrap4D/GatherWrapperForFourDim", 88, 2,
    "VfGenIndexForFourDim.Duplicate7", 1 },
  /* NlastLessAligned4D: UM 1, 24 × (Load, Store) → 144 */
  { "float16", "[2, 3, 4, 96]", "[2, 1, 4, 96]", "NLast/NlastWrap4D/BrcNlastLessThanVLAligned4D",
    144, 1, "BrcNlastLessThanVLAligned4D.LoadAlign", 24 },
  /* NlastLessUnaligned4D: UM 1, 24 × (Pre, LoadUnAlign, StoreUnAlign), Post → 20 + 3 + 126 */
  { "float16", "[2, 3, 4, 100]", "[2, 1, 4, 100]",
    "NLast/NlastWrap4D/BrcNlastLessThanVLUnaligned4D", 149, 1,
    "BrcNlastLessThanVLUnaligned4D.StoreUnAlign", 24 },
  /* WithVL4D: f = 2, s1·f·s0·s2 = 48 × (Load, Store) → 20 + 240 = 260 */
  { "float16", "[2, 3, 4, 256]", "[2, 1, 4, 256]",
    "NLast/NlastWrap4D/BrcNlastLargerThanVLAlignedWithVL4D", 260, 1,
    "BrcNlastLargerThanVLAlignedWithVL4D.LoadAlign", 48 },
  /* WithBlock4D: f = 2, UM s1·f = 6, 48 × (Load, Store) → 20 + 3 + 6 + 240 = 269 */
  { "float16", "[2, 3, 4, 144]", "[2, 1, 4, 144]",
    "NLast/NlastWrap4D/BrcNlastLargerThanVLAlignedWithBlock4D", 269, 1,
    "BrcNlastLargerThanVLAlignedWithBlock4D.UpdateMask", 6 },
  /* NlastLargerUnaligned4D: f = 1, Pre 24, LoadUnAlign/StoreUnAlign 48, Post → 265 */
  { "float16", "[2, 3, 4, 200]", "[2, 1, 4, 200]",
    "NLast/NlastWrap4D/BrcNlastLargerThanVLUnaligned4D", 265, 1,
    "BrcNlastLargerThanVLUnaligned4D.LoadUnAlignPre", 24 },
  /* constRank 4, dst[0] = src[0] = 1: the 3-D wrapper on (3, 4, 100): LessUnaligned3D with
   * 12 × (BrcLoad, StoreUnAlign), Post → 20 + 65 = 85 */
  { "float16", "[1, 3, 4, 100]", "[1, 3, 4, 1]",
    "Last/SkipLeading1/LastWrap3D/BrcLastLessThanVLUnaligned3D", 85, 1,
    "BrcLastLessThanVLUnaligned3D.StoreUnAlign", 12 },
  /* NLast with the leading 1: NlastWrap3D on (3, 4, 100) → UM 1, 12 × 3, Post: 20 + 3 + 66 */
  { "float16", "[1, 3, 4, 100]", "[1, 1, 4, 100]",
    "NLast/SkipLeading1/NlastWrap3D/BrcNlastLessThanVLUnaligned3D", 89, 1,
    "BrcNlastLessThanVLUnaligned3D.LoadUnAlign", 12 },
  /* b8 Last 2D: no E2B for b8; s1 = 16 < HALF 128, s0·s1 = 64 < 256: GatherOne b8.
   * GenLastGatherIndex twice (int16: Duplicate 2·1, Store 2·5), GatherOne UM 1, DeInterleave 1,
   * Store 5 → 20 + 8 + 19 = 47; launches 2 + 1 */
  { "uint8", "[4, 16]", "[4, 1]", "Last/LastWrap2D/BrcLastGatherOne", 47, 3,
    "BrcLastGatherOne.GatherHigh", 1 },
  /* bool runs as uint8 BrcT: the same leaf and cost (its prelude placeholders have no row) */
  { "bool", "[4, 16]", "[4, 1]", "Last/LastWrap2D/BrcLastGatherOne", 47, 3,
    "BrcLastGatherOne.DeInterleave", 1 },
  /* b8 NLast 3D gather: VfGenIndexB8 (int16: Duplicate 6, Mul 8·2, Sub 6·2, MulAddDst 4·2,
   * Store 2·5 = 52) and VfGatherBrcB8 on (2, 3, 20): s2·s1 = 60 < 256, t0 = 4, sI2 = 0:
   * Duplicate 2, Muls 2·2, Add 2·2 + AddHigh 2·2, DeInterleave 1, StoreUnAlign 5, Post 5 = 25
   * → 20 + 8 + 77 = 105 */
  { "uint8", "[2, 3, 20]", "[2, 1, 20]", "NLast/NlastWrap3D/GatherWrapper", 105, 2,
    "VfGatherBrcB8.OuterAddHigh", 1 },
  /* b8 Last 4D with s3 < HALF skips GatherWrapperForFourDim (s != 1): s3 = 40 ≤ 256,
   * 40 % 32 ≠ 0 → LessUnaligned4D: 24 × (BrcLoad, StoreUnAlign), Post → 20 + 5·25 = 145 */
  { "int8", "[2, 3, 4, 40]", "[2, 3, 4, 1]", "Last/LastWrap4D/BrcLastLessThanVLUnaligned4D", 145,
    1, "BrcLastLessThanVLUnaligned4D.BrcLoad", 24 },
  /* B64 rank 1: append (2): D (100, 2), NlastWrap2D dynamic, s1 = 2 < 32 → gather,
   * s0·s1 = 200 ≥ 64: GatherTwo r = ⌈100/32⌉ − 1 = 3: gen 6 + StoreUnAlign 4 + Post 1 →
   * 20 + 8 + 11 = 39 (seed FR3: rank 1 → NLast2) */
  { "int64", "[100]", "[1]", "NLast/NlastWrap2D/BrcNlastGatherTwo", 39, 2,
    "BrcNlastGatherTwo.LoopStoreUnAlign", 3 },
  /* B64 rank 2 last broadcast: D (4, 100, 2), dim 3 → NlastWrap3D; GatherWrapper with
   * s2·s1 = 200 ≥ 64: sI1 = 4, sI2 = ⌊100/32⌋ = 3: Muls/Add 4·5 = 20, Store 4·4 = 16;
   * Σ 25 + 2 + 40 + 40 + 16 + 1 = 124 → 20 + 8 + 124 = 152 (seed FR3: rank 2 → NLast3) */
  { "int64", "[4, 100]", "[4, 1]", "NLast/NlastWrap3D/GatherWrapper", 152, 2,
    "VfGatherBrc.LoopStoreUnAlign", 12 },
  /* B64 rank 2, last axis kept: doubled to (4, 200)/(1, 200): NlastWrap2D, 200 > 128,
   * 200 % 64 = 8, aligned (BLK 8), not a VL multiple → WithBlock: f = ⌈200/64⌉ = 4,
   * UM 16, Store u32 16 → 20 + 3 + 32 = 55 */
  { "uint64", "[4, 100]", "[1, 100]", "NLast/NlastWrap2D/BrcNlastLargerThanVLAlignedWithBlock2D",
    55, 1, "BrcNlastLargerThanVLAlignedWithBlock2D.StoreAlign", 16 },
  /* B64 rank 3 last broadcast → NlastWrap4D on (2, 3, 5, 2): gather4D, cube 30 < 64:
   * sI = (1, 1, ⌊2/2⌋ = 1): Muls/Add 1·(1 + 3) = 4, Gather/Store 2: Σ 33 + 3 + 8 + 8 + 2 + 1
   * = 55 → 83 (seed FR3: rank 3 → NLast4) */
  { "int64", "[2, 3, 5]", "[2, 3, 1]", "NLast/NlastWrap4D/GatherWrapperForFourDim", 83, 2,
    "VfGatherBrcForFourDim.MiddleMuls", 1 },
  /* B64 rank 4 last broadcast → dim 5: NlastMoreDim, D[0] = 2 times GatherWrapperForFourDim on
   * (3, 4, 5, 2): cube 40 < 64, sI = (1, 1, 3): Muls/Add 6, Store 4, each ×2; Σ 66 + 6 + 24 +
   * 24 + 8 + 2 = 130 → 20 + 8 + 130 = 158; launches 4 */
  { "int64", "[2, 3, 4, 5]", "[2, 3, 4, 1]", "NLast/NlastMoreDim/GatherWrapperForFourDim", 158, 4,
    "VfGatherBrcForFourDim.LoopMuls", 6 },
  /* B64 rank 4 last kept → (2, 3, 4, 10) NlastWrap4D: gather4D, cube 120 ≥ 64, plane 40 < 64:
   * sI = (1, 2, ⌊3/1⌋ = 3): Muls/Add 1·(1 + 2·5) = 11, Store 1·2·4 = 8:
   * Σ 33 + 3 + 22 + 22 + 8 + 1 = 89 → 117 */
  { "int64", "[2, 3, 4, 5]", "[2, 1, 4, 5]", "NLast/NlastWrap4D/GatherWrapperForFourDim", 117, 2,
    "VfGatherBrcForFourDim.LoopStoreUnAlign", 6 },
  /* B64 rank 9, nine alternating axes ending with a broadcast: loopNum = D[0] = 2, shift, dim 9
   * → NlastMoreDimDynamic, outer = 2·(3·2·3·2·3) = 216, sizeI (2, 3, 2, 2): gather4D cube 12,
   * sI = (1, 1, ⌊2/5⌋ = 0): Muls/Add 3, Store 1, all ×216: Σ 33·216 + 3·216 + 6·216 + 6·216
   * + 216 + 216 = 10800 → 10828 (seed FR3: rank 9 multiplies by loopNum) */
  { "int64", "[2, 3, 2, 3, 2, 3, 2, 3, 2]", "[1, 3, 1, 3, 1, 3, 1, 3, 1]",
    "NLast/NlastMoreDimDynamic/GatherWrapperForFourDim", 10828, 432,
    "VfGatherBrcForFourDim.TailAdd", 216 },
  /* constRank 5 merges to (120, 200), dynamic LastWrap2D: 200 unaligned → fallback:
   * LastMoreDimDynamic sizeI (1, 1, 120, 200), 200 > 128: LargerUnaligned4D, BrcLoad 120,
   * StoreUnAlign 240, Post → 20 + 1205 = 1225 */
  { "float16", "[2, 3, 4, 5, 200]", "[2, 3, 4, 5, 1]",
    "Last/LastWrap2D/LastMoreDimDynamic/BrcLastLargerThanVLUnaligned4D", 1225, 1,
    "BrcLastLargerThanVLUnaligned4D.MainStoreUnAlign", 120 },
  /* constRank 6 → runs E(2) B(3) E(4) B(5) E(600): dim 5 → NlastMoreDimDynamic, outer D[0] = 2,
   * sizeI (3, 4, 5, 600): 600 unaligned → LargerUnaligned4D, f = 4: StoreUnAlign 60·5·2 = 600,
   * Post 2 → 20 + 5·602 = 3030 */
  { "float16", "[2, 3, 4, 5, 6, 100]", "[2, 1, 4, 1, 6, 100]",
    "NLast/NlastMoreDimDynamic/BrcNlastLargerThanVLUnaligned4D", 3030, 2,
    "BrcNlastLargerThanVLUnaligned4D.MainStoreUnAlign", 480 },
  /* dynamic NLast large aligned always takes WithBlock: constRank 5 → (2, 3, 4, 5, 256) has
   * runs E(2) B(3) E(4) B(5) E(256): dim 5, sizeI (3, 4, 5, 256), outer 2: 256 is a VL multiple
   * but the dynamic leaf is WithBlock4D: f = 2, UM s1·f·2 = 16, Load/Store 4·2·3·5·2 = 240 →
   * 20 + 3 + 16 + 1200 = 1239 */
  { "float16", "[2, 3, 4, 5, 256]", "[2, 1, 4, 1, 256]",
    "NLast/NlastMoreDimDynamic/BrcNlastLargerThanVLAlignedWithBlock4D", 1239, 2,
    "BrcNlastLargerThanVLAlignedWithBlock4D.UpdateMask", 16 },
};

static void
test_every_leaf_selects_its_branch_and_counts (void **state)
{
  for (size_t i = 0; i < G_N_ELEMENTS (leaf_cases); i++)
    {
      const leaf_case *c = &leaf_cases[i];
      ext (F, c->dtype, c->dst, c->src);
      if (strcmp (branch (F), c->path) != 0 || cost (F) != c->cost || launches (F) != c->launches
          || count (F, c->site) != c->count)
        fail_msg ("case %zu %s %s/%s: path %s (want %s), cost %" G_GINT64_FORMAT " (want %"
                  G_GINT64_FORMAT "), launches %" G_GINT64_FORMAT " (want %" G_GINT64_FORMAT
                  "), %s = %" G_GINT64_FORMAT " (want %" G_GINT64_FORMAT ")", i, c->dtype, c->dst,
                  c->src, branch (F), c->path, cost (F), c->cost, launches (F), c->launches,
                  c->site, count (F, c->site), c->count);
    }
}

/* ------------------------------------------------------------------ ledger details */

/* Seed FR5/FR6: the prelude calls once, never multiplied; placeholders per real API; the
 * B64 prelude keeps int64 while the data path runs on uint32; the Copy keeps the original
 * dtype and its copy_length parameter; the union ledger of a static shape has no ternary. */
static void
test_ledger_rows_dtypes_and_prelude (void **state)
{
  msperf_att_ledger_row *r;

  /* NlastMoreDim multiplies the whole gather by D[0] = 2 but not the prelude */
  ext (F, "int64", "[2, 3, 4, 5]", "[2, 3, 4, 1]");
  r = row (F, "BroadcastExtend.CheckTensorPosDst");
  assert_string_equal (r->data_dtype, "int64");
  assert_int_equal (count (F, "BroadcastExtend.CheckTensorPosSrc"), 1);
  assert_int_equal (count (F, "BroadcastExtend.GetPhyAddrDst"), 1);
  assert_int_equal (count (F, "GatherWrapperForFourDim.PopStackBuffer"), 2);
  r = row (F, "VfGatherBrcForFourDim.LoopGather");
  assert_string_equal (r->data_dtype, "uint32");
  assert_string_equal (r->index_dtype, "uint32");
  assert_string_equal (((msperf_att_component *) g_ptr_array_index (r->components, 0))->perf_type,
                       "Placeholder");
  assert_string_equal (row (F, "VfGenIndexForFourDim.Div0")->data_dtype, "int32");
  /* Div keeps its real key and dtype although the table has no integer row */
  r = row (F, "VfGenIndexForFourDim.Div0");
  assert_string_equal (((msperf_att_component *) g_ptr_array_index (r->components, 0))->perf_type,
                       "Div");
  assert_true (((msperf_att_component *) g_ptr_array_index (r->components, 0))->no_table_entry);

  /* Copy of int64: DataCopy in the original dtype, copy_length AlignUp(30, 4) = 32, Load and
   * Store components ⌈32/32⌉ = 1 (V_T of 8-byte T is 32) */
  ext (F, "int64", "[5, 6]", "[5, 6]");
  r = row (F, "BroadcastExtend.DataCopy");
  assert_string_equal (r->data_dtype, "int64");
  assert_string_equal (r->api_params, "copy_length=32");
  assert_int_equal (component (F, "BroadcastExtend.DataCopy", 0), 1);
  assert_int_equal (component (F, "BroadcastExtend.DataCopy", 1), 1);
  assert_int_equal (n_rows (F), 5);

  /* b8 gather: Gather records data uint8, index uint16, perf dtype uint16; DeInterleave uint8;
   * the index generator int16 (§4.9, seed FR6) */
  ext (F, "uint8", "[4, 16]", "[4, 1]");
  r = row (F, "BrcLastGatherOne.Gather");
  assert_string_equal (r->data_dtype, "uint8");
  assert_string_equal (r->index_dtype, "uint16");
  assert_string_equal (((msperf_att_component *) g_ptr_array_index (r->components, 0))->perf_dtype,
                       "uint16");
  assert_string_equal (row (F, "BrcLastGatherOne.DeInterleave")->data_dtype, "uint8");
  assert_string_equal (row (F, "GenLastGatherIndex.Arange")->data_dtype, "int16");
  assert_int_equal (count (F, "GenLastGatherIndex.Arange"), 2);   /* two b8 launches */
  assert_string_equal (row (F, "LastWrap2D.PopStackBuffer")->data_dtype, "uint8");

  /* GatherB reads a uint32 index for every dtype (seed FR6) */
  ext (F, "float16", "[4, 16]", "[1, 16]");
  assert_string_equal (branch (F), "NLast/NlastWrap2D/BrcNlastGatherBOne");
  assert_string_equal (row (F, "BrcNlastGatherBOne.GatherB")->index_dtype, "uint32");
  assert_string_equal (row (F, "BrcNlastGatherBOne.GatherB")->data_dtype, "uint16");
  assert_string_equal (row (F, "NlastWrap2D.FetchEventIDVS")->mode, "V_S");
  assert_int_equal (count (F, "NlastWrap2D.GetTPipePtrSV"), 1);

  /* B64 data calls use BrcT uint32, the leaf E2B load modes follow BrcT */
  ext (F, "float32", "[64, 8]", "[64, 1]");
  assert_string_equal (row (F, "BrcLastE2B2D.E2bLoad")->mode, "DIST_E2B_B32");
  ext (F, "float16", "[10, 100]", "[10, 1]");
  assert_string_equal (row (F, "BrcLastLessThanVLUnaligned2D.BrcLoad")->mode, "DIST_BRC_B16");
}

/* One ledger row per source slot (seed FR5 「每个源码 slot 独立成行，禁止跨 call_site 合并」,
 * the test list's 「循环内/外、main/tail、复用 load 逐 slot 断言」): straight-line repeats are
 * numbered slots, b8 index halves Low/High, main-loop and tail calls apart. Splitting a row never
 * changes a cost (the same components, the same Σ); each case's cost is the leaf table's. */
static void
test_ledger_one_row_per_source_slot (void **state)
{
  static const char *const gen3[][2] = {
    { "Duplicate", "6" }, { "Div", "3" }, { "Mul", "4" }, { "Sub", "3" }, { "MulAddDst", "2" },
  };

  /* VfGenIndex: CreateMask, Arange, Duplicate0..5, Div0..2, Mul0..3, Sub0..2, MulAddDst0..1,
   * StoreAlign — every row count 1 */
  ext (F, "float32", "[2, 4, 4]", "[2, 4, 1]");
  assert_int_equal (cost (F), 65);
  for (size_t i = 0; i < G_N_ELEMENTS (gen3); i++)
    {
      int n = atoi (gen3[i][1]);
      for (int k = 0; k <= n; k++)
        {
          g_autofree char *site = g_strdup_printf ("VfGenIndex.%s%d", gen3[i][0], k);
          assert_int_equal (count (F, site), k < n ? 1 : -1);
        }
      {
        g_autofree char *bare = g_strdup_printf ("VfGenIndex.%s", gen3[i][0]);
        assert_int_equal (count (F, bare), -1);
      }
    }
  assert_int_equal (count (F, "VfGenIndex.Arange"), 1);
  assert_int_equal (count (F, "VfGatherBrc.Duplicate0"), 1);
  assert_int_equal (count (F, "VfGatherBrc.Duplicate1"), 1);
  assert_int_equal (count (F, "VfGatherBrc.Duplicate"), -1);

  /* b8 3-D gather: VfGenIndexB8.ArangeLow/ArangeHigh (the seed's own example), per-half Div,
   * Mul, Sub, MulAddDst and StoreAlign slots, the six shared Duplicate constants */
  ext (F, "uint8", "[2, 3, 20]", "[2, 1, 20]");
  assert_int_equal (cost (F), 105);
  assert_int_equal (count (F, "VfGenIndexB8.ArangeLow"), 1);
  assert_int_equal (count (F, "VfGenIndexB8.ArangeHigh"), 1);
  assert_int_equal (count (F, "VfGenIndexB8.Arange"), -1);
  assert_int_equal (count (F, "VfGenIndexB8.Duplicate5"), 1);
  assert_int_equal (count (F, "VfGenIndexB8.DuplicateLow0"), -1);
  assert_int_equal (count (F, "VfGenIndexB8.DivLow2"), 1);
  assert_int_equal (count (F, "VfGenIndexB8.DivHigh2"), 1);
  assert_int_equal (count (F, "VfGenIndexB8.MulHigh3"), 1);
  assert_int_equal (count (F, "VfGenIndexB8.MulAddDstLow1"), 1);
  assert_int_equal (count (F, "VfGenIndexB8.StoreAlignHigh"), 1);
  assert_string_equal (row (F, "VfGenIndexB8.SubHigh0")->data_dtype, "int16");

  /* GatherWrapper 3-D over (4, 100, 2) uint32: sI1 = 4, sI2 = 3 → per outer iteration one
   * base (Muls, Add), 3 main steps, one tail: 4 / 12 / 4 (seed total 4·(3+2) = 20) */
  ext (F, "int64", "[4, 100]", "[4, 1]");
  assert_int_equal (cost (F), 152);
  assert_int_equal (count (F, "VfGatherBrc.OuterMuls"), 4);
  assert_int_equal (count (F, "VfGatherBrc.LoopMuls"), 12);
  assert_int_equal (count (F, "VfGatherBrc.TailMuls"), 4);
  assert_int_equal (count (F, "VfGatherBrc.LoopAdd"), 12);
  assert_int_equal (count (F, "VfGatherBrc.OuterGather"), -1);
  assert_int_equal (count (F, "VfGatherBrc.LoopGather"), 12);
  assert_int_equal (count (F, "VfGatherBrc.TailGather"), 4);
  assert_int_equal (count (F, "VfGatherBrc.TailStoreUnAlign"), 4);
  assert_int_equal (count (F, "VfGatherBrc.Muls"), -1);

  /* GatherWrapperForFourDim over (3, 4, 5, 2), twice (NlastMoreDim): (sI1, sI2, sI3) =
   * (1, 1, 3): Outer 1, Middle 1, Loop 3, Tail 1, each × 2 */
  ext (F, "int64", "[2, 3, 4, 5]", "[2, 3, 4, 1]");
  assert_int_equal (count (F, "VfGatherBrcForFourDim.OuterMuls"), 2);
  assert_int_equal (count (F, "VfGatherBrcForFourDim.MiddleAdd"), 2);
  assert_int_equal (count (F, "VfGatherBrcForFourDim.LoopGather"), 6);
  assert_int_equal (count (F, "VfGatherBrcForFourDim.TailStoreUnAlign"), 2);
  assert_int_equal (count (F, "VfGatherBrcForFourDim.Duplicate2"), 2);
  assert_int_equal (count (F, "VfGenIndexForFourDim.Duplicate7"), 2);
  assert_int_equal (count (F, "VfGenIndexForFourDim.MulAddDst2"), 2);

  /* large unaligned: ⌊200/128⌋ = 1 main store per row and the tail store */
  ext (F, "float16", "[10, 200]", "[10, 1]");
  assert_int_equal (count (F, "BrcLastLargerThanVLUnaligned2D.MainStoreUnAlign"), 10);
  assert_int_equal (count (F, "BrcLastLargerThanVLUnaligned2D.TailStoreUnAlign"), 10);
  assert_int_equal (count (F, "BrcLastLargerThanVLUnaligned2D.StoreUnAlign"), -1);
  /* NLast 3-D 300: f = 2 over 6 rows; loads cost nothing, stores 5 each:
   * 20 + 5·(12 + 6 + 1) = 115 */
  ext (F, "float16", "[2, 3, 300]", "[2, 1, 300]");
  assert_int_equal (cost (F), 115);
  assert_int_equal (count (F, "BrcNlastLargerThanVLUnaligned3D.LoadUnAlignPre"), 6);
  assert_int_equal (count (F, "BrcNlastLargerThanVLUnaligned3D.MainLoadUnAlign"), 12);
  assert_int_equal (count (F, "BrcNlastLargerThanVLUnaligned3D.TailLoadUnAlign"), 6);
  assert_int_equal (count (F, "BrcNlastLargerThanVLUnaligned3D.MainStoreUnAlign"), 12);
  assert_int_equal (count (F, "BrcNlastLargerThanVLUnaligned3D.TailStoreUnAlign"), 6);
  assert_int_equal (count (F, "BrcNlastLargerThanVLUnaligned3D.LoadUnAlign"), -1);

  /* 2-D gathers: r = 3 loop stores and the tail store; GatherBTwo r = 1 (UpdateMask was
   * already split) */
  ext (F, "float32", "[64, 4]", "[1, 4]");
  assert_int_equal (count (F, "BrcNlastGatherTwo.LoopStoreUnAlign"), 3);
  assert_int_equal (count (F, "BrcNlastGatherTwo.TailStoreUnAlign"), 1);
  assert_int_equal (count (F, "BrcNlastGatherTwo.StoreUnAlign"), -1);
  ext (F, "float32", "[16, 8]", "[1, 8]");
  assert_int_equal (count (F, "BrcNlastGatherBTwo.LoopStoreAlign"), 1);
  assert_int_equal (count (F, "BrcNlastGatherBTwo.TailStoreAlign"), 1);
  assert_int_equal (count (F, "BrcNlastGatherBTwo.StoreAlign"), -1);
}

/* The b8 template instances — CreateMask<IndexT> in the 2-D gathers, CreateMask<uint16_t>
 * in VfGatherBrcB8 and the uint16 view of the 3-D wrapper's source address are uint16, not uint8;
 * the data calls stay uint8. */
static void
test_b8_template_dtypes (void **state)
{
  static const struct { const char *dst, *src, *leaf; } gathers[] = {
    { "[4, 16]", "[4, 1]", "BrcLastGatherOne" },
    { "[64, 16]", "[64, 1]", "BrcLastGatherTwo" },
    { "[4, 20]", "[1, 20]", "BrcNlastGatherOne" },
    { "[64, 20]", "[1, 20]", "BrcNlastGatherTwo" },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (gathers); i++)
    {
      g_autofree char *site = g_strdup_printf ("%s.CreateMask", gathers[i].leaf);
      ext (F, "uint8", gathers[i].dst, gathers[i].src);
      assert_non_null (strstr (branch (F), gathers[i].leaf));
      assert_string_equal (row (F, site)->data_dtype, "uint16");
      assert_string_equal (((msperf_att_component *) g_ptr_array_index (
                             row (F, site)->components, 0))->perf_dtype, "uint16");
    }
  assert_string_equal (row (F, "BrcNlastGatherTwo.TailStoreUnAlign")->data_dtype, "uint8");
  ext (F, "int8", "[2, 3, 20]", "[2, 1, 20]");
  assert_string_equal (row (F, "VfGatherBrcB8.CreateMask")->data_dtype, "uint16");
  assert_string_equal (row (F, "GatherWrapper.GetPhyAddrSrc")->data_dtype, "uint16");
  assert_string_equal (row (F, "GatherWrapper.PopStackBuffer")->data_dtype, "uint16");
  assert_string_equal (row (F, "VfGatherBrcB8.LoopDeInterleave")->data_dtype, "uint8");
  /* the other widths: IndexT is BrcT, nothing changes */
  ext (F, "float32", "[2, 4, 4]", "[2, 4, 1]");
  assert_string_equal (row (F, "VfGatherBrc.CreateMask")->data_dtype, "uint32");
  assert_string_equal (row (F, "GatherWrapper.GetPhyAddrSrc")->data_dtype, "uint32");
}

/* ------------------------------------------------------------------ standalone Duplicate */

typedef struct {
  const char *att;
  int64_t cost;
  guint rows;
  const char *site;
  int64_t component;       /* component count of site's first component */
} dup_case;

static const dup_case dup_cases[] = {
  /* constant float16: Duplicate once, component ⌈300/128⌉ = 3 (8,1) → 20 + 8 + 3 = 31 */
  { "{\"kind\": \"duplicate\", \"dtype\": \"float16\", \"count\": 300, \"source_kind\": "
    "\"kConstant\"}", 31, 1, "Duplicate.Duplicate", 3 },
  /* UB scalar: prepared by its producer, nothing more (seed FR5 ownership) */
  { "{\"kind\": \"duplicate\", \"dtype\": \"float16\", \"count\": 300, \"source_kind\": "
    "\"kUbScalar\"}", 31, 1, "Duplicate.Duplicate", 3 },
  /* VecIn: GetTPipePtr, FetchEventID/SetFlag/WaitFlag (MTE2_S), GetValue as placeholders */
  { "{\"kind\": \"duplicate\", \"dtype\": \"float16\", \"count\": 300, \"source_kind\": "
    "\"kTensorVecIn\"}", 31, 6, "BroadcastScalar.SetFlag", 1 },
  /* VecCalc: the same with V_S */
  { "{\"kind\": \"duplicate\", \"dtype\": \"float32\", \"count\": 300, \"source_kind\": "
    "\"kTensorVecCalc\"}", 33, 6, "Duplicate.Duplicate", 5 },
  /* other Tensor: GetValue only; float32 ⌈300/64⌉ = 5 → 20 + 8 + 5 = 33 */
  { "{\"kind\": \"duplicate\", \"dtype\": \"float32\", \"count\": 300, \"source_kind\": "
    "\"kTensorOther\"}", 33, 2, "BroadcastScalar.GetValue", 1 },
  /* uint8 (FORMATS §2 example): ReinterpretCast, GetSize, Duplicate<uint16> of
   * ⌈320/2⌉ = 160 elements → component ⌈160/128⌉ = 2 → 20 + 8 + 2 = 30 */
  { "{\"kind\": \"duplicate\", \"dtype\": \"uint8\", \"count\": 300, \"dst_view_size\": 320, "
    "\"source_kind\": \"kTensorVecIn\"}", 30, 8, "DuplicateB8.Duplicate", 2 },
  /* int8 uses count: ⌈301/2⌉ = 151 → ⌈151/128⌉ = 2; no GetSize */
  { "{\"kind\": \"duplicate\", \"dtype\": \"int8\", \"count\": 301, \"source_kind\": "
    "\"kConstant\"}", 30, 2, "DuplicateB8.ReinterpretCast", 1 },
  /* bool: Duplicate<bool> kept in the ledger although the table has no bool row → 20 */
  { "{\"kind\": \"duplicate\", \"dtype\": \"bool\", \"count\": 300, \"source_kind\": "
    "\"kConstant\"}", 20, 1, "Duplicate.Duplicate", 2 },
  /* B64 three-argument Duplicate: component ⌈100/32⌉ = 4 with no int64 row → 20 */
  { "{\"kind\": \"duplicate\", \"dtype\": \"int64\", \"count\": 100, \"source_kind\": "
    "\"kConstant\"}", 20, 1, "Duplicate.Duplicate", 4 },
};

static void
test_duplicate_source_kinds_and_b8_overloads (void **state)
{
  msperf_att_ledger_row *r;

  for (size_t i = 0; i < G_N_ELEMENTS (dup_cases); i++)
    {
      const dup_case *c = &dup_cases[i];
      att (F, c->att);
      if (cost (F) != c->cost || n_rows (F) != c->rows || component (F, c->site, 0) != c->component)
        fail_msg ("case %zu: cost %" G_GINT64_FORMAT " rows %u %s %" G_GINT64_FORMAT, i, cost (F),
                  n_rows (F), c->site, component (F, c->site, 0));
      assert_int_equal (count (F, c->site), 1);
      assert_int_equal (launches (F), 1);
    }
  /* the api parameter is the external count; bool keeps its dtype; modes name the sync */
  att (F, dup_cases[3].att);
  assert_string_equal (row (F, "BroadcastScalar.FetchEventID")->mode, "V_S");
  att (F, dup_cases[2].att);
  assert_string_equal (row (F, "BroadcastScalar.WaitFlag")->mode, "MTE2_S");
  att (F, dup_cases[5].att);
  r = row (F, "DuplicateB8.Duplicate");
  assert_string_equal (r->api_params, "count=160");
  assert_string_equal (r->data_dtype, "uint16");
  assert_int_equal (count (F, "DuplicateB8.GetSize"), 1);
  att (F, dup_cases[7].att);
  assert_string_equal (row (F, "Duplicate.Duplicate")->data_dtype, "bool");
  assert_true (((msperf_att_component *) g_ptr_array_index (
                 row (F, "Duplicate.Duplicate")->components, 0))->no_table_entry);
  /* symbolic count: the component stays an expression, bound through att.bind */
  att (F, "{\"kind\": \"duplicate\", \"dtype\": \"float16\", \"count\": \"n\", "
          "\"bind\": {\"n\": 300}}");
  assert_string_equal (msperf_expr_str (F->m.expression), "(28 + Ceiling((Rational(1 , 128) * n)))");
  assert_int_equal (eval_int (F->m.expression, F->p.bindings), 31);
}

/* ------------------------------------------------------------------ refusals */

static void
test_refusals_name_the_problem (void **state)
{
  static const char *const bad[][2] = {
    { "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", \"dst_shapes\": [], "
      "\"src_shapes\": []}", "rank 0 is outside 1..9" },
    { "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", \"dst_shapes\": [1,1,1,1,1,1,1,1,1,1],"
      " \"src_shapes\": [1,1,1,1,1,1,1,1,1,1]}", "rank 10 is outside 1..9" },
    { "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", \"dst_shapes\": [4, 8], "
      "\"src_shapes\": [4]}", "dst_shapes has 2 entries but src_shapes has 1" },
    { "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", \"dst_shapes\": [4, 0], "
      "\"src_shapes\": [4, 1]}", "att.dst_shapes[1] is 0" },
    { "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", \"dst_shapes\": [4, 8], "
      "\"src_shapes\": [4, 3]}", "src_shapes[1] = 3 must be 1 or equal dst_shapes[1] = 8" },
    { "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", \"dst_shapes\": [4, \"a b\"], "
      "\"src_shapes\": [4, 1]}", "att.dst_shapes[1]: expected an integer" },
    { "{\"kind\": \"broadcast_extend\", \"dtype\": \"float99\", \"dst_shapes\": [4], "
      "\"src_shapes\": [1]}", "unknown dtype 'float99'" },
    { "{\"kind\": \"broadcast_extend\", \"dtype\": \"float64\", \"dst_shapes\": [4], "
      "\"src_shapes\": [1]}", "dtype float64 is not supported" },
    { "{\"kind\": \"broadcast_extend\", \"dtype\": \"int4\", \"dst_shapes\": [4], "
      "\"src_shapes\": [1]}", "dtype int4 is not supported" },
    { "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", \"src_shapes\": [1]}",
      "att.dst_shapes is missing" },
    { "{\"kind\": \"duplicate\", \"dtype\": \"float16\"}", "att.count is missing" },
    { "{\"kind\": \"duplicate\", \"dtype\": \"float16\", \"count\": 4, \"source_kind\": \"kFoo\"}",
      "'kFoo' is not one of" },
    { "{\"kind\": \"duplicate\", \"dtype\": \"uint8\", \"count\": 4}", "needs att.dst_view_size" },
    { "{\"kind\": \"duplicate\", \"dtype\": \"float16\", \"count\": 4, \"bind\": [1]}",
      "att.bind: expected an object" },
    { "{\"kind\": \"gather\", \"dtype\": \"float16\"}", "is not broadcast_extend or duplicate" },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      fx_reset (F);
      assert_false (try_att (F, bad[i][0], &error));
      if (strstr (error->message, bad[i][1]) == NULL)
        fail_msg ("case %zu: '%s' does not contain '%s'", i, error->message, bad[i][1]);
      assert_null (F->m.branches);   /* never a partial model */
    }
}

/* Domain limits of seed "assumptions": each at the edge (accepted) and one past (refused). */
static void
test_domain_limits_edge_and_one_past (void **state)
{
  static const struct { const char *att; const char *refusal; } cases[] = {
    /* uint16 wrapper sizes: dst 65535 rows */
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"float32\",\"dst_shapes\":[65535,100],"
      "\"src_shapes\":[65535,1]}", NULL },
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"float32\",\"dst_shapes\":[65536,100],"
      "\"src_shapes\":[65536,1]}", "a tiling dstShape entry" },
    /* b16 ordinary Gather: the largest index a·b − 1 = 65535 fits, 65537 does not */
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"float16\",\"dst_shapes\":[2,32768,20],"
      "\"src_shapes\":[2,32768,1]}", NULL },
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"float16\",\"dst_shapes\":[3,21846,20],"
      "\"src_shapes\":[3,21846,1]}", "16-bit index consumer" },
    /* b32 gathers use a 32-bit index: the same shape is accepted */
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"float32\",\"dst_shapes\":[3,21846,4],"
      "\"src_shapes\":[3,21846,1]}", NULL },
    /* Copy: no uint16 limit, but AlignUp(dstSize, 16) in uint32: UINT32_MAX − 15 fits */
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"float16\",\"dst_shapes\":[4294967280],"
      "\"src_shapes\":[4294967280]}", NULL },
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"float16\",\"dst_shapes\":[4294967281],"
      "\"src_shapes\":[4294967281]}", "AlignUp bound" },
    /* uint32 products */
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"float32\",\"dst_shapes\":[65536,65536],"
      "\"src_shapes\":[1,65536]}", "dstSize (uint32)" },
    /* BrcDuplicate's uint16 repeatTimes: ⌈8388480/128⌉ = 65535 fits, 8388608 gives 65536 */
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"float16\",\"dst_shapes\":[8388480],"
      "\"src_shapes\":[1]}", NULL },
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"float16\",\"dst_shapes\":[8388608],"
      "\"src_shapes\":[1]}", "BrcDuplicate repeatTimes" },
    /* the rank-9 8-byte loopNum is a uint16 loop */
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"int64\",\"dst_shapes\":[65535,2,2,2,2,2,2,2,2],"
      "\"src_shapes\":[1,2,1,2,1,2,1,2,1]}", NULL },
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"int64\",\"dst_shapes\":[65536,2,2,2,2,2,2,2,2],"
      "\"src_shapes\":[1,2,1,2,1,2,1,2,1]}", "loopNum" },
    /* the more-dim outer strides are uint32: dstStride[0] = 65536, srcStride[0] = 16384 */
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"int8\",\"dst_shapes\":[2,2,2,2,8192],"
      "\"src_shapes\":[2,1,2,1,8192]}", NULL },
    /* … up to UINT32_MAX: srcStride[0] = 8192·8192·… is bounded by dstSize (uint32) */
    { "{\"kind\":\"broadcast_extend\",\"dtype\":\"int8\",\"dst_shapes\":[2,2,2,2,65535],"
      "\"src_shapes\":[2,1,2,1,65535]}", NULL },
    /* Duplicate counts: int32 for the ordinary overload */
    { "{\"kind\":\"duplicate\",\"dtype\":\"float16\",\"count\":2147483647}", NULL },
    { "{\"kind\":\"duplicate\",\"dtype\":\"float16\",\"count\":2147483648}", "(int32)" },
    { "{\"kind\":\"duplicate\",\"dtype\":\"bool\",\"count\":2147483648}", "(int32)" },
    /* int8 size + 1 in int32: INT32_MAX − 1 fits */
    { "{\"kind\":\"duplicate\",\"dtype\":\"int8\",\"count\":2147483646}", NULL },
    { "{\"kind\":\"duplicate\",\"dtype\":\"int8\",\"count\":2147483647}", "size + 1 in int32" },
    /* uint8: the view size is the consumer; count only has to fit uint32 */
    { "{\"kind\":\"duplicate\",\"dtype\":\"uint8\",\"count\":4294967295,"
      "\"dst_view_size\":2147483646}", NULL },
    { "{\"kind\":\"duplicate\",\"dtype\":\"uint8\",\"count\":4,\"dst_view_size\":2147483647}",
      "size + 1 in int32" },
    { "{\"kind\":\"duplicate\",\"dtype\":\"uint8\",\"count\":4294967296,\"dst_view_size\":4}",
      "count (uint32)" },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      gboolean ok;

      fx_reset (F);
      ok = try_att (F, cases[i].att, &error);
      if (cases[i].refusal == NULL && !ok)
        fail_msg ("case %zu refused: %s", i, error->message);
      if (cases[i].refusal != NULL && (ok || strstr (error->message, cases[i].refusal) == NULL))
        fail_msg ("case %zu: expected a refusal with '%s', got %s", i, cases[i].refusal,
                  ok ? "a model" : error->message);
    }
  /* reproducer: E(2) B(2) E(2) B(2) E(8192) int8 is dim 5 → NlastMoreDimDynamic, outer
   * 2, sizeI (2, 2, 2, 8192) large aligned → WithBlock4D: f = 32, UM 2·32·2 = 128, Store
   * 2·32·2·2·2 = 512 (5 each) → 20 + 3 + 128 + 2560 = 2711 */
  ext (F, "int8", "[2, 2, 2, 2, 8192]", "[2, 1, 2, 1, 8192]");
  assert_string_equal (branch (F), "NLast/NlastMoreDimDynamic/BrcNlastLargerThanVLAlignedWithBlock4D");
  assert_int_equal (cost (F), 2711);
  /* the 65536-element Duplicate body of the int8 overload (⌈131072/2⌉ = 65536) is fine */
  att (F, "{\"kind\":\"duplicate\",\"dtype\":\"int8\",\"count\":131072}");
  assert_string_equal (row (F, "DuplicateB8.Duplicate")->api_params, "count=65536");
}
/* ------------------------------------------------------------------ symbolic shapes */

static gboolean
same_identity (const msperf_att_ledger_row *a, const msperf_att_ledger_row *b)
{
  g_autofree char *ra = a->api_params ? g_strndup (a->api_params, strcspn (a->api_params, "="))
                                      : NULL;
  g_autofree char *rb = b->api_params ? g_strndup (b->api_params, strcspn (b->api_params, "="))
                                      : NULL;

  return strcmp (a->call_site, b->call_site) == 0 && strcmp (a->real_api, b->real_api) == 0
         && g_strcmp0 (a->data_dtype, b->data_dtype) == 0
         && g_strcmp0 (a->index_dtype, b->index_dtype) == 0 && g_strcmp0 (a->mode, b->mode) == 0
         && g_strcmp0 (ra, rb) == 0;
}

/* Every non-zero row of the symbolic union ledger, specialised with bindings, equals the row of
 * the static ledger (call count and every component's type, dtype and count), and the other way
 * round; the costs and launches agree. Returns a description of the first difference or NULL. */
static char *
compare_models (fx *sym, fx *st, GHashTable *bindings)
{
  GPtrArray *srows = msperf_att_vf_ledger (sym->m.ledger);
  GPtrArray *trows = msperf_att_vf_ledger (st->m.ledger);
  guint nonzero = 0, static_nonzero = 0;

  if (eval_int (sym->m.expression, bindings) != eval_int (st->m.expression, NULL))
    return g_strdup_printf ("cost %" G_GINT64_FORMAT " vs static %" G_GINT64_FORMAT,
                            eval_int (sym->m.expression, bindings), eval_int (st->m.expression, NULL));
  if (eval_int (sym->m.launches, bindings) != eval_int (st->m.launches, NULL))
    return g_strdup ("vf_launches differ");
  for (guint i = 0; i < srows->len; i++)
    {
      msperf_att_ledger_row *a = g_ptr_array_index (srows, i), *b = NULL;
      int64_t n = eval_int (a->call_count, bindings);

      if (n == 0)
        continue;
      nonzero++;
      for (guint j = 0; j < trows->len && b == NULL; j++)
        if (same_identity (a, g_ptr_array_index (trows, j)))
          b = g_ptr_array_index (trows, j);
      if (b == NULL)
        return g_strdup_printf ("row %s/%s only in the symbolic ledger", a->call_site, a->real_api);
      if (n != eval_int (b->call_count, NULL))
        return g_strdup_printf ("row %s: count %" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT,
                                a->call_site, n, eval_int (b->call_count, NULL));
      if (a->components->len != b->components->len)
        return g_strdup_printf ("row %s: component lists differ", a->call_site);
      for (guint k = 0; k < a->components->len; k++)
        {
          msperf_att_component *x = g_ptr_array_index (a->components, k);
          msperf_att_component *y = g_ptr_array_index (b->components, k);
          if (strcmp (x->perf_type, y->perf_type) != 0 || g_strcmp0 (x->perf_dtype, y->perf_dtype) != 0
              || eval_int (x->count, bindings) != eval_int (y->count, NULL))
            return g_strdup_printf ("row %s: component %u differs", a->call_site, k);
        }
    }
  for (guint j = 0; j < trows->len; j++)
    if (eval_int (((msperf_att_ledger_row *) g_ptr_array_index (trows, j))->call_count, NULL) != 0)
      static_nonzero++;
  if (nonzero != static_nonzero)
    return g_strdup_printf ("%u non-zero symbolic rows, %u static", nonzero, static_nonzero);
  return NULL;
}

/* The bindings of a bind object text in f's context, parsed as the module parses att.bind. The
 * property tests pass them to the evaluation only: put into att.bind they would fold into the
 * shapes before the enumeration and the model would be static. */
static GHashTable *
bindings_of (fx *f, const char *bind_json)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *line = g_strdup_printf ("{\"op\": \"x\", \"att\": {\"kind\": \"duplicate\", "
                                           "\"dtype\": \"float16\", \"count\": 1, \"bind\": %s}}",
                                           bind_json);
  g_autoptr (msperf_op) op = msperf_trace_parse_op (line, "test", 1, &error);
  brc_params p;
  GHashTable *b;

  assert_non_null (op);
  brc_params_init (&p);
  if (!brc_params_from_value (f->ctx, op->att, &p, &error))
    fail_msg ("%s: %s", bind_json, error->message);
  b = g_hash_table_ref (p.bindings);
  brc_params_clear (&p);
  return b;
}

typedef struct {
  int compared, branching, max_branches;
} property_stats;

/* One random shape: the static model against the symbolic model of the same shape with
 * n_sym_max axes symbolic (dst a symbol; src 1, the same symbol, or — when distinct is set —
 * another symbol bound to src's value), its symbols bound at evaluation. */
static void
property_once (GRand *rand, int rank, int n_sym_max, gboolean distinct, property_stats *ps)
{
  static const int64_t sizes[] = { 1, 2, 3, 4, 5, 7, 8, 16, 20, 24, 32, 33, 40, 63, 64, 65, 96,
                                   100, 128, 129, 144, 200, 256, 300 };
  static const char *const dtypes[] = { "uint8", "int8", "bool", "float16", "bfloat16", "int16",
                                        "float32", "int32", "int64", "uint64" };
  const char *dtype = dtypes[g_rand_int_range (rand, 0, G_N_ELEMENTS (dtypes))];
  g_autoptr (GString) dst = g_string_new ("["), src = g_string_new ("[");
  g_autoptr (GString) sdst = g_string_new ("["), ssrc = g_string_new ("[");
  g_autoptr (GString) bind = g_string_new ("{");
  g_autofree char *sj = NULL, *tj = NULL, *diff = NULL;
  g_autoptr (GError) error = NULL;
  fx *sym = fx_new (), *st = fx_new ();
  int n_sym = 0;

  for (int i = 0; i < rank; i++)
    {
      int64_t d = sizes[g_rand_int_range (rand, 0, rank > 4 ? 10 : G_N_ELEMENTS (sizes))];
      gboolean brc = g_rand_int_range (rand, 0, 5) < 2;
      gboolean symbolic = n_sym < n_sym_max && (n_sym_max >= rank || g_rand_boolean (rand));
      const char *sep = i > 0 ? ", " : "";

      g_string_append_printf (dst, "%s%" G_GINT64_FORMAT, sep, d);
      g_string_append_printf (src, "%s%" G_GINT64_FORMAT, sep, brc ? 1 : d);
      if (symbolic)
        {
          int how = distinct ? g_rand_int_range (rand, 0, 4) : 1;
          g_string_append_printf (sdst, "%s\"d%d\"", sep, i);
          if (how == 0)
            g_string_append_printf (ssrc, "%s\"e%d\"", sep, i);
          else if (brc)
            g_string_append_printf (ssrc, "%s1", sep);
          else
            g_string_append_printf (ssrc, "%s\"d%d\"", sep, i);
          g_string_append_printf (bind, "%s\"d%d\": %" G_GINT64_FORMAT, n_sym > 0 ? ", " : "",
                                  i, d);
          if (how == 0)
            g_string_append_printf (bind, ", \"e%d\": %" G_GINT64_FORMAT, i, brc ? 1 : d);
          n_sym++;
        }
      else
        {
          g_string_append_printf (sdst, "%s%" G_GINT64_FORMAT, sep, d);
          g_string_append_printf (ssrc, "%s%" G_GINT64_FORMAT, sep, brc ? 1 : d);
        }
    }
  g_string_append (dst, "]");
  g_string_append (src, "]");
  g_string_append (sdst, "]");
  g_string_append (ssrc, "]");
  g_string_append (bind, "}");
  tj = g_strdup_printf ("{\"kind\": \"broadcast_extend\", \"dtype\": \"%s\", \"dst_shapes\": %s, "
                        "\"src_shapes\": %s}", dtype, dst->str, src->str);
  sj = g_strdup_printf ("{\"kind\": \"broadcast_extend\", \"dtype\": \"%s\", \"dst_shapes\": %s, "
                        "\"src_shapes\": %s}", dtype, sdst->str, ssrc->str);
  if (try_att (st, tj, &error))
    {
      if (!try_att (sym, sj, &error))
        fail_msg ("%s refused: %s", sj, error->message);
      else
        {
          g_autoptr (GHashTable) b = bindings_of (sym, bind->str);
          diff = compare_models (sym, st, b);
          if (diff != NULL)
            fail_msg ("%s bound %s\nvs %s:\n%s (static branch %s)", sj, bind->str, tj, diff,
                      ((brc_branch *) g_ptr_array_index (st->m.branches, 0))->name);
          ps->compared++;
          ps->branching += sym->m.branches->len > 1;
          ps->max_branches = MAX (ps->max_branches, (int) sym->m.branches->len);
        }
    }
  fx_free (sym);
  fx_free (st);
}

/* The seed's large shape: rank 9 with nine symbols, src 1, s1, 1, s3, … (2^5 B/E
 * states, 508–736 branches by dtype, above a 512-branch cap): one symbolic model per
 * dtype, specialised at random sizes against the static model of each. */
static void
formerly_capped (GRand *rand, property_stats *ps)
{
  static const char *const dtypes[] = { "float16", "int8", "int64", "float32" };
  static const int64_t sizes[] = { 1, 2, 3, 4, 8, 16, 33, 64 };

  for (size_t k = 0; k < G_N_ELEMENTS (dtypes); k++)
    {
      fx *sym = fx_new ();
      g_autofree char *sj = g_strdup_printf (
        "{\"kind\": \"broadcast_extend\", \"dtype\": \"%s\", \"dst_shapes\": [\"s0\", \"s1\", "
        "\"s2\", \"s3\", \"s4\", \"s5\", \"s6\", \"s7\", \"s8\"], \"src_shapes\": [1, \"s1\", 1, "
        "\"s3\", 1, \"s5\", 1, \"s7\", 1]}", dtypes[k]);

      att (sym, sj);
      ps->max_branches = MAX (ps->max_branches, (int) sym->m.branches->len);
      for (int it = 0; it < 6; it++)
        {
          g_autoptr (GString) dst = g_string_new ("["), src = g_string_new ("[");
          g_autoptr (GString) bind = g_string_new ("{");
          g_autofree char *tj = NULL, *diff = NULL;
          g_autoptr (GHashTable) b = NULL;
          g_autoptr (GError) error = NULL;
          fx *st = fx_new ();

          for (int i = 0; i < 9; i++)
            {
              /* small sizes: the static shape stays inside the uint16/uint32 domain */
              int64_t d = sizes[g_rand_int_range (rand, 0, i == 8 ? 8 : 5)];
              g_string_append_printf (dst, "%s%" G_GINT64_FORMAT, i ? ", " : "", d);
              g_string_append_printf (src, "%s%" G_GINT64_FORMAT, i ? ", " : "", i % 2 ? d : 1);
              g_string_append_printf (bind, "%s\"s%d\": %" G_GINT64_FORMAT, i ? ", " : "", i, d);
            }
          g_string_append (dst, "]");
          g_string_append (src, "]");
          g_string_append (bind, "}");
          tj = g_strdup_printf ("{\"kind\": \"broadcast_extend\", \"dtype\": \"%s\", "
                                "\"dst_shapes\": %s, \"src_shapes\": %s}", dtypes[k], dst->str,
                                src->str);
          if (try_att (st, tj, &error))
            {
              b = bindings_of (sym, bind->str);
              diff = compare_models (sym, st, b);
              if (diff != NULL)
                fail_msg ("%s bound %s vs %s: %s", sj, bind->str, tj, diff);
              ps->compared++;
            }
          fx_free (st);
        }
      fx_free (sym);
    }
}

/* The property the seed demands (§验收标准): for random shapes, binding the symbols of the
 * symbolic model gives exactly the ledger and the cost of the static model. Ranks 1..9 with a
 * few symbols, then fully symbolic rank 6..9 shapes — refused by a 512-branch cap
 * and inside the work bound. */
static void
test_symbolic_model_specialises_to_static_model (void **state)
{
  GRand *rand = g_rand_new_with_seed (20260811);
  property_stats few = { 0 }, full = { 0 };

  (void) state;
  for (int it = 0; it < 300; it++)
    {
      int rank = g_rand_int_range (rand, 0, 4) == 0 ? g_rand_int_range (rand, 5, 10)
                                                     : g_rand_int_range (rand, 1, 5);
      property_once (rand, rank, rank > 4 ? 2 : 3, TRUE, &few);
    }
  for (int it = 0; it < 12; it++)
    property_once (rand, g_rand_int_range (rand, 6, 10), 9, FALSE, &full);
  formerly_capped (rand, &full);
  g_rand_free (rand);
  /* the property was really exercised, with real branching */
  assert_true (few.compared >= 200);
  assert_true (few.branching >= 100);
  assert_true (full.compared >= 8 + 24);
  assert_true (full.max_branches > 512);
}

/* FORMATS §2's example: the expression is the named ternary; the nested conditions appear in
 * the kernel's order (NlastWrap3D: s2 < HALF, then s2 <= VF, then alignment); binding s0 gives
 * the static values. */
static void
test_symbolic_expression_nests_in_source_order (void **state)
{
  g_autofree char *inlined = NULL;
  const char *def;
  static const int64_t s0[] = { 20, 100, 128, 200, 256, 384 };

  ext (F, "float16", "[8, 16, \"s0\"]", "[8, 1, \"s0\"]");
  assert_string_equal (msperf_expr_str (F->m.expression), "broadcast_cost");
  def = msperf_expr_str (msperf_expr_ctx_lookup (F->ctx, "broadcast_cost"));
  assert_true (g_str_has_prefix (def, "TernaryOp(s0 < 64, "));
  assert_non_null (strstr (def, "TernaryOp(s0 <= 128, "));
  assert_non_null (strstr (def, "TernaryOp(IsEqual(Mod(s0, 16), 0), TernaryOp(IsEqual(Mod(s0, 128), 0)"));
  inlined = msperf_expr_str_inlined (F->m.expression, NULL);
  assert_true (g_str_has_prefix (inlined, "TernaryOp(s0 < 64, "));
  /* the zero-count rows of other branches stay in the union ledger as ternaries */
  assert_string_equal (msperf_expr_str (row (F, "VfGenIndex.Arange")->call_count),
                       "TernaryOp(s0 < 64, 1, 0)");
  for (size_t i = 0; i < G_N_ELEMENTS (s0); i++)
    {
      g_autoptr (GHashTable) b = g_hash_table_new (g_str_hash, g_str_equal);
      fx *st = fx_new ();
      g_autofree char *dst = g_strdup_printf ("[8, 16, %" G_GINT64_FORMAT "]", s0[i]);
      g_autofree char *src = g_strdup_printf ("[8, 1, %" G_GINT64_FORMAT "]", s0[i]);
      g_autofree char *diff = NULL;

      g_hash_table_insert (b, (gpointer) "s0", msperf_expr_int (F->ctx, s0[i]));
      ext (st, "float16", dst, src);
      diff = compare_models (F, st, b);
      if (diff != NULL)
        fail_msg ("s0 = %" G_GINT64_FORMAT ": %s", s0[i], diff);
      fx_free (st);
    }
}

/* Rank-4 leading-1 skip with symbolic shapes: IsEqual(a, 1) decides between the 3-D and the 4-D
 * wrapper; both specialise to the static model. Rank 5..9 symbolic axis kinds too. */
static void
test_symbolic_rank4_skip_and_rank9_kinds (void **state)
{
  static const struct { const char *sym, *bind, *st; } cases[] = {
    { "\"dst_shapes\": [\"a\", 3, 4, 100], \"src_shapes\": [\"a\", 3, 4, 1]", "{\"a\": 1}",
      "\"dst_shapes\": [1, 3, 4, 100], \"src_shapes\": [1, 3, 4, 1]" },
    { "\"dst_shapes\": [\"a\", 3, 4, 100], \"src_shapes\": [\"a\", 3, 4, 1]", "{\"a\": 2}",
      "\"dst_shapes\": [2, 3, 4, 100], \"src_shapes\": [2, 3, 4, 1]" },
    { "\"dst_shapes\": [\"a\", 3, 4, 100], \"src_shapes\": [1, 1, 4, 100]", "{\"a\": 1}",
      "\"dst_shapes\": [1, 3, 4, 100], \"src_shapes\": [1, 1, 4, 100]" },
    { "\"dst_shapes\": [\"a\", 3, 4, 100], \"src_shapes\": [1, 1, 4, 100]", "{\"a\": 5}",
      "\"dst_shapes\": [5, 3, 4, 100], \"src_shapes\": [1, 1, 4, 100]" },
    /* rank 9: whether axis 0 and 8 are broadcast changes the merged rank and the leaf */
    { "\"dst_shapes\": [\"a\", 2, 2, 2, 2, 2, 2, 2, \"b\"], \"src_shapes\": [1, 2, 1, 2, 1, 2, 1, 2, 1]",
      "{\"a\": 1, \"b\": 1}",
      "\"dst_shapes\": [1, 2, 2, 2, 2, 2, 2, 2, 1], \"src_shapes\": [1, 2, 1, 2, 1, 2, 1, 2, 1]" },
    { "\"dst_shapes\": [\"a\", 2, 2, 2, 2, 2, 2, 2, \"b\"], \"src_shapes\": [1, 2, 1, 2, 1, 2, 1, 2, 1]",
      "{\"a\": 3, \"b\": 40}",
      "\"dst_shapes\": [3, 2, 2, 2, 2, 2, 2, 2, 40], \"src_shapes\": [1, 2, 1, 2, 1, 2, 1, 2, 1]" },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      for (int d = 0; d < 2; d++)
        {
          const char *dtype = d == 0 ? "float16" : "int64";
          g_autofree char *sj = g_strdup_printf ("{\"kind\": \"broadcast_extend\", \"dtype\": \"%s\", "
                                                 "%s}", dtype, cases[i].sym);
          g_autoptr (GHashTable) b = NULL;
          g_autofree char *tj = g_strdup_printf ("{\"kind\": \"broadcast_extend\", \"dtype\": \"%s\", "
                                                 "%s}", dtype, cases[i].st);
          g_autofree char *diff = NULL;
          fx *st = fx_new ();

          att (F, sj);
          att (st, tj);
          assert_true (F->m.branches->len > 1);
          b = bindings_of (F, cases[i].bind);
          diff = compare_models (F, st, b);
          if (diff != NULL)
            fail_msg ("%s: %s", sj, diff);
          fx_free (st);
        }
    }
  /* the static 3-D skip really happened for a = 1 */
  att (F, "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", \"dst_shapes\": [1, 3, 4, 100], "
          "\"src_shapes\": [1, 3, 4, 1]}");
  assert_non_null (strstr (branch (F), "SkipLeading1"));
}

/* The real B/E space is enumerated (one decision per axis) under a measured work
 * bound, not a fixed branch cap. The seed's rank-9 example with 2^5 unknown B/E states is
 * modelled; eighteen free symbols (2^9 B/E states) exceed the bound and are refused with a
 * message; att.bind folds before the enumeration, so binding them gives the static model. */
static void
test_symbolic_branch_limit_is_refused (void **state)
{
  g_autoptr (GError) error = NULL;
  static const char *const distinct =
    "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", "
    "\"dst_shapes\": [\"d0\",\"d1\",\"d2\",\"d3\",\"d4\",\"d5\",\"d6\",\"d7\",\"d8\"], "
    "\"src_shapes\": [\"e0\",\"e1\",\"e2\",\"e3\",\"e4\",\"e5\",\"e6\",\"e7\",\"e8\"]%s}";
  g_autofree char *refused = g_strdup_printf (distinct, "");
  g_autofree char *bound = g_strdup_printf (distinct, ", \"bind\": {\"d0\": 4, \"e0\": 1, "
    "\"d1\": 3, \"e1\": 3, \"d2\": 1, \"e2\": 1, \"d3\": 5, \"e3\": 5, \"d4\": 2, \"e4\": 1, "
    "\"d5\": 6, \"e5\": 6, \"d6\": 7, \"e6\": 1, \"d7\": 2, \"e7\": 2, \"d8\": 100, \"e8\": 1}");
  fx *st = fx_new ();
  g_autofree char *diff = NULL;

  /* above a 512-branch cap: 736 static branches for float16 */
  att (F, "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", "
          "\"dst_shapes\": [\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"], "
          "\"src_shapes\": [1, \"b\", 1, \"d\", 1, \"f\", 1, \"h\", 1]}");
  assert_int_equal (F->m.branches->len, 736);
  /* a symbolic src decides its axis with one condition (src < dst: B), not two */
  fx_reset (F);
  assert_false (try_att (F, refused, &error));
  assert_non_null (strstr (error->message, "more than 2500 static branches"));
  assert_non_null (strstr (error->message, "--bind"));
  assert_null (F->m.branches);
  /* bound: folded before the enumeration, one static branch equal to the static model */
  att (F, bound);
  assert_int_equal (F->m.branches->len, 1);
  ext (st, "float16", "[4, 3, 1, 5, 2, 6, 7, 2, 100]", "[1, 3, 1, 5, 1, 6, 1, 2, 1]");
  diff = compare_models (F, st, NULL);
  if (diff != NULL)
    fail_msg ("%s", diff);
  assert_string_equal (branch (F), branch (st));
  fx_free (st);
}

/* Reproducer: [a, 2, 2, 2, 8192] / [1, 1, 2, 1, 8192] int8. For a = 1 the axes are
 * E(1) B(2) E(2) B(2) E(8192): dim 5 → NlastMoreDimDynamic / WithBlock4D, 1367 (f = 32, UM
 * 2·32 = 64, Store 256·5: 20 + 3 + 64 + 1280); its outer dstStride 65536 is a uint32 and no
 * longer drops the arm (which left only the a ≠ 1 arm, NlastWrap4D/WithVL, 1300). */
static void
test_more_dim_outer_strides_are_uint32 (void **state)
{
  g_autoptr (GHashTable) one = NULL;
  gboolean found = FALSE;

  att (F, "{\"kind\": \"broadcast_extend\", \"dtype\": \"int8\", "
          "\"dst_shapes\": [\"a\", 2, 2, 2, 8192], \"src_shapes\": [1, 1, 2, 1, 8192]}");
  assert_int_equal (F->m.branches->len, 2);
  for (guint i = 0; i < F->m.branches->len; i++)
    {
      const brc_branch *b = g_ptr_array_index (F->m.branches, i);
      assert_null (b->refusal);
      found |= strcmp (b->name, "NLast/NlastMoreDimDynamic/"
                                "BrcNlastLargerThanVLAlignedWithBlock4D") == 0;
    }
  assert_true (found);
  one = bindings_of (F, "{\"a\": 1}");
  assert_int_equal (eval_int (F->m.expression, one), 1367);
  /* a = 3: B(6) E(2) B(2) E(8192) stays 4-D → NlastWrap4D / WithVL4D, equal to its static model */
  {
    g_autoptr (GHashTable) three = bindings_of (F, "{\"a\": 3}");
    fx *st = fx_new ();
    ext (st, "int8", "[3, 2, 2, 2, 8192]", "[1, 1, 2, 1, 8192]");
    assert_int_equal (eval_int (F->m.expression, three), cost (st));
    assert_string_equal (branch (st), "NLast/NlastWrap4D/BrcNlastLargerThanVLAlignedWithVL4D");
    fx_free (st);
  }
  /* att.bind a = 1 folds: the static model of the kernel's branch */
  att (F, "{\"kind\": \"broadcast_extend\", \"dtype\": \"int8\", "
          "\"dst_shapes\": [\"a\", 2, 2, 2, 8192], \"src_shapes\": [1, 1, 2, 1, 8192], "
          "\"bind\": {\"a\": 1}}");
  assert_string_equal (branch (F), "NLast/NlastMoreDimDynamic/BrcNlastLargerThanVLAlignedWithBlock4D");
  assert_int_equal (cost (F), 1367);
}

/* ------------------------------------------------------------------ the module */

static msperf_result *
module_query (const char *device, const char *att_json, msperf_status *status)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_engine) e = msperf_engine_new ();
  g_autofree char *line = g_strdup_printf ("{\"op\": \"ascir.Broadcast\", \"att\": %s}", att_json);
  g_autoptr (msperf_op) op = msperf_trace_parse_op (line, "test", 1, &error);
  msperf_result *r = msperf_result_new ();
  msperf_query q = { 0 };
  void *st = NULL;

  assert_non_null (op);
  msperf_engine_set_plugin_search_defaults (e, FALSE);
  if ((device != NULL && !msperf_engine_set_device_profile (e, device, &error))
      || !msperf_engine_start (e, &error))
    fail_msg ("%s", error->message);
  q.engine = e;
  q.op = op;
  q.mode = "broadcast_att";
  if (!msperf_plugin_v1.init (e, &st, &error))
    fail_msg ("%s", error->message);
  *status = msperf_plugin_v1.model (e, st, &q, r);
  msperf_plugin_v1.fini (st);
  return r;
}

static void
test_module_answers_with_details_and_refuses_with_error (void **state)
{
  msperf_status status;
  g_autoptr (msperf_result) a = NULL, b = NULL, c = NULL, d = NULL;

  (void) state;
  /* 71 cycles (the E2B case above) at the A3 profile's 1.85 GHz vector clock */
  a = module_query ("ascend-a3", "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", "
                                 "\"dst_shapes\": [64, 16], \"src_shapes\": [64, 1]}", &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_int_equal (a->source, MSPERF_SOURCE_ANALYTIC);
  assert_string_equal (a->method, "att");
  assert_null (a->miss_reason);
  assert_int_equal (msperf_value_lookup (msperf_result_details (a), "cycles")->i, 71);
  assert_int_equal (msperf_value_lookup (msperf_result_details (a), "value")->i, 71);
  assert_float_equal (a->latency_us, 71.0 / 1.85 / 1e3, 1e-12);
  assert_int_equal (msperf_value_lookup (msperf_result_details (a), "vf_launches")->i, 1);
  assert_non_null (msperf_value_lookup (msperf_result_details (a), "ledger"));
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (msperf_result_details (a), "att_branch")),
                       "Last/LastWrap2D/BrcLastE2B2D");
  /* no clock: cycles only */
  b = module_query ("nvidia-h200", "{\"kind\": \"duplicate\", \"dtype\": \"float16\", "
                                   "\"count\": 300}", &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_true (isnan (b->latency_us));
  assert_string_equal (b->miss_reason, "no_vector_clock");
  assert_int_equal (msperf_value_lookup (msperf_result_details (b), "cycles")->i, 31);
  /* unbound symbols: the expression in cycles, value null */
  c = module_query ("ascend-a3", "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", "
                                 "\"dst_shapes\": [8, 16, \"s0\"], \"src_shapes\": [8, 1, \"s0\"]}",
                    &status);
  assert_int_equal (status, MSPERF_HIT);
  assert_string_equal (c->miss_reason, "symbolic_cost");
  assert_int_equal (msperf_value_lookup (msperf_result_details (c), "value")->kind, MSPERF_VALUE_NONE);
  assert_string_equal (msperf_value_get_string (msperf_value_lookup (msperf_result_details (c), "cycles")),
                       "broadcast_cost");
  /* refused parameters: MSPERF_ERROR with the message */
  d = module_query (NULL, "{\"kind\": \"broadcast_extend\", \"dtype\": \"float16\", "
                          "\"dst_shapes\": [4, 8], \"src_shapes\": [4, 3]}", &status);
  assert_int_equal (status, MSPERF_ERROR);
  assert_non_null (strstr (d->miss_reason, "must be 1 or equal"));
}

/* The parameters a user writes reach the model unchanged: the engine routes att.kind to this
 * module's model slot, which answers from exactly the att object (seed acceptance: the
 * codegen → ATT parameter chain, here trace → engine → module). */
static void
test_engine_routes_att_kinds_to_the_module (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_engine) e = msperf_engine_new ();
  const char *dir = g_getenv ("MSPERF_TEST_PLUGINDIR");
  g_autoptr (msperf_op) op = NULL, bad = NULL;
  g_autoptr (msperf_result) r = NULL, rb = NULL;

  (void) state;
  if (dir == NULL)
    skip ();
  msperf_engine_set_plugin_search_defaults (e, FALSE);
  msperf_engine_add_plugin_dir (e, dir);
  assert_true (msperf_engine_set_device_profile (e, "nvidia-h200", &error));
  assert_true (msperf_engine_start (e, &error));
  op = msperf_trace_parse_op ("{\"op\": \"ascir.Broadcast\", \"att\": {\"kind\": \"duplicate\", "
                              "\"dtype\": \"uint8\", \"count\": 300, \"dst_view_size\": 320, "
                              "\"source_kind\": \"kTensorVecIn\"}}", "test", 1, &error);
  assert_non_null (op);
  r = msperf_engine_query (e, op);
  assert_string_equal (r->method, "att");
  assert_int_equal (msperf_value_lookup (msperf_result_details (r), "cycles")->i, 30);
  assert_int_equal (msperf_value_lookup (msperf_result_details (r), "ledger")->items->len, 8);
  bad = msperf_trace_parse_op ("{\"op\": \"ascir.Broadcast\", \"att\": {\"kind\": "
                               "\"broadcast_extend\", \"dtype\": \"float16\", \"dst_shapes\": [0], "
                               "\"src_shapes\": [1]}}", "test", 1, &error);
  assert_non_null (bad);
  rb = msperf_engine_query (e, bad);
  assert_int_equal (rb->source, MSPERF_SOURCE_REJECTED);
  assert_non_null (strstr (rb->miss_reason, "att.dst_shapes[0] is 0"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_every_leaf_selects_its_branch_and_counts, setup, teardown),
    cmocka_unit_test_setup_teardown (test_ledger_rows_dtypes_and_prelude, setup, teardown),
    cmocka_unit_test_setup_teardown (test_ledger_one_row_per_source_slot, setup, teardown),
    cmocka_unit_test_setup_teardown (test_b8_template_dtypes, setup, teardown),
    cmocka_unit_test_setup_teardown (test_duplicate_source_kinds_and_b8_overloads, setup, teardown),
    cmocka_unit_test_setup_teardown (test_refusals_name_the_problem, setup, teardown),
    cmocka_unit_test_setup_teardown (test_domain_limits_edge_and_one_past, setup, teardown),
    cmocka_unit_test (test_symbolic_model_specialises_to_static_model),
    cmocka_unit_test_setup_teardown (test_symbolic_expression_nests_in_source_order, setup, teardown),
    cmocka_unit_test_setup_teardown (test_symbolic_rank4_skip_and_rank9_kinds, setup, teardown),
    cmocka_unit_test_setup_teardown (test_symbolic_branch_limit_is_refused, setup, teardown),
    cmocka_unit_test_setup_teardown (test_more_dim_outer_strides_are_uint32, setup, teardown),
    cmocka_unit_test (test_module_answers_with_details_and_refuses_with_error),
    cmocka_unit_test (test_engine_routes_att_kinds_to_the_module),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
