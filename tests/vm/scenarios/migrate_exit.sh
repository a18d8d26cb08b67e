#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# A process that exits in the middle of a move: tier-touch holds 256 MiB on
# node 2 and exits 2 s after its start line; tierctl migrate --rate 20 would
# need ~13 s for the buffer. migrate_exit.check.py wants tierctl to exit
# cleanly (0 or 1, no signal) and to say the process went away.
echo 0 >/proc/sys/kernel/numa_balancing
# tier-touch dies with this shell (PR_SET_PDEATHSIG); stop anything else left.
trap 'for j in $(jobs -p); do kill $j 2>/dev/null; done' EXIT
if ! tierctl migrate --help 2>&1 | grep -q -- '--rate'; then
  echo "tierctl has no 'migrate' command (--pid/--to/--rate): not built yet" >&2
  exit 127
fi
. /vm/touch.sh
start_touch touch --size 256M --node 2 --exit-after-ms 2000
s=$(cut -d' ' -f1 /proc/uptime)
tierctl migrate --pid $P --to 0 --range "$RANGE" --rate 20 --json >migrate.json 2>migrate.err
echo $? >migrate.rc
e=$(cut -d' ' -f1 /proc/uptime)
wait $P
echo $? >touch.rc
echo "$s $e" >migrate.uptime
echo "tierctl migrate --pid $P --to 0 --range $RANGE --rate 20 --json: exit $(cat migrate.rc), ${s}-${e}s"
