/* Golden values of the analytic roofline (core/engine/roofline.c, FORMATS §4) on the shipped
 * device profiles policies/devices/nvidia-h200.yaml and policies/devices/ascend-a3.yaml.
 *
 * Formulas (roofline.c):
 *   matmul      flops = 2 · Π(lhs dims) · N, N = the rhs dim that is not K = lhs[-1]
 *   attention   flops = Σ_seq 4 · H · Sq · Skv · D, × 0.5 when Sq > 1 and Sq ≥ Skv (causal);
 *               without seq_lens (arg 6): 4 · H · T² · D · 0.5
 *   elementwise flops = numel (first output)
 *   bytes       = Σ numel · dtype size over tensor inputs (rank > 0) and outputs
 *   latency     = max (flops / (peak_tflops[dtype of input 0] · 1e12) · 1e6,
 *                      bytes / (memory_bandwidth_gbps · 1e3)) + launch_overhead_us
 *               peak falls back to bf16 when the dtype has none
 *   collective  memory_us = f · bytes(x) / (tier bandwidth_gbps · 1e3), f = 2(n−1)/n for
 *               all_reduce, (n−1)/n otherwise; latency = memory_us + tier latency_us (no
 *               launch overhead); tier = the outermost comm-grid dim where the ranks differ
 *   without a rank group (op summaries): ring alpha-beta over p ranks from the
 *               shapes (all_gather / reduce_scatter ratio) or tp/ep/world size:
 *               all_reduce 2(p−1)/p·B/bw + 2(p−1)α, others (p−1)/p·B/bw + (p−1)α
 *   fused matmul+collective = matmul roofline + all_reduce of the [M, N] output
 *   embedding   bytes = gathered rows + indices + output; views (metadata) cost 0
 * Profiles: H200 bf16/fp16 790, fp32 67, fp8/int8 1580 TFLOP/s, 4300 GB/s, 2.0 µs launch,
 * one tier nvlink 450 GB/s 3.0 µs, no grid, nodes of 8 GPUs joined at 50 GB/s 10 µs. A3 bf16 353.9, fp16 376, fp32 99.5, int8 752
 * (no fp8), 1759.22 GB/s, 2.0 µs, grid [48, 8, 2], tiers inter_pod 196/5.5,
 * intra_pod 196/0.5, die_level 224/0.2.
 * Every expected number below was computed by hand from these (arithmetic in the comment). */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "common/test_util.h"
#include "engine/roofline.h"
#include "io/device.h"
#include <glib/gstdio.h>

#define BF16 MSPERF_DTYPE_BF16
#define FP16 MSPERF_DTYPE_FLOAT16
#define FP32 MSPERF_DTYPE_FLOAT32

typedef struct {
  msperf_device *h200;
  msperf_device *a3;
} fx;

#define H200 (((fx *) *state)->h200)
#define A3 (((fx *) *state)->a3)

static msperf_device *
load_profile (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *file = g_strconcat ("policies/devices/", name, ".yaml", NULL);
  g_autofree char *path = g_build_filename (MSPERF_SRCDIR, file, NULL);
  msperf_device *d = msperf_device_load (path, &error);

  if (d == NULL)
    fail_msg ("%s: %s", path, error->message);
  return d;
}

static int
setup (void **state)
{
  fx *f = g_new0 (fx, 1);

  f->h200 = load_profile ("nvidia-h200");
  f->a3 = load_profile ("ascend-a3");
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  fx *f = *state;

  msperf_device_free (f->h200);
  msperf_device_free (f->a3);
  g_free (f);
  return 0;
}

/* |actual − expected| ≤ 1e-12 · |expected| (exact for the integer counts). */
static void
assert_rel (double actual, double expected, const char *what)
{
  if (!(fabs (actual - expected) <= 1e-12 * fabs (expected)))
    fail_msg ("%s: got %.17g, expected %.17g", what, actual, expected);
}

static void
assert_roofline (const msperf_roofline *r, const char *kind, double flops, double bytes,
                 double compute_us, double memory_us, double latency_us)
{
  assert_string_equal (r->kind, kind);
  assert_rel (r->flops, flops, "flops");
  assert_rel (r->bytes, bytes, "bytes");
  assert_rel (r->compute_us, compute_us, "compute_us");
  assert_rel (r->memory_us, memory_us, "memory_us");
  assert_rel (r->latency_us, latency_us, "latency_us");
}

static void
estimate (const msperf_device *d, msperf_op *op, msperf_roofline *r)
{
  msperf_roofline_estimate (d, op, r);
  msperf_op_free (op);
}

/* name(a, b) -> out, all of dtype. */
static msperf_op *
binary (const char *name, msperf_dtype dtype, const char *a, const char *b, const char *out)
{
  msperf_op *op = tu_op (name);

  tu_op_add_tensor (op, dtype, a);
  tu_op_add_tensor (op, dtype, b);
  tu_op_add_out (op, dtype, out);
  return op;
}

/* ------------------------------------------------------------------ fused MoE */

/* tensor_cast.fused_moe(x, w13, w2, ids) of one rank's experts: Kimi-K2.5's int4 experts on
 * EP 8 (48 of 384, H 7168, I 2048), a decode step of 16 tokens, top 8, on H200.
 * pairs here = 16·8·48/384 = 16; flops = 2·16·(4096·7168 + 7168·2048) = 1409286144 at the
 * input's bf16 rate (weight-only int4): 1.783906511392405 µs; bytes = every tensor once, int4
 * counted one byte as upstream: x 229376 + w13 1409286144 + w2 704643072 + ids 512 + out
 * 229376 = 2114388480: 491.7182511627907 µs; latency + 2.0. The experts reached,
 * 48·(1 − (383/384)^128) = 13.6, are named in the degraded note. Without num_experts the
 * rank's own 48 are all there are (every pair local, 8× the FLOPs). */
