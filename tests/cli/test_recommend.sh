#!/bin/sh
# CLI tests of `msperf recommend` (doc/recommend.md): the ranked table and the launch command,
# the reasons points are left out (SLA, memory, layout), the point bound, --shard runs merged
# by `msperf merge` into one run's bytes, the same bytes for any --jobs, the report, and the
# usage errors (exit 2). TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}"
bin="$MSPERF_BIN --plugins-dir $MSPERF_TEST_PLUGINDIR"
src=$MSPERF_TOP_SRCDIR
configs=$src/tests/data/models/configs
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

# Under valgrind (the CI wrapper's path names it) a run is some 40 times slower: the heavy runs
# are left to the ordinary and the sanitizer builds; usage errors, refusals and one small run
# stay.
case "$MSPERF_BIN" in *valgrind*) light=1 ;; *) light=0 ;; esac
heavy() {  # heavy DESCRIPTION COMMAND... : ok, or a skip under valgrind
  if [ "$light" = 1 ]; then n=$((n + 1)); echo "ok $n # SKIP under valgrind: $1"; else ok "$@"; fi
}

l8=$configs/meta-llama--Meta-Llama-3.1-8B.json
l70=$configs/meta-llama--Meta-Llama-3.1-70B.json
small="--isl 512 --osl 64 --no-cache"

# ---- the table, the winner's launch command, the reasons of the others
t_table() {
  $bin recommend --model "$l70" --gpus 8 --isl 1024 --osl 1024 --ttft-max 500 --tpot-max 20 \
    --mode agg --no-cache -j 2 >"$tmp/t.txt" 2>"$tmp/t.err" || { cat "$tmp/t.err"; return 1; }
  contains "$tmp/t.txt" "^rank  layout" && contains "$tmp/t.txt" "^   1  agg tp" &&
  contains "$tmp/t.txt" "^Launch (vllm)" && contains "$tmp/t.txt" "^vllm serve meta-llama/Meta-Llama-3.1-70B --tensor-parallel-size " &&
  contains "$tmp/t.txt" "^Left out" && contains "$tmp/t.txt" "  sla "
}
heavy "70B on 8 GPUs under TTFT 500 ms / TPOT 20 ms: ranked table, exclusions, vllm serve command" t_table

# The SLA judges the means over requests: every ranked point's mean TTFT and TPOT is within it,
# every point left out for the SLA has one of them past it, and the table shows the means.
t_sla_means() {
  $bin recommend --model "$l70" --gpus 8 --isl 1024 --osl 1024 --ttft-max 500 --tpot-max 20 \
    --no-cache -j 2 --format csv >"$tmp/sla.csv" 2>"$tmp/sla.err" || { cat "$tmp/sla.err"; return 1; }
  contains "$tmp/t.txt" "TTFTmean  TTFTp50  TTFTp90 TPOTmean" &&
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $col["status"] == "ok"  { ok++;  if ($col["ttft_mean_ms"] > 500 || $col["tpot_mean_ms"] > 20) bad++ }
    $col["status"] == "sla" { sla++; if ($col["ttft_mean_ms"] <= 500 && $col["tpot_mean_ms"] <= 20) bad++ }
    END { if (ok == 0 || sla == 0 || bad > 0) { print ok " ok, " sla " sla, " bad " judged on another figure"; exit 1 } }' "$tmp/sla.csv"
}
heavy "the SLA is judged on the mean TTFT and TPOT the table and CSV show" t_sla_means

