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
 * Profiles: H200 bf16/fp16 790, fp32 67, fp8/int8 1580 TFLOP/s, 4300 GB/s, 2.0 µs launch,
 * one tier nvlink 450 GB/s 3.0 µs, no grid. A3 bf16 353.9, fp16 376, fp32 99.5, int8 752
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
  msperf_value *group = msperf_value_new (MSPERF_VALUE_LIST);

  tu_op_add_tensor (op, BF16, dims);
  tu_op_add_int (op, 0);
  for (int k = 0; k < n; k++)
    msperf_value_list_append (group, msperf_value_new_int (first + k * step));
  g_ptr_array_add (op->args, group);
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

/* A collective without a rank-group list cannot be costed: NAN, kind still collective. */
static void
test_roofline_collective_without_group_is_nan (void **state)
{
  msperf_op *op = tu_op ("tensor_cast.all_reduce.default");
  msperf_roofline r;

  tu_op_add_tensor (op, BF16, "1024");
  tu_op_add_int (op, 0);
  tu_op_add_int (op, 8);
  estimate (H200, op, &r);
  assert_string_equal (r.kind, "collective");
  assert_true (isnan (r.latency_us));
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

  assert_true (H200->memory_gib == 131.3);
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

#define T(t) cmocka_unit_test (t)

int
main (void)
{
  const struct CMUnitTest tests[] = {
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
    T (test_roofline_collective_tiers_a3),
    T (test_roofline_collective_without_group_is_nan),
    T (test_roofline_elementwise_h200),
    T (test_roofline_zero_size_is_launch_overhead),
    T (test_roofline_unknown_dtype_uses_bf16_peak_and_no_bytes),
    T (test_roofline_without_device_is_nan),
    T (test_device_memory_gib),
  };
  return cmocka_run_group_tests_name ("roofline", tests, setup, teardown);
}