static msperf_op *
moe_op (const char *tokens, msperf_dtype wdt, const char *w13, const char *w2, int64_t experts)
{
  msperf_op *op = tu_op ("tensor_cast.fused_moe.default");
  g_autofree char *ids = g_strconcat (tokens, ",8", NULL);
  g_autofree char *x = g_strconcat (tokens, ",7168", NULL);

  tu_op_add_tensor (op, BF16, x);
  tu_op_add_tensor (op, wdt, w13);
  tu_op_add_tensor (op, wdt, w2);
  tu_op_add_tensor (op, MSPERF_DTYPE_INT32, ids);
  tu_op_add_out (op, BF16, x);
  if (experts > 0)
    {
      msperf_value_map_set (op->kwargs, "num_experts", msperf_value_new_int (experts));
      msperf_value_map_set (op->kwargs, "topk", msperf_value_new_int (8));
    }
  return op;
}

static void
test_roofline_fused_moe_routed_flops (void **state)
{
  const msperf_dtype i4 = MSPERF_DTYPE_INT4, f8 = MSPERF_DTYPE_FP8_E4M3;
  msperf_roofline r;

  estimate (H200, moe_op ("16", i4, "48,4096,7168", "48,7168,2048", 384), &r);
  assert_roofline (&r, "fused_moe", 1409286144.0, 2114388480.0, 1.783906511392405,
                   491.7182511627907, 493.7182511627907);
  assert_non_null (strstr (r.degraded, "13.6 of 48 local experts reached"));
  estimate (H200, moe_op ("16", i4, "48,4096,7168", "48,7168,2048", 0), &r);
  assert_rel (r.flops, 8 * 1409286144.0, "flops, E = 48");
  /* A prefill of 8192 rows of DeepSeek's fp8 experts on EP 8 (32 of 256 local): compute-bound
   * at the fp8 rate, flops 2·8192·8·(32/256)·(4096·7168 + 7168·2048) = 721554505728,
   * 456.6800669164557 µs at 1580 TFLOP/s; bytes 1644429312, 382.42542139534885 µs. As an
   * elementwise op it cost only the bytes. */
  estimate (H200, moe_op ("8192", f8, "32,4096,7168", "32,7168,2048", 256), &r);
  assert_roofline (&r, "fused_moe", 721554505728.0, 1644429312.0, 456.6800669164557,
                   382.42542139534885, 458.6800669164557);
}

/* ------------------------------------------------------------------ matmul */

/* mm [4096,4096] × [4096,4096] bf16 on H200 (compute-bound):
 * flops = 2·4096³ = 137438953472; compute = 137438953472 / 790e12 · 1e6 = 173.97335882531644
 * bytes = 3 · 4096² · 2 = 100663296; memory = 100663296 / 4300e3 = 23.4100688372093
 * latency = 173.97335882531644 + 2.0 */
static void
test_roofline_matmul_bf16_h200 (void **state)
{
  msperf_roofline r;

  estimate (H200, binary ("aten.mm.default", BF16, "4096,4096", "4096,4096", "4096,4096"), &r);
  assert_roofline (&r, "matmul", 137438953472.0, 100663296.0, 137438953472.0 / 790e12 * 1e6,
                   100663296.0 / 4300e3, 137438953472.0 / 790e12 * 1e6 + 2.0);
  assert_rel (r.compute_us, 173.97335882531644, "compute literal");
}

/* The same in fp32: peak 67 → compute = 137438953472 / 67e12 · 1e6 = 2051.327663761194;
 * bytes double: 201326592 / 4300e3 = 46.8201376744186; latency 2053.327663761194. */
static void
test_roofline_matmul_fp32_peak_h200 (void **state)
{
  msperf_roofline r;

  estimate (H200, binary ("aten.mm.default", FP32, "4096,4096", "4096,4096", "4096,4096"), &r);
  assert_roofline (&r, "matmul", 137438953472.0, 201326592.0, 2051.327663761194,
                   46.8201376744186, 2053.327663761194);
}

/* A3: bf16 353.9 → 137438953472 / 353.9e12 · 1e6 = 388.3553361740605, fp16 376 →
 * 365.52913157446807 (a different peak than bf16 on this device, the same bytes:
 * 100663296 / 1759.22e3 = 57.22041359238754). fp8 has no A3 peak: bf16's is used, and the
 * 1-byte tensors give 50331648 / 1759.22e3 = 28.61020679619377. */
static void
test_roofline_matmul_dtype_peaks_a3 (void **state)
{
  msperf_roofline bf, h, f8;

  estimate (A3, binary ("aten.mm.default", BF16, "4096,4096", "4096,4096", "4096,4096"), &bf);
  estimate (A3, binary ("aten.mm.default", FP16, "4096,4096", "4096,4096", "4096,4096"), &h);
  estimate (A3, binary ("aten.mm.default", MSPERF_DTYPE_FP8_E4M3, "4096,4096", "4096,4096",
                        "4096,4096"), &f8);
  assert_roofline (&bf, "matmul", 137438953472.0, 100663296.0, 388.3553361740605,
                   57.22041359238754, 390.3553361740605);
  assert_roofline (&h, "matmul", 137438953472.0, 100663296.0, 365.52913157446807,
                   57.22041359238754, 367.52913157446807);
  assert_roofline (&f8, "matmul", 137438953472.0, 50331648.0, 388.3553361740605,
                   28.61020679619377, 390.3553361740605);
}

/* Weights [N, K] (linear): lhs [128, 4096], rhs [11008, 4096] → N = 11008:
 * flops = 2·128·4096·11008 = 11542724608 → / 790e12 · 1e6 = 14.611043807594935;
 * bytes = (128·4096 + 11008·4096 + 128·11008)·2 = 94044160 → / 4300e3 = 21.87073488372093
 * (memory-bound); latency 23.87073488372093. */
