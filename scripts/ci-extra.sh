#!/usr/bin/env bash
# msperf CI, hardening part (doc/fuzzing.md): called by `scripts/bootstrap.sh test` after
# distcheck. Installs clang, libclang-rt-14-dev and valgrind when missing, then:
#   1. an out-of-tree ASan/UBSan build running `make check`;
#   2. the CLI tests under valgrind (definite leaks and memory errors fail), the bad-input
#      corpus of the model-level commands (tests/data/bad/commands) among them;
#   3. `make fuzz` and every fuzzer for FUZZ_SECONDS (default 60) over its corpus;
#   4. a TSan build running the engine's thread test (include/msperf/engine.h § Threads), and
#      estimate, e2e and sweep on several jobs against one job.
# Each step prints a header; any failure fails the script. About 25 minutes on 2 cores.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
fuzz_seconds=${FUZZ_SECONDS:-60}
work=${CI_EXTRA_DIR:-$top/_build-extra}

section() { printf '\n======== %s ========\n' "$*"; }

install_missing() {
  local missing=() p sudo=""
  for p in clang libclang-rt-14-dev valgrind; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "ci-extra: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

section "ci-extra: dependencies"
install_missing
cd "$top"
[ -f configure ] || autoreconf -fi
mkdir -p "$work"

# ---------------------------------------------------------------- 1. sanitizers
section "ci-extra 1/4: ASan + UBSan build, make check"
rm -rf "$work/asan" && mkdir -p "$work/asan"
(
  cd "$work/asan"
  # The library and the modules are instrumented alike, so dlopen'ed modules run under the
  # same runtime. Leak checking is on; UBSan findings stop the test.
  # glibc's malloc under the sanitizers and valgrind: they replace it, not mimalloc
  "$top/configure" -q --enable-werror --without-mimalloc \
    CFLAGS='-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1' \
    CXXFLAGS='-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1' \
    LDFLAGS='-fsanitize=address,undefined'
  make -j"$jobs"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  make -j"$jobs" check || { cat test-suite.log; exit 1; }
)

# ---------------------------------------------------------------- 2. valgrind
section "ci-extra 2/4: CLI tests under valgrind"
rm -rf "$work/valgrind" && mkdir -p "$work/valgrind"
(
  cd "$work/valgrind"
  "$top/configure" -q --enable-werror --without-mimalloc CFLAGS='-g -O1' CXXFLAGS='-g -O1'
  make -j"$jobs"
  make -j"$jobs" check TESTS= >/dev/null   # builds the test programs and fake modules only
  # MSPERF_BIN is a wrapper: every msperf run of the CLI tests goes through valgrind, via
  # libtool so that the real binary (not the libtool wrapper script) is checked.
  cat >vg-msperf <<WRAP
#!/bin/sh
exec "$work/valgrind/libtool" --mode=execute valgrind -q --error-exitcode=99 \\
  --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite \\
  --suppressions="$top/scripts/valgrind.supp" "$work/valgrind/msperf" "\$@"
WRAP
  chmod +x vg-msperf
  export G_DEBUG=gc-friendly
  status=0
  # The bad-input corpus of the model-level commands (about 1.5 s a case under valgrind) and
  # the import's bad tables; test_model_bad.sh (the same configs through four commands) runs
  # under the sanitizers only.
  make check TESTS="tests/cli/test_cli.sh tests/cli/test_bad_inputs.sh tests/cli/test_html_report.sh tests/cli/test_serve.sh tests/cli/test_recommend.sh tests/cli/test_bad_corpus.sh tests/cli/test_import_bad.sh tests/fuzz/test_fuzz_replay" \
    MSPERF_TEST_BIN="$work/valgrind/vg-msperf" \
    LOG_COMPILER="$work/valgrind/libtool --mode=execute valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --suppressions=$top/scripts/valgrind.supp" \
    || status=$?
  # A valgrind error makes msperf exit 99, which the CLI tests report as a wrong exit status.
  if [ $status -ne 0 ] || grep -q "exit 99" tests/cli/*.log 2>/dev/null; then
    cat test-suite.log
    exit 1
  fi
)

# ---------------------------------------------------------------- 3. fuzzing
section "ci-extra 3/4: make fuzz, each fuzzer ${fuzz_seconds}s over its corpus"
(
  cd "$work/valgrind"
  make fuzz
  export ASAN_OPTIONS=detect_leaks=1
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  for f in tests/fuzz/bin/fuzz_*; do
    name=$(basename "$f" | sed 's/^fuzz_//')
    corpus=$work/corpus/$name
    rm -rf "$corpus" && mkdir -p "$corpus"
    cp "$top/tests/fuzz/corpus/$name"/* "$corpus"/ 2>/dev/null || true
    cp "$top/tests/fuzz/regressions/$name"/* "$corpus"/ 2>/dev/null || true
    echo "--- $name"
    max_len=8192
    # A triangulation cache file of the harness's 40 points is 44 KB.
    [ "$name" = tri_cache ] && max_len=65536
    # The largest seed model config (GLM-5-FP8, with its quantisation config) is 36 kB.
    [ "$name" = model_config ] && max_len=40960
    "$f" -max_total_time="$fuzz_seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$work/crash-$name-" "$corpus" >"$work/fuzz-$name.log" 2>&1 \
      || { tail -n 60 "$work/fuzz-$name.log"; exit 1; }
    grep -E '^stat::number_of_executed_units|^Done' "$work/fuzz-$name.log" || true
  done
)

# ---------------------------------------------------------------- 4. threads
section "ci-extra 4/4: TSan build, the engine thread test (4 threads x 10 000 queries), estimate --jobs 2-4, e2e and sweep --jobs 2"
rm -rf "$work/tsan" && mkdir -p "$work/tsan"
(
  cd "$work/tsan"
  # gcc's TSan runtime (libtsan2, pulled in by build-essential) is a shared library, so the
  # instrumented libmsperf and modules link with -Wl,--no-undefined like the normal build.
  "$top/configure" -q --enable-werror --without-mimalloc CFLAGS='-fsanitize=thread -g -O1' \
    CXXFLAGS='-fsanitize=thread -g -O1' LDFLAGS='-fsanitize=thread'
  make -j"$jobs"
  make -j"$jobs" tests/engine/test_threads
  # GSlice's per-thread magazines recycle memory behind TSan's back: plain malloc instead.
  export G_SLICE=always-malloc
  export TSAN_OPTIONS=halt_on_error=1:exitcode=66:second_deadlock_stack=1
  export MSPERF_TEST_PLUGINDIR="$work/tsan/plugins" MSPERF_TEST_DATADIR="$top/tests/data" \
    MSPERF_TOP_SRCDIR="$top" MSPERF_PLUGIN_PATH=
  ./tests/engine/test_threads
  # estimate --jobs N: the batches answered on the pool while the caller writes the last one
  # (core/cli/estimate_jobs.c), distinct and repeated lines, a --strict stop with a batch in
  # flight; the answers byte for byte those of --jobs 1.
  awk 'BEGIN { for (m = 1; m <= 3000; m++)
    printf "{\"op\": \"aten.mm.default\", \"args\": [{\"shape\": [%d, 4096], \"dtype\": \"bfloat16\"}, {\"shape\": [4096, %d], \"dtype\": \"bfloat16\"}]}\n", m, 1024 + m % 7 * 512 }' >trace.jsonl
  for k in $(seq 20); do cat "$top"/doc/examples/traces/*.jsonl; done >>trace.jsonl
  { head -n 2000 trace.jsonl
    echo '{"op": "aten.mm.default", "args": [{"shape": [-1, 2], "dtype": "bfloat16"}]}'
    tail -n +2001 trace.jsonl; } >strict.jsonl
  estimate() {
    ./libtool --mode=execute ./msperf --plugins-dir plugins/.libs estimate --no-cache \
      --profiling-database "$top/doc/examples/h200-db" --format jsonl "$@"
  }
  for j in 1 2 3; do
    estimate --ops trace.jsonl --jobs "$j" >"j$j.jsonl" 2>"j$j.err" || { cat "j$j.err"; exit 1; }
    cmp j1.jsonl "j$j.jsonl"
  done
  status=0
  estimate --ops strict.jsonl --jobs 4 --strict >strict.out 2>strict.err || status=$?
  # 1: the rejected line (any other status, 66 among them, is TSan or a crash)
  [ "$status" -eq 1 ] || { cat strict.err; exit 1; }
  [ "$(wc -l <strict.out)" -eq 2001 ]
  # e2e and sweep --jobs 2: the workers share one answer cache (core/app/model/model_e2e.c) and
  # the engine; the rows byte for byte those of --jobs 1.
  model() {
    ./libtool --mode=execute ./msperf --plugins-dir plugins/.libs "$@" --no-cache --format jsonl
  }
  for cfg in meta-llama--Meta-Llama-3.1-8B Qwen--Qwen3-30B-A3B; do
    c="$top/tests/data/models/configs/$cfg.json"
    for j in 1 2; do
      model e2e --model "$c" --tp 8 --isl 1024 --osl 128 --batch 4 --jobs "$j" >"e2e$j.jsonl" \
        2>"e2e$j.err" || { cat "e2e$j.err"; exit 1; }
      model sweep --model "$c" --devices 8 --batch 1,8,64 --jobs "$j" >"sweep$j.jsonl" \
        2>"sweep$j.err" || { cat "sweep$j.err"; exit 1; }
    done
    cmp e2e1.jsonl e2e2.jsonl
    cmp sweep1.jsonl sweep2.jsonl
  done
)

section "ci-extra: all clean"
