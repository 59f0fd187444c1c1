#!/bin/bash
# bench_model.sh MSPERF SRCDIR : the model-level section of `make bench` — `msperf e2e`,
# `serve` and `accuracy` on the shipped H200 database (the model commands' default) as a user
# runs them: cold (an empty cache directory) and warm (the parsed tables and triangulations
# cached by the first run), wall and CPU (user + sys) of each, and the targets beside them.
# Needs the shared data (SRCDIR/../shared/data: model configs, the silicon rows); skipped with a
# message without it. A report, not a gate: exits 0 whatever it finds.
set -u

msperf=$1
src=$2
data=${MSPERF_SHARED_DATA:-$src/../shared/data}
model=$data/models/meta-llama--Meta-Llama-3.1-70B.json
silicon=$data/silicon-h200-dev/silicon_dev.csv

echo
echo "== model level (msperf e2e / serve / accuracy on the shipped H200 database)"
if [ ! -f "$model" ] || [ ! -f "$silicon" ]; then
  echo "skipped: no $model or $silicon (set MSPERF_SHARED_DATA)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export MSPERF_NO_PROGRESS=1

# row NAME TARGET_WALL_S COMMAND... : one run, its wall and CPU seconds and the target
row() {
  local name=$1 target=$2 start end cpu wall verdict
  shift 2
  local t0 t1
  t0=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat 2>/dev/null)
  start=$(date +%s.%N)
  if ! "$@" >"$tmp/out" 2>"$tmp/err"; then
    printf '%-44s failed: %s\n' "$name" "$(head -n 1 "$tmp/err")"
    return
  fi
  end=$(date +%s.%N)
  t1=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat 2>/dev/null)
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  cpu=$(awk -v a="${t0:-0}" -v b="${t1:-0}" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.2f", (b - a) / hz }')
  verdict=$(awk -v w="$wall" -v t="$target" 'BEGIN { print (w <= t) ? "met" : "not met" }')
  printf '%-44s %8s s %8s s   <= %5s s  %s\n' "$name" "$wall" "$cpu" "$target" "$verdict"
}

printf '%-44s %10s %10s   %s\n' "run" "wall" "CPU" "target (wall)"
e2e=(e2e --model "$model" --tp 4 --isl 1024 --osl 1024 --batch 16)
serve=(serve --model "$model" --tp 4 --concurrency 64 --num-requests 2000)
row "e2e 70B tp4 1024/1024 b16, cold" 10 "$msperf" "${e2e[@]}" --cache-dir "$tmp/c"
row "e2e, second run" 0.5 "$msperf" "${e2e[@]}" --cache-dir "$tmp/c"
rm -rf "$tmp/c"
row "serve 2000 req at concurrency 64, cold" 2 "$msperf" "${serve[@]}" --cache-dir "$tmp/c"
row "serve, second run" 0.5 "$msperf" "${serve[@]}" --cache-dir "$tmp/c"
row "accuracy, 241 silicon rows (tables cached)" 10 \
  "$msperf" accuracy --silicon "$silicon" --format csv --cache-dir "$tmp/c"
echo "CPU is user + sys of the child; on a loaded machine the wall times over-state a quiet one's."
exit 0
