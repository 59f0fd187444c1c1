#!/bin/sh
# msperf — builds the libFuzzer harnesses (`make fuzz` runs this from a configured build tree).
#
# Usage: build.sh SRCDIR BUILDDIR
# The library sources are compiled again with clang and the fuzzer/ASan/UBSan instrumentation
# (the regular build may use gcc), once into BUILDDIR/tests/fuzz/bin/obj/, then each harness
# is linked into BUILDDIR/tests/fuzz/bin/. Environment: CLANG (default clang), FUZZ_CFLAGS
# (default -O1 -g), FUZZ_SANITIZE (default address,undefined), FUZZERS (names, default all).
set -eu

srcdir=$(cd "$1" && pwd)
builddir=$(cd "$2" && pwd)
CLANG=${CLANG:-clang}
CLANGXX=${CLANGXX:-clang++}
FUZZ_CFLAGS=${FUZZ_CFLAGS:--O1 -g}
FUZZ_SANITIZE=${FUZZ_SANITIZE:-address,undefined}
FUZZERS=${FUZZERS:-"fuzz_csv fuzz_yaml_mapping fuzz_policy fuzz_device fuzz_trace fuzz_perf_table fuzz_att_params fuzz_tri_cache fuzz_model_config fuzz_requests"}
out=$builddir/tests/fuzz/bin
obj=$out/obj

if ! command -v "$CLANG" >/dev/null 2>&1; then
  echo "build.sh: $CLANG not found (install clang and libclang-rt-14-dev)" >&2
  exit 1
fi
if [ ! -f "$builddir/config.h" ]; then
  echo "build.sh: $builddir/config.h missing: run configure first" >&2
  exit 1
fi

pkgs="glib-2.0 json-glib-1.0 yaml-0.1 qhull_r zlib"
pc_cflags=$(pkg-config --cflags $pkgs)
pc_libs="$(pkg-config --libs $pkgs double-conversion) -lcsv -lltdl -lm"

cppflags="-I$builddir -I$builddir/include -I$srcdir/include -I$srcdir/core -I$srcdir/tests -I$srcdir/plugins/cast_att
  -DMSPERF_PLUGINDIR=\"$builddir/plugins\" -DMSPERF_DATADIR=\"$srcdir\"
  -DMSPERF_SRCDIR=\"$srcdir\" -DMSPERF_BUILDDIR=\"$builddir\" -DG_LOG_USE_STRUCTURED=1"
# UBSan findings must stop the fuzzer, not just print.
san="-fsanitize=$FUZZ_SANITIZE -fno-sanitize-recover=all -fno-omit-frame-pointer"

mkdir -p "$obj"
objs=
for src in "$srcdir"/core/base/*.c "$srcdir"/core/io/*.c "$srcdir"/core/interp/*.c \
  "$srcdir"/core/att/*.c "$srcdir"/core/engine/*.c "$srcdir"/core/app/*/*.c; do
  # Every library layer and the app layer; the CLI (core/cli) is not linked into a fuzzer.
  area=$(basename "$(dirname "$src")")
  base=$area-$(basename "$src" .c)
  o=$obj/$base.o
  if [ ! -f "$o" ] || [ "$src" -nt "$o" ]; then
    echo "  CC(fuzz) ${src#"$srcdir"/}"
    # shellcheck disable=SC2086
    $CLANG -std=c11 $FUZZ_CFLAGS $san -fsanitize=fuzzer-no-link $cppflags $pc_cflags \
      -c "$src" -o "$o"
  fi
  objs="$objs $o"
done

# The one C++ file (the libdouble-conversion shim) goes through clang++ with the same flags.
for src in "$srcdir"/core/base/*.cc; do
  o=$obj/base-$(basename "$src" .cc).o
  if [ ! -f "$o" ] || [ "$src" -nt "$o" ]; then
    echo "  CXX(fuzz) core/base/$(basename "$src")"
    # shellcheck disable=SC2086
    $CLANGXX -std=c++11 -fno-exceptions -fno-rtti $FUZZ_CFLAGS $san -fsanitize=fuzzer-no-link \
      $cppflags -c "$src" -o "$o"
  fi
  objs="$objs $o"
done

for f in $FUZZERS; do
  if [ ! -f "$srcdir/tests/fuzz/$f.c" ]; then
    echo "build.sh: no harness $f.c, skipped" >&2
    continue
  fi
  extra=
  case $f in
    # The ATT models live in their modules; the harness links the model sources directly.
    fuzz_att_params) extra="$srcdir/plugins/cast_att/cast_model.c" ;;
  esac
  echo "  CCLD(fuzz) tests/fuzz/bin/$f"
  # shellcheck disable=SC2086
  $CLANG -std=c11 $FUZZ_CFLAGS $san -fsanitize=fuzzer $cppflags $pc_cflags \
    "$srcdir/tests/fuzz/$f.c" $extra $objs $pc_libs -o "$out/$f"
done
