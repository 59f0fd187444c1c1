#!/bin/sh
# CLI tests of bad input to `msperf import aiconfigurator` (doc/formats.md §1.3): tables cut
# short, with reordered or doubled columns, duplicated rows, latencies that are not positive
# numbers, past the bound on rows or line length, not UTF-8, compressed; each is a FILE:LINE
# error (exit 2) or a counted skip told on stderr and in SOURCE.md, and a failure at any stage
# leaves neither a database nor the temporary directory beside it. The fixtures are made here
# from real rows of the cut in tests/data/import (its SOURCE.md says where they come from).
# TAP output for automake's tap-driver.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TEST_PLUGINDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
top=$MSPERF_TOP_SRCDIR
cut=$top/tests/data/import
gemm_rel=gemm/trtllm-1.3.0rc20/gemm_perf.csv
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

msperf() { "$bin" --plugins-dir "$MSPERF_TEST_PLUGINDIR" "$@"; }

# case NAME: a TABLES_DIR $tmp/NAME/tables holding only the GEMM table, whose text is stdin,
# with the upstream LICENSE beside it; prints the table's path.
case_dir() {
  d=$tmp/$1
  mkdir -p "$d/tables/${gemm_rel%/*}"
  cp "$cut/LICENSE" "$d/LICENSE"
  cat > "$d/tables/$gemm_rel"
  echo "$d/tables/$gemm_rel"
}
head_rows() { head -n "$((1 + $1))" "$cut/tables/$gemm_rel"; }  # the header and N rows

# refused NAME PATTERN: the import of case NAME exits 2 with PATTERN on stderr, and leaves no
# database and nothing else in the output's directory.
refused() {
  out=$tmp/$1/out
  mkdir -p "$out"
  msperf import aiconfigurator "$tmp/$1/tables" --out "$out/db" >"$tmp/log.out" 2>"$tmp/log"
  st=$?
  [ $st -eq 2 ] || { echo "exit $st, expected 2"; cat "$tmp/log"; return 1; }
  contains "$tmp/log" "$2" || return 1
  [ -z "$(ls -A "$out")" ] || { echo "left behind:"; ls -la "$out"; return 1; }
}

# imported NAME: the import of case NAME succeeds into $tmp/NAME/db (stderr in $tmp/log)
imported() {
  msperf import aiconfigurator "$tmp/$1/tables" --out "$tmp/$1/db" ${2:-} 2>"$tmp/log" \
    || { cat "$tmp/log"; return 1; }
}
gemm_rows() { gzip -dc "$tmp/$1/db/$2.csv.gz" | tail -n +2; }

t_baseline() {
  head_rows 6 | case_dir base >/dev/null
  imported base &&
  contains "$tmp/log" "6 rows in, 6 out, 0 dropped" &&
  [ "$(gemm_rows base MatMulV2 | wc -l)" -ge 1 ]
}
ok "import: six real GEMM rows import (the reference of the cases below)" t_baseline

t_cut_mid_row() {
  f=$(head_rows 6 | case_dir cut)
  size=$(wc -c < "$f")
  head -c "$((size - 5))" "$f" > "$f.part" && mv "$f.part" "$f"
  refused cut "gemm_perf.csv:7: the last row has no line end: the file was cut short"
}
ok "import: a table cut mid-row is FILE:LINE (its last cell could read as another number)" \
  t_cut_mid_row

t_cut_mid_quote() {
  { head_rows 2; printf 'TRTLLM,1.3.0rc20,"NVIDIA H200\n'; } | case_dir quote >/dev/null
  refused quote "gemm_perf.csv:4: unterminated quoted field"
}
ok "import: a table cut inside a quoted cell is FILE:LINE" t_cut_mid_quote

t_reordered() {
  # the columns in reverse order: read by header name, the same database bytes
  head_rows 6 | awk -F, -v OFS=, '{ for (i = NF; i > 1; i--) printf "%s,", $i; print $1 }' \
    | case_dir reord >/dev/null
  imported reord &&
  for k in MatMulV2 FP8MatMul; do
    cmp "$tmp/reord/db/$k.csv.gz" "$tmp/base/db/$k.csv.gz" || return 1
  done
}
ok "import: reordered columns are read by header name (the same database bytes)" t_reordered

