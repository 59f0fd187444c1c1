#!/bin/sh
# CLI tests of guarded extrapolation (doc/formats.md § Extrapolation) on the shipped sample
# database and the demo trace: aten.mm [2048,4096]x[4096,14336] has N 1.75x the measured
# maximum 8192 and becomes EXTRAPOLATED under a policy that allows it; the LM head
# [1,4096]x[4096,128256] (ratio 15.7) stays ANALYTIC with the refusal; without the policy
# nothing changes. TAP output for automake's tap-driver.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TEST_PLUGINDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
# The sample rows under the upstream mapping (Makefile.am, upstream_db): the shipped sample
# database opts in to the settings these tests switch on one by one.
db=$MSPERF_TEST_UPSTREAM_DB
trace=$MSPERF_TOP_SRCDIR/doc/examples/traces/llama3-8b-prefill.jsonl
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

lacks() { if grep -q -- "$2" "$1"; then echo "'$2' in $1"; return 1; fi; }

cat >"$tmp/policy.yaml" <<'YAML'
interpolation:
  allow_extrapolation: true
  extrapolation: {strategy: hold_analytic, max_ratio: 2}
YAML
sed 's/hold_analytic/marginal/' "$tmp/policy.yaml" >"$tmp/marginal.yaml"

run() {  # run POLICY|- OUT [FORMAT]
  pol=$1; out=$2; fmt=${3:-jsonl}
  if [ "$pol" = - ]; then
    "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" estimate --profiling-database "$db" \
      --ops "$trace" --format "$fmt" >"$out" 2>"$tmp/run.err"
  else
    "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" --policy "$pol" estimate \
      --profiling-database "$db" --ops "$trace" --format "$fmt" >"$out" 2>"$tmp/run.err"
  fi
}

line_of() { grep -- "$2" "$1" > "$tmp/line" || { echo "no line with $2"; return 1; }; }

t_extrapolated() {
  run "$tmp/policy.yaml" "$tmp/a.jsonl" || return 1
  line_of "$tmp/a.jsonl" '"input_shapes": \[\[2048, 4096\], \[4096, 14336\]\]' || return 1
  contains "$tmp/line" '"source": "EXTRAPOLATED"' || return 1
  contains "$tmp/line" '"method": "extrapolated_hold_analytic"' || return 1
  contains "$tmp/line" '"confidence": 0.45' || return 1
  contains "$tmp/line" '"clamped": {"M": 2048, "K": 4096, "N": 8192}' || return 1
  contains "$tmp/line" '"ratio": {"M": 1.0, "K": 1.0, "N": 1.75}' || return 1
  contains "$tmp/line" '"inner_latency_us": ' || return 1
  contains "$tmp/line" '"analytic_ratio": ' || return 1
  lacks "$tmp/run.err" 'no effect'
}

t_lm_head_refused() {
  run "$tmp/policy.yaml" "$tmp/a.jsonl" || return 1
  line_of "$tmp/a.jsonl" '"input_shapes": \[\[1, 4096\], \[4096, 128256\]\]' || return 1
  contains "$tmp/line" '"source": "ANALYTIC"' || return 1
  contains "$tmp/line" '"extrapolation_refused": "ratio 15.7 > max_ratio 2 on N"'
}

t_marginal() {
  run "$tmp/marginal.yaml" "$tmp/m.jsonl" || return 1
  line_of "$tmp/m.jsonl" '"input_shapes": \[\[2048, 4096\], \[4096, 14336\]\]' || return 1
  contains "$tmp/line" '"source": "EXTRAPOLATED"' || return 1
  contains "$tmp/line" '"method": "extrapolated_marginal"' || return 1
  contains "$tmp/line" '"fit_points": \[{"N": 8192' || return 1
}

t_off_by_default() {
  run - "$tmp/d.jsonl" || return 1
  lacks "$tmp/d.jsonl" 'EXTRAPOLATED' || return 1
  lacks "$tmp/d.jsonl" 'extrapolation' || return 1
  run - "$tmp/d.txt" table || return 1
  lacks "$tmp/d.txt" 'EXTRAPOLATED'
}

t_summary_counts_it_apart() {
  run "$tmp/policy.yaml" "$tmp/a.txt" table || return 1
  contains "$tmp/a.txt" 'INTERPOLATED [0-9.]*%, EXTRAPOLATED [0-9.]*%,' || return 1
  contains "$tmp/a.txt" 'extrapolated ops: 2 distinct' || return 1
  contains "$tmp/a.txt" '^  EXTRAPOLATED  *96  *2 '
}

t_holdout() {
  "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" holdout --profiling-database "$db" \
    --kernel MatMulV2 --extrapolate-axis N --report "$tmp/h.json" 2>"$tmp/h.err" || return 1
  contains "$tmp/h.json" '"source": "EXTRAPOLATED"' || return 1
  contains "$tmp/h.json" '"method": "extrapolated_hold_analytic"' || return 1
  # the bf16 grid's 112 coordinates at N = 8192 and the fp16 grid's 28 at N = 6144
  [ "$(grep -c '"csv_line": ' "$tmp/h.json")" -eq 140 ] || { echo "expected 140 samples"; return 1; }
  if "$bin" holdout --profiling-database "$db" --extrapolate-axis N --fraction 0.1 2>/dev/null; then
    echo "--extrapolate-axis with --fraction accepted"; return 1
  fi
}

ok "aten.mm N 1.75x the data: EXTRAPOLATED (hold_analytic) with its details" t_extrapolated
ok "LM head N 15.7x: ANALYTIC with extrapolation_refused" t_lm_head_refused
ok "marginal: EXTRAPOLATED through the last two N" t_marginal
ok "without the policy: no EXTRAPOLATED anywhere" t_off_by_default
ok "summary: EXTRAPOLATED share and counts apart from INTERPOLATED" t_summary_counts_it_apart
ok "holdout --extrapolate-axis N: the hidden N values come back EXTRAPOLATED" t_holdout

tap_end
