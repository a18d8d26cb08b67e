#!/bin/sh
# vmtest-modes: numa model
# vmtest-timeout: 600
# Is slow memory slow? The same measurements with the latency model (mode
# model: the tiermodel plugin, calibrated at setup) and without it (mode
# numa: every node is the same host memory). fidelity.check.py asserts HMAT's
# ratios in the first and flat ones in the second:
#   bench.json    tierctl bench, every CPU node x memory node pair: pointer
#                 chase latency and read bandwidth (1 thread, 8 MiB)
#   loaded.json   tierctl bench --loaded from node 0 on node 0: a chaser
#                 beside a reader on the node's other CPU, injection delays
#                 swept from none to full speed, while CPUs 2-3 stream stores
#                 into node 0 (the node near its bandwidth)
#   hot0.json     hotset, 16 MiB hot set read by CPU 0 on node 0 for 4 s (the rest of
#   hot2.json     its 64 MiB on node 2), then the same hot set on node 2
#   alone.json    hotset on CPU 2 over node 1, alone, then beside a writer on
#   beside.json   CPU 0 writing at random over node 3 (hog.json): a vCPU's
#                 stalls cost only that vCPU (model mode only: single-threaded
#                 TCG runs every vCPU on one host thread by design)
# Each hotset run verifies its data at exit.
if ! tierctl bench --help 2>&1 | grep -q -- '--loaded'; then
  echo "tierctl bench has no --loaded: not built yet" >&2
  exit 127
fi
. /etc/vmtest.env
set -e
tierctl bench --size 8M --repeat 3 --threads 1 --json >bench.json
# Node 0 loaded from the other socket too: two streams of stores (dd from
# /dev/zero into a buffer on node 0, on CPUs 2 and 3) for the whole sweep.
streamers=
for cpu in 2 3; do
  tierctl run --membind 0 --physcpubind $cpu -- dd if=/dev/zero of=/dev/null bs=4M \
    count=1000000 2>/dev/null &
  streamers="$streamers $!"
done
sleep 1
tierctl bench --initiator 0 --target 0 --size 8M --repeat 1 --threads 2 --loaded --json \
  >loaded.json
kill $streamers
wait $streamers 2>/dev/null || true

# hotset_run NAME ARGS...: 6 s of reads of a 16 MiB hot set (uniform), one thread.
hotset_run() {
  name=$1; shift
  hotset --size 64M --hot 16M --threads 1 --duration 4 --mix read "$@" >"$name.json"
}
hotset_run hot0 --node 2 --hot-nodes 0 --cpus 0
hotset_run hot2 --node 2 --hot-nodes 2 --cpus 0
[ "$VMTEST_MODE" = model ] || exit 0
hotset_run alone --node 1 --cpus 2
# The writer: random writes over 128 MiB on node 3 from CPU 0 (every miss
# charged 350/80 of a local one: its vCPU stalls most of the time), for
# longer than the run measured beside it.
hotset --size 128M --hot 128M --threads 1 --duration 10 --mix write --node 3 --cpus 0 \
  >hog.json &
hog=$!
sleep 2
hotset_run beside --node 1 --cpus 2
wait "$hog"
