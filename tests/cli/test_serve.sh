#!/bin/sh
# CLI tests of the serving simulation (doc/serving.md): serve on the sample database (table,
# JSON, CSV, timeline, report), static = e2e, same seed same bytes for any --jobs, usage errors,
# the Ascend A3 profile with an msmodeling database, and accuracy on a few measured rows
# (skipped with a message when the shared data is absent). TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}"
bin="$MSPERF_BIN --plugins-dir $MSPERF_TEST_PLUGINDIR"
src=$MSPERF_TOP_SRCDIR
data=$src/tests/data/models
shared=${MSPERF_SHARED_DATA:-$src/../shared/data}
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
# Under valgrind (the CI wrapper's path names it) a run is some 40 times slower: the heavy runs
# are left to the ordinary and the sanitizer builds; usage errors, refusals and one small run
# stay.
case "$MSPERF_BIN" in *valgrind*) light=1 ;; *) light=0 ;; esac
heavy() {  # heavy DESCRIPTION COMMAND... : ok, or a skip under valgrind
  if [ "$light" = 1 ]; then n=$((n + 1)); echo "ok $n # SKIP under valgrind: $1"; else ok "$@"; fi
}

llama=$data/configs/meta-llama--Meta-Llama-3.1-8B.json

t_table() {
  status_is 0 $bin serve --model "$llama" --concurrency 8 --num-requests 40 --isl 512 --osl 64 \
    || return 1
  for k in "scheduler          vllm" "TTFT " "TPOT " "ITL " "e2e latency" "tokens/s/device" \
           "tokens/s/user" "KV cache" "preemptions" "answered from data"; do
    contains "$tmp/cmd.out" "$k" || return 1
  done
}
heavy "serve prints TTFT/TPOT/ITL/e2e percentiles, throughputs, KV use, preemptions" t_table

t_formats() {
  status_is 0 $bin serve --model "$llama" --concurrency 4 --num-requests 20 --format json || return 1
  contains "$tmp/cmd.out" '"ttft_ms": {"mean": ' || return 1
  contains "$tmp/cmd.out" '"preemptions": 0' || return 1
  status_is 0 $bin serve --model "$llama" --concurrency 4 --num-requests 20 --format csv || return 1
  [ "$(wc -l < "$tmp/cmd.out")" -eq 2 ] || return 1
  head -n 1 "$tmp/cmd.out" | grep -q '^requests,measured,devices,ttft_ms_mean' || return 1
}
heavy "serve --format json and csv" t_formats

t_backends() {
  for b in vllm sglang trtllm; do
    status_is 0 $bin serve --model "$llama" --backend $b --concurrency 16 --num-requests 48 \
      --format json || return 1
    contains "$tmp/cmd.out" '"measured": 48' || return 1
  done
}
heavy "serve runs each backend's scheduler preset" t_backends

t_kv_dtype() {
  # --kv-dtype fp8 halves a token's KV bytes: twice the tokens in the same memory; an unknown
  # dtype is refused with the flag named. --gemm-quant / --moe-quant reach the template.
  status_is 0 $bin serve --model "$llama" --concurrency 4 --num-requests 20 --format json \
    || return 1
  bf=$(sed -n 's/.*"kv_capacity_tokens": \([0-9]*\).*/\1/p' "$tmp/cmd.out")
  status_is 0 $bin serve --model "$llama" --concurrency 4 --num-requests 20 --format json \
    --kv-dtype fp8 || return 1
  f8=$(sed -n 's/.*"kv_capacity_tokens": \([0-9]*\).*/\1/p' "$tmp/cmd.out")
  [ -n "$bf" ] && [ "$f8" -gt $((2 * bf - 64)) ] && [ "$f8" -lt $((2 * bf + 64)) ] \
    || { echo "kv capacity bf16 $bf, fp8 $f8: not twice"; return 1; }
  status_is 2 $bin serve --model "$llama" --kv-dtype fp16x || return 1
  contains "$tmp/cmd.err" "kv-dtype" || return 1
  status_is 0 $bin serve --model "$llama" --concurrency 2 --num-requests 4 --gemm-quant fp8 \
    --format json || return 1
  g8=$(sed -n 's/.*"tpot_ms": {"mean": \([0-9.]*\).*/\1/p' "$tmp/cmd.out")
  status_is 0 $bin serve --model "$llama" --concurrency 2 --num-requests 4 --format json \
    || return 1
  b16=$(sed -n 's/.*"tpot_ms": {"mean": \([0-9.]*\).*/\1/p' "$tmp/cmd.out")
  awk -v a="$g8" -v b="$b16" 'BEGIN { exit !(a > 0 && a != b) }' \
    || { echo "TPOT with --gemm-quant fp8 $g8, bf16 $b16"; return 1; }
}
heavy "serve --kv-dtype sizes the KV cache; --gemm-quant reaches the template" t_kv_dtype

t_max_prefill_tokens() {
  # SGLang's --max-prefill-tokens: a prompt that fits the step's budget is admitted whole even
  # past it, and none after it. Four 2000-token prompts arriving at once (all queued before
  # the idle engine's first step): that step takes two at 3000 (4000 tokens: the second
  # overshoots) and all four without the limit (8000 within the 8192 budget).
  for mp in 3000 0; do
    status_is 0 $bin serve --model "$llama" --backend sglang --concurrency 4 --num-requests 8 \
      --isl 2000 --osl 8 --max-prefill-tokens $mp --timeline "$tmp/mp$mp.json" || return 1
  done
  first() { grep -o '"name":"step"[^}]*}' "$1" | sed -n 1p | sed 's/.*"prefill":\([0-9]*\).*/\1/'; }
  [ "$(first "$tmp/mp3000.json")" = 2 ] && [ "$(first "$tmp/mp0.json")" = 4 ] \
    || { echo "first step prefills: $(first "$tmp/mp3000.json") at 3000, $(first "$tmp/mp0.json") without"; return 1; }
}
heavy "serve --max-prefill-tokens: whole prompts past it, none after it (SGLang)" t_max_prefill_tokens

dsv3=$data/configs/deepseek-ai--DeepSeek-V3.json
t_dp_lockstep() {
  # The attention-DP ranks of a MoE engine step together (the MoE's collectives join every
  # rank in every forward): 12 clients over 8 ranks load them unevenly, yet in the timeline
  # the ranks' steps start together and last the same, and a rank's next step starts only
  # when the group's ends.
  status_is 0 $bin serve --model "$dsv3" --tp 1 --dp 8 --ep 8 --backend trtllm \
    --kv-capacity-tokens 200000 --concurrency 12 --num-requests 48 --isl 256 --osl 16 \
    --timeline "$tmp/dp.json" || return 1
  grep -o '"pid":1,"tid":[0-9]*,"ts":[0-9.]*,"dur":[0-9.]*' "$tmp/dp.json" \
    | awk -F'[:,]' '{ print $6, $8 }' | sort -g | awk '
      { if (n && $1 == t) { if ($2 != d) bad++; together++ }
        else { if (n && $1 < t + d - 0.01) bad++; t = $1; d = $2 }
        n++ }
      END { if (n < 100 || together < n / 2 || bad) { print n, together, bad; exit 1 } }'
}
heavy "serve: the attention-DP ranks of a MoE engine step in lockstep" t_dp_lockstep

t_pipeline_stages() {
  # DeepSeek-V3's 61 layers divide by no stage count: PP 2 runs two stages of the largest,
  # 31 layers, as the runtimes split them, instead of being refused. One request alone: its
  # first token costs 2 x 31 layers against 61 at PP 1 (1-5 % more), and the second stage
  # holds half the weights, so the rank's KV cache is larger.
  for pp in 1 2; do
    status_is 0 $bin serve --model "$dsv3" --tp 8 --pp $pp --backend trtllm --concurrency 1 \
      --num-requests 2 --isl 1024 --osl 8 --format json && cp "$tmp/cmd.out" "$tmp/pp$pp.json" || return 1
  done
  ratio() {  # FIELD [mean]: pp 2 over pp 1 of a top-level number, or of a figure's mean
    a=$(grep -A1 "\"$1\"" "$tmp/pp1.json" | sed -n "s/.*\"${2:-$1}\": *\([0-9.]*\).*/\1/p")
    b=$(grep -A1 "\"$1\"" "$tmp/pp2.json" | sed -n "s/.*\"${2:-$1}\": *\([0-9.]*\).*/\1/p")
    awk -v a="$a" -v b="$b" 'BEGIN { if (a + 0 <= 0) exit 1; printf "%.6f\n", b / a }'
  }
  r=$(ratio ttft_ms mean) && awk -v r="$r" 'BEGIN { exit !(r >= 1.0 && r <= 1.05) }' ||
    { echo "TTFT pp2/pp1 $r"; return 1; }
  r=$(ratio kv_capacity_tokens) && awk -v r="$r" 'BEGIN { exit !(r > 1.5) }' ||
    { echo "KV capacity pp2/pp1 $r"; return 1; }
  # The runtimes keep a micro-batch in flight per stage; the table says how the engine's
  # sequence limit is shared among them.
  status_is 0 $bin serve --model "$llama" --tp 1 --pp 2 --backend vllm --concurrency 2 \
    --isl 400 --osl 16 --num-requests 4 || return 1
  contains "$tmp/cmd.out" "and 1024 sequences (2 micro-batches in flight, 512 sequences each)"
}
heavy "serve --pp: a stage count that does not divide the layers runs the largest stage" \
  t_pipeline_stages

