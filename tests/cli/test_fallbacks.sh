#!/bin/sh
# Fallbacks that respect physics, on the four upstream TensorCast op summaries
# (tests/data/models/tc_op_summaries, msmodeling commit 84fec853: DeepSeek-V3 W8A8 tp 8 dp 2,
# Qwen3-32B tp 16) against the shipped H200 sample database, analytic-only, and the real
# Ascend mapping when the shared data set is present (MSPERF_ASCEND_DB, else ../shared beside
# the source tree; skipped with a message when absent): every record has a latency, the ops
# the summary flags zero_cost are charged 0, collectives are > 0 with their group size in
# details. TAP.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
src=$MSPERF_TOP_SRCDIR
sums=$src/tests/data/models/tc_op_summaries
asc=${MSPERF_ASCEND_DB:-$src/../shared/data/msmodeling/ATLAS_800_A3_752T_128G_DIE/vllm_ascend/vllm0.18.0_torch2.9.0_cann8.5}
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# check SUMMARY JSONL: the assertions of the header, in Python (the records are JSON).
check() {
  python3 - "$1" "$2" <<'PY'
import json, sys
summary, out = sys.argv[1], sys.argv[2]
flagged = {o["op_name"] for o in json.load(open(summary))["ops"] if o.get("zero_cost")}
coll = ("all_gather", "all_reduce", "all_to_all", "reduce_scatter")
bad = []
n = 0
for line in open(out):
    r = json.loads(line)
    n += 1
    lat = r["latency_us"]
    if lat is None:
        bad.append("%s: latency null" % r["op"])
    elif r["op"] in flagged and lat != 0.0:
        bad.append("%s: flagged zero_cost, charged %s" % (r["op"], lat))
    elif any(c in r["op"] for c in coll) and r["source"] == "ANALYTIC":
        d = r["details"]
        if not (lat > 0.0 and d.get("group_size", 0) > 1 and "degraded" in d):
            bad.append("%s: collective %s, details %s" % (r["op"], lat, d))
if n == 0:
    bad.append("no records")
print("\n".join(bad[:10]))
sys.exit(1 if bad else 0)
PY
}

estimate() {  # estimate NAME OUT ARGS...
  name=$1; out=$2; shift 2
  case $name in
    dsv3*) par="--tp-size 8 --ep-size 16 --world-size 16" ;;
    *) par="--tp-size 16 --world-size 16" ;;
  esac
  # shellcheck disable=SC2086
  "$bin" estimate "$@" --ops "$sums/$name.json" --format jsonl $par >"$out" 2>"$tmp/err" \
    || { cat "$tmp/err"; return 1; }
  check "$sums/$name.json" "$out"
}

h200() { estimate "$1" "$tmp/h200_$1.jsonl" --profiling-database "$src/doc/examples/h200-db"; }
analytic() { estimate "$1" "$tmp/an_$1.jsonl" --performance-model analytic --device-profile ascend-a3; }
ascend() { estimate "$1" "$tmp/asc_$1.jsonl" --profiling-database "$asc"; }

# tp 1 (the default): an all_reduce over one rank costs 0 and says so; the all_gather's
# shapes still give its group (the gather ratio).
default_group() {
  "$bin" estimate --profiling-database "$src/doc/examples/h200-db" \
    --ops "$sums/qwen3_32b_decode.json" --format jsonl >"$tmp/d.jsonl" 2>/dev/null || return 1
  grep '"tensor_cast.all_reduce.default"' "$tmp/d.jsonl" | grep -q '"latency_us": 0.0,' || return 1
  grep '"tensor_cast.all_reduce.default"' "$tmp/d.jsonl" | grep -q 'group_size_1' || return 1
  grep '"tensor_cast.all_gather.default"' "$tmp/d.jsonl" | grep -q '"group_source": "shapes"'
}

if ! command -v python3 >/dev/null 2>&1; then
  skip "op summaries" "no python3"
else
  for s in dsv3_decode dsv3_prefill qwen3_32b_decode qwen3_32b_prefill; do
    ok "$s on the H200 sample database: every op a latency, zero_cost 0, collectives sized" h200 $s
    ok "$s analytic-only on ascend-a3: every op a latency, zero_cost 0, collectives sized" analytic $s
    if [ -f "$asc/op_mapping.yaml" ]; then
      ok "$s on the Ascend vllm0.18.0 mapping (CSVs absent)" ascend $s
    else
      skip "$s on the Ascend mapping" "no $asc"
    fi
  done
fi
ok "default tp 1: all_reduce 0 us with group_size_1, all_gather group from its shapes" default_group

tap_end
