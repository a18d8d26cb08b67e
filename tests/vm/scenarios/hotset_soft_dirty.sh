#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# The mechanism behind the soft-dirty heat source, without tier: hotset only
# writes a 32 MiB hot set of 256 MiB bound to node 2 (threads on node 0's
# CPUs, NUMA balancing off); the scenario clears the soft-dirty bits
# (clear_refs 4), waits 10 s and reads them back from /proc/P/pagemap.
# hotset_soft_dirty.check.py wants exactly the hot set dirty (precision and
# recall 1.0): the ceiling heat_soft_dirty's threshold is set against.
. /vm/heat.sh
trap heat_cleanup EXIT
knob_set /proc/sys/kernel/numa_balancing 0
observe 10 pagemap-sd --size 256M --hot 32M --node 2 --cpus 0-1 --threads 2 --policy bind \
  --mix write
