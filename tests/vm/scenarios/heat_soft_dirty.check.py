#!/usr/bin/python3
"""heat_soft_dirty: `tierctl heat --source soft-dirty --duration 20` finds
the 32 MiB hot set hotset only writes (256 MiB on node 2): recall >= 0.9
per 4 KiB page, precision printed; hotset really wrote (writes == accesses);
the buffer stays on node 2 and verifies; knobs restored."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import heatcheck  # noqa: E402

MIB = 1 << 20
SIZE, HOT = 256 * MIB, 32 * MIB

c, ready, doc, truth = heatcheck.heat_scenario("heat_soft_dirty", SIZE, HOT,
                                               {"2": SIZE // heatcheck.PAGE})
_, done = heatcheck.hotset_lines(c)
if done is not None:
    c.eq("hotset writes (every access a write)", done.get("writes"), done.get("accesses"))
if doc is not None and truth is not None:
    heatcheck.source_used(c, doc, "soft-dirty")
    precision, recall = heatcheck.score(c, doc, truth)
    heatcheck.at_least(c, "recall", recall, 0.9)
c.finish()