static void
test_roofline_matmul_weights_nk_memory_bound (void **state)
{
  msperf_roofline r;

  estimate (H200, binary ("aten.linear.default", BF16, "128,4096", "11008,4096", "128,11008"),
            &r);
  assert_roofline (&r, "matmul", 11542724608.0, 94044160.0, 14.611043807594935,
                   21.87073488372093, 23.87073488372093);
}

/* Batched lhs [2, 128, 4096] × [4096, 1024]: every leading dim multiplies M:
 * flops = 2·(2·128·4096)·1024 = 2147483648. */
static void
test_roofline_matmul_batched_lhs (void **state)
{
  msperf_roofline r;

  estimate (H200, binary ("aten.matmul.default", BF16, "2,128,4096", "4096,1024", "2,128,1024"),
            &r);
  assert_string_equal (r.kind, "matmul");
  assert_rel (r.flops, 2147483648.0, "flops");
}

/* Not a matmul shape: a rank-1 lhs [4096] · [4096, 1024] (torch's vector-matrix product) and
 * mismatched K ([64, 100] · [64, 32]) are costed as elementwise: flops = the output's numel
 * (1024; 64·32 = 2048). The rank-1 bytes: (4096 + 4096·1024 + 1024)·2 = 8398848. */
static void
test_roofline_matmul_rank1_and_bad_k_fall_back (void **state)
{
  msperf_roofline v, k;

  estimate (H200, binary ("aten.matmul.default", BF16, "4096", "4096,1024", "1024"), &v);
  estimate (H200, binary ("aten.mm.default", BF16, "64,100", "64,32", "64,32"), &k);
  assert_string_equal (v.kind, "elementwise");
  assert_rel (v.flops, 1024.0, "rank-1 flops");
  assert_rel (v.bytes, 8398848.0, "rank-1 bytes");
  assert_string_equal (k.kind, "elementwise");
  assert_rel (k.flops, 2048.0, "bad-K flops");
}

/* ------------------------------------------------------------------ attention */

/* An int64 tensor [n] with values (seq_lens / query_lens as a trace gives them). */
static void
add_lens (msperf_op *op, const int64_t *values, size_t n)
{
  msperf_value *v = msperf_value_new (MSPERF_VALUE_TENSOR);

  v->tensor.rank = 1;
  v->tensor.dims[0] = (int64_t) n;
  v->tensor.dtype = MSPERF_DTYPE_INT64;
  v->tensor.format = MSPERF_FORMAT_ND;
  v->tensor.values = g_memdup2 (values, n * sizeof *values);
  v->tensor.n_values = n;
  g_ptr_array_add (op->args, v);
}

/* q, k, v then three None args so that seq_lens is arg 6 and query_lens arg 7. */
static msperf_op *
attention (const char *q, const char *kv, const char *out)
{
  msperf_op *op = tu_op ("npu.npu_fused_infer_attention_score.default");

  tu_op_add_tensor (op, BF16, q);
  tu_op_add_tensor (op, BF16, kv);
  tu_op_add_tensor (op, BF16, kv);
  for (int k = 0; k < 3; k++)
    tu_op_add_none (op);
  tu_op_add_out (op, BF16, out);
  return op;
}

/* Prefill without lengths on A3, TND q [1024, 32, 128], k/v [1024, 8, 128]: causal
 * self-attention over T = 1024: flops = 4·32·1024²·128·0.5 = 8589934592 →
 * / 353.9e12 · 1e6 = 24.27220851087878; bytes = (2·1024·32·128 + 2·1024·8·128)·2 = 20971520 →
 * / 1759.22e3 = 11.92091949841407; latency 26.27220851087878 (compute-bound). */
static void
test_roofline_attention_prefill_without_lengths_a3 (void **state)
{
  msperf_roofline r;

  estimate (A3, attention ("1024,32,128", "1024,8,128", "1024,32,128"), &r);
  assert_roofline (&r, "attention", 8589934592.0, 20971520.0, 24.27220851087878,
                   11.92091949841407, 26.27220851087878);
}

/* Decode on H200, BNSD q [4, 32, 1, 128] (H = 32, T = 4·1), KV cache [4, 8, 4096, 128],
 * seq_lens [1024, 2048, 512, 4096], no query_lens → Sq = T / 4 = 1, not causal:
 * flops = 4·32·1·128·(1024 + 2048 + 512 + 4096) = 16384·7680 = 125829120 →
 * / 790e12 · 1e6 = 0.1592773670886076; bytes = q 32768 + k, v 2·33554432 + seq_lens 4·8 +
 * out 32768 = 67174432 → / 4300e3 = 15.621960930232557; latency 17.621960930232557
 * (memory-bound, as decode is). */
static void
test_roofline_attention_decode_h200 (void **state)
{
  static const int64_t kv[] = { 1024, 2048, 512, 4096 };
  msperf_op *op = attention ("4,32,1,128", "4,8,4096,128", "4,32,1,128");
  msperf_roofline r;

  add_lens (op, kv, G_N_ELEMENTS (kv));
  estimate (H200, op, &r);
  assert_roofline (&r, "attention", 125829120.0, 67174432.0, 0.1592773670886076,
                   15.621960930232557, 17.621960930232557);
}

/* Prefill with lengths, TND q [3072, 32, 128]: query_lens = seq_lens = [1024, 2048] →
 * causal: 4·32·128·(1024² + 2048²)·0.5 = 42949672960. Chunked prefill: query_lens [512],
 * seq_lens [2048] (Sq < Skv: not halved) → 4·32·512·2048·128 = 17179869184. */
static void
test_roofline_attention_prefill_with_lengths (void **state)
{
  static const int64_t lens[] = { 1024, 2048 };
  static const int64_t chunk_q[] = { 512 }, chunk_kv[] = { 2048 };
  msperf_op *full = attention ("3072,32,128", "3072,8,128", "3072,32,128");
  msperf_op *chunk = attention ("512,32,128", "2048,8,128", "512,32,128");
  msperf_roofline a, b;

  add_lens (full, lens, 2);
  add_lens (full, lens, 2);
  add_lens (chunk, chunk_kv, 1);
  add_lens (chunk, chunk_q, 1);
  estimate (H200, full, &a);
  estimate (H200, chunk, &b);
  assert_string_equal (a.kind, "attention");
  assert_rel (a.flops, 42949672960.0, "causal flops");
  assert_string_equal (b.kind, "attention");
  assert_rel (b.flops, 17179869184.0, "chunked flops");
}

