#!/bin/sh
# CLI tests of the field_table query mode (plugins/field_table) on the fixture
# tests/data/field_table: a fused-MoE table whose rows differ by named fields (num_experts,
# moe_tp, moe_ep, topk, distribution, quant) besides their tensors. Exact rows are MEASURED,
# token counts between rows of the same fields INTERPOLATED, other fields never stand in.
# And tests/data/field_table_axes: two MLA tables without tensors whose numeric columns are the
# kernel policy's axes, the op's values derived from its tensors (field_args). And, on the
# shipped H200 database, the MLA and gated-delta-net ops of real model configs.
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
ok "field_table: a moe_tp x moe_ep split the table lacks is answered from another split of its ranks" \
  line_has "$tmp/a.jsonl" 8 '"source": "EXTRAPOLATED"' '"method": "split_transfer"' \
  '"latency_us": 20.0' '"split_from": "moe_tp=1, moe_ep=2"' '"reference_source": "MEASURED"' \
  '"roofline_ratio": 1.0' '"base_reason": "regime_key_unmatched"' '"kernel_type": "FusedMoE"'
ok "field_table: without a measured split of the same ranks the op stays on the roofline" \
  line_has "$tmp/a.jsonl" 9 '"source": "ANALYTIC"' '"miss_reason": "regime_key_unmatched"'

ok "field_table: int4 weight-only experts the table lacks are answered from its fp8 rows" \
  line_has "$tmp/a.jsonl" 10 '"source": "EXTRAPOLATED"' '"method": "quant_transfer"' \
  '"quant_from": "quant=fp8"' '"reference_latency_us": 20.0' '"reference_source": "MEASURED"'

# A database NAME whose mapping is the fixture's edited by the sed expression EXPR: validate's
# output into NAME.out, the trace's answers into NAME.jsonl.
bad_mapping() {  # bad_mapping NAME EXPR
  mkdir -p "$tmp/$1"
  cp "$db/FusedMoE.csv" "$tmp/$1/"
  sed "$2" "$db/op_mapping.yaml" >"$tmp/$1/op_mapping.yaml"
  msperf validate --profiling-database "$tmp/$1" >"$tmp/$1.out" 2>&1
  msperf estimate --no-cache --profiling-database "$tmp/$1" --ops "$db/trace.jsonl" \
    --format jsonl >"$tmp/$1.jsonl" 2>/dev/null
}

# A malformed quant_transfer is refused with its line and turns that transfer off only.
bad_mapping badquant 's/field: quant/field: [quant]/'
ok "field_table: validate names the line of a malformed quant_transfer" \
  grep -q "op_mapping.yaml:[0-9]*: operator 'tensor_cast.fused_moe.default': quant_transfer: field: expected a kwarg name; the transfer is off" "$tmp/badquant.out"
quant_off() {
  line_has "$tmp/badquant.jsonl" 10 '"source": "ANALYTIC"' '"miss_reason": "regime_key_unmatched"' &&
    line_has "$tmp/badquant.jsonl" 8 '"method": "split_transfer"'
}
ok "field_table: with the quant transfer off the int4 op falls to the roofline, the split transfer stays" \
  quant_off

# A malformed split_transfer is refused with its line and turns the transfer off; the rest answers.
bad_mapping badsplit 's/fields: \[moe_tp, moe_ep\]/fields: [moe_tp]/'
ok "field_table: validate names the line of a malformed split_transfer" \
  grep -q "op_mapping.yaml:[0-9]*: operator 'tensor_cast.fused_moe.default': split_transfer: fields: expected a list of two kwarg names; the transfer is off" "$tmp/badsplit.out"
ok "field_table: with the transfer off the op falls to the roofline" \
  line_has "$tmp/badsplit.jsonl" 8 '"source": "ANALYTIC"' '"miss_reason": "regime_key_unmatched"'
ok "field_table: with the transfer off every other op still answers" \
  line_has "$tmp/badsplit.jsonl" 1 '"source": "MEASURED"' '"latency_us": 20'

# Without field_defaults an op without the field is refused with the field's name.
mkdir -p "$tmp/db"
cp "$db/FusedMoE.csv" "$tmp/db/"
grep -v field_defaults "$db/op_mapping.yaml" >"$tmp/db/op_mapping.yaml"
msperf estimate --no-cache --profiling-database "$tmp/db" --ops "$db/trace.jsonl" --format jsonl \
  >"$tmp/b.jsonl" 2>/dev/null
ok "field_table: a field neither the op nor the entry gives is a miss naming it" \
  line_has "$tmp/b.jsonl" 4 '"source": "ANALYTIC"' 'field_missing:distribution'

# Column axes: the MLA fixture (context table CtxMla, linear; generation table GenMla, log).
ax=$MSPERF_TEST_DATADIR/field_table_axes
msperf estimate --no-cache --profiling-database "$ax" --ops "$ax/trace.jsonl" --format jsonl \
  >"$tmp/c.jsonl" 2>"$tmp/c.err"
