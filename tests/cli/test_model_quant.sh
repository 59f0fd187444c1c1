#!/bin/sh
# CLI tests of quantised model traces, the newer architectures, parameter counts and the
# serving-runtime memory model (doc/models.md §5, §6): trace, trace --summary, e2e. The configs
# are the shipped ones under ../shared/data/models (beside the source tree); the tests that need
# them skip when it is absent. TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}"
bin="$MSPERF_BIN --plugins-dir $MSPERF_TEST_PLUGINDIR"
src=$MSPERF_TOP_SRCDIR
shared=${MSPERF_SHARED_DATA:-$src/../shared/data}
M=$shared/models
tdata=$src/tests/data/models
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

lacks() { ! grep -q -- "$2" "$1" || { echo "'$2' in $1"; return 1; }; }

llama=$tdata/configs/meta-llama--Meta-Llama-3.1-8B.json

# Default bf16 traces do not change with an explicit --quant bf16 / --kv-dtype bf16.
t_bf16_default() {
  $bin trace --model "$llama" --tp 2 >"$tmp/a" || return 1
  $bin trace --model "$llama" --tp 2 --quant bf16 --kv-dtype bf16 >"$tmp/b" || return 1
  cmp "$tmp/a" "$tmp/b" && lacks "$tmp/a" fp8
}
ok "trace: --quant bf16 is the default trace" t_bf16_default

# Per-tensor FP8: a quantize before each linear, the FP8 GEMM with its two [1] float32 scales,
# and the fused all-reduce split off.
t_fp8() {
  $bin trace --model "$llama" --tp 2 --quant fp8 >"$tmp/o" 2>"$tmp/h" || return 1
  contains "$tmp/o" '"op": "tensor_cast.fp8_quantize.default", "args": \[{"shape": \[1024, 4096\], "dtype": "bfloat16"}\], "out": \[{"shape": \[1024, 4096\], "dtype": "float8_e4m3fn"}\]' &&
  contains "$tmp/o" '"op": "tensor_cast.fp8_matmul.default", "args": \[{"shape": \[1024, 4096\], "dtype": "float8_e4m3fn"}, {"shape": \[4096, 3072\], "dtype": "float8_e4m3fn"}, {"shape": \[1\], "dtype": "float32"}, {"shape": \[1\], "dtype": "float32"}\], "out": \[{"shape": \[1024, 3072\], "dtype": "bfloat16"}\]' &&
  lacks "$tmp/o" matmul_all_reduce &&
  contains "$tmp/h" 'gemm fp8 moe fp8'
}
ok "trace: --quant fp8 gives fp8_quantize + fp8_matmul" t_fp8

t_fp8_block() {
  $bin trace --model "$llama" --quant fp8_block --phase decode --batch 8 >"$tmp/o" || return 1
  contains "$tmp/o" '"op": "tensor_cast.fp8_block_matmul.default", "args": \[{"shape": \[8, 4096\], "dtype": "float8_e4m3fn"}, {"shape": \[4096, 6144\], "dtype": "float8_e4m3fn"}, {"shape": \[8, 32\], "dtype": "float32"}, {"shape": \[32, 48\], "dtype": "float32"}\]'
}
ok "trace: fp8_block scales are [M, K/128] and [K/128, N/128]" t_fp8_block

t_int4_w8a8() {
  $bin trace --model "$llama" --gemm-quant int4_wo >"$tmp/o" || return 1
  contains "$tmp/o" '"op": "tensor_cast.int4_wo_matmul.default", "args": \[{"shape": \[1024, 4096\], "dtype": "bfloat16"}, {"shape": \[4096, 6144\], "dtype": "int4"}, {"shape": \[32, 6144\], "dtype": "bfloat16"}\]' || return 1
  $bin trace --model "$llama" --tp 2 --quant w8a8 >"$tmp/o" || return 1
  contains "$tmp/o" '"op": "tensor_cast.static_quant_linear_all_reduce.default", "args": \[{"shape": \[1024, 2048\], "dtype": "int8"}, {"shape": \[2048, 4096\], "dtype": "int8"}, 0, \[0, 1\]\]'
}
ok "trace: int4_wo and w8a8 on a dense model" t_int4_w8a8

