#!/bin/sh
# CLI tests of `msperf holdout` (FORMATS §5, §5.2) on the shipped sample database: a seeded
# 5 % of the MatMulV2 coordinates, the report keys in json / md / html, the text summary and
# the usage errors. TAP output for automake's tap-driver.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
# The sample rows under the upstream mapping (Makefile.am, upstream_db): the shipped sample
# database opts in to the settings these tests switch on one by one.
db=$MSPERF_TEST_UPSTREAM_DB
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

holdout() { "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" holdout "$@"; }

t_json() {
  status_is 0 holdout --profiling-database "$db" --kernel MatMulV2 --fraction 0.05 --seed 1 \
    --report "$tmp/h.json" || return 1
  for key in '"schema_version": 1' '"selection": "fraction"' '"seed": 1' '"fraction": 0.05' \
      '"kernels": \[' '"kernel": "MatMulV2"' '"samples": ' '"recovered": ' '"coverage": ' \
      '"median_rel_error": ' '"p90_rel_error": ' '"max_rel_error": ' '"by_dim": \[' \
      '"dim": 1' '"axes": {' '"measured_us": ' '"interpolated_us": ' '"abs_error_us": ' \
      '"rel_error": ' '"source": ' '"confidence": ' '"method": ' '"candidate_count": '; do
    contains "$tmp/h.json" "$key" || return 1
  done
  # ceil(0.05 · 1008 coordinates) = 51 samples, and nothing from the other kernels
  [ "$(grep -c '"csv_line": ' "$tmp/h.json")" -eq 51 ] || { echo "expected 51 samples"; return 1; }
  if grep -q '"kernel": "BatchMatMulV2"' "$tmp/h.json"; then echo "other kernel held out"; return 1; fi
}
ok "holdout --kernel MatMulV2 --fraction 0.05 --seed 1 writes the json report keys" t_json

t_same_seed() {
  holdout --profiling-database "$db" --kernel MatMulV2 --fraction 0.05 --seed 1 \
    --report "$tmp/again.json" 2>/dev/null || return 1
  cmp -s "$tmp/h.json" "$tmp/again.json" || { echo "same seed, different report"; return 1; }
}
ok "the same seed draws the same coordinates" t_same_seed

t_md_html() {
  status_is 0 holdout --profiling-database "$db" --kernel MatMulV2 --fraction 0.05 --seed 1 \
    --report "$tmp/h.md" || return 1
  contains "$tmp/h.md" "| kernel | method | samples | recovered | coverage | median rel. error | p90 | max | confidence |" &&
  contains "$tmp/h.md" '| MatMulV2 | linear\\_1d | 51 | 51 | 100.00% | 2.34% | 13.65% | 31.58% | 0.70 |' &&
  contains "$tmp/h.md" "## Confidence table" &&
  contains "$tmp/h.md" "| MatMulV2 | all | 51 |" &&
  status_is 0 holdout --profiling-database "$db" --kernel MatMulV2 --fraction 0.05 --seed 1 \
    --report "$tmp/h.html" &&
  contains "$tmp/h.html" "<svg" && contains "$tmp/h.html" "Interpolated vs measured"
}
ok "md and html reports by extension" t_md_html

t_summary() {
  status_is 0 holdout --profiling-database "$db" --kernel MatMulV2 --fraction 0.05 --seed 1 &&
  contains "$tmp/cmd.out" "MatMulV2" && contains "$tmp/cmd.out" "median" &&
  # no progress bar when stderr is not a terminal
  if grep -q 'msperf holdout: \[' "$tmp/cmd.err"; then echo "progress on a pipe"; return 1; fi
}
ok "without --report a text summary on stdout" t_summary

t_usage() {
  status_is 2 holdout --kernel MatMulV2 && contains "$tmp/cmd.err" "profiling-database" &&
  status_is 2 holdout --profiling-database "$db" --fraction 0.5 --leave-one-out &&
  status_is 2 holdout --profiling-database "$db" --fraction 2 &&
  status_is 2 holdout --profiling-database "$db" --kernel NoSuchKernel &&
  contains "$tmp/cmd.err" "NoSuchKernel" &&
  status_is 2 holdout --profiling-database "$db" --kernel MatMulV2 --fraction 0.05 \
    --report "$tmp/h.txt"
}
ok "usage errors exit 2" t_usage

t_help() { "$bin" holdout --help | grep -q -- --leave-one-out && "$bin" --help | grep -q holdout; }
ok "holdout --help and the command list" t_help

# Golden numbers: `msperf holdout --leave-one-out` on doc/examples/h200-db (as of
# 61a9f42): BatchMatMulV2 all 1264/1302 at 3.11 % / 11.13 % / 26.91 %, of them 1-D 1258 at
# 3.08 % / 11.00 % / 26.91 % and 2-D 6 at 21.79 % / 22.77 % / 23.05 %.
t_methods() {
  status_is 0 holdout --profiling-database "$db" --kernel BatchMatMulV2 || return 1
  contains "$tmp/cmd.out" "BatchMatMulV2                all                      1302      1264    97.08%     3.11%    11.13%    26.91%  0.65-0.70" &&
  contains "$tmp/cmd.out" "BatchMatMulV2                linear_1d                1302      1258    96.62%     3.08%    11.00%    26.91%       0.70" &&
  contains "$tmp/cmd.out" "BatchMatMulV2                griddata_2d              1302         6     0.46%    21.79%    22.77%    23.05%       0.65" &&
  contains "$tmp/cmd.out" "confidence table: linear_1d 0.70, griddata_2d 0.65, griddata_3d 0.60"
}
ok "per kernel and method with the confidence label (the golden numbers)" t_methods

