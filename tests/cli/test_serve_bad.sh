#!/bin/sh
# CLI tests of bad input to serve and accuracy (doc/serving.md §7): every flag outside its
# range refused with the flag named (exit 2), request files with FILE:LINE, a KV cache smaller
# than one request refused before simulating on every backend, the bound on a simulation's
# events, and accuracy rows answered one by one with the reason of each unmapped row. Every
# refusal comes before any long simulation, so the file is quick under valgrind too. TAP.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}"
bin="$MSPERF_BIN --plugins-dir $MSPERF_TEST_PLUGINDIR"
src=$MSPERF_TOP_SRCDIR
configs=$src/tests/data/models/configs
llama=$configs/meta-llama--Meta-Llama-3.1-8B.json
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

lacks() { ! grep -qi -- "$2" "$1" || { echo "'$2' in $1:"; head -n 30 "$1"; return 1; }; }

refused() {  # refused FLAG-IN-MESSAGE ARGS... : exit 2, the flag named, no figures
  flag=$1; shift
  status_is 2 $bin serve --model "$llama" --format csv "$@" || return 1
  contains "$tmp/cmd.err" "msperf serve: .*$flag" || return 1
  [ ! -s "$tmp/cmd.out" ] || { echo "figures printed:"; cat "$tmp/cmd.out"; return 1; }
}

t_flags() {
  refused --concurrency --concurrency 0 || return 1
  refused --concurrency --concurrency -3 || return 1
  refused --osl --osl 0 || return 1
  refused --isl --isl 0 || return 1
  refused --decode-max-num-seqs --mode disagg --decode-max-num-seqs 0 || return 1
  refused --prefill-max-num-seqs --mode disagg --prefill-max-num-seqs -1 || return 1
  refused --isl --isl 2000000000 || return 1
  for r in 0 nan NaN inf -inf -1 abc 1e999; do
    refused "--rate must be a finite number > 0.*'$r'" --rate "$r" || return 1
  done
  refused --num-requests --num-requests 0 || return 1
  refused --max-events --max-events 0 || return 1
  refused "--nextn must be an integer >= 0, not -1" --nextn -1 || return 1
  for p in 1.5 -0.1; do
    refused "--nextn-accept must be in 0..1, not $p" --nextn 1 --nextn-accept "$p" || return 1
  done
}
ok "serve: concurrency/isl/osl/num-requests 0, rate 0/nan/inf/negative, nextn and its acceptance out of range refused naming the flag" t_flags

t_huge() {
  # 10^9 clients are 10^10 requests by default, past the bound of events: refused, not run.
  refused "--max-events N raises it" --concurrency 1000000000 || return 1
  contains "$tmp/cmd.err" "10000000000 requests exceed the bound of 100000000 events" || return 1
  refused "--max-events N raises it" --num-requests 2000000000 || return 1
  refused "--max-events N raises it" --concurrency 4 --num-requests 200 --max-events 100 \
    || return 1
  refused "a prompt pool of 2000000000" --prompt-pool 2000000000 || return 1
  refused "--max-events N raises it" --prompt-pool 10 --prompt-warmup 2000000000 || return 1
  refused "--prompt-pool" --prompt-pool -1 || return 1
}
ok "serve: concurrency 10^9, huge --num-requests, --prompt-pool, --prompt-warmup refused with the bound named" t_huge

t_max_events() {
  # Small requests: the file stays quick under valgrind.
  status_is 1 $bin serve --model "$llama" --concurrency 4 --num-requests 20 --isl 64 --osl 4 \
    --max-events 30 || return 1
  contains "$tmp/cmd.err" "passed the bound of 30 events (--max-events N raises it)" || return 1
  status_is 0 $bin serve --model "$llama" --concurrency 4 --num-requests 20 --isl 64 --osl 4 \
    --max-events 100000 --format json || return 1
  contains "$tmp/cmd.out" '"measured": 20' || return 1
}
ok "serve --max-events: refused past the bound, raised by the flag" t_max_events

