#!/bin/sh
# CLI tests of the model-level commands (doc/models.md): trace, estimate --model, e2e, sweep
# (CSV, shard, Pareto report), and the usage errors (exit 2). TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}"
bin="$MSPERF_BIN --plugins-dir $MSPERF_TEST_PLUGINDIR"
src=$MSPERF_TOP_SRCDIR
data=$src/tests/data/models
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

llama=$data/configs/meta-llama--Meta-Llama-3.1-8B.json
qwen=$data/configs/Qwen--Qwen3-32B.json
dsv3=$data/configs/deepseek-ai--DeepSeek-V3.json

# Qwen3-32B tp 16 decode as TensorCast captured it: qkv GEMM (16,5120)x(5120,768), 64 layers.
t_trace() {
  status_is 0 $bin trace --model "$qwen" --tp 16 --phase decode --batch 16 --context 4096 \
    --dtype float16 || return 1
  contains "$tmp/cmd.out" '"shape": \[16, 5120\], "dtype": "float16"}, {"shape": \[5120, 768\]' &&
  contains "$tmp/cmd.out" '"op": "tensor_cast.matmul_all_reduce.default"' &&
  contains "$tmp/cmd.out" '"count": 65}'
}
ok "trace: Qwen3-32B tp16 decode has the captured qkv GEMM" t_trace

# --backend applies a serving preset's template parameters, so the pass is the one serve
# prices: TensorRT-LLM reduces the experts' outputs with an all-reduce (moe_allreduce) and
# quantises inside its FP8 GEMMs (gemm_quant_fused); the plain pass keeps the captured
# all_to_all and the separate fp8_quantize ops.
t_trace_backend() {
  status_is 0 $bin trace --model "$dsv3" --phase decode --tp 8 --ep 8 --batch 4 || return 1
  contains "$tmp/cmd.out" '"op": "tensor_cast.all_to_all.default"' &&
  contains "$tmp/cmd.out" '"op": "tensor_cast.fp8_quantize.default"' || return 1
  status_is 0 $bin trace --model "$dsv3" --phase decode --tp 8 --ep 8 --batch 4 \
    --backend trtllm || return 1
  if grep -q 'all_to_all\|fp8_quantize' "$tmp/cmd.out"; then
    echo "the trtllm pass keeps all_to_all or fp8_quantize"; return 1
  fi
  contains "$tmp/cmd.out" '"op": "tensor_cast.fused_moe.default"' &&
  contains "$tmp/cmd.out" '"op": "tensor_cast.all_reduce.default"' || return 1
  status_is 2 $bin trace --model "$dsv3" --backend bogus &&
  contains "$tmp/cmd.err" "msperf trace: --backend must be vllm, sglang, trtllm or static, not 'bogus'"
}
ok "trace --backend: the preset's template parameters (TensorRT-LLM's MoE all-reduce, fused FP8 quantisation)" \
  t_trace_backend

# e2e and sweep take the same --backend: the step the preset's graph prices (DeepSeek-V3's
# experts one fused kernel whose outputs are all-reduced, not 256 per-expert GEMMs with their
# all-gathers and a decode padded to 256 MoE rows): a decode step several times cheaper.
# Without it the templates' own graph; an unknown preset is refused.
t_e2e_backend() {
  status_is 0 $bin e2e --model "$dsv3" --tp 8 --batch 4 --osl 64 --format jsonl || return 1
  own=$(sed 's/.*"tpot_ms": \([0-9.e+-]*\),.*/\1/' "$tmp/cmd.out")
  status_is 0 $bin e2e --model "$dsv3" --tp 8 --batch 4 --osl 64 --format jsonl \
    --backend vllm || return 1
  vllm=$(sed 's/.*"tpot_ms": \([0-9.e+-]*\),.*/\1/' "$tmp/cmd.out")
  awk -v a="$own" -v b="$vllm" 'BEGIN { exit !(b > 0 && a > 2 * b) }' ||
    { echo "TPOT $own ms (own graph), $vllm ms (vllm)"; return 1; }
  status_is 0 $bin sweep --model "$dsv3" --tp 8 --batch 4 --osl 64 --format jsonl \
    --backend vllm || return 1
  contains "$tmp/cmd.out" "\"tpot_ms\": $vllm," || return 1
  status_is 2 $bin e2e --model "$dsv3" --tp 8 --backend bogus &&
  contains "$tmp/cmd.err" "msperf e2e: --backend must be vllm, sglang, trtllm or static, not 'bogus'"
}
ok "e2e and sweep --backend: the serving preset's graph" t_e2e_backend

