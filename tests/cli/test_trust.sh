#!/bin/sh
# Runs you can trust: checked writes, non-regular inputs, strict command lines,
# warnings a user can act on, the headline, shapes, the Chrome trace, the second bad-input
# campaign. Each case asserts the message and the exit status. TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}"
bin=$MSPERF_BIN
src=$MSPERF_TOP_SRCDIR
bad=$src/tests/data/bad
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# run EXPECTED_STATUS COMMAND... : stdout to $tmp/out, stderr to $tmp/err
run() {
  want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  [ "$got" -eq "$want" ] || { echo "exit $got, expected $want: $*"; head -n 20 "$tmp/err"; return 1; }
}
has() { grep -q -- "$2" "$1" || { echo "'$2' not in $1:"; head -n 30 "$1"; return 1; }; }
hasnt() { ! grep -q -- "$2" "$1" || { echo "'$2' unexpectedly in $1:"; grep -- "$2" "$1" | head -n 5; return 1; }; }

fresh_db() {
  rm -rf "$tmp/case"
  mkdir -p "$tmp/case/db"
  cp "$bad/base/op_mapping.yaml" "$bad/base/Add.csv" "$bad/base/MatMulV2.csv" "$tmp/case/db/"
  cp "$bad/base/ops.jsonl" "$tmp/case/"
}

# ---- every write checked
full_ok=no
[ -w /dev/full ] && full_ok=yes
t_full_format() {
  for f in table json jsonl csv; do
    run 2 sh -c "'$bin' estimate --format $f >/dev/full" || return 1
    has "$tmp/err" "msperf: stdout: No space left on device" || return 1
  done
}
t_full_commands() {
  fresh_db
  run 2 sh -c "'$bin' query --op '{\"op\": \"aten.add.Tensor\"}' >/dev/full" || return 1
  has "$tmp/err" "msperf: stdout: No space left on device" || return 1
  run 2 sh -c "'$bin' validate --profiling-database '$tmp/case/db' >/dev/full" || return 1
  has "$tmp/err" "msperf: stdout: No space left on device" || return 1
  run 2 sh -c "'$bin' --plugins-dir '$MSPERF_TEST_PLUGINDIR' plugins list >/dev/full" || return 1
  has "$tmp/err" "msperf: stdout: No space left on device" || return 1
  run 2 sh -c "'$bin' att duplicate --dtype float16 --count 64 >/dev/full" || return 1
  has "$tmp/err" "msperf: stdout: No space left on device"
}
t_full_files() {
  for o in --chrome-trace --export-empirical-metrics; do
    run 2 "$bin" estimate --format jsonl "$o" /dev/full || return 1
    has "$tmp/err" "msperf: /dev/full: No space left on device" || return 1
  done
  # /dev/full stays a device (an output never replaces a special file)
  [ -c /dev/full ] || { echo "/dev/full is no longer a character device"; return 1; }
}
if [ "$full_ok" = yes ]; then
  ok "a full stdout ends every --format with 'msperf: stdout: <strerror>', exit 2" t_full_format
  ok "a full stdout fails query, validate, plugins and att with exit 2" t_full_commands
  ok "a full --chrome-trace / metrics file is named with its strerror, exit 2" t_full_files
else
  skip "full stdout" "no writable /dev/full"; skip "full stdout commands" "no /dev/full"
  skip "full output files" "no /dev/full"
fi

t_symlink_output() {
  mkdir -p "$tmp/out1" "$tmp/other"
  : >"$tmp/other/victim.json"
  ln -sf "$tmp/other/victim.json" "$tmp/out1/m.json"
  run 2 "$bin" estimate --format jsonl --export-empirical-metrics "$tmp/out1/m.json" || return 1
  has "$tmp/err" "symbolic link out of its directory" || return 1
  [ ! -s "$tmp/other/victim.json" ] || { echo "wrote through the link"; return 1; }
  [ -L "$tmp/out1/m.json" ] || { echo "the link was replaced"; return 1; }
}
ok "an output symlink out of its directory is refused, the link kept" t_symlink_output

t_regular_output_mode() {
  : >"$tmp/m.json"; chmod 640 "$tmp/m.json"
  run 0 "$bin" estimate --format jsonl --export-empirical-metrics "$tmp/m.json" || return 1
  [ -s "$tmp/m.json" ] || { echo "metrics file empty"; return 1; }
  [ "$(stat -c %a "$tmp/m.json")" = 640 ] || { echo "mode changed"; return 1; }
  ls -a "$tmp" | grep -q '^\.m\.json\.' && { echo "temporary file left"; return 1; }
  return 0
}
ok "a regular output is replaced atomically, keeping its mode, no temporary left" t_regular_output_mode

t_same_output() {
  run 2 "$bin" estimate --report "$tmp/x.json" --export-empirical-metrics "$tmp/x.json" || return 1
  has "$tmp/err" "name the same file" || return 1
  [ ! -e "$tmp/x.json" ] || { echo "wrote before refusing"; return 1; }
}
ok "one file named for two outputs is refused before the run (exit 2)" t_same_output