t_adp_balance() {
  # TensorRT-LLM's attention_dp_config.enable_balance: with prompts of varied lengths the 8
  # ranks' requests end at different steps, and each prompt a rank admits alone stalls the
  # other seven ranks' decodes (they step in lockstep). Held back until every rank has one
  # (at most 60 steps), the prompts run together: TPOT falls to a fraction, TTFT rises by the
  # wait. Off (0) by default.
  d="--model $dsv3 --tp 1 --dp 8 --ep 8 --backend trtllm --kv-capacity-tokens 200000
     --concurrency 32 --num-requests 256 --isl 2048 --osl 64 --isl-dist uniform:0.5
     --osl-dist uniform:0.5 --format csv"
  status_is 0 $bin serve $d || return 1
  sed -n 2p "$tmp/cmd.out" > "$tmp/adp_off.csv"
  status_is 0 $bin serve $d --adp-balance-timeout-iters 0 || return 1
  sed -n 2p "$tmp/cmd.out" | cmp -s - "$tmp/adp_off.csv" || return 1
  status_is 0 $bin serve $d --adp-balance-timeout-iters 60 || return 1
  awk -F, -v on="$(sed -n 2p "$tmp/cmd.out")" 'BEGIN { split(on, b, ",") }
    { if (!(b[8] > 0 && b[8] < $8 / 2 && b[4] > $4)) { print "off", $4, $8, "on", b[4], b[8]; exit 1 } }' \
    "$tmp/adp_off.csv" || return 1
}
heavy "serve --adp-balance-timeout-iters: attention-DP ranks hold prompts back until each has one" \
  t_adp_balance

t_dp_budget_split() {
  # SGLang divides its chunked-prefill size among the ranks of an attention-DP engine: on DP 2
  # the preset's budget of 8192 runs as 4096 a rank given on the command line (a budget given
  # there is a rank's), and not as 8192 a rank.
  q3=$data/configs/Qwen--Qwen3-30B-A3B.json
  set -- --model "$q3" --backend sglang --tp 1 --dp 2 --ep 2 --concurrency 4 \
    --num-requests 8 --isl 6000 --osl 8 --format csv
  status_is 0 $bin serve "$@" --format table &&
  contains "$tmp/cmd.out" "^step limits        4096 tokens (8192 over 2 attention-DP ranks) and 4096 sequences" &&
  status_is 0 $bin serve "$@" && cp "$tmp/cmd.out" "$tmp/split.csv" &&
  status_is 0 $bin serve "$@" --max-num-batched-tokens 4096 &&
  cmp -s "$tmp/split.csv" "$tmp/cmd.out" &&
  status_is 0 $bin serve "$@" --max-num-batched-tokens 8192 &&
  cp "$tmp/cmd.out" "$tmp/whole.csv" && ! cmp -s "$tmp/split.csv" "$tmp/whole.csv" &&
  status_is 0 $bin serve "$@" --dp-attention-budget-split false &&
  cmp -s "$tmp/cmd.out" "$tmp/whole.csv"
}
heavy "serve --backend sglang: an attention-DP engine's ranks share the preset's step budget" \
  t_dp_budget_split

serve_tpot() {  # serve_tpot VAR ARGS... : mean TPOT of `serve ARGS --format csv` into VAR
  var=$1; shift
  status_is 0 $bin serve "$@" --format csv || return 1
  eval "$var=\$(sed -n 2p \"\$tmp/cmd.out\" | cut -d, -f$(head -n 1 "$tmp/cmd.out" \
    | tr , '\n' | grep -n '^tpot_ms_mean$' | cut -d: -f1))"
}

t_moe_pad() {
  # The NVIDIA runtimes' presets run the decode MoE on the batch's own tokens
  # (moe_pad_tokens 0); --moe-pad-tokens 256 pads it as vLLM-Ascend's decode graph does: a
  # slower decode step, a higher TPOT. A negative count is refused.
  for p in 0 256; do
    serve_tpot "tpot$p" --model "$dsv3" --tp 8 --ep 8 --quant fp8_block --backend trtllm \
      --concurrency 4 --num-requests 8 --isl 128 --osl 8 --moe-pad-tokens $p || return 1
  done
  [ -n "$tpot0" ] && [ -n "$tpot256" ] || return 1
  awk -v a="$tpot0" -v b="$tpot256" 'BEGIN { exit !(b > a) }' || return 1
  status_is 2 $bin serve --model "$dsv3" --concurrency 4 --moe-pad-tokens -1 || return 1
  contains "$tmp/cmd.err" "moe_pad_tokens: bad value '-1' (an integer >= 0)" || return 1
}
heavy "serve --moe-pad-tokens: the decode MoE rows the runtime pads to (0 on NVIDIA presets)" \
  t_moe_pad

t_moe_bf16_fused() {
  # The NVIDIA presets run bf16 experts as one fused MoE kernel (moe_bf16_fused 1), answered
  # by the fused-MoE table's bf16 rows: Qwen3-30B-A3B's 128 experts cost a fraction of the
  # per-expert GEMMs (--moe-bf16-fused 0, TensorCast's form) and the step is answered from
  # data; its trace carries the fused op under quant bf16.
  q3=$data/configs/Qwen--Qwen3-30B-A3B.json
  for f in 1 0; do
    status_is 0 $bin serve --model "$q3" --tp 4 --backend vllm --concurrency 8 --num-requests 16 \
      --isl 512 --osl 32 --moe-bf16-fused $f --format csv || return 1
    col() { head -n 1 "$tmp/cmd.out" | tr , '\n' | grep -n "^$1\$" | cut -d: -f1; }
    eval "tpot$f=\$(sed -n 2p \"\$tmp/cmd.out\" | cut -d, -f$(col tpot_ms_mean))"
    eval "share$f=\$(sed -n 2p \"\$tmp/cmd.out\" | cut -d, -f$(col data_share))"
  done
  awk -v a="$tpot1" -v b="$tpot0" -v s="$share1" -v t="$share0" \
    'BEGIN { exit !(a > 0 && 2 * a < b && s > 0.95 && s > t) }' \
    || { echo "TPOT fused $tpot1 (data share $share1), per expert $tpot0 ($share0)"; return 1; }
  sed 's/^{/{"moe_bf16_fused": 1,/' "$q3" > "$tmp/q3-cuda.json"
  status_is 0 $bin trace --model "$tmp/q3-cuda.json" --phase decode --batch 4 --tp 4 || return 1
  contains "$tmp/cmd.out" '"op": "tensor_cast.fused_moe.default".*"quant": "bf16"' || return 1
}
heavy "serve: bf16 experts run as one fused MoE on the NVIDIA presets (--moe-bf16-fused)" \
  t_moe_bf16_fused

t_expert_gather() {
  # Experts that stay one GEMM each on a CUDA preset (int4 weight-only, unfused with
  # --moe-int4-fused 0) run without the Ascend capture's all-gather of each expert's rows over
  # TP (expert_gather 0): --expert-gather 1 puts those collectives back and the decode step is
  # slower.
  for g in 0 1; do
    serve_tpot "tpot$g" --model "$dsv3" --tp 8 --ep 8 --quant int4_wo --backend vllm \
      --concurrency 4 --num-requests 8 --isl 128 --osl 8 --expert-gather $g \
      --moe-int4-fused 0 || return 1
  done
  awk -v a="$tpot0" -v b="$tpot1" 'BEGIN { exit !(a > 0 && b > 1.5 * a) }' \
    || { echo "TPOT without gathers $tpot0, with $tpot1"; return 1; }
}
heavy "serve: the CUDA presets run per-expert GEMMs without the Ascend all-gathers (--expert-gather)" \
  t_expert_gather

