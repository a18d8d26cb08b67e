#!/usr/bin/python3
"""heat_hint: `tierctl heat --source bpf-fault --duration 20` finds hotset's
32 MiB hot set (of 256 MiB on node 2, read from node 0's CPUs, NUMA hint
faults from numa_balancing=2 with promotion held off by the policy):
precision >= 0.9 and recall >= 0.9 per 4 KiB page; the kernel took at
least one pass of hint faults over the hot set; the buffer stays on node 2
and verifies; every knob is restored."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import heatcheck  # noqa: E402

MIB = 1 << 20
SIZE, HOT = 256 * MIB, 32 * MIB

c, ready, doc, truth = heatcheck.heat_scenario("heat_hint", SIZE, HOT,
                                               {"2": SIZE // heatcheck.PAGE})
# The mechanism worked (as in hotset_hint), whatever tierctl made of it.
heatcheck.at_least(c, "numa_hint_faults during the observation",
                   heatcheck.vmstat_delta(c, "numa_hint_faults"), HOT // heatcheck.PAGE)
if doc is not None and truth is not None:
    heatcheck.source_used(c, doc, "bpf-fault")
    precision, recall = heatcheck.score(c, doc, truth)
    heatcheck.at_least(c, "precision", precision, 0.9)
    heatcheck.at_least(c, "recall", recall, 0.9)
c.finish()
