#!/bin/sh
# vmtest-modes: numa
# vmtest-guest: 2
# vmtest-timeout: 90
# `tierctl heat --source damon` (DAMON vaddr) on hotset: 256 MiB bound to
# node 2 (plain MPOL_BIND), a 32 MiB hot set read from node 0's CPUs. NUMA
# balancing is off: DAMON needs no hint faults. heat_damon.check.py wants
# recall >= 0.8 (DAMON's regions are coarse; precision is printed).
. /vm/heat.sh
trap heat_cleanup EXIT
need_heat
knob_set /proc/sys/kernel/numa_balancing 0
observe 20 damon --size 256M --hot 32M --node 2 --cpus 0-1 --threads 2 --policy bind