t_kv_fp8() {
  $bin trace --model "$llama" --phase decode --kv-dtype fp8 >"$tmp/o" || return 1
  contains "$tmp/o" '"op": "tensor_cast.attention.default", "args": \[{"shape": \[1, 32, 1, 128\], "dtype": "bfloat16"}, {"shape": \[1, 8, 1025, 128\], "dtype": "float8_e4m3fn"}' &&
  contains "$tmp/o" '\[2, 9, 128, 8, 128\], "dtype": "float8_e4m3fn"' &&
  $bin trace --model "$llama" --summary --kv-dtype fp8 >"$tmp/o" && contains "$tmp/o" 'KV bytes/token     65536 per device'
}
ok "trace: --kv-dtype fp8 halves the KV cache and types its args" t_kv_fp8

t_bad_quant() {
  $bin trace --model "$llama" --quant fp4 >"$tmp/o" 2>"$tmp/e"; [ $? -eq 2 ] || return 1
  contains "$tmp/e" "--quant must be bf16 (or none), fp8, fp8_block, w4a16_mxfp4, int4_wo or w8a8, not 'fp4'" || return 1
  $bin trace --model "$llama" --gemm-quant w4a16_mxfp4 >"$tmp/o" 2>"$tmp/e"; [ $? -eq 2 ] || return 1
  contains "$tmp/e" "MXFP4 weights are for the routed experts" || return 1
  $bin trace --model "$llama" --kv-dtype int8 >"$tmp/o" 2>"$tmp/e"; [ $? -eq 2 ] &&
  contains "$tmp/e" "--kv-dtype must be bf16"
}
ok "trace: bad quant modes are refused" t_bad_quant

# text_config: a wrapper's text model is read; nesting beyond 4 levels is refused.
t_text_config() {
  cat >"$tmp/wrap.json" <<'JSON'
{"architectures": ["LlamaForCausalLM"], "text_config": {"hidden_size": 256, "num_attention_heads": 4,
 "num_key_value_heads": 2, "num_hidden_layers": 2, "intermediate_size": 512, "vocab_size": 1000,
 "max_position_embeddings": 2048, "dtype": "float16"}}
JSON
  $bin trace --model "$tmp/wrap.json" >"$tmp/o" || return 1
  contains "$tmp/o" '"shape": \[1000, 256\], "dtype": "float16"' || return 1
  echo '{"architectures": ["LlamaForCausalLM"], "text_config": {"text_config": {"text_config": {"text_config": {"text_config": {"hidden_size": 1}}}}}}' >"$tmp/deep.json"
  $bin trace --model "$tmp/deep.json" >"$tmp/o" 2>"$tmp/e"; [ $? -eq 2 ] &&
  contains "$tmp/e" "deep.json:1: text_config nested deeper than 4 levels"
}
ok "trace: text_config is read, with a depth guard" t_text_config

t_unknown_arch() {
  echo '{"architectures": ["NoSuchForCausalLM"], "hidden_size": 8}' >"$tmp/u.json"
  $bin trace --model "$tmp/u.json" >"$tmp/o" 2>"$tmp/e"; [ $? -eq 2 ] &&
  contains "$tmp/e" "unknown architecture 'NoSuchForCausalLM'" &&
  contains "$tmp/e" "dense_gqa.yaml" && contains "$tmp/e" "hybrid_moe.yaml"
}
ok "trace: an unknown architecture lists the templates" t_unknown_arch

if [ ! -d "$M" ]; then
  skip "shared model configs absent ($M)"
  echo "1..$n"
  exit 0
fi

# quantization_config selects the default; the newer architectures generate their own ops.
t_config_quant() {
  $bin trace --model "$M/Qwen--Qwen3-235B-A22B-FP8.json" --tp 4 >"$tmp/o" 2>"$tmp/h" || return 1
  contains "$tmp/h" 'gemm fp8_block moe fp8_block' &&
  contains "$tmp/o" '"op": "tensor_cast.fused_moe.default", "args": \[{"shape": \[1024, 4096\], "dtype": "bfloat16"}, {"shape": \[128, 768, 4096\], "dtype": "float8_e4m3fn"}, {"shape": \[128, 4096, 384\], "dtype": "float8_e4m3fn"}, {"shape": \[1024, 8\], "dtype": "int32"}\], "out": \[{"shape": \[1024, 4096\], "dtype": "bfloat16"}\], "kwargs": {"num_experts": 128, "moe_tp": 4, "moe_ep": 1, "topk": 8, "quant": "fp8_block", "distribution": "power_law_1.2"}' || return 1
  $bin trace --model "$M/Qwen--Qwen3-235B-A22B-FP8.json" --tp 4 --quant bf16 >"$tmp/o" || return 1
  lacks "$tmp/o" fused_moe
}
ok "trace: Qwen3-235B-A22B-FP8 runs fp8_block by its quantization_config" t_config_quant

