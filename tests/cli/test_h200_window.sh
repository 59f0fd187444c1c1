#!/bin/sh
# CLI test of sliding-window attention on the shipped H200 database: gpt-oss-120b (its
# sliding-window layers carry kwarg window 128) at TP 4 / EP 4, prefill and decode, answers its
# window layers from SlidingWindowAttention and its full-attention layers from
# FusedInferAttentionScore; without the mapping's window_kernel_type the window layers fall back
# to the full table (so the assertions can fail), and `msperf mapping check` reports a window
# kernel without a table. The model config is looked up in ../shared/data/models beside the
# source tree (or MSPERF_MODELS_DIR); without it the tests are skipped.
# TAP output for automake's tap-driver.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TEST_PLUGINDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
top=$MSPERF_TOP_SRCDIR
db=$top/data/nvidia-h200
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

msperf() { "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" "$@"; }

# A copy of the database (a symlink out of a database is refused) whose mapping is the shipped
# one filtered by sed expression $2, in $tmp/$1.
cut_db() {
  mkdir -p "$tmp/$1" &&
  cp "$db"/* "$tmp/$1/" &&
  chmod u+w "$tmp/$1/op_mapping.yaml" &&
  sed "$2" "$db/op_mapping.yaml" >"$tmp/$1/op_mapping.yaml"
}

# attention DB PHASE: the attention lines of the estimate of the PHASE trace on DB
attention() {
  msperf estimate --profiling-database "$1" --ops "$tmp/$2.jsonl" --format jsonl -j 1 \
    2>/dev/null | grep '"op": "tensor_cast.attention.default"'
}

# One window layer answered MEASURED from SlidingWindowAttention with window 128, one full
# layer from FusedInferAttentionScore without a window.
t_window() {
  attention "$db" "$1" >"$tmp/$1.attn" || return 1
  [ "$(wc -l <"$tmp/$1.attn")" -eq 2 ] || { cat "$tmp/$1.attn"; return 1; }
  grep '"kernel_type": "SlidingWindowAttention"' "$tmp/$1.attn" |
    grep '"source": "MEASURED"' | grep -q '"window": 128, "window_full_attention": false' ||
    { cat "$tmp/$1.attn"; return 1; }
  grep '"kernel_type": "FusedInferAttentionScore"' "$tmp/$1.attn" | grep -vq '"window"' ||
    { cat "$tmp/$1.attn"; return 1; }
}

# Without window_kernel_type the window layers are answered from the full table again.
t_without_key() {
  cut_db nokey '/^    window_kernel_type:/d' || return 1
  ! grep -q window_kernel_type "$tmp/nokey/op_mapping.yaml" || return 1
  attention "$tmp/nokey" prefill >"$tmp/nokey.attn" || return 1
  [ "$(grep -c '"kernel_type": "FusedInferAttentionScore"' "$tmp/nokey.attn")" -eq 2 ] &&
    ! grep -q SlidingWindowAttention "$tmp/nokey.attn"
}

# A window kernel without a table is a lookup problem of `mapping check` (exit 1).
t_check_missing_table() {
  cut_db badkey 's/^    window_kernel_type: .*/    window_kernel_type: NoSuchWindowTable/' ||
    return 1
  msperf mapping check --database "$tmp/badkey" >"$tmp/badkey.out" 2>"$tmp/badkey.err"
  [ $? -eq 1 ] &&
    grep -q "^schema: 0 problem(s); lookup: 1 problem(s)" "$tmp/badkey.out" &&
    grep -q "^lookup: .*op_mapping.yaml:[0-9]*: operator 'tensor_cast.attention.default': .*NoSuchWindowTable" \
      "$tmp/badkey.err" || { cat "$tmp/badkey.out" "$tmp/badkey.err"; return 1; }
}

# `mapping draft` proposes the window table for the attention op.
t_draft() {
  mkdir -p "$tmp/nomap" && cp "$db"/*.csv.gz "$tmp/nomap/" &&
  msperf mapping draft --database "$tmp/nomap" --ops "$tmp/prefill.jsonl" >"$tmp/draft.yaml" \
    2>/dev/null || return 1
  grep -A3 '^  "tensor_cast.attention.default":' "$tmp/draft.yaml" |
    grep -q '^    window_kernel_type: SlidingWindowAttention$' || { cat "$tmp/draft.yaml"; return 1; }
}

# The shipped mapping passes the check and uses the window table.
t_check_shipped() {
  msperf mapping check --database "$db" >"$tmp/check.out" 2>&1 || { cat "$tmp/check.out"; return 1; }
  grep -q "^schema: 0 problem(s); lookup: 0 problem(s)" "$tmp/check.out" &&
    ! grep "^kernels never used by the mapping:" "$tmp/check.out" | grep -q SlidingWindowAttention
}

ok "window: the shipped mapping passes mapping check and uses SlidingWindowAttention" t_check_shipped
ok "window: mapping check reports a window_kernel_type without a table" t_check_missing_table

models=${MSPERF_MODELS_DIR:-$top/../shared/data/models}
cfg=$models/openai--gpt-oss-120b.json
if [ -f "$cfg" ]; then
  if msperf trace --model "$cfg" --phase prefill --tp 4 --ep 4 --batch 4 --seq 8192 \
       -o "$tmp/prefill.jsonl" 2>"$tmp/trace.err" &&
     msperf trace --model "$cfg" --phase decode --tp 4 --ep 4 --batch 16 --context 8192 \
       -o "$tmp/decode.jsonl" 2>>"$tmp/trace.err"; then
    ok "window: gpt-oss-120b tp 4 prefill window layers from SlidingWindowAttention" t_window prefill
    ok "window: gpt-oss-120b tp 4 decode window layers from SlidingWindowAttention" t_window decode
    ok "window: without window_kernel_type the window layers read the full table" t_without_key
    ok "window: mapping draft proposes window_kernel_type for the attention op" t_draft
  else
    cat "$tmp/trace.err"
    ok "window: tracing $cfg" false
  fi
else
  skip "gpt-oss-120b config not found at $cfg (set MSPERF_MODELS_DIR)"
fi

tap_end
