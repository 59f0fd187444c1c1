#!/bin/sh
# The HTML report (`msperf estimate --report out.html`) rendered by a real headless Chromium:
# the assertions read the DOM Chromium dumps after the report's own layout check ran
# (core/app/report/report_doc.c: <body data-clipped-labels=N>), not the file msperf wrote.
#   - at 700 px no label is clipped, the page does not scroll sideways;
#   - counts are integers; the legend has one entry per source; the headline box has the
#     facts of the text headline; "top ops" and the ops table show input shapes;
#   - a long op name and a long shape list wrap instead of being cut;
#   - the check can fail: a narrow window and a copy with wrapping switched off report
#     clipped labels.
# Without chromium the whole script is skipped (TAP "1..0 # SKIP"), unless
# MSPERF_REQUIRE_CHROMIUM=1 (scripts/bootstrap.sh sets it: CI installs chromium). TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
chromium=${CHROMIUM:-chromium}
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

if ! command -v "$chromium" >/dev/null 2>&1; then
  if [ "${MSPERF_REQUIRE_CHROMIUM:-0}" = 1 ]; then
    echo "not ok 1 - chromium is installed (MSPERF_REQUIRE_CHROMIUM=1)"
    echo "1..1"
    exit 1
  fi
  echo "1..0 # SKIP chromium not installed (apt-get install chromium)"
  exit 0
fi

# render HTML WIDTH DOM: the DOM after load, in a window WIDTH px wide. A private profile
# under $tmp, no sandbox (CI runs as root), a time budget so the load handler runs, and a
# timeout so a hung browser fails the test instead of the build.
render() {
  prof=$tmp/profile-$2-$(basename "$1")
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$prof" --window-size="$2",1000 --virtual-time-budget=5000 \
    --dump-dom "file://$1" >"$3" 2>"$3.err"
  status=$?
  rm -rf "$prof"
  [ $status -eq 0 ] && [ -s "$3" ] || { echo "chromium failed ($status)"; tail -n 5 "$3.err"; return 1; }
}

# body_attr DOM NAME: the value of <body NAME="..."> in the dumped DOM.
body_attr() { grep -o '<body[^>]*>' "$1" | head -n 1 | sed -n "s/.* $2=\"\([^\"]*\)\".*/\1/p"; }

# ---- the demo run
"$bin" estimate --report "$tmp/demo.html" >"$tmp/demo.txt" 2>"$tmp/demo.err"
demo_status=$?
t_demo_runs() { [ $demo_status -eq 0 ] && [ -s "$tmp/demo.html" ] || { cat "$tmp/demo.err"; return 1; }; }
ok "msperf estimate --report demo.html exits 0" t_demo_runs
ok "chromium renders the report at 700 px" render "$tmp/demo.html" 700 "$tmp/demo.dom"

t_layout_ran() {
  checked=$(body_attr "$tmp/demo.dom" data-checked-labels)
  vw=$(body_attr "$tmp/demo.dom" data-viewport-width)
  [ -n "$checked" ] || { echo "the layout check did not run (no data-checked-labels)"; return 1; }
  [ "$checked" -ge 100 ] || { echo "only $checked labels measured"; return 1; }
  [ "$vw" -gt 600 ] && [ "$vw" -le 700 ] || { echo "viewport $vw px, not about 700"; return 1; }
}
ok "the report's layout check ran in the browser (labels measured, 700 px viewport)" t_layout_ran

t_no_clip() {
  c=$(body_attr "$tmp/demo.dom" data-clipped-labels)
  [ "$c" = 0 ] || { echo "clipped: $c ($(body_attr "$tmp/demo.dom" data-clipped-examples))"; return 1; }
  pw=$(body_attr "$tmp/demo.dom" data-page-width); vw=$(body_attr "$tmp/demo.dom" data-viewport-width)
  [ "$pw" -le "$vw" ] || { echo "page $pw px wide in a $vw px viewport"; return 1; }
}
ok "no clipped label and no sideways scrolling at 700 px" t_no_clip

# Every cell of class int holds digits only; the totals equal the text headline's.
t_integers() {
  grep -o '<td class="int">[^<]*</td>' "$tmp/demo.dom" | sed 's/<[^>]*>//g' >"$tmp/ints"
  [ "$(wc -l <"$tmp/ints")" -ge 20 ] || { echo "only $(wc -l <"$tmp/ints") integer cells"; return 1; }
  ! grep -qv '^[0-9][0-9]*$' "$tmp/ints" || { grep -v '^[0-9][0-9]*$' "$tmp/ints" | head -3; return 1; }
  inv=$(sed -n 's/.*ms (\([0-9]*\) invocations, \([0-9]*\) distinct ops).*/\1/p' "$tmp/demo.txt")
  dis=$(sed -n 's/.*ms (\([0-9]*\) invocations, \([0-9]*\) distinct ops).*/\2/p' "$tmp/demo.txt")
  [ -n "$inv" ] || { echo "no total in the text headline"; return 1; }
  grep -q "<tr class=\"total\"><th>total</th><td class=\"int\">$inv</td><td class=\"int\">$dis</td>" \
    "$tmp/demo.dom" || { echo "the summary total row is not $inv / $dis"; return 1; }
  ! grep -q "$inv\.0" "$tmp/demo.dom" || { echo "$inv printed as a decimal"; return 1; }
}
ok "invocations and distinct ops are integers (td.int) matching the text headline" t_integers