t_gpt_oss() {
  $bin trace --model "$M/openai--gpt-oss-120b.json" --tp 4 --phase decode --batch 8 >"$tmp/o" || return 1
  contains "$tmp/o" '"kwargs": {"window": 128}, "count": 18}' &&
  contains "$tmp/o" '{"shape": \[128, 1440, 2880\], "dtype": "float4_e2m1fn_x2"}' &&
  contains "$tmp/o" '"quant": "w4a16_mxfp4"'
}
ok "trace: gpt-oss has 18 sliding-window layers and MXFP4 experts" t_gpt_oss

t_kimi() {
  $bin trace --model "$M/moonshotai--Kimi-K2.5.json" --tp 8 --phase decode --batch 4 >"$tmp/o" 2>"$tmp/h" || return 1
  contains "$tmp/h" 'KimiK25ForConditionalGeneration, template mla_moe' &&
  contains "$tmp/o" '"op": "tensor_cast.int4_wo_matmul.default", "args": \[{"shape": \[6, 7168\], "dtype": "bfloat16"}, {"shape": \[7168, 512\], "dtype": "int4"}, {"shape": \[56, 512\], "dtype": "bfloat16"}'
}
ok "trace: Kimi-K2.5 (text_config) has int4 experts" t_kimi

t_glm5() {
  $bin trace --model "$M/zai-org--GLM-5-FP8.json" --tp 8 --phase decode --batch 4 --context 8192 >"$tmp/o" || return 1
  contains "$tmp/o" '"op": "aten.bmm.default", "args": \[{"shape": \[4, 32, 128\]' &&
  contains "$tmp/o" '"values": \[2048, 2048, 2048, 2048\]'
}
ok "trace: GLM-5 indexer scores all tokens, MLA attends to index_topk" t_glm5

t_qwen35() {
  $bin trace --model "$M/Qwen--Qwen3.5-397B-A17B.json" --tp 8 --phase decode --batch 4 >"$tmp/o" || return 1
  contains "$tmp/o" '"op": "tensor_cast.gated_delta_rule.default"' &&
  contains "$tmp/o" '"count": 45}' && contains "$tmp/o" '"count": 15}'
}
ok "trace: Qwen3.5 interleaves 45 linear and 15 full attention layers" t_qwen35

