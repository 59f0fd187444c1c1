#!/bin/sh
# Speed and scale: estimate --jobs N gives the bytes of --jobs 1; --shard I/N parts
# merge (msperf merge, msperf summarize) to the single run; the GNU parallel form of
# doc/scale-out.md run locally. TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}"
bin=$MSPERF_BIN
src=$MSPERF_TOP_SRCDIR
traces=$src/doc/examples/traces
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

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

# The job threads live across batches and each frees its own session at the end: traces too
# short to wake them (0, 1 line), a batch exactly full (1024 lines on 2 jobs, then an empty
# one), several batches (the trace twice: its lines repeat), a last batch of one line.
t_jobs_batches() {
  for lines in 0 1 2 1024 1025 3000; do
    cat "$tmp/interp.jsonl" "$tmp/interp.jsonl" | head -n $lines >"$tmp/cut.jsonl"
    [ "$(wc -l <"$tmp/cut.jsonl")" -eq $lines ] || { echo "trace of $lines lines not made"; return 1; }
    want=0
    [ $lines -gt 700 ] && want=1
    run $want "$tmp/j1" est --ops "$tmp/cut.jsonl" --format jsonl --jobs 1 || return 1
    [ "$(wc -l <"$tmp/j1")" -eq $lines ] || { echo "$lines lines: $(wc -l <"$tmp/j1") records"; return 1; }
    for j in 2 3; do
      run $want "$tmp/jn" est --ops "$tmp/cut.jsonl" --format jsonl --jobs $j || return 1
      cmp "$tmp/j1" "$tmp/jn" || { echo "$lines lines: --jobs $j differs"; return 1; }
      cmp "$tmp/j1.err" "$tmp/jn.err" || { echo "$lines lines: --jobs $j stderr differs"; return 1; }
    done
  done
}
ok "--jobs 2 and 3 give the bytes of --jobs 1 on 0, 1, 2, 1024, 1025 and 3000 lines" t_jobs_batches

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

# ---- lines parsed on the jobs: the bytes of --jobs 1 for bad lines, unknown keys, CRLF, a
# BOM, op-summary documents and --strict (its warnings are those of the lines before the stop)
mixed_trace() {  # mixed_trace FILE: repeated exact hits, bad lines, unknown keys, an ATT reject
  awk -v bad="$src/tests/data/bad/trace-att-cast-bad-entry.jsonl" 'BEGIN {
    while ((getline l < bad) > 0) att = (att == "" ? l : att) ; close(bad)
    for (i = 0; i < 3000; i++) {
      m = 1 + (i * 7) % 64; k = 256 * (1 + i % 4); nn = 256 * (1 + (i * 3) % 4)
      if (i % 97 == 5) { print "{\"op\": \"aten.mm.default\", \"args\": [oops " i; continue }
      if (i % 211 == 17) { print "{\"op\": \"aten.mm.default\", \"arg\": [], \"cnt\": " i "}"; continue }
      if (i == 1500) { print "{\"op\": \"aten.add.Tensor\", \"kwarg\": {}, \"args\": [{\"shape\": [8], \"dtype\": \"bfloat16\"}, {\"shape\": [8], \"dtype\": \"bfloat16\"}]}"; continue }
      if (i % 301 == 2) { print "{\"op\": \"ascir.Cast\", \"att\": {\"kind\": \"cast\", \"in_dtype\": \"float32\", \"out_dtype\": \"float16\", \"shape\": [2, -64]}}"; continue }
      if (i % 50 == 0) print "# comment " i
      printf "{\"op\": \"aten.mm.default\", \"args\": [{\"shape\": [%d, %d], \"dtype\": \"bfloat16\"}, {\"shape\": [%d, %d], \"dtype\": \"bfloat16\"}], \"out\": [{\"shape\": [%d, %d], \"dtype\": \"bfloat16\"}], \"count\": %d}\n", m, k, k, nn, m, nn, 1 + i % 2
    }
  }' >"$1"
}
mixed_trace "$tmp/mixed.jsonl"
# the same lines with CR LF ends and a UTF-8 byte-order mark
{ printf '\357\273\277'; sed 's/$/\r/' "$tmp/mixed.jsonl"; } >"$tmp/mixed-crlf.jsonl"
# a first line that is a malformed op followed by good ones (read whole, then line by line)
{ echo '{"op": "aten.mm.default", "args": ['; cat "$tmp/mixed.jsonl"; } >"$tmp/mixed-first-bad.jsonl"

same_jobs() {  # same_jobs STATUS ARGS... : --jobs 2 and 4 give --jobs 1's stdout and stderr
  want=$1; shift
  run $want "$tmp/p1" est "$@" --jobs 1 || return 1
  for j in 2 4; do
    run $want "$tmp/pn" est "$@" --jobs $j || return 1
    cmp "$tmp/p1" "$tmp/pn" || { echo "$*: --jobs $j differs"; return 1; }
    cmp "$tmp/p1.err" "$tmp/pn.err" || { echo "$*: --jobs $j stderr differs"; diff "$tmp/p1.err" "$tmp/pn.err" | head; return 1; }
  done
}

