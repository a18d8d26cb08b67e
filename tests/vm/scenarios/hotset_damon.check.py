#!/usr/bin/python3
"""hotset_damon: DAMON vaddr monitoring (through its sysfs, no tier) against
hotset's truth: after 10 s, the regions DAMON saw accessed in 5 consecutive
aggregations (their union) cover the 32 MiB hot set (256 MiB on node 2): recall >= 0.8
(heat_damon's threshold), precision printed. The kdamond is switched off
and nr_kdamonds restored (with the other knobs); hotset's buffer stayed on
node 2 and verifies."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import heatcheck  # noqa: E402

MIB = 1 << 20
SIZE, HOT = 256 * MIB, 32 * MIB

c = heatcheck.new_check("hotset_damon")
c.eq("exit status", c.rc(), 0)
ready, done = heatcheck.check_hotset(c, SIZE, HOT, {"2": SIZE // heatcheck.PAGE})
truth = heatcheck.truth(c, ready, 1)
refused = c.file("damon.refused").strip()
c.eq("DAMON read exit status", c.file("heat.rc").strip(), "0")
if refused:  # updates that were refused or had no accessed region, each asked again
    c.note("DAMON updates asked again (uptime, what was seen): %s" % refused.replace("\n", "; "))
doc = c.json_output("heat.json")
if isinstance(doc, dict) and truth is not None:
    c.note("%d regions in %s aggregations" % (len(doc.get("hot", [])), doc.get("aggregations")))
    precision, recall = heatcheck.score(c, doc, truth)
    heatcheck.at_least(c, "recall of DAMON's accessed regions", recall, 0.8)
heatcheck.knobs_restored(c)
c.finish()
