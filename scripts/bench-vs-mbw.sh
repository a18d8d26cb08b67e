#!/usr/bin/env bash
# Compares `tierctl bench` copy bandwidth with mbw's memcpy test (mbw -t0) on
# the same bytes and one thread, then checks that three latency runs agree.
#
# mbw ARRAY_MIB allocates two arrays of ARRAY_MIB MiB and memcpy()s one into
# the other; it reports MiB/s (2^20 bytes/s) of bytes copied. tierctl bench
# --size 2*ARRAY_MIB copies the first half of its buffer into the second half
# and reports MB/s (10^6 bytes/s) of bytes copied, so mbw's figure is
# multiplied by 1.048576 before the ratio.
#
# Usage: scripts/bench-vs-mbw.sh [ARRAY_MIB (default 128)] [PASSES (default 10)]
# Environment: TIERCTL (default build/bin/tierctl), TIER_BENCH_NODE (default 0).
# Exit status 1 when a criterion fails: copy ratio outside 0.85..1.15, or the
# three latency medians more than 10% apart.
set -euo pipefail

array_mib=${1:-128}
passes=${2:-10}
here=$(cd "$(dirname "$0")/.." && pwd)
tierctl=${TIERCTL:-$here/build/bin/tierctl}
node=${TIER_BENCH_NODE:-0}

command -v mbw >/dev/null || { echo "mbw is not installed (apt-get install mbw)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON" >&2; exit 2; }
[ -x "$tierctl" ] || { echo "no tierctl at $tierctl (build first or set TIERCTL)" >&2; exit 2; }

pin=()
if command -v numactl >/dev/null; then pin=(numactl --cpunodebind="$node" --membind="$node"); fi

size=$((2 * array_mib))M
rounds=5
echo "== copy bandwidth: ${array_mib} MiB copied per pass, 1 thread, node $node"
echo "   $rounds interleaved rounds of (mbw -t0 -n $passes, tierctl bench --repeat $passes);"
echo "   the median round of each is compared, so machine noise hits both alike"
mbw_runs=()
tier_runs=()
for ((round = 1; round <= rounds; round++)); do
  mbw_runs+=("$("${pin[@]}" mbw -q -t0 -n "$passes" "$array_mib" |
    awk '/^AVG/ {for (i=1;i<=NF;i++) if ($i=="Copy:") print $(i+1)}')")
  tier_runs+=("$("$tierctl" bench --initiator "$node" --target "$node" --threads 1 --size "$size" \
    --repeat "$passes" --json |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["bandwidth_mbps"]["copy"][0][0], d["huge_pages"])')")
done
status=0
python3 - "${mbw_runs[*]}" "${tier_runs[@]}" <<'PY' || status=1
import statistics, sys
mbw_mibs = [float(x) for x in sys.argv[1].split()]
tier = [float(a.split()[0]) for a in sys.argv[2:]]
huge = sys.argv[2].split()[1]
mbw_mbps = statistics.median(mbw_mibs) * 1.048576
tier_mbps = statistics.median(tier)
ratio = tier_mbps / mbw_mbps
print("mbw rounds (MiB/s)        : " + ", ".join(f"{x:.0f}" for x in mbw_mibs))
print("tierctl rounds (MB/s)     : " + ", ".join(f"{x:.0f}" for x in tier))
print(f"mbw -t0 (memcpy) median   : {statistics.median(mbw_mibs):10.0f} MiB/s = {mbw_mbps:10.0f} MB/s")
print(f"tierctl bench copy median : {tier_mbps:10.0f} MB/s  (huge pages: {huge})")
print(f"ratio tierctl/mbw         : {ratio:10.3f}  (criterion 0.85..1.15: {'PASS' if 0.85 <= ratio <= 1.15 else 'FAIL'})")
sys.exit(0 if 0.85 <= ratio <= 1.15 else 1)
PY

echo "== idle latency: three runs, default size, median of 5 passes each"
lat=()
for run in 1 2 3; do
  lat+=("$("$tierctl" bench --initiator "$node" --target "$node" --threads 1 --repeat 5 --json |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["latency_ns"][0][0], d["size_bytes"])')")
done
python3 - "${lat[@]}" <<'PY' || status=1
import sys
runs = [float(a.split()[0]) for a in sys.argv[1:]]
size = int(sys.argv[1].split()[1])
lo, hi = min(runs), max(runs)
spread = (hi - lo) / lo
mean = sum(runs) / len(runs)
print(f"buffer {size >> 20} MiB; runs (ns per load): " + ", ".join(f"{r:.1f}" for r in runs))
print(f"max/min - 1 = {spread * 100:.1f}%; each run vs mean: " +
      ", ".join(f"{(r / mean - 1) * 100:+.1f}%" for r in runs) +
      f"  (criterion within 10%: {'PASS' if spread <= 0.10 else 'FAIL'})")
sys.exit(0 if spread <= 0.10 else 1)
PY
exit "$status"