# Every ranked point carries the `msperf serve` command that simulates it alone; run, it gives
# the point's mean TTFT and TPOT. A MoE model on SGLang, so that the preset's template
# parameters and the replicas are part of it; the table prints the winner's.
t_serve_command() {
  $bin recommend --model "$configs/Qwen--Qwen3-30B-A3B.json" --gpus 2 $small --backend sglang \
    --mode agg --format jsonl >"$tmp/sc.jsonl" 2>"$tmp/sc.err" || { cat "$tmp/sc.err"; return 1; }
  grep '"status": "ok"' "$tmp/sc.jsonl" | head -n 4 >"$tmp/sc.ok"
  [ "$(wc -l <"$tmp/sc.ok")" -eq 4 ] && contains "$tmp/sc.ok" ' --replicas 2 ' || return 1
  while read -r rec; do
    cmd=$(printf '%s\n' "$rec" | sed -n 's/.*"serve_command": "\([^"]*\)".*/\1/p')
    t=$(printf '%s\n' "$rec" | sed -n 's/.*"ttft_ms": {"mean": \([0-9.]*\),.*/\1/p')
    p=$(printf '%s\n' "$rec" | sed -n 's/.*"tpot_ms": {"mean": \([0-9.]*\),.*/\1/p')
    [ -n "$cmd" ] && [ -n "$t" ] && [ -n "$p" ] || { echo "no command in: $rec"; return 1; }
    eval "$MSPERF_BIN ${cmd#msperf } --format csv" >"$tmp/sc.csv" 2>"$tmp/sc.err" ||
      { echo "$cmd"; cat "$tmp/sc.err"; return 1; }
    tail -n 1 "$tmp/sc.csv" | awk -F, -v t="$t" -v p="$p" -v cmd="$cmd" '
      function off(a, b) { return (a > b ? a - b : b - a) > 1e-3 + 1e-4 * b }
      off($4, t) || off($8, p) { print cmd ": " $4 " / " $8 ", recommend " t " / " p; exit 1 }' ||
      return 1
  done <"$tmp/sc.ok"
  contains "$tmp/t.txt" "^Simulate it alone" &&
  contains "$tmp/t.txt" "^msperf --plugins-dir .* serve --model .*--backend vllm "
}
heavy "each ranked point's msperf serve command reproduces its TTFT and TPOT" t_serve_command

# On an SGLang attention-DP point the budget is a rank's while the preset's is the engine's
# (doc/serving.md §2): the serve command says so, and reproduces the point only with it —
# without the flag each rank gets half the budget and a 6000-token prompt takes two steps.
t_serve_command_dp() {
  $bin recommend --model "$configs/Qwen--Qwen3-30B-A3B.json" --gpus 2 --isl 6000 --osl 8 \
    --no-cache --backend sglang --mode agg --format jsonl >"$tmp/scd.jsonl" 2>"$tmp/scd.err" ||
    { cat "$tmp/scd.err"; return 1; }
  rec=$(grep '"status": "ok"' "$tmp/scd.jsonl" | grep -e ' --dp 2 ' | head -n 1)
  cmd=$(printf '%s\n' "$rec" | sed -n 's/.*"serve_command": "\([^"]*\)".*/\1/p')
  t=$(printf '%s\n' "$rec" | sed -n 's/.*"ttft_ms": {"mean": \([0-9.]*\),.*/\1/p')
  case "$cmd" in *" --dp-attention-budget-split false "*) ;; *) echo "$cmd"; return 1 ;; esac
  for run in with without; do
    [ $run = with ] && c=$cmd || c=$(printf '%s\n' "$cmd" | sed 's/ --dp-attention-budget-split false//')
    eval "$MSPERF_BIN ${c#msperf } --format csv" >"$tmp/scd.csv" 2>"$tmp/scd.err" ||
      { echo "$c"; cat "$tmp/scd.err"; return 1; }
    tail -n 1 "$tmp/scd.csv" | awk -F, -v t="$t" -v run=$run '
      { off = ($4 > t ? $4 - t : t - $4) > 1e-3 + 1e-4 * t }
      (run == "with" && off) || (run == "without" && !off) { print run ": " $4 " / " t; exit 1 }' ||
      return 1
  done
}
heavy "an SGLang attention-DP point's serve command keeps its rank's budget" t_serve_command_dp