t_moe_int4_fused() {
  # The CUDA presets run int4 weight-only experts as one fused MoE a layer (moe_int4_fused 1):
  # DeepSeek-V3's 32 local experts a layer cost less than as 32 GEMM pairs
  # (--moe-int4-fused 0, TensorCast's form).
  for f in 1 0; do
    serve_tpot "tpot$f" --model "$dsv3" --tp 8 --ep 8 --quant int4_wo --backend vllm \
      --concurrency 4 --num-requests 8 --isl 128 --osl 8 --moe-int4-fused $f || return 1
  done
  awk -v a="$tpot1" -v b="$tpot0" 'BEGIN { exit !(a > 0 && b > a) }' \
    || { echo "TPOT fused $tpot1, per expert $tpot0"; return 1; }
}
heavy "serve: int4 weight-only experts run as one fused MoE on the CUDA presets (--moe-int4-fused)" \
  t_moe_int4_fused

# An open loop says on stderr when its run is not its steady state: the deployment still
# filling up (fewer left out than are in service at once), or not keeping up (its queue grows).
# The figures on stdout are the run's either way.
t_open_loop_steady() {
  o="--model $llama --isl 512 --osl 64 --format csv"
  status_is 0 $bin serve $o --rate 2 --num-requests 200 && [ ! -s "$tmp/cmd.err" ] &&
  status_is 0 $bin serve $o --rate 200 --num-requests 400 &&
  contains "$tmp/cmd.err" "requests are in service at once .*more than the 0 left out by --warmup" &&
  ! grep -q "keep up" "$tmp/cmd.err" &&
  status_is 0 $bin serve $o --rate 200 --num-requests 6000 --warmup 2048 --cooldown 1024 &&
  contains "$tmp/cmd.err" "% of the requests arriving complete meanwhile: the deployment does not keep up" &&
  ! grep -q "in service at once" "$tmp/cmd.err" && [ "$(wc -l <"$tmp/cmd.out")" -eq 2 ]
}
heavy "serve --rate: a run still filling up, or a deployment not keeping up, is said on stderr" \
  t_open_loop_steady

t_static_is_e2e() {
  status_is 0 $bin e2e --model "$llama" --batch 8 --isl 1024 --osl 128 || return 1
  ttft=$(sed -n 's/^TTFT *\([0-9.]*\) ms/\1/p' "$tmp/cmd.out")
  tpot=$(sed -n 's/^TPOT *\([0-9.]*\) ms/\1/p' "$tmp/cmd.out")
  status_is 0 $bin serve --model "$llama" --backend static --concurrency 8 --isl 1024 --osl 128 \
    || return 1
  contains "$tmp/cmd.out" "^TTFT *mean *$ttft " || return 1
  contains "$tmp/cmd.out" "^TPOT *mean *$tpot " || return 1
}
heavy "serve --backend static gives e2e's TTFT and TPOT" t_static_is_e2e

t_same_bytes() {
  $bin serve --model "$llama" --rate 20 --arrival gamma:2 --isl-dist uniform:0.5 \
    --num-requests 60 --seed 7 --format json --jobs 1 > "$tmp/a" || return 1
  $bin serve --model "$llama" --rate 20 --arrival gamma:2 --isl-dist uniform:0.5 \
    --num-requests 60 --seed 7 --format json --jobs 2 > "$tmp/b" || return 1
  cmp "$tmp/a" "$tmp/b" || return 1
  $bin serve --model "$llama" --rate 20 --arrival gamma:2 --isl-dist uniform:0.5 \
    --num-requests 60 --seed 8 --format json > "$tmp/c" || return 1
  ! cmp -s "$tmp/a" "$tmp/c"
}
heavy "same seed, same bytes for any --jobs; another seed, another run" t_same_bytes

t_outputs() {
  status_is 0 $bin serve --model "$llama" --concurrency 4 --num-requests 12 --timeline \
    "$tmp/t.json" --report "$tmp/rep" || return 1
  contains "$tmp/t.json" '"traceEvents"' || return 1
  contains "$tmp/t.json" '"name":"step","ph":"X"' || return 1
  contains "$tmp/t.json" '"name":"request 11"' || return 1
  for f in ttft_cdf tpot_cdf e2e_cdf batch kv_use; do
    contains "$tmp/rep/$f.svg" '<svg' || return 1
  done
}
heavy "serve --timeline (Chrome trace) and --report (SVG plots)" t_outputs

t_requests_file() {
  printf '{"arrival_s": 0, "input_tokens": 100, "output_tokens": 10}\n{"arrival_ms": 5, "input_tokens": 300, "output_tokens": 3}\n' > "$tmp/r.jsonl"
  status_is 0 $bin serve --model "$llama" --requests "$tmp/r.jsonl" --format json || return 1
  contains "$tmp/cmd.out" '"measured": 2' || return 1
  printf '{"arrival_s": 0, "input_tokens": 100}\n' > "$tmp/bad.jsonl"
  status_is 2 $bin serve --model "$llama" --requests "$tmp/bad.jsonl" || return 1
  contains "$tmp/cmd.err" "bad.jsonl:1: " || return 1
}
ok "serve --requests FILE.jsonl; a bad line is FILE:LINE" t_requests_file

t_disagg() {
  status_is 0 $bin serve --model "$llama" --mode disagg --prefill-workers 1 --decode-workers 2 \
    --decode-tp 2 --concurrency 16 --num-requests 48 --format json || return 1
  contains "$tmp/cmd.out" '"devices": 5' || return 1
}
heavy "serve --mode disagg with prefill and decode pools" t_disagg

t_disagg_batch() {
  # Each pool's own batch limit: two sequences per decode rank for eight clients leave six
  # waiting for a slot after their prefill. Their first token reaches the client with their
  # first decode step, so TTFT counts that wait and is several times the uncapped pool's;
  # with --first-token-from-decode false the first token is out when the KV arrives and TPOT
  # counts the wait instead. The preset's limit is the default.
  d="--model $llama --mode disagg --concurrency 8 --isl 512 --osl 32 --num-requests 64"
  status_is 0 $bin serve $d --format csv || return 1
  free=$(sed -n 2p "$tmp/cmd.out" | cut -d, -f4)
  free_tpot=$(sed -n 2p "$tmp/cmd.out" | cut -d, -f8)
  status_is 0 $bin serve $d --format csv --decode-max-num-seqs 2 || return 1
  capped=$(sed -n 2p "$tmp/cmd.out" | cut -d, -f4)
  capped_tpot=$(sed -n 2p "$tmp/cmd.out" | cut -d, -f8)
  awk -v f="$free" -v c="$capped" -v ft="$free_tpot" -v ct="$capped_tpot" \
    'BEGIN { exit !(f > 0 && c > 2.5 * f && ct < 1.2 * ft) }' \
    || { echo "TTFT $free uncapped, $capped with 2 per decode rank (TPOT $free_tpot, $capped_tpot)"; return 1; }
  status_is 0 $bin serve $d --format csv --first-token-from-decode false || return 1
  free=$(sed -n 2p "$tmp/cmd.out" | cut -d, -f8)
  status_is 0 $bin serve $d --format csv --first-token-from-decode false \
    --decode-max-num-seqs 2 || return 1
  capped=$(sed -n 2p "$tmp/cmd.out" | cut -d, -f8)
  awk -v f="$free" -v c="$capped" 'BEGIN { exit !(f > 0 && c > 2.5 * f) }' \
    || { echo "TPOT $free uncapped, $capped with 2 per decode rank"; return 1; }
  status_is 0 $bin serve $d --format csv || return 1
  sed -n 2p "$tmp/cmd.out" > "$tmp/disagg_default.csv"
  status_is 0 $bin serve $d --format csv --decode-max-num-seqs 256 || return 1
  sed -n 2p "$tmp/cmd.out" | cmp -s - "$tmp/disagg_default.csv" || return 1
}
heavy "serve --mode disagg: --prefill-max-num-seqs / --decode-max-num-seqs bound each pool" \
  t_disagg_batch

t_seq_overlap() {
  # Host work beside the forward pass paces a step only when it is the longer: 10 ms per
  # sequence with four running makes the decode steps 40 ms (ITL p50), where the forward pass
  # alone is a few ms; 1 us per sequence leaves the figures as they were.
  o="--model $llama --concurrency 4 --isl 64 --osl 32 --num-requests 16 --format csv"
  status_is 0 $bin serve $o || return 1
  cp "$tmp/cmd.out" "$tmp/plain.csv"
  status_is 0 $bin serve $o --seq-overlap-us 10000 || return 1
  [ "$(sed -n 2p "$tmp/cmd.out" | cut -d, -f13)" = 40 ] || { cat "$tmp/cmd.out"; return 1; }
  status_is 0 $bin serve $o --seq-overlap-us 1 || return 1
  cmp "$tmp/plain.csv" "$tmp/cmd.out" || return 1
}
ok "serve --seq-overlap-us: host time beside the GPU paces a step only when it is longer" \
  t_seq_overlap