# stdout is JSON Lines only, so `msperf trace … | jq` works: the header (model, pass, layout)
# is on stderr; a file written with -o keeps it as '#' lines, which the trace reader skips.
t_trace_stdout_is_jsonl() {
  status_is 0 $bin trace --model "$llama" --tp 2 || return 1
  contains "$tmp/cmd.err" '^# msperf trace: meta-llama' || return 1
  if grep -v '^{"op": ".*}$' "$tmp/cmd.out" | grep -q .; then
    echo "stdout has a line that is not an op object:"; grep -v '^{"op": ".*}$' "$tmp/cmd.out" | head -n 3
    return 1
  fi
  if command -v jq >/dev/null 2>&1; then
    jq -e 'has("op")' "$tmp/cmd.out" >/dev/null || { echo "jq refused the trace"; return 1; }
  fi
  cp "$tmp/cmd.out" "$tmp/stdout.jsonl"
  $bin trace --model "$llama" --tp 2 -o "$tmp/t.jsonl" 2>"$tmp/o.err" || return 1
  head -n 1 "$tmp/t.jsonl" | grep -q '^# msperf trace: meta-llama' || { echo "-o file lost its header"; return 1; }
  [ ! -s "$tmp/o.err" ] || { echo "-o wrote the header to stderr too"; return 1; }
  grep -v '^#' "$tmp/t.jsonl" | cmp - "$tmp/stdout.jsonl" || return 1
  status_is 0 $bin estimate --no-cache --ops - --format jsonl <"$tmp/stdout.jsonl" || return 1
  ! grep -q REJECTED "$tmp/cmd.out" || { echo "estimate rejected a line of the trace"; return 1; }
}
ok "trace: stdout is JSON Lines only (header on stderr), -o keeps the header" t_trace_stdout_is_jsonl

# The defaults the help texts and doc/msperf.1 state are the ones used: spelled out, the same
# output (e2e without its "computed in" timing line).
t_trace_defaults() {
  $bin trace --model "$llama" >"$tmp/d1" || return 1
  $bin trace --model "$llama" --phase prefill --batch 1 --seq 1024 --tp 1 --ep 1 --dp 1 --pp 1 \
    >"$tmp/d2" || return 1
  cmp "$tmp/d1" "$tmp/d2" || return 1
  $bin trace --model "$llama" --phase decode >"$tmp/d1" || return 1
  $bin trace --model "$llama" --phase decode --context 1024 --nextn 0 --batch 1 >"$tmp/d2" || return 1
  cmp "$tmp/d1" "$tmp/d2"
}
ok "trace: the documented defaults are the ones used" t_trace_defaults
t_e2e_defaults() {
  $bin e2e --model "$llama" | grep -v '^computed in' >"$tmp/d1" || return 1
  $bin e2e --model "$llama" --isl 1024 --osl 128 --batch 1 --nextn 0 --nextn-accept 0.7 --tp 1 \
    --ep 1 --dp 1 --pp 1 | grep -v '^computed in' >"$tmp/d2" || return 1
  [ -s "$tmp/d1" ] && cmp "$tmp/d1" "$tmp/d2"
}
ok "e2e: the documented defaults are the ones used" t_e2e_defaults
t_sweep_defaults() {
  $bin sweep --model "$llama" --batch 1,8 >"$tmp/d1" 2>/dev/null || return 1
  $bin sweep --model "$llama" --batch 1,8 --devices 8 --tp 1,2,4,8 --ep 1 --pp 1 --isl 1024 \
    --osl 128 >"$tmp/d2" 2>/dev/null || return 1
  [ -s "$tmp/d1" ] && cmp "$tmp/d1" "$tmp/d2"
}
ok "sweep: the documented defaults are the ones used" t_sweep_defaults

t_trace_estimate() {
  $bin trace --model "$llama" --batch 2 --seq 128 -o "$tmp/t.jsonl" || return 1
  status_is 0 $bin estimate --ops "$tmp/t.jsonl" --format jsonl || return 1
  cp "$tmp/cmd.out" "$tmp/a.jsonl"
  status_is 0 $bin estimate --model "$llama" --batch 2 --seq 128 --format jsonl || return 1
  cmp "$tmp/a.jsonl" "$tmp/cmd.out" && contains "$tmp/cmd.out" '"source": "MEASURED"'
}
ok "estimate --model answers the same ops as estimate --ops on its trace" t_trace_estimate

t_e2e() {
  status_is 0 $bin e2e --model "$llama" --isl 1024 --osl 128 --batch 8 || return 1
  contains "$tmp/cmd.out" "TTFT" && contains "$tmp/cmd.out" "TPOT" &&
  contains "$tmp/cmd.out" "answered from data" && contains "$tmp/cmd.out" "fits"
}
ok "e2e: Llama-3.1-8B isl 1024 osl 128 batch 8 prints TTFT, TPOT and the data share" t_e2e

t_e2e_nofit() {
  status_is 1 $bin e2e --model "$dsv3" --tp 8 --isl 1024 --osl 128 --batch 8 --quant bf16 &&
  contains "$tmp/cmd.out" "DOES NOT FIT" &&
  status_is 0 $bin e2e --model "$dsv3" --tp 8 --isl 1024 --osl 128 --batch 8 &&
  contains "$tmp/cmd.out" ": fits"
}
ok "e2e: DeepSeek-V3 bf16 on 8 H200 does not fit (exit 1); in its FP8 it does" t_e2e_nofit

