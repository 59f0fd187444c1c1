# The TAP plumbing the CLI test scripts share; each sources it after its own checks of the
# environment, as
#   . "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"
# It gives a scratch directory $tmp (removed on exit, read-only parts included), the counters
# $n (tests run) and $failed, and:
#   ok DESCRIPTION COMMAND...  runs the command (a shell function or a program) with its
#                              stdout in $tmp/ok.out and its stderr in $tmp/ok.err, prints
#                              "ok N - DESCRIPTION" when it succeeds, else "not ok N - ..."
#                              and the start of both files as TAP comments;
#   status_is WANT COMMAND...  runs the command with its stdout in $tmp/cmd.out and its stderr
#                              in $tmp/cmd.err; fails, showing the stderr, unless it exits
#                              with status WANT;
#   contains FILE PATTERN      fails, showing the start of FILE, unless a line of FILE
#                              matches the grep PATTERN;
#   model_traces DIR TAG       prefill and decode traces (bf16, fp8, fp8_block; TP 2, batch
#                              4) of every model config DIR/*.json into $tmp/TAG-*.jsonl,
#                              the tracer's stderr in $tmp/trace.err;
#   tap_end                    prints the plan "1..N"; succeeds when nothing failed (the
#                              script's last command, so its exit status).

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
n=0
failed=0

ok() {
  n=$((n + 1))
  desc=$1; shift
  if "$@" >"$tmp/ok.out" 2>"$tmp/ok.err"; then
    echo "ok $n - $desc"
  else
    echo "not ok $n - $desc"
    sed 's/^/# /' "$tmp/ok.out" "$tmp/ok.err" | head -n 40
    failed=$((failed + 1))
  fi
}

status_is() {
  want=$1; shift
  "$@" >"$tmp/cmd.out" 2>"$tmp/cmd.err"
  got=$?
  [ "$got" -eq "$want" ] || { echo "exit $got, expected $want"; cat "$tmp/cmd.err"; return 1; }
}

contains() {
  grep -q -- "$2" "$1" || { echo "'$2' not in $1:"; head -n 30 "$1" | cut -c1-300; return 1; }
}

tap_end() {
  echo "1..$n"
  [ "$failed" -eq 0 ]
}

model_traces() {
  for cfg in "$1"/*.json; do
    m=$(basename "$cfg" .json)
    for q in bf16 fp8 fp8_block; do
      for ph in prefill decode; do
        "$MSPERF_BIN" --plugins-dir "$MSPERF_TEST_PLUGINDIR" trace --model "$cfg" --quant "$q" \
          --phase "$ph" --tp 2 --batch 4 -o "$tmp/$2-$m.$q.$ph.jsonl" 2>>"$tmp/trace.err" \
          || return 1
      done
    done
  done
}
