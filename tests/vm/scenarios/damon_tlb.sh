#!/bin/sh
# vmtest-modes: numa
# vmtest-explicit: yes
# vmtest-timeout: 300
# Why the DAMON scenarios run heat.sh's tlb_tick: the emulator's limit, shown.
# hotset (256 MiB first-touched on node 2, a 48 MiB hot set read by CPUs
# 0-1) under a kdamond with tierd's intervals (1 s aggregation, 50 ms
# samples); nothing else of ours runs on CPUs 0-1. DAMON's tried regions are
# read 3 times (a_plain), then after 8 round trips of the cold 64-256 MiB
# range between nodes 2 and 3 by `tierctl migrate` (the TLB shootdowns of
# page migration: QEMU's TLB grows at each) 6 times (b_migrated), then with
# tlb_tick on CPUs 0 and 1, 6 times (c_tick). damon_tlb.check.py scores each
# read against hotset's truth. b's blindness depends on QEMU's TLB sizing at
# each flush: the first run read nothing in 5 of 6 aggregations, a second
# run all of the hot set; c is what is asserted.
. /vm/heat.sh
trap heat_cleanup EXIT
taskset -p -c 2,3 $$ >/dev/null
knob_set /proc/sys/kernel/numa_balancing 0
start_hotset --size 256M --hot 48M --dist uniform --node 2 --cpus 0-1 --threads 2 \
  --policy first-touch --duration 600
sleep 2
damon_start "$P"
ctx=$DAMON/0/contexts/0
echo 1000000 >"$ctx"/monitoring_attrs/intervals/aggr_us
echo 50000 >"$ctx"/monitoring_attrs/intervals/sample_us
echo commit >"$DAMON/0/state"
sleep 10
for i in 1 2 3; do damon_json 1 >a_plain.$i.json; done
base=$(sed -n '1s/.*"base":\([0-9]*\).*/\1/p' hotset.out)
lo=$((base + 64 * 1048576)) hi=$((base + 256 * 1048576))
for _ in 1 2 3 4 5 6 7 8; do
  tierctl migrate --pid "$P" --to 3 --range $lo-$hi >/dev/null 2>>migrate.err
  tierctl migrate --pid "$P" --to 2 --range $lo-$hi >/dev/null 2>>migrate.err
done
for i in 1 2 3 4 5 6; do damon_json 1 >b_migrated.$i.json; done
tlb_tick 0 1
sleep 3
for i in 1 2 3 4 5 6; do damon_json 1 >c_tick.$i.json; done
tlb_tick_stop
damon_stop
stop_hotset
