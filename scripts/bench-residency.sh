#!/bin/sh
# What reading one large workload's residency costs tierd (docs/benchmarks.md,
# "Residency scans"): a tier-touch of SIZE on node 0 (4 KiB pages unless the
# machine's THP setting says otherwise), registered by a rule with policy
# `static` (nothing moves), and a private tierd (own socket and state,
# metrics off) over SECONDS; prints tierd's CPU (utime + stime) over its
# lifetime and what it reported for the workload. Give the build folders of
# two trees to compare them side by side in one sitting.
#   scripts/bench-residency.sh [--size SIZE] [--seconds S] BUILD_DIR...
# Exits 2 on bad usage.
set -eu
size=2G seconds=90
usage() { sed -n '/^#   scripts/,/^# Exits/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --size)
      if [ $# -lt 2 ] || [ -z "$2" ]; then usage; fi
      size=$2; shift 2 ;;
    --seconds)
      [ $# -ge 2 ] || usage
      case $2 in '' | *[!0-9]* | 0) echo "bench-residency: --seconds wants a positive number" >&2; usage ;; esac
      seconds=$2; shift 2 ;;
    -h | --help) usage ;;
    -*) echo "bench-residency: unknown option '$1'" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || usage
dir=$(mktemp -d /tmp/tier-residency.XXXXXX)
touch_pid='' tierd_pid=''
# Ends only the processes this script started, by pid.
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  for pid in $tierd_pid $touch_pid; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
cat >"$dir/tierd.toml" <<TOML
[policy]
name = "static"

[[workloads.rule]]
match = "tier-touch"
class = "online"
TOML
hz=$(getconf CLK_TCK)
for build in "$@"; do
  [ -x "$build/bin/tierd" ] || { echo "bench-residency: no $build/bin/tierd" >&2; exit 2; }
  "$build/bin/tier-touch" --size "$size" --node 0 >"$dir/touch.out" 2>&1 &
  touch_pid=$!
  i=0
  until grep -q . "$dir/touch.out" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 1200 ] || { echo "bench-residency: tier-touch did not start" >&2; exit 1; }
    sleep 0.1
  done
  rm -f "$dir/s" "$dir/state.json"
  "$build/bin/tierd" --foreground --config "$dir/tierd.toml" --socket "$dir/s" \
    --state "$dir/state.json" --metrics off 2>"$dir/tierd.err" &
  tierd_pid=$!
  sleep "$seconds"
  ticks=$(awk '{ print $14 + $15 }' "/proc/$tierd_pid/stat")
  share=$("$build/bin/tierctl" --socket "$dir/s" workloads --json |
    python3 -c 'import json, sys; w = json.load(sys.stdin)["workloads"]; print(w[0]["fast_tier_share"] if w else "none")')
  awk -v t="$ticks" -v hz="$hz" -v s="$seconds" -v b="$build" -v share="$share" -v size="$size" 'BEGIN {
    printf "%s: tierd CPU %.2f s in %d s (%.2f%% of one core) with one %s workload (fast share %s)\n",
      b, t / hz, s, 100 * t / hz / s, size, share }'
  kill "$tierd_pid" "$touch_pid"; wait "$tierd_pid" "$touch_pid" 2>/dev/null || true
  tierd_pid='' touch_pid=''
done
exit 0
