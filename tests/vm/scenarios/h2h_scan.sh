#!/bin/sh
# vmtest-modes: numa model
# vmtest-explicit: yes
# vmtest-timeout: 900
# Head-to-head, the suite's scan workload (issue 19; scripts/bench-placement.sh,
# not in make vmtest): workload A (768 MiB first-touched on node 2, a 192 MiB
# Zipf(0.99) hot set, two threads on node 0's CPUs, 512 MiB of node 0
# reserved) whose threads read every line of the whole buffer every 15 s
# between their hot-set accesses (hotset --scan-every 15): a contender that
# takes a scan for heat fills the fast node with cold data and evicts the
# hot set. Contender from H2H_CONTENDER; throughput in hot accesses/s.
# h2h_scan.check.py: as h2h_a, and the scans happened.
. /vm/h2h.sh
trap h2h_cleanup EXIT
h2h_kdamonds_at_boot
h2h_ballast 512
h2h_run scan "${H2H_CONTENDER:-none}" "${H2H_SECONDS:-60}" --size 768M --hot 192M \
  --dist zipf:0.99 --node "$(h2h_node 2)" --policy first-touch --cpus "$(h2h_cpus 0-1)" --threads 2 \
  --fast-nodes "$(h2h_fast 0)" --scan-every 15