# --nextn K: the search simulates MTP, and what it prints runs MTP too: the launch command
# enables each runtime's speculative decoding, the serve command carries the draft depth.
t_mtp() {
  for b in trtllm vllm sglang; do
    $bin recommend --model "$configs/deepseek-ai--DeepSeek-V3.json" --gpus 8 --isl 256 \
      --osl 16 --concurrency 4 --backend $b --mode agg --nextn 1 --top 3 --no-cache \
      >"$tmp/mtp.$b" 2>"$tmp/mtp.err" || { cat "$tmp/mtp.err"; return 1; }
    contains "$tmp/mtp.$b" '^msperf .* serve .* --nextn 1 --nextn-accept 0.7 ' &&
    contains "$tmp/mtp.$b" ", backend $b, MTP 1 draft token at acceptance 0.7, 4 clients, SLA none$" ||
      return 1
  done
  contains "$tmp/mtp.trtllm" '^  decoding_type: MTP$' &&
  contains "$tmp/mtp.trtllm" '^  num_nextn_predict_layers: 1$' &&
  contains "$tmp/mtp.vllm" "^vllm serve .* --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":1}'" &&
  contains "$tmp/mtp.sglang" '^python -m sglang.launch_server .* --speculative-algorithm EAGLE --speculative-num-steps 1 --speculative-eagle-topk 1 --speculative-num-draft-tokens 2'
}
heavy "--nextn: MTP in the launch commands of all three runtimes and in the serve command" t_mtp

t_memory() {
  $bin recommend --model "$l70" --gpus 1 $small --mode agg >"$tmp/m.txt" 2>&1
  contains "$tmp/m.txt" "  memory " && contains "$tmp/m.txt" "no point meets the SLA"
}
heavy "70B bf16 on one GPU: every point left out for memory" t_memory

t_layout() {   # 24 attention heads: tp 16 does not divide them -> layout
  $bin recommend --model "$src/tests/data/recommend/llama-3b-24-heads.json" --gpus 16 $small \
    --mode agg --format jsonl -j 2 >"$tmp/l.jsonl" 2>&1
  grep -q '"status": "layout"' "$tmp/l.jsonl" && grep -q '"status": "ok"' "$tmp/l.jsonl"
}
heavy "a layout the model cannot take is reported as such, the others ranked" t_layout

t_backends() {
  for b in sglang trtllm; do
    $bin recommend --model "$l8" --gpus 2 $small --mode agg --backend $b >"$tmp/$b.txt" 2>&1 || return 1
  done
  contains "$tmp/sglang.txt" "^python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3.1-8B --tp-size " &&
  contains "$tmp/trtllm.txt" "^trtllm-serve meta-llama/Meta-Llama-3.1-8B --backend pytorch --tp_size " &&
  # each pool's line above its command counts engines and the GPUs of one engine
  grep -q '^# aggregated: [0-9]* engines* of [0-9]* GPUs*\( each, behind a load balancer\)*$' "$tmp/trtllm.txt" &&
  ! grep -q 'load balancer of' "$tmp/trtllm.txt" "$tmp/sglang.txt"
}
heavy "SGLang and TensorRT-LLM launch commands" t_backends

t_disagg() {
  $bin recommend --model "$l8" --gpus 4 $small --mode disagg --format jsonl -j 2 >"$tmp/d.jsonl" 2>&1 &&
  grep -q '"mode": "disagg", "layout": "disagg [0-9]P(tp[0-9]*) + [0-9]D(tp[0-9]*)"' "$tmp/d.jsonl" &&
  ! grep -q '"mode": "agg"' "$tmp/d.jsonl" && grep -q '"launch": ".*--kv-transfer-config' "$tmp/d.jsonl" &&
  grep -q '"launch": "# prefill: [0-9]* engines* of [0-9]* GPUs*.*\\n# decode: [0-9]* engines* of ' "$tmp/d.jsonl"
}
heavy "disaggregated search: prefill/decode pools filling the GPUs, launch with a KV connector" t_disagg