t_legend() {
  sed -n '/<ul class="legend" id="legend">/,/<\/ul>/p' "$tmp/demo.dom" >"$tmp/legend"
  [ -s "$tmp/legend" ] || { echo "no legend element"; return 1; }
  [ "$(grep -o '<li data-source=' "$tmp/legend" | wc -l)" -eq 5 ] || { echo "not 5 entries"; return 1; }
  for s in MEASURED INTERPOLATED EXTRAPOLATED PARTIAL ANALYTIC; do
    grep -q "<li data-source=\"$s\"><i class=\"sw\" style=\"background:#[0-9a-f]*\"></i>$s</li>" \
      "$tmp/legend" || { echo "no legend entry with a colour for $s"; return 1; }
  done
}
ok "the colour legend has one entry per source" t_legend

# Each "  label: value" line of the text headline is a dt/dd pair in the headline box.
t_headline() {
  sed -n '/<section class="headline" id="headline">/,/<\/section>/p' "$tmp/demo.dom" >"$tmp/box"
  [ -s "$tmp/box" ] || { echo "no headline box"; return 1; }
  sed -n '2,/^$/p' "$tmp/demo.txt" | grep '^  [a-z]' >"$tmp/lines"
  [ "$(wc -l <"$tmp/lines")" -ge 7 ] || { echo "text headline too short"; cat "$tmp/demo.txt"; return 1; }
  while IFS= read -r line; do
    label=$(printf '%s' "$line" | sed 's/^  \([^:]*\):.*/\1/')
    value=$(printf '%s' "$line" | sed 's/^  [^:]*: *//')
    grep -qF "<dt>$label</dt><dd><div>$value</div>" "$tmp/box" \
      || { echo "headline box lacks '$label: $value'"; return 1; }
  done <"$tmp/lines"
  for l in trace database "device profile" "policy hash" "total latency" answered largest; do
    grep -q "<dt>$l</dt>" "$tmp/box" || { echo "headline box lacks $l"; return 1; }
  done
  grep -q '<dd><div>[0-9.]* ms (' "$tmp/box" || { echo "no total in ms"; return 1; }
}
ok "the headline box has the text headline's facts (trace, database, total in ms, shares)" t_headline

# The five aten.mm.default rows of the demo differ only by their shapes.
t_shapes() {
  grep -o '<td class="op">aten\.mm\.default<span class="sub">[^<]*</span>' "$tmp/demo.dom" \
    | sort -u >"$tmp/mm"
  [ "$(wc -l <"$tmp/mm")" -eq 5 ] || { echo "ops table: $(wc -l <"$tmp/mm") distinct mm rows"; return 1; }
  sed -n '/<div class="bars" id="top-ops">/,/^<\/div>$/p' "$tmp/demo.dom" \
    | grep -o 'aten\.mm\.default<span class="sub">\[[^<]*</span>' | sort -u >"$tmp/topmm"
  [ "$(wc -l <"$tmp/topmm")" -ge 4 ] || { echo "top ops: $(wc -l <"$tmp/topmm") mm rows with shapes"; return 1; }
}
ok "top ops and the ops table show input shapes (five aten.mm.default rows told apart)" t_shapes

# ---- long labels wrap
long=aten.$(printf 'x%.0s' $(seq 1 160)).default
shape='{"shape": [123456789, 987654321, 55555], "dtype": "bfloat16"}'
args=$shape; for i in 1 2 3 4 5 6 7 8 9 10 11; do args="$args, $shape"; done
printf '{"op": "%s", "args": [%s], "out": [%s], "count": 3}\n' "$long" "$args" "$shape" >"$tmp/long.jsonl"
grep -v '^#' "$MSPERF_TOP_SRCDIR/doc/examples/traces/llama3-8b-prefill.jsonl" >>"$tmp/long.jsonl"
"$bin" estimate --ops "$tmp/long.jsonl" --report "$tmp/long.html" >/dev/null 2>"$tmp/long.err"
t_long() {
  [ -s "$tmp/long.html" ] || { cat "$tmp/long.err"; return 1; }
  grep -q "$long" "$tmp/long.html" || { echo "the long name is not in the report"; return 1; }
  render "$tmp/long.html" 700 "$tmp/long.dom" || return 1
  c=$(body_attr "$tmp/long.dom" data-clipped-labels)
  [ "$c" = 0 ] || { echo "clipped: $c ($(body_attr "$tmp/long.dom" data-clipped-examples))"; return 1; }
}
ok "a 170-character op name and 12 long shapes wrap at 700 px (0 clipped)" t_long

# ---- the check fails when labels do not fit
t_narrow() {
  render "$tmp/demo.html" 260 "$tmp/narrow.dom" || return 1
  vw=$(body_attr "$tmp/narrow.dom" data-viewport-width)
  [ "$vw" -lt 600 ] || { echo "the narrow window is $vw px wide"; return 1; }
  c=$(body_attr "$tmp/narrow.dom" data-clipped-labels)
  [ -n "$c" ] && [ "$c" -gt 0 ] || { echo "a 260 px window reports $c clipped labels"; return 1; }
}
ok "a too-narrow window (260 px asked, Chromium's minimum is about 500) reports clipped labels" t_narrow

t_nowrap() {
  sed 's|</style>|*{white-space:nowrap!important;overflow-wrap:normal!important}</style>|' \
    "$tmp/long.html" >"$tmp/nowrap.html"
  render "$tmp/nowrap.html" 700 "$tmp/nowrap.dom" || return 1
  c=$(body_attr "$tmp/nowrap.dom" data-clipped-labels)
  [ -n "$c" ] && [ "$c" -gt 0 ] || { echo "no wrapping reports $c clipped labels"; return 1; }
}
ok "the long label with wrapping switched off reports clipped labels at 700 px" t_nowrap

tap_end