t_knobs() {
  status_is 0 $bin serve --model "$llama" --concurrency 16 --num-requests 32 --max-num-seqs 2 \
    --kv-capacity-tokens 4096 --block-size 16 --format json || return 1
  contains "$tmp/cmd.out" '"mean_batch": [12][,.]' || return 1
}
heavy "every scheduler knob is a flag (--max-num-seqs 2 caps the batch)" t_knobs

t_prefix_caching() {
  set -- --model "$llama" --concurrency 8 --num-requests 48 --isl 2048 --osl 16 --format csv
  hits() { sed -n 2p "$tmp/cmd.out" | cut -d, -f"$(head -n 1 "$tmp/cmd.out" | tr , '\n' |
                                                   grep -n '^prefix_hit_share$' | cut -d: -f1)"; }
  status_is 0 $bin serve "$@" --prompt-pool 8 --prompt-warmup 32 || return 1
  on=$(sed -n 2p "$tmp/cmd.out" | cut -d, -f4)
  hit_on=$(hits)
  status_is 0 $bin serve "$@" --prompt-pool 8 --prompt-warmup 32 --prefix-caching false || return 1
  off=$(sed -n 2p "$tmp/cmd.out" | cut -d, -f4)
  hit_off=$(hits)
  awk -v a="$on" -v b="$off" 'BEGIN { exit !(a > 0 && a < b / 4) }' || { echo "$on vs $off"; return 1; }
  # A cached 2048-token prompt prefills from its last block: 2032 of 2048 tokens (0.992188 as
  # printed) at most, and the 32 warm-up draws leave few of the 8 prompts out of the cache.
  awk -v h="$hit_on" -v o="$hit_off" 'BEGIN { exit !(h > 0.9 && h <= 0.992188 && o == 0) }' ||
    { echo "prefix_hit_share $hit_on with the cache, $hit_off without"; return 1; }
  status_is 0 $bin serve "$@" || return 1
  [ "$(hits)" = nan ] || { echo "no pool: prefix_hit_share $(hits)"; return 1; }
  set -- --model "$llama" --concurrency 8 --num-requests 48 --isl 2048 --osl 16
  status_is 0 $bin serve "$@" --prompt-pool 8 --format json || return 1
  contains "$tmp/cmd.out" '"prefix_hit_share": 0\.[0-9]' || return 1
  status_is 0 $bin serve "$@" --prompt-pool 8 || return 1
  contains "$tmp/cmd.out" "prefix cache       " || return 1
  status_is 0 $bin serve "$@" --format json || return 1
  ! grep -q prefix_hit_share "$tmp/cmd.out" || { echo "a run without a pool has a hit share"; return 1; }
  status_is 0 $bin serve "$@" --prompt-pool 8 --prompt-shuffle || return 1
  status_is 2 $bin serve "$@" --prompt-warmup 4 || return 1
  contains "$tmp/cmd.err" "need --prompt-pool" || return 1
  status_is 2 $bin serve "$@" --prompt-pool -1 || return 1
  printf '{"arrival_s": 0, "input_tokens": 20, "output_tokens": 2}\n' > "$tmp/one.jsonl"
  status_is 2 $bin serve --model "$llama" --requests "$tmp/one.jsonl" --prompt-pool 4 || return 1
  contains "$tmp/cmd.err" "not for --requests" || return 1
}
heavy "serve --prompt-pool: repeated prompts prefill from the prefix cache (--prefix-caching)" \
  t_prefix_caching

t_usage() {
  status_is 2 $bin serve --model "$llama" --backend tgi || return 1
  contains "$tmp/cmd.err" "vllm, sglang, trtllm or static" || return 1
  status_is 2 $bin serve --model "$llama" --rate 1 --concurrency 2 || return 1
  status_is 2 $bin serve --model "$llama" --rate 1 --arrival weibull || return 1
  status_is 2 $bin serve --model "$llama" --max-num-seqs 0 || return 1
  status_is 2 $bin serve --model "$llama" --mode both || return 1
  status_is 2 $bin serve --concurrency 2 || return 1
  contains "$tmp/cmd.err" "model CONFIG is required" || return 1
}
ok "serve usage errors exit 2 with the reason" t_usage

asc=${MSPERF_ASCEND_DB:-$shared/msmodeling/ATLAS_800_A3_752T_128G_DIE/vllm_ascend/vllm0.18.0_torch2.9.0_cann8.5}
t_ascend() {
  status_is 0 $bin serve --model "$llama" --tp 2 --profiling-database "$asc" \
    --device-profile ascend-a3 --concurrency 8 --num-requests 24 --format json || return 1
  contains "$tmp/cmd.out" '"measured": 24' || return 1
}
if [ -f "$asc/op_mapping.yaml" ]; then
  heavy "serve runs unchanged on the Ascend A3 profile with an msmodeling database" t_ascend
else
  skip "no msmodeling Ascend database at $asc"
fi

t_cuda_moe_fields() {
  # The CUDA runtimes' template parameters (set by the serving presets, here as config fields):
  # gemm_quant_fused drops the fp8_quantize before each fp8_block linear; moe_allreduce shards
  # the shared experts over the TP group (7168 x 512 gate/up per rank on TP 8 / EP 8, where
  # moe_tp is 1) and the fused MoE does its own routing (no sigmoid/topk beside it).
  ds=$data/configs/deepseek-ai--DeepSeek-V3.json
  sed 's/^{/{"moe_allreduce": 1, "gemm_quant_fused": 1, "moe_pad_tokens": 0,/' "$ds" \
    > "$tmp/ds-cuda.json"
  status_is 0 $bin trace --model "$ds" --phase decode --batch 4 --tp 8 --ep 8 || return 1
  cp "$tmp/cmd.out" "$tmp/ds-plain.trace"
  status_is 0 $bin trace --model "$tmp/ds-cuda.json" --phase decode --batch 4 --tp 8 --ep 8 \
    || return 1
  cp "$tmp/cmd.out" "$tmp/ds-cuda.trace"
  contains "$tmp/ds-plain.trace" 'fp8_quantize' || return 1
  ! grep -q 'fp8_quantize' "$tmp/ds-cuda.trace" || return 1
  contains "$tmp/ds-plain.trace" '"shape": \[7168, 4096\], "dtype": "float8_e4m3fn"' || return 1
  contains "$tmp/ds-cuda.trace" '"shape": \[7168, 512\], "dtype": "float8_e4m3fn"' || return 1
  ! grep -q '"shape": \[7168, 4096\], "dtype": "float8_e4m3fn"' "$tmp/ds-cuda.trace" || return 1
  contains "$tmp/ds-cuda.trace" 'fused_moe' || return 1
  ! grep -q 'aten.sigmoid\|aten.topk' "$tmp/ds-cuda.trace" || return 1
}
ok "MLA/MoE template: fused input quantisation, TP-sharded shared experts, routing in the fused MoE" t_cuda_moe_fields

t_gemm_quant_fused_dense() {
  # Every template takes gemm_quant_fused (the vLLM and SGLang presets set it, as TensorRT-LLM's
  # does): an fp8 linear of the dense GQA template without the fp8_quantize before it.
  sed 's/^{/{"gemm_quant_fused": 1,/' "$llama" > "$tmp/llama-cuda.json"
  status_is 0 $bin trace --model "$llama" --quant fp8 --phase decode --batch 4 || return 1
  contains "$tmp/cmd.out" 'fp8_quantize' || return 1
  contains "$tmp/cmd.out" 'fp8_matmul' || return 1
  status_is 0 $bin trace --model "$tmp/llama-cuda.json" --quant fp8 --phase decode --batch 4 \
    || return 1
  ! grep -q 'fp8_quantize' "$tmp/cmd.out" || return 1
  contains "$tmp/cmd.out" 'fp8_matmul' || return 1
}
ok "dense template: gemm_quant_fused drops the separate input quantisation of fp8 linears" \
  t_gemm_quant_fused_dense

