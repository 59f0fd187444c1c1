#!/usr/bin/env bash
# msperf set-up on a fresh Debian 12 machine: installs what is missing (apt-get), builds out of
# tree in _build/, then either runs the main job on the shipped sample (demo), the whole
# test suite (test) or the benchmarks (bench [BENCH_FLAGS]). Each mode installs only what it
# needs: demo the build tools and the libraries of the program; test also cmocka (the unit
# tests), python3-dev (the Python module and its tests), GNU parallel and chromium (two CLI
# tests); bench also python3-scipy for the scipy griddata anchor. .ci/run calls
# `bash scripts/bootstrap.sh test`.
set -euo pipefail

mode=${1:-demo}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# What the program needs to build and run (every mode).
packages=(
  build-essential autoconf automake libtool autoconf-archive pkgconf
  libltdl-dev libyaml-dev libqhull-dev libglib2.0-dev libjson-glib-dev libcsv-dev
  zlib1g-dev  # gzip-compressed kernel tables, the importer's output (doc/dependencies.md)
  libdouble-conversion-dev  # shortest float digits (doc/dependencies.md); g++ for its C++ shim
  libmimalloc-dev  # the msperf program's allocator (doc/dependencies.md)
)
# What only the test suite needs.
test_packages=(
  libcmocka-dev  # the unit tests (configure builds them only when cmocka is found)
  python3-dev  # the Python module (configure --enable-python=auto) and its tests
  parallel  # tests/cli/test_scale.sh: the GNU parallel form of doc/scale-out.md
  chromium  # tests/cli/test_html_report.sh: the HTML report rendered headless
)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "bootstrap: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  autoreconf -fi
  mkdir -p _build
  cd _build
  ../configure --enable-werror -q
  make -j"$(nproc)"
}

# automake's test-suite.log holds "# PASS: N" / "# FAIL: N"; CI wants "N passed, N failed".
summarise() {
  local log=$1 pass fail skip
  pass=$(sed -n 's/^# PASS: *//p' "$log" | head -n 1)
  fail=$(sed -n 's/^# FAIL: *//p' "$log" | head -n 1)
  local xpass error
  xpass=$(sed -n 's/^# XPASS: *//p' "$log" | head -n 1)
  error=$(sed -n 's/^# ERROR: *//p' "$log" | head -n 1)
  skip=$(sed -n 's/^# SKIP: *//p' "$log" | head -n 1)
  echo "${pass:-0} passed, $(( ${fail:-0} + ${xpass:-0} + ${error:-0} )) failed, ${skip:-0} skipped"
}

[ "$mode" = test ] && packages+=("${test_packages[@]}")
# The scipy anchor of `make bench` (tests/bench/scipy_side.py), for that mode only.
[ "$mode" = bench ] && packages+=(python3-scipy python3-numpy)

install_missing
case "$mode" in
  demo)
    build
    ./msperf estimate
    ;;
  test)
    build
    status=0
    # CI has chromium (above): the HTML report test must run, not skip.
    export MSPERF_REQUIRE_CHROMIUM=1
    make -j"$(nproc)" check || status=$?
    [ $status -eq 0 ] || cat test-suite.log || true
    if [ $status -eq 0 ]; then
      make -j"$(nproc)" distcheck || status=$?
    fi
    # Sanitizers, valgrind and the fuzzers (doc/fuzzing.md).
    if [ $status -eq 0 ]; then
      (cd "$top" && bash scripts/ci-extra.sh) || status=$?
    fi
    summarise test-suite.log
    exit $status
    ;;
  bench)
    build
    make bench BENCH_FLAGS="${2:-}"
    ;;
  *)
    echo "usage: $0 demo|test|bench [BENCH_FLAGS]" >&2
    exit 2
    ;;
esac
