#!/usr/bin/python3
"""migrate: `tierctl migrate --pid P --to 0 --range BUFFER --json` moved every
page of tier-touch's 64 MiB buffer from node 2 to node 0, and nothing else:
requested_pages == moved_pages == the buffer's pages, no failures, bytes_moved
== the buffer's size. Afterwards the kernel's numa_maps (the buffer's VMA),
tier-touch's own move_pages query and `tierctl stats` all put the buffer on
node 0 and nothing of the process on node 2 (before the move the buffer was
the only thing on node 2: asserted from numa_maps.before). tier-touch
verifies every page (bad_pages 0). Also imported by the other migration
checks (migrate_concurrent, stats_numa_maps) for its helpers."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

FAIL_REASONS = ["busy", "no_memory", "not_present", "process_gone", "permission", "other"]


def parse_numa_maps(text):
    """[{'start': int, 'policy': str, 'kpage': bytes, 'nodes': {node: pages}, 'line': str}]"""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        try:
            start = int(parts[0], 16)
        except ValueError:
            continue
        nodes, kpage = {}, 4096
        for p in parts[2:]:
            m = re.fullmatch(r"N(\d+)=(\d+)", p)
            if m:
                nodes[int(m.group(1))] = int(m.group(2))
            m = re.fullmatch(r"kernelpagesize_kB=(\d+)", p)
            if m:
                kpage = int(m.group(1)) * 1024
        out.append({"start": start, "policy": parts[1], "kpage": kpage, "nodes": nodes,
                    "line": line})
    return out


def numa_maps_bytes_per_node(vmas):
    """{node: bytes}: N<node>=<pages> x kernelpagesize over all mappings."""
    total = {}
    for v in vmas:
        for node, pages in v["nodes"].items():
            total[node] = total.get(node, 0) + pages * v["kpage"]
    return total


def json_lines(text):
    """Every line of text that parses as a JSON object."""
    out = []
    for line in text.splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict):
            out.append(doc)
    return out


def touch_docs(c):
    """(start line, [verify lines]) of tier-touch's stdout (touch.out)."""
    docs = json_lines(c.file("touch.out"))
    start = next((d for d in docs if "pid" in d), None)
    if start is None:
        c.fail("tier-touch printed no start line: %s" % (c.file("touch.err").strip()[:300],))
    return start, [d for d in docs if "verified" in d]


def load_json_file(c, name, what):
    text = c.file(name).strip()
    try:
        doc = json.loads(text)
    except ValueError as e:
        c.fail("%s is not JSON (%s): %s | stderr: %s" % (what, e, text[:300] or "<empty>",
                                                         c.file(name.replace(".json", ".err"))[:300]))
        return None
    if not isinstance(doc, dict):
        c.fail("%s is not a JSON object" % what)
        return None
    return doc


def stats_bytes_per_node(c, stats, what="stats"):
    """{node: bytes} from `tierctl stats --json`, schema-checked."""
    out = {}
    nodes = stats.get("nodes")
    if not isinstance(nodes, list):
        c.fail("%s: no 'nodes' list" % what)
        return out
    for n in nodes:
        node, b = n.get("node"), n.get("bytes")
        if not isinstance(node, int) or not isinstance(b, int):
            c.fail("%s: node entry without integer node/bytes: %s" % (what, n))
            continue
        out[node] = b
        for k in ("pages_4k", "huge_bytes"):
            if not isinstance(n.get(k), int):
                c.fail("%s: node %d has no integer %s" % (what, node, k))
    tiers = stats.get("tiers")
    if not isinstance(tiers, list) or not all(isinstance(t.get("bytes"), int) for t in tiers):
        c.fail("%s: 'tiers' is not a list of {tier, bytes}: %s" % (what, tiers))
    elif sum(t["bytes"] for t in tiers) != sum(out.values()):
        c.fail("%s: tiers add up to %d bytes, nodes to %d" % (
            what, sum(t["bytes"] for t in tiers), sum(out.values())))
    return out


