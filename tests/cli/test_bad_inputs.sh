#!/bin/sh
# The bad-input corpus (tests/data/bad/CASES) through the real CLI: every case gives its
# documented message (file, line, problem) and exit status, and the other ops are still
# answered; then the safe-loading rules (module directories, database symlinks). TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TEST_PLUGINDIR:?}"
bin=$MSPERF_BIN
bad=$MSPERF_TOP_SRCDIR/tests/data/bad
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

report() {  # report OK? DESCRIPTION [TODO]
  n=$((n + 1))
  if [ "$1" = 0 ]; then
    echo "ok $n - $2${3:+ # TODO $3}"
  else
    echo "not ok $n - $2${3:+ # TODO $3}"
    sed 's/^/# /' "$tmp/why" | head -n 20
  fi
}

# A fresh copy of the two-op database in $tmp/case (paths in messages are relative to it).
fresh_db() {
  rm -rf "$tmp/case"
  mkdir -p "$tmp/case/db"
  cp "$bad/base/op_mapping.yaml" "$bad/base/Add.csv" "$bad/base/MatMulV2.csv" "$tmp/case/db/"
  cp "$bad/base/ops.jsonl" "$tmp/case/"
}

# estimate in $tmp/case; jsonl to e.out, messages to e.err.
estimate() {  # estimate OPS GLOBAL_OPTIONS ESTIMATE_OPTIONS (each one word or empty)
  (cd "$tmp/case" && "$bin" $2 estimate --profiling-database db --ops "$1" $3 \
     --format jsonl >e.out 2>e.err)
}

run_case() {  # run_case NAME KIND VALIDATE_EXIT ESTIMATE_EXIT MEASURED FRAGMENT
  name=$1 kind=$2 vexit=$3 eexit=$4 measured=$5 fragment=$6
  fresh_db
  : >"$tmp/why"
  case $kind in
    csv) cp "$bad/$name" "$tmp/case/db/MatMulV2.csv" ;;
    map) cp "$bad/$name" "$tmp/case/db/op_mapping.yaml" ;;
    *) cp "$bad/$name" "$tmp/case/$name" ;;
  esac
  if [ "$vexit" != - ]; then
    (cd "$tmp/case" && "$bin" validate --profiling-database db >v.out 2>v.err)
    got=$?
    [ "$got" = "$vexit" ] || echo "validate exit $got, expected $vexit" >>"$tmp/why"
    cat "$tmp/case/v.out" "$tmp/case/v.err" >"$tmp/case/msg"
  fi
  case $kind in
    policy) estimate ops.jsonl "--policy=$name" "" ;;
    device) estimate ops.jsonl "" "--device-profile=$name" ;;
    trace) estimate "$name" "" "" ;;
    *) estimate ops.jsonl "" "" ;;
  esac
  got=$?
  [ "$got" = "$eexit" ] || echo "estimate exit $got, expected $eexit" >>"$tmp/why"
  [ "$vexit" != - ] || cp "$tmp/case/e.err" "$tmp/case/msg"
  grep -qF -- "$fragment" "$tmp/case/msg" \
    || { echo "message '$fragment' not in:"; head -n 8 "$tmp/case/msg"; } >>"$tmp/why"
  if [ "$eexit" != 2 ]; then
    # One JSON line per input line (FORMATS §5.1): a trace case has its bad line between the
    # two good ones.
    want_lines=2
    [ "$kind" != trace ] || want_lines=3
    lines=$(wc -l <"$tmp/case/e.out")
    [ "$lines" -eq "$want_lines" ] || echo "$lines jsonl lines, expected $want_lines" >>"$tmp/why"
  fi
  got=$(grep -c '"source": "MEASURED"' "$tmp/case/e.out")
  [ "$got" -ge "$measured" ] || echo "$got MEASURED lines, expected $measured" >>"$tmp/why"
  [ ! -s "$tmp/why" ]
}

[ -f "$bad/CASES" ] || { echo "1..0 # SKIP no $bad/CASES"; exit 0; }
total=$(grep -c '^[^#]' "$bad/CASES")
echo "1..$((total + 8))"

grep '^[^#]' "$bad/CASES" | {
  while IFS='|' read -r name kind vexit eexit measured fragment todo; do
    run_case "$name" "$kind" "$vexit" "$eexit" "$measured" "$fragment"
    report $? "bad input $name ($kind): message, exit $eexit, other ops answered" "$todo"
  done
  echo "$n" >"$tmp/count"
}
n=$(cat "$tmp/count")

# ---- safe loading: module directories (doc/fuzzing.md, FORMATS §5.2)
so=$(ls "$MSPERF_TEST_PLUGINDIR"/.libs/msperf_elementwise.so 2>/dev/null | head -n 1)
mkdir -p "$tmp/plugins"
cp "$so" "$tmp/plugins/" 2>/dev/null
chmod 0777 "$tmp/plugins"
t_world_writable() {
  : >"$tmp/why"
  "$bin" --plugins-dir "$tmp/plugins" plugins list >"$tmp/pl.out" 2>"$tmp/pl.err"
  grep -q "module directory $tmp/plugins is world-writable" "$tmp/pl.err" \
    || { echo "no refusal on stderr:"; cat "$tmp/pl.err"; } >>"$tmp/why"
  grep "$tmp/plugins/msperf_elementwise" "$tmp/pl.out" | grep -q rejected \
    || { echo "not listed as rejected:"; cat "$tmp/pl.out"; } >>"$tmp/why"
  [ ! -s "$tmp/why" ]
}
t_world_writable; report $? "a world-writable module directory is refused with a message naming it"

