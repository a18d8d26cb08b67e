#!/usr/bin/python3
"""hotset_soft_dirty: the soft-dirty mechanism against hotset's truth, no
tier involved. After clear_refs 4 and 10 s of writes to the 32 MiB hot set
(256 MiB on node 2), the pages with pagemap bit 55 set are exactly the hot
set: precision and recall >= 0.999 per 4 KiB page (cold pages are never
written, every hot page is written thousands of times). Also: every access
was a write, the buffer stayed on node 2 and verifies, knobs restored."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import heatcheck  # noqa: E402

MIB = 1 << 20
SIZE, HOT = 256 * MIB, 32 * MIB
PAGES = SIZE // heatcheck.PAGE

c = heatcheck.new_check("hotset_soft_dirty")
c.eq("exit status", c.rc(), 0)
ready, done = heatcheck.check_hotset(c, SIZE, HOT, {"2": PAGES})
if done is not None:
    c.eq("hotset writes (every access a write)", done.get("writes"), done.get("accesses"))
truth = heatcheck.truth(c, ready, 1)
c.eq("pagemap read exit status", c.file("heat.rc").strip(), "0")
doc = c.json_output("heat.json")
if isinstance(doc, dict) and truth is not None:
    c.eq("pagemap entries read (the buffer's pages)", doc.get("pages"), PAGES)
    precision, recall = heatcheck.score(c, doc, truth)
    heatcheck.at_least(c, "precision of soft-dirty bits", precision, 0.999)
    heatcheck.at_least(c, "recall of soft-dirty bits", recall, 0.999)
heatcheck.knobs_restored(c)
c.finish()
