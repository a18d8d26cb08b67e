#!/usr/bin/python3
"""model_cost: a benchmark, judged by its runs only: both hotset runs exited 0,
verified their data, and reported accesses/s (printed for docs/benchmarks.md)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

c = vmcheck.Check("model_cost")
c.eq("exit status", c.rc(), 0)
for node in (0, 2):
    try:
        run = json.loads(c.file("hot%d.json" % node))
    except ValueError as e:
        c.fail("hot%d.json: %s" % (node, e))
        continue
    c.eq("hotset on node %d verified" % node, run.get("verified"), True)
    c.note("hotset on node %d: %d accesses/s" % (node, run.get("accesses_per_s", 0)))
c.note("guest uptime at the end: %s s" % (c.file("stdout").split() or ["?"])[0])
c.finish()
