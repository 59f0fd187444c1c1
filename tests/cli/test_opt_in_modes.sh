#!/bin/sh
# CLI tests of the opt-in interpolation paths (elementwise, moe_fused, composite parts): opt-in
# by policy on the shipped sample database and demo trace; without the policy the answers are
# the exact ones. TAP output for automake's tap-driver.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TEST_PLUGINDIR:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_DATADIR:?}"
bin=$MSPERF_BIN
# The sample rows under the upstream mapping (Makefile.am, upstream_db): the shipped sample
# database opts in to the settings these tests switch on one by one.
db=$MSPERF_TEST_UPSTREAM_DB
trace=$MSPERF_TOP_SRCDIR/doc/examples/traces/llama3-8b-prefill.jsonl
policy=$MSPERF_TEST_DATADIR/elementwise/opt-in-policy.yaml
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

msperf() { "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" "$@"; }

# line_of FILE OP: the JSON line answering OP.
line_of() { grep -- "\"op\": \"$2\"" "$1"; }

t_elementwise_opt_in() {
  status_is 0 msperf --policy "$policy" estimate --profiling-database "$db" --ops "$trace" \
    --format jsonl || return 1
  for op in aten.add.Tensor aten.silu.default aten.mul.Tensor; do
    line_of "$tmp/cmd.out" "$op" > "$tmp/line" || { echo "$op not answered"; return 1; }
    contains "$tmp/line" '"source": "INTERPOLATED"' || return 1
    contains "$tmp/line" '"method": "linear_1d"' || return 1
    contains "$tmp/line" '"axes": {"output_numel": ' || return 1
    contains "$tmp/line" '|elementwise|same-shape|' || return 1
    contains "$tmp/line" '"base_reason": "elementwise_output_shape_mismatch"' || return 1
  done
  # the add: 8388608 elements between the BF16 rows 4194304 and 16777216 of Add.csv
  line_of "$tmp/cmd.out" aten.add.Tensor | grep -q '"axis_boundary": {"output_numel": \[4194304, 16777216\]}'
}
ok "opt-in policy: the demo's add, silu and mul are INTERPOLATED along output_numel" t_elementwise_opt_in

t_elementwise_default() {
  status_is 0 msperf estimate --profiling-database "$db" --ops "$trace" --format jsonl || return 1
  for op in aten.add.Tensor aten.silu.default aten.mul.Tensor; do
    line_of "$tmp/cmd.out" "$op" > "$tmp/line" || return 1
    contains "$tmp/line" '"source": "ANALYTIC"' || return 1
    contains "$tmp/line" '"miss_reason": "elementwise_output_shape_mismatch"' || return 1
  done
}
ok "default policy: the same ops stay ANALYTIC with the exact miss reason" t_elementwise_default

t_holdout_elementwise() {
  status_is 0 msperf --policy "$policy" holdout --profiling-database "$db" --kernel Add \
    --kernel Mul --kernel Silu || return 1
  for k in Add Mul Silu; do contains "$tmp/cmd.out" "^$k " || return 1; done
  # 20 rows each; the two ends of each dtype's grid cannot be bracketed
  grep "^Add  *all" "$tmp/cmd.out" | grep -q ' 20  *16 ' || { cat "$tmp/cmd.out"; return 1; }
  status_is 2 msperf holdout --profiling-database "$db" --kernel Add
}
ok "holdout covers elementwise kernels only when the mode is interpolated" t_holdout_elementwise

tap_end
