#!/bin/sh
# CLI tests of the field_table query mode (plugins/field_table) on the fixture
# tests/data/field_table: a fused-MoE table whose rows differ by named fields (num_experts,
# moe_tp, moe_ep, topk, distribution, quant) besides their tensors. Exact rows are MEASURED,
# token counts between rows of the same fields INTERPOLATED, other fields never stand in.
# TAP output for automake's tap-driver.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}" "${MSPERF_TEST_DATADIR:?}"
db=$MSPERF_TEST_DATADIR/field_table
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

msperf() { "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" "$@"; }
bin=$MSPERF_BIN

# Line L of the answers (one JSON object per trace line) must contain every given text.
line_has() {  # line_has FILE L TEXT...
  f=$1; l=$2; shift 2
  got=$(sed -n "${l}p" "$f")
  for want in "$@"; do
    case $got in
      *"$want"*) ;;
      *) echo "line $l: '$want' not in: $got"; return 1 ;;
    esac
  done
}

msperf estimate --no-cache --profiling-database "$db" --ops "$db/trace.jsonl" --format jsonl \
  >"$tmp/a.jsonl" 2>"$tmp/a.err"

ok "field_table: a row with every field and the token count equal is MEASURED (fp8 row dtypes are not compared)" \
  line_has "$tmp/a.jsonl" 1 '"source": "MEASURED"' '"latency_us": 20' '"shape_match_rule": "field_exact"'
ok "field_table: tokens between two rows of the same fields is interpolated (8 -> 20, 16 -> 40)" \
  line_has "$tmp/a.jsonl" 2 '"source": "INTERPOLATED"' '"latency_us": 30' '"method": "linear_1d"'
ok "field_table: the distribution is an exact field (balanced rows 30, 60 -> 45)" \
  line_has "$tmp/a.jsonl" 3 '"source": "INTERPOLATED"' '"latency_us": 45'
ok "field_table: a field the op lacks comes from the entry's field_defaults" \
  line_has "$tmp/a.jsonl" 4 '"source": "MEASURED"' '"latency_us": 20'
ok "field_table: num_experts picks its own row at equal tensors" \
  line_has "$tmp/a.jsonl" 5 '"source": "MEASURED"' '"latency_us": 99'
ok "field_table: fields no row has are not answered from other fields' rows" \
  line_has "$tmp/a.jsonl" 6 '"source": "ANALYTIC"' '"miss_reason": "regime_key_unmatched"' \
  '"base_reason": "field_row_not_found"'
ok "field_table: no extrapolation past the token grid unless the policy allows it" \
  line_has "$tmp/a.jsonl" 7 '"source": "ANALYTIC"' '"miss_reason": "wrapper_interpolation_failed"'

# Without field_defaults an op without the field is refused with the field's name.
mkdir -p "$tmp/db"
cp "$db/FusedMoE.csv" "$tmp/db/"
grep -v field_defaults "$db/op_mapping.yaml" >"$tmp/db/op_mapping.yaml"
msperf estimate --no-cache --profiling-database "$tmp/db" --ops "$db/trace.jsonl" --format jsonl \
  >"$tmp/b.jsonl" 2>/dev/null
ok "field_table: a field neither the op nor the entry gives is a miss naming it" \
  line_has "$tmp/b.jsonl" 4 '"source": "ANALYTIC"' 'field_missing:distribution'

# The module is listed with its capabilities.
ok "field_table: plugins list shows the module with lookup and interpolate" \
  sh -c "\"$bin\" --plugins-dir \"$MSPERF_TEST_PLUGINDIR\" plugins list | grep field_table | grep -q interpolate"

tap_end
