#!/usr/bin/python3
"""fidelity_load (a benchmark, model mode, judged for a quiet host):
  - loaded latency rises with load: with node 0 half used by two streams
    from the other socket, the chaser's latency at the sweep's full load
    (delay 0) at least 1.15x its idle point (quiet host: 1.21-1.49x; beside
    a busy loop on the host's other core one run fell to 0.85x, the vCPU
    threads then outnumbering the host's cores), and the loaders' bandwidth
    above the first loaded point's;
  - a writer stalling on node 3 from CPU 0 leaves hotset on CPU 2 at least
    0.6 of its speed alone (a stall charged to every vCPU would cost it the
    writer's stall share, ~0.75); each hotset verified its data;
  - NUMA balancing restored after the run."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402
from vmcheck import ratio  # noqa: E402

c = vmcheck.Check("fidelity_load")
c.eq("exit status", c.rc(), 0)
c.eq("knobs restored", c.file("knobs.restored"), c.file("knobs.saved") or "<none saved>")
loaded = c.json_output("loaded.json")
runs = {name: vmcheck.hotset_summary(c, name) for name in ("alone", "beside", "hog")}
if loaded is None or None in runs.values():
    c.finish()

points = (loaded.get("loaded") or [{}])[0].get("points") or []
if len(points) < 2:
    c.fail("loaded latency: %d points, want the sweep (%s)" % (len(points), json.dumps(points)))
else:
    idle, full = points[0], points[-1]
    c.note("loaded latency %.0f ns idle -> %.0f ns at %.0f MB/s (delay %s)" %
           (idle["latency_ns"], full["latency_ns"], full["bandwidth_mbps"], full["delay"]))
    c.within("loaded latency at full load over idle",
             ratio(full["latency_ns"], idle["latency_ns"]), 1.15, float("inf"))
    c.within("loaders' bandwidth at full load (MB/s)", full["bandwidth_mbps"],
             points[1]["bandwidth_mbps"] * 1.01, float("inf"))

for name, run in runs.items():
    c.eq("hotset %s verified" % name, run.get("verified"), True)
keep = ratio(runs["beside"].get("accesses_per_s"), runs["alone"].get("accesses_per_s"))
c.note("hotset on CPU 2 beside the writer on CPU 0: x%.2f of alone" % (keep or 0))
c.within("hotset on CPU 2 beside a stalling writer on CPU 0, over alone", keep, 0.6,
         float("inf"))
c.finish()
