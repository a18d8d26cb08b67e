#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 150
# CPU pools under cgroup v2 on the 4-node machine (CPUs 0-1 on node 0, 2-3 on
# node 1, CPU-less nodes 2 and 3 hanging off them). tierd with [pools] on:
#   a: online  exclusive:1   (then resized live to exclusive:2)
#   b: online  numa:1
#   c: offline shared
#   d: `tierctl run --class online --pool immovable:1 -- CMD`: the launcher
#      registers itself, joins its pool and execs CMD already confined.
# Each process's Cpus_allowed_list / Mems_allowed_list is recorded from
# /proc/PID/status at each step; pools_mix.check.py derives what each must be
# from the machine's own topology and asserts it.
. /vm/tierd.sh
trap 'kill_all' EXIT
if ! tierctl workloads update --help >/dev/null 2>&1; then
  echo "tierctl has no 'workloads update': not built yet" >&2
  exit 127
fi
SOCK=/run/tierd-pools.sock
PIDS=
kill_all() {
  for p in $PIDS; do kill "$p" 2>/dev/null; done
  stop_tierd
}
cat >tierd.toml <<TOML
[daemon]
epoch_ms = 200
[pools]
enabled = true
isolate_irqs = true
TOML
# irqs FILE: every IRQ's affinity list ("N LIST").
irqs() {
  for f in /proc/irq/[0-9]*/smp_affinity_list; do
    n=${f#/proc/irq/}; echo "${n%%/*} $(cat "$f")"
  done >"$1"
}
irqs irqs.before
start_tierd tierd.toml $SOCK

# snapshot STEP NAME PID: the kernel's allowed lists for one process.
snapshot() {
  printf '%s %s %s %s\n' "$1" "$2" \
    "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$3/status)" \
    "$(sed -n 's/^Mems_allowed_list:[[:space:]]*//p' /proc/$3/status)" >>allowed.txt
}
sleep 1000 & A=$!
sleep 1000 & B=$!
sleep 1000 & C=$!
PIDS="$A $B $C"
reg() { tierctl --socket $SOCK workloads register --pid "$1" --class "$2" --pool "$3" --json \
  >"register.$4.json" 2>"register.$4.err"; echo "$4 $?" >>register.rc; }
reg $A online exclusive:1 a
reg $B online numa:1 b
reg $C offline shared c
for w in "a $A" "b $B" "c $C"; do set -- $w; snapshot 1 "$1" "$2"; done
tierctl --socket $SOCK pools --json >pools.1.json 2>pools.1.err

tierctl --socket $SOCK workloads update "pid:$A" --pool exclusive:2 --json >update.json 2>update.err
echo "update $?" >>register.rc
for w in "a $A" "b $B" "c $C"; do set -- $w; snapshot 2 "$1" "$2"; done
tierctl --socket $SOCK pools --json >pools.2.json 2>pools.2.err
irqs irqs.during
tierctl --socket $SOCK ps --json >ps.json 2>ps.err

# The launcher: CMD prints what it may use as soon as it starts.
tierctl --socket $SOCK run --class online --pool immovable:1 -- \
  sh -c 'sed -n "s/^\(Cpus\|Mems\)_allowed_list:[[:space:]]*/\1 /p" /proc/self/status' \
  >run.out 2>run.err
echo "run $?" >>register.rc
ls -d /sys/fs/cgroup/tier/* >groups.during 2>&1

kill_all
irqs irqs.after
ls -d /sys/fs/cgroup/tier >groups.after 2>&1
echo "groups after stop: $(cat groups.after)"
cat allowed.txt
