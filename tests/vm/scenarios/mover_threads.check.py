#!/usr/bin/python3
"""mover_threads: PageMover with 1-4 threads vs the kernel's migrate_pages(2),
five rounds of 64 MiB each (node 2 -> node 0). Asserts every run exited 0,
moved the whole buffer to node 0 and verified its data; reports MB/s (10^6
bytes/s, each side timed around its own syscalls) per contender: every
round, fastest, median, and each one's fastest over migrate_pages' fastest.
Writes out/mover_threads/results.json."""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

BUFFER = 64 * 2**20
c = vmcheck.Check("mover_threads")
c.eq("exit status", c.rc(), 0)


def verified(tag):
    lines = []
    for line in c.file("touch-%s.out" % tag).splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            pass
    checks = [d for d in lines if "verified" in d]
    return bool(checks) and checks[-1].get("verified") is True and \
        list(checks[-1].get("nodes", {}).keys()) == ["0"]


results = {}
for name in ["migrate_pages"] + ["threads%d" % t for t in (1, 2, 3, 4)]:
    rounds = []
    for r in range(1, 6):
        tag = "%s-%d" % (name, r)
        c.eq("%s exit" % tag, c.file(tag + ".rc").strip(), "0")
        c.eq("%s: whole buffer on node 0, data verified" % tag, verified(tag), True)
        out = c.json_output(tag + ".json") or {}
        seconds = out.get("seconds") or 0
        moved = out.get("bytes_moved", BUFFER if name == "migrate_pages" else 0)
        if seconds > 0:
            rounds.append(moved / seconds / 1e6)
    if rounds:
        results[name] = {"rounds": [round(x, 1) for x in rounds], "fastest": max(rounds),
                         "median": statistics.median(rounds)}
base = results.get("migrate_pages", {}).get("fastest")
summary = []
for name, r in results.items():
    if base and name != "migrate_pages":
        r["fastest_over_migrate_pages"] = round(r["fastest"] / base, 2)
    summary.append("%s %.0f/%.0f" % (name, r["fastest"], r["median"]))
c.note("MB/s fastest/median: " + ", ".join(summary))
if base:
    c.note("fastest over migrate_pages: " + ", ".join(
        "%s %.2f" % (n, r["fastest_over_migrate_pages"]) for n, r in results.items()
        if n != "migrate_pages"))
with open(os.path.join(c.dir, "results.json"), "w", encoding="utf-8") as f:
    json.dump(results, f, indent=1)
c.finish()
