#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 120
# libtierpreload through `tierctl run --preload`: tier-alloc-hold allocates
# 256 MiB with malloc on node 0's CPUs, (1) under `slow`, (2) under
# `weighted:0=3,2=1`. While it holds the memory, `tierctl stats --pid --json`
# gives the residency per node (from the kernel) and the library's own
# per-node bytes; then tier-alloc-hold checks every page. preload_place.check.py
# asserts: all 256 MiB on the slow tier (nodes 2/3) for (1), a 3:1 split
# between nodes 0 and 2 (±5%) for (2). (3) `auto` with tierd running (paused,
# so it moves nothing itself): `tierctl run --class offline` registers the
# process before exec, the library asks tierd for its class and puts the
# buffer on the slow tier.
echo 0 >/proc/sys/kernel/numa_balancing
trap 'for j in $(jobs -p); do kill $j 2>/dev/null; done' EXIT
if [ ! -f /opt/tier/lib/libtierpreload.so ]; then
  echo "libtierpreload.so not in the guest: not built yet" >&2
  exit 127
fi
# place TAG POLICY; GLOBAL and RUN: more tierctl / tierctl run options (words).
GLOBAL= RUN=
place() {
  # shellcheck disable=SC2086 # word lists
  tierctl $GLOBAL run $RUN -N 0 --preload "$2" -- tier-alloc-hold 256 >"$1.out" 2>"$1.err" &
  p=$!
  i=0
  until grep -q '"pid"' "$1.out" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 600 ] || { echo "tier-alloc-hold $1 did not start" >&2; cat "$1.err" >&2; exit 1; }
    kill -0 "$p" 2>/dev/null || { echo "tier-alloc-hold $1 died" >&2; cat "$1.err" >&2; exit 1; }
    sleep 0.1
  done
  tierctl stats --pid "$p" --json >"$1.json" 2>"$1.stats.err"
  echo $? >"$1.stats.rc"
  cat "/proc/$p/numa_maps" >"$1.numa_maps"
  kill -TERM "$p"
  wait "$p"
  echo $? >"$1.rc"
  echo "$2: $(cat "$1.json" | head -c 600)"
}
place slow slow
place weighted weighted:0=3,2=1
if command -v tierd >/dev/null; then
  . /vm/tierd.sh
  SOCK=$PWD/tierd.sock
  printf '[daemon]\nepoch_ms = 200\n' >tierd.toml
  start_tierd tierd.toml "$SOCK"
  tierctl --socket "$SOCK" pause >/dev/null
  GLOBAL="--socket $SOCK" RUN="--class offline"
  export TIER_PRELOAD_LOG=1  # the socket: tierctl run passes the one it uses
  place auto auto
  stop_tierd
else
  echo "no tierd in the guest: auto not run" >auto.skipped
fi