t_allowed() {
  : >"$tmp/why"
  MSPERF_ALLOW_INSECURE_PLUGIN_DIR=1 "$bin" --plugins-dir "$tmp/plugins" plugins list \
    >"$tmp/pl.out" 2>"$tmp/pl.err"
  grep "$tmp/plugins/msperf_elementwise" "$tmp/pl.out" | grep -q loaded \
    || { echo "not loaded with MSPERF_ALLOW_INSECURE_PLUGIN_DIR=1:"; cat "$tmp/pl.out" "$tmp/pl.err"; } >>"$tmp/why"
  [ ! -s "$tmp/why" ]
}
t_allowed; report $? "MSPERF_ALLOW_INSECURE_PLUGIN_DIR=1 allows a world-writable module directory"

mkdir -p "$tmp/links"
ln -s "$so" "$tmp/links/msperf_elementwise.so"
t_symlink_out() {
  : >"$tmp/why"
  "$bin" --plugins-dir "$tmp/links" plugins list >"$tmp/pl.out" 2>"$tmp/pl.err"
  grep -q "outside the module directory" "$tmp/pl.err" \
    || { echo "symlinked module not refused:"; cat "$tmp/pl.out" "$tmp/pl.err"; } >>"$tmp/why"
  [ ! -s "$tmp/why" ]
}
t_symlink_out; report $? "a module that is a symlink out of its directory is refused"

# ---- safe loading: database files confined (FORMATS §1 Paths)
t_csv_symlink() {
  fresh_db
  : >"$tmp/why"
  cp "$tmp/case/db/MatMulV2.csv" "$tmp/outside.csv"
  rm "$tmp/case/db/MatMulV2.csv"
  ln -s "$tmp/outside.csv" "$tmp/case/db/MatMulV2.csv"
  (cd "$tmp/case" && "$bin" validate --profiling-database db >v.out 2>&1)
  [ $? = 1 ] || echo "validate did not fail" >>"$tmp/why"
  grep -q "outside the database directory" "$tmp/case/v.out" \
    || { echo "no confinement message:"; cat "$tmp/case/v.out"; } >>"$tmp/why"
  [ ! -s "$tmp/why" ]
}
t_csv_symlink; report $? "a kernel CSV symlinked out of the database directory is refused"

t_root() {
  fresh_db
  : >"$tmp/why"
  mkdir -p "$tmp/root"
  (cd "$tmp/case" && "$bin" validate --profiling-database db --database-root "$tmp/root" >v.out 2>&1)
  [ $? != 0 ] || echo "validate accepted a database outside --database-root" >>"$tmp/why"
  grep -q "outside the database root" "$tmp/case/v.out" \
    || { echo "no root message:"; cat "$tmp/case/v.out"; } >>"$tmp/why"
  [ ! -s "$tmp/why" ]
}
t_root; report $? "files outside --database-root are refused"

# ---- over-long strings of policies and device profiles: cut, with the file and line
big=$(head -c 10485760 /dev/zero | tr '\0' x)
t_policy_long_device() {
  fresh_db
  : >"$tmp/why"
  printf 'analytic:\n  device_profile: "%s"\n' "$big" >"$tmp/case/long-device.yaml"
  estimate ops.jsonl "--policy=long-device.yaml" ""
  [ $? = 2 ] || echo "estimate did not refuse the policy with exit 2" >>"$tmp/why"
  grep -qF "long-device.yaml:2: key 'analytic.device_profile': a string of 10485760 bytes is too long (at most 4096)" \
    "$tmp/case/e.err" || { echo "no file:line message:"; cut -c1-200 "$tmp/case/e.err"; } >>"$tmp/why"
  [ "$(wc -c <"$tmp/case/e.err")" -lt 4096 ] || echo "the message echoes the value" >>"$tmp/why"
  [ ! -s "$tmp/why" ]
}
t_policy_long_device; report $? "a 10 MB device name in a policy is refused naming the policy file and line"

t_profile_long_name() {
  fresh_db
  : >"$tmp/why"
  { printf 'name: "%s"\n' "$big"
    grep -v '^name:' "$MSPERF_TOP_SRCDIR/policies/devices/nvidia-h200.yaml"; } \
    >"$tmp/case/long-name.yaml"
  line=1
  estimate ops.jsonl "" "--device-profile=long-name.yaml"
  [ $? = 2 ] || echo "estimate did not refuse the profile with exit 2" >>"$tmp/why"
  grep -qF "long-name.yaml:$line: key 'name': a string of 10485760 bytes is too long" \
    "$tmp/case/e.err" || { echo "no file:line message:"; cut -c1-200 "$tmp/case/e.err"; } >>"$tmp/why"
  [ "$(wc -c <"$tmp/case/e.err")" -lt 4096 ] || echo "the message echoes the value" >>"$tmp/why"
  [ ! -s "$tmp/why" ]
}
t_profile_long_name; report $? "a 10 MB name in a device profile is refused naming the file and line"

t_policy_long_key() {
  fresh_db
  : >"$tmp/why"
  printf 'interpolation:\n  kernel_overrides:\n    ? "%s"\n    : {allow_extrapolation: true}\n' \
    "$big" >"$tmp/case/long-key.yaml"
  estimate ops.jsonl "--policy=long-key.yaml" ""
  [ $? = 2 ] || echo "estimate did not refuse the policy with exit 2" >>"$tmp/why"
  grep -qF "long-key.yaml:4: a key of 10485760 bytes in 'interpolation.kernel_overrides' is too long" \
    "$tmp/case/e.err" || { echo "no file:line message:"; cut -c1-200 "$tmp/case/e.err"; } >>"$tmp/why"
  [ "$(wc -c <"$tmp/case/e.err")" -lt 4096 ] || echo "the message echoes the key" >>"$tmp/why"
  [ ! -s "$tmp/why" ]
}
t_policy_long_key; report $? "a 10 MB key in a policy is refused naming the file and line, not echoed"
