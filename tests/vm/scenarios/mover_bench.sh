#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 240
# PageMover throughput against the kernel: a 64 MiB buffer (tier-touch,
# first touch on node 2, a fresh process per run; seven interleaved rounds)
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

pagemover_run() {  # ROUND
  start_touch touch-pagemover-$1 --size 64M --node 2
  s=$(up)
  tierctl migrate --pid $P --to 0 --range "$RANGE" --json >pagemover-$1.json 2>pagemover-$1.err
  echo $? >pagemover-$1.rc
  echo "$s $(up)" >pagemover-$1.uptime
  finish_touch touch-pagemover-$1
}
migrate_pages_run() {  # ROUND
  start_touch touch-migrate_pages-$1 --size 64M --node 2
  grep -o ' N2=[0-9]*' /proc/$P/numa_maps >migrate_pages-$1.n2_before
  tier-kernel-migrate --pid $P --from 2 --to 0 >migrate_pages-$1.json 2>migrate_pages-$1.err
  echo $? >migrate_pages-$1.rc
  finish_touch touch-migrate_pages-$1
}
# An unrecorded warm-up of each first: the first 64 MiB that ever lands on
# node 0 costs more (fresh free lists), and no contender should pay for it.
pagemover_run warmup
migrate_pages_run warmup
# Seven interleaved rounds, the order alternating so neither side always goes
# first. Under TCG on a shared host one run can be 2x off and noise only ever
# slows a run down, so the check compares each side's fastest round.
for r in 1 2 3 4 5 6 7; do
  if [ $((r % 2)) -eq 1 ]; then
    pagemover_run $r
    migrate_pages_run $r
  else
    migrate_pages_run $r
    pagemover_run $r
  fi
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
for f in pagemover-1 pagemover-7 naive rate; do echo "$f: exit $(cat $f.rc) uptime $(cat $f.uptime)"; done
