#!/bin/sh
# vmtest-modes: model
# vmtest-explicit: yes
# vmtest-timeout: 900
# Head-to-head, the suite's key-value service (issue 19;
# scripts/bench-placement.sh, not in make vmtest): Debian's redis-server on
# node 0's first CPU, loaded by tier-kv (workloads/kv) with 80 000 keys of
# 4 KiB (~360 MiB of server memory) while nodes 0 and 1 are full of huge
# pages, so the data is first-touched on node 2 like every workload's; then
# node 0 keeps 768 MiB of huge pages (the data does not fit beside them, its
# hot keys do) and tier-kv runs 60 s of
# Zipf(0.99) requests, 5 % writes, from node 0's second CPU, under the
# contender named by H2H_CONTENDER. Throughput in requests/s, p50/p99 per
# request; every key is read back and checked at exit (bad 0).
# Under all-fast: no ballast, redis-server and tier-kv on the DRAM node with
# room (guest/h2h.sh: h2h_cpus), the data first-touched there.
# The model mode only: redis-server and its libraries are in its image
# (modes/model.sh MODE_TOOLS).
. /vm/h2h.sh
SOCK=/tmp/redis.sock
kv_cleanup() {
  [ -z "${REDIS:-}" ] || { kill "$REDIS" 2>/dev/null; wait "$REDIS" 2>/dev/null; }
  h2h_cleanup
}
trap kv_cleanup EXIT
h2h_kdamonds_at_boot
cpus=$(h2h_cpus 0-1)
server_cpu=${cpus%%[-,]*} client_cpu=${cpus##*[-,]}
h2h_placing
if ! h2h_all_fast; then
  h2h_node_hugepages 0 512
  h2h_node_hugepages 1 512
fi
taskset -c "$server_cpu" redis-server --port 0 --unixsocket $SOCK --save '' --appendonly no \
  --daemonize no >redis.out 2>&1 &
REDIS=$!
i=0
until [ -S $SOCK ]; do
  i=$((i + 1)); [ $i -lt 600 ] || { echo "redis-server did not open $SOCK: $(tail -n 5 redis.out)" >&2; exit 1; }
  kill -0 "$REDIS" 2>/dev/null || { echo "redis-server died: $(tail -n 5 redis.out)" >&2; exit 1; }
  sleep 0.1
done
# After the load: node 1 free again, node 0 keeps 768 MiB of ballast. Sizes:
# under the latency model (matched) the first version's 400 000 keys of
# 1 KiB took 360 s to load (1 100 SETs/s) and its 20 s run served 165
# requests/s, p50 3 ms; fewer, larger values load in a fraction of that.
kv_loaded() {
  if h2h_all_fast; then return 0; fi
  h2h_node_hugepages 1 0
  h2h_node_hugepages 0 384
  awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^N[0-9]+=/) { split($i, a, "="); n[a[1]] += a[2] } }
       END { for (k in n) printf "%s=%d ", k, n[k]; print "" }' "/proc/$REDIS/numa_maps" |
    sed 's/^/redis_pages_after_load /' >>h2h.log
}
H2H_AFTER_READY=kv_loaded
h2h_run_suite kv "${H2H_CONTENDER:-none}" "${H2H_SECONDS:-60}" tier-kv --socket $SOCK \
  --keys 80000 --value-size 4096 --write-fraction 0.05 --dist zipf:0.99 --threads 1 \
  --cpus "$client_cpu"
