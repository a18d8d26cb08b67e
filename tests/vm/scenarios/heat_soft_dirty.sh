#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# `tierctl heat --source soft-dirty` on hotset writing (only) its 32 MiB hot
# set of 256 MiB bound to node 2, from node 0's CPUs; NUMA balancing off.
# Soft-dirty sees writes only, which is all this hot set does.
# heat_soft_dirty.check.py wants recall >= 0.9.
. /vm/heat.sh
trap heat_cleanup EXIT
need_heat
knob_set /proc/sys/kernel/numa_balancing 0
observe 20 soft-dirty --size 256M --hot 32M --node 2 --cpus 0-1 --threads 2 --policy bind \
  --mix write