sil=$shared/silicon-h200-dev/silicon_dev.csv
t_accuracy() {
  # The header, one row of each (model, backend, mode), and a row of an unknown model.
  { head -n 1 "$sil"
    grep ',sglang,.*Qwen3-235B' "$sil" | head -n 1
    grep ',sglang,.*meta-llama/Llama-3.1-8B' "$sil" | head -n 1
    grep ',vllm,' "$sil" | head -n 1
    grep ',trtllm,.*,agg,' "$sil" | head -n 1
    grep ',trtllm,.*,disagg,' "$sil" | head -n 1
    grep ',sglang,.*meta-llama/Llama-3.1-8B' "$sil" | head -n 1 | sed 's|meta-llama/Llama-3.1-8B-Instruct|acme/Nonexistent-7B|; s|^[^,]*,|unknown_row,|'
  } > "$tmp/rows.csv"
  status_is 0 $bin accuracy --silicon "$tmp/rows.csv" --models-dir "$shared/models" --format csv \
    --jobs 1 --requests-per-client 2 || return 1
  cp "$tmp/cmd.out" "$tmp/acc1"
  head -n 1 "$tmp/acc1" | grep -q '^id,predicted_ttft_ms,predicted_tpot_ms,data_share,status$' \
    || return 1
  [ "$(wc -l < "$tmp/acc1")" -eq 7 ] || return 1
  # The rows run longest first, but come out in the file's order.
  [ "$(cut -d, -f1 "$tmp/acc1")" = "$(sed '1s/^.*$/id/' "$tmp/rows.csv" | cut -d, -f1)" ] \
    || return 1
  contains "$tmp/acc1" '^unknown_row,,,,unmapped: no config for acme/Nonexistent-7B' || return 1
  grep -c ',ok' "$tmp/acc1" | grep -q '^[1-9]' || return 1
  status_is 0 $bin accuracy --silicon "$tmp/rows.csv" --models-dir "$shared/models" --format csv \
    --jobs 2 --requests-per-client 2 || return 1
  cmp "$tmp/acc1" "$tmp/cmd.out" || return 1
  status_is 0 $bin accuracy --silicon "$tmp/rows.csv" --models-dir "$shared/models" \
    --requests-per-client 2 --report "$tmp/accrep" || return 1
  contains "$tmp/cmd.out" "TTFT MAPE" || return 1
  contains "$tmp/cmd.out" "rows not mapped: " || return 1
  # p/m is the median of predicted / measured, of TTFT, TPOT and the request's latency
  # TTFT + (osl - 1) x TPOT: the Qwen3 group holds one row, so its own ratios.
  want=$(awk -F, '{ sub(/\r$/, "") }
                  NR == FNR { if (FNR == 1) for (i = 1; i <= NF; i++) c[$i] = i;
                              if (FNR == 2) { t = $c["silicon_ttft_ms"]; p = $c["silicon_tpot_ms"]
                                              o = $c["osl"] - 1 }
                              next }
                  FNR == 2 { printf "%.2fx %.2fx %.2fx", $2 / t, $3 / p,
                                    ($2 + o * $3) / (t + o * p) }' "$tmp/rows.csv" "$tmp/acc1")
  got=$(awk '/^Qwen\/Qwen3-235B-A22B-FP8 \/ sglang \/ agg / { print $(NF - 2), $(NF - 1), $NF }' \
        "$tmp/cmd.out")
  [ -n "$want" ] && [ "$got" = "$want" ] || { echo "p/m '$got', expected '$want'"; return 1; }
  contains "$tmp/cmd.out" "^p/m: the median of predicted / measured" || return 1
  contains "$tmp/cmd.out" "^E2E: a request's latency, TTFT + (osl - 1) x TPOT" || return 1
  contains "$tmp/accrep/scatter.svg" "<svg" || return 1
  contains "$tmp/accrep/rows.csv" "^id," || return 1
}
if [ -f "$sil" ] && [ -d "$shared/models" ]; then
  heavy "accuracy on measured rows: per-row csv, unmapped rows say why, summary, scatter, any --jobs" t_accuracy
else
  skip "no measured rows at $sil"
fi

t_accuracy_fp8_kv() {
  # TensorRT-LLM's recipe runs FP8 checkpoints with an FP8 KV cache: a DeepSeek-R1 row whose
  # clients (128 × 9216 tokens) do not fit a 16-bit cache queues for whole request lifetimes
  # without it (the preset key turned off).
  { head -n 1 "$sil"
    grep ',trtllm,.*,agg,1024,8192,.*,128,8,1,1,1,8,' "$sil" | head -n 1
  } > "$tmp/fp8rows.csv"
  mkdir -p "$tmp/sched16"
  sed 's/^kv_fp8_with_fp8_weights: true$/kv_fp8_with_fp8_weights: false/' \
    "$src/policies/serving/trtllm.yaml" > "$tmp/sched16/trtllm.yaml"
  status_is 0 $bin accuracy --silicon "$tmp/fp8rows.csv" --models-dir "$shared/models" \
    --format csv --requests-per-client 2 || return 1
  fp8=$(sed -n 2p "$tmp/cmd.out" | cut -d, -f2)
  status_is 0 $bin accuracy --silicon "$tmp/fp8rows.csv" --models-dir "$shared/models" \
    --format csv --requests-per-client 2 --schedulers-dir "$tmp/sched16" || return 1
  b16=$(sed -n 2p "$tmp/cmd.out" | cut -d, -f2)
  [ -n "$fp8" ] && [ -n "$b16" ] || return 1
  awk -v a="$fp8" -v b="$b16" 'BEGIN { exit !(a * 2 < b) }' || return 1
}
if [ -f "$sil" ] && [ -d "$shared/models" ]; then
  ok "accuracy: FP8 KV cache for FP8 rows on TensorRT-LLM (preset key)" t_accuracy_fp8_kv
else
  skip "no measured rows at $sil"
fi

t_accuracy_generated() {
  # The vLLM and SGLang rows come from deployments aiconfigurator generated: SGLang aggregated
  # workers with --enable-mixed-chunk (the running requests decode in every prefill batch, so a
  # burst of 80 prompts no longer waits for the whole wave: TTFT down, TPOT up) and budgets of
  # isl + 1500 (+ the batch for vLLM). Without the preset's accuracy_* keys the runtime's
  # defaults come back.
  { head -n 1 "$sil"
    grep ',sglang,.*meta-llama/Llama-3.1-8B-Instruct,.*,agg,2000,100,.*,80,1,1,' "$sil" | head -n 1
    grep ',vllm,.*,agg,8000,100,.*,16,1,1,' "$sil" | head -n 1
  } > "$tmp/genrows.csv"
  [ "$(wc -l < "$tmp/genrows.csv")" -eq 3 ] || { cat "$tmp/genrows.csv"; return 1; }
  status_is 0 $bin accuracy --silicon "$tmp/genrows.csv" --models-dir "$shared/models" \
    --format csv --requests-per-client 3 || return 1
  cp "$tmp/cmd.out" "$tmp/gen1"
  mkdir -p "$tmp/schedg"
  for b in sglang vllm; do
    grep -v '^accuracy_' "$src/policies/serving/$b.yaml" > "$tmp/schedg/$b.yaml"
    ! cmp -s "$src/policies/serving/$b.yaml" "$tmp/schedg/$b.yaml" || return 1
  done
  status_is 0 $bin accuracy --silicon "$tmp/genrows.csv" --models-dir "$shared/models" \
    --format csv --requests-per-client 3 --schedulers-dir "$tmp/schedg" || return 1
  set -- $(sed -n 2p "$tmp/gen1" | cut -d, -f2,3 | tr , ' ') \
         $(sed -n 2p "$tmp/cmd.out" | cut -d, -f2,3 | tr , ' ')
  [ $# -eq 4 ] || return 1
  awk -v mt="$1" -v mp="$2" -v ut="$3" -v up="$4" \
    'BEGIN { exit !(mt * 2 < ut && mp > up) }' \
    || { echo "sglang mixed TTFT/TPOT $1/$2, unmixed $3/$4"; return 1; }
  a=$(sed -n 3p "$tmp/gen1" | cut -d, -f2)
  b=$(sed -n 3p "$tmp/cmd.out" | cut -d, -f2)
  [ -n "$a" ] && [ "$a" != "$b" ] || { echo "vllm TTFT $a with the budget rule, $b without"; return 1; }
}
if [ -f "$sil" ] && [ -d "$shared/models" ]; then
  heavy "accuracy: the generated SGLang / vLLM deployments' limits (mixed chunks, budgets)" \
    t_accuracy_generated
else
  skip "no measured rows at $sil"
fi

t_accuracy_fp8_block() {
  # aiconfigurator's rows say "fp8" for DeepSeek-R1, whose checkpoint has 128x128 weight blocks:
  # the row runs as fp8_block (the MoE answered from data; per-tensor fp8 at H 7168 is not in
  # the tables, about a third from data), a per-tensor FP8 checkpoint (nvidia Llama-3.1-8B-FP8)
  # stays fp8. The trtllm preset's gemm_quant_fused counts the linears' input quantisation
  # inside their GEMMs: turned off, the separate fp8_quantize ops make the decode slower.
  { head -n 1 "$sil"
    grep ',trtllm,.*,agg,1024,8192,.*,4,8,1,1,1,8,' "$sil" | head -n 1
    grep ',vllm,.*nvidia/Llama-3.1-8B-Instruct-FP8' "$sil" | head -n 1
  } > "$tmp/blockrows.csv"
  [ "$(wc -l < "$tmp/blockrows.csv")" -eq 3 ] || return 1
  status_is 0 $bin accuracy --silicon "$tmp/blockrows.csv" --models-dir "$shared/models" \
    --format csv --requests-per-client 1 || return 1
  cp "$tmp/cmd.out" "$tmp/block1"
  sed -n 2p "$tmp/block1" | grep -q ',ok; fp8 as fp8_block' || return 1
  sed -n 3p "$tmp/block1" | grep -q ',ok$' || return 1
  share=$(sed -n 2p "$tmp/block1" | cut -d, -f4)
  awk -v s="$share" 'BEGIN { exit !(s > 0.8) }' || return 1
  mkdir -p "$tmp/schedq"
  sed 's/^gemm_quant_fused: 1$/gemm_quant_fused: 0/' "$src/policies/serving/trtllm.yaml" \
    > "$tmp/schedq/trtllm.yaml"
  ! cmp -s "$src/policies/serving/trtllm.yaml" "$tmp/schedq/trtllm.yaml" || return 1
  cp "$src/policies/serving/vllm.yaml" "$tmp/schedq/"
  status_is 0 $bin accuracy --silicon "$tmp/blockrows.csv" --models-dir "$shared/models" \
    --format csv --requests-per-client 1 --schedulers-dir "$tmp/schedq" || return 1
  fused=$(sed -n 2p "$tmp/block1" | cut -d, -f3)
  separate=$(sed -n 2p "$tmp/cmd.out" | cut -d, -f3)
  [ -n "$fused" ] && [ -n "$separate" ] || return 1
  awk -v a="$fused" -v b="$separate" 'BEGIN { exit !(a * 1.05 < b) }' || return 1
}
if [ -f "$sil" ] && [ -d "$shared/models" ]; then
  heavy "accuracy: a DeepSeek fp8 row runs as fp8_block, input quantisation in the GEMM" t_accuracy_fp8_block
else
  skip "no measured rows at $sil"
fi

t_accuracy_declared() {
  # A row labelled int4_wo for a checkpoint that quantises its experts alone (Kimi-K2.5's
  # compressed-tensors "ignore" list keeps attention and the dense/shared MLPs in bf16) runs
  # the checkpoint as declared: no --quant in its serve command, and not the prediction of
  # int4 linears.
  { head -n 1 "$sil"
    echo 'kimi_declared,silicon_concurrency=4,vllm,,moonshotai/Kimi-K2.5,h200_sxm,int4,agg,1024,64,int4_wo,int4_wo,4,8,1,1,8,1,,,,,,,,,,,,,,,500,20'
  } > "$tmp/kimi.csv"
  status_is 0 $bin accuracy --silicon "$tmp/kimi.csv" --models-dir "$shared/models" \
    --format csv --requests-per-client 1 --report "$tmp/kimirep" || return 1
  contains "$tmp/cmd.out" ',ok; int4_wo experts and bf16 linears (the checkpoint' || return 1
  line=$(grep -A 1 -x '# kimi_declared' "$tmp/kimirep/commands.sh" | tail -n 1)
  case $line in *' serve --model '*) ;; *) echo "serve line: $line"; return 1 ;; esac
  case $line in *--quant*) echo "serve line: $line"; return 1 ;; esac
  eval "$MSPERF_BIN ${line#msperf } --format csv" > "$tmp/declared.csv" || return 1
  eval "$MSPERF_BIN ${line#msperf } --quant int4_wo --format csv" > "$tmp/int4.csv" || return 1
  declared=$(sed -n 2p "$tmp/declared.csv" | cut -d, -f8)
  all_int4=$(sed -n 2p "$tmp/int4.csv" | cut -d, -f8)
  [ -n "$declared" ] && [ -n "$all_int4" ] && [ "$declared" != "$all_int4" ] \
    || { echo "TPOT $declared as declared, $all_int4 with int4 linears"; return 1; }
}
if [ -f "$sil" ] && [ -d "$shared/models" ]; then
  heavy "accuracy: an int4_wo row on an experts-only int4 checkpoint runs it as declared" \
    t_accuracy_declared
