#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# The kernel's own tiering as a baseline, and hotset's phases on a real
# kernel: 256 MiB first-touched on node 2 then left to the kernel
# (--policy first-touch), a 32 MiB hot set read from node 0's CPUs that moves
# every 8 s (phases at 0, 8, 16 s), numa_balancing=2 with a fast scanner and
# node 0 nearly empty (so nothing holds promotion back).
# hotset_promote.check.py: each phase's hot set ends up mostly on node 0,
# no page that was never hot leaves node 2, data verified, knobs restored.
. /vm/heat.sh
trap heat_cleanup EXIT
hint_knobs 2
observe 20 none --size 256M --hot 32M --node 2 --cpus 0-1 --threads 2 --policy first-touch \
  --phase-shift 8
