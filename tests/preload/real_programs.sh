#!/usr/bin/env bash
# Real programs give identical output with and without libtierpreload.so,
# under a policy that places their large buffers (nodes:0, 64 KiB and up),
# and the library's statistics show bytes placed.
# Usage: real_programs.sh /path/to/libtierpreload.so   (exit 77: a program is missing)
set -euo pipefail
lib=${1:?usage: real_programs.sh LIB}
for p in /usr/bin/python3 sort gzip gunzip sqlite3 redis-server redis-cli redis-benchmark sha256sum; do
  command -v "$p" >/dev/null || { echo "missing $p (scripts/install-deps.sh)"; exit 77; }
done
work=$(mktemp -d /tmp/tier-preload-real.XXXXXX)
redis_pid=
cleanup() {
  [[ -n $redis_pid ]] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# Runs a command or shell function with every program it starts preloaded.
preloaded() (
  export LD_PRELOAD="$lib" TIER_PRELOAD_POLICY=nodes:0 TIER_PRELOAD_THRESHOLD=64K
  export TIER_PRELOAD_STATS="$work/stats.$name.%p.json"
  "$@"
)

# The largest number of placed allocations any process of this program made.
placed_allocations() {
  cat "$work"/stats."$name".*.json 2>/dev/null |
    grep -o "\"allocations\":[0-9]*" | cut -d: -f2 | sort -n | tail -1 || true
}

failed=0
compare() { # name, then the command (stdout compared)
  name=$1
  shift
  "$@" >"$work/plain.$name"
  preloaded "$@" >"$work/preload.$name"
  local placed
  placed=$(placed_allocations)
  if cmp -s "$work/plain.$name" "$work/preload.$name"; then
    echo "same   $name: $(head -c 64 "$work/plain.$name" | head -1) (placed allocations: ${placed:-0})"
  else
    echo "DIFFER $name"
    failed=1
  fi
  if [[ $name != gzip && ${placed:-0} -eq 0 ]]; then
    echo "NOTHING PLACED $name"
    failed=1
  fi
}

python_lists() {
  /usr/bin/python3 -c '
import hashlib
h = hashlib.sha256()
xs = [i * 7919 % 1000003 for i in range(3_000_000)]
ys = sorted(str(x) for x in xs)
d = {y: len(y) for y in ys[:500_000]}
h.update(",".join(ys).encode()); h.update(str(sum(d.values())).encode())
print(h.hexdigest(), len(xs), len(d))'
}
compare python python_lists

seq 22000000 -1 1 >"$work/numbers" # ~200 MB, reverse order
sort_file() { sort "$work/numbers" | sha256sum; }
compare sort sort_file

head -c 60000000 "$work/numbers" >"$work/part"
gzip_round_trip() { gzip -c "$work/part" | gunzip -c | sha256sum; }
compare gzip gzip_round_trip

sqlite_rows() {
  sqlite3 :memory: '
CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, n INTEGER);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000)
INSERT INTO t SELECT i, hex(i * 2654435761), i % 977 FROM c;
CREATE INDEX tn ON t(n);
SELECT count(*), sum(n), min(v), max(v) FROM t;
SELECT n, count(*) FROM t WHERE n < 3 GROUP BY n;'
}
compare sqlite sqlite_rows

# redis: populate, benchmark against it, then check the data is intact.
redis_run() {
  local sock="$work/redis.sock"
  rm -f "$sock"
  "$@" redis-server --port 0 --unixsocket "$sock" --save '' --appendonly no --enable-debug-command local \
    --dir "$work" >/dev/null &
  redis_pid=$!
  for _ in $(seq 100); do [[ -S $sock ]] && break; sleep 0.1; done
  redis-cli -s "$sock" debug populate 300000 key 512 >/dev/null
  redis-cli -s "$sock" debug digest
  redis-benchmark -s "$sock" -q -n 50000 -d 4096 -t set,get,lpush >/dev/null
  redis-cli -s "$sock" dbsize
  redis-cli -s "$sock" get key:12345 | sha256sum
  redis-cli -s "$sock" shutdown nosave >/dev/null 2>&1 || true
  wait "$redis_pid" 2>/dev/null || true
  redis_pid=
}
name=redis
redis_run >"$work/plain.redis"
redis_run preloaded >"$work/preload.redis"
placed=$(placed_allocations)
if cmp -s "$work/plain.redis" "$work/preload.redis" && [[ ${placed:-0} -gt 0 ]]; then
  echo "same   redis: digest $(head -1 "$work/plain.redis") (placed allocations: $placed)"
else
  echo "DIFFER/NOTHING PLACED redis (placed ${placed:-0})"
  diff "$work/plain.redis" "$work/preload.redis" || true
  failed=1
fi
exit $failed
