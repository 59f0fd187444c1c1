#!/bin/sh
# Issue 15, speed and scale: estimate --jobs N gives the bytes of --jobs 1; --shard I/N parts
# merge (msperf merge, msperf summarize) to the single run; the GNU parallel form of
# doc/scale-out.md run locally. TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}"
bin=$MSPERF_BIN
src=$MSPERF_TOP_SRCDIR
traces=$src/doc/examples/traces
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
failed=0

ok() {  # ok DESCRIPTION FUNCTION : passes when the function succeeds
  n=$((n + 1))
  desc=$1; shift
  if "$@" >"$tmp/why" 2>&1; then
    echo "ok $n - $desc"
  else
    echo "not ok $n - $desc"
    sed 's/^/# /' "$tmp/why" | head -n 20
    failed=$((failed + 1))
  fi
}

skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# run EXPECTED_STATUS OUT COMMAND... : stdout to OUT, stderr to OUT.err
run() {
  want=$1; out=$2; shift 2
  "$@" >"$out" 2>"$out.err"
  got=$?
  [ "$got" -eq "$want" ] || { echo "exit $got, expected $want: $*"; head -n 20 "$out.err"; return 1; }
}
# run_answered OUT COMMAND... : status 0 or 1 (a shard may or may not hold a rejected line)
run_answered() {
  out=$1; shift
  "$@" >"$out" 2>"$out.err"
  got=$?
  [ "$got" -le 1 ] || { echo "exit $got: $*"; head -n 20 "$out.err"; return 1; }
}
has() { grep -q -- "$2" "$1" || { echo "'$2' not in $1:"; head -n 30 "$1"; return 1; }; }

est() { "$bin" estimate "$@"; }

# An interpolation-heavy trace on the sample database: distinct GEMMs strictly inside the
# MatMulV2 grid (3-D interpolation), a few repeated, one rejected line, some exact hits.
awk 'BEGIN {
  srand(15);
  for (i = 0; i < 1500; i++) {
    if (i == 700) { print "{\"op\": \"aten.mm.default\", \"args\": [oops"; continue }
    if (i % 10 == 3) { m = 2048; k = 4096; nn = 4096 }
    else if (i % 10 == 7 && i > 100) { m = pm; k = pk; nn = pn }
    else { m = 2 + int(rand() * 8000); k = 300 + int(rand() * 7800); nn = 300 + int(rand() * 7800) }
    pm = m; pk = k; pn = nn;
    printf "{\"op\": \"aten.mm.default\", \"args\": [{\"shape\": [%d, %d], \"dtype\": \"bfloat16\"}, {\"shape\": [%d, %d], \"dtype\": \"bfloat16\"}], \"out\": [{\"shape\": [%d, %d], \"dtype\": \"bfloat16\"}], \"count\": %d}\n", m, k, k, nn, m, nn, 1 + i % 3
  }
}' >"$tmp/interp.jsonl"

# ---- --jobs N: the bytes of --jobs 1, every format
t_jobs_same() {
  for t in "$traces/llama3-8b-prefill.jsonl" "$traces/llama3-8b-decode.jsonl" \
           "$traces/llama3-8b-prefill-tp2.jsonl" "$tmp/interp.jsonl"; do
    want=0
    [ "$t" = "$tmp/interp.jsonl" ] && want=1
    for f in jsonl table json csv; do
      run $want "$tmp/j1" est --ops "$t" --format $f --jobs 1 || return 1
      for j in 2 4; do
        run $want "$tmp/jn" est --ops "$t" --format $f --jobs $j || return 1
        cmp "$tmp/j1" "$tmp/jn" || { echo "$t --format $f: --jobs $j differs"; return 1; }
        cmp "$tmp/j1.err" "$tmp/jn.err" || { echo "$t --format $f: --jobs $j stderr differs"; return 1; }
      done
    done
  done
}
ok "estimate --jobs 2 and 4 give the bytes of --jobs 1 (sample traces, interpolation-heavy trace)" t_jobs_same

t_jobs_interpolates() {
  run 1 "$tmp/o" est --ops "$tmp/interp.jsonl" --format jsonl --jobs 2 || return 1
  [ "$(grep -c '"source": "INTERPOLATED"' "$tmp/o")" -gt 1000 ] \
    || { echo "too few interpolated answers"; return 1; }
}
ok "the generated trace is interpolation-heavy" t_jobs_interpolates

t_jobs_strict() {
  run 1 "$tmp/j1" est --ops "$tmp/interp.jsonl" --format jsonl --strict --jobs 1 || return 1
  run 1 "$tmp/j2" est --ops "$tmp/interp.jsonl" --format jsonl --strict --jobs 2 || return 1
  cmp "$tmp/j1" "$tmp/j2" || return 1
  [ "$(wc -l <"$tmp/j1")" -eq 701 ] || { echo "--strict did not stop at line 701"; return 1; }
}
ok "--strict stops at the same line with --jobs 2" t_jobs_strict

