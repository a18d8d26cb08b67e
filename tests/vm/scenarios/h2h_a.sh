#!/bin/sh
# vmtest-modes: numa model
# vmtest-explicit: yes
# vmtest-timeout: 600
# Head-to-head, workload A (scripts/bench-placement.sh; not in make vmtest):
# 768 MiB first-touched on node 2, a 192 MiB Zipf(0.99) hot set read by two
# threads on node 0's CPUs for 60 s, with 512 MiB of node 0 reserved as huge
# pages (h2h_ballast: the hot set fits, the workload does not), under the
# contender named by H2H_CONTENDER (run.sh --env H2H_CONTENDER=NAME; guest/h2h.sh lists them).
# H2H_SECONDS shortens the run. h2h_a.check.py: hotset ran and verified, a
# census every 1-8 s, the figures printed.
# Under all-fast the buffer goes to the DRAM node with room and runs on its
# CPUs, without the ballast (guest/h2h.sh: h2h_node, h2h_cpus, h2h_fast).
# Runs in numa (shares) and model (bench-placement.sh: --kernel 7.3, throughput).
. /vm/h2h.sh
trap h2h_cleanup EXIT
h2h_kdamonds_at_boot
h2h_ballast 512
h2h_run a "${H2H_CONTENDER:-none}" "${H2H_SECONDS:-60}" --size 768M --hot 192M \
  --dist zipf:0.99 --node "$(h2h_node 2)" --policy first-touch --cpus "$(h2h_cpus 0-1)" --threads 2 \
  --fast-nodes "$(h2h_fast 0)"
