#!/bin/sh
# Memory bounded by distinct ops: a streamed estimate (--format jsonl / csv) keeps
# one digest per distinct op instead of its records; its headline, summary and metrics file
# must be those of msperf summarize over its full JSON Lines and of the table run (which keeps
# every record). Traces with far-apart repeats, rejected lines, unmapped ops, interpolations
# and ATT answers without a latency. TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}"
bin=$MSPERF_BIN
src=$MSPERF_TOP_SRCDIR
traces=$src/doc/examples/traces
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

# run OUT COMMAND... : stdout to OUT, stderr to OUT.err; status 0 or 1 (rejected lines)
run() {
  out=$1; shift
  "$@" >"$out" 2>"$out.err"
  got=$?
  [ "$got" -le 1 ] || { echo "exit $got: $*"; head -n 20 "$out.err"; return 1; }
}
same() { cmp "$1" "$2" || { diff "$1" "$2" | head -n 20; return 1; }; }

# Distinct GEMMs inside the sample MatMulV2 grid (3-D interpolation), exact hits, a rejected
# line, and repeats both next to each other and thousands of lines apart.
awk 'BEGIN {
  srand(151);
  for (i = 0; i < 3000; i++) {
    if (i == 900) { print "{\"op\": \"aten.mm.default\", \"args\": [oops"; continue }
    if (i % 10 == 3) { m = 2048; k = 4096; nn = 4096 }
    else if (i % 10 == 7 && i > 100) { m = pm; k = pk; nn = pn }
    else if (i > 2000 && i % 5 == 1) { m = mm[i - 2000]; k = kk[i - 2000]; nn = nnn[i - 2000] }
    else { m = 2 + int(rand() * 8000); k = 300 + int(rand() * 7800); nn = 300 + int(rand() * 7800) }
    pm = m; pk = k; pn = nn; mm[i] = m; kk[i] = k; nnn[i] = nn;
    printf "{\"op\": \"aten.mm.default\", \"args\": [{\"shape\": [%d, %d], \"dtype\": \"bfloat16\"}, {\"shape\": [%d, %d], \"dtype\": \"bfloat16\"}], \"out\": [{\"shape\": [%d, %d], \"dtype\": \"bfloat16\"}], \"count\": %d}\n", m, k, k, nn, m, nn, 1 + i % 4
  }
}' >"$tmp/interp.jsonl"
cat "$traces/llama3-8b-prefill.jsonl" "$traces/llama3-8b-decode.jsonl" "$tmp/interp.jsonl" \
  "$traces/llama3-8b-prefill.jsonl" "$src/tests/data/trace/bad-lines.jsonl" >"$tmp/mixed.jsonl"
cp "$src/tests/data/att/cast_trace.jsonl" "$tmp/att.jsonl"

# The headline (from "msperf run" to the first empty line) and the summary (from "Summary").
headline() { sed -n '/^msperf run$/,/^$/p' "$1"; }
summary() { sed -n '/^Summary$/,$p' "$1"; }

# t_fold TRACE JOBS [FLAGS...]
t_fold() {
  t=$1; j=$2; shift 2
  run "$tmp/full" "$bin" estimate --ops "$t" --format jsonl --jobs "$j" \
    --export-empirical-metrics "$tmp/m.fold" "$@" || return 1
  run "$tmp/csv" "$bin" estimate --ops "$t" --format csv --jobs "$j" \
    --export-empirical-metrics "$tmp/m.csv" "$@" || return 1
  run "$tmp/table" "$bin" estimate --ops "$t" --format table --jobs 1 \
    --export-empirical-metrics "$tmp/m.table" "$@" || return 1
  run "$tmp/sum" "$bin" summarize --ops "$t" --answers "$tmp/full" \
    --export-empirical-metrics "$tmp/m.sum" "$@" || return 1
  grep -v '^msperf: ' "$tmp/full.err" >"$tmp/fold.summary"
  grep -v '^msperf: ' "$tmp/csv.err" >"$tmp/csv.summary"
  # headline + summary of the streamed run == summarize over its full records
  same "$tmp/fold.summary" "$tmp/sum" || return 1
  same "$tmp/csv.summary" "$tmp/sum" || return 1
  # warnings (stderr lines) too
  grep '^msperf: warning' "$tmp/full.err" >"$tmp/w.fold"
  grep '^msperf: warning' "$tmp/table.err" >"$tmp/w.table"
  same "$tmp/w.fold" "$tmp/w.table" || return 1
  # == the table run's headline and summary
  headline "$tmp/table" >"$tmp/h.table"; headline "$tmp/fold.summary" >"$tmp/h.fold"
  same "$tmp/h.fold" "$tmp/h.table" || return 1
  summary "$tmp/table" >"$tmp/s.table"; summary "$tmp/fold.summary" >"$tmp/s.fold"
  same "$tmp/s.fold" "$tmp/s.table" || return 1
  [ -s "$tmp/s.fold" ] || { echo "no summary"; return 1; }
  # metrics files (M1–M5 and the misses list) of every mode
  same "$tmp/m.fold" "$tmp/m.table" || return 1
  same "$tmp/m.csv" "$tmp/m.table" || return 1
  same "$tmp/m.sum" "$tmp/m.table" || return 1
}

ok "interpolation trace, --jobs 1: streamed summary == summarize == table run" t_fold "$tmp/interp.jsonl" 1
ok "interpolation trace, --jobs 2" t_fold "$tmp/interp.jsonl" 2
ok "mixed trace (repeats far apart, rejected and unmapped lines), --jobs 2" t_fold "$tmp/mixed.jsonl" 2
ok "mixed trace, --list-all" t_fold "$tmp/mixed.jsonl" 1 --list-all
ok "mixed trace, analytic and profiling" t_fold "$tmp/mixed.jsonl" 2 --performance-model analytic profiling
ok "ATT trace (answers without a latency)" t_fold "$tmp/att.jsonl" 1

# A small answer cache (cache.answers: 2) evicts nearly every answer: the bytes stay.
t_small_cache() {
  printf 'cache:\n  answers: 2\n' >"$tmp/small.yaml"
  run "$tmp/a" "$bin" estimate --ops "$tmp/mixed.jsonl" --format jsonl --jobs 2 || return 1
  run "$tmp/b" "$bin" --policy "$tmp/small.yaml" estimate --ops "$tmp/mixed.jsonl" \
    --format jsonl --jobs 2 || return 1
  same "$tmp/a" "$tmp/b" || return 1
  same "$tmp/a.err" "$tmp/b.err" || return 1
}
ok "cache.answers: 2 gives the bytes of the default cache" t_small_cache

tap_end
