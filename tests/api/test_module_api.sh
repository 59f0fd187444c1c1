#!/bin/sh
# What a module sees: <msperf/plugin.h> is the module API, and the engine's life cycle
# (include/msperf/engine.h: new, configure, start, query, free) is not reachable from it, so a
# module that calls one fails to compile. Also: every public header's include guard is named
# after its file. TAP output for automake's tap-driver.
set -u

: "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TOP_BUILDDIR:?}"
cc=${MSPERF_TEST_CC:-cc}
cflags="-std=c11 -fsyntax-only -Werror=implicit-function-declaration -Werror=int-conversion
  -I$MSPERF_TOP_SRCDIR/include -I$MSPERF_TOP_BUILDDIR/include ${MSPERF_TEST_GLIB_CFLAGS:-}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
failed=0

result() {  # result DESCRIPTION STATUS
  n=$((n + 1))
  if [ "$2" -eq 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}

# module FILE CALL: a module source whose lookup slot makes CALL.
module() {
  cat >"$1" <<EOC
#include <msperf/plugin.h>

static msperf_status
probe_lookup (msperf_engine *engine, void *state, const msperf_query *query,
              msperf_result *result)
{
  (void) state;
  (void) query;
  (void) result;
  $2;
  return MSPERF_MISS;
}

MSPERF_PLUGIN_DEFINE (.name = "probe", .version = "1", .lookup = probe_lookup);
EOC
}

if ! $cc $cflags -x c /dev/null >/dev/null 2>&1 || [ ! -f "$MSPERF_TOP_BUILDDIR/include/msperf/version.h" ]; then
  echo "1..0 # SKIP no C compiler or no generated version.h"
  exit 0
fi

# A module calling the services compiles: the failures below are the life cycle's.
module "$tmp/services.c" '(void) msperf_engine_table (engine, "MatMulV2", NULL);
  (void) msperf_engine_policy_value (engine, "interpolation.enabled");
  (void) msperf_engine_parallel (engine)'
$cc $cflags "$tmp/services.c" >"$tmp/services.log" 2>&1
st=$?
[ $st -ne 0 ] && sed 's/^/# /' "$tmp/services.log"
result "a module calling the engine's services compiles against <msperf/plugin.h>" "$st"

# Every function of the life cycle header: a module calling it does not compile.
calls=$(sed -n 's/^MSPERF_API [^(]*[^a-zA-Z0-9_]\(msperf_engine_[a-zA-Z0-9_]*\) *(.*/\1/p' \
  "$MSPERF_TOP_SRCDIR/include/msperf/engine.h")
count=0
bad=0
for f in $calls; do
  count=$((count + 1))
  module "$tmp/$f.c" "(void) $f (engine)"
  if $cc $cflags "$tmp/$f.c" >"$tmp/$f.log" 2>&1; then
    echo "# a module calling $f compiled"
    bad=1
  elif ! grep -q "implicit declaration of function .$f" "$tmp/$f.log"; then
    echo "# a module calling $f failed for another reason:"
    sed 's/^/#   /' "$tmp/$f.log"
    bad=1
  fi
done
q=1
[ -f "$tmp/msperf_engine_query.log" ] && grep -q "implicit declaration of function .msperf_engine_query" \
  "$tmp/msperf_engine_query.log" && q=0
result "a module calling msperf_engine_query does not compile (implicit declaration)" "$q"
result "no function of <msperf/engine.h> compiles in a module ($count functions)" \
  "$([ "$count" -ge 5 ] && [ "$bad" -eq 0 ] && echo 0 || echo 1)"

# <msperf/plugin.h> does not include the life cycle header at any depth.
echo '#include <msperf/plugin.h>' >"$tmp/deps.c"
$cc $cflags -M "$tmp/deps.c" 2>/dev/null | tr ' \\' '\n\n' | grep -q 'msperf/engine\.h$'
result "<msperf/plugin.h> does not reach <msperf/engine.h>" "$([ $? -eq 0 ] && echo 1 || echo 0)"

# Include guards named after their files.
bad=0
for h in "$MSPERF_TOP_SRCDIR"/include/msperf/*.h "$MSPERF_TOP_SRCDIR"/include/msperf/*.h.in; do
  [ -f "$h" ] || continue
  b=$(basename "$h" .in)
  want=MSPERF_$(echo "${b%.h}" | tr 'a-z' 'A-Z')_H
  got=$(sed -n 's/^#ifndef \([A-Z0-9_]*\).*/\1/p' "$h" | head -n 1)
  if [ "$got" != "$want" ] || ! grep -q "^#define $want\$" "$h"; then
    echo "# $b: include guard $got, expected $want"
    bad=1
  fi
done
result "every public header's include guard is named after its file" "$bad"

echo "1..$n"
[ "$failed" -eq 0 ]
