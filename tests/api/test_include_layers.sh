#!/bin/sh
# The layer rule of doc/design.md holds in the includes: base <- io <- interp, att <- engine <-
# app <- cli, interp and att siblings (neither includes the other). Every #include of every file
# under core/ and include/msperf/ is given the layer of what it names — a private header by its
# folder ("io/device.h": io), a public one by the layer that implements it (the table below) —
# and fails when it names a layer above the including file's, or the sibling. Modules
# (plugins/) include their own folder's headers and include/msperf/ only, and never the
# engine's life cycle (msperf/engine.h, msperf/msperf.h): their slots must not start, free or
# query an engine. TAP output for automake's tap-driver.
set -u

: "${MSPERF_TOP_SRCDIR:?}"
cd "$MSPERF_TOP_SRCDIR" || exit 1
n=0
failed=0

result() {  # result DESCRIPTION STATUS
  n=$((n + 1))
  if [ "$2" -eq 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}

# rank LAYER: the height of a layer (siblings share one).
rank() {
  case $1 in
    base) echo 0 ;; io) echo 1 ;; interp | att) echo 2 ;; engine) echo 3 ;; app) echo 4 ;;
    cli) echo 5 ;; *) echo 9 ;;
  esac
}

# public HEADER: the layer implementing a header of include/msperf/ (unknown: "new", which
# fails, so that a new public header is placed here).
public() {
  case $1 in
    api.h | version.h | error.h | dtype.h | op.h | shape.h | result.h | details.h | point.h | \
      paths.h | format.h | number.h | subquery.h) echo base ;;
    table.h | select.h | database.h) echo io ;;
    expr.h | att.h) echo att ;;
    handle.h | engine.h | host.h | plugin.h | latency.h | holdout.h | msperf.h) echo engine ;;
    *) echo new ;;
  esac
}

# includes FILE: "KIND NAME" per include: KIND q for "…", a for <msperf/…>.
includes() {
  sed -n -e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/q \1/p' \
    -e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<msperf\/\([^>]*\)>.*/a \1/p' "$1"
}

# check FILE LAYER: prints one line per include that goes up a layer or to the sibling.
check() {
  includes "$1" | while read -r kind name; do
    if [ "$kind" = a ]; then
      to=$(public "$name")
    else
      case $name in
        */*) to=${name%%/*} ;;
        *) to=$2 ;;           # a header of the same folder
      esac
    fi
    if [ "$to" = new ]; then
      echo "# $1: includes <msperf/$name>, a public header of no known layer"
    elif [ "$(rank "$to")" -gt "$(rank "$2")" ]; then
      echo "# $1: $2 includes $name ($to, a layer above)"
    elif [ "$(rank "$to")" -eq "$(rank "$2")" ] && [ "$to" != "$2" ]; then
      echo "# $1: $2 includes $name ($to, its sibling)"
    fi
  done
}

: >"${TMPDIR:-/tmp}/msperf-layers.$$"
out=${TMPDIR:-/tmp}/msperf-layers.$$
trap 'rm -f "$out"' EXIT INT TERM

checked=0
for dir in core/*/; do
  layer=$(basename "$dir")
  for f in $(find "$dir" -name '*.[ch]' -o -name '*.cc' | sort); do
    check "$f" "$layer" >>"$out"
    checked=$((checked + 1))
  done
done
for f in include/msperf/*.h include/msperf/*.h.in; do
  [ -f "$f" ] || continue
  check "$f" "$(public "$(basename "$f" .in)")" >>"$out"
  checked=$((checked + 1))
done
cat "$out"
result "no file of core/ or include/msperf/ includes a layer above its own ($checked files)" \
  "$([ -s "$out" ] && echo 1 || echo 0)"

# Modules: their own folder and include/msperf/ only, never the life cycle.
: >"$out"
mods=0
for f in $(find plugins -name '*.[ch]' | sort); do
  d=$(dirname "$f")
  mods=$((mods + 1))
  includes "$f" | while read -r kind name; do
    if [ "$kind" = q ] && [ ! -f "$d/$name" ]; then
      echo "# $f: includes \"$name\", not a header of its folder"
    elif [ "$kind" = a ]; then
      case $name in
        engine.h | msperf.h) echo "# $f: includes <msperf/$name>, the engine's life cycle" ;;
      esac
    fi
  done >>"$out"
done
cat "$out"
result "modules include their own headers and the module API only ($mods files)" \
  "$([ -s "$out" ] && echo 1 || echo 0)"

# The rule is not vacuous: an include going up is caught.
mkdir -p "${out}.d/core/att"
printf '#include "engine/shared.h"\n#include "interp/index.h"\n#include <msperf/host.h>\n' \
  >"${out}.d/core/att/up.c"
bad=$(check "${out}.d/core/att/up.c" att | wc -l)
rm -rf "${out}.d"
result "an att file including the engine, the interp sibling and host.h is caught ($bad of 3)" \
  "$([ "$bad" -eq 3 ] && echo 0 || echo 1)"

echo "1..$n"
[ "$failed" -eq 0 ]