t_report_suffix_first() {
  run 2 "$bin" estimate --report "$tmp/r.txt" || return 1
  has "$tmp/err" "unknown report format" || return 1
  [ ! -s "$tmp/out" ] || { echo "ran before refusing"; return 1; }
}
ok "a --report suffix is checked before the run" t_report_suffix_first

# ---- inputs that are not regular files
t_dir_ops() {
  run 2 "$bin" estimate --ops "$tmp" || return 1
  has "$tmp/err" "not a regular file (a directory)" || return 1
  [ "$(wc -l <"$tmp/err")" -le 2 ] || { echo "more than one message"; return 1; }
}
ok "--ops DIR is refused at open, once (exit 2)" t_dir_ops
t_dev_ops() {
  run 2 "$bin" estimate --ops /dev/zero || return 1
  has "$tmp/err" "not a regular file (a character device)"
}
ok "--ops on a character device is refused at open" t_dev_ops
t_fifo_ops() {
  mkfifo "$tmp/fifo" || return 1
  (cat "$bad/base/ops.jsonl" >"$tmp/fifo") &
  fresh_db
  run 0 "$bin" estimate --profiling-database "$tmp/case/db" --ops "$tmp/fifo" --format jsonl || return 1
  [ "$(wc -l <"$tmp/out")" -eq 2 ] || { echo "expected 2 answers"; return 1; }
}
ok "--ops on a FIFO is read (a pipe from another program)" t_fifo_ops
t_db_fifo() {
  fresh_db
  rm "$tmp/case/db/MatMulV2.csv"
  mkfifo "$tmp/case/db/MatMulV2.csv"
  run 0 timeout 20 "$bin" estimate --profiling-database "$tmp/case/db" --ops "$tmp/case/ops.jsonl" --format jsonl || return 1
  has "$tmp/out" '"op": "aten.add.Tensor"' || return 1
  run 1 timeout 20 "$bin" validate --profiling-database "$tmp/case/db" || return 1
  has "$tmp/out" "not a regular file (a FIFO)"
}
ok "a FIFO in a database is refused without hanging, named in validate" t_db_fifo
t_policy_dir() {
  run 2 "$bin" --policy "$tmp" estimate || return 1
  has "$tmp/err" "not a regular file (a directory)"
}
ok "--policy DIR is refused with a clear message" t_policy_dir