t_kv_small() {
  for b in vllm sglang trtllm static; do
    status_is 1 $bin serve --model "$llama" --backend $b --kv-capacity-tokens 10 --isl 1024 \
      --concurrency 2 --num-requests 4 || return 1
    contains "$tmp/cmd.err" "needs 1151 tokens of KV cache (isl 1024, osl 128)" || return 1
    contains "$tmp/cmd.err" "refused before simulating" || return 1
  done
  # Just short of the last step's KV on trtllm's no-evict policy (blocks of 32).
  status_is 1 $bin serve --model "$llama" --backend trtllm --kv-capacity-tokens 1100 --isl 1024 \
    --concurrency 2 --num-requests 4 || return 1
  contains "$tmp/cmd.err" "holds 1088 tokens (34 blocks of 32)" || return 1
  # A model whose weights leave no room at all.
  for b in vllm trtllm; do
    status_is 1 $bin serve --model "$llama" --backend $b --memory-gib 1 --concurrency 2 \
      --num-requests 4 || return 1
    contains "$tmp/cmd.err" "leave no KV cache" || return 1
  done
  status_is 1 $bin serve --model "$llama" --backend static --memory-gib 1 --concurrency 2 || return 1
  contains "$tmp/cmd.err" "do not fit in 1.0 GiB" || return 1
  # Two pipeline stages' micro-batches split a rank's cache: a request that fits the rank does
  # not fit the half one micro-batch holds, and the message says why; one batch at a time, it runs.
  status_is 1 $bin serve --model "$llama" --backend vllm --pp 2 --kv-capacity-tokens 6000 \
    --isl 4000 --osl 16 --concurrency 2 --num-requests 4 || return 1
  contains "$tmp/cmd.err" "holds 2992 tokens (187 blocks of 16) for each of its pipeline's micro-batches" ||
    return 1
  status_is 0 $bin serve --model "$llama" --backend vllm --pp 2 --kv-capacity-tokens 6000 \
    --isl 4000 --osl 16 --concurrency 2 --num-requests 4 --pp-microbatches false || return 1
}
ok "serve: a KV cache smaller than one request refused before simulating, every backend" t_kv_small

req() {  # req NAME LINES... : one request file
  name=$1; shift
  printf '%s\n' "$@" > "$tmp/$name"
}

bad_file() {  # bad_file NAME PATTERN
  status_is 2 $bin serve --model "$llama" --requests "$tmp/$1" --format csv || return 1
  contains "$tmp/cmd.err" "msperf serve: .*$1$2" || return 1
  [ ! -s "$tmp/cmd.out" ] || return 1
}

t_request_files() {
  good='{"arrival_s": 0, "input_tokens": 64, "output_tokens": 4}'
  req unsorted.jsonl "$good" '{"arrival_s": 2, "input_tokens": 8, "output_tokens": 2}' \
    '{"arrival_s": 1, "input_tokens": 8, "output_tokens": 2}'
  bad_file unsorted.jsonl ":3: arrivals must not decrease (1 s after 2 s): sort the file" \
    || return 1
  req negative.jsonl "$good" '{"arrival_s": -0.5, "input_tokens": 8, "output_tokens": 2}'
  bad_file negative.jsonl ":2: expected" || return 1
  req nan.jsonl "$good" '{"arrival_s": 1, "input_tokens": NaN, "output_tokens": 2}'
  bad_file nan.jsonl ":2:36: Parse error" || return 1
  req text.jsonl "$good" '' '{"arrival_s": 1, "input_tokens": "64", "output_tokens": 2}'
  bad_file text.jsonl ":3: expected" || return 1
  req negtok.jsonl '{"arrival_s": 1, "input_tokens": 8, "output_tokens": -2}'
  bad_file negtok.jsonl ":1: expected" || return 1
  req frac.jsonl '{"arrival_s": 1, "input_tokens": 8.5, "output_tokens": 2}'
  bad_file frac.jsonl ":1: expected" || return 1
  req huge.jsonl "$good" '{"arrival_s": 1, "input_tokens": 1e30, "output_tokens": 2}'
  bad_file huge.jsonl ":2: a token count above 1073741824" || return 1
  req malformed.jsonl "# comment" "$good" '{"arrival_s": 1, "input_tokens": 8,'
  bad_file malformed.jsonl ":3:[0-9]*: Parse error" || return 1
  req array.jsonl '[0, 64, 4]'
  bad_file array.jsonl ":1: expected" || return 1
  : > "$tmp/empty.jsonl"
  bad_file empty.jsonl ": no requests" || return 1
  req blank.jsonl '' '# only a comment' ''
  bad_file blank.jsonl ": no requests" || return 1
  req two.jsonl "$good" '{"arrival_s": 1, "input_tokens": 8, "output_tokens": 2}{"x": 1}'
  bad_file two.jsonl ":2: unexpected content after the JSON value" || return 1
  req comment.jsonl "$good" '// a comment in the C style'
  bad_file comment.jsonl ":2: expected a JSON object" || return 1
  # json-glib recurses without a bound: a line of 100,000 '[' crashed serve before the check.
  { echo "$good"; head -c 100000 /dev/zero | tr '\0' '['; echo; } > "$tmp/deep.jsonl"
  bad_file deep.jsonl ":2: JSON nesting deeper than 64 levels" || return 1
  printf '{"arrival_s": 0, "input_tokens": 8, "output_tokens": 2}\n\377\n' > "$tmp/latin.jsonl"
  bad_file latin.jsonl ": not UTF-8 text" || return 1
}
ok "serve --requests: unsorted, negative, NaN, text, huge, malformed, empty files are FILE:LINE" \
  t_request_files

