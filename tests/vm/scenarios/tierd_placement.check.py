#!/usr/bin/python3
"""tierd_placement: tierd moving pages for real in the 6.12 guest.
own/: with kernel_tiering "own" tierd set numa_balancing 0 and
demotion_enabled false while it ran and put the boot values back when
stopped; its heat came from the source the scenario configured (own/
heat_source: soft-dirty, or damon with TIERD_PLACEMENT_HEAT); it promoted: at least 80% of hotset's
48 MiB hot set is on node 0 at the end (hotset's own move_pages query), its
status counts promoted bytes for the workload with a reason, and the kernel
promoted nothing itself (pgpromote_success unchanged).
observe/: tierd planned moves and carried out none: the hot set is still
on node 2, nothing promoted, planned moves reported as withheld."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import heatcheck  # noqa: E402

MIB = 1 << 20
HOT_PAGES = 48 * MIB // heatcheck.PAGE
PAGES = 256 * MIB // heatcheck.PAGE


class Sub:
    """The check's file reads, from one run's folder."""

    def __init__(self, c, folder):
        self.c, self.folder = c, folder

    def file(self, name, default=""):
        return self.c.file(os.path.join(self.folder, name), default)

    def fail(self, msg):
        self.c.fail("%s: %s" % (self.folder, msg))

    def eq(self, what, got, want):
        return self.c.eq("%s: %s" % (self.folder, what), got, want)

    def json_output(self, name):
        return self.c.json_output(os.path.join(self.folder, name))


def knobs(run, name):
    return dict(line.split(None, 1) for line in run.file(name).splitlines() if " " in line)


def counter(run, name, key):
    for line in run.file(name).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key and parts[1].isdigit():
            return int(parts[1])
    run.fail("%s has no %s" % (name, key))
    return None


def hot_on(done, node):
    phases = (done or {}).get("hot_resident") or [{}]
    return phases[0].get(str(node), 0) / HOT_PAGES


def workload(run, status):
    items = ((status or {}).get("placement") or {}).get("workloads") or []
    if len(items) != 1:
        run.fail("status lists %d placement workloads, want 1 (hotset)" % len(items))
        return {}
    return items[0]


def waited(run, secs, show):
    """The scenario's wait.txt ("extra_wait_s N FIELD VALUE trail S:V ...")
    as a note: the seconds waited beyond SECS and the field's progression."""
    words = run.file("wait.txt").split()
    if len(words) < 5:
        return ""
    trail = [point.split(":") for point in words[5:]]
    return "; %s s beyond the first %d (%s at s: %s)" % (words[1], secs, words[2], ", ".join(
        "%s:%s" % (s, show(int(v))) for s, v in trail if v.isdigit()))


c = heatcheck.new_check("tierd_placement")
c.eq("exit status", c.rc(), 0)

# --- own ---------------------------------------------------------------------
own = Sub(c, "own")
# The placement at the ready line is not judged here: tierd runs before
# hotset starts, and soft-dirty heat sees the first touch's writes, so under
# a loaded host it may promote pages before hotset finished touching them
# (a soak run: {"-2": 102, "1": 13312, "2": 52122} at the ready line). The
# outcome judged is where the hot set is at the end.
ready, done = heatcheck.check_hotset(own, 256 * MIB, 48 * MIB, None, kept=False)
status = own.json_output("status.json")
w = workload(own, status)
own.eq("placement kernel_tiering", ((status or {}).get("placement") or {}).get("kernel_tiering"),
       "own")
heat = own.file("heat_source").strip()
if heat not in ("soft-dirty", "damon"):
    own.fail("heat_source file says %r, want soft-dirty or damon" % heat)
own.eq("heat source", w.get("heat_source"), heat)
before, during, after = knobs(own, "knobs.before"), knobs(own, "knobs.during"), knobs(own,
                                                                                      "knobs.after")
own.eq("knobs while tierd ran", during, {"numa_balancing": "0", "demotion_enabled": "false"})
own.eq("knobs after tierd stopped", after, before)
share = hot_on(done, 0)
heatcheck.at_least(c, "own: hot set on node 0 at the end", share, 0.8)
promoted = w.get("promoted_bytes") or 0
heatcheck.at_least(c, "own: promoted bytes in status", promoted, 48 * MIB * 0.8)
if not w.get("last_reasons"):
    own.fail("status has no last reasons for the workload: %s" % json.dumps(w)[:400])
kernel_promoted = None
b, a = counter(own, "vmstat.before", "pgpromote_success"), counter(own, "vmstat.after",
                                                                    "pgpromote_success")
if b is not None and a is not None:
    kernel_promoted = a - b
    own.eq("pages the kernel promoted itself", kernel_promoted, 0)
c.note("own (heat %s): hot set on node 0 %.3f, tierd promoted %.1f MiB, demoted %.1f MiB, reasons %s%s" %
       (heat, share, promoted / MIB, (w.get("demoted_bytes") or 0) / MIB,
        (w.get("last_reasons") or [""])[-1], waited(own, 30, lambda v: "%d MiB" % (v >> 20))))

# --- observe -----------------------------------------------------------------
obs = Sub(c, "observe")
ready, done = heatcheck.check_hotset(obs, 256 * MIB, 48 * MIB, {"2": PAGES}, kept=True)
status = obs.json_output("status.json")
w = workload(obs, status)
placement = (status or {}).get("placement") or {}
obs.eq("placement kernel_tiering", placement.get("kernel_tiering"), "observe")
obs.eq("promoted bytes", w.get("promoted_bytes"), 0)
obs.eq("move batches carried out", placement.get("moves_executed"), 0)
if not heatcheck.at_least(c, "observe: planned moves withheld", placement.get("moves_withheld"),
                          1):
    # What tierd saw, for the reader of a failed run (notes print on success only).
    log = [line for line in obs.file("tierd.log").splitlines()
           if "damon" in line or "heat source" in line or "heat_source" in line]
    obs.fail("tierd's heat at the end: source %s (%s), %s regions, %s samples in the last epoch, "
             "heat fast share %s%s; its log on heat: %s" %
             (w.get("heat_source"), placement.get("heat_source_why"), w.get("regions"),
              w.get("epoch_samples"), w.get("heat_fast_share"), waited(obs, 15, str),
              " | ".join(log[-3:]) or "nothing"))
obs.eq("last withheld reason", placement.get("last_withheld_reason"),
       "observe: tierd moves nothing")
obs.eq("knobs after tierd stopped", knobs(obs, "knobs.after"), knobs(obs, "knobs.before"))
c.note("observe: %s planned moves withheld, hot set on node 0 %.3f%s" %
       (placement.get("moves_withheld"), hot_on(done, 0), waited(obs, 15, str)))
c.finish()