# ---- strict command lines
t_foreign_op() {
  run 2 "$bin" estimate --op "$tmp/x" || return 1
  has "$tmp/err" "msperf estimate: unknown option --op for 'estimate' (did you mean --ops?)"
}
ok "estimate --op is an error naming estimate, suggesting --ops (exit 2)" t_foreign_op
t_foreign_ops() {
  run 2 "$bin" query --ops x || return 1
  has "$tmp/err" "unknown option --ops for 'query' (did you mean --op?)"
}
ok "query --ops is an error suggesting --op (exit 2)" t_foreign_ops
t_typo() {
  run 2 "$bin" validate --profiling-databse x || return 1
  has "$tmp/err" "did you mean --profiling-database?"
}
ok "a near-miss option name gets a 'did you mean'" t_typo
t_sizes() {
  for v in 0 -1; do
    for f in --tp-size --ep-size --dp-size --world-size; do
      run 2 "$bin" estimate "$f=$v" || return 1
      has "$tmp/err" "$f must be an integer >= 1, not $v" || return 1
    done
  done
}
ok "0 and negative sizes are refused (exit 2)" t_sizes
# trace, e2e and sweep: another command's option names the command; sizes 0/negative refused.
t_model_foreign() {
  for c in trace e2e sweep; do
    run 2 "$bin" $c --ops x || return 1
    has "$tmp/err" "msperf $c: unknown option --ops for '$c' (run 'msperf $c --help' for its options)" || return 1
    run 2 "$bin" $c --tp-size 2 || return 1
    has "$tmp/err" "msperf $c: unknown option --tp-size for '$c' (did you mean --tp?)" || return 1
  done
  run 2 "$bin" e2e --modle x || return 1
  has "$tmp/err" "unknown option --modle for 'e2e' (did you mean --model?)" || return 1
  run 2 "$bin" estimate --tp 2 || return 1
  has "$tmp/err" "msperf: --tp is an option of --model CONFIG, given without it" || return 1
  run 2 "$bin" query --tp 2 --op '{}' || return 1
  has "$tmp/err" "unknown option --tp for 'query' (did you mean --tp-size?)"
}
ok "trace/e2e/sweep refuse another command's option, naming the command, with 'did you mean' (exit 2)" t_model_foreign
t_model_sizes() {
  for v in 0 -3; do
    for f in --tp --ep --dp --pp --batch --seq; do
      run 2 "$bin" trace "$f=$v" || return 1
      has "$tmp/err" "msperf trace: $f must be an integer >= 1, not $v" || return 1
    done
    for f in --isl --osl --batch --tp; do
      run 2 "$bin" e2e "$f" "$v" || return 1
      has "$tmp/err" "msperf e2e: $f must be an integer >= 1, not $v" || return 1
    done
    run 2 "$bin" sweep --devices "$v" || return 1
    has "$tmp/err" "msperf sweep: --devices must be an integer >= 1, not $v" || return 1
    run 2 "$bin" sweep --tp "$v" --model x || return 1
    has "$tmp/err" "msperf sweep: --tp must be a comma-separated list of positive integers" || return 1
    run 2 "$bin" e2e --memory-gib "$v" || return 1
    has "$tmp/err" "msperf e2e: --memory-gib must be > 0, not $v" || return 1
    run 2 "$bin" estimate --model x --pp "$v" || return 1
    has "$tmp/err" "msperf: --pp must be an integer >= 1, not $v" || return 1
  done
  run 2 "$bin" trace --phase decode --context 0 || return 1
  has "$tmp/err" "msperf trace: --context must be an integer >= 1, not 0" || return 1
  run 2 "$bin" trace --phase decode --nextn -1 || return 1
  has "$tmp/err" "msperf trace: --nextn must be an integer >= 0, not -1" || return 1
  run 2 "$bin" e2e --nextn-accept 1.5 || return 1
  has "$tmp/err" "msperf e2e: --nextn-accept must be in 0..1, not 1.5" || return 1
  run 2 "$bin" sweep --ttft-max 0 || return 1
  has "$tmp/err" "msperf sweep: --ttft-max must be > 0, not 0"
}
ok "trace/e2e/sweep refuse 0 and negative sizes (exit 2)" t_model_sizes
# A NaN is how the commands say "not given": a number flag given nan or inf is refused, not
# read as no limit, on every command and both spellings; a word that is no number keeps
# GOption's message.
t_nonfinite() {
  for v in nan inf -inf NaN; do
    for a in "recommend --rate" "recommend --ttft-max" "recommend --request-latency-max" \
             "serve --nextn-accept" "e2e --memory-gib" "sweep --tpot-max" "holdout --fraction" \
             "accuracy --nextn-accept"; do
      set -- $a
      run 2 "$bin" "$1" "$2" "$v" || return 1
      has "$tmp/err" "msperf $1: $2 must be a finite number, not '$v'" || return 1
      run 2 "$bin" "$1" "$2=$v" || return 1
      has "$tmp/err" "msperf $1: $2 must be a finite number, not '$v'" || return 1
    done
  done
  run 2 "$bin" recommend --rate abc || return 1
  has "$tmp/err" "Cannot parse double value"
}
ok "nan and inf are refused for every number flag (exit 2)" t_nonfinite
t_plugins_foreign() {
  run 2 "$bin" plugins list --format json || return 1
  has "$tmp/err" "unknown option --format for 'plugins'"
}
ok "plugins list refuses an option it does not take" t_plugins_foreign

