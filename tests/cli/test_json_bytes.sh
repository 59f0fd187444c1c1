#!/bin/sh
# Every JSON writer stays valid JSON when a path holds a byte that is not UTF-8 (a Latin-1
# directory name, db\xe9; the holdout runs on a copy of the shipped sample database): --format json and jsonl, --report .json and .html, the M1-M5 metrics,
# the Chrome trace, the holdout report and --log-format json write the byte as the text outputs
# do, \xNN (its backslash escaped in JSON), never raw. TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
bad=$MSPERF_TOP_SRCDIR/tests/data/bad
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

e9=$(printf '\351')
db="$tmp/db$e9"
mkdir -p "$db"
cp "$bad/base/op_mapping.yaml" "$bad/base/Add.csv" "$bad/base/MatMulV2.csv" "$bad/base/ops.jsonl" "$db/"

# valid FILE: the file is UTF-8 (python3's strict decoder, else iconv) and, when python3 is
# there, parses as JSON (one document, or one per line with --lines).
valid() {
  if grep -q "$e9" "$1"; then
    echo "$1 holds the raw byte 0xe9"; return 1
  fi
  if command -v python3 >/dev/null 2>&1; then
    python3 - "$@" <<'PY' || return 1
import json, sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
if len(sys.argv) > 2:
    for line in text.splitlines():
        if line.startswith("{"):
            json.loads(line)
else:
    json.loads(text)
PY
  elif command -v iconv >/dev/null 2>&1; then
    iconv -f UTF-8 -t UTF-8 "$1" >/dev/null || return 1
  fi
}

# has FILE TEXT: the byte is shown as the text outputs show it
has() { grep -qF -- "$2" "$1" || { echo "'$2' not in $1:"; head -c 600 "$1"; return 1; }; }

t_estimate_writers() {
  (cd "$tmp" && "$bin" estimate --profiling-database "$db" --ops "$db/ops.jsonl" --format json \
     --report r.json --export-empirical-metrics m.json --chrome-trace c.json >o.json 2>o.err) ||
    { cat "$tmp/o.err"; return 1; }
  for f in o.json r.json m.json c.json; do
    valid "$tmp/$f" || return 1
  done
  has "$tmp/o.json" 'db\\xe9' && has "$tmp/r.json" 'db\\xe9'
}
ok "estimate --format json, --report .json, metrics and Chrome trace escape a non-UTF-8 path" \
  t_estimate_writers

t_jsonl() {
  # a rejected line's answer carries its error, which names the trace file t\xe9.jsonl
  { head -n 1 "$db/ops.jsonl"; echo '{"op": 7}'; tail -n 1 "$db/ops.jsonl"; } >"$tmp/t$e9.jsonl"
  (cd "$tmp" && "$bin" estimate --profiling-database "$db" --ops "t$e9.jsonl" \
     --format jsonl --report r.html >o.jsonl 2>o.err)
  [ $? = 1 ] || { echo "estimate did not exit 1 for the rejected line"; cat "$tmp/o.err"; return 1; }
  valid "$tmp/o.jsonl" --lines && has "$tmp/o.jsonl" 't\\xe9.jsonl:2:' || return 1
  ! grep -q "$e9" "$tmp/r.html" || { echo "the html report holds the raw byte"; return 1; }
  has "$tmp/r.html" 'db\xe9'
}
ok "estimate --format jsonl and the html report escape a non-UTF-8 path" t_jsonl

t_log_json() {
  cp "$bad/csv-empty.csv" "$db/MatMulV2.csv"
  (cd "$tmp" && "$bin" --log-format json estimate --profiling-database "$db" \
     --ops "$db/ops.jsonl" --format jsonl >/dev/null 2>log.err)
  cp "$bad/base/MatMulV2.csv" "$db/MatMulV2.csv"
  grep '^{' "$tmp/log.err" >"$tmp/log.json"
  has "$tmp/log.json" 'db\\xe9/MatMulV2.csv:1: empty file' && valid "$tmp/log.json" --lines
}
ok "--log-format json escapes a non-UTF-8 path in a message" t_log_json

t_holdout_json() {
  cp -r "$MSPERF_TOP_SRCDIR/doc/examples/h200-db" "$tmp/h200$e9"
  (cd "$tmp" && "$bin" holdout --profiling-database "$tmp/h200$e9" --kernel Add \
     --report h.json >/dev/null 2>h.err) || { cat "$tmp/h.err"; return 1; }
  valid "$tmp/h.json" && has "$tmp/h.json" 'h200\\xe9'
}
ok "holdout --report .json escapes a non-UTF-8 path" t_holdout_json

tap_end
