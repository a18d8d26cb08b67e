#!/bin/sh
# vmtest-modes: numa model
# vmtest-explicit: yes
# vmtest-timeout: 600
# Head-to-head, the suite's GUPS workload (issue 19; scripts/bench-placement.sh,
# not in make vmtest): tier-gups, 768 MiB first-touched on node 2, random
# read-modify-writes of one word, 90 % of them in a 128 MiB hot subset
# (HeMem's variant), two threads on node 0's CPUs for 60 s, with 512 MiB of
# node 0 reserved as huge pages as in workload A (the hot subset fits, the
# table does not); contender from H2H_CONTENDER. Throughput in updates/s.
# tier-gups replays its updates at exit and checks every word (bad 0).
# Under all-fast the table goes to the DRAM node with room and runs on its
# CPUs, without the ballast (guest/h2h.sh: h2h_node, h2h_cpus).
# h2h_gups.check.py: it ran, verified, reported every interval.
. /vm/h2h.sh
trap h2h_cleanup EXIT
h2h_kdamonds_at_boot
h2h_ballast 512
h2h_run_suite gups "${H2H_CONTENDER:-none}" "${H2H_SECONDS:-60}" tier-gups --size 768M \
  --hot 128M --hot-fraction 0.9 --node "$(h2h_node 2)" --policy first-touch \
  --cpus "$(h2h_cpus 0-1)" --threads 2
