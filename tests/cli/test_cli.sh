#!/bin/sh
# CLI tests on real fixtures: exit codes, help, plugins list, estimate on the shipped sample,
# rejected trace lines, validate. TAP output for automake's tap-driver.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TEST_PLUGINDIR:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_FAKEDIR:?}"
bin=$MSPERF_BIN
src=$MSPERF_TOP_SRCDIR
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

db=$src/doc/examples/h200-db
prefill=$src/doc/examples/traces/llama3-8b-prefill.jsonl
decode=$src/doc/examples/traces/llama3-8b-decode.jsonl

t_version() { status_is 0 "$bin" --version && contains "$tmp/cmd.out" "module ABI 2.2"; }
ok "--version exits 0 and names the module ABI" t_version
ok "--version prints the version" sh -c "'$bin' --version | grep -q 'msperf [0-9]'"
ok "--help lists the commands" sh -c "'$bin' --help | grep -q estimate"
ok "estimate --help lists its options" sh -c "'$bin' estimate --help | grep -q -- --profiling-database"
ok "validate --help exits 0" sh -c "'$bin' validate --help >/dev/null"
ok "plugins --help exits 0" sh -c "'$bin' plugins --help >/dev/null"

t_unknown_command() { status_is 2 "$bin" frobnicate && contains "$tmp/cmd.err" "unknown command"; }
ok "unknown command exits 2" t_unknown_command
t_bad_option() { status_is 2 "$bin" estimate --no-such-option; }
ok "unknown option exits 2" t_bad_option
t_bad_format() { status_is 2 "$bin" estimate --format yaml && contains "$tmp/cmd.err" "format"; }
ok "bad --format exits 2" t_bad_format
t_bad_db() { status_is 2 "$bin" estimate --profiling-database "$tmp/nowhere"; }
ok "unreadable database exits 2" t_bad_db
t_no_command() { status_is 2 "$bin"; }
ok "no command exits 2" t_no_command

# A global option after the subcommand is refused with where it belongs (exit 2), for every
# command and every global option; before the subcommand it works. holdout has a --policy of its
# own, which stays its own. A value that looks like -v ("--ops -v") is a value.
t_global_after_command() {
  for c in estimate query summarize merge validate "plugins list" "plugins info" "att cast" \
           "att broadcast" "att duplicate" holdout trace e2e sweep; do
    for o in "--plugins-dir $tmp" "--policy $tmp/p.yaml" "--log-format json" -v --verbose; do
      [ "$c $o" != "holdout --policy $tmp/p.yaml" ] || continue
      # shellcheck disable=SC2086
      status_is 2 "$bin" $c $o || { echo "($c $o)"; return 1; }
      flag=${o%% *}
      grep -q -- "$flag is a global option: put it before the subcommand" "$tmp/cmd.err" ||
        { echo "$c $o:"; cat "$tmp/cmd.err"; return 1; }
    done
  done
  status_is 2 "$bin" holdout --policy "$tmp/p.yaml" || return 1
  ! grep -q "global option" "$tmp/cmd.err" || { echo "holdout's own --policy refused"; return 1; }
  status_is 2 "$bin" estimate --ops -v || return 1
  contains "$tmp/cmd.err" "-v: cannot open" || return 1
  status_is 0 "$bin" --log-format json -v --plugins-dir "$MSPERF_TEST_PLUGINDIR" validate \
    --profiling-database "$db"
}
ok "a global option after the subcommand: refused as a global option (every command, every option)" t_global_after_command

# From the build tree the modules find the shipped data (the ATT cost table, device profiles)
# also when the running program is not a build-tree file: the build's msperf started by the
# dynamic loader (as valgrind starts it), without MSPERF_UNINSTALLED. No module is rejected.
t_build_tree_data() {
  real=$(dirname "$bin")/.libs/msperf
  [ -x "$real" ] || real=$(dirname "$bin")/.libs/lt-msperf
  [ -x "$real" ] || { echo "# skip: no libtool-built msperf next to $bin (a static build)"; return 0; }
  interp=$(readelf -l "$real" 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)]$/\1/p')
  [ -n "$interp" ] && [ -x "$interp" ] || { echo "# skip: no ELF interpreter found"; return 0; }
  lib=$(cd "$(dirname "$bin")" && pwd)/core/.libs
  for c in "plugins list" "att cast --in-dtype float32 --out-dtype float16 --shape 129"; do
    # shellcheck disable=SC2086
    status_is 0 env -u MSPERF_UNINSTALLED -u MSPERF_PLUGIN_PATH LD_LIBRARY_PATH="$lib" \
      "$interp" "$real" $c || return 1
    ! grep -q "rejected\|cannot read\|not found" "$tmp/cmd.err" "$tmp/cmd.out" ||
      { echo "$c:"; cat "$tmp/cmd.err"; return 1; }
  done
  contains "$tmp/cmd.out" "ATT Cast V2"
}
ok "build tree: the ATT cost table is found by a build-tree msperf run by the loader" t_build_tree_data

