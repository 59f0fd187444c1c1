#!/bin/sh
# CLI test of the mapping-authoring workflow on the shipped H200 database: `msperf mapping draft`
# on a copy of data/nvidia-h200 whose operator_mappings are removed (header and policy kept),
# over prefill and decode traces (bf16, fp8, fp8_block; TP 2) of the model configs in
# tests/data/models/configs and, when present, ../shared/data/models beside the source tree (or
# MSPERF_MODELS_DIR), plus a few ops the templates do not emit. Asserts that for every op the
# shipped mapping maps, the draft proposes the same kernel_type, query_mode, composite and
# zero_cost (the differences it may have are listed below, each with its reason; also in
# doc/h200-database.md), that `mapping check` passes schema and lookup on the draft, and that
# the drafted mapping answers every op of the traces as the shipped one does.
# TAP output for automake's tap-driver.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TEST_PLUGINDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
top=$MSPERF_TOP_SRCDIR
shipped=$top/data/nvidia-h200
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

# Ops whose drafted entry may differ from the shipped one, and why:
#   aten.detach.default  the shipped entry keeps the sample database's `accepted_miss` (no
#                        standalone kernel); the draft proposes `zero_cost` for every
#                        metadata-only op. Both cost nothing measured.
allowed_diff="aten.detach.default"

skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

msperf() { "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" "$@"; }

# Ops the shipped mapping maps that no template emits, so that the draft is asked for them too.
cat >"$tmp/extra.jsonl" <<'EOF'
{"op": "aten.linear.default", "args": [{"shape": [4, 64], "dtype": "bfloat16"}, {"shape": [128, 64], "dtype": "bfloat16"}], "out": [{"shape": [4, 128], "dtype": "bfloat16"}], "count": 1}
{"op": "tensor_cast.reduce_scatter.default", "args": [{"shape": [4, 128], "dtype": "bfloat16"}, 0, [0, 1]], "out": [{"shape": [2, 128], "dtype": "bfloat16"}], "count": 1}
{"op": "tensor_cast.all_to_all.default", "args": [{"shape": [4, 128], "dtype": "bfloat16"}, [0, 1]], "out": [{"shape": [4, 128], "dtype": "bfloat16"}], "count": 1}
{"op": "aten.view.default", "args": [{"shape": [4, 128], "dtype": "bfloat16"}, [512]], "out": [{"shape": [512], "dtype": "bfloat16"}], "count": 1}
{"op": "aten.reshape.default", "args": [{"shape": [4, 128], "dtype": "bfloat16"}, [512]], "out": [{"shape": [512], "dtype": "bfloat16"}], "count": 1}
{"op": "aten.silu.default", "args": [{"shape": [4, 128], "dtype": "bfloat16"}], "out": [{"shape": [4, 128], "dtype": "bfloat16"}], "count": 1}
{"op": "aten.detach.default", "args": [{"shape": [4, 128], "dtype": "bfloat16"}], "out": [{"shape": [4, 128], "dtype": "bfloat16"}], "count": 1}
EOF

