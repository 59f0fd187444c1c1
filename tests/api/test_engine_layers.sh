#!/bin/sh
# core/engine reads as a staircase: no two of its files use each other's symbols. For every
# pair of objects of core/engine in the built libmsperf-internal, if A uses a symbol B defines
# and B uses one A defines, the pair is a circle and the test fails naming both files and the
# symbols each takes from the other; a longer loop (A uses B uses C uses A) fails too. Also
# checks that the layers below the engine
# (core/base, core/io, core/interp, core/att) use no symbol the engine defines.
# TAP output for automake's tap-driver.
set -u

: "${MSPERF_TOP_BUILDDIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
failed=0

result() {  # result DESCRIPTION STATUS
  n=$((n + 1))
  if [ "$2" -eq 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}

# objects DIR: the objects libtool built for libmsperf-internal/-lower in DIR (PIC copies in
# .libs/ when the build made them, the plain ones otherwise).
objects() {
  if ls "$1"/.libs/libmsperf_*_la-*.o >/dev/null 2>&1; then
    ls "$1"/.libs/libmsperf_*_la-*.o
  else
    ls "$1"/libmsperf_*_la-*.o 2>/dev/null
  fi
}

# short OBJECT: the source file name an object was built from.
short() {
  basename "$1" .o | sed 's/^libmsperf_[a-z]*_la-//'
}

if ! command -v nm >/dev/null 2>&1 || [ -z "$(objects "$MSPERF_TOP_BUILDDIR/core/engine")" ]; then
  echo "1..0 # SKIP nm or the core/engine objects missing"
  exit 0
fi

# For every engine object: the global symbols it defines and the ones it leaves undefined.
objects "$MSPERF_TOP_BUILDDIR/core/engine" >"$tmp/objs"
while read -r o; do
  s=$(short "$o")
  nm --defined-only -g "$o" | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/$s.def"
  nm -u "$o" | awk '{ print $NF }' | sort -u >"$tmp/$s.use"
done <"$tmp/objs"

sed 's|.*/||; s/\.o$//; s/^libmsperf_[a-z]*_la-//' "$tmp/objs" | sort >"$tmp/names"
circles=0
for a in $(cat "$tmp/names"); do
  for b in $(cat "$tmp/names"); do
    [ "$a" \< "$b" ] || continue
    comm -12 "$tmp/$a.use" "$tmp/$b.def" >"$tmp/ab"
    comm -12 "$tmp/$b.use" "$tmp/$a.def" >"$tmp/ba"
    if [ -s "$tmp/ab" ] && [ -s "$tmp/ba" ]; then
      echo "# circle: $a.c uses $(tr '\n' ' ' <"$tmp/ab")"
      echo "#         $b.c uses $(tr '\n' ' ' <"$tmp/ba")"
      circles=$((circles + 1))
    fi
  done
done
result "no two files of core/engine use each other's symbols ($circles circles)" "$circles"

# Nor any longer loop: the uses sort topologically (tsort names a loop on stderr).
: >"$tmp/edges"
for a in $(cat "$tmp/names"); do
  echo "$a $a" >>"$tmp/edges"
  for b in $(cat "$tmp/names"); do
    [ "$a" != "$b" ] && [ -n "$(comm -12 "$tmp/$a.use" "$tmp/$b.def")" ] && echo "$b $a" >>"$tmp/edges"
  done
done
tsort "$tmp/edges" >"$tmp/order" 2>"$tmp/loops"
[ -s "$tmp/loops" ] && sed 's/^/# /' "$tmp/loops"
result "the files of core/engine form a staircase (no loop of uses)" "$([ -s "$tmp/loops" ] && echo 1 || echo 0)"

# The layers below the engine never call up into it.
cat "$tmp"/*.def | sort -u >"$tmp/all-engine.syms"
up=0
for d in base io interp att; do
  for o in $(objects "$MSPERF_TOP_BUILDDIR/core/$d"); do
    nm -u "$o" | awk '{ print $NF }' | sort -u | comm -12 - "$tmp/all-engine.syms" >"$tmp/up"
    if [ -s "$tmp/up" ]; then
      echo "# core/$d/$(short "$o").c uses the engine's $(tr '\n' ' ' <"$tmp/up")"
      up=1
    fi
  done
done
result "core/base, core/io, core/interp and core/att use no symbol of core/engine" "$up"

echo "1..$n"
[ "$failed" -eq 0 ]