t_request_ties() {
  # Equal arrivals are kept, in file order; a request the KV cache cannot hold is refused.
  req ties.jsonl '{"arrival_s": 0, "input_tokens": 64, "output_tokens": 4}' \
    '{"arrival_ms": 0, "input_tokens": 32, "output_tokens": 2}' \
    '{"arrival_s": 0, "input_tokens": 16, "output_tokens": 8}'
  status_is 0 $bin serve --model "$llama" --requests "$tmp/ties.jsonl" --format json || return 1
  contains "$tmp/cmd.out" '"measured": 3' || return 1
  lacks "$tmp/cmd.out" 'nan' || return 1
  req big.jsonl '{"arrival_s": 0, "input_tokens": 100000000, "output_tokens": 4}'
  status_is 1 $bin serve --model "$llama" --requests "$tmp/big.jsonl" || return 1
  contains "$tmp/cmd.err" "request 0 needs 100000003 tokens of KV cache" || return 1
}
ok "serve --requests: duplicate arrival times run; one too large for the KV cache is refused" \
  t_request_ties

hdr=id,silicon_data_source,backend,model_path,mode,isl,osl,tp_size,silicon_ttft_ms,silicon_tpot_ms

accuracy_csv() {  # accuracy_csv FILE [MODELS] : per-row csv of FILE into $tmp/cmd.out, 2 requests a client
  status_is 0 $bin accuracy --silicon "$1" --models-dir "${2:-$configs}" --format csv --jobs 1 \
    --requests-per-client 2
}

good_row=r_ok,silicon_concurrency=1,vllm,meta-llama/Meta-Llama-3.1-8B,agg,128,8,1,20.0,5.0

