#!/usr/bin/python3
"""heat_cross_numa: hotset on node 0's CPUs with its 32 MiB hot set split
over nodes 0 and 1 (the rest of 256 MiB on node 0), hint faults from
numa_balancing=1: `tierctl heat --source bpf-fault` reports local_share and
remote_share of 0.5 +- 0.1 each, node 1 about half of the samples by memory
node, and per-node (decayed) scores on both nodes. The kernel's own counters agree (numa_hint_faults_local is
0.5 +- 0.1 of numa_hint_faults); the buffer's placement is unchanged page
for page (hotset's query and numa_maps), data verified, knobs restored.
/proc/vmstat's numa_pages_migrated is only reported: balancing mode 1 may
move any process's misplaced pages (a CI run saw 1 page move, not hotset's)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import heatcheck  # noqa: E402

MIB = 1 << 20
SIZE, HOT = 256 * MIB, 32 * MIB
PAGES, HALF = SIZE // heatcheck.PAGE, HOT // heatcheck.PAGE // 2

c, ready, doc, truth = heatcheck.heat_scenario("heat_cross_numa", SIZE, HOT,
                                               {"0": PAGES - HALF, "1": HALF})
if ready is not None:
    c.eq("hot set split (hotset's own query)", ready.get("hot_resident"), {"0": HALF, "1": HALF})
_, policies = heatcheck.buffer_nodes(c, ready)
if policies is not None:
    c.eq("numa_maps: policies (cold, hot half 0, hot half 1)", policies,
         ["bind=balancing:0", "bind=balancing:1", "bind=balancing:0"])
# The kernel's own split of the same hint faults (numa_hint_faults_local:
# page on the faulting CPU's node): proves the setup gives 0.5, whatever
# tierctl reports.
faults = heatcheck.vmstat_delta(c, "numa_hint_faults")
local_faults = heatcheck.vmstat_delta(c, "numa_hint_faults_local")
heatcheck.at_least(c, "numa_hint_faults during the observation", faults, HALF * 2)
kernel_local = local_faults / faults if faults and local_faults is not None else None
c.within("kernel's local share of hint faults", kernel_local, 0.4, 0.6)
c.note("numa_pages_migrated during the observation (all processes): %s"
       % heatcheck.vmstat_delta(c, "numa_pages_migrated"))
if doc is not None and truth is not None:
    heatcheck.source_used(c, doc, "bpf-fault")
    local, remote = doc.get("local_share"), doc.get("remote_share")
    c.within("local_share", local, 0.4, 0.6)
    c.within("remote_share", remote, 0.4, 0.6)
    # Node 1's share of the samples by memory node: the cross-NUMA matrix's
    # columns, every sample of the run at its weight. per_node's scores are
    # the same samples decayed by 0.5 an epoch, i.e. mostly the last scan
    # passes: which half the scanner reached last moves that share (0.358
    # in a run on a host busier than the soak's load, while the samples
    # split 0.556 / 0.444), so it is reported, and asked only to hold heat
    # on both nodes.
    matrix = (doc.get("cross_numa") or {}).get("cpu_node_x_memory_node") or []
    by_memory = [sum(column) for column in zip(*matrix)]  # rows: CPU nodes, dense
    share1 = by_memory[1] / sum(by_memory) if len(by_memory) > 1 and sum(by_memory) else None
    c.within("node 1's share of the samples by memory node", share1, 0.4, 0.6)
    per_node = {n.get("node"): n.get("score") for n in doc.get("per_node") or []}
    if not all(isinstance(per_node.get(n), (int, float)) and per_node[n] > 0 for n in (0, 1)):
        c.fail("per_node does not hold heat on both nodes: %s" % per_node)
    heatcheck.score(c, doc, truth)
    c.note("local_share %s remote_share %s per_node %s; kernel: %s of %s hint faults local" % (
        local, remote, per_node, local_faults, faults))
c.finish()