else
  skip "no measured rows at $sil"
fi

t_accuracy_config_pick() {
  # A row's model is the config named ORG--NAME.json, else the one of the same normalised name
  # and the same quantisation suffix: "Llama-3.1-8B-Instruct" is the bf16 checkpoint beside
  # an FP8 one, "...-Instruct-FP8" the FP8 one, whatever order the directory lists them in.
  # A bfloat16 label (aiconfigurator's name for 16-bit weights) runs without --quant.
  mkdir -p "$tmp/pick" || return 1
  for f in acme--Llama-3.1-8B-Instruct-FP8 meta-llama--Meta-Llama-3.1-8B \
           zz--Llama-3.1-8B-Instruct-AWQ; do
    cp "$data/configs/meta-llama--Meta-Llama-3.1-8B.json" "$tmp/pick/$f.json" || return 1
  done
  { head -n 1 "$sil"
    for m in meta-llama/Llama-3.1-8B-Instruct nvidia/Llama-3.1-8B-Instruct-FP8 \
             other/Llama-3.1-8B-Instruct-AWQ rev/Llama-3.1-8B-Instruct-2507 \
             dyn/Llama-3.1-8B-Instruct-FP8-Dynamic; do
      echo "pick_${m%%/*},silicon_concurrency=2,vllm,,$m,h200_sxm,bf16,agg,256,8,bfloat16,,2,1,1,1,1,1,,,,,,,,,,,,,,,50,5"
    done
  } > "$tmp/pick.csv"
  status_is 0 $bin accuracy --silicon "$tmp/pick.csv" --models-dir "$tmp/pick" --format csv \
    --requests-per-client 1 --report "$tmp/pickrep" || return 1
  [ "$(grep -c ',ok$' "$tmp/cmd.out")" -eq 3 ] || return 1
  # A revision or packaging without a config of its own: the nearest name, said.
  contains "$tmp/cmd.out" "^pick_rev,.*,ok; config meta-llama--Meta-Llama-3.1-8B.json (the nearest name: none of rev/Llama-3.1-8B-Instruct-2507)$" \
    || return 1
  contains "$tmp/cmd.out" "^pick_dyn,.*,ok; config acme--Llama-3.1-8B-Instruct-FP8.json (the nearest name: " \
    || return 1
  for pair in meta-llama:meta-llama--Meta-Llama-3.1-8B nvidia:acme--Llama-3.1-8B-Instruct-FP8 \
              other:zz--Llama-3.1-8B-Instruct-AWQ; do
    line=$(grep -A 1 -x "# pick_${pair%%:*}" "$tmp/pickrep/commands.sh" | tail -n 1)
    case $line in *"/${pair#*:}.json "*) ;; *) echo "pick_${pair%%:*}: $line"; return 1 ;; esac
    case $line in *--quant*) echo "bfloat16 ran quantised: $line"; return 1 ;; esac
  done
  # A bfloat16 row on a quantised checkpoint runs the checkpoint's own modes and says so.
  [ -f "$shared/models/openai--gpt-oss-120b.json" ] || return 0
  { head -n 1 "$sil"
    echo "pick_oss,silicon_concurrency=2,trtllm,,openai/gpt-oss-120b,h200_sxm,bf16,agg,256,8,bfloat16,,2,1,1,1,1,1,,,,,,,,,,,,,,,50,5"
    # FP4 experts on Hopper: the checkpoint's own mxfp4 experts, not bf16 ones.
    echo "pick_fp4,silicon_concurrency=2,trtllm,,openai/gpt-oss-120b,h200_sxm,bf16,agg,256,8,bfloat16,nvfp4,2,1,1,1,1,1,,,,,,,,,,,,,,,51,5"
  } > "$tmp/oss.csv"
  status_is 0 $bin accuracy --silicon "$tmp/oss.csv" --models-dir "$shared/models" \
    --format csv --requests-per-client 1 || return 1
  contains "$tmp/cmd.out" "^pick_oss,.*,ok; as the checkpoint's quantization_config: linears bf16 and experts w4a16_mxfp4$" \
    || return 1
  contains "$tmp/cmd.out" "^pick_fp4,.*,ok; experts w4a16_mxfp4 as the checkpoint declares them (the templates have no quant mode nvfp4)$" \
    || return 1
  [ "$(grep '^pick_oss,' "$tmp/cmd.out" | cut -d, -f2,3)" = "$(grep '^pick_fp4,' "$tmp/cmd.out" | cut -d, -f2,3)" ] \
    || { echo "the two rows run different experts"; return 1; }
}
if [ -f "$sil" ]; then
  heavy "accuracy: a row's config is the one of its name and quantisation suffix; bfloat16 is bf16" \
    t_accuracy_config_pick