# ---- smaller bad inputs (second campaign)
t_long_device() {
  long=$(head -c 100000 /dev/zero | tr '\0' a)
  run 2 "$bin" estimate --device-profile "$long" || return 1
  has "$tmp/err" "device profile 'a\{64\}…' is too long (100000 bytes; at most 255)" || return 1
  [ "$(wc -c <"$tmp/err")" -lt 400 ] || { echo "the name is echoed whole ($(wc -c <"$tmp/err") bytes)"; return 1; }
}
ok "a 100 kB device-profile name is quoted cut to 64 bytes, not echoed (exit 2)" t_long_device
t_plugin_esc() {
  rm -rf "$tmp/pd"; mkdir -p "$tmp/pd"
  esc=$(printf '\033')
  printf 'x' >"$tmp/pd/msperf_a${esc}[31mred.la"
  run 0 "$bin" --plugins-dir "$tmp/pd" plugins list || return 1
  ! grep -q "$esc" "$tmp/out" || { echo "raw ESC in plugins list"; return 1; }
  has "$tmp/out" 'a\\x1b\[31mred' || return 1
  run 0 "$bin" --plugins-dir "$tmp/pd" plugins info "a${esc}[31mred" || return 1
  ! grep -q "$esc" "$tmp/out" || { echo "raw ESC in plugins info"; return 1; }
  has "$tmp/out" 'name:         a\\x1b\[31mred' || return 1
}
ok "ESC sequences in module names are printed escaped (\\x1b) by plugins list/info" t_plugin_esc
t_dup_latency() {
  fresh_db
  cp "$tmp/case/ops.jsonl" "$tmp/case/t.jsonl"
  tr -d '\r' <"$bad/base/MatMulV2.csv" | sed -e '1s/$/,Average Duration(us)/' -e '2,$s/$/,1.0/' \
    >"$tmp/case/db/MatMulV2.csv"
  run 1 "$bin" validate --profiling-database "$tmp/case/db" || return 1
  cat "$tmp/out" "$tmp/err" >"$tmp/both"
  has "$tmp/both" "MatMulV2.csv:1: duplicate latency column 'Average Duration(us)' (columns 9 and 10)"
}
ok "a duplicate CSV latency header is refused with file:line (validate exit 1)" t_dup_latency
t_yaml_tags() {
  printf 'interpolation:\n  enabled: !!str true\n' >"$tmp/p1.yaml"
  run 2 "$bin" --policy "$tmp/p1.yaml" estimate || return 1
  has "$tmp/err" "p1.yaml:2: key 'interpolation.enabled': expected true or false, got 'true'" || return 1
  printf 'interpolation:\n  enabled: !!bool yes\n' >"$tmp/p2.yaml"
  run 2 "$bin" --policy "$tmp/p2.yaml" estimate || return 1
  has "$tmp/err" "p2.yaml:2: unsupported YAML tag 'tag:yaml.org,2002:bool' (only !!str is honoured)" || return 1
  printf 'interpolation:\n  aggregate: !!str mean\n' >"$tmp/p3.yaml"
  run 0 "$bin" --policy "$tmp/p3.yaml" estimate
}
ok "YAML tags: !!str is honoured (a string, not a boolean), other tags refused with file:line" t_yaml_tags
t_huge_cell() {
  fresh_db
  cp "$tmp/case/ops.jsonl" "$tmp/case/t.jsonl"
  { head -n 2 "$bad/base/MatMulV2.csv"
    printf 'dynamic,AI_CORE,"'; head -c 20000000 /dev/zero | tr '\0' 1; printf '",DT_BF16,ND,"1",DT_BF16,ND,1.0\n'
  } >"$tmp/case/db/MatMulV2.csv"
  start=$(date +%s)
  run 0 timeout 60 "$bin" estimate --profiling-database "$tmp/case/db" --ops "$tmp/case/t.jsonl" --format jsonl || return 1
  end=$(date +%s)
  has "$tmp/err" "MatMulV2.csv: 1 row skipped as invalid" || return 1
  [ $((end - start)) -lt 30 ] || { echo "a 20 MB cell took $((end - start)) s"; return 1; }
}
ok "a 20 MB CSV cell is read in one buffer growth per line (seconds, not minutes)" t_huge_cell

# ---- warnings a user can act on
est() {  # est STATUS [OPTIONS]: estimate on $tmp/case (db, t.jsonl), jsonl
  want=$1; shift
  run "$want" "$bin" estimate --profiling-database "$tmp/case/db" --ops "$tmp/case/t.jsonl" --format jsonl "$@"
}
t_key_typo() {
  fresh_db
  printf '%s\n' '{"op": "aten.add.Tensor", "arg": [{"shape": [1024], "dtype": "bfloat16"}]}' \
    '{"op": "aten.add.Tensor", "arg": []}' >"$tmp/case/t.jsonl"
  est 0 || return 1
  has "$tmp/err" "t.jsonl:1: unknown key \"arg\" ignored (did you mean \"args\"?)" || return 1
  [ "$(grep -c 'unknown key' "$tmp/err")" -eq 1 ] || { echo "warned more than once"; return 1; }
}
ok "a trace key typo is warned once with the closest key" t_key_typo
t_op_typo() {
  fresh_db
  printf '%s\n' '{"op": "aten.mn.default"}' >"$tmp/case/t.jsonl"
  est 0 || return 1
  has "$tmp/err" "t.jsonl:1: op 'aten.mn.default' is not in op_mapping.yaml (did you mean 'aten.mm.default'?)"
}
ok "an op-name typo is warned with the closest mapped name" t_op_typo
t_missing_csv() {
  fresh_db
  cp "$tmp/case/ops.jsonl" "$tmp/case/t.jsonl"
  rm "$tmp/case/db/MatMulV2.csv"
  est 0 || return 1
  has "$tmp/err" "warning: kernel MatMulV2 (mapped by aten.mm.default): no MatMulV2.csv in the database"
}
ok "a mapped kernel without its CSV is warned (answered analytically)" t_missing_csv
t_lfs_csv() {
  fresh_db
  cp "$tmp/case/ops.jsonl" "$tmp/case/t.jsonl"
  printf 'version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 1\n' >"$tmp/case/db/MatMulV2.csv"
  est 0 || return 1
  has "$tmp/err" "MatMulV2.csv: is a Git LFS pointer file, not the table (run 'git lfs pull')"
}
ok "a Git LFS pointer CSV is named as such" t_lfs_csv
t_skipped_rows() {
  fresh_db
  cp "$tmp/case/ops.jsonl" "$tmp/case/t.jsonl"
  cp "$bad/csv-nan-latency.csv" "$tmp/case/db/MatMulV2.csv"
  est 0 || return 1
  has "$tmp/err" "MatMulV2.csv: 1 row skipped as invalid (no valid latency or shape), first at line 3"
}
ok "CSV rows skipped as invalid are warned with count and first line" t_skipped_rows
t_warnings_in_report() {
  fresh_db
  printf '%s\n' '{"op": "aten.mn.default"}' >"$tmp/case/t.jsonl"
  est 0 --report "$tmp/r.json" || return 1
  has "$tmp/r.json" "did you mean 'aten.mm.default'" || return 1
  has "$tmp/r.json" '"headline"'
}
ok "warnings and the headline are in the --report" t_warnings_in_report