/* ------------------------------------------------------------------ collectives */

static msperf_op *
collective (const char *name, const char *dims, int n, int64_t first, int64_t step)
{
  msperf_op *op = tu_op (name);

  tu_op_add_tensor (op, BF16, dims);
  tu_op_add_int (op, 0);
  tu_op_add_int_list (op, n, first, step);
  return op;
}

/* all_reduce of [4096, 4096] bf16 (33554432 B) over 8 GPUs on H200's only tier (no grid):
 * f = 2·7/8 = 1.75; memory = 1.75 · 33554432 / 450e3 = 130.48945777777777;
 * latency = 130.48945777777777 + 3.0 (no launch overhead); flops 0. */
static void
test_roofline_all_reduce_h200 (void **state)
{
  msperf_roofline r;

  estimate (H200, collective ("tensor_cast.all_reduce.default", "4096,4096", 8, 0, 1), &r);
  assert_string_equal (r.kind, "collective");
  assert_rel (r.bytes, 33554432.0, "bytes");
  assert_true (r.flops == 0.0);
  assert_rel (r.memory_us, 130.48945777777777, "memory_us");
  assert_rel (r.latency_us, 133.48945777777777, "latency_us");
}

/* A3 grid [48, 8, 2], x [1024, 1024] bf16 = 2097152 B:
 *   all_gather {0, 1}: differ in the die → die_level: 0.5 · 2097152 / 224e3 = 4.6811428571428575,
 *     + 0.2 = 4.881142857142858
 *   reduce_scatter {0, 16}: differ in the pod (16 / 16 = 1) → inter_pod:
 *     0.5 · 2097152 / 196e3 + 5.5 = 10.849877551020409
 *   all_reduce {0, 2, 4, 6}: differ in the node → intra_pod: 1.5 · 2097152 / 196e3 + 0.5
 *     = 16.549632653061224
 *   one rank {0}: f = 0, no grid placement for a single rank → tier 0: latency 5.5 */
static void
test_roofline_collective_tiers_a3 (void **state)
{
  msperf_roofline die, pod, node, one;

  estimate (A3, collective ("tensor_cast.all_gather.default", "1024,1024", 2, 0, 1), &die);
  estimate (A3, collective ("tensor_cast.reduce_scatter.default", "1024,1024", 2, 0, 16), &pod);
  estimate (A3, collective ("tensor_cast.all_reduce.default", "1024,1024", 4, 0, 2), &node);
  estimate (A3, collective ("tensor_cast.all_reduce.default", "1024,1024", 1, 0, 1), &one);
  assert_rel (die.memory_us, 4.6811428571428575, "die memory_us");
  assert_rel (die.latency_us, 4.881142857142858, "die latency_us");
  assert_rel (pod.latency_us, 10.849877551020409, "pod latency_us");
  assert_rel (node.latency_us, 16.549632653061224, "node latency_us");
  assert_true (one.memory_us == 0.0);
  assert_rel (one.latency_us, 5.5, "single-rank latency_us");
}

/* ------------------------------------------------------------------ fallbacks that respect physics */

/* Ring / alpha-beta: all_reduce 2(p−1)/p·bytes/bw + 2(p−1)α, the others (p−1)/p·bytes/bw +
 * (p−1)α. 1e6 B over 4 ranks at 100 GB/s, α 1 µs: all_reduce 1.5·1e6/1e5 + 6 = 21;
 * all_gather 0.75·10 + 3 = 10.5; one rank 0. */
static void
test_collective_ring_formula (void **state)
{
  (void) state;
  assert_rel (msperf_collective_ring_us (MSPERF_PATTERN_ALL_REDUCE, 1e6, 4, 100.0, 1.0),
              21.0, "all_reduce");
  assert_rel (msperf_collective_ring_us (MSPERF_PATTERN_ALL_GATHER, 1e6, 4, 100.0, 1.0),
              10.5, "all_gather");
  assert_true (msperf_collective_ring_us (MSPERF_PATTERN_ALL_TO_ALL, 1e6, 1, 100.0, 1.0)
               == 0.0);
}

static msperf_op *
summary_op (const char *name, msperf_dtype dtype, const char *in, const char *out)
{
  msperf_op *op = tu_op (name);

  tu_op_add_tensor (op, dtype, in);
  if (out)
    tu_op_add_out (op, dtype, out);
  return op;
}

static void
estimate_par (const msperf_device *d, const msperf_parallel *par, msperf_op *op,
              msperf_roofline *r)
{
  msperf_roofline_estimate_parallel (d, par, op, r);
  msperf_op_free (op);
}

/* An op-summary collective has no rank group. Defaults (tp 1): one rank → 0 µs, degraded
 * group_size_1, never NAN. */
static void
test_collective_without_group_defaults_to_one_rank (void **state)
{
  msperf_roofline r;

  estimate (H200, summary_op ("tensor_cast.all_reduce.default", FP16, "1,16,5120", "1,16,5120"),
            &r);
  assert_string_equal (r.kind, "collective");
  assert_true (r.latency_us == 0.0);
  assert_int_equal (r.group_size, 1);
  assert_string_equal (r.group_source, "tp_size");
  assert_non_null (strstr (r.degraded, "group_size_1"));
}

/* all_reduce x [1, 16, 5120] fp16 = 163840 B, tp 8 on H200 (nvlink 450 GB/s, α 3):
 * 2·7/8 · 163840 / 450e3 + 14 · 3.0 = 0.63715555… + 42 = 42.63715555555556. */