t_plugins_list() {
  status_is 0 "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" plugins list || return 1
  for m in compute attention_special communication elementwise moe_fused mla field_table broadcast_att cast_att composite; do
    grep -E "^$m +[^ ]+ .*loaded" "$tmp/cmd.out" >/dev/null || { echo "$m not loaded"; cat "$tmp/cmd.out"; return 1; }
  done
}
ok "plugins list shows the ten modules loaded from the build tree" t_plugins_list

t_plugins_bad_abi() {
  mkdir -p "$tmp/bad" && cp "$MSPERF_TEST_FAKEDIR/msperf_fake_bad_abi.so" "$tmp/bad/" || return 1
  status_is 0 "$bin" --plugins-dir "$tmp/bad" --plugins-dir "$MSPERF_TEST_PLUGINDIR" plugins list || return 1
  contains "$tmp/cmd.out" "rejected: ABI 43, expected 2" || return 1
  [ "$(grep -c ' loaded ' "$tmp/cmd.out")" -eq 10 ] || { echo "expected 10 loaded"; cat "$tmp/cmd.out"; return 1; }
  contains "$tmp/cmd.err" "msperf_fake_bad_abi.so"
}
ok "a wrong-ABI module is rejected with its reason while the others load" t_plugins_bad_abi

t_exports() {
  command -v nm >/dev/null || { echo "nm missing"; return 1; }
  for so in "$MSPERF_TEST_PLUGINDIR"/.libs/msperf_*.so; do
    syms=$(nm -D --defined-only "$so" | awk '{print $3}' | tr '\n' ' ')
    [ "$syms" = "msperf_plugin_v1 " ] || { echo "$so exports: $syms"; return 1; }
  done
}
ok "every module exports only msperf_plugin_v1" t_exports

t_plugins_info() {
  status_is 0 "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" plugins info compute && contains "$tmp/cmd.out" "lookup"
}
ok "plugins info compute lists its capabilities" t_plugins_info
t_plugins_info_unknown() { status_is 2 "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" plugins info nosuch; }
ok "plugins info of an unknown module exits 2" t_plugins_info_unknown

t_policy_disables() {
  printf 'modules:\n  cast_att: {enabled: false}\n' >"$tmp/p.yaml"
  status_is 0 "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" --policy "$tmp/p.yaml" plugins list &&
    grep -E '^cast_att .*disabled' "$tmp/cmd.out" >/dev/null
}
ok "a policy disables a module" t_policy_disables
t_policy_bad_key() {
  printf 'interpolation:\n  enabeld: true\n' >"$tmp/bad.yaml"
  status_is 2 "$bin" --policy "$tmp/bad.yaml" estimate && contains "$tmp/cmd.err" "bad.yaml:2"
}
ok "a policy typo is an error naming file and line (exit 2)" t_policy_bad_key

t_estimate_default() {
  status_is 0 "$bin" estimate || return 1
  contains "$tmp/cmd.out" "MatMulV2" && contains "$tmp/cmd.out" "MEASURED" && contains "$tmp/cmd.out" "M1"
}
ok "estimate with no arguments prints the Llama-3-8B table" t_estimate_default

count_ops() { grep -v -e '^#' -e '^[[:space:]]*$' "$1" | wc -l; }

t_jsonl_lines() {
  for tr in "$prefill" "$decode"; do
    status_is 0 "$bin" estimate --ops "$tr" --format jsonl || return 1
    want=$(count_ops "$tr"); got=$(wc -l <"$tmp/cmd.out")
    [ "$want" -eq "$got" ] || { echo "$tr: $got lines, expected $want"; return 1; }
    if grep -v '^{"index": [0-9]*, "op": ".*}$' "$tmp/cmd.out"; then echo "malformed line"; return 1; fi
  done
}
ok "--format jsonl: one JSON line per input op, in order" t_jsonl_lines

t_rejected() {
  printf '%s\n' '{"op": "aten.mm.default", "args": [{"shape": [128, 4096], "dtype": "bfloat16"}, {"shape": [4096, 4096], "dtype": "bfloat16"}]}' \
    '{"op": "aten.mm.default", "args": [{"shape": [128, -1], "dtype": "bfloat16"}]}' \
    'not json' \
    '{"op": "aten.add.Tensor", "args": [{"shape": [4], "dtype": "complex64"}]}' \
    '{"op": "aten.view.default", "args": [{"shape": [4], "dtype": "float32"}]}' >"$tmp/t.jsonl"
  status_is 1 "$bin" estimate --ops "$tmp/t.jsonl" --format jsonl || return 1
  [ "$(wc -l <"$tmp/cmd.out")" -eq 5 ] || { echo "expected 5 lines"; cat "$tmp/cmd.out"; return 1; }
  [ "$(grep -c '"source": "REJECTED"' "$tmp/cmd.out")" -eq 3 ] || { cat "$tmp/cmd.out"; return 1; }
  contains "$tmp/cmd.err" "t.jsonl:2:" && contains "$tmp/cmd.err" "t.jsonl:3:" && contains "$tmp/cmd.err" "t.jsonl:4:" || return 1
  sed -n 5p "$tmp/cmd.out" | grep -q '"source": "MEASURED"'
}
ok "bad trace lines are REJECTED with file:line, the others answered (exit 1)" t_rejected