else
  skip "no measured rows at $sil"
fi

t_accuracy_burst() {
  # The default is the measuring benchmark's burst (--burst says so explicitly): the first wave
  # of prompts queues, a higher mean TTFT than the steady state (--steady-state); the two
  # flags exclude each other.
  { head -n 1 "$sil"
    grep ',vllm,' "$sil" | head -n 1
  } > "$tmp/burstrows.csv"
  status_is 0 $bin accuracy --silicon "$tmp/burstrows.csv" --models-dir "$shared/models" \
    --format csv --requests-per-client 3 --steady-state || return 1
  steady=$(sed -n 2p "$tmp/cmd.out" | cut -d, -f2)
  status_is 0 $bin accuracy --silicon "$tmp/burstrows.csv" --models-dir "$shared/models" \
    --format csv --requests-per-client 3 --burst --jobs 1 || return 1
  burst=$(sed -n 2p "$tmp/cmd.out" | cut -d, -f2)
  cp "$tmp/cmd.out" "$tmp/burst1"
  status_is 0 $bin accuracy --silicon "$tmp/burstrows.csv" --models-dir "$shared/models" \
    --format csv --requests-per-client 3 --jobs 2 || return 1
  cmp "$tmp/burst1" "$tmp/cmd.out" || return 1
  [ -n "$steady" ] && [ -n "$burst" ] || return 1
  awk -v a="$steady" -v b="$burst" 'BEGIN { exit !(b > a) }' || return 1
  status_is 2 $bin accuracy --silicon "$tmp/burstrows.csv" --burst --steady-state || return 1
  contains "$tmp/cmd.err" "exclude each other" || return 1
}
if [ -f "$sil" ] && [ -d "$shared/models" ]; then
  ok "accuracy: the benchmark's burst by default, --steady-state instead" t_accuracy_burst
else
  skip "no measured rows at $sil"
fi

t_accuracy_usage() {
  status_is 2 $bin accuracy --silicon x.csv --prompt-pool -1 || return 1
  contains "$tmp/cmd.err" "prompt-pool >= 0" || return 1
  status_is 2 $bin accuracy || return 1
  contains "$tmp/cmd.err" "silicon FILE is required" || return 1
  printf 'a,b\n1,2\n' > "$tmp/bad.csv"
  status_is 1 $bin accuracy --silicon "$tmp/bad.csv" || return 1
  contains "$tmp/cmd.err" "bad.csv:1: no column 'id'" || return 1
}
ok "accuracy usage errors" t_accuracy_usage

# accuracy --report writes commands.sh: the `msperf serve` run behind each row, which gives the
# row's predicted mean TTFT and TPOT when run alone. Rows of the vLLM preset (prompt pool,
# token budget), SGLang (mixed chunks, prefill budget), TensorRT-LLM (a vLLM row re-labelled)
# and a disaggregated one (one prefill and one decode worker of TP 1, batch 16).
t_accuracy_commands() {
  fx=$src/tests/data/silicon-rank/silicon_rows.csv
  { head -n 2 "$fx"; sed -n 6p "$fx"
    sed -n 2p "$fx" | sed 's/^[^,]*,/trtllm_row,/; s/,vllm,/,trtllm,/'
    awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
      NR == 2 { $1 = "disagg_row"; $c["mode"] = "disagg"
        split("batch_size tp_size pp_size attention_dp_size moe_tp_size moe_ep_size", a, " ")
        for (k in a) $c[a[k]] = ""
        split("tp_size pp_size attention_dp_size moe_tp_size moe_ep_size num_workers", b, " ")
        for (k in b) { $c["prefill_" b[k]] = 1; $c["decode_" b[k]] = 1 }
        $c["decode_batch_size"] = 16; print }' "$fx"
    # an id holding a newline and a command (a quoted CSV field may), of a model not there
    sed -n 2p "$fx" | sed 's|^[^,]*,|"bad_id\necho pwned",|; s|nvidia/Llama-3.1-8B-Instruct-FP8|acme/Nonexistent-7B|' |
      awk '{ sub(/\\n/, "\n"); print }'
  } > "$tmp/cmdrows.csv"
  status_is 0 $bin accuracy --silicon "$tmp/cmdrows.csv" --models-dir "$data/configs" \
    --requests-per-client 2 --format csv --report "$tmp/cmdrep" || return 1
  ! grep -q '^echo pwned' "$tmp/cmdrep/commands.sh" &&
  contains "$tmp/cmdrep/commands.sh" '^# bad_id.*echo pwned: unmapped: no config for acme/Nonexistent-7B' ||
    return 1
  [ "$(grep -c ",ok" "$tmp/cmdrep/rows.csv")" -eq 4 ] || { cat "$tmp/cmdrep/rows.csv"; return 1; }
  [ "$(grep -c '^msperf --plugins-dir .* serve --model ' "$tmp/cmdrep/commands.sh")" -eq 4 ] ||
    { cat "$tmp/cmdrep/commands.sh"; return 1; }
  contains "$tmp/cmdrep/commands.sh" ' --backend trtllm --tp 1 ' &&
  contains "$tmp/cmdrep/commands.sh" ' --mode disagg --prefill-workers 1 .* --decode-max-num-seqs 16 ' &&
  contains "$tmp/cmdrep/commands.sh" ' --backend sglang .* --mixed-batch true ' || return 1
  contains "$tmp/cmdrep/rows.csv" '^"bad_id$' || return 1     # the id quoted, as RFC 4180 has it
  grep ',ok' "$tmp/cmdrep/rows.csv" | while IFS=, read -r id ttft tpot rest; do
    line=$(grep -A 1 -x "# $id" "$tmp/cmdrep/commands.sh" | tail -n 1)
    eval "$MSPERF_BIN ${line#msperf } --format csv" > "$tmp/rerun.csv" 2>"$tmp/rerun.err" ||
      { echo "$id: $line"; cat "$tmp/rerun.err"; return 1; }
    tail -n 1 "$tmp/rerun.csv" | awk -F, -v t="$ttft" -v p="$tpot" -v id="$id" '
      function off(a, b) { return (a > b ? a - b : b - a) > 1e-4 * b }
      off($4, t) || off($8, p) { print id ": serve " $4 " / " $8 ", accuracy " t " / " p; exit 1 }' ||
      return 1
  done
}
heavy "accuracy --report commands.sh: each row's serve run gives its predicted TTFT and TPOT" \
  t_accuracy_commands

# Rerun commands.sh line $2 (a `msperf serve` command) and print its mean TTFT and TPOT.
serve_means() {
  eval "$MSPERF_BIN ${1#msperf } --format csv" > "$tmp/rerun.csv" 2>"$tmp/rerun.err" ||
    { cat "$tmp/rerun.err" >&2; return 1; }
  tail -n 1 "$tmp/rerun.csv" | awk -F, '{ print $4, $8 }'
}

