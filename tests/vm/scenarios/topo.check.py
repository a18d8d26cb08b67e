#!/usr/bin/python3
"""topo: `tierctl topo --json` (schema tier.topology/v1) reports exactly the
guest's nodes, CPUs, distances, HMAT figures and memory tiers, as sysfs shows
them in the same boot and as recorded in expect/MODE.json, and ranks the
nodes into tiers as expected."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

PERF_KEYS = ["read_latency_ns", "write_latency_ns", "read_bandwidth_mbps", "write_bandwidth_mbps"]
KINDS = ["dram", "hbm", "pmem", "cxl", "cpuless"]
TIER_SOURCES = ["kernel", "hmat", "slit", "config", "single"]
DEVICE_TYPES = ["gpu", "nic", "nvme", "cxl", "storage", "other"]

c = vmcheck.Check("topo")
f, x = c.facts, c.expect


def check_nodes(doc):
    nodes = doc.get("nodes", [])
    c.eq("node ids", sorted(n.get("id") for n in nodes), [n["id"] for n in x["nodes"]])
    got = {n.get("id"): n for n in nodes}
    for want in x["nodes"]:
        nid = want["id"]
        n = got.get(nid)
        if n is None:
            continue
        what = "node%d" % nid
        c.eq(what + " cpus", n.get("cpus"), want["cpus"])
        c.eq(what + " cpulist", n.get("cpulist"),
             f.read("/sys/devices/system/node/node%d/cpulist" % nid))
        c.allowed(what + " kind", n.get("kind"), want["kind"])
        c.allowed(what + " tier", n.get("tier"), want["tier"])
        c.allowed(what + " tier_source", n.get("tier_source"), TIER_SOURCES)
        c.eq(what + " kernel_memory_tier", n.get("kernel_memory_tier"), want["kernel_memory_tier"])
        total, sysfs_total = n.get("memory_total_bytes"), f.mem_total_bytes(nid)
        lo, hi = want["memory_bytes_range"]
        c.within(what + " memory_total_bytes", total, lo, hi)
        if isinstance(total, int) and sysfs_total and abs(total - sysfs_total) > sysfs_total // 200:
            c.fail("%s memory_total_bytes %d, sysfs MemTotal says %d" % (what, total, sysfs_total))
        free = n.get("memory_free_bytes")
        if not isinstance(free, int) or not isinstance(total, int) or not 0 < free <= total:
            c.fail("%s memory_free_bytes %r not in (0, memory_total_bytes]" % (what, free))
        if not n.get("kind_evidence"):
            c.fail(what + " has no kind_evidence")


def check_perf(doc):
    """Every HMAT figure sysfs shows must be reported with its value; any
    further pair (tier may read the raw HMAT table) must be what QEMU was
    configured with, in sysfs units."""
    perf = doc.get("perf", [])
    reported = {}
    for e in perf:
        key = (e.get("access_class"), e.get("initiator"), e.get("target"))
        if key in reported:
            c.fail("perf entry %s reported twice" % (key,))
        reported[key] = e
        c.eq("perf %s source" % (key,), e.get("source"), "hmat")
    sysfs = {(e["access_class"], e["initiator"], e["target"]): e for e in f.hmat()}
    for key, want in sysfs.items():
        if key[0] == 0 and key not in reported:
            c.fail("perf lacks access0 %d->%d that sysfs shows" % key[1:])
    configured = vmcheck.configured_hmat(c.topology)
    for key, e in reported.items():
        got = {k: e.get(k) for k in PERF_KEYS}
        if key in sysfs:
            c.eq("perf access%s %s->%s vs sysfs" % key, got,
                 {k: sysfs[key][k] for k in PERF_KEYS})
        elif (key[1], key[2]) in configured:
            c.eq("perf access%s %s->%s vs QEMU config" % key, got, configured[(key[1], key[2])])
        else:
            c.fail("perf access%s %s->%s: neither sysfs nor the QEMU config has it" % key)
    # sysfs shows only each node's best initiator; tier reads the rest from the
    # raw ACPI HMAT, so every configured pair must be there (with its value,
    # checked above).
    pairs = {(k[1], k[2]) for k in reported}
    for pair in sorted(configured):
        if pair not in pairs:
            c.fail("perf lacks configured HMAT pair %d->%d (full matrix from the ACPI table)" % pair)


def check_devices(doc):
    # sysfs numa_node -1 (no affinity) may be reported as -1 or null.
    devices = [dict(d, numa_node=-1 if d.get("numa_node") is None else d.get("numa_node"))
               for d in doc.get("devices", [])]
    pci = f.pci_devices()
    for d in devices:
        c.allowed("device %s type" % d.get("pci"), d.get("type"), DEVICE_TYPES)
        if d.get("pci") in pci:
            c.eq("device %s numa_node" % d["pci"], d["numa_node"], pci[d["pci"]]["numa_node"])
        else:
            c.fail("device %s is not a PCI device of the guest" % d.get("pci"))
    for want in x.get("devices", []):
        if not any(all(d.get(k) == v for k, v in want.items()) for d in devices):
            c.fail("no device %s among %s" % (want, devices))


c.eq("exit status", c.rc(), 0)
doc = c.json_output()
if isinstance(doc, dict):
    c.eq("schema", doc.get("schema"), "tier.topology/v1")
    check_nodes(doc)
    c.eq("distances", doc.get("distances"), x["distances"])
    check_perf(doc)
    c.eq("memory_tiers", doc.get("memory_tiers"), x["memory_tiers"])
    c.allowed("tier_source", doc.get("tier_source"), x["tier_source"])
    check_devices(doc)
    c.note("tier_source %s, tiers %s" % (doc.get("tier_source"), " ".join(
        "node%s:%s" % (n.get("id"), n.get("tier")) for n in doc.get("nodes", []))))
elif doc is not None:
    c.fail("output is not a JSON object")
c.finish()
