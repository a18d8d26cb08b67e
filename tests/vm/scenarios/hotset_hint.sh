#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# The mechanism the bpf-fault heat source relies on, without tier: hotset
# holds 256 MiB on node 2 (lower tier) under MPOL_BIND|MPOL_F_NUMA_BALANCING
# and reads a 32 MiB hot set from node 0's CPUs, with NUMA balancing in
# memory-tiering mode (2) and a fast scanner. The kernel must take NUMA hint
# faults on the hot set (numa_hint_faults rises) and still move nothing: the
# policy forbids migrating off node 2 while the CPU's node is outside it.
# hotset_hint.check.py asserts that, the truth file, hotset's verification,
# and that every knob changed is restored.
. /vm/heat.sh
trap heat_cleanup EXIT
hint_knobs 2
observe 20 none --size 256M --hot 32M --node 2 --cpus 0-1 --threads 2 --policy bind-balancing
