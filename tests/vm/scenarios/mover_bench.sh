#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 240
# PageMover throughput against the kernel: a 64 MiB buffer (tier-touch,
# first touch on node 2, a fresh process per run; five interleaved rounds)
# moved to node 0 by
#   pagemover:     tierctl migrate --pid P --to 0 --range BUF --json (its mbps)
#   migrate_pages: tier-kernel-migrate, one migrate_pages(2) call (what
#                  numactl's migratepages does) timed around the syscall alone,
#                  as PageMover's "seconds" time its own calls
#   naive:         tier-naive-move, one move_pages(2) call per page (16 MiB)
# and a rate-limited run: tierctl migrate --rate 20 on another 64 MiB buffer.
# Each run writes NAME.json (+ .rc); mover_bench.check.py asserts and
# writes results.json.
echo 0 >/proc/sys/kernel/numa_balancing
# tier-touch dies with this shell (PR_SET_PDEATHSIG); stop anything else left.
trap 'for j in $(jobs -p); do kill $j 2>/dev/null; done' EXIT
if ! tierctl migrate --help 2>&1 | grep -q -- '--rate'; then
  echo "tierctl has no 'migrate' command (--pid/--to/--rate): not built yet" >&2
  exit 127
fi
. /vm/touch.sh
up() { cut -d' ' -f1 /proc/uptime; }

# Five interleaved rounds: under TCG on a shared host one run can be 2x off;
# the check compares medians, so one disturbed run cannot decide the verdict.
for r in 1 2 3 4 5; do
  start_touch touch-pagemover-$r --size 64M --node 2
  s=$(up)
  tierctl migrate --pid $P --to 0 --range "$RANGE" --json >pagemover-$r.json 2>pagemover-$r.err
  echo $? >pagemover-$r.rc
  echo "$s $(up)" >pagemover-$r.uptime
  finish_touch touch-pagemover-$r
  start_touch touch-migrate_pages-$r --size 64M --node 2
  grep -o ' N2=[0-9]*' /proc/$P/numa_maps >migrate_pages-$r.n2_before
  tier-kernel-migrate --pid $P --from 2 --to 0 >migrate_pages-$r.json 2>migrate_pages-$r.err
  echo $? >migrate_pages-$r.rc
  finish_touch touch-migrate_pages-$r
done
start_touch touch-naive --size 16M --node 2
s=$(up)
tier-naive-move --pid $P --to 0 --range "$RANGE" >naive.json 2>naive.err
echo $? >naive.rc
echo "$s $(up)" >naive.uptime
finish_touch touch-naive

start_touch touch-rate --size 64M --node 2
s=$(up)
tierctl migrate --pid $P --to 0 --range "$RANGE" --rate 20 --json >rate.json 2>rate.err
echo $? >rate.rc
echo "$s $(up)" >rate.uptime
finish_touch touch-rate
for f in pagemover-1 migrate_pages-1 pagemover-2 migrate_pages-2 pagemover-3 migrate_pages-3 pagemover-4 migrate_pages-4 pagemover-5 migrate_pages-5 naive rate; do echo "$f: exit $(cat $f.rc) uptime $(cat $f.uptime)"; done
