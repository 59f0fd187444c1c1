#!/bin/sh
# CLI tests of `msperf att cast|broadcast|duplicate` (FORMATS §5 ATT output, §5.2 exit status)
# and of ATT lines in an `estimate` trace. The commands answer through the engine and the
# cast_att / broadcast_att modules of the build tree. Expected values: Cast from reference
# att-model.md §3.5 (upstream-asserted 30, 52, 42, 38 and the dynamic expression); Broadcast
# and Duplicate from the hand derivations of tests/plugins/test_broadcast_att.c. TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TEST_PLUGINDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
data=$MSPERF_TOP_SRCDIR/tests/data/broadcast
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

att() { "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" att "$@"; }

# json_value KEY: the top-level scalar KEY of the json object in $tmp/cmd.out
json_value() { grep -E "^  \"$1\": " "$tmp/cmd.out" | head -n 1 | sed -E 's/^  "[^"]*": //; s/,$//'; }
value_is() {
  v_got=$(json_value "$1")
  [ "$v_got" = "$2" ] || { echo "$1 = '$v_got', expected '$2'"; head -n 20 "$tmp/cmd.out"; return 1; }
}
has() { grep -qF -- "$2" "$1" || { echo "'$2' not in $1:"; head -n 30 "$1"; return 1; }; }

# ---------------------------------------------------------------- att cast (§3.5)
t_cast() {  # t_cast EXPECTED ARGS…
  c_want=$1; shift
  status_is 0 att cast "$@" --format json && value_is value "$c_want"
}
ok "att cast float32->float16 [129] is 30 (TestCastV2)" \
  t_cast 30 --in-dtype float32 --out-dtype float16 --shape 129
ok "att cast same-bit int8->uint8 [2,64] is 52" \
  t_cast 52 --in-dtype int8 --out-dtype uint8 --shape 2,64 --output-dims 2,64 \
  --output-strides 64,1 --input-strides 64,1
ok "att cast uint8->int64 [64] is 42" \
  t_cast 42 --in-dtype uint8 --out-dtype int64 --shape 64 --output-dims 64 \
  --output-strides 1 --input-strides 1
ok "att cast int64->uint8 [64] is 38" \
  t_cast 38 --in-dtype int64 --out-dtype uint8 --shape 64 --output-dims 64 \
  --output-strides 1 --input-strides 1
t_cast_dynamic() {
  status_is 0 att cast --in-dtype float32 --out-dtype float16 --shape 2,64 --output-dims 2,64 \
    --output-strides 64,1 --input-strides 64,1 --format json || return 1
  value_is expression '"(((2 * cast_repeat_time) + 24) * cast_call_count)"' && value_is value 28
}
ok "att cast prints the upstream dynamic expression (value 28)" t_cast_dynamic
t_cast_text() {
  status_is 0 att cast --in-dtype float32 --out-dtype float16 --shape o,n --output-dims o,n \
    --output-strides os,1 --input-strides is,1 || return 1
  has "$tmp/cmd.out" "cast_repeat_time = TernaryOp(IsEqual(os, is)" &&
    contains "$tmp/cmd.out" "unbound symbols: o, n, os, is" &&
    contains "$tmp/cmd.out" "^CastExtend "
}
ok "att cast text shows ledger, ternaries and the unbound symbols" t_cast_text
t_cast_bind() {
  status_is 0 att cast --in-dtype float32 --out-dtype float16 --shape o,n --output-dims o,n \
    --output-strides os,1 --input-strides is,1 --bind o=2 --bind n=64 --bind os=64 \
    --bind is=64 || return 1
  contains "$tmp/cmd.out" "value: 28 cycles"
}
ok "att cast --bind evaluates the symbolic cost" t_cast_bind

t_cast_fallback() {
  # output_strides has 1 entry for 2 output_dims: the shape-product path (R 2: 28), exit 0
  status_is 0 att cast --in-dtype float32 --out-dtype float16 --shape 2,64 --output-dims 2,64 \
    --output-strides 64 --input-strides 64,1 --format json && value_is value 28
}
ok "att cast parameters disagreeing with the shape fall back (28), not exit 1" t_cast_fallback

