#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# The mechanism behind the damon heat source, without tier: hotset reads a
# 32 MiB hot set of 256 MiB bound to node 2 (threads on node 0's CPUs, NUMA
# balancing off) while a kdamond set up through DAMON's sysfs monitors its
# virtual address space for 10 s; then the regions accessed in each of the
# next 5 aggregations are read back (their union, as tier's source
# accumulates). hotset_damon.check.py scores them against the
# truth: the ceiling heat_damon's threshold is set against.
. /vm/heat.sh
trap heat_cleanup EXIT
knob_set /proc/sys/kernel/numa_balancing 0
observe 10 damon-sysfs --size 256M --hot 32M --node 2 --cpus 0-1 --threads 2 --policy bind
