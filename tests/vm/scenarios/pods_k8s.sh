#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# Kubernetes-shaped discovery on a real cgroup v2 tree: make-kubepods.sh (the
# unit tests' fixture builder) lays out kubelet's systemd-driver tree with
# three pods (Guaranteed 1 CPU, Burstable 0.5 CPU, BestEffort) under
# /sys/fs/cgroup/kubepods.slice; tierd with [workloads] kubepods set lists
# them as workloads; one pod removed -> dropped. pods_k8s.check.py compares
# classes and pools with what make-kubepods.sh says each pod must get.
# [pools] is on: a `sleep` in each pod's container cgroup shows what the
# pod's own cpuset (written by tierd) allows, while tierd runs and after.
ROOT=/sys/fs/cgroup
SOCK=/run/tierd-pods.sock
S=
cleanup() {
  stop_tierd
  for p in $S; do kill "$p" 2>/dev/null; done
  sleep 0.2
  sh /vm/make-kubepods.sh $ROOT systemd remove >/dev/null 2>&1
}
. /vm/tierd.sh
trap cleanup EXIT
if ! tierd --print-default-config 2>/dev/null | grep -q '^kubepods'; then
  echo "tierd has no [workloads] kubepods: not built yet" >&2
  exit 127
fi
sh /vm/make-kubepods.sh $ROOT systemd >pods.txt 2>pods.err || { cat pods.err >&2; exit 1; }
cat >tierd.toml <<TOML
[daemon]
epoch_ms = 200
[workloads]
kubepods = "$ROOT/kubepods.slice"
[pools]
enabled = true
TOML
# One process per pod, in its container cgroup: "POD_DIR PID" in procs.txt.
: >procs.txt
while read -r dir _; do
  sleep 1000 &
  echo $! >"$(ls -d "$dir"/*/ | head -1)cgroup.procs"
  echo "$dir $!" >>procs.txt
  S="$S $!"
done <pods.txt
# allowed TAG: "TAG POD_DIR CPUS MEMS" per process into allowed.txt.
allowed() {
  while read -r dir pid; do
    echo "$1 $dir $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$pid/status)" \
      "$(sed -n 's/^Mems_allowed_list:[[:space:]]*//p' /proc/$pid/status)"
  done <procs.txt >>allowed.txt
}
allowed before
start_tierd tierd.toml $SOCK
sleep 1  # a few epochs
allowed during
tierctl --socket $SOCK pools --json >pools.json 2>pools.err
tierctl --socket $SOCK workloads --json >workloads.1.json 2>workloads.1.err
# The BestEffort pod goes away (its directory removed, as kubelet does).
gone=$(awk '$3 == "BestEffort" {print $1}' pods.txt)
kill "$(awk -v d="$gone" '$1 == d {print $2}' procs.txt)"
sleep 0.3
rmdir "$gone"/* 2>/dev/null; rmdir "$gone"
sleep 1
tierctl --socket $SOCK workloads --json >workloads.2.json 2>workloads.2.err
grep -v "^$gone " procs.txt >procs.left; mv procs.left procs.txt
stop_tierd
allowed after
cat pods.txt
