#!/bin/sh
# Warm starts: the on-disk triangulation cache through the binary. The second run
# loads the triangulation the first wrote (a --verbose debug line says so); stdout is the
# same bytes with the cache cold, warm, off (--no-cache) and after a damaged file (one
# warning naming it, then rebuilt); the default directory is $XDG_CACHE_HOME/msperf; an
# unusable directory still answers; --cache-dir with --no-cache is a usage error. TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

# Interpolated 3-D GEMMs on the sample database (its MatMulV2 set has ~900 points, above the
# cache's 256-point floor).
cat >"$tmp/ops.jsonl" <<'OPS'
{"op": "aten.mm.default", "args": [{"shape": [2000, 3000], "dtype": "bfloat16"}, {"shape": [3000, 5000], "dtype": "bfloat16"}], "out": [{"shape": [2000, 5000], "dtype": "bfloat16"}], "count": 1}
{"op": "aten.mm.default", "args": [{"shape": [700, 1500], "dtype": "bfloat16"}, {"shape": [1500, 2500], "dtype": "bfloat16"}], "out": [{"shape": [700, 2500], "dtype": "bfloat16"}], "count": 3}
OPS
est() { "$bin" -v estimate --ops "$tmp/ops.jsonl" --format jsonl "$@"; }

t_cold_then_warm() {
  est --cache-dir "$tmp/c" >"$tmp/cold" 2>"$tmp/cold.err" || return 1
  grep -q 'triangulation cache: wrote' "$tmp/cold.err" || { echo "no write line"; return 1; }
  ls "$tmp/c"/*.tri >/dev/null || return 1
  est --cache-dir "$tmp/c" >"$tmp/warm" 2>"$tmp/warm.err" || return 1
  grep -q 'triangulation cache: loaded' "$tmp/warm.err" || { echo "no load line"; return 1; }
  ! grep -q 'triangulation cache: wrote' "$tmp/warm.err" || { echo "rewrote"; return 1; }
  grep -q INTERPOLATED "$tmp/warm" || return 1
  cmp "$tmp/cold" "$tmp/warm"
}
ok "the second run loads the triangulation the first wrote; same stdout" t_cold_then_warm

t_no_cache() {
  est --no-cache >"$tmp/off" 2>"$tmp/off.err" || return 1
  ! grep -q 'triangulation cache' "$tmp/off.err" || return 1
  cmp "$tmp/cold" "$tmp/off"
}
ok "--no-cache neither reads nor writes; same stdout" t_no_cache

t_table_same() {
  "$bin" estimate --ops "$tmp/ops.jsonl" --cache-dir "$tmp/c" >"$tmp/t1" 2>/dev/null || return 1
  "$bin" estimate --ops "$tmp/ops.jsonl" --no-cache >"$tmp/t2" 2>/dev/null || return 1
  cmp "$tmp/t1" "$tmp/t2"
}
ok "table output identical warm and with --no-cache" t_table_same

t_default_dir() {
  XDG_CACHE_HOME=$tmp/xdg est >"$tmp/d" 2>"$tmp/d.err" || return 1
  ls "$tmp/xdg/msperf"/*.tri >/dev/null || return 1
  cmp "$tmp/cold" "$tmp/d"
}
ok "the default directory is \$XDG_CACHE_HOME/msperf" t_default_dir

t_corrupt() {
  for f in "$tmp/c"/*.tri; do
    head -c 1000 "$f" >"$f.part" && mv "$f.part" "$f"
  done
  est --cache-dir "$tmp/c" >"$tmp/bad" 2>"$tmp/bad.err" || return 1
  [ "$(grep -c 'warning: triangulation cache: ignoring .*\.tri: truncated' "$tmp/bad.err")" -eq 1 ] \
    || { cat "$tmp/bad.err"; return 1; }
  cmp "$tmp/cold" "$tmp/bad" || return 1
  est --cache-dir "$tmp/c" >"$tmp/again" 2>"$tmp/again.err" || return 1
  grep -q 'triangulation cache: loaded' "$tmp/again.err" && ! grep -q warning "$tmp/again.err"
}
ok "a truncated file: one warning naming it, same stdout, rebuilt for the next run" t_corrupt

t_unusable_dir() {
  : >"$tmp/plain"
  est --cache-dir "$tmp/plain/sub" >"$tmp/u" 2>"$tmp/u.err" || return 1
  [ "$(grep -c 'warning: triangulation cache' "$tmp/u.err")" -le 1 ] || return 1
  cmp "$tmp/cold" "$tmp/u"
}
ok "an unusable directory: still answers, the same bytes" t_unusable_dir

t_both() {
  "$bin" estimate --ops "$tmp/ops.jsonl" --cache-dir "$tmp/c" --no-cache >/dev/null 2>"$tmp/b.err"
  [ $? -eq 2 ] && grep -q 'exclude each other' "$tmp/b.err"
}
ok "--cache-dir with --no-cache is a usage error" t_both

t_holdout() {
  db=$MSPERF_TOP_SRCDIR/doc/examples/h200-db
  "$bin" holdout --profiling-database "$db" --kernel MatMulV2 --fraction 0.05 --seed 1 --cache-dir "$tmp/h" >"$tmp/h1" 2>/dev/null \
    || return 1
  grep -q . "$tmp/h1" || return 1
  "$bin" holdout --profiling-database "$db" --kernel MatMulV2 --fraction 0.05 --seed 1 --no-cache >"$tmp/h2" 2>/dev/null || return 1
  cmp "$tmp/h1" "$tmp/h2"
}
ok "holdout takes the options; same stdout with and without the cache" t_holdout

tap_end
