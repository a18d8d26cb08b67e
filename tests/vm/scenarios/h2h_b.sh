#!/bin/sh
# vmtest-modes: numa model
# vmtest-explicit: yes
# vmtest-timeout: 600
# Head-to-head, workload B (scripts/bench-placement.sh; not in make vmtest):
# workload A with the hot set moving by its own length every 20 s
# (--phase-shift 20: phases at 0, 20 and 40 s of 60 s), each phase's hot
# set cold before; 512 MiB of node 0 reserved as in A; contender from
# H2H_CONTENDER. h2h_b.check.py: as h2h_a,
# three phases.
# Under all-fast the buffer goes to the DRAM node with room and runs on its
# CPUs, without the ballast (guest/h2h.sh: h2h_node, h2h_cpus, h2h_fast).
# Runs in numa (shares) and model (bench-placement.sh: --kernel 7.3, throughput).
. /vm/h2h.sh
trap h2h_cleanup EXIT
h2h_kdamonds_at_boot
h2h_ballast 512
h2h_run b "${H2H_CONTENDER:-none}" "${H2H_SECONDS:-60}" --size 768M --hot 192M \
  --dist zipf:0.99 --node "$(h2h_node 2)" --policy first-touch --cpus "$(h2h_cpus 0-1)" --threads 2 \
  --fast-nodes "$(h2h_fast 0)" \
  --phase-shift 20
