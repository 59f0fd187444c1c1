#!/bin/sh
# CLI test of the shipped H200 database's mapping coverage: `msperf mapping check
# --require-coverage` on prefill and decode traces (bf16, fp8, fp8_block; TP 2) of the model
# configs in tests/data/models/configs and, when present, ../shared/data/models beside the source
# tree (or MSPERF_MODELS_DIR). Asserts the exit status against the report and that every op the
# elementwise proxies answer (doc/h200-database.md) is mapped and answered from data.
# TAP output for automake's tap-driver.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TEST_PLUGINDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
top=$MSPERF_TOP_SRCDIR
db=$top/data/nvidia-h200
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

# The ops the mapping may still leave unmapped (answered by the roofline). Empty it once every
# template op is mapped: the tests below then require `mapping check --require-coverage` to
# pass with nothing unmapped.
allowed_unmapped=""

# The memory-bound proxies of the sample database's elementwise rows.
proxies="aten.embedding.default aten.index.Tensor tensor_cast.apply_rope.default aten.topk.default
tensor_cast.init_routing_v2.default tensor_cast.unpermute_tokens.default aten.sum.dim_IntList
aten.sigmoid.default"

skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

msperf() { "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" "$@"; }

# check TAG: the coverage report and --require-coverage's status on the TAG traces
check() {
  set -- "$1" "$(for f in "$tmp/$1"-*.jsonl; do printf ' --ops %s' "$f"; done)"
  # shellcheck disable=SC2086
  msperf mapping check --database "$db" $2 >"$tmp/$1.report" 2>&1 || return 1
  # shellcheck disable=SC2086
  msperf mapping check --database "$db" --require-coverage $2 >/dev/null 2>"$tmp/$1.req"
  echo $? >"$tmp/$1.status"
}

# The exit status says what the report says; nothing outside allowed_unmapped is unmapped.
t_status() {
  r=$tmp/$1.report
  grep -q "^schema: 0 problem(s); lookup: 0 problem(s)" "$r" || { cat "$r"; return 1; }
  unmapped=$(sed -n 's/^coverage: .*roofline: \(.*\))$/\1/p' "$r")
  for op in $unmapped; do
    case " $(echo $allowed_unmapped) " in
      *" $op "*) ;;
      *) echo "unmapped: $op"; return 1 ;;
    esac
    grep -q "coverage: operator '$op' of the traces is not mapped" "$tmp/$1.req" ||
      { cat "$tmp/$1.req"; return 1; }
  done
  if [ -n "$unmapped" ]; then
    [ "$(cat "$tmp/$1.status")" -eq 1 ]
  else
    grep -q "^coverage: \([0-9]*\) of \1 op(s) of the traces mapped$" "$r" &&
      [ "$(cat "$tmp/$1.status")" -eq 0 ]
  fi
}

# Every proxy op of the traces is mapped to the unary Silu rows and answered from data
# (measured + interpolated > 0); the sample's traces carry each of them.
t_proxies() {
  r=$tmp/$1.report
  for op in $proxies; do
    line=$(grep "^$op " "$r") || { echo "$op not in the traces"; return 1; }
    echo "$line" | awk '$2 == "elementwise" && $3 == "Silu" && $5 + $6 > 0 { ok = 1 }
                        END { exit !ok }' || { echo "$line"; return 1; }
  done
}

# A proxy that is not in the mapping is reported unmapped and fails --require-coverage: the
# assertions above can fail.
t_can_fail() {
  mkdir -p "$tmp/cut" &&
  for f in "$db"/*; do ln -s "$f" "$tmp/cut/"; done &&
  rm "$tmp/cut/op_mapping.yaml" &&
  awk '/^  "aten.sigmoid.default":/ { skip = 1; next } skip && /^  "/ { skip = 0 } !skip' \
    "$db/op_mapping.yaml" >"$tmp/cut/op_mapping.yaml" &&
  ! grep -q sigmoid "$tmp/cut/op_mapping.yaml" || return 1
  set -- "$(for f in "$tmp"/local-*.jsonl; do printf ' --ops %s' "$f"; done)"
  # shellcheck disable=SC2086
  msperf mapping check --database "$tmp/cut" --require-coverage $1 >"$tmp/cut.out" 2>"$tmp/cut.err"
  [ $? -eq 1 ] &&
    grep -q "coverage: operator 'aten.sigmoid.default' of the traces is not mapped" "$tmp/cut.err"
}

local_cfgs=$top/tests/data/models/configs
if model_traces "$local_cfgs" local && check local; then
  ok "coverage: the shipped H200 mapping leaves nothing but the allowed ops unmapped (test configs)" \
    t_status local
  ok "coverage: every proxy op of the test configs is answered from Silu rows" t_proxies local
  ok "coverage: --require-coverage fails naming an op removed from the mapping" t_can_fail
else
  cat "$tmp/trace.err"
  ok "coverage: tracing the test configs" false
fi

models=${MSPERF_MODELS_DIR:-$top/../shared/data/models}
if [ -d "$models" ]; then
  if model_traces "$models" shared && check shared; then
    ok "coverage: the shipped H200 mapping leaves nothing but the allowed ops unmapped (every model)" \
      t_status shared
  else
    cat "$tmp/trace.err"
    ok "coverage: tracing the models of $models" false
  fi
else
  skip "model configs not found at $models (set MSPERF_MODELS_DIR)"
fi

tap_end
