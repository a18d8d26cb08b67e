#!/bin/sh
# vmtest-modes: model
# vmtest-explicit: yes
# vmtest-timeout: 600
# The latency model under load (a benchmark: timings of several vCPUs at
# once, which a busy host distorts; fidelity_load.check.py judges a quiet
# host's run):
#   loaded.json   tierctl bench --loaded from node 0 on node 0: a chaser
#                 beside a reader on the node's other CPU, injection delays
#                 swept from none to full speed, while CPUs 2-3 stream stores
#                 into node 0 (the node near its bandwidth)
#   alone.json    hotset on CPU 2 over node 1, alone, then beside a writer on
#   beside.json   CPU 0 writing at random over node 3 (hog.json): a vCPU's
#                 stalls cost only that vCPU
# NUMA balancing is off meanwhile (knobs.saved/knobs.restored).
. /vm/model.sh
model_quiet
set -e
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
# busybox sh: a wait on killed jobs fails, here and in the EXIT trap's
# cleanup, which set -e would then cut short before the knobs are restored.
set +e
kill $streamers
wait $streamers 2>/dev/null
set -e

hotset_run alone --node 1 --cpus 2
# The writer: random writes over 128 MiB on node 3 from CPU 0 (every miss
# charged 350/80 of a local one: its vCPU stalls most of the time), for
# longer than the run measured beside it.
hotset --size 128M --hot 128M --threads 1 --duration 10 --mix write --node 3 --cpus 0 \
  >hog.json &
hog=$!
sleep 2
hotset_run beside --node 1 --cpus 2
set +e
wait "$hog"
