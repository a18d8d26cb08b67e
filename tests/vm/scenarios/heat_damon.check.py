#!/usr/bin/python3
"""heat_damon: `tierctl heat --source damon --duration 20` covers hotset's
32 MiB hot set (of 256 MiB on node 2): recall >= 0.8 per 4 KiB page,
precision printed (DAMON's adaptive regions may spill over the hot set's
edges); the buffer stays on node 2 and verifies; knobs restored."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import heatcheck  # noqa: E402

MIB = 1 << 20
SIZE, HOT = 256 * MIB, 32 * MIB

c, ready, doc, truth = heatcheck.heat_scenario("heat_damon", SIZE, HOT,
                                               {"2": SIZE // heatcheck.PAGE})
if doc is not None and truth is not None:
    heatcheck.source_used(c, doc, "damon")
    precision, recall = heatcheck.score(c, doc, truth)
    heatcheck.at_least(c, "recall", recall, 0.8)
c.finish()