t_accuracy_rows() {
  { echo "$hdr"
    echo "$good_row"
    echo r_model,silicon_concurrency=1,vllm,acme/Nonexistent-7B,agg,128,8,1,20.0,5.0
    echo r_backend,silicon_concurrency=1,tgi,meta-llama/Meta-Llama-3.1-8B,agg,128,8,1,20.0,5.0
    echo r_path,silicon_concurrency=1,../vllm,meta-llama/Meta-Llama-3.1-8B,agg,128,8,1,20.0,5.0
    echo r_ttft,silicon_concurrency=1,vllm,meta-llama/Meta-Llama-3.1-8B,agg,128,8,1,abc,5.0
    echo r_tpot,silicon_concurrency=1,vllm,meta-llama/Meta-Llama-3.1-8B,agg,128,8,1,20.0,nan
    echo r_neg,silicon_concurrency=1,vllm,meta-llama/Meta-Llama-3.1-8B,agg,128,8,1,-3,5.0
    echo r_isl,silicon_concurrency=1,vllm,meta-llama/Meta-Llama-3.1-8B,agg,x,8,1,20.0,5.0
    echo r_tp,silicon_concurrency=1,vllm,meta-llama/Meta-Llama-3.1-8B,agg,128,8,0,20.0,5.0
    echo "r_c0,model=x; silicon_concurrency=0; wip=False,vllm,meta-llama/Meta-Llama-3.1-8B,agg,128,8,1,20.0,5.0"
    echo "r_cx,silicon_concurrency=12abc,vllm,meta-llama/Meta-Llama-3.1-8B,agg,128,8,1,20.0,5.0"
  } > "$tmp/rows.csv"
  accuracy_csv "$tmp/rows.csv" || return 1
  o=$tmp/cmd.out
  [ "$(wc -l < "$o")" -eq 12 ] || { cat "$o"; return 1; }
  contains "$o" '^r_ok,[0-9.]*,[0-9.]*,[0-9.]*,ok' || return 1
  contains "$o" '^r_model,,,,unmapped: no config for acme/Nonexistent-7B' || return 1
  contains "$o" "^r_backend,,,,unmapped: no scheduler preset for backend 'tgi'" || return 1
  contains "$o" "^r_path,,,,unmapped: line 5: backend '../vllm' is not a preset name" || return 1
  contains "$o" "^r_ttft,,,,unmapped: line 6: silicon_ttft_ms 'abc' is not a number > 0" \
    || return 1
  contains "$o" "^r_tpot,,,,unmapped: line 7: silicon_tpot_ms 'nan' is not a number > 0" \
    || return 1
  contains "$o" "^r_neg,,,,unmapped: line 8: silicon_ttft_ms '-3'" || return 1
  contains "$o" "^r_isl,,,,unmapped: line 9: isl/osl not integers >= 1" || return 1
  contains "$o" "^r_tp,,,,unmapped: a parallel size" || return 1
  # a stated client count that is wrong is the row's error, not a cue to use batch_size
  contains "$o" "^r_c0,,,,unmapped: line 11: silicon_concurrency '0' is not an integer >= 1" || return 1
  contains "$o" "^r_cx,,,,unmapped: line 12: silicon_concurrency '12abc' is not an integer >= 1" || return 1
  # The summary leaves the unmapped rows out and stays finite.
  status_is 0 $bin accuracy --silicon "$tmp/rows.csv" --models-dir "$configs" --jobs 1 \
    --requests-per-client 2 || return 1
  contains "$tmp/cmd.out" "rows not mapped: 10" || return 1
  lacks "$tmp/cmd.out" 'nan' || return 1
}
ok "accuracy: unknown models/backends and garbled numbers are per-row statuses, the rest answered" \
  t_accuracy_rows

t_accuracy_checks() {
  # What a file cannot say shows in the status: one measurement under two layouts (an export
  # that wrote one run's sizes two ways, the last digit apart), and disaggregated rows without
  # worker counts. The same measurement under the same layout is a plain repeat, not flagged.
  l=meta-llama/Meta-Llama-3.1-8B
  { echo "$hdr"
    echo "t_a,silicon_concurrency=1,vllm,$l,agg,128,8,1,20.0,5.0"
    echo "t_b,silicon_concurrency=1,vllm,$l,agg,128,8,2,20.000000000000004,5.0"
    echo "t_c,silicon_concurrency=1,vllm,$l,agg,128,8,2,21.0,5.0"
    echo "t_d,silicon_concurrency=1,vllm,$l,agg,128,8,1,22.0,5.5"
    echo "t_e,silicon_concurrency=1,vllm,$l,agg,128,8,1,22.0,5.5"
    echo "t_f,silicon_concurrency=2,vllm,$l,agg,128,8,2,20.0,5.0"
    echo "t_g,silicon_concurrency=1,vllm,$l,disagg,128,8,1,20.0,5.0"
  } > "$tmp/twins.csv"
  accuracy_csv "$tmp/twins.csv" || return 1
  o=$tmp/cmd.out
  contains "$o" '^t_a,.*,ok; the same measurement as row t_b under another layout$' || return 1
  contains "$o" '^t_b,.*,ok; the same measurement as row t_a under another layout$' || return 1
  # Another measurement, a plain repeat, other clients, another mode: none is a twin.
  for r in t_c t_d t_e t_f; do contains "$o" "^$r,.*,ok$" || return 1; done
  contains "$o" '^t_g,.*,ok; no worker counts: one prefill and one decode worker$' || return 1
  status_is 0 $bin accuracy --silicon "$tmp/twins.csv" --models-dir "$configs" --jobs 1 \
    --requests-per-client 2 || return 1
  contains "$tmp/cmd.out" "without worker counts (run with one prefill and one decode worker): 1$" \
    || return 1
  contains "$tmp/cmd.out" "under another layout (the status names it): 2$" || return 1
}
ok "accuracy: one measurement under two layouts and disaggregated rows without worker counts are said" \
  t_accuracy_checks

