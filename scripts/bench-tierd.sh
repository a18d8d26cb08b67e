#!/bin/sh
# tierd's own cost (docs/benchmarks.md): CPU and RSS of an idle daemon (no
# workloads) over IDLE_SECONDS, next to a `sleep` process measured the same
# way as the floor; then `status` round-trip latency with 0 and 1000
# registered workloads. Runs a private tierd (own socket, state, metrics off).
#   scripts/bench-tierd.sh [BUILD_DIR]     (IDLE_SECONDS=60 by default)
set -eu
build=${1:-build}
idle=${IDLE_SECONDS:-60}
dir=$(mktemp -d /tmp/tier-bench.XXXXXX)
trap 'kill $tierd_pid $sleep_pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT

"$build/bin/tierd" --foreground --socket "$dir/tierd.sock" --state "$dir/state.json" \
  --metrics off 2>"$dir/tierd.log" &
tierd_pid=$!
sleep 1000 &
sleep_pid=$!
i=0
until [ -S "$dir/tierd.sock" ]; do i=$((i + 1)); [ $i -lt 200 ] || exit 1; sleep 0.05; done
sleep 2  # past start-up

ticks=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
t0=$(date +%s.%N); a0=$(cpu $tierd_pid); b0=$(cpu $sleep_pid)
sleep "$idle"
t1=$(date +%s.%N); a1=$(cpu $tierd_pid); b1=$(cpu $sleep_pid)
awk -v t0="$t0" -v t1="$t1" -v a=$((a1 - a0)) -v b=$((b1 - b0)) -v hz="$ticks" \
  -v rss="$(rss_kib $tierd_pid)" -v srss="$(rss_kib $sleep_pid)" 'BEGIN { t = t1 - t0
    printf "idle over %.1f s: tierd CPU %.3f%% of one core (%d ticks), RSS %.1f MiB;", t, 100 * a / hz / t, a, rss / 1024
    printf " sleep CPU %.3f%%, RSS %.1f MiB\n", 100 * b / hz / t, srss / 1024 }'
"$build/bin/tierd_status_bench" --socket "$dir/tierd.sock" --workloads 1000 --requests 5000
echo "tierd RSS with 1000 workloads registered then removed: $(rss_kib $tierd_pid) KiB"
