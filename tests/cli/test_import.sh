#!/bin/sh
# CLI tests of `msperf import aiconfigurator` (doc/formats.md §1.3) on a cut of NVIDIA
# aiconfigurator's H200 tables (tests/data/import/SOURCE.md), and — when the full tables are at
# ../shared/data/aic-h200 beside the source tree (or MSPERF_AIC_TABLES names them) — a
# re-import compared byte for byte with the shipped database data/nvidia-h200.
# TAP output for automake's tap-driver.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TEST_PLUGINDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
top=$MSPERF_TOP_SRCDIR
fx=$top/tests/data/import/tables
sample=$top/doc/examples/h200-db
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

msperf() { "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" "$@"; }

t_import() {
  msperf import aiconfigurator "$fx" --out "$tmp/db" 2>"$tmp/log" || { cat "$tmp/log"; return 1; }
  for f in op_mapping.yaml SOURCE.md LICENSE MatMulV2.csv.gz FP8MatMul.csv.gz \
           FP8BlockMatMul.csv.gz FusedInferAttentionScore.csv.gz SlidingWindowAttention.csv.gz \
           FusedMoE.csv.gz hcom_allReduce_.csv.gz hcom_allGather_.csv.gz Fp8Quantize.csv.gz \
           AicMlaBmm.csv.gz; do
    [ -f "$tmp/db/$f" ] || { echo "missing $f"; return 1; }
  done
  cmp -s "$tmp/db/LICENSE" "$top/tests/data/import/LICENSE" || { echo "LICENSE changed"; return 1; }
  grep -q "2844 rows in, 2767 out, 77 dropped" "$tmp/log" || { cat "$tmp/log"; return 1; }
}
ok "import: every family of the cut becomes its kernel tables, with SOURCE.md and LICENSE" t_import

t_accounting() {
  # every input row is written or dropped: rows in = rows out + dropped, per input
  awk -F'|' '/^\| `[^|]*\.csv` \|/ {
      in_ = $3 + 0; out = $4 + 0; d = 0; s = $6
      while (match (s, /: [0-9]+/)) { d += substr (s, RSTART + 2, RLENGTH - 2) + 0; s = substr (s, RSTART + RLENGTH) }
      if (in_ != out + d) { print "unbalanced: " $0; bad = 1 } ; rows++ }
    END { if (rows != 19) { print rows " input rows in SOURCE.md"; bad = 1 } ; exit bad }' \
    "$tmp/db/SOURCE.md" &&
  grep -q 'collective dtype not 16-bit.*: 77' "$tmp/db/SOURCE.md"
}
ok "import: SOURCE.md accounts for every row of every input (in = out + dropped, with reasons)" \
  t_accounting

t_identical() {
  msperf import aiconfigurator "$fx" --out "$tmp/db2" 2>/dev/null && diff -r "$tmp/db" "$tmp/db2"
}
ok "import: the same input gives the same bytes" t_identical

t_exists() {
  msperf import aiconfigurator "$fx" --out "$tmp/db" 2>"$tmp/e"
  [ $? -eq 2 ] && grep -q "exists (--force replaces it)" "$tmp/e" &&
  touch "$tmp/db/stale" &&
  msperf import aiconfigurator "$fx" --out "$tmp/db" --force 2>/dev/null &&
  [ ! -e "$tmp/db/stale" ] && diff -r "$tmp/db" "$tmp/db2"
}
ok "import: an existing DB is refused, --force replaces it whole" t_exists

t_bad_table() {
  cp -r "$fx" "$tmp/bad" && chmod -R u+w "$tmp/bad" && cp "$top/tests/data/import/LICENSE" "$tmp/bad/" &&
  sed -i '1s/gemm_dtype/gemm_type/' "$tmp/bad/gemm/trtllm-1.3.0rc20/gemm_perf.csv" || return 1
  msperf import aiconfigurator "$tmp/bad" --out "$tmp/baddb" 2>"$tmp/e"
  [ $? -eq 2 ] && grep -q "gemm_perf.csv:1: no column 'gemm_dtype'" "$tmp/e" &&
  [ ! -e "$tmp/baddb" ] && [ -z "$(ls -A "$tmp" | grep '^\.baddb')" ]
}
ok "import: a table without a needed column is FILE:1: problem, and no half-written DB is left" \
  t_bad_table