# Pools of a MoE model with attention DP and EP make layout names longer than the column's
# default width: the column widens, so every ranked row is as long as the header.
t_columns() {
  $bin recommend --model "$configs/Qwen--Qwen3-30B-A3B.json" --gpus 4 $small --mode disagg \
    --top 40 -j 2 >"$tmp/col.txt" 2>"$tmp/col.err" || { cat "$tmp/col.err"; return 1; }
  grep -q '^ *[0-9]*  disagg [0-9]P(tp1 dp2 ep2) + ' "$tmp/col.txt" &&
  awk '/^rank  layout/ { w = length($0) } /^ *[0-9]+  (agg|disagg) / { n++; if (length($0) != w) bad++ }
    END { exit !(w > 0 && n > 1 && bad == 0) }' "$tmp/col.txt"
}
heavy "the layout column widens to the longest disaggregated pools shown" t_columns

# ---- the knee: the ladder doubles the clients until the SLA fails, then halves that step twice.
# One engine (a GPU, TP 1), each step budget a group of its own: in every group every point
# that meets the SLA has fewer clients than every point that misses it, the two closest are
# within a quarter of the last rung that met it, and some group's best sits between two rungs
# of the ladder.
t_knee() {
  $bin recommend --model "$l8" --gpus 1 $small --tpot-max 10 --mode agg --format csv \
    >"$tmp/knee.csv" 2>"$tmp/knee.err" || { cat "$tmp/knee.err"; return 1; }
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { b = $col["max_num_tokens"]; c = $col["concurrency"] + 0; seen[b] = 1 }
    $col["status"] == "ok"  { if (c > ok[b]) ok[b] = c }
    $col["status"] == "sla" { if (!(b in sla) || c < sla[b]) sla[b] = c }
    END { for (b in seen) {
            if (!(b in sla) || ok[b] == 0) continue
            rung = 1; while (rung * 2 <= ok[b]) rung *= 2
            step = rung / 4 < 1 ? 1 : rung / 4
            if (ok[b] >= sla[b] || sla[b] - ok[b] > step) { print b ": met up to " ok[b] ", missed from " sla[b]; bad++ }
            if (ok[b] != rung) between++; groups++ }
          if (bad > 0 || groups < 2 || between == 0) { print groups " groups, " between " between rungs"; exit 1 } }' "$tmp/knee.csv"
}
heavy "the ladder's failing step is halved: each budget's best within a quarter of its knee" t_knee