t_column_twice() {
  head_rows 3 | sed '1s/,latency$/,latency,latency/; 2,$s/$/,1.0/' | case_dir twice >/dev/null
  refused twice "gemm_perf.csv:1: column 'latency' twice (columns 10 and 11)"
}
ok "import: a header naming a column twice is refused at line 1" t_column_twice

t_duplicates() {
  { head_rows 6; head_rows 6 | sed -n '3p;5p'; } | case_dir dup >/dev/null
  imported dup &&
  contains "$tmp/log" "8 rows in, 6 out, 2 dropped" &&
  contains "$tmp/log" "gemm_perf.csv:8: 2 rows dropped: duplicate of an earlier row (the first at this line)" &&
  contains "$tmp/dup/db/SOURCE.md" "duplicate of an earlier row: 2" &&
  cmp "$tmp/dup/db/MatMulV2.csv.gz" "$tmp/base/db/MatMulV2.csv.gz"
}
ok "import: exact duplicate rows are dropped and counted (stderr with the line, SOURCE.md)" \
  t_duplicates

t_latency() {
  { head_rows 2
    for v in nan NaN -0.5 0 0.000 inf -inf 1e999x '' 1.0.0 0x10; do
      head_rows 1 | tail -n 1 | sed "s/,[^,]*\$/,$v/"
    done; } | case_dir lat >/dev/null
  imported lat &&
  contains "$tmp/log" "13 rows in, 2 out, 11 dropped" &&
  contains "$tmp/log" "gemm_perf.csv:4: 11 rows dropped: latency not a positive number" &&
  contains "$tmp/lat/db/SOURCE.md" "latency not a positive number: 11"
}
ok "import: NaN, negative, zero, inf and garbled latencies are counted skips with the line" \
  t_latency

t_ragged() {
  { head_rows 3; head_rows 1 | tail -n 1 | cut -d, -f1-8; } | case_dir ragged >/dev/null
  imported ragged &&
  contains "$tmp/log" "gemm_perf.csv:5: 1 row dropped: ragged row" &&
  contains "$tmp/ragged/db/SOURCE.md" "ragged row (cell count differs from the header's): 1"
}
ok "import: a row of another cell count is a counted skip with its line" t_ragged

t_max_rows() {
  head_rows 6 | case_dir many >/dev/null
  out=$tmp/many/out && mkdir -p "$out"
  msperf import aiconfigurator "$tmp/many/tables" --out "$out/db" --max-rows 3 2>"$tmp/log"
  [ $? -eq 2 ] || return 1
  contains "$tmp/log" "gemm_perf.csv:5: more than 3 data rows in the input tables (the bound --max-rows" || return 1
  [ -z "$(ls -A "$out")" ] || { ls -la "$out"; return 1; }
  msperf import aiconfigurator "$tmp/many/tables" --out "$out/db" --max-rows 6 2>"$tmp/log" \
    || { cat "$tmp/log"; return 1; }
  for v in 0 -1 x; do
    msperf import aiconfigurator "$tmp/many/tables" --out "$out/db2" --max-rows "$v" \
      2>"$tmp/log"
    [ $? -eq 2 ] || return 1
    [ ! -e "$out/db2" ] || return 1
  done
  contains "$tmp/log" "max-rows"
}
ok "import --max-rows: past the bound refused naming it (no DB); at it imported; 0 is usage" \
  t_max_rows

t_long_line() {
  { head_rows 2; printf 'TRTLLM,1.3.0rc20,NVIDIA H200,gemm,'
    head -c 20000 /dev/zero | tr '\0' x; echo ',bfloat16,1,1,1,0.1'; } | case_dir long >/dev/null
  refused long "gemm_perf.csv:4: line longer than 16384 bytes"
}
ok "import: an absurdly long line is refused at its line, with the bound" t_long_line

t_latin1() {
  { head_rows 2; head_rows 3 | tail -n 1 | sed 's/NVIDIA H200/NVIDIA H\xe9200/'; } \
    | case_dir latin1 >/dev/null
  refused latin1 'gemm_perf.csv:4: column 3 is not UTF-8 (byte \\xE9'
}
ok "import: a Latin-1 byte is refused at its line and column" t_latin1