# ---------------------------------------------------------------- att broadcast
t_brc_text() {
  status_is 0 att broadcast --dtype float16 --dst-shape 64,16 --src-shape 64,1 || return 1
  contains "$tmp/cmd.out" "branch Last/LastWrap2D/BrcLastE2B2D" &&
    contains "$tmp/cmd.out" "^BrcLastE2B2D.E2bLoad *LoadAlign *uint16 *DIST_E2B_B16 *8 " &&
    contains "$tmp/cmd.out" "value: 71 cycles" &&
    has "$tmp/cmd.out" "latency: - (no_vector_clock)"
}
ok "att broadcast text: branch, ledger rows, value 71" t_brc_text
t_brc_json() {
  status_is 0 att broadcast --dtype float16 --dst-shape 64,16 --src-shape 64,1 --format json ||
    return 1
  value_is value 71 && value_is vf_launches 1 && value_is latency_us null &&
    value_is reason '"no_vector_clock"' && contains "$tmp/cmd.out" '"call_site": "BrcLastE2B2D.StoreAlign"'
}
ok "att broadcast json: value, vf_launches, ledger, no clock" t_brc_json
t_brc_clock() {
  status_is 0 att broadcast --dtype float16 --dst-shape 64,16 --src-shape 64,1 --format json \
    --device-profile ascend-a3 || return 1
  value_is cycles 71 && value_is reason null && [ "$(json_value latency_us)" != null ]
}
ok "att broadcast --device-profile gives the latency" t_brc_clock
t_brc_symbolic() {
  status_is 0 att broadcast --dtype float16 --dst-shape 8,16,s0 --src-shape 8,1,s0 --format json ||
    return 1
  value_is expression '"broadcast_cost"' && value_is value null &&
    has "$tmp/cmd.out" '"broadcast_cost": "TernaryOp(s0 < 64, '
}
ok "att broadcast symbolic: the named ternary, value null" t_brc_symbolic
t_brc_bind() {
  status_is 0 att broadcast --dtype float16 --dst-shape 8,16,s0 --src-shape 8,1,s0 --bind s0=128 ||
    return 1
  has "$tmp/cmd.out" "value: 669 cycles" && has "$tmp/cmd.out" "expression:         669" &&
    contains "$tmp/cmd.out" "branch NLast/NlastWrap3D/BrcNlastLessThanVLUnaligned3D"
}
# [8,16,128] float16: NlastWrap3D, 128 <= VF: LessUnaligned3D, UM 1, 128 stores (5), Post 5.
# --bind folds into the shapes before the enumeration: the static model.
ok "att broadcast --bind s0=128 folds to the static model, value 669" t_brc_bind

# ---------------------------------------------------------------- reproducers of past wrong answers
t_brc_repro() {  # t_brc_repro STATUS VALUE|MESSAGE BRANCH ARGS…
  r_status=$1 r_want=$2 r_branch=$3; shift 3
  status_is "$r_status" att broadcast "$@" --format json || return 1
  if [ "$r_status" -ne 0 ]; then contains "$tmp/cmd.err" "$r_want"; return; fi
  value_is value "$r_want" && value_is att_branch "\"$r_branch\""
}
ok "BrcDuplicate repeatTimes 65536 (uint16) is refused" \
  t_brc_repro 1 "BrcDuplicate repeatTimes" - --dtype float16 --dst-shape 8388608 --src-shape 1
ok "rank-9 int64 loopNum 65536 (uint16) is refused" \
  t_brc_repro 1 "loopNum" - --dtype int64 --dst-shape 65536,2,2,2,2,2,2,2,2 \
  --src-shape 1,2,1,2,1,2,1,2,1
ok "more-dim outer strides are uint32: [2,2,2,2,8192] int8 is accepted (2711)" \
  t_brc_repro 0 2711 NLast/NlastMoreDimDynamic/BrcNlastLargerThanVLAlignedWithBlock4D \
  --dtype int8 --dst-shape 2,2,2,2,8192 --src-shape 2,1,2,1,8192