# ---- headline, shapes
t_headline() {
  run 0 "$bin" estimate || return 1
  head -n 12 "$tmp/out" >"$tmp/first"
  has "$tmp/first" "trace: .*llama3-8b-prefill.jsonl" || return 1
  has "$tmp/first" "database: .*h200-db (version 1.0, device NVIDIA_H200_SXM)" || return 1
  has "$tmp/first" "device profile: nvidia-h200" || return 1
  has "$tmp/first" "policy hash: " || return 1
  has "$tmp/first" "total latency: *[0-9.]* ms" || return 1
  has "$tmp/first" "answered: *MEASURED [0-9.]*%, INTERPOLATED" || return 1
  has "$tmp/first" "largest: *aten.mm.default \[2048, 4096\]"
}
ok "the demo's first screen names its inputs and the total in ms" t_headline
t_shapes() {
  run 0 "$bin" estimate --format jsonl || return 1
  has "$tmp/out" '"input_shapes": \[\[2048, 4096\], \[4096, 14336\]\]}$' || return 1
  run 0 "$bin" estimate --format csv || return 1
  head -n 1 "$tmp/out" | grep -q ',error,input_shapes' || { echo "no csv column"; return 1; }
  run 0 "$bin" estimate || return 1
  has "$tmp/out" "input_shapes"
}
ok "jsonl, csv and table carry input shapes" t_shapes

# ---- second bad-input campaign
t_count_overflow() {
  printf '%s\n' '{"op": "aten.add.Tensor", "count": 9223372036854775807}' \
    '{"op": "aten.mul.Tensor", "count": 9223372036854775807}' >"$tmp/ov.jsonl"
  run 0 "$bin" estimate --ops "$tmp/ov.jsonl" --format jsonl || return 1
  has "$tmp/err" "invocation counts overflow int64; sums saturated at 9223372036854775807" || return 1
  hasnt "$tmp/err" "invocations: -"
}
ok "sums of count saturate at INT64_MAX and say so" t_count_overflow

# ---- BOM, bad first lines, lone CR
answers() {  # answers N: N MEASURED lines in $tmp/out
  got=$(grep -c '"source": "MEASURED"' "$tmp/out")
  [ "$got" -eq "$1" ] || { echo "$got MEASURED answers, expected $1"; cat "$tmp/out" "$tmp/err"; return 1; }
}
t_yaml_bom() {
  fresh_db
  printf '\357\273\277' >"$tmp/case/db/m.yaml"
  cat "$tmp/case/db/op_mapping.yaml" >>"$tmp/case/db/m.yaml"
  mv "$tmp/case/db/m.yaml" "$tmp/case/db/op_mapping.yaml"
  run 0 "$bin" validate --profiling-database "$tmp/case/db" || return 1
  has "$tmp/out" "0 errors, 0 warnings" || return 1
  printf '\357\273\277interpolation:\n  enabled: true\nparallel: {tp_size: 2}\n' >"$tmp/bom-policy.yaml"
  cp "$tmp/case/ops.jsonl" "$tmp/case/t.jsonl"
  run 0 "$bin" --policy "$tmp/bom-policy.yaml" estimate --profiling-database "$tmp/case/db" \
    --ops "$tmp/case/t.jsonl" --format jsonl || return 1
  answers 2
}
ok "a UTF-8 BOM does not break a YAML file with a second top-level key" t_yaml_bom
t_trace_bom() {
  fresh_db
  printf '\357\273\277' >"$tmp/case/t.jsonl"
  cat "$tmp/case/ops.jsonl" >>"$tmp/case/t.jsonl"
  est 0 || return 1
  answers 2 && hasnt "$tmp/err" "t.jsonl:1:"
}
ok "a UTF-8 BOM before the first trace line is dropped, the line answered" t_trace_bom
t_first_line() {
  for first in 42 '[1,' 'garbage'; do
    fresh_db
    { echo "$first"; cat "$tmp/case/ops.jsonl"; } >"$tmp/case/t.jsonl"
    est 1 || return 1
    answers 2 || return 1
    has "$tmp/err" "t.jsonl:1: " || return 1
    [ "$(grep -c '"source": "REJECTED"' "$tmp/out")" -eq 1 ] || { echo "line 1 not rejected alone"; return 1; }
  done
}
ok "a bad first trace line (42, [1,, junk) is rejected alone, the rest answered" t_first_line
t_lone_cr() {
  fresh_db
  { printf '42\r'; tr '\n' '\r' <"$tmp/case/ops.jsonl"; } >"$tmp/case/t.jsonl"
  est 1 || return 1
  answers 2 && has "$tmp/err" "t.jsonl:1: expected a JSON object" || return 1
  [ "$(wc -l <"$tmp/out")" -eq 3 ] || { echo "expected 3 lines"; return 1; }
  # from a pipe too (the stream reader, not the in-memory one)
  run 1 sh -c "cat '$tmp/case/t.jsonl' | '$bin' estimate --profiling-database '$tmp/case/db' --ops - --format jsonl" || return 1
  answers 2
}
ok "lone-CR line ends end lines (a bad first line is rejected alone)" t_lone_cr

