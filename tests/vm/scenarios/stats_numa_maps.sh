#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# tierctl stats --pid P --json against the kernel's own /proc/P/numa_maps,
# read right after each other (stats, numa_maps, stats again, so a moving
# process would show), for: tier-touch with 32 MiB on node 2, tier-touch with
# 16 MiB of THP (--huge) on node 3, and PID 1 (busybox, blocked waiting for
# this scenario). The processes are idle, NUMA balancing is off. stats_numa_maps.check.py compares per node bytes.
echo 0 >/proc/sys/kernel/numa_balancing
# tier-touch dies with this shell (PR_SET_PDEATHSIG); stop anything else left.
trap 'for j in $(jobs -p); do kill $j 2>/dev/null; done' EXIT
if ! tierctl stats --help 2>&1 | grep -q -- '--pid'; then
  echo "tierctl has no 'stats' command (--pid): not built yet" >&2
  exit 127
fi
. /vm/touch.sh
snapshot() {  # TAG PID
  tierctl stats --pid "$2" --json >"stats-$1.json" 2>"stats-$1.err"
  echo $? >"stats-$1.rc"
  cat "/proc/$2/numa_maps" >"numa_maps-$1.txt"
  cat "/proc/$2/smaps_rollup" >"smaps_rollup-$1.txt"
  tierctl stats --pid "$2" --json >"stats2-$1.json" 2>/dev/null
}
start_touch touch-small --size 32M --node 2
P1=$P
start_touch touch-huge --size 16M --node 3 --huge
P2=$P
snapshot small $P1
snapshot huge $P2
snapshot init 1
kill -TERM $P1 $P2
wait $P1 $P2
for t in small huge init; do echo "$t: stats exit $(cat stats-$t.rc)"; done
