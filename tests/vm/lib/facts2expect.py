#!/usr/bin/python3
"""Draft an expected-results file (tests/vm/expect/MODE.json) from one run.

usage: facts2expect.py MODE KERNEL BUILD/vm/runs/MODE/out > tests/vm/expect/MODE.json

Reads the sysfs facts of a finished run and prints them in the expect
format. It is a starting point, not a rubber stamp: review every value
against the topology (tests/vm/topology/*.json) and fix by hand what tier
should conclude (node "kind", "tier" rank, "tier_source") and what the
doctor checks should say, before committing.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmcheck  # noqa: E402  (after the path tweak)


def dump(doc):
    """JSON with one line per top-level key or list item: easy to review
    and to diff, unlike json.dumps(indent=...) which puts every number on
    its own line."""
    lines = []
    for i, (key, value) in enumerate(doc.items()):
        comma = "," if i < len(doc) - 1 else ""
        if isinstance(value, list) and value and isinstance(value[0], dict):
            items = [" " * 4 + json.dumps(v) for v in value]
            lines.append("  %s: [\n%s\n  ]%s" % (json.dumps(key), ",\n".join(items), comma))
        else:
            lines.append("  %s: %s%s" % (json.dumps(key), json.dumps(value), comma))
    return "{\n" + "\n".join(lines) + "\n}"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    mode, kernel, out = sys.argv[1:]
    facts = vmcheck.Facts(os.path.join(out, "_facts"))
    tiers = facts.memory_tiers()
    tier_of = {n: t["id"] for t in tiers for n in t["nodes"]}
    rank = {tid: i for i, tid in enumerate(sorted({t["id"] for t in tiers}))}
    devices = facts.memory_devices()
    dev_node = {d["node"]: d["bus"] for d in devices}
    nodes = []
    for n in facts.nodes():
        total = facts.mem_total_bytes(n)
        cpus = facts.cpus(n)
        kind = "dram" if cpus else {"nd": "pmem", "cxl": "cxl"}.get(dev_node.get(n), "cpuless")
        nodes.append({"id": n, "cpus": cpus, "kind": kind,
                      "tier": rank.get(tier_of.get(n)),
                      "kernel_memory_tier": tier_of.get(n),
                      "memory_total_bytes": total,
                      "memory_bytes_range": [int(total * 0.97), int(total * 1.03)] if total else None})
    ids = facts.nodes()
    draft = {
        "mode": mode,
        "kernel": kernel,
        "kernel_release": (facts.read("/proc/version", "").split() + ["?"] * 3)[2],
        "nodes": nodes,
        "distances": {"nodes": ids, "matrix": [facts.distance_row(n) for n in ids]},
        "hmat": facts.hmat(),
        "memory_tiers": tiers,
        "tier_source": "kernel" if len(tiers) > 1 else "hmat",
        "memory_devices": devices,
        "devices": [],
        "doctor": {},
    }
    print(dump(draft))


if __name__ == "__main__":
    main()