t_accuracy_stage_batch() {
  # A disaggregated row's decode_batch_size is its decode engines' max batch size: one
  # sequence per rank for four clients makes three wait for a decode slot, which their first
  # token waits for too (TTFT up);
  # with the workers stated there is no worker note; a batch size of 0 is a per-row status.
  l=meta-llama/Meta-Llama-3.1-8B
  { echo "$hdr,prefill_num_workers,decode_num_workers,decode_batch_size"
    echo "s_free,silicon_concurrency=4,vllm,$l,disagg,128,8,1,20.0,5.0,1,1,"
    echo "s_one,silicon_concurrency=4,vllm,$l,disagg,128,8,1,21.0,6.0,1,1,1"
    echo "s_zero,silicon_concurrency=4,vllm,$l,disagg,128,8,1,22.0,7.0,1,1,0"
  } > "$tmp/stage.csv"
  accuracy_csv "$tmp/stage.csv" || return 1
  o=$tmp/cmd.out
  contains "$o" '^s_free,.*,ok$' || return 1
  contains "$o" '^s_zero,,,,unmapped: a batch size is not an integer >= 1' || return 1
  free=$(grep '^s_free,' "$o" | cut -d, -f2)
  one=$(grep '^s_one,' "$o" | cut -d, -f2)
  awk -v f="$free" -v c="$one" 'BEGIN { exit !(f > 0 && c > 2 * f) }' \
    || { echo "TTFT $free without a decode batch size, $one with 1"; return 1; }
}
ok "accuracy: a disaggregated row's decode_batch_size bounds its decode ranks" t_accuracy_stage_batch

t_accuracy_unstated_workers() {
  # --unstated-decode-batch N sizes a disaggregated row without worker counts as the benchmark
  # generator does (clients = decode workers x batch): 8 clients at 2 a rank are the 4 decode
  # workers of the row that states them, the same prediction, said; a stated decode batch size
  # wins over N; rows with counts and the default run are untouched; N < 0 is refused.
  l=meta-llama/Meta-Llama-3.1-8B
  { echo "$hdr,prefill_num_workers,decode_num_workers,decode_batch_size"
    echo "u_none,silicon_concurrency=8,vllm,$l,disagg,128,8,1,20.0,5.0,,,"
    echo "u_stated,silicon_concurrency=8,vllm,$l,disagg,128,8,1,21.0,5.0,1,4,2"
    echo "u_batch,silicon_concurrency=8,vllm,$l,disagg,128,8,1,22.0,5.0,,,4"
  } > "$tmp/unstated.csv"
  accuracy_csv "$tmp/unstated.csv" || return 1
  cp "$tmp/cmd.out" "$tmp/one.out"
  contains "$tmp/one.out" '^u_none,.*,ok; no worker counts: one prefill and one decode worker$' \
    || return 1
  status_is 0 $bin accuracy --silicon "$tmp/unstated.csv" --models-dir "$configs" --format csv \
    --jobs 1 --requests-per-client 2 --unstated-decode-batch 2 || return 1
  o=$tmp/cmd.out
  contains "$o" '^u_none,.*,ok; no worker counts: 1 prefill and 4 decode workers of 2 sequences per rank (the clients fill the decode pool)$' \
    || return 1
  contains "$o" '^u_batch,.*,ok; no worker counts: 1 prefill and 2 decode workers of 4 sequences per rank (the clients fill the decode pool)$' \
    || return 1
  [ "$(grep '^u_none,' "$o" | cut -d, -f2-4)" = "$(grep '^u_stated,' "$o" | cut -d, -f2-4)" ] \
    || return 1
  [ "$(grep '^u_stated,' "$o")" = "$(grep '^u_stated,' "$tmp/one.out")" ] || return 1
  one=$(grep '^u_none,' "$tmp/one.out" | cut -d, -f3)
  four=$(grep '^u_none,' "$o" | cut -d, -f3)
  awk -v a="$one" -v b="$four" 'BEGIN { exit !(b > 0 && b < a) }' \
    || { echo "TPOT $one on one decode worker, $four on four"; return 1; }
  status_is 0 $bin accuracy --silicon "$tmp/unstated.csv" --models-dir "$configs" --jobs 1 \
    --requests-per-client 2 --unstated-decode-batch 2 || return 1
  contains "$tmp/cmd.out" 'without worker counts (run with one prefill worker and the decode workers their clients fill (the status says how many)): 2$' \
    || return 1
  status_is 2 $bin accuracy --silicon "$tmp/unstated.csv" --models-dir "$configs" \
    --unstated-decode-batch -1 || return 1
  contains "$tmp/cmd.err" 'unstated-decode-batch >= 0' || return 1
}
ok "accuracy: --unstated-decode-batch sizes a row without worker counts from its clients" \
  t_accuracy_unstated_workers