# A row whose benchmark published its deployment runs as published (policies/deployments:
# worker counts, attention DP, batch per rank, MTP; an aggregated row's layout); a row that two
# published deployments match predicts the mean of both; --deployments none runs the row's
# own columns; a bad deployments file is refused with its line.
t_accuracy_deployments() {
  fx=$src/tests/data/silicon-published/silicon_rows.csv
  status_is 0 $bin accuracy --silicon "$fx" --models-dir "$data/configs" --requests-per-client 2 \
    --format csv --report "$tmp/deprep" || return 1
  cp "$tmp/cmd.out" "$tmp/dep.csv"
  contains "$tmp/dep.csv" \
    '_353,[0-9.]*,[0-9.]*,[0-9.]*,ok.*; the deployment its benchmark published: c32_ctx1_gen9_tep8_batch256_eplb0_mtp0$' &&
  contains "$tmp/dep.csv" \
    '_375,.*; one of 2 deployments its benchmark published (c16_ctx1_gen9_tep8_batch128_eplb0_mtp3; c16_ctx1_gen9_tep8_batch256_eplb0_mtp0): the mean of their predictions$' ||
    return 1
  ! grep -q 'no worker counts' "$tmp/dep.csv" || return 1
  # The aggregated rows: one measurement, labelled 8 and 64 GPUs, run as the two published
  # single-node runs of 4 clients on 8 GPUs (TP 8, EP 8; MTP 3 and none), the same figures.
  pub='one of 2 deployments its benchmark published (dsr1-fp8-h200-trt/tep8/c4; dsr1-fp8-h200-trt-mtp/tep8/c4): the mean of their predictions'
  [ "$(grep -cF "$pub" "$tmp/dep.csv")" -eq 2 ] || return 1
  [ "$(grep '_1252,' "$tmp/dep.csv" | cut -d, -f2-3)" = "$(grep '_954,' "$tmp/dep.csv" | cut -d, -f2-3)" ] ||
    return 1
  c=$tmp/deprep/commands.sh
  [ "$(grep -c ' --tp 8 --ep 8 --dp 1 .* --nextn 3 ' "$c")" -eq 2 ] || return 1
  contains "$c" ' --mode disagg --prefill-workers 1 --prefill-tp 1 --prefill-ep 8 --prefill-dp 8 .*--decode-workers 9 --decode-tp 8 --decode-ep 8 ' &&
  contains "$c" '^# deployment c16_ctx1_gen9_tep8_batch128_eplb0_mtp3$' &&
  contains "$c" ' --nextn 3 ' || return 1
  contains "$tmp/deprep/summary.txt" \
    '^rows run as the deployment their benchmark published (--deployments): 4, of which 3 match several' ||
    return 1
  # The single deployment's run is the row's figures; the two runs' mean the other's.
  one=$(serve_means "$(grep -A 1 -- '_353$' "$c" | tail -n 1)") || return 1
  a=$(serve_means "$(grep -A 1 -x '# deployment c16_ctx1_gen9_tep8_batch128_eplb0_mtp3' "$c" | tail -n 1)") || return 1
  b=$(serve_means "$(grep -A 1 -x '# deployment c16_ctx1_gen9_tep8_batch256_eplb0_mtp0' "$c" | tail -n 1)") || return 1
  echo "$one $a $b" | awk -F'[ ,]' -v f="$tmp/dep.csv" '
    BEGIN { while ((getline l < f) > 0) { split(l, x, ","); t[++n] = x[2]; p[n] = x[3] } }
    function off(u, v) { return (u > v ? u - v : v - u) > 1e-4 * v }
    { if (off($1, t[2]) || off($2, p[2])) { print "353: " $1 " / " $2 " vs " t[2] " / " p[2]; exit 1 }
      if (off(($3 + $5) / 2, t[3]) || off(($4 + $6) / 2, p[3])) {
        print "375: mean of " $3 "/" $4 " and " $5 "/" $6 " vs " t[3] " / " p[3]; exit 1 }
      if (!($4 < $6)) { print "375: MTP TPOT " $4 " not under " $6; exit 1 } }' || return 1
  status_is 0 $bin accuracy --silicon "$fx" --models-dir "$data/configs" --requests-per-client 2 \
    --format csv --deployments none || return 1
  [ "$(grep -c '; no worker counts: one prefill and one decode worker' "$tmp/cmd.out")" -eq 2 ] &&
  ! grep -q 'published' "$tmp/cmd.out" || return 1
  { head -n 1 "$src/policies/deployments/srt-slurm-h200-trtllm.csv"
    sed -n 2p "$src/policies/deployments/srt-slurm-h200-trtllm.csv" | sed 's/,1024,1024,[0-9]*,/,1024,1024,many,/'
  } > "$tmp/baddep.csv"
  status_is 2 $bin accuracy --silicon "$fx" --models-dir "$data/configs" --deployments "$tmp/baddep.csv" &&
  contains "$tmp/cmd.err" "baddep.csv:2: concurrency 'many' is not an integer 1\\.\\." || return 1
}
heavy "accuracy: rows as their benchmark published the deployment (--deployments)" \
  t_accuracy_deployments

# --nextn states the MTP depth the measured deployments ran (the rows do not record it): it
# applies to the models with MTP layers only, says so per row and in the summary, and the
# row's serve command carries it.
t_accuracy_nextn() {
  fx=$src/tests/data/silicon-rank/silicon_rows.csv
  { head -n 2 "$fx"
    awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
      NR == 2 { $1 = "mtp_row"; $c["backend"] = "trtllm"; $c["model_path"] = "deepseek-ai/DeepSeek-V3"
        $c["gemm_quant_mode"] = $c["moe_quant_mode"] = "fp8_block"; $c["isl"] = 256; $c["osl"] = 16
        $c["silicon_data_source"] = "silicon_concurrency=2"; $c["batch_size"] = 2
        $c["tp_size"] = 8; $c["moe_ep_size"] = 8; print
        $1 = "mtp_long"; $c["isl"] = 8192; $c["osl"] = 4; print }' "$fx"
  } > "$tmp/mtprows.csv"
  status_is 0 $bin accuracy --silicon "$tmp/mtprows.csv" --models-dir "$data/configs" \
    --requests-per-client 2 --format csv || return 1
  cp "$tmp/cmd.out" "$tmp/mtp0.csv"
  status_is 0 $bin accuracy --silicon "$tmp/mtprows.csv" --models-dir "$data/configs" \
    --requests-per-client 2 --nextn 1 --nextn-accept 0.8 --format csv --report "$tmp/mtprep" ||
    return 1
  cp "$tmp/cmd.out" "$tmp/mtp1.csv"
  # the dense model has no MTP layers: its row is unchanged, its status says nothing of MTP
  [ "$(sed -n 2p "$tmp/mtp0.csv")" = "$(sed -n 2p "$tmp/mtp1.csv")" ] ||
    { cat "$tmp/mtp0.csv" "$tmp/mtp1.csv"; return 1; }
  contains "$tmp/mtp1.csv" '^mtp_row,.*,ok; MTP: 1 draft token per step at acceptance 0.8 (--nextn)$' &&
  contains "$tmp/mtprep/summary.txt" 'rows run with MTP speculative decoding .*: 2$' &&
  contains "$tmp/mtprep/commands.sh" ' --nextn 1 --nextn-accept 0.8 ' || return 1
  # TensorRT-LLM does not chunk a prompt: its step takes the prompt beside both clients'
  # decode and draft tokens, 8192 + 2 x (1 + 1)
  [ "$(grep -A 1 -x '# mtp_long' "$tmp/mtprep/commands.sh" | grep -c -- '--max-num-batched-tokens 8196 ')" = 1 ] ||
    { cat "$tmp/mtprep/commands.sh"; return 1; }
  # one draft token accepted 4 times in 5 cuts the time per output token
  paste -d, "$tmp/mtp0.csv" "$tmp/mtp1.csv" | awk -F, '$1 == "mtp_row" && !($8 < 0.8 * $3) {
    print "TPOT " $3 " without MTP, " $8 " with"; bad = 1 } END { exit bad }' || return 1
  line=$(grep -A 1 -x "# mtp_row" "$tmp/mtprep/commands.sh" | tail -n 1)
  eval "$MSPERF_BIN ${line#msperf } --format csv" > "$tmp/mtprerun.csv" || return 1
  tpot=$(awk -F, '$1 == "mtp_row" { print $3 }' "$tmp/mtp1.csv")
  tail -n 1 "$tmp/mtprerun.csv" | awk -F, -v p="$tpot" '
    ($8 > p ? $8 - p : p - $8) > 1e-4 * p { print "serve " $8 ", accuracy " p; exit 1 }'
}
heavy "accuracy --nextn: MTP for the models with MTP layers, in the status, summary and command" \
  t_accuracy_nextn

t_accuracy_nextn_refused() {
  status_is 2 $bin accuracy --silicon "$src/tests/data/silicon-rank/silicon_rows.csv" \
    --nextn -1 && contains "$tmp/cmd.err" '--nextn must be an integer >= 0, not -1' &&
  status_is 2 $bin accuracy --silicon "$src/tests/data/silicon-rank/silicon_rows.csv" \
    --nextn 1 --nextn-accept 1.5 && contains "$tmp/cmd.err" '--nextn-accept must be in 0..1, not 1.5' &&
  status_is 2 $bin accuracy --silicon "$src/tests/data/silicon-rank/silicon_rows.csv" \
    --nextn-accept 0.5 && contains "$tmp/cmd.err" 'needs --nextn K'
}
ok "accuracy refuses a negative --nextn, an acceptance outside 0..1 and one without --nextn" \
  t_accuracy_nextn_refused

# --nextn on a model without MTP layers runs as a what-if, and says so; a model with them
# does not get the note.
t_nextn_without_mtp() {
  status_is 0 $bin serve --model "$llama" --concurrency 2 --isl 100 --osl 10 --num-requests 4 \
    --nextn 1 && contains "$tmp/cmd.err" 'has no MTP layers (num_nextn_predict_layers): --nextn 1' &&
  status_is 0 $bin serve --model "$data/configs/deepseek-ai--DeepSeek-V3.json" --tp 8 \
    --concurrency 2 --isl 100 --osl 10 --num-requests 4 --nextn 1 &&
  ! grep -q 'MTP layers' "$tmp/cmd.err"
}
heavy "serve --nextn: a model without MTP layers is a what-if, said on stderr" t_nextn_without_mtp

tap_end
