#!/bin/sh
# vmtest-modes: numa
# vmtest-guest: 2
# vmtest-timeout: 240
# The head-to-head's functional check in make vmtest (the benchmark itself
# is scripts/bench-placement.sh): a shortened workload A (384 MiB
# first-touched on node 2, a 96 MiB Zipf(0.99) hot set, two threads on node
# 0's CPUs, 30 s) twice in this boot, first with no tiering, then under
# tierd with policy balanced and kernel_tiering = "own" (guest/h2h.sh).
# h2h_smoke.check.py: balanced's fast-tier share at the end beats none's by
# a clear margin, and balanced moved pages.
# Exits 127 (not built yet) while tierd has no kernel_tiering setting.
if ! tierd --print-default-config 2>/dev/null | grep -q kernel_tiering; then
  echo "tierd has no kernel_tiering setting (tierd --print-default-config): not built yet" >&2
  exit 127
fi
. /vm/h2h.sh
trap h2h_cleanup EXIT
set -- --size 384M --hot 96M --dist zipf:0.99 --node 2 --policy first-touch --cpus 0-1 \
  --threads 2 --fast-nodes 0
h2h_run none none 30 "$@" || exit 1
h2h_run balanced tierd-balanced 30 "$@" || exit 1
