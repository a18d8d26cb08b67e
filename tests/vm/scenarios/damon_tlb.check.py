#!/usr/bin/python3
"""damon_tlb: DAMON's view of hotset's 48 MiB hot set, read one aggregation
at a time: before any migration (a_plain), after 16 migrations of a cold
range (b_migrated) and with heat.sh's tlb_tick on the hot set's CPUs
(c_tick). Wants every c_tick read to find >= 0.8 of the hot set (what the
DAMON scenarios rely on); the a and b figures are printed: they are the
emulator's behaviour (b found nothing in the run that motivated the ticks),
not an outcome of ours."""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import heatcheck  # noqa: E402

MIB = 1 << 20
c = heatcheck.new_check("damon_tlb")
c.eq("exit status", c.rc(), 0)
ready, done = heatcheck.check_hotset(c, 256 * MIB, 48 * MIB, {"2": 256 * MIB // heatcheck.PAGE})
truth = heatcheck.truth(c, ready, 1)


def recalls(phase):
    """Recall of each read of a phase; a read with no region accessed is 0."""
    got = []
    for path in sorted(glob.glob(os.path.join(c.dir, phase + ".*.json"))):
        try:
            doc = json.load(open(path))
        except ValueError:
            doc = {"hot": []}
        reported, hot = heatcheck.reported_and_hot(doc, truth)
        got.append(len(reported & hot) / len(hot))
    return got


if truth is not None:
    figures = {p: recalls(p) for p in ("a_plain", "b_migrated", "c_tick")}
    c.note("; ".join("%s recall %s" % (p, " ".join("%.2f" % r for r in v))
                     for p, v in figures.items()))
    if len(figures["c_tick"]) != 6:
        c.fail("c_tick: %d reads, want 6" % len(figures["c_tick"]))
    for r in figures["c_tick"]:
        heatcheck.at_least(c, "c_tick: recall of one aggregation", r, 0.8)
heatcheck.knobs_restored(c)
c.finish()
