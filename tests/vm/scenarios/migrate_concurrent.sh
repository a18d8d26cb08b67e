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
migrate_touch 1 --size 64M --node 2 --write-while  # 1 s: let the writer run first
