#!/bin/sh
# vmtest-modes: numa
# vmtest-guest: 2
# vmtest-timeout: 600
# tierd never moves a page against the process's own memory policy (issue
# 20, "Bad input and faults"). Five hotsets, each 64 MiB on a slow node with
# a 16 MiB hot set written by a CPU of node 0, all matched by one rule, and
# room for every hot set on node 0; tierd (balanced, kernel_tiering own,
# soft-dirty heat: exact under TCG, see tierd_placement) plans to promote
# every one of them:
#   free        hotset --policy first-touch: no policy of its own after the
#               fill, so tierd places it (shows tierd promoting in this boot);
#   vma_bind    hotset --policy bind: its buffer mbind(MPOL_BIND)-ed to node 2;
#   task_bind   tierctl run --membind 2,3: the task's set_mempolicy(MPOL_BIND);
#   preferred   tierctl run --preferred 3: MPOL_PREFERRED node 3 (buffer there);
#   interleave  tierctl run --interleave 2,3: MPOL_INTERLEAVE.
# (tierctl run sets the task policy as numactl would, then execs hotset;
# hotset's first-touch binds the buffer for its fill and then drops the VMA
# policy, so the task's policy is the one numa_maps shows for it.)
# Waits (up to 300 s) until tierd promoted free's hot set and refused each
# of the other four at least once, then saves status, workloads and each
# process's numa_maps, stops the hotsets (each verifies every page and
# prints where its pages are) and tierd. policy_honoured.check.py judges.
. /vm/heat.sh
. /vm/tierd.sh
trap 'stop_tierd; heat_cleanup' EXIT
if ! tierd --print-default-config 2>/dev/null | grep -q '^kernel_tiering'; then
  echo "tierd has no [placement] kernel_tiering: not built yet" >&2
  exit 127
fi

SOCK=/run/tierd-policy.sock
cat >tierd.toml <<TOML
[policy]
name = "balanced"
params = { budget_mbps = 512 }
[placement]
kernel_tiering = "own"
heat_source = "soft-dirty"
[[workloads.rule]]
match = "hotset"
class = "online"
TOML
start_tierd tierd.toml $SOCK

# start NAME CPU NODE HOTSET_POLICY [TIERCTL_RUN_FLAG VALUE]: one hotset,
# under `tierctl run FLAG VALUE` when given (its socket: none, so nothing
# registers it and the rule alone makes it a workload); waits for its ready
# file. NAME.pid gets its pid.
start() {
  name=$1 cpu=$2 node=$3 policy=$4
  shift 4
  set -- hotset --size 64M --hot 16M --dist uniform --node "$node" --policy "$policy" \
    --cpus "$cpu" --threads 1 --mix write --duration 900 --ready-file "$name.ready" "$@"
  if [ -n "$RUN_FLAG" ]; then
    set -- tierctl --socket /run/tier-none.sock run "$RUN_FLAG" "$RUN_VALUE" -- "$@"
  fi
  "$@" >"$name.out" 2>"$name.err" &
  echo $! >"$name.pid"
  tries=0
  until [ -e "$name.ready" ]; do
    tries=$((tries + 1))
    [ $tries -lt 3000 ] || { echo "$name did not start within 300 s: $(cat "$name.err")" >&2; exit 1; }
    kill -0 "$(cat "$name.pid")" 2>/dev/null || { echo "$name died: $(cat "$name.err")" >&2; exit 1; }
    sleep 0.1
  done
}

RUN_FLAG='' RUN_VALUE=''
start free 0 2 first-touch
start vma_bind 1 2 bind
RUN_FLAG=--membind RUN_VALUE=2,3 start task_bind 0 2 first-touch
RUN_FLAG=--preferred RUN_VALUE=3 start preferred 1 3 first-touch
RUN_FLAG=--interleave RUN_VALUE=2,3 start interleave 0 2 first-touch
RUN_FLAG=

# Done when some workload has 16 MiB promoted (only free may) and five
# against_policy counts are non-zero: the total and one per bound process.
waited=0 trail=''
while :; do
  tierctl --socket $SOCK status --json >status.poll 2>/dev/null
  promoted=$(grep -o '"promoted_bytes": *[0-9]*' status.poll | grep -o '[0-9]*$' |
    sort -n | tail -1)
  refused=$(grep -o '"against_policy": *[0-9]*' status.poll | grep -o '[0-9]*$' |
    grep -vc '^0$')
  [ $((waited % 15)) -ne 0 ] || trail="$trail ${waited}s:promoted=${promoted:-0},refused=$refused"
  [ "${promoted:-0}" -ge 16777216 ] && [ "$refused" -ge 5 ] && break
  [ $waited -lt 300 ] || break
  sleep 3
  waited=$((waited + 3))
done
echo "waited_s $waited of 300; promoted $promoted; against_policy counts $refused; trail$trail" \
  >wait.txt

tierctl --socket $SOCK status --json >status.json 2>status.err
tierctl --socket $SOCK status >status.txt 2>&1
tierctl --socket $SOCK workloads --json >workloads.json 2>workloads.err
for name in free vma_bind task_bind preferred interleave; do
  cp "/proc/$(cat "$name.pid")/numa_maps" "$name.numa_maps"
done
for name in free vma_bind task_bind preferred interleave; do
  kill -TERM "$(cat "$name.pid")"
done
for name in free vma_bind task_bind preferred interleave; do
  wait "$(cat "$name.pid")"
  echo $? >"$name.rc"
done
kill -TERM "$T"
wait "$T"
echo $? >tierd.rc
T=