# ---- an open loop: the traffic is fixed, so the search is for the fewest engines meeting the
# SLA. Each layout's replicas double until one meets it and the gap is then halved: the most
# replicas that miss are one fewer than the fewest that meet. The winner leaves GPUs unused at
# a rate a few engines serve, and a higher rate needs at least as many.
rate_winner_gpus() {  # rate_winner_gpus CSV: the GPUs of the point ranked first
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $col["rank"] == 1 { print $col["gpus"] }' "$1"
}
t_rate() {
  for r in 5 200; do
    $bin recommend --model "$l8" --gpus 8 $small --mode agg --rate $r --tpot-max 15 \
      --format csv >"$tmp/rate$r.csv" 2>"$tmp/rate.err" || { cat "$tmp/rate.err"; return 1; }
  done
  $bin recommend --model "$l8" --gpus 8 $small --mode agg --rate 200 --tpot-max 15 \
    >"$tmp/rate.txt" 2>&1 || return 1
  contains "$tmp/rate.txt" "Poisson arrivals at 200 requests/s" &&
  contains "$tmp/rate.txt" "^   1  agg tp[0-9x ]* *bf16 *- " || return 1
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { base = $col["layout"]; x = 1
      if (match(base, / x[0-9]+$/)) { x = substr(base, RSTART + 2) + 0; base = substr(base, 1, RSTART - 1) }
      if ($col["status"] == "ok" && (!(base in lo_ok) || x < lo_ok[base])) lo_ok[base] = x
      if ($col["status"] == "sla" && x > hi_sla[base]) hi_sla[base] = x }
    END { for (b in lo_ok) if ((b in hi_sla) && hi_sla[b] != lo_ok[b] - 1) { print b ": " hi_sla[b] " missed, " lo_ok[b] " met"; bad++ }
          for (b in lo_ok) if (b in hi_sla) both++
          if (bad > 0 || both == 0) exit 1 }' "$tmp/rate200.csv" || return 1
  lo=$(rate_winner_gpus "$tmp/rate5.csv") hi=$(rate_winner_gpus "$tmp/rate200.csv")
  [ -n "$lo" ] && [ -n "$hi" ] && [ "$lo" -lt 8 ] && [ "$lo" -le "$hi" ] &&
  grep -q ',sla,agg tp1,' "$tmp/rate200.csv" && ! grep -q ',sla,agg tp1,' "$tmp/rate5.csv" || return 1
  # the scaled groups' points merge from shards into one run's bytes, as the ladder's do
  $bin recommend --model "$l8" --gpus 4 $small --rate 100 --tpot-max 15 --format jsonl \
    >"$tmp/rate.all" 2>/dev/null || return 1
  for i in 1 2; do
    $bin recommend --model "$l8" --gpus 4 $small --rate 100 --tpot-max 15 --format jsonl \
      --shard $i/2 >"$tmp/rate.s$i" 2>/dev/null || return 1
  done
  $bin merge "$tmp/rate.s1" "$tmp/rate.s2" >"$tmp/rate.merged" && cmp "$tmp/rate.merged" "$tmp/rate.all"
}
heavy "--rate: the fewest replicas meeting the SLA, found by doubling then halving" t_rate

# An open loop past 20 requests in service is rerun long enough for its steady state (its
# serve command carries the sizes); a deployment that does not keep up is left out whatever
# the SLA, and one that does serves the rate's tokens: rate x osl / GPUs.
t_rate_steady() {
  $bin recommend --model "$l8" --gpus 2 $small --mode agg --rate 100 --format jsonl \
    >"$tmp/steady.jsonl" 2>"$tmp/steady.err" || { cat "$tmp/steady.err"; return 1; }
  grep -q '"status": "sla", .*"reason": "rate: [0-9]* % of the 100 requests/s arriving complete meanwhile (the queue grows)"' "$tmp/steady.jsonl" &&
  grep -q '"status": "ok", .*"serve_command": "[^"]* --rate 100.0 [^"]* --warmup [0-9]* --cooldown [0-9]*"' "$tmp/steady.jsonl" &&
  awk '/"status": "ok"/ { match($0, /"gpus": [0-9]+/); g = substr($0, RSTART + 8, RLENGTH - 8) + 0
         match($0, /"tokens_s_gpu": [0-9.]+/); t = substr($0, RSTART + 16, RLENGTH - 16) + 0
         n++; if (t != 100 * 64 / g) { print "tokens/s/GPU " t " on " g " GPUs"; bad++ } }
       END { exit !(n > 0 && bad == 0) }' "$tmp/steady.jsonl"
}
heavy "--rate: steady-state runs, deployments that do not keep up left out, the rate's tokens/s/GPU" \
  t_rate_steady

# The H200 profile's nodes hold 8 GPUs: a 16-GPU engine is launched over two nodes, an 8-GPU
# one as a single command.
t_nodes() {
  $bin recommend --model "$configs/Qwen--Qwen3-30B-A3B.json" --gpus 16 $small --mode agg \
    --concurrency 16 --format jsonl -j 2 >"$tmp/nodes.jsonl" 2>"$tmp/nodes.err" ||
    { cat "$tmp/nodes.err"; return 1; }
  grep -q '"layout": "agg tp1 dp16", .*"launch": "# aggregated: 1 engine of 16 GPUs\\n# one engine over 2 nodes of 8 GPUs, its DP ranks spread' "$tmp/nodes.jsonl" &&
  grep -q '"layout": "agg tp1 dp8 x2", .*"launch": "# aggregated: 2 engines of 8 GPUs each, behind a load balancer\\nvllm serve ' "$tmp/nodes.jsonl" &&
  ! grep '"layout": "agg tp1 dp8 x2"' "$tmp/nodes.jsonl" | grep -q "nodes of 8 GPUs"
}
heavy "an engine on more GPUs than a node: the launch over several nodes" t_nodes