static void
test_collective_all_reduce_over_tp (void **state)
{
  msperf_parallel par = { .tp_size = 8, .world_size = 8 };
  msperf_roofline r;

  estimate_par (H200, &par,
                summary_op ("tensor_cast.all_reduce.default", FP16, "1,16,5120", "1,16,5120"), &r);
  assert_rel (r.bytes, 163840.0, "bytes");
  assert_rel (r.latency_us, 42.63715555555556, "latency_us");
  assert_int_equal (r.group_size, 8);
  assert_string_equal (r.group_source, "tp_size");
}

/* all_gather [16, 2048] → [128, 2048] fp16 on A3, tp unset: the shapes give p = 8 (and win).
 * 8 consecutive ranks on grid [48, 8, 2] cross nodes (8 > stride 2) but not pods (8 ≤ 16):
 * intra_pod 196 GB/s, α 0.5. bytes = the gathered 128·2048·2 = 524288:
 * 7/8 · 524288 / 196e3 + 7 · 0.5 = 2.3405714285714… + 3.5 = 5.840571428571429. */
static void
test_collective_all_gather_group_from_shapes_a3 (void **state)
{
  msperf_roofline r;

  estimate (A3, summary_op ("tensor_cast.all_gather.default", FP16, "16,2048", "128,2048"), &r);
  assert_int_equal (r.group_size, 8);
  assert_string_equal (r.group_source, "shapes");
  assert_rel (r.bytes, 524288.0, "bytes");
  assert_rel (r.latency_us, 5.840571428571429, "latency_us");
  assert_non_null (strstr (r.degraded, "intra_pod"));
}

/* reduce_scatter [64, 1024] → [16, 1024] bf16 on H200: p = 4 from the shapes, bytes = the
 * input 131072: 3/4 · 131072 / 450e3 + 3 · 3 = 9.218453333333333. */
static void
test_collective_reduce_scatter_group_from_shapes (void **state)
{
  msperf_roofline r;

  estimate (H200, summary_op ("tensor_cast.reduce_scatter.default", BF16, "64,1024", "16,1024"),
            &r);
  assert_int_equal (r.group_size, 4);
  assert_rel (r.latency_us, 9.218453333333333, "latency_us");
}

/* H200 comm.nodes: 8 GPUs a node, 50 GB/s and 10 µs between nodes (aiconfigurator's
 * h200_sxm.yaml). The same all_reduce of 33554432 B:
 *   ranks 8..15, one node: NVLink as above, 133.48945777777777;
 *   ranks 0..15, two nodes: f = 2·15/16 = 1.875; 1.875 · 33554432 / 50e3 = 1258.29120, + 10
 *     = 1268.2912;
 *   ranks {7, 8}, one each side: f = 1; 33554432 / 50e3 = 671.08864, + 10 = 681.08864;
 * and without a rank group over tp 16 (ring alpha-beta, 163840 B of fp16):
 *   2·15/16 · 163840 / 50e3 + 30 · 10 = 306.144. */
static void
test_roofline_collective_across_nodes_h200 (void **state)
{
  msperf_parallel par = { .tp_size = 16, .world_size = 16 };
  msperf_roofline node, two, pair, summary;

  estimate (H200, collective ("tensor_cast.all_reduce.default", "4096,4096", 8, 8, 1), &node);
  estimate (H200, collective ("tensor_cast.all_reduce.default", "4096,4096", 16, 0, 1), &two);
  estimate (H200, collective ("tensor_cast.all_reduce.default", "4096,4096", 2, 7, 1), &pair);
  estimate_par (H200, &par,
                summary_op ("tensor_cast.all_reduce.default", FP16, "1,16,5120", "1,16,5120"),
                &summary);
  assert_rel (node.latency_us, 133.48945777777777, "one node");
  assert_rel (two.latency_us, 1268.2912, "two nodes");
  assert_rel (pair.latency_us, 681.08864, "a pair across nodes");
  assert_rel (summary.latency_us, 306.144, "tp 16 without a rank group");
  assert_non_null (strstr (summary.degraded, "inter_node"));
}

/* all_to_all [2048, 7168] fp16 = 29360128 B over ep 16 on A3 (16 ranks: intra_pod):
 * 15/16 · 29360128 / 196e3 + 15 · 0.5 = 147.93428571428572. Without ep_size: world_size (1)
 * → 0. 32 ranks cross pods (32 > 16): inter_pod 196 GB/s, α 5.5; all_gather [1024] bf16 →
 * [32768]: 31/32 · 65536 / 196e3 + 31 · 5.5 = 170.82391836734695. */
static void
test_collective_all_to_all_over_ep_and_tiers_a3 (void **state)
{
  msperf_parallel ep = { .tp_size = 1, .ep_size = 16, .world_size = 16 };
  msperf_parallel none = { .tp_size = 4, .ep_size = 0, .world_size = 1 };
  msperf_roofline a, b, c;

  estimate_par (A3, &ep, summary_op ("tensor_cast.all_to_all.default", FP16, "2048,7168",
                                     "2048,7168"), &a);
  estimate_par (A3, &none, summary_op ("tensor_cast.all_to_all.default", FP16, "2048,7168",
                                       "2048,7168"), &b);
  estimate (A3, summary_op ("tensor_cast.all_gather.default", BF16, "1024", "32768"), &c);
  assert_rel (a.latency_us, 147.93428571428572, "ep latency_us");
  assert_string_equal (a.group_source, "ep_size");
  assert_true (b.latency_us == 0.0);
  assert_string_equal (b.group_source, "world_size");
  assert_rel (c.latency_us, 170.82391836734695, "inter_pod latency_us");
}

