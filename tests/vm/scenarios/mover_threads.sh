#!/bin/sh
# vmtest-modes: numa
# vmtest-explicit: yes
# vmtest-timeout: 400
# Does PageMover scale with threads here? A benchmark, not part of make
# vmtest: tests/vm/run.sh --mode numa --scenario mover_threads.
# Five rounds, each: the kernel's migrate_pages(2) (tier-kernel-migrate, one
# call), then tierctl migrate --threads 1, 2, 3 and 4, every run on a fresh
# 64 MiB tier-touch buffer first-touched on node 2 and moved to node 0 (as in
# mover_bench), its data verified. mover_threads.check.py prints the MB/s.
echo 0 >/proc/sys/kernel/numa_balancing
# tier-touch dies with this shell (PR_SET_PDEATHSIG); stop anything else left.
trap 'for j in $(jobs -p); do kill $j 2>/dev/null; done' EXIT
. /vm/touch.sh
pagemover_run() {  # TAG THREADS
  start_touch touch-$1 --size 64M --node 2
  tierctl migrate --pid $P --to 0 --range "$RANGE" --threads $2 --json >$1.json 2>$1.err
  echo $? >$1.rc
  finish_touch touch-$1
}
migrate_pages_run() {  # TAG
  start_touch touch-$1 --size 64M --node 2
  tier-kernel-migrate --pid $P --from 2 --to 0 >$1.json 2>$1.err
  echo $? >$1.rc
  finish_touch touch-$1
}
# Unrecorded warm-ups: the first 64 MiB ever placed on node 0 costs more.
pagemover_run warmup-pagemover 2
migrate_pages_run warmup-migrate_pages
for r in 1 2 3 4 5; do
  migrate_pages_run migrate_pages-$r
  for t in 1 2 3 4; do pagemover_run threads$t-$r $t; done
done
