#!/usr/bin/python3
"""pods_k8s: tierd's kubepods discovery on a real cgroup v2 tree in the
guest. Every pod make-kubepods.sh created is a workload (source "pod", id
cgroup:<pod dir>) with the class and pool the script says its QoS class and
CPU limit give (Guaranteed 1 CPU -> online exclusive:1, Burstable -> online
shared, BestEffort -> offline shared); after the BestEffort pod's directory
is removed it is gone from the list and listed as dropped. With [pools] on,
tierd confines each pod's own cgroup (cpuset.cpus/.mems): a process in the
Guaranteed pod's container may use exactly one CPU, which no other pod's
process may use; the Burstable and BestEffort ones get the other three; once
tierd stops, every pod has all four CPUs again."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

c = vmcheck.Check("pods_k8s")
c.eq("exit status", c.rc(), 0)
if c.rc() == 127:
    c.finish()

pods = [line.split() for line in c.file("pods.txt").splitlines() if line.strip()]
c.eq("pods created", len(pods), 3)
first = c.json_output("workloads.1.json") or {}
second = c.json_output("workloads.2.json") or {}
listed = {w.get("id"): w for w in first.get("workloads", [])}
for cgroup, uid, qos, klass, pool in pods:
    w = listed.get("cgroup:" + cgroup)
    if w is None:
        c.fail("pod %s (%s) not discovered; listed: %s" % (uid, qos, sorted(listed)))
        continue
    c.eq("%s pod source" % qos, w.get("source"), "pod")
    c.eq("%s pod class" % qos, w.get("class"), klass)
    c.eq("%s pod pool" % qos, w.get("pool"), pool)
    c.eq("%s pod name" % qos, w.get("name"), "pod " + uid)
after = {w.get("id") for w in second.get("workloads", [])}
for cgroup, uid, qos, _, _ in pods:
    if qos == "BestEffort":
        if "cgroup:" + cgroup in after:
            c.fail("removed BestEffort pod still listed")
        dropped = [d for d in second.get("dropped", []) if d.get("workload", {}).get("id") == "cgroup:" + cgroup]
        if not dropped:
            c.fail("removed BestEffort pod not among the dropped: %s" % second.get("dropped"))
    elif "cgroup:" + cgroup not in after:
        c.fail("%s pod vanished from the list" % qos)
# Allowed CPUs per pod process: before tierd, while it runs, after it stopped.
allowed = {}
for line in c.file("allowed.txt").splitlines():
    parts = line.split()
    if len(parts) == 4:
        allowed[(parts[0], parts[1])] = (set(vmcheck.parse_cpulist(parts[2])),
                                         set(vmcheck.parse_cpulist(parts[3])))
qos_of = {d: q for d, _, q, _, _ in pods}
every = set(range(4))
guaranteed = [d for d in qos_of if qos_of[d] == "Guaranteed"]
if len(guaranteed) != 1 or ("during", guaranteed[0]) not in allowed:
    c.fail("no Guaranteed pod process sampled: %s" % sorted(allowed))
else:
    g = guaranteed[0]
    c.eq("Guaranteed pod's CPUs before tierd", sorted(allowed[("before", g)][0]), sorted(every))
    g_cpus = allowed[("during", g)][0]
    c.eq("Guaranteed pod (exclusive:1) CPUs while tierd runs", len(g_cpus), 1)
    for d, q in qos_of.items():
        if d == g or ("during", d) not in allowed:
            continue
        c.eq("%s pod CPUs while tierd runs" % q, sorted(allowed[("during", d)][0]),
             sorted(every - g_cpus))
    for (tag, d), (cpus, mems) in sorted(allowed.items()):
        if tag == "after":
            c.eq("%s pod CPUs after tierd stopped" % qos_of[d], sorted(cpus), sorted(every))
    c.note("Guaranteed pod confined to CPU %s, the others to %s" % (
        ",".join(map(str, sorted(g_cpus))),
        ",".join(map(str, sorted(every - g_cpus)))))
c.note("%d pods discovered: %s" % (len(listed), ", ".join(
    "%s %s %s" % (q, listed.get("cgroup:" + d, {}).get("class"), listed.get("cgroup:" + d, {}).get("pool"))
    for d, _, q, _, _ in pods)))
c.finish()