t_utf16() {
  head_rows 2 | iconv -f UTF-8 -t UTF-16 | case_dir utf16 >/dev/null
  refused utf16 "gemm_perf.csv:1: column 1 "
}
ok "import: a UTF-16 table is refused at line 1" t_utf16

t_nul() {
  { head_rows 2; head_rows 3 | tail -n 1 | sed 's/,\([^,]*\)$/,0.0\x001\1/'; } \
    | case_dir nul >/dev/null
  refused nul "gemm_perf.csv:4: column 10 holds a NUL byte"
}
ok "import: a NUL byte inside a cell is refused (it would cut the number short)" t_nul

t_bom() {
  { printf '\357\273\277'; head_rows 6; } | case_dir bom >/dev/null
  imported bom && cmp "$tmp/bom/db/MatMulV2.csv.gz" "$tmp/base/db/MatMulV2.csv.gz"
}
ok "import: a UTF-8 byte order mark is not part of the first column" t_bom

t_empty() {
  : | case_dir empty >/dev/null
  refused empty "gemm_perf.csv:1: empty file" || return 1
  head_rows 0 | case_dir header >/dev/null
  refused header "no data row in any upstream table" || return 1
  mkdir -p "$tmp/none/tables" && cp "$cut/LICENSE" "$tmp/none/LICENSE"
  refused none "no data row in any upstream table"
}
ok "import: an empty table, a header alone and a TABLES_DIR without tables are refused" t_empty

t_gzip() {
  f=$(head_rows 6 | case_dir gz)
  gzip -n "$f"
  refused gz "gemm_perf.csv.gz: compressed tables are not read" || return 1
  # cut mid-stream: refused the same way, before anything is read
  size=$(wc -c < "$f.gz")
  head -c "$((size / 2))" "$f.gz" > "$f.gz.part" && mv "$f.gz.part" "$f.gz"
  refused gz "gemm_perf.csv.gz: compressed tables are not read"
}
ok "import: a compressed table (whole or cut mid-stream) is refused, not skipped unseen" t_gzip

t_write_failure() {
  # the kernel tables are written, then the merge of --elementwise-from fails
  mkdir -p "$tmp/noelem" "$tmp/wf"
  msperf import aiconfigurator "$tmp/base/tables" --out "$tmp/wf/db" \
    --elementwise-from "$tmp/noelem" 2>"$tmp/log"
  [ $? -eq 2 ] || return 1
  contains "$tmp/log" "noelem/Add.csv: cannot read" || return 1
  [ -z "$(ls -A "$tmp/wf")" ] || { ls -la "$tmp/wf"; return 1; }
  # with --force over an existing database: the old one stays whole
  cp -r "$tmp/base/db" "$tmp/wf/db"
  msperf import aiconfigurator "$tmp/base/tables" --out "$tmp/wf/db" --force \
    --elementwise-from "$tmp/noelem" 2>"$tmp/log"
  [ $? -eq 2 ] || return 1
  [ "$(ls -A "$tmp/wf")" = db ] || { ls -la "$tmp/wf"; return 1; }
  diff -r "$tmp/base/db" "$tmp/wf/db" || return 1
  # a bad table with --force: the old database stays whole as well
  msperf import aiconfigurator "$tmp/cut/tables" --out "$tmp/wf/db" --force 2>"$tmp/log"
  [ $? -eq 2 ] || return 1
  [ "$(ls -A "$tmp/wf")" = db ] && diff -r "$tmp/base/db" "$tmp/wf/db"
}
ok "import: a failure while writing leaves neither a DB nor the temporary directory; --force keeps the old DB" \
  t_write_failure

t_unwritable() {
  msperf import aiconfigurator "$tmp/base/tables" --out "$tmp/absent/dir/db" 2>"$tmp/log"
  [ $? -eq 2 ] || return 1
  # the temporary directory is made beside the target (in its directory), so the rename
  # into place never crosses file systems
  contains "$tmp/log" "absent/dir: cannot make a temporary directory" || return 1
  [ ! -e "$tmp/absent" ]
}
ok "import: an output whose directory does not exist is refused cleanly" t_unwritable

tap_end