t_jobs_bad() {
  for v in 0 -1 257 x; do
    run 2 "$tmp/o" est --jobs "$v" || return 1
  done
  has "$tmp/o.err" "jobs"
}
ok "--jobs outside 1..256 is refused" t_jobs_bad

t_jobs_stdin() {
  run 1 "$tmp/j1" est --ops - --format jsonl <"$tmp/interp.jsonl" || return 1
  run 1 "$tmp/j2" est --ops - --format jsonl --jobs 2 <"$tmp/interp.jsonl" || return 1
  cmp "$tmp/j1" "$tmp/j2"
}
ok "--ops - with and without --jobs" t_jobs_stdin

# ---- --shard I/N, msperf merge, msperf summarize
cat "$tmp/interp.jsonl" "$traces/llama3-8b-prefill.jsonl" >"$tmp/mixed.jsonl"
t_shards() {
  run 1 "$tmp/single" est --ops "$tmp/mixed.jsonl" --format jsonl || return 1
  for i in 1 2 3; do
    run_answered "$tmp/s$i" est --ops "$tmp/mixed.jsonl" --format jsonl --shard $i/3 --jobs 2 \
      || return 1
  done
  run 0 "$tmp/merged" "$bin" merge "$tmp/s1" "$tmp/s2" "$tmp/s3" || return 1
  cmp "$tmp/single" "$tmp/merged" || { echo "merged shards differ from the single run"; return 1; }
  [ "$(cat "$tmp/s1" "$tmp/s2" "$tmp/s3" | wc -l)" -eq "$(wc -l <"$tmp/single")" ] || return 1
  # the summary from concatenated shards (any order) is the single run's
  cat "$tmp/s3" "$tmp/s1" "$tmp/s2" >"$tmp/cat"
  run 1 "$tmp/sum" "$bin" summarize --ops "$tmp/mixed.jsonl" --answers "$tmp/cat" || return 1
  grep -v '^msperf: ' "$tmp/single.err" >"$tmp/single.summary"
  cmp "$tmp/single.summary" "$tmp/sum" || { diff "$tmp/single.summary" "$tmp/sum" | head; return 1; }
  for f in table json csv; do
    run 1 "$tmp/a" est --ops "$tmp/mixed.jsonl" --format $f --jobs 1 || return 1
    run 1 "$tmp/b" "$bin" summarize --ops "$tmp/mixed.jsonl" --answers "$tmp/merged" --format $f \
      || return 1
    cmp "$tmp/a" "$tmp/b" || { echo "summarize --format $f differs"; return 1; }
  done
}
ok "--shard 1/3..3/3: merge gives the single run's bytes, summarize its summary and outputs" t_shards

t_shard_bad() {
  for v in 0/2 3/2 1/0 x 1/ /2 1/2x; do
    run 2 "$tmp/o" est --shard "$v" || return 1
    has "$tmp/o.err" "shard" || return 1
  done
}
ok "--shard outside 1 <= I <= N is refused" t_shard_bad

t_merge_bad() {
  run 2 "$tmp/o" "$bin" merge "$tmp/nowhere" || return 1
  printf '{"index": 2, "op": "x"}\n{"index": 1, "op": "y"}\n' >"$tmp/unsorted"
  run 2 "$tmp/o" "$bin" merge "$tmp/unsorted" || return 1
  has "$tmp/o.err" "own file" || return 1
  printf 'garbage\n' >"$tmp/garbage"
  run 2 "$tmp/o" "$bin" merge "$tmp/garbage" || return 1
  run 2 "$tmp/o" "$bin" summarize --ops "$traces/llama3-8b-decode.jsonl" --answers "$tmp/s1" || return 1
  has "$tmp/o.err" "no answer for trace item"
}
ok "merge and summarize refuse unreadable, unsorted, foreign or incomplete answers" t_merge_bad

# ---- doc/scale-out.md, the GNU parallel form, run locally
t_gnu_parallel() {
  N=4
  # shellcheck disable=SC2016
  parallel --will-cite -j 2 --halt now,fail=1 \
    "'$bin' estimate --ops '$tmp/mixed.jsonl' --format jsonl --jobs 1 --shard {}/$N \
       >'$tmp/part.{}.jsonl' 2>/dev/null; test \$? -le 1" ::: $(seq 1 $N) || return 1
  run 0 "$tmp/merged" "$bin" merge $(seq -f "$tmp/part.%g.jsonl" 1 $N) || return 1
  cmp "$tmp/single" "$tmp/merged"
}
if command -v parallel >/dev/null 2>&1 && parallel --version 2>/dev/null | grep -q GNU; then
  ok "GNU parallel: 4 shards merged equal the single run" t_gnu_parallel
elif [ -n "${CI:-}" ]; then
  n=$((n + 1)); echo "not ok $n - GNU parallel is missing (scripts/bootstrap.sh installs it)"
  failed=$((failed + 1))
else
  skip "GNU parallel: 4 shards merged equal the single run" "GNU parallel not installed (apt-get install parallel)"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
