#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# What the kernel itself moves, as `tierctl heat` reports it (the eBPF
# mm_migrate_pages counter and sched_switch run time every heat report
# carries): hotset first-touches 128 MiB on node 2 and unbinds it
# (--policy first-touch), reads a 32 MiB hot set from node 0's CPUs that moves
# every 5 s, with numa_balancing=2: the kernel promotes each new hot set to
# node 0 (reason numa_misplaced) while tierctl watches for 15 s.
# heat_kernel_migrations.check.py compares tier's count with /proc/vmstat.
. /vm/heat.sh
trap heat_cleanup EXIT
need_heat
hint_knobs 2
observe 15 bpf-fault --size 128M --hot 32M --node 2 --cpus 0-1 --threads 2 --policy first-touch \
  --phase-shift 5
