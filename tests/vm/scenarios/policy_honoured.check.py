#!/usr/bin/python3
"""policy_honoured: tierd never moves a page against the process's own
memory policy (policy_honoured.sh has the five hotsets).
  - free (no policy of its own): tierd promoted it, >= 90 % of its hot set
    on the fast nodes 0-1 at the end (hotset's own move_pages query);
  - vma_bind, task_bind, preferred, interleave: numa_maps shows the policy
    each asked for on its buffer; every page of it is where that policy
    lets it be (none on the fast nodes), tierd promoted 0 bytes of it, and
    tierd refused some (not_moved_pages.against_policy > 0, the reason
    naming the policy): it planned them and honoured the policy;
  - every hotset verified its pages and exited 0; tierd exited 0."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import discovercheck  # noqa: E402
import vmcheck  # noqa: E402

MIB = 1 << 20
PAGE = 4096
HOT_PAGES = 16 * MIB // PAGE
FAST = ("0", "1")
# name: (policy numa_maps shows on the buffer, nodes its pages may be on)
BOUND = {
    "vma_bind": ("bind:2", {"2"}),
    "task_bind": ("bind:2-3", {"2", "3"}),
    "preferred": ("prefer:3", {"3"}),
    "interleave": ("interleave:2-3", {"2", "3"}),
}


def buffer_policy(c, name, base):
    """The policy numa_maps printed for the mapping holding `base` (the last
    one starting at or below it: hotset's buffer may have merged with the
    mapping before it once its own policy was dropped)."""
    holder = None
    for line in c.file(name + ".numa_maps").splitlines():
        words = line.split(" ", 1)
        try:
            start = int(words[0], 16)
        except ValueError:
            continue
        if len(words) == 2 and start <= base and (holder is None or start > holder[0]):
            holder = (start, words[1])
    if holder is None:
        return None
    rest = holder[1]
    for two in ("weighted interleave", "prefer (many)"):
        if rest.startswith(two):
            return two + rest[len(two):].split(" ", 1)[0]
    return rest.split(" ", 1)[0]


c = vmcheck.Check("policy_honoured")
c.eq("tierd exit status", c.file("tierd.rc").strip(), "0")
status = c.json_output("status.json") or {}
listed = c.json_output("workloads.json") or {}
placement = status.get("placement") or {}
by_id = {w.get("id"): w for w in placement.get("workloads", [])}


def tierd_view(name, pid):
    for w in listed.get("workloads", []):
        if w.get("pid") == pid:
            return by_id.get(w.get("id"))
    return None


refused_total = (placement.get("not_moved_pages") or {}).get("against_policy", 0)
notes = []
for name in ["free"] + sorted(BOUND):
    pid_text = c.file(name + ".pid").strip()
    pid = int(pid_text) if pid_text.isdigit() else None
    lines = discovercheck.lines(c, name + ".out")
    ready = lines[0] if lines else {}
    end = lines[-1] if len(lines) > 1 else {}
    c.eq("%s exit status" % name, c.file(name + ".rc").strip(), "0")
    c.eq("%s verified" % name, end.get("verified"), True)
    c.eq("%s bad pages" % name, end.get("bad_pages"), 0)
    view = tierd_view(name, pid)
    if not c.eq("%s (pid %s) is a workload tierd places" % (name, pid), view is not None, True):
        continue
    not_moved = view.get("not_moved_pages") or {}
    if name == "free":
        hot = (end.get("hot_resident") or [{}])[0]
        share = sum(hot.get(n, 0) for n in FAST) / HOT_PAGES
        c.within("free: hot set share on nodes 0-1 at the end", share, 0.9, 1.0)
        c.within("free: bytes tierd promoted (MiB)", view.get("promoted_bytes", 0) / MIB, 1,
                 float("inf"))
        c.eq("free: pages refused by policy", not_moved.get("against_policy"), 0)
        notes.append("free %.2f on fast, %.0f MiB promoted" %
                     (share, view.get("promoted_bytes", 0) / MIB))
        continue
    policy, allowed = BOUND[name]
    c.eq("%s: policy of its buffer in numa_maps" % name,
         buffer_policy(c, name, ready.get("base", -1)), policy)
    nodes = end.get("nodes") or {}
    c.eq("%s: pages outside %s" % (name, sorted(allowed)),
         {n: p for n, p in nodes.items() if n not in allowed and p > 0}, {})
    c.eq("%s: pages of it on the whole" % name, sum(nodes.values()), 64 * MIB // PAGE)
    c.eq("%s: bytes tierd promoted" % name, view.get("promoted_bytes"), 0)
    refused = not_moved.get("against_policy", 0)
    c.within("%s: pages tierd planned and left (against_policy)" % name, refused, 1,
             float("inf"))
    reasons = " | ".join(view.get("last_reasons") or [])
    if refused and "memory policy %s excludes node" % policy not in reasons:
        c.fail("%s: no reason names its policy %s: %s" % (name, policy, reasons[:300]))
    notes.append("%s %d pages refused (%.1f rounds of its hot set), self-placed %.0f MiB" %
                 (name, refused, refused / HOT_PAGES, view.get("self_placed_bytes", 0) / MIB))
c.within("against_policy in total", refused_total, 1, float("inf"))
c.note("; ".join(notes) + "; " + c.file("wait.txt").strip()[:200])
c.finish()