t_bad_latency() {
  cp -r "$fx" "$tmp/lat" && chmod -R u+w "$tmp/lat" && cp "$top/tests/data/import/LICENSE" "$tmp/lat/" &&
  sed -i '2s/,[^,]*$/,-1/; 3s/,[^,]*$/,nan/' "$tmp/lat/quantize/trtllm-1.3.0rc20/computescale_perf.csv" &&
  msperf import aiconfigurator "$tmp/lat" --out "$tmp/latdb" 2>/dev/null &&
  grep -q "computescale_perf.csv\` | 160 | 158 | \`Fp8Quantize\` (158) | latency not a positive number: 2 |" \
    "$tmp/latdb/SOURCE.md"
}
ok "import: rows without a positive latency are dropped and counted with the reason" t_bad_latency

t_no_license() {
  mkdir -p "$tmp/nolic" && cp -r "$fx/gemm" "$tmp/nolic/" || return 1
  msperf import aiconfigurator "$tmp/nolic" --out "$tmp/nolicdb" 2>"$tmp/e"
  [ $? -eq 2 ] && grep -q "no upstream LICENSE" "$tmp/e"
}
ok "import: without the upstream LICENSE nothing is written" t_no_license

t_usage() {
  msperf import other "$fx" --out "$tmp/x" 2>"$tmp/e"
  [ $? -eq 2 ] && grep -q "the source must be 'aiconfigurator'" "$tmp/e" || return 1
  msperf import aiconfigurator "$fx" 2>"$tmp/e"
  [ $? -eq 2 ] && grep -q "usage: msperf import aiconfigurator TABLES_DIR --out DB" "$tmp/e"
}
ok "import: usage errors exit 2" t_usage

q() { msperf query --profiling-database "$tmp/db" --op "$1" 2>/dev/null; }

t_gemm() {
  # first bf16 row of the cut: m 4353, n 65536, k 51200, 41.099622090657554 ms
  r=$(q '{"op":"aten.mm.default","args":[{"shape":[4353,51200],"dtype":"bfloat16"},{"shape":[51200,65536],"dtype":"bfloat16"}],"out":[{"shape":[4353,65536],"dtype":"bfloat16"}]}')
  echo "$r" | grep -q '"source": "MEASURED".*"latency_us": 41099.622090657555,.*"kernel_type": "MatMulV2"' ||
    { echo "$r"; return 1; }
  # first fp8 row: m 2560, n 65536, k 10240, 2.4899679819742837 ms; the two scales are cut
  r=$(q '{"op":"tensor_cast.fp8_matmul.default","args":[{"shape":[2560,10240],"dtype":"float8_e4m3fn"},{"shape":[10240,65536],"dtype":"float8_e4m3fn"},{"shape":[1],"dtype":"float32"},{"shape":[1],"dtype":"float32"}],"out":[{"shape":[2560,65536],"dtype":"bfloat16"}]}')
  echo "$r" | grep -q '"source": "MEASURED".*"latency_us": 2489.9679819742837,.*"kernel_type": "FP8MatMul"' ||
    { echo "$r"; return 1; }
}
ok "import: bf16 and fp8 GEMM ops are answered MEASURED from their own tables" t_gemm

t_comm() {
  # custom all-reduce, 4 GPUs, 128 bf16 elements = 256 bytes (the cut's row)
  row=$(awk -F, '$7 == 4 { print $8 "," $9; exit }' \
        "$fx/comm/trtllm-1.3.0rc20/custom_allreduce_perf.csv")
  elems=${row%%,*}
  r=$(q "{\"op\":\"tensor_cast.all_reduce.default\",\"args\":[{\"shape\":[$elems],\"dtype\":\"bfloat16\"},0,[0,1,2,3]]}")
  echo "$r" | grep -q '"source": "MEASURED".*"kernel_type": "hcom_allReduce_"' ||
    { echo "$row: $r"; return 1; }
}
ok "import: a TP all-reduce is answered by the custom all-reduce table by bytes and GPUs" t_comm

t_fp8_kv() {
  # generation row: batch 2, isl 1, 48 heads / 48 KV heads, head_dim 64, kv fp8, step 4095
  r=$(q '{"op":"tensor_cast.attention.default","args":[{"shape":[2,48,1,64],"dtype":"bfloat16"},{"shape":[2,48,4096,64],"dtype":"float8_e4m3fn"},{"shape":[2,48,4096,64],"dtype":"float8_e4m3fn"},null,null,null,{"shape":[2],"dtype":"int64","values":[4096,4096]},{"shape":[2],"dtype":"int64","values":[1,1]}],"out":[{"shape":[2,48,1,64],"dtype":"bfloat16"}]}')
  echo "$r" | grep -q '"source": "MEASURED".*"latency_us": 43.67466767628988,.*"kernel_type": "FusedInferAttentionScore"' ||
    { echo "$r"; return 1; }
}
ok "import: a decode attention over an FP8 KV cache is answered by the fp8 rows (KV length isl + step)" \
  t_fp8_kv