/* matmul_all_reduce [16, 512] × [512, 5120] → [16, 5120] fp16, tp 16 on A3.
 * matmul: flops 2·16·512·5120 = 83886080 → / 376e12 = 0.2231…; bytes 16384 + 5242880 +
 * 163840 = 5423104 → / 1759.22e3 = 3.0826752765430134; + 2.0 = 5.082675276543013.
 * all_reduce of the output 163840 B over 16 ranks (intra_pod): 2·15/16 · 163840 / 196e3 +
 * 30 · 0.5 = 16.56734693877551. Total 21.650022215318526. tp 1: the matmul alone. */
static void
test_fused_matmul_all_reduce_a3 (void **state)
{
  msperf_parallel par = { .tp_size = 16, .world_size = 16 };
  msperf_roofline r, one;

  estimate_par (A3, &par, binary ("tensor_cast.matmul_all_reduce.default", FP16, "16,512",
                                  "512,5120", "16,5120"), &r);
  estimate (A3, binary ("tensor_cast.matmul_all_reduce.default", FP16, "16,512", "512,5120",
                        "16,5120"), &one);
  assert_string_equal (r.kind, "matmul_collective");
  assert_rel (r.flops, 83886080.0, "flops");
  assert_rel (r.collective_us, 16.56734693877551, "collective_us");
  assert_rel (r.latency_us, 21.650022215318526, "latency_us");
  assert_rel (one.latency_us, 5.082675276543013, "tp 1 latency_us");
}

/* static_quant_linear_all_reduce int8 [8, 2048] × [2048, 7168], no output tensor, tp 8 on
 * H200: flops 2·8·2048·7168 = 234881024 → / 1580e12 = 0.1487; bytes 16384 + 14680064 =
 * 14696448 → / 4300e3 = 3.4177786046511627 (+2). Message M·N·2 (BF16 out of int8) = 114688:
 * 2·7/8 · 114688 / 450e3 + 14 · 3 = 42.44600888888889. Total 47.86378749354005. */
static void
test_fused_quant_linear_all_reduce_h200 (void **state)
{
  msperf_parallel par = { .tp_size = 8, .world_size = 8 };
  msperf_op *op = tu_op ("tensor_cast.static_quant_linear_all_reduce.default");
  msperf_roofline r;

  tu_op_add_tensor (op, MSPERF_DTYPE_INT8, "8,2048");
  tu_op_add_tensor (op, MSPERF_DTYPE_INT8, "2048,7168");
  estimate_par (H200, &par, op, &r);
  assert_rel (r.collective_us, 42.44600888888889, "collective_us");
  assert_rel (r.latency_us, 47.86378749354005, "latency_us");
}

/* embedding weight [9496, 5120] fp16, indices [1, 16] int64 → [1, 16, 5120] on H200: rows
 * 16·5120·2 = 163840 + indices 128 + output 163840 = 327808 B → / 4300e3 + 2 =
 * 2.0762344186046513 (the full table would be 97 MB). */
static void
test_embedding_is_a_row_gather (void **state)
{
  msperf_op *op = tu_op ("aten.embedding.default");
  msperf_roofline r;

  tu_op_add_tensor (op, FP16, "9496,5120");
  tu_op_add_tensor (op, MSPERF_DTYPE_INT64, "1,16");
  tu_op_add_out (op, FP16, "1,16,5120");
  estimate (H200, op, &r);
  assert_string_equal (r.kind, "gather");
  assert_true (r.flops == 0.0);
  assert_rel (r.bytes, 327808.0, "bytes");
  assert_rel (r.latency_us, 2.0762344186046513, "latency_us");
  assert_non_null (strstr (r.degraded, "row_gather"));
}

/* Views cost 0 (no kernel); copies do not. */
static void
test_metadata_ops_cost_zero (void **state)
{
  static const char *const views[] = { "aten.view.default", "aten._unsafe_view.default",
                                       "aten.t.default", "aten.slice.Tensor",
                                       "aten.split_with_sizes.default", "aten.permute.default",
                                       "aten.as_strided.default", NULL };
  static const char *const copies[] = { "aten.clone.default", "aten.contiguous.default",
                                        "aten.copy.default", "aten.tanh.default", NULL };
  msperf_roofline r;

  for (const char *const *n = views; *n; n++)
    {
      estimate (H200, binary (*n, BF16, "64,64", "64,64", "64,64"), &r);
      assert_string_equal (r.kind, "metadata");
      assert_true (r.latency_us == 0.0);
      assert_non_null (strstr (r.degraded, "metadata_only"));
    }
  for (const char *const *n = copies; *n; n++)
    {
      estimate (H200, binary (*n, BF16, "64,64", "64,64", "64,64"), &r);
      assert_string_equal (r.kind, "elementwise");
      assert_true (r.latency_us > 2.0);
    }
}

/* Paged decode without seq_lens (TensorCast attention(q, k_cache, v_cache, block_table)):
 * q [16, 512] fp16 with D = 128 from the key → Hq 4; cache [513, 128, 1, 128]; block table
 * [16, 33] int64 → B 16, Sq = 16/16 = 1, Skv = 33·128 = 4224 (the table's capacity).
 * flops 4·16·4·1·4224·128 = 138412032; bytes q 16384 + K, V 2·16·4224·1·128·2 = 34603008 +
 * o 16384 = 34635776 → / 4300e3 = 8.054831627906976 + 2 = 10.054831627906976. */
static void
test_attention_paged_decode_without_lengths (void **state)
{
  msperf_op *op = tu_op ("tensor_cast.attention.default");
  msperf_roofline r;

  tu_op_add_tensor (op, FP16, "16,512");
  tu_op_add_tensor (op, FP16, "513,128,1,128");
  tu_op_add_tensor (op, FP16, "513,128,1,128");
  tu_op_add_tensor (op, MSPERF_DTYPE_INT64, "16,33");
  tu_op_add_out (op, FP16, "16,512");
  estimate (H200, op, &r);
  assert_roofline (&r, "attention", 138412032.0, 34635776.0, 0.17520510379746834,
                   8.054831627906976, 10.054831627906976);
  assert_non_null (strstr (r.degraded, "decode"));
}

