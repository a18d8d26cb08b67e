#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# migrate, with tier-touch --write-while: a writer thread keeps rewriting the
# buffer (each page consistent at a newer generation) while tierctl moves it
# from node 2 to node 0; data must still verify and every page end on node 0.
# Automatic NUMA balancing is switched off so the kernel cannot move the
# pages itself (tier-touch keeps its MPOL_BIND VMA policy, which balancing
# skips anyway, but the rest of the process is not bound).
echo 0 >/proc/sys/kernel/numa_balancing
# tier-touch dies with this shell (PR_SET_PDEATHSIG); stop anything else left.
trap 'for j in $(jobs -p); do kill $j 2>/dev/null; done' EXIT
if ! tierctl migrate --help 2>&1 | grep -q -- '--to'; then
  echo "tierctl has no 'migrate' command (--pid/--to): not built yet" >&2
  exit 127
fi
. /vm/touch.sh
start_touch touch --size 64M --node 2 --write-while
sleep 1  # let the writer run a while first
cp /proc/$P/numa_maps numa_maps.before
tierctl migrate --pid $P --to 0 --range "$RANGE" --json >migrate.json 2>migrate.err
echo $? >migrate.rc
tierctl stats --pid $P --json >stats.json 2>stats.err
echo $? >stats.rc
cp /proc/$P/numa_maps numa_maps.after
verify_touch touch
kill -TERM $P
wait $P
echo $? >touch.rc
echo "tierctl migrate --pid $P --to 0 --range $RANGE --json: exit $(cat migrate.rc)"