t_validate() { msperf validate --profiling-database "$tmp/db"; }
ok "import: msperf validate accepts the imported database (gzip tables)" t_validate

# The real tables beside the source tree: the shipped database is their import.
tables=${MSPERF_AIC_TABLES:-$top/../shared/data/aic-h200/tables}
if [ -d "$tables" ]; then
  t_real() {
    msperf import aiconfigurator "$tables" --out "$tmp/real" --elementwise-from "$sample" \
      2>/dev/null && diff -r "$tmp/real" "$top/data/nvidia-h200"
  }
  ok "import: re-importing aiconfigurator's H200 tables reproduces data/nvidia-h200 byte for byte" \
    t_real
else
  skip "aiconfigurator's H200 tables not found at $tables (set MSPERF_AIC_TABLES)"
fi

t_e2e_default() {
  cfg=$top/tests/data/models/configs/meta-llama--Meta-Llama-3.1-70B.json
  msperf e2e --model "$cfg" --tp 4 --isl 1024 --osl 1024 --batch 16 --no-cache >"$tmp/e2e" \
    2>/dev/null || return 1
  share=$(sed -n 's/^answered from data *\([0-9.]*\) %.*/\1/p' "$tmp/e2e")
  awk -v s="$share" 'BEGIN { exit !(s >= 95.0) }' || { cat "$tmp/e2e"; return 1; }
}
ok "e2e: the default database (the imported one) answers Llama-3.1-70B TP 4 >= 95 % from data" \
  t_e2e_default

t_e2e_fused_moe() {
  cfg=$top/tests/data/models/configs/Qwen--Qwen3-30B-A3B.json
  msperf trace --model "$cfg" --tp 2 --quant fp8 --phase decode --batch 8 -o "$tmp/moe.jsonl" \
    2>/dev/null &&
  msperf estimate --no-cache --profiling-database "$top/data/nvidia-h200" --ops "$tmp/moe.jsonl" \
    --format jsonl >"$tmp/moe.out" 2>/dev/null || return 1
  grep '"op": "tensor_cast.fused_moe.default"' "$tmp/moe.out" | grep -q '"kernel_type": "FusedMoE"' &&
  ! grep '"op": "tensor_cast.fused_moe.default"' "$tmp/moe.out" | grep -q '"source": "ANALYTIC"' ||
    { grep fused_moe "$tmp/moe.out"; return 1; }
}
ok "e2e: the shipped database answers an fp8 fused MoE from FusedMoE (field_table), not the roofline" \
  t_e2e_fused_moe

# ------------------------------------------------------------- mapping draft / check
cfgs=$top/tests/data/models/configs
for c in meta-llama--Meta-Llama-3.1-70B Qwen--Qwen3-30B-A3B deepseek-ai--DeepSeek-V3; do
  for ph in prefill decode; do
    msperf trace --model "$cfgs/$c.json" --tp 8 --ep 8 --phase "$ph" --batch 4 \
      -o "$tmp/t-$c-$ph.jsonl" 2>/dev/null
  done
done
traces=$(ls "$tmp"/t-*.jsonl)

t_check_shipped() {
  # shellcheck disable=SC2086
  msperf mapping check --database "$top/data/nvidia-h200" --ops $traces >"$tmp/chk" 2>&1 ||
    { cat "$tmp/chk"; return 1; }
  grep -q "^schema: 0 problem(s); lookup: 0 problem(s) in [0-9]* entries" "$tmp/chk" &&
  grep -q "^aten.mm.default  *compute  *MatMulV2 " "$tmp/chk" &&
  grep -q "^tensor_cast.attention.default  *attention_special  *FusedInferAttentionScore " "$tmp/chk" &&
  grep -q "^tensor_cast.apply_rope.default  *elementwise  *Silu " "$tmp/chk" &&
  grep -q "^tensor_cast.fused_moe.default  *field_table  *FusedMoE " "$tmp/chk" &&
  grep -q "^tensor_cast.reshape_and_cache.default  *elementwise  *Add " "$tmp/chk" &&
  grep -q "^kernels never used by the mapping: .*AicMlaContextModule" "$tmp/chk" ||
    { cat "$tmp/chk"; return 1; }
  # --require-coverage fails exactly when the report lists unmapped ops, naming each
  # shellcheck disable=SC2086
  msperf mapping check --database "$top/data/nvidia-h200" --require-coverage --ops $traces \
    >/dev/null 2>"$tmp/e"
  st=$?
  if grep -q "^coverage: .*(unmapped" "$tmp/chk"; then
    unmapped=$(sed -n 's/^coverage: .*roofline: \(.*\))$/\1/p' "$tmp/chk")
    [ $st -eq 1 ] || return 1
    for op in $unmapped; do
      grep -q "coverage: operator '$op' of the traces is not mapped" "$tmp/e" || return 1
    done
  else
    [ $st -eq 0 ]
  fi
}
ok "mapping check: the shipped mapping passes schema and lookup; the per-op report lists what is unmapped" \
  t_check_shipped

