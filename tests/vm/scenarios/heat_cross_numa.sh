#!/bin/sh
# vmtest-modes: numa
# vmtest-guest: 2
# vmtest-timeout: 90
# Local and remote accesses told apart: hotset reads a 32 MiB hot set from
# node 0's CPUs; its first half is on node 0, its second half on node 1
# (--hot-nodes 0,1; the cold rest on node 0), all under
# MPOL_BIND|MPOL_F_NUMA_BALANCING. numa_balancing=1 (normal mode: it scans
# top-tier memory too, which mode 2 skips), fast scanner; the policy keeps
# the node 1 half where it is. `tierctl heat --source bpf-fault`:
# heat_cross_numa.check.py wants local_share and remote_share 0.5 +- 0.1.
. /vm/heat.sh
trap heat_cleanup EXIT
need_heat
hint_knobs 1
observe 20 bpf-fault --size 256M --hot 32M --node 0 --hot-nodes 0,1 --cpus 0-1 --threads 2 \
  --policy bind-balancing
