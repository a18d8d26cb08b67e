#!/usr/bin/python3
"""bench: `tierctl bench --json` in the guest measures all 2 x 4 pairs
(initiators = nodes with CPUs, targets = every node with memory), each with
a latency and read/write/copy bandwidth, its buffer entirely on the target
node (per_pair.on_target = 1.0), and the HMAT latency of each pair beside it
equal to what `tierctl topo` reports for that pair."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

c = vmcheck.Check("bench")
c.eq("exit status", c.rc(), 0)
doc = c.json_output()
if doc is None:
    c.finish()

cpu_nodes = [n["id"] for n in c.expect["nodes"] if n["cpus"]]
mem_nodes = [n["id"] for n in c.expect["nodes"]]
c.eq("initiators", doc.get("initiators"), cpu_nodes)
c.eq("targets", doc.get("targets"), mem_nodes)
rows, cols = len(cpu_nodes), len(mem_nodes)


def matrix(value, what):
    if not (isinstance(value, list) and len(value) == rows and
            all(isinstance(r, list) and len(r) == cols for r in value)):
        c.fail("%s is not a %d x %d matrix: %r" % (what, rows, cols, value))
        return [[None] * cols for _ in range(rows)]
    return value


lat = matrix(doc.get("latency_ns"), "latency_ns")
bw = {k: matrix(doc.get("bandwidth_mbps", {}).get(k), "bandwidth_mbps." + k)
      for k in ("read", "write", "copy")}
on_target = matrix(doc.get("per_pair", {}).get("on_target"), "per_pair.on_target")
hmat = matrix(doc.get("hmat", {}).get("read_latency_ns"), "hmat.read_latency_ns")
configured = vmcheck.configured_hmat(c.topology)
for i, init in enumerate(cpu_nodes):
    for j, target in enumerate(mem_nodes):
        pair = "%d->%d" % (init, target)
        if not (isinstance(lat[i][j], (int, float)) and lat[i][j] > 0):
            c.fail("%s latency not measured: %r" % (pair, lat[i][j]))
        for k, m in bw.items():
            if not (isinstance(m[i][j], (int, float)) and m[i][j] > 0):
                c.fail("%s %s bandwidth not measured: %r" % (pair, k, m[i][j]))
        c.eq("%s buffer fraction on node %d" % (pair, target), on_target[i][j], 1.0)
        want = configured.get((init, target), {}).get("read_latency_ns")
        c.eq("%s HMAT read latency beside the measurement" % pair, hmat[i][j], want)
c.note("%d x %d pairs measured, every buffer on its target; latency ns row 0: %s" %
       (rows, cols, ", ".join("%.0f" % x if isinstance(x, (int, float)) else "-" for x in lat[0])))
c.finish()
