#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 90
# Kubernetes-shaped discovery on a real cgroup v2 tree: make-kubepods.sh (the
# unit tests' fixture builder) lays out kubelet's systemd-driver tree with
# three pods (Guaranteed 1 CPU, Burstable 0.5 CPU, BestEffort) under
# /sys/fs/cgroup/kubepods.slice; tierd with [workloads] kubepods set lists
# them as workloads; one pod removed -> dropped. pods_k8s.check.py compares
# classes and pools with what make-kubepods.sh says each pod must get.
ROOT=/sys/fs/cgroup
SOCK=/run/tierd-pods.sock
cleanup() {
  stop_tierd
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
TOML
start_tierd tierd.toml $SOCK
sleep 1  # a few epochs
tierctl --socket $SOCK workloads --json >workloads.1.json 2>workloads.1.err
# The BestEffort pod goes away (its directory removed, as kubelet does).
gone=$(awk '$3 == "BestEffort" {print $1}' pods.txt)
rmdir "$gone"/* 2>/dev/null; rmdir "$gone"
sleep 1
tierctl --socket $SOCK workloads --json >workloads.2.json 2>workloads.2.err
cat pods.txt
