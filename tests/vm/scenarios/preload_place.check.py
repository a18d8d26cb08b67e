#!/usr/bin/python3
"""preload_place: tier-alloc-hold's 256 MiB, allocated through malloc under
libtierpreload (`tierctl run -N 0 --preload POLICY`), is where the policy
says, checked from outside with `tierctl stats --pid --json`:
- `slow`: the kernel's residency has >= 256 MiB on the slow tier (nodes 2/3),
  and the library reports the same bytes on node 2 (the slow node nearest to
  node 0's CPUs);
- `weighted:0=3,2=1`: residency on node 2 is a quarter of the buffer (±5%) and
  node 0 holds at least the other three quarters; the library's own split is
  3:1 ±5%.
- `auto` with tierd running (paused) and the process registered as
  `offline` by `tierctl run --class offline`: the library's start line says
  tierd answered `slow`, and the buffer is on nodes 2/3 as for `slow`.
In every run tier-alloc-hold verified every page and exited 0."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

MIB = 1 << 20
BUFFER = 256 * MIB


def load(c, tag):
    text = c.file(tag + ".json").strip()
    try:
        return json.loads(text)
    except ValueError:
        c.fail("%s: tierctl stats --json is not JSON: %s | %s" % (
            tag, text[:300] or "<empty>", c.file(tag + ".stats.err")[:300]))
        return None


def residency(doc):
    return {n["node"]: n["bytes"] for n in doc.get("nodes", [])}


def placed(c, tag, doc):
    pre = doc.get("preload")
    if not isinstance(pre, dict):
        c.fail("%s: no 'preload' section in tierctl stats (library not loaded?)" % tag)
        return {}
    return {n["node"]: n["bytes"] for n in pre.get("nodes", [])}


def check_exit(c, tag):
    c.eq("%s: tier-alloc-hold exit status" % tag, c.file(tag + ".rc").strip(), "0")
    if '"bad_pages":0' not in c.file(tag + ".out"):
        c.fail("%s: tier-alloc-hold did not verify its pages: %s" % (tag, c.file(tag + ".out")[:300]))


def check_slow(c, tag):
    """The whole buffer on the slow tier, by the kernel and by the library."""
    doc = load(c, tag)
    if doc:
        res = residency(doc)
        slow = res.get(2, 0) + res.get(3, 0)
        if slow < BUFFER:
            c.fail("%s: %d MiB on nodes 2/3, want >= 256 (residency %s)" % (tag, slow // MIB, res))
        lib = placed(c, tag, doc)
        if lib.get(2, 0) < BUFFER:
            c.fail("%s: the library reports %s, want >= 256 MiB on node 2" % (tag, lib))
        c.note("%s: residency %s MiB" % (tag, {n: b // MIB for n, b in sorted(res.items())}))
    check_exit(c, tag)


def main():
    c = vmcheck.Check("preload_place")
    check_slow(c, "slow")

    doc = load(c, "weighted")
    if doc:
        res = residency(doc)
        c.within("weighted: residency on node 2 (MiB)", res.get(2, 0) / MIB, 64 * 0.95, 64 * 1.05)
        if res.get(0, 0) < BUFFER * 3 // 4:
            c.fail("weighted: node 0 holds %d MiB, want >= 192" % (res.get(0, 0) // MIB))
        lib = placed(c, "weighted", doc)
        if lib.get(2, 0):
            c.within("weighted: the library's node 0 : node 2 ratio", lib.get(0, 0) / lib[2],
                     3 * 0.95, 3 * 1.05)
        else:
            c.fail("weighted: the library reports nothing on node 2: %s" % lib)
        c.note("weighted: residency %s MiB" % {n: b // MIB for n, b in sorted(res.items())})
    check_exit(c, "weighted")

    if os.path.exists(os.path.join(c.dir, "auto.skipped")):
        c.note("auto: not run (%s)" % c.file("auto.skipped").strip())
    else:
        if "(tierd: slow)" not in c.file("auto.err"):
            c.fail("auto: the library did not get 'offline' from tierd: %s" % c.file("auto.err")[:400])
        check_slow(c, "auto")
    c.finish()


if __name__ == "__main__":
    main()