t_jobs_parse_same() {
  for t in "$tmp/mixed.jsonl" "$tmp/mixed-crlf.jsonl" "$tmp/mixed-first-bad.jsonl"; do
    for f in jsonl csv table json; do
      same_jobs 1 --ops "$t" --format $f || return 1
    done
    same_jobs 1 --ops "$t" --format jsonl --report "$tmp/r.json" || return 1
    same_jobs 1 --ops "$t" --format jsonl --disable-profiling-interpolation || return 1
    same_jobs 1 --ops "$t" --format jsonl --shard 2/3 || return 1
  done
  run 1 "$tmp/m" est --ops "$tmp/mixed-first-bad.jsonl" --format jsonl --jobs 2 || return 1
  has "$tmp/m.err" 'unknown key "arg" ignored (did you mean "args"?)' || return 1
  has "$tmp/m.err" 'unknown key "kwarg" ignored' || return 1
  has "$tmp/m.err" "mixed-first-bad.jsonl:1: " || return 1
  # CR LF and the BOM change nothing but the file name in the messages
  run 1 "$tmp/a" est --ops "$tmp/mixed.jsonl" --format jsonl --jobs 2 || return 1
  run 1 "$tmp/b" est --ops "$tmp/mixed-crlf.jsonl" --format jsonl --jobs 2 || return 1
  sed 's/mixed-crlf\.jsonl/mixed.jsonl/g' "$tmp/b" | cmp - "$tmp/a" || { echo "CRLF/BOM trace answers differ"; return 1; }
}
ok "--jobs 2 and 4 give the bytes of --jobs 1: bad lines, unknown keys, ATT rejects, CRLF, BOM" t_jobs_parse_same

t_jobs_summary_docs() {
  for t in "$src/tests/data/trace/summary-small.json" "$src/tests/data/trace/qwen3_32b_decode.json"; do
    for f in jsonl table; do
      run_answered "$tmp/s1" est --ops "$t" --format $f --jobs 1 || return 1
      for j in 2 4; do
        run_answered "$tmp/sn" est --ops "$t" --format $f --jobs $j || return 1
        cmp "$tmp/s1" "$tmp/sn" && cmp "$tmp/s1.err" "$tmp/sn.err" \
          || { echo "$t --format $f: --jobs $j differs"; return 1; }
      done
    done
  done
}
ok "op-summary documents: --jobs 2 and 4 give the bytes of --jobs 1" t_jobs_summary_docs

t_jobs_strict_parse() {
  for t in "$tmp/mixed.jsonl" "$tmp/mixed-crlf.jsonl"; do
    same_jobs 1 --ops "$t" --format jsonl --strict || return 1
    # stopped at the first rejected line (the ATT reject, the 3rd op): the lines after it,
    # answered ahead by the jobs, are not taken, nor are their unknown keys
    [ "$(wc -l <"$tmp/p1")" -eq 3 ] || { echo "--strict did not stop at the first rejected line"; return 1; }
    if grep -q 'unknown key' "$tmp/p1.err"; then echo "warning of a line after the stop"; return 1; fi
  done
  # a stop after the first unknown keys: they are reported, the later ones are not
  grep -v 'oops\|ascir' "$tmp/mixed.jsonl" | head -n 30 >"$tmp/keys.jsonl"
  echo '{"op": "aten.mm.default", "args": [oops' >>"$tmp/keys.jsonl"
  echo '{"op": "aten.add.Tensor", "kwarg": {}, "args": []}' >>"$tmp/keys.jsonl"
  same_jobs 1 --ops "$tmp/keys.jsonl" --format jsonl --strict || return 1
  has "$tmp/p1.err" 'unknown key "arg"' || return 1
  if grep -q 'unknown key "kwarg"' "$tmp/p1.err"; then echo "warning of a line after the stop"; return 1; fi
}
ok "--strict with --jobs: the same stop and only the warnings of the lines before it" t_jobs_strict_parse

t_jobs_pipe() {
  # one job on a pipe answers each line before the next is read: a sweep can wait for it
  rm -f "$tmp/in" "$tmp/pipe.out" "$tmp/late"
  mkfifo "$tmp/in" || return 1
  ( grep -m 1 '^{"op": "aten.mm' "$tmp/mixed.jsonl"
    i=0
    while [ ! -s "$tmp/pipe.out" ]; do
      i=$((i + 1)); [ $i -gt 300 ] && { : >"$tmp/late"; break; }
      sleep 0.1
    done
    tail -n 1 "$tmp/mixed.jsonl" ) >"$tmp/in" &
  est --ops - --format jsonl <"$tmp/in" >"$tmp/pipe.out" 2>"$tmp/pipe.err"
  wait
  [ ! -e "$tmp/late" ] || { echo "the first answer waited for the second line"; return 1; }
  [ "$(grep -c '^{"index": ' "$tmp/pipe.out")" -eq 2 ] || { echo "not two answers:"; cat "$tmp/pipe.out"; return 1; }
}
ok "--ops - on a pipe: each answer before the next line is written" t_jobs_pipe

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

tap_end
