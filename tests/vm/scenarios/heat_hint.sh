#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# `tierctl heat --source bpf-fault` on hotset_hint's setup: 256 MiB on node 2
# under MPOL_BIND|MPOL_F_NUMA_BALANCING, a 32 MiB hot set read from node 0's
# CPUs, numa_balancing=2 with a fast scanner, so the kernel takes hint faults
# on the hot set but moves nothing. heat_hint.check.py wants precision and
# recall >= 0.9 against hotset's truth file, and every knob restored.
. /vm/heat.sh
trap heat_cleanup EXIT
need_heat
hint_knobs 2
observe 20 bpf-fault --size 256M --hot 32M --node 2 --cpus 0-1 --threads 2 --policy bind-balancing