/* Paged prefill without seq_lens: q [41040, 512], cache [321, 128, 1, 128], table [10, 33]:
 * B 10, Sq = 4104, assumed Skv = Sq (no cache yet), causal: flops 4·10·4·4104²·128·½ =
 * 172470435840 → / 790e12 = 218.31700739240506 (compute-bound) + 2 = 220.31700739240506;
 * bytes 42024960 + 2·10·4104·128·2 + 42024960 = 105062400. */
static void
test_attention_paged_prefill_without_lengths (void **state)
{
  msperf_op *op = tu_op ("tensor_cast.attention.default");
  msperf_roofline r;

  tu_op_add_tensor (op, FP16, "41040,512");
  tu_op_add_tensor (op, FP16, "321,128,1,128");
  tu_op_add_tensor (op, FP16, "321,128,1,128");
  tu_op_add_tensor (op, MSPERF_DTYPE_INT64, "10,33");
  tu_op_add_out (op, FP16, "41040,512");
  estimate (H200, op, &r);
  assert_roofline (&r, "attention", 172470435840.0, 105062400.0, 218.31700739240506,
                   24.43311627906977, 220.31700739240506);
  assert_non_null (strstr (r.degraded, "causal"));
}

/* MLA decode (q [8, 16, 192], latent cache [257, 128, 576], table [8, 33]; no V tensor) on
 * A3: B 8, Sq 1, Skv 4224, D 192: flops 4·8·16·4224·192 = 415236096; bytes q 49152 + latent
 * 8·4224·576·2 = 38928384 + o [8, 16, 128] 32768 = 39010304 → / 1759.22e3 =
 * 22.174772910721796 + 2 = 24.174772910721796 (memory-bound). */
static void
test_attention_mla_decode_without_lengths_a3 (void **state)
{
  msperf_op *op = tu_op ("tensor_cast.multihead_latent_attention.default");
  msperf_roofline r;

  tu_op_add_tensor (op, FP16, "8,16,192");
  tu_op_add_tensor (op, FP16, "257,128,576");
  tu_op_add_tensor (op, MSPERF_DTYPE_INT64, "8,33");
  tu_op_add_tensor (op, FP16, "16,128,512");
  tu_op_add_out (op, FP16, "8,16,128");
  estimate (A3, op, &r);
  assert_string_equal (r.kind, "attention");
  assert_rel (r.flops, 415236096.0, "flops");
  assert_rel (r.bytes, 39010304.0, "bytes");
  assert_rel (r.latency_us, 24.174772910721796, "latency_us");
}

/* ------------------------------------------------------------------ elementwise and edges */

/* add [4096, 4096] bf16 on H200: flops = 16777216 → / 790e12 · 1e6 = 0.02123698227848101;
 * bytes = 3 · 33554432 = 100663296 → 23.4100688372093; latency 25.4100688372093. */
static void
test_roofline_elementwise_h200 (void **state)
{
  msperf_roofline r;

  estimate (H200, binary ("aten.add.Tensor", BF16, "4096,4096", "4096,4096", "4096,4096"), &r);
  assert_roofline (&r, "elementwise", 16777216.0, 100663296.0, 0.02123698227848101,
                   23.4100688372093, 25.4100688372093);
}

/* A zero-size dim makes flops and bytes 0: the latency is the launch overhead alone (2.0 on
 * both profiles) — the floor every costed op pays. */
static void
test_roofline_zero_size_is_launch_overhead (void **state)
{
  msperf_roofline e, m;

  estimate (A3, binary ("aten.add.Tensor", BF16, "0,4096", "0,4096", "0,4096"), &e);
  estimate (H200, binary ("aten.mm.default", BF16, "0,4096", "4096,4096", "0,4096"), &m);
  assert_true (e.flops == 0.0 && e.bytes == 0.0);
  assert_true (e.latency_us == 2.0);
  assert_string_equal (m.kind, "matmul");
  assert_true (m.flops == 0.0);
  /* only the [4096, 4096] rhs has bytes: 33554432 / 4300e3 = 7.803356279069767 */
  assert_rel (m.latency_us, 33554432.0 / 4300e3 + 2.0, "zero-M matmul latency");
}

/* Unknown dtype: element size 0 (no bytes) and no peak of its own → bf16's peak:
 * mm 4096³ on H200 = 173.97335882531644 + 2.0, memory 0. */
static void
test_roofline_unknown_dtype_uses_bf16_peak_and_no_bytes (void **state)
{
  msperf_roofline r;

  estimate (H200, binary ("aten.mm.default", MSPERF_DTYPE_UNKNOWN, "4096,4096", "4096,4096",
                          "4096,4096"), &r);
  assert_roofline (&r, "matmul", 137438953472.0, 0.0, 173.97335882531644, 0.0,
                   175.97335882531644);
}

/* No device: nothing can be costed (NAN), whatever the op. */
static void
test_roofline_without_device_is_nan (void **state)
{
  msperf_roofline r;

  (void) state;
  estimate (NULL, binary ("aten.add.Tensor", BF16, "16", "16", "16"), &r);
  assert_true (isnan (r.latency_us));
}