t_accuracy_system() {
  # A row's system is matched against the device profile's name and aliases, case ignored:
  # the H200 profile's h200_sxm is no note; a B200 row is predicted for the H200 profile and
  # says so in its status, its summary group and the summary's count; no system, no note.
  l=meta-llama/Meta-Llama-3.1-8B
  { echo "$hdr,system"
    echo "y_h200,silicon_concurrency=1,vllm,$l,agg,128,8,1,20.0,5.0,H200_SXM"
    echo "y_b200,silicon_concurrency=1,vllm,$l,agg,128,8,1,20.0,5.0,b200_sxm"
    echo "y_none,silicon_concurrency=1,vllm,$l,agg,128,8,1,20.0,5.0,"
  } > "$tmp/system.csv"
  accuracy_csv "$tmp/system.csv" || return 1
  o=$tmp/cmd.out
  contains "$o" '^y_h200,.*,ok$' || return 1
  contains "$o" '^y_b200,.*,ok; measured on b200_sxm; predicted for nvidia-h200$' || return 1
  contains "$o" '^y_none,.*,ok$' || return 1
  # The same prediction either way: the note does not change the run.
  [ "$(grep '^y_h200,' "$o" | cut -d, -f2-4)" = "$(grep '^y_b200,' "$o" | cut -d, -f2-4)" ] \
    || return 1
  status_is 0 $bin accuracy --silicon "$tmp/system.csv" --models-dir "$configs" --jobs 1 \
    --requests-per-client 2 || return 1
  contains "$tmp/cmd.out" "^$l / vllm / agg  *2 " || return 1
  contains "$tmp/cmd.out" "^$l / vllm / agg / on b200_sxm  *1 " || return 1
  contains "$tmp/cmd.out" "another system than the device profile.*: 1$" || return 1
}
ok "accuracy: a row measured on another system is predicted for the profile and says so" \
  t_accuracy_system

t_accuracy_moe_quant() {
  # moe_quant_mode quantises the experts when it differs from gemm_quant_mode (fp8 linears,
  # fp8_block experts: another prediction than fp8 for both); a mode the templates do not
  # know leaves the experts as the linears, said in the status.
  q=Qwen/Qwen3-30B-A3B
  { echo "$hdr,gemm_quant_mode,moe_quant_mode"
    echo "m_same,silicon_concurrency=2,vllm,$q,agg,128,8,2,20.0,5.0,fp8,fp8"
    echo "m_block,silicon_concurrency=2,vllm,$q,agg,128,8,2,21.0,5.0,fp8,fp8_block"
    echo "m_fp4,silicon_concurrency=2,vllm,$q,agg,128,8,2,22.0,5.0,fp8,nvfp4"
  } > "$tmp/moeq.csv"
  accuracy_csv "$tmp/moeq.csv" || return 1
  o=$tmp/cmd.out
  contains "$o" '^m_same,.*,ok$' || return 1
  contains "$o" '^m_block,.*,ok$' || return 1
  contains "$o" '^m_fp4,.*,ok; experts as the linears (the templates have no quant mode for moe_quant_mode)$' \
    || return 1
  [ "$(grep '^m_same,' "$o" | cut -d, -f2-3)" != "$(grep '^m_block,' "$o" | cut -d, -f2-3)" ] || return 1
  [ "$(grep '^m_same,' "$o" | cut -d, -f2-3)" = "$(grep '^m_fp4,' "$o" | cut -d, -f2-3)" ] || return 1
}
ok "accuracy: a row's moe_quant_mode quantises its experts; an unknown one falls back, said" \
  t_accuracy_moe_quant