# ---- determinism: any --jobs, and shards merged
t_jobs() {
  $bin recommend --model "$l8" --gpus 4 $small --format jsonl -j 1 >"$tmp/j1" 2>/dev/null &&
  $bin recommend --model "$l8" --gpus 4 $small --format jsonl -j 3 >"$tmp/j3" 2>/dev/null &&
  [ -s "$tmp/j1" ] && cmp "$tmp/j1" "$tmp/j3"
}
heavy "the same points, byte for byte, at --jobs 1 and 3" t_jobs

t_shards() {
  for i in 1 2 3; do
    $bin recommend --model "$l8" --gpus 4 $small --format jsonl --shard $i/3 >"$tmp/s$i" 2>/dev/null || return 1
  done
  $bin merge "$tmp/s1" "$tmp/s2" "$tmp/s3" >"$tmp/merged" || return 1
  [ -s "$tmp/s1" ] && ! cmp -s "$tmp/s1" "$tmp/j1" && cmp "$tmp/merged" "$tmp/j1"
}
heavy "--shard 1/3..3/3 merged by msperf merge = one run" t_shards

t_report() {
  $bin recommend --model "$l8" --gpus 4 $small --tpot-max 30 --report "$tmp/rep" >/dev/null 2>&1 &&
  contains "$tmp/rep/pareto.svg" "<svg" && contains "$tmp/rep/pareto.svg" "TPOT ≤ 30 ms" &&
  contains "$tmp/rep/pareto.svg" "disaggregated" && contains "$tmp/rep/points.csv" "^index,rank,status,"
}
heavy "--report: the Pareto SVG (agg and disagg, the TPOT line) and points.csv" t_report

# A mode listed twice is searched once (spaces around the commas allowed): one point per
# mode and step budget.
t_quant_once() {
  $bin recommend --model "$l8" --gpus 1 $small --concurrency 4 --quant 'fp8, fp8 ,bf16' \
    --format csv >"$tmp/q.csv" 2>"$tmp/q.err" || { cat "$tmp/q.err"; return 1; }
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { n[$col["quant"] "/" $col["max_num_tokens"]]++; q[$col["quant"]] = 1 }
    END { for (k in n) if (n[k] != 1) bad++; for (k in q) nq++
          exit !(bad == 0 && nq == 2 && ("fp8" in q) && ("bf16" in q)) }' "$tmp/q.csv"
}
heavy "--quant: a mode listed twice is searched once" t_quant_once

# ---- bounds and usage errors (exit 2, the flag named)
t_bound() {
  status_is 1 $bin recommend --model "$l8" --gpus 8 $small --max-points 5 &&
  contains "$tmp/cmd.err" "more than --max-points 5" &&
  status_is 1 $bin recommend --model "$l8" --gpus 1 $small --max-events 100 &&
  contains "$tmp/cmd.out" "failed .* the simulation passed the bound of 100 events (--max-events N raises it)"
}
ok "a search past --max-points is refused, a point past --max-events failed, each naming its bound" t_bound