t_check_bad() {
  mkdir -p "$tmp/badmap" &&
  cp "$tmp/db/MatMulV2.csv.gz" "$tmp/db/hcom_allGather_.csv.gz" "$tmp/badmap/" &&
  cat >"$tmp/badmap/op_mapping.yaml" <<'YAML'
version: "1.0"
operator_mappings:
  "aten.mm.default":
    kernel_type: MatMulV2
    composite: true
    sub_kernels: [MatMulV2]
  "tensor_cast.all_reduce.default":
    kernel_type: MatMulV2
    category: communication
  "aten.add.Tensor":
    zero_cost: true
    tc_input_count: 2
  "aten.linear.default":
    kernel_type: Missing
  "aten.bmm.default":
    kernel_type: MatMulV2
    alternate_kernel_types: [hcom_allGather_]
  "tensor_cast.all_gather.default":
    kernel_type: hcom_allGather_
    category: communication
YAML
  msperf mapping check --database "$tmp/badmap" >"$tmp/o" 2>"$tmp/e"
  [ $? -eq 1 ] &&
  grep -q "op_mapping.yaml:4: operator 'aten.mm.default': kernel_type, composite and zero_cost exclude each other" "$tmp/e" &&
  grep -q "operator 'tensor_cast.all_reduce.default': a communication entry's kernel_type must be a collective table (hcom_\*), not 'MatMulV2'" "$tmp/e" &&
  grep -q "operator 'aten.add.Tensor': tc_input_count" "$tmp/e" &&
  grep -q "lookup: .*operator 'aten.linear.default': Missing.csv not found" "$tmp/e" &&
  grep -q "operator 'aten.bmm.default': alternate 'hcom_allGather_' is the kernel of operator 'tensor_cast.all_gather.default'" "$tmp/e" ||
    { cat "$tmp/o" "$tmp/e"; return 1; }
}
ok "mapping check: contract violations are FILE:LINE problems (exit 1)" t_check_bad

t_draft() {
  mkdir -p "$tmp/nomap" && cp "$tmp/db"/*.csv.gz "$tmp/nomap/" &&
  # shellcheck disable=SC2086
  msperf mapping draft --database "$tmp/nomap" --ops $traces >"$tmp/draft.yaml" 2>"$tmp/e" ||
    { cat "$tmp/e"; return 1; }
  [ ! -e "$tmp/nomap/op_mapping.yaml" ] || { echo "draft left a mapping behind"; return 1; }
  # every op the importer maps is drafted to the same kernel
  for pair in aten.mm.default:MatMulV2 tensor_cast.attention.default:FusedInferAttentionScore \
              tensor_cast.all_reduce.default:hcom_allReduce_ \
              tensor_cast.all_gather.default:hcom_allGather_ \
              tensor_cast.all_to_all.default:hcom_alltoall_; do
    op=${pair%%:*}; k=${pair#*:}
    grep -A1 "^  \"$op\":" "$tmp/draft.yaml" | grep -q "kernel_type: $k" ||
      { echo "$op not drafted to $k"; cat "$tmp/draft.yaml"; return 1; }
  done
  grep -A2 '^  "tensor_cast.matmul_all_reduce.default":' "$tmp/draft.yaml" |
    grep -q "sub_kernels: \[MatMulV2, hcom_allReduce_\]" &&
  grep -q '^  # "tensor_cast.apply_rope.default": no kernel table' "$tmp/draft.yaml" &&
  grep -A2 '^  "tensor_cast.fused_moe.default":' "$tmp/draft.yaml" |
    grep -q "query_mode: field_table" &&
  grep -A1 '^  "profiling.AicMlaContextModule":' "$tmp/draft.yaml" |
    grep -q "kernel_type: AicMlaContextModule" ||
    { cat "$tmp/draft.yaml"; return 1; }
  # the draft is a valid mapping
  { echo 'version: "1.0"'; cat "$tmp/draft.yaml"; } >"$tmp/nomap/op_mapping.yaml" &&
  msperf mapping check --database "$tmp/nomap" >/dev/null 2>"$tmp/e" || { cat "$tmp/e"; return 1; }
}
ok "mapping draft: forward entries as the importer maps them, reverse placeholders, and it checks clean" \
  t_draft

tap_end