def check_migrate_doc(c, doc, pages, page_size):
    """The contract's fields, and a complete move of `pages` pages."""
    for k in ("requested_pages", "moved_pages", "already_there", "seconds", "mbps",
              "bytes_moved", "stop_reason"):
        if k not in doc:
            c.fail("migrate JSON lacks '%s': %s" % (k, doc))
    failed = doc.get("failed")
    if not isinstance(failed, dict):
        c.fail("migrate JSON 'failed' is not an object: %s" % (failed,))
        failed = {}
    # Reasons beyond the contract (tierctl's "skipped"): reported when they
    # counted a page, not a failure by itself.
    extra = sorted(r for r in failed if r not in FAIL_REASONS and failed[r])
    if extra:
        c.note("failure reasons beyond the contract: %s" % ", ".join(
            "%s=%s" % (r, failed[r]) for r in extra))
    c.eq("requested_pages (the buffer's pages)", doc.get("requested_pages"), pages)
    c.eq("moved_pages (the buffer's pages)", doc.get("moved_pages"), pages)
    c.eq("already_there", doc.get("already_there"), 0)
    c.eq("failed pages", {k: v for k, v in failed.items() if v}, {})
    c.eq("bytes_moved", doc.get("bytes_moved"), pages * page_size)
    secs, mbps = doc.get("seconds"), doc.get("mbps")
    if not isinstance(secs, (int, float)) or secs <= 0:
        c.fail("seconds %r is not positive" % (secs,))
    if not isinstance(mbps, (int, float)) or mbps <= 0:
        c.fail("mbps %r is not positive" % (mbps,))
    return failed


def buffer_vma(c, vmas, addr, what):
    v = next((v for v in vmas if v["start"] == addr), None)
    if v is None:
        c.fail("%s has no mapping starting at the buffer %#x" % (what, addr))
    return v


def run(name, concurrent):
    c = vmcheck.Check(name)
    c.eq("exit status", c.rc(), 0)
    if c.rc() == 127:
        c.finish()
    start, verifies = touch_docs(c)
    if start is None:
        c.finish()
    pages, page_size, size = start["pages"], start["page_size"], start["size"]
    addr = int(start["addr"], 16)
    c.eq("tier-touch first touch on node 2", start.get("resident"), {"2": pages})

    before = parse_numa_maps(c.file("numa_maps.before"))
    v = buffer_vma(c, before, addr, "numa_maps.before")
    if v:
        c.eq("numa_maps.before buffer nodes", v["nodes"], {2: pages})
    c.eq("numa_maps.before: bytes on node 2 (only the buffer)",
         numa_maps_bytes_per_node(before).get(2, 0), size)

    c.eq("tierctl migrate exit status", c.file("migrate.rc").strip(), "0")
    doc = load_json_file(c, "migrate.json", "tierctl migrate --json")
    if doc:
        check_migrate_doc(c, doc, pages, page_size)

    after = parse_numa_maps(c.file("numa_maps.after"))
    v = buffer_vma(c, after, addr, "numa_maps.after")
    if v:
        c.eq("numa_maps.after buffer nodes", v["nodes"], {0: pages})
    c.eq("numa_maps.after: bytes on node 2", numa_maps_bytes_per_node(after).get(2, 0), 0)

    c.eq("tierctl stats exit status", c.file("stats.rc").strip(), "0")
    stats = load_json_file(c, "stats.json", "tierctl stats --json")
    if stats:
        per_node = stats_bytes_per_node(c, stats)
        c.eq("stats: bytes on node 2", per_node.get(2, 0), 0)
        if per_node.get(0, 0) < size:
            c.fail("stats: node 0 holds %d bytes, less than the %d-byte buffer" % (
                per_node.get(0, 0), size))

    if not verifies:
        c.fail("tier-touch never answered SIGUSR1")
    else:
        last = verifies[-1]
        c.eq("verified", last.get("verified"), True)
        c.eq("bad_pages", last.get("bad_pages"), 0)
        c.eq("tier-touch's own residency query", last.get("nodes"), {"0": pages})
        if concurrent:
            if not last.get("writes", 0) > pages or last.get("generation_max", 0) < 3:
                c.fail("the writer barely ran (writes %s, generation_max %s): not a concurrent test"
                       % (last.get("writes"), last.get("generation_max")))
    c.eq("tier-touch exit status", c.file("touch.rc").strip(), "0")
    if doc:
        c.note("%d pages in %.2f s, %.1f MB/s%s" % (
            doc.get("moved_pages", 0), doc.get("seconds", 0), doc.get("mbps", 0),
            ", writer at generation %s, %s page writes" % (
                verifies[-1].get("generation_max"), verifies[-1].get("writes"))
            if concurrent and verifies else ""))
    c.finish()


if __name__ == "__main__":
    run("migrate", False)
