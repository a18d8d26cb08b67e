#!/usr/bin/python3
"""faults_cxl_gone: the CXL node's memory offlined and its dax device unbound
under tierd, then bound again.

- before: tierd demoted tier-touch A (32 MiB, 4 MiB fast-tier quota) to the
  CXL node: at least 24 MiB of it there;
- the kernel's answer to each block's offline and to the unbind is recorded
  (offline.txt, unbind.txt) and noted. When it migrated the pages away
  (every block offline), tierd must report the node without memory (absent
  or total 0, not placeable), count a topology change naming the node and
  rank the remaining nodes again (nodes 2-3 one tier below the CPU nodes);
  `tierctl topo` agrees; tier-touch C, over its quota while the node is
  away, is demoted to nodes 2-3, and no move to the CXL node is planned
  between tierd's "node N: gone / no memory" log line and its "node N: ...
  (was none)" line. When the kernel refused, the node keeps its memory and
  tierd must still be serving (the away checks do not apply);
- back: tierd reports the node with memory again, placeable, in a slower
  tier than the CPU nodes, and demotes tier-touch B (32 MiB) there: at least
  24 MiB on it;
- throughout: the same tierd pid alive and answering status at every step,
  exit 0 at SIGTERM; every verification of A, B and C (SIGUSR1: every page)
  has 0 bad pages."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

c = vmcheck.Check("faults_cxl_gone")
c.eq("exit status", c.rc(), 0)

cxl = re.match(r"cxl node (\d+) dax (\S+) driver (\S+) blocks (.*?) block_size", c.file("cxl.txt"))
if not cxl:
    c.fail("cxl.txt does not name the CXL node: %r" % c.file("cxl.txt")[:300])
    c.finish()
node, blocks = int(cxl.group(1)), cxl.group(4).split()
c.eq("dax driver at the start", cxl.group(3), "kmem")
if not blocks:
    c.fail("the CXL node has no memory blocks: %s" % c.file("cxl.txt"))

# --- waits: "WHAT: after S s; saw: ..." / "WHAT: not after S s; saw: ..." ---
waits = {}
for line in c.file("waits.txt").splitlines():
    m = re.match(r"(.*?): (not )?after ([0-9.]+) s; saw: (.*)", line)
    if m:
        waits[m.group(1)] = (m.group(2) is None, float(m.group(3)), m.group(4))


def waited(what):
    """The wait passed; a failure says what was waited for, how long, what was seen."""
    if what not in waits:
        c.fail("never waited for '%s' (the scenario stopped before)" % what)
        return False
    ok, secs, seen = waits[what]
    if not ok:
        c.fail("waited %s s for '%s'; last seen: %s" % (secs, what, seen))
    return ok


waited("A demoted to node %d" % node)

# --- what the kernel answered --------------------------------------------------
offline = {}
for line in c.file("offline.txt").splitlines():
    m = re.match(r"(memory\d+) rc (\d+) time ([0-9.]+) state (\S*) error (.*)", line)
    if m:
        offline[m.group(1)] = (int(m.group(2)), float(m.group(3)), m.group(4), m.group(5))
c.eq("blocks offlined (attempted)", sorted(offline), sorted(blocks))
migrated = bool(offline) and all(rc == 0 and state == "offline"
                                 for rc, _, state, _ in offline.values())
unbind = c.file("unbind.txt").strip()
c.note("kernel: %s; %s" % (", ".join(
    "%s %s in %.1f s%s" % (b, "offline" if rc == 0 and st == "offline" else "refused", t,
                           "" if err == "none" else " (%s)" % err)
    for b, (rc, t, st, err) in sorted(offline.items())), unbind))


def status(step):
    doc = c.json_output("%s.status.json" % step)
    return doc if isinstance(doc, dict) else {}


def node_entry(doc, wanted):
    return next((n for n in doc.get("nodes") or [] if n.get("id") == wanted), None)


# --- tierd: same process, serving, at every step ------------------------------
pid = c.file("tierd.pid").split()[-1] if c.file("tierd.pid").split() else None
for step in ("before", "gone", "away", "back", "after"):
    c.eq("%s: tierd pid and liveness" % step, c.file("%s.tierd" % step).split(), [pid, "alive"])
    c.eq("%s: status answered by the same tierd" % step, str(status(step).get("pid")), pid)
c.eq("tierd at SIGTERM", c.file("tierd.exit").strip(), "tierd exit 0")

# --- away ------------------------------------------------------------------------
log = c.file("tierd.log").splitlines()
gone_at = next((i for i, line in enumerate(log)
                if re.search(r"topology: node %d: (gone|no memory)" % node, line)), None)
back_at = next((i for i, line in enumerate(log) if gone_at is not None and i > gone_at and
                re.search(r"topology: node %d: \d+ MiB \(was none\)" % node, line)), None)
if migrated:
    waited("tierd reports node %d without memory" % node)
    gone = status("gone")
    entry = node_entry(gone, node)
    if entry is not None and (entry.get("total_bytes") != 0 or entry.get("placeable")):
        c.fail("gone: status lists node %d with memory or placeable: %s" % (node, entry))
    change = gone.get("last_topology_change") or {}
    if not any("node %d:" % node in line for line in change.get("nodes") or []):
        c.fail("gone: last_topology_change does not name node %d: %s" % (node, change))
    tiers = {n.get("id"): n.get("tier") for n in gone.get("nodes") or []}
    c.eq("gone: tiers re-ranked without the CXL node (nodes 0-3)",
         [tiers.get(i) for i in range(4)], [0, 0, 1, 1])
    topo = c.json_output("gone.topo.json") or {}
    seen = [n for n in topo.get("nodes") or []
            if n.get("id") == node and (n.get("memory_total_bytes") or 0) > 0]
    if seen:
        c.fail("gone: tierctl topo still shows node %d with memory: %s" % (node, seen))
    waited("C demoted to nodes 2-3")
    if gone_at is None or back_at is None:
        c.fail("tierd's log lacks the node going (%s) or coming back (%s)" % (gone_at, back_at))
    else:
        targeted = [line for line in log[gone_at:back_at] if "to node %d)" % node in line]
        if targeted:
            c.fail("moves planned to node %d while it was away: %s" % (node, targeted[:3]))
else:
    c.note("the kernel refused the offline: node %d kept memory; away checks skipped" % node)

# --- back --------------------------------------------------------------------------
waited("node %d has memory again" % node)
waited("tierd reports node %d with memory" % node)
back = status("back")
entry = node_entry(back, node) or {}
if not entry.get("placeable") or not entry.get("total_bytes"):
    c.fail("back: status does not list node %d with memory, placeable: %s" % (node, entry))
if not (entry.get("tier") or 0) > 0:
    c.fail("back: node %d ranked in the fast tier: %s" % (node, entry))
waited("B demoted to node %d" % node)
moved_back = [line for line in log[back_at or len(log):]
              if re.search(r"\(([1-9]\d*) KiB to node %d\)" % node, line)]
if not moved_back:
    c.fail("no move with bytes to node %d in tierd's log after it came back" % node)

# --- the workloads' data -------------------------------------------------------------
verified = bad = checks = 0
for name in ("a", "b", "c"):
    lines = [json.loads(line) for line in c.file("%s.out" % name).splitlines()
             if line.startswith("{")]
    start = next((d for d in lines if "pid" in d), None)
    results = [d for d in lines if "verified" in d]
    if start is None or not results:
        c.fail("tier-touch %s: no start line or no verification: %s" % (
            name, c.file("%s.out" % name)[:300]))
        continue
    for r in results:
        checks += 1
        verified += start["pages"]
        bad += r.get("bad_pages", 0)
        if not r.get("verified") or r.get("bad_pages"):
            c.fail("tier-touch %s: %s" % (name, r))
c.eq("bad pages", bad, 0)
verify_s = [line.split() for line in c.file("verify.txt").splitlines() if len(line.split()) == 2]
final = status("after")
c.note("%d verifications, %d pages verified, %d bad; topology changes %s; moves %s, "
       "failed pages %s; verifications took %s s; waits: %s" % (
           checks, verified, bad, final.get("topology_changes"),
           (final.get("placement") or {}).get("moves_executed"),
           [w.get("failed_pages") for w in (final.get("placement") or {}).get("workloads") or []],
           ", ".join("%s %s" % (n, t) for n, t in verify_s),
           "; ".join("%s %.1f s" % (k, v[1]) for k, v in waits.items())))
c.finish()