# TensorRT-LLM runs a prompt in one step and refuses one past max_num_tokens: the disaggregated
# pools of a 16k-prompt search get a budget that holds it, and launch with it.
t_trtllm_long_prompt() {
  status_is 0 $bin recommend --model "$l8" --gpus 2 --isl 16384 --osl 64 --no-cache \
    --backend trtllm --mode disagg || return 1
  contains "$tmp/cmd.out" '^   1  disagg 1P(tp1) + 1D(tp1) .* 16384 ' &&
  contains "$tmp/cmd.out" 'trtllm-serve .* --max_num_tokens 16384' || return 1
  if grep -q 'failed' "$tmp/cmd.out"; then cat "$tmp/cmd.out"; return 1; fi
}
heavy "trtllm: a prompt past the preset's budget gets a disaggregated budget that holds it" \
  t_trtllm_long_prompt

# The bound is on the points a process would simulate: a shard's own, so that a search too
# large for one process runs split (doc/scale-out.md) under the same bound.
t_bound_shard() {
  status_is 1 $bin recommend --model "$l8" --gpus 8 $small --max-points 300 &&
  contains "$tmp/cmd.err" "the search has up to 507 points, more than --max-points 300" &&
  contains "$tmp/cmd.err" "split it over more shards (--shard I/N" &&
  status_is 1 $bin recommend --model "$l8" --gpus 8 $small --max-points 200 --shard 1/2 \
    --format jsonl &&
  contains "$tmp/cmd.err" "the search's shard has up to 260 points, more than --max-points 200" &&
  status_is 0 $bin recommend --model "$l8" --gpus 8 $small --max-points 300 --shard 1/2 \
    --format jsonl &&
  [ "$(grep -c '^{"index": ' "$tmp/cmd.out")" -gt 0 ]
}
heavy "--max-points bounds a shard's own points" t_bound_shard

t_usage() {
  status_is 2 $bin recommend --model "$l8" --gpus 0 && contains "$tmp/cmd.err" "--gpus" &&
  status_is 2 $bin recommend --model "$l8" --mode both-ways && contains "$tmp/cmd.err" "--mode" &&
  status_is 2 $bin recommend --model "$l8" --shard 3/2 --format jsonl && contains "$tmp/cmd.err" "--shard" &&
  status_is 2 $bin recommend --model "$l8" --shard 1/2 && contains "$tmp/cmd.err" "jsonl" &&
  status_is 2 $bin recommend --model "$l8" --ttft-max -1 && contains "$tmp/cmd.err" "--ttft-max" &&
  status_is 2 $bin recommend --model "$l8" --concurrency 4 --rate 2 && contains "$tmp/cmd.err" "--rate" &&
  status_is 2 $bin recommend --model "$l8" --quant '' && contains "$tmp/cmd.err" "--quant must be a comma list of modes, not ''" &&
  status_is 2 $bin recommend --model "$l8" --quant fp8,,bf16 && contains "$tmp/cmd.err" "not 'fp8,,bf16'" &&
  status_is 2 $bin recommend --model "$l8" --quant a,b,c,d,e,f,g,h,i && contains "$tmp/cmd.err" "more than 8 modes" &&
  status_is 2 $bin recommend --model "$l8" --max-points 0 && contains "$tmp/cmd.err" "--max-points must be an integer >= 1, not 0" &&
  status_is 2 $bin recommend --model "$l8" --max-events -1 && contains "$tmp/cmd.err" "--max-events must be an integer >= 1, not -1" &&
  status_is 2 $bin recommend --model "$l8" --backend static && contains "$tmp/cmd.err" "--backend" &&
  status_is 2 $bin recommend --gpus 8 && contains "$tmp/cmd.err" "--model" &&
  status_is 2 $bin recommend --model "$l8" --nextn -1 && contains "$tmp/cmd.err" "--nextn" &&
  status_is 2 $bin recommend --model "$l8" --nextn-accept 1.5 &&
  contains "$tmp/cmd.err" "--nextn-accept must be in 0..1" &&
  status_is 2 $bin recommend --model "$l8" --nextn 1 &&
  contains "$tmp/cmd.err" "has no MTP layers"
}
ok "usage errors exit 2 and name the flag" t_usage

tap_end
