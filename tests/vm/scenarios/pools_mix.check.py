#!/usr/bin/python3
"""pools_mix: tierd's CPU pools under cgroup v2 (numa mode: CPUs 0-1 on node
0, 2-3 on node 1, CPU-less nodes 2 and 3 attached to nodes 0 and 1). What
each process may use is read from its /proc/PID/status and checked against
what the pool rules (docs/pools.md) give on this machine:
  a online exclusive:1 -> one CPU, nobody else on it; mems = its node + the
    CPU-less node attached to it; resized live to exclusive:2 -> two CPUs
    including the first, still nobody else on them;
  b online numa:1 -> node 1's CPUs minus a's; mems 1 + node 1's CPU-less node;
  c offline shared -> every CPU minus a's; mems = the nodes of those CPUs +
    their CPU-less nodes (all four at first; after the resize gives a all of
    node 0, only nodes 1 and 3);
  d `tierctl run --pool immovable:1` -> the command starts on one CPU.
tierd's groups are gone after it stops."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

c = vmcheck.Check("pools_mix")
c.eq("exit status", c.rc(), 0)
if c.rc() == 127:
    c.finish()

f = c.facts
cpu_nodes = [n for n in f.nodes() if f.cpus(n)]
cpus_of = {n: set(f.cpus(n)) for n in cpu_nodes}
all_cpus = set().union(*cpus_of.values())
# CPU-less node -> the CPU node it hangs off (the topology's HMAT initiator).
attached = {n["id"]: n["initiator"] for n in c.topology["nodes"] if "initiator" in n}


def node_of(cpu):
    return next(n for n, cpus in cpus_of.items() if cpu in cpus)


def near_mems(cpus):
    nodes = {node_of(cpu) for cpu in cpus}
    return nodes | {m for m, n in attached.items() if n in nodes}


for line in c.file("register.rc").splitlines():
    name, rc = line.split()
    c.eq("%s exit status" % name, rc, "0")

allowed = {}
for line in c.file("allowed.txt").splitlines():
    parts = line.split()
    if len(parts) != 4:
        c.fail("allowed.txt line not 'STEP NAME CPUS MEMS': %r" % line)
        continue
    step, name, cpus, mems = parts
    allowed[(step, name)] = (set(vmcheck.parse_cpulist(cpus)), set(vmcheck.parse_cpulist(mems)))


def check_step(step, k):
    if any((step, n) not in allowed for n in "abc"):
        c.fail("step %s: missing snapshots: %s" % (step, sorted(allowed)))
        return None
    a_cpus, a_mems = allowed[(step, "a")]
    b_cpus, b_mems = allowed[(step, "b")]
    c_cpus, c_mems = allowed[(step, "c")]
    c.eq("step %s: a (exclusive:%d) CPU count" % (step, k), len(a_cpus), k)
    c.eq("step %s: a's CPUs in one node" % step, len({node_of(x) for x in a_cpus}), 1)
    c.eq("step %s: a mems" % step, sorted(a_mems), sorted(near_mems(a_cpus)))
    c.eq("step %s: b (numa:1) CPUs" % step, sorted(b_cpus), sorted(cpus_of[1] - a_cpus))
    c.eq("step %s: b mems" % step, sorted(b_mems), sorted(near_mems(cpus_of[1])))
    c.eq("step %s: c (offline shared) CPUs" % step, sorted(c_cpus), sorted(all_cpus - a_cpus))
    c.eq("step %s: c mems" % step, sorted(c_mems), sorted(near_mems(all_cpus - a_cpus)))
    for other, cpus in (("b", b_cpus), ("c", c_cpus)):
        if cpus & a_cpus:
            c.fail("step %s: %s may run on a's exclusive CPUs %s" % (step, other, sorted(cpus & a_cpus)))
    return a_cpus


first = check_step("1", 1)
second = check_step("2", 2)
if first and second and not first <= second:
    c.fail("resize moved a off its CPU: %s -> %s" % (sorted(first), sorted(second)))

run = dict(line.split(None, 1) for line in c.file("run.out").splitlines() if " " in line)
if "Cpus" not in run:
    c.fail("tierctl run's command printed no Cpus line: %r (stderr %r)"
           % (c.file("run.out"), c.file("run.err")[-300:]))
else:
    run_cpus = set(vmcheck.parse_cpulist(run["Cpus"].strip()))
    c.eq("tierctl run --pool immovable:1: CPUs the command started with", len(run_cpus), 1)
    if second and run_cpus & second:
        c.fail("immovable:1 took a's exclusive CPU(s) %s" % sorted(run_cpus & second))

pools = c.json_output("pools.2.json")
if isinstance(pools, dict):
    c.eq("pools backend", pools.get("backend"), "cgroup-v2")
    names = [p.get("name") for p in pools.get("pools", [])]
    if "shared" not in names:
        c.fail("pools.list has no shared pool: %s" % names)
ps = c.json_output("ps.json")
if isinstance(ps, dict):
    rows = {str(w.get("pid")): w for w in ps.get("workloads", [])}
    c.eq("tierctl ps rows", len(rows) >= 3, True)

# IRQ isolation ([pools] isolate_irqs): while a holds exclusive:2, no IRQ tierd
# could move may still target a's CPUs (the ones left there are those the
# kernel refused, named in pools.list's notes); after stop every list is back.
def irq_lists(name):
    out = {}
    for line in c.file(name).splitlines():
        parts = line.split()
        if len(parts) == 2:
            out[parts[0]] = set(vmcheck.parse_cpulist(parts[1]))
    return out


before_irqs, during_irqs, after_irqs = (irq_lists("irqs." + n) for n in ("before", "during", "after"))
if not before_irqs:
    c.fail("no /proc/irq affinity lists recorded")
notes = " ".join((pools or {}).get("notes", [])) if isinstance(pools, dict) else ""
moved = 0
if second:
    for irq, cpus in during_irqs.items():
        if cpus & second:
            if ("irq %s left alone" % irq) not in notes:
                c.fail("irq %s still on exclusive CPUs %s and not reported" % (irq, sorted(cpus & second)))
        elif before_irqs.get(irq, set()) & second:
            moved += 1
    if moved == 0:
        c.fail("no IRQ was moved off a's CPUs %s (before: %s)" % (sorted(second), before_irqs))
c.eq("IRQ affinities after tierd stopped", after_irqs, before_irqs)
c.eq("tierd's cgroup after stop", c.file("groups.after").strip().endswith("No such file or directory"),
     True)
if second:
    c.note("a on CPUs %s after resize; backend %s; %d IRQs moved off them and restored"
           % (sorted(second), (pools or {}).get("backend"), moved))
c.finish()
