#!/usr/bin/python3
"""stats_numa_maps: for each process (tier-touch 32 MiB on node 2, tier-touch
16 MiB THP on node 3, PID 1), `tierctl stats --pid P --json`
reports per node exactly the bytes the kernel's /proc/P/numa_maps shows
(sum over mappings of N<node>=<pages> x kernelpagesize), node for node, read
right after each other (a second stats read just after numa_maps must agree
too). The tiers add up to the nodes; the THP process's huge_bytes add up to
smaps_rollup's AnonHugePages; the buffers are where tier-touch put them."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

mc = vmcheck.scenario_check("migrate")

c = vmcheck.Check("stats_numa_maps")
c.eq("exit status", c.rc(), 0)
if c.rc() == 127:
    c.finish()
notes = []
for tag in ("small", "huge", "init"):
    c.eq("%s: tierctl stats exit status" % tag, c.file("stats-%s.rc" % tag).strip(), "0")
    stats = mc.load_json_file(c, "stats-%s.json" % tag, "%s: tierctl stats --json" % tag)
    if not stats:
        continue
    kernel = mc.numa_maps_bytes_per_node(mc.parse_numa_maps(c.file("numa_maps-%s.txt" % tag)))
    kernel = {n: b for n, b in kernel.items() if b}
    got = {n: b for n, b in mc.stats_bytes_per_node(c, stats, tag).items() if b}
    if got != kernel:
        c.fail("%s: stats bytes per node %s, numa_maps says %s (difference %s)" % (
            tag, got, kernel, {n: got.get(n, 0) - kernel.get(n, 0)
                               for n in sorted(set(got) | set(kernel))
                               if got.get(n, 0) != kernel.get(n, 0)}))
    stats2 = mc.load_json_file(c, "stats2-%s.json" % tag, "%s: second tierctl stats" % tag)
    if stats2:
        got2 = {n: b for n, b in mc.stats_bytes_per_node(c, stats2, tag + " (2nd)").items() if b}
        if got2 != kernel:
            c.fail("%s: second stats read %s, numa_maps %s" % (tag, got2, kernel))
    if tag != "init":
        start = json.loads(next(line for line in c.file("touch-%s.out" % tag).splitlines()
                                if '"pid"' in line))
        node = start["node"]
        if kernel.get(node, 0) < start["size"]:
            c.fail("%s: numa_maps has %d bytes on node %d, less than the %d-byte buffer" % (
                tag, kernel.get(node, 0), node, start["size"]))
    if tag == "huge":
        m = re.search(r"AnonHugePages:\s+(\d+) kB", c.file("smaps_rollup-huge.txt"))
        thp = int(m.group(1)) * 1024 if m else None
        huge = sum(n.get("huge_bytes", 0) for n in stats.get("nodes", [])
                   if isinstance(n.get("huge_bytes"), int))
        c.eq("huge: stats huge_bytes vs smaps_rollup AnonHugePages", huge, thp)
        if not thp:
            c.fail("huge: the kernel gave tier-touch --huge no THP (AnonHugePages %r)" % thp)
    notes.append("%s %s" % (tag, " ".join("N%d=%d" % (n, b // 4096) for n, b in sorted(kernel.items()))))
c.note("pages per node (stats = numa_maps): " + "; ".join(notes))
c.finish()