# ---- op names stay what they say, outputs stay UTF-8
t_escaped_nul() {
  fresh_db
  printf '%s\n' '{"op": "aten.mm.default\u0000junk"}' '{"op": "aten.add.Tensor\ud800"}' \
    '{"op": "aten.add.Tensor\udc00x"}' '{"op": "aten.add.Tensor", "args": [], "kwargs": {"s": "\ud83d\ude00"}}' \
    >"$tmp/case/t.jsonl"
  est 1 || return 1
  has "$tmp/err" 't.jsonl:1: escaped NUL (\\u0000) in a string at byte 24' || return 1
  has "$tmp/err" 't.jsonl:2: lone UTF-16 surrogate (\\ud800) in a string at byte 24' || return 1
  has "$tmp/err" 't.jsonl:3: lone UTF-16 surrogate (\\udc00)' || return 1
  hasnt "$tmp/out" '"op": "aten.mm.default"' || return 1
  [ "$(grep -c '"source": "REJECTED"' "$tmp/out")" -eq 3 ] || { echo "expected 3 rejected"; return 1; }
  grep '"index": 3' "$tmp/out" | grep -qv REJECTED || { echo "a surrogate pair was refused"; return 1; }
  iconv -f UTF-8 -t UTF-8 "$tmp/out" >/dev/null || { echo "output is not UTF-8"; return 1; }
}
ok "an escaped NUL or a lone surrogate in a trace string refuses the line" t_escaped_nul

# ---- op-summary errors
t_summary_errors() {
  fresh_db
  printf '{\n  "ops": [\n    {"op_name": "", "count": 2},\n    42,\n    {"op_name": "aten.add.Tensor", "count": 1}\n  ]\n}\n' >"$tmp/case/t.jsonl"
  est 1 || return 1
  has "$tmp/err" "t.jsonl:3: ops\[0\]: 'op_name' must be a non-empty string" || return 1
  has "$tmp/err" "t.jsonl:4: ops\[1\]: must be an object, got integer" || return 1
  hasnt "$tmp/err" "t.jsonl:0:" || return 1
  answers 0; grep -q '"op": "aten.add.Tensor"' "$tmp/out" || { echo "good op not answered"; return 1; }
  printf '{\n  "ops": [\n    {"op_name": "aten.add.Tensor", "count": 1},\n' >"$tmp/case/t.jsonl"
  est 2 || return 1
  [ "$(grep -c 't.jsonl:' "$tmp/err")" -eq 1 ] || { echo "truncated: not one document error"; return 1; }
  # a stray line after the document: reported at its line, the document answered (also when
  # its first line is not "{" alone, which once made it read as JSON Lines)
  for first in '{' '{"model": "m",'; do
    printf '%s\n  "ops": [{"op_name": "aten.add.Tensor", "count": 1},\n   "x", null]\n}\n]]\n' \
      "$first" >"$tmp/case/t.jsonl"
    est 1 || return 1
    has "$tmp/err" "t.jsonl:5: unexpected content after the op-summary document, which ends on line 4" || return 1
    has "$tmp/err" "t.jsonl:3: ops\[1\]: must be an object, got string" || return 1
    has "$tmp/err" "t.jsonl:3: ops\[2\]: must be an object, got null" || return 1
    [ "$(grep -c 't.jsonl:' "$tmp/err")" -eq 3 ] || { echo "not three problems"; cat "$tmp/err"; return 1; }
    grep "\"op\": \"aten.add.Tensor\"" "$tmp/out" | grep -qv REJECTED || { echo "document not answered"; return 1; }
  done
}
ok "op-summary: entries and trailing junk at their line, empty op_name refused, truncated one error" t_summary_errors