# The database without its operator_mappings: header, device and interpolation policy kept.
# Tables are copied (a symlink out of the database directory is refused).
mkdir -p "$tmp/db" && cp "$shipped"/* "$tmp/db/" &&
  sed '/^operator_mappings:/,$d' "$shipped/op_mapping.yaml" >"$tmp/db/op_mapping.yaml"
cp "$tmp/db/op_mapping.yaml" "$tmp/header.yaml"

# fields FILE: "op kernel_type query_mode composite zero_cost batched_from" of each
# operator_mappings entry
# (- for a key the entry lacks), sorted.
fields() {
  awk 'function flush() { if (op != "") print op, kt, qm, co, zc, bf }
       /^operator_mappings:/ { on = 1; next }
       !on { next }
       /^  "[^"]*":/ { flush(); op = $1; gsub(/[":]/, "", op); kt = qm = co = zc = bf = "-"; next }
       /^    kernel_type:/ { kt = $2 }
       /^    query_mode:/ { qm = $2 }
       /^    composite:/ { co = $2 }
       /^    zero_cost:/ { zc = $2 }
       /^    batched_from:/ { bf = $2 }
       END { flush() }' "$1" | sort
}

# draft TAG: the draft over the TAG traces and the extra ops, and the mapping it makes
draft() {
  set -- "$1" "$(for f in "$tmp/$1"-*.jsonl; do printf ' --ops %s' "$f"; done)"
  # shellcheck disable=SC2086
  msperf mapping draft --database "$tmp/db" $2 --ops "$tmp/extra.jsonl" >"$tmp/$1.draft" \
    2>"$tmp/$1.draft.err" || { cat "$tmp/$1.draft.err"; return 1; }
  cat "$tmp/header.yaml" "$tmp/$1.draft" >"$tmp/$1.yaml"
}

# same SHIPPED DRAFTED [OPS]: every entry of SHIPPED (but the allowed ones; with OPS, a file of
# op names, only those) is in DRAFTED with the same kernel_type, query_mode, composite and
# zero_cost.
same() {
  fields "$1" >"$tmp/want" && fields "$2" >"$tmp/got" || return 1
  bad=0
  while read -r op rest; do
    case " $allowed_diff " in *" $op "*) continue ;; esac
    if [ $# -ge 3 ] && ! grep -qxF "$op" "$3"; then continue; fi
    got=$(awk -v op="$op" '$1 == op { $1 = ""; print substr($0, 2) }' "$tmp/got")
    if [ "$got" != "$rest" ]; then
      echo "$op: shipped [$rest], draft [${got:-no entry}]"
      bad=1
    fi
  done <"$tmp/want"
  [ "$bad" -eq 0 ]
}

# t_same TAG [only-traced]: the shipped entries are drafted alike; with only-traced, only those
# of the ops of the TAG traces (the test configs emit no GDN layer, for one).
t_same() {
  if [ $# -ge 2 ]; then
    sed -n 's/^{"op": "\([^"]*\)".*/\1/p' "$tmp/$1"-*.jsonl "$tmp/extra.jsonl" |
      sort -u >"$tmp/$1.ops"
    same "$shipped/op_mapping.yaml" "$tmp/$1.yaml" "$tmp/$1.ops"
  else
    same "$shipped/op_mapping.yaml" "$tmp/$1.yaml"
  fi
}

# The comparison can fail: a shipped entry changed (sigmoid to Add) is reported.
t_can_fail() {
  sed '/^  "aten.sigmoid.default":/,/^  "/ s/kernel_type: Silu/kernel_type: Add/' \
    "$shipped/op_mapping.yaml" >"$tmp/changed.yaml" &&
    ! same "$tmp/changed.yaml" "$tmp/$1.yaml" >"$tmp/changed.out" &&
    grep -q "^aten.sigmoid.default: shipped \[Add" "$tmp/changed.out"
}

# entry OP FILE: the lines of OP's entry in the mapping FILE
entry() {
  awk -v h="  \"$1\":" '$0 == h { on = 1; next } on && /^  ["#]/ { on = 0 } on' "$2"
}

# The draft proposes the newer entry kinds: field_table with field_args and the phase
# alternate (MLA), field_defaults (fused MoE), proxy_bytes (all, gather), each with notes.
t_kinds() {
  d=$tmp/$1.draft
  entry tensor_cast.multihead_latent_attention.default "$d" >"$tmp/mla" &&
    grep -q "^    alternate_kernel_types: \[AicGenerationMla\]$" "$tmp/mla" &&
    grep -q "^      step: {arg: 4, value: max, minus: {arg: 5, value: max}}$" "$tmp/mla" &&
    grep -q "^    notes: " "$tmp/mla" &&
    grep -q "^    field_defaults: {distribution: power_law_1.2}$" "$d" &&
    grep -q "^    proxy_bytes: gather$" "$d" && grep -q "^    proxy_bytes: all$" "$d" &&
    awk 'function flush() {
           if (qm == "elementwise" && op !~ /^aten\.(add|mul)\.Tensor$|^aten\.silu\.default$/ &&
               !proxy) { print op ": an elementwise proxy without a note saying so"; bad = 1 }
         }
         /^  "[^"]*":/ { flush(); op = $1; gsub(/[":]/, "", op); qm = ""; proxy = 0; next }
         /^    query_mode:/ { qm = $2 }
         /^    notes: "memory-bound proxy/ { proxy = 1 }
         END { flush(); exit bad }' "$d"
}

