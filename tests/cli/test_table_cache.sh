#!/bin/sh
# Warm starts: the on-disk table cache through the binary. The first run writes each kernel
# table it loads as an image beside the triangulations (a --verbose debug line says so), the
# second loads the images; stdout is the same bytes cold, warm and with --no-cache; a changed
# CSV is read again, never served from the old image; a truncated or garbage image gets one
# warning naming it, the same stdout, and is rebuilt for the next run. TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

# A copy of the sample database (the stale test edits it): a GEMM that is in the table and
# one that is interpolated.
cp -r "$MSPERF_TOP_SRCDIR/doc/examples/h200-db" "$tmp/db"
cat >"$tmp/ops.jsonl" <<'OPS'
{"op": "aten.mm.default", "args": [{"shape": [1, 256], "dtype": "bfloat16"}, {"shape": [256, 256], "dtype": "bfloat16"}], "out": [{"shape": [1, 256], "dtype": "bfloat16"}], "count": 1}
{"op": "aten.mm.default", "args": [{"shape": [700, 1500], "dtype": "bfloat16"}, {"shape": [1500, 2500], "dtype": "bfloat16"}], "out": [{"shape": [700, 2500], "dtype": "bfloat16"}], "count": 3}
OPS
est() { "$bin" -v estimate --profiling-database "$tmp/db" --ops "$tmp/ops.jsonl" --format jsonl "$@"; }

t_cold_then_warm() {
  est --cache-dir "$tmp/c" >"$tmp/cold" 2>"$tmp/cold.err" || return 1
  grep -q 'table cache: wrote' "$tmp/cold.err" || { echo "no write line"; return 1; }
  ls "$tmp/c"/*.table >/dev/null || return 1
  est --cache-dir "$tmp/c" >"$tmp/warm" 2>"$tmp/warm.err" || return 1
  grep -q 'table cache: loaded' "$tmp/warm.err" || { echo "no load line"; return 1; }
  ! grep -q 'table cache: wrote' "$tmp/warm.err" || { echo "rewrote"; return 1; }
  grep -q MEASURED "$tmp/warm" || return 1
  cmp "$tmp/cold" "$tmp/warm"
}
ok "the second run loads the tables the first wrote; same stdout" t_cold_then_warm

t_no_cache() {
  est --no-cache >"$tmp/off" 2>"$tmp/off.err" || return 1
  ! grep -q 'table cache' "$tmp/off.err" || return 1
  cmp "$tmp/cold" "$tmp/off"
}
ok "--no-cache neither reads nor writes the tables; same stdout" t_no_cache

t_stale() {
  before=$(ls "$tmp/c"/*.table | wc -l)
  sed -i "s/,2\.633800\(\r\?\)$/,5.000000\1/" "$tmp/db/MatMulV2.csv"
  est --cache-dir "$tmp/c" >"$tmp/changed" 2>"$tmp/changed.err" || return 1
  est --no-cache >"$tmp/changed-off" 2>/dev/null || return 1
  ! cmp -s "$tmp/cold" "$tmp/changed" || { echo "served the old table"; return 1; }
  cmp "$tmp/changed" "$tmp/changed-off" || return 1
  grep -q 'table cache: wrote' "$tmp/changed.err" || return 1
  [ "$(ls "$tmp/c"/*.table | wc -l)" -gt "$before" ]
}
ok "a changed CSV is read again (a new image), never served stale" t_stale

t_truncated() {
  for f in "$tmp/c"/*.table; do
    head -c 50 "$f" >"$f.part" && mv "$f.part" "$f"
  done
  est --cache-dir "$tmp/c" >"$tmp/bad" 2>"$tmp/bad.err" || return 1
  grep -q 'warning: table cache: ignoring .*\.table: truncated' "$tmp/bad.err" \
    || { cat "$tmp/bad.err"; return 1; }
  [ "$(grep -c 'warning: table cache: ignoring' "$tmp/bad.err")" -eq \
    "$(grep -c 'table cache: wrote' "$tmp/bad.err")" ] || return 1
  cmp "$tmp/changed" "$tmp/bad" || return 1
  est --cache-dir "$tmp/c" >"$tmp/again" 2>"$tmp/again.err" || return 1
  grep -q 'table cache: loaded' "$tmp/again.err" && ! grep -q 'warning: table' "$tmp/again.err"
}
ok "truncated images: one warning each, same stdout, rebuilt for the next run" t_truncated

t_garbage() {
  for f in "$tmp/c"/*.table; do
    head -c 4096 /dev/urandom >"$f"
  done
  est --cache-dir "$tmp/c" >"$tmp/junk" 2>"$tmp/junk.err" || return 1
  grep -q 'warning: table cache: ignoring' "$tmp/junk.err" || return 1
  cmp "$tmp/changed" "$tmp/junk"
}
ok "garbage images: warned about, same stdout" t_garbage

t_unusable_dir() {
  : >"$tmp/plain"
  est --cache-dir "$tmp/plain/sub" >"$tmp/u" 2>"$tmp/u.err" || return 1
  [ "$(grep -c 'warning: table cache' "$tmp/u.err")" -le 1 ] || return 1
  cmp "$tmp/changed" "$tmp/u"
}
ok "an unusable directory: still answers, the same bytes" t_unusable_dir

tap_end