# ---- unknown per-op mapping keys
t_mapping_key_typo() {
  fresh_db
  sed 's/^    kernel_type: Add$/    kernel_typ: Add/' "$bad/base/op_mapping.yaml" >"$tmp/case/db/op_mapping.yaml"
  grep -q kernel_typ: "$tmp/case/db/op_mapping.yaml" || { echo "fixture not edited"; return 1; }
  run 1 "$bin" validate --profiling-database "$tmp/case/db" || return 1
  has "$tmp/out" "error: .*db/op_mapping.yaml:7: operator 'aten.add.Tensor': unknown key 'kernel_typ' ignored (did you mean kernel_type?)" || return 1
  cp "$tmp/case/ops.jsonl" "$tmp/case/t.jsonl"
  est 0 || return 1
  [ "$(grep -c "unknown key 'kernel_typ'" "$tmp/err")" -eq 1 ] || { echo "estimate did not warn once"; cat "$tmp/err"; return 1; }
}
ok "validate reports a mapping key typo with file:line and 'did you mean' (exit 1); estimate warns once" t_mapping_key_typo
t_upstream_keys() {
  found=0
  for f in "$src"/doc/examples/*/op_mapping.yaml "$src"/../shared/data/msmodeling/*/*/*/op_mapping.yaml; do
    [ -f "$f" ] || continue
    found=1
    "$bin" validate --profiling-database "$(dirname "$f")" >"$tmp/out" 2>&1
    hasnt "$tmp/out" "unknown key" || return 1
  done
  [ "$found" = 1 ] || echo "no mapping found (only the fixture checked)"
}
ok "every upstream-known per-op key stays accepted" t_upstream_keys

# ---- database files stay inside the database
t_yaml_symlink_out() {
  fresh_db
  printf 'root:x:0:0:secret-bytes\n' >"$tmp/foreign.yaml"
  rm "$tmp/case/db/op_mapping.yaml"
  ln -s "$tmp/foreign.yaml" "$tmp/case/db/op_mapping.yaml"
  run 2 "$bin" validate --profiling-database "$tmp/case/db" || return 1
  has "$tmp/out" "db/op_mapping.yaml: a symlink that resolves outside the database directory: refused" || return 1
  cat "$tmp/out" >>"$tmp/err"
  hasnt "$tmp/err" "secret-bytes" || return 1
  cp "$tmp/case/ops.jsonl" "$tmp/case/t.jsonl"
  est 2 || return 1
  has "$tmp/err" "a symlink that resolves outside the database directory" && hasnt "$tmp/err" "secret-bytes"
}
ok "an op_mapping.yaml symlinked out of the database is refused, named, not quoted" t_yaml_symlink_out
t_csv_loop() {
  fresh_db
  rm "$tmp/case/db/MatMulV2.csv"
  ln -s loop "$tmp/case/db/MatMulV2.csv"; ln -s MatMulV2.csv "$tmp/case/db/loop"
  run 1 "$bin" validate --profiling-database "$tmp/case/db" || return 1
  has "$tmp/out" "MatMulV2.csv: cannot resolve the path: Too many levels of symbolic links" || return 1
  hasnt "$tmp/out" csv_not_found
}
ok "a CSV symlink loop is named with its reason, not a silent csv_not_found" t_csv_loop

# ---- ATT --bind values get the static domain checks
t_bind_domain() {
  for v in -5 0 1.5 2147483648 4294967296; do
    run 1 "$bin" att duplicate --dtype float16 --count n --bind "n=$v" || return 1
    has "$tmp/err" "msperf att duplicate: att duplicate: att.bind.n = .* is out of the parameter's domain: " || return 1
    hasnt "$tmp/out" "value:" || return 1
  done
  has "$tmp/err" "above the kernel's limit 2147483647" || return 1
  run 1 "$bin" att broadcast --dtype float16 --dst-shape a,8 --src-shape 1,8 --bind a=-3 || return 1
  has "$tmp/err" "att.dst_shapes\[0\] is -3: sizes must be at least 1" || return 1
  run 1 "$bin" att cast --in-dtype float32 --out-dtype float16 --shape s,4 --bind s=0.5 || return 1
  has "$tmp/err" "att.shape\[0\]" || return 1
  run 0 "$bin" att duplicate --dtype float16 --count n --bind n=64 || return 1
  has "$tmp/out" "value: 29 cycles"
}
ok "ATT --bind values are refused outside the parameter's domain (exit 1)" t_bind_domain

# ---- module loading stays in its directory (core/engine/registry.c)
mod_so=$(ls "$MSPERF_TEST_PLUGINDIR"/.libs/msperf_elementwise.so 2>/dev/null | head -n 1)
plugins_list() {  # plugins_list DIR: `plugins list` of DIR alone, to $tmp/out and $tmp/err
  "$bin" --plugins-dir "$1" plugins list >"$tmp/out" 2>"$tmp/err"
  got=$?
  [ "$got" -eq 0 ] || { echo "plugins list exit $got"; cat "$tmp/err"; return 1; }
}
rejected() {  # rejected FILE REASON: the listing shows FILE rejected for REASON, stderr too
  grep -F -- "$1" "$tmp/out" | grep -qF -- "rejected: $2" \
    || { echo "'$1' not rejected for '$2':"; cat "$tmp/out"; return 1; }
  grep -qF -- "$2" "$tmp/err" || { echo "no warning '$2':"; cat "$tmp/err"; return 1; }
  ! grep -F -- "$1" "$tmp/out" | grep -q " loaded " || { echo "$1 loaded"; return 1; }
}
t_la_libdir() {
  mkdir -p "$tmp/la" "$tmp/evil" && chmod 0755 "$tmp/la" && chmod 0777 "$tmp/evil"
  cp "$mod_so" "$tmp/evil/" || return 1
  printf "dlname='msperf_elementwise.so'\nlibdir='%s'\ninstalled=yes\n" "$tmp/evil" \
    >"$tmp/la/msperf_elementwise.la"
  plugins_list "$tmp/la" || return 1
  rejected "$tmp/la/msperf_elementwise.la" \
    "its libdir '$tmp/evil' is not the module directory $tmp/la: refused"
}
t_la_target_mode() {
  mkdir -p "$tmp/la2/.libs" && chmod 0755 "$tmp/la2" "$tmp/la2/.libs"
  cp "$mod_so" "$tmp/la2/.libs/" && chmod 0666 "$tmp/la2/.libs/msperf_elementwise.so"
  printf "dlname='msperf_elementwise.so'\nlibdir='/nonexistent'\ninstalled=no\n" \
    >"$tmp/la2/msperf_elementwise.la"
  plugins_list "$tmp/la2" || return 1
  rejected "$tmp/la2/msperf_elementwise.la" \
    "$tmp/la2/.libs/msperf_elementwise.so is world-writable (mode 0666): refused"
}
t_mode_0666() {
  mkdir -p "$tmp/m666" && chmod 0755 "$tmp/m666"
  cp "$mod_so" "$tmp/m666/" && chmod 0666 "$tmp/m666/msperf_elementwise.so"
  plugins_list "$tmp/m666" || return 1
  rejected "$tmp/m666/msperf_elementwise.so" \
    "$tmp/m666/msperf_elementwise.so is world-writable (mode 0666): refused"
  MSPERF_ALLOW_INSECURE_PLUGIN_DIR=1 plugins_list "$tmp/m666" || return 1
  grep "msperf_elementwise" "$tmp/out" | grep -q "loaded" \
    || { echo "not loaded with MSPERF_ALLOW_INSECURE_PLUGIN_DIR=1"; cat "$tmp/out"; return 1; }
}
t_parent_ww() {
  mkdir -p "$tmp/ww/mods" && chmod 0777 "$tmp/ww" && chmod 0755 "$tmp/ww/mods"
  cp "$mod_so" "$tmp/ww/mods/" && chmod 0644 "$tmp/ww/mods/msperf_elementwise.so"
  plugins_list "$tmp/ww/mods" || return 1
  rejected "$tmp/ww/mods/msperf_elementwise.so" \
    "directory $tmp/ww above $tmp/ww/mods/msperf_elementwise.so is world-writable (mode 0777): refused"
}
if [ -n "$mod_so" ]; then
  ok "a .la whose libdir names another directory is refused, not followed" t_la_libdir
  ok "a .la whose object is world-writable is refused" t_la_target_mode
  ok "a module file of mode 0666 is refused (the override allows it)" t_mode_0666
  ok "a module directory inside a world-writable parent is refused" t_parent_ww
else
  for c in la-libdir la-target 0666 parent; do skip "module $c" "no msperf_elementwise.so built"; done
fi

# ---- Chrome trace
t_chrome() {
  run 0 "$bin" estimate --chrome-trace "$tmp/ct.json" || return 1
  python3 - "$tmp/ct.json" <<'PY' || return 1
import json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal)
end = None
for e in d["traceEvents"]:
    if e.get("ph") != "X":
        continue
    for k in ("input_shapes", "source", "confidence", "method"):
        assert k in e["args"], k
    if end is not None and Decimal(e["ts"]) != end:
        sys.exit("event at %s, previous ended at %s" % (e["ts"], end))
    end = Decimal(e["ts"]) + Decimal(e["dur"])
PY
  run 0 "$bin" estimate --chrome-trace "$tmp/cta.json" --chrome-trace-aggregate || return 1
  has "$tmp/cta.json" '"count": 65'
}
if command -v python3 >/dev/null 2>&1; then
  ok "the Chrome trace lays events end to end with op args; --chrome-trace-aggregate" t_chrome
else
  skip "Chrome trace" "no python3"
fi

t_non_utf8_path() {
  # A trace under a Latin-1 directory name: the headline and the report escape the byte.
  d="$tmp/x$(printf '\351')y"
  mkdir -p "$d" &&
  cp "$MSPERF_TOP_SRCDIR/doc/examples/traces/llama3-8b-decode.jsonl" "$d/t.jsonl" &&
  run 0 "$bin" estimate --ops "$d/t.jsonl" --report "$tmp/nonutf8.md" || return 1
  has "$tmp/out" 'trace:.*x\\xe9y/t.jsonl' &&
  has "$tmp/nonutf8.md" 'x\\xe9y/t.jsonl' &&
  iconv -f UTF-8 -t UTF-8 "$tmp/out" >/dev/null && iconv -f UTF-8 -t UTF-8 "$tmp/nonutf8.md" >/dev/null
}
ok "a non-UTF-8 path is written as \\xNN in the headline and the report (outputs stay UTF-8)" \
  t_non_utf8_path

tap_end
