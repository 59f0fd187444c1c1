#!/bin/sh
# The SVG plots (sweep's and recommend's Pareto fronts, serve's charts) rendered by a real
# headless Chromium: a page embeds each SVG and measures every text box the browser laid out.
#   - no text sticks out of the picture; no two labels, tick values, titles or legend entries
#     overlap; both axes carry at least three tick values and a title;
#   - every front point has a label or a number listed under the plot;
#   - the check can fail: a copy with two labels moved onto each other is caught.
# Without chromium the script is skipped (TAP "1..0 # SKIP"), unless MSPERF_REQUIRE_CHROMIUM=1
# (CI installs chromium). TAP output.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
chromium=${CHROMIUM:-chromium}
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"
models=$MSPERF_TOP_SRCDIR/tests/data/models/configs

if ! command -v "$chromium" >/dev/null 2>&1; then
  if [ "${MSPERF_REQUIRE_CHROMIUM:-0}" = 1 ]; then
    echo "not ok 1 - chromium is installed (MSPERF_REQUIRE_CHROMIUM=1)"
    echo "1..1"
    exit 1
  fi
  echo "1..0 # SKIP chromium not installed (apt-get install chromium)"
  exit 0
fi

# page SVG HTML: an HTML page holding the SVG inline and the script that measures it. The
# result is written onto <body data-*> for --dump-dom to carry out.
page() {
  {
    echo '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
    cat "$1"
    cat <<'JS'
<script>
const svg = document.querySelector('svg'), r = svg.getBoundingClientRect();
const texts = [...svg.querySelectorAll('text')].map(t => ({t, b: t.getBoundingClientRect()}));
const out = texts.filter(({b}) => b.left < r.left - 0.5 || b.right > r.right + 0.5 ||
                                  b.top < r.top - 0.5 || b.bottom > r.bottom + 0.5);
let overlaps = [];
for (let i = 0; i < texts.length; i++)
  for (let j = i + 1; j < texts.length; j++) {
    const a = texts[i].b, b = texts[j].b;
    if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
      overlaps.push(texts[i].t.textContent + ' / ' + texts[j].t.textContent);
  }
const cls = c => svg.querySelectorAll('text.' + c).length;
const ticksX = [...svg.querySelectorAll('text.tick')].filter(t => t.getAttribute('text-anchor') == 'middle').length;
const d = document.body.dataset;
d.texts = texts.length; d.outside = out.length; d.overlaps = overlaps.length;
d.examples = overlaps.slice(0, 3).join(' | ') + out.slice(0, 3).map(o => o.t.textContent).join(' | ');
d.ticksX = ticksX; d.ticksY = cls('tick') - ticksX; d.axisTitles = cls('axis-title');
d.labels = cls('label'); d.listed = cls('label-list');
d.front = [...svg.querySelectorAll('circle[r="4.5"]')].length;
d.legend = cls('legend');
</script></body></html>
JS
  } >"$2"
}

render() {  # render HTML DOM
  prof=$tmp/profile-$(basename "$1")
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$prof" --window-size=1000,900 --virtual-time-budget=3000 \
    --dump-dom "file://$1" >"$2" 2>"$2.err"
  status=$?
  rm -rf "$prof"
  [ $status -eq 0 ] && [ -s "$2" ] || { echo "chromium failed ($status)"; tail -n 5 "$2.err"; return 1; }
}

attr() { grep -o '<body[^>]*>' "$1" | head -n 1 | sed -n "s/.* data-$2=\"\([^\"]*\)\".*/\1/p"; }

# check DOM: the layout rules above
check() {
  [ -n "$(attr "$1" texts)" ] || { echo "the measuring script did not run"; return 1; }
  [ "$(attr "$1" outside)" = 0 ] || { echo "outside: $(attr "$1" examples)"; return 1; }
  [ "$(attr "$1" overlaps)" = 0 ] || { echo "overlapping: $(attr "$1" examples)"; return 1; }
  [ "$(attr "$1" ticks-x)" -ge 3 ] && [ "$(attr "$1" ticks-y)" -ge 3 ] \
    || { echo "ticks: x $(attr "$1" ticks-x), y $(attr "$1" ticks-y)"; return 1; }
  [ "$(attr "$1" axis-titles)" = 2 ] || { echo "axis titles: $(attr "$1" axis-titles)"; return 1; }
  # every highlighted point minus the legend's dots has a text or a listed number
  front=$(( $(attr "$1" front) - $(attr "$1" legend) ))
  [ $(( $(attr "$1" labels) + $(attr "$1" listed) )) -ge "$front" ] \
    || { echo "front $front, labels $(attr "$1" labels), listed $(attr "$1" listed)"; return 1; }
}

plot_ok() {  # plot_ok NAME SVG
  page "$2" "$tmp/$1.html" && render "$tmp/$1.html" "$tmp/$1.dom" && check "$tmp/$1.dom"
}

# ---- sweep
"$bin" sweep --no-cache --model "$models/meta-llama--Meta-Llama-3.1-70B.json" --devices 8 \
  --ttft-max 2000 --tpot-max 40 --report "$tmp/sweep" --format csv >/dev/null 2>"$tmp/sweep.err"
st=$?
t_sweep_runs() { [ $st -eq 0 ] && [ -s "$tmp/sweep/pareto.svg" ] || { cat "$tmp/sweep.err"; return 1; }; }
ok "msperf sweep --report writes pareto.svg" t_sweep_runs
ok "sweep's Pareto plot: ticks, titles, labels inside and apart (Chromium)" plot_ok sweep "$tmp/sweep/pareto.svg"
t_sla_line() { grep -q 'class="limit"' "$tmp/sweep/pareto.svg" && grep -q 'TPOT ≤ 40 ms' "$tmp/sweep/pareto.svg"; }
ok "sweep's plot draws the TPOT limit with its label" t_sla_line

# ---- recommend: aggregated and disaggregated series, the TPOT limit
"$bin" recommend --no-cache --model "$models/meta-llama--Meta-Llama-3.1-8B.json" --gpus 4 --isl 512 \
  --osl 64 --tpot-max 30 --report "$tmp/rec" >/dev/null 2>"$tmp/rec.err"
t_rec_runs() { [ -s "$tmp/rec/pareto.svg" ] || { cat "$tmp/rec.err"; return 1; }; }
ok "msperf recommend --report writes pareto.svg" t_rec_runs
ok "recommend's Pareto plot: ticks, titles, labels inside and apart (Chromium)" plot_ok rec "$tmp/rec/pareto.svg"
t_rec_series() { grep -q '>aggregated</text>' "$tmp/rec/pareto.svg" && grep -q '>disaggregated</text>' "$tmp/rec/pareto.svg"; }
ok "recommend's plot has a legend entry per mode" t_rec_series

# ---- the check can fail: two labels moved onto the first one
t_check_fails() {
  first=$(grep -o '<text class="label" x="[0-9.]*" y="[0-9.]*"' "$tmp/sweep/pareto.svg" | head -n 1 \
    | sed 's/<text class="label" //')
  [ -n "$first" ] || { echo "no label to move"; return 1; }
  sed "s/<text class=\"label\" x=\"[0-9.]*\" y=\"[0-9.]*\"/<text class=\"label\" $first/g" \
    "$tmp/sweep/pareto.svg" >"$tmp/broken.svg"
  page "$tmp/broken.svg" "$tmp/broken.html" && render "$tmp/broken.html" "$tmp/broken.dom" || return 1
  ! check "$tmp/broken.dom" >/dev/null
}
ok "the layout check catches overlapping labels" t_check_fails

tap_end