ok "field_table axes: heads, batch and isl from the op's tensors hit a context row exactly" \
  line_has "$tmp/c.jsonl" 1 '"source": "MEASURED"' '"latency_us": 40.0' '"kernel_type": "CtxMla"' \
  '"shape_match_rule": "field_exact"'
ok "field_table axes: an isl between two rows is interpolated along isl (128 -> 10, 256 -> 20)" \
  line_has "$tmp/c.jsonl" 2 '"source": "INTERPOLATED"' '"latency_us": 15.0' '"method": "linear_1d"' \
  '"axes": {"isl": 192}'
ok "field_table axes: a decode op (cached tokens: step > 0) is not the context table's; the alternate answers" \
  line_has "$tmp/c.jsonl" 3 '"source": "MEASURED"' '"latency_us": 40.0' '"kernel_type": "GenMla"'
ok "field_table axes: log space along step where the kernel policy says (1024 -> 10, 4096 -> 40: 20)" \
  line_has "$tmp/c.jsonl" 4 '"source": "INTERPOLATED"' '"latency_us": 20.00000000000' \
  '"method": "linear_1d_log"' '"axes": {"step": 2048}'
ok "field_table axes: a step past the measured range is a miss saying so" \
  line_has "$tmp/c.jsonl" 5 '"source": "ANALYTIC"' '"miss_reason": "wrapper_interpolation_failed"' \
  '1d(step): outside_axis_boundary'
ok "field_table axes: an exact field no row has (fp8 KV cache) is never answered from other rows" \
  line_has "$tmp/c.jsonl" 6 '"source": "ANALYTIC"' '"miss_reason": "regime_key_unmatched"'
ok "field_table axes: a dtype the field_args map does not name is a miss naming the field" \
  line_has "$tmp/c.jsonl" 7 '"source": "ANALYTIC"' '"base_reason": "field_missing:mla_dtype"'
ok "field_table axes: the op's kwarg wins over field_args (step 1024)" \
  line_has "$tmp/c.jsonl" 8 '"source": "MEASURED"' '"latency_us": 10.0'
ok "field_table axes: two axes off the grid are a 2-D interpolation (batch 2, step 2048)" \
  line_has "$tmp/c.jsonl" 9 '"source": "INTERPOLATED"' '"interpolation_dim": 2' \
  '"axes": {"batch_size": 2, "step": 2048}'

# The shipped H200 database: DeepSeek-V3's MLA answered from the MLA kernel tables.
top=$MSPERF_TOP_SRCDIR
models=$top/tests/data/models/configs
if [ -d "$top/data/nvidia-h200" ] && [ -f "$models/deepseek-ai--DeepSeek-V3.json" ]; then
  t_e2e_mla() {
    # Each phase's MLA op answered from its kernel table, from data.
    msperf trace --model "$models/deepseek-ai--DeepSeek-V3.json" --tp 8 --ep 8 --phase prefill \
      --batch 4 --seq 1024 -o "$tmp/p.jsonl" 2>/dev/null &&
    msperf trace --model "$models/deepseek-ai--DeepSeek-V3.json" --tp 8 --ep 8 --phase decode \
      --batch 16 --context 2048 -o "$tmp/d.jsonl" 2>/dev/null &&
    for t in p d; do
      msperf estimate --no-cache --profiling-database "$top/data/nvidia-h200" --ops "$tmp/$t.jsonl" \
        --format jsonl 2>/dev/null | grep multihead_latent_attention
    done >"$tmp/mla.jsonl"
    grep -q '"source": "MEASURED".*"kernel_type": "AicContextMla"' "$tmp/mla.jsonl" &&
    grep -q '"source": "INTERPOLATED".*"kernel_type": "AicGenerationMla"' "$tmp/mla.jsonl" &&
    # e2e's data share with the MLA entry above the same database's without it.
    # (a copy: the database refuses symlinks leading out of it)
    mkdir -p "$tmp/nomla" && cp "$top/data/nvidia-h200"/* "$tmp/nomla/" &&
    sed '/^  "tensor_cast.multihead_latent_attention.default":/,/BMMs (mla_bmm_perf)/d' \
      "$top/data/nvidia-h200/op_mapping.yaml" >"$tmp/nomla/op_mapping.yaml" &&
    ! grep -q multihead_latent_attention "$tmp/nomla/op_mapping.yaml" &&
    for d in "$top/data/nvidia-h200" "$tmp/nomla"; do
      msperf e2e --no-cache --profiling-database "$d" --model "$models/deepseek-ai--DeepSeek-V3.json" \
        --tp 8 --ep 8 --isl 1024 --osl 64 --batch 4 --format jsonl 2>/dev/null |
        sed 's/.*"data_share": \([0-9.]*\).*/\1/'
    done >"$tmp/shares" &&
    awk 'NR == 1 { a = $1 } NR == 2 { b = $1 } END { exit !(NR == 2 && a > b && b > 0.9) }' \
      "$tmp/shares"
  }
  ok "field_table: DeepSeek-V3 tp 8 ep 8 answers MLA from AicContextMla / AicGenerationMla (e2e share up)" \
    t_e2e_mla
  t_cover_mla() {
    for ph in prefill decode; do
      msperf trace --model "$models/deepseek-ai--DeepSeek-V3.json" --tp 8 --ep 8 --phase "$ph" \
        --batch 4 -o "$tmp/ds-$ph.jsonl" 2>/dev/null || return 1
    done
    msperf mapping check --database "$top/data/nvidia-h200" --require-coverage \
      --ops "$tmp/ds-prefill.jsonl" "$tmp/ds-decode.jsonl" >"$tmp/cov" 2>"$tmp/cov.err"
    grep -q "^tensor_cast.multihead_latent_attention.default  *field_table  *AicContextMla " \
      "$tmp/cov" && ! grep -q "multihead_latent_attention" "$tmp/cov.err" &&
    grep -q "^tensor_cast.concat_and_cache_mla.default  *elementwise  *Silu " "$tmp/cov" &&
    ! grep -q "concat_and_cache_mla" "$tmp/cov.err"
  }
  ok "field_table: mapping check --require-coverage on DeepSeek-V3 traces no longer lists the MLA ops" \
    t_cover_mla
