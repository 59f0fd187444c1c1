#!/bin/sh
# The installed libmsperf exports exactly its public API: every msperf_* symbol in
# the dynamic symbol table of libmsperf.so is declared with MSPERF_API in include/msperf/, and
# every MSPERF_API declaration is exported (a declared function that is not defined, or was
# compiled without the macro in scope, fails too). Modules export only their descriptor.
# TAP output for automake's tap-driver.
set -u

: "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TOP_BUILDDIR:?}"
lib=$MSPERF_TOP_BUILDDIR/core/.libs/libmsperf.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
failed=0

result() {  # result DESCRIPTION STATUS
  n=$((n + 1))
  if [ "$2" -eq 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}

if ! command -v nm >/dev/null 2>&1 || [ ! -f "$lib" ]; then
  echo "1..0 # SKIP nm or $lib missing"
  exit 0
fi

nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ && $3 ~ /^msperf_/ { print $3 }' |
  sort -u >"$tmp/exported"
# Declarations: the identifier before the first "(" on each MSPERF_API line.
cat "$MSPERF_TOP_SRCDIR"/include/msperf/*.h |
  sed -n 's/^MSPERF_API [^(]*[^a-zA-Z0-9_]\(msperf_[a-zA-Z0-9_]*\) *(.*/\1/p' | sort -u >"$tmp/declared"

comm -23 "$tmp/exported" "$tmp/declared" >"$tmp/extra"
[ -s "$tmp/extra" ] && sed 's/^/# exported but not public: /' "$tmp/extra"
result "libmsperf.so exports no msperf_* symbol outside include/msperf/" "$([ -s "$tmp/extra" ] && echo 1 || echo 0)"

comm -13 "$tmp/exported" "$tmp/declared" >"$tmp/missing"
[ -s "$tmp/missing" ] && sed 's/^/# declared MSPERF_API but not exported: /' "$tmp/missing"
result "every MSPERF_API declaration is exported" "$([ -s "$tmp/missing" ] && echo 1 || echo 0)"

count=$(wc -l <"$tmp/exported")
result "the public API is not empty ($count symbols)" "$([ "$count" -gt 100 ] && echo 0 || echo 1)"

# Nothing but the descriptor leaves a module.
bad=0
for so in "$MSPERF_TOP_BUILDDIR"/plugins/.libs/msperf_*.so; do
  syms=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | grep -v '^_' | sort -u | tr '\n' ' ')
  if [ "$syms" != "msperf_plugin_v1 " ]; then
    echo "# $so exports: $syms"
    bad=1
  fi
done
result "every module exports exactly msperf_plugin_v1" "$bad"

echo "1..$n"
[ "$failed" -eq 0 ]