ok "[a,2,2,2,8192] --bind a=1 takes NlastMoreDimDynamic / WithBlock4D, 1367" \
  t_brc_repro 0 1367 NLast/NlastMoreDimDynamic/BrcNlastLargerThanVLAlignedWithBlock4D \
  --dtype int8 --dst-shape a,2,2,2,8192 --src-shape 1,1,2,1,8192 --bind a=1
t_brc_capped() {
  status_is 0 att broadcast --dtype float16 --dst-shape s0,s1,s2,s3,s4,s5,s6,s7,s8 \
    --src-shape 1,s1,1,s3,1,s5,1,s7,1 --format json || return 1
  c_n=$(sed -n '/^  "branches": \[/,/^  \]/p' "$tmp/cmd.out" | grep -c '^    "')
  value_is expression '"broadcast_cost"' && [ "$c_n" -eq 736 ] || { echo "branches: $c_n"; return 1; }
}
ok "fully dynamic rank 9 with 2^5 B/E states is modelled (736 branches)" t_brc_capped
t_brc_refused() {
  status_is 1 att broadcast --dtype float16 --dst-shape 4,8 --src-shape 4,3 &&
    contains "$tmp/cmd.err" "must be 1 or equal dst_shapes"
}
ok "att broadcast refused parameters exit 1 with the message" t_brc_refused
t_brc_limit() {
  status_is 1 att broadcast --dtype float32 --dst-shape 65536,100 --src-shape 65536,1 &&
    contains "$tmp/cmd.err" "above the kernel's limit 65535"
}
ok "att broadcast outside the uint16 domain exits 1" t_brc_limit
ok "att broadcast without --dst-shape exits 2" status_is 2 att broadcast --dtype float16 --src-shape 1
ok "att broadcast with a bad --bind exits 2" \
  status_is 2 att broadcast --dtype float16 --dst-shape 4,s --src-shape 1,s --bind s=x
ok "att broadcast with a bad --format exits 2" \
  status_is 2 att broadcast --dtype float16 --dst-shape 4 --src-shape 1 --format yaml
t_no_module() {
  printf 'modules:\n  broadcast_att: {enabled: false}\n' >"$tmp/p.yaml"
  status_is 2 "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" --policy "$tmp/p.yaml" att broadcast --dtype float16 --dst-shape 4 --src-shape 1 \
    && contains "$tmp/cmd.err" "no ATT module answered (module_disabled:broadcast_att)"
}
ok "att broadcast with the module disabled exits 2" t_no_module

# ---------------------------------------------------------------- att duplicate
t_dup() {
  status_is 0 att duplicate --dtype uint8 --count 300 --dst-view-size 320 \
    --source-kind kTensorVecIn --format json || return 1
  value_is value 30 && contains "$tmp/cmd.out" '"call_site": "DuplicateB8.GetSize"' &&
    contains "$tmp/cmd.out" '"api_params": "count=160"'
}
# uint8 reads the view: ⌈320/2⌉ = 160 uint16 elements, Duplicate component ⌈160/128⌉ = 2
ok "att duplicate uint8 kTensorVecIn is 30 with the B8 overload rows" t_dup
t_dup_text() {
  status_is 0 att duplicate --dtype float16 --count n --bind n=300 || return 1
  contains "$tmp/cmd.out" "value: 31 cycles" &&
    has "$tmp/cmd.out" "expression:         (28 + Ceiling((Rational(1 , 128) * n)))"
}
ok "att duplicate symbolic count with --bind" t_dup_text
t_dup_bad() {
  status_is 1 att duplicate --dtype float16 --count 4 --source-kind kFoo &&
    contains "$tmp/cmd.err" "'kFoo' is not one of"
}
ok "att duplicate bad source kind exits 1" t_dup_bad
ok "att duplicate without --count exits 2" status_is 2 att duplicate --dtype float16
ok "att with an unknown model exits 2" status_is 2 att transpose