t_sweep() {
  status_is 0 $bin sweep --model "$qwen" --devices 8 --isl 1024 --osl 128 --report "$tmp/rep" ||
    return 1
  # 4 layouts (tp 1, 2, 4, 8) x 20 batch sizes, plus the header.
  [ "$(wc -l < "$tmp/cmd.out")" -eq 81 ] || { echo "rows: $(wc -l < "$tmp/cmd.out")"; return 1; }
  contains "$tmp/cmd.out" "^tp,pp,ep,dp,moe_tp,batch,ttft_ms,tpot_ms" &&
  contains "$tmp/rep/pareto.csv" ",true$" && contains "$tmp/rep/pareto.svg" "<svg" &&
  contains "$tmp/cmd.err" "80 points"
}
ok "sweep: Qwen3-32B on 8 devices gives 80 rows, the Pareto CSV and SVG" t_sweep

t_shard() {
  $bin sweep --model "$qwen" --devices 8 --batch 1,2,4 --shard 1/2 > "$tmp/s1" 2>/dev/null &&
  $bin sweep --model "$qwen" --devices 8 --batch 1,2,4 --shard 2/2 > "$tmp/s2" 2>/dev/null &&
  $bin sweep --model "$qwen" --devices 8 --batch 1,2,4 > "$tmp/all" 2>/dev/null || return 1
  [ "$(tail -n +2 "$tmp/s1" | wc -l)" -eq 6 ] && [ "$(tail -n +2 "$tmp/s2" | wc -l)" -eq 6 ] &&
  [ "$( (tail -n +2 "$tmp/s1"; tail -n +2 "$tmp/s2") | cut -d, -f1-14 | sort | md5sum)" = \
    "$(tail -n +2 "$tmp/all" | cut -d, -f1-14 | sort | md5sum)" ]
}
ok "sweep --shard 1/2 and 2/2 split the points and together give the whole sweep" t_shard

t_jobs_sweep() {
  for j in 1 2 3; do
    $bin sweep --model "$qwen" --devices 8 --tp 1,2,4,8 --pp 1,2 --batch 1,16,128 --jobs $j \
      --report "$tmp/r$j" > "$tmp/j$j" 2>/dev/null || return 1
  done
  cmp "$tmp/j1" "$tmp/j2" && cmp "$tmp/j1" "$tmp/j3" &&
  for f in sweep.csv pareto.csv pareto.svg; do cmp "$tmp/r1/$f" "$tmp/r3/$f" || return 1; done
}
ok "sweep --jobs 1, 2, 3: identical rows, Pareto CSV and SVG" t_jobs_sweep

t_jobs_e2e() {
  $bin e2e --model "$llama" --isl 1024 --osl 128 --batch 8 --jobs 1 --format jsonl > "$tmp/e1" &&
  $bin e2e --model "$llama" --isl 1024 --osl 128 --batch 8 --jobs 3 --format jsonl > "$tmp/e3" &&
  cmp "$tmp/e1" "$tmp/e3" && contains "$tmp/e1" '"ttft_ms"'
}
ok "e2e --jobs 1 and 3 give the same bytes" t_jobs_e2e

t_bad_jobs() {
  status_is 2 $bin sweep --model "$qwen" --jobs 0 && contains "$tmp/cmd.err" "from 1 to 256" &&
  status_is 2 $bin e2e --model "$qwen" --jobs 257
}
ok "--jobs outside 1..256 exits 2" t_bad_jobs

t_new_family() {
  status_is 0 $bin trace --model "$data/toy-config.json" --templates-dir "$data/templates" \
    --tp 2 --batch 1 --seq 8 &&
  contains "$tmp/cmd.err" "template toy_mlp"
}
ok "a new family is one template file (toy_mlp)" t_new_family

t_bad_layout() {
  status_is 2 $bin trace --model "$qwen" --tp 3 &&
  contains "$tmp/cmd.err" "num_attention_heads 64 is not divisible by --tp 3"
}
ok "a layout that does not divide the model exits 2 with the reason" t_bad_layout
t_bad_arch() {
  status_is 2 $bin trace --model "$data/bad/unknown-arch.json" &&
  contains "$tmp/cmd.err" "unknown-arch.json: unknown architecture"
}
ok "unknown architecture exits 2 naming the file" t_bad_arch
t_missing_field() {
  status_is 2 $bin e2e --model "$data/bad/no-heads.json" &&
  contains "$tmp/cmd.err" "missing field 'num_attention_heads'"
}
ok "missing config field exits 2 naming the field" t_missing_field
t_bad_template() {
  status_is 2 $bin trace --model "$data/toy-config.json" --template "$data/bad/bad_expr.yaml" &&
  contains "$tmp/cmd.err" "bad_expr.yaml:4:"
}
ok "bad template expression exits 2 with FILE:LINE" t_bad_template
t_bad_phase() { status_is 2 $bin trace --model "$qwen" --phase middle; }
ok "bad --phase exits 2" t_bad_phase
t_bad_shard() { status_is 2 $bin sweep --model "$qwen" --shard 3/2; }
ok "bad --shard exits 2" t_bad_shard
t_no_model() { status_is 2 $bin e2e && contains "$tmp/cmd.err" "--model CONFIG is required"; }
ok "e2e without --model exits 2" t_no_model

tap_end