t_compare() {
  status_is 0 holdout --profiling-database "$db" --kernel BatchMatMulV2 --compare dim1,dim3 || return 1
  contains "$tmp/cmd.out" "dim1         interpolation.max_interpolation_dim=1" &&
  contains "$tmp/cmd.out" "dim3         interpolation.max_interpolation_dim=3 (policy hash 59d3afbab4c4)" &&
  contains "$tmp/cmd.out" "all                  |   1258/1302    3.08%   11.00%   26.91%      0.70 |   1264/1302    3.11%   11.13%   26.91% 0.65-0.70 |" &&
  contains "$tmp/cmd.out" "linear_1d            |   1258/1302    3.08%   11.00%   26.91%      0.70 |   1258/1302    3.08%   11.00%   26.91%      0.70 |" &&
  contains "$tmp/cmd.out" "griddata_2d          |           -        -        -        -         - |      6/1302   21.79%   22.77%   23.05%      0.65 |"
}
ok "--compare dim1,dim3: one table per kernel, a column group per variant" t_compare

t_variant() {
  status_is 0 holdout --profiling-database "$db" --kernel BatchMatMulV2 --compare default \
    --variant 'low:confidence.griddata_2d=0.4,max_interpolation_dim=2' \
    --report "$tmp/c.json" || return 1
  contains "$tmp/cmd.err" "low          confidence.griddata_2d=0.4, interpolation.max_interpolation_dim=2" &&
  contains "$tmp/cmd.err" "griddata_2d          |      6/1302   21.79%   22.77%   23.05%      0.65 |      6/1302   21.79%   22.77%   23.05%      0.40 |" &&
  contains "$tmp/c.json" '"comparison": true' && contains "$tmp/c.json" '"variant": "low"' &&
  contains "$tmp/c.json" '"confidence.griddata_2d": "0.4"' && contains "$tmp/c.json" '"by_method": \[' &&
  status_is 0 holdout --profiling-database "$db" --kernel MatMulV2 --fraction 0.05 --seed 1 \
    --compare dim1,dim3 --report "$tmp/c.md" &&
  contains "$tmp/c.md" "| method | dim1 recovered | dim1 median |" &&
  contains "$tmp/c.md" '| linear\\_1d | 51/51 | 2.34% | 13.65% | 31.58% | 0.70 | 51/51 | 2.34% |' &&
  status_is 0 holdout --profiling-database "$db" --kernel MatMulV2 --fraction 0.05 --seed 1 \
    --compare dim1,dim3 --report "$tmp/c.html" && contains "$tmp/c.html" '<th colspan="5">dim3</th>'
}
ok "--variant NAME:key=value with --report json / md / html" t_variant

t_policy() {
  printf 'confidence:\n  linear_1d: 0.55\n' >"$tmp/p.yaml"
  status_is 0 holdout --profiling-database "$db" --kernel MatMulV2 --fraction 0.05 --seed 1 \
    --policy "$tmp/p.yaml" &&
  contains "$tmp/cmd.out" "MatMulV2                     linear_1d                  51        51   100.00%     2.34%    13.65%    31.58%       0.55" &&
  contains "$tmp/cmd.out" "linear_1d 0.55\*" &&
  printf 'confidence:\n  linear_1d: 7\n' >"$tmp/bad.yaml" &&
  status_is 2 holdout --profiling-database "$db" --policy "$tmp/bad.yaml" &&
  contains "$tmp/cmd.err" "bad.yaml:2: key 'confidence.linear_1d': expected a number from 0 to 1"
}
ok "holdout --policy FILE: the confidence table from the policy, bad values with FILE:LINE" t_policy

t_variant_errors() {
  status_is 2 holdout --profiling-database "$db" --compare dim1,cubic &&
  contains "$tmp/cmd.err" "unknown variant 'cubic'" &&
  status_is 2 holdout --profiling-database "$db" --variant 'x:nokey' &&
  contains "$tmp/cmd.err" "is not key=value" &&
  status_is 2 holdout --profiling-database "$db" --compare dim1 --variant 'dim1:aggregate=mean' &&
  contains "$tmp/cmd.err" "given twice" &&
  status_is 2 holdout --profiling-database "$db" --variant 'x:no_such_key=1' &&
  contains "$tmp/cmd.err" "variant 'x': command line: unknown key 'no_such_key' in 'interpolation'" &&
  status_is 2 holdout --profiling-database "$db" --hide-axis-max 1 &&
  contains "$tmp/cmd.err" "unknown option --hide-axis-max"
}
ok "variant usage errors exit 2" t_variant_errors

tap_end
