#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# tierctl migrate moves a 64 MiB buffer that tier-touch first-touched on
# node 2 to node 0 (--range: the buffer only); then `tierctl stats`, the
# kernel's numa_maps and tier-touch's own move_pages query must all place it
# on node 0, and its data must verify. migrate.check.py asserts.
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
migrate_touch 0 --size 64M --node 2