else
  n=$((n + 1)); echo "ok $n # SKIP shipped H200 database or DeepSeek-V3 config absent"
  n=$((n + 1)); echo "ok $n # SKIP shipped H200 database or DeepSeek-V3 config absent"
fi

# The shipped H200 database: Qwen3.5's gated-delta-net recurrence answered from AicGatedDeltaNet
# (one table, its kernel told apart by the template op's kernel_source kwarg per phase).
qwen35=${MSPERF_MODELS_DIR:-$top/../shared/data/models}/Qwen--Qwen3.5-397B-A17B.json
if [ -d "$top/data/nvidia-h200" ] && [ -f "$qwen35" ]; then
  # gdn TP PHASE...: the estimate of the trace's gated_delta_rule op
  gdn() {
    tp=$1; shift
    msperf trace --model "$qwen35" --tp "$tp" --batch 4 "$@" -o "$tmp/g.jsonl" 2>/dev/null &&
    msperf estimate --no-cache --profiling-database "$top/data/nvidia-h200" --ops "$tmp/g.jsonl" \
      --format jsonl 2>/dev/null | grep '"op": "tensor_cast.gated_delta_rule.default"'
  }
  t_gdn_prefill() {
    gdn 1 --phase prefill --seq 1024 >"$tmp/gp" && [ "$(wc -l <"$tmp/gp")" -eq 1 ] &&
    line_has "$tmp/gp" 1 '"source": "MEASURED"' '"kernel_type": "AicGatedDeltaNet"' \
      '"shape_match_rule": "field_exact"' &&
    zcat "$top/data/nvidia-h200/AicGatedDeltaNet.csv.gz" |
      grep -q '^gdn,chunk_gated_delta_rule,context,4,1024,4096,4096,4,16,128,64,128,'
  }
  ok "field_table: a Qwen3.5 prefill's GDN op at tp 1 is the chunk_gated_delta_rule row (MEASURED)" \
    t_gdn_prefill
  t_gdn_decode() {
    gdn 1 --phase decode --context 1024 >"$tmp/gd" &&
    line_has "$tmp/gd" 1 '"source": "MEASURED"' '"kernel_type": "AicGatedDeltaNet"' &&
    # the fused recurrent step of batch 4 (its latency, to 8 characters), not the chunked row
    row=$(zcat "$top/data/nvidia-h200/AicGatedDeltaNet.csv.gz" |
      grep '^gdn,fused_recurrent_gated_delta_rule,generation,4,1,4,4096,4,16,128,64,128,' |
      sed 's/.*,//' | cut -c1-8) && [ -n "$row" ] && line_has "$tmp/gd" 1 "\"latency_us\": $row"
  }
  ok "field_table: a Qwen3.5 decode step's GDN op at tp 1 is the fused_recurrent row (MEASURED)" \
    t_gdn_decode
  t_gdn_tp() {
    gdn 8 --phase decode --context 1024 >"$tmp/g8" &&
    line_has "$tmp/g8" 1 '"source": "ANALYTIC"' '"base_reason": "field_row_not_found"'
  }
  ok "field_table: at tp 8 (2 key heads per rank; every row is at 16) the GDN op is a miss" \
    t_gdn_tp
else
  for i in 1 2 3; do n=$((n + 1)); echo "ok $n # SKIP shipped H200 database or Qwen3.5 config absent"; done
fi

# The module is listed with its capabilities.
ok "field_table: plugins list shows the module with lookup and interpolate" \
  sh -c "\"$bin\" --plugins-dir \"$MSPERF_TEST_PLUGINDIR\" plugins list | grep field_table | grep -q interpolate"

tap_end