t_strict() {
  status_is 1 "$bin" estimate --ops "$tmp/t.jsonl" --format jsonl --strict &&
    [ "$(wc -l <"$tmp/cmd.out")" -eq 2 ]
}
ok "--strict stops at the first rejected line" t_strict

t_tp2_all_reduce() {
  tp2=$src/doc/examples/traces/llama3-8b-prefill-tp2.jsonl
  status_is 0 "$bin" estimate --ops "$tp2" --tp-size 2 --format jsonl || return 1
  [ "$(wc -l <"$tmp/cmd.out")" -eq "$(count_ops "$tp2")" ] || return 1
  grep '"op": "tensor_cast.all_reduce.default"' "$tmp/cmd.out" | grep '"source": "ANALYTIC"' |
    grep '"method": "roofline"' | grep -q '"miss_reason": "csv_not_found"' || { cat "$tmp/cmd.out"; return 1; }
}
ok "TP=2 sample: each all_reduce is ANALYTIC (ring model) with csv_not_found" t_tp2_all_reduce

t_att_in_trace() {
  att=$src/tests/data/att/cast_trace.jsonl
  status_is 0 "$bin" estimate --ops "$att" --device-profile ascend-a3 --format jsonl || return 1
  [ "$(grep -c '"method": "att"' "$tmp/cmd.out")" -eq "$(count_ops "$att")" ] || { cat "$tmp/cmd.out"; return 1; }
  status_is 0 "$bin" estimate --ops "$att" --format jsonl || return 1
  grep -q '"miss_reason": "no_vector_clock"' "$tmp/cmd.out"
}
ok "ATT trace lines go to the cast_att model (no clock: no_vector_clock)" t_att_in_trace

t_stdin() {
  head -n 1 "$tmp/t.jsonl" | "$bin" estimate --ops - --format jsonl >"$tmp/s.out" 2>/dev/null &&
    grep -q '"index": 0' "$tmp/s.out"
}
ok "--ops - reads stdin" t_stdin

t_analytic_only() {
  status_is 0 "$bin" estimate --performance-model analytic --format jsonl --ops "$prefill" || return 1
  if grep -v '"source": "ANALYTIC"' "$tmp/cmd.out"; then return 1; fi
}
ok "--performance-model analytic answers every op with the roofline" t_analytic_only

t_both_models() {
  status_is 0 "$bin" estimate --performance-model analytic profiling && contains "$tmp/cmd.out" "analytic"
}
ok "--performance-model analytic profiling (upstream list form)" t_both_models

t_query() {
  status_is 0 "$bin" query --op '{"op":"aten.mm.default","args":[{"shape":[1,256],"dtype":"bfloat16"},{"shape":[256,256],"dtype":"bfloat16"}]}' &&
    contains "$tmp/cmd.out" '"source": "MEASURED"' && contains "$tmp/cmd.out" '"latency_us": 2.6338'
}
ok "query --op answers one op (first MatMulV2 row, 2.6338 us)" t_query

t_outputs() {
  status_is 0 "$bin" estimate --export-empirical-metrics "$tmp/m.json" --chrome-trace "$tmp/t.json" \
    --report "$tmp/r.html" --format json || return 1
  contains "$tmp/m.json" '"m1"' && contains "$tmp/t.json" '"traceEvents"' && contains "$tmp/r.html" '<svg' &&
    contains "$tmp/cmd.out" '"policy_hash"'
}
ok "metrics, chrome trace, html report and json outputs are written" t_outputs

t_validate_sample() { status_is 0 "$bin" validate --profiling-database "$db"; }
ok "validate exits 0 on the sample database" t_validate_sample

t_validate_ascend() {
  d=$src/tests/data/database/ascend
  [ -d "$d" ] || { echo "no ascend fixtures"; return 1; }
  for v in "$d"/*/; do
    status_is 1 "$bin" validate --profiling-database "$v" || return 1
    contains "$tmp/cmd.out" ".csv" || return 1
  done
}
ok "validate reports the missing CSVs of the real Ascend mappings" t_validate_ascend

t_stray_argument() {
  for c in trace e2e sweep serve accuracy; do
    status_is 2 "$bin" "$c" stray || return 1
    contains "$tmp/cmd.err" "msperf $c: unexpected argument 'stray'" || return 1
    [ ! -s "$tmp/cmd.out" ] || { echo "$c printed output"; return 1; }
  done
}
ok "the model commands refuse a stray argument (exit 2, named)" t_stray_argument

tap_end