t_accuracy_layouts() {
  # A blank attention_dp_size under a larger MoE group is attention data parallelism (vLLM's
  # experts run over dp x tp ranks): the same prediction as the row that states it, said in
  # the status. A layout the model refuses (TP 64 over 32 heads) is answered under the layout
  # of the row that carries its measurement, said; without such a row it stays unmapped.
  q=Qwen/Qwen3-30B-A3B
  h=id,silicon_data_source,backend,model_path,mode,isl,osl,tp_size,attention_dp_size
  { echo "$h,moe_tp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms"
    echo "d_blank,silicon_concurrency=2,vllm,$q,agg,128,8,1,,2,1,20.0,5.0"
    echo "d_stated,silicon_concurrency=2,vllm,$q,agg,128,8,1,2,2,1,21.0,5.0"
    echo "d_dense,silicon_concurrency=2,vllm,$q,agg,128,8,2,,1,1,22.0,5.0"
    echo "w_64,silicon_concurrency=2,vllm,$q,agg,128,8,64,1,8,8,30.0,6.0"
    echo "w_8,silicon_concurrency=2,vllm,$q,agg,128,8,8,1,1,8,30.0,6.0"
    echo "w_alone,silicon_concurrency=2,vllm,$q,agg,128,8,64,1,8,8,31.0,6.0"
    echo "x_c2_tp8_ep8_7,silicon_concurrency=2,vllm,$q,agg,128,8,64,1,8,8,32.0,6.0"
    echo "x_c2_tp8_0_ep8_0_9,silicon_concurrency=2,vllm,$q,agg,128,8,64,1,8,8,33.0,6.0"
    echo "x_c2_tp64_ep8_8,silicon_concurrency=2,vllm,$q,agg,128,8,64,1,8,8,34.0,6.0"
  } > "$tmp/layouts.csv"
  accuracy_csv "$tmp/layouts.csv" || return 1
  o=$tmp/cmd.out
  contains "$o" '^d_blank,.*,ok; attention DP 2 (attention_dp_size blank: moe_tp_size 2 x moe_ep_size 1 over tp_size 1)$' \
    || return 1
  contains "$o" '^d_stated,.*,ok$' || return 1
  contains "$o" '^d_dense,.*,ok$' || return 1
  [ "$(grep '^d_blank,' "$o" | cut -d, -f2-4)" = "$(grep '^d_stated,' "$o" | cut -d, -f2-4)" ] \
    || return 1
  contains "$o" '^w_64,.*,ok; answered under the layout of row w_8 that carries the same measurement (its own: .*layout refused: num_attention_heads 32 is not divisible by --tp 64)$' \
    || return 1
  contains "$o" '^w_8,.*,ok; the same measurement as row w_64 under another layout$' || return 1
  [ "$(grep '^w_64,' "$o" | cut -d, -f2-4)" = "$(grep '^w_8,' "$o" | cut -d, -f2-4)" ] \
    || return 1
  contains "$o" '^w_alone,,,,unmapped: .*layout refused: num_attention_heads 32 is not divisible by --tp 64' \
    || return 1
  # Without a twin, the layout the row's id names (upstream names rows by their deployment);
  # an id that names the refused layout again leaves the row unmapped.
  for x in x_c2_tp8_ep8_7 x_c2_tp8_0_ep8_0_9; do
    contains "$o" "^$x,.*,ok; answered under TP 8 and EP 8 as its id names (its own: .*layout refused: num_attention_heads 32 is not divisible by --tp 64)\$" \
      || return 1
    [ "$(grep "^$x," "$o" | cut -d, -f2-4)" = "$(grep '^w_8,' "$o" | cut -d, -f2-4)" ] \
      || return 1
  done
  contains "$o" '^x_c2_tp64_ep8_8,,,,unmapped: .*not divisible by --tp 64$' || return 1
}
ok "accuracy: a blank attention DP under a larger MoE group is inferred; a refused layout takes its twin's or its id's" \
  t_accuracy_layouts

