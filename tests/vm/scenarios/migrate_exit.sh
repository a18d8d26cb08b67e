#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# A process that exits in the middle of a move: tier-touch holds 256 MiB on
# node 2; tierctl migrate --rate 20 would need ~13 s for the buffer. The
# process is ended (SIGTERM: tier-touch exits 0) once tierctl has moved its
# first 4 MiB to node 0 - seen in the kernel's numa_maps, so the exit falls
# mid-move however slow the guest is, never before the first page or after
# the last. migrate_exit.check.py wants tierctl to exit cleanly (0 or 1, no
# signal), to say the process went away, and to have moved part of it.
echo 0 >/proc/sys/kernel/numa_balancing
# tier-touch dies with this shell (PR_SET_PDEATHSIG); stop anything else left.
trap 'for j in $(jobs -p); do kill $j 2>/dev/null; done' EXIT
if ! tierctl migrate --help 2>&1 | grep -q -- '--rate'; then
  echo "tierctl has no 'migrate' command (--pid/--to/--rate): not built yet" >&2
  exit 127
fi
. /vm/touch.sh
start_touch touch --size 256M --node 2
up() { cut -d' ' -f1 /proc/uptime; }
# numa_maps names the mapping by its start address in hex without 0x.
addr=$(echo "${RANGE%%-*}" | sed 's/^0x//; s/^0*//')
node0_pages() { sed -n "s/^0*${addr} .* N0=\([0-9]*\).*/\1/p" "/proc/$P/numa_maps"; }
s=$(up)
tierctl migrate --pid $P --to 0 --range "$RANGE" --rate 20 --json >migrate.json 2>migrate.err &
M=$!
i=0
until [ "$(node0_pages)" -ge 1024 ] 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 600 ] || { echo "no page of the buffer on node 0 within 60 s" >&2; break; }
  kill -0 $M 2>/dev/null || { echo "tierctl migrate ended before the process" >&2; break; }
  sleep 0.1
done
echo "node0_pages_at_exit $(node0_pages)" >events
k=$(up)
kill -TERM $P
wait $M
echo $? >migrate.rc
e=$(up)
wait $P
echo $? >touch.rc
echo "$s $k $e" >migrate.uptime
echo "tierctl migrate --pid $P --to 0 --range $RANGE --rate 20 --json: exit $(cat migrate.rc), ${s}-${e}s, process ended at ${k}s"