# Parameter counts (whole model, embedding and LM head in, MTP layers apart) against the
# published sizes. A published figure within 2 % plus half a unit of its last digit (the card
# rounds: "~10B", "A17B"). Active counts follow the card: "-" when the card counts the input
# embedding (a lookup) out of the active figure (OpenAI, MiniMax, Zhipu say so).
t_params() {
  bad=0
  : >"$tmp/seen"
  while read -r cfg total active unit emb; do
    echo "$cfg" >>"$tmp/seen"
    $bin trace --model "$M/$cfg.json" --summary >"$tmp/s" 2>&1 || { cat "$tmp/s"; bad=1; continue; }
    line=$(grep '^parameters' "$tmp/s")
    echo "$line" | awk -v cfg="$cfg" -v t="$total" -v a="$active" -v u="$unit" -v e="$emb" '
      { gt = $3; ga = $6; ge = $10;
        if (e == "-") ga -= ge;
        tt = (t * 0.02 + u / 2); ta = (a * 0.02 + u / 2);
        if ((gt - t) ^ 2 > tt ^ 2 || (ga - a) ^ 2 > ta ^ 2) {
          printf "%s: total %s active %s (embedding %s), published %s / %s\n", cfg, gt, ga, ge, t, a; exit 1 } }' || bad=1
  done <<'TABLE'
meta-llama--Meta-Llama-3.1-8B 8.03 8.03 0.01 +
meta-llama--Meta-Llama-3.1-70B 70.6 70.6 0.1 +
meta-llama--Meta-Llama-3.1-405B 405.9 405.9 0.1 +
nvidia--Llama-3.1-70B-Instruct-FP8 70.6 70.6 0.1 +
Qwen--Qwen3-8B 8.2 8.2 0.1 +
Qwen--Qwen3-32B 32.8 32.8 0.1 +
Qwen--Qwen3-30B-A3B 30.5 3.3 0.1 +
Qwen--Qwen3-235B-A22B 235 22 1 +
Qwen--Qwen3-235B-A22B-FP8 235 22 1 +
Qwen--Qwen3.5-397B-A17B 397 17 1 +
mistralai--Mixtral-8x7B-v0.1 46.7 12.9 0.1 +
deepseek-ai--DeepSeek-V3 671 37 1 +
deepseek-ai--DeepSeek-R1 671 37 1 +
moonshotai--Kimi-K2.5 1040 32 10 +
openai--gpt-oss-120b 116.8 5.1 0.1 -
MiniMaxAI--MiniMax-M2.5 230 10 10 -
zai-org--GLM-5-FP8 744 40 1 -
TABLE
  for f in "$M"/*.json; do   # every shipped config has a published size above
    grep -qx "$(basename "$f" .json)" "$tmp/seen" || { echo "no published size for $f"; bad=1; }
  done
  [ $bad -eq 0 ]
}
ok "summary: parameter counts of every shipped config match the published sizes" t_params

t_no_fit() {
  $bin trace --model "$M/meta-llama--Meta-Llama-3.1-70B.json" --summary >"$tmp/o" || return 1
  contains "$tmp/o" 'KV capacity        0 tokens: DOES NOT FIT' &&
  $bin trace --model "$M/meta-llama--Meta-Llama-3.1-70B.json" --summary --quant fp8 >"$tmp/o" &&
  contains "$tmp/o" 'KV capacity        [0-9]* tokens per device'
}
ok "summary: Llama-3.1-70B bf16 does not fit one H200, fp8 does" t_no_fit

# Every aggregated configuration of the H200 development set ran on real H200s: it fits, with
# a KV capacity, and e2e estimates it.
csv=$shared/silicon-h200-dev/silicon_dev.csv
t_dev_set() {
  [ -f "$csv" ] || return 0
  awk -F, 'NR > 1 && $8 == "agg" { print $5, $11, $12, $14, ($16 == "" ? 1 : $16), $18, $13, $9, $10 }' "$csv" |
    sort -u -k1,6 >"$tmp/rows"
  [ -s "$tmp/rows" ] || return 1
  bad=0
  while read -r model gq mq tp dp ep batch isl osl; do
    case $model in
      meta-llama/Llama-3.1-8B-Instruct|nvidia/Llama-3.1-8B-Instruct-FP8) cfg=meta-llama--Meta-Llama-3.1-8B ;;
      *) cfg=$(echo "$model" | sed 's|/|--|') ;;
    esac
    args="--model $M/$cfg.json --tp $tp --dp $dp --ep $ep --gemm-quant $gq --moe-quant $mq"
    if ! $bin trace $args --summary >"$tmp/s" 2>&1 || ! grep -q 'tokens per device' "$tmp/s"; then
      echo "$model $gq/$mq tp $tp dp $dp ep $ep:"; cat "$tmp/s"; bad=1; continue
    fi
    echo "# $model $gq/$mq tp $tp dp $dp ep $ep: $(grep '^KV capacity' "$tmp/s")"
    $bin e2e --no-cache $args --isl "$isl" --osl "$osl" --batch "$batch" --jobs 1 >"$tmp/e" 2>&1 ||
      { echo "e2e $model:"; cat "$tmp/e"; bad=1; }
  done <"$tmp/rows"
  [ $bad -eq 0 ]
}
if [ -f "$csv" ]; then
  ok "dev set: every H200 agg configuration fits and e2e estimates it" t_dev_set
  sed -n 's/^# /# /p' "$tmp/ok.out" | head -n 20
else
  skip "silicon_dev.csv absent"
fi

# The newer architectures at the layouts they are served with.
t_new_e2e() {
  for spec in "MiniMaxAI--MiniMax-M2.5 --tp 4 --ep 4" "openai--gpt-oss-120b --tp 2" \
              "moonshotai--Kimi-K2.5 --tp 8" "zai-org--GLM-5-FP8 --tp 8" \
              "Qwen--Qwen3.5-397B-A17B --tp 8 --quant fp8_block" "deepseek-ai--DeepSeek-R1 --tp 8"; do
    set -- $spec
    cfg=$1; shift
    $bin e2e --no-cache --model "$M/$cfg.json" "$@" --isl 1024 --osl 128 --batch 8 --jobs 1 \
      >"$tmp/e" 2>&1 || { echo "$cfg:"; cat "$tmp/e"; return 1; }
    $bin trace --model "$M/$cfg.json" "$@" --summary >"$tmp/s" 2>&1 &&
      grep -q 'tokens per device' "$tmp/s" || { echo "$cfg:"; cat "$tmp/s"; return 1; }
  done
}
ok "e2e: MiniMax-M2.5, gpt-oss, Kimi-K2.5, GLM-5, Qwen3.5, DeepSeek-R1 run and fit" t_new_e2e

tap_end
