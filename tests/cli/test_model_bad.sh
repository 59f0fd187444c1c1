#!/bin/sh
# Malformed model configs (the model-* cases of tests/data/bad/commands/CASES: missing, zero,
# negative, absurd and mistyped fields, text_config mistyped or nested past its bound) through
# every command that reads one — trace, e2e, serve, recommend: each is refused with exit 2 and
# the same CONFIG:LINE: field message, before any work, and nothing is printed on stdout. A
# config whose text_config wraps a valid model (three levels) is read through it. TAP.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}"
bin="$MSPERF_BIN --plugins-dir $MSPERF_TEST_PLUGINDIR"
src=$MSPERF_TOP_SRCDIR
corpus=$src/tests/data/bad/commands
llama=$src/tests/data/models/configs/meta-llama--Meta-Llama-3.1-8B.json
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

[ -f "$corpus/CASES" ] || { echo "1..0 # SKIP no $corpus/CASES"; exit 0; }

refused_by_all() {  # refused_by_all FILE FRAGMENT
  for cmd in "trace" "e2e --isl 128 --osl 8" "serve --format csv --num-requests 4" \
             "recommend --gpus 8 --isl 512 --osl 64 --no-cache"; do
    # shellcheck disable=SC2086
    $bin $cmd --model "$corpus/$1" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" -eq 2 ] || { echo "$cmd: exit $got, expected 2"; head -n 20 "$tmp/err"; return 1; }
    grep -qF -- "$2" "$tmp/err" || { echo "$cmd: '$2' not on stderr:"; cat "$tmp/err"; return 1; }
    [ ! -s "$tmp/out" ] || { echo "$cmd: output printed:"; head "$tmp/out"; return 1; }
    ! grep -qE 'AddressSanitizer|runtime error:|==[0-9]+== ' "$tmp/err" || { cat "$tmp/err"; return 1; }
  done
}

grep '^model-' "$corpus/CASES" > "$tmp/cases"
while IFS='|' read -r file want fragment; do
  n=$((n + 1))
  if refused_by_all "$file" "$fragment" >"$tmp/why" 2>&1; then
    echo "ok $n - $file: trace, e2e, serve, recommend refuse it (exit 2, '$fragment')"
  else
    echo "not ok $n - $file: trace, e2e, serve, recommend refuse it (exit 2, '$fragment')"
    sed 's/^/# /' "$tmp/why"
    failed=$((failed + 1))
  fi
done < "$tmp/cases"

t_wrapped() {
  # a wrapper nesting the valid model three levels deep is the model itself
  { printf '{"architectures": ["LlamaForCausalLM"], "text_config":\n'
    printf '{"architectures": ["LlamaForCausalLM"], "text_config":\n'
    printf '{"architectures": ["LlamaForCausalLM"], "text_config":\n'
    cat "$llama"; echo '}}}'; } > "$tmp/wrapped.json"
  $bin trace --model "$tmp/wrapped.json" | grep -v '^#' > "$tmp/a" || return 1
  $bin trace --model "$llama" | grep -v '^#' > "$tmp/b" || return 1
  [ -s "$tmp/a" ] && cmp "$tmp/a" "$tmp/b"
}
n=$((n + 1))
if t_wrapped >"$tmp/why" 2>&1; then
  echo "ok $n - a valid model wrapped in three text_config levels gives the same trace"
else
  echo "not ok $n - a valid model wrapped in three text_config levels gives the same trace"
  sed 's/^/# /' "$tmp/why"
  failed=$((failed + 1))
fi

tap_end
