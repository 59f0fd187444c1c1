#!/bin/sh
# CLI tests of the opt-in interpolation axes on the shipped sample database, through
# --policy: the MHA heads axis (interpolation.attention.mha_heads_axis) for MHA prefill with 24
# and 48 heads (the table has 8, 16, 32, 64), and the BatchMatMul H axis (kernel_overrides
# BatchMatMulV2.axes listing H) for H 24 (the table has 8, 16, 32, 64); without the keys all
# of them miss, and holdout recovers more coordinates with them. TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
# The sample rows under the upstream mapping (Makefile.am, upstream_db): the shipped sample
# database opts in to the settings these tests switch on one by one.
db=$MSPERF_TEST_UPSTREAM_DB
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

printf 'interpolation:\n  attention:\n    mha_heads_axis: true\n' >"$tmp/mha.yaml"
printf 'interpolation:\n  kernel_overrides:\n    BatchMatMulV2:\n      axes: [H, M, K, N]\n' \
  >"$tmp/bmm.yaml"

# source_of POLICY OP: the answer's source ("" = no policy file)
source_of() {
  if [ -n "$1" ]; then pol="--policy $1"; else pol=; fi
  # shellcheck disable=SC2086
  "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" $pol query --profiling-database "$db" \
    --format json --op "$2" 2>/dev/null | sed -n 's/^      "source": "\([A-Z]*\)",$/\1/p'
}

# MHA prefill: 2048 tokens, N heads over N KV heads, head_dim 128, seq_lens [2048].
mha() {
  printf '{"op": "tensor_cast.attention.default", "args": [{"shape": [2048, %s, 128], "dtype": "bfloat16"}, {"shape": [2048, %s, 128], "dtype": "bfloat16"}, {"shape": [2048, %s, 128], "dtype": "bfloat16"}, null, null, null, {"shape": [1], "dtype": "int64", "values": [2048]}, null]}' \
    "$1" "$1" "$1"
}

bmm='{"op": "aten.bmm.default", "args": [{"shape": [24, 256, 512], "dtype": "bfloat16"}, {"shape": [24, 512, 1024], "dtype": "bfloat16"}]}'

expect() {  # expect WANT GOT
  [ "$1" = "$2" ] || { echo "expected $1, got '$2'"; return 1; }
}

t_mha() {
  for h in 24 48; do
    expect ANALYTIC "$(source_of "" "$(mha $h)")" || return 1
    expect INTERPOLATED "$(source_of "$tmp/mha.yaml" "$(mha $h)")" || return 1
  done
}
ok "MHA prefill with 24 and 48 heads: a miss without mha_heads_axis, INTERPOLATED with it" t_mha

t_bmm() {
  expect ANALYTIC "$(source_of "" "$bmm")" || return 1
  expect INTERPOLATED "$(source_of "$tmp/bmm.yaml" "$bmm")"
}
ok "BatchMatMul H 24: a miss without H in the axes, INTERPOLATED with it" t_bmm

recovered() {  # recovered POLICY KERNEL: the 'all' row's recovered count ("" = no policy)
  if [ -n "$1" ]; then pol="--policy $1"; else pol=; fi
  # shellcheck disable=SC2086
  "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" $pol holdout --profiling-database "$db" \
    --kernel "$2" 2>/dev/null | awk '$2 == "all" { print $4 }'
}

t_holdout() {
  a0=$(recovered "" FusedInferAttentionScore); a1=$(recovered "$tmp/mha.yaml" FusedInferAttentionScore)
  b0=$(recovered "" BatchMatMulV2); b1=$(recovered "$tmp/bmm.yaml" BatchMatMulV2)
  echo "attention $a0 -> $a1, bmm $b0 -> $b1"
  [ "$a1" -gt "$a0" ] && [ "$b1" -gt "$b0" ]
}
ok "holdout recovers more attention and BMM coordinates with the keys" t_holdout

tap_end
