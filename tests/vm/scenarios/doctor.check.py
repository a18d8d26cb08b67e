#!/usr/bin/python3
"""doctor: `tierctl doctor --json` exits 0 and reports the guest kernel's
features as recorded in expect/MODE.json ("doctor": {check: status}), and
lists the heat sources in auto order with the availability recorded there
("heat_sources": {name: available}), each with a reason."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

REQUIRED = ["btf", "kprobes", "damon_vaddr", "soft_dirty", "numa_balancing", "pagemap_scan",
            "damon_node_goals", "weighted_interleave_auto"]
STATUSES = ["ok", "missing", "error"]
HEAT_ORDER = ["pmu", "bpf-fault", "damon", "soft-dirty", "idle-page", "perf-fault"]

c = vmcheck.Check("doctor")
c.eq("exit status", c.rc(), 0)
doc = c.json_output()
if doc is not None:
    checks = doc.get("checks") if isinstance(doc, dict) else None
    if not isinstance(checks, list):
        c.fail("no 'checks' list in the output")
        checks = []
    by_name = {}
    for i, chk in enumerate(checks):
        missing = [k for k in ("name", "status", "detail", "impact") if k not in chk]
        if missing:
            c.fail("check #%d lacks %s" % (i, ", ".join(missing)))
            continue
        c.allowed("%s status" % chk["name"], chk["status"], STATUSES)
        by_name[chk["name"]] = chk
    for name in REQUIRED:
        if name not in by_name:
            c.fail("no '%s' check" % name)
    for name, want in c.expect.get("doctor", {}).items():
        if name in by_name and by_name[name]["status"] != want:
            c.fail("%s: status %s, want %s (detail: %s)" % (
                name, by_name[name]["status"], want, by_name[name]["detail"]))
    c.note(" ".join("%s=%s" % (k, by_name[k]["status"]) for k in REQUIRED if k in by_name))
    sources = doc.get("heat_sources") if isinstance(doc, dict) else None
    if not isinstance(sources, list):
        c.fail("no 'heat_sources' list in the output")
        sources = []
    c.eq("heat sources in auto order", [s.get("name") for s in sources], HEAT_ORDER)
    for s in sources:
        if not s.get("reason"):
            c.fail("heat source %s has no reason" % s.get("name"))
    got = {s.get("name"): s.get("available") for s in sources}
    c.eq("heat sources available", got, c.expect.get("heat_sources", {}))
    c.note("heat sources: " + " ".join(n for n in HEAT_ORDER if got.get(n)))
c.finish()
