#!/bin/sh
# vmtest-modes: numa model
# vmtest-explicit: yes
# vmtest-timeout: 900
# Head-to-head, the suite's graph workload (issue 19; scripts/bench-placement.sh,
# not in make vmtest): tier-graph, a Graph500 Kronecker graph of 2^19
# vertices and edge factor 16 (a CSR of ~70 MiB) first-touched on node 2,
# BFS traversals from the seed's roots by two workers on node 0's CPUs for
# 60 s, with 512 MiB of node 0 reserved as in workload A; contender from
# H2H_CONTENDER. Throughput in edges/s. Every traversal is validated by
# Graph500's rules and the CSR's checksum is checked at exit (bad 0).
# Under all-fast the graph goes to the DRAM node with room and runs on its
# CPUs, without the ballast (guest/h2h.sh: h2h_node, h2h_cpus).
# h2h_graph.check.py: it ran, verified, reported every interval.
. /vm/h2h.sh
trap h2h_cleanup EXIT
h2h_kdamonds_at_boot
h2h_ballast 512
h2h_run_suite graph "${H2H_CONTENDER:-none}" "${H2H_SECONDS:-60}" tier-graph --scale 19 \
  --edge-factor 16 --kernel bfs --node "$(h2h_node 2)" --policy first-touch \
  --cpus "$(h2h_cpus 0-1)" --threads 2