# Conservative where the database lacks what an entry needs: without the Silu table the unary
# proxies stay commented lines (the binary Mul proxy stays), without FusedMoE the MoE op too;
# without AicGenerationMla the MLA entry has no alternate and says so; a field column the
# table lacks (kv_cache_dtype) gets no field_args and the notes name it.
t_conservative() {
  c=$tmp/cons
  mkdir -p "$c" && cp "$tmp/db"/* "$c/" &&
    rm "$c/Silu.csv.gz" "$c/AicGenerationMla.csv.gz" "$c/FusedMoE.csv.gz" &&
    gzip -dc "$shipped/AicContextMla.csv.gz" | cut -d, -f1-3,5- |
      gzip -n >"$c/AicContextMla.csv.gz" ||
    return 1
  set -- "$1" "$(for f in "$tmp/$1"-*.jsonl; do printf ' --ops %s' "$f"; done)"
  # shellcheck disable=SC2086
  msperf mapping draft --database "$c" $2 >"$tmp/cons.yaml" 2>"$tmp/cons.err" ||
    { cat "$tmp/cons.err"; return 1; }
  d=$tmp/cons.yaml
  for op in aten.sigmoid.default aten.embedding.default tensor_cast.apply_rope.default \
            tensor_cast.rms_norm.default tensor_cast.fused_moe.default; do
    grep -q "^  # \"$op\": no kernel table of this database measures it" "$d" ||
      { echo "$op: not a commented line"; return 1; }
  done
  ! grep -q "kernel_type: Silu" "$d" &&
    entry tensor_cast.swiglu.default "$d" | grep -q "^    kernel_type: Mul$" &&
    entry tensor_cast.multihead_latent_attention.default "$d" >"$tmp/cons.mla" &&
    grep -q "^    kernel_type: AicContextMla$" "$tmp/cons.mla" &&
    ! grep -q "alternate_kernel_types" "$tmp/cons.mla" &&
    ! grep -q "kv_cache_dtype:" "$tmp/cons.mla" &&
    grep -q "^      mla_dtype: " "$tmp/cons.mla" &&
    grep -q "left out: .* kv_cache_dtype).*no AicGenerationMla" "$tmp/cons.mla" ||
    { cat "$d"; return 1; }
}

# check TAG: `mapping check` on the drafted mapping passes schema and lookup; its per-op report
# is the shipped mapping's (each op answered from the same kernels, same sources).
t_check() {
  mkdir -p "$tmp/$1-db" && cp "$tmp/db"/* "$tmp/$1-db/" &&
    cp "$tmp/$1.yaml" "$tmp/$1-db/op_mapping.yaml" || return 1
  set -- "$1" "$(for f in "$tmp/$1"-*.jsonl; do printf ' --ops %s' "$f"; done)"
  # shellcheck disable=SC2086
  msperf mapping check --database "$tmp/$1-db" $2 >"$tmp/$1.check" 2>"$tmp/$1.check.err" ||
    { cat "$tmp/$1.check.err"; return 1; }
  grep -q "^schema: 0 problem(s); lookup: 0 problem(s) in [0-9]* entries$" "$tmp/$1.check" ||
    return 1
  # shellcheck disable=SC2086
  msperf mapping check --database "$shipped" $2 >"$tmp/$1.ship" 2>&1 || return 1
  sed -n '/^op /,/^$/p' "$tmp/$1.ship" | grep -v "^\($(echo $allowed_diff | sed 's/ /\\|/g')\) " |
    sort >"$tmp/$1.ship.ops"
  sed -n '/^op /,/^$/p' "$tmp/$1.check" | grep -v "^\($(echo $allowed_diff | sed 's/ /\\|/g')\) " |
    sort >"$tmp/$1.check.ops"
  [ "$(wc -l <"$tmp/$1.ship.ops")" -gt 10 ] && diff "$tmp/$1.ship.ops" "$tmp/$1.check.ops"
}

local_cfgs=$top/tests/data/models/configs
if model_traces "$local_cfgs" local && draft local; then
  ok "draft: every shipped H200 entry of the test configs' ops is proposed alike" \
    t_same local only-traced
  ok "draft: a changed shipped entry is reported (the comparison can fail)" t_can_fail local
  ok "draft: field_table with field_args and alternates, field_defaults, proxy_bytes, notes" \
    t_kinds local
  ok "draft: mapping check passes schema+lookup and answers every op as the shipped mapping" \
    t_check local
  ok "draft: conservative where the database lacks a table, an alternate or a column" \
    t_conservative local
else
  cat "$tmp/trace.err"
  ok "draft: tracing the test configs and drafting" false
fi

models=${MSPERF_MODELS_DIR:-$top/../shared/data/models}
if [ -d "$models" ]; then
  if model_traces "$models" shared && draft shared; then
    ok "draft: every shipped H200 entry is proposed alike (the ops of every model)" t_same shared
    ok "draft: mapping check passes and answers every op as the shipped mapping (every model)" \
      t_check shared
  else
    cat "$tmp/trace.err"
    ok "draft: tracing the models of $models and drafting" false
  fi
else
  skip "model configs not found at $models (set MSPERF_MODELS_DIR)"
  skip "model configs not found at $models (set MSPERF_MODELS_DIR)"
fi

tap_end