# ---------------------------------------------------------------- estimate over ATT lines
t_estimate() {
  status_is 0 "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" estimate --ops "$data/att_trace.jsonl" \
    --format jsonl || return 1
  [ "$(grep -c '"method": "att"' "$tmp/cmd.out")" -eq 4 ] || { cat "$tmp/cmd.out"; return 1; }
  for c in 71 669 30; do
    grep -q "\"cycles\": $c[,}]" "$tmp/cmd.out" || { echo "no cycles $c"; return 1; }
  done
}
ok "estimate answers Broadcast, Duplicate and Cast lines with their models" t_estimate
t_estimate_bad() {
  status_is 1 "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" estimate --ops "$data/att_bad.jsonl" \
    --format jsonl || return 1
  [ "$(grep -c '"source": "REJECTED"' "$tmp/cmd.out")" -eq 1 ] &&
    [ "$(grep -c '"method": "att"' "$tmp/cmd.out")" -eq 2 ] &&
    contains "$tmp/cmd.err" "att_bad.jsonl:3: att broadcast_extend: src_shapes\[1\] = 3"
}
ok "estimate rejects a refused Broadcast line and answers the others" t_estimate_bad

# Bound symbols of a trace line meet the domain checks `msperf att --bind` applies, with the
# same reason (msperf_att_bind_check on every path): no negative or huge latency answered.
t_estimate_bind_domain() {
  status_is 1 "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" estimate \
    --ops "$data/att_bind_domain.jsonl" --format jsonl || return 1
  [ "$(grep -c '"source": "REJECTED"' "$tmp/cmd.out")" -eq 6 ] || { cat "$tmp/cmd.out"; return 1; }
  grep -q '"cycles": 29[,}]' "$tmp/cmd.out" || { echo "the good line is not answered"; return 1; }
  cp "$tmp/cmd.err" "$tmp/trace.err"
  check_same() {  # check_same LINE REASON-PATTERN ATT-ARGS...
    line=$1; pat=$2; shift 2
    contains "$tmp/trace.err" "att_bind_domain.jsonl:$line: $pat" || return 1
    status_is 1 att "$@" || return 1
    reason=$(sed -n "s/^.*att_bind_domain.jsonl:$line: //p" "$tmp/trace.err")
    grep -qF -- ": $reason" "$tmp/cmd.err" ||
      { echo "trace reason '$reason' differs from the att command's:"; cat "$tmp/cmd.err"; return 1; }
  }
  check_same 5 "att duplicate: att.bind.n = -9223372036854775808 is out of the parameter's domain" \
    duplicate --dtype float16 --count n --bind n=-9223372036854775808 &&
  check_same 6 "att duplicate: att.bind.n = 2147483648 is out of the parameter's domain: count of a Duplicate" \
    duplicate --dtype float16 --count n --bind n=2147483648 &&
  check_same 7 "att broadcast_extend: att.bind.d = 0 is out of the parameter's domain: att.dst_shapes\[1\] is 0" \
    broadcast --dtype float16 --dst-shape 8,d --src-shape 8,1 --bind d=0 &&
  check_same 8 "att broadcast_extend: att.bind.s0 = 1.5 is out of the parameter's domain" \
    broadcast --dtype float16 --dst-shape 8,s0 --src-shape 8,1 --bind s0=1.5 &&
  check_same 10 "att cast: att.bind.s = -1 is out of the parameter's domain" \
    cast --in-dtype float32 --out-dtype float16 --shape s,4 --bind s=-1 &&
  contains "$tmp/trace.err" "att_bind_domain.jsonl:9: att duplicate: att.bind.n: expected a finite number"
}
ok "estimate rejects ATT lines whose bound symbols leave the domain, with the att command's reason" \
  t_estimate_bind_domain

# Every --bind error names its symbol.
t_bind_names_symbol() {
  status_is 1 att broadcast --dtype float16 --dst-shape 8,s0 --src-shape 8,1 --bind s0=1.5 &&
    contains "$tmp/cmd.err" "att.bind.s0 = 1.5" &&
  status_is 2 att duplicate --dtype float16 --count n --bind n=1e400 &&
    contains "$tmp/cmd.err" "the value of n, '1e400', is not a finite number" &&
  status_is 1 att broadcast --dtype float16 --dst-shape 8,a --src-shape 8,b --bind a=4 --bind b=3 &&
    contains "$tmp/cmd.err" "att.bind.b = 3 is out of the parameter's domain"
}
ok "--bind s0=1.5 and the other bind errors name the symbol" t_bind_names_symbol

tap_end