t_accuracy_quant_config() {
  # A quant mode the templates do not know (nvfp4, which an H200 has no tensor cores for) runs
  # as the checkpoint's quantization_config declares it (mxfp4 experts, bf16 linears), said in
  # the status: the same prediction as a row that leaves the mode to the checkpoint.
  mkdir -p "$tmp/qmodels"
  sed 's/^{/{"quantization_config": {"quant_method": "mxfp4"},/' \
    "$configs/Qwen--Qwen3-30B-A3B.json" > "$tmp/qmodels/acme--Moe-Mxfp4.json"
  cp "$configs/Qwen--Qwen3-30B-A3B.json" "$tmp/qmodels/acme--Moe-Plain.json"
  { echo "$hdr,gemm_quant_mode,moe_quant_mode"
    echo "c_fp4,silicon_concurrency=2,vllm,acme/Moe-Mxfp4,agg,128,8,1,20.0,5.0,nvfp4,nvfp4"
    echo "c_own,silicon_concurrency=2,vllm,acme/Moe-Mxfp4,agg,128,8,1,21.0,5.0,,"
    echo "c_plain,silicon_concurrency=2,vllm,acme/Moe-Plain,agg,128,8,1,22.0,5.0,nvfp4,nvfp4"
  } > "$tmp/qconf.csv"
  accuracy_csv "$tmp/qconf.csv" "$tmp/qmodels" || return 1
  o=$tmp/cmd.out
  contains "$o" "^c_fp4,.*,ok; as the checkpoint's quantization_config: linears bf16 and experts w4a16_mxfp4 (the templates have no quant mode nvfp4)$" \
    || return 1
  contains "$o" '^c_own,.*,ok$' || return 1
  contains "$o" '^c_plain,.*,ok; bf16 (the templates have no quant mode for it)$' || return 1
  [ "$(grep '^c_fp4,' "$o" | cut -d, -f2-3)" = "$(grep '^c_own,' "$o" | cut -d, -f2-3)" ] \
    || return 1
  [ "$(grep '^c_fp4,' "$o" | cut -d, -f2-3)" != "$(grep '^c_plain,' "$o" | cut -d, -f2-3)" ] \
    || return 1
}
ok "accuracy: an unknown quant mode runs as the checkpoint's quantization_config, said" \
  t_accuracy_quant_config

t_accuracy_csv() {
  { echo "id,silicon_data_source,backend,model_path,mode,isl,osl,tp_size,silicon_ttft_ms"
    echo "${good_row%,*}"
  } > "$tmp/nocol.csv"
  status_is 0 $bin accuracy --silicon "$tmp/nocol.csv" --models-dir "$configs" --format csv \
    --jobs 1 --requests-per-client 2 || return 1
  contains "$tmp/cmd.out" '^r_ok,,,,unmapped: no column silicon_tpot_ms' || return 1
  { echo "$hdr"; echo "$good_row"; echo; echo "r_short,silicon_concurrency=1,vllm"; } \
    > "$tmp/ragged.csv"
  status_is 1 $bin accuracy --silicon "$tmp/ragged.csv" --models-dir "$configs" || return 1
  contains "$tmp/cmd.err" "ragged.csv:4: 3 fields where the header has 10" || return 1
  { echo "$hdr"; echo "$good_row,extra"; } > "$tmp/long.csv"
  status_is 1 $bin accuracy --silicon "$tmp/long.csv" --models-dir "$configs" || return 1
  contains "$tmp/cmd.err" "long.csv:2: 11 fields where the header has 10" || return 1
}
ok "accuracy: a missing measurement column per row; a ragged row is FILE:LINE" t_accuracy_csv

t_accuracy_bounds() {
  { echo "$hdr"; echo "$good_row"; echo "$good_row" | sed 's/^r_ok/r_two/'
    echo "$good_row" | sed 's/^r_ok/r_three/'; } > "$tmp/three.csv"
  status_is 1 $bin accuracy --silicon "$tmp/three.csv" --models-dir "$configs" --max-rows 2 \
    || return 1
  contains "$tmp/cmd.err" "three.csv:4: more than 2 rows (the bound --max-rows" || return 1
  status_is 0 $bin accuracy --silicon "$tmp/three.csv" --models-dir "$configs" --format csv \
    --jobs 1 --requests-per-client 2 --max-events 3 || return 1
  [ "$(grep -c 'unmapped: .*(--max-events N raises it)' "$tmp/cmd.out")" -eq 3 ] \
    || { cat "$tmp/cmd.out"; return 1; }
  for v in 0 -5; do
    status_is 2 $bin accuracy --silicon "$tmp/three.csv" --models-dir "$configs" --max-rows "$v" \
      || return 1
    status_is 2 $bin accuracy --silicon "$tmp/three.csv" --models-dir "$configs" \
      --max-events "$v" || return 1
  done
  contains "$tmp/cmd.err" "max-events must be" || return 1
}
ok "accuracy --max-rows / --max-events: past the file bound refused, past the event bound per row" \
  t_accuracy_bounds

tap_end
