#!/bin/sh
# CLI tests of the shipped sample database's opt-in settings (doc/examples/h200-db/SOURCE.md):
# the demo (`bootstrap.sh demo`: `msperf estimate` on the Llama-3-8B prefill trace) answers
# from data what the data covers — elementwise ops interpolated, the GEMMs one grid step past
# the data extrapolated — and keeps the roofline for what it does not, with the reason.
# TAP output for automake's tap-driver.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TEST_PLUGINDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
db=$MSPERF_TOP_SRCDIR/doc/examples/h200-db
trace=$MSPERF_TOP_SRCDIR/doc/examples/traces/llama3-8b-prefill.jsonl
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

msperf() { "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" "$@"; }

# One JSON Lines record per distinct op of the demo; the field of the record for OP with
# first input SHAPE, via a grep on the record's own text (no JSON tool needed).
msperf estimate --profiling-database "$db" --ops "$trace" --format jsonl >"$tmp/demo.jsonl" \
  2>/dev/null
msperf estimate --profiling-database "$db" --ops "$trace" >"$tmp/demo.txt" 2>/dev/null

record() { grep -F "\"op\": \"$1\"" "$tmp/demo.jsonl" | grep -F "\"input_shapes\": [$2" ; }

t_shares() {
  # "answered: MEASURED a%, INTERPOLATED b%, EXTRAPOLATED c%, PARTIAL d%, ANALYTIC e%"
  analytic=$(sed -n 's/.*ANALYTIC \([0-9.]*\)%.*/\1/p' "$tmp/demo.txt" | head -n 1)
  [ -n "$analytic" ] || { echo "no ANALYTIC share in the headline"; return 1; }
  awk -v a="$analytic" 'BEGIN { exit !(a <= 10.0) }' ||
    { echo "analytic share $analytic% > 10%"; head -n 12 "$tmp/demo.txt"; return 1; }
}
ok "demo: the roofline answers at most 10 % of the total" t_shares

t_extrapolated() {
  r=$(record aten.mm.default "[2048, 4096], [4096, 14336]") &&
  echo "$r" | grep -q '"source": "EXTRAPOLATED"' &&
  echo "$r" | grep -q '"method": "extrapolated_hold_analytic"' &&
  echo "$r" | grep -q '"ratio": {[^}]*"N": 1.75' ||
    { echo "mm N=14336 not extrapolated: $r"; return 1; }
}
ok "demo: the N = 14336 GEMM (1.75 x the largest N) is EXTRAPOLATED by hold_analytic" \
  t_extrapolated

t_refused() {
  r=$(record aten.mm.default "[1, 4096], [4096, 128256]") &&
  echo "$r" | grep -q '"source": "ANALYTIC"' &&
  echo "$r" | grep -q 'ratio 15.7 > max_ratio 2 on N' ||
    { echo "LM head not refused: $r"; return 1; }
}
ok "demo: the LM head (15.7 x the largest N) stays ANALYTIC with the refusal" t_refused

t_elementwise() {
  for op in aten.add.Tensor aten.silu.default aten.mul.Tensor; do
    grep -F "\"op\": \"$op\"" "$tmp/demo.jsonl" | grep -q '"source": "INTERPOLATED"' ||
      { echo "$op not interpolated"; return 1; }
  done
}
ok "demo: elementwise ops interpolated along output_numel" t_elementwise

t_log_attention() {
  # A decode context between two measured ones (4096, 8192), answered in log space.
  printf '%s\n' '{"op": "tensor_cast.attention.default", "args": [{"shape": [4, 32, 1, 128], "dtype": "bfloat16"}, {"shape": [4, 8, 6000, 128], "dtype": "bfloat16"}, {"shape": [4, 8, 6000, 128], "dtype": "bfloat16"}, null, null, null, {"shape": [4], "dtype": "int64", "values": [6000, 6000, 6000, 6000]}, {"shape": [4], "dtype": "int64", "values": [1, 1, 1, 1]}], "out": [{"shape": [4, 32, 1, 128], "dtype": "bfloat16"}]}' \
    >"$tmp/decode.jsonl"
  msperf estimate --profiling-database "$db" --ops "$tmp/decode.jsonl" --format jsonl \
    >"$tmp/decode.out" 2>"$tmp/decode.err" &&
  grep -q '"source": "INTERPOLATED"' "$tmp/decode.out" &&
  grep -q '"space": "log"' "$tmp/decode.out" ||
    { cat "$tmp/decode.out" "$tmp/decode.err"; return 1; }
}
ok "attention decode between measured contexts: INTERPOLATED in log space" t_log_attention

tap_end
