#!/bin/sh
# The bad-input corpus of the model-level commands (tests/data/bad/commands/CASES) through the
# real CLI: every malformed file ends with its exit status and its FILE:LINE message, with no
# crash (a signal), no sanitizer or valgrind report and, for import, nothing left beside the
# output. scripts/ci-extra.sh runs it under ASan/UBSan and valgrind. TAP.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}"
bin="$MSPERF_BIN --plugins-dir $MSPERF_TEST_PLUGINDIR"
src=$MSPERF_TOP_SRCDIR
corpus=$src/tests/data/bad/commands
configs=$src/tests/data/models/configs
llama=$configs/meta-llama--Meta-Llama-3.1-8B.json
gemm_rel=gemm/trtllm-1.3.0rc20/gemm_perf.csv
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

[ -f "$corpus/CASES" ] || { echo "1..0 # SKIP no $corpus/CASES"; exit 0; }

# run_case FILE: the case's command; stdout and stderr in $tmp/out, $tmp/err
run_case() {
  f=$corpus/$1
  case $1 in
    model-*) $bin trace --model "$f" ;;
    requests-*) $bin serve --model "$llama" --requests "$f" --format csv ;;
    silicon-*) $bin accuracy --silicon "$f" --models-dir "$configs" --jobs 1 \
                 --requests-per-client 2 --format csv ;;
    deployments-*) $bin accuracy --silicon "$src/tests/data/silicon-published/silicon_rows.csv" \
                     --models-dir "$configs" --deployments "$f" --jobs 1 --requests-per-client 2 \
                     --format csv ;;
    import-*)
      rm -rf "$tmp/imp" && mkdir -p "$tmp/imp/tables/${gemm_rel%/*}" "$tmp/imp/out"
      cp "$src/tests/data/import/LICENSE" "$tmp/imp/LICENSE"
      cp "$f" "$tmp/imp/tables/$gemm_rel"
      $bin import aiconfigurator "$tmp/imp/tables" --out "$tmp/imp/out/db" ;;
    *) echo "no command for $1" >&2; return 125 ;;
  esac
}

check() {  # check FILE EXIT FRAGMENT
  run_case "$1" >"$tmp/out" 2>"$tmp/err"
  got=$?
  [ "$got" -eq "$2" ] || { echo "exit $got, expected $2"; head -n 20 "$tmp/err"; return 1; }
  grep -qF -- "$3" "$tmp/err" || { echo "'$3' not on stderr:"; head -n 20 "$tmp/err"; return 1; }
  if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|==[0-9]+== |Invalid (read|write)|definitely lost' "$tmp/err"; then
    echo "sanitizer or valgrind report:"; head -n 40 "$tmp/err"; return 1
  fi
  case $1 in
    import-*) [ -z "$(ls -A "$tmp/imp/out")" ] || { echo "left behind:"; ls -A "$tmp/imp/out"; return 1; } ;;
  esac
}

grep -v '^#' "$corpus/CASES" | grep -v '^$' > "$tmp/cases"
while IFS='|' read -r file want fragment; do
  n=$((n + 1))
  if check "$file" "$want" "$fragment" >"$tmp/why" 2>&1; then
    echo "ok $n - bad input $file: exit $want, FILE:LINE message, no crash"
  else
    echo "not ok $n - bad input $file: exit $want, FILE:LINE message, no crash"
    sed 's/^/# /' "$tmp/why"
    failed=$((failed + 1))
  fi
done < "$tmp/cases"

tap_end