/* memory_gib: optional (NAN when absent), > 0; the shipped profiles carry their sources'. */
static void
test_device_memory_gib (void **state)
{
  g_autofree char *dir = g_dir_make_tmp ("msperf-dev-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "d.yaml", NULL);
  const char *base = "name: d\npeak_tflops: {bf16: 1}\nmemory_bandwidth_gbps: 1\n";
  g_autofree char *bad = g_strconcat (base, "memory_gib: -1\n", NULL);
  g_autoptr (GError) error = NULL;
  msperf_device *d;

  assert_true (H200->memory_gib == 141.0);
  assert_true (A3->memory_gib == 64);
  assert_true (g_file_set_contents (path, base, -1, NULL));
  d = msperf_device_load (path, &error);
  assert_non_null (d);
  assert_true (isnan (d->memory_gib));
  msperf_device_free (d);
  assert_true (g_file_set_contents (path, bad, -1, NULL));
  assert_null (msperf_device_load (path, &error));
  assert_non_null (strstr (error->message, "memory_gib"));
  g_remove (path);
  g_rmdir (dir);
}

/* ------------------------------------------------------------------ op families as data */

/* An op family added in a table (tests/data/roofline/families-extra.yaml) is honoured with no
 * core change: vendor.gem_kernel (no "mm" in its name) is costed as a matmul, where the
 * shipped table costs it elementwise. */
static void
test_added_family_is_honoured (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tu_data_path ("roofline/families-extra.yaml");
  msperf_op_families *shipped = H200->families;
  msperf_roofline r;

  estimate (H200, binary ("vendor.gem_kernel.default", BF16, "4096,4096", "4096,4096",
                          "4096,4096"), &r);
  assert_string_equal (r.kind, "elementwise");
  H200->families = msperf_op_families_load (path, &error);
  if (H200->families == NULL)
    fail_msg ("%s", error->message);
  estimate (H200, binary ("vendor.gem_kernel.default", BF16, "4096,4096", "4096,4096",
                          "4096,4096"), &r);
  assert_roofline (&r, "matmul", 137438953472.0, 100663296.0, 137438953472.0 / 790e12 * 1e6,
                   100663296.0 / 4300e3, 137438953472.0 / 790e12 * 1e6 + 2.0);
  /* a family matched by name whose model cannot cost the op goes on to the next rules:
   * rank-1 operands are no matmul, and no later rule matches: elementwise */
  estimate (H200, binary ("vendor.gem_kernel.default", BF16, "16", "16", "16"), &r);
  assert_string_equal (r.kind, "elementwise");
  msperf_op_families_free (H200->families);
  H200->families = shipped;
}

static void
test_family_table_errors_name_file_and_line (void **state)
{
  static const struct { const char *file; const char *want; } cases[] = {
    { "roofline/families-bad-model.yaml", ":3: key 'model': unknown value 'fft' (one of: "
                                          "metadata, matmul_collective, collective, attention, "
                                          "gather, matmul, fused_moe)" },
    { "roofline/families-no-match.yaml", ":2: family 'x' matches no name (give names, contains "
                                         "or namespace and base)" },
    { "roofline/families-unknown-key.yaml", ":5: unknown key 'colour' in a family" },
    { "roofline/families-base-alone.yaml", ":2: family 'x': 'base' and 'namespace' go together" },
  };

  (void) state;
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path = tu_data_path (cases[k].file);
      g_autofree char *want = g_strconcat (path, cases[k].want, NULL);

      assert_null (msperf_op_families_load (path, &error));
      assert_string_equal (error->message, want);
    }
}

/* The shipped table (policies/roofline-families.yaml) loads with every device. */
static void
test_shipped_families_load (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (msperf_op_families) f = msperf_op_families_load_default (&error);
  guint cursor = 0;
  const msperf_op_family *rule;

  (void) state;
  if (f == NULL)
    fail_msg ("%s", error->message);
  assert_non_null (H200->families);
  rule = msperf_op_families_match (f, "aten.view.default", &cursor);
  assert_non_null (rule);
  assert_string_equal (rule->name, "views");
  assert_int_equal (rule->model, MSPERF_COST_METADATA);
  assert_null (msperf_op_families_match (f, "aten.view.default", &cursor));
  cursor = 0;
  rule = msperf_op_families_match (f, "tensor_cast.matmul_all_reduce.default", &cursor);
  assert_string_equal (rule->name, "matmul_collectives");
  rule = msperf_op_families_match (f, "tensor_cast.matmul_all_reduce.default", &cursor);
  assert_string_equal (rule->name, "all_reduce");
  assert_int_equal (rule->pattern, MSPERF_PATTERN_ALL_REDUCE);
}

#define T(t) cmocka_unit_test (t)

int
main (void)
{
  const struct CMUnitTest tests[] = {
    T (test_roofline_fused_moe_routed_flops),
    T (test_roofline_matmul_bf16_h200),
    T (test_roofline_matmul_fp32_peak_h200),
    T (test_roofline_matmul_dtype_peaks_a3),
    T (test_roofline_matmul_weights_nk_memory_bound),
    T (test_roofline_matmul_batched_lhs),
    T (test_roofline_matmul_rank1_and_bad_k_fall_back),
    T (test_roofline_attention_prefill_without_lengths_a3),
    T (test_roofline_attention_decode_h200),
    T (test_roofline_attention_prefill_with_lengths),
    T (test_roofline_all_reduce_h200),
    T (test_roofline_collective_across_nodes_h200),
    T (test_roofline_collective_tiers_a3),
    T (test_collective_ring_formula),
    T (test_collective_without_group_defaults_to_one_rank),
    T (test_collective_all_reduce_over_tp),
    T (test_collective_all_gather_group_from_shapes_a3),
    T (test_collective_reduce_scatter_group_from_shapes),
    T (test_collective_all_to_all_over_ep_and_tiers_a3),
    T (test_fused_matmul_all_reduce_a3),
    T (test_fused_quant_linear_all_reduce_h200),
    T (test_embedding_is_a_row_gather),
    T (test_metadata_ops_cost_zero),
    T (test_attention_paged_decode_without_lengths),
    T (test_attention_paged_prefill_without_lengths),
    T (test_attention_mla_decode_without_lengths_a3),
    T (test_roofline_elementwise_h200),
    T (test_roofline_zero_size_is_launch_overhead),
    T (test_roofline_unknown_dtype_uses_bf16_peak_and_no_bytes),
    T (test_roofline_without_device_is_nan),
    T (test_device_memory_gib),
    T (test_added_family_is_honoured),
    T (test_family_table_errors_name_file_and_line),
    T (test_shipped_families_load),
  };
  return cmocka_run_group_tests_name ("roofline", tests, setup, teardown);
}
